"""Soak: the production shape converting a mixed corpus without pause, counting what froze.

Starts its own stack in a temporary folder: redis-server (appendonly), a PostgreSQL cluster
of its own (SQLite where PostgreSQL is not installed), the web front (bin/serve: nginx and
gunicorn), `--workers` cpu workers (prefork, `--concurrency` pool processes each, as `make
worker-cpu`) and the housekeeping worker with beat (`make housekeeping`). `--clients` API
clients then upload PDFs of ../shared/corpus (scans, born-digital, damaged and odd files of the
pdfjs set: every PDF of at most MAX_PAGES pages, in a seeded random order) one after another,
each polling its job until it ends, for `--minutes`; then the jobs in flight get `--drain-s`.

Counted:
- jobs ended, by status and error code; `defects`: jobs failed with a code that blames us
  (ENGINE_FAILED, SERVER_ERROR, CONVERSION_FAILED) and uploads answered 5xx;
- stuck jobs: not ended `--job-timeout` seconds after their upload, or at the end;
- frozen processes: pool processes whose heartbeat was older than FROZEN_AFTER_S at a sample
  (every SAMPLE_S), those the worker's main process replaced ("stopped beating" in its log),
  hard time limits hit, pool processes lost;
- RSS of each worker's process tree, first third against last third of the run.

    python -m bench.soak --minutes 60          # writes bench/results/soak-<date>.json
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import pickle
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pymupdf
import redis

from bench.processes import (
    free_port,
    multipart_body,
    postgres_bin,
    postgres_cluster,
    rss_mb,
    stop_process,
    wait_port,
)
from bench.report import write_result

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
PY = sys.executable
MAX_PAGES = 12  # pages a file of the mix has at most: a job ends in minutes, not hours
SAMPLE_S = 10.0  # how often the pool processes' heartbeats and RSS are read
FROZEN_AFTER_S = 30.0  # a heartbeat this old: frozen (conversion/runner/heartbeat.py)
POLL_S = 2.0
ENDED = ("done", "needs_review", "failed")
OUR_FAULT = ("ENGINE_FAILED", "SERVER_ERROR", "CONVERSION_FAILED", "INTERNAL_ERROR")


def corpus_files() -> list[Path]:
    """Every PDF of the shared corpus with at most MAX_PAGES pages, or that MuPDF can't open
    (bad input is part of the mix)."""
    kept = []
    for path in sorted(CORPUS.rglob("*.pdf")):
        try:
            with pymupdf.open(path) as doc:
                if doc.page_count > MAX_PAGES:
                    continue
        except Exception:  # damaged: the service must refuse it with a code
            pass
        kept.append(path)
    return kept


class Client(threading.Thread):
    """Uploads files one after another, each polled until its job ends."""

    def __init__(self, base: str, token: str, files: list[Path], until: float, args) -> None:
        super().__init__(daemon=True)
        self.base, self.token, self.files, self.until, self.args = base, token, files, until, args
        self.jobs: list[dict] = []  # one per upload accepted: id, file, seconds, status, code
        self.refused: dict[str, int] = {}  # upload answers other than 202, by status and code
        self.errors: list[str] = []
        self.stuck: list[dict] = []

    def _req(self, url: str, data: bytes | None = None, ctype: str | None = None):
        request = urllib.request.Request(url, data=data)
        request.add_header("Authorization", f"Token {self.token}")
        if ctype:
            request.add_header("Content-Type", ctype)
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            body = exc.read()
            try:
                return exc.code, json.loads(body)
            except ValueError:
                return exc.code, {"error": {"code": "NOT_JSON", "message": body[:200].decode()}}

    def run(self) -> None:
        i = 0
        while time.time() < self.until:
            path = self.files[i % len(self.files)]
            i += 1
            body, ctype = multipart_body(path.name, path.read_bytes())
            try:
                status, answer = self._req(f"{self.base}/api/v1/jobs", body, ctype)
            except Exception as exc:  # counted: an upload the service lost
                self.errors.append(f"upload {path.name}: {exc}")
                time.sleep(POLL_S)
                continue
            if status != 202:
                key = f"{status} {answer.get('error', {}).get('code', '?')}"
                self.refused[key] = self.refused.get(key, 0) + 1
                continue
            self._follow(str(answer["id"]), path)

    def _follow(self, job_id: str, path: Path) -> None:
        uploaded = time.time()
        job: dict = {}
        while time.time() - uploaded < self.args.job_timeout:
            try:
                _, job = self._req(f"{self.base}/api/v1/jobs/{job_id}")
            except Exception as exc:
                self.errors.append(f"status {job_id}: {exc}")
            if job.get("status") in ENDED:
                error = job.get("error") or {}
                self.jobs.append({"id": job_id, "file": str(path.relative_to(CORPUS)),
                                  "s": round(time.time() - uploaded, 1), "status": job["status"],
                                  "code": error.get("code", ""),
                                  "pages": job.get("progress", {}).get("pages_total")})  # fmt: skip
                return
            time.sleep(POLL_S)
        progress = job.get("progress")
        self.stuck.append({"id": job_id, "file": str(path.relative_to(CORPUS)),
                           "status": job.get("status"), "progress": progress})  # fmt: skip


def _heartbeat_age(client: redis.Redis, pid: int, now: float) -> float | None:
    """Seconds since a pool process last beat (None: no beat in the cache)."""
    raw = client.get(f"axiya-cache:1:axiya:worker-alive:{socket.gethostname()}:{pid}")
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        value = pickle.loads(raw)
    return now - float(value) if value > 1 else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=2, help="pool processes a worker")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--job-timeout", type=float, default=1800)
    parser.add_argument("--drain-s", type=float, default=1200)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    files = corpus_files()
    random.Random(args.seed).shuffle(files)
    tmp = Path(tempfile.mkdtemp(prefix="axiya-soak-"))
    logs = tmp / "logs"
    logs.mkdir()
    redis_port, web_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AXIYA_")}
    env.update(
        AXIYA_DATA_DIR=str(tmp), AXIYA_UPLOAD_RATE="100000/hour",
        AXIYA_BROKER_URL=f"redis://127.0.0.1:{redis_port}/0",
        DJANGO_SETTINGS_MODULE="axiya.settings", OMP_THREAD_LIMIT="1",
    )  # fmt: skip
    procs: dict[str, subprocess.Popen] = {}

    def start(name: str, cmd: list[str]) -> subprocess.Popen:
        out = open(logs / f"{name}.log", "w")  # noqa: SIM115
        procs[name] = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        return procs[name]

    database = postgres_cluster() if postgres_bin() else contextlib.nullcontext(None)
    samples: list[dict] = []
    frozen_seen: set[int] = set()
    # Pool processes whose heartbeat was read at least once: the frozen count means nothing if
    # the keys are never found (a changed cache prefix would make every read None).
    beating: set[int] = set()
    with database as db_url:
        if db_url:
            env["DATABASE_URL"] = db_url
        try:
            start("redis", [shutil.which("redis-server"), "--port", str(redis_port), "--bind",
                            "127.0.0.1", "--appendonly", "yes", "--save", "",
                            "--dir", str(tmp)])  # fmt: skip
            wait_port(redis_port)
            subprocess.run([PY, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env,
                           check=True)  # fmt: skip
            token = subprocess.run(
                [PY, "manage.py", "create_api_token", "soak"], cwd=ROOT, env=env, check=True,
                capture_output=True, text=True,
            ).stdout.strip().splitlines()[-1]  # fmt: skip
            # The production front: nginx on the port, gunicorn behind it (bin/serve).
            env.update(HOST="127.0.0.1", PORT=str(web_port), PY=PY)
            start("web", [str(ROOT / "bin" / "serve")])
            workers = [
                start(
                    f"worker-{n}",
                    [
                        PY,
                        "-m",
                        "celery",
                        "-A",
                        "axiya",
                        "worker",
                        "-Q",
                        "cpu",
                        "-c",
                        str(args.concurrency),
                        "-n",
                        f"cpu{n}@%h",
                        "-l",
                        "info",
                    ],
                )  # fmt: skip
                for n in range(args.workers)
            ]
            start("housekeeping", [PY, "-m", "celery", "-A", "axiya", "worker", "-B", "-Q",
                                   "housekeeping", "--pool", "solo", "-s", str(tmp / "beat"),
                                   "-n", "housekeeping@%h", "-l", "info"])  # fmt: skip
            wait_port(web_port)
            base = f"http://127.0.0.1:{web_port}"
            started = time.time()
            until = started + args.minutes * 60
            clients = [
                Client(base, token, files[i :: args.clients], until, args)
                for i in range(args.clients)
            ]
            stop = threading.Event()
            cache = redis.Redis(port=redis_port)

            def sample() -> None:
                while not stop.wait(SAMPLE_S):
                    now = time.time()
                    row = {"t": round(now - started), "rss_mb": {}, "heartbeat_age_s": {}}
                    row["process_rss_mb"] = {}
                    for n, worker in enumerate(workers):
                        main_ps = psutil.Process(worker.pid)
                        row["rss_mb"][n] = round(rss_mb(main_ps))
                        # Which process grows: the main one, each pool process with its tree
                        # (the isolated readers' fork server and readers under it).
                        row["process_rss_mb"][f"{n}:main"] = round(
                            main_ps.memory_info().rss / 2**20
                        )
                        for child in main_ps.children():
                            row["process_rss_mb"][f"{n}:{child.pid}"] = round(rss_mb(child))
                            age = _heartbeat_age(cache, child.pid, now)
                            row["heartbeat_age_s"][child.pid] = None if age is None else round(age)
                            if age is not None:
                                beating.add(child.pid)
                            if age is not None and age > FROZEN_AFTER_S:
                                frozen_seen.add(child.pid)
                    samples.append(row)

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            for c in clients:
                c.start()
            for c in clients:
                c.join(timeout=args.minutes * 60 + args.job_timeout + args.drain_s)
            elapsed = time.time() - started
            stop.set()
            sampler.join()
        finally:
            for proc in reversed(list(procs.values())):
                stop_process(proc, timeout=30)

    log_text = {name: (logs / f"{name}.log").read_text(errors="replace") for name in procs}
    worker_logs = "\n".join(v for k, v in log_text.items() if k.startswith("worker-"))
    jobs = [j for c in clients for j in c.jobs]
    stuck = [j for c in clients for j in c.stuck]
    by_status: dict[str, int] = {}
    by_code: dict[str, int] = {}
    for job in jobs:
        by_status[job["status"]] = by_status.get(job["status"], 0) + 1
        if job["code"]:
            by_code[job["code"]] = by_code.get(job["code"], 0) + 1
    refused: dict[str, int] = {}
    for c in clients:
        for key, n in c.refused.items():
            refused[key] = refused.get(key, 0) + n
    defects = sum(n for code, n in by_code.items() if code in OUR_FAULT) + sum(
        n for key, n in refused.items() if key.startswith("5")
    )
    third = max(1, len(samples) // 3)

    def rss(part: list[dict]) -> dict:
        return {n: round(statistics.fmean(s["rss_mb"][n] for s in part))
                for n in range(args.workers)} if part else {}  # fmt: skip

    result = {
        "date": dt.date.today().isoformat(),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip(),  # fmt: skip
        "command": f"python -m bench.soak --minutes {args.minutes:g} --workers {args.workers} "
        f"--concurrency {args.concurrency} --clients {args.clients}",
        "database": "postgresql" if "DATABASE_URL" in env else "sqlite",
        "minutes": round(elapsed / 60, 1),
        "files_in_mix": len(files),
        "jobs_ended": len(jobs),
        "pages_ended": sum(j["pages"] or 0 for j in jobs),
        "by_status": by_status,
        "by_error_code": by_code,
        "uploads_refused": refused,
        "defects": defects,
        "stuck_jobs": len(stuck),
        "stuck": stuck,
        "pool_processes_beating": len(beating),
        "frozen_processes_seen": len(frozen_seen),
        "replaced_by_watchdog": worker_logs.count("stopped beating"),
        "hard_time_limits": worker_logs.count("Hard time limit"),
        "pool_processes_lost": worker_logs.count("WorkerLostError"),
        "client_errors": [e for c in clients for e in c.errors][:50],
        "worker_rss_mb_first_third": rss(samples[:third]),
        "worker_rss_mb_last_third": rss(samples[-third:]),
        "process_rss_mb_first_and_last": [
            samples[0]["process_rss_mb"],
            samples[-1]["process_rss_mb"],
        ]
        if samples
        else [],
        "slowest_jobs": sorted(jobs, key=lambda j: -j["s"])[:5],
    }
    print(f"{'measure':32} value")
    for key in ("database", "minutes", "files_in_mix", "jobs_ended", "pages_ended", "by_status",
                "by_error_code", "uploads_refused", "defects", "stuck_jobs",
                "pool_processes_beating", "frozen_processes_seen", "replaced_by_watchdog",
                "hard_time_limits", "pool_processes_lost", "worker_rss_mb_first_third",
                "worker_rss_mb_last_third"):  # fmt: skip
        print(f"{key:32} {result[key]}")
    write_result(f"soak-{result['date']}", result, args.out)
    shutil.rmtree(tmp, ignore_errors=True)
    ok = beating and not stuck and not frozen_seen and not result["replaced_by_watchdog"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
