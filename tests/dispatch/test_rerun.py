"""A reviewer's "read this page again" is queued on the engine's queue, never run in the request."""

from __future__ import annotations

import json

import pytest
import redis

from axiya.celery import app
from conversion import engines
from conversion.models import Job, JobStatus, ReviewEvent
from conversion.runner import jobs as runner
from tests.conftest import CORPUS, create_reviewer


@pytest.fixture
def broker(redis_url, settings):
    """Celery mode on the test's redis, with no worker: queued messages stay to be looked at."""
    settings.AXIYA_INLINE_WORKER = False
    settings.CELERY_BROKER_URL = redis_url
    app.conf.broker_url = redis_url  # as celery_worker_process does: one redis a session
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    yield client
    client.flushdb()


@pytest.mark.django_db
def test_a_gemma_rerun_is_queued_on_the_gpu_queue(broker, settings, gemma_tiny_package, client):
    settings.AXIYA_MODEL_DIR = str(gemma_tiny_package)  # the gemma engine is configured
    engines.drop("gemma")
    job = runner.job_create(owner=None, upload=CORPUS / "linn.pdf", engine="gemma")
    runner.job_prepare(job_id=job.id)  # rasterized: the page has a scan to read again
    Job.objects.filter(pk=job.id).update(status=JobStatus.NEEDS_REVIEW)
    reviewer = create_reviewer()
    client.force_login(reviewer)

    response = client.post(f"/review/{job.id}/pages/1/decision", {"decision": "rerun"})

    assert response.status_code == 302
    assert not engines.is_loaded("gemma")  # no model was loaded in the web process
    assert not ReviewEvent.objects.filter(job=job).exists()  # nothing was read yet
    (message,) = broker.lrange("gpu", 0, -1)
    headers = json.loads(message)["headers"]
    assert headers["task"] == "conversion.dispatch.tasks.page_rerun_task"
    assert json.loads(headers["argsrepr"].replace("'", '"').replace("None", "null")) == [
        str(job.id),
        1,
        reviewer.pk,
    ]
    assert broker.llen("cpu") == 0
