"""Peak memory of one CPU conversion against its page count: the same scanned page (linn.pdf)
repeated 1, 8 and 24 times, each converted in a fresh process (the layout model and Tesseract
loaded in each), so the peaks compare. Flat means the pages do not accumulate.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/pages_memory.py [--pages 1 8 24]

Prints a table and writes bench/results/pages_memory-<date>.json.
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
from pathlib import Path

import pymupdf

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tests" / "resources" / "corpus" / "linn.pdf"

_CHILD = """
import os, resource, sys, time
sys.path.insert(0, {root!r})
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
import django
django.setup()
from pathlib import Path
from conversion.pipeline.convert import ConvertOptions, convert_pdf
from models.ocr import TesseractEngine
started = time.perf_counter()
result = convert_pdf(Path(sys.argv[1]), Path(sys.argv[2]), TesseractEngine(), ConvertOptions())
print(time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", nargs="*", type=int, default=[1, 8, 24])
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for count in args.pages:
            pdf = Path(tmp) / f"linn-{count}.pdf"
            with pymupdf.open(SOURCE) as src, pymupdf.open() as out:
                for _ in range(count):
                    out.insert_pdf(src)
                out.save(pdf)
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-c", _CHILD.format(root=str(ROOT)), str(pdf), tmp],
                capture_output=True, text=True, check=True,
                env={**os.environ, "OMP_THREAD_LIMIT": "1"},
            )  # fmt: skip
            seconds, peak_mb = (float(v) for v in done.stdout.split()[-2:])
            rows.append({"pages": count, "peak_rss_mb": peak_mb, "s_per_page": seconds / count,
                         "wall_s": time.perf_counter() - started})  # fmt: skip
            print(f"{count:>5} pages  peak RSS {peak_mb:7.0f} MB  {seconds / count:6.2f} s/page",
                  flush=True)  # fmt: skip
    out = {"date": dt.date.today().isoformat(), "cpus": os.cpu_count(), "rows": rows}
    path = ROOT / "bench" / "results" / f"pages_memory-{out['date']}.json"
    path.write_text(json.dumps(out, indent=2))
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
