"""A bibliography as one list of one item per entry (conversion/pipeline/references.py), end
to end on pages built with PyMuPDF, born-digital and scanned."""

from __future__ import annotations

import re

import pymupdf
import pytest

from conversion.pipeline.convert import ConvertOptions, convert_pdf
from models.ocr import TesseractEngine

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
    page = doc.new_page()
    page.insert_text((72, 80), "References", fontsize=14, fontname="tibo")
    left = page.insert_textbox(pymupdf.Rect(72, 95, 540, 200), INTRO * 2, fontsize=10,
                               fontname="tiro")  # fmt: skip
    y = 95 + (105 - left) + 16
    for entry in entries:
        y = _hanging(page, y, entry)
    doc.save(path)


def _scanned(pdf, out) -> None:
    scan = pymupdf.open()
    with pymupdf.open(pdf) as doc:
        for page in doc:
            pix = page.get_pixmap(dpi=300, colorspace=pymupdf.csGRAY)
            new = scan.new_page(width=page.rect.width, height=page.rect.height)
            new.insert_image(new.rect, pixmap=pix)
    scan.save(out)


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
    _scanned(tmp_path / "refs.pdf", tmp_path / "refs.scan.pdf")
    lists, _ = _lists(tmp_path / "refs.scan.pdf", tmp_path, engine)
    assert len(lists) == 1 and len(lists[0]) == len(NUMBERED)
    for item, entry in zip(lists[0], NUMBERED, strict=True):
        assert item.startswith(entry[:3]) and item.endswith(entry[-5:])
