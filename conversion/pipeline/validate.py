"""Is this a PDF we can take? Sniff the real type, open it with PyMuPDF, check the limits.

Everything here runs before a single page is rasterized, so a refusal costs nothing and leaves
nothing behind.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from conversion.pipeline.errors import (
    DamagedPdf,
    DecompressionBomb,
    EmptyFile,
    EncryptedPdf,
    FileTooLarge,
    NoPages,
    NotAPdf,
    PageTooComplex,
    PageTooLarge,
    TooManyPages,
)


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 100 * 1024 * 1024
    max_pages: int = 500
    max_image_megapixels: float = 300.0  # any single embedded image, decoded
    # Any other Flate stream (page contents, fonts, forms), inflated: real ones are a few MiB.
    max_stream_mb: float = 64.0
    # Form XObjects one page draws, nesting multiplied out (see form_draws).
    max_form_draws: int = 100_000


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
            check_form_draws(doc, page, budget=limits.max_form_draws)
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
        _check_streams(doc, limits)
    finally:
        doc.close()
    return ValidatedPdf(path=path, page_count=count, repaired=repaired, warnings=warnings)


def _check_streams(doc: pymupdf.Document, limits: Limits) -> None:
    """Refuse decompression bombs: a Flate stream that inflates far beyond any plausible size.

    Images are bounded by their declared pixel size (MuPDF decodes no more than that); every
    other Flate stream is inflated here in bounded chunks, so the check itself costs no memory.
    """
    cap = int(limits.max_stream_mb * 1024 * 1024)
    for xref in range(1, doc.xref_length()):
        try:
            if not doc.xref_is_stream(xref) or doc.xref_get_key(xref, "Subtype")[1] == "/Image":
                continue
            kind, value = doc.xref_get_key(xref, "Filter")
            if value not in ("/FlateDecode", "/Fl") and not (
                kind == "array" and value.strip("[] ").split(" ")[0] in ("/FlateDecode", "/Fl")
            ):
                continue
            raw = doc.xref_stream_raw(xref)
        except Exception:
            continue  # an unreadable object: rasterizing reports the damage
        if raw and _inflated_size(raw, cap=cap) > cap:
            raise DecompressionBomb(
                f"A stream of {len(raw) / 2**10:.0f} KiB in the PDF inflates to more than "
                f"{limits.max_stream_mb:.0f} MiB; the file was refused as a decompression bomb."
            )


def _inflated_size(raw: bytes, *, cap: int) -> int:
    inflater = zlib.decompressobj()
    total = 0
    data = raw
    try:
        while data and total <= cap:
            total += len(inflater.decompress(data, 1 << 20))
            data = inflater.unconsumed_tail
    except zlib.error:
        pass  # broken data: MuPDF decides what it can read
    return total


_DO = re.compile(rb"/([^\s/\[\]()<>{}%]+)\s*Do\b")


def check_form_draws(doc: pymupdf.Document, page: pymupdf.Page, *, budget: int) -> None:
    """Refuse a page whose drawing runs more than `budget` Form XObjects, nesting multiplied out.

    MuPDF runs a form each time it is drawn, so 9 levels of forms each drawing the next 10 times
    is 10**9 runs from a 4 KB file (issue 17: it held the only worker for the whole page time
    limit). Counted from the content streams' `Do` operators, in milliseconds, before anything
    is drawn; a form that draws itself counts as over budget.
    """
    children: dict[int, dict[str, int]] = {}
    try:
        for xref, name, invoker, _bbox in page.get_xobjects():
            children.setdefault(invoker, {})[name] = xref
        top = _DO.findall(page.read_contents())
    except Exception:
        return  # unreadable resources: rasterizing reports the damage
    runs: dict[int, int] = {}

    def cost(xref: int, path: frozenset[int]) -> int:
        if xref in runs:
            return runs[xref]
        if xref in path:
            return budget + 1  # a cycle
        try:
            names = _DO.findall(doc.xref_stream(xref) or b"")
        except Exception:
            names = []
        total = 1
        for name in names:
            child = children.get(xref, {}).get(name.decode("latin-1"))
            if child is not None:
                total += cost(child, path | {xref})
                if total > budget:
                    break
        runs[xref] = total
        return total

    total = 0
    for name in top:
        child = children.get(0, {}).get(name.decode("latin-1"))
        if child is not None:
            total += cost(child, frozenset())
            if total > budget:
                raise PageTooComplex(
                    f"Page {page.number + 1} draws more than {budget:,} nested graphics "
                    "(Form XObjects); no real document needs that many, so the file was refused.",
                    page=page.number + 1,
                )
