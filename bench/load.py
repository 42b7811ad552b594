"""Load: drive the running service on loopback through the REST API, then stop.

Starts its own stack in a temporary data folder: redis-server (appendonly), `manage.py migrate`,
gunicorn (2 workers) and one Celery worker, then N clients each upload their share of one-page
born-digital PDFs (the text layer is read, no OCR: the run measures the service, not Tesseract)
and poll each job's status until it finishes. Reports: every job finished, none lost, none
duplicated (the server lists exactly the jobs posted, each with pages_done == pages_total), p50/
p95/max latency of status reads and uploads, and RSS of the web and worker processes sampled
every second (first vs last third: flat or not).

    python -m bench.load --jobs 200 --clients 20     # writes bench/results/load-<date>.json

`--inline` runs the single-machine default instead: no broker, one gunicorn worker with 8
threads, conversions on the web process's own runner thread, so uploads validate PDFs in
isolated children while other threads of that process are busy (the stress test of issue 17:
a child forked from a busy multithreaded process could hang). It also counts hangs (jobs not
finished in time) and PAGE_TIMEOUT failures, both 0 when isolation is sound:

    python -m bench.load --inline --jobs 200 --clients 8   # writes load-inline-<date>.json

A hang is any job not finished `--timeout` seconds after its client's last upload, whatever
the reason; every file is a good one, so any PAGE_TIMEOUT counts. An isolated read that timed
out and then succeeded on its retry is counted too (`isolate_timeouts`, from the server logs),
so a retry cannot hide a hang. To tell a slow machine from a stuck job, the run also reports
each job's queue wait and run time (the API's created/started/finished), where the unfinished
ones stood, the CPU time of the service (web, worker and their children) per job, and how busy
the whole machine was (others share it): a deadline missed with the service's CPU per job low
and the machine busy is a wall-time artefact, not a hang.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import psutil

from bench.processes import free_port, multipart_body, rss_mb, wait_port
from bench.report import dated, write_result

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable


def make_pdf(path: Path, n: int) -> bytes:
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    text = (f"Load test document number {n}. The harbour office publishes the ferry schedule "
            "every spring, and the night boats stop running until the first of June.")  # fmt: skip
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 400), text, fontsize=12)
    return doc.tobytes()


class Client(threading.Thread):
    def __init__(self, base: str, token: str, pdfs: list[tuple[str, bytes]], timeout: float):
        super().__init__(daemon=True)
        self.base, self.token, self.pdfs, self.timeout = base, token, pdfs, timeout
        self.status_ms: list[float] = []
        self.upload_ms: list[float] = []
        self.jobs: dict[str, dict] = {}
        self.errors: list[str] = []
        self.pending: list[str] = []

    def _req(self, url: str, data: bytes | None = None, ctype: str | None = None) -> dict:
        request = urllib.request.Request(url, data=data)
        request.add_header("Authorization", f"Token {self.token}")
        if ctype:
            request.add_header("Content-Type", ctype)
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())

    def run(self) -> None:
        pending: list[str] = []
        for name, data in self.pdfs:
            body, ctype = multipart_body(name, data)
            t0 = time.perf_counter()
            try:
                created = self._req(f"{self.base}/api/v1/jobs", body, ctype)
            except Exception as exc:  # counted: an upload the service lost
                self.errors.append(f"upload {name}: {exc}")
                continue
            self.upload_ms.append((time.perf_counter() - t0) * 1000)
            pending.append(str(created["id"]))
        deadline = time.time() + self.timeout
        self.pending = pending
        while pending and time.time() < deadline:
            for job_id in list(pending):
                t0 = time.perf_counter()
                try:
                    job = self._req(f"{self.base}/api/v1/jobs/{job_id}")
                except Exception as exc:
                    self.errors.append(f"status {job_id}: {exc}")
                    continue
                self.status_ms.append((time.perf_counter() - t0) * 1000)
                if job["status"] in ("done", "needs_review", "failed"):
                    self.jobs[job_id] = job
                    pending.remove(job_id)
            time.sleep(0.5)
        for job_id in pending:
            self.errors.append(f"job {job_id} not finished in time")


def _cpu_s(proc: psutil.Process) -> float:
    """CPU seconds of a process tree so far: the living processes and the children they reaped
    (the isolated readers, reaped by their fork server)."""
    total = 0.0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            t = p.cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


def _machine_busy_s() -> float:
    t = psutil.cpu_times()
    return t.user + t.nice + t.system + t.irq + t.softirq + getattr(t, "steal", 0.0)


def _seconds(job: dict, start: str, end: str) -> float | None:
    if not job.get(start) or not job.get(end):
        return None
    a, b = (dt.datetime.fromisoformat(job[k].replace("Z", "+00:00")) for k in (start, end))
    return (b - a).total_seconds()


def _spread(values: list[float | None]) -> dict:
    got = [v for v in values if v is not None]
    return {"p50": round(_pct(got, 0.5), 2), "p95": round(_pct(got, 0.95), 2),
            "max": round(max(got, default=float("nan")), 2), "n": len(got)}  # fmt: skip


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=540)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--inline", action="store_true", help="single-machine default, no broker")
    args = parser.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="axiya-load-"))
    redis_port, web_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AXIYA_")}
    env.update(
        AXIYA_DATA_DIR=str(tmp), AXIYA_UPLOAD_RATE="100000/hour",
        DJANGO_SETTINGS_MODULE="axiya.settings", OMP_THREAD_LIMIT="1",
    )  # fmt: skip
    if not args.inline:
        env["AXIYA_BROKER_URL"] = f"redis://127.0.0.1:{redis_port}/0"
    procs: list[subprocess.Popen] = []
    logs = tmp / "logs"
    logs.mkdir()

    def start(name: str, cmd: list[str]) -> subprocess.Popen:
        out = open(logs / f"{name}.log", "w")  # noqa: SIM115
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        procs.append(proc)
        return proc

    try:
        if not args.inline:
            redis = [shutil.which("redis-server"), "--port", str(redis_port), "--bind",
                     "127.0.0.1", "--appendonly", "yes", "--save", "",
                     "--dir", str(tmp)]  # fmt: skip
            start("redis", redis)
            wait_port(redis_port)
        subprocess.run([PY, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env,
                       check=True)  # fmt: skip
        token = subprocess.run(
            [PY, "manage.py", "create_api_token", "loadtest"], cwd=ROOT, env=env, check=True,
            capture_output=True, text=True,
        ).stdout.strip().splitlines()[-1]  # fmt: skip
        web_shape = ["--workers", "1", "--threads", "8"] if args.inline else [
            "--workers", "2", "--threads", "4"]  # fmt: skip
        web = start("web", [PY, "-m", "gunicorn", "axiya.wsgi", "--bind",
                            f"127.0.0.1:{web_port}", *web_shape, "--timeout", "600"])  # fmt: skip
        worker = web if args.inline else start(
            "worker", [PY, "-m", "celery", "-A", "axiya", "worker", "-Q", "cpu,gpu", "-c", "2",
                       "-l", "warning"])  # fmt: skip
        wait_port(web_port)
        base = f"http://127.0.0.1:{web_port}"

        pdfs = [(f"load-{n}.pdf", make_pdf(tmp / f"{n}.pdf", n)) for n in range(args.jobs)]
        share = [pdfs[i :: args.clients] for i in range(args.clients)]
        clients = [Client(base, token, part, args.timeout) for part in share]
        samples: list[dict] = []
        stop = threading.Event()

        def sample() -> None:
            web_ps, worker_ps = psutil.Process(web.pid), psutil.Process(worker.pid)
            t0 = time.time()
            while not stop.is_set():
                samples.append({"t": round(time.time() - t0, 1), "web_mb": rss_mb(web_ps),
                                "worker_mb": rss_mb(worker_ps)})  # fmt: skip
                stop.wait(1.0)

        sampler = threading.Thread(target=sample, daemon=True)
        started = time.perf_counter()
        load_before = os.getloadavg()
        service = [psutil.Process(web.pid)] + ([] if args.inline else [psutil.Process(worker.pid)])
        cpu_before = sum(_cpu_s(p) for p in service)
        busy_before = _machine_busy_s()
        sampler.start()
        for c in clients:
            c.start()
        for c in clients:
            c.join()
        elapsed = time.perf_counter() - started
        service_cpu_s = sum(_cpu_s(p) for p in service) - cpu_before
        machine_busy_s = _machine_busy_s() - busy_before
        load_after = os.getloadavg()
        stop.set()
        sampler.join()

        # The server's own view: exactly the jobs posted, each finished once, pages counted once.
        lister = Client(base, token, [], 0)
        listed, url = [], f"{base}/api/v1/jobs"
        while url:
            page = lister._req(url)
            listed += page["results"]
            url = page.get("next")
        # Where the jobs not finished in time stood when their client gave up.
        unfinished = [lister._req(f"{base}/api/v1/jobs/{j}") for c in clients for j in c.pending]
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()

    finished = {k: v for c in clients for k, v in c.jobs.items()}
    status_ms = [x for c in clients for x in c.status_ms]
    upload_ms = [x for c in clients for x in c.upload_ms]
    errors = [e for c in clients for e in c.errors]
    by_status: dict[str, int] = {}
    error_codes: dict[str, int] = {}
    for job in finished.values():
        by_status[job["status"]] = by_status.get(job["status"], 0) + 1
        if job.get("error"):
            code = job["error"]["code"]
            error_codes[code] = error_codes.get(code, 0) + 1
    hangs = sum("not finished in time" in e for e in errors)
    failures = [f"{j['error']['code']}: {j['error']['message']}" for j in finished.values()
                if j.get("error")]  # fmt: skip
    ids = [j["id"] for j in listed]
    third = max(1, len(samples) // 3)
    server_log = "\n".join(f.read_text(errors="replace") for f in logs.glob("*.log"))
    unfinished_by_status: dict[str, int] = {}
    for job in unfinished:
        unfinished_by_status[job["status"]] = unfinished_by_status.get(job["status"], 0) + 1

    def mean(key: str, part: list[dict]) -> float:
        return round(statistics.fmean(s[key] for s in part), 1) if part else float("nan")

    result = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "command": f"python -m bench.load{' --inline' if args.inline else ''} --jobs {args.jobs} "
        f"--clients {args.clients}",
        "machine": {
            "cpus": os.cpu_count(),
            "memory_gb": round(psutil.virtual_memory().total / 2**30),
        },
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip(),  # fmt: skip
        "stack": "gunicorn 1x8 threads, inline runner thread (no broker), SQLite"
        if args.inline
        else "gunicorn 2x4 threads, celery prefork -c 2, redis appendonly, SQLite",
        "jobs_posted": args.jobs,
        "jobs_finished": len(finished),
        "by_status": by_status,
        "error_codes": error_codes,
        "hangs": hangs,
        "page_timeouts": error_codes.get("PAGE_TIMEOUT", 0),
        "isolate_timeouts": server_log.count("timed out after"),
        "unfinished_at_deadline": unfinished_by_status,
        "queue_wait_s": _spread(
            [_seconds(j, "created_at", "started_at") for j in finished.values()]
        ),
        "run_s": _spread([_seconds(j, "started_at", "finished_at") for j in finished.values()]),
        "service_cpu_s": round(service_cpu_s, 1),
        "service_cpu_s_per_job": round(service_cpu_s / max(1, len(finished)), 2),
        "service_cores_used": round(service_cpu_s / elapsed, 2),
        "machine_cores_busy": round(machine_busy_s / elapsed, 2),
        "load_average": {
            "before": [round(x, 2) for x in load_before],
            "after": [round(x, 2) for x in load_after],
        },  # fmt: skip
        "jobs_listed_by_server": len(ids),
        "duplicates_listed": len(ids) - len(set(ids)),
        "lost": args.jobs - len(finished),
        "pages_counted_once": all(
            j["progress"]["pages_done"] == j["progress"]["pages_total"] for j in finished.values()
        ),
        "errors": errors[:20],
        "failures": failures[:20],
        "elapsed_s": round(elapsed, 1),
        "jobs_per_min": round(len(finished) / elapsed * 60, 1),
        "status_reads": len(status_ms),
        "status_ms": {
            "p50": round(_pct(status_ms, 0.5), 1),
            "p95": round(_pct(status_ms, 0.95), 1),
            "max": round(max(status_ms, default=float("nan")), 1),
        },  # fmt: skip
        "upload_ms": {
            "p50": round(_pct(upload_ms, 0.5), 1),
            "p95": round(_pct(upload_ms, 0.95), 1),
            "max": round(max(upload_ms, default=float("nan")), 1),
        },  # fmt: skip
        "rss_mb": {
            "web_first_third": mean("web_mb", samples[:third]),
            "web_last_third": mean("web_mb", samples[-third:]),
            "worker_first_third": mean("worker_mb", samples[:third]),
            "worker_last_third": mean("worker_mb", samples[-third:]),
            "web_max": round(max((s["web_mb"] for s in samples), default=0), 1),
            "worker_max": round(max((s["worker_mb"] for s in samples), default=0), 1),
        },
        "rss_samples": samples[:: max(1, len(samples) // 60)],
    }
    kind = "load-inline" if args.inline else "load"
    print(json.dumps({k: v for k, v in result.items() if k != "rss_samples"}, indent=2))
    write_result(dated(kind), result, args.out)
    ok = not errors and len(finished) == args.jobs and len(ids) == len(set(ids)) == args.jobs
    ok = ok and not error_codes and not result["isolate_timeouts"]
    if ok:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print(f"kept the server logs for a look: {logs}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
