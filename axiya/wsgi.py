import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
application = get_wsgi_application()

from axiya.checks import refuse_unsafe_start  # noqa: E402  (needs the apps loaded)

refuse_unsafe_start()

from conversion.dispatch import start_inline_runner  # noqa: E402

start_inline_runner()  # without a broker: jobs a previous run left unfinished are picked up
