"""The allowlist every piece of output HTML passes through, last, before it is written or served.

Rendering already escapes all text; this is the second wall. Model and OCR output is untrusted:
whatever it says, only these tags and attributes survive, and links can only point inside the page
or to the report beside it.
"""

from __future__ import annotations

import re
from collections.abc import Collection

import nh3
from bs4 import BeautifulSoup

_MATHML = {
    "math", "semantics", "annotation", "mrow", "mi", "mo", "mn", "ms", "mtext", "mspace",
    "msup", "msub", "msubsup", "mfrac", "msqrt", "mroot", "mover", "munder", "munderover",
    "mtable", "mtr", "mtd", "mstyle", "mpadded", "mphantom", "menclose", "mfenced",
}  # fmt: skip
ALLOWED_TAGS = {
    "header", "main", "nav", "section", "aside", "footer", "div", "p", "span", "br",
    "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "dl", "dt", "dd",
    "table", "caption", "thead", "tbody", "tfoot", "tr", "th", "td", "colgroup", "col",
    "figure", "figcaption", "img", "a", "sup", "sub", "strong", "em", "b", "i", "blockquote",
    "code", "pre", "abbr", "mark",
} | _MATHML  # fmt: skip
_GENERIC = {"id", "class", "lang", "role", "aria-label", "aria-labelledby", "aria-describedby",
            "aria-hidden",  # documents written before furniture was shown to all
            "tabindex", "title", "dir"}  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "*": _GENERIC | {"data-review", "data-confidence", "data-page"},
    "a": {"href"},
    "img": {"src", "alt", "width", "height"},
    "th": {"scope", "headers", "colspan", "rowspan", "abbr"},
    "td": {"headers", "colspan", "rowspan"},
    "ol": {"start", "type"},
    "math": {"display", "xmlns", "alttext"},
    "annotation": {"encoding"},
    "mo": {"stretchy", "fence", "separator", "lspace", "rspace"},
    "mi": {"mathvariant"},
    "mstyle": {"displaystyle", "scriptlevel", "mathvariant"},
    "mtable": {"columnalign"},
    "mspace": {"width"},
    "menclose": {"notation"},
    "mfenced": {"open", "close"},
}


# The one link out of the page: the report beside the document (a page not transcribed says
# where to ask for a review), a bare file name, no folder, scheme or query.
_REPORT_HREF = re.compile(r"[^/\\:?#]+\.report\.html")


def _attribute_filter(tag: str, attr: str, value: str) -> str | None:
    if attr == "href":
        # In-page links, and the report beside the document.
        return value if value.startswith("#") or _REPORT_HREF.fullmatch(value) else None
    # src: only files next to the document; no schemes, no absolute paths, no parent folders.
    if attr == "src" and (":" in value or value.startswith(("/", "\\")) or ".." in value):
        return None
    return value


def sanitize_fragment(html: str, *, images: Collection[str] | None = None) -> str:
    """The allowlisted HTML. With `images` (the src of every figure file the document has), an
    <img> pointing anywhere else is dropped: a reviewer's edit cannot add a broken image."""
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        attribute_filter=_attribute_filter,
        link_rel=None,
        strip_comments=True,
        url_schemes=set(),
    )
    if images is None:
        return clean
    soup = BeautifulSoup(clean, "html.parser")
    missing = [img for img in soup.find_all("img") if img.get("src") not in images]
    if not missing:
        return clean
    for img in missing:
        img.decompose()
    return str(soup)
