"""The REST API contract (/api/v1): every endpoint, the error shape and statuses, throttling,
batches, and a batch converted end to end by a real Celery worker over a real Redis."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from conversion.models import Job, JobStatus
from conversion.runner import jobs as runner
from tests import local_store
from tests.conftest import CORPUS, create_reviewer, wait_job
from tests.reliability.pdfs import text_pdf

FINISHED = (JobStatus.DONE, JobStatus.NEEDS_REVIEW)


def pdf_upload(name: str = "linn.pdf", source: str = "linn.pdf") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, (CORPUS / source).read_bytes(), "application/pdf")


def api_for(user) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def error_of(response) -> dict:
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message"}, body
    assert body["error"]["message"]
    return body["error"]


@pytest.fixture(autouse=True)
def _clear_throttle_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def staff(db):
    return create_reviewer("sam", "pw-sam-123")


# --- authentication ---------------------------------------------------------------

ENDPOINTS = [
    ("get", "/api/v1/jobs"),
    ("post", "/api/v1/jobs"),
    ("get", "/api/v1/jobs/{id}"),
    ("delete", "/api/v1/jobs/{id}"),
    ("get", "/api/v1/jobs/{id}/html"),
    ("get", "/api/v1/jobs/{id}/zip"),
    ("get", "/api/v1/jobs/{id}/report"),
    ("get", "/api/v1/batches"),
    ("post", "/api/v1/batches"),
    ("get", "/api/v1/batches/{id}"),
]


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
def test_401_without_a_token(db, method, path):
    import uuid

    response = getattr(APIClient(), method)(path.format(id=uuid.uuid4()))
    assert response.status_code == 401
    assert error_of(response)["code"] == "NOT_AUTHENTICATED"
    assert response["WWW-Authenticate"] == "Token"


def test_401_with_a_wrong_token(db):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = client.get("/api/v1/jobs")
    assert response.status_code == 401
    assert error_of(response)["code"] == "AUTHENTICATION_FAILED"


# --- upload refusals ---------------------------------------------------------------


def test_415_for_a_non_pdf(alice):
    png = SimpleUploadedFile("scan.png", b"\x89PNG\r\n\x1a\n" + b"0" * 2000, "image/png")
    response = api_for(alice).post("/api/v1/jobs", {"file": png}, format="multipart")
    assert response.status_code == 415
    assert error_of(response)["code"] == "NOT_A_PDF"
    assert Job.objects.count() == 0


def test_413_for_an_oversized_upload(alice, settings):
    settings.AXIYA_MAX_UPLOAD_MB = 1
    client = api_for(alice)
    # Over the limit but under the request cap: refused while it is copied.
    big = SimpleUploadedFile("big.pdf", b"%PDF-1.7\n" + b"0" * (1024 * 1024 + 10))
    response = client.post("/api/v1/jobs", {"file": big}, format="multipart")
    assert response.status_code == 413
    assert error_of(response)["code"] == "FILE_TOO_LARGE"
    # Far over: refused from Content-Length before the body is read.
    huge = SimpleUploadedFile("huge.pdf", b"%PDF-1.7\n" + b"0" * (3 * 1024 * 1024))
    response = client.post("/api/v1/jobs", {"file": huge}, format="multipart")
    assert response.status_code == 413
    assert error_of(response)["code"] == "FILE_TOO_LARGE"
    assert Job.objects.count() == 0


def test_422_for_a_damaged_pdf_and_400_for_a_missing_file(alice):
    client = api_for(alice)
    bad = SimpleUploadedFile("bad.pdf", (CORPUS / "bad" / "invalid.pdf").read_bytes())
    response = client.post("/api/v1/jobs", {"file": bad}, format="multipart")
    assert response.status_code == 422
    assert error_of(response)["code"] == "PDF_DAMAGED"
    response = client.post("/api/v1/jobs", {}, format="multipart")
    assert response.status_code == 400
    assert error_of(response)["code"] == "INVALID_REQUEST"
    assert "file" in error_of(response)["message"]
    response = client.post("/api/v1/jobs", {"file": pdf_upload(), "engine": "nope"})
    assert response.status_code == 400


def test_uploads_are_throttled_per_user(alice, bob, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"uploads": "2/minute"},
    }
    client = api_for(alice)
    for _ in range(2):
        response = client.post("/api/v1/jobs", {"file": pdf_upload()}, format="multipart")
        assert response.status_code == 202
    response = client.post("/api/v1/jobs", {"file": pdf_upload()}, format="multipart")
    assert response.status_code == 429
    assert error_of(response)["code"] == "THROTTLED"
    assert int(response["Retry-After"]) > 0
    # A batch counts every file: bob may send 2 files, not 3.
    bob_client = api_for(bob)
    files = [pdf_upload(f"f{i}.pdf") for i in range(3)]
    assert bob_client.post("/api/v1/batches", {"files": files}).status_code == 429
    # Reading is not throttled.
    assert client.get("/api/v1/jobs").status_code == 200


# --- jobs: the whole life of one job ---


@pytest.mark.django_db(transaction=True)
def test_job_lifecycle(alice):
    client = api_for(alice)
    response = client.post(
        "/api/v1/jobs", {"file": pdf_upload(), "language": "en"}, format="multipart"
    )
    assert response.status_code == 202
    body = response.json()
    assert set(body) == {"id", "status", "url"}
    assert body["status"] == "queued"
    assert body["url"].endswith(f"/api/v1/jobs/{body['id']}")

    # Not finished yet (or just finished): the shape is the contract's either way.
    detail = client.get(body["url"]).json()
    for key in ("id", "status", "progress", "engine", "error", "links"):
        assert key in detail
    assert set(detail["links"]) >= {"html", "zip", "report"}

    job = wait_job(body["id"])
    assert job.status in FINISHED
    detail = client.get(f"/api/v1/jobs/{job.id}").json()
    assert detail["progress"] == {"pages_done": 1, "pages_total": 1}
    assert detail["engine"] == "ocr" and detail["error"] is None

    html = client.get(f"/api/v1/jobs/{job.id}/html")
    assert html.status_code == 200 and html["Content-Type"].startswith("text/html")
    assert b"LinnSequencer" in b"".join(html.streaming_content)
    report = client.get(f"/api/v1/jobs/{job.id}/report")
    assert report.status_code == 200
    assert json.loads(b"".join(report.streaming_content))["pages"] == 1
    archive = client.get(f"/api/v1/jobs/{job.id}/zip")
    assert archive.status_code == 200 and archive["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(b"".join(archive.streaming_content))).namelist()
    # The same names as every other download: <stem>.html, .report.json, .report.html.
    assert sorted(names) == ["linn/linn.html", "linn/linn.report.html", "linn/linn.report.json"]

    listing = client.get("/api/v1/jobs").json()
    assert listing["count"] == 1 and listing["results"][0]["id"] == str(job.id)
    assert client.get("/api/v1/jobs?status=failed").json()["count"] == 0
    assert client.get(f"/api/v1/jobs?status={job.status}").json()["count"] == 1
    assert error_of(client.get("/api/v1/jobs?status=nonsense"))["code"] == "INVALID_REQUEST"

    directory = local_store.job_dir(job.id)
    assert directory.exists()
    assert client.delete(f"/api/v1/jobs/{job.id}").status_code == 204
    assert not directory.exists()
    assert not Job.objects.filter(pk=job.id).exists()
    assert error_of(client.get(f"/api/v1/jobs/{job.id}"))["code"] == "NOT_FOUND"


def test_downloads_of_an_unfinished_job_say_not_ready(alice):
    job = runner.job_create(owner=alice, upload=CORPUS / "linn.pdf")
    client = api_for(alice)
    for kind in ("html", "zip", "report", "report.html"):
        response = client.get(f"/api/v1/jobs/{job.id}/{kind}")
        assert response.status_code == 409
        assert error_of(response)["code"] == "NOT_READY"


def test_404_for_another_users_job_and_staff_see_all(alice, bob, staff):
    job = runner.job_create(owner=alice, upload=CORPUS / "linn.pdf")
    client = api_for(bob)
    for path in ("", "/html", "/zip", "/report", "/report.html"):
        response = client.get(f"/api/v1/jobs/{job.id}{path}")
        assert response.status_code == 404, path
        assert error_of(response)["code"] == "NOT_FOUND"
    assert client.delete(f"/api/v1/jobs/{job.id}").status_code == 404
    assert Job.objects.filter(pk=job.id).exists()
    assert client.get("/api/v1/jobs").json()["count"] == 0
    assert client.get("/api/v1/jobs/not-a-uuid").status_code == 404
    staff_client = api_for(staff)
    assert staff_client.get(f"/api/v1/jobs/{job.id}").status_code == 200
    assert staff_client.get("/api/v1/jobs").json()["count"] == 1


# --- batches ---------------------------------------------------------------


def test_batch_keeps_good_files_and_lists_refused_ones(alice, bob):
    client = api_for(alice)
    files = [
        pdf_upload("one.pdf"),
        SimpleUploadedFile("notes.txt", b"hello, not a pdf"),
        pdf_upload("two.pdf", "c02-22.pdf"),
    ]
    response = client.post("/api/v1/batches", {"files": files})
    assert response.status_code == 202
    body = response.json()
    assert len(body["jobs"]) == 2 and all(set(j) == {"id", "status", "url"} for j in body["jobs"])
    assert body["rejected"] == [
        {
            "name": "notes.txt",
            "error": {"code": "NOT_A_PDF", "message": body["rejected"][0]["error"]["message"]},
        }
    ]
    detail = client.get(f"/api/v1/batches/{body['id']}").json()
    assert [j["name"] for j in detail["jobs"]] == ["one.pdf", "two.pdf"]
    assert detail["counts"]["queued"] == 2 and detail["finished"] is False
    assert client.get("/api/v1/batches").json()["count"] == 1
    assert api_for(bob).get(f"/api/v1/batches/{body['id']}").status_code == 404
    # All refused: the error (each file in error.rejected), and no batch left behind.
    only_bad = client.post("/api/v1/batches", {"files": [SimpleUploadedFile("x.txt", b"nope")]})
    assert only_bad.status_code == 415
    assert client.get("/api/v1/batches").json()["count"] == 1
    assert error_of(client.post("/api/v1/batches", {}))["code"] == "INVALID_REQUEST"


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_batch_of_five_pdfs_all_finish(alice, tmp_path):
    client = api_for(alice)
    # Born-digital one-page PDFs: the batch is under test here, not the reading of scans.
    files = [
        SimpleUploadedFile(
            f"{n}.pdf", text_pdf(tmp_path / f"{n}.pdf").read_bytes(), "application/pdf"
        )
        for n in range(5)
    ]
    response = client.post("/api/v1/batches", {"files": files})
    assert response.status_code == 202, response.content
    body = response.json()
    assert len(body["jobs"]) == 5 and body["rejected"] == []
    for job in body["jobs"]:
        assert wait_job(job["id"], timeout=180).status in FINISHED
    detail = client.get(f"/api/v1/batches/{body['id']}").json()
    assert detail["finished"] is True
    assert detail["counts"]["done"] + detail["counts"]["needs_review"] == 5
    for job in detail["jobs"]:
        assert job["progress"]["pages_done"] == job["progress"]["pages_total"] == 1
        assert client.get(job["links"]["html"]).status_code == 200


@pytest.mark.slow
def test_api_batch_end_to_end_with_redis_and_a_celery_worker(celery_worker_process, alice):
    client = api_for(alice)
    files = [pdf_upload("a.pdf", "linn.pdf"), pdf_upload("b.pdf", "c02-22.pdf")]
    response = client.post("/api/v1/batches", {"files": files})
    assert response.status_code == 202, response.content
    body = response.json()
    for job in body["jobs"]:
        finished = wait_job(job["id"], timeout=180)
        assert finished.status in FINISHED, finished.error_message
    detail = client.get(f"/api/v1/batches/{body['id']}").json()
    assert detail["finished"] is True
    html = client.get(f"/api/v1/jobs/{body['jobs'][0]['id']}/html")
    assert b"LinnSequencer" in b"".join(html.streaming_content)


# --- schema, docs, token command ---------------------------------------------------------------


def test_openapi_schema_and_docs_page(client, db):
    schema = client.get("/api/v1/schema?format=json")
    assert schema.status_code == 200
    paths = json.loads(schema.content)["paths"]
    for path in ("/api/v1/jobs", "/api/v1/jobs/{id}", "/api/v1/jobs/{id}/html",
                 "/api/v1/jobs/{id}/zip", "/api/v1/jobs/{id}/report", "/api/v1/batches",
                 "/api/v1/batches/{id}"):  # fmt: skip
        assert path in paths, path
    assert "202" in paths["/api/v1/jobs"]["post"]["responses"]
    docs = client.get("/api/v1/docs")
    assert docs.status_code == 200
    assert b"POST /api/v1/batches" in docs.content
    assert b"cdn" not in docs.content.lower()


def test_create_api_token_prints_a_token_and_creates_the_user(db, capsys):
    call_command("create_api_token", "carol")
    key = capsys.readouterr().out.strip()
    user = get_user_model().objects.get(username="carol")
    assert Token.objects.get(user=user).key == key and len(key) == 40
    assert not user.has_usable_password()
    call_command("create_api_token", "carol")
    assert capsys.readouterr().out.strip() == key
    call_command("create_api_token", "carol", "--rotate")
    assert capsys.readouterr().out.strip() != key
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get(user=user).key}")
    assert client.get("/api/v1/jobs").status_code == 200
