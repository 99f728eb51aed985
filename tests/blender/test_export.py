"""Exported files, read back with independent readers: Blender's image loader, numpy for RAW."""

import json
import struct
import zlib

import bpy
import numpy as np
import pytest


@pytest.fixture
def terrain(scene):
    bpy.ops.orogen.terrain_add(
        generator="diamond_square", size=37, seed=6, width=36.0, height=12.0, set="lighting.mode=hillshade"
    )
    return bpy.context.active_object


def export(tmp_path, **kw):
    return bpy.ops.orogen.export_maps(directory=str(tmp_path), name="t", **kw)


@pytest.mark.smoke
def test_heightmap_formats_round_trip_exactly(terrain, orogen, tmp_path):
    ex = orogen.addon.io.heightmaps
    h = ex.heightmap_from_mesh(terrain)
    assert h.min() == 0.0 and h.max() == 1.0
    for fmt in ("PNG16", "EXR", "R16", "NPY"):
        assert export(tmp_path / fmt, heightmap_format=fmt) == {"FINISHED"}
    z = ex.surface_z(terrain)  # 16-bit files: levels over the relief in metres, 0 m to 12 m here
    levels, span = orogen.core.io.formats.quantise(z)
    assert span == (0.0, 12.0)
    png = ex.read_image(str(tmp_path / "PNG16" / "t_height.png"))[..., 0]
    assert np.array_equal(np.rint(png.astype(np.float64) * 65535.0), levels)
    assert levels.min() == 0 and levels.max() == 65535
    raw = np.fromfile(tmp_path / "R16" / "t_height.r16", dtype="<u2").reshape(37, 37)
    assert np.array_equal(raw, levels.astype(np.uint16))
    assert np.array_equal(ex.read_image(str(tmp_path / "EXR" / "t_height.exr"))[..., 0], h)
    assert np.array_equal(np.load(tmp_path / "NPY" / "t_height.npy"), h)


def test_orientation_row_0_is_north(terrain, orogen, tmp_path):
    ex = orogen.addon.io.heightmaps
    export(tmp_path, heightmap_format="EXR")
    image = ex.read_image(str(tmp_path / "t_height.exr"))[..., 0]
    co = np.empty(len(terrain.data.vertices) * 3, dtype=np.float32)
    terrain.data.vertices.foreach_get("co", co)
    co = co.reshape(37, 37, 3)
    north_row = co[np.argmax(co[:, 0, 1])]  # the row with the largest Y
    assert np.allclose(image[0] * 12.0, north_row[:, 2], atol=1e-5)
    assert (np.diff(north_row[:, 0]) > 0).all()  # column 0 is west


def test_normalised_files_record_the_height_range_too(terrain, tmp_path):
    export(tmp_path, heightmap_format="R16")
    info = json.loads((tmp_path / "t_height.r16.json").read_text())
    assert info["height_range_m"] == [0.0, 12.0] and info["encoding"].startswith("normalised")


def test_absolute_metres_with_a_sidecar(terrain, orogen, tmp_path):
    export(tmp_path, heightmap_format="EXR", absolute=True)
    metres = orogen.addon.io.heightmaps.read_image(str(tmp_path / "t_height.exr"))[..., 0]
    assert metres.min() == 0.0 and metres.max() == pytest.approx(12.0)
    info = json.loads((tmp_path / "t_height.exr.json").read_text())
    assert info["encoding"] == "metres" and info["height_range_m"] == [0.0, 12.0]
    assert info["spec"]["generator"] == "diamond_square" and info["cell_size_m"] == pytest.approx(1.0)
    assert "north" in info["orientation"]


def test_baked_maps_match_core(terrain, orogen, tmp_path):
    ex, core = orogen.addon.io.heightmaps, orogen.core
    assert export(tmp_path) == {"FINISHED"}
    h = ex.heightmap_from_mesh(terrain)
    metres = h * np.float32(12.0)
    normal = ex.read_image(str(tmp_path / "t_normal.png"))[..., :3]
    assert np.abs(normal - core.lighting.normal_map(metres, 1.0)).max() <= 0.5 / 255 + 1e-6
    slope = ex.read_image(str(tmp_path / "t_slope.exr"))[..., 0]
    assert np.array_equal(slope, core.lighting.slope_degrees(metres, 1.0))
    light = ex.read_image(str(tmp_path / "t_lightmap.png"))[..., 0]
    assert np.abs(light - ex.point_map(terrain, "Lightmap")).max() <= 0.5 / 255 + 1e-6
    color = ex.read_image(str(tmp_path / "t_color.png"))[..., :3]
    linear = core.colormap(h, core.DEFAULT_LAYERS, core.lighting.slope_degrees(metres, 1.0)).astype(np.float64)
    srgb = np.where(linear <= 0.0031308, linear * 12.92, 1.055 * linear ** (1 / 2.4) - 0.055)
    assert np.abs(color - srgb).max() <= 1.5 / 255
    splat = ex.read_image(str(tmp_path / "t_splat0.png"))
    levels = np.rint(splat.astype(np.float64) * 255.0)
    assert (levels.sum(axis=-1) == 255).all()  # three layers + an empty alpha channel... sums to 255
    assert not (tmp_path / "t_splat1.png").exists()


def test_colour_maps_of_a_terrain_uplifted_above_height_are_the_materials(scene, orogen, tmp_path):
    """Version 3: uplift lifts this terrain to about 1.39 x Height. The exported heightmap spans its own range,
    but the colour map and splat maps blend the layers on what the material reads: the ``height`` attribute
    (normalised layers, here above 1 on the peaks) and Z in metres (metres layers), not the rescaled export."""
    ex, core = orogen.addon.io.heightmaps, orogen.core
    layers = [
        {"name": "low", "color": [0.1, 0.3, 0.05], "minimum": -1.0, "optimal": 0.2, "maximum": 0.8},
        {"name": "high", "color": [0.9, 0.9, 0.95], "minimum": 0.7, "optimal": 1.3, "maximum": 3.0},
        {
            "name": "band",
            "color": [0.5, 0.3, 0.2],
            "minimum": 120.0,
            "optimal": 160.0,
            "maximum": 200.0,
            "heights": "metres",
        },
    ]
    size, width, height = 33, 3200.0, 200.0
    assert bpy.ops.orogen.terrain_add(
        spec=json.dumps(
            {
                "version": 3,
                "size": size,
                "seed": 3,
                "width": width,
                "height": height,
                "generator": "diamond_square",
                "filters": [
                    {"type": "erosion", "steps": 5, "dt": 2.0e4, "uplift": 1.0e-3, "auto_rates": False, "k": 1.0e-5}
                ],
                "material": {"shading": "unlit"},
                "lighting": {"enabled": False},
                "layers": layers,
            }
        )
    ) == {"FINISHED"}
    terrain = bpy.context.active_object
    assert export(tmp_path, heightmap_format="R16", use_splat_maps=True) == {"FINISHED"}
    units = ex.heightmap_from_mesh(terrain)
    assert units.max() > 1.3
    info = json.loads((tmp_path / "t_height.r16.json").read_text())
    assert info["height_range_m"] == [pytest.approx(units.min() * height), pytest.approx(units.max() * height)]
    cell = width / (size - 1)
    slope = core.lighting.slope_degrees(units * np.float32(height), cell)
    erosion = {
        n: m
        for n in ("drainage_area", "flow_direction", "water_depth", "deposited", "removed")
        if (m := ex.point_map(terrain, n)) is not None
    }
    scale = {"height": height, "cell_size": cell, "seed": 3}
    checked = core.spec.layers_from_data(layers)
    linear = core.colormap(units, checked, slope, maps=erosion, **scale).astype(np.float64)
    srgb = np.where(linear <= 0.0031308, linear * 12.92, 1.055 * linear ** (1 / 2.4) - 0.055)
    assert np.abs(ex.read_image(str(tmp_path / "t_color.png"))[..., :3] - srgb).max() <= 1.5 / 255
    weights = core.layer_weights(units, checked, slope, maps=erosion, **scale)
    splat = np.rint(ex.read_image(str(tmp_path / "t_splat0.png")).astype(np.float64) * 255.0)
    assert np.abs(splat[..., :3] - weights * 255.0).max() <= 1.0
    assert (weights[..., 1] > 0.5).mean() > 0.05 and (weights[..., 2] > 0.5).mean() > 0.02  # both matter
    # The colour baked for Unlit (no lighting: the blend alone) is the same blend of the same heights.
    baked = ex.point_map(terrain, orogen.addon.mesh.BAKED_COLOR_ATTRIBUTE)
    assert np.abs(baked - linear[..., 0]).max() < 1e-6


def test_export_into_a_file_path_is_reported(terrain, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(RuntimeError, match="is a file, not a folder"):
        bpy.ops.orogen.export_maps(directory=str(blocker), name="t")


def test_a_failed_export_leaves_the_folder_as_it_was(terrain, tmp_path):
    (tmp_path / "t_splat0.png").mkdir()  # the last file written cannot go where it should
    with pytest.raises(RuntimeError, match="t_splat0.png is a folder: nothing was written"):
        export(tmp_path, heightmap_format="R16", use_splat_maps=True)
    assert [p.name for p in tmp_path.iterdir()] == ["t_splat0.png"]
    assert export(tmp_path, heightmap_format="R16", use_splat_maps=False) == {"FINISHED"}
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file())[:2] == ["t_color.png", "t_curvature.exr"]


def test_a_hand_edited_shape_is_refused_before_anything_is_allocated(terrain, tmp_path):
    info = json.loads(terrain["orogen_terrain"])
    for shape in ([100_000, 100_000], [37, 36], [True, 37], "37"):
        terrain["orogen_terrain"] = json.dumps({**info, "shape": shape})
        with pytest.raises(RuntimeError, match="does not match its 1369 vertices"):
            export(tmp_path, heightmap_format="NPY")
    assert list(tmp_path.iterdir()) == []


def test_export_needs_a_terrain(scene):
    bpy.ops.mesh.primitive_cube_add()
    assert not bpy.ops.orogen.export_maps.poll()


def vertices(obj):
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


@pytest.mark.parametrize(
    ("fmt", "suffix", "step"),
    [("PNG16", ".png", 12.0 / 65535), ("EXR", ".exr", 1e-6), ("R16", ".r16", 12.0 / 65535), ("NPY", ".npy", 1e-6)],
)
def test_export_then_import_gives_the_same_mesh(terrain, tmp_path, fmt, suffix, step):
    export(tmp_path, heightmap_format=fmt)
    original = vertices(terrain)
    path = tmp_path / ("t_height" + suffix)
    assert bpy.ops.orogen.heightmap_import(filepath=str(path), width=36.0, height=12.0, location=(0, 0, 0)) == {
        "FINISHED"
    }
    imported = bpy.context.active_object
    assert imported is not terrain and imported.name.startswith("t_height")
    back = vertices(imported)
    terrain_at_origin = original - np.array(terrain.location, dtype=np.float32)
    assert back.shape == original.shape
    assert np.abs(back - terrain_at_origin).max() <= step + 1e-5
    assert "Lightmap" in imported.data.color_attributes and "slope" in imported.data.attributes
    assert imported.active_material is not None


def test_import_8_bit_and_tiff(scene, orogen, tmp_path):
    ex = orogen.addon.io.heightmaps
    ramp = np.tile(np.linspace(0.0, 1.0, 64), (48, 1))
    ex.write_image(str(tmp_path / "ramp8.png"), ramp)
    image = bpy.data.images.new("tif", 64, 48, float_buffer=True, is_data=True)
    rgba = np.ones((48, 64, 4), np.float32)
    rgba[..., :3] = ramp[::-1, :, None]
    image.pixels.foreach_set(rgba.ravel())
    image.filepath_raw = str(tmp_path / "ramp.tif")
    image.file_format = "TIFF"
    image.save()
    for name in ("ramp8.png", "ramp.tif"):
        assert bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / name), width=63.0, height=10.0) == {"FINISHED"}
        co = vertices(bpy.context.active_object).reshape(48, 64, 3)
        assert co[..., 2].min() == 0.0 and co[..., 2].max() == pytest.approx(10.0)
        assert np.allclose(co[0, :, 2], np.linspace(0.0, 10.0, 64), atol=10.0 / 255 + 1e-5)  # rises to the east


def test_import_of_a_missing_or_broken_file_is_reported(scene, tmp_path):
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not a png")
    before = len(bpy.data.objects)
    for path in (tmp_path / "missing.png", bad):
        with pytest.raises(RuntimeError, match="Heightmap not imported"):
            bpy.ops.orogen.heightmap_import(filepath=str(path))
    assert len(bpy.data.objects) == before


def test_import_of_raw_and_npy_reads_the_shape_and_refuses_what_does_not_fit(scene, orogen, tmp_path):
    ramp = np.tile(np.arange(6, dtype="<u2") * 13107, (4, 1))  # 4 x 6, 0 .. 65535 west to east
    ramp.tofile(tmp_path / "wide.r16")
    before = len(bpy.data.objects)
    with pytest.raises(RuntimeError, match=r"48 bytes: not a 4 x 4 16-bit RAW heightmap .*sidecar"):
        bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / "wide.r16"))
    (tmp_path / "wide.r16.json").write_text(json.dumps({"shape": [4, 6]}))
    assert bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / "wide.r16"), width=5.0, height=2.0) == {"FINISHED"}
    co = vertices(bpy.context.active_object).reshape(4, 6, 3)
    assert np.allclose(co[0, :, 2], np.linspace(0.0, 2.0, 6), atol=1e-6)  # rises to the east
    np.arange(9, dtype="<u2").tofile(tmp_path / "square.raw")  # 3 x 3 without a sidecar
    assert bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / "square.raw")) == {"FINISHED"}
    assert len(bpy.context.active_object.data.vertices) == 9
    before = len(bpy.data.objects)
    np.save(tmp_path / "cube.npy", np.zeros((3, 3, 3)))
    np.save(tmp_path / "nan.npy", np.array([[0.0, np.nan], [1.0, 2.0]]))
    np.save(tmp_path / "objects.npy", np.array([[None, 1], [2, 3]], dtype=object), allow_pickle=True)
    np.save(tmp_path / "line.npy", np.zeros((1, 50)))
    (tmp_path / "dem.asc").write_text("ncols 2\n")
    (tmp_path / "empty.npy").write_bytes(b"")
    np.savez(tmp_path / "archive.npz", a=np.zeros((3, 3)))
    (tmp_path / "archive.npz").rename(tmp_path / "archive.npy")
    (tmp_path / "cut.npy").write_bytes(b"\x93NUMPY\x01\x00" + (6).to_bytes(2, "little") + b"{'a':\n")
    header = f"{{'descr': '<f4', 'fortran_order': False, 'shape': ({2**64}, 4), }}"
    (tmp_path / "huge.npy").write_bytes(
        b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + bytes(64)
    )
    np.zeros(64, "<u2").tofile(tmp_path / "flags.r16")
    (tmp_path / "flags.r16.json").write_text(json.dumps({"shape": [True, 64]}))
    np.zeros(64, "<u2").tofile(tmp_path / "deep.r16")
    (tmp_path / "deep.r16.json").write_text("[" * 100_000 + "]" * 100_000)
    for name, match in (
        ("empty.npy", "empty.npy is not a readable .npy array"),
        ("archive.npy", "an archive of arrays, not one array"),
        ("cut.npy", "cut.npy is not a readable .npy array"),
        ("huge.npy", "huge.npy is not a readable .npy array"),
        ("flags.r16", r'flags.r16.json must be a JSON object with "shape": \[rows, cols\]'),
        ("deep.r16", r"deep.r16.json nests 100000 levels deep"),
        ("cube.npy", r"must hold a 2D array of real numbers, got shape \(3, 3, 3\)"),
        ("nan.npy", "holds NaN or Inf heights"),
        ("objects.npy", "objects.npy is not a readable .npy array"),
        ("line.npy", "2 to 4097 vertices per side, got 1 x 50"),
        ("dem.asc", r"cannot read .asc: Orogen reads heightmaps in .png, .tif"),
    ):
        with pytest.raises(RuntimeError, match=match):
            bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / name))
    assert len(bpy.data.objects) == before
    assert len(bpy.data.images) == 0


@pytest.mark.parametrize(
    ("file_format", "settings"),
    [
        ("PNG", {"color_depth": "8", "color_mode": "BW"}),
        ("PNG", {"color_depth": "16", "color_mode": "RGBA"}),
        ("TIFF", {"color_depth": "8", "tiff_codec": "DEFLATE"}),
        ("TIFF", {"color_depth": "16", "tiff_codec": "NONE"}),
        ("OPEN_EXR", {"color_depth": "16", "exr_codec": "ZIP"}),
        ("OPEN_EXR", {"color_depth": "32", "exr_codec": "PIZ"}),
        ("OPEN_EXR", {"color_depth": "16", "exr_codec": "DWAA"}),
    ],
)
def test_header_sizes_match_what_blender_reads(scene, orogen, tmp_path, file_format, settings):
    image = bpy.data.images.new("probe", 37, 23, float_buffer=True)
    path = str(tmp_path / "probe")
    image.filepath_raw = path
    try:
        output = bpy.context.scene.render.image_settings
        output.file_format = file_format
        for key, value in settings.items():
            setattr(output, key, value)
        image.save_render(path, scene=bpy.context.scene)
    finally:
        bpy.data.images.remove(image)
    fmt, rows, cols = orogen.core.io.image_headers.image_size(path)
    loaded = bpy.data.images.load(path)
    try:
        assert (cols, rows) == tuple(loaded.size) == (37, 23)
        assert fmt == {"PNG": "PNG", "TIFF": "TIFF"}.get(file_format, "OpenEXR")
    finally:
        bpy.data.images.remove(loaded)


def test_a_small_file_claiming_a_huge_image_is_refused_before_decoding(scene, tmp_path):
    # 12000 x 12000 in the header, no pixel data: refused by the header's size, not by a failed decode.
    ihdr = struct.pack(">IIBBBBB", 12000, 12000, 16, 0, 0, 0, 0)
    (tmp_path / "bomb.png").write_bytes(
        b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    )
    with pytest.raises(RuntimeError, match="2 to 4097 vertices per side, got 12000 x 12000"):
        bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / "bomb.png"))
    assert len(bpy.data.images) == 0 and len(bpy.data.objects) == 0


def test_a_recipe_outside_the_size_bounds_is_refused(scene):
    before = len(bpy.data.objects)
    for shape, match in (
        ([5000, 5000], r"size must be in \[2, 4097\], got 5000"),
        ([1, 1], r"size must be in \[2, 4097\], got 1"),
        ([4098, 2], r"size_y must be in \[0, 4097\], got 4098"),
    ):  # shape is [rows, cols]
        recipe = json.dumps({"generator": "hills", "seed": 1, "shape": shape})
        with pytest.raises(RuntimeError, match=match):
            bpy.ops.orogen.terrain_add(spec=recipe)  # a 0.1 recipe is a spec
    assert len(bpy.data.objects) == before


def test_import_checks_memory_before_decoding(scene, orogen, tmp_path, monkeypatch):
    orogen.addon.io.heightmaps.write_image(str(tmp_path / "big.png"), np.zeros((512, 512)))
    monkeypatch.setenv("OROGEN_MEMORY_LIMIT", str(2**20))
    with pytest.raises(RuntimeError, match="512 x 512 terrain needs about"):
        bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / "big.png"))


def test_export_needs_a_folder_and_object_mode(terrain):
    with pytest.raises(RuntimeError, match="choose a folder"):
        bpy.ops.orogen.export_maps(directory="", name="t")
    bpy.ops.object.mode_set(mode="EDIT")
    try:
        assert not bpy.ops.orogen.export_maps.poll() and not bpy.ops.orogen.size_set.poll()
    finally:
        bpy.ops.object.mode_set(mode="OBJECT")


@pytest.mark.parametrize("failing", ["a.txt", "c.txt"])
def test_commit_puts_every_old_file_back_when_one_rename_fails(orogen, tmp_path, monkeypatch, failing):
    import os

    target = tmp_path / "out"
    target.mkdir()
    names = ("a.txt", "b.txt", "c.txt")
    for name in names:
        (target / name).write_text("old " + name)
        (tmp_path / name).write_text("new " + name)
    pairs = [(str(tmp_path / n), str(target / n)) for n in names]
    real_replace = os.replace

    def replace(src, dst):
        if src == str(tmp_path / failing):  # this new file cannot go in (an immutable or locked target)
            raise PermissionError(1, "Operation not permitted", str(src))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(PermissionError):
        orogen.addon.io.heightmaps.commit(pairs)
    monkeypatch.setattr(os, "replace", real_replace)
    assert {p.name: p.read_text() for p in target.iterdir()} == {n: "old " + n for n in names}  # no leftovers
    orogen.addon.io.heightmaps.commit(pairs)
    assert {p.name: p.read_text() for p in target.iterdir()} == {n: "new " + n for n in names}


def test_export_replaces_the_chosen_files_but_only_orogens_sidecars(terrain, tmp_path):
    """The maps carry the name the user chose: an export replaces them, as Blender's exporters do. A sidecar
    is named by Orogen: one that is not Orogen's (the user's own JSON there) refuses the export before any file
    is replaced; Orogen's own, from an earlier export (today's or 0.2's), is replaced."""
    (tmp_path / "t_height.r16").write_bytes(b"an older heightmap of the user's")
    (tmp_path / "t_height.r16.json").write_text('{"mine": true}')
    with pytest.raises(RuntimeError, match=r"t_height.r16.json in .* is not Orogen's .*nothing was written: move"):
        export(tmp_path, heightmap_format="R16")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t_height.r16", "t_height.r16.json"]
    assert (tmp_path / "t_height.r16.json").read_text() == '{"mine": true}'
    assert (tmp_path / "t_height.r16").read_bytes() == b"an older heightmap of the user's"
    (tmp_path / "t_height.r16.json").unlink()
    assert export(tmp_path, heightmap_format="R16") == {"FINISHED"}  # the .r16 the user named: replaced
    assert (tmp_path / "t_height.r16").stat().st_size == 37 * 37 * 2
    assert export(tmp_path, heightmap_format="R16") == {"FINISHED"}  # again over its own set
    old = json.loads((tmp_path / "t_height.r16.json").read_text())
    del old["sidecar_version"]  # as Orogen 0.2 wrote it
    (tmp_path / "t_height.r16.json").write_text(json.dumps(old))
    assert export(tmp_path, heightmap_format="R16") == {"FINISHED"}
    assert "sidecar_version" in json.loads((tmp_path / "t_height.r16.json").read_text())
    (tmp_path / "t_erosion.json").write_text("[]")  # named like the erosion record: no erosion maps, not written
    assert export(tmp_path, heightmap_format="R16") == {"FINISHED"}
    assert (tmp_path / "t_erosion.json").read_text() == "[]"
