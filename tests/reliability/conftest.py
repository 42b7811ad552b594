"""Processes the crash tests break on purpose: a restartable redis-server with persistence and
real Celery workers that can be SIGKILLed and started again."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings as dj_settings

from bench.processes import free_port, stop_process
from conversion.models import Job
from conversion.runner import jobs as runner
from tests import local_store
from tests.conftest import ROOT
from tests.reliability.pdfs import scanned_pdf


def _wait_port(port: int, *, up: bool, timeout: float = 15) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            if up:
                return
        except OSError:
            if not up:
                return
        time.sleep(0.05)
    raise AssertionError(f"redis on {port} did not come {'up' if up else 'down'}")


class Redis:
    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self, *, persistent: bool = True) -> None:
        """persistent: every write in the append-only file before it is answered (appendfsync
        always), so a SIGKILL loses nothing; else a restart comes back empty."""
        aof = ["--appendonly", "yes", "--appendfsync", "always"] if persistent else [
            "--appendonly", "no"]  # fmt: skip
        self.proc = subprocess.Popen(
            [shutil.which("redis-server"), "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", *aof, "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        _wait_port(self.port, up=True)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=20)
        _wait_port(self.port, up=False)


@pytest.fixture
def persistent_redis(tmp_path_factory):
    redis = Redis(tmp_path_factory.mktemp("redis-aof"))
    redis.start()
    yield redis
    redis.stop(signal.SIGKILL)


@pytest.fixture
def volatile_redis(tmp_path_factory):
    """No persistence: a restart comes back empty, its queued messages gone."""
    redis = Redis(tmp_path_factory.mktemp("redis-volatile"))
    redis.start(persistent=False)
    yield redis
    redis.stop(signal.SIGKILL)


def redis_cache(url: str) -> dict:
    """CACHES on this Redis, as the settings make it when the broker is Redis (heartbeats)."""
    return {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                        "LOCATION": url, "KEY_PREFIX": "axiya-cache"}}  # fmt: skip


class Workers:
    """Start real `celery worker` processes on the test database; kill them; start more."""

    def __init__(self, broker_url: str, data_dir: Path, db_name: str) -> None:
        self.broker_url = broker_url
        self.data_dir = data_dir
        self.db_name = db_name
        self.procs: list[subprocess.Popen] = []
        self.logs = []

    def start(
        self,
        *,
        fault: str = "",
        pool: str = "solo",
        queues: str = "cpu,gpu",
        args: tuple[str, ...] = (),
        **env: str,
    ) -> subprocess.Popen:
        full = dict(os.environ)
        full.update(
            AXIYA_BROKER_URL=self.broker_url,
            DATABASE_URL=f"sqlite:///{self.db_name}",
            AXIYA_DATA_DIR=str(self.data_dir),
            DJANGO_SETTINGS_MODULE="axiya.settings",
            OMP_THREAD_LIMIT="1",
            AXIYA_TEST_FAULT=fault,
            **env,
        )
        n = len(self.procs)
        log = open(self.data_dir / f"worker-{n}.log", "w")  # noqa: SIM115
        self.logs.append(log)
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.reliability.faulty_worker", "worker", "-Q", queues,
             "-c", "1", "--pool", pool, "--without-heartbeat", "--without-gossip",
             "--without-mingle", "-n", f"w{n}@%h", "-l", "info", *args],
            cwd=ROOT, env=full, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        self.procs.append(proc)
        return proc

    def log_text(self) -> str:
        return "\n".join(
            (self.data_dir / f"worker-{i}.log").read_text()[-3000:] for i in range(len(self.procs))
        )

    def stop_all(self) -> None:
        for proc in self.procs:
            stop_process(proc, timeout=15)
        for log in self.logs:
            log.close()


@pytest.fixture
def workers_on(transactional_db, settings):
    """workers_on(broker_url) -> Workers; the test process queues to the same broker."""
    from django.conf import settings as dj_settings

    from axiya.celery import app

    made: list[Workers] = []

    def make(broker_url: str) -> Workers:
        settings.AXIYA_INLINE_WORKER = False
        settings.CELERY_BROKER_URL = broker_url
        app.conf.broker_url = broker_url
        _reset_pools(app)  # the producer pool was built for another broker
        workers = Workers(
            broker_url,
            Path(dj_settings.DATA_DIR),
            dj_settings.DATABASES["default"]["NAME"],
        )
        made.append(workers)
        return workers

    yield make
    for workers in made:
        workers.stop_all()
    _reset_pools(app)


def _reset_pools(app) -> None:
    app._pool = None
    app.amqp._producer_pool = None


def wait_for(predicate, *, timeout: float, what: str, workers: Workers | None = None):
    """predicate()'s first true value within `timeout` seconds, or fail with the workers' logs."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}\n{workers.log_text() if workers else ''}")


def recover_until(
    done, *, recover, since: float, limit_s: float, recover_every_s: float = 5, poll_s: float = 0.5
) -> None:
    """Call recover() (what beat runs every 20 s) every `recover_every_s` seconds from `since`
    until done() or `limit_s` seconds have passed; done() is checked every `poll_s` seconds, so
    the test sees the end when it comes, not up to a recovery interval later."""
    next_recover = time.time()
    while not done() and time.time() - since < limit_s:
        if time.time() >= next_recover:
            recover()
            next_recover = time.time() + recover_every_s
        time.sleep(poll_s)


@pytest.fixture(scope="session")
def clean_html(django_db_blocker):
    """clean_html(pdf) -> the HTML of a clean run of that PDF, converted once a session (inline,
    no worker: tests/system/test_one_flow shows that every path writes the same bytes); the
    crash tests compare what their broken runs wrote with it."""
    made: dict[Path, str] = {}

    def html(pdf: Path) -> str:
        if pdf not in made:
            with django_db_blocker.unblock():
                job = runner.job_create(owner=None, upload=pdf)
                runner.job_run_inline(job_id=job.id)
                made[pdf] = local_store.html_path(job.id).read_text()
                Job.objects.filter(pk=job.id).delete()  # the tests count their own jobs
        return made[pdf]

    return html


# The fault that makes a worker's engine wait before each read (tests.reliability.faulty_worker):
# a page is still being read when a test breaks the process, though the pages read quickly.
SLOW_READS = "slow:2"
# ... and before each page's rasterization: Redis can be stopped while a short scan's pages are
# rasterized.
SLOW_RASTER = "slow-raster:1"


@pytest.fixture(scope="session")
def six_page_scan(tmp_path_factory) -> Path:
    """A scanned document of six short printed pages, each read in well under a second: the
    crash tests need pages that are being read when they break a process, and hold a page
    longer with a slow engine (SLOW_READS) than with costly pages."""
    return scanned_pdf(tmp_path_factory.mktemp("scans") / "six-pages.pdf", 6)


def finished(job_id) -> Job | None:
    job = Job.objects.get(pk=job_id)
    return job if job.is_finished else None


def web_env(**extra: str) -> dict[str, str]:
    """The environment of a web server started by a test: no broker, the test's database and
    data folder, no housekeeping on requests."""
    env = dict(os.environ)
    env.pop("AXIYA_BROKER_URL", None)
    env.update(
        DJANGO_SETTINGS_MODULE="axiya.settings",
        DATABASE_URL=f"sqlite:///{dj_settings.DATABASES['default']['NAME']}",
        AXIYA_DATA_DIR=str(dj_settings.DATA_DIR),
        AXIYA_INLINE_HOUSEKEEPING="false",
        OMP_THREAD_LIMIT="1",
        **extra,
    )
    return env
