"""The finished HTML document (as stored, review edits included) -> the EPUB's XHTML content
documents: `<main>`'s children cut into files at each top-level heading (h1, h2) and after a
bounded run of pages, in the XHTML namespace, MathML in its own; page-break markers carry
`epub:type="pagebreak"`; links between files rewritten. What the navigation needs (the heading
outline, the print pages) and what the accessibility metadata may claim (figures described,
MathML) is collected on the way. The HTML is the one source: whatever a reviewer changed in it is
in the EPUB.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import lxml.html
from lxml import etree

from conversion.pipeline.output_format import PAGEBREAK_ROLE_RE, marker_label

XHTML_NS = "http://www.w3.org/1999/xhtml"
EPUB_NS = "http://www.idpf.org/2007/ops"
MATHML_NS = "http://www.w3.org/1998/Math/MathML"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
EPUB_TYPE = f"{{{EPUB_NS}}}type"
IMAGES_DIR = "images"

# Characters XML 1.0 cannot carry (control characters a text layer or a model may hold).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_NCNAME = re.compile(r"^[A-Za-z_][\w.-]*$")
_SAFE_FILE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_TOP_HEADINGS = ("h1", "h2")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# The HTML's own navigation: the EPUB's nav document replaces it.
_DROPPED_CLASSES = ("toc", "page-list", "skip-link")


@dataclass(frozen=True)
class EpubOptions:
    # A file holds at most this many print pages (a book without headings is still cut into
    # files reading systems open quickly).
    pages_per_file_max: int = 20


@dataclass
class Part:
    """One content document."""

    name: str
    body: etree._Element  # an XHTML <main>
    header: etree._Element | None = None  # the document title's <header>, first part only
    pages: list[tuple[str, str]] = field(default_factory=list)  # (marker id, label)
    headings: list[tuple[int, str, str]] = field(default_factory=list)  # (level, id, text)
    has_math: bool = False
    blocks: int = 0  # children other than page markers

    def title(self, fallback: str) -> str:
        return self.headings[0][2] if self.headings else fallback


@dataclass
class Content:
    title: str
    lang: str
    parts: list[Part]
    images: list[str]  # the figure files the document links, in order
    figures: int = 0
    figures_described: int = 0

    @property
    def pages(self) -> list[tuple[str, str, str]]:
        """(file, marker id, label) of every print page, in order."""
        return [(p.name, ident, label) for p in self.parts for ident, label in p.pages]

    @property
    def headings(self) -> list[tuple[int, str, str]]:
        """(level, href, text) of every heading, in order."""
        return [(lv, f"{p.name}#{i}", text) for p in self.parts for lv, i, text in p.headings]

    @property
    def has_math(self) -> bool:
        return any(p.has_math for p in self.parts)


def clean_text(text: str | None) -> str | None:
    return _NOT_XML.sub("", text) if text else text


def read_document(html: str, opts: EpubOptions | None = None) -> Content:
    """The document's parts, outline, pages and figures, from its HTML."""
    opts = opts or EpubOptions()
    root = lxml.html.document_fromstring(html)
    title = " ".join((root.findtext(".//title") or "").split()) or "Untitled document"
    lang = root.get("lang") or "en"
    body = root.find("body")
    main = body.find(".//main") if body is not None else None
    converter = _Converter()
    header = _prelude(body, main, converter)
    parts = _cut(list(main) if main is not None else [], opts, converter)
    if header is not None:
        parts[0].header = header
    _link_across(parts)
    return Content(
        title=title,
        lang=lang,
        parts=parts,
        images=converter.images,
        figures=converter.figures,
        figures_described=converter.described,
    )


def _prelude(body, main, converter: _Converter) -> etree._Element | None:
    """What stands before `<main>` (the document title's header), without the HTML's own
    navigation and skip link."""
    if body is None:
        return None
    header = etree.Element(f"{{{XHTML_NS}}}header")
    for el in body:
        if el is main or not isinstance(el.tag, str) or el.tag == "nav" or _dropped(el):
            continue
        if main is not None and el.find(".//main") is not None:
            continue
        for child in [el] if el.tag != "header" else list(el):
            copied = converter.copy(child, in_math=False)
            if copied is not None:
                header.append(copied)
    return header if len(header) else None


def _dropped(el) -> bool:
    classes = (el.get("class") or "").split()
    return any(c in _DROPPED_CLASSES for c in classes)


def is_marker(el) -> bool:
    return el.tag == "span" and bool(PAGEBREAK_ROLE_RE.search(el.get("role") or ""))


def _cut(children: list, opts: EpubOptions, converter: _Converter) -> list[Part]:
    parts = [_new_part(1)]
    for el in children:
        if not isinstance(el.tag, str):
            continue
        part = parts[-1]
        if part.blocks and (
            el.tag in _TOP_HEADINGS
            or (is_marker(el) and len(part.pages) >= opts.pages_per_file_max)
        ):
            parts.append(_new_part(len(parts) + 1))
            _carry_trailing_markers(part, parts[-1])
        _add(parts[-1], el, converter)
    return parts


def _new_part(number: int) -> Part:
    return Part(name=f"part-{number:03d}.xhtml", body=etree.Element(f"{{{XHTML_NS}}}main"))


def _is_xhtml_marker(el) -> bool:
    return el.get(EPUB_TYPE) == "pagebreak"


def _carry_trailing_markers(old: Part, new: Part) -> None:
    """A page whose first block starts the new file starts there too: its marker moves."""
    moved = 0
    while moved < len(old.body) and _is_xhtml_marker(old.body[-1 - moved]):
        moved += 1
    if not moved:
        return
    for marker in list(old.body)[-moved:]:
        new.body.append(marker)  # appending moves the element out of the old file
    new.pages, old.pages = old.pages[-moved:], old.pages[:-moved]


def _add(part: Part, el, converter: _Converter) -> None:
    copied = converter.copy(el, in_math=False)
    if copied is None:
        return
    part.body.append(copied)
    part.blocks += 0 if _is_xhtml_marker(copied) else 1
    for node in copied.iter():
        tag = etree.QName(node).localname if isinstance(node.tag, str) else ""
        if _is_xhtml_marker(node) and node.get("id"):
            part.pages.append((node.get("id"), marker_label(node.get("aria-label") or "")))
        elif tag in _HEADINGS and etree.QName(node).namespace == XHTML_NS:
            ident = node.get("id") or f"heading-{converter.next_id()}"
            node.set("id", ident)
            text = " ".join("".join(node.itertext()).split()) or "Untitled section"
            part.headings.append((int(tag[1]), ident, text))
        elif tag == "math":
            part.has_math = True


class _Converter:
    """Copies HTML elements into XHTML (and MathML) elements, attribute by attribute."""

    def __init__(self) -> None:
        self.images: list[str] = []
        self.figures = 0
        self.described = 0
        self._ids = 0

    def next_id(self) -> int:
        self._ids += 1
        return self._ids

    def copy(self, el, *, in_math: bool) -> etree._Element | None:
        if not isinstance(el.tag, str) or _dropped(el):
            return None
        in_math = in_math or el.tag == "math"
        new = etree.Element(f"{{{MATHML_NS if in_math else XHTML_NS}}}{el.tag}")
        self._attributes(el, new, in_math)
        new.text = clean_text(el.text)
        for child in el:
            copied = self.copy(child, in_math=in_math)
            if copied is not None:
                copied.tail = clean_text(child.tail)
                new.append(copied)
            elif child.tail:
                _append_text(new, clean_text(child.tail))
        if el.tag == "figure":
            self._count_figure(el)
        return new

    def _attributes(self, el, new, in_math: bool) -> None:
        for name, value in el.attrib.items():
            if ":" in name or name == "xmlns" or not re.match(r"^[a-zA-Z][\w.-]*$", name):
                continue
            value = clean_text(value) or ""
            if name == "id" and not _NCNAME.match(value):
                value = "id-" + re.sub(r"[^\w.-]", "-", value)
            new.set(name, value)
            if name == "lang" and not in_math:
                new.set(XML_LANG, value)
        if is_marker(el):
            new.set("role", "doc-pagebreak")
            new.set(EPUB_TYPE, "pagebreak")
        elif el.tag == "img":
            self._image(el, new)

    def _image(self, el, new) -> None:
        name = (el.get("src") or "").rsplit("/", 1)[-1]
        if not _SAFE_FILE.match(name):
            name = ""
        if name and name not in self.images:
            self.images.append(name)
        new.set("src", f"{IMAGES_DIR}/{name}")

    def _count_figure(self, el) -> None:
        self.figures += 1
        img = el.find(".//img")
        if el.get("data-review") is None and img is not None and (img.get("alt") or "").strip():
            self.described += 1


def _append_text(parent, text: str | None) -> None:
    if not text:
        return
    if len(parent):
        parent[-1].tail = (parent[-1].tail or "") + text
    else:
        parent.text = (parent.text or "") + text


def _link_across(parts: list[Part]) -> None:
    """Ids unique in each file; `#id` links to another file's element point into that file; a
    link to no element, or to a file beside the HTML that the EPUB does not carry (the report),
    loses its href, its text stays (a dangling reference is an EPUBCheck error)."""
    where: dict[str, str] = {}
    for part in parts:
        seen: set[str] = set()
        roots = [part.body] + ([part.header] if part.header is not None else [])
        for node in (n for r in roots for n in r.iter()):
            ident = node.get("id") if isinstance(node.tag, str) else None
            if ident is None:
                continue
            if ident in seen:
                del node.attrib["id"]
                continue
            seen.add(ident)
            where.setdefault(ident, part.name)
    for part in parts:
        roots = [part.body] + ([part.header] if part.header is not None else [])
        for node in (n for r in roots for n in r.iter(f"{{{XHTML_NS}}}a")):
            href = node.get("href") or ""
            if not href.startswith("#"):
                if is_beside(href):
                    del node.attrib["href"]
                continue
            target = where.get(href[1:])
            if target is None:
                del node.attrib["href"]
            elif target != part.name:
                node.set("href", f"{target}{href}")


def is_beside(href: str) -> bool:
    """A link to a file beside the HTML (`<stem>.report.html`), not into it or to the web."""
    return bool(href) and not href.startswith("#") and not urlsplit(href).scheme


def without_missing_images(part: Part, available: dict[str, str]) -> None:
    """An image the store no longer has (or of a type EPUB cannot carry) becomes its alt text,
    as the HTML shows a figure that could not be cropped."""
    for img in list(part.body.iter(f"{{{XHTML_NS}}}img")):
        name = (img.get("src") or "").rsplit("/", 1)[-1]
        if name in available:
            continue
        text = etree.Element(f"{{{XHTML_NS}}}p", {"class": "figure-text"})
        text.text = img.get("alt") or "Figure"
        text.tail = img.tail
        img.getparent().replace(img, text)
