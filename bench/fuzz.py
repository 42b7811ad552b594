"""Fuzz the untrusted-PDF path: corpus PDFs with flipped bytes, truncations, splices, insertions
and deletions go through what an upload goes through (sniff, validate, rasterize every page and
read its text layer, each in the isolated child of conversion.pipeline.isolate).

Every case must end in a result or a coded ConversionError; anything else (an exception in the
parent, a hang past the limits, the parent dying) is a failure. Crashes contained by the child
are counted: each one is a MuPDF crash that would have taken a worker down without isolation.

    python -m bench.fuzz --cases 10000 --seed 1     # writes bench/results/fuzz-<date>.json

tests/test_fuzz.py runs the same cases from hypothesis, a short run in CI.
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import json
import multiprocessing
import os
import random
import resource
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.report import dated, write_result

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "resources" / "corpus"
# Keep cases fast: small renders, few pages (the limits are what is under test, not the DPI).
FUZZ_DPI = 72
FUZZ_MEGAPIXELS = 0.5
FUZZ_PAGES = 2
TIMEOUT_S = 20.0
MEMORY_MB = 1024


def corpus_files() -> list[Path]:
    return sorted(CORPUS.glob("*.pdf")) + sorted((CORPUS / "bad").glob("*.pdf"))


# --- mutations: (kind, a, b, c) tuples, so hypothesis and random can both produce them ----------


@dataclass(frozen=True)
class Mutation:
    kind: str  # flip | truncate | splice | insert | delete | dup
    at: float  # position as a fraction of the length: stays valid whatever came before
    size: int
    value: int  # the byte for flips/inserts, or the donor file index for splices


KINDS = ("flip", "truncate", "splice", "insert", "delete", "dup")


def mutate(data: bytes, mutations: list[Mutation], donors: list[bytes]) -> bytes:
    buf = bytearray(data)
    for m in mutations:
        n = len(buf)
        if n == 0:
            break
        i = min(int(m.at * n), n - 1)
        if m.kind == "flip":
            for k in range(i, min(n, i + max(1, m.size % 8))):
                buf[k] ^= (m.value % 255) + 1
        elif m.kind == "truncate":
            del buf[max(1, i) :]
        elif m.kind == "splice":
            donor = donors[m.value % len(donors)]
            j = int(m.at * len(donor))
            buf[i : i + m.size] = donor[j : j + m.size]
        elif m.kind == "insert":
            buf[i:i] = bytes([m.value % 256]) * max(1, m.size % 64)
        elif m.kind == "delete":
            del buf[i : i + m.size]
        elif m.kind == "dup":
            buf[i:i] = buf[i : i + m.size]
    return bytes(buf)


def random_mutations(rng: random.Random) -> list[Mutation]:
    return [
        Mutation(
            kind=rng.choice(KINDS),
            at=rng.random(),
            size=rng.choice((1, 2, 4, 16, 256, 4096)),
            value=rng.randrange(1 << 16),
        )
        for _ in range(rng.randint(1, 6))
    ]


# --- one case ------------------------------------------------------------------------------------


def run_case(data: bytes, *, workdir: Path) -> str:
    """Upload-path processing of one file. Returns "ok" or the ConversionError code; raises
    anything else."""
    from conversion.pipeline.errors import ConversionError
    from conversion.pipeline.isolate import run_isolated
    from conversion.pipeline.rasterize import RasterOptions, render_page_file
    from conversion.pipeline.validate import Limits, sniff_pdf, validate_pdf

    path = workdir / "case.pdf"
    path.write_bytes(data)
    try:
        sniff_pdf(data[:1024])
        validated = run_isolated(
            validate_pdf, path, Limits(), timeout_s=TIMEOUT_S, memory_mb=MEMORY_MB
        )
        opts = RasterOptions(dpi=FUZZ_DPI, max_dpi=FUZZ_DPI, max_megapixels=FUZZ_MEGAPIXELS)
        for index in range(min(validated.page_count, FUZZ_PAGES)):
            run_isolated(
                render_page_file,
                path,
                index,
                opts,
                workdir / f"{index + 1}.png",
                timeout_s=TIMEOUT_S,
                memory_mb=MEMORY_MB,
            )
    except ConversionError as exc:
        if "crashed the reader" in exc.message:
            return f"{exc.code}:crash"
        return exc.code
    return "ok"


def _case_data(seed: int, case: int, donors: list[bytes]) -> tuple[int, bytes]:
    rng = random.Random(f"{seed}-{case}")  # each case on its own: shards need no coordination
    source = rng.randrange(len(donors))
    return source, mutate(donors[source], random_mutations(rng), donors)


def _run_shard(seed: int, cases: range) -> dict:
    files = corpus_files()
    donors = [f.read_bytes() for f in files]
    outcomes: collections.Counter[str] = collections.Counter()
    failures: list[dict] = []
    slowest = 0.0
    parent = os.getpid()
    with tempfile.TemporaryDirectory(prefix="axiya-fuzz-") as tmp:
        workdir = Path(tmp)
        for done, case in enumerate(cases, start=1):
            source, data = _case_data(seed, case, donors)
            t0 = time.perf_counter()
            try:
                outcomes[run_case(data, workdir=workdir)] += 1
            except Exception as exc:  # a finding: recorded, the run goes on
                outcomes["UNCODED"] += 1
                failures.append({"case": case, "file": files[source].name, "error": repr(exc)})
            slowest = max(slowest, time.perf_counter() - t0)
            assert os.getpid() == parent  # a child never returns into the loop
            if done % 250 == 0:  # every shard says where it is (a run cut short still tells)
                print(f"shard {cases.start}: {done} of {len(cases)} cases: {dict(outcomes)}",
                      flush=True)  # fmt: skip
    return {
        "outcomes": outcomes,
        "failures": failures,
        "slowest": slowest,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
    sys.path.insert(0, str(ROOT))

    started = time.perf_counter()
    shards = [range(i, args.cases, args.jobs) for i in range(args.jobs)]
    with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
        parts = pool.starmap(_run_shard, [(args.seed, shard) for shard in shards])
    outcomes: collections.Counter[str] = collections.Counter()
    for part in parts:
        outcomes.update(part["outcomes"])
    failures = [f for part in parts for f in part["failures"]]
    result = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "command": f"python -m bench.fuzz --cases {args.cases} --seed {args.seed} "
        f"--jobs {args.jobs}",
        "cases": args.cases,
        "seed": args.seed,
        "corpus": [f.name for f in corpus_files()],
        "outcomes": dict(outcomes.most_common()),
        "uncoded_failures": failures,
        "contained_crashes": sum(v for k, v in outcomes.items() if k.endswith(":crash")),
        "elapsed_s": round(time.perf_counter() - started, 1),
        "slowest_case_s": round(max(p["slowest"] for p in parts), 2),
        "shard_max_rss_mb": round(max(p["rss_mb"] for p in parts)),
        "limits": {
            "timeout_s": TIMEOUT_S,
            "memory_mb": MEMORY_MB,
            "dpi": FUZZ_DPI,
            "pages_per_case": FUZZ_PAGES,
        },  # fmt: skip
    }
    print(json.dumps({k: v for k, v in result.items() if k != "corpus"}, indent=2))
    write_result(dated("fuzz"), result, args.out)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
