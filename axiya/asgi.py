import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
application = get_asgi_application()

from axiya.checks import refuse_unsafe_start  # noqa: E402  (needs the apps loaded)

refuse_unsafe_start()
