"""Is this a PDF we can take? Sniff the real type, open it with PyMuPDF, check the limits.

Everything here runs before a single page is rasterized, so a refusal costs nothing and leaves
nothing behind.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pymupdf

from conversion.pipeline.errors import (
    DamagedPdf,
    EmptyFile,
    EncryptedPdf,
    FileTooLarge,
    NoPages,
    NotAPdf,
    PageTooLarge,
    TooManyPages,
)


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 100 * 1024 * 1024
    max_pages: int = 500
    max_image_megapixels: float = 300.0  # any single embedded image, decoded


@dataclass(frozen=True)
class ValidatedPdf:
    path: Path
    page_count: int
    repaired: bool  # MuPDF rebuilt a broken cross-reference table
    warnings: tuple[str, ...]


# Magic numbers of files people upload by mistake, for a message that names what they sent.
_KNOWN_TYPES = {
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"II*\x00": "a TIFF image",
    b"MM\x00*": "a TIFF image",
    b"PK\x03\x04": "a ZIP archive (or a Word/OpenDocument file)",
    b"GIF8": "a GIF image",
    b"\xd0\xcf\x11\xe0": "an old Microsoft Office file",
}


def sniff_pdf(head: bytes) -> None:
    """Raise NotAPdf unless the first KiB holds the %PDF- header."""
    if b"%PDF-" in head[:1024]:
        return
    for magic, what in _KNOWN_TYPES.items():
        if head.startswith(magic):
            raise NotAPdf(f"The file is {what}, not a PDF. Convert it to PDF first and try again.")
    raise NotAPdf()


def validate_pdf(path: Path, limits: Limits) -> ValidatedPdf:
    path = Path(path)
    size = path.stat().st_size
    if size == 0:
        raise EmptyFile()
    if size > limits.max_bytes:
        raise FileTooLarge(
            f"The file is {size / 2**20:.1f} MiB; this server accepts at most "
            f"{limits.max_bytes / 2**20:.0f} MiB. Split it into smaller PDFs."
        )
    with path.open("rb") as fh:
        sniff_pdf(fh.read(1024))

    pymupdf.TOOLS.mupdf_warnings(reset=True)
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except Exception:
        raise DamagedPdf() from None
    try:
        warnings = tuple(w for w in pymupdf.TOOLS.mupdf_warnings(reset=True).splitlines() if w)
        repaired = doc.is_repaired or any("repair" in w for w in warnings)
        # An empty user password (owner-only restrictions) opens; a real password does not.
        if doc.needs_pass and not doc.authenticate(""):
            raise EncryptedPdf()
        count = doc.page_count
        if count == 0:
            raise NoPages()
        if count > limits.max_pages:
            raise TooManyPages(
                f"The PDF has {count} pages; this server accepts at most {limits.max_pages}. "
                "Split it into smaller PDFs."
            )
        for index in range(count):
            try:
                page = doc[index]
                images = page.get_images(full=True)
            except Exception:
                raise DamagedPdf(
                    f"Page {index + 1} is damaged and cannot be read.", page=index + 1
                ) from None
            for img in images:
                width, height = img[2], img[3]
                megapixels = width * height / 1e6
                if megapixels > limits.max_image_megapixels:
                    raise PageTooLarge(
                        f"Page {index + 1} holds a {width} x {height} pixel image "
                        f"({megapixels:.0f} megapixels); the limit is "
                        f"{limits.max_image_megapixels:.0f}. Rescan it at a lower resolution.",
                        page=index + 1,
                    )
    finally:
        doc.close()
    return ValidatedPdf(path=path, page_count=count, repaired=repaired, warnings=warnings)
