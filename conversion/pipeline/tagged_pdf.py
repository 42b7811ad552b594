"""Tagged PDF (PDF/UA-1) from the finished HTML (review edits included), rendered by WeasyPrint
(pinned in requirements.txt) with `pdf_variant="pdf/ua-1"`: a structure tree from the HTML's
elements (headings, paragraphs, lists, tables with their header cells, figures with their alt
text as /Alt, links), /MarkInfo /Marked, /Lang, the title shown (DisplayDocTitle), the headings
as bookmarks. Each print page starts a PDF page and the PDF's page labels are the print pages'
labels, so "page 12" names the same text in the book, the HTML, the EPUB and the PDF.

MathML is not drawn by WeasyPrint: a formula is shown as its TeX source. Only the job's own
figures are fetched (no file or network access from the document).

What is checked here (tests/pipeline/test_tagged_pdf.py, with pikepdf) and what needs veraPDF or
PAC is listed in the README.
"""

from __future__ import annotations

import copy
import gc
import io
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO

import lxml.html
import pikepdf
from lxml import etree
from PIL import Image

from conversion.pipeline.epub_content import is_beside, is_marker
from conversion.pipeline.output_format import marker_label
from conversion.pipeline.pdf_check import catalog_facts, merged_run_facts, problems_of, run_facts
from conversion.pipeline.pdf_join import ANCHOR_URL, JoinedPdf

PDF_VARIANT = "pdf/ua-1"
BASE_URL = "https://figures.invalid/"
# WeasyPrint keeps every page's layout until it writes the PDF (about 0.4 MiB a text page):
# a longer document is rendered in runs of this many print pages, joined with pikepdf.
PRINT_PAGES_PER_RENDER = 20
# A long table of contents (about 30 entries a page, each a link: 1.4 MiB a page laid out) is
# rendered in runs of this many entries, so the first run does not grow with the headings.
CONTENTS_PER_RENDER = 120
# Figures go into the PDF as JPEG: WeasyPrint embeds a JPEG as it is, while a PNG is decoded
# and compressed again (0.75 s per 1600-pixel figure against 0.05 s).
JPEG_QUALITY = 90
CONTENTS_LABEL = "Contents"
CHECKED_BY = "structure check with pikepdf (pdf_check, each run as joined): not veraPDF or PAC"
PRINT_CSS = """
@page { size: A4; margin: 18mm 16mm; }
.skip-link, nav.page-list { display: none; }
main > .pagebreak { break-before: page; }
main > .pagebreak:first-child { break-before: auto; }
.table-scroll, .formula { overflow: visible; }
.formula-tex { font-family: "DejaVu Sans Mono", monospace; white-space: pre-wrap; }
"""

Figures = Callable[[str], IO[bytes] | None]
_HTML_HEADINGS = tuple(f"h{n}" for n in range(1, 7))


@dataclass(frozen=True)
class PdfResult:
    """What the PDF holds (the report's `formats.pdf`)."""

    pages: int
    print_pages: int
    figures: int
    bookmarks: int
    problems: tuple[str, ...] = ()  # check_pdf's, on the PDF as written
    variant: str = PDF_VARIANT

    def as_dict(self) -> dict:
        return {
            "variant": self.variant,
            "pdf_pages": self.pages,
            "print_pages": self.print_pages,
            "figures": self.figures,
            "bookmarks": self.bookmarks,
            "check": {"by": CHECKED_BY, "problems": list(self.problems)},
        }


def write_pdf(
    html: str, out: IO[bytes], *, figures: Figures,
    pages_per_render: int | None = None, contents_per_render: int | None = None,
) -> PdfResult:  # fmt: skip
    """Render `html` as a tagged PDF into out. figures(name) opens a figure the HTML links.
    A document longer than pages_per_render print pages (default PRINT_PAGES_PER_RENDER), or
    with more than contents_per_render entries in its table of contents (CONTENTS_PER_RENDER),
    is rendered in runs, each written into the file and closed before the next
    (pdf_join.JoinedPdf): neither WeasyPrint's layouts nor qpdf's objects pile up with the
    page count."""
    from weasyprint import CSS, HTML  # loaded when a PDF is asked for: Pango at import
    from weasyprint.text.fonts import FontConfiguration

    printable = _Printable(html)
    fetcher = _figure_fetcher(figures)
    fonts = FontConfiguration()  # one per PDF: the runs share the fonts they found
    stylesheets = [CSS(string=PRINT_CSS, font_config=fonts)]
    anchors: list[list[str]] = []
    runs: list[dict] = []  # each run's facts, read as it is joined
    catalog: dict = {}  # the first run's, which the joined PDF keeps
    with tempfile.TemporaryFile() as made:
        joined = JoinedPdf(made)
        cut = printable.runs(pages_per_render or PRINT_PAGES_PER_RENDER,
                             contents_per_render or CONTENTS_PER_RENDER)  # fmt: skip
        for index, run in enumerate(cut):
            if index:
                gc.collect()  # the last run's layout, a graph of cycles, before this one
            document = HTML(string=run, base_url=BASE_URL, url_fetcher=fetcher).render(
                stylesheets=stylesheets, pdf_variant=PDF_VARIANT, font_config=fonts
            )
            anchors += [list(page.anchors) for page in document.pages]
            with tempfile.TemporaryFile() as fh:
                document.write_pdf(fh, pdf_variant=PDF_VARIANT)
                del document
                fh.seek(0)
                with pikepdf.open(fh) as part:
                    catalog = catalog or catalog_facts(part)
                    runs.append(run_facts(part, first_page=len(anchors) - len(part.pages) + 1))
                    joined.add(part)
        labels = page_labels(anchors, printable.labels)
        joined.finish(labels, printable.headings)
        checked = {**catalog, **merged_run_facts(runs), "page_labels": bool(labels)}
        checked["unresolved_links"] += joined.unresolved_links()
        problems = problems_of(checked, [f"h{level}" for level, _, _ in printable.headings])
        made.seek(0)
        shutil.copyfileobj(made, out, 1 << 20)
    print_pages = len({label for label in labels if label != CONTENTS_LABEL})
    return PdfResult(
        pages=len(labels), print_pages=print_pages, figures=printable.figures,
        bookmarks=len(printable.headings), problems=tuple(problems),
    )  # fmt: skip


def pdf_contents(html: str) -> dict:
    """What the PDF of `html` holds, from the HTML (the report's `formats.pdf` until a PDF is
    made: rendering costs too much to do for every job); its check is then still to come."""
    printable = _Printable(html)
    return {
        "variant": PDF_VARIANT,
        "print_pages": len(printable.labels),
        "figures": printable.figures,
        "bookmarks": len(printable.headings),
        "made": "when asked for (download, zip with formats, --formats)",
        "check": {"by": CHECKED_BY, "problems": None},
    }


class _Printable:
    """The HTML as WeasyPrint draws it (a formula's MathML replaced by its TeX source), its
    figure count, its print pages' labels by marker id and its headings (level, text, id)."""

    def __init__(self, html: str) -> None:
        self.root = root = lxml.html.document_fromstring(html)
        for math in list(root.iter("math")):
            code = lxml.html.Element("code", {"class": "formula-tex"})
            code.text = math.get("alttext") or " ".join("".join(math.itertext()).split())
            code.tail = math.tail
            math.getparent().replace(math, code)
        for hidden in root.xpath("//nav[contains(@class, 'page-list')]"):
            hidden.drop_tree()  # not printed (and its links would cross every run)
        for link in root.iter("a"):
            if is_beside(link.get("href") or ""):
                del link.attrib["href"]  # the report beside the HTML is not in the PDF
        self.figures = len(list(root.iter("figure")))
        self.labels = {
            el.get("id"): marker_label(el.get("aria-label") or "") or el.get("id")[5:]
            for el in root.iter("span")
            if is_marker(el) and el.get("id", "").startswith("page-")
        }
        self.headings = []
        for n, heading in enumerate(root.iter(*_HTML_HEADINGS), start=1):
            if not heading.get("id"):
                heading.set("id", f"pdf-heading-{n}")  # a bookmark's destination
            text = " ".join(heading.text_content().split())
            self.headings.append((int(heading.tag[1]), text, heading.get("id")))

    def runs(self, pages_per_render: int, contents_per_render: int) -> Iterator[str]:
        """The document as one HTML, or as HTML documents of pages_per_render print pages
        each, what comes before <main> (the title, the table of contents: contents_per_render
        entries a run) in the first, what follows it in the last; a link to another run's
        element points at ANCHOR_URL, joined back by pdf_join."""
        main = self.root.find(".//main")
        runs = _cut_at_markers(list(main) if main is not None else [], pages_per_render)
        before = list(main.itersiblings(preceding=True))[::-1] if main is not None else []
        fronts = _front_runs(before, contents_per_render)
        if len(runs) < 2 and len(fronts) < 2:
            yield _serialize(self.root)
            return
        # A table of contents cut in runs keeps its last run too: with the first print pages
        # that run would hold up to contents_per_render entries more than any other.
        alone = fronts if len(fronts) > 1 else []
        for front in alone:
            yield self._part(front, None, [])
        for index, run in enumerate(runs):
            after = list(main.itersiblings()) if index == len(runs) - 1 else []
            attrs = {k: v for k, v in main.attrib.items() if index == 0 or k != "id"}
            yield self._part(fronts[0] if index == 0 and not alone else [], (attrs, run), after)

    def _part(self, front: list, main: tuple[dict, list] | None, after: list) -> str:
        """One run's HTML: the head, then front, main's children given, after."""
        body = self.root.find("body")
        part = lxml.html.Element("html", dict(self.root.attrib))
        part.append(copy.deepcopy(self.root.find("head")))
        new_body = etree.SubElement(part, "body", dict(body.attrib))
        new_body.extend(copy.deepcopy(el) for el in front)
        if main is not None:
            new_main = etree.SubElement(new_body, "main", main[0])
            new_main.extend(copy.deepcopy(el) for el in main[1])
        new_body.extend(copy.deepcopy(el) for el in after)
        ids = {el.get("id") for el in part.iter() if el.get("id")}
        for link in part.iter("a"):
            href = link.get("href") or ""
            if href.startswith("#") and href[1:] and href[1:] not in ids:
                link.set("href", ANCHOR_URL + href[1:])
        return _serialize(part)


def _front_runs(before: list, contents_per_render: int) -> list[list]:
    """What precedes <main> as runs: one, or, where the table of contents has more than
    contents_per_render entries, its list cut into runs of that many (the first with the
    rest of what precedes <main>, each later one a list of its own that counts on), each
    rendered alone."""
    navs = [el for el in before if el.tag == "nav" and "toc" in (el.get("class") or "").split()]
    entries = list(navs[0].find("ol")) if navs and navs[0].find("ol") is not None else []
    if len(entries) <= contents_per_render:
        return [before]
    runs = []
    for start in range(0, len(entries), contents_per_render):
        nav = etree.Element("nav", dict(navs[0].attrib))
        if start:
            nav.set("aria-label", f"{navs[0].get('aria-label', 'Contents')}, continued")
        ol = etree.SubElement(nav, "ol", {"start": str(start + 1)} if start else {})
        ol.extend(copy.deepcopy(li) for li in entries[start : start + contents_per_render])
        runs.append([nav if el is navs[0] else el for el in before] if not start else [nav])
    return runs


def _cut_at_markers(children: list, pages_per_render: int) -> list[list]:
    """main's children in runs of pages_per_render print pages, each run starting at a
    page-break marker (what precedes the first marker stays in the first run)."""
    runs: list[list] = [[]]
    pages = 0
    for el in children:
        if isinstance(el.tag, str) and is_marker(el):
            if pages == pages_per_render:
                runs.append([])
                pages = 0
            pages += 1
        runs[-1].append(el)
    return runs


def _serialize(root) -> str:
    return lxml.html.tostring(root, encoding="unicode", doctype="<!DOCTYPE html>")


def page_labels(anchors_by_page: list[list[str]], label_of: dict[str, str]) -> list[str]:
    """Each PDF page's label: the print page that starts on it, else the one it continues;
    pages before the first print page (the table of contents) are `Contents`."""
    order = {ident: n for n, ident in enumerate(label_of)}  # document order
    labels: list[str] = []
    current = CONTENTS_LABEL
    for anchors in anchors_by_page:
        known = [a for a in anchors if a in order]
        if known:
            current = label_of[min(known, key=order.__getitem__)]
        labels.append(current)
    return labels


def _figure_fetcher(figures: Figures):
    """WeasyPrint's URL fetcher: the document's own figures, as JPEG; nothing else (a link to
    a file or a host is refused, and WeasyPrint leaves the image out with a warning)."""
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class FigureFetcher(URLFetcher):
        def fetch(self, url: str, headers=None):
            if not url.startswith(BASE_URL):
                raise ValueError(f"Only the document's figures are fetched, not {url}.")
            fh = figures(url.rsplit("/", 1)[-1])
            if fh is None:
                raise ValueError(f"No figure at {url}.")
            with fh:
                body = _as_jpeg(fh)
            return URLFetcherResponse(url, body=body, headers={"Content-Type": "image/jpeg"})

    return FigureFetcher(allowed_protocols=("https",))


def _as_jpeg(fh: IO[bytes]) -> bytes:
    with Image.open(fh) as image:
        if image.mode in ("RGBA", "LA", "P"):
            image = image.convert("RGBA")
            flat = Image.new("RGB", image.size, "white")
            flat.paste(image, mask=image.getchannel("A"))
            image = flat
        elif image.mode not in ("RGB", "L"):
            image = image.convert("RGB")
        out = io.BytesIO()
        image.save(out, format="JPEG", quality=JPEG_QUALITY)
        return out.getvalue()
