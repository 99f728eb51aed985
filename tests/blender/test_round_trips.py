"""Export then import gives the terrain back: its metres (base height included), size, look and water; tiles
import at their place; a width given wins over the sidecar; ``set=`` and ``spec=`` reach the importer's look."""

import json

import bpy
import numpy as np
import pytest

FORMATS = (("PNG16", ".png", False), ("R16", ".r16", False), ("EXR", ".exr", False), ("NPY", ".npy", False))
METRES = (("EXR", ".exr", True), ("NPY", ".npy", True))


def vertices(obj):
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def spec_of(orogen, obj):
    return orogen.addon.specio.read_spec(obj.orogen)


def water_level(obj):
    water = [o for o in bpy.data.objects if o.parent == obj]
    return [round(o.matrix_world.translation.z + vertices(o)[:, 2].max(), 4) for o in water]


def island(scene, orogen):
    data = json.loads(orogen.core.preset_spec("island").to_json())
    # its sea floor above 0 m (not fitted down to it), its streams without uplift (heights within its Height)
    data.update(size=65, size_y=0, width=400.0, fit_height=False)
    data["filters"] = [dict(f, uplift=0.0) if f["type"] == "erosion" else f for f in data["filters"]]
    assert bpy.ops.orogen.terrain_add(spec=json.dumps(data), location=(0, 0, 0)) == {"FINISHED"}
    return bpy.context.active_object


def non_square(scene, orogen):
    assert bpy.ops.orogen.terrain_add(
        size=65,
        size_y=33,
        width=800.0,
        height=60.0,
        seed=3,
        location=(0, 0, 0),
        set="lighting.mode=hillshade; material.water=true; material.water_level=21.5",
    ) == {"FINISHED"}
    return bpy.context.active_object


def below_zero(scene, orogen, tmp_path):
    """A terrain from -37.5 m to 80.5 m: an NPY in metres with its sidecar, imported."""
    formats = orogen.core.io.formats
    rows, cols = 21, 33
    y, x = np.mgrid[0:rows, 0:cols]
    metres = (-37.5 + 118.0 * (0.5 + 0.5 * np.sin(x / 4.0) * np.cos(y / 3.0))).astype(np.float32)
    metres[0, 0], metres[-1, -1] = -37.5, 80.5
    path = str(tmp_path / "below.npy")
    formats.write_npy(path, metres)
    info = formats.sidecar_info(
        path,
        metres.shape,
        "NPY",
        absolute=True,
        height_range=(-37.5, 80.5),
        extra={"width_m": 320.0, "height_m": 128.0, "spec": None},  # any metres x 2^k come back exactly
    )
    (tmp_path / "below.npy.json").write_text(json.dumps(info))
    assert bpy.ops.orogen.heightmap_import(filepath=path, location=(0, 0, 0), set="material.water=true") == {"FINISHED"}
    obj = bpy.context.active_object
    z = vertices(obj)[:, 2].reshape(rows, cols)
    assert np.array_equal(z, metres)  # the file's metres, base height and all, bit for bit
    return obj


def scree_slopes(scene, orogen):
    data = json.loads(orogen.core.preset_spec("scree_slopes").to_json())
    # its sea floor above 0 m (not fitted down to it), its streams without uplift (heights within its Height)
    data.update(size=65, size_y=0, width=400.0, fit_height=False)
    data["filters"] = [dict(f, uplift=0.0) if f["type"] == "erosion" else f for f in data["filters"]]
    assert bpy.ops.orogen.terrain_add(spec=json.dumps(data), location=(0, 0, 0)) == {"FINISHED"}
    return bpy.context.active_object


TERRAINS = {"island": island, "non_square": non_square, "scree_slopes": scree_slopes}


def export_import(orogen, obj, tmp_path, fmt, suffix, absolute):
    for o in bpy.context.view_layer.objects:
        o.select_set(o == obj)
    bpy.context.view_layer.objects.active = obj
    out = tmp_path / f"{fmt}{int(absolute)}"
    assert bpy.ops.orogen.export_maps(directory=str(out), name="t", heightmap_format=fmt, absolute=absolute) == {
        "FINISHED"
    }
    path = out / ("t_height" + suffix)
    assert bpy.ops.orogen.heightmap_import(filepath=str(path), location=(0, 0, 0)) == {"FINISHED"}
    back = bpy.context.active_object
    assert back is not obj
    return back


def check_same(orogen, obj, back, exact, levels=True):
    z0, z1 = vertices(obj)[:, 2], vertices(back)[:, 2]
    assert z1.shape == z0.shape
    if exact:
        assert np.array_equal(z1, z0), np.abs(z1 - z0).max()
    else:
        within_a_step(z0, z1, ends=levels)
    assert np.allclose(vertices(back)[:, :2], vertices(obj)[:, :2], atol=1e-4)
    assert tuple(back.dimensions) == pytest.approx(tuple(obj.dimensions), abs=1e-3)
    a, b = spec_of(orogen, obj), spec_of(orogen, back)
    assert (b.width, b.height) == (a.width, a.height)
    assert b.layers == a.layers
    assert b.material == a.material and b.lighting == a.lighting
    assert water_level(back) == water_level(obj)


def within_a_step(z0, z1, ends=True):
    """``z1`` is ``z0`` through a 16-bit file over its relief: within half a step (max - min) / 65535 of it, and
    float32's rounding of the metres; the base (lowest metre) the same."""
    relief = float(z0.max()) - float(z0.min())
    ulp = np.spacing(np.abs(z0).astype(np.float32)).astype(np.float64)
    error = np.abs(z1.astype(np.float64) - z0)
    assert (error <= relief / 65535 / 2 * (1 + 1e-6) + ulp).all(), (error.max(), relief / 65535)
    if ends:  # levels 0 and 65535 are its lowest and highest metre
        assert z1.min() == z0.min() and z1.max() == z0.max()


@pytest.mark.parametrize("which", sorted(TERRAINS))
@pytest.mark.parametrize(("fmt", "suffix", "absolute"), FORMATS + METRES)
def test_export_then_import_gives_the_terrain_back(scene, orogen, tmp_path, which, fmt, suffix, absolute):
    obj = TERRAINS[which](scene, orogen)
    z = vertices(obj)[:, 2]
    if which != "non_square":
        assert z.min() > 0.5  # does not start at 0 m: the import must not re-base it
    back = export_import(orogen, obj, tmp_path, fmt, suffix, absolute)
    check_same(orogen, obj, back, exact=fmt in ("EXR", "NPY"))


@pytest.mark.parametrize(("fmt", "suffix", "absolute"), FORMATS + METRES)
def test_a_terrain_below_zero_comes_back_at_its_base(scene, orogen, tmp_path, fmt, suffix, absolute):
    obj = below_zero(scene, orogen, tmp_path)
    assert vertices(obj)[:, 2].min() == -37.5
    back = export_import(orogen, obj, tmp_path, fmt, suffix, absolute)
    # EXR and NPY in metres bit for bit; normalised files (0..1 over the range) within a 16-bit step or float32
    check_same(orogen, obj, back, exact=absolute, levels=fmt in ("PNG16", "R16"))
    if not absolute:
        assert abs(float(vertices(back)[:, 2].min()) + 37.5) <= 118.0 / 65535


def export_16(orogen, obj, tmp_path, fmt, capsys=None):
    for o in bpy.context.view_layer.objects:
        o.select_set(o == obj)
    bpy.context.view_layer.objects.active = obj
    out = tmp_path / fmt
    assert bpy.ops.orogen.export_maps(directory=str(out), name="t", heightmap_format=fmt) == {"FINISHED"}
    path = out / ("t_height" + {"PNG16": ".png", "R16": ".r16"}[fmt])
    return path, json.loads(path.with_name(path.name + ".json").read_text())


#: Every preset (checked against core's list below).
PRESETS = (
    "alpine_faults",
    "alpine_ridges",
    "badlands",
    "canyon_mesas",
    "diamond_square_peaks",
    "dunes",
    "eroded_mountains",
    "island",
    "river_valleys",
    "rolling_farmland",
    "rolling_hills",
    "scree_slopes",
    "volcanic_island",
)


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_comes_back_through_16_bits_within_a_step_of_its_relief(scene, orogen, tmp_path, name):
    """PNG16 and R16 hold levels over the terrain's own relief, not over 0..Height: its base and top are levels
    0 and 65535, and an import gives every metre back within half a step of the relief."""
    assert tuple(sorted(orogen.core.presets.PRESETS)) == PRESETS
    data = json.loads(orogen.core.preset_spec(name).to_json())
    data.update(size=33, size_y=0, width=300.0)
    assert bpy.ops.orogen.terrain_add(spec=json.dumps(data), location=(0, 0, 0)) == {"FINISHED"}, name
    obj = bpy.context.active_object
    z0 = vertices(obj)[:, 2]
    for fmt in ("PNG16", "R16"):
        path, info = export_16(orogen, obj, tmp_path / name, fmt)
        low, high = float(z0.min()), float(z0.max())
        assert info["height_range_m"] == [low, high], (name, fmt)
        assert (info["levels"]["level_0_m"], info["levels"]["level_65535_m"]) == (low, high)
        assert bpy.ops.orogen.heightmap_import(filepath=str(path), location=(0, 0, 0)) == {"FINISHED"}
        back = bpy.context.active_object
        within_a_step(z0, vertices(back)[:, 2])
        assert spec_of(orogen, back).height == spec_of(orogen, obj).height


def test_a_terrain_spanning_little_of_its_height_keeps_its_precision(scene, orogen, tmp_path, capsys):
    """Heights from 500 m to 501.5 m at a Height of 1000 m: over 0..Height a 16-bit step would be 15 mm; over
    the relief it is 0.023 mm, and the export says the metres of 0 and 65535 (for Unity and Unreal)."""
    formats = orogen.core.io.formats
    rows, cols = 17, 25
    y, x = np.mgrid[0:rows, 0:cols]
    metres = (500.0 + 1.5 * (0.5 + 0.5 * np.sin(x / 3.0) * np.cos(y / 2.0))).astype(np.float32)
    path = str(tmp_path / "plateau.npy")
    formats.write_npy(path, metres)
    info = formats.sidecar_info(
        path,
        metres.shape,
        "NPY",
        absolute=True,
        height_range=(float(metres.min()), float(metres.max())),
        extra={"width_m": 240.0, "height_m": 1000.0, "spec": None},
    )
    (tmp_path / "plateau.npy.json").write_text(json.dumps(info))
    assert bpy.ops.orogen.heightmap_import(filepath=path, location=(0, 0, 0)) == {"FINISHED"}
    obj = bpy.context.active_object
    z0 = vertices(obj)[:, 2]
    for fmt in ("PNG16", "R16"):
        capsys.readouterr()
        path16, side = export_16(orogen, obj, tmp_path, fmt)
        low, high = float(z0.min()), float(z0.max())
        said = capsys.readouterr().out
        assert f"16-bit levels 0 = {low:.6g} m, 65535 = {high:.6g} m" in said, said
        assert f"Unity Terrain Height {high - low:.6g} m" in said and "Unreal Scale Z" in said
        assert side["levels"]["step_m"] == pytest.approx((high - low) / 65535) and side["levels"]["bits"] == 16
        assert bpy.ops.orogen.heightmap_import(filepath=str(path16), location=(0, 0, 0)) == {"FINISHED"}
        z1 = vertices(bpy.context.active_object)[:, 2]
        within_a_step(z0, z1)
        assert np.abs(z1.astype(np.float64) - z0).max() < 1e-4  # not 1000 / 65535 / 2 = 7.6 mm


def test_a_flat_terrain_comes_back_flat_at_its_height(scene, orogen, tmp_path):
    formats = orogen.core.io.formats
    path = str(tmp_path / "flat.npy")
    formats.write_npy(path, np.full((9, 9), 7.25, np.float32))
    info = formats.sidecar_info(
        path, (9, 9), "NPY", absolute=True, height_range=(7.25, 7.25), extra={"width_m": 16.0, "height_m": 20.0}
    )
    (tmp_path / "flat.npy.json").write_text(json.dumps(info))
    assert bpy.ops.orogen.heightmap_import(filepath=path, location=(0, 0, 0)) == {"FINISHED"}
    obj = bpy.context.active_object
    for fmt in ("PNG16", "R16"):
        path16, side = export_16(orogen, obj, tmp_path, fmt)
        assert side["height_range_m"] == [7.25, 7.25] and side["levels"]["step_m"] == 0.0
        assert bpy.ops.orogen.heightmap_import(filepath=str(path16), location=(0, 0, 0)) == {"FINISHED"}
        assert np.array_equal(vertices(bpy.context.active_object)[:, 2], np.full(81, 7.25, np.float32))


def test_an_explicit_width_and_height_win_over_the_sidecar_and_say_so(scene, orogen, tmp_path, capsys):
    obj = non_square(scene, orogen)
    back = export_import(orogen, obj, tmp_path, "NPY", ".npy", True)
    assert spec_of(orogen, back).width == 800.0
    path = tmp_path / "NPY1" / "t_height.npy"
    capsys.readouterr()
    assert bpy.ops.orogen.heightmap_import(filepath=str(path), width=200.0, location=(0, 0, 0)) == {"FINISHED"}
    given = bpy.context.active_object
    assert spec_of(orogen, given).width == 200.0 and spec_of(orogen, given).height == 60.0
    assert given.dimensions.x == pytest.approx(200.0)
    assert "width 200 m as given (the file says 800 m)" in capsys.readouterr().out
    assert bpy.ops.orogen.heightmap_import(filepath=str(path), height=30.0, location=(0, 0, 0)) == {"FINISHED"}
    half = bpy.context.active_object
    assert spec_of(orogen, half).height == 30.0 and half.dimensions.x == pytest.approx(800.0)
    assert np.allclose(vertices(half)[:, 2], vertices(obj)[:, 2] / 2, atol=1e-4)  # its units, at Height 30 m
    capsys.readouterr()
    assert bpy.ops.orogen.heightmap_import(filepath=str(path), set="width=400", location=(0, 0, 0)) == {"FINISHED"}
    assert bpy.context.active_object.dimensions.x == pytest.approx(400.0)
    assert "width 400 m as given (the file says 800 m)" in capsys.readouterr().out
    assert bpy.ops.orogen.heightmap_import(filepath=str(path), use_sidecar_scale=False, location=(0, 0, 0)) == {
        "FINISHED"
    }
    plain = spec_of(orogen, bpy.context.active_object)
    assert (plain.width, plain.height) == (100.0, 20.0)  # the file's values over their own range, as before


def test_an_old_sidecar_still_gives_its_size_and_base(scene, orogen, tmp_path):
    """A sidecar Orogen 0.3 wrote for an imported terrain (no sidecar_version, no height_m): its height range
    gave the metres of 0 and 1 all along, so the base comes back too; its Height is the relief."""
    v = np.tile(np.linspace(0.0, 1.0, 9, dtype=np.float32), (5, 1))
    np.save(tmp_path / "old.npy", v)
    old = {"spec": None, "width_m": 40.0, "height_range_m": [2.5, 14.5], "encoding": "normalised 0..1"}
    (tmp_path / "old.npy.json").write_text(json.dumps(old))
    assert bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / "old.npy"), location=(0, 0, 0)) == {"FINISHED"}
    obj = bpy.context.active_object
    z = vertices(obj)[:, 2].reshape(5, 9)
    assert np.allclose(z[0], np.linspace(2.5, 14.5, 9), atol=1e-5) and z.min() == 2.5
    spec = spec_of(orogen, obj)
    assert (spec.width, spec.height) == (40.0, 12.0)


def test_set_and_spec_reach_the_importers_lighting_and_material(scene, orogen, tmp_path):
    ramp = np.tile(np.linspace(0.0, 1.0, 16, dtype=np.float32), (12, 1))
    path = str(tmp_path / "ramp.npy")
    np.save(path, ramp)
    assert bpy.ops.orogen.heightmap_import(
        filepath=path, set="lighting.mode=hillshade; material.shading=unlit; material.water=true; water_level=3"
    ) == {"FINISHED"}
    spec = spec_of(orogen, bpy.context.active_object)
    assert spec.lighting["mode"] == "hillshade" and spec.material["shading"] == "unlit"
    assert spec.material["water"] and spec.material["water_level"] == 3.0
    assert water_level(bpy.context.active_object) == [3.0]
    look = orogen.core.TerrainSpec(lighting={"mode": "slope"}, material={"shading": "lit"})
    layers = look.layers[:2]
    look = look.replace(layers=layers)
    assert bpy.ops.orogen.heightmap_import(filepath=path, spec=look.to_json(), set="lighting.azimuth=90") == {
        "FINISHED"
    }
    spec = spec_of(orogen, bpy.context.active_object)
    assert spec.lighting["mode"] == "slope" and spec.lighting["azimuth"] == 90.0 and spec.layers == layers
    for bad in ("hills.count=5", "size=65", "no_such=1"):
        before = len(bpy.data.objects)
        with pytest.raises(RuntimeError, match="Heightmap not imported"):
            bpy.ops.orogen.heightmap_import(filepath=path, set=bad)
        assert len(bpy.data.objects) == before


def test_an_exported_tile_imports_at_its_place_and_size(scene, orogen, tmp_path):
    assert bpy.ops.orogen.tiles_add(
        tiles_x=3, tiles_y=2, size=17, width=160.0, height=25.0, seed=4, location=(0, 0, 0)
    ) == {"FINISHED"}
    world = bpy.context.active_object.orogen_tile.world
    tiles = {(o.orogen_tile.ty, o.orogen_tile.tx): o for o in world.objects if o.orogen_tile.is_tile}
    assert bpy.ops.orogen.tiles_export(directory=str(tmp_path), name="land") == {"FINISHED"}
    manifest = json.loads((tmp_path / "land.json").read_text())
    levels = manifest["levels"]
    assert f"16-bit levels 0 = {levels['level_0_m']:.6g} m, 65535 = {levels['level_65535_m']:.6g} m" in (
        world.orogen_tiles.status
    )
    # the tiles of a world share one scale: every 16-bit tile's levels span the whole world's relief
    world_z = np.concatenate([vertices(t)[:, 2] for t in tiles.values()])
    relief = [float(world_z.min()), float(world_z.max())]
    assert (manifest["levels"]["level_0_m"], manifest["levels"]["level_65535_m"]) == tuple(relief)
    for ty, tx in tiles:
        for rel in (f"unreal/land_x{tx}_y{ty}.png", f"unity/land_x{tx}_y{1 - ty}.r16"):
            side = json.loads((tmp_path / (rel + ".json")).read_text())
            assert side["height_range_m"] == relief and side["levels"]["level_65535_m"] == relief[1], rel
    step = (relief[1] - relief[0]) / 65535
    for (ty, tx), tile in tiles.items():
        co = vertices(tile) + np.array(tile.location, np.float32)
        for rel, exact in ((f"exr/land_x{tx}_y{ty}.exr", True), (f"unity/land_x{tx}_y{1 - ty}.r16", False)):
            assert rel + ".json" in manifest["files"]
            assert bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / rel)) == {"FINISHED"}
            back = bpy.context.active_object
            world_co = vertices(back) + np.array(back.location, np.float32)
            centre = (co[:, :2].min(axis=0) + co[:, :2].max(axis=0)) / 2
            assert tuple(back.location[:2]) == pytest.approx(tuple(centre), abs=1e-3), rel
            assert tuple(back.dimensions) == pytest.approx(tuple(tile.dimensions), abs=1e-3), rel
            assert np.allclose(world_co[:, :2], co[:, :2], atol=1e-3), rel
            tolerance = 0.0 if exact else step / 2 * (1 + 1e-6)  # half a step of the world's relief
            assert np.abs(world_co[:, 2].astype(np.float64) - co[:, 2]).max() <= tolerance + 1e-6, rel


def test_metres_that_leave_float32_at_their_height_are_refused(scene, orogen, tmp_path):
    formats = orogen.core.io.formats
    path = str(tmp_path / "huge.npy")
    formats.write_npy(path, np.float32([[0.0, 3.0e38], [1.0, 2.0]]))
    info = formats.sidecar_info(
        path, (2, 2), "NPY", absolute=True, height_range=(0.0, 1.0e6), extra={"width_m": 10.0, "height_m": 0.5}
    )
    (tmp_path / "huge.npy.json").write_text(json.dumps(info))
    before = len(bpy.data.objects)
    with pytest.raises(RuntimeError, match="leave float32's range"):
        bpy.ops.orogen.heightmap_import(filepath=path)
    assert len(bpy.data.objects) == before


def test_an_import_that_fails_after_the_object_is_made_leaves_nothing_behind(scene, orogen, tmp_path, monkeypatch):
    """A fault in the water's sync (the object, its mesh, material and water made): the scene as it was."""
    import sys

    module = sys.modules[orogen.__name__ + ".addon.io.import_heightmap"]

    def data():
        return {
            kind: sorted(i.name for i in getattr(bpy.data, kind) if not i.name.startswith(".Orogen Template"))
            for kind in ("objects", "meshes", "materials")
        }

    path = str(tmp_path / "ramp.npy")
    np.save(path, np.tile(np.linspace(0.0, 1.0, 8, dtype=np.float32), (8, 1)))
    before = data()
    original = module.sync_water

    def failing(obj, spec):
        original(obj, spec)
        raise RuntimeError("injected fault")

    monkeypatch.setattr(module, "sync_water", failing)
    with pytest.raises(RuntimeError, match="Heightmap not imported: injected fault"):
        bpy.ops.orogen.heightmap_import(filepath=path, set="material.water=true; water_level=0.5")
    assert data() == before
