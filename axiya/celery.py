"""The Celery app. Queues: `cpu` (validate, rasterize, OCR, assemble) and `gpu` (model pages)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")

app = Celery("axiya")
app.config_from_object("django.conf:settings", namespace="CELERY")
# Every task names its queue when it is sent (conversion.dispatch.tasks); they live there.
app.autodiscover_tasks(["conversion.dispatch"])
