"""Isolation: what one isolated MuPDF call costs, side by side in one run.

Three ways to start the child for the same call (validate_pdf on a one-page PDF, then a page
render): run_isolated (a fork of the preloaded single-threaded fork server, what the service
uses), a bare os.fork() of this process (the old way: cheap, but it can copy a lock another
thread holds: issue 17) and a multiprocessing spawn (a fresh interpreter that imports PyMuPDF
each time). Prints the median and p90 milliseconds per call and writes JSON.

    python -m bench.isolation --calls 30      # writes bench/results/isolation-<date>.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import multiprocessing
import os
import pickle
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.report import dated, write_result
from conversion.pipeline.isolate import run_isolated
from conversion.pipeline.rasterize import RasterOptions, render_page_file
from conversion.pipeline.validate import Limits, validate_pdf

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "resources" / "corpus" / "linn.pdf"


def _bare_fork(fn: Callable, *args) -> object:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        with os.fdopen(write_fd, "wb") as fh:
            fh.write(pickle.dumps(fn(*args)))
        os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    return pickle.loads(data)


def _spawn_target(conn, fn: Callable, args: tuple) -> None:
    conn.send(fn(*args))


def _spawn(fn: Callable, *args) -> object:
    context = multiprocessing.get_context("spawn")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_spawn_target, args=(send, fn, args))
    child.start()
    send.close()
    result = receive.recv()
    child.join()
    return result


def _forkserver(fn: Callable, *args) -> object:
    return run_isolated(fn, *args, timeout_s=60, memory_mb=4096)


def _time(start: Callable, fn: Callable, args: tuple, calls: int) -> dict:
    start(fn, *args)  # not counted: starts the fork server, warms the file cache
    ms = []
    for _ in range(calls):
        t0 = time.perf_counter()
        start(fn, *args)
        ms.append((time.perf_counter() - t0) * 1000)
    ms.sort()
    p90 = ms[int(0.9 * len(ms))]
    return {"median_ms": round(statistics.median(ms), 1), "p90_ms": round(p90, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = {
            "validate": (validate_pdf, (SAMPLE, Limits())),
            "render_page": (render_page_file, (SAMPLE, 0, RasterOptions(), Path(tmp) / "p.png")),
        }
        starts = {"forkserver (run_isolated)": _forkserver, "bare fork": _bare_fork,
                  "spawn": _spawn}  # fmt: skip
        rows = {
            (call, how): _time(start, fn, fn_args, args.calls)
            for call, (fn, fn_args) in work.items()
            for how, start in starts.items()
        }
    print(f"{'call':<12} {'start':<28} {'median ms':>10} {'p90 ms':>8}")
    for (call, how), row in rows.items():
        print(f"{call:<12} {how:<28} {row['median_ms']:>10} {row['p90_ms']:>8}")
    result = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "command": f"python -m bench.isolation --calls {args.calls}",
        "sample": SAMPLE.name,
        "cpus": os.cpu_count(),
        "rows": [{"call": c, "start": h, **row} for (c, h), row in rows.items()],
    }
    write_result(dated("isolation"), result, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
