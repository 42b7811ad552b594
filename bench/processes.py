"""Local ports and child processes, for the benches and the tests that start real servers."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psutil


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, timeout: float = 30) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port}")


def stop_process(proc: subprocess.Popen, *, timeout: float) -> None:
    """SIGTERM, then SIGKILL if it is still running after `timeout` seconds."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def multipart_body(name: str, data: bytes) -> tuple[bytes, str]:
    """A multipart/form-data body with one PDF as `file`, and its content type."""
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: application/pdf\r\n\r\n"
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return body, f"multipart/form-data; boundary={boundary}"


def rss_mb(proc: psutil.Process) -> float:
    """Resident memory of a process and its children, in MiB (nan once it is gone)."""
    try:
        procs = [proc, *proc.children(recursive=True)]
        return sum(p.memory_info().rss for p in procs if p.is_running()) / 2**20
    except psutil.Error:
        return float("nan")


def postgres_bin() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return found[-1].parent if found else None


@contextlib.contextmanager
def postgres_cluster() -> Iterator[str]:
    """A PostgreSQL cluster of its own (Debian's postgresql package) on a loopback port, removed
    afterwards; as root it runs as the postgres user. Yields its DATABASE_URL."""
    bindir = postgres_bin()
    if bindir is None:
        raise RuntimeError(
            "PostgreSQL is not installed: apt-get install postgresql (bin/setup dev)"
        )
    root = Path(tempfile.mkdtemp(prefix="axiya-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root
        os.chown(root, pwd.getpwnam("postgres").pw_uid, -1)
        as_user = ["runuser", "-u", "postgres", "--"]
    port = free_port()
    subprocess.run(
        [*as_user, str(bindir / "initdb"), "-D", str(root / "data"), "-A", "trust", "-U", "axiya",
         "-E", "UTF8", "--no-sync"],
        check=True, capture_output=True,
    )  # fmt: skip
    ctl = [*as_user, str(bindir / "pg_ctl"), "-D", str(root / "data"), "-w"]
    subprocess.run(
        [*ctl, "-l", str(root / "log"), "-o",
         f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off", "start"],
        check=True, capture_output=True,
    )  # fmt: skip
    try:
        subprocess.run(
            [str(bindir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "axiya", "axiya"],
            check=True,
            capture_output=True,
        )
        yield f"postgres://axiya@127.0.0.1:{port}/axiya"
    finally:
        subprocess.run([*ctl, "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(root, ignore_errors=True)
