"""The notice an unchecked document opens with (issue 33; docs/review.md, "The notice").

A document whose findings are still open, or that a reviewer rejected, must not read like a
final one wherever it ends up. The stored document never holds the notice: it is put in as the
document leaves (every download, the zip, the API, the site's frame; the command line when it
writes its files), from the job's state at that moment. So it goes the moment a reviewer
approves, comes back if a reviewer rejects, and a review edit never has to keep it in step.
"""

from __future__ import annotations

import html
from collections import Counter

from conversion.findings import group_title
from conversion.pipeline.document import OPEN_LEVELS

NOTICE_ID = "document-status"
# The notice goes right after the skip link, before the title, the contents and the text: the
# first thing seen, and the first read (templates/output/document.html writes this link).
_SKIP_LINK = '<a class="skip-link" href="#content">Skip to content</a>'
_UNCERTAIN = "LOW_CONFIDENCE"  # words rendered in <mark class="uncertain">


def open_items(findings: list[dict]) -> list[str]:
    """What was not checked, one phrase per kind, most items first: "Uncertain text (12)",
    "Handwriting, illegible text or a script not read: pages not transcribed (pages 2, 5)"."""
    open_ = [f for f in findings if f.get("level") in OPEN_LEVELS]
    counts = Counter(f.get("code") or "" for f in open_)
    phrases = []
    for code, count in counts.most_common():
        pages = sorted({f["page"] for f in open_ if f.get("code") == code and f.get("page")})
        where = _pages(pages) if code == "UNREADABLE" and pages else str(count)
        phrases.append(f"{group_title(code)} ({where})")
    return phrases


def _pages(pages: list[int]) -> str:
    return ("page " if len(pages) == 1 else "pages ") + ", ".join(str(p) for p in pages)


def notice_html(
    findings: list[dict], *, rejected: bool = False, note: str = "", report_href: str = ""
) -> str:
    """The notice, or "" when there is nothing to say (no open finding and not rejected)."""
    items = open_items(findings)
    if not items and not rejected:
        return ""
    if rejected:
        title = "Rejected by a reviewer"
        lead = "A reviewer found that this conversion is not fit to use as it is."
        if note.strip():
            lead += f" The reviewer's note: {note.strip()}"
    else:
        title = "Not checked by a person"
        lead = "This document was converted automatically and nobody has checked it yet."
    parts = [f'<p><strong id="{NOTICE_ID}-title">{_esc(title)}</strong></p>', f"<p>{_esc(lead)}"]
    if items:
        parts.append(f" What was not checked: {_esc('; '.join(items))}.")
    if any(f.get("code") == _UNCERTAIN for f in findings if f.get("level") in OPEN_LEVELS):
        parts.append(" Uncertain words are highlighted in the text.")
    if report_href:
        parts.append(
            f' <a href="{_esc(report_href)}">The accessibility report</a> lists every item.'
        )
    parts.append("</p>")
    # A region of its own (all content in landmarks: axe "region"), holding the note.
    return (
        f'<section class="status-notice" id="{NOTICE_ID}" aria-labelledby="{NOTICE_ID}-title">'
        f'<div role="note" aria-labelledby="{NOTICE_ID}-title">{"".join(parts)}</div></section>'
    )


def with_notice(document: str, notice: str) -> str:
    """The document with the notice at its top, after the skip link (outside `<main>` and its
    pages: a review edit never sees it)."""
    if not notice:
        return document
    for anchor in (_SKIP_LINK, "<body>"):  # a document without the skip link: the body's top
        if anchor in document:
            return document.replace(anchor, f"{anchor}\n{notice}", 1)
    return document


def _esc(text: str) -> str:
    return html.escape(text, quote=True)
