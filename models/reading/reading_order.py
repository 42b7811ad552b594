"""Reading order of a page's regions from their boxes: full-width regions (a title, a wide
figure or table, a footer) cut the page into bands; inside a band the regions are read column
by column (columns are separated by vertical gaps no region crosses), each column top down. A
band that holds no columns side by side because lines centred across the gutter stand above
(or below) its columns is read strip by strip from that end: each such strip for itself, the
rest again as a band.

Why not the engine's order: Tesseract sometimes reads two columns line by line, and the layout
model's own sorter reads rows across columns; a band-and-column order is what a reader does.
"""

from __future__ import annotations

from models.engine import BBox
from models.reading.params.reading_order import READING_ORDER, ReadingOrderParams


def _split(
    boxes: list[tuple[int, BBox]], axis: int, min_gap: float
) -> list[list[tuple[int, BBox]]]:
    """Boxes split at gaps (at least min_gap wide) no box crosses: along x (axis 0) into
    columns left to right, along y (axis 1) into strips top down."""
    groups: list[list[tuple[int, BBox]]] = []
    end = float("-inf")
    for item in sorted(boxes, key=lambda item: item[1][axis]):
        if groups and item[1][axis] < end + min_gap:
            groups[-1].append(item)
            end = max(end, item[1][axis + 2])
        else:
            groups.append([item])
            end = item[1][axis + 2]
    return groups


def _columns(boxes: list[tuple[int, BBox]], min_gap: float) -> list[list[tuple[int, BBox]]]:
    return _split(boxes, 0, min_gap)


def _strips(boxes: list[tuple[int, BBox]]) -> list[list[tuple[int, BBox]]]:
    return _split(boxes, 1, 0.0)


def _one_row(boxes: list[tuple[int, BBox]]) -> bool:
    return max(b[1] for _, b in boxes) < min(b[3] for _, b in boxes)


def _side_by_side(columns: list[list[tuple[int, BBox]]]) -> bool:
    """Columns are real when boxes of two of them share some height (text side by side); a
    centred title above a left-aligned heading is not two columns."""
    for a, b in zip(columns, columns[1:], strict=False):
        if any(min(x[3], y[3]) > max(x[1], y[1]) for _, x in a for _, y in b):
            return True
    return False


def reading_order(
    boxes: list[BBox], *, min_gap: float, params: ReadingOrderParams = READING_ORDER
) -> list[int]:
    """Indices of `boxes` in reading order. `min_gap`: the narrowest gutter between columns; a
    region `params.spanning_share` of the content width or more (or crossing a gutter) spans
    the columns."""
    if len(boxes) < 2:
        return list(range(len(boxes)))
    left = min(b[0] for b in boxes)
    right = max(b[2] for b in boxes)
    width = max(right - left, 1.0)
    items = list(enumerate(boxes))
    narrow = [it for it in items if it[1][2] - it[1][0] < params.spanning_share * width]
    # Gutters: vertical gaps between the narrow regions (those of one column).
    columns = _columns(narrow, min_gap)
    gutters = [
        (max(b[2] for _, b in a), min(b[0] for _, b in c))
        for a, c in zip(columns, columns[1:], strict=False)
    ]

    def spans(box: BBox) -> bool:
        if box[2] - box[0] >= params.spanning_share * width:
            return True
        return any(box[0] < g0 - min_gap and box[2] > g1 + min_gap for g0, g1 in gutters)

    order: list[int] = []
    band: list[tuple[int, BBox]] = []

    def read(part: list[tuple[int, BBox]]) -> None:
        columns = _columns(part, min_gap)
        if not _side_by_side(columns):
            strips = _strips(part)
            # Lines centred across the gutter (a paper's authors) above or below two columns:
            # a strip of one row, or of no columns, is read for itself and the rest again.
            for end in (0, -1) if len(strips) > 1 else ():
                strip = strips[end]
                if _one_row(strip) or not _side_by_side(_columns(strip, min_gap)):
                    rest = [item for other in strips if other is not strip for item in other]
                    for piece in (strip, rest) if end == 0 else (rest, strip):
                        read(piece)
                    return
            columns = [part]  # boxes that merely sit left or right, one above the other
        for column in columns:
            order.extend(i for i, _ in sorted(column, key=lambda item: item[1][1]))

    def flush() -> None:
        read(band)
        band.clear()

    for i, box in sorted(items, key=lambda item: item[1][1]):
        if spans(box):
            flush()
            order.append(i)
        else:
            band.append((i, box))
    flush()
    return order
