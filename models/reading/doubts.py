"""Doubts about a finished page: independent readings compared, and shapes a wrong reading
leaves. Each rule returns findings of level needs_review whose message says what a reviewer
should look at; none changes the page (issue 31: know when a page is wrong).

- reading order: ours (bands and columns) against the engine's own (Tesseract's reading, or the
  text layer's stream), measured on the words both readings share;
- a big initial (drop cap) read as a paragraph of its own;
- a picture's text kept as running text whose labels stand apart on a line (a diagram's).
"""

from __future__ import annotations

import statistics
from dataclasses import replace

from models.engine import ReadBlock, Word
from models.reading.boxes import rows_meet
from models.reading.page import ReadingPage
from models.reading.params.doubts import DOUBTS, DoubtParams

# The running text whose order a reader follows: floats (tables, figures and the words in them,
# captions, notes in small print) and furniture are placed by other rules, and a text layer's
# stream often draws them last, so they would make two right orders disagree.
_TEXT_KINDS = ("paragraph", "list_item")


def _finding(code: str, message: str) -> dict:
    return {"code": code, "level": "needs_review", "message": message}


def engine_ranks(blocks: list[ReadBlock]) -> dict[int, int]:
    """Each word's place in the engine's own order (its blocks' `order` before the layout
    reorders them), by the word's identity: the words travel into whatever blocks the later
    steps cut or join."""
    ranks: dict[int, int] = {}
    for block in sorted(blocks, key=lambda b: b.order):
        for word in block.words:
            ranks.setdefault(id(word), len(ranks))
    return ranks


def _running_text(blocks: list[ReadBlock], params: DoubtParams) -> list[ReadBlock]:
    """The blocks of running text: paragraphs of some words set at the body's text size."""
    text = [
        b for b in blocks if b.kind in _TEXT_KINDS and len(b.words) >= params.order_block_min_words
    ]
    sized = [b.font_size for b in text for _ in b.words if b.font_size]
    if not sized:
        return text
    body = statistics.median(sized)
    ratio = params.order_body_size_ratio
    return [b for b in text if not b.font_size or body / ratio <= b.font_size <= body * ratio]


def _side_by_side(a: ReadBlock, b: ReadBlock) -> bool:
    """The two blocks share no width: they stand in different columns. Only there is an
    order chosen (within a column both readings go top down, but where a text layer's stream
    draws a float, a note or a chart's labels is no sign of a wrong order)."""
    return bool(a.bbox and b.bbox) and (a.bbox[2] <= b.bbox[0] or b.bbox[2] <= a.bbox[0])  # type: ignore[index]


def order_discord(
    blocks: list[ReadBlock], ranks: dict[int, int], *, params: DoubtParams = DOUBTS
) -> tuple[float, int, int]:
    """(share, blocks, words): of the pairs of running-text blocks that stand in different
    columns, weighted by their words, the share that the engine's order reads the other way
    round than `blocks`' order (0: the same order); a block's place in the engine's order is
    the median of its words' ranks."""
    keyed = []
    for block in _running_text(blocks, params):
        known = [ranks[id(w)] for w in block.words if id(w) in ranks]
        if known:
            keyed.append((block, statistics.median(known), len(known)))
    total = swapped = 0.0
    for i, (block_a, key_a, weight_a) in enumerate(keyed):
        for block_b, key_b, weight_b in keyed[i + 1 :]:
            if not _side_by_side(block_a, block_b):
                continue
            total += weight_a * weight_b
            if key_b < key_a:
                swapped += weight_a * weight_b
    return (swapped / total if total else 0.0), len(keyed), sum(w for _, _, w in keyed)


def order_doubt(
    page: ReadingPage, ranks: dict[int, int], *, params: DoubtParams = DOUBTS
) -> list[dict]:
    """The page's reading order is doubtful when the engine's own order reads many of its
    text blocks the other way round."""
    share, blocks, words = order_discord(page.blocks, ranks, params=params)
    if blocks < params.order_min_blocks or words < params.order_min_words:
        return []
    if share <= params.order_max_discord_share:
        return []
    second = "the text layer's own order" if page.source == "text_layer" else "Tesseract's order"
    return [
        _finding(
            "ORDER_UNCERTAIN",
            "The reading order of this page is uncertain: two methods disagree (our order and "
            f"{second} read {share:.0%} of the text side by side the other way round). Check "
            "that its columns and sidebars are read in the right order.",
        )
    ]


def _text_beside(letter: ReadBlock, blocks: list[ReadBlock], params: DoubtParams) -> bool:
    """Text starts on the letter's rows just right of it, as a paragraph runs on from its
    initial; a logo read as a letter, an index's section letter stand with nothing beside."""
    box = letter.bbox
    if box is None:
        return True
    reach = params.drop_cap_reach_heights * (box[3] - box[1])
    return any(
        other is not letter and other.bbox is not None and other.kind != "figure"
        and rows_meet(other.bbox, box)
        and box[2] - reach / 2 <= other.bbox[0] <= box[2] + reach
        for other in blocks
    )  # fmt: skip


def drop_cap_doubt(page: ReadingPage, *, params: DoubtParams = DOUBTS) -> list[dict]:
    """A paragraph of one letter set much larger than the page's text, with text beside it: a
    big initial split from the paragraph it begins."""
    sizes = [b.font_size for b in page.blocks if b.kind == "paragraph" and len(b.text) > 1]
    sizes = [size for size in sizes if size]
    if not sizes:
        return []
    body = statistics.median(sizes)
    out = []
    for block in page.blocks:
        letter = block.text.strip()
        big = (block.font_size or 0) >= params.drop_cap_size_ratio * body
        lone = block.kind in ("paragraph", "heading") and len(letter) == 1 and letter.isalpha()
        if lone and big and _text_beside(block, page.blocks, params):
            out.append(
                _finding(
                    "DROP_CAP_SPLIT",
                    f'A big initial letter "{letter}" stands alone on this page: it is '
                    "probably the first letter of the paragraph beside it. Join it to "
                    "that paragraph's first word.",
                )
            )
    return out


def labels_apart(words: list[Word], *, params: DoubtParams = DOUBTS) -> bool:
    """Words read as one line that stand far apart on it (a gap of several text heights): the
    labels of a diagram's boxes, not a line of prose, so the order they were joined in is a
    guess."""
    for a, b in zip(words, words[1:], strict=False):
        if not (a.bbox and b.bbox):
            continue
        height = max(a.bbox[3] - a.bbox[1], b.bbox[3] - b.bbox[1])
        shift = abs((a.bbox[1] + a.bbox[3]) - (b.bbox[1] + b.bbox[3])) / 2
        same_line = shift <= params.label_line_shift_heights * height
        if same_line and b.bbox[0] - a.bbox[2] > params.label_gap_heights * height:
            return True
    return False


def picture_text_doubt() -> dict:
    """A picture's text kept as running text, one block of it joining labels that stand apart
    (labels_apart); a chart whose labels stay blocks of their own is read label by label."""
    return _finding(
        "ORDER_UNCERTAIN",
        "Text inside a picture on this page (labels standing apart, as in a diagram) was "
        "kept as running text in an order that is a guess. Check the order of its labels, "
        "and whether the picture needs a description instead.",
    )


def with_doubts(
    page: ReadingPage, ranks: dict[int, int], *, params: DoubtParams = DOUBTS
) -> ReadingPage:
    """The page with the findings of every page-level doubt."""
    doubts = order_doubt(page, ranks, params=params) + drop_cap_doubt(page, params=params)
    return replace(page, findings=page.findings + doubts) if doubts else page
