"""Batched reading (the GPU worker): one engine per process, pages from several jobs read in one
batch. A batched engine (conversion.engines: `batched`) reads its pages through here.

Run one worker per GPU, each pinned to its card and consuming queue `gpu` one task at a time:

    CUDA_VISIBLE_DEVICES=0 AXIYA_WORKER_ENGINE=gemma celery -A axiya worker -Q gpu \
        -c 1 --prefetch-multiplier 1 -n gpu0@%h
    CUDA_VISIBLE_DEVICES=1 AXIYA_WORKER_ENGINE=gemma celery -A axiya worker -Q gpu \
        -c 1 --prefetch-multiplier 1 -n gpu1@%h

(the prefork pool: CUDA starts in the child, after the fork; each process sees its card as
device 0). `AXIYA_WORKER_ENGINE` loads that engine when the process starts, not on the first page.

Batching across jobs: every page keeps its own task message. The task for page P claims P and
up to `AXIYA_GEMMA_FIRST_BATCH - 1` other queued pages (any job with the same engine) by a
conditional UPDATE queued -> running (while pages of a long document are still being rasterized,
a short claim keeps taking them for up to `AXIYA_GEMMA_BATCH_WAIT_S`). While the engine reads
that batch, the task claims the next one, twice as large up to `AXIYA_GEMMA_BATCH` (at most half
of what is queued while another worker reads too), and so on for up to `AXIYA_GEMMA_DRAIN_S`:
the engine prepares each next batch's images while the current one decodes (with
AXIYA_GEMMA_CONTINUOUS the claims stay at the first batch's size: the engine takes them as its
decode rows free up). A batch's pages are recorded together, in one transaction, as it
ends. When another page's message arrives later, its page is done (a no-op) or still held by a
live claim (the task retries later); a claim older than CLAIM_LEASE_S counts as abandoned (a
dead worker) and is taken over, so no page is lost and none is read twice by live workers.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import time
from collections import deque
from collections.abc import Collection, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta

from celery.signals import worker_process_init
from django.db import connections
from django.db.models import F, Q, QuerySet, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from axiya.config import config
from conversion import services, storage
from conversion.engines import get_engine
from conversion.models import Job, JobStatus, Page, PageStatus
from conversion.pipeline.errors import ConversionError
from conversion.pipeline.flow import read_stream
from conversion.runner import heartbeat
from models.engine import PageImage, StreamingEngine

log = logging.getLogger(__name__)
CLAIM_LEASE_S = 900  # a claim older than this belongs to a worker that died
BUSY_RETRY_S = 30  # when another worker holds the page: look again this much later


@worker_process_init.connect
def load_engine_once(**_: object) -> None:
    """Build the worker's engine (and its sessions) once, when the pool process starts."""
    name = config().worker_engine
    if not name:
        return
    started = time.perf_counter()
    engine = get_engine(name)
    if isinstance(engine, StreamingEngine):
        engine.warm_up()  # kernel selection and graph capture before the first real page
    log.info("worker engine %s loaded in %.1f s", engine.describe(), time.perf_counter() - started)


@dataclass
class BatchResult:
    busy: bool = False  # the page is held by another live worker: try again later
    pages: list[int] = field(default_factory=list)  # pages read by this call
    finished_jobs: list[str] = field(default_factory=list)  # jobs whose last page this read


def claim_pages(*, page_id: int, limit: int, wait_s: float = 0.0) -> tuple[list[int], bool]:
    """Claim `page_id` and up to `limit - 1` more queued pages of the same engine, owners
    taking turns, each owner's oldest job first. Returns (claimed page ids, busy): busy when
    another live worker holds `page_id`.

    With `wait_s`, while the batch is short and pages of running jobs are still being
    rasterized, keep claiming them as they appear (at most `wait_s`): a model call costs about
    as much for a few pages as for a full batch."""
    now = timezone.now()
    fresh = now - timedelta(seconds=CLAIM_LEASE_S)
    page = Page.objects.select_related("job").get(pk=page_id)
    if page.status in (PageStatus.DONE, PageStatus.FAILED) or page.job.is_finished:
        return [], False
    own = (
        Page.objects.filter(pk=page_id)
        .filter(Q(status=PageStatus.QUEUED) | Q(status=PageStatus.RUNNING, updated_at__lt=fresh))
        .update(
            status=PageStatus.RUNNING,
            updated_at=now,
            attempts=F("attempts") + 1,
            claimed_by=heartbeat.worker_id(),
        )
    )
    if not own:
        return [], True
    return _claim_queued(
        engine=page.job.engine, claimed=[page_id], limit=limit, wait_s=wait_s
    ), False


def claim_next(
    *, engine: str, limit: int, wait_s: float = 0.0, holding: Collection[int] = (), floor: int = 1
) -> list[int]:
    """Claim up to `limit` queued pages of `engine`, owners taking turns, each owner's oldest
    job first (a draining worker's next batch). Returns [] when none is queued.

    While another worker reads pages of this engine too (it holds fresh claims other than
    `holding`, this worker's own), take at most half of what is queued (but `floor` pages), so
    that the last batches of a job end on both workers at about the same time instead of one
    worker reading a full batch while the other idles."""
    fresh = timezone.now() - timedelta(seconds=CLAIM_LEASE_S)
    others = (
        Page.objects.filter(status=PageStatus.RUNNING, job__engine=engine, updated_at__gte=fresh)
        .exclude(pk__in=list(holding))
        .exists()
    )
    if others:
        queued = _queued(engine).count()
        limit = min(limit, max(floor, -(-queued // 2)))
    return _claim_queued(engine=engine, claimed=[], limit=limit, wait_s=wait_s)


def _queued(engine: str) -> QuerySet[Page]:
    """Pages of `engine` waiting to be read (rasterized or still being rasterized)."""
    return Page.objects.filter(
        status=PageStatus.QUEUED,
        job__engine=engine,
        job__status__in=(JobStatus.QUEUED, JobStatus.RUNNING),
    )


def _claim_queued(*, engine: str, claimed: list[int], limit: int, wait_s: float) -> list[int]:
    now = timezone.now()
    claim = {"status": PageStatus.RUNNING, "updated_at": now, "attempts": F("attempts") + 1}
    queued = _queued(engine)
    deadline = time.monotonic() + wait_s
    while True:
        candidates = (
            queued.filter(dpi__gt=0)  # rasterized: its image is on disk
            # Owners take turns (issue 17): each owner's oldest page, then each one's next.
            .annotate(
                turn=Window(
                    RowNumber(),
                    partition_by=[F("job__owner_id")],
                    order_by=[F("job__created_at").asc(), F("number").asc()],
                )
            )
            .order_by("turn", "job__created_at", "number")
            .values_list("pk", flat=True)[: max(0, limit - len(claimed))]
        )
        for pk in list(candidates):
            # The conditional UPDATE is the lock: of two workers only one gets 1 row back.
            if Page.objects.filter(pk=pk, status=PageStatus.QUEUED).update(**claim):
                claimed.append(pk)
        if len(claimed) >= limit or time.monotonic() >= deadline:
            return claimed
        if not queued.filter(dpi=0).exists():  # nothing more is coming
            return claimed
        time.sleep(0.25)


@functools.cache
def _loader() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1), thread_name_prefix="load")


def read_claimed(
    page_ids: list[int], *, limit: int = 0, drain_s: float = 0.0, wait_s: float = 0.0
) -> BatchResult:
    """Read claimed pages and record each; for `drain_s` seconds keep claiming the next batch
    of queued pages (same engine) while the engine finishes the current one, so the GPU never
    idles between batches and several workers share a long job batch by batch. Each next batch
    is twice the last, up to `limit` (default: the first batch's size): a small first batch
    gets the GPU going after little image work, the larger ones use it fully.
    Returns the pages read and the jobs whose last page this recorded. On an engine error every
    claimed page not yet recorded goes back to queued (or fails at its last attempt) and the
    error is raised."""

    def claimed(ids: Collection[int]) -> list[Page]:
        return list(Page.objects.select_related("job").filter(pk__in=ids).order_by("pk"))

    first = claimed(page_ids)
    if not first:
        return BatchResult()
    engine_name = first[0].job.engine
    engine = get_engine(engine_name)
    # A continuous engine takes pages as its rows free up: it keeps the first claim's size.
    continuous = isinstance(engine, StreamingEngine) and engine.continuous
    limit = max(limit, len(page_ids))
    deadline = time.monotonic() + drain_s
    pending: deque[list[Page]] = deque()  # claimed and handed to the engine, not yet recorded

    def batches() -> Iterator[list[PageImage]]:
        # The claims (database queries) and image loading run on a thread of their own, one
        # batch at a time as the engine asks for it; that thread's connections end with it.
        claimer = ThreadPoolExecutor(1, thread_name_prefix="claims")
        source = claimed_batches()
        try:
            while (images := claimer.submit(next, source, None).result()) is not None:
                yield images
        finally:
            claimer.submit(source.close).result()
            claimer.submit(connections.close_all).result()
            claimer.shutdown()

    def claimed_batches() -> Iterator[list[PageImage]]:
        pages, size = first, len(first)
        while pages:
            # Held before loading: a store that fails to give an image fails these pages too.
            pending.append(pages)
            # PNG decoding releases the GIL: a few hundred page images load in parallel.
            images = list(_loader().map(storage.engine_input, pages))
            yield images
            if time.monotonic() >= deadline:
                return
            size = size if continuous else min(limit, 2 * size)
            ids = claim_next(
                engine=engine_name,
                limit=size,
                wait_s=wait_s,
                # Every batch claimed and not yet recorded (being read, parsed or recorded):
                # this worker's own claims, not another worker's.
                holding=[p.pk for held in list(pending) for p in held],
                floor=len(first),
            )
            pages = claimed(ids)
            if len(pages) > 1:
                log.info("draining: the next %d pages", len(pages))

    result = BatchResult()
    started = time.perf_counter()
    try:
        with contextlib.closing(read_stream(engine, batches())) as stream:
            for readings in stream:
                pages = pending[0]  # held until recorded: a claim meanwhile counts it as ours
                took = time.perf_counter() - started
                log.info("read %d pages in %.1f s (%.2f pages/s)", len(pages), took,
                         len(pages) / took)  # fmt: skip
                started = time.perf_counter()
                per_page = took / len(pages)
                records = []
                for page, reading in zip(pages, readings, strict=True):
                    reading.page_number = page.number
                    timings = dict(page.timings or {}, engine_s=per_page, batch=float(len(pages)))
                    records.append((page.pk, reading, timings))
                result.finished_jobs += services.pages_record(
                    readings=records, engine_info=engine.describe()
                )
                pending.popleft()
                result.pages += [page.pk for page in pages]
    except ConversionError as exc:
        for pages in pending:
            for page in pages:
                services.page_read_failed(page_id=page.pk, error=exc)
        raise
    return result


def page_read_batched(
    *, page_id: int, limit: int, wait_s: float = 0.0, drain_s: float = 0.0, first_batch: int = 0
) -> BatchResult:
    """Claim `page_id` with up to `first_batch` (default `limit`) queued pages, read them and,
    for `drain_s`, the batches after them (growing to `limit`)."""
    first = min(limit, first_batch) if first_batch > 0 else limit
    claimed, busy = claim_pages(page_id=page_id, limit=first, wait_s=wait_s)
    if not claimed:
        return BatchResult(busy=busy)
    if len(claimed) > 1:
        jobs = Job.objects.filter(pages__pk__in=claimed).distinct().count()
        log.info("reading %d pages of %d job(s) in one batch", len(claimed), jobs)
    return read_claimed(claimed, limit=limit, drain_s=drain_s, wait_s=wait_s)
