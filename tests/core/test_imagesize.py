"""Image sizes from headers alone, against files written by Pillow and headers built by the specifications."""

import os
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from core.io.image_headers import MAX_IMAGE_SIDE, check_file, check_image, image_size


@pytest.mark.parametrize(
    ("array", "suffix", "options", "fmt"),
    [
        (np.zeros((30, 50), np.uint8), ".png", {}, "PNG"),
        (np.zeros((30, 50), np.uint16), ".png", {}, "PNG"),
        (np.zeros((7, 3, 3), np.uint8), ".png", {}, "PNG"),
        (np.zeros((30, 50), np.uint8), ".tif", {}, "TIFF"),
        (np.zeros((30, 50), np.uint16), ".tif", {"compression": "tiff_deflate"}, "TIFF"),
        (np.zeros((30, 50), np.float32), ".tif", {"big_tiff": True}, "TIFF"),
        (np.zeros((70000, 1), np.uint8), ".tif", {}, "TIFF"),  # a LONG ImageLength
    ],
)
def test_sizes_of_files_pillow_writes(tmp_path, array, suffix, options, fmt):
    path = tmp_path / ("image" + suffix)
    Image.fromarray(array).save(path, **options)
    assert image_size(str(path)) == (fmt, array.shape[0], array.shape[1])


def big_endian_tiff(width, height, width_type=3, height_type=4):
    """A classic big-endian TIFF header with one directory: ImageWidth and ImageLength."""

    def entry(tag, kind, value):
        packed = struct.pack(">H", value) + b"\0\0" if kind == 3 else struct.pack(">I", value)
        return struct.pack(">HHI", tag, kind, 1) + packed

    return (
        b"MM\x00*"
        + struct.pack(">I", 8)
        + struct.pack(">H", 2)
        + entry(256, width_type, width)
        + entry(257, height_type, height)
        + struct.pack(">I", 0)
    )


def tiff_with_directory_last(width, height, padding):
    """A little-endian TIFF whose directory follows ``padding`` bytes of (pixel) data, as many writers do."""
    offset = 8 + padding
    entries = struct.pack("<HHII", 256, 4, 1, width) + struct.pack("<HHII", 257, 4, 1, height)
    return b"II*\x00" + struct.pack("<I", offset) + bytes(padding) + struct.pack("<H", 2) + entries + bytes(4)


def exr_header(x_min, y_min, x_max, y_max):
    """An OpenEXR header: magic, version, a channels attribute and the dataWindow."""
    channels = b"Y\0" + struct.pack("<iBBBBii", 2, 0, 0, 0, 0, 1, 1) + b"\0"
    return (
        b"\x76\x2f\x31\x01"
        + struct.pack("<I", 2)
        + b"channels\0chlist\0"
        + struct.pack("<i", len(channels))
        + channels
        + b"dataWindow\0box2i\0"
        + struct.pack("<i4i", 16, x_min, y_min, x_max, y_max)
        + b"\0"
    )


def png_header(width, height):
    ihdr = struct.pack(">IIBBBBB", width, height, 16, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (big_endian_tiff(640, 480), ("TIFF", 480, 640)),
        (big_endian_tiff(640, 100_000, 4, 4), ("TIFF", 100_000, 640)),
        (exr_header(0, 0, 99, 49), ("OpenEXR", 50, 100)),
        (exr_header(-10, 5, 9, 14), ("OpenEXR", 10, 20)),
        (png_header(12000, 12000), ("PNG", 12000, 12000)),  # a header claiming far more than the file holds
        (tiff_with_directory_last(1025, 1025, 2 * 1025 * 1025), ("TIFF", 1025, 1025)),  # past the first MiB
    ],
)
def test_sizes_of_headers_built_by_the_specifications(tmp_path, data, expected):
    path = tmp_path / "image"
    path.write_bytes(data)
    assert image_size(str(path)) == expected


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"", "not a PNG, JPEG, TIFF or OpenEXR file"),
        (b"GIF89a" + bytes(20), "not a PNG, JPEG, TIFF or OpenEXR file"),
        (b"\xff\xd8\xff\xe0" + bytes(20), "JPEG file is cut short inside a marker segment"),
        (b"\xff\xd8\xff\xda\x00\x08" + bytes(20), "scan before its frame header"),
        (b"\x89PNG\r\n\x1a\n" + bytes(4), "no IHDR chunk"),
        (png_header(0, 5), "size of 0 x 5 pixels"),
        (big_endian_tiff(640, 480)[:20], "cut short"),
        (big_endian_tiff(640, 480, width_type=2), "unexpected type 2"),
        (b"MM\x00*" + struct.pack(">IH", 8, 0) + bytes(4), "no ImageWidth and ImageLength"),
        (exr_header(0, 0, 9, 9)[:30], "no dataWindow"),
        (b"II+\x00\x08\x00\x00\x00" + struct.pack("<Q", 2**63), "points past the end of the file"),
        (b"II*\x00" + struct.pack("<I", 2**32 - 1), "points past the end of the file"),
        (tiff_with_directory_last(5, 5, 0)[:12], "cut short"),
        (exr_header(5, 5, 4, 9), "size of 0 x 5 pixels"),
    ],
)
def test_what_is_not_a_readable_header_is_a_value_error(tmp_path, data, match):
    path = tmp_path / "image.png"
    path.write_bytes(data)
    with pytest.raises(ValueError, match=match):
        image_size(str(path))


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bomb(side, idat_bytes):
    """A whole, valid-looking 8-bit grey PNG declaring ``side`` x ``side`` pixels with ``idat_bytes`` of zeros
    DEFLATE-coded: what its pixels inflate to is never looked at by the header checks."""
    ihdr = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    packer = zlib.compressobj(9)
    data = b"".join(packer.compress(bytes(1 << 20)) for _ in range(idat_bytes >> 20)) + packer.flush()
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", data) + chunk(b"IEND", b"")


def test_jpeg_sizes_and_cut_jpegs(tmp_path):
    path = tmp_path / "photo.jpg"
    Image.fromarray(np.arange(30 * 50 * 3, dtype=np.uint8).reshape(30, 50, 3)).save(path, quality=90)
    assert image_size(str(path)) == ("JPEG", 30, 50)
    assert check_image(str(path)) == ("JPEG", 30, 50)
    Image.fromarray(np.zeros((70, 20), np.uint8)).save(tmp_path / "progressive.jpg", progressive=True)
    assert check_image(str(tmp_path / "progressive.jpg")) == ("JPEG", 70, 20)
    data = path.read_bytes()
    (tmp_path / "cut.jpg").write_bytes(data[: len(data) - 40])
    with pytest.raises(ValueError, match="no end-of-image marker"):
        check_image(str(tmp_path / "cut.jpg"))
    (tmp_path / "cut-header.jpg").write_bytes(data[:100])
    with pytest.raises(ValueError, match="cut short"):
        check_image(str(tmp_path / "cut-header.jpg"))


def test_check_file_refuses_before_anything_decodes(tmp_path):
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(png_bomb(30000, 64 << 20))
    assert bomb.stat().st_size < 1 << 20
    assert check_image(str(bomb)) == ("PNG", 30000, 30000)  # whole and well-formed: only its size tells
    with pytest.raises(ValueError, match=r"bomb.png cannot be read: its header declares 30000 x 30000 pixels; "):
        check_file(str(bomb))
    assert MAX_IMAGE_SIDE == 16384
    calls = []

    def guard(rows, cols):
        calls.append((rows, cols))
        raise ValueError("too large for memory")

    with pytest.raises(ValueError, match="bomb.png cannot be read: too large for memory"):
        check_file(str(bomb), guard, max_side=30000)
    assert calls == [(30000, 30000)]
    good = tmp_path / "good.png"
    Image.fromarray(np.zeros((30, 50), np.uint8)).save(good)
    assert check_file(str(good), lambda r, c: calls.append((r, c))) == ("PNG", 30, 50)
    assert calls[-1] == (30, 50)
    with pytest.raises(ValueError, match="good.png cannot be read: it is a PNG image; Orogen reads TIFF here"):
        check_file(str(good), formats=("TIFF",))
    data = good.read_bytes()
    (tmp_path / "cut.png").write_bytes(data[:-20])
    with pytest.raises(ValueError, match="cut.png cannot be read: the PNG file is cut short"):
        check_file(str(tmp_path / "cut.png"))
    # a cut OpenEXR (its one chunk past the end): what crashes Blender's loader
    header = exr_header(0, 0, 3, 0)[:-1] + b"compression\0compression\0" + struct.pack("<iB", 1, 0) + b"\0"
    exr = tmp_path / "cut.exr"
    exr.write_bytes(header + struct.pack("<Q", len(header) + 8) + struct.pack("<ii", 0, 32) + bytes(10))
    with pytest.raises(ValueError, match="cut.exr cannot be read: the OpenEXR file is cut short inside its pixel"):
        check_file(str(exr))
    with pytest.raises(ValueError, match="missing.png cannot be read: No such file"):
        check_file(str(tmp_path / "missing.png"))
    (tmp_path / "folder.png").mkdir()
    with pytest.raises(ValueError, match=r"^folder.png is a folder, not a regular file: Orogen reads an image from"):
        check_file(str(tmp_path / "folder.png"))
    with pytest.raises(ValueError, match=r"^null is a character device, not a regular file"):
        check_file("/dev/null")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo.png")  # opening it would block until a writer came
        with pytest.raises(ValueError, match=r"^fifo.png is a FIFO \(named pipe\), not a regular file"):
            check_file(str(tmp_path / "fifo.png"))
