"""EPUB 3 from the finished document: its HTML as stored (review edits included), its report and
its figures. The HTML is the one source, so the EPUB is made when asked for (a download, the
command line's `--formats epub`) and always matches the reviewed state, as report.html does.

A small writer of our own (zipfile + lxml), not ebooklib: the content is already XHTML-shaped
and only needs cutting into files (epub_content.py); what an accessible EPUB needs beyond that
(a nav with the heading outline, a page-list of the print pages, landmarks, the EPUB
Accessibility 1.1 metadata written from the report) is ours to write with either, and ebooklib
would add a dependency, write its own nav and metadata we would have to override, and hold every
image in memory. Here figures are streamed into the zip one at a time.

Checked by EPUBCheck (tests/pipeline/test_epub.py): 0 fatals, 0 errors.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import shutil
import uuid
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from lxml import etree

from conversion.pipeline.document import OPEN_LEVELS, open_findings
from conversion.pipeline.epub_content import (
    EPUB_NS,
    EPUB_TYPE,
    IMAGES_DIR,
    XHTML_NS,
    XML_LANG,
    Content,
    EpubOptions,
    Part,
    clean_text,
    read_document,
    without_missing_images,
)

OPF_NS = "http://www.idpf.org/2007/opf"
DC_NS = "http://purl.org/dc/elements/1.1/"
CONFORMS_TO = "EPUB Accessibility 1.1 - WCAG 2.2 Level AA"
CERTIFIED_BY = "Axiya automated accessibility checks"
A11Y_PREFIX = "a11y: http://www.idpf.org/epub/vocab/package/a11y/#"
NAV_NAME, CSS_NAME, OPF_NAME = "nav.xhtml", "style.css", "package.opf"
ROOT = "EPUB"
STYLESHEET = Path(__file__).resolve().parents[2] / "templates" / "epub" / "style.css"
# Image types every EPUB 3 reading system must show, by their first bytes.
_IMAGE_TYPES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
# What an open finding's code says in the accessibility summary (others: the code in words).
_FINDING_WORDS = {
    "FIGURE_ALT_REVIEW": "figures without a description",
    "FIGURE_IMAGE_MISSING": "figures whose image could not be cropped",
    "LOW_CONFIDENCE": "passages read with low confidence",
    "UNREADABLE": "regions that could not be read",
    "TABLE_HEADERS_GUESSED": "tables whose header cells were guessed",
}
_CONTAINER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
    f'<rootfiles><rootfile full-path="{ROOT}/{OPF_NAME}" '
    'media-type="application/oebps-package+xml"/></rootfiles></container>\n'
)

Figures = Callable[[str], IO[bytes] | None]


@dataclass(frozen=True)
class EpubResult:
    """What the EPUB holds and claims (the report's `formats.epub`)."""

    files: int
    pages: int
    headings: int
    figures: int
    figures_described: int
    features: tuple[str, ...]
    conforms_to: str | None

    def as_dict(self) -> dict:
        return {
            "content_documents": self.files,
            "page_list": self.pages,
            "toc_entries": self.headings,
            "figures": self.figures,
            "figures_described": self.figures_described,
            "accessibility_features": list(self.features),
            "conforms_to": self.conforms_to,
        }


def write_epub(
    html: str,
    report: dict,
    out: IO[bytes],
    *,
    figures: Figures,
    modified: dt.datetime | None = None,
    identifier: str | None = None,
    opts: EpubOptions | None = None,
) -> EpubResult:
    """Write the EPUB of `html` into `out`. figures(name) opens a figure file the HTML links
    (by its file name), or None when it is gone. `modified` (UTC) and `identifier` default to
    now and a UUID from the HTML's bytes."""
    content = read_document(html, opts)
    modified = (modified or dt.datetime.now(dt.UTC)).astimezone(dt.UTC).replace(microsecond=0)
    stamp = modified.timetuple()[:6]
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        # The mimetype first and uncompressed: how a reading system knows an EPUB (OCF).
        _put(zf, "mimetype", b"application/epub+zip", stamp, zipfile.ZIP_STORED)
        _put(zf, "META-INF/container.xml", _CONTAINER.encode(), stamp)
        available = _put_images(zf, content, figures, stamp)
        for part in content.parts:
            without_missing_images(part, available)
            _put(zf, f"{ROOT}/{part.name}", _part_xhtml(content, part), stamp)
        _put(zf, f"{ROOT}/{NAV_NAME}", _nav_xhtml(content), stamp)
        _put(zf, f"{ROOT}/{CSS_NAME}", STYLESHEET.read_bytes(), stamp)
        result = _result(content, report)
        package = _package(content, report, result, available, modified, identifier or _uuid(html))
        _put(zf, f"{ROOT}/{OPF_NAME}", package, stamp)
    return result


def _put(zf: zipfile.ZipFile, name: str, data: bytes, stamp, method=zipfile.ZIP_DEFLATED) -> None:
    info = zipfile.ZipInfo(name, date_time=stamp)
    info.compress_type = method
    zf.writestr(info, data)


def _uuid(html: str) -> str:
    return f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, hashlib.sha256(html.encode()).hexdigest())}"


def _put_images(zf: zipfile.ZipFile, content: Content, figures: Figures, stamp) -> dict[str, str]:
    """Copy each linked figure into the zip, one at a time; {name: media type} of those there."""
    available: dict[str, str] = {}
    for name in content.images:
        fh = figures(name)
        if fh is None:
            continue
        with fh:
            head = fh.read(8)
            media = next((m for magic, m in _IMAGE_TYPES if head.startswith(magic)), None)
            if media is None:
                continue
            info = zipfile.ZipInfo(f"{ROOT}/{IMAGES_DIR}/{name}", date_time=stamp)
            info.compress_type = zipfile.ZIP_STORED  # already compressed
            with zf.open(info, "w") as entry:
                entry.write(head)
                shutil.copyfileobj(fh, entry, 1 << 20)
        available[name] = media
    return available


# --- content documents ----------------------------------------------------------------------


def _xhtml_root(content: Content, title: str) -> tuple[etree._Element, etree._Element]:
    html = etree.Element(f"{{{XHTML_NS}}}html", nsmap={None: XHTML_NS, "epub": EPUB_NS})
    html.set("lang", content.lang)
    html.set(XML_LANG, content.lang)
    head = etree.SubElement(html, f"{{{XHTML_NS}}}head")
    etree.SubElement(head, f"{{{XHTML_NS}}}meta", {"charset": "utf-8"})
    etree.SubElement(head, f"{{{XHTML_NS}}}title").text = clean_text(title)
    link = {"rel": "stylesheet", "type": "text/css", "href": CSS_NAME}
    etree.SubElement(head, f"{{{XHTML_NS}}}link", link)
    return html, etree.SubElement(html, f"{{{XHTML_NS}}}body")


def _serialize(html: etree._Element) -> bytes:
    return etree.tostring(html, xml_declaration=True, encoding="utf-8", doctype="<!DOCTYPE html>")


def _part_xhtml(content: Content, part: Part) -> bytes:
    html, body = _xhtml_root(content, part.title(content.title))
    if part.header is not None:
        body.append(part.header)
    body.append(part.body)
    return _serialize(html)


def _nav_xhtml(content: Content) -> bytes:
    html, body = _xhtml_root(content, content.title)
    toc = _nav(body, "toc", "Contents", hidden=False)
    toc.set("role", "doc-toc")
    headings = content.headings or [(1, content.parts[0].name, content.title)]
    toc.append(_outline(headings))
    pages = content.pages
    if pages:
        page_list = _nav(body, "page-list", "Pages", hidden=True)
        page_list.set("role", "doc-pagelist")
        ol = etree.SubElement(page_list, f"{{{XHTML_NS}}}ol")
        for name, ident, label in pages:
            _link_item(ol, f"{name}#{ident}", label or ident)
    landmarks = _nav(body, "landmarks", "Landmarks", hidden=True)
    ol = etree.SubElement(landmarks, f"{{{XHTML_NS}}}ol")
    _link_item(ol, f"{NAV_NAME}#toc", "Contents").find(f"{{{XHTML_NS}}}a").set(EPUB_TYPE, "toc")
    start = _link_item(ol, content.parts[0].name, "Start of content")
    start.find(f"{{{XHTML_NS}}}a").set(EPUB_TYPE, "bodymatter")
    return _serialize(html)


def _nav(body, kind: str, heading: str, *, hidden: bool) -> etree._Element:
    nav = etree.SubElement(body, f"{{{XHTML_NS}}}nav", {EPUB_TYPE: kind, "id": kind})
    if hidden:
        nav.set("hidden", "hidden")
    etree.SubElement(
        nav, f"{{{XHTML_NS}}}h1" if kind == "toc" else f"{{{XHTML_NS}}}h2"
    ).text = heading
    return nav


def _link_item(ol, href: str, text: str) -> etree._Element:
    li = etree.SubElement(ol, f"{{{XHTML_NS}}}li")
    a = etree.SubElement(li, f"{{{XHTML_NS}}}a", {"href": href})
    a.text = clean_text(text)
    return li


def _outline(headings: list[tuple[int, str, str]]) -> etree._Element:
    """The headings as nested lists: a heading deeper than the one before it opens a list inside
    that one's item; a shallower one closes lists back to its level."""
    root = etree.Element(f"{{{XHTML_NS}}}ol")
    stack: list[list] = [[None, root, None]]  # [level of the list's items, list, its last item]
    for level, href, text in headings:
        while len(stack) > 1 and stack[-1][0] > level:
            stack.pop()
        top = stack[-1]
        if top[0] is None:
            top[0] = level
        if level > top[0] and top[2] is not None:
            nested = etree.SubElement(top[2], f"{{{XHTML_NS}}}ol")
            top = [level, nested, None]
            stack.append(top)
        top[2] = _link_item(top[1], href, text)
    return root


# --- the package document and its accessibility metadata ------------------------------------


def _result(content: Content, report: dict) -> EpubResult:
    features = ["tableOfContents", "readingOrder", "displayTransformability"]
    if content.headings:
        features.append("structuralNavigation")
    if content.pages:
        features += ["pageBreakMarkers", "pageNavigation"]
    if content.has_math:
        features.append("MathML")
    if content.figures and content.figures_described == content.figures:
        features.append("alternativeText")
    open_count = open_findings(report.get("summary"))
    return EpubResult(
        files=len(content.parts),
        pages=len(content.pages),
        headings=len(content.headings),
        figures=content.figures,
        figures_described=content.figures_described,
        features=tuple(features),
        conforms_to=CONFORMS_TO if report and open_count == 0 else None,
    )


def accessibility_summary(content: Content, report: dict, result: EpubResult) -> str:
    """What a reader should know before opening the book: where it came from, how it can be
    navigated, what was reviewed and what is still open (from the report)."""
    pages = len(content.pages)
    source = report.get("source") or "a PDF"
    said = [f"Converted by Axiya from {source} ({pages} print page{'s' if pages != 1 else ''})."]
    said.append(
        "Navigation by headings"
        + (" and by print page numbers" if content.pages else "")
        + "; reading order follows the page."
    )
    if content.figures:
        said.append(
            f"{content.figures_described} of {content.figures} figures have a text description."
        )
    if content.has_math:
        said.append("Formulas are in MathML with their TeX source.")
    said.append(_review_sentence(report))
    open_list = _open_list(report)
    if open_list:
        said.append(f"Still open: {open_list}. Conformance is not claimed while findings are open.")
    elif result.conforms_to:
        said.append("No findings are open; the automated checks found no failure.")
    return " ".join(said)


def _review_sentence(report: dict) -> str:
    review = report.get("review") or {}
    if review.get("state") == "approved":
        overridden = int(review.get("open_findings_overridden") or 0)
        extra = f", with {overridden} open findings accepted" if overridden else ""
        return f"A reviewer approved the document{extra}."
    if review.get("state") == "rejected":
        return "A reviewer rejected the document."
    return "No reviewer has approved the document yet."


def _open_list(report: dict) -> str:
    findings = report.get("findings", [])
    codes = Counter(f.get("code") for f in findings if f.get("level") in OPEN_LEVELS)
    return "; ".join(
        f"{n} {_FINDING_WORDS.get(code or '', (code or 'finding').lower().replace('_', ' '))}"
        for code, n in sorted(codes.items(), key=lambda kv: (-kv[1], kv[0] or ""))
    )


def _package(
    content: Content,
    report: dict,
    result: EpubResult,
    available: dict[str, str],
    modified: dt.datetime,
    identifier: str,
) -> bytes:
    package = etree.Element(f"{{{OPF_NS}}}package", nsmap={None: OPF_NS})
    package.attrib.update({"version": "3.0", "unique-identifier": "pub-id", "prefix": A11Y_PREFIX})
    package.set(XML_LANG, content.lang)
    _metadata(package, content, report, result, modified, identifier)
    manifest = etree.SubElement(package, f"{{{OPF_NS}}}manifest")
    item = f"{{{OPF_NS}}}item"
    xhtml = "application/xhtml+xml"
    nav = {"id": "nav", "href": NAV_NAME, "media-type": xhtml, "properties": "nav"}
    etree.SubElement(manifest, item, nav)
    etree.SubElement(manifest, item, {"id": "css", "href": CSS_NAME, "media-type": "text/css"})
    for n, part in enumerate(content.parts, start=1):
        attrs = {"id": f"part-{n}", "href": part.name, "media-type": xhtml}
        if part.has_math:
            attrs["properties"] = "mathml"
        etree.SubElement(manifest, item, attrs)
    for n, (name, media) in enumerate(available.items(), start=1):
        attrs = {"id": f"img-{n}", "href": f"{IMAGES_DIR}/{name}", "media-type": media}
        etree.SubElement(manifest, item, attrs)
    spine = etree.SubElement(package, f"{{{OPF_NS}}}spine")
    # The nav in the spine, out of the reading order: the landmarks link to its contents.
    etree.SubElement(spine, f"{{{OPF_NS}}}itemref", {"idref": "nav", "linear": "no"})
    for n in range(1, len(content.parts) + 1):
        etree.SubElement(spine, f"{{{OPF_NS}}}itemref", {"idref": f"part-{n}"})
    return etree.tostring(package, xml_declaration=True, encoding="utf-8")


def _metadata(package, content, report, result: EpubResult, modified, identifier: str) -> None:
    meta = etree.SubElement(package, f"{{{OPF_NS}}}metadata", nsmap={"dc": DC_NS})

    def dc(name: str, text: str, **attrs: str) -> None:
        etree.SubElement(meta, f"{{{DC_NS}}}{name}", attrs).text = clean_text(text)

    def prop(name: str, text: str) -> None:
        etree.SubElement(meta, f"{{{OPF_NS}}}meta", {"property": name}).text = clean_text(text)

    dc("identifier", identifier, id="pub-id")
    dc("title", content.title)
    dc("language", content.lang)
    if report.get("source"):
        # The print source the page list follows (Ace's epub-pagesource reads the refinement).
        dc("source", report["source"], id="print-source")
        source_of = {"refines": "#print-source", "property": "source-of"}
        etree.SubElement(meta, f"{{{OPF_NS}}}meta", source_of).text = "pagination"
    prop("dcterms:modified", modified.strftime("%Y-%m-%dT%H:%M:%SZ"))
    prop("schema:accessMode", "textual")
    if content.figures:
        prop("schema:accessMode", "visual")
    if "alternativeText" in result.features or not content.figures:
        prop("schema:accessModeSufficient", "textual")
    if content.figures:
        prop("schema:accessModeSufficient", "textual,visual")
    for feature in result.features:
        prop("schema:accessibilityFeature", feature)
    prop("schema:accessibilityHazard", "none")  # text and still images only
    prop("schema:accessibilitySummary", accessibility_summary(content, report, result))
    if result.conforms_to:
        prop("dcterms:conformsTo", result.conforms_to)
        prop("a11y:certifiedBy", CERTIFIED_BY)


# --- the structural self-check ---------------------------------------------------------------

CHECKED_BY = "structural self-check (zipfile, lxml): not EPUBCheck or Ace, which run in the tests"
_REQUIRED_META = (
    "schema:accessMode",
    "schema:accessModeSufficient",
    "schema:accessibilityFeature",
    "schema:accessibilityHazard",
    "schema:accessibilitySummary",
)


def check_epub(data: IO[bytes]) -> list[str]:
    """What a reading system and the Accessibility 1.1 metadata need, read back from the zip:
    the mimetype first and stored, the package where the container says, every manifest item
    present and every content document well-formed, a nav with a toc and, when the content
    has page breaks, a page-list whose every link lands on a marker; the accessibility
    metadata; every image with alt text. The problems found, none when it passes."""
    problems: list[str] = []
    with zipfile.ZipFile(data) as zf:
        first = zf.infolist()[0]
        if first.filename != "mimetype" or first.compress_type != zipfile.ZIP_STORED:
            problems.append("the mimetype is not the first entry, stored")
        names = set(zf.namelist())
        try:
            package = etree.fromstring(zf.read(f"{ROOT}/{OPF_NAME}"))
        except (KeyError, etree.XMLSyntaxError):
            return [*problems, "no readable package document"]
        parsed: dict[str, etree._Element] = {}
        for item in package.iterfind(f".//{{{OPF_NS}}}item"):
            name = item.get("href", "")
            if f"{ROOT}/{name}" not in names:
                problems.append(f"{name} is in the manifest, not in the zip")
            elif name.endswith(".xhtml"):
                try:
                    parsed[name] = etree.fromstring(zf.read(f"{ROOT}/{name}"))
                except etree.XMLSyntaxError:
                    problems.append(f"{name} is not well-formed XHTML")
    properties = {m.get("property") for m in package.iterfind(f".//{{{OPF_NS}}}meta")}
    problems += [f"no {prop}" for prop in _REQUIRED_META if prop not in properties]
    nav = parsed.get(NAV_NAME)
    navs = {} if nav is None else {
        n.get(EPUB_TYPE): n for n in nav.iter(f"{{{XHTML_NS}}}nav")
    }  # fmt: skip
    if "toc" not in navs:
        problems.append("no table of contents (nav epub:type=toc)")
    markers = sum(
        1 for doc in parsed.values() for el in doc.iter(f"{{{XHTML_NS}}}span")
        if el.get(EPUB_TYPE) == "pagebreak"
    )  # fmt: skip
    links = [a.get("href", "") for a in navs["page-list"].iter(f"{{{XHTML_NS}}}a")] \
        if "page-list" in navs else []  # fmt: skip
    if markers and len(links) != markers:
        problems.append(f"the page-list has {len(links)} pages for {markers} page breaks")
    for href in links:
        name, _, ident = href.partition("#")
        doc = parsed.get(name)
        if doc is None or not doc.xpath("//*[@id=$i]", i=ident):
            problems.append(f"the page-list links {href}, which is not there")
    for name, doc in parsed.items():
        alts = [img.get("alt") for img in doc.iter(f"{{{XHTML_NS}}}img")]
        if any(alt is None or not alt.strip() for alt in alts):
            problems.append(f"{name}: an image without alt text")
    return problems
