"""Celery tasks: thin, ids only (JSON), each runs one step of conversion.runner. Rasterization
fans out in chunks of pages on queue `cpu`; each rasterized page's read is queued at once on its
engine's queue (conversion.engines), through the batching task for a batched engine; the last page
to finish queues job_finish. The send_* functions are how conversion.dispatch queues them.

A task whose next message the broker cannot take (Redis killed mid-job) puts its job in the
outbox instead (`_send_next`): the outbox queues job_prepare_task, which resumes a job from
whatever state it is in, once the broker is back. A broker that restarted (and so may have lost
the messages it had not written to disk, or all of them without persistence) is noticed by the
recovery task, which then queues every unfinished job's next step at once (`broker_restarted`;
steps are idempotent: a done page is never read again).

Owner fairness (issue 17: one user's 100 jobs held up another user's one job): every message
carries a priority from its owner's line, the number of pages that owner has to convert before
it (0 for each owner's oldest page, up to 9). With Redis, workers take priority 0 first
(CELERY_BROKER_TRANSPORT_OPTIONS priority_steps), so the owners take turns page by page for
their first ten pages in line; beyond that, messages of the same priority go in the order sent.
A message keeps the priority of when it was sent; the next step of a job (rasterize, read,
finish) is sent with its priority then. Other brokers (filesystem://) ignore priorities."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta

from celery import current_app, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from axiya.config import config
from conversion import notify, selectors, services
from conversion.dispatch.outbox import Outbox
from conversion.engines import engine_spec
from conversion.models import Job, Page
from conversion.pipeline.errors import ConversionError, PageTimeout
from conversion.runner import batch, heartbeat, jobs

# Prefork pools enforce these (the solo pool cannot): the soft limit raises in the task, the hard
# one replaces the pool process; page_read's own timer covers the engine call in any pool.
PAGE_SOFT_LIMIT_S = config().timeouts.page_s + 30
PAGE_HARD_LIMIT_S = config().timeouts.page_s + 90
# A job's other steps. Preparing validates and counts pages (isolated, bounded by the page
# timeout); a chunk rasterizes RASTER_CHUNK_PAGES pages; finishing assembles and checks every
# page of the job (up to AXIYA_MAX_PAGES); housekeeping is a few queries a job.
STEP_SOFT_LIMIT_S = PAGE_SOFT_LIMIT_S
STEP_HARD_LIMIT_S = PAGE_HARD_LIMIT_S
FINISH_SOFT_LIMIT_S = 4 * config().timeouts.page_s
FINISH_HARD_LIMIT_S = FINISH_SOFT_LIMIT_S + 60
RECOVER_SOFT_LIMIT_S = 60
RECOVER_HARD_LIMIT_S = 120
# One delivery: a webhook tries each of its host's addresses for AXIYA_WEBHOOK_TIMEOUT_S.
NOTIFY_SOFT_LIMIT_S = 120
NOTIFY_HARD_LIMIT_S = 180
PURGE_SOFT_LIMIT_S = 1800
PURGE_HARD_LIMIT_S = 1900
# Pages per rasterization task: small enough that reading starts early and several cpu workers
# share a long document, large enough that the task overhead stays negligible.
RASTER_CHUNK_PAGES = 8
# The broker's Redis run_id as the recovery task last saw it, kept in that Redis.
BROKER_RUN_ID_KEY = "axiya:broker-run-id"
# Priorities 0 (taken first) .. FAIR_PRIORITIES - 1: settings.CELERY_BROKER_TRANSPORT_OPTIONS.
FAIR_PRIORITIES = 10
log = logging.getLogger(__name__)


def fair_priority(pages_ahead: int) -> int:
    """A message's priority: the pages its owner has to convert before it, capped."""
    return min(FAIR_PRIORITIES - 1, pages_ahead)


def send_job(job_id) -> None:
    job_prepare_task.apply_async(
        args=[str(job_id)],
        queue="cpu",
        priority=fair_priority(selectors.owner_pages_ahead(job_id=job_id)),
        retry=True,
        retry_policy={"max_retries": 3},
    )


# This process's outbox: what a task (or an upload) could not queue while the broker was down.
outbox = Outbox(send_job)


def send_pages(engine: str, page_ids: list[int]) -> None:
    spec = engine_spec(engine)
    # A batched engine's pages go to the batching task: one model call reads pages of many jobs.
    task = page_read_batch_task if spec.batched else page_read_task
    ahead = selectors.pages_ahead(page_ids=page_ids)
    for page_id in page_ids:
        task.apply_async(args=[page_id], queue=spec.queue, priority=fair_priority(ahead[page_id]))


def send_finish(job_id) -> None:
    job_finish_task.apply_async(
        args=[str(job_id)],
        queue="cpu",
        priority=fair_priority(selectors.owner_pages_ahead(job_id=job_id)),
    )


def send_rerun(engine: str, job_id, number: int, actor_id: int | None) -> None:
    page_rerun_task.apply_async(
        args=[str(job_id), number, actor_id], queue=engine_spec(engine).queue
    )


def send_notifications() -> None:
    """Queue the messages that jobs or batches ended (conversion/notify.py) on the housekeeping
    queue. A message the broker did not take stays queued in the database and goes back to
    pending after stale_queued() (jobs_recover_task)."""
    for pk in services.notifications_queue(ids=selectors.notifications_pending()):
        notification_send_task.apply_async(args=[str(pk)], queue=settings.HOUSEKEEPING_QUEUE)


def _notify() -> None:
    """send_notifications from inside a task: a broker that is down delays them to the next
    recovery sweep, it never fails the task."""
    try:
        send_notifications()
    except Exception:
        log.warning("could not queue notifications now: the recovery sweep will", exc_info=True)


def stale_queued() -> timedelta:
    """How long a queued message may wait for its next attempt: the longest back-off, twice."""
    webhooks = config().webhooks
    return timedelta(seconds=max(900.0, 2 * webhooks.backoff_s * 2**webhooks.attempts))


def _send_next(job_id, send: Callable[[], None]) -> None:
    """Send a job's next message from inside a task; if the broker refuses it (down), the job
    waits in this process's outbox, which resumes it (job_prepare_task) once the broker is
    back. Raising instead would lose the message: the task's own one is acknowledged or stays
    unacknowledged for the broker's visibility timeout (15 minutes)."""
    try:
        send()
    except Exception:  # the broker is down
        log.warning("could not queue the next step of job %s: it waits in the outbox", job_id,
                    exc_info=True)  # fmt: skip
        outbox.add(job_id)


def broker_restarted() -> bool:
    """Whether the broker's Redis restarted since the last call (its run_id changed, kept in a
    key of that Redis): what it had not written to disk is gone then (appendfsync everysec: up
    to a second of messages; no persistence: all of them). Brokers other than Redis: False."""
    with current_app.connection_for_write() as conn:
        client = getattr(conn.default_channel, "client", None)
        if client is None or not callable(getattr(client, "info", None)):
            return False
        run_id = client.info("server")["run_id"]
        previous = client.set(BROKER_RUN_ID_KEY, run_id, get=True)
        return previous is None or previous.decode() != run_id


def send_recovery(plan: dict[str, list[str]]) -> None:
    """Queue what services.jobs_recover found stalled."""
    for job_id in plan["prepare"]:
        send_job(job_id)
    for job_id in plan["finish"]:
        send_finish(job_id)
    for job_id in plan["pages"]:
        engine = Job.objects.values_list("engine", flat=True).get(pk=job_id)
        send_pages(engine, selectors.pages_to_read(job_id=job_id))


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=STEP_SOFT_LIMIT_S,
    time_limit=STEP_HARD_LIMIT_S,
)
def job_prepare_task(job_id: str) -> None:
    """Create the job's pages and fan their rasterization out in chunks over the cpu workers:
    the first pages are read while later ones are still being rasterized."""
    try:
        numbers = services.job_start(job_id=job_id)
    except ConversionError as exc:
        services.job_mark_failed(job_id=job_id, error=exc)
        _notify()
        return
    if not numbers:  # everything rasterized already (a recovery run): read what is left
        _queue_reads(job_id, selectors.pages_to_read(job_id=job_id))
        return
    chunks = [
        numbers[i : i + RASTER_CHUNK_PAGES] for i in range(0, len(numbers), RASTER_CHUNK_PAGES)
    ]

    ahead = selectors.owner_pages_ahead(job_id=job_id)

    def fan_out() -> None:
        for i, chunk in enumerate(chunks):
            pages_rasterize_task.apply_async(
                args=[job_id, chunk],
                queue="cpu",
                priority=fair_priority(ahead + i * RASTER_CHUNK_PAGES),
            )

    _send_next(job_id, fan_out)


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=STEP_SOFT_LIMIT_S,
    time_limit=STEP_HARD_LIMIT_S,
)
def pages_rasterize_task(job_id: str, numbers: list[int]) -> None:
    try:
        page_ids = jobs.pages_rasterize(job_id=job_id, numbers=numbers)
    except ConversionError as exc:
        services.job_mark_failed(job_id=job_id, error=exc)
        _notify()
        return
    _queue_reads(job_id, page_ids)


def _queue_reads(job_id: str, page_ids: list[int]) -> None:
    if not page_ids:
        # Text-layer pages are recorded while rasterizing: this chunk may have been the last.
        if selectors.job_all_pages_done(job_id=job_id):
            _send_next(job_id, lambda: send_finish(job_id))
        return
    engine = Job.objects.values_list("engine", flat=True).get(pk=job_id)
    _send_next(job_id, lambda: send_pages(engine, page_ids))


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(ConversionError,),
    max_retries=services.MAX_PAGE_ATTEMPTS - 1,
    retry_backoff=2,
    soft_time_limit=PAGE_SOFT_LIMIT_S,
    time_limit=PAGE_HARD_LIMIT_S,
)
def page_read_task(page_id: int) -> None:
    try:
        finished = jobs.page_read(page_id=page_id)
    except SoftTimeLimitExceeded:
        services.page_read_failed(page_id=page_id, error=PageTimeout())
        _notify()  # the last attempt failed the job
        raise PageTimeout() from None
    except ConversionError:
        _notify()
        raise
    if finished:
        job_id = Page.objects.values_list("job_id", flat=True).get(pk=page_id)
        _send_next(job_id, lambda: send_finish(job_id))


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,
    # A call drains the queue for up to AXIYA_GEMMA_DRAIN_S, then finishes what it holds.
    soft_time_limit=PAGE_SOFT_LIMIT_S + config().batching.drain_s,
    time_limit=PAGE_HARD_LIMIT_S + config().batching.drain_s,
)
def page_read_batch_task(self, page_id: int) -> None:
    """Read this page together with other queued pages (see conversion.runner.batch)."""
    try:
        result = batch.page_read_batched(
            page_id=page_id,
            limit=config().batching.batch,
            wait_s=config().batching.wait_s,
            drain_s=config().batching.drain_s,
            first_batch=config().batching.first_batch,
        )
    except ConversionError as exc:
        _notify()  # the page's last attempt fails its job
        attempts = Page.objects.values_list("attempts", flat=True).get(pk=page_id)
        if attempts >= services.MAX_PAGE_ATTEMPTS:
            return  # the page and its job are marked failed
        raise self.retry(exc=exc, countdown=2**attempts) from exc
    if result.busy:  # another worker holds this page: check again after it should be done
        raise self.retry(countdown=batch.BUSY_RETRY_S)
    for job_id in result.finished_jobs:
        _send_next(job_id, lambda j=job_id: send_finish(j))


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=FINISH_SOFT_LIMIT_S,
    time_limit=FINISH_HARD_LIMIT_S,
)
def job_finish_task(job_id: str) -> None:
    try:
        jobs.job_finish(job_id=job_id)
    except ConversionError:
        pass  # job_finish already marked the job failed with the error
    _notify()


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=PAGE_SOFT_LIMIT_S,
    time_limit=PAGE_HARD_LIMIT_S,
)
def page_rerun_task(job_id: str, number: int, actor_id: int | None) -> None:
    """A reviewer's "read this page again", on the engine's own queue and worker."""
    jobs.page_rerun(job_id=job_id, number=number, actor_id=actor_id)


@shared_task(soft_time_limit=RECOVER_SOFT_LIMIT_S, time_limit=RECOVER_HARD_LIMIT_S)
def jobs_recover_task() -> None:
    """Beat, every 20 s: queue stalled work again, fail jobs past their deadline, and send
    the outbox (jobs a process could not queue, if it died before it could). After the broker
    restarted, every unfinished job's next step is queued at once (steps are idempotent)."""
    outbox.flush()
    restarted = broker_restarted()
    if restarted:
        log.warning("the broker restarted: queueing every unfinished job's next step again")
    send_recovery(
        services.jobs_recover(alive=heartbeat.is_alive, stale_after_s=0 if restarted else None)
    )
    # Messages whose task was lost, and those written where no task sends them (a job failed by
    # this sweep, by the web process, by a page task killed at its last attempt).
    services.notification_requeue_stale(older_than=stale_queued())
    services.notifications_for_ended_batches()
    send_notifications()


@shared_task(
    bind=True,
    acks_late=True,
    # Bounded by AXIYA_WEBHOOK_ATTEMPTS: notify.deliver counts the attempts in the database.
    max_retries=None,
    soft_time_limit=NOTIFY_SOFT_LIMIT_S,
    time_limit=NOTIFY_HARD_LIMIT_S,
)
def notification_send_task(self, notification_id: str) -> None:
    """One attempt at a webhook or e-mail; the next one after the back-off, on this queue."""
    retry_in_s = notify.deliver(notification_id=notification_id)
    if retry_in_s is not None:
        raise self.retry(countdown=retry_in_s, queue=settings.HOUSEKEEPING_QUEUE)


@shared_task(soft_time_limit=PURGE_SOFT_LIMIT_S, time_limit=PURGE_HARD_LIMIT_S)
def purge_expired_task() -> None:
    """Beat, hourly: delete jobs and files older than AXIYA_RETENTION_DAYS."""
    services.purge_expired()
