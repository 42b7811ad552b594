"""Tell people that a job or a batch ended: a signed POST to the callback URL they gave
(conversion/webhooks.py), or an e-mail when they asked for one on their API page.

The messages are rows (conversion.models.Notification), written in the transaction that ends the
job (services.notifications_for_job_end), so none is lost with a process; conversion.dispatch
sends each one in a task on the housekeeping queue (or a thread of its own without a broker),
never on a conversion worker: a slow receiver holds up no page. `deliver` makes one attempt and
says when to try again: AXIYA_WEBHOOK_BACKOFF_S, then twice as long each time, at most
AXIYA_WEBHOOK_ATTEMPTS tries; a host not allowed (any more) is given up at once.
"""

from __future__ import annotations

import json
import logging
import smtplib
import time

from django.conf import settings
from django.core.mail import send_mail
from django.urls import reverse

from axiya.config import config
from conversion import selectors, services, webhooks
from conversion.models import Batch, Job, JobStatus, Notification
from conversion.pipeline.errors import CallbackRefused

log = logging.getLogger(__name__)


_HAPPENED = {"job.approved": "was approved by a reviewer",
             "job.rejected": "was rejected by a reviewer"}  # fmt: skip


class DeliveryFailed(Exception):
    """The receiver answered, but not with a 2xx."""


def _base(site_url: str) -> str:
    return (config().webhooks.public_url or site_url or "").rstrip("/")


def _job_links(job: Job, base: str) -> dict:
    def url(name: str, **kw) -> str:
        return base + reverse(name, kwargs=kw or {"pk": job.pk})

    return {
        "self": url("api-job-detail"),
        "html": url("api-job-html"),
        "zip": url("api-job-zip"),
        "report": url("api-job-report"),
        "report_html": url("api-job-report-html"),
        "page": url("job-detail", job_id=job.pk),
    }


def _job_state(job: Job, base: str) -> dict:
    review = getattr(job, "review", None)
    return {
        "id": str(job.pk),
        "name": job.original_name,
        "status": job.status,
        "review": (review.state or None) if review is not None else None,
        "error": {"code": job.error_code, "message": job.error_message} if job.error_code else None,
        "pages": {"done": job.pages_done, "total": job.pages_total},
        "open_findings": job.open_findings,
        "links": _job_links(job, base),
    }


def job_payload(job: Job) -> dict:
    base = _base(job.site_url)
    return {"type": "job", **_job_state(job, base), "batch": str(job.batch_id or "") or None}


def batch_status(jobs: list[Job]) -> str:
    """A batch's one word: done (every job done), failed (every job failed), needs_review
    (some job needs review or failed)."""
    states = {job.status for job in jobs}
    if states <= {JobStatus.DONE}:
        return JobStatus.DONE
    if states == {JobStatus.FAILED}:
        return JobStatus.FAILED
    return JobStatus.NEEDS_REVIEW


def batch_payload(batch: Batch) -> dict:
    base = _base(batch.site_url)
    jobs = list(batch.jobs.select_related("review").order_by("created_at"))
    counts = {status: 0 for status in JobStatus.values}
    for job in jobs:
        counts[job.status] += 1
    return {
        "type": "batch",
        "id": str(batch.pk),
        "status": batch_status(jobs),
        "counts": counts,
        "jobs": [_job_state(job, base) for job in jobs],
        "rejected": batch.rejected,
        "links": {
            "self": base + reverse("api-batch-detail", kwargs={"pk": batch.pk}),
            "zip": base + reverse("api-batch-zip", kwargs={"pk": batch.pk}),
            "page": base + reverse("batch-detail", kwargs={"batch_id": batch.pk}),
        },
    }


def message_body(note: Notification, *, now: float | None = None) -> bytes:
    """The exact bytes posted (and signed): the event, this message's id, the time it was
    sent, and the job's or batch's state now."""
    state = job_payload(note.job) if note.job_id else batch_payload(note.batch)
    body = {
        "event": note.event,
        "delivery": str(note.pk),
        "timestamp": int(now if now is not None else time.time()),
        **state,
    }
    return json.dumps(body, separators=(",", ":"), sort_keys=True).encode()


def _send_webhook(note: Notification) -> None:
    target = webhooks.check_url(note.target)  # again: the allowed list or DNS may have changed
    now = time.time()
    body = message_body(note, now=now)
    secret = services.account_get(user=note.owner).webhook_secret
    status = webhooks.post(
        target,
        body,
        {
            webhooks.SIGNATURE_HEADER: webhooks.signature(secret, body),
            webhooks.TIMESTAMP_HEADER: str(int(now)),
            webhooks.DELIVERY_HEADER: str(note.pk),
            webhooks.EVENT_HEADER: note.event,
        },
    )
    if not 200 <= status < 300:
        raise DeliveryFailed(f"{note.target} answered HTTP {status}")


def _send_email(note: Notification) -> None:
    payload = json.loads(message_body(note))
    if payload["type"] == "job":
        what = payload["name"]
        status = dict(JobStatus.choices)[payload["status"]].lower()
        lines = [
            f"{what}: {status}"
            + (f", {payload['review']} by a reviewer." if payload["review"] else ".")
        ]
        if payload["error"]:
            lines.append(f"{payload['error']['message']} (error {payload['error']['code']})")
    else:
        what = f"Your batch of {len(payload['jobs']) + len(payload['rejected'])} files"
        done = sum(1 for job in payload["jobs"] if job["status"] != JobStatus.FAILED)
        lines = [f"{what} has ended: {done} of {len(payload['jobs'])} converted."]
        lines += [f"- {job['name']}: {job['status'].replace('_', ' ')}" for job in payload["jobs"]]
        lines += [f"- {r['name']}: refused ({r['error']['code']})" for r in payload["rejected"]]
    if payload["links"]["page"].startswith("http"):
        lines.append(f"\nOpen it: {payload['links']['page']}")
    lines.append("\nYou get these e-mails because you asked for them on your API page.")
    send_mail(
        f"Axiya: {what} {_HAPPENED.get(note.event, 'has ended')}",
        "\n".join(lines),
        settings.DEFAULT_FROM_EMAIL,
        [note.target],
        fail_silently=False,
    )


def deliver(*, notification_id) -> float | None:
    """One attempt at sending a message. None when it is done with (sent, given up, its job
    deleted); else the seconds to wait before the next attempt."""
    note = selectors.notification_get(notification_id=notification_id)
    if note is None or note.state in (Notification.State.SENT, Notification.State.FAILED):
        return None
    attempts = services.notification_attempt(notification_id=note.pk)
    try:
        if note.kind == Notification.Kind.WEBHOOK:
            _send_webhook(note)
        else:
            _send_email(note)
    except CallbackRefused as exc:
        log.warning("notification %s refused: %s", note.pk, exc.message)
        services.notification_failed(notification_id=note.pk, error=exc.message, final=True)
        return None
    except (OSError, DeliveryFailed, smtplib.SMTPException) as exc:
        final = attempts >= config().webhooks.attempts
        log.warning("notification %s, attempt %d of %d failed: %s", note.pk, attempts,
                    config().webhooks.attempts, exc)  # fmt: skip
        services.notification_failed(notification_id=note.pk, error=str(exc), final=final)
        return None if final else config().webhooks.backoff_s * 2 ** (attempts - 1)
    services.notification_sent(notification_id=note.pk)
    return None
