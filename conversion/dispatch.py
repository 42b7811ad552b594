"""Where a queued job runs: Celery workers when a broker is configured, else a thread of this
process (one person on one machine needs nothing else)."""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import close_old_connections

log = logging.getLogger(__name__)
_inline_pool: ThreadPoolExecutor | None = None
HOUSEKEEPING_EVERY_S = 3600.0
_housekeeping_last = 0.0


def page_queue(engine: str) -> str:
    return "gpu" if engine == "gemma" else "cpu"


def enqueue_job(job_id) -> None:
    if settings.AXIYA_INLINE_WORKER:
        global _inline_pool
        if _inline_pool is None:
            _inline_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="axiya-inline")
        _inline_pool.submit(_run_inline, job_id)
        return
    from conversion.tasks import job_prepare_task

    try:
        job_prepare_task.apply_async(
            args=[str(job_id)], queue="cpu", retry=True, retry_policy={"max_retries": 3}
        )
    except Exception:  # the broker is down: the job stays queued and jobs_recover sends it later
        log.warning("could not queue job %s now; jobs_recover will", job_id, exc_info=True)


def enqueue_pages(engine: str, page_ids: list[int]) -> None:
    """Queue page reads again (jobs_recover). Inline: the job's run reads every unread page."""
    if not page_ids:
        return
    if settings.AXIYA_INLINE_WORKER:
        from conversion.models import Page

        jobs = Page.objects.filter(pk__in=page_ids).values_list("job_id", flat=True)
        for job_id in set(jobs):
            enqueue_job(job_id)
        return
    from conversion.tasks import page_read_batch_task, page_read_task

    queue = page_queue(engine)
    task = page_read_batch_task if queue == "gpu" else page_read_task
    for page_id in page_ids:
        task.apply_async(args=[page_id], queue=queue)


def enqueue_finish(job_id) -> None:
    if settings.AXIYA_INLINE_WORKER:
        enqueue_job(job_id)
        return
    from conversion.tasks import job_finish_task

    job_finish_task.apply_async(args=[str(job_id)], queue="cpu")


def housekeeping_due() -> None:
    """Inline mode has no Celery beat: the first request after start-up, and then one an hour,
    queues the retention purge and the stalled-job sweep on the inline thread."""
    global _housekeeping_last, _inline_pool
    now = time.monotonic()
    if not (settings.AXIYA_INLINE_WORKER and settings.AXIYA_INLINE_HOUSEKEEPING) or (
        _housekeeping_last and now - _housekeeping_last < HOUSEKEEPING_EVERY_S
    ):
        return
    _housekeeping_last = now
    if _inline_pool is None:
        _inline_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="axiya-inline")
    _inline_pool.submit(_housekeeping)


def _housekeeping() -> None:
    from conversion.services import jobs_recover, purge_expired

    close_old_connections()
    try:
        purge_expired()
        jobs_recover()
    except Exception:  # the inline thread must survive a failed sweep
        log.exception("housekeeping failed")
    finally:
        close_old_connections()


def _run_inline(job_id) -> None:
    from conversion.services import job_run_inline

    close_old_connections()
    try:
        job_run_inline(job_id=job_id)
    finally:
        close_old_connections()
