"""The thresholds of page reading, one module per stage, each a frozen dataclass of named fields.

Each field says its unit in its name or comment and, in one line, what it is for. Units:
- `_pt`: PDF points (1/72 inch), text-layer pages;
- `_px`: pixels of the page image at REFERENCE_DPI, scaled to the page's DPI with `at_dpi`;
- `_share` / `_ratio`: a fraction (of a box, of the body text size, ...), unitless;
- counts and percents say so.

A stage takes its parameters as an argument defaulting to the module's instance, so a rule can be
run alone with other values (tests, benches). Literals outside this package are counted by
bench/reading_literals.py (at most 20 in models/reading, each with its reason in a comment).
"""

from __future__ import annotations

REFERENCE_DPI = 300  # the resolution the pixel thresholds were measured at


def at_dpi(px_at_reference: float, dpi: float) -> float:
    """A pixel threshold measured at REFERENCE_DPI, for a page image of `dpi`."""
    return px_at_reference * dpi / REFERENCE_DPI
