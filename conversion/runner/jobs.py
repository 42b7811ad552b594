"""The site's run of the conversion flow (conversion.pipeline.flow) on jobs in the database: take
an upload, rasterize pages, read one page, finish, read a page again for review, or a whole job
in this process. The work happens here; conversion.services records it; conversion.dispatch
decides where and when each step runs.

The steps: job_create (validate, store) -> services.job_start (Page rows) -> pages_rasterize (in
chunks) -> page_read for each page as soon as it is rasterized (or runner.batch for a batched
engine) -> job_finish (assemble, render, check, write outputs). Each step is idempotent.
"""

from __future__ import annotations

import functools
import logging
import os
import tempfile
import threading
import time
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from axiya.config import config
from conversion import engines, review, selectors, services, storage
from conversion.engines import engine_spec, get_engine, require_available
from conversion.languages import clean_language
from conversion.models import Batch, Job, Page, PageStatus, ReviewEvent
from conversion.options import convert_options
from conversion.pipeline import flow
from conversion.pipeline.errors import (
    ConversionError,
    FileTooLarge,
    PageTimeout,
    StorageUnavailable,
    storage_error,
)
from conversion.runner import heartbeat
from conversion.runner.batch import page_read_batched
from models.engine import PageEngine, PageImage, PageReading, reading_from_json

log = logging.getLogger(__name__)


def job_create(
    *,
    owner: AbstractBaseUser | None,
    upload: UploadedFile | Path,
    engine: str | None = None,
    language: str | None = None,
    batch: Batch | None = None,
    original_name: str | None = None,
    callback_url: str = "",
    site_url: str = "",
) -> Job:
    """Validate and store one PDF (the caller queues it: conversion.dispatch). Bad input raises
    ConversionError, leaving no job and no file behind.

    The file reaches the store only once the row is committed (issue 17: a web process
    killed mid-upload left folders with no row): until then it waits in this host's incoming/
    under the job's id, and a rolled-back row leaves only that, which the sweep removes
    (services.purge_expired)."""
    spec = require_available(engine)
    language = clean_language(language)
    opts = convert_options(language=language)
    name = original_name or upload.name
    name = os.path.basename(name or "document.pdf")[:255]
    tmp: Path | None = None
    try:
        try:
            tmp_root = storage.incoming_dir()
            tmp_root.mkdir(parents=True, exist_ok=True)
            fd, tmp_name = tempfile.mkstemp(suffix=".pdf", dir=tmp_root)
            tmp = Path(tmp_name)
            with os.fdopen(fd, "wb") as fh:
                _copy_upload(upload, fh, max_bytes=opts.limits.max_bytes)
        except OSError as exc:
            # A full disk is this server's fault, not the file's: a coded 503 (the partial copy
            # goes below).
            raise storage_error(exc) from exc
        validated = flow.prepare(tmp, opts)
        job = services.job_insert(
            owner=owner,
            batch=batch,
            original_name=name,
            size_bytes=tmp.stat().st_size,
            engine=spec.name,
            language=language,
            validated=validated,
            callback_url=callback_url,
            site_url=site_url,
        )
        os.replace(tmp, storage.staged_upload(job.id))
    finally:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
    # robust: the callbacks after this one (the enqueue) run even when the store failed.
    transaction.on_commit(lambda: _place_upload(job.id), robust=True)
    return job


def _place_upload(job_id) -> None:
    """Store a committed job's upload; a store that fails fails the job (STORAGE_UNAVAILABLE,
    not the file's fault) and leaves no object and no staged file."""
    try:
        storage.place_upload(job_id)
    except StorageUnavailable as exc:
        services.job_mark_failed(job_id=job_id, error=exc)
        storage.staged_upload(job_id).unlink(missing_ok=True)


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


def job_prepare(*, job_id) -> list[int]:
    """Rasterize every page here and now (the inline runner). Returns the page ids to read."""
    numbers = services.job_start(job_id=job_id)
    pages_rasterize(job_id=job_id, numbers=numbers)
    return selectors.pages_to_read(job_id=job_id)


def pages_rasterize(*, job_id, numbers: list[int]) -> list[int]:
    """Rasterize these pages of a started job (flow.rasterize: isolated). A page whose text
    layer is trusted is recorded at once. Returns the ids of the pages of `numbers` that now
    wait for an engine read."""
    job = Job.objects.get(pk=job_id)
    if job.is_finished:
        return []
    opts = convert_options(language=job.requested_language or None)
    if not storage.source_exists(job.id):
        storage.place_upload(job.id)  # the process that made the row died before moving it
    todo = [
        page
        for page in Page.objects.filter(job=job, number__in=numbers).order_by("number")
        if page.status != PageStatus.DONE
        and not (page.dpi and storage.page_image_exists(job.id, page.number))
    ]
    if todo:
        with storage.local_source(job.id) as source, storage.scratch(job.id) as pages_dir:
            for page in todo:
                services.job_check_deadline(job_id=job.id)
                started = time.perf_counter()
                rendered = flow.rasterize(source, page.number, opts, pages_dir)
                png = flow.page_file(pages_dir, page.number)
                storage.save_page_image(job.id, page.number, png)
                png.unlink()
                services.page_rasterized(
                    job_id=job.id,
                    number=page.number,
                    dpi=rendered.dpi,
                    timings={"rasterize_s": time.perf_counter() - started},
                    text_layer=flow.text_layer(rendered),
                    drawn=rendered.drawn,
                )
    return list(
        Page.objects.filter(job=job, number__in=numbers, dpi__gt=0)
        .exclude(status=PageStatus.DONE)
        .order_by("number")
        .values_list("id", flat=True)
    )


def page_read(*, page_id: int) -> bool:
    """Read one page with the job's engine. Returns True when this call finished the job's
    last page (the caller then runs job_finish)."""
    page = services.page_read_begin(page_id=page_id, claimed_by=heartbeat.worker_id())
    if page is None:
        return False
    engine = get_engine(page.job.engine)
    started = time.perf_counter()
    try:
        (reading,) = read_with_timeout(engine, [storage.engine_input(page)], name=page.job.engine)
    except ConversionError as exc:
        services.page_read_failed(page_id=page.pk, error=exc)
        raise
    timings = dict(page.timings or {}, engine_s=time.perf_counter() - started)
    return services.page_record(
        page_id=page.pk, reading=reading, engine_info=engine.describe(), timings=timings
    )


def read_with_timeout(
    engine: PageEngine, pages: list[PageImage], *, name: str
) -> list[PageReading]:
    """flow.read, waiting at most AXIYA_PAGE_TIMEOUT_S. A C library call cannot be interrupted,
    so a page over time is abandoned to its thread, and the engine instance goes with it: the
    next page builds a fresh one instead of sharing a busy one."""
    timeout_s = config().timeouts.page_s
    outcome: dict = {}

    def work() -> None:
        try:
            outcome["readings"] = flow.read(engine, pages)
        except BaseException as exc:  # re-raised in the caller
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


def job_finish(*, job_id) -> Job:
    """flow.finish on the job's stored readings; the job ends done or needs_review."""
    job = Job.objects.get(pk=job_id)
    if job.is_finished:
        return job
    pages = list(Page.objects.filter(job=job).order_by("number"))
    if len(pages) != job.pages_total or any(p.status != PageStatus.DONE for p in pages):
        raise RuntimeError(f"job {job_id} is not ready to finish")
    started = time.perf_counter()
    try:
        with storage.scratch(job.id) as out_dir:
            finished = flow.finish(
                [reading_from_json(p.reading) for p in pages],
                page_images=functools.partial(storage.read_page_image, job.id),
                out_dir=out_dir,
                stem=storage.OUTPUT_STEM,
                title=flow.document_title(job.original_name),
                language=job.requested_language or None,
                repaired=job.repaired,
                engine_info=job.engine_info,
                source=job.original_name,
                handwriting_engine=engines.handwriting_engine(job.engine),
            )
            storage.publish_outputs(job.id, out_dir)
    except ConversionError as exc:
        services.job_mark_failed(job_id=job.id, error=exc)
        raise
    timings = {
        "rasterize_s": sum(p.timings.get("rasterize_s", 0.0) for p in pages),
        "engine_s": sum(p.timings.get("engine_s", 0.0) for p in pages),
        "assemble_render_check_s": time.perf_counter() - started,
        "pages": len(pages),
    }
    services.job_finished(
        job_id=job.id,
        report=finished.report,
        title=finished.document.title,
        language=finished.document.lang,
        timings=timings,
    )
    job.refresh_from_db()
    return job


def job_run_inline(*, job_id) -> None:
    """The whole job in this process (no broker): prepare, every page, finish."""
    try:
        page_ids = job_prepare(job_id=job_id)
        engine = Job.objects.values_list("engine", flat=True).get(pk=job_id)
        if engine_spec(engine).batched:
            # The model reads several pages in one call: claim and read them in batches.
            for page_id in page_ids:
                page_read_batched(
                    page_id=page_id,
                    limit=config().batching.batch,
                    drain_s=config().batching.drain_s,
                    first_batch=config().batching.first_batch,
                )
        else:
            for page_id in page_ids:
                page_read(page_id=page_id)
        job_finish(job_id=job_id)
    except ConversionError as exc:
        services.job_mark_failed(job_id=job_id, error=exc)
    except Exception as exc:  # the thread must never die silently: the job fails visibly
        log.exception("job %s failed", job_id)
        services.job_mark_failed(job_id=job_id, error=exc)


def page_rerun(*, job_id, number: int, actor_id: int | None) -> ReviewEvent:
    """Read one page of a finished job again with its engine and put the new reading in place
    of that page (a reviewer's request, queued by dispatch: never inside a web request)."""
    job = Job.objects.get(pk=job_id)
    page = Page.objects.get(job=job, number=number)
    engine = get_engine(job.engine)
    (reading,) = read_with_timeout(engine, [storage.engine_input(page)], name=job.engine)
    actor = get_user_model().objects.filter(pk=actor_id).first() if actor_id else None
    return review.review_apply_rerun(job=job, number=number, reading=reading, actor=actor)
