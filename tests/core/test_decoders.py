"""Hostile TIFFs: decompression bombs, undocumented compressions, grey + alpha (core.io.geotiff's decoders).

The files are built here, byte by byte (a one-strip classic TIFF), so each
states exactly what its header declares and what its strip holds. Peak
memory is measured with tracemalloc (numpy reports its buffers to it): a
refused bomb must cost a few megabytes at most, not what it would inflate to.
"""

import lzma
import struct
import tracemalloc
import zlib

import numpy as np
import pytest

from core.io import geotiff

INFLATED = 64 << 20  # what each bomb's strip decodes to without a cap: 64 MiB
PEAK = 4 << 20  # the most a refused bomb may cost


def tiff(path, rows, cols, strip, *, compression=1, bits=32, sample_format=3, samples=1, photometric=1, extra=()):
    """A little-endian classic TIFF of one strip holding ``strip`` (already compressed), as its header declares."""
    entries = [
        (256, 4, [cols]),
        (257, 4, [rows]),
        (258, 3, [bits] * samples),
        (259, 3, [compression]),
        (262, 3, [photometric]),
        (273, 4, [0]),  # patched below
        (277, 3, [samples]),
        (278, 4, [rows]),
        (279, 4, [len(strip)]),
        (284, 3, [1]),
    ]
    if extra:
        entries.append((338, 3, list(extra)))
    entries.append((339, 3, [sample_format] * samples))
    ifd = 8
    blob_at = ifd + 2 + 12 * len(entries) + 4
    blobs = b""
    body = b""
    strip_at = None
    for tag, kind, values in entries:
        code = "H" if kind == 3 else "I"
        data = struct.pack(f"<{len(values)}{code}", *values)
        if len(data) <= 4:
            body += struct.pack("<HHI", tag, kind, len(values)) + data.ljust(4, b"\0")
        else:
            body += struct.pack("<HHII", tag, kind, len(values), blob_at + len(blobs))
            blobs += data
        if tag == 273:
            strip_at = len(body) - 4
    offset = blob_at + len(blobs)
    body = body[:strip_at] + struct.pack("<I", offset) + body[strip_at + 4 :]
    raw = b"II*\0" + struct.pack("<I", ifd) + struct.pack("<H", len(entries)) + body + b"\0\0\0\0" + blobs + strip
    path.write_bytes(raw)
    return str(path)


def zeros_deflated(size):
    """``size`` zero bytes DEFLATE-compressed, made a megabyte at a time (the test itself stays small)."""
    packer = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    return b"".join(packer.compress(chunk) for _ in range(size >> 20)) + packer.flush()


def lzw_bomb(size):
    """A TIFF LZW stream of zeros: codes 258, 259, ... each one zero longer, then the longest repeated."""
    codes = [256, 0]
    table, width, widths = 258, 9, [9, 9]
    out = 1

    def emitted(code):
        nonlocal table, width, out
        codes.append(code)
        widths.append(width)
        out += code - 256 if code >= 258 else 1
        if table < 4096:
            table += 1
        if table >= (1 << width) - 1 and width < 12:
            width += 1

    while table < 4096:
        emitted(table)
    longest = 4095 - 256
    while out < size:
        emitted(4095)
    bits = "".join(format(c, f"0{w}b") for c, w in zip(codes, widths, strict=True))
    bits += "0" * (-len(bits) % 8)
    return int(bits, 2).to_bytes(len(bits) // 8, "big"), longest


def peak_of(call):
    """``call()``'s exception (it must raise ValueError) and the peak bytes traced while it ran."""
    geotiff._tifffile()  # imported before: importing it costs tens of megabytes once
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        with pytest.raises(ValueError) as caught:
            call()
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    return caught.value, peak


def test_a_deflate_bomb_is_refused_at_the_size_its_header_declares(tmp_path):
    strip = zeros_deflated(INFLATED)
    assert len(strip) < INFLATED // 500
    path = tmp_path / "bomb.tif"
    tiff(path, 64, 64, strip, compression=8)
    calls = []
    err, peak = peak_of(lambda: geotiff.read_elevation(str(path), lambda r, c: calls.append((r, c))))
    assert "bomb.tif" in str(err) and "more than the 16384 bytes its header declares" in str(err)
    assert calls == [(64, 64)]  # the memory guard ran first, on the declared size
    assert peak < PEAK, f"refusing the bomb cost {peak} bytes"


def test_an_lzw_bomb_is_refused_at_the_size_its_header_declares(tmp_path):
    stream, longest = lzw_bomb(INFLATED)
    assert longest == 3839 and len(stream) < INFLATED // 2000
    assert len(geotiff.lzw_decode(stream[:4000])) > 1 << 20  # the stream really is a bomb
    path = tmp_path / "lzw.tif"
    tiff(path, 64, 64, stream, compression=5)
    err, peak = peak_of(lambda: geotiff.read_elevation(str(path)))
    assert "lzw.tif" in str(err) and "more than the 16384 bytes" in str(err)
    assert peak < PEAK, f"refusing the bomb cost {peak} bytes"
    with pytest.raises(geotiff.DecodeLimitError, match="more than the 1000 bytes"):
        geotiff.lzw_decode(stream, max_length=1000)


def test_a_packbits_bomb_is_refused(tmp_path):
    strip = b"\x81\x00" * (8 << 20 >> 7)  # each pair repeats a zero 128 times: 8 MiB
    path = tmp_path / "packbits.tif"
    tiff(path, 64, 64, strip, compression=32773)
    err, peak = peak_of(lambda: geotiff.read_elevation(str(path)))
    assert "packbits.tif" in str(err) and "more than the 16384 bytes" in str(err)
    assert peak < PEAK + 2 * len(strip)


@pytest.mark.parametrize(
    ("code", "pack", "name"),
    [
        (34925, lambda d: lzma.compress(d, format=lzma.FORMAT_ALONE), "LZMA"),
        (50000, lambda d: b"\x28\xb5\x2f\xfd" + d[:64], "ZSTD"),
        (7, lambda d: b"\xff\xd8" + d[:64], "JPEG"),
        (34712, lambda d: d[:64], "JPEG2000"),
    ],
)
def test_undocumented_compressions_are_refused_before_decoding(tmp_path, code, pack, name):
    strip = pack(bytes(INFLATED)) if code == 34925 else pack(bytes(1024))
    path = tmp_path / "other.tif"
    tiff(path, 64, 64, strip, compression=code)
    calls = []
    err, peak = peak_of(lambda: geotiff.read_elevation(str(path), lambda r, c: calls.append((r, c))))
    message = str(err)
    assert message.startswith("other.tif uses ") and f"({code})" in message and name in message
    assert "uncompressed or use LZW, DEFLATE or PackBits" in message
    assert calls == []  # refused before the size check, before any decoding
    assert peak < PEAK


def test_the_bounded_decoders_read_what_they_should_and_leave_tifffile_as_it_was(tmp_path):
    tifffile = geotiff._tifffile()
    values = (np.arange(64 * 48, dtype=np.int32).reshape(64, 48) * 37 % 5000 - 900).astype(np.int16)
    before = dict(tifffile.TIFF.DECOMPRESSORS._codecs)
    for compression, predictor in [("zlib", None), ("zlib", "horizontal")]:
        path = tmp_path / f"{compression}-{predictor}.tif"
        tifffile.imwrite(path, values, compression=compression, predictor=predictor, rowsperstrip=7)
        assert np.array_equal(geotiff.read_elevation(str(path)).heights, values.astype(np.float32))
    raw = values.tobytes()
    packed = b"".join(b"\x7f" + raw[i : i + 128] for i in range(0, len(raw), 128))  # literal runs of 128
    path = tiff(tmp_path / "packbits.tif", 64, 48, packed, compression=32773, bits=16, sample_format=2)
    assert np.array_equal(geotiff.read_elevation(path).heights, values.astype(np.float32))
    assert dict(tifffile.TIFF.DECOMPRESSORS._codecs) == before
    # the same strip, declared one row shorter: one row too many is refused
    data = zlib.compress(values.tobytes())
    path = tiff(tmp_path / "short.tif", 63, 48, data, compression=8, bits=16, sample_format=2)
    with pytest.raises(ValueError, match="short.tif cannot be read: .*more than the 6048 bytes"):
        geotiff.read_elevation(path)


def test_inflate_and_unpack_bits_stop_at_their_cap():
    data = bytes(range(256)) * 40
    assert geotiff.inflate(zlib.compress(data), max_length=len(data)) == data
    with pytest.raises(geotiff.DecodeLimitError):
        geotiff.inflate(zlib.compress(data), max_length=len(data) - 1)
    assert geotiff.unpack_bits(b"\x02abc\xfdz\x80", max_length=7) == b"abczzzz"
    with pytest.raises(geotiff.DecodeLimitError):
        geotiff.unpack_bits(b"\x02abc\xfdz", max_length=6)
    with pytest.raises(ValueError, match="corrupt DEFLATE"):
        geotiff.inflate(b"not zlib", max_length=100)
    with pytest.raises(ValueError, match="at least 1"):
        geotiff.inflate(zlib.compress(data), max_length=0)  # zlib's 0 would mean "no limit"


def test_grey_with_alpha_reads_as_grey_and_alpha_zero_is_nodata(tmp_path):
    tifffile = geotiff._tifffile()
    grey = np.arange(36, dtype=np.uint16).reshape(6, 6) * 100
    alpha = np.full((6, 6), 65535, np.uint16)
    alpha[2, 3] = 0
    path = tmp_path / "grey-alpha.tif"
    tifffile.imwrite(path, np.dstack([grey, alpha]), photometric="minisblack", extrasamples=["unassalpha"])
    elevation = geotiff.read_elevation(str(path))
    assert elevation.nodata == 1
    assert elevation.heights[2, 3] == pytest.approx((grey[1, 3] + grey[3, 3] + grey[2, 2] + grey[2, 4]) / 4)
    keep = alpha > 0
    assert np.array_equal(elevation.heights[keep], grey[keep].astype(np.float32))
    # grey stored as RGBA: the same
    path = tmp_path / "rgba.tif"
    tifffile.imwrite(path, np.dstack([grey, grey, grey, alpha]), photometric="rgb", extrasamples=["unassalpha"])
    rgba = geotiff.read_elevation(str(path))
    assert rgba.nodata == 1 and np.array_equal(rgba.heights, elevation.heights)
    # an opaque alpha masks nothing; an extra sample that is not alpha is ignored
    path = tmp_path / "grey-extra.tif"
    tifffile.imwrite(path, np.dstack([grey, alpha * 0]), photometric="minisblack", extrasamples=["unspecified"])
    other = geotiff.read_elevation(str(path))
    assert other.nodata == 0 and np.array_equal(other.heights, grey.astype(np.float32))
    path = tmp_path / "rgb-alpha.tif"
    colour = np.dstack([grey, grey + 1, grey, alpha])
    tifffile.imwrite(path, colour, photometric="rgb", extrasamples=["unassalpha"])
    with pytest.raises(ValueError, match="is a colour image"):
        geotiff.read_elevation(str(path))
