"""Issue 29, item 2: slow clients took the whole site down. 17 connections that send a request
line and then a header line every 3 s held every gthread thread (2 workers x 8), gunicorn never
closed them, and fresh requests timed out.

`make serve` (bin/serve) now runs nginx (deploy/nginx/) in front of gunicorn on a unix socket:
nginx reads each request whole before gunicorn sees it. The tests start bin/serve itself, a real
nginx and a real gunicorn on the test database, and stop it as Ctrl-C does. The same slow-client
test against bare gunicorn (gunicorn.conf.py, published directly, as before) must fail: it is run
too, as a strict expected failure, so the test shows each time that it can tell the two apart.
"""

from __future__ import annotations

import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from bench.processes import free_port
from tests.conftest import ROOT
from tests.reliability.conftest import web_env

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("nginx") is None, reason="nginx: bin/setup installs it"),
]
SLOW_HEADERS = 200  # each sends a request line, then one header line every 3 s
SLOW_BODIES = 20  # each sends a whole header, then 1 KiB of its body every 3 s
TRICKLE_S = 12.0
# How long Ctrl-C may take to stop everything: gunicorn ends its requests first, which on a
# busy 2-core machine took more than 30 s after the slow clients left.
STOP_S = 90
# gunicorn waits up to its graceful timeout (30 s by default) for a worker whose threads still
# hold a connection, then kills it: every stop here took those 30 s. The stop is what is tested,
# not the wait, so the tests' gunicorn waits this long (seconds).
GRACEFUL_S = 3
# Refused 7 MiB uploads under the cap sent in a row: before the fix each of 4 runs of 60 held a 502
# (1 to several; 3 MiB ones failed 1 in 20 by hand, 1 in 300 under pytest).
UNDER_CAP_TRIES = 60
PAGE = "/accounts/login/"  # a page Django renders (a thread of a gunicorn worker answers it)


def _env(port: int, **extra: str) -> dict[str, str]:
    return web_env(
        HOST="127.0.0.1", PORT=str(port), PY=sys.executable,
        GUNICORN_CMD_ARGS=f"--graceful-timeout {GRACEFUL_S}", **extra,
    )  # fmt: skip


def _get(port: int, path: str = PAGE, *, timeout: float = 3.0, source: str = "", **headers):
    conn = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=timeout, source_address=(source, 0) if source else None
    )
    try:
        conn.request("GET", path, headers={"Host": "127.0.0.1", **headers})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def _ready(port: int, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.time() + 60
    while True:
        assert proc.poll() is None, log.read_text()
        try:
            if _get(port)[0] == 200:
                return
        except (OSError, http.client.HTTPException):
            pass
        if time.time() > deadline:
            raise RuntimeError(f"the site did not answer: {log.read_text()[-2000:]}")
        time.sleep(0.2)


@pytest.fixture
def serve(tmp_path):
    """Start `make serve`'s command (through="front") or bare gunicorn; yield its port; stop it
    as Ctrl-C does (SIGINT to the whole process group) and check that everything ended."""
    started: list[subprocess.Popen] = []

    def start(through: str = "front", **env: str) -> int:
        port = free_port()
        log = tmp_path / f"{through}.log"
        command = (
            [str(ROOT / "bin" / "serve")]
            if through == "front"
            else [sys.executable, "-m", "gunicorn", "axiya.wsgi", "--bind", f"127.0.0.1:{port}"]
        )
        proc = subprocess.Popen(
            command, cwd=ROOT, env=_env(port, **env), stdout=log.open("w"),
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        started.append(proc)
        _ready(port, proc, log)
        return port

    yield start
    for proc in started:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in the terminal sends
        proc.wait(timeout=STOP_S)
        deadline = time.time() + 10
        while time.time() < deadline:  # nginx and gunicorn end with it
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"processes of {proc.args} outlived it")


class Trickler(threading.Thread):
    """SLOW_HEADERS connections that send a request line and then one header line every 3 s, and
    SLOW_BODIES that send a whole upload header and then their body 1 KiB every 3 s, for
    TRICKLE_S seconds. `trickling` is set once each has sent its first header line (gunicorn 27
    hands a connection that sent only its request line back to its poller; the next line it
    reads in a thread, and that thread then waits for the rest)."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.trickling = threading.Event()
        self.closed_by_server = 0

    def run(self) -> None:
        heads, bodies = [], []
        try:
            for _ in range(SLOW_HEADERS):
                sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
                sock.sendall(f"GET {PAGE} HTTP/1.1\r\n".encode())
                heads.append(sock)
            for _ in range(SLOW_BODIES):
                sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
                sock.sendall(
                    b"POST /api/v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                    b"application/octet-stream\r\nContent-Length: 1048576\r\n\r\n" + b"%" * 1024
                )
                bodies.append(sock)
            end = time.monotonic() + TRICKLE_S
            line = 0
            while time.monotonic() + 3 < end:
                time.sleep(3)
                line += 1
                for sock in heads:
                    self._send(sock, f"X-Slow-{line}: {'x' * 20}\r\n".encode())
                for sock in bodies:
                    self._send(sock, b"%" * 1024)
                self.trickling.set()
            time.sleep(max(0.0, end - time.monotonic()))
        finally:
            self.trickling.set()
            for sock in heads + bodies:
                sock.close()

    def _send(self, sock: socket.socket, data: bytes) -> None:
        try:
            sock.sendall(data)
        except OSError:
            self.closed_by_server += 1


def _answer_times_under_slow_clients(port: int) -> list[float]:
    """Seconds each normal request took while the slow clients trickled (3 s: no answer)."""
    trickler = Trickler(port)
    trickler.start()
    assert trickler.trickling.wait(60)
    time.sleep(0.5)
    times = []
    while trickler.is_alive():
        start = time.monotonic()
        try:
            status, _ = _get(port, timeout=3.0)
            assert status == 200, status
            times.append(time.monotonic() - start)
        except (TimeoutError, ConnectionError, http.client.HTTPException):
            times.append(3.0)
        time.sleep(1.0)
    trickler.join()
    return times


@pytest.mark.parametrize(
    "through",
    [
        "front",
        pytest.param(
            "gunicorn",
            marks=pytest.mark.xfail(
                strict=True,
                raises=AssertionError,
                reason="bare gunicorn: slow clients hold all"
                " its threads (the issue); the test must fail there, or it proves nothing",
            ),
        ),
    ],
)
def test_a_normal_request_answers_in_2_s_while_200_slow_clients_trickle(serve, through):
    # One gunicorn process of 8 threads for both: with two, the kernel may hand nearly all the
    # slow connections to one process (216 to 5 was seen) and let bare gunicorn off by chance.
    port = serve(through, WEB_WORKERS="1", WEB_THREADS="8")
    times = _answer_times_under_slow_clients(port)
    assert len(times) >= 2, times
    assert max(times) < 2.0, f"{through}: answers took {[round(t, 2) for t in times]} s"


def test_the_front_refuses_a_request_over_the_apps_cap_before_gunicorn_reads_it(serve):
    port = serve(AXIYA_MAX_UPLOAD_MB="4", AXIYA_MAX_REQUEST_MB="8")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.putrequest("POST", "/api/v1/jobs")
    conn.putheader("Content-Length", str(8 * 1024 * 1024 + 1))  # one byte over 8 MiB
    conn.endheaders()
    response = conn.getresponse()
    body = response.read()
    conn.close()
    assert response.status == 413
    assert b'"REQUEST_TOO_LARGE"' in body and b"8 MiB" in body
    # Under the cap (and far over nginx's own default of 1 MiB) the body reaches Django: 401, each
    # time. Django answers without reading it; before axiya/wsgi.py read it to its end, gunicorn
    # reset the socket under nginx and some of these came back 502.
    statuses = []
    for _ in range(UNDER_CAP_TRIES):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("POST", "/api/v1/jobs", body=b"%" * (7 * 1024 * 1024))
        response = conn.getresponse()
        response.read()
        conn.close()
        statuses.append(response.status)
    assert statuses.count(401) == UNDER_CAP_TRIES, Counter(statuses)


def test_django_sees_the_clients_address_not_the_one_it_claims(serve):
    """The token lockout also counts wrong tokens per address (conversion/api/authentication.py):
    behind the front each client keeps its own address (not the front's, shared by everyone),
    and a forged X-Forwarded-For changes nothing. Each try sends another wrong token, so only
    the address count can lock."""
    port = serve(WEB_WORKERS="1", AXIYA_TOKEN_ADDRESS_FAILURES="3")
    for n in range(3):
        status, _ = _get(
            port, "/api/v1/jobs", source="127.0.0.2",
            Authorization=f"Token wrong-{n}", **{"X-Forwarded-For": f"10.0.0.{n}"},
        )  # fmt: skip
        assert status == 401
    locked = _get(port, "/api/v1/jobs", source="127.0.0.2", Authorization="Token wrong-3")
    assert locked[0] == 429
    # Another client, even one that claims to be the first, is not locked out by it.
    status, _ = _get(
        port, "/api/v1/jobs", source="127.0.0.3",
        Authorization="Token wrong-4", **{"X-Forwarded-For": "127.0.0.2"},
    )  # fmt: skip
    assert status == 401
