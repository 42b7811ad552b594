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

import contextlib
import copy
import functools
import gc
import io
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

PDF_VARIANT = "pdf/ua-1"
BASE_URL = "https://figures.invalid/"
# A link to an element rendered in another run of pages, until the runs are joined.
ANCHOR_URL = "https://anchor.invalid/#"
# WeasyPrint keeps every page's layout until it writes the PDF (about 0.4 MiB a text page):
# a longer document is rendered in runs of this many print pages, joined with pikepdf.
PRINT_PAGES_PER_RENDER = 20
# Figures go into the PDF as JPEG: WeasyPrint embeds a JPEG as it is, while a PNG is decoded
# and compressed again (0.75 s per 1600-pixel figure against 0.05 s).
JPEG_QUALITY = 90
CONTENTS_LABEL = "Contents"
CHECKED_BY = "structure check with pikepdf (tagged_pdf.check_pdf): not veraPDF or PAC"
PRINT_CSS = """
@page { size: A4; margin: 18mm 16mm; }
.skip-link, nav.page-list { display: none; }
main > .pagebreak { break-before: page; }
main > .pagebreak:first-child { break-before: auto; }
.table-scroll, .formula { overflow: visible; }
.formula-tex { font-family: "DejaVu Sans Mono", monospace; white-space: pre-wrap; }
"""

Figures = Callable[[str], IO[bytes] | None]
_HEADING_TAGS = {f"/H{n}" for n in range(1, 7)}
_HTML_HEADINGS = tuple(f"h{n}" for n in range(1, 7))
_DICT = pikepdf.ObjectType.dictionary


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
    pages_per_render: int | None = None,
) -> PdfResult:  # fmt: skip
    """Render `html` as a tagged PDF into out. figures(name) opens a figure the HTML links.
    A document longer than pages_per_render print pages is rendered in runs of that many
    (default PRINT_PAGES_PER_RENDER) and the runs joined (_join): WeasyPrint's layouts no longer
    pile up with the page count."""
    from weasyprint import CSS, HTML  # loaded when a PDF is asked for: Pango at import
    from weasyprint.text.fonts import FontConfiguration

    printable = _Printable(html)
    fetcher = _figure_fetcher(figures)
    fonts = FontConfiguration()  # one per PDF: the runs share the fonts they found
    stylesheets = [CSS(string=PRINT_CSS, font_config=fonts)]
    anchors: list[list[str]] = []
    with contextlib.ExitStack() as stack:
        rendered = []
        for index, run in enumerate(printable.runs(pages_per_render or PRINT_PAGES_PER_RENDER)):
            if index:
                gc.collect()  # the last run's layout, a graph of cycles, before this one
            document = HTML(string=run, base_url=BASE_URL, url_fetcher=fetcher).render(
                stylesheets=stylesheets, pdf_variant=PDF_VARIANT, font_config=fonts
            )
            anchors += [list(page.anchors) for page in document.pages]
            fh = stack.enter_context(tempfile.TemporaryFile())
            document.write_pdf(fh, pdf_variant=PDF_VARIANT)
            del document
            fh.seek(0)
            rendered.append(stack.enter_context(pikepdf.open(fh)))
        labels = page_labels(anchors, printable.labels)
        pdf = _join(rendered, printable.headings) if len(rendered) > 1 else rendered[0]
        _set_labels(pdf, labels)
        outline = [f"h{level}" for level, _, _ in printable.headings]
        problems = _checked(pdf, headings=outline)["problems"]
        pdf.save(out)
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

    def runs(self, pages_per_render: int) -> Iterator[str]:
        """The document as one HTML, or as HTML documents of pages_per_render print pages
        each (what comes before <main> in the first, what follows it in the last); a link to
        another run's element points at ANCHOR_URL, joined back by _join."""
        main = self.root.find(".//main")
        runs = _cut_at_markers(list(main) if main is not None else [], pages_per_render)
        if len(runs) < 2:
            yield _serialize(self.root)
            return
        body = main.getparent()
        before = list(main.itersiblings(preceding=True))[::-1]
        after = list(main.itersiblings())
        for index, run in enumerate(runs):
            first, last = index == 0, index == len(runs) - 1
            part = lxml.html.Element("html", dict(self.root.attrib))
            part.append(copy.deepcopy(self.root.find("head")))
            new_body = etree.SubElement(part, "body", dict(body.attrib))
            new_body.extend(copy.deepcopy(el) for el in before if first)
            attrs = dict(main.attrib) if first else {k: v for k, v in main.attrib.items()
                                                     if k != "id"}  # fmt: skip
            new_main = etree.SubElement(new_body, "main", attrs)
            new_main.extend(copy.deepcopy(el) for el in run)
            new_body.extend(copy.deepcopy(el) for el in after if last)
            ids = {el.get("id") for el in part.iter() if el.get("id")}
            for link in part.iter("a"):
                href = link.get("href") or ""
                if href.startswith("#") and href[1:] and href[1:] not in ids:
                    link.set("href", ANCHOR_URL + href[1:])
            yield _serialize(part)


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


def _join(parts: list[pikepdf.Pdf], headings: list[tuple[int, str, str]]) -> pikepdf.Pdf:
    """The runs' PDFs as one, into the first: the pages; each run's structure elements under
    the first's Document element; one parent tree (a page's key is its index, then one per
    link annotation); the named destinations together, and the links to another run's
    elements (ANCHOR_URL) turned into links to those destinations; bookmarks from the
    headings (each run's own outline knows only its headings)."""
    base = parts[0]
    document = base.Root.StructTreeRoot.K[0]
    total = sum(len(part.pages) for part in parts)
    page_nums: list = []
    link_nums: list = []
    dests: list = []
    for part in parts:
        tree = part.Root.StructTreeRoot
        nums = tree.ParentTree.Nums
        old = {int(nums[i]): nums[i + 1] for i in range(0, len(nums), 2)}
        names = part.Root.get("/Names", {}).get("/Dests", {}).get("/Names", [])
        if part is base:
            pages = list(base.pages)
            own = lambda obj: obj  # noqa: E731
        else:
            start = len(base.pages)
            base.pages.extend(part.pages)  # copied with the map copy_foreign uses
            pages = list(base.pages)[start:]
            own = functools.partial(_foreign, base)
            for kid in list(document_kids(tree)):
                copied = own(kid)
                copied.P = document
                document.K.append(copied)
        dests += [(str(names[i]), own(names[i + 1])) for i in range(0, len(names), 2)]
        for local, page in enumerate(pages):
            key = len(page_nums)
            page.obj.StructParents = key
            page_nums.append((key, own(old[local]) if local in old else pikepdf.Array()))
            for annot in page.obj.get("/Annots", []):
                if "/StructParent" in annot:
                    value = own(old[int(annot.StructParent)])
                    annot.StructParent = total + len(link_nums)
                    link_nums.append((int(annot.StructParent), value))
                _as_named_link(annot)
    flat = [x for key, value in page_nums + link_nums for x in (key, value)]
    tree = base.Root.StructTreeRoot
    tree.ParentTree = base.make_indirect(pikepdf.Dictionary(Nums=pikepdf.Array(flat)))
    tree.ParentTreeNextKey = total + len(link_nums)
    ordered = [x for name, dest in sorted(dests) for x in (pikepdf.String(name), dest)]
    base.Root.Names = pikepdf.Dictionary(Dests=pikepdf.Dictionary(Names=pikepdf.Array(ordered)))
    _set_outline(base, headings)
    return base


def _foreign(pdf: pikepdf.Pdf, obj):
    """obj, from another PDF, in pdf (an indirect object copied once, however often asked)."""
    if isinstance(obj, pikepdf.Object) and obj.is_indirect:
        return pdf.copy_foreign(obj)
    if isinstance(obj, pikepdf.Array):
        return pikepdf.Array([_foreign(pdf, x) for x in obj])
    if isinstance(obj, pikepdf.Dictionary):
        return pikepdf.Dictionary({key: _foreign(pdf, value) for key, value in obj.items()})
    return obj


def document_kids(tree) -> list:
    """The children of a structure tree's Document element."""
    return _kids(_kids(tree)[0])


def _as_named_link(annot) -> None:
    action = annot.get("/A")
    uri = str(action.get("/URI", "")) if action is not None else ""
    if uri.startswith(ANCHOR_URL):
        del annot["/A"]
        annot.Dest = pikepdf.String(uri[len(ANCHOR_URL) :])
        annot.Contents = annot.Dest


def _set_outline(pdf: pikepdf.Pdf, headings: list[tuple[int, str, str]]) -> None:
    """Bookmarks nested by heading level, each opening its heading's named destination."""
    with pdf.open_outline() as outline:
        outline.root.clear()
        stack: list[tuple[int, pikepdf.OutlineItem]] = []
        for level, text, ident in headings:
            item = pikepdf.OutlineItem(text, pikepdf.String(ident))
            while stack and stack[-1][0] >= level:
                stack.pop()
            (stack[-1][1].children if stack else outline.root).append(item)
            stack.append((level, item))


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


def check_pdf(data: IO[bytes], *, headings: list[str] | None = None) -> dict:
    """What a PDF/UA reader relies on, read back from the file: a structure tree, /Marked, /Lang,
    DisplayDocTitle and a title, the PDF/UA identification, every Figure with /Alt, the
    headings (tags; against `headings`, the HTML outline's h1..h6, when given), TH cells, page
    labels, a parent tree that maps each page's content and each link annotation back to its
    structure element, and every internal link's destination. `problems` lists what fails."""
    with pikepdf.open(data) as pdf:
        return _checked(pdf, headings=headings)


def _checked(pdf: pikepdf.Pdf, *, headings: list[str] | None) -> dict:
    root = pdf.Root
    tree = root.get("/StructTreeRoot")
    elements = structure_elements(tree) if tree is not None else []
    figures = [e for e in elements if e.S == "/Figure"]
    prefs = root.get("/ViewerPreferences") or {}
    with pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as xmp:
        title = xmp.get("dc:title") or ""
        ua_part = xmp.get("pdfuaid:part")
    checked = {
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
        "parent_tree": _parent_tree_problems(pdf, tree, elements) if tree is not None else [],
        "unresolved_links": _unresolved_links(pdf),
    }
    checked["problems"] = _problems(checked, headings)
    return checked


def _problems(checked: dict, headings: list[str] | None) -> list[str]:
    needs = {
        "struct_tree": "no structure tree",
        "marked": "not marked (/MarkInfo /Marked)",
        "lang": "no /Lang",
        "display_doc_title": "the title is not shown (DisplayDocTitle)",
        "title": "no title in the XMP metadata",
        "page_labels": "no page labels",
    }
    found = [what for key, what in needs.items() if not checked[key]]
    if checked["pdfua_part"] != "1":
        found.append("no PDF/UA-1 identification (pdfuaid:part)")
    if checked["figures_with_alt"] != checked["figures"]:
        found.append(f"{checked['figures'] - checked['figures_with_alt']} figures without /Alt")
    if headings is not None and checked["headings"] != [h.upper() for h in headings]:
        found.append(f"headings {checked['headings']} are not the HTML's {headings}")
    found += checked["parent_tree"]
    found += [f"link to a missing destination {name}" for name in checked["unresolved_links"]]
    return found


def _parent_tree_problems(pdf: pikepdf.Pdf, tree, elements: list) -> list[str]:
    """Each page's marked content and each link annotation found again through the parent
    tree (a flat /Nums, as WeasyPrint and _join write it) on its own page."""
    parent_tree = tree.get("/ParentTree")
    nums = parent_tree.get("/Nums") if parent_tree is not None else None
    if nums is None:
        return ["no parent tree (/ParentTree /Nums)"]
    keys = [int(nums[i]) for i in range(0, len(nums), 2)]
    entries = dict(zip(keys, [nums[i + 1] for i in range(0, len(nums), 2)], strict=True))
    found = ["parent tree keys repeat"] if len(entries) != len(keys) else []
    pages = {page.obj.objgen: n for n, page in enumerate(pdf.pages, start=1)}
    for n, page in enumerate(pdf.pages, start=1):
        key = page.obj.get("/StructParents")
        content = entries.get(int(key)) if key is not None else None
        if content is None:
            found.append(f"page {n}: no parent tree entry")
            continue
        if any("/Pg" in e and e.Pg.objgen != page.obj.objgen for e in content if _is_dict(e)):
            found.append(f"page {n}: its content's structure elements name another page")
        for annot in page.obj.get("/Annots", []):
            if "/StructParent" not in annot:
                continue
            element = entries.get(int(annot.StructParent))
            kids = _kids(element) if _is_dict(element) else []
            if not any(_is_dict(k) and k.get("/Obj") == annot for k in kids):
                found.append(f"page {n}: a link annotation is not its structure element's")
    if any("/Pg" in e and e.Pg.objgen not in pages for e in elements):
        found.append("structure elements on a page that is not in the document")
    return found


def _unresolved_links(pdf: pikepdf.Pdf) -> list[str]:
    names = pdf.Root.get("/Names", {}).get("/Dests", {}).get("/Names", [])
    known = {str(names[i]) for i in range(0, len(names), 2)}
    return [
        str(annot.Dest)
        for page in pdf.pages
        for annot in page.obj.get("/Annots", [])
        if isinstance(annot.get("/Dest"), pikepdf.String) and str(annot.Dest) not in known
    ]


def _is_dict(obj) -> bool:
    return isinstance(obj, pikepdf.Object) and obj._type_code == _DICT
