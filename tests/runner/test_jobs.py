"""The job flow: web upload on the embedded default (no broker), and real Redis + Celery."""

from __future__ import annotations

import contextlib
import subprocess

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from conversion import dispatch, services, storage
from conversion.models import Job, JobStatus, Page, PageStatus
from conversion.pipeline.errors import ConversionError
from conversion.runner import jobs as runner
from tests import local_store
from tests.conftest import CORPUS, wait_job
from tests.reliability.pdfs import scanned_pdf


@pytest.fixture
def user(alice):
    return alice


@pytest.mark.django_db(transaction=True)
def test_upload_form_runs_in_process(client, user):
    client.force_login(user)
    pdf = SimpleUploadedFile("linn.pdf", (CORPUS / "linn.pdf").read_bytes(), "application/pdf")
    response = client.post("/", {"file": pdf})
    assert response.status_code == 302
    job = Job.objects.get()
    job = wait_job(job.id)
    assert job.status in (JobStatus.DONE, JobStatus.NEEDS_REVIEW)
    assert job.pages_done == job.pages_total == 1
    html = client.get(f"/jobs/{job.id}/result/document.html")
    assert html.status_code == 200
    assert b"LinnSequencer" in b"".join(html.streaming_content)


@pytest.mark.django_db(transaction=True)
def test_bad_upload_leaves_nothing(client, user):
    client.force_login(user)
    jobs_root, incoming = local_store.jobs_root(), storage.incoming_dir()
    before = set(jobs_root.glob("*")) if jobs_root.exists() else set()
    incoming_before = set(incoming.glob("*"))  # other tests' uploads whose rows never committed
    bad = SimpleUploadedFile("x.pdf", (CORPUS / "bad" / "invalid.pdf").read_bytes())
    response = client.post("/", {"file": bad})
    assert response.status_code == 200
    assert b"PDF_DAMAGED" in response.content
    assert Job.objects.count() == 0
    after = set(jobs_root.glob("*")) if jobs_root.exists() else set()
    assert after == before
    assert set(incoming.glob("*")) == incoming_before


@pytest.mark.django_db(transaction=True)
def test_other_users_cannot_see_a_job(client, user):
    job = runner.job_create(owner=user, upload=CORPUS / "linn.pdf")
    bob = get_user_model().objects.create_user("bob", password="pw-bob-123")
    client.force_login(bob)
    assert client.get(f"/jobs/{job.id}/").status_code == 404
    assert client.get(f"/jobs/{job.id}/status").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_finished_pages_are_not_read_again(user, tmp_path):
    job = runner.job_create(owner=user, upload=scanned_pdf(tmp_path / "scan.pdf", 3))
    page_ids = runner.job_prepare(job_id=job.id)
    runner.page_read(page_id=page_ids[0])
    # A restart: prepare again, only the unread pages come back.
    again = runner.job_prepare(job_id=job.id)
    assert page_ids[0] not in again and len(again) == job.pages_total - 1
    assert Page.objects.filter(job=job, status=PageStatus.DONE).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_batch_of_pages_is_recorded_once(user, tmp_path):
    """A GPU batch holds pages of several jobs: one transaction stores them, a page already
    done is not counted again, a page whose job was deleted meanwhile is skipped, and the jobs
    whose last page the batch wrote come back (each once)."""
    from models.engine import PageReading

    scan = scanned_pdf(tmp_path / "scan.pdf", 3)
    jobs = [runner.job_create(owner=user, upload=scan) for _ in range(3)]
    pages = {job.id: runner.job_prepare(job_id=job.id) for job in jobs}
    first, second, gone = jobs
    services.job_delete(job=Job.objects.get(pk=gone.id))
    info = {"engine": "gemma", "package": "test"}

    def reading(n: int) -> PageReading:
        return PageReading(page_number=n, blocks=[], width=100, height=100, source="model")

    services.page_record(page_id=pages[first.id][0], reading=reading(1), engine_info=info,
                         timings={})  # fmt: skip
    batch = [(pk, reading(n + 1), {"batch": 9.0}) for n, pk in enumerate(pages[first.id])]
    batch += [(pages[second.id][0], reading(1), {}), (pages[gone.id][0], reading(1), {})]
    finished = services.pages_record(readings=batch, engine_info=info)
    assert finished == [str(first.id)]
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.pages_done == first.pages_total and first.engine_info == info
    assert second.pages_done == 1


@pytest.mark.django_db(transaction=True)
def test_job_create_refuses_bad_input(user):
    with pytest.raises(ConversionError) as info:
        runner.job_create(owner=user, upload=CORPUS / "bad" / "hugemono.pdf")
    assert info.value.code == "PAGE_TOO_LARGE"
    assert Job.objects.count() == 0


FULL_DISK_BYTES = 64 * 1024  # the tmpfs mounted over incoming/, filled before the upload


@pytest.fixture
def full_disk():
    """This host's incoming/ on a real tiny tmpfs, filled to the last byte (root only)."""
    incoming = storage.incoming_dir()
    incoming.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={FULL_DISK_BYTES}", "tmpfs", str(incoming)],
        capture_output=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        with contextlib.suppress(OSError), open(incoming / "filler", "wb") as fh:
            while True:
                fh.write(b"\0" * 4096)
                fh.flush()
        yield incoming
    finally:
        subprocess.run(["umount", str(incoming)], check=True)


@pytest.mark.django_db(transaction=True)
def test_an_upload_to_a_full_disk_is_a_coded_503_and_leaves_nothing(user, full_disk):
    """Issue 29: a bare OSError (ENOSPC) in job_create answered 500."""
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(user)
    with (CORPUS / "linn.pdf").open("rb") as fh:
        response = api.post("/api/v1/jobs", {"file": fh}, format="multipart")
    assert response.status_code == 503, response.content
    error = response.json()["error"]
    assert error["code"] == "STORAGE_FULL" and "not at fault" in error["message"]
    assert Job.objects.count() == 0
    assert sorted(p.name for p in full_disk.iterdir()) == ["filler"]  # nothing half-written


@pytest.mark.django_db(transaction=True)
def test_a_site_upload_to_a_full_disk_answers_503_with_the_code(client, user, full_disk):
    """The site's form says the code and what to do, with a 503: the files are not at fault."""
    client.force_login(user)
    with (CORPUS / "linn.pdf").open("rb") as fh:
        response = client.post("/", {"files": fh})
    assert response.status_code == 503
    assert b"STORAGE_FULL" in response.content and b"not at fault" in response.content
    assert Job.objects.count() == 0
    assert sorted(p.name for p in full_disk.iterdir()) == ["filler"]


@pytest.mark.slow
def test_celery_worker_converts_end_to_end(celery_worker_process, user):
    job = dispatch.submit(runner.job_create(owner=user, upload=CORPUS / "linn.pdf"))
    job = wait_job(job.id, timeout=180)
    assert job.status in (JobStatus.DONE, JobStatus.NEEDS_REVIEW), job.error_message
    assert local_store.html_path(job.id).exists()
    assert "LinnSequencer" in local_store.html_path(job.id).read_text()


@pytest.mark.slow
def test_celery_worker_finishes_a_long_born_digital_job(celery_worker_process, user, tmp_path):
    """Rasterization fans out in chunks of pages; a document with only trusted text layers has
    nothing to read, so the chunk that stores the last page finishes the job."""
    import pymupdf

    from conversion.dispatch.tasks import RASTER_CHUNK_PAGES

    doc = pymupdf.open()
    pages = RASTER_CHUNK_PAGES + 3
    for n in range(pages):
        doc.new_page().insert_text((72, 72), f"Section {n + 1}: the ferry leaves at nine.")
    doc.save(tmp_path / "digital.pdf")
    job = dispatch.submit(runner.job_create(owner=user, upload=tmp_path / "digital.pdf"))
    job = wait_job(job.id, timeout=180)
    assert job.status in (JobStatus.DONE, JobStatus.NEEDS_REVIEW), job.error_message
    assert job.pages_done == pages
    html = local_store.html_path(job.id).read_text()
    assert "Section 1:" in html and f"Section {pages}:" in html
