"""A born-digital page's vector drawings: those that are pictures (curves and slanted strokes,
not a form's or a table's rules) become "drawing" regions with their labels, and the rules
drawn in a formula (fraction bars, radicals' rules) go with its glyphs to math_text."""

from __future__ import annotations

from collections.abc import Callable

import pymupdf

from models.layout import Region
from models.reading.boxes import overlap
from models.reading.kinds import CAPTION_LABEL
from models.reading.math_text import Bar, Glyph, tex_from_glyphs
from models.reading.params.text_layer import TEXT_LAYER, TextLayerParams


def _glyphs(page: pymupdf.Page, clip: pymupdf.Rect) -> list[Glyph]:
    """The glyphs of the page inside clip, as math_text reads them."""
    glyphs = []
    for block in page.get_text("rawdict", clip=clip)["blocks"]:
        for line in block.get("lines", ()):
            for span in line["spans"]:
                for char in span["chars"]:
                    glyphs.append(Glyph(char["c"], span["size"], char["origin"][0],
                                        char["origin"][1], tuple(char["bbox"]),
                                        span["font"]))  # fmt: skip
    return glyphs


def with_drawings(
    page: pymupdf.Page,
    regions: list[Region],
    text_blocks: list[dict],
    *,
    scale: float,
    params: TextLayerParams = TEXT_LAYER,
) -> list[Region]:
    """The layout regions of a born-digital page with its vector drawings that are pictures
    (PyMuPDF's `cluster_drawings`) as "drawing" regions (in the regions' pixels). The model
    reads text boxes and a small image of the page: it missed diagrams drawn without any text
    (a text-book's cubes came out as nothing at all), and a picture region it found over a
    chart was kept as text for the labels in it (the axes' numbers and legend read as
    paragraphs). A drawing takes the place of the picture regions it overlaps (their union);
    none is made where the model saw a table or a formula. `apply_layout` makes figures of
    drawings as of pictures, the labels inside taken into the figure unless they are prose.
    `text_blocks`: the page's text blocks as `get_text("dict")` gives them."""
    drawings = page.get_drawings()
    if not drawings or len(drawings) > params.max_drawings:
        return regions
    kept = [r for r in regions if r.kind in ("table", "formula")]
    page_area = abs(page.rect)
    labels = [pymupdf.Rect(block["bbox"]) for block in text_blocks if _label(block, params)]
    replaced: list[Region] = []
    found: list[Region] = []
    for rect in page.cluster_drawings(drawings=drawings):
        if rect.width < params.picture_min_width_pt or rect.height < params.picture_min_height_pt:
            continue
        if abs(rect) > params.page_frame_share * page_area:
            continue  # a frame around the page
        strokes = slanted = 0
        inside = [d for d in drawings if rect.contains(d["rect"])]
        for drawing in inside:
            for item in drawing["items"]:
                strokes += 1
                slanted += _slanted(item, params)
        if strokes < params.picture_min_strokes or slanted < params.slanted_share * strokes:
            continue
        if all(_box_across(d, rect, params) for d in inside):
            continue  # a box round text (a remark's, a listing's rounded frame), no picture
        rect = _with_labels(rect, labels, params)
        box = (rect.x0 * scale, rect.y0 * scale, rect.x1 * scale, rect.y1 * scale)
        if any(overlap(box, region.bbox) for region in kept):
            continue
        pictures = [r for r in regions if r.kind == "picture" and overlap(box, r.bbox)]
        replaced += pictures
        boxes = [box] + [r.bbox for r in pictures]
        union = tuple(f(b[k] for b in boxes) for k, f in enumerate((min, min, max, max)))
        found.append(Region("drawing", union))  # type: ignore[arg-type]
    return [r for r in regions if r not in replaced] + found


def _label(block: dict, params: TextLayerParams) -> bool:
    """A text block that can be a drawing's label (a tick's number, an axis title, a legend's
    entry): two lines and six words at most, and no caption ("Fig. 2 ...")."""
    text = " ".join(span["text"] for line in block["lines"] for span in line["spans"])
    few = len(block["lines"]) <= params.label_max_lines
    return few and len(text.split()) <= params.label_max_words and not CAPTION_LABEL.match(text)


def _with_labels(
    rect: pymupdf.Rect, labels: list[pymupdf.Rect], params: TextLayerParams
) -> pymupdf.Rect:
    """A drawing with the labels set around it (each less than one and a half of its own height
    away from the drawing, or from a label already taken: a chart's axis title beyond its
    ticks' numbers)."""
    grown = pymupdf.Rect(rect)
    for _ in range(params.label_passes):
        before = pymupdf.Rect(grown)
        for label in labels:
            # A turned label's height is its width.
            reach = params.label_reach_ratio * min(label.width, label.height)
            if not grown.contains(label) and _gap(grown, label) < reach:
                grown |= label
        if grown == before:
            break
    return grown


def _gap(a: pymupdf.Rect, b: pymupdf.Rect) -> float:
    """The distance between two boxes (0 when they touch or overlap)."""
    dx = max(0.0, b.x0 - a.x1, a.x0 - b.x1)
    dy = max(0.0, b.y0 - a.y1, a.y0 - b.y1)
    return max(dx, dy)


def _slanted(item: tuple, params: TextLayerParams) -> bool:
    """A curve, a slanted line or a quad that is no upright rectangle."""
    if item[0] == "c":
        return True
    if item[0] == "l":
        a, b = item[1], item[2]
        return abs(a.x - b.x) > params.slant_min_pt and abs(a.y - b.y) > params.slant_min_pt
    return item[0] == "qu" and not item[1].is_rectangular


def _box_across(drawing: dict, cluster: pymupdf.Rect, params: TextLayerParams) -> bool:
    """A drawing that is a box, or a band of one, across the whole of `cluster` (its width or
    its height): level and upright edges, rounded at most at its corners (curves within
    `params.box_corner_pt` of one). A remark's frame and title bar drawn with rounded corners
    (a LaTeX tcolorbox: 4 of its 8 strokes are curves) is such; a chart's axes hold ticks and
    a plotted line, a logo or a diagram's shapes curve elsewhere."""
    rect = drawing["rect"]
    across = (rect.width >= params.box_across_share * cluster.width
              or rect.height >= params.box_across_share * cluster.height)  # fmt: skip
    return across and all(_box_edge(item, rect, params) for item in drawing["items"])


def _box_edge(item: tuple, rect: pymupdf.Rect, params: TextLayerParams) -> bool:
    """A box's edge: a rectangle, or a level or upright line, or a curve at one of the corners
    of the box's `rect` (all its points within `params.box_corner_pt` of that corner)."""
    if item[0] == "re" or (item[0] == "qu" and item[1].is_rectangular):
        return True
    if item[0] == "l":
        return not _slanted(item, params)
    if item[0] != "c":
        return False
    reach = params.box_corner_pt
    return any(
        all(abs(p.x - corner.x) <= reach and abs(p.y - corner.y) <= reach for p in item[1:])
        for corner in (rect.tl, rect.tr, rect.bl, rect.br)
    )


def _thin(rect: pymupdf.Rect, params: TextLayerParams) -> bool:
    """A filled box that is a rule: thinner than a point and a half, longer than two."""
    return rect.height < params.bar_max_thick_pt and rect.width > params.bar_min_length_pt


def _page_bars(page: pymupdf.Page, params: TextLayerParams) -> list[Bar]:
    """The page's horizontal rules (a stroked line, or a filled box thinner than a point and a
    half, as TeX draws fraction bars): x0, x1, y."""
    bars = []
    for drawing in page.get_drawings():
        for item in drawing["items"]:
            if item[0] == "l":
                a, b = item[1], item[2]
                if abs(a.y - b.y) < params.bar_level_pt:
                    bars.append((min(a.x, b.x), max(a.x, b.x), (a.y + b.y) / 2))
            elif item[0] == "re" and _thin(item[1], params):
                bars.append((item[1].x0, item[1].x1, (item[1].y0 + item[1].y1) / 2))
    return bars


def _bars_in(bars: list[Bar], clip: pymupdf.Rect, params: TextLayerParams) -> list[Bar]:
    """The rules drawn inside clip: most of their length (a browser draws a fraction bar a
    point or two past the glyphs the layout model boxes; a table's rule crossing the region
    is not one), and up to as far over or under it (a radical's rule on the box's top edge)."""
    reach, share = params.bar_reach_pt, params.bar_inside_share
    x0, y0, x1, y1 = clip.x0 - reach, clip.y0 - reach, clip.x1 + reach, clip.y1 + reach
    return [
        bar for bar in bars
        if y0 <= bar[2] <= y1 and min(bar[1], x1) - max(bar[0], x0) >= share * (bar[1] - bar[0])
    ]  # fmt: skip


def rules_in(
    page: pymupdf.Page, *, params: TextLayerParams = TEXT_LAYER
) -> Callable[[tuple], list[Bar]]:
    """A box in points -> the rules drawn in it (fraction bars, radicals' rules). The page's
    rules are walked once, and only if a box asks."""
    bars: list[Bar] | None = None

    def rules(box) -> list[Bar]:
        nonlocal bars
        if bars is None:
            bars = _page_bars(page, params)
        return _bars_in(bars, pymupdf.Rect(box), params)

    return rules


def formula_transcriber(
    page: pymupdf.Page,
    *,
    scale: float,
    rules: Callable[[tuple], list[Bar]] | None = None,
    params: TextLayerParams = TEXT_LAYER,
) -> Callable[[tuple], str | None]:
    """For `apply_layout`: a formula region's box (in pixels at `scale` per point) -> the TeX
    rebuilt from its glyphs and the rules drawn in it, or None. `rules`: the page's
    `rules_in`, when the caller has one already (the page's drawings are walked once)."""
    rules = rules or rules_in(page, params=params)

    def transcribe(box) -> str | None:
        clip = pymupdf.Rect(box) / scale
        return tex_from_glyphs(_glyphs(page, clip), rules(clip))

    return transcribe
