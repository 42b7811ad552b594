"""conversion/storage.py on an S3-compatible store (moto's server on loopback, tests/s3.py): a
job's files live only in the store, downloads come from it, delete and retention leave no
object, and a store lost mid-page or mid-write fails the page or the job with
STORAGE_UNAVAILABLE (after botocore's retries) with nothing half-written served."""

from __future__ import annotations

import io
import tracemalloc
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from conversion import review, services, storage
from conversion.models import Job, JobStatus, Page, PageStatus
from conversion.pipeline.errors import StorageUnavailable, error_class
from conversion.runner import jobs as runner
from tests.conftest import CORPUS

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def owner():
    return get_user_model().objects.create_user("stella", password="pw-stella-123")


def _local_files() -> list[Path]:
    root = Path(storage.incoming_dir()).parent
    return [p for p in root.rglob("*") if p.is_file() and "incoming" not in p.parts]


def _converted(owner) -> Job:
    job = runner.job_create(owner=owner, upload=CORPUS / "c02-22.pdf")  # a page with a figure
    runner.job_run_inline(job_id=job.id)
    job.refresh_from_db()
    assert job.status in (JobStatus.DONE, JobStatus.NEEDS_REVIEW), job.error_message
    return job


def test_a_job_lives_in_the_store_and_delete_leaves_no_object(s3_store, owner, client):
    before = set(_local_files())
    job = _converted(owner)
    prefix = f"axiya/jobs/{job.id}/"
    keys = s3_store.objects()
    assert f"{prefix}source.pdf" in keys and f"{prefix}pages/1.png" in keys
    assert f"{prefix}out/document.html" in keys and f"{prefix}out/document.report.json" in keys
    figures = storage.figure_names(job.id)
    assert figures and all(f"{prefix}out/document_files/{name}" in keys for name in figures)
    assert set(_local_files()) == before  # nothing of the job on this host's disk

    client.force_login(owner)
    html = client.get(f"/jobs/{job.id}/result/document.html")
    assert html.status_code == 200 and b"<main" in b"".join(html.streaming_content)
    figure = client.get(f"/jobs/{job.id}/result/document_files/{figures[0]}")
    assert b"".join(figure.streaming_content).startswith(b"\x89PNG")
    assert client.get(f"/jobs/{job.id}/result/document_files/nope.png").status_code == 404
    archive = zipfile.ZipFile(io.BytesIO(b"".join(client.get(f"/jobs/{job.id}/download.zip"))))
    assert f"c02-22/c02-22_files/{figures[0]}" in archive.namelist()
    assert "c02-22/c02-22.report.json" in archive.namelist()

    # A review edit writes the store too, and every download carries it.
    fig_id = review.page_figures(job=job, number=1)[0]["id"]
    review.review_edit_alt(job=job, figure_id=fig_id, alt="A stored chart", actor=owner)
    assert b"A stored chart" in b"".join(client.get(f"/jobs/{job.id}/download.html"))

    assert client.post(f"/jobs/{job.id}/delete").status_code == 302
    assert s3_store.objects() == [] and not s3_store.uploads_in_progress()


def test_retention_removes_the_objects(s3_store, owner):
    job = _converted(owner)
    Job.objects.filter(pk=job.id).update(created_at=timezone.now() - timedelta(days=40))
    assert services.purge_expired(days=30) == [str(job.id)]
    assert s3_store.objects() == []


def test_the_sweep_removes_objects_without_a_row(s3_store, owner):
    job = _converted(owner)
    Job.objects.filter(pk=job.id).delete()  # a row gone while a worker still wrote
    assert str(job.id) in services.files_sweep()
    assert s3_store.objects() == []


def test_a_store_lost_mid_page_fails_the_page_with_a_code_after_retries(s3_store, owner, client):
    job = runner.job_create(owner=owner, upload=CORPUS / "c02-22.pdf")
    numbers = services.job_start(job_id=job.id)
    (page_id,) = runner.pages_rasterize(job_id=job.id, numbers=numbers)
    s3_store.relay.cut()
    tried = s3_store.relay.connections
    for _ in range(services.MAX_PAGE_ATTEMPTS):  # what the Celery task's autoretry does
        with pytest.raises(StorageUnavailable):
            runner.page_read(page_id=page_id)
    # botocore tried again before giving up: AXIYA_S3_MAX_ATTEMPTS connections per read.
    assert s3_store.relay.connections - tried >= 3 * services.MAX_PAGE_ATTEMPTS
    page, job = Page.objects.get(pk=page_id), Job.objects.get(pk=job.id)
    assert page.status == PageStatus.FAILED and page.error_code == "STORAGE_UNAVAILABLE"
    assert job.status == JobStatus.FAILED and job.error_code == "STORAGE_UNAVAILABLE"
    assert not error_class(job.error_code).caused_by_file  # the file is not blamed
    s3_store.relay.restore()
    client.force_login(owner)
    assert client.get(f"/jobs/{job.id}/result/document.html").status_code == 404


def test_a_store_lost_while_writing_the_result_serves_nothing_half_written(s3_store, owner, client):
    job = runner.job_create(owner=owner, upload=CORPUS / "c02-22.pdf")
    numbers = services.job_start(job_id=job.id)
    for page_id in runner.pages_rasterize(job_id=job.id, numbers=numbers):
        runner.page_read(page_id=page_id)
    s3_store.relay.fail_after(1)  # the first figure is written, then the store is gone
    with pytest.raises(StorageUnavailable):
        runner.job_finish(job_id=job.id)
    s3_store.relay.restore()
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.error_code == "STORAGE_UNAVAILABLE"
    assert not storage.output_exists(job.id)
    assert not [k for k in s3_store.objects() if k.endswith((".html", ".json"))]
    client.force_login(owner)
    assert client.get(f"/jobs/{job.id}/result/document.html").status_code == 404
    assert client.get(f"/jobs/{job.id}/download.zip").status_code == 404
    services.job_delete(job=job)  # what the lost store kept lies under the job: removed too
    assert s3_store.objects() == []


def test_a_failed_upload_fails_its_job_and_leaves_no_object(s3_store, owner):
    s3_store.relay.cut()
    with transaction.atomic():
        job = runner.job_create(owner=owner, upload=CORPUS / "c02-22.pdf")
    s3_store.relay.restore()
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.error_code == "STORAGE_UNAVAILABLE"
    assert s3_store.objects() == [] and not s3_store.uploads_in_progress()
    assert not storage.staged_upload(job.id).exists()


def test_big_files_stream_through_bounded_memory(s3_store, owner, tmp_path):
    """A 128 MiB source goes up and comes back in parts: Python never holds the whole file.
    The parts in memory (two read ahead, two in flight, 8 MiB each: conversion.storage.
    _transfer_config) come to 27-33 MiB whatever the size (33 on a busy CI machine): half
    of a 64 MiB file was too close to that."""
    size = 128 << 20
    job = runner.job_create(owner=owner, upload=CORPUS / "c02-22.pdf")
    staged = storage.staged_upload(job.id)
    staged.parent.mkdir(parents=True, exist_ok=True)
    with open(staged, "wb") as fh:
        fh.truncate(size)
    tracemalloc.start()
    try:
        assert storage.place_upload(job.id)
        with storage.local_source(job.id) as local:
            assert local.stat().st_size == size
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < size / 2, f"peak {peak / 2**20:.0f} MiB"
    assert not local.exists()  # the worker's copy is removed
