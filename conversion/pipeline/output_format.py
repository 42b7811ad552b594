"""The output document's page contract, in one place: render.py writes a page marker before each
page's blocks, as a direct child of `<main>`; a page is the text between its marker and the next
marker (or `</main>`). The checks find pages by the marker's role; a review re-run reads and
replaces a page's text in place, so every byte outside it stays as the renderer wrote it.
"""

from __future__ import annotations

import html
import re

# `doc-pagebreak` first (what browsers and AT use); `separator`, its ARIA superclass, as the
# fallback token, because axe-core ignores DPUB roles in its aria-prohibited-attr check and would
# call the page number's aria-label prohibited.
PAGEBREAK_ROLE = "doc-pagebreak separator"
# Any element whose role holds doc-pagebreak is a page marker (the checks, the sanitizer).
PAGEBREAK_ROLE_RE = re.compile(r"(^|\s)doc-pagebreak(\s|$)")
# A marker as a tag in the document's text, whatever the order of its attributes.
_MARKER_TAG = re.compile(
    r'<span\b(?=[^>]*\brole="[^"]*\bdoc-pagebreak\b)[^>]*\bid="page-(\d+)"[^>]*>\s*</span>'
)
_MAIN_END = "</main>"


class NoSuchPage(LookupError):
    pass


MARKER_NAME_PREFIX = "Page "


def page_marker(number: int, label: str) -> str:
    """The marker's accessible name is "Page 7" (heard "Page 7, separator"; a bare "7" said
    nothing); the stylesheet shows the same name."""
    name = html.escape(MARKER_NAME_PREFIX + label, quote=True)
    return (
        f'<span class="pagebreak" role="{PAGEBREAK_ROLE}" id="page-{number}" '
        f'aria-label="{name}"></span>'
    )


def marker_label(name: str) -> str:
    """The page's label ("7", "vii") from a marker's accessible name ("Page 7")."""
    return name.removeprefix(MARKER_NAME_PREFIX)


def page_numbers(document: str) -> list[int]:
    """The numbers of the document's pages, in document order."""
    return [int(m.group(1)) for m in _MARKER_TAG.finditer(document)]


def page_span(document: str, number: int) -> tuple[int, int]:
    """(start, end) of page `number`'s text in the document: after its marker, up to the next
    marker or the end of `<main>`."""
    markers = list(_MARKER_TAG.finditer(document))
    for index, marker in enumerate(markers):
        if int(marker.group(1)) == number:
            if index + 1 < len(markers):
                return marker.end(), markers[index + 1].start()
            end = document.find(_MAIN_END, marker.end())
            return marker.end(), end if end >= 0 else len(document)
    raise NoSuchPage(number)


def page_text(document: str, number: int) -> str:
    start, end = page_span(document, number)
    return document[start:end]


def replace_page(document: str, number: int, text: str) -> str:
    """The document with page `number`'s text replaced (the markers stay)."""
    start, end = page_span(document, number)
    return document[:start] + text + document[end:]
