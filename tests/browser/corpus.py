"""The real scans the browser tests convert: tests/resources/corpus/ (see its PROVENANCE.md)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import image_to_pdf

CORPUS = Path(__file__).resolve().parents[1] / "resources" / "corpus"
PDFS = ["c02-22.pdf", "francais.pdf", "linn.pdf", "multipage.pdf", "skew.pdf"]
IMAGES = ["eurotext.tif", "phototest.tif", "typewriter.png"]


def corpus_inputs(work: Path) -> list[Path]:
    """Every corpus document as a PDF: the PDFs as they are, the images wrapped."""
    work.mkdir(parents=True, exist_ok=True)
    out = [CORPUS / name for name in PDFS]
    for name in IMAGES:
        out.append(image_to_pdf(CORPUS / name, work / (Path(name).stem + ".pdf")))
    return out
