"""bin/axiya-batch: a folder converted through a live server, with progress and a summary; retries
on 429 honour Retry-After."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import urllib.error
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from conversion.api import client as batch_client
from tests.conftest import CORPUS, ROOT


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_batch_client_converts_a_folder(live_server, tmp_path):
    user = get_user_model().objects.create_user("alice", password="pw-alice-123")
    token = Token.objects.create(user=user).key
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(CORPUS / "linn.pdf", folder / "linn.pdf")
    shutil.copy(CORPUS / "c02-22.pdf", folder / "scan.pdf")
    (folder / "broken.pdf").write_bytes(b"not a pdf at all")
    (folder / "notes.txt").write_text("ignored")
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
