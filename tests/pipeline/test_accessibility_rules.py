"""Each own rule catches the defect it exists for: plant it, expect the finding."""

from __future__ import annotations

import pytest

from conversion.pipeline.accessibility import check_document, check_html
from conversion.pipeline.document import Block, Document, Page, Span
from conversion.pipeline.render import RenderOptions, render_document
from tests.resources.documents.handmade import every_block


def _html(doc: Document | None = None) -> str:
    return render_document(doc or every_block(), RenderOptions(files_dir="x_files"))


def _codes(findings, level=None) -> set[str]:
    return {f.code for f in findings if level is None or f.level == level}


def _page(*blocks: Block, number: int = 1) -> Page:
    return Page(number=number, width=1000, height=1400, blocks=list(blocks))


def test_clean_document_has_no_errors():
    assert _codes(check_html(_html(), expected_pages=3), "error") == set()


@pytest.mark.parametrize(
    ("old", "new", "code"),
    [
        ('<h2 id="h-2">', '<h1 id="h-2">', "H1_COUNT"),
        ('<h2 id="h-2">Membership</h2>', '<h4 id="h-2">Membership</h4>', "HEADING_SKIP"),
        ('<h2 id="h-2">Membership</h2>', '<h2 id="h-2"> </h2>', "HEADING_EMPTY"),
        ('<h1 id="h-1">', '<h2 id="h-1">', "H1_NOT_FIRST"),
        ('<html lang="en">', "<html>", "LANG_MISSING"),
        ('<p lang="fr">', '<p lang="français!">', "LANG_INVALID"),
        ("<title>Annual report", "<title> </title><x>", "TITLE_MISSING"),
        ('class="skip-link" href="#content"', 'class="skip-link" href="#no"', "SKIP_LINK"),
        ("</main>", "</main><main></main>", "MAIN_COUNT"),
        (' alt="Bar chart', ' data-x="', "IMG_NO_ALT"),
        ('alt="Bar chart: income rose from 10 000 to 14 000 euros between 2023 and 2024."',
         'alt="figure-1-p2.png"', "ALT_NOT_DESCRIPTIVE"),
        ('<p>Each region', '<p></p><p>Each region', "EMPTY_BLOCK"),
        ('id="page-2" aria-label="Page 2"', 'id="page-2" aria-label=""', "PAGE_MARKER_LABEL"),
        ('<a href="#page-3">3</a>', "3", "PAGE_LIST"),
        ('href="#fn-1" id="ref-fn-1"', 'href="#fn-9" id="ref-fn-1"', "NOTE_REF_BROKEN"),
        ('role="doc-backlink" aria-label="Back to reference 1">↩</a></p></aside>\n<span',
         'aria-label="x">↩</a></p></aside>\n<span', "NOTE_NO_BACKLINK"),
        ("<p>Each region", "<p><script>alert(1)</script>Each region", "MARKUP_IN_TEXT"),
    ],
)  # fmt: skip
def test_planted_html_defect_is_found(old, new, code):
    html = _html()
    assert old in html, old
    findings = check_html(html.replace(old, new, 1), expected_pages=3)
    assert code in _codes(findings), [f.as_dict() for f in findings]
    found = next(f for f in findings if f.code == code)
    assert found.level in ("error", "warning", "needs_review") and found.criterion


def test_page_markers_must_match_pages():
    findings = check_html(_html(), expected_pages=4)
    assert "PAGE_MARKERS" in _codes(findings, "error")


def test_page_markers_out_of_order():
    html = _html().replace('id="page-2"', 'id="page-x"').replace('id="page-3"', 'id="page-2"')
    html = html.replace('id="page-x"', 'id="page-3"')
    assert "PAGE_ORDER" in _codes(check_html(html, expected_pages=3), "error")


def test_figure_without_alt_is_flagged_for_review_with_page():
    findings = check_html(_html(), expected_pages=3)
    review = [f for f in findings if f.code == "FIGURE_ALT_REVIEW"]
    assert [(f.level, f.page, f.element, f.criterion) for f in review] == [
        ("needs_review", 2, "#figure-2", "1.1.1")
    ]


def test_figure_image_missing_is_flagged():
    heading = Block(kind="heading", level=1, spans=[Span("T")])
    doc = Document("T", "en", [_page(heading, Block(kind="figure", alt="A map", caption="Map"))])
    assert "FIGURE_IMAGE_MISSING" in _codes(check_html(_html(doc)), "needs_review")


def test_low_confidence_text_flagged_with_page_and_element():
    findings = [f for f in check_html(_html(), expected_pages=3) if f.code == "LOW_CONFIDENCE"]
    assert len(findings) == 1
    assert findings[0].page == 1 and findings[0].level == "needs_review" and findings[0].element


def test_note_marker_without_note_is_flagged():
    doc = every_block()
    doc.pages[0].blocks[2].spans[1].note_ref = "fn-404"
    assert "NOTE_MISSING" in _codes(check_html(_html(doc), expected_pages=3), "needs_review")


def test_unreferenced_footnote_is_flagged():
    doc = every_block()
    doc.pages[0].blocks[2].spans[1].note_ref = None
    assert "NOTE_UNREFERENCED" in _codes(check_html(_html(doc), expected_pages=3), "warning")


def test_footnote_before_its_reference_is_a_reading_order_warning():
    doc = every_block()
    note = doc.pages[1].blocks.pop()  # fn-1, referenced on page 1
    doc.pages[0].blocks.insert(1, note)
    findings = check_html(_html(doc), expected_pages=3)
    assert any(f.code == "READING_ORDER" and f.element == "#fn-1" for f in findings)


def test_heading_inside_a_sentence_is_a_reading_order_warning():
    doc = Document("T", "en", [_page(
        Block(kind="heading", level=1, spans=[Span("T")]),
        Block(kind="paragraph", spans=[Span("The committee met on the")]),
        Block(kind="heading", level=2, spans=[Span("Results")]),
        Block(kind="paragraph", spans=[Span("third of May and agreed.")]),
    )])  # fmt: skip
    findings = check_html(_html(doc), expected_pages=1)
    assert any(f.code == "READING_ORDER" and f.element == "#h-2" for f in findings)


def test_blocks_read_upward_in_one_column_are_a_reading_order_warning():
    doc = Document("T", "en", [_page(
        Block(kind="paragraph", spans=[Span("Second")], bbox=(100, 700, 900, 800)),
        Block(kind="paragraph", spans=[Span("First")], bbox=(100, 200, 900, 300)),
    )])  # fmt: skip
    found = [f for f in check_document(doc) if f.code == "READING_ORDER"]
    assert found and found[0].page == 1 and found[0].element == "#page-1"


def test_two_columns_read_in_order_are_not_flagged():
    doc = Document("T", "en", [_page(
        Block(kind="paragraph", spans=[Span("Left top")], bbox=(50, 200, 480, 600)),
        Block(kind="paragraph", spans=[Span("Left bottom")], bbox=(50, 650, 480, 1200)),
        Block(kind="paragraph", spans=[Span("Right top")], bbox=(520, 200, 950, 600)),
    )])  # fmt: skip
    assert check_document(doc) == []


def test_full_page_image_without_text_is_text_as_image():
    doc = Document("T", "en", [_page(
        Block(kind="figure", image="p.png", bbox=(0, 0, 1000, 1300)),
        Block(kind="page_footer", spans=[Span("Page 1 of 1")]),
    )])  # fmt: skip
    found = [f for f in check_document(doc) if f.code == "TEXT_AS_IMAGE"]
    assert [(f.level, f.page, f.criterion, f.element) for f in found] == [
        ("error", 1, "1.4.5", "#figure-1")
    ]


def test_large_image_beside_real_text_is_fine():
    doc = Document("T", "en", [_page(
        Block(kind="figure", image="p.png", bbox=(0, 0, 1000, 900)),
        Block(kind="paragraph", spans=[Span("A real paragraph of text about the photograph.")]),
    )])  # fmt: skip
    assert check_document(doc) == []


def test_unparsed_formula_and_guessed_headers_need_review():
    doc = Document("T", "en", [_page(
        Block(kind="heading", level=1, spans=[Span("T")]),
        Block(kind="formula", latex=r"\frac{1}{"),
    )])  # fmt: skip
    codes = _codes(check_html(_html(doc), expected_pages=1), "needs_review")
    assert "FORMULA_UNPARSED" in codes
    assert "TABLE_HEADERS_GUESSED" in _codes(check_html(_html(), expected_pages=3), "needs_review")


def test_identical_elements_get_their_own_paths():
    """Two identical empty paragraphs: each finding points at its own element (a reviewer
    clicking the second must not land on the first)."""
    html = (
        '<!DOCTYPE html><html lang="en"><head><title>T</title></head><body><main>'
        "<h1>T</h1><p>a</p><p></p><p>b</p><p></p></main></body></html>"
    )
    found = [f.element for f in check_html(html) if f.code == "EMPTY_BLOCK"]
    assert found == [
        "body > main > p:nth-of-type(2)",
        "body > main > p:nth-of-type(4)",
    ]
