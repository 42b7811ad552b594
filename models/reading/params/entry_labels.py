"""Entry labels set in a column of their own (models.reading.entry_labels): a bibliography's
"[10]" to "[17]", a numbered list's "1." to "9.". Ratios are of the labels' own line height, so
the rule holds at any resolution."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EntryLabelParams:
    # A column holds this many labels or more: two numbers in a row happen by chance.
    min_labels: int = 3
    # The labels' left edges differ this much at most (one flush-left column; "[9]" and
    # "[10]" start together).
    align_ratio: float = 0.5


ENTRY_LABELS = EntryLabelParams()
