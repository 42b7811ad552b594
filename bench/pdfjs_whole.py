"""Every PDF of ../shared/corpus/pdfjs converted whole, as `manage.py convert` converts it (the
registry's default engine, the settings' options: every page within the page budget,
AXIYA_MAX_PAGES, default 500; a longer file is refused TOO_MANY_PAGES), one file at a time
(issue 31, item 3: every file converts, or is refused with a code the file caused).

    OMP_THREAD_LIMIT=1 nice -n 10 .venv/bin/python bench/pdfjs_whole.py [--only NAME ...] \\
        [--file-timeout-s S] [--tag TAG]

Per file: `done` (with its pages, findings routed to review, seconds), `refused` with the code
of a FileRefused (the file's fault: damaged, encrypted, no pages, too many pages...), or the
code of any other ConversionError (ENGINE_FAILED, SERVER_ERROR, PAGE_TIMEOUT...: ours),
`EXCEPTION` (an exception the flow let through: the site would answer SERVER_ERROR), `CRASHED`
(the worker process died) or `TIMEOUT` (over --file-timeout-s). Files run in a worker process
that a supervisor restarts after a crash or a timeout, from the next file; each result is
appended to a progress file as it ends, so a rerun with --resume goes on where it stopped,
and --summarize writes what a run still going (or stopped) holds so far.
Prints a table of outcomes; writes bench/results/pdfjs_whole-<date>[-TAG].json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

CORPUS = ROOT.parent / "shared" / "corpus" / "pdfjs"
RESULTS = ROOT / "bench" / "results"
FILE_TIMEOUT_S = 1800  # a file still running after this long: TIMEOUT (the 352-page book fits)
OURS = ("ENGINE_FAILED", "SERVER_ERROR", "EXCEPTION", "CRASHED", "TIMEOUT")


def work(names: list[str], progress: Path) -> None:
    """The worker: converts each file in turn, appending a `start` line, then its result."""
    import django

    django.setup()
    from conversion.engines import get_engine
    from conversion.options import convert_options
    from conversion.pipeline.convert import convert_pdf
    from conversion.pipeline.errors import ConversionError, FileRefused

    engine = get_engine(None)
    opts = convert_options(engine=engine.name)
    for name in names:
        with progress.open("a") as out:
            out.write(json.dumps({"file": name, "start": time.time()}) + "\n")
        started = time.perf_counter()
        row: dict = {"file": name}
        with tempfile.TemporaryDirectory() as tmp:
            try:
                result = convert_pdf(CORPUS / name, Path(tmp), engine, opts)
                report = result.report
                row.update(
                    outcome="done",
                    pages=report["pages"],
                    needs_review=report["summary"]["needs_review"],
                    codes=sorted({f["code"] for f in report["findings"]}),
                )
            except FileRefused as exc:
                row.update(outcome="refused", code=exc.code, message=exc.message)
            except ConversionError as exc:
                row.update(outcome=exc.code, code=exc.code, message=exc.message)
            except Exception as exc:  # what the flow let through: a defect of ours
                row.update(
                    outcome="EXCEPTION",
                    code=type(exc).__name__,
                    message=str(exc)[:300],
                    trace=traceback.format_exc()[-2000:],
                )
        row["s"] = round(time.perf_counter() - started, 1)
        with progress.open("a") as out:
            out.write(json.dumps(row) + "\n")


def read_progress(progress: Path) -> tuple[dict[str, dict], str | None]:
    """Results by file, and the file started last without a result (where a worker stopped)."""
    results: dict[str, dict] = {}
    started: str | None = None
    if progress.exists():
        for line in progress.read_text().splitlines():
            row = json.loads(line)
            if "start" in row:
                started = row["file"]
            else:
                results[row["file"]] = row
                started = None
    return results, started


def supervise(names: list[str], progress: Path, file_timeout_s: float) -> dict[str, dict]:
    """Runs workers over what is left until every file has a result."""
    while True:
        results, _ = read_progress(progress)
        left = [n for n in names if n not in results]
        if not left:
            return results
        worker = subprocess.Popen(
            [sys.executable, __file__, "--worker", "--progress", str(progress), *left]
        )
        last_size, last_change = -1, time.time()
        while worker.poll() is None:
            time.sleep(5)
            size = progress.stat().st_size if progress.exists() else 0
            if size != last_size:
                last_size, last_change = size, time.time()
            elif time.time() - last_change > file_timeout_s:
                worker.kill()
                worker.wait()
                break
        _, stuck = read_progress(progress)
        if stuck is not None:  # the worker died or hung on this file
            outcome = "CRASHED" if worker.returncode not in (None, -9) else "TIMEOUT"
            with progress.open("a") as out:
                out.write(json.dumps({"file": stuck, "outcome": outcome, "code": outcome,
                                      "rc": worker.returncode}) + "\n")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--worker", action="store_true")
    parser.add_argument("--progress", type=Path, default=None)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--file-timeout-s", type=float, default=FILE_TIMEOUT_S)
    parser.add_argument("--tag", default="")
    parser.add_argument(
        "--summarize", action="store_true", help="only summarize the files the progress file holds"
    )
    args = parser.parse_args()
    if args.worker:
        work(args.names, args.progress)
        return
    tag = f"-{args.tag}" if args.tag else ""
    progress = args.progress or Path(tempfile.gettempdir()) / f"pdfjs_whole{tag}.progress.jsonl"
    if progress.exists() and not (args.resume or args.summarize):
        progress.unlink()
    names = args.only or sorted(p.name for p in CORPUS.glob("*.pdf"))
    started = time.time()
    if args.summarize:  # a run still going (or stopped): what it has so far
        results, _ = read_progress(progress)
        names = [n for n in names if n in results]
    else:
        results = supervise(names, progress, args.file_timeout_s)
    rows = [results[n] for n in names]
    outcomes = Counter(r["outcome"] for r in rows)
    refused = Counter(r["code"] for r in rows if r["outcome"] == "refused")
    ours = [r for r in rows if r["outcome"] not in ("done", "refused")]
    print(f"{'outcome':<22}{'files':>6}")
    for outcome, count in outcomes.most_common():
        print(f"{outcome:<22}{count:>6}")
    for code, count in refused.most_common():
        print(f"  refused {code:<13}{count:>6}")
    for r in ours:
        print(f"OURS {r['file']}: {r['outcome']} {r.get('code', '')} {r.get('message', '')[:120]}")
    pages = sum(r.get("pages", 0) for r in rows)
    print(f"{len(rows)} files, {pages} pages done, {time.time() - started:.0f} s")
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"pdfjs_whole-{dt.date.today().isoformat()}{tag}.json"
    out.write_text(
        json.dumps(
            {
                "files": len(rows),
                "outcomes": dict(outcomes),
                "refused": dict(refused),
                "ours": len(ours),
                "pages_done": pages,
                "rows": rows,
            },  # fmt: skip
            indent=1,
        )
    )
    print(f"wrote {out}")
    if not args.summarize:
        progress.unlink()


if __name__ == "__main__":
    main()
