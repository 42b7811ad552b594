"""A real S3-compatible server for the tests: moto's standalone server (moto[server], an HTTP
S3 API) in its own process on a loopback port, behind a TCP relay the tests can cut, so a store
can be lost in the middle of a conversion (after a given number of writes) and come back.

MinIO (the docker-compose store) is on neither PyPI nor apt; moto speaks the same S3 API
through botocore, which is all conversion/storage.py uses.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator

import boto3

from bench.processes import free_port, stop_process, wait_port

KEYS = {"AXIYA_S3_ACCESS_KEY_ID": "test-key", "AXIYA_S3_SECRET_ACCESS_KEY": "test-secret"}


class Relay:
    """Forwards loopback connections to the S3 server until cut. `fail_after(n)`: the n+1-th
    PUT request from now on finds the store gone (its connection dropped, new ones refused)."""

    def __init__(self, upstream: int) -> None:
        self.upstream = upstream
        self.port = free_port()
        self.down = False
        self.puts_left: int | None = None
        self.connections = 0  # every connection tried, refused ones too (botocore's retries)
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._server = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self) -> None:
        with self._lock:
            self.down = True
            for sock in list(self._open):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._open.clear()

    def restore(self) -> None:
        with self._lock:
            self.down, self.puts_left = False, None

    def fail_after(self, puts: int) -> None:
        with self._lock:
            self.puts_left = puts

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
                if self.down:
                    client.close()
                    continue
                upstream = socket.create_connection(("127.0.0.1", self.upstream))
                self._open |= {client, upstream}
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, from_client: bool) -> None:
        try:
            while data := src.recv(65536):
                if from_client and data.startswith(b"PUT "):
                    with self._lock:
                        if self.puts_left is not None:
                            if self.puts_left == 0:
                                self.down = True
                            self.puts_left -= 1
                    if self.down:
                        self.cut()
                        return
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self._server.close()
        self.cut()


class MotoServer:
    """moto's standalone server in its own process on a loopback port."""

    def __init__(self) -> None:
        self.port = free_port()
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        wait_port(self.port, timeout=30)

    def stop(self) -> None:
        stop_process(self._proc, timeout=10)


class S3Server:
    """A bucket of its own on moto's server, behind a relay of its own; `settings` and `env`
    point the app at it (a prefix of its own, as a shared bucket would have). moto: a server
    shared with other tests (a fresh bucket and relay here is all a test can see of a store);
    without it, one of its own, stopped with this one."""

    def __init__(self, moto: MotoServer | None = None) -> None:
        self._own_moto = moto is None
        self._moto = MotoServer() if moto is None else moto
        port = self._moto.port
        self.relay = Relay(port)
        self.endpoint = f"http://127.0.0.1:{self.relay.port}"
        self.bucket = f"axiya-{uuid.uuid4().hex[:12]}"
        self.url = f"s3://{self.bucket}/axiya"
        self.client = boto3.client(
            "s3",
            endpoint_url=f"http://127.0.0.1:{port}",  # past the relay: always up
            region_name="us-east-1",
            aws_access_key_id=KEYS["AXIYA_S3_ACCESS_KEY_ID"],
            aws_secret_access_key=KEYS["AXIYA_S3_SECRET_ACCESS_KEY"],
        )
        self.client.create_bucket(Bucket=self.bucket)

    @property
    def env(self) -> dict[str, str]:
        """The environment of a process (web, worker) on another host using this store."""
        return {
            "AXIYA_STORAGE_URL": self.url,
            "AXIYA_S3_ENDPOINT_URL": self.endpoint,
            "AXIYA_S3_REGION": "us-east-1",
            "AXIYA_S3_MAX_ATTEMPTS": "3",
            "AXIYA_S3_TIMEOUT_S": "5",
            **KEYS,
        }

    def use(self, settings) -> None:
        """Point this process (a pytest-django `settings` fixture) at the store."""
        for name, value in self.env.items():
            setattr(settings, name, int(value) if name.endswith(("ATTEMPTS", "_S")) else value)

    def objects(self) -> list[str]:
        return sorted(self.iter_keys())

    def iter_keys(self) -> Iterator[str]:
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket)
        for page in pages:
            for item in page.get("Contents", []):
                yield item["Key"]

    def uploads_in_progress(self) -> list[dict]:
        return self.client.list_multipart_uploads(Bucket=self.bucket).get("Uploads", [])

    def clear(self) -> None:
        for key in self.objects():
            self.client.delete_object(Bucket=self.bucket, Key=key)

    def stop(self) -> None:
        self.relay.close()
        if self._own_moto:
            self._moto.stop()
            return
        # On a shared server: give back what the test stored (big-file tests store megabytes).
        with contextlib.suppress(Exception):
            for upload in self.uploads_in_progress():
                self.client.abort_multipart_upload(
                    Bucket=self.bucket, Key=upload["Key"], UploadId=upload["UploadId"]
                )
            self.clear()
            self.client.delete_bucket(Bucket=self.bucket)
