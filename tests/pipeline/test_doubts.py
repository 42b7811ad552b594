"""The document's doubts (conversion.pipeline.doubts): tables whose header rows hold data,
whose rows lost their columns, whose caption is a row or names another table; headings that
are a name, an affiliation or a date. Each through assemble, as a page's reading reaches it."""

from __future__ import annotations

import pytest

from conversion.pipeline.assemble import AssembleOptions, assemble
from conversion.pipeline.document import Block, Document, Page, Span
from conversion.pipeline.doubts import heading_doubt, heading_doubts
from models.engine import PageReading, ReadBlock


def _cell(text, header=False, colspan=1):
    return {"text": text, "header": header, "colspan": colspan}


def _table(rows, y=450, caption=None):
    blocks = []
    if caption:
        blocks.append(ReadBlock(kind="paragraph", text=caption, bbox=(200, y - 50, 900, y - 10),
                                font_size=40.0))  # fmt: skip
    blocks.append(ReadBlock(kind="table", bbox=(200, y, 1500, y + 400), rows=rows))
    return blocks


def _codes(*pages):
    readings = [
        PageReading(page_number=n, blocks=list(blocks), width=2000, height=3000)
        for n, blocks in enumerate(pages, 1)
    ]
    return [f.code for f in assemble(readings, AssembleOptions()).findings]


HEAD = [_cell("Method", True), _cell("Clustering", True), _cell("Retrieval", True)]
DATA = [
    [_cell("Ours"), _cell("0.91"), _cell("0.77")],
    [_cell("Base"), _cell("0.85"), _cell("0.70")],
]


def test_a_header_row_of_numbers_is_data_taken_for_a_header():
    numbers = [_cell("Prior", True), _cell("0.88", True), _cell("0.87", True)]
    assert "TABLE_HEADER_NUMBERS" in _codes(_table([HEAD, numbers, *DATA]))
    assert "TABLE_HEADER_NUMBERS" not in _codes(_table([HEAD, *DATA]))


def test_years_as_a_second_header_row_are_headers():
    years = [_cell("", True), _cell("2019", True), _cell("2020", True)]
    assert "TABLE_HEADER_NUMBERS" not in _codes(_table([HEAD, years, *DATA]))


def test_data_rows_each_one_cell_across_all_columns_lost_their_columns():
    rows = [HEAD] + [[_cell(f"Ours 0.9{k} 0.7{k}", colspan=3)] for k in range(3)]
    assert "TABLE_COLUMNS_LOST" in _codes(_table(rows))
    assert "TABLE_COLUMNS_LOST" not in _codes(_table([HEAD, *DATA]))


def test_a_first_row_that_is_the_caption_is_doubted():
    rows = [[_cell("Table 3. Results on the test set", colspan=3)], HEAD, *DATA]
    assert "TABLE_CAPTION_ROW" in _codes(_table(rows))


def test_a_caption_naming_a_table_an_earlier_caption_names_is_doubted():
    first = _table([HEAD, *DATA], y=450, caption="Table 2. Recall")
    same = _table([HEAD, *DATA], y=1500, caption="Table 2. Precision")
    after = _table([HEAD, *DATA], y=1500, caption="Table 3. Precision")
    assert "TABLE_CAPTION_NUMBER" in _codes(first, same)
    assert "TABLE_CAPTION_NUMBER" not in _codes(first, after)


def test_chapter_numbered_and_continued_tables_name_no_other_table():
    first = _table([HEAD, *DATA], caption="Table 6.1: Size of the market")
    second = _table([HEAD, *DATA], caption="Table 6.2: Numbers of outlets")
    continued = _table([HEAD, *DATA], caption="Table 6.2 (continued)")
    assert "TABLE_CAPTION_NUMBER" not in _codes(first, second, continued)


def test_a_text_layers_spaced_chapter_number_names_the_next_table():
    """ "Table 7. 5" after "Table 7.4" (ICDAR eu-005) is the next table, not Table 7 again."""
    first = _table([HEAD, *DATA], caption="Table 7.4: Five Firm National Concentration Ratios")
    second = _table([HEAD, *DATA], caption="Table 7. 5 Comparisons of C5 from different sources")
    back = _table([HEAD, *DATA], caption="Table 7. 3 Comparisons of C5 from different sources")
    assert "TABLE_CAPTION_NUMBER" not in _codes(first, second)
    assert "TABLE_CAPTION_NUMBER" in _codes(first, back)
    # A number of another depth does not compare: "Table 7" beside "Table 7.4" is unknown.
    assert "TABLE_CAPTION_NUMBER" not in _codes(first, _table([HEAD, *DATA], caption="Table 7"))


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("Jane Doe1, John Smith2 and Ann Lee*", "a person's name"),
        ("John A. Smith", "a person's name"),
        ("Department of Computer Science, Stanford University", "an affiliation or address"),
        ("Correspondence to: jane.doe@example.org", "an affiliation or address"),
        ("Received: March 3, 2021", "a date"),
        ("Results and Discussion", None),
        ("Related Work", None),
        ("3.2 Model Architecture", None),
        ("Materials and Methods", None),
        ("The 2021 Season", None),
        # Title-case pairs joined by "and", a keyword alone: section titles (issue 31: false
        # alarms on generated paper3 and ICDAR eu-013).
        ("Bus Routes and Village Life", None),
        ("Data Collection and Statistical Analysis", None),
        ("Universities", None),
        ("Mary Hollis and Peter Grant, Northern University", "an affiliation or address"),
        ("Mary Hollis, Peter Grant", "a person's name"),
        ("Mary Hollis1 and Peter Grant2", "a person's name"),
        ("jane@example.org", "an affiliation or address"),
    ],
)
def test_a_heading_that_reads_as_a_name_an_affiliation_or_a_date(text, what):
    assert heading_doubt(text) == what


def test_an_affiliation_that_reaches_the_document_as_a_heading_is_routed_to_review():
    # The heading steps (issue 32) mostly keep an affiliation from becoming a heading; the
    # doubt is there for what they miss: fed the document model directly.
    heading = Block(
        kind="heading", level=2, spans=[Span("Department of Physics, University of Oslo")]
    )
    body = Block(kind="paragraph", spans=[Span("The body text runs on here. " * 8)])
    doc = Document(title="t", lang="en", pages=[Page(number=1, width=2000, height=3000,
                                                     blocks=[heading, body])])  # fmt: skip
    found = heading_doubts(doc)
    assert [(f.code, f.page, f.level) for f in found] == [
        ("HEADING_NOT_A_HEADING", 1, "needs_review")
    ]
    assert "an affiliation or address" in found[0].message


def test_a_section_title_reaching_the_document_as_a_heading_is_not_doubted():
    heading = Block(kind="heading", level=2, spans=[Span("Results and Discussion")])
    doc = Document(title="t", lang="en", pages=[Page(number=1, width=2000, height=3000,
                                                     blocks=[heading])])  # fmt: skip
    assert heading_doubts(doc) == []
