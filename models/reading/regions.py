"""Layout regions the model misses on a scan, found from what the engine read: display formulas
where dropped lines look like mathematics, tables under a reversed header row of column heads."""

from __future__ import annotations

import re
import statistics

from models.layout import Region
from models.reading.boxes import inside_share, union
from models.reading.kinds import MATH_SIGNS, math_signs
from models.reading.params.regions import REGIONS, RegionParams
from models.reading.scan_lines import Line


def _math_like(line: Line) -> bool:
    """What Tesseract makes of a formula it cannot read: signs, brackets and scraps
    ("z(n+1)°— 5(nt1)-*", "38n(n +1 ="), few dictionary words; a list of numbers has none."""
    # Words of three letters or more (Tesseract's dictionary takes "(n+" for "n").
    letters = REGIONS.math_word_letters
    longer = [w for w in line.words if len(re.sub(r"[\W\d_]", "", w.text)) >= letters]
    known = sum(bool(w.known) for w in longer) / max(len(longer), 1)
    return math_signs(line.text) and known < 0.5


def _math_scrap(line: Line) -> bool:
    """A few signs kept as a line of their own ("k=1": a sum's limit), part of the display
    they stand in."""
    chars = [c for c in line.text if not c.isspace()]
    return len(chars) <= REGIONS.math_scrap_chars and any(c in MATH_SIGNS for c in chars)


def formula_regions(
    lines: list[Line], *, kept: set[int], params: RegionParams = REGIONS
) -> list[Region]:
    """Formula regions where dropped lines look like mathematics and stand as a display: one
    or more such lines, stacked (less than `params.display_gap_lines` lines' height apart),
    narrower than the text around them (at most `params.formula_width_share` of it) and about
    centred on it (handwriting and
    smudged text run from the margin). The region takes the scraps kept among its rows (a
    lone "k=1"). lines: the page's lines as read; kept: the ids of those left in its text."""
    seeds = {id(line) for line in lines if id(line) not in kept and _math_like(line)}
    text = [line for line in lines if id(line) in kept and line.bbox]
    if not seeds or not text:
        return []
    maths = sorted(
        (line for line in lines if id(line) in seeds or id(line) in kept and _math_scrap(line)),
        key=lambda line: line.bbox[1],
    )
    left = min(line.bbox[0] for line in text)
    right = max(line.bbox[2] for line in text)
    height = statistics.median(line.height for line in lines)
    groups: list[list[Line]] = []  # the rows of one display each
    for line in maths:
        # The rows of a display (a fraction's numerator, a sum's limits, a derivation's
        # lines) stand further apart than lines of text.
        bottom = max(row.bbox[3] for row in groups[-1]) if groups else None
        if bottom is not None and line.bbox[1] - bottom < params.display_gap_lines * height:
            groups[-1].append(line)
        else:
            groups.append([line])
    out = []
    for rows in groups:
        x0, y0, x1, y1 = (float(v) for v in union(row.bbox for row in rows))
        off_centre = abs((x0 + x1) / 2 - (left + right) / 2)
        centred = off_centre <= params.formula_centre_share * (right - left)
        has_seed = any(id(row) in seeds for row in rows)
        if has_seed and x1 - x0 <= params.formula_width_share * (right - left) and centred:
            out.append(Region("formula", (x0, y0, x1, y1), read=" ".join(r.text for r in rows)))
    return out


def header_tables(heads, regions: list[Region], *, params: RegionParams = REGIONS) -> list[Region]:
    """A table region for each reversed header row of column heads (two phrases or more, set
    two line heights apart) that no table region holds, over the text regions right under it
    and within its width (lots_of_sci_tables p2: the layout model gave Appendix A's rows as
    text). A banner of one phrase (a reversed heading) makes none."""
    out = []
    for bar, lines in heads:
        x0, y0, x1, y1 = bar
        words = [line.words for para in lines for line in para if line.words]
        if not words:
            continue  # its words went to the ruled grid around it: that grid is the table
        height = statistics.median(w.bbox[3] - w.bbox[1] for line in words for w in line)
        apart = any(
            b.bbox[0] - a.bbox[2] >= 2 * height
            for line in words
            for a, b in zip(line, line[1:], strict=False)
        )
        if not apart or any(r.kind == "table" and inside_share(bar, r.bbox) > 0 for r in regions):
            continue
        bottom, slack = y1, params.header_slack_share * (x1 - x0)
        for region in sorted(regions, key=lambda r: r.bbox[1]):
            rx0, ry0, rx1, ry1 = region.bbox
            if region.kind == "text" and ry0 >= y0 and rx0 >= x0 - slack and rx1 <= x1 + slack:
                if ry0 - bottom > params.header_reach_rows * (y1 - y0):
                    break
                bottom = max(bottom, ry1)
            elif ry0 >= bottom and ry0 - bottom <= params.header_reach_rows * (y1 - y0):
                break  # something else right under it ends the table
        if bottom > y1:
            out.append(Region(kind="table", bbox=(x0, y0, x1, bottom)))
    return out
