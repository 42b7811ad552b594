"""Reading order of a page's regions (models.reading.reading_order)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReadingOrderParams:
    spanning_share: float = 0.6  # a region this share of the content width spans the columns


READING_ORDER = ReadingOrderParams()
