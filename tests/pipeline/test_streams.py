"""Bounded decoding of a stream's filters: the same bytes as MuPDF, never more than the cap."""

from __future__ import annotations

import base64
import zlib

import pymupdf
import pytest

from conversion.pipeline.streams import (
    StreamTooLarge,
    UnknownFilter,
    decoded_pieces,
    stream_filters,
)


def _decoded(raw: bytes, filters: list[str], cap: int = 1 << 30) -> bytes:
    return b"".join(decoded_pieces(raw, filters, cap=cap))


def _lzw_encode(data: bytes) -> bytes:
    """LZW as PDF writes it (9- to 12-bit codes, EarlyChange 1), to test the decoder on."""
    fresh = {bytes([i]): i for i in range(256)}
    table, codes, word = dict(fresh), [256], b""
    for value in data:
        longer = word + bytes([value])
        if longer in table:
            word = longer
            continue
        codes.append(table[word])
        table[longer] = len(table) + 2
        if len(table) + 2 >= 4000:  # a clear code well before the 4096-entry table is full
            codes.append(256)
            table = dict(fresh)
        word = bytes([value])
    codes += [table[word], 257]
    bits, nbits, out, since_clear = 0, 0, bytearray(), 0
    for code in codes:
        size = 258 + max(0, since_clear - 1)  # the reader's table when it reads this code
        width = 9 if size < 511 else 10 if size < 1023 else 11 if size < 2047 else 12
        bits, nbits = (bits << width) | code, nbits + width
        while nbits >= 8:
            nbits -= 8
            out.append((bits >> nbits) & 0xFF)
        bits &= (1 << nbits) - 1
        since_clear = 0 if code == 256 else since_clear + 1
    if nbits:
        out.append((bits << (8 - nbits)) & 0xFF)
    return bytes(out)


@pytest.mark.parametrize(
    ("filters", "encode"),
    [
        (["FlateDecode"], zlib.compress),
        (["ASCIIHexDecode"], lambda d: d.hex().encode() + b">"),
        (["ASCII85Decode", "FlateDecode"], None),
        (["LZWDecode"], _lzw_encode),
    ],
)
def test_decodes_as_mupdf_does(tmp_path, filters, encode):
    data = b"q 1 0 0 1 0 0 cm /Im0 Do Q\n" * 100_000  # 2.7 MB: several pieces
    doc = pymupdf.open()
    xref = doc.get_new_xref()
    doc.update_object(xref, "<<>>")
    if encode is None:
        doc.update_stream(xref, data)  # MuPDF deflates it
        raw = base64.a85encode(doc.xref_stream_raw(xref), wrapcol=72) + b"~>"
    else:
        raw = encode(data)
    doc.update_stream(xref, raw, compress=False)
    doc.xref_set_key(xref, "Filter", "[" + "".join(f"/{f}" for f in filters) + "]")
    assert stream_filters(doc, xref) == filters
    assert doc.xref_stream(xref) == data
    assert _decoded(doc.xref_stream_raw(xref), filters) == data


def test_a_bad_zlib_header_is_read_on_as_mupdf_does():
    data = b"0 0 m 10 10 l S\n" * 1000
    raw = b"\x48\x89" + zlib.compress(data)[2:]  # a header whose check fails
    assert _decoded(raw, ["FlateDecode"]) == data


def test_past_the_cap_it_stops_in_bounded_pieces():
    raw = zlib.compress(b"\0" * (64 << 20))
    pieces = decoded_pieces(raw, ["FlateDecode"], cap=8 << 20)
    with pytest.raises(StreamTooLarge):
        for piece in pieces:
            assert len(piece) <= 1 << 20


def test_an_image_codec_is_not_decoded():
    with pytest.raises(UnknownFilter):
        decoded_pieces(b"\xff\xd8", ["DCTDecode"], cap=1 << 20)
