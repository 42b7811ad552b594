"""Issue 16 in the REST API: JSON errors on every /api/ path (404, 405 included), BCP 47 language
codes, per-file rejection in batches for every bad file, the status from the report's evidence,
report.html beside the HTML."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from conversion.models import Job, JobStatus
from conversion.runner import jobs as runner
from tests.api.test_api import _clear_throttle_cache, api_for, error_of, pdf_upload  # noqa: F401
from tests.conftest import CORPUS


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("get", "/api/v1/jobs/notanid", 404, "NOT_FOUND"),
        ("get", "/api/v1/nothing/here", 404, "NOT_FOUND"),
        ("get", "/api/", 404, "NOT_FOUND"),
        ("get", "/api/v1/jobs/00000000-0000-0000-0000-000000000000", 404, "NOT_FOUND"),
        ("put", "/api/v1/jobs", 405, "METHOD_NOT_ALLOWED"),
        ("post", "/api/v1/docs", 405, "METHOD_NOT_ALLOWED"),
        ("post", "/api/v1/schema", 405, "METHOD_NOT_ALLOWED"),
        ("delete", "/api/v1/batches", 405, "METHOD_NOT_ALLOWED"),
    ],
)
def test_every_api_error_is_json(alice, method, path, status, code):
    response = getattr(api_for(alice), method)(path)
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    assert error_of(response)["code"] == code


def test_a_405_names_the_allowed_methods(alice):
    response = api_for(alice).post("/api/v1/docs")
    assert "use GET" in error_of(response)["message"] and "GET" in response["Allow"]


def test_language_codes_are_checked_and_normalized(alice):
    client = api_for(alice)
    response = client.post("/api/v1/jobs", {"file": pdf_upload(), "language": "klingon!!"})
    assert response.status_code == 400 and error_of(response)["code"] == "LANGUAGE_INVALID"
    assert not Job.objects.exists()
    response = client.post(
        "/api/v1/batches", {"files": [pdf_upload()], "language": "english"}, format="multipart"
    )
    assert response.status_code == 400 and error_of(response)["code"] == "LANGUAGE_INVALID"
    response = client.post("/api/v1/jobs", {"file": pdf_upload(), "language": "EN-us"})
    assert response.status_code == 202
    assert Job.objects.get().language == "en-US"


def test_every_bad_file_of_a_batch_is_rejected_on_its_own(alice):
    files = [
        pdf_upload("good.pdf"),
        SimpleUploadedFile("empty.pdf", b"", "application/pdf"),
        SimpleUploadedFile("photo.png", (CORPUS / "typewriter.png").read_bytes(), "image/png"),
        SimpleUploadedFile("broken.pdf", (CORPUS / "bad" / "invalid.pdf").read_bytes()),
    ]
    response = api_for(alice).post("/api/v1/batches", {"files": files}, format="multipart")
    assert response.status_code == 202, response.content
    body = response.json()
    assert len(body["jobs"]) == 1
    assert {r["name"]: r["error"]["code"] for r in body["rejected"]} == {
        "empty.pdf": "EMPTY_FILE", "photo.png": "NOT_A_PDF", "broken.pdf": "PDF_DAMAGED",
    }  # fmt: skip
    # An empty single upload says so too (it was a 400 "The submitted file is empty.").
    single = api_for(alice).post("/api/v1/jobs", {"file": SimpleUploadedFile("e.pdf", b"")})
    assert single.status_code == 422 and error_of(single)["code"] == "EMPTY_FILE"


@pytest.mark.slow
def test_status_open_findings_and_report_html_in_the_api(alice):
    job = runner.job_create(owner=alice, upload=CORPUS / "c02-22.pdf")
    runner.job_run_inline(job_id=job.id)
    client = api_for(alice)
    detail = client.get(f"/api/v1/jobs/{job.id}").json()
    assert detail["status"] == JobStatus.NEEDS_REVIEW  # a figure and uncertain lines
    summary = detail["summary"]
    # The figure at least (a few uncertain words are warnings, not open findings).
    assert detail["open_findings"] == summary["needs_review"] + summary["errors"] >= 1
    listed = client.get("/api/v1/jobs?status=needs_review").json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert [j["id"] for j in rows] == [str(job.id)]
    report = client.get(detail["links"]["report_html"])
    assert report.status_code == 200 and report["Content-Type"].startswith("text/html")
    assert 'filename="c02-22.report.html"' in report["Content-Disposition"]
    text = b"".join(report.streaming_content).decode()
    assert "Accessibility report" in text and 'href="c02-22.html"' in text


def test_an_engine_that_cannot_run_here_is_refused_at_submission(alice, settings):
    settings.AXIYA_MODEL_DIR = ""  # no model package: gemma cannot run
    client = api_for(alice)
    response = client.post("/api/v1/jobs", {"file": pdf_upload(), "engine": "gemma"})
    assert response.status_code == 422
    error = error_of(response)
    assert (
        error["code"] == "ENGINE_UNAVAILABLE" and "Choose another engine (ocr)" in error["message"]
    )
    response = client.post(
        "/api/v1/batches", {"files": [pdf_upload(), pdf_upload()], "engine": "gemma"},
        format="multipart",
    )  # fmt: skip
    assert response.status_code == 422 and error_of(response)["code"] == "ENGINE_UNAVAILABLE"
    assert not Job.objects.exists()
