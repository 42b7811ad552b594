"""Where does `job_finish` spend its time on a long document? The steps it runs after the last
page is read (readings from JSON, build_document, render_and_check, make_report, write_outputs),
timed on synthetic model-engine readings, without the database or page images.

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/finish_profile.py [--pages 256 1024] [--profile]
        [--dump DIR] [--readings bench/resources/gemma_readings-2026-11-30.json]

Each page looks like what the gemma engine reads (models/gemma/parse/): a heading, 6-10
paragraphs of ~80 words, sometimes a list, a table, a figure (no image: flagged for review) or a
footnote, a printed page number; text only, no boxes, no words, source "model". --readings FILE
takes stored readings instead (a JSON list, as the app stores them), repeated in turn to reach
each page count and renumbered 1..N (bench/resources/ holds real ones from a GPU host).
--profile runs cProfile on the largest case and prints the top functions; --dump writes each
case's HTML and findings (to compare outputs before and after a change). Writes
bench/results/finish_profile-<date>[-label].json.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import io
import json
import os
import pstats
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import django  # noqa: E402

django.setup()

from conversion.pipeline.accessibility import check_document, check_html  # noqa: E402
from conversion.pipeline.flow import (  # noqa: E402
    build_document,
    make_report,
    render_and_check,
    write_outputs,
)
from conversion.pipeline.render import RenderOptions, render_document  # noqa: E402
from models.engine import PageReading, ReadBlock, reading_from_json, reading_to_json  # noqa: E402

STEM = "document"
PHASES = ["from_json", "build_document", "render_and_check", "make_report", "write_outputs"]
# render_and_check again, piece by piece, on a fresh document: where its time goes.
PARTS = ["render_document", "check_document", "check_html"]

_VOCABULARY = (
    "the of and to in a is that for it as was with be by on not he this are or his from at which "
    "but have an they you were her she there been one all we their has would when if so no will "
    "more what up out can said about other into than its time only could new them man some these "
    "then two first may any like now my such make over our even most me state after also made "
    "many did must before back see through way where get much go well your know should down work "
    "year because come people just say each those take day good how long little own great under "
    "government thought children development character literature parliament committee evidence "
    "reading accessible document structure heading paragraph library catalogue archive scanned "
    "printed chapter section appendix measurement temperature population river mountain village "
    "L'été déjà über naïve café Straße coöperation façade résumé señor"
)
_WORDS = _VOCABULARY.split()


def _sentence(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(_WORDS) for _ in range(words))
    return text[:1].upper() + text[1:] + rng.choice([".", ".", ".", "?", ";", ":", ","])


def _paragraph(rng: random.Random, words: int = 80) -> str:
    out, left = [], words
    while left > 0:
        n = min(left, rng.randint(8, 22))
        out.append(_sentence(rng, n))
        left -= n
    text = " ".join(out)
    # Now and then a paragraph continues the one before (lower case, no sentence end).
    return text[:1].lower() + text[1:] if rng.random() < 0.1 else text


def synthetic_readings(pages: int, seed: int = 7) -> list[PageReading]:
    rng = random.Random(seed)
    readings = []
    for number in range(1, pages + 1):
        blocks: list[ReadBlock] = []
        if rng.random() < 0.3:
            blocks.append(ReadBlock(kind="page_header", text="A Long Scanned Report"))
        level = 1 if number == 1 else rng.choice([2, 2, 3])
        blocks.append(ReadBlock(kind="heading", text=_sentence(rng, 5)[:-1], level=level))
        for i in range(rng.randint(6, 10)):
            blocks.append(ReadBlock(kind="paragraph", text=_paragraph(rng, rng.randint(60, 100))))
            if i == 2 and rng.random() < 0.25:
                ordered = rng.random() < 0.5
                for k in range(rng.randint(3, 6)):
                    blocks.append(
                        ReadBlock(
                            kind="list_item",
                            text=_sentence(rng, rng.randint(4, 14)),
                            level=1 if k == 0 or rng.random() < 0.7 else 2,
                            ordered=ordered,
                            marker=f"{k + 1}." if ordered else "•",
                        )
                    )
            if i == 4 and rng.random() < 0.15:
                cols = rng.randint(2, 5)
                rows = [[{"text": _sentence(rng, 2)[:-1], "header": True} for _ in range(cols)]]
                rows += [
                    [{"text": str(rng.randint(0, 9999)), "header": False} for _ in range(cols)]
                    for _ in range(rng.randint(2, 8))
                ]
                blocks.append(ReadBlock(kind="table", rows=rows))
            if i == 5 and rng.random() < 0.1:
                alt = _sentence(rng, 12) if rng.random() < 0.5 else None
                blocks.append(
                    ReadBlock(
                        kind="figure", alt=alt, text=_sentence(rng, 6), bbox=(80, 400, 1200, 900)
                    )
                )
        if rng.random() < 0.08:
            blocks.append(
                ReadBlock(kind="footnote", text=f"{rng.randint(1, 9)} {_sentence(rng, 15)}")
            )
        if rng.random() < 0.8:
            blocks.append(ReadBlock(kind="page_number", text=str(number)))
        findings = []
        if rng.random() < 0.02:
            findings.append(
                {
                    "code": "MODEL_OUTPUT_TRUNCATED",
                    "level": "needs_review",
                    "message": "The end of the page may be missing.",
                }
            )
        readings.append(
            PageReading(
                page_number=number,
                blocks=blocks,
                width=1275,
                height=1650,
                language="en",
                source="model",
                findings=findings,
                raw_text="x" * 3000,
            )
        )
    return readings


def cycled_readings(sample: list[dict], pages: int) -> list[dict]:
    """`pages` stored readings: the sample's, repeated in turn, numbered 1..pages."""
    return [dict(sample[i % len(sample)], page_number=i + 1) for i in range(pages)]


def stored_readings(pages: int, sample: list[dict] | None) -> list[dict]:
    """The readings as job_finish finds them: JSON in the Page rows."""
    if sample is not None:
        return cycled_readings(sample, pages)
    return [json.loads(json.dumps(reading_to_json(r))) for r in synthetic_readings(pages)]


def no_image(number: int) -> None:
    """No page images: figures stay uncropped (flagged image-missing), as job_finish would
    without them; cropping is not what grows with the page count."""
    return None


def run_finish(
    stored: list[dict], workdir: Path, timings: dict[str, float] | None = None
) -> tuple[str, dict]:
    """job_finish's steps on the stored readings; returns the HTML and the report."""
    timings = {} if timings is None else timings

    def timed(name: str, fn: Callable, *args, **kwargs):
        started = time.perf_counter()
        result = fn(*args, **kwargs)
        timings[name] = time.perf_counter() - started
        return result

    readings = timed("from_json", lambda: [reading_from_json(r) for r in stored])
    staged = workdir / "files"
    document = timed(
        "build_document",
        build_document,
        readings,
        no_image,
        title="Synthetic",
        language=None,
        files_dir=staged,
    )
    html, findings = timed(
        "render_and_check", render_and_check, document, files_dir_name=f"{STEM}_files"
    )
    report = timed(
        "make_report",
        make_report,
        document=document,
        findings=findings,
        engine={"engine": "gemma", "package": "synthetic"},
        source="synthetic.pdf",
    )
    timed("write_outputs", write_outputs, workdir / "out", STEM, html, report, staged)
    return html, report


def run_parts(stored: list[dict], workdir: Path) -> dict[str, float]:
    readings = [reading_from_json(r) for r in stored]
    document = build_document(
        readings, no_image, title="Synthetic", language=None, files_dir=workdir / "files2"
    )
    out: dict[str, float] = {}
    started = time.perf_counter()
    html = render_document(document, RenderOptions(files_dir=f"{STEM}_files"))
    out["render_document"] = time.perf_counter() - started
    started = time.perf_counter()
    check_document(document)
    out["check_document"] = time.perf_counter() - started
    started = time.perf_counter()
    check_html(html, expected_pages=len(document.pages))
    out["check_html"] = time.perf_counter() - started
    return out


def profile(stored: list[dict], top: int) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        profiler = cProfile.Profile()
        profiler.enable()
        run_finish(stored, Path(tmp))
        profiler.disable()
    buf = io.StringIO()
    pstats.Stats(profiler, stream=buf).sort_stats("cumulative").print_stats(top)
    pstats.Stats(profiler, stream=buf).sort_stats("tottime").print_stats(top)
    return buf.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, nargs="+", default=[256, 1024])
    parser.add_argument("--repeat", type=int, default=1, help="runs per size; the best counts")
    parser.add_argument("--profile", action="store_true", help="cProfile the largest size")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--dump", type=Path, help="write each size's HTML and findings here")
    parser.add_argument("--label", default="", help="appended to the results' file name")
    parser.add_argument(
        "--readings", type=Path, help="stored readings (JSON list) to cycle instead of synthetic"
    )
    args = parser.parse_args()
    sample = json.loads(args.readings.read_text(encoding="utf-8")) if args.readings else None

    rows = []
    for pages in args.pages:
        stored = stored_readings(pages, sample)
        best: dict[str, float] = {}
        parts: dict[str, float] = {}
        for _ in range(args.repeat):
            timings: dict[str, float] = {}
            with tempfile.TemporaryDirectory() as tmp:
                html, report = run_finish(stored, Path(tmp), timings)
                split = run_parts(stored, Path(tmp))
            best = {k: min(v, best.get(k, v)) for k, v in timings.items()}
            parts = {k: min(v, parts.get(k, v)) for k, v in split.items()}
        if args.dump:
            args.dump.mkdir(parents=True, exist_ok=True)
            (args.dump / f"{pages}.html").write_text(html, encoding="utf-8")
            (args.dump / f"{pages}.findings.json").write_text(
                json.dumps(report["findings"], indent=1, ensure_ascii=False), encoding="utf-8"
            )
        rows.append(
            {
                "pages": pages,
                "html_bytes": len(html.encode()),
                "findings": len(report["findings"]),
                "summary": report["summary"],
                "phases_s": best,
                "total_s": sum(best.values()),
                "render_and_check_parts_s": parts,
            }
        )

    names = PHASES + ["total"] + PARTS
    print(f"{'pages':>6} " + " ".join(f"{n:>17}" for n in names))
    for row in rows:
        values = [row["phases_s"][n] for n in PHASES] + [row["total_s"]]
        values += [row["render_and_check_parts_s"][n] for n in PARTS]
        print(f"{row['pages']:>6} " + " ".join(f"{v:>16.3f}s" for v in values))
    print("(render_document, check_document, check_html: render_and_check's parts, run apart)")

    out = {
        "date": dt.date.today().isoformat(),
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "label": args.label,
        "readings": str(args.readings) if args.readings else "synthetic",
        "repeat": args.repeat,
        "rows": rows,
    }
    if args.profile:
        largest = max(args.pages)
        stored = stored_readings(largest, sample)
        text = profile(stored, args.top)
        print(f"\ncProfile, {largest} pages:\n{text}")
        out["profile_pages"] = largest
        out["profile_top"] = text.splitlines()[: 12 + args.top]
    suffix = f"-{args.label}" if args.label else ""
    path = ROOT / "bench" / "results" / f"finish_profile-{out['date']}{suffix}.json"
    path.write_text(json.dumps(out, indent=2))
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
