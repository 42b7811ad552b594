"""Where work runs, and the only code that queues it: Celery workers when a broker is configured
(conversion.dispatch.tasks), else a thread of this process (one person on one machine needs
nothing else: conversion.dispatch.inline, fair between owners and recovering at start).
Views, the API and management commands call these; these call conversion.runner.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from django.contrib.auth.models import AbstractBaseUser
from django.db import DatabaseError, close_old_connections, transaction

from axiya.config import config
from conversion import notify, selectors, services
from conversion.dispatch import tasks
from conversion.dispatch.inline import InlineRunner
from conversion.models import Job, Page
from conversion.review import ReviewError
from conversion.runner import heartbeat, jobs

log = logging.getLogger(__name__)
_inline_pool: ThreadPoolExecutor | None = None
# Without a broker, notifications go out on a thread of their own: a slow receiver never holds
# up the conversion thread.
_notify_pool: ThreadPoolExecutor | None = None
HOUSEKEEPING_EVERY_S = 3600.0
_housekeeping_last = 0.0


def submit(job: Job) -> Job:
    """Queue a job runner.job_create stored, once the transaction that stored it commits."""
    transaction.on_commit(lambda: enqueue_job(job.id))
    return job


def _inline(fn, *args) -> None:
    global _inline_pool
    if _inline_pool is None:
        _inline_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="axiya-inline")
    _inline_pool.submit(_with_connections, fn, *args)


def _with_connections(fn, *args) -> None:
    """A thread's database connections are its own: closed when stale and when it is done."""
    close_old_connections()
    try:
        fn(*args)
    finally:
        close_old_connections()


def enqueue_job(job_id) -> None:
    if config().inline_worker:
        _runner.submit(job_id)
        return
    try:
        tasks.send_job(job_id)
    except Exception:  # the broker is down: the outbox sends it when the broker is back
        log.warning("could not queue job %s now: it waits in the outbox", job_id, exc_info=True)
        outbox.add(job_id)


def enqueue_pages(engine: str, page_ids: list[int]) -> None:
    """Queue page reads again. Inline: the job's run reads every unread page."""
    if not page_ids:
        return
    if config().inline_worker:
        for job_id in set(Page.objects.filter(pk__in=page_ids).values_list("job_id", flat=True)):
            enqueue_job(job_id)
        return
    tasks.send_pages(engine, page_ids)


def enqueue_finish(job_id) -> None:
    if config().inline_worker:
        enqueue_job(job_id)
        return
    tasks.send_finish(job_id)


def enqueue_rerun(*, job: Job, number: int, actor: AbstractBaseUser | None) -> None:
    """A reviewer's "read this page again": queued on the engine's own queue, like any page
    read (the engine never runs inside a web request)."""
    if not job.is_finished or not selectors.page_has_scan(job_id=job.id, number=number):
        raise ReviewError(f"Page {number} has no scan to read again.")
    actor_id = actor.pk if actor is not None and actor.is_authenticated else None
    if config().inline_worker:
        _inline(_run_rerun, job.id, number, actor_id)
        return
    tasks.send_rerun(job.engine, job.id, number, actor_id)


def recover() -> dict[str, list[str]]:
    """Queue stalled work again and fail jobs past their deadline (services.jobs_recover)."""
    # Without a broker no worker beats (conversion/runner/heartbeat.py): time decides alone.
    plan = services.jobs_recover(alive=None if config().inline_worker else heartbeat.is_alive)
    if config().inline_worker:
        for job_id in plan["prepare"] + plan["pages"] + plan["finish"]:
            enqueue_job(job_id)  # the inline run does whatever the job still needs
    else:
        tasks.send_recovery(plan)
    return plan


def housekeeping_due() -> None:
    """Inline mode has no Celery beat: the first request after start-up, and then one an hour,
    queues the retention purge and the stalled-job sweep on the inline thread."""
    global _housekeeping_last
    now = time.monotonic()
    if not (config().inline_worker and config().inline_housekeeping) or (
        _housekeeping_last and now - _housekeeping_last < HOUSEKEEPING_EVERY_S
    ):
        return
    _housekeeping_last = now
    _inline(_housekeeping)


def _housekeeping() -> None:
    try:
        services.purge_expired()
        recover()
        services.notification_requeue_stale(older_than=tasks.stale_queued())
        services.notifications_for_ended_batches()
        send_notifications()
    except Exception:  # the inline thread must survive a failed sweep
        log.exception("housekeeping failed")


def send_notifications() -> None:
    """Send the messages that jobs or batches ended: Celery tasks on the housekeeping queue,
    or, inline, this process's notification thread (a retry waits on a timer)."""
    if not config().inline_worker:
        tasks.send_notifications()
        return
    for pk in services.notifications_queue(ids=selectors.notifications_pending()):
        _notify_inline(pk)


def on_review_saved(sender, instance, update_fields=None, **kwargs) -> None:
    """post_save of JobReview (connected in conversion/apps.py): a reviewer's verdict writes its
    messages, sent once the verdict is committed. A page's state alone (update_fields without
    "state") says nothing new."""
    if update_fields is not None and "state" not in update_fields:
        return
    if services.notifications_for_review(job_id=instance.job_id, state=instance.state):
        transaction.on_commit(_send_notifications_safely)


def _send_notifications_safely() -> None:
    try:
        send_notifications()
    except Exception:  # never the request's failure: the recovery sweep sends them
        log.warning("could not queue notifications now", exc_info=True)


def _notify_inline(notification_id) -> None:
    global _notify_pool
    if _notify_pool is None:
        _notify_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="axiya-notify")
    _notify_pool.submit(_with_connections, _deliver_inline, notification_id)


def _deliver_inline(notification_id) -> None:
    try:
        retry_in_s = notify.deliver(notification_id=notification_id)
    except Exception:  # the thread must survive; the message stays queued
        log.exception("notification %s failed", notification_id)
        return
    if retry_in_s is not None:
        timer = threading.Timer(retry_in_s, _notify_inline, args=[notification_id])
        timer.daemon = True
        timer.start()


def _run_job(job_id) -> None:
    try:
        jobs.job_run_inline(job_id=job_id)  # idempotent: it does what the job still needs
    finally:
        _send_notifications_safely()


_runner = InlineRunner(_run_job)
outbox = tasks.outbox  # one per process: the web's uploads and a worker's tasks


def start_inline_runner() -> None:
    """The web server's start (axiya/wsgi.py): without a broker, pick up the jobs a previous run
    of the server left unfinished (conversion.dispatch.inline); with one, send the jobs a
    previous run could not queue (conversion.dispatch.outbox)."""
    try:
        if config().inline_worker:
            _runner.recover_at_start()
        elif selectors.outbox_messages(limit=1):
            outbox.ensure_flushing()
    except DatabaseError:  # not migrated yet: the server starts; nothing can be waiting anyway
        log.warning("start-up recovery skipped: the database is not ready", exc_info=True)


def _run_rerun(job_id, number: int, actor_id: int | None) -> None:
    try:
        jobs.page_rerun(job_id=job_id, number=number, actor_id=actor_id)
    except Exception:  # the inline thread must survive; the page keeps its reading
        log.exception("re-run of page %s of job %s failed", number, job_id)
