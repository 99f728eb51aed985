"""Bounded decoders of TIFF strips and tiles: LZW, DEFLATE and PackBits, each stopping at the size the header declares.

A decompression bomb is a few kilobytes of compressed data that inflate to gigabytes. Each decoder here takes the
number of bytes the file's header declares for one strip or tile (``max_length``) and raises
:class:`DecodeLimitError` as soon as its output would pass it, so what a strip costs is bounded by what the header
said before a byte was decoded. :mod:`core.io.geotiff` hands these to tifffile for the length of one read.

Sources: TIFF Revision 6.0 (Adobe, 1992), section 9 (PackBits) and section 13 (LZW); RFC 1950/1951 (zlib, DEFLATE),
decoded by the standard library's :mod:`zlib`.
"""

from __future__ import annotations

import zlib
from typing import Any

__all__ = ["COMPRESSIONS", "DecodeLimitError", "inflate", "lzw_decode", "unpack_bits"]

#: The TIFF compressions Orogen reads (TIFF tag 259 value: name); a file with any other is refused unread.
COMPRESSIONS = {1: "none", 5: "LZW", 8: "DEFLATE", 32946: "DEFLATE", 32773: "PackBits"}


class DecodeLimitError(ValueError):
    """A strip or tile decodes to more bytes than the file's header declares for it (a decompression bomb)."""


def _limit(max_length: int | None) -> int | None:
    if max_length is not None and max_length < 1:
        raise ValueError(f"max_length must be at least 1 byte, got {max_length}")
    return max_length


def _excess(max_length: int) -> DecodeLimitError:
    return DecodeLimitError(f"a strip or tile decodes to more than the {max_length} bytes its header declares")


def lzw_decode(data: bytes, out: Any = None, *, max_length: int | None = None) -> bytes:
    """Decode one TIFF LZW strip or tile (TIFF 6.0, section 13: MSB-first codes of 9 to 12 bits).

    Codes widen one code early, as TIFF writers do (at 511, 1023, 2047);
    256 clears the table and 257 ends the data (a missing end code is
    tolerated, as libtiff does). ``out`` is accepted for tifffile's decoder
    interface and ignored. This is a sequential decoder (a loop over codes,
    not over grid cells); imagecodecs' compiled one is used when present.

    A full table (4096 entries) takes no more entries until the next clear.
    ``max_length`` (bytes, at least 1) caps the output: decoding stops as
    soon as it would pass it, so a few hundred kilobytes of repeated codes
    cannot expand to gigabytes. Raises :class:`DecodeLimitError` (a
    ``ValueError``) then, and ``ValueError`` for old-style (pre-6.0) LZW or a
    corrupt stream.
    """
    cap = _limit(max_length)
    if data[:2] == b"\x00\x01":
        raise ValueError("old-style (pre-TIFF 6.0) LZW is not supported")
    table: list[bytes] = [bytes((i,)) for i in range(256)] + [b"", b""]
    result = bytearray()
    buf = nbits = pos = 0
    width = 9
    prev = b""
    size = len(data)
    while True:
        while nbits < width:
            if pos >= size:
                return bytes(result)
            buf = (buf << 8) | data[pos]
            pos += 1
            nbits += 8
        nbits -= width
        code = buf >> nbits
        buf &= (1 << nbits) - 1
        if code == 256:
            del table[258:]
            width = 9
            prev = b""
            continue
        if code == 257:
            return bytes(result)
        if not prev:
            if code > 255:
                raise ValueError("corrupt LZW data: the first code after a clear is not a literal")
            prev = table[code]
            result += prev
        else:
            if code < len(table):
                entry = table[code]
                if len(table) < 4096:  # a full table takes no more entries (12-bit codes reach 4095)
                    table.append(prev + entry[:1])
            elif code == len(table):
                entry = prev + prev[:1]
                table.append(entry)
            else:
                raise ValueError("corrupt LZW data: a code beyond the table")
            result += entry
            prev = entry
            if len(table) >= (1 << width) - 1 and width < 12:
                width += 1
        if cap is not None and len(result) > cap:
            raise _excess(cap)


def inflate(data: bytes, *, max_length: int) -> bytes:
    """Inflate one DEFLATE (zlib) strip or tile, refusing to make more than ``max_length`` bytes.

    The standard library's :class:`zlib.decompressobj` with ``max_length``:
    at most ``max_length`` bytes are ever held, however far the data would
    inflate. Raises :class:`DecodeLimitError` when the stream holds more
    than that, ``ValueError`` for a corrupt stream.
    """
    cap = _limit(max_length)
    assert cap is not None
    inflater = zlib.decompressobj()
    try:
        result = inflater.decompress(data, cap)
        if len(result) >= cap and not inflater.eof and inflater.decompress(inflater.unconsumed_tail, 1):
            raise _excess(cap)
    except zlib.error as err:
        raise ValueError(f"corrupt DEFLATE data: {err}") from None
    return result


def unpack_bits(data: bytes, *, max_length: int) -> bytes:
    """Decode one PackBits strip or tile (TIFF 6.0, section 9), refusing to make more than ``max_length`` bytes.

    A header byte ``n`` of 0 to 127 copies the next ``n + 1`` bytes, 129 to
    255 repeats the next byte ``257 - n`` times, 128 does nothing. Raises
    :class:`DecodeLimitError` when the data would decode past ``max_length``.
    """
    cap = _limit(max_length)
    assert cap is not None
    result = bytearray()
    pos, size = 0, len(data)
    while pos < size:
        n = data[pos]
        pos += 1
        if n < 128:
            result += data[pos : pos + n + 1]
            pos += n + 1
        elif n > 128:
            result += data[pos : pos + 1] * (257 - n)
            pos += 1
        if len(result) > cap:
            raise _excess(cap)
    return bytes(result)
