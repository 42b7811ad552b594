"""Scanned magazine pages, CER and reading order (issue 32): two justified columns of text under a
headline across both, a drop cap, a photo inside one column with the text running on below it
(the failure of two hidden magazine scans: the top of both columns read before the rest of the
first). Ours beside plain Tesseract and pymupdf4llm in one run, tune and validation apart.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/magazine_scans.py [--only NAME ...] [--systems ...]

Pages: VARIANTS, each printed by Chromium (bench/structure_corpus.print_pdf) and scanned at its
own DPI (bench/structure_corpus.scan: noise, blur, a small turn, JPEG; seeded). The split is
bench/splits.py's rule over the variant names (corpus "magazine"). CER: Levenshtein distance
between the truth's reading text (headline, standfirst, paragraphs in order; furniture and
captions left out) and the system's (ours: headings and paragraphs in order, figures and
furniture left out), over the truth's length, whitespace normalized. Order:
bench/structure_quality.order_score. Writes bench/results/magazine_scans-<date>.json.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import django  # noqa: E402

django.setup()

import pymupdf  # noqa: E402
from rapidfuzz.distance import Levenshtein  # noqa: E402

from bench.report import dated, write_result  # noqa: E402
from bench.splits import validation_members  # noqa: E402
from bench.structure_corpus import _Deck, _html, print_pdf, scan  # noqa: E402
from bench.structure_layouts import _photo  # noqa: E402
from bench.structure_quality import (  # noqa: E402
    arguments,
    order_score,
    run_system,
    structure_of,
)
from models.ocr import TesseractEngine  # noqa: E402

OUT = ROOT / "bench" / "generated" / "magazine"
CORPUS = "magazine"
SEED = 32

# name: (photo's column (0 left, 1 right), paragraph the photo comes before in that column,
#        photo height in mm, drop cap, body font size pt, scan DPI, font family, how far the
#        photo reaches into the gutter in mm: printed to the column's edge and past it)
VARIANTS = {
    "left-top": (0, 0, 55, True, 9.5, 300, "DejaVu Serif", 0),
    "left-middle": (0, 2, 60, True, 9.5, 300, "Liberation Serif", 0),
    "left-low": (0, 4, 50, True, 10, 200, "DejaVu Serif", 0),
    "right-top": (1, 0, 60, True, 9.5, 300, "Liberation Serif", 0),
    "right-middle": (1, 2, 55, True, 10, 250, "DejaVu Serif", 0),
    "left-tall": (0, 1, 80, True, 9, 300, "Liberation Serif", 0),
    "left-middle-200": (0, 2, 55, True, 9.5, 200, "Liberation Serif", 0),
    "right-low": (1, 3, 50, False, 9.5, 300, "DejaVu Serif", 0),
    "left-small-type": (0, 3, 65, True, 8.5, 300, "Liberation Serif", 0),
    "left-bleed": (0, 1, 95, True, 9, 300, "DejaVu Serif", 6),
    "left-bleed-200": (0, 2, 90, True, 9.5, 200, "Liberation Serif", 5),
    "right-bleed": (1, 1, 95, True, 9.5, 300, "Liberation Serif", 6),
}

_CSS = """
@page { size: A4; margin: 14mm 14mm 16mm 14mm;
  @bottom-center { content: "FOOTER"; font: 8pt sans-serif; } }
body { font-family: 'FONT', serif; font-size: SIZEpt; line-height: 1.3; }
h1 { font-family: 'DejaVu Sans', sans-serif; font-size: 30pt; margin: 0 0 4pt; }
.standfirst { font-family: 'DejaVu Sans', sans-serif; font-size: 12pt; margin: 0 0 10pt; }
.cols { display: flex; gap: 7mm; }
.col { flex: 1; min-width: 0; }
.col p { margin: 0; text-indent: 1.2em; text-align: justify; hyphens: none; }
.col p.lead { text-indent: 0; }
p.lead::first-letter { float: left; font-family: 'DejaVu Sans', sans-serif; font-size: 40pt;
  line-height: 0.8; padding: 3pt 4pt 0 0; font-weight: bold; }
.photo { display: block; width: calc(100% + BLEEDmm); height: PHOTOmm; object-fit: cover;
  margin: 5pt 0 6pt; }
.col + .col .photo { margin-left: -BLEEDmm; }
"""


def _page(name: str, rng: random.Random) -> str:
    """The truth HTML of a variant (its element order is the reading order)."""
    column, before, photo_mm, drop_cap, size, _dpi, font, bleed = VARIANTS[name]
    deck = _Deck(rng)
    footer = f"Valley Life Magazine, Issue {rng.randint(100, 400)}"
    css = (_CSS.replace("FOOTER", footer).replace("FONT", font).replace("SIZE", str(size))
           .replace("PHOTO", str(photo_mm)).replace("BLEED", str(bleed)))  # fmt: skip
    if not drop_cap:
        css = css.replace("p.lead::first-letter", "p.nodrop::first-letter")
    # Paragraphs of 3 to 5 sentences until each column is about full (no overflow: A4 less
    # margins, headline and standfirst; a photo's height taken from its column).
    lines_per_mm = 1 / (size * 1.3 * 0.3528)
    chars_per_line = 88 * 72 / (size * 0.5 * 72 / 25.4) / 25.4 * 2.3
    room = 297 - 30 - 32
    cols = []
    for c in range(2):
        budget = (room - (photo_mm + 5 if c == column else 0)) * lines_per_mm * chars_per_line
        paras, used = [], 0.0
        while True:
            text = deck.para(rng.randint(3, 5))
            cost = (len(text) // chars_per_line + 1) * chars_per_line
            if used + cost > budget * 0.97:
                break
            paras.append(text)
            used += cost
        cols.append(paras)
    parts = []
    for c, paras in enumerate(cols):
        html = []
        for i, text in enumerate(paras):
            if c == column and i == before:
                html.append(f"<img class='photo' src='{_photo(rng, 520, 360)}' alt='Photograph'>")
            cls = " class='lead'" if c == 0 and i == 0 else ""
            html.append(f"<p{cls}>{text}</p>")
        if c == column and before >= len(paras):
            html.append(f"<img class='photo' src='{_photo(rng, 520, 360)}' alt='Photograph'>")
        parts.append(f"<div class='col'>{''.join(html)}</div>")
    title = rng.choice(["The River Comes Back", "Market Days Return", "A Town Looks Ahead"])
    body = (f"<h1>{title}</h1><p class='standfirst'>{deck.para(1)}</p>"
            f"<div class='cols'>{''.join(parts)}</div>")  # fmt: skip
    return _html(title, css, body, [footer])


def generate(out_dir: Path = OUT) -> list[str]:
    """Every variant's truth HTML, printout and scan (regenerated when missing)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in VARIANTS:
        if (out_dir / f"{name}.scan.pdf").exists():
            continue
        rng = random.Random(f"{SEED}-{name}")
        html = out_dir / f"{name}.html"
        html.write_text(_page(name, rng), encoding="utf-8")
        print_pdf(html, out_dir / f"{name}.pdf")
        with pymupdf.open(out_dir / f"{name}.pdf") as doc:
            if doc.page_count != 1:
                raise SystemExit(f"{name}: {doc.page_count} pages, the text overflows one page")
        scan(out_dir / f"{name}.pdf", out_dir / f"{name}.scan.pdf", rng, dpi=VARIANTS[name][5])
    return list(VARIANTS)


def _flat(text: str) -> str:
    return " ".join(text.split())


def cer(truth: str, got: str) -> float:
    truth, got = _flat(truth), _flat(got)
    return Levenshtein.distance(truth, got) / max(1, len(truth))


def main() -> None:
    args = arguments(__doc__, only="variants whose name contains one of these",
                     dump="keep every system's HTML in this folder")  # fmt: skip
    names = [n for n in generate() if not args.only or any(o in n for o in args.only)]
    held = validation_members(CORPUS, VARIANTS)
    engine = TesseractEngine()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for name in names:
            pdf = OUT / f"{name}.scan.pdf"
            truth = structure_of((OUT / f"{name}.html").read_text(encoding="utf-8"), truth=True)
            for system in args.systems:
                started = time.perf_counter()
                html = run_system(system, pdf, workdir, engine)
                if args.dump:
                    args.dump.mkdir(parents=True, exist_ok=True)
                    (args.dump / f"{name}.{system}.html").write_text(html, encoding="utf-8")
                got = structure_of(html)
                row = {
                    "page": name,
                    "split": "validation" if name in held else "tune",
                    "system": system,
                    "s": round(time.perf_counter() - started, 1),
                    "cer": round(cer(" ".join(truth.sequence), " ".join(got.sequence)), 4),
                    "order": order_score(truth, got),
                }
                rows.append(row)
                print(f"{name:18} {row['split']:10} {system:12} CER {row['cer']:.3f}  "
                      f"order {row['order']:.2f}  {row['s']:5.1f}s", flush=True)  # fmt: skip
    summary = {}
    for split in ("tune", "validation"):
        for system in args.systems:
            part = [r for r in rows if r["split"] == split and r["system"] == system]
            if part:
                summary[f"{split}/{system}"] = {
                    "pages": len(part),
                    "mean_cer": round(sum(r["cer"] for r in part) / len(part), 4),
                    "max_cer": max(r["cer"] for r in part),
                    "mean_order": round(sum(r["order"] for r in part) / len(part), 3),
                }
    print("\n" + "\n".join(f"{k:24} {v}" for k, v in summary.items()))
    write_result(dated("magazine_scans"),
                 {"date": str(dt.date.today()), "rows": rows, "summary": summary})  # fmt: skip


if __name__ == "__main__":
    main()
