"""Decode a PDF stream's filter chain in bounded pieces, so a check can read a stream without
inflating it whole (issue 29: `page.read_contents()` on a 3.5 MB upload inflated 3.5 GiB in the
web host's reader before the bomb check refused it).

`decoded_pieces` yields the decoded stream in pieces of about CHUNK_BYTES and stops with
StreamTooLarge past a cap: whatever the stream, reading it costs a few MiB. It works on the raw
bytes (doc.xref_stream_raw: decrypted, not decoded). Only the filters a page's drawing or a
font plausibly uses are decoded here; an image codec (DCT, JPX, JBIG2, CCITT), Brotli, a named
crypt filter or an unreadable /Filter raises UnknownFilter, and the caller decides. Predictors
(DecodeParms) are not undone: they only shrink the data, so the size bound still holds.
"""

from __future__ import annotations

import base64
import binascii
import re
import zlib
from collections.abc import Iterable, Iterator

import pymupdf

CHUNK_BYTES = 1 << 20  # one piece of input or output, in bytes
_WHITESPACE = b" \t\n\r\f\x00"
_LZW_CLEAR, _LZW_EOD = 256, 257


class StreamTooLarge(Exception):
    """The stream decodes to more than the cap."""


class UnknownFilter(Exception):
    """The stream uses a filter decoded_pieces does not decode (its name in args[0])."""


def stream_filters(doc: pymupdf.Document, xref: int) -> list[str]:
    """The stream's filter names in order, abbreviations spelled out; UnknownFilter when the
    /Filter entry is not a name or an array of names (an indirect one, say)."""
    kind, value = doc.xref_get_key(xref, "Filter")
    if kind == "null":
        return []
    if kind not in ("name", "array"):
        raise UnknownFilter(value)
    names = re.findall(r"/([^\s/\[\]<>()]+)", value)
    if kind == "array" and value.strip("[] \n") and not names:
        raise UnknownFilter(value)
    return [_ABBREVIATIONS.get(name, name) for name in names]


def decoded_pieces(raw: bytes, filters: list[str], *, cap: int) -> Iterator[bytes]:
    """The stream `raw` decoded through `filters`, in pieces; StreamTooLarge once more than
    `cap` bytes came out. Data a decoder cannot read ends the stream there (MuPDF decides what
    it can read of a broken stream). A filter not decoded here raises UnknownFilter at once."""
    for name in filters:
        if name not in _DECODERS:
            raise UnknownFilter(name)
    pieces: Iterable[bytes] = (raw[i : i + CHUNK_BYTES] for i in range(0, len(raw), CHUNK_BYTES))
    for name in filters:
        pieces = _DECODERS[name](pieces)
    return _capped(pieces, cap)


def _capped(pieces: Iterable[bytes], cap: int) -> Iterator[bytes]:
    total = 0
    for piece in pieces:
        total += len(piece)
        if total > cap:
            raise StreamTooLarge()
        yield piece


def _flate(pieces: Iterable[bytes]) -> Iterator[bytes]:
    inflater = zlib.decompressobj()
    started = False
    for data in pieces:
        while data and not inflater.eof:
            try:
                # max_length: zeros inflate 1000-fold; never more than CHUNK_BYTES at a time
                out = inflater.decompress(data, CHUNK_BYTES)
            except zlib.error:
                if started:
                    return
                # A bad zlib header: MuPDF reads on as raw deflate, and so must the check.
                inflater, data, started = zlib.decompressobj(-zlib.MAX_WBITS), data[2:], True
                continue
            started = True
            yield out
            data = inflater.unconsumed_tail
        if inflater.eof:
            return


def _ascii_hex(pieces: Iterable[bytes]) -> Iterator[bytes]:
    carry = b""
    for piece in pieces:
        data = carry + piece.translate(None, _WHITESPACE)
        end = data.find(b">")
        if end >= 0:
            data = data[:end] + (b"0" if end % 2 else b"")  # an odd last digit is followed by 0
        keep = len(data) - len(data) % 2
        carry = data[keep:]
        try:
            yield binascii.unhexlify(data[:keep])
        except binascii.Error:
            return
        if end >= 0:
            return


def _ascii85(pieces: Iterable[bytes]) -> Iterator[bytes]:
    carry = b""
    started = False
    for piece in pieces:
        data = carry + piece.translate(None, _WHITESPACE)
        if not started:
            data = data.removeprefix(b"<~")
            started = True
        end = data.find(b"~")
        if end >= 0:
            data = data[:end]
        # Decode whole groups only: the text after the last `z` (one group) in fives.
        tail = data.rfind(b"z") + 1
        keep = len(data) if end >= 0 else tail + (len(data) - tail) // 5 * 5
        carry = data[keep:]
        try:
            yield base64.a85decode(data[:keep])
        except ValueError:
            return
        if end >= 0:
            return


def _run_length(pieces: Iterable[bytes]) -> Iterator[bytes]:
    carry = b""
    for piece in pieces:
        data = carry + piece
        out = bytearray()
        i = 0
        while i < len(data):
            length = data[i]
            if length == 128:  # end of data
                yield bytes(out)
                return
            if length < 128:  # length + 1 bytes as they are
                if i + length + 2 > len(data):
                    break  # the run goes on in the next piece
                out += data[i + 1 : i + length + 2]
                i += length + 2
            else:  # the next byte 257 - length times
                if i + 2 > len(data):
                    break
                out += data[i + 1 : i + 2] * (257 - length)
                i += 2
            if len(out) >= CHUNK_BYTES:
                yield bytes(out)
                out.clear()
        carry = data[i:]
        yield bytes(out)


def _lzw(pieces: Iterable[bytes]) -> Iterator[bytes]:
    """LZW as PDF has it: 9- to 12-bit codes, most significant bit first, EarlyChange 1 (the
    default; the rare EarlyChange 0 can only differ in sizes by a few bytes a table)."""
    table: list[bytes] = [bytes([i]) for i in range(256)] + [b"", b""]
    width, previous = 9, b""
    bits, nbits = 0, 0
    out = bytearray()
    for piece in pieces:
        for byte in piece:
            bits = (bits << 8) | byte
            nbits += 8
            while nbits >= width:
                nbits -= width
                code = (bits >> nbits) & ((1 << width) - 1)
                bits &= (1 << nbits) - 1
                if code == _LZW_CLEAR:
                    del table[258:]
                    width, previous = 9, b""
                    continue
                if code == _LZW_EOD:
                    yield bytes(out)
                    return
                if code < len(table):
                    entry = table[code]
                elif code == len(table) and previous:
                    entry = previous + previous[:1]
                else:
                    yield bytes(out)
                    return  # a broken code
                if previous and len(table) < 4096:
                    table.append(previous + entry[:1])
                previous = entry
                out += entry
                if len(table) + 1 >= (1 << width) and width < 12:
                    width += 1
                if len(out) >= CHUNK_BYTES:
                    yield bytes(out)
                    out.clear()
    yield bytes(out)


_ABBREVIATIONS = {
    "Fl": "FlateDecode",
    "AHx": "ASCIIHexDecode",
    "A85": "ASCII85Decode",
    "LZW": "LZWDecode",
    "RL": "RunLengthDecode",
}
_DECODERS = {
    "FlateDecode": _flate,
    "ASCIIHexDecode": _ascii_hex,
    "ASCII85Decode": _ascii85,
    "LZWDecode": _lzw,
    "RunLengthDecode": _run_length,
}
