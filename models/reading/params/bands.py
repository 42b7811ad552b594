"""A dense page read as two bands at once (models.reading.bands)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BandParams:
    work_line_heights: float = 1000  # a page of this much text (in line heights) is read in bands
    least_share: float = 0.35  # each band holds this share of the work or more
    edge_parts: int = 4  # a speck wholly in the top or bottom 1/edge_parts of a line is no word


BANDS = BandParams()
