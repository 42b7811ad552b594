"""Issue 16, the rough edges a first-time user hits on the site: every bad file named with its
error, errors that say whose problem it is, queue position, paging, delete confirmation, readable
engine names and statuses, report.html beside the HTML, plurals, no literal backticks, the login
error, the favicon."""

from __future__ import annotations

import io
import zipfile

import pymupdf
import pytest
from bs4 import BeautifulSoup
from django.core.files.uploadedfile import SimpleUploadedFile

from conversion import services
from conversion.models import Job, JobStatus
from conversion.pipeline.errors import EncryptedPdf, EngineFailed
from conversion.runner import jobs as runner
from tests import local_store
from tests.conftest import CORPUS


def _text(response) -> str:
    return " ".join(BeautifulSoup(response.content, "html.parser").get_text(" ").split())


def _encrypted_pdf() -> bytes:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "secret")
    data = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw", owner_pw="pw")
    doc.close()
    return data


def test_every_bad_file_is_named_with_its_error(client, alice):
    client.force_login(alice)
    png = SimpleUploadedFile("photo.png", (CORPUS / "typewriter.png").read_bytes())
    locked = SimpleUploadedFile("locked.pdf", _encrypted_pdf())
    empty = SimpleUploadedFile("empty.pdf", b"")
    response = client.post("/", {"files": [png, locked, empty]})
    assert response.status_code == 200 and not Job.objects.exists()
    page = BeautifulSoup(response.content, "html.parser")
    errors = [li.get_text(" ", strip=True) for li in page.select("#files-errors li")]
    assert len(errors) == 3, errors
    assert errors[0].startswith("photo.png: The file is a PNG image") and "NOT_A_PDF" in errors[0]
    assert errors[1].startswith("locked.pdf: The PDF is protected") and "PDF_ENCRYPTED" in errors[1]
    assert errors[2].startswith("empty.pdf: The file is empty") and "EMPTY_FILE" in errors[2]
    assert "`" not in " ".join(errors)  # "qpdf --decrypt" without literal backticks


def test_a_language_that_is_not_bcp47_is_refused_on_the_form(client, alice):
    client.force_login(alice)
    pdf = SimpleUploadedFile("linn.pdf", (CORPUS / "linn.pdf").read_bytes())
    response = client.post("/", {"files": [pdf], "language": "klingon!!"})
    assert response.status_code == 200 and not Job.objects.exists()
    assert "'klingon!!' is not a language code" in _text(response)


def _failed_job(owner, error) -> Job:
    job = Job.objects.create(original_name="scan.pdf", engine="ocr", owner=owner)
    services.job_mark_failed(job_id=job.id, error=error)
    return job


def test_a_failure_says_whose_problem_it_is(client, alice):
    client.force_login(alice)
    bad_file = _text(client.get(f"/jobs/{_failed_job(alice, EncryptedPdf()).id}/"))
    assert "The file could not be converted" in bad_file and "(error PDF_ENCRYPTED)" in bad_file
    assert "The problem is in the file" in bad_file
    server = _text(client.get(f"/jobs/{_failed_job(alice, EngineFailed()).id}/"))
    assert "The server failed to convert this file" in server and "(error ENGINE_FAILED)" in server
    assert "The file is not the problem" in server and "tell your administrator" in server
    assert "Fix the file" not in server
    unknown = _failed_job(alice, RuntimeError("boom"))  # INTERNAL_ERROR: never the file's fault
    assert "The file is not the problem" in _text(client.get(f"/jobs/{unknown.id}/"))


def test_a_queued_job_shows_its_place_in_the_queue(client, alice):
    client.force_login(alice)
    jobs = [Job.objects.create(original_name=f"q{i}.pdf", engine="ocr", owner=alice)
            for i in range(3)]  # fmt: skip
    page = _text(client.get(f"/jobs/{jobs[2].id}/"))
    assert "Place in the queue: 3" in page
    assert client.get(f"/jobs/{jobs[1].id}/status").json()["queue_position"] == 2
    Job.objects.filter(pk=jobs[0].pk).update(status=JobStatus.RUNNING)
    assert client.get(f"/jobs/{jobs[2].id}/status").json()["queue_position"] == 2
    assert client.get(f"/jobs/{jobs[0].id}/status").json()["queue_position"] is None


def test_the_home_list_pages(client, alice):
    client.force_login(alice)
    for i in range(30):
        Job.objects.create(original_name=f"doc-{i:02}.pdf", engine="ocr", owner=alice)
    first = BeautifulSoup(client.get("/").content, "html.parser")
    assert len(first.select("tbody tr")) == 25
    nav = first.select_one('nav[aria-label="Pages of your documents"]')
    assert "Page 1 of 2" in nav.get_text()
    second = BeautifulSoup(client.get("/" + nav.select_one("a")["href"]).content, "html.parser")
    assert len(second.select("tbody tr")) == 5


def test_delete_asks_first(client, alice):
    client.force_login(alice)
    job = Job.objects.create(original_name="keep-me.pdf", engine="ocr", owner=alice)
    page = BeautifulSoup(client.get(f"/jobs/{job.id}/").content, "html.parser")
    link = page.find("a", string=lambda s: s and s.startswith("Delete this document"))
    confirm = client.get(link["href"])
    assert confirm.status_code == 200 and Job.objects.filter(pk=job.pk).exists()
    assert "cannot be undone" in _text(confirm)
    form = BeautifulSoup(confirm.content, "html.parser").select_one("main form")
    assert client.post(form["action"]).status_code == 302
    assert not Job.objects.filter(pk=job.pk).exists()


def test_engine_names_and_statuses_are_readable(client, alice):
    client.force_login(alice)
    form = BeautifulSoup(client.get("/").content, "html.parser")
    labels = [o.get_text() for o in form.select("#id_engine option")]
    assert "Tesseract OCR (CPU)" in labels
    job = Job.objects.create(
        original_name="x.pdf", engine="ocr", owner=alice, status=JobStatus.NEEDS_REVIEW,
        summary={"errors": 1, "warnings": 1, "needs_review": 1},
    )  # fmt: skip
    local_store.html_path(job.id).parent.mkdir(parents=True)
    local_store.html_path(job.id).write_text("<!DOCTYPE html><title>x</title>")
    page = _text(client.get(f"/jobs/{job.id}/"))
    assert "Engine: Tesseract OCR (CPU)" in page and "Needs review" in page
    assert "1 error, 1 item to review, 1 warning." in page  # no "1 warnings"


@pytest.mark.slow
def test_report_html_beside_the_html_and_the_same_names_everywhere(client, alice):
    job = runner.job_create(
        owner=alice, upload=CORPUS / "c02-22.pdf", original_name="My scan 2024.pdf"
    )
    runner.job_run_inline(job_id=job.id)
    client.force_login(alice)
    page = client.get(f"/jobs/{job.id}/")
    links = {a.get_text(): a["href"] for a in
             BeautifulSoup(page.content, "html.parser").select(".downloads a")}  # fmt: skip
    report = client.get(links["Read the accessibility report"])
    assert report.status_code == 200 and report["Content-Type"].startswith("text/html")
    assert b"Accessibility report" in b"".join(report.streaming_content)
    html = client.get(links["Download HTML"])
    assert 'filename="My scan 2024.html"' in html["Content-Disposition"]
    body = b"".join(html.streaming_content).decode()
    assert 'src="My%20scan%202024_files/figure-1-p1.png"' in body  # beside it, as in the zip
    archive = client.get(links["Download zip (HTML, images, report)"])
    assert 'filename="My scan 2024.zip"' in archive["Content-Disposition"]
    names = sorted(zipfile.ZipFile(io.BytesIO(b"".join(archive.streaming_content))).namelist())
    assert names == [
        "My scan 2024/My scan 2024.html", "My scan 2024/My scan 2024.report.html",
        "My scan 2024/My scan 2024.report.json", "My scan 2024/My scan 2024_files/figure-1-p1.png",
    ]  # fmt: skip
    assert local_store.files_dir(job.id).joinpath("figure-1-p1.png").exists()


def test_login_error_gives_no_admin_command(client, db):
    response = client.post("/accounts/login/", {"username": "nobody", "password": "wrong"})
    text = _text(response)
    assert "did not match" in text and "manage.py" not in text and "administrator" in text


def test_favicon(client, db):
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon.svg")
    icon = client.get(response["Location"])
    assert icon.status_code == 200
    assert b"<svg" in b"".join(icon.streaming_content)
    client.get("/accounts/login/")
    assert b'rel="icon"' in client.get("/accounts/login/").content


def _engines_offered(client) -> list[str]:
    form = BeautifulSoup(client.get("/").content, "html.parser")
    return [o["value"] for o in form.select("#id_engine option")]


def test_only_engines_that_can_run_are_offered(client, alice, settings, tmp_path):
    client.force_login(alice)
    settings.AXIYA_MODEL_DIR = ""
    assert _engines_offered(client) == ["", "ocr"]
    pdf = SimpleUploadedFile("linn.pdf", (CORPUS / "linn.pdf").read_bytes())
    response = client.post("/", {"files": [pdf], "engine": "gemma"})
    assert response.status_code == 200 and not Job.objects.exists()
    (tmp_path / "manifest.json").write_text("{}")  # a package folder: gemma is offered
    settings.AXIYA_MODEL_DIR = str(tmp_path)
    assert _engines_offered(client) == ["", "ocr", "gemma"]
