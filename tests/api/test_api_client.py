"""bin/axiya-batch: a folder converted through a live server, with progress and a summary; retries
on 429 honour Retry-After."""

from __future__ import annotations

import http.server
import io
import json
import subprocess
import sys
import threading
import urllib.error
from pathlib import Path

import pytest

from conversion.api import client as batch_client
from tests.conftest import CORPUS, ROOT, api_token, batch_folder
from tests.reliability.pdfs import text_pdf


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_batch_client_converts_a_folder(live_server, tmp_path):
    token = api_token("alice")
    folder = batch_folder(tmp_path, {
        "linn.pdf": CORPUS / "linn.pdf", "scan.pdf": CORPUS / "c02-22.pdf",
        "broken.pdf": b"not a pdf at all", "notes.txt": b"ignored",
    })  # fmt: skip
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bin" / "axiya-batch"), str(folder), "--url", live_server.url,
         "--token", token, "--out", str(out), "--zip", "--timeout", "180"],
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # one file was refused
    assert "2 of 3 converted" in proc.stdout
    assert "broken.pdf: rejected NOT_A_PDF" in proc.stdout
    assert "[1/3] broken.pdf: refused" in proc.stderr and "documents finished" in proc.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        ".axiya-batch.json", "linn.report.json", "linn.zip", "scan.report.json", "scan.zip",
    ]  # fmt: skip


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_batch_client_writes_the_formats_asked_for(live_server, tmp_path):
    folder = batch_folder(tmp_path, {"harbour.pdf": text_pdf(tmp_path / "harbour.pdf")})
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bin" / "axiya-batch"), str(folder), "--url", live_server.url,
         "--token", api_token("ada"), "--out", str(out), "--formats", "html,epub",
         "--timeout", "120"],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert proc.returncode in (0, 3), proc.stderr
    names = {p.name for p in out.iterdir()}
    assert {"harbour.html", "harbour.epub", "harbour.report.json"} <= names
    assert "harbour.pdf" not in names
    assert (out / "harbour.epub").read_bytes()[30:58] == b"mimetypeapplication/epub+zip"
    report = json.loads((out / "harbour.report.json").read_text())
    assert report["formats"]["epub"]["check"]["problems"] == []


def test_client_retries_after_429(monkeypatch, tmp_path):
    calls = []
    waits = []

    class Response(io.BytesIO):
        status = 202
        headers: dict = {}

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    def fake_urlopen(request, timeout):
        calls.append(request.full_url)
        if len(calls) < 3:
            raise urllib.error.HTTPError(
                request.full_url, 429, "Too Many", {"Retry-After": "7"},
                io.BytesIO(b'{"error": {"code": "THROTTLED", "message": "wait"}}'),
            )  # fmt: skip
        return Response(b'{"id": "1", "status": "queued", "url": "http://x/api/v1/jobs/1"}')

    monkeypatch.setattr(batch_client.urllib.request, "urlopen", fake_urlopen)
    pdf = Path(tmp_path / "a.pdf")
    pdf.write_bytes(b"%PDF-1.7")
    client = batch_client.Client(url="http://x", token="t", sleep=waits.append)
    assert client.submit(pdf)["status"] == "queued"
    assert len(calls) == 3 and waits == [7.0, 7.0]
    client = batch_client.Client(url="http://x", token="t", retries=1, sleep=waits.append)
    calls.clear()
    with pytest.raises(batch_client.ApiError) as info:
        client.submit(pdf)
    assert info.value.status == 429 and info.value.code == "THROTTLED"


class _CutShortServer:
    """A real HTTP server on loopback whose first answers are cut short, as a server killed
    while answering leaves them."""

    def __init__(self, answers: list[bytes]):
        self.answers = list(answers)
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (the stdlib's name)
                raw = outer.answers.pop(0)
                self.wfile.write(raw)
                self.wfile.flush()
                self.close_connection = True

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


def test_an_answer_cut_short_is_an_outage_and_is_retried():
    # Headers promise 100 bytes, 5 come (IncompleteRead); then an empty 200: both retried.
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
    server = _CutShortServer([head % 100 + b'{"sta', head % 0, head % 17 + b'{"status":"done"}'])
    client = batch_client.Client(url=server.url, token="t", retries=3, sleep=lambda s: None)
    with pytest.raises(batch_client.ApiError) as cut:
        client.job("1")  # the IncompleteRead is retried; the empty answer is an outage
    assert (cut.value.status, cut.value.code) == (0, "INCOMPLETE_RESPONSE")
    assert batch_client.transient(cut.value)
    assert client.job("1") == {"status": "done"}
    server.httpd.shutdown()
