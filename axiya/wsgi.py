import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")


# Reads of what is left of a request body, after the answer (bytes).
DRAIN_CHUNK_BYTES = 64 * 1024


def behind_front(app):
    """The client's address for a request the front (deploy/nginx) passed on: gunicorn gives a
    peer on its unix socket no address, and only the front connects there (`make serve`,
    docker-compose), replacing whatever X-Forwarded-For the client sent with the address it saw.
    Over TCP (gunicorn published directly) REMOTE_ADDR stays the peer's: a client cannot pick
    its own address for the sign-in and token lockouts.

    A request from the front is also read to its end before the answer goes back: Django may
    answer (401, 413) without reading the body, and gunicorn closing the socket with the body
    still unread resets it under nginx, which then told the client 502 instead of the answer
    (1 in 20 refused 3 MiB uploads). The front has the whole body already (it buffers it, within
    the request cap), so reading the rest costs no waiting on the client."""

    def application(environ, start_response):
        from_front = not environ.get("REMOTE_ADDR")
        forwarded = environ.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded and from_front:
            environ["REMOTE_ADDR"] = forwarded.rsplit(",", 1)[-1].strip()
        response = app(environ, start_response)
        if from_front:
            _read_to_end(environ["wsgi.input"])
        return response

    return application


def _read_to_end(body) -> None:
    try:
        while body.read(DRAIN_CHUNK_BYTES):
            pass
    except OSError:  # the front went away: gunicorn closes the connection anyway
        pass


application = behind_front(get_wsgi_application())

from axiya.checks import refuse_unsafe_start  # noqa: E402  (needs the apps loaded)

refuse_unsafe_start()

from conversion.dispatch import start_inline_runner  # noqa: E402

start_inline_runner()  # without a broker: jobs a previous run left unfinished are picked up
