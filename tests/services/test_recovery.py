"""Recovery of the single-machine runner and of a job's files and pages (issue 17): a page's
state changes at once, files reach a job's folder only once its row is committed, the sweep
removes what has no row, and the inline runner takes turns between owners."""

from __future__ import annotations

import os
import time
from datetime import timedelta

import pymupdf
import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from conversion import services, storage
from conversion.dispatch.inline import FairQueue
from conversion.models import Job, Page, PageStatus
from conversion.runner import jobs as runner
from tests import local_store
from tests.reliability.pdfs import text_pdf

LATER = timedelta(seconds=services.ORPHAN_GRACE_S + 60)


@pytest.fixture
def owner(db):
    return get_user_model().objects.create_user("ruth", password="pw-ruth-12345")


@pytest.mark.django_db
def test_a_rasterized_page_and_its_text_layer_reading_are_recorded_together(
    owner, tmp_path, monkeypatch
):
    """Issue 17: killed between the dpi and the text-layer reading, a page was left rasterized
    with no reading; recovery then sent the born-digital page to OCR."""
    job = runner.job_create(owner=owner, upload=text_pdf(tmp_path / "t.pdf"))
    numbers = services.job_start(job_id=job.id)

    def killed(**kwargs):
        raise RuntimeError("the worker died here")

    monkeypatch.setattr(services, "_pages_store", killed)
    with pytest.raises(RuntimeError):
        runner.pages_rasterize(job_id=job.id, numbers=numbers)
    page = Page.objects.get(job=job)
    assert page.dpi == 0 and page.status == PageStatus.QUEUED  # nothing half-recorded
    monkeypatch.undo()
    assert runner.pages_rasterize(job_id=job.id, numbers=numbers) == []  # nothing left to OCR
    page.refresh_from_db()
    assert page.status == PageStatus.DONE and page.source == "text_layer"


@pytest.mark.django_db
def test_a_page_drawn_without_an_image_reaches_the_engine_as_drawn(owner, tmp_path):
    """A born-digital page whose text layer cannot be used goes to the engine; that it holds
    no raster image (RenderedPage.drawn: its illegible lines are print, not handwriting) is
    kept with the page between the rasterizing worker and the reading one."""
    with pymupdf.open() as doc:
        doc.new_page().draw_rect(pymupdf.Rect(72, 100, 300, 300))  # no text, no image
        doc.save(tmp_path / "drawn.pdf")
    job = runner.job_create(owner=owner, upload=tmp_path / "drawn.pdf")
    numbers = services.job_start(job_id=job.id)
    (page_id,) = runner.pages_rasterize(job_id=job.id, numbers=numbers)
    page = Page.objects.get(pk=page_id)
    assert page.drawn and storage.engine_input(page).drawn


@pytest.mark.django_db(transaction=True)
def test_files_reach_the_job_folder_only_once_the_row_commits(owner, tmp_path):
    with pytest.raises(RuntimeError), transaction.atomic():
        job = runner.job_create(owner=owner, upload=text_pdf(tmp_path / "a.pdf"))
        assert not local_store.job_dir(job.id).exists()  # a crash here leaves no folder
        raise RuntimeError("the web process died before the commit")
    assert not Job.objects.filter(pk=job.id).exists() and not local_store.job_dir(job.id).exists()
    staged = storage.staged_upload(job.id)
    assert staged.exists()
    assert staged.name not in services.files_sweep()  # too fresh: maybe an upload in progress
    assert staged.name in services.files_sweep(now=timezone.now() + LATER)  # (and other tests')
    assert not staged.exists()
    with transaction.atomic():
        kept = runner.job_create(owner=owner, upload=text_pdf(tmp_path / "b.pdf"))
    assert storage.source_exists(kept.id) and not storage.staged_upload(kept.id).exists()


@pytest.mark.django_db(transaction=True)
def test_the_sweep_removes_folders_without_a_row_and_places_committed_uploads(owner, tmp_path):
    orphan = local_store.job_dir("6f1c1c1e-0000-4000-8000-000000000001")
    (orphan / "pages").mkdir(parents=True)
    (orphan / "source.pdf").write_bytes(b"%PDF-1.4")
    leftover = storage.incoming_dir() / "tmpupload.pdf"
    leftover.write_bytes(b"%PDF-1.4 half")
    job = runner.job_create(owner=owner, upload=text_pdf(tmp_path / "c.pdf"))
    os.replace(local_store.source_pdf(job.id), storage.staged_upload(job.id))  # died before moving
    removed = services.files_sweep(now=timezone.now() + LATER)
    assert {orphan.name, leftover.name} <= set(removed)  # (with what other tests left)
    assert not orphan.exists() and not leftover.exists()
    assert storage.source_exists(job.id)  # its row exists: moved into place, kept


def test_the_inline_runner_takes_turns_between_owners():
    queue = FairQueue()
    for n in range(1, 6):
        queue.put(f"a{n}", "alice")
    queue.put("b1", "bob")
    queue.put("a1", "alice")  # queued twice: once
    queue.put("c1", "carol")
    order = [queue.get(0.1) for _ in range(7)]
    assert order == ["a1", "b1", "c1", "a2", "a3", "a4", "a5"]
    started = time.perf_counter()
    assert queue.get(0.2) is None and time.perf_counter() - started >= 0.15


def _left_scratch(job_id, *, age_s: float):
    """What a process killed inside storage.scratch() leaves: its folder, with a file in it."""
    with storage.scratch(job_id) as folder:
        kept = folder.with_name(folder.name + "_")
        folder.rename(kept)  # the with-block's clean-up then finds nothing: a kill mid-way
    (kept / "page-1.png").write_bytes(b"x")
    old = time.time() - age_s
    for path in (kept / "page-1.png", kept):
        os.utime(path, (old, old))
    return kept


def test_the_retention_sweep_removes_scratch_folders_of_killed_processes(owner, tmp_path):
    """Issue 29: a job finish killed mid-way left scratch/ folders that no sweep removed."""
    finished = runner.job_create(owner=owner, upload=text_pdf(tmp_path / "f.pdf"))
    Job.objects.filter(pk=finished.id).update(status="done")
    running = runner.job_create(owner=owner, upload=text_pdf(tmp_path / "r.pdf"))
    Job.objects.filter(pk=running.id).update(status="running")
    hour = 3600
    of_finished = _left_scratch(finished.id, age_s=services.ORPHAN_GRACE_S + hour)
    of_gone = _left_scratch("0b7e7c8e-0000-4000-8000-000000000000", age_s=2 * hour)
    recent = _left_scratch(finished.id, age_s=60)  # a finish in progress right now
    of_running = _left_scratch(running.id, age_s=2 * hour)  # a long job still at work
    stale = _left_scratch(running.id, age_s=services.SCRATCH_MAX_AGE_S + hour)
    services.purge_expired()
    assert not of_finished.exists() and not of_gone.exists() and not stale.exists()
    assert recent.exists() and of_running.exists()
