"""Issue 29: with Redis down, no request answers 500. Uploads (the site's and the API's, single
and batch) are accepted into the outbox and convert once Redis is back (a real Celery worker);
the upload throttle fails open; the token and sign-in lockouts count in the database, so they
hold while Redis is down and after it restarts empty; sessions are in the database, so nobody is
signed out."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from conversion.models import Job, JobStatus, OutboxMessage
from tests.api.test_token_lockout import good_token, token_client
from tests.conftest import ROOT
from tests.reliability.conftest import redis_cache
from tests.reliability.pdfs import text_pdf

pytestmark = pytest.mark.slow
FINISHED = (JobStatus.DONE, JobStatus.NEEDS_REVIEW)


def test_token_lockout_holds_while_redis_is_down_and_after_it_restarts_empty(
    volatile_redis, db, settings
):
    """The counts lived in Redis only: a Redis that restarted empty forgot them, and while it
    was down every token request answered 500."""
    settings.CACHES = redis_cache(volatile_redis.url)
    bad = token_client("d" * 40)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        assert bad.get("/api/v1/jobs").status_code == 401
    volatile_redis.stop(signal.SIGKILL)
    assert bad.get("/api/v1/jobs").status_code == 429  # the lock holds, no 500
    assert token_client(good_token("quin")).get("/api/v1/jobs").status_code == 200
    assert token_client("c" * 40).get("/api/v1/jobs").status_code == 401
    volatile_redis.start(persistent=False)  # back, empty
    assert bad.get("/api/v1/jobs").status_code == 429


def test_sign_in_and_its_lockout_work_while_redis_is_down(volatile_redis, db, settings):
    settings.CACHES = redis_cache(volatile_redis.url)
    settings.AXES_ENABLED = True
    get_user_model().objects.create_user("rhea", password="pw-rhea-correct")
    signed_in = Client()
    ok = signed_in.post("/accounts/login/", {"username": "rhea", "password": "pw-rhea-correct"})
    assert ok.status_code == 302
    volatile_redis.stop(signal.SIGKILL)
    assert signed_in.get("/").status_code == 200  # the session is in the database
    guesser = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        guesser.post("/accounts/login/", {"username": "rhea", "password": "wrong"})
    volatile_redis.start(persistent=False)  # back, empty: the lock is in the database
    right = guesser.post("/accounts/login/", {"username": "rhea", "password": "pw-rhea-correct"})
    assert right.status_code == 429


def _upload(path, name: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, path.read_bytes(), "application/pdf")


def test_uploads_while_redis_is_down_are_accepted_and_convert_when_it_is_back(
    workers_on, persistent_redis, tmp_path, settings
):
    """Every upload answered 500 with Redis down: the upload throttle and the token lockout read
    the Redis cache before the outbox could take the job."""
    settings.CACHES = redis_cache(persistent_redis.url)
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {"uploads": "100/hour"}}  # fmt: skip
    workers = workers_on(persistent_redis.url)
    workers.start()
    user = get_user_model().objects.create_user("ada", password="pw-ada-123456")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    site = Client()
    site.force_login(user)
    pdf = text_pdf(tmp_path / "outage.pdf", text="Uploaded while Redis was down. " * 20)
    persistent_redis.stop(signal.SIGKILL)

    single = api.post("/api/v1/jobs", {"file": _upload(pdf, "a.pdf")}, format="multipart")
    assert single.status_code == 202, single.content
    files = [_upload(pdf, "b1.pdf"), _upload(pdf, "b2.pdf")]
    batch = api.post("/api/v1/batches", {"files": files}, format="multipart")
    assert batch.status_code == 202, batch.content
    page = site.post("/", {"files": _upload(pdf, "c.pdf")})
    assert page.status_code == 302, page.content
    page = site.post("/", {"files": [_upload(pdf, "d1.pdf"), _upload(pdf, "d2.pdf")]})
    assert page.status_code == 302, page.content
    assert Job.objects.filter(status=JobStatus.QUEUED).count() == 6
    assert OutboxMessage.objects.count() == 6

    persistent_redis.start()
    deadline = time.time() + 180
    while Job.objects.exclude(status__in=FINISHED).exists() and time.time() < deadline:
        time.sleep(0.5)
    jobs = list(Job.objects.values_list("original_name", "status", "error_message"))
    assert all(status in FINISHED for _, status, _ in jobs), (jobs, workers.log_text())
    assert not OutboxMessage.objects.exists()


_CACHE_GET = """
import time
from django.core.cache import cache
start = time.monotonic()
try:
    cache.get("probe")
except Exception as error:
    print(type(error).__name__, round(time.monotonic() - start, 1))
"""


def test_a_redis_that_does_not_answer_is_given_up_on_after_the_cache_timeout(
    volatile_redis, tmp_path
):
    """A hung Redis (here: stopped with SIGSTOP, its port still open) holds every request that
    reads the cache until the client gives up: AXIYA_CACHE_TIMEOUT_S seconds (redis-py's own
    default, 5 s, was not the operator's to set)."""
    env = {"PATH": "/usr/bin:/bin", "AXIYA_DATA_DIR": str(tmp_path),
           "AXIYA_BROKER_URL": volatile_redis.url, "DJANGO_SETTINGS_MODULE": "axiya.settings",
           "AXIYA_CACHE_TIMEOUT_S": "1"}  # fmt: skip
    shell = [sys.executable, "manage.py", "shell", "--no-imports", "-c", _CACHE_GET]
    volatile_redis.proc.send_signal(signal.SIGSTOP)
    try:
        result = subprocess.run(shell, cwd=ROOT, env=env, capture_output=True, text=True,
                                timeout=30)  # fmt: skip
    finally:
        volatile_redis.proc.send_signal(signal.SIGCONT)
    name, seconds = result.stdout.split()
    assert name == "TimeoutError" and float(seconds) < 3, result.stdout + result.stderr
