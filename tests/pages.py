"""Pages built for tests with PyMuPDF, and a PDF scanned clean: what a test reads is in the test."""

from __future__ import annotations

from pathlib import Path

import pymupdf


def titled_page(doc: pymupdf.Document, title: str, body: str, *, size: float) -> tuple:
    """A new page holding a bold title and a paragraph of `body` at `size` pt: the page and
    the height under the paragraph, where the test's own lines go."""
    page = doc.new_page()
    page.insert_text((72, 80), title, fontsize=size + 4, fontname="tibo")
    box = pymupdf.Rect(72, 95, 540, 95 + 10 * size)
    left = page.insert_textbox(box, body, fontsize=size, fontname="tiro")
    return page, box.y1 - left + 1.5 * size


def scanned_copy(pdf: Path, out: Path, *, dpi: int = 300) -> Path:
    """Each page as a grey image at `dpi`, no text layer: read the way the OCR engine reads a
    scan."""
    scan = pymupdf.open()
    with pymupdf.open(pdf) as doc:
        for page in doc:
            pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
            new = scan.new_page(width=page.rect.width, height=page.rect.height)
            new.insert_image(new.rect, pixmap=pix)
    scan.save(out)
    return out
