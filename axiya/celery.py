"""The Celery app. Queues: `cpu` (validate, rasterize, OCR, assemble) and `gpu` (model pages)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")

app = Celery("axiya")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_routes = {"conversion.tasks.page_read_gpu": {"queue": "gpu"}}
app.autodiscover_tasks()
