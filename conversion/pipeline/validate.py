"""Is this a PDF we can take? Sniff the real type, open it with PyMuPDF, check the limits.

Everything here runs before a single page is rasterized, so a refusal costs nothing and leaves
nothing behind.
"""

from __future__ import annotations

import re
from collections import Counter
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
from conversion.pipeline.streams import (
    StreamTooLarge,
    UnknownFilter,
    decoded_pieces,
    stream_filters,
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


# A PDF's first object ("1 0 obj <<"): a file that lost its %PDF- line still reads as a PDF
# (MuPDF and PDF viewers open it; pdf.js bug1606566 starts with its binary comment).
_PDF_OBJECT = re.compile(rb"^(?:%[^\r\n]*[\r\n]+|\s)*\d+\s+\d+\s+obj\s*<<")


def sniff_pdf(head: bytes) -> None:
    """Raise NotAPdf unless the first KiB holds the %PDF- header, or the file starts as a PDF's
    body does (comments, then its first object) without it."""
    if b"%PDF-" in head[:1024] or _PDF_OBJECT.match(head[:1024]):
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
        # First: every later check reads streams, and may only read ones known to be bounded.
        _check_streams(doc, limits)
        stream_cap = int(limits.max_stream_mb * 2**20)
        for index in range(count):
            try:
                page = doc[index]
                images = page.get_images(full=True)
            except Exception:
                raise DamagedPdf(
                    f"Page {index + 1} is damaged and cannot be read.", page=index + 1
                ) from None
            check_form_draws(doc, page, budget=limits.max_form_draws, stream_cap=stream_cap)
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


def _check_streams(doc: pymupdf.Document, limits: Limits) -> None:
    """Refuse decompression bombs: a stream that decodes far beyond any plausible size.

    Images are bounded by their declared pixel size (MuPDF decodes no more than that); every
    other encoded stream is decoded here in bounded pieces (conversion.pipeline.streams), so the
    check itself costs a few MiB whatever the stream. A stream in a filter decoded there only
    (an image codec on a font, Brotli) is left to the isolated rasterizer: no check reads it.
    """
    cap = int(limits.max_stream_mb * 2**20)
    for xref in range(1, doc.xref_length()):
        try:
            if not doc.xref_is_stream(xref) or doc.xref_get_key(xref, "Subtype")[1] == "/Image":
                continue
            filters = stream_filters(doc, xref)
            if not filters:
                continue  # stored as it is: no bigger than the file
            raw = doc.xref_stream_raw(xref)
            for _piece in decoded_pieces(raw, filters, cap=cap):
                pass
        except StreamTooLarge:
            raise DecompressionBomb(
                f"A stream of {len(raw) / 2**10:.0f} KiB in the PDF inflates to more than "
                f"{limits.max_stream_mb:.0f} MiB; the file was refused as a decompression bomb."
            ) from None
        except Exception:
            continue  # an unreadable object or filter: rasterizing reports the damage


_DO = re.compile(rb"/([^\s/\[\]()<>{}%]+)\s*Do\b")
_SPACES = re.compile(rb"\s+")


def check_form_draws(
    doc: pymupdf.Document, page: pymupdf.Page, *, budget: int, stream_cap: int | None = None
) -> None:
    """Refuse a page whose drawing runs more than `budget` Form XObjects, nesting multiplied out.

    MuPDF runs a form each time it is drawn, so 9 levels of forms each drawing the next 10 times
    is 10**9 runs from a 4 KB file (issue 17: it held the only worker for the whole page time
    limit). Counted from the content streams' `Do` operators, in milliseconds, before anything
    is drawn; a form that draws itself counts as over budget. The streams are read in bounded
    pieces, never inflated whole (issue 29): one decoding to more than `stream_cap` bytes
    (default: Limits' max_stream_mb) is a DecompressionBomb.
    """
    cap = int(Limits().max_stream_mb * 2**20) if stream_cap is None else stream_cap
    children: dict[int, dict[bytes, int]] = {}
    try:
        for xref, name, invoker, _bbox in page.get_xobjects():
            children.setdefault(invoker, {})[name.encode("latin-1", "replace")] = xref
        contents = page.get_contents()
    except Exception:
        return  # unreadable resources: rasterizing reports the damage
    longest = max((len(n) for names in children.values() for n in names), default=0)

    def draws(xref: int, known: dict[bytes, int]) -> Counter[bytes]:
        try:
            return _draw_counts(doc, xref, known, longest=longest, cap=cap)
        except StreamTooLarge:
            raise DecompressionBomb(
                f"Page {page.number + 1} draws a stream that inflates to more than "
                f"{cap / 2**20:.0f} MiB; the file was refused as a decompression bomb.",
                page=page.number + 1,
            ) from None
        except UnknownFilter as exc:
            raise DecompressionBomb(
                f"Page {page.number + 1} is drawn from a stream compressed with /{exc.args[0]}, "
                "whose size this server cannot check before drawing; the file was refused.",
                page=page.number + 1,
            ) from None
        except Exception:
            return Counter()  # an unreadable stream: rasterizing reports the damage

    runs: dict[int, int] = {}

    def cost(xref: int, path: frozenset[int]) -> int:
        if xref in runs:
            return runs[xref]
        if xref in path:
            return budget + 1  # a cycle
        known = children.get(xref, {})
        total = 1
        for name, times in draws(xref, known).items():
            total += times * cost(known[name], path | {xref})
            if total > budget:
                break
        runs[xref] = total
        return total

    top: Counter[bytes] = Counter()
    for xref, listed in Counter(contents).items():  # /Contents may list one stream many times
        for name, times in draws(xref, children.get(0, {})).items():
            top[name] += times * listed
    total = 0
    for name, times in top.items():
        total += times * cost(children[0][name], frozenset())
        if total > budget:
            raise PageTooComplex(
                f"Page {page.number + 1} draws more than {budget:,} nested graphics "
                "(Form XObjects); no real document needs that many, so the file was refused.",
                page=page.number + 1,
            )


def _draw_counts(
    doc: pymupdf.Document, xref: int, known: dict[bytes, int], *, longest: int, cap: int
) -> Counter[bytes]:
    """How many times the stream `xref` draws each XObject of `known` (by `Do`), read in
    bounded pieces: a `/Name Do` cut between two pieces is carried over to the next."""
    counts: Counter[bytes] = Counter()
    if not known:
        return counts
    raw = doc.xref_stream_raw(xref) or b""
    carry = b""
    for piece in decoded_pieces(raw, stream_filters(doc, xref), cap=cap):
        data = carry + _SPACES.sub(b" ", piece)
        done = 0
        for match in _DO.finditer(data):
            if match.end() == len(data):
                break  # `Do` may go on in the next piece ("Dox")
            if match.group(1) in known:
                counts[match.group(1)] += 1
            done = match.end()
        # Carry from the last name on; one longer than "/Name Do" of any known name can't count.
        carry = data[max(done, data.rfind(b"/")) :]
        if len(carry) > longest + len(b"/  Do"):
            carry = b""
    for match in _DO.finditer(carry):
        if match.group(1) in known:
            counts[match.group(1)] += 1
    return counts
