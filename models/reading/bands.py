"""A dense page read as two bands at once: where to cut it, and how the bands' words fill the
whole page's layout (so paragraphs, lines and order are those of a read of the whole page)."""

from __future__ import annotations

import bisect
import statistics

from models.reading.boxes import area, inside_share
from models.reading.params.bands import BANDS, BandParams
from models.reading.scan_lines import Line, ParaLines


def band_cut(boxes, *, params: BandParams = BANDS) -> int | None:
    """The row where a page of text lines (`boxes`) is cut in two bands to be read at once: in
    a gap between lines that no line crosses, where the work above and below is most even (a
    line's work is its length in line heights: Tesseract's recognizer scales each line to one
    height). None for a page of little text, or one no gap divides fairly: a page of
    `params.work_line_heights` of work or more (a dense page: linn.pdf has about 2000) is cut
    where each band holds `params.least_share` of it or more. Less text does not pay for the
    bands' own layouts."""
    spans = sorted((y0, y1, (x1 - x0) / max(1, y1 - y0)) for x0, y0, x1, y1 in boxes)
    total = sum(work for *_, work in spans)
    if total < params.work_line_heights:
        return None
    best: tuple[float, int] | None = None
    above, reach = 0.0, spans[0][1]
    for y0, y1, work in spans:
        if above and y0 > reach + 1:  # rows reach..y0 hold no line
            balance = min(above, total - above) / total
            if best is None or balance > best[0]:
                best = (balance, (reach + y0) // 2)
        above += work
        reach = max(reach, y1)
    return best[1] if best and best[0] >= params.least_share else None


def filled_layout(layout: list[ParaLines], band_lines: list[Line]) -> list[ParaLines]:
    """The page layout's lines (`layout`, without words) given the words that bands of the page
    read: each word to the line it lies in (half its box or more; the smallest such line where
    lines nest), in the bands' reading order, but specks on a line's edge; each line with the
    text size of the band line its first word came from. A word outside every line is one the
    page's own read would not have made (its layout saw no text there)."""
    lines = sorted(
        (line for para in layout for line in para if line.bbox), key=lambda ln: ln.bbox[1]
    )
    tops = [line.bbox[1] for line in lines]
    # The edge where specks lie is measured on the page's common line height: a line made
    # tall by a drop cap beside it holds whole words in its top and bottom quarters.
    pitch = statistics.median(ln.bbox[3] - ln.bbox[1] for ln in lines) if lines else 0
    for band_line in band_lines:
        # Only lines that start above this band line's bottom can hold its words.
        near = [ln for ln in lines[: bisect.bisect_left(tops, band_line.bbox[3])]
                if ln.bbox[3] > band_line.bbox[1]]  # fmt: skip
        for word in band_line.words:
            # Of lines holding as much of the word, the tightest: lines of a display formula
            # nest (a fraction's numerator inside the row of its bar).
            share, _, home = max(
                ((inside_share(word.bbox, ln.bbox), -area(ln.bbox), ln) for ln in near),
                key=lambda t: t[:2], default=(0.0, 0.0, None),
            )  # fmt: skip
            if home is None or share < 0.5 or _on_the_edge(word.bbox, home.bbox, pitch):
                continue
            if not home.words:
                home.size = band_line.size
            home.words.append(word)
    return layout


def _on_the_edge(box, line, pitch: float) -> bool:
    """A "word" wholly in the top or bottom quarter of a line: specks (a neighbouring column's
    dots, read as ". : as") that a band's layout joined into a line across a column gap, and
    that a whole-page read does not hold. The edge is a share of `pitch`, the page's common
    line height (pixels), not of this line's, which a drop cap makes several lines tall."""
    edge = min(line[3] - line[1], pitch) / BANDS.edge_parts
    return box[3] <= line[1] + edge or box[1] >= line[3] - edge
