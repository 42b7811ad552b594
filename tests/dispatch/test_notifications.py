"""Notifications end to end: a job posted through the API with a callback_url is converted by a
real Celery worker over a real Redis, and its webhook is delivered by a second worker on the
housekeeping queue (never the conversion worker) to a real loopback receiver: signed, retried
after a 500, refused at submit time for a host not allowed."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from conversion import services, webhooks
from conversion.models import Job, JobStatus, Notification
from tests.api.test_api import api_for, error_of, pdf_upload
from tests.reliability.conftest import (
    Redis,
    wait_for,
    workers_on,  # noqa: F401 (the fixture, shared)
)
from tests.webhook_receiver import Receiver

FINISHED = (JobStatus.DONE, JobStatus.NEEDS_REVIEW)
WORKER_ENV = {
    "AXIYA_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1",
    "AXIYA_WEBHOOK_BACKOFF_S": "1",
    "AXIYA_WEBHOOK_ATTEMPTS": "3",
}


@pytest.fixture
def redis_server(tmp_path_factory):
    server = Redis(tmp_path_factory.mktemp("redis-notify"))
    server.start(persistent=False)
    yield server
    server.stop()


@pytest.fixture
def receiver(settings):
    settings.AXIYA_WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    cache.clear()  # the upload throttle
    server = Receiver(statuses=[500, 200])
    yield server
    server.stop()


@pytest.mark.slow
def test_a_job_webhook_is_signed_and_retried_after_a_500(
    workers_on,  # noqa: F811 (the reliability tests' fixture)
    redis_server,
    receiver,
    alice,
):
    workers = workers_on(redis_server.url)
    workers.start(queues="cpu,gpu", **WORKER_ENV)
    housekeeping = workers.start(queues="housekeeping", **WORKER_ENV)
    response = api_for(alice).post(
        "/api/v1/jobs", {"file": pdf_upload(), "callback_url": receiver.url("/hook?src=axiya")}
    )
    assert response.status_code == 202, response.content
    job_id = response.json()["id"]

    first, second = wait_for(
        lambda: len(receiver.requests) >= 2 and receiver.requests,
        timeout=240, what="the webhook and its retry", workers=workers,
    )  # fmt: skip
    job = Job.objects.get(pk=job_id)
    assert job.status in FINISHED
    secret = services.account_get(user=alice).webhook_secret
    for got in (first, second):
        assert got.path == "/hook?src=axiya"
        assert webhooks.signature_matches(secret, got.body, got.headers["X-Axiya-Signature"])
        assert got.json()["timestamp"] == int(got.headers["X-Axiya-Timestamp"])
    body = second.json()
    assert (body["id"], body["status"], body["event"]) == (job_id, job.status, "job.ended")
    assert body["links"]["html"] == f"http://testserver/api/v1/jobs/{job_id}/html"
    # One message, tried twice, the second after the back-off.
    assert first.headers["X-Axiya-Delivery"] == second.headers["X-Axiya-Delivery"]
    assert second.at - first.at >= 0.9
    note = wait_for(
        lambda: Notification.objects.filter(state="sent").first(), timeout=20, what="sent"
    )
    assert note.attempts == 2
    # Delivered by the housekeeping worker, not the conversion worker.
    ran = "Task conversion.dispatch.tasks.notification_send_task["
    assert ran in (workers.data_dir / "worker-1.log").read_text() and housekeeping.poll() is None
    assert ran not in (workers.data_dir / "worker-0.log").read_text()


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/v1/jobs", "/api/v1/batches"])
def test_a_callback_to_a_host_not_allowed_is_refused_at_submit(settings, alice, path):
    settings.AXIYA_WEBHOOK_ALLOWED_HOSTS = ["hooks.example.org"]
    cache.clear()
    files = {"file": pdf_upload()} if path.endswith("jobs") else {"files": [pdf_upload()]}
    for url in ("http://127.0.0.1:8000/hook", "http://169.254.169.254/latest/meta-data",
                "file:///etc/passwd"):  # fmt: skip
        response = api_for(alice).post(path, {**files, "callback_url": url})
        assert response.status_code == 400, response.content
        assert error_of(response)["code"] == "CALLBACK_URL_REFUSED"
        files = {"file": pdf_upload()} if path.endswith("jobs") else {"files": [pdf_upload()]}
    assert not Job.objects.exists()
