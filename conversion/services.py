"""Writes. Every change to jobs and pages goes through these functions (HackSoft styleguide).

The flow: job_create (validate, store, queue) -> job_start (create Page rows) -> pages_rasterize
(in chunks, in parallel on the cpu queue) -> page_read for each page as soon as it is rasterized
(engine) -> job_finish (assemble, render, check, write outputs).
Each step is idempotent, so a worker killed mid-job resumes without redoing finished pages.
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from conversion import engines, storage
from conversion.engines import ENGINES, get_engine
from conversion.languages import clean_language
from conversion.models import Batch, Job, JobStatus, Page, PageStatus
from conversion.options import convert_options
from conversion.pipeline.convert import (
    build_document,
    make_report,
    render_and_check,
    run_engine,
    write_outputs,
)
from conversion.pipeline.document import open_findings
from conversion.pipeline.errors import (
    ConversionError,
    EmptyFile,
    EngineCrashed,
    EngineUnavailable,
    FileTooLarge,
    JobTimeout,
    PageTimeout,
)
from conversion.pipeline.isolate import run_isolated
from conversion.pipeline.rasterize import render_page_file
from conversion.pipeline.validate import sniff_pdf, validate_pdf
from models.engine import PageImage, PageReading, reading_from_json, reading_to_json

log = logging.getLogger(__name__)
MAX_PAGE_ATTEMPTS = 3


def job_create(
    *,
    owner: AbstractBaseUser | None,
    upload: UploadedFile | Path,
    engine: str | None = None,
    language: str | None = None,
    batch: Batch | None = None,
    original_name: str | None = None,
    enqueue: bool = True,
) -> Job:
    """Validate and store one PDF, then queue it. Bad input raises ConversionError, leaving
    no job and no file behind."""
    engine = engine or settings.AXIYA_DEFAULT_ENGINE
    if engine not in ENGINES:
        raise EngineUnavailable(f"Unknown engine {engine!r}: choose one of {', '.join(ENGINES)}.")
    language = clean_language(language)
    opts = convert_options(language=language)
    name = original_name or (upload.name if isinstance(upload, UploadedFile) else upload.name)
    name = os.path.basename(name or "document.pdf")[:255]
    tmp_root = Path(settings.MEDIA_ROOT) / "incoming"
    tmp_root.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(suffix=".pdf", dir=tmp_root)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as fh:
            _copy_upload(upload, fh, max_bytes=opts.limits.max_bytes)
        if tmp.stat().st_size == 0:
            raise EmptyFile()
        with tmp.open("rb") as fh:
            sniff_pdf(fh.read(1024))
        # MuPDF on an untrusted file: in a child process, so a crash or a loop costs one request.
        validated = run_isolated(
            validate_pdf,
            tmp,
            opts.limits,
            timeout_s=settings.AXIYA_PAGE_TIMEOUT_S,
            memory_mb=settings.AXIYA_RASTER_MEMORY_MB,
        )
        job = Job.objects.create(
            owner=owner if owner is not None and owner.is_authenticated else None,
            batch=batch,
            original_name=name,
            size_bytes=tmp.stat().st_size,
            engine=engine,
            language=language or "",
            pages_total=validated.page_count,
        )
        target = storage.source_pdf(job.id)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    if enqueue:
        from conversion.dispatch import enqueue_job

        transaction.on_commit(lambda: enqueue_job(job.id))
    return job


def _copy_upload(upload: UploadedFile | Path, fh, *, max_bytes: int) -> None:
    written = 0
    if isinstance(upload, Path):
        source = upload.open("rb")
        chunks = iter(lambda: source.read(1 << 20), b"")
    else:
        source = None
        chunks = upload.chunks()
    try:
        for chunk in chunks:
            written += len(chunk)
            if written > max_bytes:
                raise FileTooLarge(
                    f"The file is larger than {max_bytes / 2**20:.0f} MiB, the limit of this "
                    "server. Split it into smaller PDFs."
                )
            fh.write(chunk)
    finally:
        if source is not None:
            source.close()


def batch_create(*, owner: AbstractBaseUser | None) -> Batch:
    return Batch.objects.create(owner=owner if owner and owner.is_authenticated else None)


def job_prepare(*, job_id) -> list[int]:
    """Rasterize every page into a PNG and create its Page row, here and now (the inline worker,
    tests). Returns the page ids to read."""
    numbers = job_start(job_id=job_id)
    pages_rasterize(job_id=job_id, numbers=numbers)
    return pages_to_read(job_id=job_id)


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


def pages_rasterize(*, job_id, numbers: list[int]) -> list[int]:
    """Rasterize these pages of a started job (each in an isolated child: the PDF is
    untrusted). A page whose text layer is trusted is recorded at once. Returns the ids of the
    pages of `numbers` that now wait for an engine read."""
    job = Job.objects.get(pk=job_id)
    if job.is_finished:
        return []
    opts = convert_options(language=job.language or None)
    source = storage.source_pdf(job.id)
    for number in numbers:
        job_check_deadline(job_id=job.id)
        path = storage.page_image(job.id, number)
        page = Page.objects.get(job=job, number=number)  # job_start made every row
        if page.status == PageStatus.DONE or (path.exists() and page.dpi):
            continue
        started = time.perf_counter()
        rendered = run_isolated(
            render_page_file,
            source,
            number - 1,
            opts.raster,
            path,
            timeout_s=settings.AXIYA_PAGE_TIMEOUT_S,
            memory_mb=settings.AXIYA_RASTER_MEMORY_MB,
        )
        timings = {"rasterize_s": time.perf_counter() - started}
        Page.objects.filter(pk=page.pk).update(
            dpi=rendered.dpi, timings=timings, updated_at=timezone.now()
        )
        if rendered.text_reading is not None:
            layer = reading_from_json(rendered.text_reading)
            _pages_store(readings=[(page.pk, job.id, layer, timings)])
    return list(
        Page.objects.filter(job=job, number__in=numbers, dpi__gt=0)
        .exclude(status=PageStatus.DONE)
        .order_by("number")
        .values_list("id", flat=True)
    )


def pages_to_read(*, job_id) -> list[int]:
    """Ids of the job's pages that are not done, in page order (none once the job ended)."""
    if Job.objects.get(pk=job_id).is_finished:
        return []
    return list(
        Page.objects.filter(job_id=job_id)
        .exclude(status=PageStatus.DONE)
        .order_by("number")
        .values_list("id", flat=True)
    )


def job_all_pages_done(*, job_id) -> bool:
    total = Job.objects.values_list("pages_total", flat=True).get(pk=job_id)
    return Page.objects.filter(job_id=job_id, status=PageStatus.DONE).count() == total


def job_check_deadline(*, job_id) -> None:
    """Raise JobTimeout once a job has run longer than AXIYA_JOB_TIMEOUT_S since it started."""
    started = Job.objects.values_list("started_at", flat=True).get(pk=job_id)
    limit = settings.AXIYA_JOB_TIMEOUT_S
    if started is not None and timezone.now() - started > timedelta(seconds=limit):
        raise JobTimeout(f"The conversion ran longer than {limit} s, this server's limit.")


def page_read(*, page_id: int) -> bool:
    """Read one page with the job's engine. Returns True when this call finished the job's
    last page (the caller then runs job_finish)."""
    page = Page.objects.select_related("job").get(pk=page_id)
    job = page.job
    if page.status in (PageStatus.DONE, PageStatus.FAILED) or job.is_finished:
        return False
    try:
        job_check_deadline(job_id=job.id)
    except JobTimeout as exc:
        job_mark_failed(job_id=job.id, error=exc)
        return False
    if page.attempts >= MAX_PAGE_ATTEMPTS:
        # Every earlier attempt started and none recorded an outcome: each one took its worker
        # down (a segfault, the OOM killer, a hard time limit). Give the page up, visibly.
        page_fail(page_id=page.pk, error=EngineCrashed(page=page.number))
        return False
    # updated_at: update() skips auto_now, and jobs_recover reads it as the page's heartbeat.
    Page.objects.filter(pk=page.pk).update(
        status=PageStatus.RUNNING, attempts=F("attempts") + 1, updated_at=timezone.now()
    )
    engine = get_engine(job.engine)
    image = storage.engine_input(page)
    started = time.perf_counter()
    try:
        (reading,) = _run_engine_with_timeout(
            engine,
            [image],
            name=job.engine,
            timeout_s=settings.AXIYA_PAGE_TIMEOUT_S,
        )
    except ConversionError as exc:
        page_read_failed(page_id=page.pk, error=exc)
        raise
    timings = dict(page.timings or {}, engine_s=time.perf_counter() - started)
    return page_record(
        page_id=page.pk, reading=reading, engine_info=engine.describe(), timings=timings
    )


def _run_engine_with_timeout(
    engine, pages: list[PageImage], *, name: str, timeout_s: float
) -> list[PageReading]:
    """run_engine, waiting at most timeout_s. A C library call cannot be interrupted, so a page
    over time is abandoned to its thread, and the engine instance goes with it: the next page
    builds a fresh one instead of sharing a busy one."""
    outcome: dict = {}

    def work() -> None:
        try:
            outcome["readings"] = run_engine(engine, pages)
        except BaseException as exc:  # noqa: BLE001  (re-raised in the caller)
            outcome["error"] = exc

    thread = threading.Thread(target=work, name="axiya-engine", daemon=True)
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        engines.forget(name, engine)
        raise PageTimeout(
            f"Page {pages[0].page_number} took longer than {timeout_s:.0f} s to read and was "
            "stopped.",
            page=pages[0].page_number,
        )
    if "error" in outcome:
        raise outcome["error"]
    return outcome["readings"]


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


def job_finish(*, job_id) -> Job:
    """Assemble, render, check and write the outputs; the job ends done or needs_review."""
    job = Job.objects.get(pk=job_id)
    if job.is_finished:
        return job
    pages = list(Page.objects.filter(job=job).order_by("number"))
    if len(pages) != job.pages_total or any(p.status != PageStatus.DONE for p in pages):
        raise RuntimeError(f"job {job_id} is not ready to finish")
    readings = [reading_from_json(p.reading) for p in pages]
    load_image = functools.partial(storage.read_page_image, job.id)
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="axiya-figures-") as tmp:
            staged = Path(tmp) / "files"
            stem = storage.OUTPUT_STEM
            title = Path(job.original_name).stem or "Untitled document"
            document = build_document(
                readings, load_image, title=title, language=job.language or None, files_dir=staged
            )
            html, findings = render_and_check(document, files_dir_name=f"{stem}_files")
            timings = {
                "rasterize_s": sum(p.timings.get("rasterize_s", 0.0) for p in pages),
                "engine_s": sum(p.timings.get("engine_s", 0.0) for p in pages),
                "assemble_render_check_s": time.perf_counter() - started,
                "pages": len(pages),
            }
            report = make_report(
                document=document,
                findings=findings,
                engine=job.engine_info,
                timings=timings,
                source=job.original_name,
            )
            write_outputs(storage.out_dir(job.id), stem, html, report, staged)
    except ConversionError as exc:
        job_mark_failed(job_id=job.id, error=exc)
        raise
    status = status_from_evidence(report["summary"])
    Job.objects.filter(pk=job.id).update(
        status=status,
        title=document.title[:255],
        language=document.lang,
        timings=timings,
        summary=report["summary"],
        finished_at=timezone.now(),
    )
    job.refresh_from_db()
    return job


def status_from_evidence(summary: dict | None) -> str:
    """A finished job's status from its report: NEEDS_REVIEW while any error or item to review
    is open, DONE when nothing is left to check (warnings alone do not hold a job)."""
    return JobStatus.NEEDS_REVIEW if open_findings(summary) else JobStatus.DONE


def job_mark_failed(*, job_id, error: ConversionError | Exception) -> None:
    code = getattr(error, "code", "INTERNAL_ERROR")
    message = getattr(error, "message", None) or "An unexpected error stopped the conversion."
    Job.objects.filter(pk=job_id).exclude(status=JobStatus.FAILED).update(
        status=JobStatus.FAILED, error_code=code, error_message=message, finished_at=timezone.now()
    )


def job_delete(*, job: Job) -> None:
    """Remove the job, its pages and every file it wrote."""
    directory = storage.job_dir(job.id)
    job.delete()
    shutil.rmtree(directory, ignore_errors=True)


def job_run_inline(*, job_id) -> None:
    """The whole job in this process (no broker): prepare, every page, finish."""
    try:
        page_ids = job_prepare(job_id=job_id)
        if Job.objects.values_list("engine", flat=True).get(pk=job_id) == "gemma":
            # The model reads several pages in one generate: claim and read them in batches.
            from conversion.worker import page_read_batched

            for page_id in page_ids:
                page_read_batched(
                    page_id=page_id,
                    limit=settings.AXIYA_GEMMA_BATCH,
                    drain_s=settings.AXIYA_GEMMA_DRAIN_S,
                    first_batch=settings.AXIYA_GEMMA_FIRST_BATCH,
                )
        else:
            for page_id in page_ids:
                page_read(page_id=page_id)
        job_finish(job_id=job_id)
    except ConversionError as exc:
        job_mark_failed(job_id=job_id, error=exc)
    except Exception as exc:  # the thread must never die silently: the job fails visibly
        log.exception("job %s failed", job_id)
        job_mark_failed(job_id=job_id, error=exc)


# --- recovery and retention (periodic: Celery beat, or the inline worker's timer) ---------------


def jobs_recover(*, now=None) -> dict[str, list[str]]:
    """Find work that stalled and queue it again, or fail jobs past their deadline.

    Messages are acknowledged late, so a worker killed mid-task has its message delivered again
    after the broker's visibility timeout; this sweep covers the rest (a message lost with a
    Redis that had no persistence, an enqueue while the broker was down). Every step it queues
    is idempotent: done pages are never read again, a page is counted once.
    Returns what it did, by kind: {"failed": [...], "prepare": [...], "pages": [...],
    "finish": [...]}.
    """
    now = now or timezone.now()
    stale = now - timedelta(seconds=settings.AXIYA_RECOVER_AFTER_S)
    deadline = now - timedelta(seconds=settings.AXIYA_JOB_TIMEOUT_S)
    done: dict[str, list[str]] = {"failed": [], "prepare": [], "pages": [], "finish": []}
    active = Job.objects.filter(status__in=(JobStatus.QUEUED, JobStatus.RUNNING))
    for job in active.filter(started_at__lt=deadline):
        job_mark_failed(job_id=job.id, error=JobTimeout())
        done["failed"].append(str(job.id))
    from conversion.dispatch import enqueue_finish, enqueue_job, enqueue_pages

    for job in active.filter(created_at__lt=stale).exclude(pages__updated_at__gte=stale):
        pages = list(job.pages.all())
        if len(pages) < job.pages_total or any(p.dpi == 0 for p in pages):
            enqueue_job(job.id)  # never (fully) rasterized: job_prepare is idempotent
            done["prepare"].append(str(job.id))
        elif all(p.status == PageStatus.DONE for p in pages):
            enqueue_finish(job.id)
            done["finish"].append(str(job.id))
        else:
            todo = [p for p in pages if p.status in (PageStatus.QUEUED, PageStatus.RUNNING)]
            # A RUNNING page with no progress for this long belongs to a dead worker.
            Page.objects.filter(pk__in=[p.pk for p in todo]).update(
                status=PageStatus.QUEUED, updated_at=now
            )
            enqueue_pages(job.engine, [p.pk for p in todo])
            done["pages"].append(str(job.id))
    return done


def purge_expired(*, now=None, days: int | None = None) -> list[str]:
    """Delete jobs (rows and every file) older than the retention period; 0 days keeps all.
    Also removes upload leftovers in incoming/ older than a day. Returns the deleted job ids."""
    days = settings.AXIYA_RETENTION_DAYS if days is None else days
    now = now or timezone.now()
    deleted: list[str] = []
    if days > 0:
        cutoff = now - timedelta(days=days)
        for job in Job.objects.filter(created_at__lt=cutoff):
            deleted.append(str(job.id))
            job_delete(job=job)
    incoming = Path(settings.MEDIA_ROOT) / "incoming"
    if incoming.is_dir():
        old = time.time() - 86400
        for leftover in incoming.iterdir():
            if leftover.is_file() and leftover.stat().st_mtime < old:
                leftover.unlink(missing_ok=True)
    if deleted:
        log.info("retention: deleted %d job(s) older than %d days", len(deleted), days)
    return deleted
