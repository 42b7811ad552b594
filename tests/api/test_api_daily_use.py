"""The API's rough edges of daily use (issue 33): a batch keeps its refused files, a batch of
only bad files names each file's error, "download all", a clear paging error, one engine enum
in every schema, the retention period, the time estimate and the languages list."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from conversion import selectors
from conversion.models import Job, JobStatus, Page, PageStatus
from conversion.runner import jobs as runner
from tests.api.test_api import api_for, error_of, pdf_upload
from tests.reliability.pdfs import text_pdf


@pytest.fixture(autouse=True)
def _clear_throttle_cache():
    cache.clear()
    yield
    cache.clear()


def _bad(name: str, data: bytes = b"hello, not a pdf") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, "application/pdf")


def test_get_of_a_batch_keeps_its_rejected_files(alice):
    client = api_for(alice)
    files = [pdf_upload("one.pdf"), _bad("notes.txt"), _bad("empty.pdf", b"")]
    body = client.post("/api/v1/batches", {"files": files}).json()
    detail = client.get(f"/api/v1/batches/{body['id']}").json()
    assert detail["rejected"] == body["rejected"]
    assert [(r["name"], r["error"]["code"]) for r in detail["rejected"]] == [
        ("notes.txt", "NOT_A_PDF"), ("empty.pdf", "EMPTY_FILE")]  # fmt: skip
    assert detail["links"]["zip"].endswith(f"/api/v1/batches/{body['id']}/zip")


def test_a_batch_of_only_bad_files_reports_each_files_error(alice):
    client = api_for(alice)
    response = client.post("/api/v1/batches", {"files": [_bad("a.txt"), _bad("b.pdf", b"")]})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "FILES_REFUSED"
    assert "a.txt" in error["message"] and "b.pdf" in error["message"]
    assert [(r["name"], r["error"]["code"]) for r in error["rejected"]] == [
        ("a.txt", "NOT_A_PDF"), ("b.pdf", "EMPTY_FILE")]  # fmt: skip
    # Files that share their refusal keep its code and status.
    same = client.post("/api/v1/batches", {"files": [_bad("a.txt"), _bad("c.txt")]})
    assert same.status_code == 415 and same.json()["error"]["code"] == "NOT_A_PDF"
    assert len(same.json()["error"]["rejected"]) == 2
    assert client.get("/api/v1/batches").json()["count"] == 0


def test_a_page_past_the_end_is_a_paging_error(alice):
    client = api_for(alice)
    Job.objects.create(owner=alice, original_name="a.pdf", engine="ocr")
    for path in ("/api/v1/jobs", "/api/v1/batches"):
        response = client.get(f"{path}?page=999")
        assert response.status_code == 404
        error = error_of(response)
        assert error["code"] == "PAGE_OUT_OF_RANGE", error
        assert "no page '999'" in error["message"] and "from 1 to 1" in error["message"]
    assert error_of(client.get("/api/v1/jobs?page=abc"))["code"] == "PAGE_OUT_OF_RANGE"
    assert client.get("/api/v1/jobs?page=1").status_code == 200


def test_engine_is_the_same_enum_in_jobs_and_batches(client, db):
    schema = json.loads(client.get("/api/v1/schema?format=json").content)["components"]["schemas"]
    uses = [schema[name]["properties"]["engine"] for name in ("Job", "JobCreate", "BatchCreate")]
    for use in uses:
        assert use["allOf"] == [{"$ref": "#/components/schemas/EngineEnum"}], use
    assert len({use["description"] for use in uses}) == 1
    assert schema["EngineEnum"]["enum"] == ["ocr", "gemma"]
    # The reference page names the enum's values, never "object".
    docs = client.get("/api/v1/docs").content.decode()
    assert "<code>engine</code></td><td>one of: ocr, gemma</td>" in docs
    assert "<td>object</td>" not in docs


def test_the_retention_period_is_in_the_job(alice, settings):
    client = api_for(alice)
    job = Job.objects.create(owner=alice, original_name="a.pdf", engine="ocr")
    retention = client.get(f"/api/v1/jobs/{job.id}").json()["retention"]
    assert retention["days"] == 30
    deletes_at = (job.created_at + timedelta(days=30)).isoformat()
    assert retention["deletes_at"][:16] == deletes_at[:16]
    settings.AXIYA_RETENTION_DAYS = 0  # kept forever
    assert client.get(f"/api/v1/jobs/{job.id}").json()["retention"] is None


def _pages_finished(owner, engine: str, every_s: list[float]) -> None:
    """A finished job whose pages were read one after another, every_s apart."""
    job = Job.objects.create(owner=owner, original_name="old.pdf", engine=engine,
                             status=JobStatus.DONE, pages_total=len(every_s) + 1)  # fmt: skip
    at = timezone.now() - timedelta(hours=1)
    for number, gap in enumerate([0.0, *every_s], start=1):
        at += timedelta(seconds=gap)
        page = Page.objects.create(job=job, number=number, status=PageStatus.DONE)
        Page.objects.filter(pk=page.pk).update(updated_at=at)


def test_the_estimate_is_pages_ahead_times_the_measured_pace(alice, bob):
    client = api_for(bob)
    # The pace: 2 s a page; the 600 s pause is idle time, not work.
    _pages_finished(alice, "ocr", [2.0, 2.0, 600.0, 2.0, 2.0])
    assert selectors.seconds_per_page(engine="ocr") == (2.0, 4)
    ahead = Job.objects.create(owner=alice, original_name="a.pdf", engine="ocr",
                               pages_total=10, pages_done=4, status=JobStatus.RUNNING)  # fmt: skip
    mine = Job.objects.create(owner=bob, original_name="b.pdf", engine="ocr", pages_total=3)
    assert ahead.created_at < mine.created_at
    estimate = client.get(f"/api/v1/jobs/{mine.id}").json()["estimate"]
    assert estimate == {"seconds": 18, "pages_ahead": 6, "pages_left": 3,
                        "seconds_per_page": 2.0, "measured_intervals": 4}  # fmt: skip
    # Not measured yet (another engine), or ended: no estimate.
    other = Job.objects.create(owner=bob, original_name="c.pdf", engine="gemma", pages_total=3)
    assert client.get(f"/api/v1/jobs/{other.id}").json()["estimate"] is None
    Job.objects.filter(pk=mine.pk).update(status=JobStatus.DONE)
    assert client.get(f"/api/v1/jobs/{mine.id}").json()["estimate"] is None


def test_languages_are_the_installed_packs_and_uploads_are_checked_against_them(alice):
    client = api_for(alice)
    languages = client.get("/api/v1/languages").json()
    codes = [lang["code"] for lang in languages]
    assert {"en", "fr", "de"} <= set(codes) and "osd" not in codes
    assert {"code": "fr", "name": "French"} in languages
    refused = client.post("/api/v1/jobs", {"file": pdf_upload(), "language": "ja"})
    assert refused.status_code == 400
    assert error_of(refused)["code"] == "LANGUAGE_NOT_INSTALLED"
    assert "fr" in error_of(refused)["message"]
    accepted = client.post("/api/v1/jobs", {"file": pdf_upload(), "language": "pt-BR"})
    assert accepted.status_code == 202, accepted.content


@pytest.mark.django_db(transaction=True)
def test_download_all_zips_every_finished_job_of_a_batch(alice, tmp_path):
    from conversion import services

    batch = services.batch_create(owner=alice)
    services.batch_set_rejected(batch=batch, rejected=[
        {"name": "x.txt", "error": {"code": "NOT_A_PDF", "message": "Not a PDF."}}])  # fmt: skip
    jobs = []
    for name in ("memo.pdf", "memo.pdf", "later.pdf"):
        jobs.append(runner.job_create(owner=alice, batch=batch, original_name=name,
                                      upload=text_pdf(tmp_path / f"{len(jobs)}.pdf")))  # fmt: skip
    for job in jobs[:2]:
        runner.job_run_inline(job_id=job.id)
    response = api_for(alice).get(f"/api/v1/batches/{batch.id}/zip")
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment")
    zipped = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    names = zipped.namelist()
    assert "memo/memo.html" in names and "memo-2/memo.html" in names
    assert not any(n.startswith("later") for n in names)
    manifest = json.loads(zipped.read("batch.json"))
    assert [(j["name"], j["folder"]) for j in manifest["jobs"]] == [
        ("memo.pdf", "memo"), ("memo.pdf", "memo-2"), ("later.pdf", None)]  # fmt: skip
    assert manifest["rejected"][0]["name"] == "x.txt"


def test_the_schema_documents_each_files_error_of_a_refused_batch(client, db):
    schema = json.loads(client.get("/api/v1/schema?format=json").content)
    refused = schema["paths"]["/api/v1/batches"]["post"]["responses"]["422"]
    assert refused["content"]["application/json"]["schema"]["$ref"].endswith("/BatchRefused")
    detail = schema["components"]["schemas"]["BatchRefusedDetail"]["properties"]
    assert set(detail) == {"code", "message", "rejected"}
