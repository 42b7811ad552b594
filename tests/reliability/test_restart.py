"""Issue 17, item 2: the single-machine server killed with jobs still queued, then started
again: every job finishes, without waiting for the hourly sweep (switched off here)."""

from __future__ import annotations

import signal
import time
import urllib.request

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from bench.processes import multipart_body
from conversion.models import Job, JobStatus
from tests.reliability.pdfs import text_pdf
from tests.system.test_axiya_batch import Server

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
JOBS = 8


def _upload(url: str, token: str, path) -> int:
    body, content_type = multipart_body(path.name, path.read_bytes())
    request = urllib.request.Request(f"{url}/api/v1/jobs", data=body)
    request.add_header("Authorization", f"Token {token}")
    request.add_header("Content-Type", content_type)
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.status


def test_jobs_queued_before_a_kill_finish_after_the_restart(tmp_path):
    user = get_user_model().objects.create_user("kim", password="pw-kim-123456")
    token = Token.objects.create(user=user).key
    server = Server(tmp_path, AXIYA_INLINE_HOUSEKEEPING="false", AXIYA_RECOVER_AFTER_S="900")
    server.start()
    try:
        text = "A page of the restart test. " * 40
        for n in range(JOBS):
            pdf = text_pdf(tmp_path / f"r{n}.pdf", text=f"Document {n}. {text}")
            assert _upload(server.url, token, pdf) == 202
        server.proc.send_signal(signal.SIGKILL)  # the server dies with jobs still queued
        server.proc.wait(timeout=10)
        unfinished = Job.objects.exclude(status__in=(JobStatus.DONE, JobStatus.NEEDS_REVIEW))
        assert unfinished.count() > 0, "every job finished before the kill: the test proves nothing"
        server.start()
        deadline = time.time() + 180
        while unfinished.exists() and time.time() < deadline:
            time.sleep(1)
        statuses = sorted(Job.objects.values_list("status", flat=True))
        assert not unfinished.exists(), statuses
        assert Job.objects.count() == JOBS
    finally:
        server.stop()
