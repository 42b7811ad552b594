"""The site: multi-file upload (form and XHR), errors that say what to do, downloads, and a user
seeing only their own jobs everywhere while staff see all."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from conversion import services
from conversion.models import Batch, Job
from conversion.roles import user_set_roles
from conversion.runner import jobs as runner
from tests.conftest import CORPUS


def pdf(name: str = "linn.pdf") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, (CORPUS / "linn.pdf").read_bytes(), "application/pdf")


def test_sign_in_is_required(client, db):
    response = client.get("/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert client.get("/accounts/login/").status_code == 200


def test_upload_form_is_labelled(client, alice):
    client.force_login(alice)
    html = client.get("/").content.decode()
    assert (
        'for="id_files"' in html and "multiple" in html and 'aria-describedby="files-help"' in html
    )
    assert 'for="id_engine"' in html and 'for="id_language"' in html
    assert 'id="upload-bar"' in html


def test_several_files_make_a_batch_and_bad_ones_say_why(client, alice):
    client.force_login(alice)
    bad = SimpleUploadedFile("notes.txt", b"just text")
    response = client.post("/", {"files": [pdf("a.pdf"), pdf("b.pdf"), bad]}, follow=True)
    batch = Batch.objects.get()
    assert response.redirect_chain[-1][0] == f"/batches/{batch.id}/"
    content = response.content.decode()
    assert "a.pdf" in content and "b.pdf" in content
    assert "notes.txt: The file is not a PDF" in content  # what is wrong and what to do
    assert batch.jobs.count() == 2


def test_one_file_goes_to_its_job_page_and_xhr_gets_json(client, alice):
    client.force_login(alice)
    response = client.post("/", {"files": [pdf()]})
    job = Job.objects.get()
    assert response["Location"] == f"/jobs/{job.id}/"
    xhr = client.post("/", {"files": [pdf()]}, HTTP_X_REQUESTED_WITH="XMLHttpRequest")
    assert xhr.status_code == 200 and xhr.json()["redirect"].startswith("/jobs/")
    bad = SimpleUploadedFile("x.pdf", (CORPUS / "bad" / "invalid.pdf").read_bytes())
    xhr = client.post("/", {"files": [bad]}, HTTP_X_REQUESTED_WITH="XMLHttpRequest")
    assert xhr.status_code == 400
    assert "PDF_DAMAGED" in xhr.json()["errors"][0] and "export it again" in xhr.json()["errors"][0]
    empty = client.post("/", {}, HTTP_X_REQUESTED_WITH="XMLHttpRequest")
    assert empty.json()["errors"] == ["Choose at least one PDF file to convert."]


@pytest.mark.django_db(transaction=True)
def test_job_page_shows_result_frame_and_downloads(client, alice):
    job = runner.job_create(owner=alice, upload=CORPUS / "linn.pdf")
    runner.job_run_inline(job_id=job.id)
    client.force_login(alice)
    html = client.get(f"/jobs/{job.id}/").content.decode()
    assert "<iframe" in html and " sandbox " in html and 'title="Converted document' in html
    for url in (f"/jobs/{job.id}/download.html", f"/jobs/{job.id}/download.zip",
                f"/jobs/{job.id}/report.json?download=1"):  # fmt: skip
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["Content-Disposition"].startswith("attachment"), url
    inline = client.get(f"/jobs/{job.id}/result/document.html")
    assert inline["Content-Security-Policy"].startswith("sandbox")
    response = client.post(f"/jobs/{job.id}/delete")
    assert response.status_code == 302 and not Job.objects.filter(pk=job.id).exists()


def test_downloads_of_an_unfinished_job_are_not_found(client, alice):
    job = runner.job_create(owner=alice, upload=CORPUS / "linn.pdf")
    client.force_login(alice)
    for name in ("download.html", "download.zip", "report.json", "report.html",
                 "result/document.html"):  # fmt: skip
        assert client.get(f"/jobs/{job.id}/{name}").status_code == 404, name


def test_a_user_sees_only_their_own_jobs_and_staff_see_all(client, alice, bob):
    job = runner.job_create(owner=alice, upload=CORPUS / "linn.pdf")
    batch = services.batch_create(owner=alice)
    client.force_login(bob)
    assert b"linn.pdf" not in client.get("/").content
    for url in (f"/jobs/{job.id}/", f"/jobs/{job.id}/status", f"/jobs/{job.id}/download.html",
                f"/jobs/{job.id}/download.zip", f"/jobs/{job.id}/report.json",
                f"/jobs/{job.id}/result/document.html", f"/batches/{batch.id}/"):  # fmt: skip
        assert client.get(url).status_code == 404, url
    assert client.post(f"/jobs/{job.id}/delete").status_code == 404
    assert Job.objects.filter(pk=job.id).exists()
    user_set_roles(user=bob, reviewer=True)
    assert b"linn.pdf" in client.get("/").content
    assert client.get(f"/jobs/{job.id}/").status_code == 200
    assert client.get(f"/batches/{batch.id}/").status_code == 200


def test_create_local_user_can_sign_in(client, db, capsys):
    from django.core.management import call_command

    call_command("create_local_user", "--password", "local-pass-123", "--reviewer")
    out = capsys.readouterr().out
    assert "User:      axiya (created; reviewer)" in out and "API token:" in out
    assert client.login(username="axiya", password="local-pass-123")
    assert client.get("/review/").status_code == 200
    call_command("create_local_user", "--keep-password", "--reviewer")
    assert "Password" not in capsys.readouterr().out
    assert client.login(username="axiya", password="local-pass-123")


def test_admin_shows_the_audit_trail(client, db):
    admin = get_user_model().objects.create_superuser("root", password="pw-root-123")
    client.force_login(admin)
    assert client.get("/admin/conversion/reviewevent/").status_code == 200
    assert client.get("/admin/conversion/job/").status_code == 200


def test_job_page_says_what_to_check_in_words_with_a_link_to_the_spot(client, job):
    client.force_login(job.owner)
    soup = BeautifulSoup(client.get(f"/jobs/{job.id}/").content, "html.parser")
    items = soup.select("ul.to-check li")
    figure = next(li for li in items if "figure" in li.get_text())
    assert "Page 1, " in figure.get_text() and "#" not in figure.select_one(".finding-text").text
    link = figure.find("a")
    assert link.get_text().startswith("Show it in the document (page 1, ")  # named apart
    frame = soup.find("iframe", id="result-frame")
    assert link["target"] == frame["name"] == "result-frame"
    assert link["href"] == f"{frame['src']}#figure-1"
    # The report, on the site: the same words, linked to the spot in the result.
    page = b"".join(client.get(f"/jobs/{job.id}/report.html").streaming_content)
    report = BeautifulSoup(page, "html.parser")
    spot = report.find("a", href=f"/jobs/{job.id}/result/document.html#figure-1")
    assert spot is not None and spot.get_text().startswith("Page 1, ")


@pytest.mark.django_db(transaction=True)
def test_an_unfinished_job_page_offers_a_way_on_without_javascript(client, alice):
    job = runner.job_create(owner=alice, upload=CORPUS / "linn.pdf")
    client.force_login(alice)
    soup = BeautifulSoup(client.get(f"/jobs/{job.id}/").content, "html.parser")
    fallback = soup.find("noscript")
    assert fallback is not None and fallback.find("a")["href"] == f"/jobs/{job.id}/"
    # The outcome is one element that the script replaces in place when the job ends.
    assert soup.find(id="job-outcome") is not None
