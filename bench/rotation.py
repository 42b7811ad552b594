"""Turned pages read as well as upright ones? CER and seconds per page of the CPU pipeline on
corpus documents whose pages are turned by 0, 90, 180 and 270 degrees (the page's /Rotate, set
with PyMuPDF: the scan arrives on its side or upside down, as from a careless feeder).

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/rotation.py

Writes bench/results/rotation-<date>.json.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import django  # noqa: E402

if __name__ == "__main__":  # not again in each isolated PDF reader, which imports this script
    django.setup()

import pymupdf  # noqa: E402

from bench.common import DOCS, RESOURCES, as_pdf, warm_up  # noqa: E402
from bench.quality import cer, iter_main_text  # noqa: E402
from bench.report import dated, write_result  # noqa: E402
from conversion.pipeline.convert import convert_pdf  # noqa: E402
from conversion.pipeline.flow import ConvertOptions  # noqa: E402
from models.ocr import TesseractEngine  # noqa: E402

DOCUMENTS = ["linn.pdf", "multipage.pdf", "c02-22.pdf", "eurotext.tif"]
ANGLES = [0, 90, 180, 270]


def turned(pdf: Path, angle: int, workdir: Path) -> Path:
    out = workdir / f"{pdf.stem}-turned{angle}.pdf"
    with pymupdf.open(pdf) as doc:
        for page in doc:
            page.set_rotation((page.rotation + angle) % 360)
        doc.save(out)
    return out


def main() -> None:
    engine = TesseractEngine()
    warm_up(engine)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        for name in DOCUMENTS:
            ref = (RESOURCES / DOCS[name]).read_text()
            pdf = as_pdf(name, tmpdir)
            for angle in ANGLES:
                result = convert_pdf(turned(pdf, angle, tmpdir), tmpdir / "out", engine,
                                     ConvertOptions())  # fmt: skip
                text = "\n".join(iter_main_text(result.html_path.read_text()))
                timings = result.timings
                rows.append(
                    {
                        "document": name,
                        "angle": angle,
                        "pages": timings["pages"],
                        "cer": cer(text, ref),
                        "total_s_per_page": timings["total_s"] / timings["pages"],
                    }
                )
                r = rows[-1]
                print(f"{name:<15}{angle:>4}  CER {r['cer'] * 100:6.2f}%  "
                      f"{r['total_s_per_page']:5.2f} s/page", flush=True)  # fmt: skip
    out = {"date": dt.date.today().isoformat(), "cpus": os.cpu_count(), "rows": rows}
    write_result(dated("rotation"), out)


if __name__ == "__main__":
    main()
