"""A table of contents as a list (models.reading.contents): one item per entry, on words laid out
as a page holds them, and on a born-digital contents page drawn with PyMuPDF."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from bs4 import BeautifulSoup

from conversion.pipeline.convert import convert_pdf
from conversion.pipeline.flow import ConvertOptions
from models.engine import ReadBlock, Word
from models.ocr import TesseractEngine
from models.reading.contents import contents_lists, contents_table
from tests.pages import scanned_copy

HEIGHT = 40  # a line's height in pixels (300 DPI, ~10 pt)
PAGE_X = 1800  # where the page numbers stand, right-aligned


def _line(y: float, title: str, page: str | None, *, indent: float = 0) -> list[Word]:
    """A contents line: its title from x=300 (+ indent), its page number at PAGE_X."""
    words, x = [], 300 + indent
    for text in title.split():
        words.append(Word(text, 95, (x, y, x + 25 * len(text), y + HEIGHT)))
        x += 25 * len(text) + 20
    if page is not None:
        words.append(Word(page, 95, (PAGE_X, y, PAGE_X + 25 * len(page), y + HEIGHT)))
    return words


def _block(lines: list[list[Word]], kind: str = "paragraph") -> ReadBlock:
    words = [w for line in lines for w in line]
    box = (min(w.bbox[0] for w in words), min(w.bbox[1] for w in words),
           max(w.bbox[2] for w in words), max(w.bbox[3] for w in words))  # fmt: skip
    return ReadBlock(kind, " ".join(w.text for w in words), box, words=words)


def test_a_contents_block_becomes_one_item_an_entry():
    block = _block([_line(100, "1 Introduction", "1"), _line(160, "2 Results", "3"),
                    _line(220, "2.1 Main bounds", "4", indent=60)])  # fmt: skip
    out = contents_lists([block])
    assert [b.kind for b in out] == ["list_item"] * 3
    assert [b.text for b in out] == ["1 Introduction 1", "2 Results 3", "2.1 Main bounds 4"]
    assert out[2].bbox[0] > out[1].bbox[0]  # its indentation nests it when assembled
    assert all(b.marker is None and not b.ordered for b in out)


def test_an_entry_without_a_number_is_the_sibling_of_those_numbered_in_a_gutter():
    """A book's chapter numbers stand left of the titles: "Epilogue" lines up with the titles,
    and its indentation is theirs, not a child's."""
    numbered = _line(100, "9 Aesthetics", "177")
    title_x = numbered[1].bbox[0]
    block = _block([numbered, _line(160, "Epilogue", "191", indent=title_x - 300)])
    first, second = contents_lists([block])
    assert first.bbox[0] == second.bbox[0] == title_x


def test_a_title_wrapped_onto_the_next_line_is_one_entry():
    lines = [_line(100, "1 A long chapter title that goes", None),
             _line(150, "on to a second line", "7"), _line(220, "2 Methods", "12")]  # fmt: skip
    block = _block(lines)
    out = contents_lists([block])
    assert [b.text for b in out] == ["1 A long chapter title that goes on to a second line 7",
                                     "2 Methods 12"]  # fmt: skip


def test_leaders_a_reader_left_are_dropped_and_front_matter_comes_first():
    leader = Word(". . . . . .", 60, (700, 100, 1700, 100 + HEIGHT))
    first = _line(100, "Preface", "ix")
    block = _block(
        [
            first[:1] + [leader] + first[1:],
            _line(160, "1 Origins", "1"),
            _line(220, "2 Sources", "4."),
        ]
    )  # a scan's speck after a page number
    out = contents_lists([block])
    assert [b.text for b in out] == ["Preface ix", "1 Origins 1", "2 Sources 4."]


def test_consecutive_one_line_entries_make_one_list():
    out = contents_lists(
        [_block([_line(100, "Foreword", "5")]), _block([_line(160, "Index", "9")])]
    )
    assert [b.kind for b in out] == ["list_item", "list_item"]


def test_a_column_of_figures_that_goes_down_is_no_contents():
    """Labels and their figures set apart (a table read as lines): the numbers fall."""
    block = _block([_line(100, "Berlin", "3400"), _line(160, "Munich", "1500"),
                    _line(220, "Bonn", "300")])  # fmt: skip
    assert contents_lists([block]) == [block]


def test_prose_ending_in_a_number_is_no_contents():
    """The last word a number at the usual word gap, not set apart."""
    words = _line(100, "The survey was repeated in", None)
    words.append(Word("2019", 95, (words[-1].bbox[2] + 20, 100, words[-1].bbox[2] + 120, 140)))
    block = _block([words, _line(160, "and again in", "2021")])
    block.words[-1].bbox = (block.words[-2].bbox[2] + 20, 160, block.words[-2].bbox[2] + 120, 200)
    assert contents_lists([block]) == [block]


def test_one_entry_alone_is_no_list():
    block = _block([_line(100, "Total", "12")])
    assert contents_lists([block]) == [block]


def test_a_born_digital_contents_page_is_a_list(tmp_path):
    """The text layer gives the page's lines as one block: entries with dot leaders, one
    indented, converted whole."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), "Contents", fontsize=20, fontname="hebo")
    entries = [("1", "Introduction", "1", 0), ("2", "Methods of the survey", "4", 0),
               ("2.1", "Sampling", "5", 18), ("3", "Results", "9", 0)]  # fmt: skip
    for k, (number, title, at, indent) in enumerate(entries):
        y = 130 + 18 * k
        page.insert_text((72 + indent, y), f"{number}  {title}", fontsize=11, fontname="helv")
        page.insert_text((300, y), ". " * 40, fontsize=11, fontname="helv")
        page.insert_text((530, y), at, fontsize=11, fontname="helv")
    doc.save(tmp_path / "contents.pdf")
    engine = TesseractEngine(detect_rotation=False)
    result = convert_pdf(tmp_path / "contents.pdf", tmp_path / "out", engine, ConvertOptions())
    main = BeautifulSoup(result.html_path.read_text(), "html.parser").find("main")
    items = [li.find(string=True, recursive=False).strip() for li in main.select("li")]
    assert items == ["1 Introduction 1", "2 Methods of the survey 4", "2.1 Sampling 5",
                     "3 Results 9"]  # fmt: skip
    assert main.select("li li")[0].get_text(strip=True) == "2.1 Sampling 5"  # nested under 2


def _parted(lines: list[list[Word]]) -> tuple[list[ReadBlock], list[ReadBlock]]:
    """Each line's title a block, its page number another: a row parted at the gap."""
    titles = [_block([line[:-1]]) for line in lines]
    return titles, [_block([line[-1:]]) for line in lines]


def test_page_numbers_read_as_blocks_of_their_own_end_their_rows_entries():
    """A contents set without leaders, its numbers ranged right (KOMA-Script's, a scan parted
    at the gap): the titles came as one block each and the numbers after them, "1" and "1"
    as paragraphs of their own. Each number ends the entry on its row, wherever it stands in
    the reading's order; a paragraph beside a number not on its row keeps both."""
    lines = [_line(100, "1 Preamble", "1"), _line(160, "2 Analysis", "1"),
             _line(220, "3 Results", "4")]  # fmt: skip
    titles, numbers = _parted(lines)
    for order in (
        titles + numbers,
        [b for pair in zip(titles, numbers, strict=True) for b in pair],
    ):
        out = contents_lists(order)
        assert [(b.kind, b.text) for b in out] == [
            ("list_item", "1 Preamble 1"), ("list_item", "2 Analysis 1"),
            ("list_item", "3 Results 4"),
        ]  # fmt: skip
    # Numbers going down (a table's column of figures): nothing changes, nothing is lost.
    lines = [_line(100, "Apples", "9"), _line(160, "Pears", "4"), _line(220, "Plums", "2")]
    titles, numbers = _parted(lines)
    order = [b for pair in zip(titles, numbers, strict=True) for b in pair]
    assert contents_lists(order) == order


def test_a_page_number_whose_entry_stays_outside_the_list_is_kept():
    """A number on the row of a block that is no entry (a paragraph of prose before the list,
    its line ending where the number stands apart), read in the middle of a contents run:
    the list is made and the number keeps its place, never lost."""
    prose = _block([_line(y, "Some words of prose that run on", None) for y in (-80, -20, 40)]
                   + [_line(100, "and end here", None)])  # fmt: skip
    stray = _block([[Word("9", 95, (PAGE_X, 100, PAGE_X + 25, 100 + HEIGHT))]])
    lines = [_line(160, "1 Preamble", "1"), _line(220, "2 Analysis", "3")]
    titles, numbers = _parted(lines)
    out = contents_lists([prose, titles[0], stray, titles[1], *numbers])
    assert [b.text for b in out] == [prose.text, "1 Preamble 1", "9", "2 Analysis 3"]


# -- a contents page the layout model boxed as a table --------------------------------------------
def test_a_grid_of_titles_and_ascending_page_numbers_with_leaders_or_section_numbers_is_contents():
    assert contents_table([["1", "Introduction", "3"], ["2.1", "Installation . . . .", "3"],
                           ["", "2.3.1 Commands for Authors", "5"], ["3", "Implementation", ""],
                           ["3.1", "Identification", "11"]])  # fmt: skip


def test_a_data_table_whose_last_column_rises_is_no_contents():
    """Steps and their minutes, years and a growing count: no leader, no section's number."""
    assert not contents_table([["1", "Fill the tank", "5"], ["2", "Start the pump", "10"],
                               ["3", "Close the valve", "15"]])  # fmt: skip
    assert not contents_table([["2019", "Members", "120"], ["2020", "Members", "145"]])
    # Numbers going down, or a row of figures alone, are no contents page either.
    assert not contents_table([["2.1", "Installation", "9"], ["2.2", "Invocation", "4"]])
    assert not contents_table([["2.1", "Installation", "3"], ["2.2", "0.5", "4"]])


TEXLIVE = Path(__file__).resolve().parents[2] / "resources" / "corpus" / "texlive"


def _own_text(li) -> str:
    """An item's text without its nested list's."""
    return " ".join(
        " ".join(
            c.get_text() if hasattr(c, "get_text") else c
            for c in li.contents
            if getattr(c, "name", None) != "ul"
        ).split()
    )


def _main(pdf, tmp_path) -> BeautifulSoup:
    html = convert_pdf(pdf, tmp_path / "out", TesseractEngine(), ConvertOptions()).html_path
    return BeautifulSoup(html.read_text(), "html.parser").find("main")


def test_a_contents_page_boxed_as_a_table_is_one_nested_list_without_its_leaders(tmp_path):
    """ijmart's manual, p. 1: the layout model boxes its contents as a table, and the table
    finder makes a grid of it; it was a table whose cells read "Installation . . . . . .".
    """
    main = _main(TEXLIVE / "ijmart-p1.pdf", tmp_path)
    assert main.find("table") is None
    top = main.find("ul")
    assert [_own_text(li) for li in top.find_all("li", recursive=False)] == [
        "1 Introduction 3", "2 User’s Guide 3", "3 Implementation 11",
    ]  # fmt: skip
    items = [_own_text(li) for li in top.find_all("li")]
    assert "2.1 Installation 3" in items and "3.10 Captions 20" in items
    assert "2.3.1 Commands for Authors 5" in items and len(items) == 21
    assert ". . ." not in main.get_text()


@pytest.mark.parametrize("scanned", [False, True], ids=["born-digital", "scanned"])
def test_a_contents_page_boxed_as_a_table_keeps_each_title_with_its_page(tmp_path, scanned):
    """LuaTeX's manual, p. 5, as printed and scanned at 200 DPI. On the scan Tesseract reads
    the right-aligned page numbers as a column of their own, which no title's block ends; the
    entries are made from the rows' words (left as text, the titles ran together into one
    paragraph). An entry naming macros in typewriter type ("2.8.2 \\toksapp, \\tokspre, ...
    30") is no listing."""
    pdf = TEXLIVE / "luatex-p5.pdf"
    main = _main(scanned_copy(pdf, tmp_path / "scan.pdf", dpi=200) if scanned else pdf, tmp_path)
    assert main.find("table") is None and main.find("pre") is None
    items = [_own_text(li) for li in main.find_all("li")]
    assert len(items) >= 40
    assert sum(item.rsplit(" ", 1)[-1].isdigit() for item in items) >= 0.9 * len(items)
    assert "2.2 UNICODE text support 20" in items and "2.4.1 \\directlua 23" in items
