"""Issue 29, frozen pool processes: importing the tasks loads pymupdf.layout, whose ONNX sessions
start threads; a pool process forked from that process hung forever in the sessions' destructor
at its next full garbage collection, holding the GIL (three times in 50 minutes of production).

- the reproduction: fork a process that imported the tasks, load the layout model and collect;
- a real prefork worker's pool processes start as fresh interpreters, and do the same;
- a pool process that freezes (SIGSTOP: its heartbeat thread stops, as with a held GIL) is
  killed by the worker's main process and replaced; its job ends in under 2 minutes with the
  HTML of a clean run;
- every task has soft and hard time limits, and recovery runs on its own queue.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from django.conf import settings as dj_settings
from django.contrib.auth import get_user_model
from django.core.cache import cache

from axiya.celery import app
from conversion import dispatch
from conversion.models import Job, JobStatus, Page, PageStatus
from conversion.runner import heartbeat
from conversion.runner import jobs as runner
from tests import local_store
from tests.conftest import ROOT
from tests.reliability.conftest import (
    SLOW_READS,
    finished,
    recover_until,
    redis_cache,
    wait_for,
)

# The reproduction hung in futex_do_wait; without the fork it returns in about 0.2 s.
FORKED_LOAD_LIMIT_S = 20
# Issue 29: a frozen job recovers in under 2 minutes.
FROZEN_JOB_LIMIT_S = 120


def test_a_fork_of_a_process_that_imported_the_tasks_loads_the_layout_model(tmp_path):
    script = textwrap.dedent(
        """
        import gc, os, sys, django
        os.environ["DJANGO_SETTINGS_MODULE"] = "axiya.settings"
        django.setup()
        import conversion.dispatch.tasks  # noqa: F401  (what the worker's main process imports)
        from models.layout import load_model, process_threads
        print("parent threads", process_threads(), flush=True)
        pid = os.fork()
        if pid == 0:
            load_model()
            gc.collect()
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        sys.exit(os.waitstatus_to_exitcode(status))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
        timeout=FORKED_LOAD_LIMIT_S + 30,
        env={**os.environ, "AXIYA_DATA_DIR": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.slow
def test_pool_processes_start_fresh_and_collect_after_loading_the_layout(
    workers_on, redis_url, tmp_path
):
    workers = workers_on(redis_url)
    workers.start(pool="prefork", queues="cpu", args=("-I", "tests.reliability.worker_probe"))
    out = tmp_path / "probe.json"
    app.send_task("tests.layout_then_collect", args=[str(out)], queue="cpu")
    # Starting the worker and its pool process (a fresh interpreter) takes a few seconds more.
    wait_for(out.exists, timeout=FORKED_LOAD_LIMIT_S + 40, what="the probe task", workers=workers)
    seen = json.loads(out.read_text())
    assert seen["s"] < FORKED_LOAD_LIMIT_S
    # A pool process is a new interpreter (multiprocessing's spawn), not a copy of the worker.
    assert "spawn_main" in seen["cmdline"] or "multiprocessing-fork" in seen["cmdline"], seen


@pytest.mark.slow
def test_a_frozen_pool_process_is_replaced_and_its_job_ends(
    workers_on, redis_url, transactional_db, settings, clean_html, six_page_scan
):
    settings.CACHES = redis_cache(redis_url)  # heartbeats, as with a Redis broker
    user = get_user_model().objects.create_user("alice", password="pw-alice-123")
    workers = workers_on(redis_url)
    worker = workers.start(
        pool="prefork", queues="cpu", fault=SLOW_READS, AXIYA_BROKER_VISIBILITY_TIMEOUT_S="900"
    )
    job = dispatch.submit(runner.job_create(owner=user, upload=six_page_scan))
    page = wait_for(
        lambda: Page.objects.filter(job=job, status=PageStatus.RUNNING)
        .exclude(claimed_by="")
        .first(),
        timeout=240, what="a page being read", workers=workers,
    )  # fmt: skip
    frozen_pid = int(page.claimed_by.rsplit(":", 1)[1])
    os.kill(frozen_pid, signal.SIGSTOP)  # frozen: alive, holding its task, beating no more
    frozen_at = time.time()
    recover_until(lambda: finished(job.id), recover=dispatch.recover,  # beat's, every 20 s
                  since=frozen_at, limit_s=FROZEN_JOB_LIMIT_S + 30)  # fmt: skip
    job = Job.objects.get(pk=job.id)
    took = time.time() - frozen_at
    assert job.is_finished and took < FROZEN_JOB_LIMIT_S, workers.log_text()
    assert job.status in (JobStatus.DONE, JobStatus.NEEDS_REVIEW), job.error_message
    assert job.pages_done == job.pages_total == 6
    with pytest.raises(ProcessLookupError):
        os.kill(frozen_pid, 0)  # killed and reaped by the worker
    assert worker.poll() is None  # the worker itself lives on, with a new pool process
    assert local_store.html_path(job.id).read_text() == clean_html(six_page_scan)


def test_a_cache_that_lost_its_keys_freezes_nobody(redis_url, settings):
    """Redis restarted empty: every heartbeat key is gone at once, but each process beats again
    within BEAT_S; only a process whose own beats stopped is frozen."""
    settings.CACHES = redis_cache(redis_url)
    watch = heartbeat.PoolWatch(frozen_after_s=30)
    pids = [os.getpid()]
    heartbeat.beat()
    start = time.time()
    assert watch.frozen(pids, now=start) == []
    cache.clear()  # the restart
    assert watch.frozen(pids, now=start + 10) == []
    heartbeat.beat()  # the process beats again
    assert watch.frozen(pids, now=time.time() + 29) == []
    assert watch.frozen(pids, now=time.time() + 31) == [os.getpid()]  # no beat since: frozen
    assert watch.frozen([], now=time.time() + 60) == []  # a process that ended is forgotten


def test_every_task_has_time_limits_and_housekeeping_its_own_queue():
    ours = {name: task for name, task in app.tasks.items() if name.startswith("conversion.")}
    assert len(ours) >= 8
    for name, task in ours.items():
        assert task.soft_time_limit and task.time_limit, name
        assert task.soft_time_limit < task.time_limit, name
    router = app.amqp.router
    for name in ("jobs_recover_task", "purge_expired_task"):
        route = router.route({}, f"conversion.dispatch.tasks.{name}")
        assert route["queue"].name == dj_settings.HOUSEKEEPING_QUEUE, name
    for entry in app.conf.beat_schedule.values():
        assert entry["options"]["queue"] == dj_settings.HOUSEKEEPING_QUEUE
