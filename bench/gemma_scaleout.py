"""Scale-out: one many-page job through the real service on 1, then 2 (...) GPU workers.

Starts its own stack in a temporary data folder: a broker (redis-server, or kombu's filesystem
transport with `--broker filesystem` where Redis will not run), `manage.py migrate` (SQLite), one
cpu worker (prefork, `--cpu-workers` processes: rasterization in chunks, assembly) and K GPU
workers exactly as the README runs them (`CUDA_VISIBLE_DEVICES=i`, `AXIYA_WORKER_ENGINE=gemma`,
prefork -c 1, prefetch 1, queue gpu). It waits until every GPU worker has loaded and warmed its
engine, then submits ONE job of `--pages` scanned pages (engine gemma; each page an image sized
for exactly `--soft-tokens` image tokens) and times it from submission until the job is done:
rasterization, batched reading across the workers, assembly, checks and outputs. Workers are
stopped and started again for the next K; the same broker and database serve every run.

    python -m bench.gemma_scaleout --package /tmp/e2b --pages 1024 --workers 1,2 \
        --batch 256 --new-tokens 768 [--redis-server PATH] [--broker filesystem]

Writes bench/results/gemma-scaleout-<date>-<gpu>.json: pages/s per worker count, each worker's
batches (pages, seconds, from its log) and the speed-up of each count over one worker (target
>= 1.8x for two). `--pages 1024,2048` runs one
job of each size on the same started workers (in that order for every worker count), so the
workers load once per count. Random weights never stop, so every page generates
`--new-tokens` tokens (AXIYA_GEMMA_MAX_NEW_TOKENS).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.gemma_throughput import gpu_name, page_size, synthetic_pages
from bench.processes import free_port, stop_process, wait_port

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
READ_LINE = re.compile(r"read (\d+) pages in ([\d.]+) s")  # conversion.runner.batch's log line
RASTER_DPI = 240  # the rasterizer keeps a scan's own resolution up to 240 DPI: no resize


def make_job_pdf(path: Path, pages: int, soft_tokens: int) -> Path:
    """A scanned document: every page one image (8 distinct ones, shared by reference)."""
    import io

    import pymupdf

    w, h = page_size(soft_tokens)
    images = []
    for img in synthetic_pages(8, w, h):
        buf = io.BytesIO()
        img.convert("L").save(buf, format="PNG")
        images.append(buf.getvalue())
    doc = pymupdf.open()
    rect = pymupdf.Rect(0, 0, w * 72 / RASTER_DPI, h * 72 / RASTER_DPI)
    xrefs: list[int] = []
    for n in range(pages):
        page = doc.new_page(width=rect.width, height=rect.height)
        k = n % len(images)
        if k < len(xrefs):
            page.insert_image(rect, xref=xrefs[k])
        else:
            xrefs.append(page.insert_image(rect, stream=images[k]))
    doc.save(path, garbage=3, deflate=True)
    return path


class Stack:
    """The broker, the database and the workers of one benchmark, in one data folder."""

    def __init__(self, args: argparse.Namespace, tmp: Path) -> None:
        self.args, self.tmp, self.procs, self.runs = args, tmp, {}, 0
        self.logs = tmp / "logs"
        self.logs.mkdir(parents=True)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("AXIYA_")}
        self.env.update(
            AXIYA_DATA_DIR=str(tmp / "data"),
            AXIYA_MODEL_DIR=str(args.package),
            AXIYA_GEMMA_BATCH=str(args.batch),
            AXIYA_GEMMA_BATCH_WAIT_S=str(args.batch_wait),
            AXIYA_GEMMA_FIRST_BATCH=str(args.first_batch),
            AXIYA_GEMMA_MAX_NEW_TOKENS=str(args.new_tokens),
            AXIYA_GEMMA_CONTINUOUS=str(args.continuous).lower(),
            AXIYA_GEMMA_CASCADE=str(args.cascade).lower(),
            AXIYA_GEMMA_PREPARED_AHEAD=str(args.prepared_ahead or ""),  # "": the default
            AXIYA_GEMMA_MAX_SOFT_TOKENS=str(args.soft_tokens),
            AXIYA_MAX_PAGES=str(max(500, *args.page_counts)),
            AXIYA_MAX_UPLOAD_MB="2000",
            AXIYA_PAGE_TIMEOUT_S="3600",
            AXIYA_JOB_TIMEOUT_S="86400",
            AXIYA_INLINE_HOUSEKEEPING="false",
            DJANGO_SETTINGS_MODULE="axiya.settings",
            OMP_THREAD_LIMIT="1",
            PYTHONUNBUFFERED="1",
        )
        self.broker = "filesystem"
        if args.broker == "redis":
            self.broker = self._start_redis()
        if self.broker == "filesystem":
            self.env["AXIYA_BROKER_URL"] = "filesystem://"
        subprocess.run([PY, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=self.env,
                       check=True)  # fmt: skip

    def _start_redis(self) -> str:
        binary = self.args.redis_server or shutil.which("redis-server")
        if not binary:
            print("no redis-server: kombu's filesystem transport instead", flush=True)
            return "filesystem"
        port = free_port()
        self.start("redis", [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(self.tmp)])  # fmt: skip
        try:
            wait_port(port, timeout=15)
        except RuntimeError:
            print("redis-server did not start (see logs/redis.log): filesystem transport",
                  flush=True)  # fmt: skip
            return "filesystem"
        self.env["AXIYA_BROKER_URL"] = f"redis://127.0.0.1:{port}/0"
        version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
        return f"redis ({version.strip()[:60]})"

    def start(self, name: str, cmd: list[str], **env: str) -> subprocess.Popen:
        out = open(self.logs / f"{name}.log", "w")  # noqa: SIM115
        proc = subprocess.Popen(cmd, cwd=ROOT, env={**self.env, **env}, stdout=out,
                                stderr=subprocess.STDOUT)  # fmt: skip
        self.procs[name] = proc
        return proc

    def start_workers(self, gpus: int) -> float:
        """The cpu worker and one GPU worker per card; returns seconds until all were ready."""
        t0 = time.perf_counter()
        celery = [PY, "-m", "celery", "-A", "axiya", "worker", "--without-gossip",
                  "--without-mingle", "-l", "info"]  # fmt: skip
        # The rasterizing cpu worker runs at a lower CPU priority (README: one host with GPU
        # workers): its 16 processes would otherwise take the cores from the threads that feed
        # the GPU (image decoding, preprocessing, the decode loop itself).
        nice = ["nice", "-n", str(self.args.cpu_nice)] if self.args.cpu_nice else []
        self.start("cpu", [*nice, *celery, "-Q", "cpu", "-c", str(self.args.cpu_workers),
                           "-n", "cpu@%h"])  # fmt: skip
        for i in range(gpus):
            self.start(f"gpu{i}", [*celery, "-Q", "gpu", "-c", "1", "--prefetch-multiplier", "1",
                                   "-n", f"gpu{i}@%h"],
                       CUDA_VISIBLE_DEVICES=str(i), AXIYA_WORKER_ENGINE="gemma")  # fmt: skip
        deadline = time.time() + self.args.ready_timeout
        while time.time() < deadline:
            ready = [self._log(f"gpu{i}") for i in range(gpus)]
            engines = all("worker engine" in text and "loaded in" in text for text in ready)
            if engines and "ready." in self._log("cpu"):
                return time.perf_counter() - t0
            for name, proc in self.procs.items():
                if proc.poll() is not None:
                    raise RuntimeError(f"{name} exited:\n{self._log(name)[-3000:]}")
            time.sleep(1)
        raise RuntimeError("GPU workers not ready in time:\n" + self._log("gpu0")[-3000:])

    def profile(self, name: str) -> subprocess.Popen | None:
        """py-spy (`--profile`) sampling worker `name` and its pool process, every thread, idle
        ones too (raw stacks into the logs folder); None without it. Stop it with SIGINT."""
        if not self.args.profile:
            return None
        out = self.logs / f"{name}-pyspy.txt"
        cmd = [self.args.profile, "record", "--pid", str(self.procs[name].pid),
               "--subprocesses", "--threads", "--idle", "--nonblocking", "--rate", "20",
               "--format", "raw", "-o", str(out)]  # fmt: skip
        return self.start(f"{name}-pyspy", cmd)

    def gpu_batches(self, gpus: int, since: dict[str, int]) -> dict[str, list[list[float]]]:
        """[pages, seconds] of each batch every GPU worker read since the log sizes `since`
        (from its log lines "read N pages in S s")."""
        return {
            f"gpu{i}": [[float(n), float(t)] for n, t in
                        READ_LINE.findall(self._log(f"gpu{i}")[since.get(f"gpu{i}", 0):])]
            for i in range(gpus)
        }  # fmt: skip

    def log_sizes(self) -> dict[str, int]:
        return {name: len(self._log(name)) for name in self.procs}

    def _log(self, name: str) -> str:
        path = self.logs / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop_workers(self) -> None:
        for name in [n for n in self.procs if n != "redis"]:
            stop_process(self.procs.pop(name), timeout=60)
            if self.args.logs:  # each run's logs (the next start overwrites them)
                self.args.logs.mkdir(parents=True, exist_ok=True)
                for path in self.logs.glob(f"{name}*"):
                    shutil.copy(path, self.args.logs / f"{self.runs}-{path.name}")
        self.runs += 1

    def close(self) -> None:
        self.stop_workers()
        for proc in self.procs.values():
            stop_process(proc, timeout=60)


def run_job(pdf: Path, timeout: float) -> dict:
    """Submit one job (engine gemma) and wait for it; the numbers come from the database."""
    from conversion.dispatch import enqueue_job
    from conversion.models import JobStatus, Page
    from conversion.runner.jobs import job_create
    from models.engine import reading_from_json

    t0 = time.perf_counter()
    job = job_create(owner=None, upload=pdf, engine="gemma")
    enqueue_job(job.id)
    deadline = time.time() + timeout
    while time.time() < deadline:
        job.refresh_from_db()
        if job.status in (JobStatus.DONE, JobStatus.NEEDS_REVIEW, JobStatus.FAILED):
            break
        time.sleep(0.5)
    total_s = time.perf_counter() - t0
    pages = list(Page.objects.filter(job=job).order_by("number"))
    readings = [reading_from_json(p.reading) for p in pages if p.reading]
    done_at = sorted(p.updated_at for p in pages)
    batches = [p.timings.get("batch", 0) for p in pages]
    return {
        "job": str(job.id),
        "status": job.status,
        "error": job.error_code,
        "pages": job.pages_total,
        "pages_done": job.pages_done,
        "total_s": total_s,
        "pages_per_s": job.pages_done / total_s if job.status != JobStatus.FAILED else 0.0,
        "first_page_done_s": (done_at[0] - job.created_at).total_seconds() if done_at else None,
        "last_page_done_s": (done_at[-1] - job.created_at).total_seconds() if done_at else None,
        "assemble_s": (job.finished_at - done_at[-1]).total_seconds()
        if done_at and job.finished_at
        else None,
        "rasterize_s_sum": sum(p.timings.get("rasterize_s", 0.0) for p in pages),
        "new_tokens_per_page": sum(r.timings.get("new_tokens", 0) for r in readings)
        / max(1, len(readings)),
        "batch_sizes": sorted({int(b) for b in batches}),
        "engines": sorted({json.dumps(job.engine_info.get("provider"))}),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--package", type=Path, required=True)
    ap.add_argument("--pages", default="1024", help="pages of the job; several: 1024,2048")
    ap.add_argument("--workers", default="1,2", help="GPU worker counts to run, e.g. 1,2")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--batch-wait", type=float, default=10.0,
                    help="AXIYA_GEMMA_BATCH_WAIT_S")  # fmt: skip
    ap.add_argument("--first-batch", type=int, default=32,
                    help="AXIYA_GEMMA_FIRST_BATCH (doubles up to --batch)")  # fmt: skip
    ap.add_argument("--new-tokens", type=int, default=768)
    ap.add_argument("--continuous", action="store_true",
                    help="AXIYA_GEMMA_CONTINUOUS: continuous batching")  # fmt: skip
    ap.add_argument("--cascade", action="store_true",
                    help="AXIYA_GEMMA_CASCADE (a package built with --cascade)")  # fmt: skip
    ap.add_argument("--prepared-ahead", type=int, default=0,
                    help="AXIYA_GEMMA_PREPARED_AHEAD (0: its default, one claim)")  # fmt: skip
    ap.add_argument("--soft-tokens", type=int, default=1120)
    ap.add_argument("--cpu-workers", type=int, default=min(16, os.cpu_count() or 2))
    ap.add_argument("--broker", choices=("redis", "filesystem"), default="redis")
    ap.add_argument("--redis-server", help="redis-server binary (default: on PATH)")
    ap.add_argument("--ready-timeout", type=float, default=600)
    ap.add_argument("--job-timeout", type=float, default=1800)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    ap.add_argument("--keep", action="store_true", help="keep the data folder and logs")
    ap.add_argument("--logs", type=Path, help="copy every run's worker logs into this folder")
    ap.add_argument(
        "--cpu-nice",
        type=int,
        default=10,
        help="niceness of the cpu worker (0: the same priority as the GPU workers)",
    )
    ap.add_argument(
        "--profile",
        metavar="PY_SPY",
        help="py-spy binary: sample the first GPU worker (raw stacks in --logs)",
    )
    a = ap.parse_args(argv)
    a.page_counts = [int(x) for x in a.pages.split(",")]

    tmp = Path(tempfile.mkdtemp(prefix="axiya-scaleout-"))
    stack = Stack(a, tmp)
    os.environ.update(stack.env)
    import django

    django.setup()
    pdfs = {n: make_job_pdf(tmp / f"scan-{n}.pdf", n, a.soft_tokens) for n in a.page_counts}
    runs = []
    try:
        for k in [int(x) for x in a.workers.split(",")]:
            ready_s = stack.start_workers(k)
            print(f"{k} GPU worker(s) ready in {ready_s:.0f} s", flush=True)
            for n, pdf in pdfs.items():
                since = stack.log_sizes()
                spy = stack.profile("gpu0")
                result = {**run_job(pdf, a.job_timeout), "gpu_workers": k, "pages": n,
                          "workers_ready_s": ready_s}  # fmt: skip
                if spy is not None:
                    spy.send_signal(signal.SIGINT)  # py-spy writes its samples and ends
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        spy.wait(timeout=120)  # (a SIGTERM would end it without writing)
                    stop_process(spy, timeout=10)
                result["worker_batches"] = stack.gpu_batches(k, since)
                runs.append(result)
                print(json.dumps(result), flush=True)
            stack.stop_workers()
    finally:
        stack.close()
        logs = {p.name: p.read_text(errors="replace")[-1500:] for p in stack.logs.glob("*.log")}
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    base = {r["pages"]: r["pages_per_s"] for r in reversed(runs)}  # the first run of a size
    gpu = gpu_name(count=True)
    report = {
        "date": dt.date.today().isoformat(),
        "device": gpu,
        "weights": "random (speed only, not quality)",
        "command": "python -m bench.gemma_scaleout " + " ".join(argv or sys.argv[1:]),
        "broker": stack.broker,
        "database": "SQLite (one file, WAL off, 30 s busy timeout)",
        "cpu_workers": a.cpu_workers,
        "cpu_worker_nice": a.cpu_nice,
        "pages": a.page_counts,
        "batch_size": a.batch,
        "batch_wait_s": a.batch_wait,
        "first_batch": a.first_batch,
        "continuous": a.continuous,
        "cascade": a.cascade,
        "prepared_ahead": a.prepared_ahead,
        "new_tokens_per_page": a.new_tokens,
        "image_tokens_per_page": a.soft_tokens,
        "runs": runs,
        "speedup": {  # "<pages>x<workers>": pages/s over one worker's on the same job size
            f"{r['pages']}x{r['gpu_workers']}": r["pages_per_s"] / base[r["pages"]]
            if base[r["pages"]]
            else None
            for r in runs
        },
        "target": {"workers": 2, "speedup": 1.8},
        "log_tails": logs if any(r["status"] == "failed" for r in runs) or not runs else {},
    }
    tag = "h200" if "H200" in gpu else (gpu.lower().replace(" ", "-") or "cpu")
    a.out.mkdir(parents=True, exist_ok=True)
    mode = ("-continuous" if a.continuous else "") + ("-cascade" if a.cascade else "")
    path = a.out / f"gemma-scaleout-{report['date']}-{tag}{mode}.json"
    path.write_text(json.dumps(report, indent=1) + "\n")
    print(f"{'GPU workers':>12} {'pages':>6} {'total s':>8} {'pages/s':>8} {'speed-up':>9}")
    for r in runs:
        up = report["speedup"][f"{r['pages']}x{r['gpu_workers']}"] or 0.0
        print(f"{r['gpu_workers']:>12} {r['pages_done']:>6} {r['total_s']:>8.1f} "
              f"{r['pages_per_s']:>8.2f} {up:>8.2f}x")  # fmt: skip
    print(f"wrote {path}")
    return 0 if runs and all(r["status"] != "failed" for r in runs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
