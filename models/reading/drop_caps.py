"""Drop caps: a paragraph's first letter set large over its first lines (a magazine's or a
book's initial). An engine reads it apart: the text layer as a block of its own, Tesseract as a
word of the second line (the initial's middle is there), or as a paragraph of its own under a
first line cut off beside it. Read so, the page says "R" and "oad repairs ..." where it prints
"Road repairs ...". The initial goes back to the front of the line beside its top.
"""

from __future__ import annotations

import re
import statistics

from models.engine import BBox, ReadBlock, Word
from models.reading.boxes import union
from models.reading.params.reading_order import READING_ORDER, ReadingOrderParams

_TEXT = ("paragraph", "heading", "list_item")
_WORD_LETTERS = ("A", "I")  # capitals that are English words of their own


def _height(box: BBox) -> float:
    return box[3] - box[1]


def _line_height(blocks: list[ReadBlock]) -> float | None:
    heights = [_height(w.bbox) for b in blocks for w in b.words if w.bbox and len(w.text) > 1]
    return statistics.median(heights) if heights else None


def _is_initial(word: Word, line: float, params: ReadingOrderParams) -> bool:
    text = word.text
    # A letter, or a sign the engine read from one it could not ("-" for a large "F").
    letter = text.isalpha() and text.isupper() or not text.isalnum() and text not in "|[]()"
    return (
        word.bbox is not None
        and len(text) == 1
        and letter
        and _height(word.bbox) >= params.drop_cap_lines * line
    )


def _beside_its_top(cap: BBox, blocks: list[ReadBlock], line: float, params):
    """(block, index) of the first word of the line beside the initial's top: starting just
    right of it, its middle within a line of the initial's top."""
    reach = params.drop_cap_reach_lines * line
    found = [
        (w.bbox[0], b, k)
        for b in blocks
        for k, w in enumerate(b.words)
        if w.bbox
        and cap[2] - reach <= w.bbox[0] <= cap[2] + reach
        and cap[1] <= (w.bbox[1] + w.bbox[3]) / 2 <= cap[1] + reach
        and _height(w.bbox) * params.drop_cap_lines <= _height(cap)
    ]
    if not found:
        return None
    _, block, k = min(found, key=lambda t: t[0])
    return block, k


def _after_text(cap: Word, blocks: list[ReadBlock], line: float, params) -> bool:
    """A word ends just left of the letter on its rows: it goes on a line ("Appendix A")."""
    box, reach = cap.bbox, params.drop_cap_reach_lines * line
    return any(
        w.bbox
        and box[0] - reach <= w.bbox[2] <= box[0]
        and min(w.bbox[3], box[3]) > max(w.bbox[1], box[1])
        for b in blocks
        for w in b.words
    )


def join_drop_caps(
    blocks: list[ReadBlock], params: ReadingOrderParams = READING_ORDER
) -> list[ReadBlock]:
    """The page's blocks with each drop cap joined to the paragraph it opens: the initial and
    the first word of the line beside its top make one word ("R" + "oad" is "Road"; "A" + a
    word the engine knows stays two); a paragraph the engine cut under that first line, the
    initial at its head, is joined back. Blocks change in place; emptied ones are dropped."""
    text = [b for b in blocks if b.kind in _TEXT and b.words]
    line = _line_height(text)
    if line is None:
        return blocks
    gone: set[int] = set()
    for holder in text:
        for cap in [w for w in holder.words if _is_initial(w, line, params)]:
            beside = _beside_its_top(cap.bbox, text, line, params)  # type: ignore[arg-type]
            if beside is None:
                continue
            host, k = beside
            if any(w is not cap for w in host.words[:k]) or _after_text(cap, text, line, params):
                continue  # the line beside is not a paragraph's start, or the letter is no initial
            _join(cap, holder, host)
            if not holder.words:
                gone.add(id(holder))
            elif holder is not host and holder.words and _under(holder, host, line, params):
                _append(host, holder)
                gone.add(id(holder))
            # Lines the engine cut off beside the initial, under the line beside its top, go
            # on with its paragraph (else they are read before it: the engine put them first).
            for other in text:
                if other is not host and id(other) not in gone and _beside(other, cap, host):
                    _append(host, other)
                    gone.add(id(other))
            # The line under the initial's foot, where the paragraph's lines lose their indent
            # (the engine starts a paragraph there), goes on with it mid-sentence.
            for other in text:
                if (
                    other is not host
                    and id(other) not in gone
                    and _runs_on_under(other, cap, host, line)
                ):
                    _append(host, other)
                    gone.add(id(other))
                    break
    return [b for b in blocks if id(b) not in gone]


def _join(cap: Word, holder: ReadBlock, host: ReadBlock) -> None:
    holder.words.remove(cap)
    # The letter out of the holder's text, where it stands alone.
    holder.text = re.sub(rf"(^|\s){re.escape(cap.text)}(\s|$)", " ", holder.text, count=1).strip()
    first = host.words[0]
    # An initial is a word's first letter ("R" + "OAD", "R" + "oad"), but for "A" and "I"
    # before a word the engine's dictionary knows ("A" + "new").
    glue = " " if cap.text in _WORD_LETTERS and first.known else ""
    letter = cap.text if cap.text.isalpha() else ""  # a misread initial is lost, not a sign
    host.words[0] = Word(text=f"{letter}{glue}{first.text}", bbox=union((cap.bbox, first.bbox)),
                         confidence=min(cap.confidence, first.confidence), lang=first.lang,
                         known=first.known)  # fmt: skip
    host.text = f"{letter}{glue}{host.text}"
    host.bbox = union((host.bbox, cap.bbox))


def _under(lower: ReadBlock, upper: ReadBlock, line: float, params: ReadingOrderParams) -> bool:
    """`lower` goes on under `upper` in one column: it starts within a line or two of its foot."""
    if lower.bbox is None or upper.bbox is None:
        return False
    gap = lower.bbox[1] - upper.bbox[3]
    return gap <= params.drop_cap_lines * line and min(lower.bbox[2], upper.bbox[2]) > max(
        lower.bbox[0], upper.bbox[0]
    )


def _beside(block: ReadBlock, cap: Word, host: ReadBlock) -> bool:
    """`block` starts beside the initial, below the top of `host` (the paragraph it opens), in
    its column: the paragraph's next lines, which the engine cut apart."""
    if block.bbox is None or host.bbox is None or cap.bbox is None or not block.words:
        return False
    box = block.bbox
    return (
        host.bbox[1] < box[1] < cap.bbox[3]
        and box[0] >= cap.bbox[0]
        and min(box[2], host.bbox[2]) > max(box[0], cap.bbox[2])
    )


def _runs_on_under(block: ReadBlock, cap: Word, host: ReadBlock, line: float) -> bool:
    """`block` starts within a line under the initial's foot, in its column, and `host` stops
    mid-sentence (no closing stop) or `block` opens in lower case."""
    if block.bbox is None or host.bbox is None or cap.bbox is None or not block.words:
        return False
    box = block.bbox
    mid_sentence = not re.search(r"[.!?:;\"”’)]$", host.text.strip()) or block.text[:1].islower()
    return (
        cap.bbox[3] - line <= box[1] <= cap.bbox[3] + line
        and abs(box[0] - cap.bbox[0]) <= line
        and min(box[2], host.bbox[2]) > max(box[0], host.bbox[0])
        and mid_sentence
    )


def _append(host: ReadBlock, rest: ReadBlock) -> None:
    # The joined paragraph takes the earlier place: the engine may have put the lines beside
    # the initial before the line that holds it.
    if rest.order and host.order:
        host.order = min(host.order, rest.order)
    host.words = host.words + rest.words
    host.text = f"{host.text} {rest.text}"
    host.bbox = union((host.bbox, rest.bbox))
