"""bin/axiya-batch against a real server process that goes away mid-batch and comes back: the
client waits it out with growing pauses, finishes, saves each HTML with its images and both
reports, resumes a folder without uploading converted files again, and its exit status says
whether files failed or need review."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from django.conf import settings as dj_settings

from bench.processes import free_port, stop_process, wait_port
from conversion.api import client as batch_client
from conversion.models import Job
from tests.conftest import CORPUS, ROOT, api_token, batch_folder

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


class Server:
    """`manage.py runserver` on the test database, in its own process: started, stopped (as a
    crash or a restart would), started again on the same port."""

    def __init__(self, log_dir: Path, **env: str) -> None:
        self.env = env  # over the defaults below
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_dir = log_dir
        self.proc: subprocess.Popen | None = None
        self.starts = 0

    def start(self) -> None:
        env = dict(os.environ)
        env.update(
            DJANGO_SETTINGS_MODULE="axiya.settings",
            DATABASE_URL=f"sqlite:///{dj_settings.DATABASES['default']['NAME']}",
            AXIYA_DATA_DIR=str(dj_settings.DATA_DIR),
            AXIYA_RECOVER_AFTER_S="2",  # jobs the stopped server was reading are picked up again
            AXIYA_INLINE_HOUSEKEEPING="true",
            OMP_THREAD_LIMIT="1",
        )
        env.pop("AXIYA_BROKER_URL", None)
        env.update(self.env)
        self.starts += 1
        log = open(self.log_dir / f"server-{self.starts}.log", "w")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{self.port}", "--noreload"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        wait_port(self.port, timeout=60)

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc, timeout=10)


@pytest.fixture
def server(tmp_path):
    server = Server(tmp_path)
    server.start()
    yield server
    server.stop()


def _run_client(folder: Path, out: Path, server: Server, token: str, *extra: str):
    return subprocess.Popen(
        [sys.executable, str(ROOT / "bin" / "axiya-batch"), str(folder), "--url", server.url,
         "--token", token, "--out", str(out), "--timeout", "300", "--retries", "2", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _jobs_in_state(out: Path) -> int:
    try:
        files = json.loads((out / batch_client.STATE_FILE).read_text())["files"]
    except (OSError, ValueError):
        return 0
    return sum(1 for entry in files.values() if entry.get("job_id"))


def _wait_for(check, timeout: float = 60) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError("timed out")


def test_server_goes_away_mid_batch_then_resume(server, tmp_path):
    token = api_token("alice")
    folder = batch_folder(tmp_path, {
        "linn.pdf": CORPUS / "linn.pdf",
        "scan.pdf": CORPUS / "c02-22.pdf",  # a figure, uncertain lines
        "broken.pdf": b"not a pdf at all",
    })  # fmt: skip
    out = tmp_path / "out"

    client = _run_client(folder, out, server, token)
    _wait_for(lambda: _jobs_in_state(out) == 2)  # both PDFs uploaded, the client knows it
    server.proc.send_signal(signal.SIGKILL)  # gone, mid-batch, without a goodbye
    server.proc.wait()
    time.sleep(4)  # the client polls into a closed port meanwhile
    server.start()
    stdout, stderr = client.communicate(timeout=300)

    assert client.returncode == 1, stderr  # broken.pdf was refused
    assert "server unreachable" in stderr and "retrying in" in stderr
    assert "lost" not in stdout + stderr
    # Both PDFs converted; how many need review depends on their findings (a clean page is done).
    assert re.search(r"2 of 3 converted; [12] need review", stdout), stdout
    assert "broken.pdf: rejected NOT_A_PDF" in stdout
    # Each HTML with its images beside it, and both reports.
    names = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert names == [
        ".axiya-batch.json", "linn.html", "linn.report.html", "linn.report.json",
        "scan.html", "scan.report.html", "scan.report.json", "scan_files/figure-1-p1.png",
    ], names  # fmt: skip
    html = BeautifulSoup((out / "scan.html").read_text(), "html.parser")
    for img in html.find_all("img"):
        assert (out / img["src"]).is_file(), img["src"]

    # Run again: nothing converted is uploaded again; the refused file is tried again.
    again = _run_client(folder, out, server, token)
    stdout, stderr = again.communicate(timeout=120)
    assert Job.objects.count() == 2
    assert stderr.count("already converted") == 2 and again.returncode == 1
    # Without the bad file every file is converted, one needs review: exit status 3.
    (folder / "broken.pdf").unlink()
    last = _run_client(folder, out, server, token)
    stdout, stderr = last.communicate(timeout=120)
    assert last.returncode == batch_client.EXIT_REVIEW, stdout + stderr
    scan = Job.objects.get(original_name="scan.pdf")
    assert f"scan.pdf: needs review, {scan.open_findings} open findings" in stdout
    assert Job.objects.count() == 2


def test_a_rerun_waits_for_jobs_an_earlier_run_started(server, tmp_path):
    """The client itself stopped (Ctrl-C) after uploading: the next run polls the same job."""
    token = api_token("bob")
    folder = batch_folder(tmp_path, {"linn.pdf": CORPUS / "linn.pdf"})
    out = tmp_path / "out"
    first = _run_client(folder, out, server, token)
    _wait_for(lambda: (out / batch_client.STATE_FILE).exists())
    first.send_signal(signal.SIGINT)
    first.communicate(timeout=30)
    second = _run_client(folder, out, server, token)
    stdout, stderr = second.communicate(timeout=120)
    assert Job.objects.count() == 1
    assert "uploaded by an earlier run" in stderr or "already converted" in stderr
    assert second.returncode in (batch_client.EXIT_OK, batch_client.EXIT_REVIEW), stdout + stderr
    assert (out / "linn.html").exists() and (out / "linn.report.html").exists()
