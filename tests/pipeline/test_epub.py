"""EPUB 3 from the finished HTML (conversion/pipeline/epub.py): the navigation (heading outline,
page-list, landmarks), the accessibility metadata from the report, figures with their alt text,
MathML, and EPUBCheck's verdict on documents converted from tests/resources."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from conversion.pipeline.document import Block, Cell, Document, ListItem, Page, Span
from conversion.pipeline.epub import CONFORMS_TO, EpubOptions, check_epub, write_epub
from conversion.pipeline.render import RenderOptions, render_document

EPUBCHECK = Path("/usr/share/java/epubcheck.jar")
# A JVM that lives seconds: the quick JIT only and the serial collector halve its CPU time
# (same report); the CLI checks one EPUB a call.
EPUBCHECK_JVM = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]
# DAISY Ace, installed by `bin/setup dev` (npm --ignore-scripts: no browser download; it drives
# Debian's Chromium), on the system's Node 20+ or on Node 22 from PyPI linked as .ace/bin/node.
ACE_DIR = Path(__file__).resolve().parents[2] / ".ace"
ACE = ACE_DIR / "node_modules" / ".bin" / "ace-puppeteer"
NS = {
    "x": "http://www.w3.org/1999/xhtml",
    "epub": "http://www.idpf.org/2007/ops",
    "opf": "http://www.idpf.org/2007/opf",
    "dc": "http://purl.org/dc/elements/1.1/",
    "m": "http://www.w3.org/1998/Math/MathML",
}
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f"
    b"\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00"
    b"\x00IEND\xaeB`\x82"
)
OPEN_REPORT = {
    "source": "book.pdf",
    "summary": {"errors": 0, "warnings": 0, "needs_review": 1},
    "findings": [{"code": "FIGURE_ALT_REVIEW", "level": "needs_review", "page": 2}],
}
CLEAN_REPORT = {"source": "book.pdf", "summary": {"errors": 0, "warnings": 0, "needs_review": 0}}


def book_html(*, alt: str | None = None) -> str:
    """A three-page document: a title, sections on two pages, a figure, a table, a list, a
    footnote referenced from another page, a formula."""
    pages = [
        Page(1, 10, 10, label="i", blocks=[
            Block(kind="heading", level=1, spans=[Span("A Small Book")]),
            Block(kind="paragraph", spans=[Span("Text"), Span("1", note_ref="fn-1")]),
            Block(kind="heading", level=2, spans=[Span("First Part")]),
            Block(kind="list", items=[ListItem([Span("one")]), ListItem([Span("two")])]),
        ]),
        Page(2, 10, 10, label="ii", blocks=[
            Block(kind="figure", image="figure-1-p2.png", alt=alt, caption="A chart"),
            Block(kind="table", rows=[[Cell("Name", True), Cell("Age", True)],
                                      [Cell("Ann"), Cell("7")]]),
            Block(kind="footnote", id="fn-1", spans=[Span("1 A note.")]),
        ]),
        Page(3, 10, 10, label="iii", blocks=[
            Block(kind="heading", level=2, spans=[Span("Second Part")]),
            Block(kind="heading", level=3, spans=[Span("A detail")]),
            Block(kind="formula", latex=r"E = mc^2"),
            Block(kind="paragraph", lang="fr", spans=[Span("Fin")]),
        ]),
    ]  # fmt: skip
    doc = Document(title="A Small Book", lang="en", pages=pages)
    return render_document(doc, RenderOptions(files_dir="book_files"))


def book_figures(name: str):
    return io.BytesIO(PNG) if name == "figure-1-p2.png" else None


def _epub(html: str, report: dict, **opts) -> zipfile.ZipFile:
    out = io.BytesIO()
    write_epub(
        html, report, out, figures=book_figures, modified=dt.datetime(2026, 1, 2, tzinfo=dt.UTC),
        opts=EpubOptions(**opts) if opts else None,
    )  # fmt: skip
    return zipfile.ZipFile(out)


def _xml(zf: zipfile.ZipFile, name: str) -> etree._Element:
    return etree.fromstring(zf.read(f"EPUB/{name}"))


def _meta(opf: etree._Element, prop: str) -> list[str]:
    return [m.text for m in opf.iterfind(f".//opf:meta[@property='{prop}']", NS)]


def test_the_zip_is_an_epub_container():
    zf = _epub(book_html(), OPEN_REPORT)
    first = zf.infolist()[0]
    assert (first.filename, first.compress_type) == ("mimetype", zipfile.ZIP_STORED)
    assert zf.read("mimetype") == b"application/epub+zip"
    assert b"EPUB/package.opf" in zf.read("META-INF/container.xml")


def test_the_same_document_gives_the_same_bytes():
    out1, out2 = io.BytesIO(), io.BytesIO()
    when = dt.datetime(2026, 1, 2, tzinfo=dt.UTC)
    write_epub(book_html(), OPEN_REPORT, out1, figures=book_figures, modified=when)
    write_epub(book_html(), OPEN_REPORT, out2, figures=book_figures, modified=when)
    assert out1.getvalue() == out2.getvalue()


def test_a_file_per_section_and_links_across_files():
    zf = _epub(book_html(), OPEN_REPORT)
    spine = [i.get("idref") for i in _xml(zf, "package.opf").iterfind(".//opf:itemref", NS)]
    assert spine == ["nav", "part-1", "part-2", "part-3"]  # title, First Part, Second Part
    part1 = _xml(zf, "part-001.xhtml")
    noteref = part1.find(".//x:a[@role='doc-noteref']", NS)
    assert noteref.get("href") == "part-002.xhtml#fn-1"  # the note is read in the next file
    backlink = _xml(zf, "part-002.xhtml").find(".//x:a[@role='doc-backlink']", NS)
    assert backlink.get("href").startswith("part-001.xhtml#ref-fn-1")


def test_a_long_run_of_pages_without_headings_is_cut():
    pages = [Page(n, 10, 10, blocks=[Block(kind="paragraph", spans=[Span(f"p{n}")])])
             for n in range(1, 8)]  # fmt: skip
    html = render_document(Document("Plain", "en", pages), RenderOptions())
    zf = _epub(html, OPEN_REPORT, pages_per_file_max=3)
    parts = sorted(n for n in zf.namelist() if n.startswith("EPUB/part-"))
    assert len(parts) == 3  # 3 + 3 + 1 pages
    assert len(_xml(zf, "part-001.xhtml").findall(".//x:span[@epub:type='pagebreak']", NS)) == 3


def test_nav_has_the_heading_outline():
    nav = _xml(_epub(book_html(), OPEN_REPORT), "nav.xhtml")
    toc = nav.find(".//x:nav[@epub:type='toc']", NS)
    top = toc.find("x:ol", NS)
    assert [a.text for a in top.iterfind("x:li/x:a", NS)] == ["A Small Book"]
    second = top.find("x:li/x:ol", NS)
    assert [a.text for a in second.iterfind("x:li/x:a", NS)] == ["First Part", "Second Part"]
    assert [a.text for a in second.iterfind("x:li/x:ol/x:li/x:a", NS)] == ["A detail"]
    assert toc.find(".//x:a", NS).get("href") == "part-001.xhtml#h-1"


def test_page_list_has_every_print_page_with_its_label():
    zf = _epub(book_html(), OPEN_REPORT)
    page_list = _xml(zf, "nav.xhtml").find(".//x:nav[@epub:type='page-list']", NS)
    assert page_list is not None
    links = [(a.get("href"), a.text) for a in page_list.iterfind(".//x:a", NS)]
    assert links == [
        ("part-001.xhtml#page-1", "i"),
        ("part-002.xhtml#page-2", "ii"),
        ("part-003.xhtml#page-3", "iii"),
    ]
    for href, label in links:
        name, ident = href.split("#")
        marker = _xml(zf, name).find(f".//*[@id='{ident}']", NS)
        assert marker.get("{http://www.idpf.org/2007/ops}type") == "pagebreak"
        assert marker.get("role") == "doc-pagebreak"
        assert marker.get("aria-label") == f"Page {label}"  # named "Page N" for a reader
    features = _meta(_xml(zf, "package.opf"), "schema:accessibilityFeature")
    assert {"pageBreakMarkers", "pageNavigation"} <= set(features)


def test_landmarks_name_the_contents_and_the_start():
    nav = _xml(_epub(book_html(), OPEN_REPORT), "nav.xhtml")
    marks = nav.find(".//x:nav[@epub:type='landmarks']", NS)
    types = {a.get("{http://www.idpf.org/2007/ops}type"): a.get("href")
             for a in marks.iterfind(".//x:a", NS)}  # fmt: skip
    assert types == {"toc": "nav.xhtml#toc", "bodymatter": "part-001.xhtml"}


def test_accessibility_metadata_from_the_report():
    opf = _xml(_epub(book_html(), OPEN_REPORT), "package.opf")
    assert _meta(opf, "schema:accessMode") == ["textual", "visual"]
    assert _meta(opf, "schema:accessModeSufficient") == ["textual,visual"]
    assert _meta(opf, "schema:accessibilityHazard") == ["none"]
    features = set(_meta(opf, "schema:accessibilityFeature"))
    assert {"tableOfContents", "structuralNavigation", "MathML"} <= features
    assert "alternativeText" not in features  # the figure is not described
    (summary,) = _meta(opf, "schema:accessibilitySummary")
    assert "book.pdf" in summary and "1 figures without a description" in summary
    assert "0 of 1 figures" in summary
    assert _meta(opf, "dcterms:conformsTo") == []  # a finding is open
    assert opf.findtext(".//dc:source", namespaces=NS) == "book.pdf"
    assert opf.findtext(".//dc:language", namespaces=NS) == "en"


def test_conformance_claimed_only_without_open_findings():
    opf = _xml(_epub(book_html(alt="A bar chart of ages"), CLEAN_REPORT), "package.opf")
    assert _meta(opf, "dcterms:conformsTo") == [CONFORMS_TO]
    assert _meta(opf, "a11y:certifiedBy")
    assert "alternativeText" in _meta(opf, "schema:accessibilityFeature")
    assert _meta(opf, "schema:accessModeSufficient") == ["textual", "textual,visual"]


def test_figures_keep_their_alt_text_and_image():
    zf = _epub(book_html(alt="A bar chart of ages"), CLEAN_REPORT)
    img = _xml(zf, "part-002.xhtml").find(".//x:figure/x:img", NS)
    assert img.get("alt") == "A bar chart of ages"
    assert img.get("src") == "images/figure-1-p2.png"
    assert zf.read("EPUB/images/figure-1-p2.png") == PNG
    items = {i.get("href"): i.get("media-type")
             for i in _xml(zf, "package.opf").iterfind(".//opf:item", NS)}  # fmt: skip
    assert items["images/figure-1-p2.png"] == "image/png"


def test_a_missing_image_becomes_its_alt_text():
    out = io.BytesIO()
    write_epub(book_html(alt="A bar chart"), CLEAN_REPORT, out, figures=lambda name: None)
    zf = zipfile.ZipFile(out)
    part = _xml(zf, "part-002.xhtml")
    assert part.find(".//x:img", NS) is None
    assert part.find(".//x:p[@class='figure-text']", NS).text == "A bar chart"
    assert not any(n.startswith("EPUB/images/") for n in zf.namelist())


def scan_html() -> str:
    """A handwritten page, not transcribed: a note linking the report beside the HTML, and the
    page's image."""
    scan = Block(kind="figure", image="figure-1-p2.png", page_scan=True)
    pages = [Page(1, 10, 10, blocks=[Block(kind="heading", level=1, spans=[Span("Notes")])]),
             Page(2, 10, 10, blocks=[scan])]  # fmt: skip
    return render_document(Document("Notes", "en", pages), RenderOptions(files_dir="book_files"))


def test_a_link_to_the_report_beside_the_html_keeps_only_its_text():
    html = scan_html()
    assert 'href="book.report.html"' in html
    zf = _epub(html, OPEN_REPORT)
    text = "".join(zf.read(n).decode() for n in zf.namelist() if n.endswith(".xhtml"))
    assert "report.html" not in text and "the accessibility report" in text


def test_mathml_and_languages_are_kept():
    zf = _epub(book_html(), OPEN_REPORT)
    part3 = _xml(zf, "part-003.xhtml")
    assert part3.find(".//m:math", NS) is not None
    assert part3.find(".//m:annotation", NS).text == "E = mc^2"
    items = {i.get("href"): i.get("properties")
             for i in _xml(zf, "package.opf").iterfind(".//opf:item", NS)}  # fmt: skip
    assert items["part-003.xhtml"] == "mathml"
    assert items["part-001.xhtml"] is None
    assert part3.get("{http://www.w3.org/XML/1998/namespace}lang") == "en"
    french = part3.find(".//x:p[@lang='fr']", NS)
    assert french.get("{http://www.w3.org/XML/1998/namespace}lang") == "fr"


def _rewritten(zf: zipfile.ZipFile, name: str, change) -> io.BytesIO:
    """The EPUB with one file's text changed."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as new:
        for info in zf.infolist():
            data = zf.read(info)
            data = change(data.decode()).encode() if info.filename == name else data
            new.writestr(info.filename, data, compress_type=info.compress_type)
    out.seek(0)
    return out


def test_the_self_check_passes_and_finds_what_is_missing():
    """epub.check_epub, which the report carries for every job: a page-list short of a page,
    the accessibility metadata or a figure's alt text gone is found."""
    out = io.BytesIO()
    write_epub(book_html(alt="A bar chart"), CLEAN_REPORT, out, figures=book_figures)
    zf = zipfile.ZipFile(out)
    assert check_epub(io.BytesIO(out.getvalue())) == []
    last = '<li><a href="part-003.xhtml#page-3">iii</a></li>'
    short = _rewritten(zf, "EPUB/nav.xhtml", lambda t: t.replace(last, ""))
    assert "the page-list has 2 pages for 3 page breaks" in check_epub(short)
    bare = _rewritten(
        zf, "EPUB/package.opf", lambda t: t.replace("schema:accessibilityHazard", "x")
    )
    assert "no schema:accessibilityHazard" in check_epub(bare)
    no_alt = _rewritten(zf, "EPUB/part-002.xhtml", lambda t: t.replace('alt="A bar chart"', ""))
    assert "part-002.xhtml: an image without alt text" in check_epub(no_alt)


# --- EPUBCheck on converted documents --------------------------------------------------------


def epubcheck(path: Path, tmp: Path) -> dict:
    """EPUBCheck's JSON report of one EPUB."""
    assert EPUBCHECK.exists() and shutil.which("java"), "bin/setup dev installs epubcheck"
    report = tmp / f"{path.stem}.epubcheck.json"
    subprocess.run(
        ["java", *EPUBCHECK_JVM, "-jar", str(EPUBCHECK), str(path), "--json", str(report)],
        capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    return json.loads(report.read_text())


def problems(check: dict) -> list[str]:
    return [
        f"{m['severity']} {m['ID']}: {m['message']}"
        for m in check["messages"]
        if m["severity"] in ("FATAL", "ERROR")
    ]


@pytest.mark.slow
def test_the_handmade_book_passes_epubcheck(tmp_path):
    for name, html, report in (
        ("open", book_html(), OPEN_REPORT),
        ("scan", scan_html(), OPEN_REPORT),
        ("clean", book_html(alt="A bar chart of ages"), CLEAN_REPORT),
    ):
        path = tmp_path / f"{name}.epub"
        with open(path, "wb") as fh:
            write_epub(html, report, fh, figures=book_figures)
        assert problems(epubcheck(path, tmp_path)) == [], name


def ace_violations(path: Path, tmp: Path) -> list[str]:
    """DAISY Ace's critical and serious violations in one EPUB."""
    out = tmp / f"{path.stem}.ace"
    subprocess.run(
        [str(ACE), "--outdir", str(out), "--force", "--silent", str(path)],
        capture_output=True, timeout=300, check=False,
        env={**os.environ, "PUPPETEER_EXECUTABLE_PATH": shutil.which("chromium") or "",
             "PATH": f"{ACE_DIR / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"},
    )  # fmt: skip
    report = json.loads((out / "report.json").read_text())
    return [
        f"{test['earl:test']['earl:impact']} {test['earl:test']['dct:title']}"
        for subject in report["assertions"]
        for test in subject.get("assertions", [])
        if test["earl:test"]["earl:impact"] in ("critical", "serious")
    ]


@pytest.mark.slow
@pytest.mark.skipif(not ACE.exists(), reason="DAISY Ace not installed (bin/setup dev)")
def test_daisy_ace_finds_no_serious_violation(tmp_path):
    path = tmp_path / "book.epub"
    with open(path, "wb") as fh:
        write_epub(book_html(), OPEN_REPORT, fh, figures=book_figures)
    assert ace_violations(path, tmp_path) == []
