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
