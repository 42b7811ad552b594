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

import io
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

import lxml.html
import pikepdf
from PIL import Image

from conversion.pipeline.epub_content import is_marker
from conversion.pipeline.output_format import marker_label

PDF_VARIANT = "pdf/ua-1"
BASE_URL = "https://figures.invalid/"
# Figures go into the PDF as JPEG: WeasyPrint embeds a JPEG as it is, while a PNG is decoded
# and compressed again (0.75 s per 1600-pixel figure against 0.05 s).
JPEG_QUALITY = 90
CONTENTS_LABEL = "Contents"
PRINT_CSS = """
@page { size: A4; margin: 18mm 16mm; }
.skip-link, nav.page-list { display: none; }
main > .pagebreak { break-before: page; }
main > .pagebreak:first-child { break-before: auto; }
.table-scroll, .formula { overflow: visible; }
.formula-tex { font-family: "DejaVu Sans Mono", monospace; white-space: pre-wrap; }
"""

Figures = Callable[[str], IO[bytes] | None]


@dataclass(frozen=True)
class PdfResult:
    """What the PDF holds (the report's `formats.pdf`)."""

    pages: int
    print_pages: int
    figures: int
    variant: str = PDF_VARIANT

    def as_dict(self) -> dict:
        return {
            "variant": self.variant,
            "pdf_pages": self.pages,
            "print_pages": self.print_pages,
            "figures": self.figures,
        }


def write_pdf(html: str, out: IO[bytes], *, figures: Figures) -> PdfResult:
    """Render `html` as a tagged PDF into out. figures(name) opens a figure the HTML links."""
    from weasyprint import CSS, HTML  # loaded when a PDF is asked for: Pango at import

    printable = _Printable(html)
    fetcher = _figure_fetcher(figures)
    document = HTML(string=printable.html, base_url=BASE_URL, url_fetcher=fetcher).render(
        stylesheets=[CSS(string=PRINT_CSS)], pdf_variant=PDF_VARIANT
    )
    labels = page_labels([list(page.anchors) for page in document.pages], printable.labels)
    with tempfile.TemporaryFile() as rendered:
        document.write_pdf(rendered, pdf_variant=PDF_VARIANT)
        rendered.seek(0)
        with pikepdf.open(rendered) as pdf:
            _set_labels(pdf, labels)
            pdf.save(out)
    print_pages = len({label for label in labels if label != CONTENTS_LABEL})
    return PdfResult(pages=len(labels), print_pages=print_pages, figures=printable.figures)


class _Printable:
    """The HTML as WeasyPrint draws it (a formula's MathML replaced by its TeX source), its
    figure count and its print pages' labels by marker id."""

    def __init__(self, html: str) -> None:
        root = lxml.html.document_fromstring(html)
        for math in list(root.iter("math")):
            code = lxml.html.Element("code", {"class": "formula-tex"})
            code.text = math.get("alttext") or " ".join("".join(math.itertext()).split())
            code.tail = math.tail
            math.getparent().replace(math, code)
        self.figures = len(list(root.iter("figure")))
        self.labels = {
            el.get("id"): marker_label(el.get("aria-label") or "") or el.get("id")[5:]
            for el in root.iter("span")
            if is_marker(el) and el.get("id", "").startswith("page-")
        }
        self.html = lxml.html.tostring(root, encoding="unicode", doctype="<!DOCTYPE html>")


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


def _set_labels(pdf: pikepdf.Pdf, labels: list[str]) -> None:
    """/PageLabels: one range per change of label, each labelled by its prefix alone."""
    nums: list = []
    previous = None
    for index, label in enumerate(labels):
        if label != previous:
            nums += [index, pikepdf.Dictionary(P=pikepdf.String(label))]
            previous = label
    pdf.Root.PageLabels = pikepdf.Dictionary(Nums=pikepdf.Array(nums))


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


# --- the structure check --------------------------------------------------------------------


def _kids(node) -> list:
    kids = node.get("/K")
    if kids is None:
        return []
    if isinstance(kids, pikepdf.Object) and kids._type_code == pikepdf.ObjectType.array:
        return list(kids)
    return [kids]


def structure_elements(node) -> list:
    """The structure elements under node, in document order."""
    out = []
    for kid in _kids(node):
        if isinstance(kid, pikepdf.Object) and kid._type_code == _DICT and "/S" in kid:
            out.append(kid)
            out.extend(structure_elements(kid))
    return out


def check_pdf(data: IO[bytes]) -> dict:
    """What a PDF/UA reader relies on, read back from the file: a structure tree, /Marked, /Lang,
    DisplayDocTitle and a title, every Figure with /Alt, the headings (tag and text)."""
    with pikepdf.open(data) as pdf:
        root = pdf.Root
        tree = root.get("/StructTreeRoot")
        elements = structure_elements(tree) if tree is not None else []
        figures = [e for e in elements if e.S == "/Figure"]
        prefs = root.get("/ViewerPreferences") or {}
        with pdf.open_metadata() as xmp:
            title = xmp.get("dc:title") or ""
            ua_part = xmp.get("pdfuaid:part")
        return {
            "struct_tree": tree is not None and bool(elements),
            "marked": bool((root.get("/MarkInfo") or {}).get("/Marked", False)),
            "lang": str(root.get("/Lang") or ""),
            "display_doc_title": bool(prefs.get("/DisplayDocTitle", False)),
            "title": str(title),
            "pdfua_part": str(ua_part or ""),
            "figures": len(figures),
            "figures_with_alt": sum(1 for f in figures if str(f.get("/Alt") or "").strip()),
            "headings": [str(e.S)[1:] for e in elements if str(e.S) in _HEADING_TAGS],
            "table_headers": sum(1 for e in elements if e.S == "/TH"),
            "page_labels": "/PageLabels" in root,
        }


_HEADING_TAGS = {f"/H{n}" for n in range(1, 7)}
_DICT = pikepdf.ObjectType.dictionary
