"""Findings located for people (issue 33): beside the selector, where it is in words ("page 3,
paragraph 2", "page 2, the table 'Results by region'", "page 1, heading 'Introduction'") and an
id in the document that shows the spot; report.html shows the words, linked to that id."""

from __future__ import annotations

from bs4 import BeautifulSoup

from conversion.pipeline import flow
from conversion.pipeline.accessibility import locate, locate_dicts
from conversion.pipeline.document import Finding
from conversion.pipeline.output_format import page_marker
from conversion.pipeline.report_html import render_report
from tests.resources.documents.handmade import every_block


def _doc(*pages: str) -> str:
    body = "".join(page_marker(n, str(n)) + html for n, html in enumerate(pages, start=1))
    return (
        '<!DOCTYPE html><html lang="en"><head><title>t</title></head><body>'
        f'<main id="content">{body}</main></body></html>'
    )


PAGES = _doc(
    '<h1 id="h-intro">Introduction</h1><p>One.</p>',
    '<p class="furniture" data-page="2">Annual report</p><p>Two.</p>'
    '<div class="table-scroll" role="region" aria-labelledby="table-1-caption" tabindex="0">'
    '<table id="table-1"><caption id="table-1-caption">Results by region</caption>'
    "<tr><th>Region</th></tr><tr><td>North <mark>x</mark></td></tr></table></div>"
    "<table><tr><td>no caption</td></tr></table>",
    "<p>First.</p><ul><li>a</li><li>b</li></ul><p>Second <mark>wrod</mark>.</p>",
)


def _where(selector: str | None, page: int | None = None) -> tuple[str | None, str | None]:
    (found,) = locate(PAGES, [Finding(code="X", level="warning", message="m", element=selector,
                                      page=page)])  # fmt: skip
    return found.location, found.anchor


def test_a_paragraph_is_counted_from_its_page_marker():
    assert _where("#content > p:nth-of-type(5) > mark") == ("page 3, paragraph 2", "page-3")
    assert _where("#content > p:nth-of-type(1)") == ("page 1, paragraph 1", "page-1")


def test_a_table_is_named_by_its_caption_and_a_cell_by_its_row():
    assert _where("#table-1") == ("page 2, the table 'Results by region'", "table-1")
    located = _where("#table-1 > tr:nth-of-type(2) > td > mark")
    assert located == ("page 2, the table 'Results by region', row 2", "table-1")
    assert _where("#content > table") == ("page 2, table 2", "page-2")


def test_a_heading_is_named_by_its_text():
    assert _where("#h-intro") == ("page 1, heading 'Introduction'", "h-intro")


def test_list_items_furniture_pages_and_the_whole_document():
    assert _where("#content > ul > li:nth-of-type(2)") == ("page 3, list 1, item 2", "page-3")
    assert _where("#content > p:nth-of-type(2)")[0] == (
        "page 2, the running header or footer 'Annual report'"
    )
    assert _where("#page-2") == ("page 2", "page-2")
    assert _where(None, page=3) == ("page 3", "page-3")
    assert _where(None) == ("the whole document", None)
    assert _where("#no-such-id", page=1) == ("page 1", "page-1")


def test_the_converted_document_locates_every_finding_and_anchors_its_uncertain_words():
    html, findings = flow.render_and_check(every_block(), files_dir_name="x_files")
    assert findings and all(f.location for f in findings)
    soup = BeautifulSoup(html, "html.parser")
    for f in findings:
        assert f.anchor is None or soup.find(id=f.anchor) is not None, f
    uncertain = next(f for f in findings if f.code == "LOW_CONFIDENCE")
    assert uncertain.location == "page 1, paragraph 1"
    assert soup.find(id=uncertain.anchor).name == "mark"  # the link lands on the words
    table = next(f for f in findings if f.code == "TABLE_HEADERS_GUESSED")
    assert table.location == "page 3, the table 'Opening hours'"
    # report.json keeps the selector beside the words
    assert table.as_dict()["element"] == "#table-3"


def test_locate_dicts_keeps_other_keys_and_relocates():
    stale = {"code": "X", "level": "warning", "message": "m", "element": "#h-intro",
             "location": "page 9, paragraph 9", "extra": 1}  # fmt: skip
    (fresh,) = locate_dicts(PAGES, [stale])
    assert fresh["location"] == "page 1, heading 'Introduction'" and fresh["extra"] == 1


def test_report_html_says_where_in_words_and_links_to_the_spot():
    report = {
        "source": "x.pdf",
        "findings": [
            {"code": "LOW_CONFIDENCE", "level": "needs_review", "message": "Check 'wrod'.",
             "page": 3, "element": "#uncertain-2", "location": "page 3, paragraph 2",
             "anchor": "uncertain-2"},
            {"code": "H1_COUNT", "level": "error", "message": "Two h1."},
        ],
    }  # fmt: skip
    soup = BeautifulSoup(render_report(report, document_href="x.html"), "html.parser")
    link = soup.find("a", string="Page 3, paragraph 2")
    assert link is not None and link["href"] == "x.html#uncertain-2"
    assert "#uncertain-2" not in soup.main.get_text()  # the selector is data, not shown
    assert soup.find("th", string="The whole document") is not None
