"""The size of a PNG, TIFF or OpenEXR image, read from its header without decoding it.

A heightmap import must refuse an image too large for memory *before* the
pixels are decoded: a few hundred kilobytes of compressed PNG can claim a
12000 x 12000 image, and Blender's ``Image.size`` decodes the whole file to
answer. Blender 4.2 bundles no library that reads only a header (OpenImageIO's
Python module ships from 4.5 on, and not on the ``bpy`` module's path), so
these few lines read the three headers directly, from their specifications:

- PNG: the IHDR chunk, which the PNG specification (W3C, 3rd ed., 11.2.1)
  requires first: width and height as big-endian 32-bit integers.
- TIFF: the first image file directory (TIFF 6.0, section 2; BigTIFF),
  wherever in the file it lies, tags 256 ImageWidth and 257 ImageLength,
  SHORT or LONG (LONG8 in BigTIFF).
- OpenEXR: the header attributes of the first part (OpenEXR file layout),
  ``dataWindow`` of type ``box2i``: ``xMin, yMin, xMax, yMax``.
"""

from __future__ import annotations

import struct
from typing import BinaryIO

__all__ = ["FORMATS", "image_size"]

#: Formats :func:`image_size` reads.
FORMATS = ("PNG", "TIFF", "OpenEXR")

_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_EXR_MAGIC = b"\x76\x2f\x31\x01"
_HEADER_LIMIT = 1 << 20  # bytes of an OpenEXR header read at most (its attributes)


def image_size(path: str) -> tuple[str, int, int]:
    """Format, rows and columns of an image file, from its header alone.

    Parameters
    ----------
    path : str
        A PNG, TIFF (classic or BigTIFF, either byte order) or OpenEXR file.

    Returns
    -------
    (format, rows, cols) : tuple of (str, int, int)
        ``format`` is one of :data:`FORMATS`; ``rows`` is the image height and
        ``cols`` its width, in pixels (at least 1 each).

    Raises
    ------
    ValueError
        If the file is none of these formats, or its header is cut short or
        gives a size below 1 pixel.
    OSError
        If the file cannot be opened or read.
    """
    with open(path, "rb") as f:
        head = f.read(_HEADER_LIMIT)
        if head.startswith(_PNG_MAGIC):
            return ("PNG", *_png(head))
        if head[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"):
            return ("TIFF", *_tiff(f, head))
    if head.startswith(_EXR_MAGIC):
        return ("OpenEXR", *_exr(head))
    raise ValueError("not a PNG, TIFF or OpenEXR file (by its first bytes)")


def _checked(rows: int, cols: int, what: str) -> tuple[int, int]:
    if rows < 1 or cols < 1:
        raise ValueError(f"the {what} header gives a size of {cols} x {rows} pixels")
    return rows, cols


def _png(head: bytes) -> tuple[int, int]:
    if len(head) < 24 or head[12:16] != b"IHDR":
        raise ValueError("the PNG file has no IHDR chunk first")
    cols, rows = struct.unpack(">II", head[16:24])
    return _checked(rows, cols, "PNG")


def _tiff(f: BinaryIO, head: bytes) -> tuple[int, int]:
    """Read the first image file directory, wherever in the file it is (writers often put it last)."""
    order = "<" if head[:2] == b"II" else ">"
    big = head[2:4] in (b"+\x00", b"\x00+")
    offset_code, count_code, entry, size = ("Q", "Q", "HHQ8s", 20) if big else ("I", "H", "HHI4s", 12)
    file_size = f.seek(0, 2)
    try:
        (offset,) = struct.unpack_from(order + offset_code, head, 8 if big else 4)
        if offset >= file_size:
            raise ValueError("the TIFF header points past the end of the file")
        f.seek(offset)
        directory = f.read(8 + 4096 * size)  # at most 4096 entries are looked at
        (count,) = struct.unpack_from(order + count_code, directory, 0)
        first = struct.calcsize(order + count_code)
        found = {}
        for i in range(min(count, 4096)):
            tag, kind, _, value = struct.unpack_from(order + entry, directory, first + i * size)
            if tag in (256, 257):
                code = {3: "H", 4: "I", 16: "Q"}.get(kind)
                if code is None or struct.calcsize(code) > len(value):
                    raise ValueError(f"the TIFF header gives tag {tag} an unexpected type {kind}")
                (found[tag],) = struct.unpack_from(order + code, value, 0)
    except struct.error:
        raise ValueError("the TIFF header is cut short") from None
    if 256 not in found or 257 not in found:
        raise ValueError("the TIFF header has no ImageWidth and ImageLength")
    return _checked(found[257], found[256], "TIFF")


def _exr(head: bytes) -> tuple[int, int]:
    pos = 8  # magic and version
    while True:
        end = head.find(b"\x00", pos)
        if end < 0:
            break
        name = head[pos:end]
        if not name:  # an empty name ends the header
            break
        type_end = head.find(b"\x00", end + 1)
        if type_end < 0 or type_end + 5 > len(head):
            break
        (length,) = struct.unpack_from("<i", head, type_end + 1)
        value = type_end + 5
        if name == b"dataWindow" and head[end + 1:type_end] == b"box2i" and length == 16:
            if value + 16 > len(head):
                break
            x_min, y_min, x_max, y_max = struct.unpack_from("<4i", head, value)
            return _checked(y_max - y_min + 1, x_max - x_min + 1, "OpenEXR")
        if length < 0:
            break
        pos = value + length
    raise ValueError("the OpenEXR header has no dataWindow")
