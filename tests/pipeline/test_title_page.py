"""A book's title page (conversion/pipeline/title_page.py): its title in display type is the
document's one title, however the reader cut it; the author and the publisher printed around
it are no headings."""

from __future__ import annotations

from conversion.pipeline.assemble import AssembleOptions, assemble
from models.engine import PageReading, ReadBlock

BODY = "The pages of a book are usually divided into three major sections, and so on. " * 3


def _line(kind, text, box, size, layout="section-header"):
    return ReadBlock(kind=kind, text=text, bbox=box, font_size=size, layout=layout)


def _book(title_page: list[ReadBlock]):
    chapter = [_line("heading", "The Design of Books", (300, 600, 1900, 690), 86),
               _line("paragraph", BODY, (300, 800, 1900, 1200), 41.5, layout="text"),
               _line("heading", "Typefaces", (300, 1300, 700, 1350), 50),
               _line("paragraph", BODY, (300, 1400, 1900, 1800), 41.5, layout="text")]  # fmt: skip
    readings = [PageReading(page_number=n, blocks=blocks, width=2550, height=3300, source="ocr")
                for n, blocks in enumerate([title_page, chapter], start=1)]  # fmt: skip
    return assemble(readings, AssembleOptions())


def test_a_title_page_has_one_title_and_no_other_heading():
    """The title letterspaced across the page, read as "A TUFTE-STYLE" (taken for text) beside
    "BOOK"; the authors over it and the publisher under it set larger than the body."""
    doc = _book([
        _line("paragraph", "THE TUFTE-LATEX DEVELOPERS", (308, 299, 1693, 351), 70.8, "text"),
        _line("paragraph", "A TUFTE-STYLE", (302, 988, 1627, 1091), 139.6),
        _line("paragraph", "PUBLISHER OF THIS BOOK", (305, 2809, 1179, 2849), 55.6, "text"),
        _line("heading", "BOOK", (1717, 988, 2174, 1091), 143.1),
    ])  # fmt: skip
    heads = [(b.text, b.level) for b in doc.blocks() if b.kind == "heading"]
    assert heads == [("A TUFTE-STYLE BOOK", 1), ("The Design of Books", 2), ("Typefaces", 3)]
    assert doc.title == "A TUFTE-STYLE BOOK"
    front = [b.text for b in doc.pages[0].blocks if b.kind == "paragraph"]
    assert front == ["THE TUFTE-LATEX DEVELOPERS", "PUBLISHER OF THIS BOOK"]


def test_a_first_page_with_body_text_is_no_title_page():
    """A paper's first page: its title, then an abstract to read. Its headings stay."""
    doc = _book([
        _line("heading", "Reading Order of Printed Pages", (300, 300, 2200, 400), 100),
        _line("heading", "Abstract", (300, 500, 700, 560), 55),
        _line("paragraph", BODY, (300, 600, 2200, 1000), 41.5, layout="text"),
    ])  # fmt: skip
    heads = [b.text for b in doc.pages[0].blocks if b.kind == "heading"]
    assert heads == ["Reading Order of Printed Pages", "Abstract"]


def test_a_subtitle_in_display_type_under_the_title_stays_a_heading():
    """A part's title page: "PART ONE" over "The Early Years", both display type, the second
    under the first and above the foot: a heading of its own; the publisher at the foot not."""
    doc = _book([
        _line("heading", "PART ONE", (600, 900, 1900, 1040), 140),
        _line("heading", "The Early Years", (600, 1200, 1900, 1290), 90),
        _line("heading", "Riverside Press", (600, 2900, 1300, 2960), 65),
    ])  # fmt: skip
    heads = [b.text for b in doc.pages[0].blocks if b.kind == "heading"]
    assert heads == ["PART ONE", "The Early Years"]


def _chapter_opening(listing: ReadBlock) -> list[ReadBlock]:
    """A thesis's first chapter page (elteikthesis's minted example, page 1): the chapter's
    number and title in display type, a listing and its caption, then "List of Codes" in the
    same display type over its one entry."""
    return [
        _line("heading", "Chapter 1", (300, 400, 900, 480), 86),
        _line("heading", "Minted source code example", (300, 560, 1800, 640), 86),
        listing,
        _line("paragraph", "Code 1.1: Hello World in C++", (900, 1700, 1600, 1740), 41.5, "text"),
        _line("heading", "List of Codes", (300, 2000, 1000, 2080), 86),
        _line("paragraph", "1.1 Hello World in C++ 1", (400, 2200, 2000, 2240), 41.5, "text"),
    ]  # fmt: skip


def test_display_lines_parted_by_a_picture_are_not_one_title():
    """Read as a picture, the listing leaves a page of headings and short lines; "List of
    Codes", under the picture and its caption, is its own heading, not the title's end."""
    doc = _book(_chapter_opening(ReadBlock(kind="figure", text="", bbox=(300, 800, 1900, 1600))))
    heads = [b.text for b in doc.pages[0].blocks if b.kind == "heading"]
    assert heads == ["Chapter 1 Minted source code example", "List of Codes"]


def test_a_page_with_a_code_listing_is_no_title_page():
    """A listing is body to read: the page's display lines stay the headings they are."""
    code = ReadBlock(kind="code", text="int main()\n{\n  return 0;\n}", bbox=(300, 800, 1900, 1600))
    doc = _book(_chapter_opening(code))
    heads = [b.text for b in doc.pages[0].blocks if b.kind == "heading"]
    assert "List of Codes" in heads and not doc.pages[0].blocks[0].is_title
