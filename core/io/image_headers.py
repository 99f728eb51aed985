"""PNG, JPEG, TIFF and OpenEXR headers: an image's size without decoding it, and the check before any read.

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
- JPEG (ITU-T T.81, annex B): the markers from SOI to the first
  start-of-frame (SOF0 to SOF15 but DHT, JPG and DAC), which gives the
  number of lines and of samples per line.

:func:`check_image` goes further and checks that the whole file is there
before any decoder sees it (Blender's OpenEXR loader crashes on a file cut
inside its pixel data; its TIFF loader fills missing strips with 0; its PNG
writer does not report a short write):

- PNG: every chunk's length and CRC-32, IHDR first, IEND present.
- OpenEXR (single-part scan-line or tiled): the chunk offset table that
  follows the header, its length from the compression's lines per chunk or
  the tile description, every chunk's header and data inside the file.
- TIFF: the first directory's StripOffsets/StripByteCounts (or
  TileOffsets/TileByteCounts), as many as the image needs, every strip or
  tile inside the file, and tiles no larger than the image rounded up to a
  multiple of 16 (:func:`core.io.tiff_codecs.segment_grid`: a decoder
  allocates whole tiles, so a 64 x 64 image of 16384 x 16384 tiles is a
  decompression bomb).
- JPEG: every marker segment up to the first scan inside the file, and an
  end-of-image marker after it (entropy-coded data stuffs every 0xFF byte,
  so a cut file has none).

:func:`check_file` is what every reader of an image calls before anything
decodes it (a heightmap import, an Image colour layer, a DEM): a regular
file (a FIFO or a device is refused, not opened), its header's size within
``max_side`` pixels a side and accepted by the caller's memory guard, and
:func:`check_image`'s whole-file checks. A cut OpenEXR crashes Blender's
loader and a 0.8 MiB PNG can declare 30000 x 30000 pixels: both are refused
here, before a decoder sees them.
"""

from __future__ import annotations

import math
import os
import stat
import struct
import zlib
from collections.abc import Callable
from typing import BinaryIO

from .tiff_codecs import segment_grid

__all__ = ["FORMATS", "MAX_IMAGE_SIDE", "check_file", "check_image", "image_size"]

#: Formats :func:`image_size` reads.
FORMATS = ("PNG", "JPEG", "TIFF", "OpenEXR")
#: The largest side, in pixels, of an image :func:`check_file` lets through by default (the largest texture
#: Blender's GPU module makes on common hardware, 16384; an image colour layer larger than that is scaled down
#: by the GPU anyway).
MAX_IMAGE_SIDE = 16384

_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_EXR_MAGIC = b"\x76\x2f\x31\x01"
_JPEG_MAGIC = b"\xff\xd8\xff"
_HEADER_LIMIT = 1 << 20  # bytes of an OpenEXR header read at most (its attributes)


def image_size(path: str) -> tuple[str, int, int]:
    """Format, rows and columns of an image file, from its header alone.

    Parameters
    ----------
    path : str
        A PNG, JPEG, TIFF (classic or BigTIFF, either byte order) or OpenEXR file.

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
        if head.startswith(_JPEG_MAGIC):
            rows, cols, _ = _jpeg(f)
            return ("JPEG", rows, cols)
    if head.startswith(_EXR_MAGIC):
        return ("OpenEXR", *_exr(head))
    raise ValueError("not a PNG, JPEG, TIFF or OpenEXR file (by its first bytes)")


def check_image(path: str, shape: tuple[int, int] | None = None) -> tuple[str, int, int]:
    """Format, rows and columns of an image file, after checking that the whole file is present.

    Parameters
    ----------
    path : str
        A PNG, JPEG, TIFF or single-part OpenEXR file.
    shape : (int, int), optional
        The ``(rows, cols)`` the image must have (a file just written).

    Returns
    -------
    (format, rows, cols) : tuple of (str, int, int)
        As :func:`image_size`.

    Raises
    ------
    ValueError
        If the file is cut short or damaged (a PNG chunk with a wrong CRC or
        no IEND, an OpenEXR chunk or a TIFF strip or tile past the end of the
        file, a missing offset table, a JPEG without its end-of-image marker),
        is a multi-part or deep OpenEXR, or
        has another size than ``shape``.
    OSError
        If the file cannot be opened or read.
    """
    fmt, rows, cols = image_size(path)
    with open(path, "rb") as f:
        size = f.seek(0, 2)
        f.seek(0)
        if fmt == "PNG":
            _check_png(f)
        elif fmt == "JPEG":
            _check_jpeg(f, size)
        elif fmt == "OpenEXR":
            _check_exr(f, size)
        else:
            _check_tiff(f, size, rows, cols)
    if shape is not None and (rows, cols) != tuple(shape):
        raise ValueError(f"the {fmt} file is {cols} x {rows} pixels, not {shape[1]} x {shape[0]}")
    return fmt, rows, cols


def check_file(
    path: str,
    check_size: Callable[[int, int], None] | None = None,
    *,
    max_side: int = MAX_IMAGE_SIDE,
    formats: tuple[str, ...] = FORMATS,
) -> tuple[str, int, int]:
    """Check an image file before anything decodes it: a regular file, a known format, a bounded size, whole.

    Parameters
    ----------
    path : str
        The file.
    check_size : callable, optional
        ``check_size(rows, cols)``, the caller's memory guard, run on the
        header's size; it raises ``ValueError`` to refuse.
    max_side : int
        The most pixels a side may have (default :data:`MAX_IMAGE_SIDE`).
    formats : tuple of str
        The formats the caller reads (names from :data:`FORMATS`).

    Returns
    -------
    (format, rows, cols) : tuple of (str, int, int)
        As :func:`image_size`.

    Raises
    ------
    ValueError
        Naming the file (its base name) and what is wrong: missing, not a
        regular file, not one of ``formats``, larger than ``max_side`` or
        refused by ``check_size``, cut short or damaged (:func:`check_image`).
    """
    name = os.path.basename(path) or path
    try:
        mode = os.stat(path).st_mode
    except OSError as err:
        raise ValueError(f"{name} cannot be read: {err.strerror or err}") from None
    if not stat.S_ISREG(mode):
        raise ValueError(f"{name} is {_file_kind(mode)}, not a regular file: Orogen reads an image from a file")
    try:
        fmt, rows, cols = image_size(path)
        if fmt not in formats:
            raise ValueError(f"it is a {fmt} image; Orogen reads {', '.join(formats)} here")
        if max(rows, cols) > max_side:
            raise ValueError(
                f"its header declares {cols} x {rows} pixels; Orogen reads images of at most {max_side} pixels a side"
            )
        if check_size is not None:
            check_size(rows, cols)
        check_image(path)
    except OSError as err:
        raise ValueError(f"{name} cannot be read: {err.strerror or err}") from None
    except ValueError as err:
        raise ValueError(f"{name} cannot be read: {err}") from None
    return fmt, rows, cols


def _file_kind(mode: int) -> str:
    """What a path that is not a regular file is, from its ``st_mode``: ``"a folder"``, ``"a FIFO"``, ..."""
    for test, kind in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "a special file"


#: JPEG start-of-frame markers (ITU-T T.81, table B.1): 0xC0 to 0xCF but DHT (C4), JPG (C8) and DAC (CC).
_JPEG_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg(f: BinaryIO) -> tuple[int, int, int]:
    """Rows and columns from the first start-of-frame, and the offset just after the first scan's header."""
    size = f.seek(0, 2)
    pos = 2
    found: tuple[int, int] | None = None
    while True:
        f.seek(pos)
        marker = f.read(2)
        if len(marker) < 2 or marker[0] != 0xFF:
            raise ValueError("the JPEG file is cut short or damaged before its first scan")
        kind = marker[1]
        if kind == 0xFF:  # a fill byte
            pos += 1
            continue
        if kind == 0x01 or 0xD0 <= kind <= 0xD7:  # TEM and RSTn stand alone
            pos += 2
            continue
        raw = f.read(2)
        if len(raw) < 2:
            raise ValueError("the JPEG file is cut short before its first scan")
        (length,) = struct.unpack(">H", raw)
        if length < 2 or pos + 2 + length > size:
            raise ValueError("the JPEG file is cut short inside a marker segment")
        if kind in _JPEG_SOF and found is None:
            frame = f.read(5)
            if len(frame) < 5:
                raise ValueError("the JPEG frame header is cut short")
            _, rows, cols = struct.unpack(">BHH", frame)
            found = _checked(rows, cols, "JPEG")
        if kind == 0xDA:  # start of scan
            if found is None:
                raise ValueError("the JPEG file has a scan before its frame header")
            return found[0], found[1], pos + 2 + length
        if kind == 0xD9:
            raise ValueError("the JPEG file ends before its first scan")
        pos += 2 + length


def _check_jpeg(f: BinaryIO, size: int) -> None:
    _, _, scan = _jpeg(f)
    f.seek(scan)
    carry = b""
    while True:
        block = f.read(1 << 20)
        if not block:
            raise ValueError(f"the JPEG file is cut short: no end-of-image marker after its scan ({size} bytes)")
        if b"\xff\xd9" in carry + block:
            return
        carry = block[-1:]


def _check_png(f: BinaryIO) -> None:
    f.seek(len(_PNG_MAGIC))
    first = True
    while True:
        head = f.read(8)
        if len(head) < 8:
            raise ValueError("the PNG file is cut short (no IEND chunk)")
        length, kind = struct.unpack(">I4s", head)
        if length > 0x7FFFFFFF:
            raise ValueError("the PNG file has a chunk longer than the format allows")
        if first and kind != b"IHDR":
            raise ValueError("the PNG file has no IHDR chunk first")
        first = False
        crc = zlib.crc32(kind)
        left = length
        while left:
            block = f.read(min(left, 1 << 20))
            if not block:
                raise ValueError(f"the PNG file is cut short inside its {kind.decode('latin-1')} chunk")
            crc = zlib.crc32(block, crc)
            left -= len(block)
        stored = f.read(4)
        if len(stored) < 4:
            raise ValueError(f"the PNG file is cut short inside its {kind.decode('latin-1')} chunk")
        if struct.unpack(">I", stored)[0] != crc:
            raise ValueError(f"the PNG file's {kind.decode('latin-1')} chunk is damaged (CRC mismatch)")
        if kind == b"IEND":
            return


#: Scan lines per chunk of each OpenEXR compression (OpenEXR file layout, "Compression").
_EXR_LINES = {0: 1, 1: 1, 2: 1, 3: 16, 4: 32, 5: 16, 6: 32, 7: 32, 8: 32, 9: 256}


def _exr_attributes(f: BinaryIO) -> tuple[dict[bytes, tuple[bytes, bytes]], int]:
    """The first header's attributes ``{name: (type, value)}`` and the offset just after it."""
    f.seek(0)
    head = f.read(_HEADER_LIMIT)
    pos = 8
    found: dict[bytes, tuple[bytes, bytes]] = {}
    while True:
        end = head.find(b"\x00", pos)
        if end < 0:
            raise ValueError("the OpenEXR header is cut short")
        if end == pos:
            return found, end + 1
        type_end = head.find(b"\x00", end + 1)
        if type_end < 0 or type_end + 5 > len(head):
            raise ValueError("the OpenEXR header is cut short")
        (length,) = struct.unpack_from("<i", head, type_end + 1)
        value = type_end + 5
        if length < 0 or value + length > len(head):
            raise ValueError("the OpenEXR header is cut short or damaged")
        found[head[pos:end]] = (head[end + 1 : type_end], head[value : value + length])
        pos = value + length


def _level_count(size: int, rounding_up: bool) -> int:
    """Mip levels of an axis of ``size`` pixels: ``floor`` or ``ceil`` of ``log2(size)``, plus 1."""
    return int((math.ceil if rounding_up else math.floor)(math.log2(size))) + 1 if size > 1 else 1


def _levels(size: int, tile: int, rounding_up: bool, count: int) -> list[int]:
    """Tiles along one axis of ``size`` pixels at each of ``count`` levels (OpenEXR level sizes)."""
    sizes = []
    for level in range(count):
        div = 1 << level
        side = max((size + div - 1) // div if rounding_up else size // div, 1)
        sizes.append(-(-side // tile))
    return sizes


def _check_exr(f: BinaryIO, size: int) -> None:
    f.seek(4)
    (version,) = struct.unpack("<I", f.read(4))
    if version & 0x1000:
        raise ValueError("multi-part OpenEXR files are not read: save the heights as a single-part image")
    if version & 0x800:
        raise ValueError("deep OpenEXR files are not read: save the heights as a plain image")
    attrs, table = _exr_attributes(f)
    if b"dataWindow" not in attrs or b"compression" not in attrs:
        raise ValueError("the OpenEXR header has no dataWindow or compression")
    x_min, y_min, x_max, y_max = struct.unpack("<4i", attrs[b"dataWindow"][1][:16])
    rows, cols = y_max - y_min + 1, x_max - x_min + 1
    compression = attrs[b"compression"][1][0]
    if compression not in _EXR_LINES:
        raise ValueError(f"the OpenEXR file uses compression {compression}, which Orogen does not know")
    if version & 0x200:  # tiled
        tiles = attrs.get(b"tiles")
        if tiles is None or len(tiles[1]) < 9:
            raise ValueError("the tiled OpenEXR file has no tile description")
        tx, ty, mode = struct.unpack_from("<IIB", tiles[1])
        if tx < 1 or ty < 1:
            raise ValueError("the OpenEXR tile description gives a tile size below 1")
        level_mode, up = mode & 0xF, bool(mode >> 4)
        if level_mode == 0:
            chunks = -(-cols // tx) * -(-rows // ty)
        elif level_mode == 1:
            n = _level_count(max(cols, rows), up)
            chunks = sum(a * b for a, b in zip(_levels(cols, tx, up, n), _levels(rows, ty, up, n), strict=True))
        elif level_mode == 2:
            chunks = sum(
                a * b
                for a in _levels(cols, tx, up, _level_count(cols, up))
                for b in _levels(rows, ty, up, _level_count(rows, up))
            )
        else:
            raise ValueError(f"the OpenEXR tile description has an unknown level mode {level_mode}")
        chunk_head = 20  # tile x, y, level x, y, data size
    else:
        chunks = -(-rows // _EXR_LINES[compression])
        chunk_head = 8  # y, data size
    end_of_table = table + 8 * chunks
    if end_of_table > size:
        raise ValueError("the OpenEXR file is cut short inside its chunk offset table")
    f.seek(table)
    offsets = struct.unpack(f"<{chunks}Q", f.read(8 * chunks))
    for offset in offsets:
        if offset < end_of_table or offset + chunk_head > size:
            raise ValueError("the OpenEXR file is cut short: a chunk lies past the end of the file")
        f.seek(offset + chunk_head - 4)
        (length,) = struct.unpack("<i", f.read(4))
        if length < 0 or offset + chunk_head + length > size:
            raise ValueError("the OpenEXR file is cut short inside its pixel data")


_TIFF_TAG_NAMES = {
    256: "ImageWidth",
    257: "ImageLength",
    258: "BitsPerSample",
    259: "Compression",
    273: "StripOffsets",
    277: "SamplesPerPixel",
    278: "RowsPerStrip",
    279: "StripByteCounts",
    322: "TileWidth",
    323: "TileLength",
    324: "TileOffsets",
    325: "TileByteCounts",
}
_TIFF_TYPES = {1: "B", 3: "H", 4: "I", 16: "Q", 13: "I", 18: "Q"}


def _check_tiff(f: BinaryIO, size: int, rows: int, cols: int) -> None:
    f.seek(0)
    head = f.read(16)
    order = "<" if head[:2] == b"II" else ">"
    big = head[2:4] in (b"+\x00", b"\x00+")
    offset_code, count_code, entry_size = ("Q", "Q", 20) if big else ("I", "H", 12)
    inline = 8 if big else 4
    (ifd,) = struct.unpack_from(order + offset_code, head, 8 if big else 4)
    f.seek(ifd)
    raw = f.read(8)
    (count,) = struct.unpack_from(order + count_code, raw, 0)
    first = ifd + struct.calcsize(order + count_code)
    f.seek(first)
    directory = f.read(min(count, 4096) * entry_size)
    if len(directory) < min(count, 4096) * entry_size:
        raise ValueError("the TIFF directory is cut short")
    wanted = {258, 259, 277, 278, 284, 273, 279, 322, 323, 324, 325}
    tags: dict[int, tuple[int, ...]] = {}
    for i in range(min(count, 4096)):
        tag, kind = struct.unpack_from(order + "HH", directory, i * entry_size)
        if tag not in wanted:
            continue
        (n,) = struct.unpack_from(order + ("Q" if big else "I"), directory, i * entry_size + 4)
        code = _TIFF_TYPES.get(kind)
        if code is None:
            raise ValueError(f"the TIFF directory gives tag {tag} an unexpected type {kind}")
        nbytes = n * struct.calcsize(code)
        if n > 1 << 26:
            raise ValueError(f"the TIFF directory gives tag {tag} {n} values")
        value_at = i * entry_size + 4 + (8 if big else 4)
        if nbytes <= inline:
            data = directory[value_at : value_at + nbytes]
        else:
            (where,) = struct.unpack_from(order + offset_code, directory, value_at)
            if where + nbytes > size:
                raise ValueError(f"the TIFF file is cut short: tag {tag}'s values lie past its end")
            f.seek(where)
            data = f.read(nbytes)
        tags[tag] = struct.unpack(f"{order}{n}{code}", data)
    planes = tags.get(277, (1,))[0] if tags.get(284, (1,))[0] == 2 else 1
    if 324 in tags:
        tw, tl = tags.get(322, (0,))[0], tags.get(323, (0,))[0]
        if tw < 1 or tl < 1:
            raise ValueError("the tiled TIFF file has no TileWidth or TileLength")
        segment_grid(rows, cols, tile=(tw, tl, 1))  # a tile no larger than the image: no bomb of huge tiles
        offsets, counts, what = tags[324], tags.get(325), "tiles"
        needed = -(-cols // tw) * -(-rows // tl) * planes
    elif 273 in tags:
        per_strip = min(tags.get(278, (rows,))[0] or rows, rows)
        offsets, counts, what = tags[273], tags.get(279), "strips"
        needed = -(-rows // per_strip) * planes
    else:
        raise ValueError("the TIFF file has neither strips nor tiles")
    if counts is None or len(counts) != len(offsets):
        raise ValueError(f"the TIFF file does not say how long its {what} are")
    if len(offsets) < needed:
        raise ValueError(f"the TIFF file has {len(offsets)} {what}; its size needs {needed}")
    for offset, length in zip(offsets, counts, strict=True):
        if offset + length > size:
            raise ValueError(f"the TIFF file is cut short: its {what} run past the end of the file ({size} bytes)")


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
        seen = set()
        for i in range(min(count, 4096)):
            tag, kind, _, value = struct.unpack_from(order + entry, directory, first + i * size)
            if tag in seen:  # readers differ on which one holds (the size check and the decoder must agree)
                what = _TIFF_TAG_NAMES.get(tag, "a tag")
                raise ValueError(f"the TIFF directory gives tag {tag} ({what}) twice: which one holds is undefined")
            seen.add(tag)
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
        if name == b"dataWindow" and head[end + 1 : type_end] == b"box2i" and length == 16:
            if value + 16 > len(head):
                break
            x_min, y_min, x_max, y_max = struct.unpack_from("<4i", head, value)
            return _checked(y_max - y_min + 1, x_max - x_min + 1, "OpenEXR")
        if length < 0:
            break
        pos = value + length
    raise ValueError("the OpenEXR header has no dataWindow")
