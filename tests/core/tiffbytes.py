"""Classic little-endian TIFF files written byte by byte, for files no TIFF library writes: a tag given twice,
pages in any order, any GeoTIFF tag values. Only what tests need: one band, uncompressed, one strip per page."""

import struct

import numpy as np

#: TIFF field types: struct code per value (RATIONAL is two LONGs).
TYPES = {1: "B", 3: "H", 4: "I", 5: "I", 11: "f", 12: "d", 16: "Q"}
ASCII, SHORT, LONG, DOUBLE = 2, 3, 4, 12


def tiff_bytes(pages):
    """The bytes of a TIFF holding ``pages``: ``[(array, [(tag, type, values), ...]), ...]``.

    Each array (2-D, any integer or float dtype) is one uncompressed strip; the listed entries are added to
    the page's own (size, strip, sample format) and may repeat a tag. ASCII values are a ``str``.
    """
    out = bytearray(b"II*\x00\x00\x00\x00\x00")
    link = 4  # where the next directory's offset goes
    for array, extra in pages:
        array = np.ascontiguousarray(array)
        data_at = len(out)
        out += array.tobytes()
        rows, cols = array.shape
        entries = [
            (256, LONG, [cols]),
            (257, LONG, [rows]),
            (258, SHORT, [array.dtype.itemsize * 8]),
            (259, SHORT, [1]),
            (262, SHORT, [1]),
            (273, LONG, [data_at]),
            (277, SHORT, [1]),
            (278, LONG, [rows]),
            (279, LONG, [array.nbytes]),
            (339, SHORT, [{"u": 1, "i": 2, "f": 3}[array.dtype.kind]]),
            *extra,
        ]
        entries.sort(key=lambda e: e[0])  # stable: a repeated tag keeps its order
        fields = []
        for tag, kind, values in entries:
            if kind == ASCII:
                blob = values.encode() + b"\x00"
                count = len(blob)
            else:
                blob = struct.pack("<" + TYPES[kind] * len(values), *values)
                count = len(values) // (2 if kind == 5 else 1)
            fields.append((tag, kind, count, blob))
        out += b"\x00" * (len(out) % 2)
        ifd = len(out)
        struct.pack_into("<I", out, link, ifd)
        out += struct.pack("<H", len(fields)) + b"\x00" * (12 * len(fields) + 4)
        for i, (tag, kind, count, blob) in enumerate(fields):
            at = ifd + 2 + 12 * i
            if len(blob) <= 4:
                struct.pack_into("<HHI4s", out, at, tag, kind, count, blob.ljust(4, b"\x00"))
            else:
                out += b"\x00" * (len(out) % 2)
                struct.pack_into("<HHII", out, at, tag, kind, count, len(out))
                out += blob
        link = ifd + 2 + 12 * len(fields)
    return bytes(out)


def geokeys(*keys, revision=(1, 1, 0)):
    """A GeoKeyDirectoryTag (34735) entry of SHORT keys ``(key, value)``, ``(key, 34736, index)`` for a DOUBLE."""
    values = [revision[0], revision[1], revision[2], len(keys)]
    for key in keys:
        values += [key[0], 0, 1, key[1]] if len(key) == 2 else [key[0], key[1], 1, key[2]]
    return (34735, SHORT, values)


def write(path, pages):
    path.write_bytes(tiff_bytes(pages))
    return str(path)
