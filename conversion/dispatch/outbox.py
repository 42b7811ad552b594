"""The outbox: a job the broker could not take (Redis down during an upload) is written to the
database, and a thread of this process sends it again every RETRY_S seconds until the broker
takes it (issue 17: uploads accepted while Redis was down waited 15 minutes for the recovery
sweep). The web server starts the thread at start-up when messages are waiting (a process killed
with its outbox full), and the periodic recovery task sends whatever is left."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from django.db import close_old_connections

from conversion import selectors, services

log = logging.getLogger(__name__)
RETRY_S = 3.0


class Outbox:
    def __init__(self, send_job: Callable[[object], None]) -> None:
        self._send_job = send_job
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def add(self, job_id) -> None:
        services.outbox_add(job_id=job_id)
        self.ensure_flushing()

    def ensure_flushing(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="axiya-outbox", daemon=True)
                self._thread.start()

    def flush(self) -> int:
        """Send what is waiting, oldest first, until the broker refuses. Returns how many
        messages are still waiting."""
        waiting = selectors.outbox_messages()
        for position, (message_id, job_id) in enumerate(waiting):
            try:
                self._send_job(job_id)
            except Exception:  # the broker is still down: try again later
                services.outbox_failed(message_id=message_id)
                return len(waiting) - position
            services.outbox_sent(message_id=message_id)
            log.info("outbox: job %s queued", job_id)
        return 0

    def _loop(self) -> None:
        while not self._stop.wait(RETRY_S):
            close_old_connections()
            try:
                if self.flush() == 0 and not selectors.outbox_messages(limit=1):
                    return  # empty: the next failure starts a new thread
            except Exception:  # the thread must survive a database hiccup
                log.exception("outbox flush failed")
            finally:
                close_old_connections()
