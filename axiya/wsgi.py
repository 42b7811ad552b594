import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")


def behind_front(app):
    """The client's address for a request the front (deploy/nginx) passed on: gunicorn gives a
    peer on its unix socket no address, and only the front connects there (`make serve`,
    docker-compose), replacing whatever X-Forwarded-For the client sent with the address it saw.
    Over TCP (gunicorn published directly) REMOTE_ADDR stays the peer's: a client cannot pick
    its own address for the sign-in and token lockouts."""

    def application(environ, start_response):
        forwarded = environ.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded and not environ.get("REMOTE_ADDR"):
            environ["REMOTE_ADDR"] = forwarded.rsplit(",", 1)[-1].strip()
        return app(environ, start_response)

    return application


application = behind_front(get_wsgi_application())

from axiya.checks import refuse_unsafe_start  # noqa: E402  (needs the apps loaded)

refuse_unsafe_start()

from conversion.dispatch import start_inline_runner  # noqa: E402

start_inline_runner()  # without a broker: jobs a previous run left unfinished are picked up
