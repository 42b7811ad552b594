"""Broken paragraphs over a page's blocks: a line cut at a column gap, a paragraph split
mid-sentence (by a figure, a column, a page's layout regions) and a dashed clause the engine took
for a list item are joined back into the paragraph they continue; small print at a column's foot
moves out of the sentence that goes on at the next column's head.
"""

from __future__ import annotations

import re

from conversion.pipeline.assemble_params import ASSEMBLE, AssembleParams
from models.engine import ReadBlock, Word
from models.reading.boxes import union

_SENTENCE_END = re.compile(r"[.!?:;)\]\"”’]$")


def _continue_with(prev: ReadBlock, rb: ReadBlock, *, bbox: tuple) -> None:
    """prev's text goes on with rb's: the texts joined by a space, the words in order, and
    the box the caller gives the two."""
    prev.text = prev.text.rstrip() + " " + rb.text.lstrip()
    prev.words = prev.words + rb.words
    prev.bbox = bbox


def lines_cut_at_a_gutter(
    blocks: list[ReadBlock], *, params: AssembleParams = ASSEMBLE
) -> list[ReadBlock]:
    """A full-width line the engine cut where it crosses a column gap (the last line of a page
    running under an infobox): a one-line paragraph that starts in lowercase on the same line,
    just right of where a paragraph ends mid-sentence (less than `line_cut_gap_ratio` of a line
    height away), is the rest of that paragraph's last line."""
    joined: set[int] = set()  # ids: ReadBlock is a dataclass, == compares every field
    paragraphs = [b for b in blocks if b.kind == "paragraph" and b.bbox and b.text]
    for rb in paragraphs:
        if not rb.text[:1].islower() or id(rb) in joined:
            continue
        height = rb.bbox[3] - rb.bbox[1]  # type: ignore[index]
        words = [w.bbox[3] - w.bbox[1] for w in rb.words if w.bbox]
        if not words or height > params.cut_line_height_ratio * max(words):
            continue  # not a single line
        bottom_slack = params.cut_line_bottom_share * height
        for prev in paragraphs:
            if (
                prev is not rb
                and id(prev) not in joined
                and not _SENTENCE_END.search(prev.text.strip())
                and abs(prev.bbox[3] - rb.bbox[3]) <= bottom_slack  # type: ignore[index]
                and 0 <= rb.bbox[0] - prev.bbox[2] <= params.line_cut_gap_ratio * height  # type: ignore[index]
            ):
                x0, y0, _, y1 = prev.bbox  # type: ignore[misc]
                _continue_with(prev, rb, bbox=(x0, y0, rb.bbox[2], max(y1, rb.bbox[3])))  # type: ignore[index]
                joined.add(id(rb))
                break
    return [b for b in blocks if id(b) not in joined]


# A section's number alone, dotted: "2.2.1", "4.", "A.1" (a bare "12" beside a line may be a
# running head's page number).
_SECTION_NUMBER = re.compile(r"(?:\d{1,2}|[A-Z])(?:\.\d{1,2}){1,3}\.?|\d{1,2}\.")


def numbers_beside_headings(
    blocks: list[ReadBlock], *, params: AssembleParams = ASSEMBLE
) -> list[ReadBlock]:
    """A section's number the engine read apart from its title (a scanned manual's "2.2.1" |
    "Primary Source", an em apart): a paragraph of a number alone, on the row of a heading that
    starts less than `number_title_gap_ratio` of a line height right of it, opens that
    heading."""
    joined: set[int] = set()  # ids: ReadBlock is a dataclass, == compares every field
    headings = [b for b in blocks if b.kind == "heading" and b.bbox and b.text]
    for rb in blocks:
        if rb.kind != "paragraph" or not rb.bbox or not _SECTION_NUMBER.fullmatch(rb.text.strip()):
            continue
        height = rb.bbox[3] - rb.bbox[1]
        for head in headings:
            gap = head.bbox[0] - rb.bbox[2]  # type: ignore[index]
            if (
                id(head) not in joined
                and head.bbox[1] <= (rb.bbox[1] + rb.bbox[3]) / 2 <= head.bbox[3]  # type: ignore[index]
                and 0 <= gap <= params.number_title_gap_ratio * height
            ):
                head.text = rb.text.strip() + " " + head.text.lstrip()
                head.words = rb.words + head.words
                head.bbox = union((rb.bbox, head.bbox))
                joined.add(id(rb))
                break
    return [b for b in blocks if id(b) not in joined]


def _same_body_text(prev: ReadBlock, rb: ReadBlock, *, params: AssembleParams) -> bool:
    """Both several lines of the same weight: a paragraph cut in two, not a heading and text."""
    if not prev.bbox or not prev.font_size:
        return False
    multi_line = prev.bbox[3] - prev.bbox[1] > params.one_line_height_ratio * prev.font_size
    same_ink = (
        prev.ink is None
        or rb.ink is None
        or abs(prev.ink - rb.ink) <= params.same_ink_share * max(rb.ink, params.ink_floor)
    )
    return multi_line and same_ink and not prev.bold and not rb.bold


def _first_line(prev: ReadBlock, rb: ReadBlock, *, params: AssembleParams) -> bool:
    """prev is one line and rb goes on in lower case: a paragraph's first line, measured
    larger for the initial that opens it ("Several schools reported higher" over "attendance
    than..."), whatever its size; a heading is never continued by a sentence's middle."""
    one_line = params.one_line_height_ratio * (prev.font_size or 0)
    return rb.text[:1].islower() and prev.bbox[3] - prev.bbox[1] < one_line  # type: ignore[index]


def _opens_indented(prev: ReadBlock, rb: ReadBlock, *, params: AssembleParams) -> bool:
    """rb's first line is indented from its other lines (from prev's left edge when rb is one
    line) by `opening_indent_heights` of its words' median height or more: it opens a
    paragraph. Needs the words' boxes."""
    boxed = [w.bbox for w in rb.words if w.bbox]
    if not boxed or not prev.bbox:
        return False
    first = boxed[0]
    on_first = [b for b in boxed if b[1] < first[3] and b[3] > first[1]]
    below = [b for b in boxed if b[1] >= first[3]]  # the words of the lines under the first
    edge = min(b[0] for b in below) if below else prev.bbox[0]
    heights = sorted(b[3] - b[1] for b in boxed)
    indent = min(b[0] for b in on_first) - edge
    return indent >= params.opening_indent_heights * heights[len(heights) // 2]


def _same_size(prev: ReadBlock, rb: ReadBlock, *, params: AssembleParams) -> bool:
    """rb's text size differs from prev's by less than `broken_size_share` of prev's."""
    return abs((prev.font_size or 0) - (rb.font_size or 0)) < params.broken_size_share * (
        prev.font_size or 1
    )


def _continues(prev: ReadBlock | None, rb: ReadBlock, *, params: AssembleParams) -> bool:
    """rb goes on with the paragraph prev: same column and size (or prev its first line), no
    sentence end between; a block opening in a capital whose first line is indented opens
    its own paragraph (a misread full stop, "amour ," over an indented "Lorsque", ends no
    sentence), and so does one in small print (a note the layout model took for text: a
    paper's copyright block under the paragraph that goes on in the next column)."""
    return bool(
        prev is not None
        and prev.kind == rb.kind == "paragraph"
        and prev.text
        and (
            rb.text[:1].islower()
            or (
                _same_body_text(prev, rb, params=params)
                and not _opens_indented(prev, rb, params=params)
                and not _small_print(rb, prev, params=params)  # a note under it
            )
        )
        and not _SENTENCE_END.search(prev.text.strip())
        and prev.bbox
        and rb.bbox
        and abs(prev.bbox[0] - rb.bbox[0])
        < params.broken_indent_share * max(prev.bbox[2] - prev.bbox[0], 1)
        and (_same_size(prev, rb, params=params) or _first_line(prev, rb, params=params))
    )


def merge_broken_paragraphs(
    blocks: list[ReadBlock], *, params: AssembleParams = ASSEMBLE
) -> list[ReadBlock]:
    """Join a paragraph split mid-sentence: same column, no sentence end, next starts lowercase.
    A figure placed between the two halves moves before the joined paragraph. A formula kept
    as an image is no float: it stands in its sentence ("... we obtain [formula] where ..."),
    which stays cut around it."""
    out: list[ReadBlock] = []
    for rb in blocks:
        figures_between: list[ReadBlock] = []
        while (
            out and out[-1].kind == "figure" and out[-1].layout != "formula"
            and rb.kind == "paragraph"
        ):  # fmt: skip
            figures_between.insert(0, out.pop())
        prev = out[-1] if out else None
        if prev is not None and _continues(prev, rb, params=params):
            x0, y0, x1, _ = prev.bbox  # type: ignore[misc]
            rx0, _, rx1, ry1 = rb.bbox  # type: ignore[misc]
            _continue_with(prev, rb, bbox=(min(x0, rx0), y0, max(x1, rx1), ry1))
            out[-1:-1] = figures_between
            continue
        out.extend(figures_between)
        out.append(rb)
    return out


def _small_print(rb: ReadBlock, body: ReadBlock, *, params: AssembleParams) -> bool:
    """A note or a paragraph set at most `column_note_size_ratio` of body's size."""
    size, body_size = rb.font_size or 0.0, body.font_size or 0.0
    return (
        rb.kind in ("paragraph", "footnote")
        and 0 < size <= params.column_note_size_ratio * body_size
    )


def notes_after_a_column_break(
    blocks: list[ReadBlock], *, params: AssembleParams = ASSEMBLE
) -> list[ReadBlock]:
    """Small print at a column's foot (a paper's copyright block, a note the layout model
    took for text) stood in the middle of a sentence that goes on at the next column's head
    ("... and make deployment [Permission to make digital or hard copies ...] and is used
    for ..."): a paragraph ending mid-sentence, then blocks of small print under it, then a
    paragraph in lower case at its size, higher on the page (the next column's head). The
    small print moves after the paragraph that goes on."""
    out = list(blocks)
    k = 0
    while k < len(out):
        prev = out[k]
        notes_end = k + 1
        while notes_end < len(out) and _small_print(out[notes_end], prev, params=params):
            notes_end += 1
        if (
            notes_end > k + 1
            and notes_end < len(out)
            and prev.kind == "paragraph"
            and prev.bbox
            and prev.text
            and not _SENTENCE_END.search(prev.text.strip())
            and all(n.bbox and n.bbox[1] >= prev.bbox[3] for n in out[k + 1 : notes_end])  # type: ignore[index]
        ):
            rb = out[notes_end]
            if (
                rb.kind == "paragraph"
                and rb.text[:1].islower()
                and rb.bbox
                and rb.bbox[1] < prev.bbox[3]
                and _same_size(prev, rb, params=params)
            ):
                out[k + 1 : notes_end + 1] = [rb, *out[k + 1 : notes_end]]
        k += 1
    return out


def dash_continuations(blocks: list[ReadBlock]) -> list[ReadBlock]:
    """A lone "item" opened by a dash right after an unfinished sentence is that sentence's
    continuation ("...into the track —existing notes are kept"), not a list."""
    out: list[ReadBlock] = []
    for i, rb in enumerate(blocks):
        prev = out[-1] if out else None
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        if (
            rb.kind == "list_item"
            and rb.marker in ("-", "–", "—")
            and prev is not None
            and prev.kind == "paragraph"
            and not _SENTENCE_END.search(prev.text.strip())
            and (nxt is None or nxt.kind != "list_item")
        ):
            prev.text = f"{prev.text.rstrip()} —{rb.text.lstrip()}"
            dashed = [Word(text="—" + w.text, confidence=w.confidence) for w in rb.words[:1]]
            prev.words = prev.words + dashed + rb.words[1:]
            continue
        out.append(rb)
    return out
