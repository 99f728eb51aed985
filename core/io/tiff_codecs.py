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

__all__ = ["COMPRESSIONS", "FREE_TILE_SIDE", "DecodeLimitError", "inflate", "lzw_decode", "segment_grid", "unpack_bits"]

#: The TIFF compressions Orogen reads (TIFF tag 259 value: name); a file with any other is refused unread.
COMPRESSIONS = {1: "none", 5: "LZW", 8: "DEFLATE", 32946: "DEFLATE", 32773: "PackBits"}

#: The tile side (pixels) allowed whatever the image's size: GDAL's COG driver writes 512 x 512 tiles even for an
#: image of 80 x 64 pixels, and users choose 1024 (at most 1024 x 1024 x 4 samples x 8 bytes, 32 MiB, a tile).
#: A larger tile must fit the image rounded up to a multiple of 16.
FREE_TILE_SIDE = 1024


class DecodeLimitError(ValueError):
    """A strip or tile decodes to more bytes than the file's header declares for it (a decompression bomb)."""


def _round16(n: int) -> int:
    return -(-max(n, 1) // 16) * 16


def segment_grid(
    rows: int, cols: int, *, tile: tuple[int, int, int] | None = None, rows_per_strip: int | None = None
) -> tuple[int, int]:
    """The rows and columns of pixels a decoder fills for an image: its strips or tiles laid side by side.

    A decoder allocates whole strips and tiles (the last ones padded), so what it costs is the strips times
    RowsPerStrip rows, or the tiles times the tile size, not the image's own rows x columns. A memory guard
    must see this grid, and each strip's or tile's decoding cap follows from the geometry checked here.

    Parameters
    ----------
    rows, cols : int
        ImageLength (257) and ImageWidth (256), pixels, at least 1.
    tile : (int, int, int), optional
        TileWidth (322), TileLength (323) and TileDepth (32998, 1 when absent) of a tiled image, pixels.
    rows_per_strip : int, optional
        RowsPerStrip (278) of a stripped image; absent, 0, or more than ``rows`` means one strip of ``rows``
        rows (TIFF 6.0 allows a larger value; it is capped at ``rows``).

    Returns
    -------
    (rows, cols) : (int, int)
        The padded grid: ``ceil(rows / TileLength) * TileLength`` by ``ceil(cols / TileWidth) * TileWidth``
        for tiles, ``ceil(rows / RowsPerStrip) * RowsPerStrip`` by ``cols`` for strips.

    Raises
    ------
    ValueError
        For a tile side below 1, or larger than both the image's side rounded up to a multiple of 16 (TIFF
        6.0, section 15, requires tile sides that are multiples of 16) and :data:`FREE_TILE_SIDE`, or a tile
        depth other than 1: a 64 x 64 image with 16384 x 16384 tiles would decode a gigabyte per tile.
    """
    if tile is None:
        per = min(rows_per_strip or rows, rows)
        return -(-rows // per) * per, cols
    width, length, depth = tile
    most = (max(_round16(cols), FREE_TILE_SIDE), max(_round16(rows), FREE_TILE_SIDE))
    if width < 1 or length < 1 or width > most[0] or length > most[1] or depth != 1:
        raise ValueError(
            f"its tiles are {width} x {length} pixels"
            + (f" x {depth} deep" if depth != 1 else "")
            + f" (TileWidth 322, TileLength 323) for an image of {cols} x {rows} pixels; a tile side may be at "
            f"most the image's rounded up to a multiple of 16 (TIFF 6.0 section 15), or {FREE_TILE_SIDE}, "
            f"whichever is larger: here {most[0]} x {most[1]}, 1 deep"
        )
    return -(-rows // length) * length, -(-cols // width) * width


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
