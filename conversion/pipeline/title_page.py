"""A title page: the page that opens a book or a report with its title in display type and
nothing to read under it but front matter (the author's name, the publisher, an edition line).
Its title is one heading, the document's title; the lines over it and at its foot are no
headings, however large they are set (a book's "THE TUFTE-LATEX DEVELOPERS" over its title,
"PUBLISHER OF THIS BOOK" at its foot took h2 and h3, and the author's name became the
document's title); a subtitle in display type under the title stays a heading.
"""

from __future__ import annotations

from conversion.pipeline.assemble_params import ASSEMBLE, AssembleParams
from conversion.pipeline.document import Block, Page, Span
from models.reading.boxes import union
from models.reading.kinds import real_words


def _words(block: Block) -> int:
    return len(block.text.split())


def _is_title_page(page: Page, body_size: float, *, params: AssembleParams) -> bool:
    """Headings, no body text (no paragraph of `title_page_max_words` words or more, no table,
    no list, no code listing) and display type (`display_size_ratio` times the body's size or
    more)."""
    texts = [b for b in page.blocks if b.kind in ("heading", "paragraph", "list", "table", "code")]
    return (
        bool(body_size)
        and any(b.kind == "heading" for b in texts)
        and all(
            b.kind in ("heading", "paragraph") and _words(b) < params.title_page_max_words
            for b in texts
        )
        and max((b.font_key or 0.0) for b in texts) >= params.display_size_ratio * body_size
    )


def _in_rows(pieces: list[Block]) -> list[Block]:
    """Pieces of one title in reading order: row by row from the top (a piece on the row of
    the one before when their middles are within half its height), left to right in a row."""
    rows: list[list[Block]] = []
    for piece in sorted(pieces, key=lambda b: b.bbox[1]):  # type: ignore[index]
        box = piece.bbox
        last = rows[-1][-1].bbox if rows else None
        if last and abs((box[1] + box[3]) - (last[1] + last[3])) / 2 < (last[3] - last[1]) / 2:  # type: ignore[index]
            rows[-1].append(piece)
        else:
            rows.append([piece])
    return [b for row in rows for b in sorted(row, key=lambda b: b.bbox[0])]  # type: ignore[index]


def _unbroken(pieces: list[Block], page: Page) -> list[Block]:
    """The first piece and the pieces that follow it with nothing of the page between them:
    a heading in display type under a listing or a picture and its caption ("List of Codes")
    is a heading of its own, not more of the title."""
    run = pieces[:1]
    for piece in pieces[1:]:
        top, bottom = run[-1].bbox[3], piece.bbox[1]  # type: ignore[index]
        if any(
            b.bbox and top <= b.bbox[1] and b.bbox[3] <= bottom
            for b in page.blocks
            if all(b is not p for p in pieces)
        ):
            break
        run.append(piece)
    return run


def _title_pieces(page: Page, *, params: AssembleParams) -> list[Block]:
    """The lines set in the page's largest size (within `same_size_measured_share`): the
    title, in pieces where the reader cut its widely spaced words apart or took some of them
    for text ("A TUFTE-STYLE" beside "BOOK")."""
    texts = [b for b in page.blocks if b.kind in ("heading", "paragraph") and b.bbox]
    largest = max((b.font_key or 0.0) for b in texts)
    floor = (1 - params.same_size_measured_share) * largest
    return [b for b in texts if (b.font_key or 0.0) >= floor and any(c.isalpha() for c in b.text)]


def title_page(pages: list[Page], body_size: float, *, params: AssembleParams = ASSEMBLE) -> None:
    """On a title page among the first `title_page_within` pages (the first page with a
    heading, if it is one): its largest lines joined into one heading, the document's title
    (`is_title`); its front matter (`_front_matter`) made paragraphs."""
    first = next((p for p in pages if any(b.kind == "heading" for b in p.blocks)), None)
    if first is None or first not in pages[: params.title_page_within]:
        return
    if not _is_title_page(first, body_size, params=params):
        return
    pieces = _unbroken(_in_rows(_title_pieces(first, params=params)), first)
    said = " ".join(b.text.strip() for b in pieces)
    if not pieces or not real_words([], said):
        return
    title, rest = pieces[0], pieces[1:]
    for piece in rest:
        title.spans = [*title.spans, Span(text=" "), *piece.spans]
        title.bbox = union((title.bbox, piece.bbox))
    title.kind, title.is_title = "heading", True
    first.blocks = [b for b in first.blocks if all(b is not r for r in rest)]
    for block in first.blocks:
        front = block is not title and _front_matter(block, title, first, body_size, params=params)
        if block.kind == "heading" and front:
            block.kind, block.level = "paragraph", None


def _front_matter(
    block: Block, title: Block, page: Page, body_size: float, *, params: AssembleParams
) -> bool:
    """A title page's line that is no heading: set smaller than display type, printed over
    the title (an author, a series) or at the page's foot (`title_page_foot_share` of its
    height down: a publisher, a place and year). A display line between the title and the
    foot is a subtitle or a part's name ("PART ONE" over "The Early Years") and stays."""
    size = block.font_key or 0.0
    if size < params.display_size_ratio * body_size or not (block.bbox and title.bbox):
        return True
    over = block.bbox[3] <= title.bbox[1]
    foot = block.bbox[1] >= params.title_page_foot_share * page.height
    return over or foot
