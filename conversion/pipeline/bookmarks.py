"""The file's own outline (its bookmarks) as the headings' evidence.

A born-digital file whose tools wrote an outline (LaTeX's hyperref, a word processor's export)
says which of its lines are headings and how they nest: a reader's sidebar shows it. Where the
outline's titles are found on their pages as whole blocks of text, those blocks are headings,
their depth the outline's; `headings.assign_heading_levels` ranks them by it and weighs every
other heading against them. An outline that does not match its pages (a scanner's "Blank Page"
entries, tables listed by caption) is not used: its entries are untrusted data, evidence only.
"""

from __future__ import annotations

import re
import unicodedata

from conversion.pipeline.assemble_params import ASSEMBLE, AssembleParams
from conversion.pipeline.captions import numbered_caption
from conversion.pipeline.document import Block, Page, Span
from models.reading.boxes import union

# What stands before a heading's title on its line, once punctuation is spaces: its number or
# label ("2 3" for "2.3", "iv", "a 1", "chapter 3", "appendix b").
_LABEL = re.compile(r"(?:(?:chapter|appendix|part|section)\s+)?(?:\d+|[a-z]|[ivxlc]+)(?:\s\d+)*")
# Blocks an entry may be found in: a heading, or text the page's reading did not call one.
_MATCHED_KINDS = ("heading", "paragraph")


def _words(text: str) -> str:
    """A title's words for comparison: compatibility forms, case and punctuation aside."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.sub(r"[\W_]+", " ", text).split())


def reads_as(text: str, title: str, *, opening: bool = False) -> bool:
    """The block's text is the entry's title, with its number or label before it or none; or,
    `opening`, the text opens with it (a head run into its paragraph)."""
    said, wanted = _words(text), _words(title)
    if not wanted:
        return False
    if opening:
        at = said.find(wanted)
        follows = said[at + len(wanted) : at + len(wanted) + 1] in ("", " ")
        return at >= 0 and follows and (at == 0 or bool(_LABEL.fullmatch(said[: at - 1])))
    if said == wanted:
        return True
    return said.endswith(" " + wanted) and bool(_LABEL.fullmatch(said[: -len(wanted) - 1]))


def _find(blocks: list[Block], title: str, taken: set[int], *, params: AssembleParams):
    """The first run of consecutive text blocks (`outline_max_blocks` at most: a title wrapped
    over lines the reading kept apart) that reads as the title; (start, count) or None."""
    for start, block in enumerate(blocks):
        if block.kind not in _MATCHED_KINDS or start in taken:
            continue
        text = ""
        for count in range(1, params.outline_max_blocks + 1):
            at = start + count - 1
            if at >= len(blocks) or blocks[at].kind not in _MATCHED_KINDS or at in taken:
                break
            text = f"{text} {blocks[at].text}"
            if reads_as(text, title):
                return start, count
    return None


def outline_headings(
    pages: list[Page], outlines: dict[int, list[tuple[int, str]]], *,
    params: AssembleParams = ASSEMBLE,
) -> None:  # fmt: skip
    """Blocks that are the outline's entries made headings of the entry's depth
    (`Block.outline_level`), when the outline matches the pages: at least `outline_min_matches`
    entries found as whole blocks, and `outline_match_share` of them found, as whole blocks or
    opening one (a head run into its paragraph: AMS classes run in their subsections). A
    caption's entry ("Table 3 ...") names no heading and is not counted."""
    found: list[tuple[Page, int, int, int]] = []  # page, start, count, depth
    entries = run_in = 0
    for page in pages:
        taken: set[int] = set()
        for depth, title in outlines.get(page.number, []):
            if numbered_caption(title):
                continue
            entries += 1
            hit = _find(page.blocks, title, taken, params=params)
            if hit is None and any(reads_as(b.text, title, opening=True) for b in page.blocks):
                run_in += 1  # the outline is right, and this head no line of its own
            if hit is not None:
                start, count = hit
                taken.update(range(start, start + count))
                found.append((page, start, count, depth))
    if len(found) < params.outline_min_matches or (
        len(found) + run_in < params.outline_match_share * entries
    ):
        return
    cut: dict[int, set[int]] = {}  # page number -> indexes folded into the block before them
    for page, start, count, depth in found:
        run = page.blocks[start : start + count]
        head = run[0]
        spans: list[Span] = list(head.spans)
        for block in run[1:]:
            spans += [Span(text=" "), *block.spans]
        head.spans = spans
        head.bbox = union(b.bbox for b in run)
        # set as its title is set: a label over it ("Chapter 3") is set smaller
        head.font_key = max(b.font_key or 0.0 for b in run) or head.font_key
        head.bold = any(b.bold for b in run)
        head.kind, head.outline_level = "heading", depth
        head.level = head.level or 0
        cut.setdefault(page.number, set()).update(range(start + 1, start + count))
    for page in pages:
        gone = cut.get(page.number, set())
        page.blocks = [b for i, b in enumerate(page.blocks) if i not in gone]
