"""Worker liveness: each Celery worker process says it is alive in the shared cache (Redis)
every BEAT_S seconds, and every page it reads records which process holds it (Page.claimed_by).
A page held by a process that stopped saying so belongs to a dead worker, and the minute's
recovery task queues it again at once (issue 17: a killed worker's page waited 15 minutes for
the broker's visibility timeout or the stalled-work sweep)."""

from __future__ import annotations

import logging
import os
import socket
import threading

from celery.signals import worker_process_init, worker_ready
from django.core.cache import cache

log = logging.getLogger(__name__)
BEAT_S = 5.0
ALIVE_FOR_S = 30  # three missed beats and more: the process is gone
_started: set[int] = set()


def worker_id() -> str:
    """This process, as claims name it (host and pid: a pool process has its own)."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _key(worker: str) -> str:
    return f"axiya:worker-alive:{worker}"


def is_alive(worker: str) -> bool:
    return cache.get(_key(worker)) is not None


def beat() -> None:
    cache.set(_key(worker_id()), 1, ALIVE_FOR_S)


def start() -> None:
    """Beat from a daemon thread of this process, from now until it exits."""
    if os.getpid() in _started:
        return
    _started.add(os.getpid())
    beat()

    def loop() -> None:
        while True:
            try:
                beat()
            except Exception:  # the broker's Redis is down: beat again when it is back
                log.warning("heartbeat failed", exc_info=True)
            threading.Event().wait(BEAT_S)

    threading.Thread(target=loop, name="axiya-heartbeat", daemon=True).start()


@worker_process_init.connect
def _pool_process_started(**_: object) -> None:
    start()  # a prefork pool process: it runs the tasks


@worker_ready.connect
def _worker_started(**_: object) -> None:
    start()  # the solo and threads pools run tasks in the worker process itself
