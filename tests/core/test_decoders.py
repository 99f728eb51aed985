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
from pathlib import Path

import numpy as np
import pytest

from core.io import geotiff, image_headers, tiff_codecs

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


@pytest.mark.parametrize("compression", [None, "zlib"])
def test_planar_grey_alpha_and_planar_grey_rgb_read_as_their_interleaved_forms(tmp_path, compression):
    tifffile = geotiff._tifffile()
    grey = (np.arange(64, dtype=np.float32).reshape(8, 8) * 2.5 - 40).astype(np.float32)
    alpha = np.full((8, 8), 255, np.float32)
    alpha[5, 2] = 0
    interleaved, planar = tmp_path / "interleaved.tif", tmp_path / "planar.tif"
    options = {"photometric": "minisblack", "extrasamples": ["unassalpha"], "compression": compression}
    tifffile.imwrite(interleaved, np.dstack([grey, alpha]), planarconfig="contig", **options)
    tifffile.imwrite(planar, np.stack([grey, alpha]), planarconfig="separate", **options)
    with tifffile.TiffFile(planar) as tif:
        assert tif.pages[0].planarconfig == 2 and tif.pages[0].shape == (2, 8, 8)
    want = geotiff.read_elevation(str(interleaved))
    got = geotiff.read_elevation(str(planar))
    assert got.nodata == want.nodata == 1
    assert np.array_equal(got.heights, want.heights) and got.heights[0, 0] == grey[0, 0]
    # grey stored as planar RGB, and as planar RGBA
    rgb = tmp_path / "rgb.tif"
    tifffile.imwrite(rgb, np.stack([grey] * 3), photometric="rgb", planarconfig="separate", compression=compression)
    assert np.array_equal(geotiff.read_elevation(str(rgb)).heights, grey)
    rgba = tmp_path / "rgba.tif"
    tifffile.imwrite(rgba, np.stack([grey, grey, grey, alpha]), photometric="rgb", planarconfig="separate",
                     extrasamples=["unassalpha"], compression=compression)  # fmt: skip
    assert np.array_equal(geotiff.read_elevation(str(rgba)).heights, want.heights)
    # planar colour is still colour
    colour = tmp_path / "colour.tif"
    tifffile.imwrite(colour, np.stack([grey, grey + 1, grey]), photometric="rgb", planarconfig="separate")
    with pytest.raises(ValueError, match="colour.tif is a colour image"):
        geotiff.read_elevation(str(colour))


def test_an_image_of_another_shape_is_refused_saying_what_is_read(tmp_path):
    tifffile = geotiff._tifffile()
    volume = tmp_path / "volume.tif"
    tifffile.imwrite(volume, np.zeros((3, 8, 8), np.float32), photometric="minisblack", metadata=None,
                     volumetric=True, tile=(16, 16))  # fmt: skip
    with pytest.raises(ValueError) as caught:
        geotiff.read_elevation(str(volume))
    assert str(caught.value) == (
        "volume.tif holds an image of shape (3, 8, 8): Orogen reads one band (grey), or grey stored as RGB, "
        "either with an alpha band, interleaved or planar"
    )


def tiled_tiff(path, rows, cols, tiles, *, tile, compression=8, bits=32, sample_format=3, long_tile=True):
    """A little-endian classic TIFF of ``tiles`` (each already compressed), tiled ``tile = (width, length)``."""
    width, length = tile
    kind = 4 if long_tile else 3
    entries = [
        (256, 4, [cols]),
        (257, 4, [rows]),
        (258, 3, [bits]),
        (259, 3, [compression]),
        (262, 3, [1]),
        (277, 3, [1]),
        (284, 3, [1]),
        (322, kind, [width]),
        (323, kind, [length]),
        (324, 4, [0] * len(tiles)),  # patched below
        (325, 4, [len(t) for t in tiles]),
        (339, 3, [sample_format]),
    ]
    ifd = 8
    blob_at = ifd + 2 + 12 * len(entries) + 4
    blobs = b""
    body = b""
    data_at = blob_at + sum(4 * len(v) for _, k, v in entries if 4 * len(v) > 4 and k == 4)
    data_at += sum(2 * len(v) for _, k, v in entries if 2 * len(v) > 4 and k == 3)
    offsets = [data_at + sum(len(x) for x in tiles[:i]) for i in range(len(tiles))]
    for tag, kind_, values in entries:
        values = offsets if tag == 324 else values
        code = "H" if kind_ == 3 else "I"
        data = struct.pack(f"<{len(values)}{code}", *values)
        if len(data) <= 4:
            body += struct.pack("<HHI", tag, kind_, len(values)) + data.ljust(4, b"\0")
        else:
            body += struct.pack("<HHII", tag, kind_, len(values), blob_at + len(blobs))
            blobs += data
    assert blob_at + len(blobs) == data_at
    raw = b"II*\0" + struct.pack("<I", ifd) + struct.pack("<H", len(entries)) + body + b"\0\0\0\0" + blobs
    path.write_bytes(raw + b"".join(tiles))
    return str(path)


@pytest.mark.parametrize("compression", [8, 5, 32773])
@pytest.mark.parametrize("long_tile", [True, False])
def test_a_tile_larger_than_the_image_is_refused_before_decoding(tmp_path, compression, long_tile):
    # one 4096 x 4096 float32 tile (64 MiB of zeros) for a 64 x 64 image: what the header declares for the
    # tile is no bound when the tile itself is absurd
    if compression == 8:
        data = zeros_deflated(INFLATED)
    elif compression == 5:
        data, _ = lzw_bomb(INFLATED)
    else:
        data = b"\x81\x00" * (INFLATED >> 7)
    path = tiled_tiff(tmp_path / "tiles.tif", 64, 64, [data], tile=(4096, 4096), compression=compression,
                      long_tile=long_tile)  # fmt: skip
    calls = []
    err, peak = peak_of(lambda: geotiff.read_elevation(path, lambda r, c: calls.append(r), check_bytes=calls.append))
    message = str(err)
    assert message.startswith("tiles.tif cannot be read: its tiles are 4096 x 4096 pixels"), message
    assert "for an image of 64 x 64 pixels" in message and "here 1024 x 1024, 1 deep" in message
    assert calls == []  # refused before the memory guard and before any decoding
    assert peak < PEAK + (2 * len(data) if compression == 32773 else 0), f"refusing the tiles cost {peak} bytes"
    # the colour layers' check (core.io.image_headers.check_file) refuses the same file
    with pytest.raises(ValueError, match=r"tiles.tif cannot be read: its tiles are 4096 x 4096 pixels"):
        image_headers.check_file(path)


def test_tiles_up_to_the_image_rounded_to_16_are_read_and_the_guard_counts_whole_tiles(tmp_path):
    values = (np.arange(40 * 50, dtype=np.float32).reshape(40, 50) * 0.5 - 100).astype(np.float32)
    # 16 x 16 tiles: 3 x 4 of them; a 50 x 40 image padded to 64 x 48
    padded = np.zeros((48, 64), np.float32)
    padded[:40, :50] = values
    tiles = [
        zlib.compress(padded[r : r + 16, c : c + 16].tobytes()) for r in range(0, 48, 16) for c in range(0, 64, 16)
    ]
    path = tiled_tiff(tmp_path / "small-tiles.tif", 40, 50, tiles, tile=(16, 16))
    calls, needs = [], []
    elevation = geotiff.read_elevation(path, lambda r, c: calls.append((r, c)), check_bytes=needs.append)
    assert np.array_equal(elevation.heights, values)
    assert calls == [(40, 50)]  # the terrain: the image's size
    assert needs == [(48 * 64 + 40 * 50) * 4]  # the decoder: 12 whole tiles, padding included, and the image

    def refuse(need):
        raise ValueError(f"{need} bytes are too many")

    with pytest.raises(ValueError, match=r"^small-tiles.tif: 20288 bytes are too many$"):
        geotiff.read_elevation(path, check_bytes=refuse)
    # one tile of the image rounded up to 16 (64 x 48), or a COG's 512 x 512 tile, is read
    for tile in [(64, 48), (512, 512), (1024, 1024)]:
        whole = np.zeros((tile[1], tile[0]), np.float32)
        whole[:40, :50] = values
        path = tiled_tiff(tmp_path / "one-tile.tif", 40, 50, [zlib.compress(whole.tobytes())], tile=tile)
        needs.clear()
        assert np.array_equal(geotiff.read_elevation(path, check_bytes=needs.append).heights, values)
        assert needs == [(tile[0] * tile[1] + 40 * 50) * 4]
    # past FREE_TILE_SIDE a tile must fit the image rounded up to 16: a 1100 x 20 image takes 1104 x 16 tiles,
    # not 1120 x 16 nor 1104 x 1040
    assert tiff_codecs.FREE_TILE_SIDE == 1024
    wide = np.arange(20 * 1100, dtype=np.float32).reshape(20, 1100)
    for tile, read in [((1104, 16), True), ((1120, 16), False), ((1104, 1040), False)]:
        whole = np.zeros((-(-20 // tile[1]) * tile[1], tile[0]), np.float32)
        whole[:20, :1100] = wide
        parts = [zlib.compress(whole[r : r + tile[1]].tobytes()) for r in range(0, whole.shape[0], tile[1])]
        path = tiled_tiff(tmp_path / "wide.tif", 20, 1100, parts, tile=tile)
        if read:
            assert np.array_equal(geotiff.read_elevation(path).heights, wide)
        else:
            with pytest.raises(ValueError, match=f"its tiles are {tile[0]} x {tile[1]} pixels .* here 1104 x 1024"):
                geotiff.read_elevation(path)


def test_rows_per_strip_beyond_the_image_is_one_strip_and_the_guard_counts_whole_strips(tmp_path):
    values = (np.arange(64 * 48, dtype=np.int32).reshape(64, 48) % 3000).astype(np.int16)
    tifffile = geotiff._tifffile()
    path = tmp_path / "strips.tif"
    tifffile.imwrite(path, values, compression="zlib", rowsperstrip=7)
    calls, needs = [], []
    elevation = geotiff.read_elevation(str(path), lambda r, c: calls.append((r, c)), check_bytes=needs.append)
    assert np.array_equal(elevation.heights, values)
    assert calls == [(64, 48)] and needs == [(70 + 64) * 48 * 2]  # ten strips of 7 rows, and the image
    # RowsPerStrip far beyond the image length (legal: one strip) is capped at the image: a strip that
    # decodes past 64 rows is refused at 64 rows' bytes, and the guard sees 64 rows
    path = tiff(tmp_path / "one.tif", 64, 48, zlib.compress(values.tobytes()), compression=8, bits=16,
                sample_format=2)  # fmt: skip
    raw = bytearray(Path(path).read_bytes())
    at = raw.index(struct.pack("<HHI", 278, 4, 1))
    struct.pack_into("<I", raw, at + 8, 1 << 30)
    Path(path).write_bytes(bytes(raw))
    needs.clear()
    assert np.array_equal(geotiff.read_elevation(path, check_bytes=needs.append).heights, values)
    assert needs == [(64 + 64) * 48 * 2]  # one strip of 64 rows, not 2 ** 30
    bomb = tiff(tmp_path / "long.tif", 64, 48, zeros_deflated(INFLATED), compression=8, bits=16, sample_format=2)
    raw = bytearray(Path(bomb).read_bytes())
    struct.pack_into("<I", raw, raw.index(struct.pack("<HHI", 278, 4, 1)) + 8, 1 << 30)
    Path(bomb).write_bytes(bytes(raw))
    err, peak = peak_of(lambda: geotiff.read_elevation(bomb))
    assert "more than the 6144 bytes" in str(err) and peak < PEAK


def test_a_strip_that_decodes_short_is_refused_naming_the_file(tmp_path):
    """A DEFLATE strip holding fewer bytes than its rows need (here one row of 64 x 64 float32) made tifffile's
    own ``TiffFileError`` reach the user naming no file; it is refused as Orogen's refusals are."""
    strip = zlib.compress(np.zeros(64, np.float32).tobytes())
    path = tmp_path / "short.tif"
    tiff(path, 64, 64, strip, compression=8)
    with pytest.raises(ValueError, match=r"^short\.tif cannot be read as a TIFF raster: ") as err:
        geotiff.read_elevation(str(path))
    assert type(err.value) is ValueError
