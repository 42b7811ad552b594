"""conversion.review_structure and review_checks on small documents: the edits' edge cases (a
split inside inline markup, ids never doubled, header references left pointing nowhere) and
what an edit breaks, said with what and where."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from conversion import review_checks, review_structure

DOC = """<!DOCTYPE html><html lang="en"><head><title>T</title></head><body>
<a class="skip-link" href="#content">Skip</a><main id="content">
<span class="pagebreak" role="doc-pagebreak separator" id="page-1" aria-label="Page 1"></span>
<h1 id="h-1">Title</h1>
<p id="p-1">One <mark class="uncertain" data-confidence="low">balanced</mark> two</p>
<h2 id="h-2">Part</h2>
<div class="table-scroll" role="region" aria-label="Table 1" tabindex="0"><table id="table-1">
<thead><tr><th scope="col" id="table-1-r0c0">Day</th><th scope="col" id="table-1-r0c1">Opens</th>
</tr></thead><tbody><tr><th scope="row" id="table-1-r1c0" headers="table-1-r0c0">Monday</th>
<td headers="table-1-r0c1 table-1-r1c0">09:00</td></tr></tbody></table></div>
</main></body></html>"""


def _blocks(soup: BeautifulSoup) -> list:
    main = soup.find("main")
    return review_structure.blocks_of(list(main.children))[1:]  # after the page marker


def test_a_split_inside_inline_markup_keeps_it_on_both_sides_and_no_id_twice():
    soup = BeautifulSoup(DOC, "html.parser")
    paragraph = _blocks(soup)[1]
    note = review_structure.split_before(paragraph, "anced two")
    first, second = paragraph, paragraph.find_next_sibling("p")
    assert (
        str(first) == '<p id="p-1">One <mark class="uncertain" data-confidence="low">bal</mark></p>'
    )
    assert str(second) == '<p><mark class="uncertain" data-confidence="low">anced</mark> two</p>'
    assert note == "paragraph “One balanced two” split before “anced two”"
    with pytest.raises(review_structure.StructureError, match="start the paragraph"):
        review_structure.split_before(first, "One")


def test_unmarking_header_cells_drops_references_to_them():
    soup = BeautifulSoup(DOC, "html.parser")
    table_block = _blocks(soup)[3]
    review_structure.set_table_headers(table_block, header_row=True, row_headers=False)
    table = table_block.find("table")
    assert [c.name for c in table.tbody.tr.find_all(["td", "th"])] == ["td", "td"]
    # "table-1-r1c0" is no header any more: no cell names it.
    assert table.tbody.find_all("td")[1]["headers"] == "table-1-r0c1"
    assert review_structure.describe(_blocks(soup))[3].row_headers is False


def test_breakage_says_what_and_where():
    old = DOC
    soup = BeautifulSoup(DOC, "html.parser")
    review_structure.set_level(_blocks(soup)[2], 4)
    problems = review_checks.breakage(old, str(soup), edited="page 1, heading “Part”")
    assert problems == ["page 1, heading “Part”: the heading levels would skip from 1 to 4"]
    soup = BeautifulSoup(DOC, "html.parser")
    review_structure.set_level(_blocks(soup)[1], 1)
    problems = review_checks.breakage(old, str(soup), edited="page 1, paragraph “One”")
    assert problems == [
        "page 1, paragraph “One”: the document would have 2 level-1 headings (it needs exactly one)"
    ]
    # Fixing is never refused: the same document again breaks nothing.
    assert review_checks.breakage(str(soup), str(soup), edited="x") == []
