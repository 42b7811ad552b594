"""A real `celery worker` whose engine misbehaves on purpose (AXIYA_TEST_FAULT), for the crash
tests, a comma-separated list: `crash` kills the process reading a page, `slow:S` waits S
seconds before each read, `slow-raster:S` before each page's rasterization (default none).

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


def _delayed(call, delay_s: float):
    def slowly(*args, **kwargs):
        time.sleep(delay_s)
        return call(*args, **kwargs)

    return slowly


def apply_fault() -> None:
    """Make this process' engine misbehave as AXIYA_TEST_FAULT says."""
    from conversion import engines
    from conversion.pipeline import flow

    for fault in filter(None, os.environ.get("AXIYA_TEST_FAULT", "").split(",")):
        name, _, arg = fault.partition(":")
        if name == "crash":
            engines.build = lambda name: CrashingEngine()
        elif name == "slow":
            build = engines.build

            def slow(name, build=build, delay_s=float(arg)):
                engine = build(name)
                engine.predict_batch = _delayed(engine.predict_batch, delay_s)
                return engine

            engines.build = slow
        elif name == "slow-raster":  # conversion.runner.jobs calls flow.rasterize
            flow.rasterize = _delayed(flow.rasterize, float(arg))
        else:
            raise ValueError(f"unknown AXIYA_TEST_FAULT {fault!r}")


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
