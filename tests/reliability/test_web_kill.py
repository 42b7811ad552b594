"""Issue 17, item 13: a web server SIGKILLed in the middle of uploads leaves no orphan files once
the sweep has run: no job folder without its row, nothing left in incoming/ (the uploads being
validated and the request bodies Django spools to disk), and every row that committed has its
source file.

A real gunicorn (gthread, as `make serve`) on the test database; eight clients upload at once,
four small born-digital PDFs at full speed (validated and stored while the kill lands), four
3 MiB ones trickled in (spooled to incoming/ by Django when the server dies). The whole process
group is killed, as a crash of the machine's web service would.
"""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pymupdf
import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.authtoken.models import Token

from bench.processes import free_port, multipart_body, wait_port
from conversion import services, storage
from conversion.models import Job
from tests import local_store
from tests.conftest import ROOT
from tests.reliability.conftest import web_env
from tests.reliability.pdfs import text_pdf

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
LATER = timedelta(seconds=services.ORPHAN_GRACE_S + 60)  # the next sweep, past its grace


def _big_pdf(path: Path) -> Path:
    """A one-page PDF of ~3 MiB (an incompressible image): over Django's in-memory limit."""
    doc = pymupdf.open()
    page = doc.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, 1024, 1024, os.urandom(1024 * 1024 * 3), False)
    page.insert_image(page.rect, pixmap=pix)
    doc.save(path, deflate=False)
    return path


class Uploader(threading.Thread):
    """Uploads `pdf` again and again until the server dies, `pace_s` between 64 KiB chunks."""

    def __init__(self, port: int, token: str, pdf: Path, pace_s: float) -> None:
        super().__init__(daemon=True)
        self.port, self.token, self.pace_s = port, token, pace_s
        self.body, self.content_type = multipart_body(pdf.name, pdf.read_bytes())
        self.accepted = 0
        self.sent_of_current = 0
        self.cut = False

    def run(self) -> None:
        while not self.cut:
            try:
                self._upload()
            except (OSError, http.client.HTTPException):
                self.cut = True  # the server died under this request

    def _upload(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            conn.putrequest("POST", "/api/v1/jobs")
            conn.putheader("Authorization", f"Token {self.token}")
            conn.putheader("Content-Type", self.content_type)
            conn.putheader("Content-Length", str(len(self.body)))
            conn.endheaders()
            self.sent_of_current = 0
            for start in range(0, len(self.body), 1 << 16):
                conn.send(self.body[start : start + (1 << 16)])
                self.sent_of_current = start
                time.sleep(self.pace_s)
            response = conn.getresponse()
            response.read()
            assert response.status == 202, response.status
            self.accepted += 1
        finally:
            conn.close()


def _start_gunicorn(port: int, log: Path) -> subprocess.Popen:
    env = web_env(AXIYA_UPLOAD_RATE="100000/hour")
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "axiya.wsgi", "--bind", f"127.0.0.1:{port}"],
        cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: the kill takes master and workers
    )  # fmt: skip
    wait_port(port, timeout=60)
    return proc


def _orphans() -> tuple[list[str], list[str]]:
    """(job folders without a row, files in incoming/)."""
    rows = {str(pk) for pk in Job.objects.values_list("pk", flat=True)}
    root, incoming = local_store.jobs_root(), storage.incoming_dir()
    folders = [p.name for p in root.iterdir() if p.name not in rows] if root.is_dir() else []
    return folders, sorted(p.name for p in incoming.iterdir()) if incoming.is_dir() else []


def test_a_web_server_killed_mid_upload_leaves_no_orphans_after_the_sweep(tmp_path):
    user = get_user_model().objects.create_user("nia", password="pw-nia-1234567")
    token = Token.objects.create(user=user).key
    port = free_port()
    log = tmp_path / "gunicorn.log"
    proc = _start_gunicorn(port, log)
    small, big = text_pdf(tmp_path / "small.pdf"), _big_pdf(tmp_path / "big.pdf")
    clients = [Uploader(port, token, small, 0.0) for _ in range(4)]
    clients += [Uploader(port, token, big, 0.1) for _ in range(4)]
    try:
        for client in clients:
            client.start()
        deadline = time.time() + 120
        # Kill once small uploads were stored and every big one is half way through its body.
        while not (sum(c.accepted for c in clients[:4]) >= 4
                   and all(c.sent_of_current > len(c.body) // 2 for c in clients[4:])):  # fmt: skip
            assert time.time() < deadline and proc.poll() is None, tmp_path / "gunicorn.log"
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    for client in clients:
        client.join(timeout=70)
    _, left_in_incoming = _orphans()
    assert left_in_incoming, "nothing was in flight when the server died: the test proves nothing"

    services.purge_expired(now=timezone.now() + LATER)  # what the hourly sweep does, later

    assert _orphans() == ([], [])
    for job in Job.objects.all():  # every upload that committed kept its file
        assert local_store.source_pdf(job.id).exists(), job.id
    assert Job.objects.count() >= sum(c.accepted for c in clients)  # every 202 kept its row
