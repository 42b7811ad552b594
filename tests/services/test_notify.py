"""conversion.notify and the notification writes of conversion.services: a job's or batch's end
written once, delivered signed to a real loopback receiver, retried with back-off, refused at
send time when the host is no longer allowed, and e-mailed to an owner who asked."""

from __future__ import annotations

import json

import pytest
from django.core import mail

from conversion import notify, services, webhooks
from conversion.models import Batch, Job, JobStatus, Notification
from conversion.pipeline.errors import DamagedPdf
from tests.webhook_receiver import Receiver


@pytest.fixture
def receiver(settings):
    settings.AXIYA_WEBHOOK_ALLOWED_HOSTS = ["127.0.0.1"]
    settings.AXIYA_WEBHOOK_BACKOFF_S = 2.0
    settings.AXIYA_WEBHOOK_ATTEMPTS = 3
    server = Receiver()
    yield server
    server.stop()


def _job(owner, *, callback_url: str = "", batch: Batch | None = None, name: str = "a.pdf"):
    return Job.objects.create(
        owner=owner, original_name=name, engine="ocr", pages_total=2, callback_url=callback_url,
        site_url="https://axiya.example.org", batch=batch,
    )  # fmt: skip


def test_a_failed_job_is_posted_signed_once(alice, receiver):
    job = _job(alice, callback_url=receiver.url())
    services.job_mark_failed(job_id=job.id, error=DamagedPdf())
    services.job_mark_failed(job_id=job.id, error=DamagedPdf())  # ends once: written once
    (note,) = Notification.objects.all()
    assert (note.kind, note.event, note.state) == ("webhook", "job.ended", "pending")
    assert notify.deliver(notification_id=note.pk) is None
    (got,) = receiver.requests
    secret = services.account_get(user=alice).webhook_secret
    assert got.headers["X-Axiya-Signature"] == webhooks.signature(secret, got.body)
    body = got.json()
    assert body["timestamp"] == int(got.headers["X-Axiya-Timestamp"])
    assert body["delivery"] == got.headers["X-Axiya-Delivery"] == str(note.pk)
    assert (body["event"], body["type"], body["id"], body["status"]) == (
        "job.ended", "job", str(job.id), "failed")  # fmt: skip
    assert body["error"]["code"] == "PDF_DAMAGED"
    assert body["links"]["report"] == f"https://axiya.example.org/api/v1/jobs/{job.id}/report"
    assert body["links"]["page"] == f"https://axiya.example.org/jobs/{job.id}/"
    note.refresh_from_db()
    assert (note.state, note.attempts) == ("sent", 1)


def test_a_500_is_retried_with_back_off_then_given_up(alice, receiver):
    receiver.statuses = [500, 503, 500]
    job = _job(alice, callback_url=receiver.url())
    services.job_mark_failed(job_id=job.id, error=DamagedPdf())
    note = Notification.objects.get()
    assert notify.deliver(notification_id=note.pk) == 2.0
    assert notify.deliver(notification_id=note.pk) == 4.0  # twice the wait each time
    assert notify.deliver(notification_id=note.pk) is None  # AXIYA_WEBHOOK_ATTEMPTS: 3
    note.refresh_from_db()
    assert (note.state, note.attempts) == ("failed", 3) and "HTTP 500" in note.last_error
    assert len({r.headers["X-Axiya-Delivery"] for r in receiver.requests}) == 1
    assert notify.deliver(notification_id=note.pk) is None and len(receiver.requests) == 3


def test_a_host_no_longer_allowed_is_refused_at_send_time(alice, receiver, settings):
    job = _job(alice, callback_url=receiver.url())
    services.job_mark_failed(job_id=job.id, error=DamagedPdf())
    settings.AXIYA_WEBHOOK_ALLOWED_HOSTS = ["hooks.example.org"]
    note = Notification.objects.get()
    assert notify.deliver(notification_id=note.pk) is None  # no retry: refused for good
    note.refresh_from_db()
    assert note.state == "failed" and "does not call 127.0.0.1" in note.last_error
    assert receiver.requests == []


def test_a_batch_is_posted_once_when_its_last_job_ends(alice, receiver):
    batch = Batch.objects.create(
        owner=alice, callback_url=receiver.url(), site_url="http://testserver",
        rejected=[{"name": "x.txt", "error": {"code": "NOT_A_PDF", "message": "Not a PDF."}}],
    )  # fmt: skip
    first, second = _job(alice, batch=batch), _job(alice, batch=batch, name="b.pdf")
    services.job_mark_failed(job_id=first.id, error=DamagedPdf())
    assert not Notification.objects.exists()  # the batch has a job running
    services.job_finished(
        job_id=second.id, report={"summary": {"errors": 0, "needs_review": 0, "warnings": 0}},
        title="B", language="en", timings={},
    )  # fmt: skip
    (note,) = Notification.objects.all()  # the jobs of a batch get no message of their own
    assert note.event == "batch.ended" and note.batch_id == batch.id
    notify.deliver(notification_id=note.pk)
    body = receiver.requests[0].json()
    assert body["type"] == "batch" and body["status"] == JobStatus.NEEDS_REVIEW
    assert [j["status"] for j in body["jobs"]] == ["failed", "done"]
    assert body["counts"]["failed"] == 1 and body["rejected"][0]["name"] == "x.txt"
    assert body["links"]["zip"] == f"http://testserver/api/v1/batches/{batch.id}/zip"


def test_an_email_when_the_owner_asked_and_mail_is_configured(alice, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    alice.email = "alice@example.org"
    alice.save()
    services.account_set_notify_email(user=alice, notify_email=True)
    settings.EMAIL_HOST = ""  # no mail server: no e-mail
    services.job_mark_failed(job_id=_job(alice).id, error=DamagedPdf())
    assert not Notification.objects.exists()
    settings.EMAIL_HOST = "smtp.example.org"
    job = _job(alice, name="scan.pdf")
    services.job_mark_failed(job_id=job.id, error=DamagedPdf())
    note = Notification.objects.get()
    assert (note.kind, note.target) == ("email", "alice@example.org")
    assert notify.deliver(notification_id=note.pk) is None
    (sent,) = mail.outbox
    assert sent.to == ["alice@example.org"] and "scan.pdf" in sent.subject
    assert "PDF_DAMAGED" in sent.body and f"/jobs/{job.id}/" in sent.body


def test_the_message_body_is_what_is_signed(alice, receiver):
    job = _job(alice, callback_url=receiver.url())
    services.job_mark_failed(job_id=job.id, error=DamagedPdf())
    note = Notification.objects.get()
    body = notify.message_body(note, now=1_700_000_000)
    assert json.loads(body)["timestamp"] == 1_700_000_000
    assert body == notify.message_body(note, now=1_700_000_000)  # stable bytes


@pytest.mark.django_db(transaction=True)
def test_a_reviewers_verdict_is_posted_after_it_is_committed(alice, receiver):
    from conversion import review
    from tests.conftest import create_reviewer

    job = _job(alice, callback_url=receiver.url())
    Job.objects.filter(pk=job.pk).update(status=JobStatus.DONE)
    job.refresh_from_db()
    review.review_set_job_state(job=job, state="rejected", actor=create_reviewer())
    # Sent by the inline notification thread (no broker here) once the verdict committed.
    (got,) = receiver.wait(1, timeout=30)
    body = got.json()
    assert (body["event"], body["id"], body["review"]) == ("job.rejected", str(job.id), "rejected")
    assert got.headers["X-Axiya-Event"] == "job.rejected"
    review.review_set_job_state(job=job, state="rejected", actor=None)  # the same verdict again
    review.review_set_job_state(job=job, state="approved", actor=None)
    assert [r.json()["event"] for r in receiver.wait(2, timeout=30)] == [
        "job.rejected", "job.approved"]  # fmt: skip
    assert Notification.objects.filter(event="job.rejected").count() == 1


def test_the_sweep_writes_a_batch_message_that_a_race_left_out(alice, receiver):
    batch = Batch.objects.create(owner=alice, callback_url=receiver.url())
    first, second = _job(alice, batch=batch), _job(alice, batch=batch, name="b.pdf")
    # Both ended in transactions that each saw the other job still running: no message.
    Job.objects.filter(pk__in=[first.pk, second.pk]).update(status=JobStatus.FAILED)
    (note,) = services.notifications_for_ended_batches()
    assert (note.event, note.batch_id) == ("batch.ended", batch.id)
    assert services.notifications_for_ended_batches() == []  # once
    Batch.objects.create(owner=alice, callback_url=receiver.url())  # no job: nothing to say
    assert services.notifications_for_ended_batches() == []
