"""Pages none of our corpora hold: TeX Live's documentation on this machine (/usr/share/doc/
texlive-doc, Debian's texlive-*-doc packages), each page read as the file has it, as a scan of
it, and as that scan turned over and on its side, against the page's own text layer (exact: the
words pdfTeX or LuaTeX set). What a hidden hold-out of unseen pages asks of the readings, on
pages nobody here tuned on. Two shelves: `manuals` (package documentation, font samples,
slides, letters) and `papers` (texlive-publishers-doc: journals' and universities' classes,
their sample articles, theses and templates: one, two and three columns, title blocks,
affiliations, abstracts, tables, references).

    OMP_THREAD_LIMIT=1 .venv/bin/python bench/unseen_pages.py [--shelf manuals|papers]
        [--docs N] [--seed S] [--split tune|validation|all] [--tag TAG]

Sample: the manuals in sorted order shuffled by `--seed`, those with a page of 30 words or more
among their first 12 (one such page each, drawn by the seed), the first N of the split. Split:
a third of the files by name (sha1 of the file name, 0 mod 3) are validation, never looked at
while a rule is tuned; the manuals earlier sessions read by hand (btxdoc, makeindex, amsfndoc,
the pdfTeX manual, the TeX Live guide, KOMA-Script's guide and letters) are left out.

Per page and variant (digital, scan: bench.structure_corpus.scan; turned 180 and 90: the scan's
pixels turned before the noise, as a feeder turns a sheet), beside plain Tesseract on the scan
and pymupdf4llm on the file:
- recall: the layer's words a reading holds (multisets, bench.do_no_harm.kept_words: a misread
  letter in a word of four or more is no word lost; the layer's text with TeX's spacing accents
  set on their letters, `layer_text`, from session 35); emptied: under a tenth of them;
- flagged: an UNREADABLE finding that does not say the page is print ("handwriting");
- order: the longest run of the layer's words a reading holds in the layer's order, over the
  words it holds exactly (pdfTeX writes a page in reading order, column after column);
- headings: display lines found as headings (the layer's lines set DISPLAY_SIZE times the
  page's body size or more, a few words each, consecutive ones of one size joined: a title, a
  section's head; found when an output heading reads as it, fuzzy ratio HEADING_MATCH, or
  holds it whole beside a label, spaces aside);
- furniture kept out of the text: the layer's lines in the page's top or bottom FURNITURE_BAND
  that FURNITURE_PAGES other pages nearby print there too, digits aside (running heads and
  feet, page numbers), not in the reading's text, its `furniture` paragraphs aside (a page
  number: not among its first or last FURNITURE_EDGE_WORDS words);
- routed: the report routes the page to review for more than a figure's description
  (bench.do_no_harm's FIGURE_CODES); a wrong page (recall or order under WRONG_SHARE) routed to
  nobody is a silent failure, a right one (both at RIGHT_SHARE or more) routed a false alarm.
Prints a table per split; writes bench/results/unseen_pages-<date>[-papers][-TAG].json.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import random
import re
import sys
import tempfile
import unicodedata
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import django  # noqa: E402

if __name__ == "__main__":  # not again in each isolated PDF reader, which imports this script
    django.setup()

import numpy as np  # noqa: E402
import pymupdf  # noqa: E402
from bs4 import BeautifulSoup  # noqa: E402
from PIL import Image, ImageFilter  # noqa: E402
from rapidfuzz import fuzz  # noqa: E402
from rapidfuzz.distance import LCSseq  # noqa: E402

from bench.common import run_pymupdf4llm  # noqa: E402
from bench.do_no_harm import EMPTIED_SHARE, FIGURE_CODES, kept_words, page_texts  # noqa: E402
from bench.plain_reading import tesseract_reading, word_sequence  # noqa: E402
from bench.quality import normalize_text  # noqa: E402
from bench.report import dated, write_result  # noqa: E402
from bench.structure_corpus import scan  # noqa: E402
from conversion.engines import get_engine  # noqa: E402
from conversion.options import convert_options  # noqa: E402
from conversion.pipeline.convert import convert_pdf  # noqa: E402
from conversion.pipeline.document import OPEN_LEVELS  # noqa: E402
from conversion.pipeline.errors import ConversionError  # noqa: E402

MANUALS = Path("/usr/share/doc/texlive-doc")
# The files of the papers shelf (Debian's list of the package's files); the rest are manuals.
PAPERS_LIST = Path("/var/lib/dpkg/info/texlive-publishers-doc.list")
SHELVES = ("manuals", "papers")
READ_BY_HAND = ("btxdoc", "makeindex", "amsfndoc", "pdftex", "texlive-en", "live", "koma-script",
                "scrguide", "letter-example")  # fmt: skip
MIN_WORDS = 30  # a page of fewer layer words says little
FIRST_PAGES = 12  # the page is drawn from the first ones (a manual's index pages are lists)
TURNS = (180, 90)
SCAN_DPI = 200  # the turned scans' resolution (a feeder's common setting)
VARIANTS = ("digital", "scan", *(f"turned {t}" for t in TURNS))
PEERS = ("plain scan", "pymupdf4llm")  # plain Tesseract on the scan; pymupdf4llm on the file
DISPLAY_SIZE = 1.25  # a line set this many times the body's size is a title or a head
DISPLAY_MAX_WORDS = 20  # ... when it holds this many words at most
HEADING_MATCH = 85  # fuzzy ratio at which an output heading reads as a display line
WRONG_SHARE = 0.9  # a page that lost a tenth of its words, or of their order, is wrong
RIGHT_SHARE = 0.98  # ... one that kept this share of both is right
FURNITURE_BAND = 0.1  # the page's top or bottom tenth, where running heads and feet stand
FURNITURE_PAGES = 2  # ... a line there is furniture when this many other pages print it
FURNITURE_NEAR = 6  # ... among this many pages on either side
FURNITURE_EDGE_WORDS = 5  # a page number in the text stands among its first or last words
HEADING_PART_MATCH = 95  # ... or at which a heading holds it whole
HEADING_TAGS = ["h1", "h2", "h3", "h4", "h5", "h6"]


def split_of(path: Path) -> str:
    return (
        "validation" if int(hashlib.sha1(path.name.encode()).hexdigest(), 16) % 3 == 0 else "tune"
    )


def _read_by_hand(path: Path) -> bool:
    return any(name in path.name or name in path.parent.name for name in READ_BY_HAND)


def shelf_files(shelf: str) -> list[Path]:
    """The shelf's PDFs in sorted order (the manuals as before the papers were installed)."""
    papers = set(PAPERS_LIST.read_text().splitlines()) if PAPERS_LIST.exists() else set()
    every = sorted(p for p in MANUALS.rglob("*.pdf") if not _read_by_hand(p))
    return [p for p in every if (str(p) in papers) == (shelf == "papers")]


def sample(seed: int, count: int, split: str, shelf: str = "manuals") -> list[tuple[Path, int]]:
    """(file, 0-based page) pairs of the shelf's split, in the seed's order."""
    files = shelf_files(shelf)
    rng = random.Random(seed)
    rng.shuffle(files)
    out = []
    for path in files:
        if len(out) == count:
            break
        if split != "all" and split_of(path) != split:
            continue
        try:
            with pymupdf.open(path) as doc:
                index = rng.randrange(min(doc.page_count, FIRST_PAGES))
                if len(doc[index].get_text().split()) >= MIN_WORDS:
                    out.append((path, index))
        except Exception:  # noqa: BLE001 - a manual MuPDF cannot open is no sample
            continue
    return out


def turned_scan(pdf: Path, out: Path, turn: int, seed: int) -> None:
    """The page rendered grey at SCAN_DPI, turned by `turn` degrees, blurred, noised, JPEG."""
    with pymupdf.open(pdf) as doc:
        pix = doc[0].get_pixmap(dpi=SCAN_DPI, colorspace=pymupdf.csGRAY)
    image = Image.frombytes("L", (pix.width, pix.height), pix.samples)
    image = image.rotate(turn, expand=True).filter(ImageFilter.GaussianBlur(0.6))
    noise = np.random.default_rng(seed).normal(0, 8, (image.height, image.width))
    image = Image.fromarray(np.clip(np.asarray(image, np.float32) + noise, 0, 255).astype(np.uint8))
    buf = io.BytesIO()
    image.save(buf, "JPEG", quality=70, dpi=(SCAN_DPI, SCAN_DPI))
    doc = pymupdf.open()
    page = doc.new_page(width=image.width * 72 / SCAN_DPI, height=image.height * 72 / SCAN_DPI)
    page.insert_image(page.rect, stream=buf.getvalue())
    doc.save(out)
    doc.close()


# TeX's accents in OT1 fonts are glyphs of their own, written before their letter in the layer
# ("Epit´acio", "cita¸c˜ao", "Lu´ıs"): the truth is the accented letter the page shows.
_SPACING_ACCENTS = {"´": "\u0301", "`": "\u0300", "ˆ": "\u0302", "˜": "\u0303", "¨": "\u0308",
                    "¸": "\u0327", "ˇ": "\u030c", "˘": "\u0306", "¯": "\u0304", "˙": "\u0307",
                    "˚": "\u030a"}  # fmt: skip
_ACCENTED = re.compile(f"([{''.join(_SPACING_ACCENTS)}])([^\\W\\d_])")


def layer_text(page: pymupdf.Page) -> str:
    """The page's layer text, TeX's spacing accents set on their letters."""
    return unicodedata.normalize("NFC", _ACCENTED.sub(_accent, page.get_text()))


def _accent(match: re.Match) -> str:
    letter = "i" if match[2] == "ı" else match[2]
    return letter + _SPACING_ACCENTS[match[1]]


def display_lines(page: pymupdf.Page) -> list[str]:
    """The page's titles and heads by type size (see the module's doc)."""
    lines = []
    for block in page.get_text("dict")["blocks"]:
        for line in block.get("lines", []):
            spans = [s for s in line["spans"] if s["text"].strip()]
            if spans:
                text = "".join(s["text"] for s in spans)
                lines.append((block["number"], max(s["size"] for s in spans), text))
    sizes = sorted((size, len(text)) for _, size, text in lines)
    half, seen, body = sum(n for _, n in sizes) / 2, 0, 0.0
    for size, n in sizes:  # the median size by characters
        seen += n
        if seen >= half:
            body = size
            break
    out: list[tuple[int, float, str]] = []
    for number, size, text in lines:
        words = text.split()
        if size < DISPLAY_SIZE * body or sum(c.isalpha() for c in text) < 3:
            continue
        if out and out[-1][0] == number and abs(out[-1][1] - size) < 0.5:
            out[-1] = (number, size, f"{out[-1][2]} {text}")
        elif len(words) <= DISPLAY_MAX_WORDS:
            out.append((number, size, text))
    return [_bare(t) for _, _, t in out if len(t.split()) <= DISPLAY_MAX_WORDS]


def _bare(text: str) -> str:
    """Case folded, without spaces (a pdfTeX layer's line may have none: "1Introduction")."""
    return re.sub(r"\s+", "", normalize_text(text).casefold())


def headings_found(html: str, displays: list[str]) -> int:
    """How many of `displays` an output heading (h1-h6, the page's header's title too) reads."""
    soup = BeautifulSoup(html, "lxml")
    heads = [_bare(h.get_text(" ")) for h in soup.find_all(HEADING_TAGS)]
    return sum(any(_reads_as(h, d) for h in heads) for d in displays)


def _reads_as(heading: str, display: str) -> bool:
    """The heading is the display line, or holds it whole beside its label or its other
    line ("3.3" of "3.3 论文选项"; "Kapitel 1" and "Vorwort", set on two lines, as one head)."""
    if fuzz.ratio(heading, display) >= HEADING_MATCH:
        return True
    return len(display) >= 4 and fuzz.partial_ratio(display, heading) >= HEADING_PART_MATCH


def _band_lines(page: pymupdf.Page) -> list[str]:
    height, out = page.rect.height, []
    for block in page.get_text("dict")["blocks"]:
        for line in block.get("lines", []):
            text = "".join(s["text"] for s in line["spans"]).strip()
            middle = (line["bbox"][1] + line["bbox"][3]) / 2
            if text and not FURNITURE_BAND * height <= middle <= (1 - FURNITURE_BAND) * height:
                out.append(text)
    return out


def _masked(text: str) -> str:
    return re.sub(r"\d+", "#", _bare(text))


def furniture_lines(doc: pymupdf.Document, index: int) -> list[str]:
    """The page's running heads, feet and page numbers (see the module's doc)."""
    near = range(max(0, index - FURNITURE_NEAR), min(doc.page_count, index + FURNITURE_NEAR + 1))
    others = [{_masked(t) for t in _band_lines(doc[i])} for i in near if i != index]
    return [
        t
        for t in _band_lines(doc[index])
        if sum(_masked(t) in o for o in others) >= FURNITURE_PAGES
    ]


def furniture_kept_out(html: str, furniture: list[str]) -> int:
    """How many of the `furniture` lines the reading's text (its furniture paragraphs aside)
    does not hold."""
    soup = BeautifulSoup(html, "lxml")
    for element in soup.select(".furniture"):
        element.decompose()
    flow = " ".join(page_texts(str(soup)).values())
    bare, words = _bare(flow), flow.split()
    edges = {
        w.strip(".,:;()[]") for w in words[:FURNITURE_EDGE_WORDS] + words[-FURNITURE_EDGE_WORDS:]
    }
    kept_out = 0
    for line in furniture:
        if any(c.isalpha() for c in line):
            kept_out += _bare(line) not in bare
        else:
            kept_out += line.strip() not in edges
    return kept_out


def measures(text: str, truth: list[str]) -> dict:
    """A reading's recall, order and lost words against the layer's word sequence."""
    sequence = word_sequence(text)
    ours, layer = Counter(sequence), Counter(truth)
    _, matched, lost = kept_words(ours, layer)
    exact = sum((ours & layer).values())
    return {
        "recall": matched / max(len(truth), 1),
        "order": LCSseq.similarity(sequence, truth) / exact if exact else 0.0,
        "emptied": len(sequence) < EMPTIED_SHARE * len(truth),
        "lost": lost[:40],
    }


def read(pdf: Path, truth: list[str], displays: list[str], furniture: list[str], workdir: Path,
         engine, opts) -> dict:  # fmt: skip
    try:
        result = convert_pdf(pdf, workdir, engine, opts)
    except ConversionError as exc:
        return {"error": exc.code}
    html = result.html_path.read_text(encoding="utf-8")
    findings = result.report["findings"]
    unread = [f for f in findings if f["code"] == "UNREADABLE"]
    open_codes = sorted({f["code"] for f in findings if f.get("level") in OPEN_LEVELS})
    return {
        **measures(" ".join(page_texts(html).values()), truth),
        "flagged": any(not f.get("script") and not f.get("printed") for f in unread),
        "headings": headings_found(html, displays),
        "furniture_out": furniture_kept_out(html, furniture),
        "routed": bool(set(open_codes) - set(FIGURE_CODES)),
        "open_codes": open_codes,
    }


def run_page(path: Path, index: int, engine, opts, workdir: Path) -> dict:
    one = workdir / "page.pdf"
    with pymupdf.open(path) as doc:
        furniture = furniture_lines(doc, index)
        doc.select([index])
        doc.save(one)
        truth = word_sequence(layer_text(doc[0]))
        displays = display_lines(doc[0])
    name = f"{path.stem} p{index + 1}"
    seed = int(hashlib.sha1(name.encode()).hexdigest(), 16) % (1 << 30)
    row = {"page": name, "file": str(path), "split": split_of(path), "words": len(truth),
           "displays": displays, "furniture": furniture}  # fmt: skip
    scanned = workdir / "scan.pdf"
    scan(one, scanned, random.Random(seed))
    texts = (truth, displays, furniture)
    row["digital"] = read(one, *texts, workdir / "digital", engine, opts)
    row["scan"] = read(scanned, *texts, workdir / "scan", engine, opts)
    for turn in TURNS:
        pdf = workdir / f"turned-{turn}.pdf"
        turned_scan(one, pdf, turn, seed)
        row[f"turned {turn}"] = read(pdf, *texts, workdir / f"turned-{turn}", engine, opts)
    with pymupdf.open(scanned) as doc:
        text, _ = tesseract_reading(doc, 0, workdir, "eng")
    row["plain scan"] = measures(text, truth)
    html = run_pymupdf4llm(one)
    row["pymupdf4llm"] = {
        **measures(" ".join(page_texts(html).values()), truth),
        "headings": headings_found(html, displays),
        "furniture_out": furniture_kept_out(html, furniture),
    }
    return row


def summarize(rows: list[dict]) -> dict:
    total = sum(r["words"] for r in rows) or 1
    out: dict = {"pages": len(rows)}
    for variant in (*VARIANTS, *PEERS):
        done = [r for r in rows if "recall" in r.get(variant, {})]
        out[variant] = {
            "recall_pooled": round(sum(r[variant]["recall"] * r["words"] for r in done) / total, 4),
            "order_pooled": round(sum(r[variant]["order"] * r["words"] for r in done) / total, 4),
            "headings_found": sum(r[variant].get("headings", 0) for r in done),
            "wrong": sum(_wrong(r[variant]) for r in done),
            "silent": _routing(done, variant, lambda r: _wrong(r) and not r["routed"]),
            "right": sum(_right(r[variant]) for r in done),
            "false_alarms": _routing(done, variant, lambda r: _right(r) and r["routed"]),
            "displays": sum(len(r["displays"]) for r in done),
            "furniture_out": sum(r[variant].get("furniture_out", 0) for r in done),
            "furniture": sum(len(r["furniture"]) for r in done),
            "failed": len(rows) - len(done),
            "emptied": sum(bool(r[variant].get("emptied")) for r in done),
            "flagged": sum(bool(r[variant].get("flagged")) for r in done),
        }
    return out


def _routing(rows: list[dict], variant: str, counts) -> int | None:
    """How many of the variant's readings `counts`, where the reading has a report to route
    (ours); None for a peer's, which routes nothing."""
    judged = [r[variant] for r in rows if "routed" in r[variant]]
    return sum(map(counts, judged)) if judged else None


def _shown(count: int | None) -> str:
    return "-" if count is None else str(count)


def _wrong(reading: dict) -> bool:
    return reading["recall"] < WRONG_SHARE or reading["order"] < WRONG_SHARE


def _right(reading: dict) -> bool:
    return reading["recall"] >= RIGHT_SHARE and reading["order"] >= RIGHT_SHARE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shelf", choices=SHELVES, default="manuals")
    parser.add_argument("--docs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--split", choices=("tune", "validation", "all"), default="all")
    parser.add_argument("--tag", default="")
    args = parser.parse_args()
    if not MANUALS.is_dir():
        print(f"{MANUALS} is missing (Debian's texlive-*-doc packages): nothing to read")
        return
    engine, opts = get_engine(None), convert_options()
    rows = []
    for path, index in sample(args.seed, args.docs, args.split, args.shelf):
        with tempfile.TemporaryDirectory() as tmp:
            row = run_page(path, index, engine, opts, Path(tmp))
        rows.append(row)
        cells = "  ".join(f"{v} {row[v].get('recall', 0):.3f}" for v in (*VARIANTS, *PEERS))
        print(f"{row['split']:10s} {row['page'][:38]:38s} {cells}", flush=True)
    summary = {split: summarize([r for r in rows if r["split"] == split])
               for split in ("tune", "validation")}  # fmt: skip
    for split, numbers in summary.items():
        print(f"\n{split}: {numbers['pages']} pages")
        for variant in (*VARIANTS, *PEERS):
            n = numbers[variant]
            print(f"  {variant:12s} recall {n['recall_pooled']:.4f}  order {n['order_pooled']:.4f}"
                  f"  headings {n['headings_found']}/{n['displays']}  furniture out "
                  f"{n['furniture_out']}/{n['furniture']}  silent {_shown(n['silent'])}/"
                  f"{n['wrong']}  false alarms {_shown(n['false_alarms'])}/{n['right']}  "
                  f"failed {n['failed']}  emptied {n['emptied']}  "
                  f"called handwriting {n['flagged']}")  # fmt: skip
    shelf = "" if args.shelf == "manuals" else f"-{args.shelf}"
    name = dated("unseen_pages") + shelf + (f"-{args.tag}" if args.tag else "")
    write_result(name, {"args": vars(args), "summary": summary, "pages": rows})


if __name__ == "__main__":
    main()
