from bs4 import BeautifulSoup

from conversion.pipeline.document import Block, Document, Page, Span
from conversion.pipeline.render import RenderOptions, render_document, repair_heading_levels
from conversion.pipeline.report_html import render_report


def test_heading_levels_are_repaired():
    assert repair_heading_levels([2, 4, 1, 3]) == [1, 2, 2, 3]
    assert repair_heading_levels([1, 1, 1]) == [1, 2, 2]


def test_text_that_looks_like_markup_stays_text():
    doc = Document(
        title="<b>t</b>",
        lang="en",
        pages=[Page(number=1, width=10, height=10, blocks=[
            Block(kind="paragraph", spans=[Span("<script>alert(1)</script>")]),
            Block(kind="heading", level=1, spans=[Span('<img src=x onerror="alert(1)">')]),
        ])],
    )  # fmt: skip
    html = render_document(doc, RenderOptions())
    soup = BeautifulSoup(html, "html.parser")
    assert soup.find("script") is None
    assert soup.find("img") is None
    assert "<script>alert(1)</script>" in soup.find("main").get_text()
    assert soup.find("html")["lang"] == "en"
    assert len(soup.find_all("h1")) == 1
    assert soup.select_one("[role~=doc-pagebreak]")["id"] == "page-1"


def test_control_characters_leave_the_html_and_its_report():
    """A symbol font's glyphs read as control characters (a form's check box, U+0015; a
    dingbat, U+007F) and a title's stray byte (U+0083): HTML may not hold them, so no text
    carries them, in the document or in its report."""
    doc = Document(
        title="\x83 Knowledge base",
        lang="en",
        pages=[Page(number=1, width=10, height=10, blocks=[
            Block(kind="paragraph", spans=[Span("Java \x15 C#\x7f")]),
        ])],
    )  # fmt: skip
    html = render_document(doc, RenderOptions())
    assert not any(c in html for c in "\x15\x7f\x83")
    soup = BeautifulSoup(html, "html.parser")
    assert soup.title.get_text().strip() == "Knowledge base"
    assert "Java  C#" in soup.find("main").get_text()
    finding = {"code": "LOW_CONFIDENCE", "level": "needs_review", "message": "Check '\x15'."}
    report = {"source": "a\x15.pdf", "title": "\x83 Knowledge base", "findings": [finding]}
    assert "\x15" not in render_report(report) and "\x83" not in render_report(report)


def _headings_doc(levels: list[int]) -> BeautifulSoup:
    blocks = [Block(kind="heading", level=level, spans=[Span(f"Section {i}")])
              for i, level in enumerate(levels)]  # fmt: skip
    doc = Document(title="Report", lang="en", pages=[Page(1, 10, 10, blocks=blocks)])
    return BeautifulSoup(render_document(doc, RenderOptions()), "html.parser")


def test_sections_of_one_level_stay_equals_under_the_document_title():
    soup = _headings_doc([3, 3, 4, 3])
    assert [h.get_text() for h in soup.find_all("h1")] == ["Report"]
    assert [h.name for h in soup.find("main").find_all(["h2", "h3"])] == ["h2", "h2", "h3", "h2"]


def test_a_heading_above_the_others_is_the_h1():
    soup = _headings_doc([1, 2, 2])
    assert [h.name for h in soup.find("main").find_all(["h1", "h2"])] == ["h1", "h2", "h2"]
    assert soup.select_one(".doc-title") is None
