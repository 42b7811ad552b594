"""Writes: every change to jobs and pages in the database goes through these functions
(HackSoft styleguide). No pipeline work and no queueing here: conversion.runner does the work and
calls these to record it; conversion.dispatch queues. Each write is idempotent, so a worker killed
mid-job resumes without redoing finished pages.
"""

from __future__ import annotations

import logging
import secrets
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from axiya.config import config
from conversion import storage
from conversion.models import (
    Account,
    Batch,
    Job,
    JobStatus,
    Notification,
    OutboxMessage,
    Page,
    PageStatus,
    ReviewEvent,
    TokenFailure,
)
from conversion.pipeline.document import open_findings
from conversion.pipeline.errors import (
    ConversionError,
    EngineCrashed,
    JobTimeout,
    StorageUnavailable,
)
from conversion.pipeline.validate import ValidatedPdf
from conversion.roles import can_delete
from conversion.selectors import job_all_pages_done
from models.engine import PageReading, reading_to_json

log = logging.getLogger(__name__)
MAX_PAGE_ATTEMPTS = 3


def job_insert(
    *,
    owner: AbstractBaseUser | None,
    batch: Batch | None,
    original_name: str,
    size_bytes: int,
    engine: str,
    language: str | None,
    validated: ValidatedPdf,
    callback_url: str = "",
    site_url: str = "",
) -> Job:
    """The row of a validated upload (its file is stored by the caller, in the same
    transaction)."""
    return Job.objects.create(
        callback_url=callback_url,
        site_url=site_url,
        owner=owner if owner is not None and owner.is_authenticated else None,
        batch=batch,
        original_name=original_name,
        size_bytes=size_bytes,
        engine=engine,
        language=language or "",
        requested_language=language or "",
        pages_total=validated.page_count,
        repaired=validated.repaired,
    )


def batch_create(
    *, owner: AbstractBaseUser | None, callback_url: str = "", site_url: str = ""
) -> Batch:
    return Batch.objects.create(
        owner=owner if owner and owner.is_authenticated else None,
        callback_url=callback_url,
        site_url=site_url,
    )


def batch_set_rejected(*, batch: Batch, rejected: list[dict]) -> None:
    """Keep the files refused at upload on the batch ({"name", "error": {"code", "message"}})."""
    Batch.objects.filter(pk=batch.pk).update(rejected=rejected)
    batch.rejected = rejected


def job_start(*, job_id) -> list[int]:
    """Mark the job running and create a Page row for every page (all rows first, so a page
    count never looks finished while pages are still being rasterized). Returns the numbers of
    the pages still to rasterize, in order."""
    job = Job.objects.get(pk=job_id)
    if job.is_finished:
        return []
    Job.objects.filter(pk=job_id, started_at__isnull=True).update(started_at=timezone.now())
    Job.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(status=JobStatus.RUNNING)
    Page.objects.bulk_create(
        [Page(job=job, number=n) for n in range(1, job.pages_total + 1)],
        ignore_conflicts=True,  # rows a recovery run (or an earlier start) made stay as they are
    )
    return list(
        Page.objects.filter(job=job, dpi=0)
        .exclude(status=PageStatus.DONE)
        .order_by("number")
        .values_list("number", flat=True)
    )


def page_rasterized(
    *, job_id, number: int, dpi: int, timings: dict, text_layer, drawn: bool = False
) -> None:
    """Record a rasterized page; a page whose text layer is trusted is read at once. Its image
    (already in place), dpi and text-layer reading change together, in one transaction: a worker
    killed in between leaves dpi 0 (rasterize again), never a rasterized page without its
    reading, which recovery would send to OCR (issue 17: a born-digital page read by OCR)."""
    page_id = Page.objects.values_list("pk", flat=True).get(job_id=job_id, number=number)
    with transaction.atomic():
        Page.objects.filter(pk=page_id).update(
            dpi=dpi, drawn=drawn, timings=timings, updated_at=timezone.now()
        )
        if text_layer is not None:
            _pages_store(readings=[(page_id, job_id, text_layer, timings)])


def job_check_deadline(*, job_id) -> None:
    """Raise JobTimeout once a job has run longer than AXIYA_JOB_TIMEOUT_S since it started."""
    started = Job.objects.values_list("started_at", flat=True).get(pk=job_id)
    limit = config().timeouts.job_s
    if started is not None and timezone.now() - started > timedelta(seconds=limit):
        raise JobTimeout(f"The conversion ran longer than {limit} s, this server's limit.")


def page_read_begin(*, page_id: int, claimed_by: str = "") -> Page | None:
    """Mark a page running for one more engine attempt and return it; None when it must not be
    read (done, failed, its job ended or past its deadline, or out of attempts: then it fails)."""
    page = Page.objects.select_related("job").get(pk=page_id)
    job = page.job
    if page.status in (PageStatus.DONE, PageStatus.FAILED) or job.is_finished:
        return None
    try:
        job_check_deadline(job_id=job.id)
    except JobTimeout as exc:
        job_mark_failed(job_id=job.id, error=exc)
        return None
    if page.attempts >= MAX_PAGE_ATTEMPTS:
        # Every earlier attempt started and none recorded an outcome: each one took its worker
        # down (a segfault, the OOM killer, a hard time limit). Give the page up, visibly.
        page_fail(page_id=page.pk, error=EngineCrashed(page=page.number))
        return None
    # updated_at: update() skips auto_now, and jobs_recover reads it as the page's heartbeat.
    Page.objects.filter(pk=page.pk).update(
        status=PageStatus.RUNNING,
        attempts=F("attempts") + 1,
        claimed_by=claimed_by,
        updated_at=timezone.now(),
    )
    return page


def page_read_failed(*, page_id: int, error: ConversionError) -> None:
    """A page's read failed: queue it again, or fail it (and its job) at the last attempt."""
    page = Page.objects.get(pk=page_id)
    if page.attempts >= MAX_PAGE_ATTEMPTS:
        page_fail(page_id=page.pk, error=error)
    else:
        Page.objects.filter(pk=page.pk).update(status=PageStatus.QUEUED, updated_at=timezone.now())


def page_fail(*, page_id: int, error: ConversionError) -> None:
    """Give a page up: its error shows on the page, and the job fails naming it."""
    page = Page.objects.get(pk=page_id)
    Page.objects.filter(pk=page.pk).update(
        status=PageStatus.FAILED, error_code=error.code, error_message=error.message
    )
    message = f"Page {page.number}: {error.message}"
    job_mark_failed(job_id=page.job_id, error=type(error)(message, page=page.number))


def page_record(*, page_id: int, reading: PageReading, engine_info: dict, timings: dict) -> bool:
    """Store one page's engine reading and the engine's provenance on the job. Returns True when
    this write finished the job's last page (the caller then runs job_finish)."""
    return bool(pages_record(readings=[(page_id, reading, timings)], engine_info=engine_info))


def pages_record(
    *, readings: Sequence[tuple[int, PageReading, dict]], engine_info: dict
) -> list[str]:
    """Store the readings of a batch of pages, (page id, reading, timings) each, in one
    transaction: a GPU batch of hundreds of pages is one commit, not one per page, while other
    workers wait for the database. Returns the ids of the jobs whose last page this wrote."""
    page_jobs = dict(
        Page.objects.filter(pk__in=[pk for pk, _, _ in readings]).values_list("pk", "job_id")
    )
    jobs = set(page_jobs.values())
    for job_id, info in Job.objects.filter(pk__in=jobs).values_list("pk", "engine_info"):
        if info != engine_info:
            Job.objects.filter(pk=job_id).update(engine_info=engine_info)
    counted = _pages_store(
        readings=[
            (pk, page_jobs[pk], reading, timings)
            for pk, reading, timings in readings
            if pk in page_jobs  # else its job was deleted while the page was read
        ]
    )
    return [str(job_id) for job_id in counted if job_all_pages_done(job_id=job_id)]


def _pages_store(*, readings: Sequence[tuple[int, Any, PageReading, dict]]) -> Counter:
    """Store (page id, job id, reading, timings) readings and count each page once per job.
    Returns the pages newly counted per job (a page already done is not counted again)."""
    counted: Counter = Counter()
    # Serialized first: the transaction (the database's write lock) is held for writes only.
    stored = [(pk, job_id, reading, reading_to_json(reading), timings)
              for pk, job_id, reading, timings in readings]  # fmt: skip
    with transaction.atomic():
        for page_id, job_id, reading, as_json, timings in stored:
            # Only the first writer of a page counts it: a retried task cannot count it twice.
            first = (
                Page.objects.filter(pk=page_id)
                .exclude(status=PageStatus.DONE)
                .update(
                    status=PageStatus.DONE,
                    reading=as_json,
                    source=reading.source,
                    timings=timings,
                    error_code="",
                    error_message="",
                    updated_at=timezone.now(),
                )
            )
            if first:
                counted[job_id] += 1
        for job_id, pages in counted.items():
            Job.objects.filter(pk=job_id).update(pages_done=F("pages_done") + pages)
    return counted


def job_finished(*, job_id, report: dict, title: str, language: str, timings: dict) -> None:
    """The outputs are written: the job ends done, or needs_review while findings are open."""
    status = status_from_evidence(report["summary"])
    with transaction.atomic():
        Job.objects.filter(pk=job_id).update(
            status=status,
            title=title[:255],
            language=language,
            timings=timings,
            summary=report["summary"],
            finished_at=timezone.now(),
        )
        notifications_for_job_end(job_id=job_id)


def page_reading_set(*, job_id, number: int, reading: PageReading) -> None:
    """Replace a finished job's page reading (a review re-run)."""
    Page.objects.filter(job_id=job_id, number=number).update(reading=reading_to_json(reading))


def status_from_evidence(summary: dict | None) -> str:
    """A finished job's status from its report: NEEDS_REVIEW while any error or item to review
    is open, DONE when nothing is left to check (warnings alone do not hold a job)."""
    return JobStatus.NEEDS_REVIEW if open_findings(summary) else JobStatus.DONE


def job_mark_failed(*, job_id, error: ConversionError | Exception) -> None:
    code = getattr(error, "code", "INTERNAL_ERROR")
    message = getattr(error, "message", None) or "An unexpected error stopped the conversion."
    with transaction.atomic():
        ended = (
            Job.objects.filter(pk=job_id)
            .exclude(status=JobStatus.FAILED)
            .update(
                status=JobStatus.FAILED,
                error_code=code,
                error_message=message,
                finished_at=timezone.now(),
            )
        )
        if ended:
            notifications_for_job_end(job_id=job_id)


def job_delete(*, job: Job, actor: AbstractBaseUser | None = None) -> None:
    """Remove the job, its pages and every file it wrote. The row goes first: files a store
    that failed kept (or a worker wrote just after) have no row, and files_sweep removes them.
    A user's deletion (`actor`; None is the retention sweep) must be theirs to make
    (roles.can_delete, else PermissionDenied) and is written to the audit trail, which
    outlives the job."""
    if actor is not None and not can_delete(actor, job):
        raise PermissionDenied("Only the job's owner (or a superuser) deletes it.")
    job_id = job.id
    with transaction.atomic():
        if actor is not None:
            ReviewEvent.objects.create(
                job=job,
                job_ref=job.id,
                job_name=job.original_name,
                actor=actor,
                action=ReviewEvent.Action.DELETE,
                note="" if job.owner_id == actor.pk else f"owner: {job.owner or 'none'}",
            )
        job.delete()
    try:
        storage.delete_job(job_id)
    except StorageUnavailable:
        log.warning("job %s deleted; its files wait for the sweep (the store failed)", job_id)


# --- recovery and retention (periodic: Celery beat, or the inline worker's timer) ---------------


def jobs_recover(
    *,
    now=None,
    alive: Callable[[str], bool] | None = None,
    stale_after_s: float | None = None,
) -> dict[str, list[str]]:
    """Find work that stalled and queue it again, or fail jobs past their deadline.

    Messages are acknowledged late, so a worker killed mid-task has its message delivered again
    after the broker's visibility timeout; this sweep covers the rest (a message lost with a
    Redis that had no persistence, an enqueue while the broker was down). Every step it queues
    is idempotent: done pages are never read again, a page is counted once.
    Returns what to queue, by kind (job ids; dispatch queues them): {"failed": [...],
    "prepare": [...], "pages": [...], "finish": [...]}. `stale_after_s` overrides
    AXIYA_RECOVER_AFTER_S (0: every unfinished job, after the broker lost its messages).
    """
    now = now or timezone.now()
    after = config().timeouts.recover_after_s if stale_after_s is None else stale_after_s
    stale = now - timedelta(seconds=after)
    deadline = now - timedelta(seconds=config().timeouts.job_s)
    done: dict[str, list[str]] = {"failed": [], "prepare": [], "pages": [], "finish": []}
    active = Job.objects.filter(status__in=(JobStatus.QUEUED, JobStatus.RUNNING))
    for job in active.filter(started_at__lt=deadline):
        job_mark_failed(job_id=job.id, error=JobTimeout())
        done["failed"].append(str(job.id))
    for job in active.filter(created_at__lt=stale).exclude(pages__updated_at__gte=stale):
        pages = list(job.pages.all())
        if len(pages) < job.pages_total or any(p.dpi == 0 for p in pages):
            done["prepare"].append(str(job.id))  # never (fully) rasterized: prepare again
        elif all(p.status == PageStatus.DONE for p in pages):
            done["finish"].append(str(job.id))
        else:
            todo = [p for p in pages if p.status in (PageStatus.QUEUED, PageStatus.RUNNING)]
            # A RUNNING page with no progress for this long belongs to a dead worker.
            Page.objects.filter(pk__in=[p.pk for p in todo]).update(
                status=PageStatus.QUEUED, updated_at=now
            )
            done["pages"].append(str(job.id))
    if alive is not None:
        # A RUNNING page whose worker stopped beating (conversion/runner/heartbeat.py) belongs
        # to a dead worker now, whatever AXIYA_RECOVER_AFTER_S says.
        running = Page.objects.filter(status=PageStatus.RUNNING, job__in=active).exclude(
            claimed_by=""
        )
        dead = [(p.pk, str(p.job_id)) for p in running if not alive(p.claimed_by)]
        Page.objects.filter(pk__in=[pk for pk, _ in dead]).update(
            status=PageStatus.QUEUED, claimed_by="", updated_at=now
        )
        for job_id in dict.fromkeys(job_id for _, job_id in dead):
            if job_id not in done["pages"]:
                done["pages"].append(job_id)
    return done


def purge_expired(*, now=None, days: int | None = None) -> list[str]:
    """Delete jobs (rows and every file) older than the retention period; 0 days keeps all.
    Also sweeps what a process killed mid-upload left (files_sweep). Returns the deleted job
    ids."""
    days = config().retention_days if days is None else days
    now = now or timezone.now()
    deleted: list[str] = []
    if days > 0:
        cutoff = now - timedelta(days=days)
        for job in Job.objects.filter(created_at__lt=cutoff):
            deleted.append(str(job.id))
            job_delete(job=job)
    files_sweep(now=now)
    if deleted:
        log.info("retention: deleted %d job(s) older than %d days", len(deleted), days)
    return deleted


ORPHAN_GRACE_S = 3600  # an upload in progress is never this old


def files_sweep(*, now=None) -> list[str]:
    """Remove files with no job row: this host's leftovers in incoming/ (a temp file of an
    upload in progress, a staged upload whose row was rolled back) once untouched for
    ORPHAN_GRACE_S, and job folders in the store whose row is gone (nothing is stored before
    its row commits: storage.place_upload). A staged upload whose row exists is moved into the
    store instead. Returns what was removed: incoming file names and job folder names."""
    old = (now or timezone.now()).timestamp() - ORPHAN_GRACE_S
    removed: list[str] = []
    incoming = storage.incoming_dir()
    for leftover in incoming.iterdir() if incoming.is_dir() else []:
        if Job.objects.filter(pk=_uuid_or_none(leftover.stem)).exists():
            storage.place_upload(leftover.stem)
        elif leftover.stat().st_mtime < old:
            leftover.unlink(missing_ok=True)
            removed.append(leftover.name)
    for name in storage.stored_job_ids():
        if not Job.objects.filter(pk=_uuid_or_none(name)).exists():
            storage.delete_job(name)
            removed.append(name)
    removed += _scratch_sweep(now=now or timezone.now())
    if removed:
        log.info("sweep: removed %d file(s) or folder(s) without a job", len(removed))
    return removed


# A job's work folder untouched this long is a dead process's whatever its job says: longer than
# a job may run (AXIYA_JOB_TIMEOUT_S, 6 h by default), past which recovery fails the job.
SCRATCH_MAX_AGE_S = 24 * 3600


def _scratch_sweep(*, now) -> list[str]:
    """Scratch folders a process killed mid-job left (storage.scratch): those of a finished or
    deleted job once untouched for ORPHAN_GRACE_S, any untouched for SCRATCH_MAX_AGE_S."""
    removed = []
    live = {
        str(pk)
        for pk in Job.objects.filter(status__in=(JobStatus.QUEUED, JobStatus.RUNNING)).values_list(
            "pk", flat=True
        )
    }
    for name, job_id, changed in storage.scratch_folders():
        age_s = now.timestamp() - changed
        if age_s > SCRATCH_MAX_AGE_S or (job_id not in live and age_s > ORPHAN_GRACE_S):
            storage.delete_scratch(name)
            removed.append(name)
    return removed


def _uuid_or_none(text: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(text)
    except ValueError:
        return None


# --- the outbox: jobs the broker could not take yet (conversion/dispatch/outbox.py) -------------


def outbox_add(*, job_id) -> None:
    OutboxMessage.objects.get_or_create(job_id=job_id)


def outbox_sent(*, message_id: int) -> None:
    OutboxMessage.objects.filter(pk=message_id).delete()


def outbox_failed(*, message_id: int) -> None:
    OutboxMessage.objects.filter(pk=message_id).update(attempts=F("attempts") + 1)


# --- the API token lockout (conversion/api/authentication.py) -----------------------------------


def token_failure_add(*, keys: Sequence[str], cooloff: timedelta) -> None:
    """Count one wrong token against each key; each count lapses `cooloff` after its last
    failure. Lapsed counts are deleted here, so the table holds only live ones."""
    now = timezone.now()
    TokenFailure.objects.filter(expires_at__lte=now).delete()
    for key in keys:
        bumped = {"count": F("count") + 1, "expires_at": now + cooloff}
        if TokenFailure.objects.filter(key=key).update(**bumped):
            continue
        try:
            with transaction.atomic():
                TokenFailure.objects.create(key=key, count=1, expires_at=now + cooloff)
        except IntegrityError:  # another process created it meanwhile
            TokenFailure.objects.filter(key=key).update(**bumped)


# --- notifications when a job or batch ends (conversion/notify.py delivers them) ----------------

JOB_ENDED = "job.ended"
BATCH_ENDED = "batch.ended"


def account_get(*, user: AbstractBaseUser) -> Account:
    """The user's notification settings, made (with a new webhook secret) on first use."""
    account = Account.objects.filter(user=user).first()
    if account is not None:
        return account
    try:
        with transaction.atomic():
            return Account.objects.create(user=user, webhook_secret=secrets.token_hex(32))
    except IntegrityError:  # made meanwhile by another request
        return Account.objects.get(user=user)


def account_rotate_secret(*, user: AbstractBaseUser) -> str:
    """A new webhook secret (the old one stops signing at once). Returns it."""
    account = account_get(user=user)
    account.webhook_secret = secrets.token_hex(32)
    account.save(update_fields=["webhook_secret", "updated_at"])
    return account.webhook_secret


def account_set_notify_email(*, user: AbstractBaseUser, notify_email: bool) -> None:
    account = account_get(user=user)
    account.notify_email = notify_email
    account.save(update_fields=["notify_email", "updated_at"])


def _wants_email(owner) -> bool:
    if owner is None or not owner.email or not config().webhooks.mail_host:
        return False
    return Account.objects.filter(user=owner, notify_email=True).exists()


def notifications_for_job_end(*, job_id) -> list[Notification]:
    """Write the messages that this job ended: its webhook, and once its batch has no job
    left running, the batch's webhook; an e-mail to an owner who asked for them (one per
    batch, not per file). Idempotent: a message is written once per job or batch and event.
    Called in the transaction that ends the job; returns the new rows."""
    job = Job.objects.select_related("owner", "batch").filter(pk=job_id).first()
    if job is None or job.owner is None:
        return []
    wanted: list[Notification] = []
    mail = _wants_email(job.owner)
    if job.batch_id is None:
        if job.callback_url:
            wanted.append(Notification(kind=Notification.Kind.WEBHOOK, target=job.callback_url,
                                       event=JOB_ENDED, job=job, owner=job.owner))  # fmt: skip
        if mail:
            wanted.append(Notification(kind=Notification.Kind.EMAIL, target=job.owner.email,
                                       event=JOB_ENDED, job=job, owner=job.owner))  # fmt: skip
    else:
        unfinished = job.batch.jobs.filter(status__in=(JobStatus.QUEUED, JobStatus.RUNNING))
        if not unfinished.exists():
            batch = job.batch
            if batch.callback_url:
                wanted.append(Notification(kind=Notification.Kind.WEBHOOK, event=BATCH_ENDED,
                                           target=batch.callback_url, batch=batch,
                                           owner=job.owner))  # fmt: skip
            if mail:
                wanted.append(Notification(kind=Notification.Kind.EMAIL, event=BATCH_ENDED,
                                           target=job.owner.email, batch=batch,
                                           owner=job.owner))  # fmt: skip
    return _notifications_write(wanted)


def notifications_for_review(*, job_id, state: str) -> list[Notification]:
    """Write the messages that a reviewer approved or rejected the job (`state`): event
    job.approved or job.rejected, to the job's callback (a batch's job: the batch's callback)
    and by e-mail to an owner who asked; once per job and verdict."""
    job = Job.objects.select_related("owner", "batch").filter(pk=job_id).first()
    if job is None or job.owner is None or state not in ("approved", "rejected"):
        return []
    event = f"job.{state}"
    wanted = []
    url = job.callback_url or (job.batch.callback_url if job.batch_id else "")
    if url:
        wanted.append(Notification(kind=Notification.Kind.WEBHOOK, target=url, event=event,
                                   job=job, owner=job.owner))  # fmt: skip
    if _wants_email(job.owner):
        wanted.append(Notification(kind=Notification.Kind.EMAIL, target=job.owner.email,
                                   event=event, job=job, owner=job.owner))  # fmt: skip
    return _notifications_write(wanted)


def _notifications_write(wanted: list[Notification]) -> list[Notification]:
    made = []
    for note in wanted:
        try:
            with transaction.atomic():
                note.save(force_insert=True)
            made.append(note)
        except IntegrityError:  # written already (a job ended twice, two last jobs at once)
            pass
    return made


BATCH_SWEEP_DAYS = 2  # how far back the sweep looks for a batch that ended without its message


def notifications_for_ended_batches() -> list[Notification]:
    """The batch messages a race left out: two last jobs of a batch that end at once each see
    the other still running, and neither writes the batch's message. The recovery sweep writes
    it for every recent batch with a callback whose jobs have all ended."""
    since = timezone.now() - timedelta(days=BATCH_SWEEP_DAYS)
    unfinished = Job.objects.filter(
        batch=OuterRef("pk"), status__in=(JobStatus.QUEUED, JobStatus.RUNNING)
    )
    told = Notification.objects.filter(batch=OuterRef("pk"), event=BATCH_ENDED)
    ended = (
        Batch.objects.filter(created_at__gte=since, jobs__isnull=False)
        .exclude(callback_url="")
        .exclude(Exists(unfinished))
        .exclude(Exists(told))
        .distinct()
    )
    made: list[Notification] = []
    for batch in ended:
        last = batch.jobs.order_by("-finished_at").values_list("pk", flat=True).first()
        made += notifications_for_job_end(job_id=last)
    return made


def notifications_queue(*, ids: Sequence) -> list:
    """Mark pending messages queued; returns the ids this call took (another process may have
    taken some)."""
    taken = []
    for pk in ids:
        if Notification.objects.filter(pk=pk, state=Notification.State.PENDING).update(
            state=Notification.State.QUEUED, queued_at=timezone.now()
        ):
            taken.append(pk)
    return taken


def notification_requeue_stale(*, older_than: timedelta) -> None:
    """Queued messages whose task was lost (a broker that restarted empty) go back to pending."""
    cutoff = timezone.now() - older_than
    Notification.objects.filter(state=Notification.State.QUEUED, queued_at__lt=cutoff).update(
        state=Notification.State.PENDING
    )


def notification_attempt(*, notification_id) -> int:
    """Count one more delivery attempt; returns the count."""
    Notification.objects.filter(pk=notification_id).update(
        attempts=F("attempts") + 1, queued_at=timezone.now()
    )
    return Notification.objects.values_list("attempts", flat=True).get(pk=notification_id)


def notification_sent(*, notification_id) -> None:
    Notification.objects.filter(pk=notification_id).update(
        state=Notification.State.SENT, sent_at=timezone.now(), last_error=""
    )


def notification_failed(*, notification_id, error: str, final: bool) -> None:
    """A failed try: kept queued for its retry, or failed for good (`final`)."""
    update = {"last_error": error[:2000]}
    if final:
        update["state"] = Notification.State.FAILED
    Notification.objects.filter(pk=notification_id).update(**update)
