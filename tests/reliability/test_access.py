"""Issue 8, access: per-user isolation on every endpoint and download, staff-only review, CSRF on
forms, upload throttling, signed /view/ links, production settings, retention and deletion."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from conversion import services, views
from conversion.models import Job, ReviewEvent
from conversion.runner import jobs as runner
from conversion.views import VIEW_SALT, view_token
from tests import local_store
from tests.conftest import ROOT, create_reviewer
from tests.reliability.pdfs import text_pdf

User = get_user_model()


@pytest.fixture(autouse=True)
def _clear_cache():
    cache.clear()  # throttle histories


@pytest.fixture
def alice(db):
    return User.objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def bob(db):
    return User.objects.create_user("bob", password="pw-bob-123")


@pytest.fixture
def job(alice, tmp_path) -> Job:
    job = runner.job_create(owner=alice, upload=text_pdf(tmp_path / "a.pdf"))
    for page_id in runner.job_prepare(job_id=job.id):
        runner.page_read(page_id=page_id)
    job = runner.job_finish(job_id=job.id)
    local_store.files_dir(job.id).mkdir(parents=True, exist_ok=True)
    (local_store.files_dir(job.id) / "figure-1.png").write_bytes(b"\x89PNG fake")
    return job


def site_urls(job: Job) -> list[str]:
    j = f"/jobs/{job.id}"
    return [f"{j}/", f"{j}/status", f"{j}/result/document.html",
            f"{j}/result/document_files/figure-1.png", f"{j}/report.json",
            f"{j}/download.html", f"{j}/download.zip"]  # fmt: skip


def api_urls(job: Job) -> list[str]:
    a = f"/api/v1/jobs/{job.id}"
    return [a, f"{a}/html", f"{a}/zip", f"{a}/report"]


def review_urls(job: Job) -> list[str]:
    r = f"/review/{job.id}"
    return ["/review/", f"{r}/", f"{r}/pages/1/", f"{r}/pages/1/scan.png"]


def _api(user) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def test_the_owner_reaches_every_endpoint(client, job, alice):
    client.force_login(alice)
    for url in site_urls(job):
        assert client.get(url).status_code == 200, url
    for url in api_urls(job):
        assert _api(alice).get(url).status_code == 200, url


def test_another_user_gets_404_everywhere(client, job, bob):
    client.force_login(bob)
    for url in site_urls(job):
        assert client.get(url).status_code == 404, url
    assert client.post(f"/jobs/{job.id}/delete").status_code == 404
    assert client.get("/").content.count(job.original_name.encode()) == 0
    api = _api(bob)
    for url in api_urls(job):
        assert api.get(url).status_code == 404, url
    assert api.delete(f"/api/v1/jobs/{job.id}").status_code == 404
    assert api.get("/api/v1/jobs").json()["count"] == 0
    assert Job.objects.filter(pk=job.id).exists() and local_store.html_path(job.id).exists()


def test_anonymous_gets_nothing(job):
    client = Client()
    for url in site_urls(job) + review_urls(job):
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"], url
    for url in api_urls(job):
        assert APIClient().get(url).status_code == 401, url


def test_review_is_for_reviewers_only(client, job, alice, bob):
    """The review dashboard and decisions are reviewers' (docs/review.md): the owner corrects
    their own document on its review page but decides nothing; anyone else, staff status
    included, finds no such document there."""
    admin = User.objects.create_user("adam", password="pw-adam-123", is_staff=True)
    decisions = [
        ("decision", {"decision": "approve"}),
        ("pages/1/decision", {"decision": "approve"}),
    ]
    edits = [("pages/1/html", {"html": "<p>x</p>"}), ("pages/1/alt", {"figure": "f", "alt": "x"})]
    for user in (alice, bob, admin):  # the owner is no reviewer, nor is staff status one
        client.force_login(user)
        assert client.get("/review/").status_code == 403
        for path, data in decisions:
            assert client.post(f"/review/{job.id}/{path}", data).status_code in (403, 404), path
    for user in (bob, admin):
        client.force_login(user)
        for url in review_urls(job)[1:]:
            assert client.get(url).status_code == 404, url
        for path, data in edits:
            assert client.post(f"/review/{job.id}/{path}", data).status_code == 404, path
    client.force_login(alice)  # the owner: her own document's review page, no decision
    for url in review_urls(job)[1:]:
        assert client.get(url).status_code in (200, 302), url
    for path, data in decisions:
        assert client.post(f"/review/{job.id}/{path}", data).status_code == 403, path
    client.force_login(create_reviewer())
    for url in review_urls(job):
        assert client.get(url).status_code in (200, 302), url  # the job page redirects to page 1


def _as(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_view_links_are_signed_per_job_and_user(client, job, alice, bob, tmp_path, monkeypatch):
    token = view_token(job, user=alice)
    response = _as(alice).get(f"/view/{token}/document.html")  # the frame sends the cookie
    assert response.status_code == 200
    assert response["Content-Security-Policy"].startswith("sandbox")
    assert response["X-Frame-Options"] == "SAMEORIGIN"
    alice_client = _as(alice)
    other = runner.job_create(owner=alice, upload=text_pdf(tmp_path / "b.pdf"))
    user_part, _, signed = token.partition(".")
    forged = [
        token[:-2] + ("AA" if not token.endswith("AA") else "BB"),
        f"{user_part}.{signing.dumps(str(other.id), salt='another-salt')}",
        f"{user_part}.{signing.dumps(str(job.id), salt=VIEW_SALT, key='not-the-secret-key')}",
        # The secret key alone (the issue-17 probe's forgery) no longer mints a link:
        f"{user_part}.{signing.dumps(str(job.id), salt=VIEW_SALT)}",
        f"{user_part}.{signing.dumps(str(job.id), salt=f'{VIEW_SALT}:{alice.pk}:')}",
        f"{bob.pk}.{signed}",  # alice's signature under bob's id
        view_token(job, user=bob),  # bob's own link to alice's job
        signed,
    ]
    for bad in forged:
        client = _as(bob) if bad.startswith(f"{bob.pk}.") else alice_client
        assert client.get(f"/view/{bad}/document.html").status_code in (403, 404), bad
    alice.set_password("a-new-password-123")
    alice.save()
    alice_client = _as(alice)
    assert alice_client.get(f"/view/{token}/document.html").status_code == 404  # dies with it
    fresh = view_token(job, user=alice)
    monkeypatch.setattr(views, "VIEW_MAX_AGE", 1)
    time.sleep(2.1)
    assert alice_client.get(f"/view/{fresh}/document.html").status_code == 404  # expired
    monkeypatch.undo()
    fresh = view_token(job, user=alice)
    services.job_delete(job=job)
    assert alice_client.get(f"/view/{fresh}/document.html").status_code == 404


def test_a_result_link_opens_only_for_its_user_signed_in(job, alice, bob):
    """Issue 29: the links opened with no cookie, and for anyone signed in."""
    token = view_token(job, user=alice)
    reviewer = create_reviewer()
    for client in (Client(), _as(bob), _as(reviewer)):  # no cookie; another user; a reviewer
        for url in (f"/view/{token}/document.html", f"/view/{token}/page-1.html"):
            assert client.get(url).status_code == 403, url
    for user, client in ((alice, _as(alice)), (reviewer, _as(reviewer))):
        own = view_token(job, user=user)  # what their job (or review) page links to
        response = client.get(f"/view/{own}/document.html")
        assert response.status_code == 200 and b"<main" in response.content
        assert client.get(f"/view/{own}/page-1.html").status_code == 200
    # The frame's images carry no cookie: the document lists them under a figures-only link,
    # which opens the figures and nothing else; the document link opens no figure.
    html = _as(alice).get(f"/view/{token}/document.html").content.decode()
    figures = views.figures_token(job, user=alice)
    for name in ("figure-1.png",):
        assert Client().get(f"/view/{figures}/document_files/{name}").status_code == 200
        assert Client().get(f"/view/{token}/document_files/{name}").status_code == 404
    assert Client().get(f"/view/{figures}/document.html").status_code == 403
    assert _as(alice).get(f"/view/{figures}/document.html").status_code == 404
    assert "document_files/" not in html or f"/view/{figures}/document_files/" in html


def test_site_forms_need_the_csrf_token(job, alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    with open(text_pdf(local_store.job_dir(job.id) / "up.pdf"), "rb") as fh:
        assert client.post("/", {"files": fh}).status_code == 403
    assert client.post(f"/jobs/{job.id}/delete").status_code == 403
    client.force_login(create_reviewer())
    assert client.post(f"/review/{job.id}/decision", {"decision": "approve"}).status_code == 403
    assert Job.objects.filter(pk=job.id).exists()
    login = Client(enforce_csrf_checks=True)
    assert login.post("/accounts/login/", {"username": "alice", "password": "x"}).status_code == 403
    # With the token the same delete goes through (the check above is the token, nothing else).
    client.force_login(alice)
    client.get(f"/jobs/{job.id}/")
    token = client.cookies["csrftoken"].value
    response = client.post(f"/jobs/{job.id}/delete", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 302 and not Job.objects.filter(pk=job.id).exists()


def test_api_session_auth_needs_csrf_token_auth_does_not(alice, tmp_path):
    session = APIClient(enforce_csrf_checks=True)
    session.force_login(alice)
    pdf = text_pdf(tmp_path / "s.pdf")
    with pdf.open("rb") as fh:
        assert session.post("/api/v1/jobs", {"file": fh}, format="multipart").status_code == 403
    with pdf.open("rb") as fh:
        response = _api(alice).post("/api/v1/jobs", {"file": fh}, format="multipart")
    assert response.status_code == 202


def test_site_uploads_are_throttled(client, alice, settings, tmp_path):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {"uploads": "2/hour"}}  # fmt: skip
    client.force_login(alice)
    pdf = text_pdf(tmp_path / "t.pdf")
    codes = []
    for _ in range(3):
        with pdf.open("rb") as fh:
            codes.append(client.post("/", {"files": fh}).status_code)
    assert codes == [302, 302, 429]
    assert Job.objects.count() == 2


# --- production settings ------------------------------------------------------------------------


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("AXIYA_", "DJANGO_"))}
    full.update(AXIYA_DATA_DIR=str(ROOT / "var" / "check-deploy"))
    full.update(env)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=full,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


@pytest.mark.slow
def test_check_deploy_is_clean_in_production_mode():
    key = "k" + os.urandom(40).hex()
    result = _manage("check", "--deploy", "--fail-level", "WARNING",
                     AXIYA_DEBUG="false", AXIYA_HTTPS="true", AXIYA_SECRET_KEY=key,
                     AXIYA_ALLOWED_HOSTS="axiya.example.org")  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.slow
def test_the_development_key_is_refused_whenever_debug_is_off():
    dev_key = settings.DEV_SECRET_KEY
    for env in ({}, {"AXIYA_HTTPS": "true", "AXIYA_ALLOWED_HOSTS": "axiya.example.org"}):
        # loopback-only hosts too: a proxy can forward `Host: 127.0.0.1`
        result = _manage("check", AXIYA_SECRET_KEY=dev_key, **env)
        assert result.returncode != 0 and "axiya.E001" in result.stderr, env
    result = _manage("check", AXIYA_SECRET_KEY=dev_key, AXIYA_DEBUG="true")
    assert result.returncode == 0, result.stderr
    weak = _manage("check", AXIYA_SECRET_KEY="short", AXIYA_HTTPS="true")
    assert weak.returncode != 0 and "axiya.E001" in weak.stderr


@pytest.mark.slow
def test_a_celery_worker_refuses_the_development_key(tmp_path):
    """Issue 29: only the web process refused the public key; a worker took tasks with it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AXIYA_", "DJANGO_"))}
    env.update(AXIYA_DATA_DIR=str(tmp_path), AXIYA_SECRET_KEY=settings.DEV_SECRET_KEY,
               AXIYA_DEBUG="false", OMP_THREAD_LIMIT="1")  # fmt: skip
    celery = Path(sys.executable).with_name("celery")
    worker = subprocess.run(
        [str(celery), "-A", "axiya", "worker", "--pool=solo", "-Q", "cpu", "--without-mingle",
         "--without-gossip", "--loglevel=INFO"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert worker.returncode != 0
    assert "worker refuses to start" in worker.stderr and "axiya.E001" in worker.stderr


def test_password_reset_is_off_without_mail(client, alice, settings):
    """Issue 29: /accounts/password_reset/ answered, unthrottled, with no mail to send."""
    settings.EMAIL_HOST = ""
    for url in ("/accounts/password_reset/", "/accounts/password_reset/done/",
                "/accounts/reset/MQ/set-password/", "/accounts/reset/done/"):  # fmt: skip
        assert client.get(url).status_code == 404, url
    assert client.post("/accounts/password_reset/", {"email": "a@x.org"}).status_code == 404
    settings.EMAIL_HOST = "mail.example.org"
    assert client.get("/accounts/password_reset/").status_code == 200
    assert client.get("/accounts/login/").status_code == 200  # the rest of accounts/ stays


@pytest.mark.slow
def test_without_a_key_each_installation_makes_its_own(tmp_path):
    first = _manage("shell", "-c", "from django.conf import settings; print(settings.SECRET_KEY)",
                    AXIYA_DATA_DIR=str(tmp_path / "a"))  # fmt: skip
    again = _manage("shell", "-c", "from django.conf import settings; print(settings.SECRET_KEY)",
                    AXIYA_DATA_DIR=str(tmp_path / "a"))  # fmt: skip
    other = _manage("shell", "-c", "from django.conf import settings; print(settings.SECRET_KEY)",
                    AXIYA_DATA_DIR=str(tmp_path / "b"))  # fmt: skip
    key = first.stdout.strip()
    assert len(key) >= 50 and key == again.stdout.strip() != other.stdout.strip()
    assert key != settings.DEV_SECRET_KEY
    assert (tmp_path / "a" / "secret_key").stat().st_mode & 0o077 == 0  # the owner's only
    assert _manage("check", AXIYA_DATA_DIR=str(tmp_path / "a")).returncode == 0


def test_no_secrets_in_the_repository():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    suspicious = []
    for name in tracked.stdout.split():
        if name.endswith((".pem", ".key", ".p12", ".env")) or name.startswith(".env"):
            suspicious.append(name)
    assert not suspicious
    settings_text = (ROOT / "axiya" / "settings.py").read_text()
    assert 'env_str("AXIYA_SECRET_KEY"' in settings_text


# --- retention and deletion -------------------------------------------------------------------


def _files_of(job: Job) -> list:
    return [p for p in local_store.job_dir(job.id).rglob("*") if p.is_file()]


def test_delete_on_request_removes_every_file(client, job, alice):
    assert len(_files_of(job)) >= 4  # source, page image, html, report, figure
    client.force_login(alice)
    assert client.post(f"/jobs/{job.id}/delete").status_code == 302
    assert not local_store.job_dir(job.id).exists()
    assert not Job.objects.filter(pk=job.id).exists()


def test_api_delete_removes_every_file(job, alice):
    assert _api(alice).delete(f"/api/v1/jobs/{job.id}").status_code == 204
    assert not local_store.job_dir(job.id).exists()


def test_a_reviewer_deletes_no_one_elses_job(job, alice):
    """Issue 29: a reviewer's delete answered 204 (API) and 302 (site)."""
    reviewer = create_reviewer()
    response = _api(reviewer).delete(f"/api/v1/jobs/{job.id}")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "PERMISSION_DENIED"
    site = _as(reviewer)
    assert site.get(f"/jobs/{job.id}/delete").status_code == 403
    assert site.post(f"/jobs/{job.id}/delete").status_code == 403
    assert b"/delete" not in site.get(f"/jobs/{job.id}/").content  # no link to it either
    assert Job.objects.filter(pk=job.id).exists() and local_store.html_path(job.id).exists()
    assert not ReviewEvent.objects.filter(job_ref=job.id, action="delete").exists()


def test_a_deletion_is_audited(job, alice, tmp_path):
    _as(alice).post(f"/jobs/{job.id}/delete")
    event = ReviewEvent.objects.get(job_ref=job.id, action="delete")
    assert event.actor == alice and event.job is None and event.job_name == job.original_name
    other = runner.job_create(owner=alice, upload=text_pdf(tmp_path / "o.pdf"))
    root = User.objects.create_superuser("root", password="pw-root-123")
    assert _api(root).delete(f"/api/v1/jobs/{other.id}").status_code == 204
    event = ReviewEvent.objects.get(job_ref=other.id, action="delete")
    assert event.actor == root and "alice" in event.note


def test_purge_expired_deletes_old_jobs_and_their_files(job, alice, settings, tmp_path):
    from django.core.management import call_command

    fresh = runner.job_create(owner=alice, upload=text_pdf(tmp_path / "f.pdf"))
    Job.objects.filter(pk=job.id).update(created_at=timezone.now() - timedelta(days=31))
    settings.AXIYA_RETENTION_DAYS = 30
    call_command("purge_expired")
    assert not Job.objects.filter(pk=job.id).exists() and not local_store.job_dir(job.id).exists()
    assert Job.objects.filter(pk=fresh.id).exists() and local_store.source_pdf(fresh.id).exists()
    settings.AXIYA_RETENTION_DAYS = 0  # keep forever
    Job.objects.filter(pk=fresh.id).update(created_at=timezone.now() - timedelta(days=999))
    assert services.purge_expired() == []


def test_retention_runs_periodically():
    from axiya.celery import app

    tasks = {entry["task"] for entry in app.conf.beat_schedule.values()}
    assert {
        "conversion.dispatch.tasks.purge_expired_task",
        "conversion.dispatch.tasks.jobs_recover_task",
    } <= tasks
