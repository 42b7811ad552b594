"""End to end through the `gemma` engine with a tiny random-weight package: the command line, and
jobs read page by page and in one batch across jobs. The text is noise (random weights); the
structure, the flow and the output's validity are real."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from conversion import engines, services
from conversion.models import Job, JobStatus, Page, PageStatus
from conversion.pipeline.accessibility import check_html
from conversion.runner import batch
from conversion.runner import jobs as runner
from models.engine import reading_from_json
from models.gemma.package import sha256_file
from tests import local_store
from tests.conftest import CORPUS, ROOT

FAST = {"AXIYA_GEMMA_MAX_NEW_TOKENS": "24", "AXIYA_GEMMA_MAX_SOFT_TOKENS": "70"}


def two_page_pdf(path: Path) -> Path:
    """A scan (no text layer, so the engine reads it): page 1 printed, page 2 blank."""
    import pymupdf

    src = pymupdf.open()
    page = src.new_page(width=612, height=792)
    page.insert_text((72, 90), "Annual Report", fontsize=24)
    for i in range(12):
        page.insert_text((72, 140 + 18 * i), f"Line {i + 1} of the body text on this page.")
    png = page.get_pixmap(dpi=100).tobytes("png")
    doc = pymupdf.open()
    doc.new_page(width=612, height=792).insert_image(pymupdf.Rect(0, 0, 612, 792), stream=png)
    doc.new_page(width=612, height=792)
    doc.save(path)
    return path


def assert_valid_output(html: str, pages: int) -> None:
    errors = [f for f in check_html(html, expected_pages=pages) if f.level == "error"]
    assert errors == [], errors
    assert "<script" not in html.lower()


def test_command_line_converts_with_gemma(gemma_tiny_package: Path, tmp_path: Path) -> None:
    env = dict(os.environ, AXIYA_MODEL_DIR=str(gemma_tiny_package), **FAST)
    proc = subprocess.run(
        [sys.executable, "manage.py", "convert", "--no-progress", "--engine", "gemma",
         str(CORPUS / "linn.pdf"), "--out", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "linn.report.json").read_text())
    assert report["engine"]["engine"] == "gemma"
    assert report["engine"]["package"] == "gemma-4-tiny"
    assert report["engine"]["sha256"] == sha256_file(gemma_tiny_package / "manifest.json")
    assert report["page_sources"] == {"1": "model"}
    assert report["summary"]["errors"] == 0
    assert_valid_output((tmp_path / "linn.html").read_text(), 1)


@pytest.fixture
def gemma_settings(settings, gemma_tiny_package: Path):
    settings.AXIYA_MODEL_DIR = str(gemma_tiny_package)
    settings.AXIYA_GEMMA_MAX_NEW_TOKENS = 24
    settings.AXIYA_GEMMA_MAX_SOFT_TOKENS = 70
    settings.AXIYA_GEMMA_BATCH = 8
    settings.AXIYA_DPI = 100
    engines.drop("gemma")
    yield settings
    engines.drop("gemma")


def _finish_and_check(job_id) -> Job:
    job = runner.job_finish(job_id=job_id)
    assert job.status in (JobStatus.DONE, JobStatus.NEEDS_REVIEW), job.error_message
    assert job.summary["errors"] == 0
    assert_valid_output(local_store.html_path(job.id).read_text(), job.pages_total)
    return job


@pytest.mark.django_db
def test_job_page_by_page(gemma_settings, tmp_path: Path) -> None:
    job = runner.job_create(
        owner=None, upload=two_page_pdf(tmp_path / "report.pdf"), engine="gemma"
    )
    page_ids = runner.job_prepare(job_id=job.id)
    assert len(page_ids) == 2
    finished = [runner.page_read(page_id=pid) for pid in page_ids]
    assert finished == [False, True]
    job = _finish_and_check(job.id)
    assert job.engine_info == engines.get_engine("gemma").describe()
    assert job.engine_info["sha256"] == sha256_file(
        Path(gemma_settings.AXIYA_MODEL_DIR) / "manifest.json"
    )
    pages = list(Page.objects.filter(job=job).order_by("number"))
    first, blank = (reading_from_json(p.reading) for p in pages)
    assert first.source == "model" and first.raw_text is not None
    assert blank.blocks == [] and blank.raw_text is None  # a blank page stays blank
    assert {p.source for p in pages} == {"model"}


@pytest.mark.django_db
def test_pages_of_several_jobs_are_read_in_one_batch(gemma_settings, tmp_path: Path) -> None:
    jobs = [
        runner.job_create(owner=None, upload=two_page_pdf(tmp_path / "a.pdf"), engine="gemma"),
        runner.job_create(owner=None, upload=CORPUS / "linn.pdf", engine="gemma"),
    ]
    ids = [pid for job in jobs for pid in runner.job_prepare(job_id=job.id)]
    assert len(ids) == 3
    result = batch.page_read_batched(page_id=ids[0], limit=8)
    assert not result.busy
    assert sorted(result.pages) == sorted(ids)
    assert sorted(result.finished_jobs) == sorted(str(j.id) for j in jobs)
    for pid in ids[1:]:  # the other pages' own task messages are now no-ops
        again = batch.page_read_batched(page_id=pid, limit=8)
        assert again.pages == [] and not again.busy
    for job in jobs:
        job = _finish_and_check(job.id)
        assert job.pages_done == job.pages_total
    timings = Page.objects.get(pk=ids[0]).timings
    assert timings["batch"] == 3.0


@pytest.mark.django_db
def test_a_batch_takes_each_owners_oldest_pages_in_turn(gemma_settings, tmp_path: Path) -> None:
    """Issue 17, owner fairness on the GPU worker: one owner's 4 queued pages do not fill the
    batch before another owner's page, queued last."""
    many, one = (get_user_model().objects.create_user(n, password=f"pw-{n}-12345")
                 for n in ("mara", "olu"))  # fmt: skip
    pdf = two_page_pdf(tmp_path / "m.pdf")
    for _ in range(2):
        job = runner.job_create(owner=many, upload=pdf, engine="gemma")
        runner.job_prepare(job_id=job.id)
    late = runner.job_create(owner=one, upload=CORPUS / "linn.pdf", engine="gemma")
    (late_page,) = runner.job_prepare(job_id=late.id)
    claimed = batch.claim_next(engine="gemma", limit=2)
    assert late_page in claimed  # without turns: mara's two oldest pages
    assert Page.objects.get(pk=claimed[0]).job.owner == many  # her oldest page first


@pytest.mark.django_db
def test_claims_respect_other_workers_and_take_over_dead_ones(
    gemma_settings, tmp_path: Path
) -> None:
    job = runner.job_create(owner=None, upload=two_page_pdf(tmp_path / "c.pdf"), engine="gemma")
    first, second = runner.job_prepare(job_id=job.id)
    # Another (live) worker holds page 1: its task waits instead of reading it twice.
    Page.objects.filter(pk=first).update(status=PageStatus.RUNNING, updated_at=timezone.now())
    claimed, busy = batch.claim_pages(page_id=first, limit=8)
    assert (claimed, busy) == ([], True)
    # The claim limit holds: only page 2 is taken by a task for page 2 with limit 1.
    claimed, busy = batch.claim_pages(page_id=second, limit=1)
    assert (claimed, busy) == ([second], False)
    # That worker died long ago: its claim is taken over.
    stale = timezone.now() - timedelta(seconds=batch.CLAIM_LEASE_S + 1)
    Page.objects.filter(pk=first).update(updated_at=stale)
    claimed, busy = batch.claim_pages(page_id=first, limit=8)
    assert (claimed, busy) == ([first], False)
    assert Page.objects.get(pk=first).attempts == 1


@pytest.mark.django_db(transaction=True)
def test_a_short_batch_waits_for_pages_still_rasterizing(gemma_settings, tmp_path: Path) -> None:
    """The first page of a long document must not leave alone: while later pages are still
    being rasterized (by other cpu workers), the claim takes them as they appear."""
    import threading
    import time

    from django.db import connection

    job = runner.job_create(owner=None, upload=two_page_pdf(tmp_path / "w.pdf"), engine="gemma")
    numbers = services.job_start(job_id=job.id)
    assert numbers == [1, 2]
    (first,) = runner.pages_rasterize(job_id=job.id, numbers=[1])
    # Nothing else is ready and no wait: a batch of one.
    assert batch.claim_pages(page_id=first, limit=8) == ([first], False)
    Page.objects.filter(pk=first).update(status=PageStatus.QUEUED)

    def rasterize_later() -> None:
        time.sleep(0.6)
        runner.pages_rasterize(job_id=job.id, numbers=[2])
        connection.close()

    helper = threading.Thread(target=rasterize_later)
    helper.start()
    started = time.monotonic()
    claimed, busy = batch.claim_pages(page_id=first, limit=8, wait_s=20)
    helper.join()
    assert not busy and len(claimed) == 2
    assert time.monotonic() - started < 10  # it stopped once nothing more was coming


def _prepared_jobs(tmp_path: Path, count: int) -> tuple[list[Job], list[int]]:
    """`count` two-page gemma jobs, rasterized and queued: (jobs, their page ids in order)."""
    jobs = [
        runner.job_create(owner=None, upload=two_page_pdf(tmp_path / f"j{k}.pdf"), engine="gemma")
        for k in range(count)
    ]
    ids = [pid for job in jobs for pid in runner.job_prepare(job_id=job.id)]
    assert len(ids) == 2 * count
    return jobs, ids


@pytest.mark.django_db(transaction=True)
def test_a_worker_drains_the_queue_batch_by_batch(gemma_settings, tmp_path: Path) -> None:
    """One task keeps claiming the next batch while pages are queued (so its GPU never idles
    between batches); without a drain budget it reads only its own batch."""
    jobs, ids = _prepared_jobs(tmp_path, 2)
    alone = batch.page_read_batched(page_id=ids[0], limit=1)
    assert alone.pages == [ids[0]] and alone.finished_jobs == []
    # A first batch of one, then batches twice as large (up to the limit).
    drained = batch.page_read_batched(page_id=ids[1], limit=2, drain_s=60, first_batch=1)
    assert drained.pages == ids[1:]
    assert sorted(drained.finished_jobs) == sorted(str(j.id) for j in jobs)
    assert [Page.objects.get(pk=pid).timings["batch"] for pid in ids] == [1.0, 1.0, 2.0, 2.0]
    assert Page.objects.filter(status=PageStatus.DONE).count() == 4


@pytest.mark.django_db
def test_a_drain_leaves_half_the_queue_to_a_busy_peer(gemma_settings, tmp_path: Path) -> None:
    """With another worker reading (a fresh claim that is not ours), the next batch takes half
    of what is queued, so both finish the job's last batches together; alone, a full batch."""
    _, ids = _prepared_jobs(tmp_path, 3)
    mine, theirs = ids[0], ids[1]
    Page.objects.filter(pk__in=[mine, theirs]).update(
        status=PageStatus.RUNNING, updated_at=timezone.now()
    )
    # Only our own claim is out: nobody else reads, take what the batch allows.
    Page.objects.filter(pk=theirs).update(status=PageStatus.QUEUED)
    alone = batch.claim_next(engine="gemma", limit=8, holding=[mine])
    assert len(alone) == 5
    Page.objects.filter(pk__in=alone).update(status=PageStatus.QUEUED)
    # A peer holds a page: half of the 4 queued pages.
    Page.objects.filter(pk=theirs).update(status=PageStatus.RUNNING, updated_at=timezone.now())
    shared = batch.claim_next(engine="gemma", limit=8, holding=[mine])
    assert len(shared) == 2
    # Never below the floor (a task's first batch).
    Page.objects.filter(pk__in=shared).update(status=PageStatus.QUEUED)
    assert len(batch.claim_next(engine="gemma", limit=8, holding=[mine], floor=3)) == 3


@pytest.mark.django_db
def test_inline_worker_reads_gemma_pages_in_batches(gemma_settings, tmp_path: Path) -> None:
    job = runner.job_create(
        owner=None, upload=two_page_pdf(tmp_path / "inline.pdf"), engine="gemma"
    )
    runner.job_run_inline(job_id=job.id)
    job = Job.objects.get(pk=job.id)
    assert job.status in (JobStatus.DONE, JobStatus.NEEDS_REVIEW), job.error_message
    assert [p.timings.get("batch") for p in Page.objects.filter(job=job)] == [2.0, 2.0]
