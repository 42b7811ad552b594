"""Issue 20: the web app, a cpu worker and a gpu worker as three separate processes, as on three
hosts: each has its own empty AXIYA_DATA_DIR, and they share only Redis, the database and an
S3-compatible object store (moto's server on loopback, tests/s3.py). A batch converts (ocr
pages on the cpu worker, gemma pages on the gpu worker), every download works through the web
process, and delete and retention leave no object in the store.

The database is a PostgreSQL cluster of the test's own (Debian's postgresql, started on
loopback by the `postgres_url` fixture), as in docker-compose and the README's three-host setup:
the test process reads it with psycopg, never through its own (SQLite) test database.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import psycopg
import pytest
import requests

from axiya.celery import app
from bench.processes import free_port, stop_process, wait_port
from tests.conftest import CORPUS, ROOT, TINY_GEMMA_WORKER
from tests.reliability.pdfs import scanned_pdf

pytestmark = pytest.mark.slow


class Hosts:
    """The three roles, each a process with its own data folder and log."""

    def __init__(self, root: Path, shared: dict[str, str]) -> None:
        self.root = root
        self.shared = shared
        self.procs: dict[str, subprocess.Popen] = {}

    def data_dir(self, role: str) -> Path:
        return self.root / role / "data"

    def run(self, role: str, args: list[str]) -> str:
        """A management command on that host; its output."""
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self._env(role),
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout

    def _env(self, role: str, **env: str) -> dict[str, str]:
        self.data_dir(role).mkdir(parents=True, exist_ok=True)
        full = {k: v for k, v in os.environ.items() if not k.startswith(("AXIYA_", "DJANGO_"))}
        full.update(
            self.shared,
            AXIYA_DATA_DIR=str(self.data_dir(role)),
            DJANGO_SETTINGS_MODULE="axiya.settings",
            OMP_THREAD_LIMIT="1",
            **env,
        )
        return full

    def start(self, role: str, args: list[str], **env: str) -> None:
        full = self._env(role, **env)
        log = open(self.root / role / "log", "w")  # noqa: SIM115 (closed with the process)
        self.procs[role] = subprocess.Popen(
            [sys.executable, "-m", *args], cwd=ROOT, env=full, stdout=log, stderr=subprocess.STDOUT
        )

    def logs(self) -> str:
        return "\n".join(
            f"--- {role}\n" + (self.root / role / "log").read_text()[-3000:] for role in self.procs
        )

    def tasks_run(self, role: str) -> set[str]:
        """The names of the tasks a worker received (its log's "Task ...[id] received")."""
        log = (self.root / role / "log").read_text()
        return set(re.findall(r"Task conversion\.dispatch\.tasks\.(\w+)\[[^\]]+\] received", log))

    def job_files(self) -> list[Path]:
        """Files any host keeps of a job (staged uploads, page images, outputs, scratch)."""
        found = []
        for role in self.procs:
            media = self.data_dir(role) / "media"
            found += [p for p in media.rglob("*") if p.is_file()] if media.exists() else []
        return found

    def stop(self) -> None:
        for proc in self.procs.values():
            stop_process(proc, timeout=20)


def _worker(queue: str) -> list[str]:
    return ["celery", "-A", "axiya", "worker", "-Q", queue, "-c", "1", "--pool", "solo",
            "--without-heartbeat", "--without-gossip", "--without-mingle", "-n",
            f"{queue}@%h", "-l", "info"]  # fmt: skip


@pytest.fixture
def hosts(tmp_path, redis_url, postgres_url, s3_store, gemma_tiny_package, settings):
    settings.AXIYA_INLINE_WORKER = False
    settings.CELERY_BROKER_URL = redis_url
    app.conf.broker_url = redis_url
    app._pool, app.amqp._producer_pool = None, None  # the producer pool of another broker
    shared = {
        "AXIYA_BROKER_URL": redis_url,
        "DATABASE_URL": postgres_url,
        "AXIYA_SECRET_KEY": "three-hosts-test-key-three-hosts-test-key-0123456789",
        "AXIYA_MODEL_DIR": str(gemma_tiny_package),  # the web host offers gemma by its manifest
        "AXIYA_UPLOAD_RATE": "1000/hour",
        "AXIYA_RETENTION_DAYS": "30",
        **s3_store.env,
        **TINY_GEMMA_WORKER,
    }
    made = Hosts(tmp_path, shared)
    made.run("web", ["migrate", "--noinput"])
    port = free_port()
    made.start("web", ["gunicorn", "axiya.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1"])
    made.start("cpu", _worker("cpu"))
    made.start("gpu", _worker("gpu"), AXIYA_WORKER_ENGINE="gemma")
    wait_port(port, timeout=60)
    made.url = f"http://127.0.0.1:{port}"
    yield made
    made.stop()
    app._pool, app.amqp._producer_pool = None, None


def _wait(api: requests.Session, url: str, hosts: Hosts, timeout: float = 300) -> dict:
    deadline = time.time() + timeout
    while time.time() < deadline:
        job = api.get(url, timeout=30).json()
        if job["status"] in ("done", "needs_review", "failed"):
            return job
        time.sleep(0.5)
    raise AssertionError(f"{url} did not finish\n{hosts.logs()}")


def test_web_cpu_and_gpu_hosts_share_only_redis_the_database_and_the_store(
    hosts, s3_store, postgres_url, tmp_path
):
    token = hosts.run("web", ["create_api_token", "hana"]).strip()
    api = requests.Session()
    api.headers["Authorization"] = f"Token {token}"
    base = f"{hosts.url}/api/v1"

    files = [
        (
            "files",
            ("scan.pdf", scanned_pdf(tmp_path / "scan.pdf", 3).read_bytes(), "application/pdf"),
        ),
        ("files", ("linn.pdf", (CORPUS / "linn.pdf").read_bytes(), "application/pdf")),
    ]
    gemma = api.post(f"{base}/batches", files=files, data={"engine": "gemma"}, timeout=120)
    assert gemma.status_code == 202, gemma.text
    ocr = api.post(
        f"{base}/jobs",
        files={"file": ("c02-22.pdf", (CORPUS / "c02-22.pdf").read_bytes())},  # a figure
        data={"engine": "ocr"},
        timeout=120,
    )
    assert ocr.status_code == 202, ocr.text
    ids = [job["id"] for job in gemma.json()["jobs"]] + [ocr.json()["id"]]
    for job_id in ids:
        job = _wait(api, f"{base}/jobs/{job_id}", hosts)
        assert job["status"] in ("done", "needs_review"), (job["error"], hosts.logs())

        html = api.get(f"{base}/jobs/{job_id}/html", timeout=30)
        assert html.status_code == 200 and b"<main" in html.content
        report = api.get(f"{base}/jobs/{job_id}/report", timeout=30)
        assert report.status_code == 200 and report.json()["pages"] >= 1
        archive = zipfile.ZipFile(io.BytesIO(api.get(f"{base}/jobs/{job_id}/zip").content))
        assert any(name.endswith(".html") for name in archive.namelist())

    # Who read what: the gpu worker the gemma pages, the cpu worker the ocr job's.
    ran = {role: hosts.tasks_run(role) for role in ("cpu", "gpu")}
    assert "page_read_batch_task" in ran["gpu"] and "page_read_batch_task" not in ran["cpu"]
    assert {"pages_rasterize_task", "page_read_task", "job_finish_task"} <= ran["cpu"]
    assert "pages_rasterize_task" not in ran["gpu"]
    # The figure the cpu worker cropped from c02-22 went through the store to the zip.
    c02 = ids[-1]
    archive = zipfile.ZipFile(io.BytesIO(api.get(f"{base}/jobs/{c02}/zip").content))
    assert any("_files/figure-" in name for name in archive.namelist()), archive.namelist()

    stored = s3_store.objects()
    for job_id in ids:
        assert f"axiya/jobs/{job_id}/source.pdf" in stored
        assert f"axiya/jobs/{job_id}/out/document.html" in stored
    assert hosts.job_files() == []  # no host kept a file of any job

    # Delete (through the web host) and retention (the cpu worker's hourly task).
    assert api.delete(f"{base}/jobs/{ids[0]}", timeout=30).status_code == 204
    assert not [key for key in s3_store.objects() if ids[0] in key]
    with psycopg.connect(postgres_url, autocommit=True) as db:
        db.execute("UPDATE conversion_job SET created_at = created_at - interval '31 days'")
        app.send_task("conversion.dispatch.tasks.purge_expired_task", queue="cpu")
        deadline = time.time() + 60
        while db.execute("SELECT count(*) FROM conversion_job").fetchone()[0] or (
            s3_store.objects()
        ):
            assert time.time() < deadline, (s3_store.objects(), hosts.logs())
            time.sleep(0.5)
    assert not s3_store.uploads_in_progress()
