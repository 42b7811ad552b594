"""What a review edit changes beyond the page it touched: everything derived from the content is
built again from the edited document, as the renderer builds it from a fresh reading.

- the table of contents (every heading of `<main>`, each with an id; ids are kept),
- the page list (from the page-break markers),
- `<title>` (the first heading's text; the old title stays when no heading is left),
- the title `<h1>` the renderer puts in a `<header>` when the text has no heading of its own.

And what a re-read page keeps of the document it replaces a page of (keep_edits).
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Tag

from conversion.pipeline import output_format
from conversion.pipeline.render import navigation_html

_HEADING = re.compile(r"^h[1-6]$")
# Headings inside these are not part of the document's outline (render.py puts none there).
_NOT_OUTLINE = ("aside", "figure", "table", "nav")


def _text(el: Tag) -> str:
    return " ".join(el.get_text(" ").split())


def outline(main: Tag) -> list[Tag]:
    return [
        h
        for h in main.find_all(_HEADING)
        if not any(h.find_parent(name) for name in _NOT_OUTLINE) and _text(h)
    ]


def rebuild_derived(soup: BeautifulSoup) -> str:
    """Rebuild the navigation and title of an edited output document in place. Returns the
    title."""
    main = soup.find("main")
    if main is None:
        return soup.title.get_text() if soup.title else ""
    headings = outline(main)
    taken = {el["id"] for el in soup.find_all(id=True)}
    counter = 0
    for h in headings:
        if h.get("id"):
            continue
        counter += 1
        while f"h-{counter}" in taken:
            counter += 1
        h["id"] = f"h-{counter}"
        taken.add(h["id"])
    for nav in soup.find_all("nav", class_=["toc", "page-list"]):
        nav.decompose()
    for header in soup.find_all("header"):
        if header.find("h1", class_="doc-title"):
            header.decompose()
    old_title = " ".join((soup.title.get_text() if soup.title else "").split())
    title = _text(headings[0]) if headings else old_title or "Untitled document"
    pages = [
        (int(m["id"][5:]), output_format.marker_label(m.get("aria-label") or "") or m["id"][5:])
        for m in main.find_all(id=re.compile(r"^page-\d+$"), recursive=False)
    ]
    navs = navigation_html(
        headings=[(int(h.name[1]), h["id"], _text(h)) for h in headings], pages=pages
    )
    before_main: list = []
    if not headings:
        before_main.append(BeautifulSoup("<header></header>", "html.parser").header)
        h1 = soup.new_tag("h1", attrs={"class": "doc-title"})
        h1.string = title
        before_main[0].append(h1)
    if navs:
        before_main.extend(list(BeautifulSoup(navs, "html.parser").contents))
    for node in before_main:
        main.insert_before(node)
    if soup.title is not None:
        soup.title.string = title
    return title


def rebuilt(soup: BeautifulSoup) -> tuple[str, str]:
    """The edited document with its table of contents, page list and title rebuilt: (HTML,
    title)."""
    title = rebuild_derived(soup)
    html = str(soup)
    if not html.lstrip().lower().startswith("<!doctype"):
        html = "<!DOCTYPE html>\n" + html
    return html, title


def _same_markup(a: str, b: str) -> bool:
    return str(BeautifulSoup(a, "html.parser")) == str(BeautifulSoup(b, "html.parser"))


def keep_edits(current: str, fresh: str, number: int, title: str) -> tuple[str, str]:
    """The freshly rendered document, with every page other than `number` whose text a reviewer
    changed taken from the current one. Returns (HTML, title)."""
    edited = False
    for other in output_format.page_numbers(fresh):
        if other == number:
            continue
        try:
            text = output_format.page_text(current, other)
        except output_format.NoSuchPage:
            continue
        if not _same_markup(text, output_format.page_text(fresh, other)):
            fresh = output_format.replace_page(fresh, other, text)
            edited = True
    return rebuilt(BeautifulSoup(fresh, "html.parser")) if edited else (fresh, title)
