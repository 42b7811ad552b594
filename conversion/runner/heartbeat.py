"""Worker liveness: each Celery worker process says it is alive in the shared cache (Redis)
every BEAT_S seconds, and every page it reads records which process holds it (Page.claimed_by).
A page held by a process that stopped saying so belongs to a dead worker, and the recovery task
queues it again at once (issue 17: a killed worker's page waited 15 minutes for the broker's
visibility timeout or the stalled-work sweep).

A pool process can also freeze without dying (issue 29: a native call that blocks holding the
GIL, a deadlock): its heartbeat thread stops with it. The worker's main process watches the
heartbeats of its own pool processes and kills one that stopped beating for FROZEN_AFTER_S; the
pool starts a new one and the broker delivers its task again (reject_on_worker_lost)."""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Callable

from celery.concurrency.prefork import TaskPool as PreforkPool
from celery.signals import worker_process_init, worker_ready
from django.core.cache import cache

log = logging.getLogger(__name__)
BEAT_S = 5.0
ALIVE_FOR_S = 30  # three missed beats and more: the process is gone
# A pool process whose last beat is this old is frozen (seconds; six missed beats). Its main
# thread may hold the GIL in a long native call for a while, never for this long.
FROZEN_AFTER_S = 30.0
_started: set[int] = set()


def worker_id(pid: int | None = None) -> str:
    """A process, as claims name it (host and pid: a pool process has its own)."""
    return f"{socket.gethostname()}:{pid or os.getpid()}"


def _key(worker: str) -> str:
    return f"axiya:worker-alive:{worker}"


def is_alive(worker: str) -> bool:
    return cache.get(_key(worker)) is not None


def last_beat(worker: str) -> float | None:
    """When the process last beat (time.time() of this host), or None: none in ALIVE_FOR_S."""
    value = cache.get(_key(worker))
    return float(value) if isinstance(value, int | float) and value > 1 else None


def beat() -> None:
    cache.set(_key(worker_id()), time.time(), ALIVE_FOR_S)


def _every(seconds: float, name: str, step: Callable[[], None]) -> None:
    """Run `step` now and then every `seconds` from a daemon thread, for the process' life."""

    def loop() -> None:
        while True:
            try:
                step()
            except Exception:  # the cache's Redis is down: try again at the next round
                log.warning("%s failed", name, exc_info=True)
            threading.Event().wait(seconds)

    threading.Thread(target=loop, name=name, daemon=True).start()


def start() -> None:
    """Beat from a daemon thread of this process, from now until it exits."""
    if os.getpid() in _started:
        return
    _started.add(os.getpid())
    beat()
    _every(BEAT_S, "axiya-heartbeat", beat)


class PoolWatch:
    """The last beat seen of each pool process, and which of them froze.

    Judged on the beat times the processes wrote, remembered here: a cache that lost its keys
    (Redis restarted empty) makes no process look frozen, since each beats again within BEAT_S."""

    def __init__(self, *, frozen_after_s: float = FROZEN_AFTER_S) -> None:
        self.frozen_after_s = frozen_after_s
        self.seen: dict[int, float] = {}

    def frozen(self, pids: list[int], *, now: float | None = None) -> list[int]:
        now = time.time() if now is None else now
        self.seen = {pid: t for pid, t in self.seen.items() if pid in pids}
        for pid in pids:
            beat_at = last_beat(worker_id(pid))
            if beat_at is not None:
                self.seen[pid] = max(beat_at, self.seen.get(pid, 0.0))
        # A process that never beat is still starting: billiard's proc_alive_timeout covers it.
        return [pid for pid, t in self.seen.items() if now - t > self.frozen_after_s]


def watch_pool(pool_pids: Callable[[], list[int]]) -> None:
    """From a daemon thread of the worker's main process: kill pool processes that froze."""
    watch = PoolWatch()

    def step() -> None:
        for pid in watch.frozen(pool_pids()):
            last = watch.seen.pop(pid)  # forgotten: killed once, not at every round after
            log.error("pool process %s stopped beating %.0f s ago: frozen, replacing it",
                      pid, time.time() - last)  # fmt: skip
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass  # it ended meanwhile

    _every(BEAT_S, "axiya-pool-watch", step)


@worker_process_init.connect
def _pool_process_started(**_: object) -> None:
    start()  # a prefork pool process: it runs the tasks


@worker_ready.connect
def _worker_started(sender=None, **_: object) -> None:
    pool = getattr(sender, "pool", None)
    if isinstance(pool, PreforkPool):
        watch_pool(lambda: [p.pid for p in pool._pool._pool if p.pid])
    else:
        start()  # the solo and threads pools run tasks in the worker process itself
