"""A real HTTP receiver on loopback for the webhook tests: it records every request and answers
with the statuses it is given, in turn (the last one again once they run out)."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float

    def json(self) -> dict:
        return json.loads(self.body)


@dataclass
class Receiver:
    statuses: list[int] = field(default_factory=lambda: [200])
    redirect_to: str = ""  # the Location of a 3xx answer
    requests: list[Received] = field(default_factory=list)

    def __post_init__(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                receiver.requests.append(
                    Received(self.path, dict(self.headers.items()), body, time.time())
                )
                n = len(receiver.requests)
                status = receiver.statuses[min(n, len(receiver.statuses)) - 1]
                self.send_response(status)
                if 300 <= status < 400 and receiver.redirect_to:
                    self.send_header("Location", receiver.redirect_to)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args) -> None:  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def wait(self, count: int, timeout: float) -> list[Received]:
        deadline = time.time() + timeout
        while time.time() < deadline and len(self.requests) < count:
            time.sleep(0.1)
        return list(self.requests)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
