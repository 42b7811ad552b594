"""What a review edit would break, said for people: the errors the edited document has that
the document before it had not, each with what and where ("page 1, heading “Introduction”:
the document would have no level-1 heading"). The report's own checks (`check_html`) and one
of the editor's: a table that had header cells and would have none.
"""

from __future__ import annotations

import re
from collections import Counter

from bs4 import BeautifulSoup, Tag
from soupsieve import SelectorSyntaxError

from conversion.pipeline.accessibility import check_html
from conversion.review_structure import where

SELECTOR_MAX_CHARS = 300  # a finding's selector is data: longer ones name nothing

_WHAT = {
    "H1_NOT_FIRST": "it would come before the document's level-1 heading",
    "HEADING_EMPTY": "the heading would be empty",
}


def _what(code: str, message: str) -> str:
    if code == "H1_COUNT":
        found = re.search(r"found (\d+)", message)
        count = int(found.group(1)) if found else -1
        if count == 0:
            return "the document would have no level-1 heading"
        return f"the document would have {count} level-1 headings (it needs exactly one)"
    if code == "HEADING_SKIP":
        jump = re.search(r"h(\d) to h(\d)", message)
        if jump:
            return f"the heading levels would skip from {jump.group(1)} to {jump.group(2)}"
    if code in _WHAT:
        return _WHAT[code]
    # The check's own sentence, continuing "page 2, figure 2: ..." ("Alt text" -> "alt text").
    message = message.rstrip(".")
    return message[:1].lower() + message[1:] if message[1:2].islower() else message


def select(soup: BeautifulSoup, selector: str | None) -> Tag | None:
    """The element a finding's selector names, or None (a selector is data: too long, or one
    soupsieve refuses, names nothing)."""
    if not selector or len(selector) > SELECTOR_MAX_CHARS:
        return None
    try:
        return soup.select_one(selector)
    except (SelectorSyntaxError, ValueError, NotImplementedError):
        return None


def _problems(html: str, *, pages: int | None) -> Counter:
    """The document's errors, each as (what, where): the same checks as the report's."""
    soup = BeautifulSoup(html, "html.parser")
    out: Counter = Counter()
    for f in check_html(html, expected_pages=pages):
        if f.level != "error":
            continue
        el = select(soup, f.element)
        out[(_what(f.code, f.message), where(el) if el is not None else "")] += 1
    for table in soup.find_all("table"):
        if table.find_parent("main") is not None and table.find("th") is None:
            out[("the table would have no header cells", where(table))] += 1
    return out


def breakage(old_html: str, new_html: str, *, edited: str, pages: int | None = None) -> list[str]:
    """What the edit would break, one sentence each: errors the new document has that the old
    one did not, where they are (or, for the whole document's, the edited block's place)."""
    before = _problems(old_html, pages=pages)
    after = _problems(new_html, pages=pages)
    out = []
    for (what, place), count in after.items():
        if count > before.get((what, place), 0):
            out.append(f"{place or edited}: {what}")
    return out
