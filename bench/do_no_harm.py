"""Do no harm (issue 31, item 4): every page of every corpus with truth, converted as
`manage.py convert` converts it (the registry's CPU engine, the settings' options), beside the
plain reading of the same page; the tune and validation splits (bench/splits.py) reported apart.

    OMP_THREAD_LIMIT=1 nice -n 10 .venv/bin/python bench/do_no_harm.py \\
        [--corpus NAME ...] [--split tune|validation|all] [--pages N] [--tag TAG]

--pages N converts at most N pages per corpus (and split), in member order: for quick runs.
Corpora (../shared/corpus, see its README; generated: bench/structure_corpus.py's documents):
ocrmypdf, tesseract, typewritten-fr (scans with transcripts), structure and generated (true
structure; each document born-digital and as a scan), realworld (the pages of
bench/resources/realworld_tests.jsonl, as bench/realworld_quality.py cuts them), tables-icdar2013
(born-digital tables with cell truth; the competition's "b" parts, which have no PDF here, left
out), latex (the book's pages, each converted alone as its own member; no per-page truth here),
pdfjs (each odd real-world file's first page; no truth: word keep and routing only).
About 10 s a page on two busy cores: the whole set (about 375 pages) takes over an hour.

The plain reading of a page (bench/plain_reading.py): its text layer (PyMuPDF's `get_text()`)
where the layer is a reading of the page (born-digital: enough words, not an earlier OCR run's
layer, language and not glyph codes), else plain Tesseract (300 DPI, text only, `-l fra` on
typewritten-fr, `-l eng` elsewhere, OMP_THREAD_LIMIT=1). Its junk: plain Tesseract's words read
below JUNK_CONFIDENCE that are in none of its dictionary's words (specks, strokes, a margin line
turned sideways read as letters): no text the page plainly holds.

Per page:
- recall: ours against the plain reading, as multisets of words (normalize_text, case folded,
  `\\w+` tokens; single characters in scripts written without spaces, since 2026-12-05):
  plain's words that ours has / plain's words, a word of NEAR_MIN_CHARS or
  more also kept as a spelling within NEAR_WORD (rapidfuzz ratio; either reading's misread
  letter is no word lost; letter-spaced type, which MuPDF's words give letter by letter
  (spaced_runs: SPACED_RUN_MIN one-letter words or more, kerned pairs among them), is kept
  where ours has the words it spells,
  since 2026-12-06); recall_exact: same words only; recall_text: the same over plain's
  words that are no junk, on printed pages (a handwritten page's plain reading is no reading
  of it; the figure issue 31 holds to 98 %; recall counts the junk and every page).
  Furniture aside: the text ours kept as furniture (running heads, page numbers) counts as
  kept: it is in the HTML, only marked; so does an image's alt text (a screen reader reads it).
- emptied: ours holds < EMPTIED_SHARE of plain's words while plain has >= EMPTIED_MIN_WORDS.
- flagged: an UNREADABLE finding (the engine's "Handwriting or illegible text") on the page;
  a flag is false unless the page is handwritten (realworld's pages with a `flag` test). One
  that says the page is print ("printed": print our languages do not read, its script named
  where known) calls nothing handwriting: `unread_script` holds the script.
- routed: a finding of an open level (conversion.pipeline.document.OPEN_LEVELS: error,
  needs_review) on the page or on no page (the doubts of models/reading/doubts.py and
  conversion/pipeline/doubts.py among them); figure_only: every such finding a figure's
  description or a scanned formula's (FIGURE_CODES: an image whose text a person writes). The
  summary's routed_codes counts the pages each code routes; open_findings keeps their messages.
Per document (a realworld page is its own one-page document):
- CER against the transcript, ours (the main reading text, furniture out) and plain, where the
  corpus has one (ocrmypdf, tesseract: bench.common.DOCS's transcripts; typewritten-fr: the ALTO
  lines, handwritten lines left out) and the whole document ran; `worse` counts the documents
  whose CER is above plain's. There too, true recall: plain's words that the transcript holds
  (multisets), kept by ours: plain's own misreadings ("1ui" for "lui") are no words ours lost,
  which the recall above counts as lost when ours reads them right.
- pass share, where truth makes tests: realworld (its tests, bench/realworld_quality.passes),
  structure and generated (each of bench/structure_quality's measures a test, passed at
  >= MEASURE_PASS), tables-icdar2013 (share of truth cells found with their right and lower
  neighbours, structure_quality.cell_score). Silent failure: pass share < 2/3 (more than a
  third failing) and nothing routed; false alarm: pass share 1 and routed for more than a
  figure description, on a page whose truth asks for no review (a handwritten page's flag
  test passes only when the page routes to review).
Prints a table per corpus and split; writes bench/results/do_no_harm-<date>[-TAG].json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "axiya.settings")
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import django  # noqa: E402

if __name__ == "__main__":  # not again in each isolated PDF reader, which imports this script
    django.setup()

import pymupdf  # noqa: E402
from bs4 import BeautifulSoup, NavigableString  # noqa: E402
from rapidfuzz import fuzz, process  # noqa: E402

# structure_quality (realworld_quality imports it) sets Django up itself when imported.
from bench.common import DOCS, RESOURCES  # noqa: E402
from bench.plain_reading import plain_reading, word_sequence, words  # noqa: E402
from bench.quality import cer, iter_main_text, normalize_text  # noqa: E402
from bench.realworld_quality import REALWORLD, TESTS, page_pdf, passes, reading_of  # noqa: E402
from bench.splits import SHARED_CORPUS, TUNE, VALIDATION, members, split_of  # noqa: E402
from bench.structure_quality import (  # noqa: E402
    MEASURES,
    Structure,
    cell_score,
    documents,
    structure_of,
)
from conversion.engines import get_engine  # noqa: E402
from conversion.options import convert_options  # noqa: E402
from conversion.pipeline.convert import convert_pdf  # noqa: E402
from conversion.pipeline.document import OPEN_LEVELS  # noqa: E402
from conversion.pipeline.errors import ConversionError  # noqa: E402
from tests.conftest import image_to_pdf  # noqa: E402

CORPORA = ("ocrmypdf", "tesseract", "typewritten-fr", "structure", "generated", "realworld",
           "tables-icdar2013", "latex", "pdfjs")  # fmt: skip
EMPTIED_SHARE = 0.1  # ours keeps less than this share of plain's words: the page was emptied
EMPTIED_MIN_WORDS = 20  # ... where plain read at least this many
FAILING_SHARE = 2 / 3  # a unit passing less than this share of its tests fails "mostly"
MEASURE_PASS = 0.9  # a structure measure (a share of its items) passes at this score
UNREADABLE = "UNREADABLE"
# An image's text alternative a person writes: a figure's description; a scanned formula kept as
# an image (the CPU engine transcribes none; realworld's truth passes it only with this finding).
FIGURE_CODES = ("FIGURE_ALT_REVIEW", "FIGURE_ALT_EMPTY", "FORMULA_NOT_TRANSCRIBED")
NEAR_WORD = 80  # rapidfuzz ratio: a word of ours this close to plain's is the same word misread
NEAR_MIN_CHARS = 4  # shorter words match only exactly
SPACED_RUN_MIN = 3  # one-letter words in a row in plain's reading: letter-spaced type ("L o r e m")
LOST_SHOWN = 80  # plain's words ours lacks, kept per page in the results (where words go)
MESSAGE_SHOWN = 200  # characters of each open finding's message kept per page (why it routes)
PLAIN_LANG = {"typewritten-fr": "fra"}  # plain Tesseract's language where it is not English


# (our html, report, the source's pages kept) -> the share of the truth's tests passed
Judge = Callable[[str, dict, list[int] | None], float | None]


@dataclass
class Sample:
    """One document to convert: where it comes from, its truth, and how to judge it."""

    corpus: str
    member: str  # the name bench/splits.py splits on
    source: Path  # the PDF (or image) as the corpus holds it
    pages: list[int] | None = None  # 1-based pages of source to keep; None: all
    transcript: str | None = None
    judge: Judge | None = None
    handwritten: set[int] = field(default_factory=set)  # pages of the converted PDF
    label: str = ""  # what a row shows (a member's scan, a realworld page)
    make_pdf: Callable[[Path], Path] | None = None  # writes the upload into a folder, if not source


# -- truth readers ---------------------------------------------------------------------------------
def _transcript(name: str) -> str | None:
    """bench.common.DOCS's transcript of an ocrmypdf / tesseract document."""
    path = DOCS.get(name)
    return (RESOURCES / path).read_text(encoding="utf-8") if path else None


def alto_transcript(xml: Path) -> str:
    """An ALTO page's lines in order, lines tagged handwritten left out."""
    root = ET.parse(xml).getroot()
    ns = {"a": root.tag.split("}")[0].strip("{")}
    labels = {t.get("ID"): t.get("LABEL", "") for t in root.iterfind(".//a:OtherTag", ns)}
    lines = []
    for line in root.iterfind(".//a:TextLine", ns):
        if "Handwritten" in labels.get(line.get("TAGREFS", ""), ""):
            continue
        words = [s.get("CONTENT", "") for s in line.iterfind("a:String", ns)]
        lines.append(" ".join(w for w in words if w))
    return "\n".join(lines)


def icdar_tables(xml: Path, pages: set[int] | None) -> Structure:
    """The competition's cells as grids of (normalized text, header unknown), tables on `pages`
    (1-based) only. Each region of a table is a grid of its own: a long list printed in three
    panels side by side (us-035a) numbers each panel's rows from 1, and the competition relates
    cells within a region only."""
    truth = Structure()
    for table in ET.parse(xml).getroot().iterfind("table"):
        for region in table.iterfind("region"):
            if pages is not None and int(region.get("page", "1")) not in pages:
                continue
            cells: dict[tuple[int, int], str] = {}
            for cell in region.iterfind("cell"):
                r0, c0 = int(cell.get("start-row")), int(cell.get("start-col"))
                r1 = int(cell.get("end-row", r0))
                c1 = int(cell.get("end-col", c0))
                text = normalize_text(cell.findtext("content") or "").lower()
                for r in range(r0, r1 + 1):
                    for c in range(c0, c1 + 1):
                        cells[(r, c)] = text
            if cells:
                rows = range(max(r for r, _ in cells) + 1)
                cols = range(max(c for _, c in cells) + 1)
                truth.tables.append([[(cells.get((r, c), ""), False) for c in cols] for r in rows])
    return truth


# -- judges ----------------------------------------------------------------------------------------
def structure_judge(truth_html: Path) -> Judge:
    truth = structure_of(truth_html.read_text(encoding="utf-8"), truth=True)

    def judge(html: str, report: dict, pages: list[int] | None) -> float | None:
        got = structure_of(html)
        scores = [
            MEASURES[k](truth, got) for k in MEASURES if k not in ("figures", "heading_f1_text")
        ]
        scores = [s for s in scores if s is not None]
        return sum(s >= MEASURE_PASS for s in scores) / len(scores) if scores else None

    return judge


def icdar_judge(xml: Path) -> Judge:
    """The cells of the tables on the pages kept."""

    def judge(html: str, report: dict, pages: list[int] | None) -> float | None:
        return cell_score(icdar_tables(xml, set(pages) if pages else None), structure_of(html))

    return judge


def realworld_judge(tests: list[dict]) -> Judge:
    def judge(html: str, report: dict, pages: list[int] | None) -> float | None:
        findings = [f for f in report.get("findings", []) if f.get("page") == 1]
        reading = reading_of(html, findings)
        return sum(passes(t, reading) for t in tests) / len(tests)

    return judge


# -- samples per corpus ----------------------------------------------------------------------------
def corpus_samples(corpus: str) -> list[Sample]:
    folder = SHARED_CORPUS / corpus
    if corpus in ("ocrmypdf", "tesseract"):
        return [Sample(corpus, name, folder / name, transcript=_transcript(name))
                for name in members(corpus)]  # fmt: skip
    if corpus == "typewritten-fr":
        return [Sample(corpus, name, folder / name,
                       transcript=alto_transcript((folder / name).with_suffix(".xml")))
                for name in members(corpus)]  # fmt: skip
    if corpus == "tables-icdar2013":
        return [Sample(corpus, doc_id, folder / f"{doc_id}.pdf",
                       judge=icdar_judge(folder / f"{doc_id}-str.xml"))
                for doc_id in members(corpus)]  # fmt: skip
    if corpus == "latex":
        by_pdf: dict[str, list[int]] = {}
        for page in members(corpus):
            name, number = page.rsplit("#p", 1)
            by_pdf.setdefault(name, []).append(int(number))
        return [Sample(corpus, f"{name}#p{n}", folder / name, pages=[n])
                for name, numbers in by_pdf.items() for n in numbers]  # fmt: skip
    if corpus == "realworld":
        return realworld_samples()
    if corpus == "pdfjs":
        # Odd real-world PDFs, no truth: each file's first page against its plain reading (a
        # text layer's words, or plain Tesseract), ours' losses on files no rule was fitted to.
        return [Sample(corpus, name, folder / name, pages=[1]) for name in members(corpus)]
    return structure_samples(corpus)


def structure_samples(corpus: str) -> list[Sample]:
    """structure (../shared) or generated (bench/structure_corpus.py), born-digital and scan."""
    out = []
    for name, pdf, truth, scanned in documents(None):
        stem = name.removesuffix(".scan")
        shared = truth.is_relative_to(SHARED_CORPUS)
        if (corpus == "structure") != shared:
            continue
        member = f"{stem}.pdf" if shared else stem
        out.append(Sample(corpus, member, pdf, judge=structure_judge(truth),
                          label=f"{member}{' scan' if scanned else ''}"))  # fmt: skip
    return out


def realworld_samples() -> list[Sample]:
    """Each tested realworld page as its one-page PDF (or scan), as realworld_quality cuts it."""
    tests = [json.loads(line) for line in TESTS.read_text(encoding="utf-8").splitlines()]
    keys = sorted({(t["pdf"], t["page"], bool(t.get("scan"))) for t in tests})
    out = []
    for name, page, scanned in keys:
        on_page = [
            t for t in tests if (t["pdf"], t["page"], bool(t.get("scan"))) == (name, page, scanned)
        ]
        handwritten = {1} if any(t["type"] == "flag" for t in on_page) else set()
        label = f"{name} p{page}{' scan' if scanned else ''}"
        cut = partial(page_pdf, name, page, scanned)  # when it runs: a scan takes a while
        out.append(Sample("realworld", name, REALWORLD / name, pages=[page], label=label,
                          judge=realworld_judge(on_page), handwritten=handwritten,
                          make_pdf=cut))  # fmt: skip
    return out


# -- one sample ------------------------------------------------------------------------------------
def upload(sample: Sample, workdir: Path) -> Path:
    """The PDF a user would upload: an image wrapped at its DPI, a page subset cut out."""
    if sample.make_pdf is not None:
        return sample.make_pdf(workdir)
    src = sample.source
    stem = re.sub(r"[^\w.-]", "_", sample.label or sample.member)
    if src.suffix.lower() not in (".pdf",):
        return image_to_pdf(src, workdir / f"{stem}.pdf")
    if sample.pages is None:
        return src
    out = workdir / f"{stem}.cut.pdf"
    with pymupdf.open(src) as doc:
        doc.select([p - 1 for p in sample.pages])
        doc.save(out)
    return out


def page_count(pdf: Path) -> int:
    with pymupdf.open(pdf) as doc:
        return doc.page_count


def kept_words(
    ours: Counter, plain: Counter, spaced: list[list[str]] = ()
) -> tuple[int, int, list[str]]:
    """(exact, near, lost): plain's words that ours has, as the same word, and also as a
    spelling within NEAR_WORD (one reading's misread letter is not a word lost), each word of
    ours used once; and plain's words that ours lacks (where the lost words go). `spaced`:
    plain's letter-spaced runs (spaced_runs): a word of ours spelled inside one holds its
    pieces, which plain read letter by letter ("L o r e m" read "Lorem" loses no word)."""
    exact = sum((ours & plain).values())
    left = list((ours - plain).elements())
    near = 0
    lost = []
    for word in (plain - ours).elements():
        hit = None
        if len(word) >= NEAR_MIN_CHARS and left:
            hit = process.extractOne(word, left, scorer=fuzz.ratio, score_cutoff=NEAR_WORD)
        if hit is not None:
            near += 1
            left.pop(hit[2])
        else:
            lost.append(word)
    spelled = _spelled(left, list(spaced)) & Counter(lost)
    for piece in spelled.elements():
        lost.remove(piece)
    near += sum(spelled.values())
    return exact, exact + near, lost


def spaced_runs(sequence: list[str]) -> list[list[str]]:
    """Letter-spaced type in a reading's words (in order): runs of words of one or two letters
    (a kerned pair, "AT", stays together) holding SPACED_RUN_MIN one-letter words or more."""
    runs, run = [], []
    for token in [*sequence, ""]:
        if 0 < len(token) <= 2 and token.isalpha():
            run.append(token)
            continue
        if sum(len(t) == 1 for t in run) >= SPACED_RUN_MIN:
            runs.append(run)
        run = []
    return runs


def _spelled(words: list[str], runs: list[list[str]]) -> Counter:
    """The runs' pieces that words of two letters or more spell (each piece once)."""
    runs = [list(run) for run in runs]
    pieces: Counter = Counter()
    for word in sorted(words, key=len, reverse=True):
        if len(word) < 2 or not word.isalpha():
            continue
        for run in runs:
            start = "".join(run).find(word)
            if start < 0:
                continue
            at = 0
            for i, piece in enumerate(run):
                if start <= at and at + len(piece) <= start + len(word):
                    pieces[piece] += 1
                    run[i] = "|" * len(piece)  # spelled once: no word runs across it
                at += len(piece)
            break
    return pieces


def page_texts(html: str) -> dict[int, str]:
    """Every text of <main> per page (the page-break markers cut it), furniture and images' alt
    text included, TeX annotations of formulas left out."""
    soup = BeautifulSoup(html, "lxml")
    main = soup.find("main")
    if main is None:
        return {}
    for el in main.find_all(["annotation", "annotation-xml", "script", "style"]):
        el.decompose()
    pages: dict[int, list[str]] = {}
    current = 1
    for node in main.descendants:
        if getattr(node, "name", None) and "doc-pagebreak" in (node.get("role") or ""):
            current = int(node["id"].split("-")[1])
        elif getattr(node, "name", None) == "img" and node.get("alt"):
            pages.setdefault(current, []).append(node["alt"])  # read out as the figure's text
        elif isinstance(node, NavigableString) and node.strip():
            pages.setdefault(current, []).append(str(node))
    return {n: " ".join(parts) for n, parts in pages.items()}


def page_row(number: int, ours: str, plain: str, kind: str, junk: Counter, findings: list[dict],
             sample: Sample) -> dict:  # fmt: skip
    ours_words, plain_words = words(ours), words(plain)
    plain_n, ours_n = sum(plain_words.values()), sum(ours_words.values())
    spaced = spaced_runs(word_sequence(plain))
    exact, matched, lost = kept_words(ours_words, plain_words, spaced)
    text_words = plain_words - junk
    text_n = sum(text_words.values())
    _, text_matched, text_lost = kept_words(ours_words, text_words, spaced)
    open_codes = sorted({f["code"] for f in findings if f.get("level") in OPEN_LEVELS})
    unread = [f for f in findings if f["code"] == UNREADABLE]
    flagged = any(not f.get("script") and not f.get("printed") for f in unread)
    return {
        "page": number,
        "plain": kind,
        "plain_words": plain_n,
        "ours_words": ours_n,
        "matched": matched,
        "recall": matched / plain_n if plain_n else None,
        "recall_exact": exact / plain_n if plain_n else None,
        "text_words": text_n,
        "text_matched": text_matched,
        "recall_text": text_matched / text_n if text_n else None,
        "emptied": plain_n >= EMPTIED_MIN_WORDS and ours_n < EMPTIED_SHARE * plain_n,
        "flagged": flagged,
        "unread_script": next((f["script"] for f in unread if f.get("script")), None),
        "handwritten": number in sample.handwritten,
        "routed": bool(open_codes),
        "figure_only": bool(open_codes) and set(open_codes) <= set(FIGURE_CODES),
        "open_codes": open_codes,
        "open_findings": [
            f"{f['code']}: {str(f.get('message') or '')[:MESSAGE_SHOWN]}"
            for f in findings
            if f.get("level") in OPEN_LEVELS
        ],
        "lost": lost[:LOST_SHOWN],
        "text_lost": text_lost[:LOST_SHOWN],
    }


def run_sample(sample: Sample, split: str, engine, opts, workdir: Path) -> dict:
    row = {"corpus": sample.corpus, "member": sample.member, "label": sample.label or
           sample.member, "split": split, "pages": sample.pages}  # fmt: skip
    try:
        pdf = upload(sample, workdir)
    except Exception as exc:  # noqa: BLE001 - pymupdf cannot cut a damaged file's page out
        return {**row, "error": f"UNCUT: {exc}"[:MESSAGE_SHOWN], "page_rows": []}
    try:
        result = convert_pdf(pdf, workdir / "ours", engine, opts)
    except ConversionError as exc:
        return {**row, "error": exc.code, "page_rows": []}
    html = result.html_path.read_text(encoding="utf-8")
    report = result.report
    ours = page_texts(html)
    rows = []
    with pymupdf.open(pdf) as doc:
        plains = [plain_reading(doc, i, PLAIN_LANG.get(sample.corpus, "eng"), workdir)
                  for i in range(doc.page_count)]  # fmt: skip
    for number, (kind, plain, junk) in enumerate(plains, 1):
        findings = [f for f in report["findings"] if f.get("page") in (number, None)]
        rows.append(page_row(number, ours.get(number, ""), plain, kind, junk, findings, sample))
    if sample.transcript is not None:
        row["cer"] = cer("\n".join(iter_main_text(html)), sample.transcript)
        row["plain_cer"] = cer("\n".join(text for _, text, _ in plains), sample.transcript)
        # Plain's words the transcript confirms: plain's misreadings are no words ours lost.
        plain_true = words(" ".join(text for _, text, _ in plains)) & words(sample.transcript)
        _, matched, lost = kept_words(words(" ".join(ours.values())), plain_true)
        row["true_plain_words"], row["true_matched"] = sum(plain_true.values()), matched
        row["true_lost"] = lost[:LOST_SHOWN]
    if sample.judge is not None:
        share = sample.judge(html, report, sample.pages)
        routed = [r for r in rows if r["routed"]]
        row["pass_share"] = share
        if share is not None:
            row["silent_failure"] = share < FAILING_SHARE and not routed
            # A page the truth sends to review (a handwritten page's flag test) is no alarm.
            asked = bool(sample.handwritten)
            row["false_alarm"] = (
                share == 1 and not asked and any(not r["figure_only"] for r in routed)
            )
    return {**row, "error": None, "page_rows": rows}


# -- the run ---------------------------------------------------------------------------------------
def chosen(samples: list[Sample], split: str, page_limit: int | None) -> list[tuple[Sample, str]]:
    """The samples of a split, in order, cut to at most page_limit pages in all (the last one
    cut short: it loses its transcript, which is the whole document's)."""
    names = {s.member for s in samples}
    out, left = [], page_limit
    for sample in samples:
        side = split_of(sample.corpus, sample.member, names)
        if split != "all" and side != split:
            continue
        if left is not None:
            if left <= 0:
                break
            pages = sample.pages or list(range(1, page_count(sample.source) + 1))
            if len(pages) > left:
                sample.pages, sample.transcript = pages[:left], None
            left -= min(len(pages), left)
        out.append((sample, side))
    return out


def summarize(docs: list[dict]) -> dict:
    pages = [p for d in docs for p in d["page_rows"]]
    judged = [d for d in docs if d.get("pass_share") is not None]
    mostly_failing = [d for d in judged if d["pass_share"] < FAILING_SHARE]
    all_passing = [d for d in judged if d["pass_share"] == 1]
    cers = [d for d in docs if d.get("cer") is not None]
    plain_total = sum(p["plain_words"] for p in pages)
    printed = [p for p in pages if not p["handwritten"]]
    text_total = sum(p["text_words"] for p in printed)
    return {
        "documents": len(docs),
        "failed": [f"{d['label']}: {d['error']}" for d in docs if d["error"]],
        "pages": len(pages),
        "recall_pooled": sum(p["matched"] for p in pages) / plain_total if plain_total else None,
        "recall_exact_pooled": (
            sum(p["recall_exact"] * p["plain_words"] for p in pages if p["plain_words"])
            / plain_total
            if plain_total
            else None
        ),
        "recall_text_pooled": (
            sum(p["text_matched"] for p in printed) / text_total if text_total else None
        ),
        "pages_below_98": sum(p["recall"] is not None and p["recall"] < 0.98 for p in pages),
        "emptied": sum(p["emptied"] for p in printed),
        "false_handwriting": sum(p["flagged"] for p in printed),
        "handwriting_flagged": f"{sum(p['flagged'] for p in pages if p['handwritten'])}/"
        f"{sum(p['handwritten'] for p in pages)}",
        "routed_pages": sum(p["routed"] for p in pages),
        "routed_beyond_figures": sum(p["routed"] and not p["figure_only"] for p in pages),
        # pages routed per finding code: which rules route (the doubts, low confidence, ...)
        "routed_codes": dict(Counter(code for p in pages for code in p["open_codes"])),
        "recall_true_pooled": (
            sum(d["true_matched"] for d in cers) / sum(d["true_plain_words"] for d in cers)
            if cers and sum(d["true_plain_words"] for d in cers)
            else None
        ),
        "cer_worse": sum(d["cer"] > d["plain_cer"] for d in cers),
        "cer_ours": sum(d["cer"] for d in cers) / len(cers) if cers else None,
        "cer_plain": sum(d["plain_cer"] for d in cers) / len(cers) if cers else None,
        "judged": len(judged),
        "mostly_failing": len(mostly_failing),
        "silent_failures": sum(d["silent_failure"] for d in mostly_failing),
        "all_passing": len(all_passing),
        "false_alarms": sum(d["false_alarm"] for d in all_passing),
    }


def _pct(value) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


LEGEND = """recall: plain's words ours keeps (pooled; exact: same spelling only; text: its junk
and handwritten pages aside, the issue's 98 % figure); <98%: pages below
empty: printed pages emptied; hw!: printed pages flagged as handwriting; hw ok: handwritten
pages flagged; routed / >fig: pages routed to review / for more than a figure description;
silent: mostly failing units routing nothing / mostly failing; false al.: units passing every
test yet routed beyond figures / passing every test; worse: documents whose CER is above
plain's; true: plain's words that the transcript holds (its misreadings aside) ours keeps"""


def print_table(summary: dict[str, dict]) -> None:
    head = (f"{'corpus / split':<30}{'docs':>5}{'pages':>6}{'recall':>8}{'exact':>7}{'text':>7}"
            f"{'<98%':>5}"
            f"{'empty':>6}"
            f"{'hw!':>4}{'hw ok':>6}{'routed':>7}{'>fig':>5}{'CER':>7}{'plain':>7}{'worse':>6}"
            f"{'true':>7}"
            f"{'judged':>7}{'silent':>9}{'false al.':>10}")  # fmt: skip
    print(head)
    for key, s in summary.items():
        silent = f"{s['silent_failures']}/{s['mostly_failing']}" if s["judged"] else "-"
        alarms = f"{s['false_alarms']}/{s['all_passing']}" if s["judged"] else "-"
        print(f"{key:<30}{s['documents']:>5}{s['pages']:>6}{_pct(s['recall_pooled']):>8}"
            f"{_pct(s['recall_exact_pooled']):>7}{_pct(s['recall_text_pooled']):>7}"
              f"{s['pages_below_98']:>5}{s['emptied']:>6}{s['false_handwriting']:>4}"
              f"{s['handwriting_flagged']:>6}{s['routed_pages']:>7}"
              f"{s['routed_beyond_figures']:>5}{_pct(s['cer_ours']):>7}{_pct(s['cer_plain']):>7}"
              f"{s['cer_worse']:>6}{_pct(s['recall_true_pooled']):>7}"
              f"{s['judged']:>7}{silent:>9}{alarms:>10}")  # fmt: skip
        for failure in s["failed"]:
            print(f"    failed {failure}")
    print(LEGEND)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", nargs="*", choices=CORPORA, default=list(CORPORA))
    parser.add_argument("--split", choices=(TUNE, VALIDATION, "all"), default="all")
    parser.add_argument("--pages", type=int, default=None, help="at most N pages per corpus")
    parser.add_argument("--tag", default="", help="suffix of the results file's name")
    parser.add_argument("--only", nargs="*", default=None,
                        help="only the documents whose label holds one of these")  # fmt: skip
    return parser.parse_args()


def main() -> None:
    args = arguments()
    if not SHARED_CORPUS.is_dir() or not REALWORLD.is_dir():
        print(f"skipped: {SHARED_CORPUS} is absent (the corpora are only in ../shared)")
        return
    engine = get_engine("ocr")
    opts = convert_options(engine=engine.name)
    splits = (TUNE, VALIDATION) if args.split == "all" else (args.split,)
    docs: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="axiya-harm-") as tmp:
        workdir = Path(tmp)
        for corpus in args.corpus:
            samples = corpus_samples(corpus)
            for split in splits:
                for sample, side in chosen(list(samples), split, args.pages):
                    label = sample.label or sample.member
                    if args.only and not any(part in label for part in args.only):
                        continue
                    shutil.rmtree(workdir / "ours", ignore_errors=True)
                    doc = run_sample(sample, side, engine, opts, workdir)
                    docs.append(doc)
                    print(_doc_line(doc), flush=True)
    summary = {}
    for corpus in args.corpus:
        for split in splits:
            picked = [d for d in docs if d["corpus"] == corpus and d["split"] == split]
            if picked:
                summary[f"{corpus} / {split}"] = summarize(picked)
    print()
    print_table(summary)
    write(args, summary, docs)


def _doc_line(doc: dict) -> str:
    pages = doc["page_rows"]
    recall = [p["recall"] for p in pages if p["recall"] is not None]
    parts = [f"{doc['corpus']:<17}{doc['split']:<11}{doc['label'][-44:]:<45}"]
    if doc["error"]:
        return parts[0] + f"error {doc['error']}"
    parts.append(f"pages {len(pages):>3}  min recall {_pct(min(recall) if recall else None):>6}")
    if doc.get("pass_share") is not None:
        parts.append(f"  pass {_pct(doc['pass_share'])}")
    return "".join(parts)


def write(args: argparse.Namespace, summary: dict, docs: list[dict]) -> None:
    out = {
        "date": dt.date.today().isoformat(),
        "args": {"corpus": args.corpus, "split": args.split, "pages": args.pages},
        "summary": summary,
        "documents": docs,
    }
    folder = ROOT / "bench" / "results"
    tag = f"-{args.tag}" if args.tag else ""
    path = folder / f"do_no_harm-{out['date']}{tag}.json"
    path.write_text(json.dumps(out, indent=1), encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
