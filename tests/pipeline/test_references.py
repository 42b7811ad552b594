"""A bibliography as one list of one item per entry (conversion/pipeline/references.py), end
to end on pages built with PyMuPDF, born-digital and scanned."""

from __future__ import annotations

import re

import pymupdf
import pytest

from conversion.pipeline.convert import ConvertOptions, convert_pdf
from conversion.pipeline.references import reference_entries
from models.engine import ReadBlock, Word
from models.ocr import TesseractEngine
from tests.pages import scanned_copy, titled_page

NUMBERED = [
    "[1] A. Martin. Reading order in printed pages and the ways of the layout. Journal of "
    "Documents, 12(3):1-20, 2020.",
    "[2] B. Chen and A. Martin. Tables found from words alone, a study of many pages and many "
    "tables. In Proc. ICDAR, pages 10-18, 2021.",
    "[3] C. Diaz. Headings and their levels over a whole document, with numbering and sizes "
    "compared. Tech. report, 2022.",
]
AUTHOR_YEAR = [
    "Martin, A. (2020). Reading order in printed pages and the ways of the layout. Journal of "
    "Documents 12, 1-20.",
    "Chen, B. and Martin, A. (2021). Tables found from words alone, a study of many pages and "
    "many tables. Proceedings of ICDAR, 10-18.",
    "Diaz, C. (2022). Headings and their levels over a whole document, with numbering and "
    "sizes compared. Technical report.",
]
INTRO = (
    "The works this note draws on are listed below, in the order the text cites them, with "
    "the journal or the proceedings where each of them was published. "
)


def _hanging(page: pymupdf.Page, y: float, entry: str) -> float:
    """One entry: its first line at the margin, the next lines set in by 18 pt."""
    lines, line = [], ""
    for word in entry.split():
        if pymupdf.get_text_length(f"{line} {word}", fontname="tiro", fontsize=10) > 430:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    for i, text in enumerate([*lines, line]):
        page.insert_text((72 if i == 0 else 90, y), text, fontsize=10, fontname="tiro")
        y += 12
    return y + 3


def _bibliography(path, entries: list[str]) -> None:
    doc = pymupdf.open()
    page, y = titled_page(doc, "References", INTRO * 2, size=10)
    for entry in entries:
        y = _hanging(page, y, entry)
    doc.save(path)


@pytest.fixture(scope="module")
def engine():
    return TesseractEngine()


def _lists(pdf, folder, engine) -> tuple[list[list[str]], list[str]]:
    """The output's lists (their items' texts) and its paragraphs."""
    html = convert_pdf(pdf, folder / "out", engine, ConvertOptions()).html_path.read_text()
    main = html[html.index("<main") :]
    lists = [re.findall(r"<li>(.*?)</li>", body, re.S)
             for body in re.findall(r"<[uo]l>(.*?)</[uo]l>", main, re.S)]  # fmt: skip
    paragraphs = re.findall(r"<p>(.*?)</p>", main, re.S)
    return [[" ".join(i.split()) for i in items] for items in lists], paragraphs


@pytest.mark.parametrize("entries", [NUMBERED, AUTHOR_YEAR], ids=["numbered", "author-year"])
def test_a_bibliography_with_hanging_indents_is_one_list_of_one_item_per_entry(
    tmp_path, engine, entries
):
    _bibliography(tmp_path / "refs.pdf", entries)
    lists, paragraphs = _lists(tmp_path / "refs.pdf", tmp_path, engine)
    assert lists == [entries]
    assert not any(p.strip().endswith(("2020.", "2021.", "2022.")) for p in paragraphs)


def test_a_scanned_bibliography_is_one_list_of_one_item_per_entry(tmp_path, engine):
    _bibliography(tmp_path / "refs.pdf", NUMBERED)
    scanned_copy(tmp_path / "refs.pdf", tmp_path / "refs.scan.pdf")
    lists, _ = _lists(tmp_path / "refs.scan.pdf", tmp_path, engine)
    assert len(lists) == 1 and len(lists[0]) == len(NUMBERED)
    for item, entry in zip(lists[0], NUMBERED, strict=True):
        assert item.startswith(entry[:3]) and item.endswith(entry[-5:])


def _line(text: str, x: float, y: float) -> list[Word]:
    """A line's words, 10 pt type, each word boxed (6 pt a character)."""
    words = []
    for word in text.split():
        words.append(Word(text=word, confidence=100.0, bbox=(x, y, x + 6 * len(word), y + 10)))
        x += 6 * len(word) + 4
    return words


def _block(lines: list[list[Word]]) -> ReadBlock:
    words = [w for line in lines for w in line]
    box = (min(w.bbox[0] for w in words), min(w.bbox[1] for w in words),
           max(w.bbox[2] for w in words), max(w.bbox[3] for w in words))  # fmt: skip
    return ReadBlock(kind="paragraph", text=" ".join(w.text for w in words), bbox=box,
                     words=words, font_size=10.0)  # fmt: skip


def test_blocks_running_across_entries_are_parted_at_each_label():
    # badlines.pdf (realworld) p. 10: MuPDF's blocks hold one entry's last line and the next
    # entry's first lines ("... In ICCV, 2013. [51] I. Sutskever, G. Hinton ..."), in two
    # columns: the right column's first entry opens at another margin.
    blocks = [
        _block([_line("[50] C. Sun and R. Nevatia. Active: Activity concept", 50, 100)]),
        _block([_line("in video event classification. In ICCV, 2013.", 68, 112),
                _line("[51] I. Sutskever, G. Hinton, and G. Taylor. The", 50, 124)]),
        _block([_line("recurrent temporal machine. In NIPS, 2009.", 68, 136)]),
        _block([_line("[52] I. Sutskever and Q. V. Le. Sequence to", 320, 100),
                _line("sequence learning. In NIPS, 2014.", 338, 112)]),
        _block([_line("[53] C. Sutton. Random fields. Machine", 320, 124),
                _line("Learning, 4(4), 2011.", 338, 136)]),
    ]  # fmt: skip
    entries = reference_entries(blocks)
    assert [e.kind for e in entries] == ["list_item"] * 4
    assert [e.text for e in entries] == [
        "[50] C. Sun and R. Nevatia. Active: Activity concept in video event classification. "
        "In ICCV, 2013.",
        "[51] I. Sutskever, G. Hinton, and G. Taylor. The recurrent temporal machine. In NIPS, "
        "2009.",
        "[52] I. Sutskever and Q. V. Le. Sequence to sequence learning. In NIPS, 2014.",
        "[53] C. Sutton. Random fields. Machine Learning, 4(4), 2011.",
    ]


@pytest.mark.parametrize(
    "first",
    [
        "The order follows the columns as shown in",  # no full stop before the label
        "The order follows the columns, as Smith et al.",  # no year: no entry's end
    ],
)
def test_a_citation_opening_a_line_of_prose_parts_nothing(first):
    second = _line("[12] showed, and the tables keep their rows in 2020.", 50, 112)
    prose = _block([_line(first, 50, 100), second])
    assert [b.text for b in reference_entries([prose])] == [prose.text]
