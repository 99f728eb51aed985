"""Nothing lost, nothing wrong: exports under a file-size limit, and imports of cut, colour and GIS files."""

import json
import os
import re
import resource
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import bpy
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def limited(limit_bytes):
    """A preexec_fn: ``ulimit -f`` for the child (Python ignores SIGXFSZ, so writes past it come up short)."""

    def apply():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    return apply


def run(*args, limit=None):
    return subprocess.run(
        [sys.executable, *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=None if limit is None else limited(limit),
    )


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_export_under_a_file_size_limit_keeps_the_old_files_and_fails(tmp_path):
    out = tmp_path / "maps"
    args = [
        ROOT / "scripts" / "export_heightmaps.py",
        "--preset",
        "island",
        "--size",
        "129",
        "--format",
        "PNG16",
        "--maps",
        "lightmap,color,normal,splat",
        "--output-dir",
        out,
    ]
    proc = run(*args, "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    before = snapshot(out)
    # a limit the sidecars fit under and some image does not: the image writer is cut short
    limit = max(len(v) for k, v in before.items() if k.endswith(".json")) + 1024
    assert max(len(v) for k, v in before.items() if k.endswith(".png")) > limit
    proc = run(*args, "--seed", "2", limit=limit)
    assert proc.returncode != 0
    assert "wrote" not in proc.stdout
    assert "was not written completely" in proc.stderr and "nothing was replaced" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()[-1]) < 400
    assert snapshot(out) == {**before, **{k: v for k, v in snapshot(out).items() if k.startswith(".orogen-")}}
    proc = run(*args[:-1], out, "--format", "R16", "--seed", "2", limit=limit)  # numpy's write: EFBIG
    assert proc.returncode != 0 and "File too large" in proc.stderr, proc.stderr
    assert snapshot(out) == {**before, **{k: v for k, v in snapshot(out).items() if k.startswith(".orogen-")}}
    proc = run(*args, "--seed", "3")  # the next run cleans what the failed one left
    assert proc.returncode == 0, proc.stderr
    assert sorted(snapshot(out)) == sorted(before)
    assert snapshot(out) != before


def test_render_under_a_file_size_limit_keeps_the_old_picture(tmp_path):
    out = tmp_path / "t.png"
    args = [
        ROOT / "scripts" / "render_terrain.py",
        "--size",
        "33",
        "--resolution",
        "160",
        "120",
        "--samples",
        "1",
        "--output",
        out,
    ]
    proc = run(*args, "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    before = out.read_bytes()
    assert len(before) > 8 * 1024
    proc = run(*args, "--seed", "2", limit=8 * 1024)
    assert proc.returncode != 0 and "wrote" not in proc.stdout
    assert "t.png was not written completely" in proc.stderr, proc.stderr
    assert out.read_bytes() == before


@pytest.mark.filterwarnings("ignore:.*blend relative:RuntimeWarning")  # Blender 5.0's own note on the "//" prefix
def test_a_folder_relative_to_an_unsaved_blend_is_refused(scene, tmp_path, monkeypatch):
    bpy.ops.orogen.terrain_add(size=17)
    monkeypatch.chdir(tmp_path)
    assert bpy.data.filepath == ""
    with pytest.raises(RuntimeError, match="relative to the .blend file, which is not saved: save the file first"):
        bpy.ops.orogen.export_maps(directory="//", name="t")
    with pytest.raises(RuntimeError, match="save the file first"):
        bpy.ops.orogen.export_maps(directory="//maps", name="t")
    assert list(tmp_path.iterdir()) == []


def test_cut_images_are_refused_before_blender_decodes_them(scene, orogen, tmp_path):
    ex = orogen.addon.io.heightmaps
    ramp = np.tile(np.linspace(0.0, 1.0, 64), (48, 1))
    ex.write_image(str(tmp_path / "h.exr"), ramp, depth="32", file_format="OPEN_EXR")
    ex.write_image(str(tmp_path / "h.png"), ramp, depth="16")
    image = bpy.data.images.new("tif", 64, 48, float_buffer=True, is_data=True)
    image.filepath_raw = str(tmp_path / "h.tif")
    image.file_format = "TIFF"
    image.save()
    bpy.data.images.remove(image)
    for name in ("h.exr", "h.png", "h.tif"):
        data = (tmp_path / name).read_bytes()
        (tmp_path / name).write_bytes(data[: len(data) // 2])  # an OpenEXR cut like this crashed Blender
        with pytest.raises(RuntimeError, match=f"{name} cannot be read"):
            bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / name))
    assert len(bpy.data.objects) == 0 and len(bpy.data.images) == 0


def test_colour_pictures_are_refused_and_grey_ones_read(scene, orogen, tmp_path):
    ex = orogen.addon.io.heightmaps
    rgb = np.zeros((16, 16, 3))
    rgb[..., 0] = np.linspace(0, 1, 16)  # only red changes: once imported as its red channel
    ex.write_image(str(tmp_path / "colour.png"), rgb)
    with pytest.raises(RuntimeError, match="colour.png is a colour image .* convert it to grey first"):
        bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / "colour.png"))
    ex.write_image(str(tmp_path / "grey.png"), np.repeat(rgb[..., :1], 3, axis=2))  # grey stored as RGB
    assert bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / "grey.png")) == {"FINISHED"}


def test_a_big_endian_raw_sidecar_is_honoured(scene, tmp_path):
    levels = (np.arange(9 * 7) * 1000).astype(">u2").reshape(9, 7)
    levels.tofile(tmp_path / "be.r16")
    (tmp_path / "be.r16.json").write_text(json.dumps({"shape": [9, 7], "raw": {"byte_order": "big"}}))
    assert bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / "be.r16"), width=6.0, height=62.0) == {"FINISHED"}
    z = np.empty(63 * 3, np.float32)
    bpy.context.active_object.data.vertices.foreach_get("co", z)
    assert np.allclose(z.reshape(9, 7, 3)[..., 2], levels / 1000.0, atol=1e-4)  # rises by 1 m a cell


def test_sidecars_that_are_not_regular_files_are_refused_at_once(scene, tmp_path):
    np.zeros((4, 4), "<u2").tofile(tmp_path / "t.r16")
    os.mkfifo(tmp_path / "t.r16.json")
    with pytest.raises(RuntimeError, match="t.r16.json is not a regular file"):
        bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / "t.r16"))
    os.remove(tmp_path / "t.r16.json")
    os.symlink("/dev/zero", tmp_path / "t.r16.json")
    with pytest.raises(RuntimeError, match="t.r16.json is not a regular file"):
        bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / "t.r16"))


def one_tile_tiff(path, side, tile, data):
    """A little-endian TIFF of ``side`` x ``side`` float32 pixels in one DEFLATE tile of ``tile`` a side (LONG)."""
    entries = [(256, 4, side), (257, 4, side), (258, 3, 32), (259, 3, 8), (262, 3, 1), (277, 3, 1)]
    entries += [(322, 4, tile), (323, 4, tile), (324, 4, None), (325, 4, len(data)), (339, 3, 3)]
    at = 8 + 2 + 12 * len(entries) + 4
    body = b"".join(struct.pack("<HHII", t, k, 1, at if v is None else v) for t, k, v in entries)
    path.write_bytes(b"II*\0" + struct.pack("<IH", 8, len(entries)) + body + b"\0" * 4 + data)
    return str(path)


def test_a_tiff_of_tiles_larger_than_the_image_is_refused_by_import_and_colour_layers(scene, tmp_path):
    # 64 x 64 pixels in one 4096 x 4096 tile: 64 MiB of zeros in 64 KiB (the verifier's 16384 tiles were 1 GiB)
    packer = zlib.compressobj(9)
    data = b"".join(packer.compress(bytes(1 << 20)) for _ in range(64)) + packer.flush()
    path = one_tile_tiff(tmp_path / "tiles.tif", 64, 4096, data)
    before = (len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.images), len(bpy.data.materials))
    said = "tiles.tif cannot be read: its tiles are 4096 x 4096 pixels (TileWidth 322, TileLength 323)"
    with pytest.raises(RuntimeError, match=re.escape(said)):
        bpy.ops.orogen.heightmap_import(filepath=path)
    layer = {"name": "img", "color": [0.5] * 3, "minimum": -1.0, "optimal": 0.5, "maximum": 2.0}
    layer.update(kind="IMAGE", image=path)
    spec = json.dumps({"version": 4, "size": 8, "layers": [layer]})
    with pytest.raises(RuntimeError, match=re.escape(said)):
        bpy.ops.orogen.terrain_add(spec=spec)
    assert (len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.images), len(bpy.data.materials)) == before
    # the same image in a 64 x 64 tile is read
    small = one_tile_tiff(tmp_path / "small.tif", 64, 64, zlib.compress(np.ones((64, 64), np.float32).tobytes()))
    assert bpy.ops.orogen.heightmap_import(filepath=small) == {"FINISHED"}


def test_the_memory_guard_counts_a_tiffs_whole_tiles(scene, tmp_path, monkeypatch):
    # 64 x 64 pixels in one 1024 x 1024 tile (allowed: GDAL's COG writes 512 x 512 tiles for any image): the
    # terrain needs about 0.8 MiB, decoding the whole tile and the image (1024 * 1024 + 64 * 64) * 4 bytes
    tile = np.zeros((1024, 1024), np.float32)
    tile[:64, :64] = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
    path = one_tile_tiff(tmp_path / "cog.tif", 64, 1024, zlib.compress(tile.tobytes()))
    monkeypatch.setenv("OROGEN_MEMORY_LIMIT", "3MiB")
    before = (len(bpy.data.objects), len(bpy.data.meshes))
    with pytest.raises(
        RuntimeError,
        match=r"cog.tif: decoding it needs about 4\.02 MiB of memory \(its strips or tiles, whole\) and 3 MiB are",
    ):
        bpy.ops.orogen.heightmap_import(filepath=path)
    assert (len(bpy.data.objects), len(bpy.data.meshes)) == before
    monkeypatch.setenv("OROGEN_MEMORY_LIMIT", "6MiB")
    assert bpy.ops.orogen.heightmap_import(filepath=path) == {"FINISHED"}


def test_a_folder_or_fifo_to_import_is_said_to_be_no_regular_file(scene, tmp_path):
    # each exists, so "no such file" would be wrong; opening the FIFO would block until a writer came
    (tmp_path / "folder.png").mkdir()
    (tmp_path / "folder.r16").mkdir()
    os.mkfifo(tmp_path / "fifo.tif")
    before = (len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.images))
    for name, said in [
        ("folder.png", "folder.png is a folder, not a regular file"),
        ("fifo.tif", r"fifo.tif is a FIFO \(named pipe\), not a regular file"),
        ("folder.r16", "folder.r16 is not a regular file"),
    ]:
        with pytest.raises(RuntimeError, match=said):
            bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / name))
        assert (len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.images)) == before
    with pytest.raises(RuntimeError, match="no such file"):
        bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / "missing.png"))


@pytest.mark.parametrize(
    ("limit", "ok"), [("1G", True), ("1e9", True), ("512MiB", True), ("-5", False), ("lots", False)]
)
def test_memory_limit_in_the_usual_forms(scene, monkeypatch, limit, ok):
    monkeypatch.setenv("OROGEN_MEMORY_LIMIT", limit)
    if ok:
        assert bpy.ops.orogen.terrain_add(size=17) == {"FINISHED"}
    else:
        with pytest.raises(RuntimeError, match="OROGEN_MEMORY_LIMIT must be bytes as a number"):
            bpy.ops.orogen.terrain_add(size=17)


WHICH_TIFFFILE = r"""
import json, sys
import bpy
import addon_utils
addon_utils.enable("bl_ext.user_default.orogen", default_set=True)
assert "tifffile" not in sys.modules, "tifffile was imported before the extension asked for it"
from bl_ext.user_default.orogen.core.io import geotiff
tifffile = geotiff._tifffile()
print(json.dumps([tifffile.__version__, tifffile.__file__]))
"""


def test_tifffile_comes_from_the_extensions_wheel(orogen, user_dir):
    # In a fresh Blender (the installed extension, the same user folder): in this process an earlier test may
    # have imported another tifffile (the core tests import the source tree's wheel), and sys.modules keeps it.
    proc = subprocess.run(
        [sys.executable, "-c", WHICH_TIFFFILE],
        cwd=ROOT,
        env={**os.environ, "BLENDER_USER_RESOURCES": str(user_dir)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    version, path = json.loads(proc.stdout.strip().splitlines()[-1])
    assert version == "2026.3.3"
    # installed from the extension's wheel into Blender's extensions site-packages, not a zip on sys.path
    assert Path(path).resolve().is_relative_to((Path(user_dir) / "extensions" / ".local").resolve())
    assert ".whl" not in path and "site-packages" in Path(path).parts


GDAL_TRANSLATE = shutil.which("gdal_translate")


@pytest.mark.skipif(
    GDAL_TRANSLATE is None and os.environ.get("OROGEN_REQUIRE_GDAL") != "1",
    reason="gdal_translate (Debian package gdal-bin) is not installed",
)
def test_a_geotiff_dem_keeps_its_real_heights_and_reports_nodata(scene, tmp_path):
    heights = np.linspace(100.0, 160.0, 21 * 31, dtype=np.float32).reshape(21, 31)
    heights[5, 7] = -9999.0  # one nodata cell: it once became Z 0 and squeezed the relief
    asc = tmp_path / "dem.asc"
    with open(asc, "w") as f:
        f.write("ncols 31\nnrows 21\nxllcorner 500000\nyllcorner 4000000\ncellsize 10\nNODATA_value -9999\n")
        np.savetxt(f, heights, fmt="%.4f")
    tif = tmp_path / "dem.tif"
    subprocess.run(
        [
            GDAL_TRANSLATE,
            "-q",
            "-of",
            "GTiff",
            "-ot",
            "Float32",
            "-a_srs",
            "EPSG:32616",
            "-co",
            "COMPRESS=DEFLATE",
            str(asc),
            str(tif),
        ],
        check=True,
    )
    assert bpy.ops.orogen.heightmap_import(filepath=str(tif), width=5.0, height=60.0) == {"FINISHED"}
    obj = bpy.context.active_object
    co = np.empty(21 * 31 * 3, np.float32)
    obj.data.vertices.foreach_get("co", co)
    z = co.reshape(21, 31, 3)[..., 2]
    real = heights != -9999.0
    assert np.allclose(z[real], heights[real] - 100.0, atol=2e-4)  # metres above the lowest point, unsqueezed
    assert 100.0 < z[5, 7] + 100.0 < 160.0  # filled from its neighbours, not 0
    x = co.reshape(21, 31, 3)[..., 0]
    assert x.max() - x.min() == pytest.approx(300.0, rel=1e-5)  # 30 cells of 10 m
    info = json.loads(obj["orogen_terrain"])
    assert info["nodata_cells"] == 1 and info["elevation_range_m"] == pytest.approx([100.0, 160.0])
    assert info["dem_cell_size_m"] == [10.0, 10.0] and info["height"] == pytest.approx(60.0)


@pytest.mark.skipif(
    GDAL_TRANSLATE is None and os.environ.get("OROGEN_REQUIRE_GDAL") != "1",
    reason="gdal_translate (Debian package gdal-bin) is not installed",
)
def test_a_geographic_dem_keeps_its_footprint_scale_and_north(scene, tmp_path):
    # 3" cells at 60° N (about 46 m east-west by 93 m north-south), south-up, heights stored in decametres
    # with an offset: the mesh must span the true extents, north at +Y, in metres.
    rows, cols = 21, 41
    stored = np.add.outer(np.arange(rows) * 2.0, np.arange(cols) * 0.5).astype(np.float32)  # rises with the row
    asc = tmp_path / "geo.asc"
    with open(asc, "w") as f:
        f.write(f"ncols {cols}\nnrows {rows}\nxllcorner 10\nyllcorner 59.99\ncellsize {3 / 3600!r}\n")
        np.savetxt(f, stored, fmt="%.4f")
    south = 59.99
    north = south + rows * 3 / 3600
    tif = tmp_path / "geo.tif"
    subprocess.run(
        [
            GDAL_TRANSLATE or "gdal_translate",
            "-q",
            "-of",
            "GTiff",
            "-ot",
            "Float32",
            "-a_srs",
            "EPSG:4326",
            "-a_scale",
            "10",
            "-a_offset",
            "100",
            "-a_ullr",
            "10",
            str(south),
            str(10 + cols * 3 / 3600),
            str(north),  # upper-left y below lower-right y: a south-up raster
            str(asc),
            str(tif),
        ],
        check=True,
    )
    assert bpy.ops.orogen.heightmap_import(filepath=str(tif)) == {"FINISHED"}
    obj = bpy.context.active_object
    info = json.loads(obj["orogen_terrain"])
    from core.io import geotiff

    lon_m, lat_m = geotiff.metres_per_degree(0.5 * (south + north))
    dx, dy = 3 / 3600 * lon_m, 3 / 3600 * lat_m
    assert info["dem_cell_size_m"] == pytest.approx([dx, dy], rel=1e-9)
    assert info["elevation_range_m"] == pytest.approx([100.0, 100.0 + 10 * (40 + 20)])
    co = np.empty(len(obj.data.vertices) * 3, np.float32)
    obj.data.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    side = np.sqrt(dx * dy)
    assert co[:, 0].max() - co[:, 0].min() == pytest.approx(40 * dx, abs=side / 2)  # the true footprint
    assert co[:, 1].max() - co[:, 1].min() == pytest.approx(20 * dy, abs=side / 2)
    assert co[:, 2].max() - co[:, 2].min() == pytest.approx(600.0, rel=1e-4)  # decametres scaled to metres
    south_edge = co[:, 1] < co[:, 1].min() + 1e-3
    north_edge = co[:, 1] > co[:, 1].max() - 1e-3
    # the file's rows run south to north, so its heights rise to the north (read unflipped, they would fall)
    assert co[north_edge, 2].mean() == pytest.approx(500.0) and co[south_edge, 2].mean() == pytest.approx(100.0)
