"""A task for the real worker of tests/reliability/test_frozen_workers.py (started with
`-I tests.reliability.worker_probe`): what froze the pool processes of issue 29, loading the
layout model and then a full collection."""

from __future__ import annotations

import gc
import json
import os
import time
from pathlib import Path

from celery import shared_task

from models.layout import load_model


@shared_task(name="tests.layout_then_collect")
def layout_then_collect(out: str) -> None:
    """Writes what it saw to `out` (JSON): there is no result backend."""
    started = time.perf_counter()
    load_model()
    gc.collect()
    seen = {
        "pid": os.getpid(),
        "cmdline": Path("/proc/self/cmdline").read_bytes().replace(b"\0", b" ").decode(),
        "s": time.perf_counter() - started,
    }
    Path(out).write_text(json.dumps(seen))
