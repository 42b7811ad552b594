"""The single-machine runner (no broker): one thread of the web process converts the jobs queued
in it, one job at a time, taking turns between owners, and picks up unfinished jobs when the
server starts (issue 17: jobs queued before a restart stayed "Queued" for up to an hour, and
one user's 100 jobs held up another user's one).

- Fair: each owner's jobs wait in their own line; the runner takes the next job from the next
  owner in turn (round-robin), oldest first within an owner.
- Recovery at start: the web server calls start() as it starts (axiya/wsgi.py). The first
  process of the server to take the data folder's recovery lock queues every unfinished job
  (queued or running: the server that ran it is gone). The lock is held for the life of that
  process, so other processes of the same server (gunicorn workers) do not queue them twice;
  a job's steps are idempotent, so a job queued twice still counts every page once.
"""

from __future__ import annotations

import fcntl
import logging
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import IO

from django.conf import settings
from django.db import close_old_connections

from conversion import selectors

log = logging.getLogger(__name__)
IDLE_WAIT_S = 5.0


class FairQueue:
    """Job ids in one line per owner, served round-robin by owner."""

    def __init__(self) -> None:
        self._lines: dict[object, deque] = {}
        self._turns: deque = deque()
        self._queued: set = set()
        self._cond = threading.Condition()

    def put(self, job_id, owner) -> None:
        with self._cond:
            if job_id in self._queued:
                return
            self._queued.add(job_id)
            line = self._lines.setdefault(owner, deque())
            if not line:
                self._turns.append(owner)
            line.append(job_id)
            self._cond.notify()

    def get(self, timeout: float):
        """The next job id, or None after `timeout` seconds with nothing queued."""
        with self._cond:
            if not self._turns and not self._cond.wait_for(lambda: self._turns, timeout):
                return None
            owner = self._turns.popleft()
            job_id = self._lines[owner].popleft()
            if self._lines[owner]:
                self._turns.append(owner)  # the owner's next job waits for everyone's turn
            else:
                del self._lines[owner]
            self._queued.discard(job_id)
            return job_id


class InlineRunner:
    def __init__(self, run_job: Callable[[object], None]) -> None:
        self.queue = FairQueue()
        self._run_job = run_job
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._recovery_lock: IO | None = None

    def submit(self, job_id) -> None:
        owner = selectors.job_owner_id(job_id=job_id)
        self.queue.put(job_id, owner)
        self._ensure_thread()

    def recover_at_start(self) -> list:
        """Queue every unfinished job, once per server (see the module docstring). Returns the
        job ids queued."""
        if not self._take_recovery_lock():
            return []
        unfinished = selectors.jobs_unfinished()
        for job_id, owner in unfinished:
            self.queue.put(job_id, owner)
        if unfinished:
            log.info("inline runner: %d unfinished job(s) queued again", len(unfinished))
            self._ensure_thread()
        return [job_id for job_id, _ in unfinished]

    def _take_recovery_lock(self) -> bool:
        path = Path(settings.DATA_DIR) / "inline-recovery.lock"
        handle = path.open("a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # another process of this server recovered them
            handle.close()
            return False
        self._recovery_lock = handle  # held until this process exits
        return True

    def _ensure_thread(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._loop, name="axiya-inline-runner", daemon=True
                )
                self._thread.start()

    def _loop(self) -> None:
        while True:
            job_id = self.queue.get(IDLE_WAIT_S)
            if job_id is None:
                continue
            close_old_connections()
            try:
                self._run_job(job_id)
            except Exception:  # the runner must survive whatever one job does
                log.exception("inline runner: job %s", job_id)
            finally:
                close_old_connections()
