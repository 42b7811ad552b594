"""Blocks read from a page + the layout model's regions -> blocks with their true kinds.

One set of rules for every page with words in boxes (OCR or a text layer): a block is cut where
its words cross from one region into another; a title or section-header region makes a heading
only when its text is real words; page-header/page-footer regions are furniture; a table region
is rebuilt from word positions; a formula region that could not be transcribed is kept as an
image with a finding; pictures must be big enough and hold an image, not a speck.
"""

from __future__ import annotations

import statistics
import unicodedata
from dataclasses import replace
from itertools import pairwise

from models.engine import BBox, ReadBlock, Word
from models.layout import Region
from models.reading.boxes import area, inside_share, overlap, share_a_row
from models.reading.contents import CONTENTS_LAYOUT, contents_items, contents_table
from models.reading.doubts import labels_apart, picture_text_doubt
from models.reading.drop_caps import join_drop_caps
from models.reading.kinds import (
    CAPTION_LABEL,
    MATH_SIGNS,
    PROSE_WORD,
    WORD_EDGE,
    figure_text,
    is_figure,
    math_signs,
    prose_line,
    reads_as_prose,
    real_words,
    runs_on,
)
from models.reading.kv_tables import key_value_tables
from models.reading.markers import BULLET_GLYPH, LIST_MARKER, number_the_title, take_marker
from models.reading.page import PageImageAccess, ReadingPage
from models.reading.params.layout_regions import LAYOUT
from models.reading.params.reading_order import READING_ORDER
from models.reading.reading_order import reading_order
from models.reading.word_rows import is_data_row
from models.reading.word_tables import notes_top, table_from_words, table_of_figures

MATH_ALPHABETS = (0x1D400, 0x1D7FF)  # Unicode's Mathematical Alphanumeric Symbols
FORMULA_FINDING = {
    "code": "FORMULA_NOT_TRANSCRIBED",
    "level": "needs_review",
    "message": "A formula could not be transcribed; it is kept as an image for a person to check.",
}
PICTURE_TEXT_FINDING = picture_text_doubt()
_KIND = {
    "title": "heading",
    "section-header": "heading",
    "page-header": "page_header",
    "page-footer": "page_footer",
    "list-item": "list_item",
    "caption": "caption",
    "footnote": "footnote",
    "text": "paragraph",
}


def _math_captions(regions: list[Region], blocks: list[ReadBlock]) -> list[Region]:
    """A caption region whose text is mathematics (signs, no word of four letters, no label
    such as "Figure 3") with no picture or table over or under it is a display formula the
    model took for a caption ("2^3 = 1 + 3 + 3 + 1" under a drawing it did not box)."""
    labelled = [r.bbox for r in regions if r.kind in ("picture", "drawing", "table")] + [
        b.bbox for b in blocks if b.kind in ("figure", "table") and b.bbox
    ]
    out = []
    for region in regions:
        if region.kind == "caption":
            text = " ".join(w.text for b in blocks for w in _inside(region, b))
            x0, y0, x1, y1 = region.bbox
            reach = 2 * (y1 - y0)  # a caption stands right over or under what it labels
            labels = any(
                min(x1, b[2]) > max(x0, b[0]) and b[1] - reach < y1 and y0 < b[3] + reach
                for b in labelled
            )
            if (
                text
                and math_signs(text)
                and not PROSE_WORD.search(text)
                and not CAPTION_LABEL.match(text)
                and not labels
            ):
                region = Region("formula", region.bbox)
        out.append(region)
    return out


def _math_pictures(page: ReadingPage, regions: list[Region]) -> list[Region]:
    """On a page read from its text layer, a picture region with no image in it whose glyphs
    are mathematics (signs, no prose) is a display formula the model took for a picture: it
    was made an empty figure, its glyphs lost, asking for an alternative text."""
    if page.source != "text_layer":
        return regions
    images = [b.bbox for b in page.blocks if b.kind == "figure" and b.bbox]
    out = []
    for region in regions:
        if region.kind == "picture" and not any(overlap(region.bbox, box) for box in images):
            inside = [w for b in page.blocks if b.kind != "table" for w in _inside(region, b)]
            text = " ".join(w.text for w in inside)
            if inside and math_signs(text) and not _prose(inside):
                region = Region("formula", region.bbox)
        out.append(region)
    return out


def _math_letter(char: str) -> bool:
    """A letter of Unicode's mathematical alphabets (U+1D400-U+1D7FF: the italic letters of
    unicode-math's fonts and of Word's equations)."""
    return MATH_ALPHABETS[0] <= ord(char) <= MATH_ALPHABETS[1]


def _math_tables(page: ReadingPage, regions: list[Region]) -> list[Region]:
    """On a page read from its text layer, a table region whose letters are mostly the
    mathematical alphabets', which prints no word of four letters and more of its words with
    such letters than numbers, is a display formula the model took for a table (a matrix set
    across both columns): made a table, its cells were read out one by one, "𝜑 0 (𝜑1, 𝜀1)
    𝜑𝑘21". A table of values under the heads 𝑥 and 𝑓(𝑥) holds more numbers."""
    if page.source != "text_layer":
        return regions
    out = []
    for region in regions:
        if region.kind == "table":
            words = [w.text for b in page.blocks for w in _inside(region, b)]
            letters = [c for word in words for c in word if c.isalpha()]
            math = sum(map(_math_letter, letters))
            plain = "".join(c if not _math_letter(c) else " " for c in " ".join(words))
            symbolic = sum(any(map(_math_letter, word)) for word in words)
            numbers = sum(is_figure(word) for word in words)
            if (
                letters
                and math >= LAYOUT.math_table_letter_share * len(letters)
                and not PROSE_WORD.search(plain)
                and symbolic > numbers
            ):
                region = Region("formula", region.bbox)
        out.append(region)
    return out


def _region_of(box: BBox, regions: list[Region]) -> int | None:
    """The smallest region holding the centre of `box`."""
    best = None
    for i, region in enumerate(regions):
        if region.contains(box) and (best is None or region.area < regions[best].area):
            best = i
    return best


def _join(words: list[Word]) -> str:
    text = ""
    for word in words:
        if text.endswith("-") and len(text) > 1 and text[-2].isalpha() and word.text[:1].islower():
            text = text[:-1] + word.text
        else:
            text = f"{text} {word.text}" if text else word.text
    return text


def _bbox(words: list[Word]) -> BBox:
    boxes = [w.bbox for w in words if w.bbox]
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
            max(b[3] for b in boxes))  # fmt: skip


_TEXT_CLASSES = ("text", "list-item", "caption", "footnote")


def _without_nested_text(regions: list[Region]) -> list[Region]:
    """A text region lying inside a bigger text region (a line the model set apart within a
    block) belongs to that block: it is read with it, in its place."""
    kept = []
    for region in regions:
        nested = region.kind in _TEXT_CLASSES and any(
            other is not region
            and other.kind in _TEXT_CLASSES
            and other.area > region.area
            and inside_share(region.bbox, other.bbox) >= LAYOUT.nested_text_share
            for other in regions
        )
        if not nested:
            kept.append(region)
    return kept


def _split(
    block: ReadBlock, regions: list[Region], image: PageImageAccess
) -> list[tuple[ReadBlock, int | None]]:
    """The block cut where its words move into another region; each part with its region (and
    its own text size and stroke width, when the page's image can tell them from the words: a
    bold title cut from the text it was read with is bold alone)."""
    if not block.words or any(w.bbox is None for w in block.words):
        return [(block, _region_of(block.bbox, regions) if block.bbox else None)]
    owners = [_region_of(w.bbox, regions) for w in block.words]  # type: ignore[arg-type]
    runs: list[tuple[int | None, list[Word]]] = []
    for owner, word in zip(owners, block.words, strict=True):
        if runs and (owner == runs[-1][0] or owner is None):
            runs[-1][1].append(word)
        elif runs and runs[-1][0] is None:
            runs[-1] = (owner, runs[-1][1] + [word])
        else:
            runs.append((owner, [word]))
    if len(runs) == 1:
        return [(block, runs[0][0])]
    # Runs of one region are one part, at the place of the first: a block the engine read
    # across two columns line by line (A B A B) comes apart into its two columns (A, B).
    grouped: dict[int | None, list[Word]] = {}
    for owner, words in runs:
        key = owner if owner is not None else -len(grouped) - 1  # no region: a part of its own
        grouped.setdefault(key, []).extend(words)
    parts = []
    for k, (key, words) in enumerate(grouped.items()):
        owner = key if key is not None and key >= 0 else None
        size = image.text_size(words) or block.font_size
        strokes = [s for s in (image.stroke(w.bbox) for w in words) if s is not None]
        part = ReadBlock(kind="paragraph", text=_join(words), bbox=_bbox(words), words=words,
                         font_size=size, bold=block.bold, ink=block.ink,
                         stroke=statistics.median(strokes) if strokes else block.stroke,
                         lang=block.lang)  # fmt: skip
        if k == 0 and block.kind == "list_item" and block.bbox and part.bbox:
            # The item's marker (no word of it) opens its first part, at the item's margin.
            part.kind, part.marker, part.ordered = "list_item", block.marker, block.ordered
            part.marker_word = block.marker_word
            part.bbox = (min(block.bbox[0], part.bbox[0]), *part.bbox[1:])
        part.order = (*block.order, k)
        parts.append((part, owner))
    return parts


def _numbered(block: ReadBlock) -> bool:
    """A list item whose marker is a number: a numbered title read as an item ("1. fejezet")."""
    return block.kind == "list_item" and bool(block.ordered and block.marker)


def _labelled(block: ReadBlock, region: Region | None) -> ReadBlock:
    block.layout = region.kind if region else None
    if region is None or block.kind not in ("paragraph", "list_item"):
        return block
    kind = _KIND.get(region.kind)
    if kind == "heading" and (
        not real_words(block.words, block.text, boxed=True, numbered=_numbered(block))
        or reads_as_prose(block.text)
    ):
        kind = "paragraph"
    if kind == "heading" and BULLET_GLYPH.match(block.text):
        kind = "list_item"  # a bullet printed large or bold is a list item, not a section
    if kind == "heading" and block.kind == "list_item" and block.ordered and block.marker:
        number_the_title(block, full_confidence=LAYOUT.full_confidence)
    if kind == "list_item" and block.kind == "paragraph":
        marker = LIST_MARKER.match(block.text)
        if marker:
            take_marker(block, marker)
            block.ordered = block.marker[:1].isdigit() or block.marker[:1] == "("
        else:
            kind = "paragraph"  # an item without a marker reads as its own paragraph
    if kind == "paragraph" and block.kind == "list_item":
        kind = "list_item"  # a bullet the engine saw stays a list item
    if kind:
        block.kind = kind  # type: ignore[assignment]
    return block


def figure_worthy(bbox: BBox, page: ReadingPage, image: PageImageAccess) -> bool:
    """Big enough to be an illustration, and holding ink (not a blank box, not a full black
    bar): specks, rules and drop caps are not figures. Smaller than a share of the page's width
    (or half of it of its height), it is a speck, a rule or an initial, not an illustration."""
    width, height = page.width, page.height
    w, h = bbox[2] - bbox[0], bbox[3] - bbox[1]
    side = LAYOUT.figure_min_side_share
    if w < side * width or h < side * height / 2:
        return False
    if w * h < LAYOUT.figure_min_area_share * width * height:
        return False
    dark = image.ink(bbox)
    if not LAYOUT.figure_min_ink_share <= dark <= LAYOUT.figure_max_ink_share:
        return False
    inner = _off_page_edges(bbox, page)
    return inner is not None and image.ink(inner) >= LAYOUT.figure_min_ink_share


def _off_page_edges(bbox: BBox, page: ReadingPage) -> BBox | None:
    """The box without the band along each page border it reaches (LAYOUT.figure_page_edge_in
    at the page's DPI, at most figure_page_edge_max_share of that side): where a scan's dark
    edge lies. None when nothing is left."""
    band = LAYOUT.figure_page_edge_in * page.dpi
    across = min(band, LAYOUT.figure_page_edge_max_share * page.width)
    down = min(band, LAYOUT.figure_page_edge_max_share * page.height)
    x0, y0 = max(bbox[0], across), max(bbox[1], down)
    x1, y1 = min(bbox[2], page.width - across), min(bbox[3], page.height - down)
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def _order_before(bbox: BBox, blocks: list[ReadBlock]) -> tuple:
    """A place in the reading order for a region that holds no words: before the first block
    below its top in the same column, else at the end."""
    top = bbox[1] - LAYOUT.order_slack_px
    following = [
        b for b in blocks
        if b.bbox and b.bbox[1] >= top and b.bbox[0] < bbox[2] and b.bbox[2] > bbox[0]
    ]  # fmt: skip
    if not following:
        return (float("inf"),)
    first = min(following, key=lambda b: b.order)
    return (*first.order[:-1], first.order[-1] - 0.5)


def apply_layout(page: ReadingPage, image: PageImageAccess) -> ReadingPage:
    """The page's blocks re-cut and re-labelled by its layout regions, tables rebuilt from word
    positions, pictures and formulas as figures; the page's findings with those of this stage.
    Every block carries `.order` (a sortable tuple); the result is in that order."""
    blocks, width = page.blocks, page.width
    findings = list(page.findings)
    regions = _without_nested_text(page.regions)
    regions = _math_captions(_math_tables(page, _math_pictures(page, regions)), blocks)
    taken_regions = []
    for region in (r for r in regions if r.kind == "table"):
        grids = [b for b in blocks if b.kind == "table" and b.bbox and overlap(b.bbox, region.bbox)]
        share = inside_share(region.bbox, grids[0].bbox) if len(grids) == 1 else 0.0  # type: ignore[arg-type]
        if share >= LAYOUT.grid_table_share:
            taken_regions.append(region)  # the printed grid is the table: keep it
            continue
        for grid in grids:
            # Several grids (or one far off) in one table: rules the grid finder read apart.
            # The table is rebuilt from its words, which go back to the text for now.
            blocks = [b for b in blocks if b is not grid]
            if grid.words:
                text = ReadBlock(kind="paragraph", text=_join(grid.words), bbox=grid.bbox,
                                 words=list(grid.words))  # fmt: skip
                text.order = grid.order
                blocks.append(text)
    out: list[ReadBlock] = []
    owner: dict[int, int] = {}  # id(block) -> its region
    for block in blocks:
        if block.kind not in ("paragraph", "list_item"):
            out.append(block)
            continue
        for part, i in _split(block, regions, image):
            out.append(_labelled(part, regions[i] if i is not None else None))
            if i is not None:
                owner[id(part)] = i
    out = join_drop_caps(out)
    _read_in_order(out, regions, owner, width, image.column_rules())
    # A picture holding no words is placed before what follows it in its column: the figures
    # made of the others (a chart with its labels under a diagram) are placed by then.
    worded = {
        id(r) for r in regions
        if r.kind in _PICTURES and any(_inside(r, b) for b in out if b.kind != "table")
    }  # fmt: skip
    for region in sorted(regions, key=lambda r: r.kind in _PICTURES and id(r) not in worded):
        if region in taken_regions:
            continue
        if region.kind == "table":
            out = _table(region, out, image)
        elif region.kind in _PICTURES:
            out = _picture(region, out, page, image, findings)
    out = _with_key_value_tables(out)
    out = _with_tables_of_figures(out, drawn=image.glyphs_drawn())
    figures = [b for b in out if b.kind == "figure"]
    for figure in figures:
        if figure.bbox and not figure.alt and not figure_worthy(figure.bbox, page, image):
            out.remove(figure)
    out.sort(key=lambda b: b.order)
    return replace(page, blocks=out, findings=findings)


def _one_column(blocks: list[ReadBlock]) -> bool:
    """Every block overlaps the first horizontally: they stand in one column."""
    boxes = [b.bbox for b in blocks if b.bbox]
    return all(min(a[2], boxes[0][2]) > max(a[0], boxes[0][0]) for a in boxes)


def _holds_between(box: BBox, members: list[ReadBlock], blocks: list[ReadBlock]) -> bool:
    """Another block lies inside the region's box on rows none of its own blocks reach: the
    layout model took paragraphs and the tables or figures between them as one region (read
    as one, whatever lies inside it went before it all). A drop cap or a wrapped photo has
    the region's lines beside it."""
    return any(
        other.bbox is not None
        and all(other is not m for m in members)
        and other.kind not in ("page_header", "page_footer")
        and inside_share(other.bbox, box) >= READING_ORDER.nested_share
        and not any(m.bbox and share_a_row(m.bbox, other.bbox, 0.0) for m in members)
        for other in blocks
    )


def _read_in_order(
    blocks: list[ReadBlock], regions: list[Region], owner: dict[int, int], width: float,
    rules: list[BBox],
) -> None:  # fmt: skip
    """Blocks sorted in the reading order of their regions (the page's whitespace cut into
    bands and columns, see models.reading.reading_order); a region's blocks keep the engine's
    order among themselves, and a block outside every region is placed by its own box. Places
    are renumbered (0, 1, ...)."""
    units: dict[object, list[ReadBlock]] = {}
    boxes: dict[object, BBox] = {}
    members: dict[int, list[ReadBlock]] = {}
    for block in blocks:
        if id(block) in owner:
            members.setdefault(owner[id(block)], []).append(block)
    # A region whose blocks stand in different columns (a paragraph running from the foot of
    # one column to the head of the next, grouped as one), or that holds another block
    # between its own, is read block by block.
    split = {
        i for i, group in members.items()
        if not _one_column(group) or _holds_between(regions[i].bbox, group, blocks)
    }  # fmt: skip
    for block in sorted(blocks, key=lambda b: b.order):
        grouped = id(block) in owner and owner[id(block)] not in split
        key: object = ("region", owner[id(block)]) if grouped else ("block", id(block))
        units.setdefault(key, []).append(block)
        if key[0] == "region":  # type: ignore[index]
            boxes[key] = regions[owner[id(block)]].bbox
        elif block.bbox is not None:
            boxes[key] = block.bbox

    # Running headers and footers stand outside the columns (a footer may reach across the
    # gutter): first and last, and no part of the column finding.
    def furniture(key: object) -> str | None:
        kinds = {b.kind for b in units[key]}
        return kinds.pop() if len(kinds) == 1 and kinds <= {"page_header", "page_footer"} else None

    def picture(key: object) -> bool:
        if key[0] == "region":  # type: ignore[index]
            return regions[key[1]].kind in _PICTURES  # type: ignore[index]
        return all(b.kind == "figure" for b in units[key])

    placed = [key for key in units if key in boxes and not furniture(key)]
    # A rule inside a picture is part of it (a mast, a chart's axis), no column's edge.
    drawn = [boxes[key] for key in placed if picture(key)] + [
        r.bbox for r in regions if r.kind in _PICTURES
    ]
    ranked = reading_order(
        [boxes[key] for key in placed],
        min_gap=LAYOUT.column_gap_share * width,
        pictures=[i for i, key in enumerate(placed) if picture(key)],
        rules=[
            ((r[0] + r[2]) / 2, r[1], r[3])
            for r in rules
            if not any(
                inside_share(r, box) >= READING_ORDER.column_rule_picture_share for box in drawn
            )
        ],
    )
    sequence = (
        [key for key in units if furniture(key) == "page_header"]
        + [placed[i] for i in ranked]
        + [key for key in units if key not in boxes and not furniture(key)]
        + [key for key in units if furniture(key) == "page_footer"]
    )
    rank = 0
    for key in sequence:
        for block in units[key]:
            block.order = (rank,)
            rank += 1


def _inside(region: Region, block: ReadBlock) -> list[Word]:
    """The block's words inside `region`, a list item's marker among them."""
    words = [block.marker_word, *block.words] if block.marker_word else block.words
    return [w for w in words if w.bbox and region.contains(w.bbox, slack=2)]


def _take(region: Region, blocks: list[ReadBlock]) -> tuple[list[Word], list, list[ReadBlock]]:
    """The words of text blocks inside `region`, their blocks' orders, and the blocks left."""
    taken: list[Word] = []
    orders = []
    kept: list[ReadBlock] = []
    for block in blocks:
        inside = _inside(region, block) if block.kind not in ("table", "figure") else []
        if not inside:
            kept.append(block)
            continue
        taken.extend(inside)
        orders.append(block.order)
        if _keep_only(block, [w for w in block.words if w not in inside]):
            kept.append(block)
    return taken, orders, kept


def _keep_only(block: ReadBlock, rest: list[Word]) -> bool:
    """The block keeps only `rest` of its words, its text and box made of them; False when
    none is left (the block is gone)."""
    if not rest:
        return False
    block.words, block.text, block.bbox = rest, _join(rest), _bbox(rest)
    return True


def _table(region: Region, blocks: list[ReadBlock], image: PageImageAccess) -> list[ReadBlock]:
    ruled = image.ruled_tables(region.bbox)
    if len(ruled) > 1:  # the region took in several ruled tables, one under the other
        for bbox, rows in ruled:
            part = Region(kind=region.kind, bbox=bbox)
            table = ReadBlock(kind="table", bbox=bbox, rows=rows, text="")
            blocks = _table_block(part, blocks, image, table, _text_words(part, blocks))
        return blocks
    inside = _text_words(region, blocks)
    if ruled:
        table = ReadBlock(kind="table", bbox=region.bbox, rows=ruled[0][1], text="")
    else:
        # Notes at the region's foot are text after the table, not rows of it.
        foot = notes_top(inside)
        if foot is not None:
            region = Region(kind=region.kind, bbox=(*region.bbox[:3], foot))
            inside = _text_words(region, blocks)
        table = table_from_words(inside, region.bbox, rules=image.row_rules(region.bbox),
                                 drawn=image.glyphs_drawn())  # fmt: skip
        if table is not None and (_columns_of_prose(table) or _text_beside(table)):
            return blocks  # columns of running text set close: they stay text
    if table is None:
        return blocks  # no grid in the words: they stay text
    if contents_table([_texts(row) for row in table.rows or []]):
        return _contents(region, blocks, image, inside)
    if not ruled:
        head = _head_above(region, blocks)
        if head is not None:
            region, table, inside = _with_head(region, head, blocks, image, table, inside)
    return _table_block(region, blocks, image, table, inside)


def _contents(
    region: Region, blocks: list[ReadBlock], image: PageImageAccess, inside: list[Word]
) -> list[ReadBlock]:
    """A contents page the layout model boxed as a table: its entries, one list item each
    (models.reading.contents), in place of the text blocks' words inside `region`; the
    blocks as they were where the words make no entries."""
    items = contents_items(inside, font_size=image.text_size(inside))
    if not items:
        return blocks
    _, orders, kept = _take(region, blocks)
    if not orders:
        return blocks
    for k, item in enumerate(items):
        item.order, item.layout = (*min(orders), k), CONTENTS_LAYOUT  # no listing's line
    return kept + items


def _head_above(region: Region, blocks: list[ReadBlock]) -> ReadBlock | None:
    """The line of text right above a table region: starting within its width (give or take
    the line's height), overhanging it by at most LAYOUT.head_overhang_share of its width (a
    head wider than its column of figures), at most LAYOUT.head_above_gap_lines of its height
    above (the table's column heads, which the layout model may leave out, set a blank line
    above the figures and boxed as a section header: "Age Group   Proportion"); not a
    caption ("Table 3 ...")."""
    x0, top, x1, _ = region.bbox
    above = [b for b in blocks if b.kind in ("paragraph", "heading") and b.bbox and b.words
             and b.bbox[3] <= top and b.bbox[2] > x0 and b.bbox[0] < x1]  # fmt: skip
    if not above:
        return None
    line = max(above, key=lambda b: b.bbox[3])  # type: ignore[index]
    lx0, ly0, lx1, ly1 = line.bbox  # type: ignore[misc]
    height = statistics.median(w.bbox[3] - w.bbox[1] for w in line.words if w.bbox)  # type: ignore[index]
    if (
        ly1 - ly0 > LAYOUT.head_line_heights * height
        or top - ly1 > LAYOUT.head_above_gap_lines * height
        or not x0 - height <= lx0 <= x1
        or lx1 > x1 + LAYOUT.head_overhang_share * (x1 - x0)
        or CAPTION_LABEL.match(line.text)
    ):
        return None
    return line


def _with_head(
    region: Region, head: ReadBlock, blocks: list[ReadBlock], image: PageImageAccess,
    table: ReadBlock, inside: list[Word],
) -> tuple[Region, ReadBlock, list[Word]]:  # fmt: skip
    """The table region grown up over the line above it when that line is the table's column
    heads: the table's first row is data (a table with its heads needs none: the title over
    "Exemption | Description", "Appendix A | RoHS with Exemption", is none), and the table
    rebuilt with the line has the same columns and rows and one row more on top, text in two
    of its cells or more and no figure (a row of figures left out is no head)."""
    if not is_data_row(_texts(table.rows[0])):
        return region, table, inside
    x0, _, x1, bottom = region.bbox
    hx0, hy0, hx1, _ = head.bbox  # type: ignore[misc]
    grown = Region(kind=region.kind, bbox=(min(x0, hx0), hy0, max(x1, hx1), bottom))
    words = _text_words(grown, blocks)
    headed = table_from_words(words, grown.bbox, rules=image.row_rules(grown.bbox),
                              drawn=image.glyphs_drawn())  # fmt: skip
    if headed is None or len(headed.rows) != len(table.rows) + 1:
        return region, table, inside
    top, rest = headed.rows[0], headed.rows[1:]
    texts = [text for text in _texts(top) if text.strip()]
    if (
        _columns(top) != _columns(table.rows[0])
        or [_texts(row) for row in rest] != [_texts(row) for row in table.rows]
        or len(texts) < 2
        or any(any(ch.isdigit() for ch in text) for text in texts)
    ):  # fmt: skip
        return region, table, inside
    return grown, headed, words


def _columns_of_prose(table: ReadBlock) -> bool:
    """Columns of running text set close together (a newspaper's three columns a rule and a
    few points apart, which the layout model boxed as one table): `prose_columns_min_rows`
    rows or more, and in every column most of the filled cells lines of prose. A table's
    columns hold figures, names and phrases; a column of descriptions beside them leaves it
    a table."""
    rows = table.rows or []
    width = max((len(row) for row in rows), default=0)
    if len(rows) < LAYOUT.prose_columns_min_rows or width < 2:
        return False
    for c in range(width):
        filled = [row[c]["text"].split() for row in rows if c < len(row) and row[c]["text"].strip()]
        prose = sum(prose_line(words) for words in filled)
        if not filled or prose < LAYOUT.prose_columns_cell_share * len(filled):
            return False
    return True


def _text_beside(table: ReadBlock) -> bool:
    """A column of running text beside the table's entries (a paper's contents in its first
    column, which the layout model boxed as one table with the second column's text): its
    lines run on from the row above in LAYOUT.running_column_rows rows or more while another
    column starts an entry there. A table's cell wrapped over rows runs on where the other
    columns are empty (or run on too)."""
    grid = [_by_column(row) for row in table.rows or []]
    for c in {c for row in grid for c in row}:
        filled = sum(bool(row.get(c)) for row in grid)
        running = sum(
            runs_on(above.get(c, ""), row.get(c, ""))
            and any(_starts_entry(text) for d, text in row.items() if d != c)
            for above, row in pairwise(grid)
        )  # fmt: skip
        if running >= max(LAYOUT.running_column_rows, LAYOUT.running_column_share * filled):
            return True
    return False


def _by_column(row: list[dict]) -> dict[int, str]:
    """A row's filled cells by the grid column each starts in."""
    cells, column = {}, 0
    for cell in row:
        if cell["text"].strip():
            cells[column] = cell["text"].strip()
        column += cell.get("colspan") or 1
    return cells


def _starts_entry(text: str) -> bool:
    """A cell that starts an entry: a capital or a figure first ("3", "Title page")."""
    return text[:1].isupper() or text[:1].isdigit()


def _columns(row: list[dict]) -> int:
    return sum(cell["colspan"] for cell in row)


def _texts(row: list[dict]) -> list[str]:
    return [cell["text"] for cell in row]


def _text_words(region: Region, blocks: list[ReadBlock]) -> list[Word]:
    """The words of the text blocks (not tables or figures) inside `region`."""
    return [w for b in blocks if b.kind not in ("table", "figure") for w in _inside(region, b)]


def _table_block(
    region: Region,
    blocks: list[ReadBlock],
    image: PageImageAccess,
    table: ReadBlock,
    inside: list[Word],
) -> list[ReadBlock]:
    """`table` in the page's blocks in place of the text blocks' words inside `region`
    (`inside`)."""
    sizes = [b.font_size for b in blocks if b.font_size and _inside(region, b)]
    # The size of the table's text counts towards the document's body size.
    table.font_size = image.text_size(inside) or (statistics.median(sizes) if sizes else None)
    _, orders, kept = _take(region, blocks)
    if not orders:
        return blocks  # rules round no text
    table.order = min(orders)
    table.layout = "table"
    return kept + [table]


def _picture(
    region: Region,
    blocks: list[ReadBlock],
    page: ReadingPage,
    image: PageImageAccess,
    findings: list[dict],
) -> list[ReadBlock]:
    if any(
        b.kind == "figure" and b.bbox and overlap(b.bbox, region.bbox)
        and figure_worthy(b.bbox, page, image)
        for b in blocks
    ):  # fmt: skip
        return blocks  # the engine found this image already (a chart's markers are none)
    formula = region.kind == "formula"
    if not formula and not figure_worthy(region.bbox, page, image):
        return blocks
    inside = [w for b in blocks for w in (_inside(region, b) if b.kind != "table" else [])]
    text = " ".join(w.text for w in inside)
    # A "picture" full of readable text is text: keep it as such. A drawing's labels (a
    # chart's axes and legend, a structure's atoms) are its own unless they are prose.
    readable = len(inside) >= LAYOUT.readable_picture_words and (
        real_words(inside, text)
        or _ink_in_words(region, inside, image) >= LAYOUT.text_picture_ink_share
    )
    if not formula and readable and (region.kind != "drawing" or _prose(inside)):
        joined = any(labels_apart(_inside(region, b)) for b in blocks if b.kind != "table")
        if joined and PICTURE_TEXT_FINDING not in findings:
            findings.append(dict(PICTURE_TEXT_FINDING))  # one block joins labels apart
        if area(region.bbox) >= LAYOUT.page_picture_share * page.width * page.height:
            # The page taken for one picture: its blocks are text, their titles headings by
            # their size (a chart's legend, inside a picture of its own, stays no heading).
            for block in blocks:
                if block.layout == region.kind and _inside(region, block):
                    block.layout = "text"
        return blocks
    if formula and real_words(inside, text) and not any(c in MATH_SIGNS for c in text):
        # Words and no sign: text (a heading in small capitals the model boxed), told as text.
        for block in blocks:
            if block.layout == "formula" and _inside(region, block):
                block.layout = "text"
        return blocks
    tex = image.transcribe(region.bbox) if formula else None
    if formula and not tex and _passage(text):
        return blocks  # a question set around its few signs: words, kept as text
    order = _order_before(region.bbox, blocks)
    taken, orders, kept = _take(region, blocks)
    # A formula's glyphs are its TeX or its alternative text, no labels.
    figure = ReadBlock(kind="figure", bbox=region.bbox, words=[] if formula else figure_text(taken))
    if tex:
        figure = ReadBlock(kind="formula", latex=tex, text=tex, bbox=region.bbox)
    elif formula:
        # The lines that made the region (read as scraps, out of the text) or the words in it.
        figure.alt = formula_alt(region.read or text)
        if FORMULA_FINDING not in findings:
            findings.append(dict(FORMULA_FINDING))
    figure.order = min(orders) if orders else order
    figure.layout = region.kind
    return kept + [figure]


def _ink_in_words(region: Region, words: list[Word], image: PageImageAccess) -> float:
    """The share of the region's ink that lies in its words' boxes (a chart's axes and bars
    lie outside them)."""

    total = image.ink(region.bbox) * area(region.bbox)
    held = sum(image.ink(w.bbox) * area(w.bbox) for w in words if w.bbox)
    return held / total if total else 0.0


def formula_alt(text: str) -> str:
    """A formula not transcribed keeps the best text there is, its words as read, as its
    alternative: "see the image" was a dead end for a reader who cannot see it."""
    read = " ".join(text.split())
    return f"Formula, not transcribed; as read: {read}" if read else "Formula, not transcribed"


def _passage(text: str) -> bool:
    """Words of a language rather than mathematics: enough letters (with their combining
    marks, in any script), half the characters or more, and with the digits nearly all of
    them (a question and its numbered answers around a sign or two)."""
    chars = [c for c in text if not c.isspace()]
    letters = sum(unicodedata.category(c)[0] in "LM" for c in chars)
    digits = sum(c.isdigit() for c in chars)
    return (
        letters >= LAYOUT.formula_words_min_letters
        and letters >= LAYOUT.formula_words_letter_share * len(chars)
        and letters + digits >= LAYOUT.formula_words_alnum_share * len(chars)
    )


def _prose(words: list[Word]) -> bool:
    """Running text: many words of four letters or more, half the words or more."""
    long = sum(bool(PROSE_WORD.fullmatch(w.text.strip(WORD_EDGE))) for w in words)
    return long >= LAYOUT.prose_long_words and long >= 0.5 * len(words)


_PICTURES = ("picture", "drawing", "formula")


def _with_tables_of_figures(blocks: list[ReadBlock], *, drawn: bool) -> list[ReadBlock]:
    """A text block that is a table of figures no region showed (a booktabs table on a scan,
    which the layout model read as text and Tesseract as one paragraph of its rows) becomes
    that table (word_tables.table_of_figures), in its place. `drawn`: the words are a text
    layer's glyphs (PageImageAccess.glyphs_drawn)."""
    out = []
    for block in blocks:
        table = None
        words = block.words
        if block.kind == "paragraph" and block.bbox and words and all(w.bbox for w in words):
            table = table_of_figures(words, block.bbox, drawn=drawn)
        if table is None:
            out.append(block)
            continue
        table.order = block.order
        table.font_size = block.font_size
        table.layout = "table"
        out.append(table)
    return out


def _with_key_value_tables(blocks: list[ReadBlock]) -> list[ReadBlock]:
    """Key/value tables no ruling and no layout region showed (an infobox read as paragraphs
    "Reign 1 October 959", or as a column of labels beside a column of values): rebuilt from
    the words of the page's text blocks (models.reading.kv_tables.key_value_tables), in the place of
    the first block they took words from."""
    text = [b for b in blocks if b.kind in ("paragraph", "list_item") and b.words]
    text = [b for b in text if all(w.bbox for w in b.words)]
    ids = {id(b) for b in text}  # (ReadBlocks compare by value: by identity here)
    others = [
        b.bbox for b in blocks
        if id(b) not in ids and b.bbox and b.kind not in ("page_header", "page_footer")
    ]  # fmt: skip
    found = key_value_tables([b.words for b in text], others)
    for table, taken in found:
        touched = [b for b in text if any(id(w) in taken for w in b.words)]
        table.order = min(b.order for b in touched)
        sizes = [b.font_size for b in touched if b.font_size]
        table.font_size = statistics.median(sizes) if sizes else None
        for block in touched:
            if not _keep_only(block, [w for w in block.words if id(w) not in taken]):
                blocks = [b for b in blocks if b is not block]
        blocks.append(table)
    return blocks
