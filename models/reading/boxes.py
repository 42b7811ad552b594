"""Boxes on a page, (x0, y0, x1, y1) in the page's units: the measures every reading stage
takes of them, in one place."""

from __future__ import annotations

from collections.abc import Iterable

from models.engine import BBox


def area(bbox: BBox) -> float:
    return max(0.0, bbox[2] - bbox[0]) * max(0.0, bbox[3] - bbox[1])


def overlap(a: BBox, b: BBox) -> bool:
    """The two boxes share some area."""
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def rows_meet(a: BBox, b: BBox) -> bool:
    """The two boxes share some rows (their vertical extents overlap)."""
    return min(a[3], b[3]) > max(a[1], b[1])


def inside_share(inner: BBox, outer: BBox) -> float:
    """Share of `inner`'s area that lies inside `outer` (0 for a box without area)."""
    w = max(0.0, min(inner[2], outer[2]) - max(inner[0], outer[0]))
    h = max(0.0, min(inner[3], outer[3]) - max(inner[1], outer[1]))
    return w * h / (area(inner) or 1.0)


def centre_in(box: BBox, outer: BBox) -> bool:
    """Whether `box`'s centre lies in `outer` (edges included): the box is `outer`'s."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return outer[0] <= cx <= outer[2] and outer[1] <= cy <= outer[3]


def share_a_row(a: BBox, b: BBox, share: float) -> bool:
    """On one row: `share` of the lower box's height or more in common."""
    common = min(a[3], b[3]) - max(a[1], b[1])
    return common >= share * min(a[3] - a[1], b[3] - b[1])


def share_a_column(a: BBox, b: BBox, share: float) -> bool:
    """In one column: `share` of the narrower box's width or more in common."""
    common = min(a[2], b[2]) - max(a[0], b[0])
    return common >= share * min(a[2] - a[0], b[2] - b[0])


def union(boxes: Iterable[BBox | None]) -> BBox | None:
    """The smallest box holding every box given (None where none is)."""
    given = [b for b in boxes if b is not None]
    if not given:
        return None
    return (min(b[0] for b in given), min(b[1] for b in given),
            max(b[2] for b in given), max(b[3] for b in given))  # fmt: skip
