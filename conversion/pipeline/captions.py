"""Captions over a page's blocks: the text under a figure becomes its caption, the line before
or after a table its <caption>; a heading that reads as a numbered caption is none.
"""

from __future__ import annotations

import re

from conversion.pipeline.assemble_params import ASSEMBLE, AssembleParams
from models.engine import ReadBlock
from models.reading.word_rows import TABLE_CAPTION as _TABLE_CAPTION  # "Table 2", not "Table of"

_CAPTION = re.compile(
    r"^(fig(ure)?|plate|illustration|image|photo|chart|map|algorithm|listing)\.?\s*\d*", re.I
)


def numbered_caption(text: str) -> bool:
    """Reads as a table's caption ("Table 3 ...") or a numbered figure's ("Figure 2 ...", and
    an algorithm's or a listing's box: "Algorithm 1 Greedy selection")."""
    numbered = any(c.isdigit() for c in text[:12])  # a number near the start: "Figure 2"
    return bool(_TABLE_CAPTION.match(text) or _CAPTION.match(text) and numbered)


def attach_captions(
    blocks: list[ReadBlock], *, params: AssembleParams = ASSEMBLE
) -> list[ReadBlock]:
    """The text right below a figure is its caption: a short paragraph, one that says "Figure
    3", or what the layout model marked as a caption (however long), when nothing stands
    between them ("Figure 3c shows the forward-pass..." at the foot of a column is the text
    going on, not the caption of the figure at the head of the page). A formula kept as an
    image has none: the line under a display equation is the text going on."""
    figures = [
        b for b in blocks if b.kind == "figure" and b.bbox and not b.text and b.layout != "formula"
    ]
    taken: set[int] = set()
    unknown = params.unknown_font_size
    for fig in figures:
        fx0, _, fx1, fy1 = fig.bbox  # type: ignore[misc]
        under = [
            (rb.bbox[1], i) for i, rb in enumerate(blocks)
            if rb is not fig and rb.bbox and rb.bbox[1] >= fy1 - 0.5 * (rb.font_size or unknown)
            and min(fx1, rb.bbox[2]) > max(fx0, rb.bbox[0])
        ]  # fmt: skip
        if not under:
            continue
        i = min(under)[1]  # the nearest block under the figure, and only it
        rb = blocks[i]
        if i in taken or rb.kind not in ("paragraph", "caption") or _TABLE_CAPTION.match(rb.text):
            continue  # "Table 2 ..." under a figure heads the table that follows
        size = rb.font_size or unknown
        cx = (rb.bbox[0] + rb.bbox[2]) / 2  # type: ignore[index]
        near = rb.bbox[1] <= fy1 + params.caption_gap_ratio * size  # type: ignore[index]
        labelled = rb.kind == "caption" or bool(_CAPTION.match(rb.text))
        short = len(rb.text) <= params.caption_max_chars or rb.kind == "caption"
        if not labelled and _runs_on(blocks, i):
            continue  # a paragraph's first line the engine cut off: the text going on
        if fx0 <= cx <= fx1 and short and (near or labelled):
            taken.add(i)
            fig.text = rb.text.strip()
    return [b for i, b in enumerate(blocks) if i not in taken]


def _runs_on(blocks: list[ReadBlock], i: int) -> bool:
    """Block `i` stops mid-sentence (no closing stop) and the block read next, under it in its
    column, goes on in lower case: one paragraph the engine cut in two."""
    if i + 1 >= len(blocks) or re.search(r"[.!?:;\"”’)]$", blocks[i].text.strip()):
        return False
    here, after = blocks[i].bbox, blocks[i + 1].bbox
    text = blocks[i + 1].text.strip()
    return bool(
        here and after and text[:1].islower() and after[1] >= here[1]
        and min(here[2], after[2]) > max(here[0], after[0])
    )  # fmt: skip


def _heads_next(blocks: list[ReadBlock], j: int, table: ReadBlock) -> bool:
    """The caption at `j`, under `table`, stands over the next table (without a caption of
    its own) at least as close: it is that table's ("Table 2 ..." between tables 1 and 2)."""
    if j + 1 >= len(blocks):
        return False
    after = blocks[j + 1]
    if after.kind != "table" or after.text:
        return False
    cap = blocks[j].bbox
    if not (cap and table.bbox and after.bbox):
        return True
    return after.bbox[1] - cap[3] <= cap[1] - table.bbox[3]


def attach_table_captions(
    blocks: list[ReadBlock], *, params: AssembleParams = ASSEMBLE
) -> list[ReadBlock]:
    """A caption right before or after a table ("Table 2. Budget", or a block the layout model
    calls a caption) becomes the table's <caption>; one under a table that heads the next
    table is the next one's."""
    out = list(blocks)
    for table in [b for b in blocks if b.kind == "table" and not b.text]:
        i = out.index(table)
        for j in (i - 1, i + 1):
            if not 0 <= j < len(out):
                continue
            other = out[j]
            text = other.text.strip()
            # (The layout model may call a printed "Table S1 ..." line a section header.)
            is_caption = other.kind == "caption" or (
                other.kind in ("paragraph", "heading") and _TABLE_CAPTION.match(text)
            )
            # A caption's lines after its "Table N" line, set apart by a hanging indent, may
            # read as a block of their own, even a heading ("domain and process: 2011").
            opened = (
                j < i
                and other.kind in ("paragraph", "heading", "caption")
                and _opens_caption(out, j, params)
            )
            is_caption = is_caption or opened
            if j > i and _heads_next(out, j, table):
                continue
            if is_caption and 0 < len(text) <= params.table_caption_max_chars:
                first = j - 1 if opened else j
                table.text = " ".join(b.text.strip() for b in out[first : j + 1])
                del out[first : j + 1]
                break
    return out


def _opens_caption(blocks: list[ReadBlock], j: int, params: AssembleParams) -> bool:
    """The block before caption j is its first line: a "Table N" line right over it, the
    caption's other lines set apart by a hanging indent ("Table A-4. Number and percentage of
    reading" over "items in the PIRLS assessment, ..."), which reads as a block of its own."""
    if j == 0:
        return False
    head, rest = blocks[j - 1], blocks[j]
    texts = ("paragraph", "heading", "caption")  # (a printed "Table 2" may read as a heading)
    if head.kind not in texts or not _TABLE_CAPTION.match(head.text.strip()):
        return False
    if _TABLE_CAPTION.match(rest.text.strip()) or not (head.bbox and rest.bbox):
        return False
    line = min(head.bbox[3] - head.bbox[1], rest.bbox[3] - rest.bbox[1])
    gap = rest.bbox[1] - head.bbox[3]
    beside = min(head.bbox[2], rest.bbox[2]) > max(head.bbox[0], rest.bbox[0])
    return beside and gap <= params.caption_wrap_gap_ratio * line
