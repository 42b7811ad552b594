"""One Gemma answer -> a `ParsedPage`: typed blocks (`ReadBlock`s), page language and rotation.

The steps, in order: clean the text and cut a loop at its end (`cleanup`), read the front matter
(`front_matter`), collapse repeated lines, read the body (`body`, with `markdown` for the text
between the marked segments); a page the model calls blank stays blank.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from models.engine import ReadBlock
from models.gemma.parse.body import body_blocks
from models.gemma.parse.cleanup import clean, collapse_repeated_lines, cut_repetition
from models.gemma.parse.findings import BLANK_CONFLICT, REPETITION, TRUNCATED, finding
from models.gemma.parse.front_matter import front_matter


@dataclass
class ParsedPage:
    blocks: list[ReadBlock]
    language: str | None = None
    rotation: int = 0  # degrees clockwise the page must be turned to read upright
    blank: bool = False
    findings: list[dict[str, str]] = field(default_factory=list)


def parse_page(text: str, *, width: int, height: int, truncated: bool = False) -> ParsedPage:
    """Parse one answer. `width`/`height`: the page image's pixels (figure boxes are scaled to
    them); `truncated`: generation stopped at the token limit, not at a stop token."""
    findings: list[dict[str, str]] = []
    text = clean(text)
    text, looped = cut_repetition(text)
    if looped:
        findings.append(
            finding(
                REPETITION,
                "needs_review",
                "The model repeated itself at the end of this page; the repetition was cut and "
                "text after it may be missing.",
            )
        )
    elif truncated:
        findings.append(
            finding(
                TRUNCATED,
                "needs_review",
                "The model's answer for this page hit the length limit; the end of the page may "
                "be missing.",
            )
        )
    meta, body = front_matter(text, findings)
    page = ParsedPage(blocks=[], findings=findings)
    page.language = meta.get("language")
    page.rotation = meta.get("rotation", 0)
    body = collapse_repeated_lines(body, findings)
    blocks = body_blocks(body, width=width, height=height, findings=findings)
    blocks = [b for b in blocks if b.kind == "figure" or b.text.strip() or b.rows or b.latex]
    if meta.get("blank"):
        page.blank = True
        if blocks:
            findings.append(
                finding(
                    BLANK_CONFLICT,
                    "needs_review",
                    "The model called this page blank but also wrote text; the text was dropped. "
                    "Check the page image.",
                )
            )
        return page
    page.blocks = blocks
    return page


__all__ = ["ParsedPage", "parse_page"]
