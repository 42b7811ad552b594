"""A bibliography as one list of one item per entry: the entries a page's reader gave line by
line (a hanging indent reads as a line at the margin and lines set in from it) or entry by
entry, each joined with its continuation lines into one list item."""

from __future__ import annotations

from dataclasses import replace

from conversion.pipeline.assemble_params import ASSEMBLE, AssembleParams
from models.engine import ReadBlock
from models.reading.boxes import union
from models.reading.kinds import has_year, label_word, reference_opening

_TEXT = ("paragraph", "list_item")


def _opening(rb: ReadBlock) -> str | None:
    """How rb opens an entry: its printed label, or the number the reader took as a list
    item's marker ("12." of "12. Smith, J. ..."), or an author-year opening."""
    if rb.kind == "list_item" and rb.ordered and rb.marker:
        return "number"
    return reference_opening(rb.text)


def _size(rb: ReadBlock, params: AssembleParams) -> float:
    return rb.font_size or params.unknown_font_size


def _continues(
    entry: list[ReadBlock], rb: ReadBlock, left: float, *, params: AssembleParams
) -> bool:
    """rb is the next line of the entry: right under it, in its column, set in from the
    margin by at most `reference_hang_max_ratio` sizes; at the margin itself only where the
    line before stops mid-sentence (a style without a hanging indent)."""
    last = entry[-1]
    size = _size(entry[0], params)
    if rb.kind not in _TEXT or not rb.bbox or not last.bbox:
        return False
    gap = rb.bbox[1] - last.bbox[3]
    if not -size <= gap <= params.reference_gap_ratio * size or rb.bbox[0] >= last.bbox[2]:
        return False
    indent = rb.bbox[0] - left
    if params.reference_hang_min_ratio * size <= indent <= params.reference_hang_max_ratio * size:
        return True
    flush = abs(indent) <= params.reference_align_ratio * size
    return flush and not last.text.rstrip().endswith(".")


def _entry(lines: list[ReadBlock]) -> ReadBlock:
    """One entry's lines as one list item, hyphenated words mended."""
    first = lines[0]
    text = first.text.rstrip()
    for rb in lines[1:]:
        more = rb.text.strip()
        if text.endswith("-") and len(text) > 1 and text[-2].isalpha() and more[:1].islower():
            text = text[:-1] + more
        else:
            text = f"{text} {more}"
    bbox = union(rb.bbox for rb in lines)
    return replace(first, kind="list_item", text=text, bbox=bbox,
                   words=[w for rb in lines for w in rb.words])  # fmt: skip


def _parted_at_labels(rb: ReadBlock, params: AssembleParams) -> list[ReadBlock]:
    """A block that holds the end of one entry and the opening of the next (MuPDF's blocks of a
    bibliography run across entries: "... In ICCV, 2013. [51] I. Sutskever, G. Hinton ...")
    parted where a word that is a label ("[51]") opens a line at the block's left edge after an
    entry's end (a full stop, a year since the last label): each part its own block, boxed by
    its words."""
    words = rb.words
    if rb.kind not in _TEXT or len(words) < 2 or not all(w.bbox for w in words):
        return [rb]
    if " ".join(w.text for w in words) != rb.text:
        return [rb]
    left = min(w.bbox[0] for w in words)
    reach = params.reference_align_ratio * _size(rb, params)
    cuts = [
        k for k in range(1, len(words))
        if label_word(words[k].text) and words[k - 1].text.endswith(".")
        and abs(words[k].bbox[0] - left) <= reach
        and words[k].bbox[0] < words[k - 1].bbox[0]  # it opens a line
        and words[k].bbox[1] >= (words[k - 1].bbox[1] + words[k - 1].bbox[3]) / 2
    ]  # fmt: skip
    # What ends before each label is an entry's end: it holds a year (prose citing "[12]" at a
    # line's start after a sentence does not part).
    starts = [0, *cuts]
    cuts = [cut for cut, start in zip(cuts, starts, strict=False)
            if has_year(" ".join(w.text for w in words[start:cut]))]  # fmt: skip
    if not cuts:
        return [rb]
    parts = []
    for start, end in zip([0, *cuts], [*cuts, len(words)], strict=True):
        part = words[start:end]
        kind = rb.kind if start == 0 else "paragraph"
        marker = rb.marker if start == 0 else None
        parts.append(replace(rb, kind=kind, marker=marker, text=" ".join(w.text for w in part),
                             words=part, bbox=union(w.bbox for w in part)))  # fmt: skip
    return parts


def _is_bibliography(entries: list[list[ReadBlock]], *, params: AssembleParams) -> bool:
    """Two entries or more, and entries opened by a number or an author that mostly hold a
    year (a numbered list of steps holds none)."""
    if len(entries) < params.reference_min_entries:
        return False
    dated = [_opening(e[0]) == "label" or has_year(" ".join(rb.text for rb in e)) for e in entries]
    return sum(dated) >= params.reference_dated_share * len(entries)


def reference_entries(
    blocks: list[ReadBlock], *, params: AssembleParams = ASSEMBLE
) -> list[ReadBlock]:
    """A run of entries, each opened at one margin by a label ("[12]"), a number or an
    author-year opening and followed by its continuation lines, becomes list items, one per
    entry, so the page's list is one list ("[1] A. Martin ... Journal of Documents," and
    "2020." set in under it: one item, not an item and a paragraph)."""
    out: list[ReadBlock] = []
    entries: list[list[ReadBlock]] = []
    left = 0.0
    blocks = [part for rb in blocks for part in _parted_at_labels(rb, params)]

    def flush() -> None:
        if _is_bibliography(entries, params=params):
            out.extend(_entry(e) for e in entries)
        else:
            out.extend(rb for e in entries for rb in e)
        entries.clear()

    for rb in blocks:
        opening = _opening(rb) if rb.kind in _TEXT and rb.bbox else None
        aligned = not entries or (
            rb.bbox is not None
            and abs(rb.bbox[0] - left) <= params.reference_align_ratio * _size(rb, params)
        )
        if opening and aligned and rb.bbox:
            if not entries:
                left = rb.bbox[0]
            entries.append([rb])
            continue
        if entries and _continues(entries[-1], rb, left, params=params):
            entries[-1].append(rb)
            continue
        flush()
        if opening and rb.bbox:  # an entry at another margin: the next column's first
            left = rb.bbox[0]
            entries.append([rb])
            continue
        out.append(rb)
    flush()
    return out
