"""A page that could not be transcribed (handwriting, illegible text: the reading's UNREADABLE
finding) is shown as its image, after a note that says so (issue 33): a page marker alone, or a
full-page "figure" without a description, told a reader nothing, and its report called the page
blank, a figure to describe and text in an image, besides unreadable.
"""

from __future__ import annotations

from conversion.pipeline.assemble_params import ASSEMBLE, AssembleParams
from conversion.pipeline.document import Block, Document, Page

# The finding a page reading gives an unreadable page (models/reading/scan_blocks.py).
UNREADABLE = "UNREADABLE"
# What the assembler says of a page without blocks: not so of a page shown as its scan.
_BLANK_PAGE = "BLANK_PAGE"


def unreadable_pages(document: Document) -> set[int]:
    return {f.page for f in document.findings if f.code == UNREADABLE and f.page}


def add_page_scans(document: Document, *, params: AssembleParams = ASSEMBLE) -> Document:
    """Each unreadable page opens with a figure of the whole page (cropped like any figure),
    in place of the figures that already showed most of it; such a page is not "blank"."""
    pages = unreadable_pages(document)
    unread = [f for f in document.findings if f.code == UNREADABLE]
    scripts = {f.page: f.script for f in unread if f.script}
    printed = {f.page for f in unread if f.printed}
    for page in document.pages:
        if page.number not in pages:
            continue
        page.blocks = [b for b in page.blocks if not _is_the_page(b, page, params)]
        scan = Block(kind="figure", page_scan=True, bbox=(0, 0, page.width, page.height))
        scan.unread_script = scripts.get(page.number)
        scan.unread_print = page.number in printed
        page.blocks.insert(0, scan)
    document.findings = [
        f for f in document.findings if not (f.code == _BLANK_PAGE and f.page in pages)
    ]
    return document


def _is_the_page(block: Block, page: Page, params: AssembleParams) -> bool:
    if block.kind != "figure" or not block.bbox or block.alt or block.caption:
        return False
    x0, y0, x1, y1 = block.bbox
    area = max(0.0, x1 - x0) * max(0.0, y1 - y0)
    return area >= params.page_scan_figure_share * max(page.width * page.height, 1)
