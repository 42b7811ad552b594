"""The real scans the browser tests convert: tests/resources/corpus/ (see its PROVENANCE.md)."""

from __future__ import annotations

from pathlib import Path

import pymupdf

CORPUS = Path(__file__).resolve().parents[1] / "resources" / "corpus"
PDFS = ["c02-22.pdf", "francais.pdf", "linn.pdf", "multipage.pdf", "skew.pdf"]
IMAGES = ["eurotext.tif", "phototest.tif", "typewriter.png"]
DPI_FALLBACK = 300


def image_to_pdf(image: Path, pdf: Path) -> Path:
    """Wrap a scanned image into a one-page PDF at the image's own resolution."""
    pix = pymupdf.Pixmap(str(image))
    dpi = pix.xres if pix.xres and pix.xres > 72 else DPI_FALLBACK
    width, height = pix.width * 72 / dpi, pix.height * 72 / dpi
    doc = pymupdf.open()
    page = doc.new_page(width=width, height=height)
    page.insert_image(page.rect, filename=str(image))
    doc.save(str(pdf))
    doc.close()
    return pdf


def corpus_inputs(work: Path) -> list[Path]:
    """Every corpus document as a PDF: the PDFs as they are, the images wrapped."""
    work.mkdir(parents=True, exist_ok=True)
    out = [CORPUS / name for name in PDFS]
    for name in IMAGES:
        out.append(image_to_pdf(CORPUS / name, work / (Path(name).stem + ".pdf")))
    return out
