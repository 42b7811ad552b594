from bs4 import BeautifulSoup

from conversion.pipeline.document import Block, Document, Page, Span
from conversion.pipeline.render import RenderOptions, render_document, repair_heading_levels


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
