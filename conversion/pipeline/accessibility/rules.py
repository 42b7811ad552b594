"""Our own accessibility rules: what axe-core cannot see in a converted document.

Each rule returns findings with a level, the WCAG criterion, the element and a page number.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Tag

from conversion.pipeline.document import Finding

_LANG = re.compile(r"^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$")


def _page_of(el: Tag) -> int | None:
    marker = el.find_previous(attrs={"role": "doc-pagebreak"})
    if marker and marker.get("id", "").startswith("page-"):
        try:
            return int(marker["id"][5:])
        except ValueError:
            return None
    return None


def _selector(el: Tag) -> str:
    if el.get("id"):
        return f"#{el['id']}"
    return el.name


def check_html(html: str, *, expected_pages: int | None = None) -> list[Finding]:
    soup = BeautifulSoup(html, "html.parser")
    findings: list[Finding] = []

    def add(code, level, message, criterion, el=None):
        findings.append(
            Finding(
                code=code,
                level=level,
                message=message,
                criterion=criterion,
                element=_selector(el) if el is not None else None,
                page=_page_of(el) if el is not None else None,
            )
        )

    root = soup.find("html")
    lang = root.get("lang", "") if root else ""
    if not lang or not _LANG.match(lang):
        add("LANG_MISSING", "error", "The document has no valid language (lang).", "3.1.1")
    title = soup.find("title")
    if not title or not title.get_text(strip=True):
        add("TITLE_MISSING", "error", "The document has no title.", "2.4.2")
    mains = soup.find_all("main")
    if len(mains) != 1:
        add("MAIN_COUNT", "error", f"Expected one <main>, found {len(mains)}.", "1.3.1")

    headings = soup.find_all(re.compile(r"^h[1-6]$"))
    h1s = [h for h in headings if h.name == "h1"]
    if len(h1s) != 1:
        add("H1_COUNT", "error", f"Expected exactly one <h1>, found {len(h1s)}.", "1.3.1")
    previous = 0
    for h in headings:
        level = int(h.name[1])
        if not h.get_text(strip=True):
            add("HEADING_EMPTY", "error", "A heading has no text.", "2.4.6", h)
        if previous and level > previous + 1:
            add(
                "HEADING_SKIP",
                "error",
                f"Heading level jumps from h{previous} to h{level}.",
                "1.3.1",
                h,
            )
        previous = level

    for img in soup.find_all("img"):
        if img.get("alt") is None:
            add("IMG_NO_ALT", "error", "An image has no alt text.", "1.1.1", img)
    for fig in soup.find_all("figure"):
        if fig.get("data-review") == "alt-missing":
            add(
                "FIGURE_ALT_REVIEW",
                "needs_review",
                "A figure has no description yet: write its alt text.",
                "1.1.1",
                fig,
            )

    for el in soup.select("main p, main li"):
        if not el.get_text(strip=True) and not el.find(["img", "math"]):
            add("EMPTY_BLOCK", "warning", "An empty paragraph or list item.", "1.3.1", el)

    markers = soup.find_all(attrs={"role": "doc-pagebreak"})
    if expected_pages is not None and len(markers) != expected_pages:
        add(
            "PAGE_MARKERS",
            "error",
            f"{len(markers)} page-break markers for {expected_pages} pages.",
            "2.4.5",
        )
    for span in soup.select('[data-confidence="low"]'):
        add(
            "LOW_CONFIDENCE",
            "needs_review",
            f"Low-confidence text to check: {span.get_text()[:60]!r}.",
            "1.3.1",
            span,
        )
    for p in soup.select("main p"):
        if p.find("script") or "<script" in p.decode_contents().lower():
            add("MARKUP_IN_TEXT", "error", "Markup survived in text.", "4.1.2", p)
    return findings
