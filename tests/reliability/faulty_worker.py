"""A real `celery worker` whose engine misbehaves on purpose (AXIYA_TEST_FAULT), for the crash
tests: `crash` kills the process reading a page, `slow` (default none) reads slowly.

    python -m tests.reliability.faulty_worker worker -Q cpu,gpu ...
"""

from __future__ import annotations

import os
import signal
import sys
import time

import django
from celery.signals import worker_process_init


class CrashingEngine:
    name = "ocr"

    def predict_batch(self, pages):
        os.kill(os.getpid(), signal.SIGKILL)  # what a segfault or the OOM killer looks like

    def describe(self) -> dict:
        return {"name": "crashing"}


def apply_fault() -> None:
    """Make this process' engine misbehave as AXIYA_TEST_FAULT says."""
    from conversion import engines

    fault = os.environ.get("AXIYA_TEST_FAULT", "")
    if fault == "crash":
        engines.build = lambda name: CrashingEngine()
    elif fault.startswith("slow"):
        build, delay = engines.build, float(fault.split(":")[1])

        def slow(name):
            engine = build(name)
            predict = engine.predict_batch

            def predict_slowly(pages):
                time.sleep(delay)
                return predict(pages)

            engine.predict_batch = predict_slowly
            return engine

        engines.build = slow


# Pool processes start as fresh interpreters (spawn), which import this module again as
# __mp_main__ without running main(): they take the fault when the pool starts them.
worker_process_init.connect(lambda **_: apply_fault(), weak=False)


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
    django.setup()
    apply_fault()
    from axiya.celery import app

    app.worker_main(sys.argv[1:])


if __name__ == "__main__":
    main()
