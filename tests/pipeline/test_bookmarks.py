"""The file's own outline (bookmarks) as the headings' evidence, through the whole conversion:
PyMuPDF writes the outline into a real PDF, the text layer carries it per page, assemble
weighs the headings against it (conversion/pipeline/bookmarks.py, headings._outline_ranks)."""

from __future__ import annotations

import re

import pymupdf
import pytest

from conversion.pipeline.bookmarks import reads_as
from conversion.pipeline.convert import ConvertOptions, convert_pdf
from models.ocr import TesseractEngine
from models.reading.textlayer import outline_entries

BODY = (
    "The method we describe reads each page of the document and keeps the words in the "
    "order a reader would follow them, which is what the rest of the work relies on. "
)
HEAD = re.compile(r"<h([1-6])[^>]*>(.*?)</h\1>")
# What an author's tools would write: the sections, a subsection (set in the sections' size),
# and the second section; no entry for the starred "Data Availability", as hyperref writes none.
OUTLINE = [[1, "1 Introduction", 1], [2, "Scope", 1], [1, "2 Method", 2]]


def _paragraph(page: pymupdf.Page, y: float) -> float:
    rect = pymupdf.Rect(72, y, 540, y + 400)
    left = page.insert_textbox(rect, BODY * 2, fontsize=10, fontname="tiro")
    return y + (400 - left) + 10


def _paper(path, outline: list) -> None:
    """A title at 20 pt; sections and a subsection all bold at 12 pt, a head at 11 pt under
    them; a diagram's labels set at 14 pt in regular weight inside the text; a starred
    section set as the sections are."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((150, 90), "Reading Pages in Order", fontsize=20, fontname="tibo")
    y = 130
    for text, size, font in (("1 Introduction", 12, "tibo"), ("Scope", 12, "tibo"),
                             ("Measured Gaps", 11, "tibo"),
                             ("Loss Attention Decoder", 14, "tiro")):  # fmt: skip
        page.insert_text((72, y + 16), text, fontsize=size, fontname=font)
        y = _paragraph(page, y + 26)
    page = doc.new_page()
    y = 56
    for text in ("2 Method", "Data Availability"):
        page.insert_text((72, y + 16), text, fontsize=12, fontname="tibo")
        y = _paragraph(page, y + 26)
    doc.set_toc(outline)
    doc.save(path)


def _headings(folder, outline: list) -> list[tuple[int, str]]:
    _paper(folder / "paper.pdf", outline)
    result = convert_pdf(folder / "paper.pdf", folder / "out", TesseractEngine(), ConvertOptions())
    html = result.html_path.read_text(encoding="utf-8")
    main = html[html.index("<main") :]
    return [(int(level), " ".join(text.split())) for level, text in HEAD.findall(main)]


@pytest.fixture(scope="module")
def outlined(tmp_path_factory) -> list[tuple[int, str]]:
    return _headings(tmp_path_factory.mktemp("outlined"), OUTLINE)


@pytest.fixture(scope="module")
def not_outlined(tmp_path_factory) -> list[tuple[int, str]]:
    """The same pages under an outline that does not match them (a scanner's entries)."""
    junk = [[1, "Blank Page", 1], [1, "Page vierge", 2], [1, "Table 1. Results", 2]]
    return _headings(tmp_path_factory.mktemp("junk"), junk)


def test_a_pages_outline_entries_are_read_with_their_depth(tmp_path):
    _paper(tmp_path / "paper.pdf", OUTLINE)
    with pymupdf.open(tmp_path / "paper.pdf") as doc:
        assert outline_entries(doc[0]) == [(1, "1 Introduction"), (2, "Scope")]
        assert outline_entries(doc[1]) == [(1, "2 Method")]


def test_an_entry_reads_as_its_line_with_its_number_or_label_and_no_other_words():
    assert reads_as("2.3. DATA COLLECTION", "Data Collection")
    assert reads_as("Appendix B Proofs", "Proofs")
    assert reads_as("1 Introduction", "1 Introduction")
    assert not reads_as("Related work shows", "Related Work")
    assert not reads_as("Setup of the data", "Data")
    assert reads_as("2.1. Runtime. We measure", "Runtime", opening=True)


def test_the_outline_gives_the_levels_where_sizes_do_not(outlined, not_outlined):
    """ "Scope" is set as the sections are: by size a section (h2), by the outline under
    "1 Introduction" (h3)."""
    assert (3, "Scope") in outlined
    assert (2, "1 Introduction") in outlined and (2, "2 Method") in outlined
    assert (2, "Scope") in not_outlined


def test_a_line_set_as_no_outline_heading_is_text(outlined, not_outlined):
    """A diagram's labels set large inside the text are a heading by size alone; set as no
    heading of the outline is set, they are text."""
    assert not any("Loss Attention Decoder" in text for _, text in outlined)
    assert any("Loss Attention Decoder" in text for _, text in not_outlined)


def test_a_heading_the_outline_leaves_out_set_as_its_headings_stays(outlined):
    assert (2, "Data Availability") in outlined
    assert outlined[0] == (1, "Reading Pages in Order")


def test_a_heading_set_smaller_than_the_outline_goes_is_a_level_under_it(outlined):
    """LaTeX's outline stops at its tocdepth: a head set smaller than every entry is one
    level under the deepest (the Tufte book's "Headings" under "Page Layout" was made text)."""
    assert (4, "Measured Gaps") in outlined


def test_a_flat_outline_over_headings_of_several_styles_leaves_their_nesting(tmp_path):
    """A word processor's export lists every heading at depth 1: it tells which lines are
    headings, not how they nest. The sizes rank them, and a heading it leaves out stays."""
    doc = pymupdf.open()
    page = doc.new_page()
    y = 56
    for text, size in (("Testing", 20), ("Unit tests", 16.5), ("Desktop only", 13.5)):
        page.insert_text((72, y + 20), text, fontsize=size, fontname="tibo")
        y = _paragraph(page, y + 30)
    doc.set_toc([[1, "Testing", 1], [1, "Unit tests", 1]])
    doc.save(tmp_path / "flat.pdf")
    result = convert_pdf(tmp_path / "flat.pdf", tmp_path / "out", TesseractEngine(),
                         ConvertOptions())  # fmt: skip
    html = result.html_path.read_text(encoding="utf-8")
    levels = {text: int(level) for level, text in HEAD.findall(html[html.index("<main") :])}
    assert levels["Unit tests"] == levels["Testing"] + 1
    assert levels["Desktop only"] == levels["Unit tests"] + 1
