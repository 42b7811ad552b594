"""Hostile PDFs built on the fly, so the tests show exactly what each one carries."""

from __future__ import annotations

import zlib
from pathlib import Path

import pymupdf

TEXT = (
    "Quarterly report of the harbour office. The ferry schedule changes in spring and the "
    "night boats stop running until the first of June."
)


def text_pdf(path: Path, *, text: str = TEXT) -> Path:
    """A born-digital one-page PDF: its text layer is read, no OCR needed (fast)."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 400), text, fontsize=12)
    doc.save(path)
    return path


def scanned_pdf(path: Path, pages: int) -> Path:
    """A scanned document (pages are images, no text layer) of `pages` printed pages: an
    engine must read every page."""
    doc = pymupdf.open()
    for n in range(pages):
        src = pymupdf.open()
        page = src.new_page(width=612, height=792)
        page.insert_text((72, 90), f"Chapter {n + 1}", fontsize=24)
        for i in range(10):
            page.insert_text((72, 140 + 18 * i), f"Line {i + 1} of page {n + 1}.")
        png = page.get_pixmap(dpi=72).tobytes("png")
        doc.new_page(width=612, height=792).insert_image(pymupdf.Rect(0, 0, 612, 792), stream=png)
    doc.save(path)
    return path


def active_content_pdf(path: Path) -> Path:
    """A text PDF that also carries /OpenAction JavaScript, a JavaScript link, a launch action
    and an embedded file: none of it may reach the output."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 400), TEXT, fontsize=12)
    catalog = doc.pdf_catalog()
    doc.xref_set_key(catalog, "OpenAction", "<</S/JavaScript/JS(app.alert('PWNED-OPENACTION'))>>")
    page.insert_link(
        {
            "kind": pymupdf.LINK_URI,
            "from": pymupdf.Rect(72, 72, 300, 90),
            "uri": "javascript:alert('PWNED-LINK')",
        }
    )
    doc.embfile_add("payload.html", b"<script>alert('PWNED-EMBEDDED')</script>", filename="x.html")
    doc.save(path)
    return path


def flate_bomb_pdf(path: Path, *, inflated_mb: int = 200) -> Path:
    """A page whose content stream is ~200 KiB on disk and inflates to `inflated_mb` MiB."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "bomb")
    xref = page.get_contents()[0]
    compressor = zlib.compressobj(9)
    chunk = b" " * (1 << 20)
    raw = b"".join(compressor.compress(chunk) for _ in range(inflated_mb)) + compressor.flush()
    doc.update_stream(xref, raw, compress=False)
    doc.xref_set_key(xref, "Filter", "/FlateDecode")
    doc.save(path, garbage=0, deflate=False)
    return path


def broken_xref_pdf(source: Path, path: Path) -> Path:
    """The source PDF with its startxref pointing into nowhere: MuPDF must rebuild the table."""
    data = source.read_bytes()
    at = data.rindex(b"startxref")
    path.write_bytes(data[:at] + b"startxref\n999999\n%%EOF\n")
    return path


def nested_forms_pdf(path: Path, *, levels: int = 9, fanout: int = 10) -> Path:
    """A page of nested Form XObjects, each level drawing the next `fanout` times: the page
    draws fanout**levels forms (10**9 by default) from a file of a few KB (issue 17)."""
    doc = pymupdf.open()
    page = doc.new_page(width=200, height=200)
    child = None
    for _ in range(levels):
        xref = doc.get_new_xref()
        resources = "<<>>" if child is None else f"<</XObject <</F {child} 0 R>>>>"
        doc.update_object(
            xref, f"<</Type/XObject/Subtype/Form/BBox[0 0 200 200]/Resources {resources}>>"
        )
        body = b"0 0 m 10 10 l S" if child is None else b" ".join([b"q /F Do Q"] * fanout)
        doc.update_stream(xref, body)
        child = xref
    doc.xref_set_key(page.xref, "Resources", f"<</XObject <</F {child} 0 R>>>>")
    contents = doc.get_new_xref()
    doc.update_object(contents, "<<>>")
    doc.update_stream(contents, b"q /F Do Q")
    doc.xref_set_key(page.xref, "Contents", f"{contents} 0 R")
    doc.save(path, garbage=1, deflate=True)
    return path


_ADLER_MOD = 65521  # zlib's adler32 modulus


def _spaces_deflated(inflated_bytes: int) -> bytes:
    """A zlib stream of `inflated_bytes` spaces (a multiple of 1 MiB), built in milliseconds:
    every fully flushed MiB of spaces deflates to the same ~1 KiB block, so it is repeated
    instead of compressed again, and the adler32 of n equal bytes has a closed form."""
    chunk = b" " * (1 << 20)
    compressor = zlib.compressobj(9)
    first = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    n = inflated_bytes
    a = (1 + n * 0x20) % _ADLER_MOD
    b = (n + 0x20 * (n * (n + 1) // 2)) % _ADLER_MOD
    final = b"\x03\x00"  # an empty last block (fixed Huffman codes)
    return first + block * (n // len(chunk) - 1) + final + ((b << 16) | a).to_bytes(4, "big")


def gib_bomb_pdf(path: Path, *, where: str, inflated_gib: float = 3.5) -> Path:
    """A ~3.7 MB one-page PDF with a Flate stream of spaces inflating to `inflated_gib` GiB
    (issue 29), as the page's contents ("contents"), in a Form XObject the page draws ("form"),
    or as the data of a 100 x 100 grey image the page shows ("image")."""
    bomb = _spaces_deflated(int(inflated_gib * 2**30))
    doc = pymupdf.open()
    page = doc.new_page(width=200, height=200)
    page.insert_text((20, 20), "bomb")
    xref = doc.get_new_xref()
    if where == "contents":
        xref = page.get_contents()[0]
    elif where == "form":
        doc.update_object(xref, "<</Type/XObject/Subtype/Form/BBox[0 0 200 200]>>")
        doc.xref_set_key(page.xref, "Resources", f"<</XObject <</B {xref} 0 R>>>>")
    elif where == "image":
        doc.update_object(xref, "<</Type/XObject/Subtype/Image/Width 100/Height 100"
                                "/ColorSpace/DeviceGray/BitsPerComponent 8>>")  # fmt: skip
        doc.xref_set_key(page.xref, "Resources", f"<</XObject <</B {xref} 0 R>>>>")
    else:
        raise ValueError(where)
    doc.update_stream(xref, bomb, compress=False)
    doc.xref_set_key(xref, "Filter", "/FlateDecode")
    if where != "contents":
        draw = doc.get_new_xref()
        doc.update_object(draw, "<<>>")
        doc.update_stream(draw, b"q 200 0 0 200 0 0 cm /B Do Q")
        doc.xref_set_key(page.xref, "Contents", f"{draw} 0 R")
    doc.save(path, garbage=0, deflate=False)
    return path
