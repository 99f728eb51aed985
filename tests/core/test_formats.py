"""RAW, NPY and sidecars in core, and whole-file checks of PNG, OpenEXR and TIFF headers built by the specs."""

import io
import json
import os
import struct
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from core.io import formats
from core.io.image_headers import check_image


def test_raw_round_trip_little_endian_with_its_sidecar(tmp_path):
    h = np.linspace(0.0, 1.0, 3 * 5, dtype=np.float32).reshape(3, 5)
    path = str(tmp_path / "t.r16")
    formats.write_raw(path, h)
    assert os.path.getsize(path) == 30
    assert np.fromfile(path, "<u2").tolist() == np.rint(h.ravel() * 65535).astype(int).tolist()
    info = formats.sidecar_info(path, h.shape, "R16", absolute=False, height_range=(0.0, 20.0), extra={"a": 1})
    assert info["raw"] == {"dtype": "uint16", "byte_order": "little", "layout": "row-major", "header": None}
    assert info["shape"] == [3, 5] and info["a"] == 1 and info["file"] == "t.r16"
    (tmp_path / "t.r16.json").write_text(json.dumps(info))
    back = formats.read_raw(path)
    assert np.array_equal(back, np.rint(h * 65535).astype(np.float32) / np.float32(65535))


def test_raw_honours_a_big_endian_sidecar(tmp_path):
    levels = np.array([[0, 1, 256], [65535, 4660, 2]], dtype=">u2")
    path = tmp_path / "be.raw"
    levels.tofile(path)
    (tmp_path / "be.raw.json").write_text(json.dumps({"shape": [2, 3], "raw": {"byte_order": "big"}}))
    assert np.array_equal(formats.read_raw(str(path)) * 65535, levels.astype(np.float32))


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"byte_order": "middle"}, "byte_order must be"),
        ({"dtype": "uint8"}, r"\"raw\".dtype is 'uint8'; Orogen reads 'uint16' only"),
        ({"header": 512}, "header"),
        ("little", '"raw" must be an object'),
    ],
)
def test_raw_sidecars_describing_another_layout_are_refused(tmp_path, raw, message):
    path = tmp_path / "t.r16"
    np.zeros((2, 3), "<u2").tofile(path)
    (tmp_path / "t.r16.json").write_text(json.dumps({"shape": [2, 3], "raw": raw}))
    with pytest.raises(ValueError, match=message):
        formats.read_raw(str(path))


def test_sidecars_must_be_small_regular_files(tmp_path):
    path = tmp_path / "t.r16"
    np.zeros((4, 4), "<u2").tofile(path)
    os.mkfifo(tmp_path / "t.r16.json")  # once hung the import forever
    with pytest.raises(ValueError, match="t.r16.json is not a regular file"):
        formats.read_raw(str(path))
    os.remove(tmp_path / "t.r16.json")
    (tmp_path / "t.r16.json").symlink_to("/dev/zero")  # once read until MemoryError
    with pytest.raises(ValueError, match="t.r16.json is not a regular file"):
        formats.read_raw(str(path))
    os.remove(tmp_path / "t.r16.json")
    (tmp_path / "t.r16.json").write_text(" " * (formats.SIDECAR_MAX_BYTES + 1))
    with pytest.raises(ValueError, match="more than the 1048576 allowed"):
        formats.read_raw(str(path))
    os.remove(tmp_path / "t.r16.json")
    assert formats.read_raw(str(path)).shape == (4, 4)  # no sidecar: square


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
@pytest.mark.parametrize("name", ["pipe.r16", "pipe.npy"])
def test_raw_and_npy_must_be_regular_files(tmp_path, name):
    fifo = tmp_path / name
    os.mkfifo(fifo)
    # A writer holds the FIFO open with a valid file in it, so that a reader that opens it anyway cannot block.
    writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    try:
        buffer = io.BytesIO()
        np.save(buffer, np.zeros((4, 4), np.float32))
        os.write(writer, buffer.getvalue() if name.endswith(".npy") else b"\0")
        with pytest.raises(ValueError, match=f"^{name} is not a regular file"):
            (formats.read_npy if name.endswith(".npy") else formats.read_raw)(str(fifo))
    finally:
        os.close(writer)
    (tmp_path / "zero.npy").symlink_to("/dev/zero")
    with pytest.raises(ValueError, match="^zero.npy is not a regular file"):
        formats.read_npy(str(tmp_path / "zero.npy"))


def test_npy_round_trip_and_refusals(tmp_path):
    h = np.arange(6, dtype=np.float64).reshape(2, 3)
    formats.write_npy(str(tmp_path / "a.npy"), h)
    back = formats.read_npy(str(tmp_path / "a.npy"))
    assert back.dtype == np.float32 and np.array_equal(back, h)
    data = (tmp_path / "a.npy").read_bytes()
    (tmp_path / "cut.npy").write_bytes(data[:-4])
    with pytest.raises(ValueError, match="cut.npy is not a readable .npy array"):
        formats.read_npy(str(tmp_path / "cut.npy"))
    np.save(tmp_path / "c.npy", np.zeros((2, 2, 3)))
    with pytest.raises(ValueError, match="must hold a 2D array"):
        formats.read_npy(str(tmp_path / "c.npy"))
    calls = []
    formats.read_npy(str(tmp_path / "a.npy"), lambda r, c: calls.append((r, c)))
    assert calls == [(2, 3)]


def exr(rows, cols, compression=0, tiled=None, cut=None):
    """A single-part OpenEXR file with one FLOAT channel "Y", scan-line or tiled, laid out by the spec."""
    channels = b"Y\0" + struct.pack("<iBBBBii", 2, 0, 0, 0, 0, 1, 1) + b"\0"

    def attr(name, kind, value):
        return name + b"\0" + kind + b"\0" + struct.pack("<i", len(value)) + value

    header = (
        attr(b"channels", b"chlist", channels)
        + attr(b"compression", b"compression", bytes((compression,)))
        + attr(b"dataWindow", b"box2i", struct.pack("<4i", 0, 0, cols - 1, rows - 1))
        + attr(b"displayWindow", b"box2i", struct.pack("<4i", 0, 0, cols - 1, rows - 1))
        + attr(b"lineOrder", b"lineOrder", b"\0")
    )
    version = 2
    if tiled is not None:
        header += attr(b"tiles", b"tiledesc", struct.pack("<IIB", tiled, tiled, 0))
        version |= 0x200
        blocks = [(tx, ty) for ty in range(-(-rows // tiled)) for tx in range(-(-cols // tiled))]
    else:
        blocks = list(range(rows))
    start = 8 + len(header) + 1 + 8 * len(blocks)
    table, body = b"", b""
    for block in blocks:
        table += struct.pack("<Q", start + len(body))
        if tiled is not None:
            width = min(tiled, cols - block[0] * tiled)
            height = min(tiled, rows - block[1] * tiled)
            data = bytes(4 * width * height)
            body += struct.pack("<4ii", block[0], block[1], 0, 0, len(data)) + data
        else:
            data = bytes(4 * cols)
            body += struct.pack("<ii", block, len(data)) + data
    whole = b"\x76\x2f\x31\x01" + struct.pack("<I", version) + header + b"\0" + table + body
    return whole if cut is None else whole[:cut]


@pytest.mark.parametrize("tiled", [None, 4])
def test_an_openexr_cut_anywhere_is_refused_before_any_decoder_sees_it(tmp_path, tiled):
    whole = exr(9, 7, tiled=tiled)
    path = tmp_path / "h.exr"
    path.write_bytes(whole)
    assert check_image(str(path)) == ("OpenEXR", 9, 7)
    header_end = whole.index(b"\0\0", 8)  # inside the header, the table or the pixels
    for cut in sorted({header_end + 40, len(whole) // 2, len(whole) - 1, len(whole) - 30}):
        path.write_bytes(whole[:cut])
        with pytest.raises(ValueError, match="cut short|has no dataWindow"):
            check_image(str(path))


def test_multi_part_and_deep_openexr_are_refused(tmp_path):
    whole = bytearray(exr(3, 3))
    for flag, message in ((0x1000, "multi-part"), (0x800, "deep")):
        data = bytearray(whole)
        data[4:8] = struct.pack("<I", 2 | flag)
        (tmp_path / "m.exr").write_bytes(bytes(data))
        with pytest.raises(ValueError, match=message):
            check_image(str(tmp_path / "m.exr"))


@pytest.mark.parametrize("options", [{}, {"compression": "tiff_deflate"}, {"compression": "tiff_lzw"}])
def test_a_tiff_cut_in_half_is_refused(tmp_path, options):
    values = (np.arange(64 * 48) % 65536).astype(np.uint16).reshape(48, 64)
    path = tmp_path / "h.tif"
    Image.fromarray(values).save(path, **options)
    assert check_image(str(path)) == ("TIFF", 48, 64)
    data = path.read_bytes()
    directory = struct.unpack_from("<I", data, 4)[0]
    if directory < len(data) // 2:  # the directory first: cut the strips
        path.write_bytes(data[: len(data) // 2])
        with pytest.raises(ValueError, match="strips run past the end"):
            check_image(str(path))
    path.write_bytes(data[:-1] if directory < len(data) - 200 else data[: directory + 20])
    with pytest.raises(ValueError, match="cut short"):
        check_image(str(path))


def test_png_chunks_and_crcs_are_checked(tmp_path):
    path = tmp_path / "h.png"
    Image.fromarray(np.zeros((5, 6), np.uint8)).save(path)
    data = path.read_bytes()
    assert check_image(str(path), (5, 6)) == ("PNG", 5, 6)
    with pytest.raises(ValueError, match="not 7 x 5"):
        check_image(str(path), (5, 7))
    idat = data.index(b"IDAT")
    path.write_bytes(data[: idat + 6] + bytes([data[idat + 6] ^ 0xFF]) + data[idat + 7 :])
    with pytest.raises(ValueError, match="IDAT chunk is damaged"):
        check_image(str(path))
    path.write_bytes(data[:-12])
    with pytest.raises(ValueError, match="no IEND"):
        check_image(str(path))
    assert zlib.crc32(b"IEND") == struct.unpack(">I", data[-4:])[0]


# --- sidecars that give a heightmap's metres back (version 2, and version 1 still read) -------------------------
def test_units_of_metres_give_every_float32_product_back_bit_for_bit():
    rng = np.random.default_rng(5)
    for height in (20.0, 37.5, 118.0, 0.3, 1234.567):
        h32 = np.float32(height)
        units = rng.uniform(-2.0, 3.0, 20000).astype(np.float32)
        metres = units * h32  # what a mesh's Z is
        back = formats.units_of_metres(metres, height)
        assert np.array_equal(back * h32, metres), height
    # metres no product gives: the nearest quotient, within one float32 step of the exact one
    metres = rng.uniform(-37.5, 80.5, 5000).astype(np.float32)
    back = formats.units_of_metres(metres, 118.0)
    assert np.abs(back.astype(np.float64) - metres / 118.0).max() <= np.spacing(np.float32(1.0))
    with pytest.raises(ValueError, match="height"):
        formats.units_of_metres(metres, 0.0)
    with pytest.raises(ValueError, match="leave float32's range"):
        formats.units_of_metres(np.float32([3.0e38]), 0.5)


def test_file_heights_are_metres_with_their_base_and_rows_north_first():
    v = np.array([[0.0, 0.5], [1.0, 0.25]], np.float32)
    info = formats.sidecar_info("t.exr", v.shape, "EXR", absolute=False, height_range=(-37.5, 80.5))
    scale = formats.sidecar_scale(info, "t.exr.json")
    assert scale.version == formats.SIDECAR_VERSION and not scale.metres and not scale.south_first
    assert scale.top is None and "levels" not in info  # float files hold values, not levels
    assert np.array_equal(formats.file_heights(v, scale), np.float32([[-37.5, 21.5], [80.5, -8.0]]))
    south = formats.sidecar_scale({**info, "row_0": "south"}, "t.r16.json")
    assert np.array_equal(formats.file_heights(v, south), np.float32([[80.5, -8.0], [-37.5, 21.5]]))
    m = np.float32([[-37.5, 1.0e-7], [3.0, 80.5]])
    metres = formats.sidecar_scale({**info, "encoding": "metres"}, "x")
    assert np.array_equal(formats.file_heights(m, metres), m)
    assert formats.file_heights(v, formats.sidecar_scale({"shape": [2, 2]}, "x")) is None


# --- 16-bit files over the terrain's relief -----------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(
    base=st.floats(-5000.0, 5000.0),
    relief=st.floats(1e-3, 9000.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_16_bit_levels_give_the_metres_back_within_one_step_of_the_relief(base, relief, seed):
    rng = np.random.default_rng(seed)
    metres = (base + relief * rng.random((9, 13))).astype(np.float32)
    metres.flat[rng.integers(metres.size)] = np.float32(base)  # the lowest metre is a cell's
    levels, (low, high) = formats.quantise(metres)
    assert levels.dtype == np.uint16 and (low, high) == (float(metres.min()), float(metres.max()))
    assert levels.min() == 0 and (levels.max() == 65535 or high == low)
    step = (high - low) / 65535
    back = formats.dequantise(levels, (low, high))
    assert np.abs(back - metres).max() <= step / 2 * (1 + 1e-9) + 1e-12
    # as an import reads it: the file's values level / 65535 in float32, through a 16-bit sidecar, in float32
    info = formats.sidecar_info("t.r16", metres.shape, "R16", absolute=False, height_range=(low, high))
    scale = formats.sidecar_scale(json.loads(json.dumps(info)), "t.r16.json")
    assert scale.top == 65535 and scale.height_range == (low, high)
    read = levels.astype(np.float32) / np.float32(65535.0)
    got = formats.file_heights(read, scale)
    ulp = np.spacing(np.abs(metres).astype(np.float32)).astype(np.float64)
    assert (np.abs(got.astype(np.float64) - metres) <= step / 2 * (1 + 1e-9) + ulp).all()
    assert got.min() == np.float32(low) and got.max() == np.float32(high)


def test_16_bit_sidecars_say_the_metres_of_0_and_65535_for_game_engines():
    info = formats.sidecar_info("t.png", (4, 4), "PNG16", absolute=False, height_range=(-37.5, 80.5))
    levels = info["levels"]
    assert info["height_range_m"] == [-37.5, 80.5] and levels["bits"] == 16
    assert (levels["level_0_m"], levels["level_65535_m"]) == (-37.5, 80.5)
    assert levels["step_m"] == 118.0 / 65535
    assert levels["unity"] == {"terrain_height_m": 118.0, "position_y_m": -37.5}
    # Unreal: level n at (n - 32768) * scale_z / 128 cm above the actor
    scale_z, z_cm = levels["unreal"]["scale_z"], levels["unreal"]["location_z_cm"]
    for n in (0, 32768, 65535):
        metres = -37.5 + n / 65535 * 118.0
        assert (z_cm + (n - 32768) * scale_z / 128) / 100 == pytest.approx(metres, abs=1e-9)
    assert scale_z == pytest.approx(118.0 / 5.12, rel=1e-4)  # 512 m at scale Z 100
    text = formats.levels_text((-37.5, 80.5))
    assert "0 = -37.5 m" in text and "65535 = 80.5 m" in text and "Unity Terrain Height 118 m" in text
    for fmt in ("EXR", "NPY"):
        assert "levels" not in formats.sidecar_info("t", (4, 4), fmt, absolute=True, height_range=(0.0, 1.0))


def test_a_flat_terrain_is_level_0_and_comes_back_at_its_height():
    flat = np.full((5, 7), 12.25, np.float32)
    levels, span = formats.quantise(flat)
    assert span == (12.25, 12.25) and not levels.any()
    assert np.array_equal(formats.dequantise(levels, span), np.full((5, 7), 12.25))
    info = formats.sidecar_info("f.r16", flat.shape, "R16", absolute=False, height_range=span)
    assert info["levels"]["step_m"] == 0.0 and info["levels"]["unity"]["terrain_height_m"] == 0.0
    got = formats.file_heights(levels / np.float32(65535), formats.sidecar_scale(info, "f.r16.json"))
    assert np.array_equal(got, flat)


def test_quantise_refuses_nan_inf_and_bad_ranges():
    for bad in (np.float32([[1.0, np.nan]]), np.float32([[np.inf, 0.0]]), np.zeros((0, 3), np.float32)):
        with pytest.raises(ValueError, match="NaN or Inf|empty"):
            formats.quantise(bad)
    with pytest.raises(ValueError, match="low <= high"):
        formats.quantise(np.zeros((2, 2)), (3.0, 1.0))
    with pytest.raises(ValueError, match="low <= high"):
        formats.dequantise(np.zeros((2, 2), np.uint16), (0.0, float("nan")))
    with pytest.raises(ValueError, match="NaN or Inf"):
        formats.dequantise(np.float32([np.nan]), (0.0, 1.0))
    with pytest.raises(ValueError, match="0..65535"):
        formats.dequantise(np.float32([1.5]), (0.0, 1.0))
    with pytest.raises(ValueError, match="top"):
        formats.quantise(np.zeros(3), top=1023)
    # a world's range: heights outside it clip to its ends; an 8-bit file's 255 levels
    levels, _ = formats.quantise(np.float64([-1.0, 0.0, 5.0, 11.0]), (0.0, 10.0))
    assert levels.tolist() == [0, 0, 32768, 65535]
    levels, span = formats.quantise(np.float64([2.0, 4.0, 3.0]), top=255)
    assert levels.tolist() == [0, 255, 128] and formats.dequantise(levels, span, top=255)[1] == 4.0


def test_version_1_sidecars_keep_their_meaning_and_bad_ones_are_refused():
    old_import = {"spec": None, "width_m": 36.0, "height_range_m": [0.0, 12.0], "encoding": "normalised 0..1"}
    scale = formats.sidecar_scale(old_import, "old.json")
    assert (scale.version, scale.width, scale.height, scale.height_range) == (1, 36.0, 12.0, (0.0, 12.0))
    generated = {"spec": {"size": 37}, "width_m": 36.0, "height_range_m": [0.0, 9.0]}
    assert formats.sidecar_scale(generated, "old.json").height is None  # the spec's Height, read by the caller
    for bad, message in (
        ({"sidecar_version": 3}, "sidecar_version"),
        ({"height_range_m": [5.0, 1.0]}, "low <= high"),
        ({"height_range_m": [0.0]}, r"\[low, high\]"),
        ({"row_0": "east"}, "row_0"),
        ({"location_m": [0.0, float("nan"), 0.0]}, "location_m"),
        ({"width_m": -1.0}, "width_m"),
        ({"height_m": 1e9}, "height_m"),
        ({"look": [1]}, "look"),
    ):
        with pytest.raises(ValueError, match=message):
            formats.sidecar_scale(bad, "bad.json")


def test_tile_centres_are_the_middle_of_their_vertices():
    from core.window import Window
    from core.world import TileGrid, tile_positions

    grid = TileGrid((33, 49), 17)
    for ty, tx in grid.indices():
        win = grid.window(ty, tx)
        co = tile_positions(grid, win, np.zeros((17, 17), np.float32), height=1.0, cell=2.5, step=1)
        x, y = grid.centre(ty, tx, 2.5)
        assert (x, y) == ((co[0, 0, 0] + co[0, -1, 0]) / 2, (co[0, 0, 1] + co[-1, 0, 1]) / 2)
    assert isinstance(win, Window)
