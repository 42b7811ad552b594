import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
application = get_wsgi_application()

from axiya.checks import refuse_unsafe_start  # noqa: E402  (needs the apps loaded)

refuse_unsafe_start()
