"""A text layer's words and lines as a reader needs them: each word's exponents and indices and
its own text size (from its glyphs), a block's words in order with exponents MuPDF put apart
joined to their word and words hyphenated at a line end mended, an OCR layer's lines joined
again into runs of text, and text a PDF draws twice read once."""

from __future__ import annotations

import statistics

import pymupdf

from models.engine import ReadBlock, Word
from models.reading.markers import BULLET
from models.reading.params.text_layer import TEXT_LAYER, TextLayerParams


def _line_glyphs(line: dict, params: TextLayerParams) -> list[tuple[dict, float, str | None]]:
    """Each character of a rawdict line with its size and its mark: "sup" (smaller and raised
    above the line's baseline), "sub" (smaller and lowered) or None."""
    chars = [(char, span["size"]) for span in line["spans"] for char in span["chars"]]
    sizes = [size for char, size in chars if not char["c"].isspace()]
    if not sizes:
        return [(char, size, None) for char, size in chars]
    body = max(set(sizes), key=sizes.count)
    base = statistics.median(c["origin"][1] for c, size in chars if size == body)
    out: list[tuple[dict, float, str | None]] = []
    for char, size in chars:
        shift = char["origin"][1] - base
        level = abs(shift) < params.script_shift_ratio * body
        if char["c"].isspace() or size > params.script_size_ratio * body or level:
            out.append((char, size, None))
        else:
            out.append((char, size, "sup" if shift < 0 else "sub"))
    return out


def word_styles(
    page: pymupdf.Page, words: list[tuple] | None = None, *, params: TextLayerParams = TEXT_LAYER
) -> tuple[dict[tuple[int, int, int], list], dict[tuple[int, int, int], float]]:
    """Per word (text block, line, word): its exponents and indices ("2t3" with a raised "3",
    from the glyphs' sizes and baselines) as [[start, end, "sup" | "sub"], ...], and its own
    text size in points (a heading's, not that of the paragraph MuPDF put it in). `words`: the
    page's `get_text("words", sort=False)` when the caller already has it."""
    scripts: dict[tuple[int, int, int], list] = {}
    sizes: dict[tuple[int, int, int], float] = {}
    # Words and glyphs come from two extractions whose lines need not be numbered alike: a
    # word's glyphs are those whose centres lie in its box (glyphs bucketed by height).
    buckets: dict[int, list[tuple[float, float, dict, float, str | None]]] = {}
    for block in page.get_text("rawdict", sort=False)["blocks"]:
        for line in block.get("lines", ()):
            for char, size, mark in _line_glyphs(line, params):
                if not char["c"].isspace():
                    cx = (char["bbox"][0] + char["bbox"][2]) / 2
                    cy = (char["bbox"][1] + char["bbox"][3]) / 2
                    band = int(cy // params.glyph_bucket_pt)
                    buckets.setdefault(band, []).append((cx, cy, char, size, mark))
    if words is None:
        words = page.get_text("words", sort=False)
    band, reach = params.glyph_bucket_pt, params.glyph_in_word_pt
    for x0, y0, x1, y1, text, k, i, n in words:
        inside = [
            (char, size, mark)
            for bucket in range(int(y0 // band), int(y1 // band) + 1)
            for cx, cy, char, size, mark in buckets.get(bucket, ())
            if x0 - reach <= cx <= x1 + reach and y0 - reach <= cy <= y1 + reach
        ]
        inside.sort(key=lambda item: item[0]["origin"][0])
        if "".join(c["c"] for c, _, _ in inside) != text:
            continue
        body = [size for _, size, m in inside if not m] or [size for _, size, _ in inside]
        sizes[(k, i, n)] = max(set(body), key=body.count)
        kinds = [m for _, _, m in inside]
        if not any(kinds):
            continue
        runs: list[list] = []
        for at, kind in enumerate(kinds):
            if kind and runs and runs[-1][1] == at and runs[-1][2] == kind:
                runs[-1][1] = at + 1
            elif kind:
                runs.append([at, at + 1, kind])
        scripts[(k, i, n)] = runs
    return scripts, sizes


_HYPHENS = ("-", "\xad", "¬")  # a hyphen, a soft hyphen, an old OCR's "not" sign


def drawn_twice(
    block: ReadBlock, other: ReadBlock, *, params: TextLayerParams = TEXT_LAYER
) -> bool:
    """The same line or more of text as `other`, in a box overlapping it (a stamp or running
    header a PDF draws twice, a little apart)."""
    if len(block.text) < params.drawn_twice_min_chars or block.text != other.text:
        return False
    if not block.bbox or not other.bbox:
        return False
    return abs(pymupdf.Rect(block.bbox) & pymupdf.Rect(other.bbox)) > 0


def join_text(text: str, line: str) -> str:
    """A line appended to a text: after a space, or mending a word hyphenated at its end."""
    if text.endswith(_HYPHENS) and line[:1].islower():
        return text[:-1] + line
    return f"{text} {line}"


def _shifted(script: list | None, by: int) -> list:
    return [[start + by, end + by, kind] for start, end, kind in script or ()]


def _attach(prev: Word, word: Word, *, join: str = "") -> None:
    """`word` appended to `prev` (its exponents moved along)."""
    by = len(prev.text) + len(join) - (1 if join in _HYPHENS else 0)
    head = prev.text[:-1] if join in _HYPHENS else prev.text + join
    prev.script = (prev.script or []) + _shifted(word.script, by) or None
    prev.text = head + word.text


def block_words(
    entries: list[tuple[tuple[int, int], Word]], *, params: TextLayerParams = TEXT_LAYER
) -> list[Word]:
    """A block's words in order, each a word of the text: an exponent MuPDF put apart (a
    raised "2" after "3t", its own word or even its own line) joins the word it is set
    against, and a word hyphenated at a line end is mended, so the block's text is its words
    joined by spaces (and its spans keep exponents and languages)."""
    out: list[Word] = []
    last_line = None
    for line, word in entries:
        prev = out[-1] if out else None
        whole = word.script and word.script[0][:2] == [0, len(word.text)]
        if prev and whole and prev.bbox and word.bbox:
            height = prev.bbox[3] - prev.bbox[1]
            gap = word.bbox[0] - prev.bbox[2]
            low, high = params.script_gap_low_ratio, params.script_gap_high_ratio
            touching = low * height <= gap <= high * height
            if touching and word.bbox[1] < prev.bbox[3] and word.bbox[3] > prev.bbox[1]:
                _attach(prev, word)
                continue
        if whole:
            word.script = None  # a marker set small on its own: plain text
        if (
            prev and line != last_line and prev.text.endswith(_HYPHENS)
            and len(prev.text) > params.hyphenated_over_chars
            and prev.text[-2].isalpha() and word.text[:1].islower()
        ):  # fmt: skip
            _attach(prev, word, join=prev.text[-1])
        else:
            out.append(word)
        last_line = line
    return out


def _follows(last: ReadBlock, block: ReadBlock, params: TextLayerParams) -> bool:
    """`block` is the next line of `last`'s column: at its size, close under it, across most of
    the narrower one's width."""
    size = last.font_size
    gap = block.bbox[1] - last.bbox[3]
    across = min(last.bbox[2], block.bbox[2]) - max(last.bbox[0], block.bbox[0])
    narrower = min(last.bbox[2] - last.bbox[0], block.bbox[2] - block.bbox[0])
    return (
        abs(size - block.font_size) <= params.joined_size_ratio * size
        and 0 <= gap + params.joined_gap_low_ratio * size <= params.joined_gap_high_ratio * size
        and across >= params.joined_overlap_share * narrower
    )


def joined_lines(
    blocks: list[ReadBlock], *, params: TextLayerParams = TEXT_LAYER
) -> list[ReadBlock]:
    """An OCR layer is written line by line (MuPDF makes each line a block): lines of one
    column that follow closely, at one size, join again; the layout regions then cut the run
    into its paragraphs and headings (models.reading.layout_regions)."""
    out: list[ReadBlock] = []
    for block in blocks:
        last = out[-1] if out else None
        bullet = BULLET.match(block.text) if block.kind == "paragraph" else None
        if bullet:  # a printed bullet (read as "¢", "©", "e") starts a list item, as in OCR
            block.kind = "list_item"
            block.marker = bullet.group(0).strip()
            block.text = block.text[bullet.end() :]
            block.words = block.words[1:] if len(block.words) > 1 else block.words
        elif (
            last is not None and last.kind in ("paragraph", "list_item")
            and block.kind == "paragraph"
            and last.bbox and block.bbox and last.font_size and block.font_size
            and _follows(last, block, params)
        ):  # fmt: skip
            last.text = join_text(last.text, block.text)
            if (
                last.words
                and block.words
                and last.text != " ".join(w.text for w in last.words + block.words)
            ):
                mended = last.words[-1]  # hyphenated across the two lines
                _attach(mended, block.words[0], join=mended.text[-1])
                last.words = last.words + block.words[1:]
            else:
                last.words = last.words + block.words
            last.bbox = (min(last.bbox[0], block.bbox[0]), last.bbox[1],
                         max(last.bbox[2], block.bbox[2]), block.bbox[3])  # fmt: skip
            last.bold = last.bold and block.bold
            continue
        out.append(block)
    return out
