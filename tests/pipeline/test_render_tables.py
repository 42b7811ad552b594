"""A table's HTML: header rows and their scope, no made-up caption, spacer columns dropped, and
a caption bound to the table it heads (conversion.pipeline.render, .captions)."""

from __future__ import annotations

from bs4 import BeautifulSoup

from conversion.pipeline.captions import attach_table_captions
from conversion.pipeline.document import Block, Cell, Document, Page
from conversion.pipeline.render import RenderOptions, render_document
from models.engine import ReadBlock


def _table(rows: list[list[Cell]], caption: str | None = None) -> BeautifulSoup:
    block = Block(kind="table", rows=rows, caption=caption)
    doc = Document(title="t", lang="en", pages=[Page(number=1, width=800, height=1000,
                                                     blocks=[block])])  # fmt: skip
    html = render_document(doc, RenderOptions(files_dir="x_files"))
    return BeautifulSoup(html, "html.parser").select_one("#table-1")


def _row(*texts: str, header: bool = False) -> list[Cell]:
    return [Cell(t, header) for t in texts]


def test_a_first_row_of_figures_is_not_guessed_as_the_header():
    table = _table([_row("12", "4.5", "7"), _row("13", "4.1", "9"), _row("11", "3.9", "8")])
    assert table.find("th") is None and table.find("thead") is None
    assert not table.has_attr("data-review")


def test_a_guessed_header_over_a_column_of_figures_needs_no_review():
    """No header cells read: the first row is guessed as the header; where one of its labels
    stands over a column of figures the guess is plain (ICDAR eu-014: "Weight of indicator"
    over 40, 15, 15, 13), else a person checks (issue 31: false alarms)."""
    weights = _table([_row("Indicators", "Weight"), _row("Employment", "40"),
                      _row("Dropping out", "15"), _row("Staff", ""),
                      _row("Staff development", "6")])  # fmt: skip
    assert [th.get_text() for th in weights.select("thead th")] == ["Indicators", "Weight"]
    assert not weights.has_attr("data-review")
    words = _table([_row("Category", "Details"), _row("RoHS", "TBD"), _row("REACH", "Y"),
                    _row("TSCA", "Y")])  # fmt: skip
    assert words["data-review"] == "headers-guessed"
    few = _table([_row("Day", "Opens"), _row("Monday", "09:00"), _row("Sunday", "closed")])
    assert few["data-review"] == "headers-guessed"


def test_a_table_without_a_printed_caption_gets_none_made_up():
    table = _table([_row("Item", "Cost", header=True), _row("Staff", "812")])
    assert table.find("caption") is None
    assert table.parent["aria-label"] == "Table 1"  # the scroll box still has a name


def test_column_headers_beside_an_empty_corner_are_scope_col():
    rows = [[Cell(""), Cell("Budget", True), Cell("Spent", True)],
            [Cell("Staff", True), Cell("812"), Cell("798")],
            [Cell("Energy", True), Cell("365"), Cell("402")]]  # fmt: skip
    table = _table(rows, caption="Table 1. Costs")
    scopes = {th.get_text(): th["scope"] for th in table.find_all("th")}
    assert scopes == {"Budget": "col", "Spent": "col", "Staff": "row", "Energy": "row"}


def test_an_empty_spacer_column_is_dropped():
    rows = [_row("Item", "", "Cost", header=True), _row("Staff", "", "812"),
            [Cell("Total"), Cell("1,200", colspan=2)]]  # fmt: skip
    table = _table(rows, caption="Table 1")
    assert [len(tr.find_all(["td", "th"])) for tr in table.find_all("tr")] == [2, 2, 2]
    assert table.find(attrs={"colspan": True}) is None


def _block(kind: str, text: str, top: int, bottom: int) -> ReadBlock:
    return ReadBlock(kind=kind, text=text, bbox=(100, top, 700, bottom))


def test_a_caption_between_two_tables_heads_the_one_under_it():
    first = _block("table", "", 100, 300)
    second = _block("table", "", 400, 600)
    caption = _block("paragraph", "Table 2. Spending by month", 360, 380)
    blocks = attach_table_captions([first, caption, second])
    assert first.text == "" and second.text == "Table 2. Spending by month"
    assert blocks == [first, second]


def test_a_caption_under_a_table_far_from_the_next_is_its_own():
    first = _block("table", "", 100, 300)
    caption = _block("paragraph", "Table 1. Costs", 310, 330)
    second = _block("table", "", 600, 800)
    attach_table_captions([first, caption, second])
    assert first.text == "Table 1. Costs" and second.text == ""


def test_a_captions_first_line_cut_off_by_a_hanging_indent_stays_in_the_caption():
    """ "Table A-4. Number and percentage of reading" over "items in the PIRLS assessment, by
    item format: 2011", indented under the text after the label (ICDAR us-021): two blocks,
    one caption."""
    head = _block("paragraph", "Table A-4. Number and percentage of reading", 300, 320)
    rest = ReadBlock(kind="caption", text="items in the PIRLS assessment, by item format: 2011",
                     bbox=(220, 322, 700, 360))  # fmt: skip
    table = _block("table", "", 380, 600)
    blocks = attach_table_captions([head, rest, table])
    assert table.text == (
        "Table A-4. Number and percentage of reading items in the PIRLS assessment, by item "
        "format: 2011"
    )
    assert blocks == [table]


def test_a_paragraph_over_a_tables_caption_stays_text():
    text = _block("paragraph", "The items are shown in table A-4.", 300, 320)
    caption = _block("caption", "Table A-4. Number of items", 322, 340)
    table = _block("table", "", 380, 600)
    blocks = attach_table_captions([text, caption, table])
    assert table.text == "Table A-4. Number of items" and blocks == [text, table]


def test_a_captions_last_line_the_layout_called_a_heading_stays_in_the_caption():
    head = _block("heading", "Table A-3. Number of reading items, by content", 300, 320)
    rest = _block("heading", "domain and process: 2011", 322, 340)
    table = _block("table", "", 380, 600)
    blocks = attach_table_captions([head, rest, table])
    assert table.text == "Table A-3. Number of reading items, by content domain and process: 2011"
    assert blocks == [table]
