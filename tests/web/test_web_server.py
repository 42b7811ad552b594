"""gunicorn.conf.py: the web server of `make serve` and docker-compose keeps answering while
slow clients trickle their uploads in (issue 17: two slow uploads took both sync workers)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from bench.processes import free_port, stop_process, wait_port
from tests.conftest import ROOT

SLOW_CLIENTS = 4  # twice the workers: sync workers would all be taken


@pytest.mark.slow
def test_slow_uploads_do_not_starve_other_requests(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AXIYA_", "DJANGO_"))}
    env.update(AXIYA_DATA_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="axiya.settings")
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "axiya.wsgi", "--bind", f"127.0.0.1:{port}"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    slow: list[socket.socket] = []
    try:
        wait_port(port, timeout=60)
        for _ in range(SLOW_CLIENTS):
            sock = socket.create_connection(("127.0.0.1", port))
            # An upload whose request is still arriving (headers, then its body, at a crawl).
            sock.sendall(b"POST /api/v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            slow.append(sock)
        time.sleep(1)
        # Answered while they crawl (sync workers would not answer until they time out).
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/accounts/login/", timeout=30) as r:
            assert r.status == 200
    finally:
        for sock in slow:
            sock.close()
        stop_process(server, timeout=10)
