"""Tagged PDF (PDF/UA-1) from the finished HTML (conversion/pipeline/tagged_pdf.py), read back
with pikepdf: the structure tree, /Marked, /Lang, DisplayDocTitle, figures' /Alt, headings as
in the HTML outline, table header cells, print page labels."""

from __future__ import annotations

import io

import pikepdf
import pytest

from conversion.pipeline.document import Block, Cell, Document, Page, Span
from conversion.pipeline.pdf_check import check_pdf, structure_elements
from conversion.pipeline.render import RenderOptions, render_document
from conversion.pipeline.tagged_pdf import page_labels, write_pdf
from tests.pipeline.test_epub import book_figures, book_html, scan_html

ALT = "A bar chart of ages"


@pytest.fixture(scope="module")
def book_pdf() -> bytes:
    out = io.BytesIO()
    write_pdf(book_html(alt=ALT), out, figures=book_figures)
    return out.getvalue()


def test_the_pdf_is_tagged_for_pdf_ua(book_pdf):
    checked = check_pdf(io.BytesIO(book_pdf), headings=["h1", "h2", "h2", "h3"])
    assert checked["problems"] == []
    assert checked["struct_tree"] and checked["marked"]
    assert checked["lang"] == "en" and checked["display_doc_title"]
    assert checked["title"] == "A Small Book" and checked["pdfua_part"] == "1"
    assert checked["headings"] == ["H1", "H2", "H2", "H3"]  # the HTML's outline
    assert checked["table_headers"] == 2


def test_every_figure_has_its_alt_text(book_pdf):
    with pikepdf.open(io.BytesIO(book_pdf)) as pdf:
        elements = structure_elements(pdf.Root.StructTreeRoot)
        alts = [str(e.get("/Alt")) for e in elements if e.S == "/Figure"]
    assert alts == [ALT]


def test_page_labels_are_the_print_pages(book_pdf):
    with pikepdf.open(io.BytesIO(book_pdf)) as pdf:
        labels = [pikepdf.Page(p).label for p in pdf.pages]
    assert labels[0] in ("Contents", "i")
    assert [label for label in labels if label != "Contents"][:1] == ["i"]
    assert {"i", "ii", "iii"} <= set(labels)
    assert labels.index("ii") < labels.index("iii")


def test_a_page_continued_keeps_its_label():
    label_of = {"page-1": "7", "page-2": "8", "page-3": "9"}
    labels = page_labels([["toc"], ["page-1"], [], ["page-2", "page-3"]], label_of)
    assert labels == ["Contents", "7", "7", "8"]


def test_nothing_but_the_documents_figures_is_fetched():
    html = book_html(alt=ALT).replace('src="book_files/', 'src="file:///etc/')
    out = io.BytesIO()
    result = write_pdf(html, out, figures=book_figures)
    assert result.figures == 1
    assert b"root:" not in out.getvalue()


def test_a_document_rendered_in_runs_is_one_tagged_pdf(book_pdf):
    """Rendered one print page at a time and joined (what a long document gets), the PDF has
    the same structure, alt text, page labels and bookmarks, and its links still resolve."""
    out = io.BytesIO()
    write_pdf(book_html(alt=ALT), out, figures=book_figures, pages_per_render=1)
    joined, whole = check_pdf(io.BytesIO(out.getvalue()), headings=["h1", "h2", "h2", "h3"]), \
        check_pdf(io.BytesIO(book_pdf))  # fmt: skip
    assert joined["problems"] == [] and whole["problems"] == []
    assert joined == {**whole, "problems": []}
    with pikepdf.open(io.BytesIO(out.getvalue())) as pdf, pikepdf.open(io.BytesIO(book_pdf)) as one:
        kinds = [str(e.S) for e in structure_elements(pdf.Root.StructTreeRoot)]
        assert kinds == [str(e.S) for e in structure_elements(one.Root.StructTreeRoot)]
        assert [pikepdf.Page(p).label for p in pdf.pages] == ["i", "ii", "iii"]
        links = [str(a.Dest) for p in pdf.pages for a in p.obj.get("/Annots", [])]
        assert {"h-1", "h-4", "fn-1", "ref-fn-1"} <= set(links)  # contents and notes, across runs
        with pdf.open_outline() as outline:
            (top,) = outline.root
            assert top.title == "A Small Book"
            assert [c.title for c in top.children] == ["First Part", "Second Part"]
            assert [c.title for c in top.children[1].children] == ["A detail"]


def test_the_check_finds_a_page_missing_from_the_parent_tree(book_pdf):
    with pikepdf.open(io.BytesIO(book_pdf)) as pdf:
        del pdf.pages[1].obj["/StructParents"]
        broken = io.BytesIO()
        pdf.save(broken)
    broken.seek(0)
    assert "page 2: no parent tree entry" in check_pdf(broken)["problems"]


def test_a_link_to_the_report_beside_the_html_is_left_out():
    out = io.BytesIO()
    write_pdf(scan_html(), out, figures=book_figures)
    with pikepdf.open(io.BytesIO(out.getvalue())) as pdf:
        actions = [a.get("/A") for p in pdf.pages for a in p.obj.get("/Annots", [])]
    assert not [a for a in actions if a is not None and "report.html" in str(a.get("/URI"))]


def long_html(pages: int) -> str:
    """A text document of `pages` print pages, a heading on each."""
    words = "The harbour office keeps the ferry schedule and the night boats run in summer. " * 4
    return render_document(Document("Harbour", "en", [
        Page(n, 10, 10, blocks=[Block(kind="heading", level=2, spans=[Span(f"Section {n}")]),
                                Block(kind="paragraph", spans=[Span(words)])])
        for n in range(1, pages + 1)
    ]), RenderOptions())  # fmt: skip


def test_runs_join_into_one_structure_tree_in_order():
    """Seven print pages rendered two at a time: one Document element holding every run's
    elements, the headings in the HTML's order, the page labels continuous, one parent tree,
    every contents link resolved, the bookmarks of all runs."""
    out = io.BytesIO()
    result = write_pdf(long_html(7), out, figures=book_figures, pages_per_render=2)
    assert result.problems == ()
    checked = check_pdf(io.BytesIO(out.getvalue()), headings=["h1"] + ["h2"] * 7)
    assert checked["problems"] == []
    with pikepdf.open(io.BytesIO(out.getvalue())) as pdf:
        tree = pdf.Root.StructTreeRoot
        (document,) = tree.K
        assert document.S == "/Document"
        kinds = [str(e.S) for e in structure_elements(document)]
        assert kinds.count("/H2") == 7 and kinds.count("/H1") == 1
        labels = [pikepdf.Page(p).label for p in pdf.pages]
        printed = [label for label in labels if label != "Contents"]
        assert list(dict.fromkeys(printed)) == [str(n) for n in range(1, 8)]
        assert printed == sorted(printed, key=int)  # continuous, never back
        keys = [int(p.obj.StructParents) for p in pdf.pages]
        assert len(set(keys)) == len(keys)
        with pdf.open_outline() as outline:
            (top,) = outline.root
            assert [c.title for c in top.children] == [f"Section {n}" for n in range(1, 8)]


def test_the_check_reads_every_run():
    """A figure without alt text in the second run is found by the check made as the PDF is
    written (each run is checked as it is joined)."""
    html = book_html(alt=ALT).replace(f'alt="{ALT}"', 'alt=""')
    result = write_pdf(html, io.BytesIO(), figures=book_figures, pages_per_render=1)
    assert "1 figures without /Alt" in result.problems


def test_a_long_table_of_contents_is_rendered_in_runs_and_stays_one_list_of_links():
    """Seven contents entries rendered three a run (a list of its own each): every entry
    still links to its heading, in order, the contents come first, and the check finds
    nothing missing."""
    out = io.BytesIO()
    result = write_pdf(long_html(7), out, figures=book_figures, pages_per_render=2,
                       contents_per_render=3)  # fmt: skip
    assert result.problems == ()
    assert check_pdf(io.BytesIO(out.getvalue()), headings=["h1"] + ["h2"] * 7)["problems"] == []
    with pikepdf.open(io.BytesIO(out.getvalue())) as pdf:
        labels = [pikepdf.Page(p).label for p in pdf.pages]
        links = [str(a.get("/Dest")) for p in pdf.pages for a in p.obj.get("/Annots", [])]
        kinds = [str(e.S) for e in structure_elements(pdf.Root.StructTreeRoot)]
    assert links == [f"h-{n}" for n in range(1, 8)]  # the contents' links, all resolved
    assert kinds.count("/LI") == 7
    assert kinds.count("/L") == 3  # one list a run: 3 + 3 + 1 entries
    assert labels[0] == "Contents" and labels[-1] == "7"


def test_table_header_identifiers_stay_unique_across_runs():
    """WeasyPrint numbers its TH identifiers per run: joined, the second and third runs'
    tables (alike) would share them and a TD's /Headers name another table's header. Each ID
    is unique and each /Headers entry names a TH of the TD's own table."""
    table = [[Cell("Name", True), Cell("Age", True)], [Cell("Ann"), Cell("7")]]
    pages = [Page(n, 10, 10, blocks=[Block(kind="table", rows=table)]) for n in (1, 2, 3)]
    html = render_document(Document("Tables", "en", pages), RenderOptions())
    out = io.BytesIO()
    assert write_pdf(html, out, figures=book_figures, pages_per_render=1).problems == ()
    with pikepdf.open(io.BytesIO(out.getvalue())) as pdf:
        elements = structure_elements(pdf.Root.StructTreeRoot)
        ids = [str(e.ID) for e in elements if "/ID" in e]
        tables = [e for e in elements if e.S == "/Table"]
        for table in tables:
            own = {str(e.ID) for e in structure_elements(table) if "/ID" in e}
            named = {str(h) for e in structure_elements(table) if e.S == "/TD"
                     for h in e.A.get("/Headers", [])}  # fmt: skip
            assert named and named <= own
    assert len(tables) == 3 and len(ids) == 6 and len(set(ids)) == 6
