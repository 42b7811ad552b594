"""Layout regions the model misses on a scan, found from what the engine read: display formulas
where dropped lines look like mathematics, tables under a reversed header row of column heads."""

from __future__ import annotations

import re
import statistics

from models.layout import Region
from models.reading.boxes import inside_share
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
    # box, whether a seed is in it, its rows' text
    groups: list[tuple[list[float], bool, list[str]]] = []
    for line in maths:
        x0, y0, x1, y1 = line.bbox
        # The rows of a display (a fraction's numerator, a sum's limits, a derivation's
        # lines) stand further apart than lines of text.
        if groups and y0 - groups[-1][0][3] < params.display_gap_lines * height:
            box, has_seed, rows = groups[-1]
            box[:] = [min(box[0], x0), box[1], max(box[2], x1), max(box[3], y1)]
            groups[-1] = (box, has_seed or id(line) in seeds, [*rows, line.text])
        else:
            groups.append(([x0, y0, x1, y1], id(line) in seeds, [line.text]))
    out = []
    for (x0, y0, x1, y1), has_seed, rows in groups:
        off_centre = abs((x0 + x1) / 2 - (left + right) / 2)
        centred = off_centre <= params.formula_centre_share * (right - left)
        if has_seed and x1 - x0 <= params.formula_width_share * (right - left) and centred:
            box = (float(x0), float(y0), float(x1), float(y1))
            out.append(Region("formula", box, read=" ".join(rows)))
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
