"""A scan's page after Tesseract, stage by stage: the lines the engine read (its paragraphs, the
figures it saw, the reversed header rows it read) -> blocks, formula and table regions -> the
page's kinds, tables, figures and reading order (models.reading.layout_regions) -> list items
joined with their continuations. The engine reads words (orientation, languages, crops) and
hands them here; nothing here calls Tesseract.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from PIL import Image

from models.engine import BBox, ReadBlock, Word
from models.layout import Region
from models.reading.contents import contents_lists
from models.reading.doubts import engine_ranks, with_doubts
from models.reading.entry_labels import with_entry_labels
from models.reading.layout_regions import apply_layout
from models.reading.page import PageImageAccess, ReadingPage
from models.reading.params.reading_order import READING_ORDER
from models.reading.params.scan import SCAN
from models.reading.regions import formula_regions, header_tables
from models.reading.ruled_tables import Grid, ruled_tables, table_rules, vertical_rules
from models.reading.scan_blocks import (
    Illegibility,
    blocks_from_lines,
    crossed_by_text,
    ground_of_text,
    join_list_continuations,
    outside_figures,
    sure_share,
    unreadable_finding,
    without_illegible,
    without_noise,
)
from models.reading.scan_lines import InkMeter, ParaLines, words_size
from models.reading.table_figures import mend_decimal_points


class ScanImage(PageImageAccess):
    """What a scan's image tells the stages: ink and stroke widths on the binarized page, text
    sizes from the words' heights, the rules printed across a table region (and the foot of a
    reversed header row over it: `header_bars`)."""

    def __init__(
        self, gray: Image.Image, ink: InkMeter, header_bars: list[BBox], dpi: float
    ) -> None:
        self._ink = ink
        self._rules = table_rules(gray, header_bars, dpi)
        self._gray, self._dpi = gray, dpi

    def ink(self, bbox: BBox) -> float:
        return self._ink(bbox)

    def stroke(self, bbox: BBox) -> float | None:
        return self._ink.stroke(bbox)

    def text_size(self, words: list[Word]) -> float | None:
        return words_size(words)

    def row_rules(self, bbox: BBox) -> list[float]:
        return self._rules(bbox)

    def column_rules(self) -> list[BBox]:
        length = READING_ORDER.column_rule_min_inch * self._dpi
        return vertical_rules(self._gray, self._dpi, length)


@dataclass
class ScanText:
    """A scan's text as blocks, before the layout model's regions are known."""

    blocks: list[ReadBlock]  # the figures, the ruled tables, then the text's blocks
    formulas: list[Region]  # display formulas Tesseract could not read, where they stood
    # Handwriting or illegible text (the page needs a person): judged again once the layout
    # model's pictures are known (Illegibility.unreadable).
    illegibility: Illegibility

    @property
    def unreadable(self) -> bool:
        return self.illegibility.unreadable()


def scan_text(
    paragraphs: list[ParaLines],
    figures: list[ReadBlock],
    gray: Image.Image,
    ink: InkMeter,
    dpi: float,
    *,
    grids: list[Grid] | None = None,
) -> ScanText:
    """The engine's paragraphs without the words inside figures, noise and illegible lines,
    a column of entry labels joined to its entries (models.reading.entry_labels);
    the ruled tables found on the page (`grids`: its grids, when the engine found them); the
    rest cut into blocks (list items, size jumps)."""
    printed = sure_share([line for para in paragraphs for line in para]) >= SCAN.printed_sure_share
    figures = [
        f for f in figures
        if not crossed_by_text(f, paragraphs) and not ground_of_text(f, paragraphs, gray.size)
    ]  # fmt: skip
    paragraphs = with_entry_labels(outside_figures(paragraphs, figures))
    legible, illegibility = without_illegible(without_noise(paragraphs), figures, printed=printed)
    unreadable = illegibility.unreadable()
    tables: list[ReadBlock] = []
    if not unreadable:
        # A ruled grid's words are its cells before the noise and illegibility filters: a row
        # of figures and dashes ("Chlorpyrifos - 1 1") reads like scraps. (Tesseract erases
        # ruling lines from its binarized page: the grids are our own.)
        tables, paragraphs = ruled_tables(gray, paragraphs, ink, dpi, grids=grids)
        legible, _ = without_illegible(without_noise(paragraphs), figures, printed=printed)
    read_lines = [line for para in paragraphs for line in para]
    paragraphs = legible
    # Display formulas Tesseract cannot read fall out as noise or illegible lines: where
    # they stood, the formula is kept as an image with a finding, not lost without a word.
    kept = {id(line) for para in paragraphs for line in para}
    formulas = [] if unreadable else formula_regions(read_lines, kept=kept)
    if unreadable:  # a page of handwriting: a grid holds only what was read legibly
        tables, paragraphs = ruled_tables(gray, paragraphs, ink, dpi, grids=grids)
    blocks = (
        figures
        + tables
        + [block for lines in paragraphs for block in blocks_from_lines(lines, ink)]
    )
    return ScanText(blocks=blocks, formulas=formulas, illegibility=illegibility)


def scan_structure(
    page: ReadingPage,
    image: PageImageAccess,
    *,
    heads: list,
    unreadable: bool,
    script: str | None = None,
    printed: bool = False,
) -> ReadingPage:
    """The page's blocks given their kinds, tables, figures and order by its layout regions
    (the model's and the formulas'), with a table under each reversed header row of column
    heads (`heads`: each bar with the lines read in it); list items joined with the short
    paragraphs that continue them; the finding of an unreadable page (`printed`: it is print,
    no handwriting; `script`: the script it is printed in, when that is why it could not be
    read)."""
    page = replace(page, regions=page.regions + header_tables(heads, page.regions))
    ranks = engine_ranks(page.blocks)  # Tesseract's own order, a second opinion on ours
    page = apply_layout(page, image)
    findings = page.findings + ([unreadable_finding(script, printed=printed)] if unreadable else [])
    blocks = mend_decimal_points(contents_lists(join_list_continuations(page.blocks)))
    page = replace(page, blocks=blocks, findings=findings)
    return with_doubts(page, ranks)
