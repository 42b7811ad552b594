"""The site's rough edges of daily use (issue 33): the API page (token and webhook secret shown
once, then masked; the e-mail choice), the batch page (no stale "queued" banner, refused files,
download all), the job page (retention, time estimate) and the language list."""

from __future__ import annotations

import io
import re
import zipfile
from datetime import timedelta

import pytest
from django.contrib.messages import constants
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import RequestFactory
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from conversion import services
from conversion.models import Account, Job, JobStatus, Page, PageStatus
from conversion.views import BATCH_QUEUED
from tests.conftest import CORPUS


def _text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def test_the_api_page_is_in_the_navigation_and_needs_a_sign_in(client, alice):
    assert client.get("/account/api/").status_code == 302
    client.force_login(alice)
    home = client.get("/").content.decode()
    assert '<a href="/account/api/">API token</a>' in home
    page = client.get("/account/api/")
    assert page.status_code == 200
    assert '<a href="/account/api/" aria-current="page">API token</a>' in page.content.decode()


def test_a_token_is_shown_once_then_masked_and_rotation_revokes_the_old_one(client, alice):
    client.force_login(alice)
    assert "You have no API token yet" in _text(client.get("/account/api/"))
    shown = client.post("/account/api/", {"action": "token"}, follow=True)
    key = Token.objects.get(user=alice).key
    assert key in shown.content.decode() and "not shown again" in _text(shown)
    again = client.get("/account/api/").content.decode()
    assert key not in again and f"{key[:4]}••••••••" in again
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/v1/jobs").status_code == 200
    client.post("/account/api/", {"action": "token"})
    assert Token.objects.get(user=alice).key != key
    assert api.get("/api/v1/jobs").status_code == 401


def test_the_webhook_secret_is_shown_once_and_rotates(client, alice):
    client.force_login(alice)
    old = services.account_get(user=alice).webhook_secret
    assert old not in client.get("/account/api/").content.decode()
    shown = client.post("/account/api/", {"action": "secret"}, follow=True).content.decode()
    new = Account.objects.get(user=alice).webhook_secret
    assert new != old and new in shown
    assert new not in client.get("/account/api/").content.decode()


def test_the_email_choice_needs_a_mail_server_and_an_address(client, alice, settings):
    client.force_login(alice)
    settings.EMAIL_HOST = ""
    assert "This server sends no e-mail" in _text(client.get("/account/api/"))
    settings.EMAIL_HOST = "smtp.example.org"
    assert "Your account has no e-mail address" in _text(client.get("/account/api/"))
    alice.email = "alice@example.org"
    alice.save()
    assert "E-mail me at alice@example.org" in _text(client.get("/account/api/"))
    client.post("/account/api/", {"action": "email", "notify_email": "on"})
    assert Account.objects.get(user=alice).notify_email is True
    client.post("/account/api/", {"action": "email"})
    assert Account.objects.get(user=alice).notify_email is False


def _batch_page(client, batch_id) -> str:
    return client.get(f"/batches/{batch_id}/").content.decode()


def test_the_queued_banner_is_gone_once_the_batch_has_ended(client, alice):
    client.force_login(alice)
    batch = services.batch_create(owner=alice)
    job = Job.objects.create(owner=alice, batch=batch, original_name="a.pdf", engine="ocr")
    other = Job.objects.create(owner=alice, batch=batch, original_name="b.pdf", engine="ocr")

    def with_banner() -> str:
        request = RequestFactory().get("/")
        storage = CookieStorage(request)
        storage.add(constants.SUCCESS, "2 files are queued.", extra_tags=BATCH_QUEUED)
        response = client.get("/")  # any response to carry the cookie
        storage.update(response)
        client.cookies.update(response.cookies)
        return _batch_page(client, batch.id)

    running = with_banner()
    assert 'id="batch-queued">2 files are queued.' in running
    for one in (job, other):
        Job.objects.filter(pk=one.pk).update(status=JobStatus.DONE)
    assert "files are queued" not in with_banner()


def test_the_batch_page_lists_refused_files_and_downloads_all(client, alice):
    client.force_login(alice)
    files = [
        SimpleUploadedFile("one.pdf", (CORPUS / "linn.pdf").read_bytes()),
        SimpleUploadedFile("notes.txt", b"hello, not a pdf"),
    ]
    response = client.post("/", {"files": files})
    batch_url = response["Location"]
    page = _text(client.get(batch_url))
    assert "Files not converted" in page and "notes.txt" in page and "NOT_A_PDF" in page
    download = client.get(f"{batch_url}download.zip")
    assert download.status_code == 200
    zipped = zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content)))
    assert "batch.json" in zipped.namelist()
    assert client.get(f"/batches/{Job.objects.get().batch_id}/download.zip").status_code == 200


def test_the_job_page_says_when_results_are_deleted(client, alice, settings):
    client.force_login(alice)
    job = Job.objects.create(owner=alice, original_name="a.pdf", engine="ocr")
    Job.objects.filter(pk=job.pk).update(created_at=timezone.make_aware(
        timezone.datetime(2026, 3, 1, 9, 30)))  # fmt: skip
    page = _text(client.get(f"/jobs/{job.id}/"))
    assert "deleted on 31 March 2026, 09:30 UTC, 30 days after the upload" in page
    settings.AXIYA_RETENTION_DAYS = 0
    assert "keeps this document and its results until someone deletes them" in _text(
        client.get(f"/jobs/{job.id}/")
    )


def test_the_job_page_and_its_status_give_the_time_estimate(client, alice):
    client.force_login(alice)
    old = Job.objects.create(owner=alice, original_name="old.pdf", engine="ocr",
                             status=JobStatus.DONE, pages_total=5)  # fmt: skip
    at = timezone.now() - timedelta(minutes=5)
    for number in range(1, 6):
        page = Page.objects.create(job=old, number=number, status=PageStatus.DONE)
        Page.objects.filter(pk=page.pk).update(updated_at=at + timedelta(seconds=30 * number))
    job = Job.objects.create(owner=alice, original_name="a.pdf", engine="ocr", pages_total=4)
    expected = "about 2 minutes (4 pages to read, 0 of them for documents ahead of it, at 30.0 s"
    assert expected in _text(client.get(f"/jobs/{job.id}/"))
    assert client.get(f"/jobs/{job.id}/status").json()["estimate"].startswith(expected)


def test_the_form_offers_the_installed_languages(client, alice):
    client.force_login(alice)
    html = client.get("/").content.decode()
    assert re.search(r'<select name="language"[^>]*aria-describedby="language-help"', html)
    assert '<option value="" selected>Detect</option>' in html
    assert '<option value="fr">French (fr)</option>' in html
    pdf = SimpleUploadedFile("linn.pdf", (CORPUS / "linn.pdf").read_bytes())
    refused = _text(client.post("/", {"files": [pdf], "language": "ja"}))
    assert "This server cannot read ja" in refused and not Job.objects.exists()


@pytest.mark.parametrize("language", ["", "fr"])
def test_the_form_takes_a_listed_language(client, alice, language):
    client.force_login(alice)
    pdf = SimpleUploadedFile("linn.pdf", (CORPUS / "linn.pdf").read_bytes())
    assert client.post("/", {"files": [pdf], "language": language}).status_code == 302
    assert Job.objects.get().requested_language == language
