"""Where a queued job runs: Celery workers when a broker is configured, else a thread of this
process (one person on one machine needs nothing else)."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import close_old_connections

log = logging.getLogger(__name__)
_inline_pool: ThreadPoolExecutor | None = None


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

    job_prepare_task.apply_async(args=[str(job_id)], queue="cpu")


def _run_inline(job_id) -> None:
    from conversion.services import job_run_inline

    close_old_connections()
    try:
        job_run_inline(job_id=job_id)
    finally:
        close_old_connections()
