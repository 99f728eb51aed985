"""Orogen 0.2 .blend files: settings in spec version 2 (lengths in cells) converted on load, heightmaps kept.

The fixture (tests/fixtures/v0_2) was written by Orogen 0.2.0 itself; see its README.
"""

import json
import math
import shutil
import sys
from pathlib import Path

import bpy
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
V02 = ROOT / "tests" / "fixtures" / "v0_2"
SPECS = json.loads((V02 / "specs.json").read_text())
TERRAINS = ("Hills", "DiamondSquare", "Noise")
#: Regenerated heights against 0.2's, in units of the terrain's height: bit for bit where spec_v2_to_v3 is exact
#: (diamond-square's lattice, blur passes), else the float32 round trip of the lengths in metres (hill radii,
#: the low-pass length, the noise grain; tests/core/test_spec_v3.py bounds core's part, Blender's float32
#: properties add a step).
BOUND = {"Hills": 1e-6, "DiamondSquare": 0.0, "Noise": 1e-6}


def _blend():
    """The 0.2 fixture this Blender can read: 5.0 reads 5.0's file, 4.2 and 4.5 the one 4.2 wrote."""
    return V02 / ("terrains.blend" if bpy.app.version >= (5, 0, 0) else "terrains-4.2.blend")


def vertex_z(obj):
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co[2::3].reshape(np.load(V02 / f"{obj.name}.npy").shape)


def regenerate(obj):
    obj.select_set(True)  # picked as a click does: selected and active
    bpy.context.view_layer.objects.active = obj
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    return vertex_z(obj)


def close(a, b, rel=1e-6):
    """Metres converted from cells, as Blender's float32 properties hold them."""
    return math.isclose(a, b, rel_tol=rel, abs_tol=0.0)


@pytest.fixture
def opened(orogen, capfd):
    """The 0.2 fixture opened in today's add-on; yields what the load printed (the Info log, headless)."""
    capfd.readouterr()
    bpy.ops.wm.open_mainfile(filepath=str(_blend()))
    try:
        yield capfd.readouterr().out
    finally:
        bpy.ops.wm.read_homefile(use_empty=True)


@pytest.mark.smoke
def test_a_0_2_blend_reads_in_metres_and_regenerates_to_its_heightmaps(orogen, opened):
    spec_of = orogen.addon.specio.read_spec
    for name in TERRAINS:
        obj = bpy.data.objects[name]
        assert obj.orogen.spec_version == 5 and obj.orogen.is_terrain, name
        assert np.array_equal(vertex_z(obj), np.load(V02 / f"{name}.npy")), f"{name}: the mesh was touched"
        spec = spec_of(obj.orogen)
        # The version-3 spec core makes of the version-2 spec 0.2 applied, through Blender's float32 properties.
        expected = orogen.core.spec.TerrainSpec.from_dict(SPECS[name])
        assert spec.fit_height and expected.fit_height and spec.to_json() == spec_of_written(orogen, expected)
        assert obj.orogen.applied == spec.to_json(), f"{name}: its mesh is this spec's (no regeneration pending)"
        made = regenerate(obj)
        z = np.load(V02 / f"{name}.npy")
        assert np.abs(made - z).max() <= BOUND[name] * spec.height, name
        if BOUND[name] == 0.0:
            assert np.array_equal(made, z), name
    cell = 150.0 / 64
    hills = spec_of(bpy.data.objects["Hills"].orogen)
    assert close(hills.params["radius_min"], 8 * cell) and close(hills.params["radius_max"], 14 * cell)
    (blur, lowpass) = hills.filters
    assert blur.params["method"] == "passes" and close(blur.params["radius"], math.sqrt(3 / 1.5) * cell)
    assert close(lowpass.params["length"], -cell / math.log(0.6)) and lowpass.params["passes"] == 2
    ds = spec_of(bpy.data.objects["DiamondSquare"].orogen)
    assert ds.params == {"roughness": 1.2, "lattice": "grid"} and [lay.name for lay in ds.layers] == ["Low", "High"]
    noise = spec_of(bpy.data.objects["Noise"].orogen)
    cell = 120.0 / 48
    assert noise.shape == (33, 49) and close(noise.params["grain"], cell)
    assert close(noise.params["hill_radius"][1], 9 * cell) and close(noise.params["pit_radius"][0], 2 * cell)
    assert [f.enabled for f in noise.filters] == [True, False]
    assert noise.filters[1].params["method"] == "passes" and close(
        noise.filters[1].params["radius"], math.sqrt(4 / 1.5) * cell
    )


def spec_of_written(orogen, spec):
    """``spec``'s JSON as Blender's properties hold it (floats to float32)."""
    scratch = bpy.data.objects.new("scratch", None)
    try:
        orogen.addon.specio.write_spec(scratch.orogen, spec)
        return orogen.addon.specio.read_spec(scratch.orogen).to_json()
    finally:
        bpy.data.objects.remove(scratch)


def test_the_panel_settings_are_converted_too(orogen, opened):
    panel = bpy.context.scene.orogen
    assert panel.spec_version == 5
    spec = orogen.addon.specio.read_spec(panel)
    cell = 200.0 / 64  # a power of two: every converted length is exact
    assert (spec.size, spec.width, spec.generator, spec.fit_height) == (65, 200.0, "hills", True)
    assert spec.params["radius_min"] == 6 * cell and spec.params["radius_max"] == 12 * cell
    (blur, lowpass) = spec.filters
    assert (blur.key, blur.params["method"], lowpass.key, lowpass.params["passes"]) == (
        "box_blur",
        "passes",
        "lowpass",
        1,
    )
    assert close(blur.params["radius"], math.sqrt(5 / 1.5) * cell)
    assert close(lowpass.params["length"], -cell / math.log(0.7))
    # The noise generator's settings (edited, then the panel went back to hills) are in metres too.
    assert tuple(panel.noise.hill_radius) == (5 * cell, 10 * cell) and panel.noise.grain == cell
    # A terrain made from the panel is the one 0.2 would have made from it.
    made = spec.heightmap()
    v2 = orogen.core.spec.TerrainSpec.from_dict(SPECS["Scene"]).heightmap()
    assert np.abs(made - v2).max() <= 1e-6


def test_the_info_log_says_what_was_converted_and_other_objects_stay(orogen, opened):
    lines = [line for line in opened.splitlines() if "Orogen 0.2 settings converted" in line]
    assert len(lines) == 4, opened
    hills = next(line for line in lines if "'Hills'" in line)
    assert "hills.radius_min 8 -> 18.75" in hills and "filters[0].box_blur.passes 3 dropped" in hills
    assert "filters[1].lowpass.k 0.6 dropped" in hills and "fit_height on" in hills
    assert "diamond_square.lattice = grid" in next(line for line in lines if "'DiamondSquare'" in line)
    assert "noise (not in use) converted too" in next(line for line in lines if "scene 'Scene'" in line)
    cube = bpy.data.objects["PlainCube"]
    stored = orogen.addon.versions._stored(cube)  # an empty group appears when anything reads cube.orogen
    assert cube["note"] == "not a terrain" and (stored is None or not stored.keys()), stored.to_dict()


def test_a_converted_file_is_not_converted_again(orogen, opened, tmp_path, capfd):
    before = {name: orogen.addon.specio.read_spec(bpy.data.objects[name].orogen) for name in TERRAINS}
    panel = orogen.addon.specio.read_spec(bpy.context.scene.orogen)
    path = tmp_path / "converted.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    bpy.ops.wm.open_mainfile(filepath=str(path))
    assert "Orogen 0.2" not in capfd.readouterr().out
    for name, spec in before.items():
        assert orogen.addon.specio.read_spec(bpy.data.objects[name].orogen) == spec, name
        assert (
            np.abs(regenerate(bpy.data.objects[name]) - np.load(V02 / f"{name}.npy")).max() <= BOUND[name] * spec.height
        )
    assert orogen.addon.specio.read_spec(bpy.context.scene.orogen) == panel


def test_panel_settings_edited_today_are_not_taken_for_0_2(scene, orogen, tmp_path, capfd):
    scene.orogen.hills.radius_min = 5.0  # set directly, as the panel does: no spec is written
    other = bpy.data.scenes.new("Other")
    other.orogen.size = 33
    path = tmp_path / "today.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    capfd.readouterr()
    bpy.ops.wm.open_mainfile(filepath=str(path))
    try:
        assert "Orogen 0.2" not in capfd.readouterr().out
        assert bpy.context.scene.orogen.hills.radius_min == 5.0 and bpy.data.scenes["Other"].orogen.size == 33
        assert bpy.data.scenes["Other"].orogen.spec_version == 5
    finally:
        bpy.ops.wm.read_homefile(use_empty=True)


def test_settings_no_spec_holds_are_kept_marked_and_reported(scene, orogen, tmp_path, capfd):
    """A 0.2 group whose values no version-2 spec holds stays as it was (marked version 2), and says why."""
    bpy.ops.orogen.terrain_add(size=17, spec="", set="")
    obj = bpy.context.active_object
    group = orogen.addon.versions._stored(obj)
    del group["spec_version"], group["fit_height"]  # what 0.2 stored...
    group["hills"]["radius_min"] = 0.0  # ...with a radius version 2 refuses
    path = tmp_path / "broken.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    capfd.readouterr()
    bpy.ops.wm.open_mainfile(filepath=str(path))
    try:
        out = capfd.readouterr().out
        assert "'Terrain' kept its Orogen 0.2 settings" in out and "radius_min" in out
        obj = bpy.data.objects["Terrain"]
        assert obj.orogen.spec_version == 2 and obj.orogen.hills.radius_min == 0.0
    finally:
        bpy.ops.wm.read_homefile(use_empty=True)


def test_an_appended_0_2_terrain_is_converted(scene, orogen, tmp_path, capfd):
    blend = tmp_path / "library.blend"
    shutil.copy(_blend(), blend)
    capfd.readouterr()
    bpy.ops.wm.append(filepath=str(blend / "Object" / "Hills"), directory=str(blend / "Object"), filename="Hills")
    obj = bpy.data.objects["Hills"]
    if not hasattr(bpy.app.handlers, "blend_import_post"):  # Blender 4.2: no append handler, converted when read
        assert obj.orogen.spec_version == 0
        orogen.addon.specio.read_spec(obj.orogen)
    out = capfd.readouterr().out
    assert "'Hills': Orogen 0.2 settings converted" in out
    assert obj.orogen.spec_version == 5
    assert np.abs(regenerate(obj) - np.load(V02 / "Hills.npy")).max() <= BOUND["Hills"] * obj.orogen.height


def test_a_tile_worlds_0_2_settings_are_converted(scene, orogen, tmp_path, capfd):
    """A tile world keeps its spec on its collection, in the same group as a terrain's: 0.2's is converted too
    (made here by stripping today's marks, as 0.2 stored the same layout with lengths in cells)."""
    bpy.ops.orogen.tiles_add(tiles_x=2, tiles_y=1, size=17, width=32.0, set="hills.radius_min=3; hills.radius_max=6")
    world = bpy.context.active_object.orogen_tile.world
    name = world.name
    group = orogen.addon.versions._stored(world, "orogen_world")
    del group["spec_version"], group["fit_height"]  # what 0.2 stored: cells
    path = tmp_path / "world.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    capfd.readouterr()
    bpy.ops.wm.open_mainfile(filepath=str(path))
    try:
        assert f"collection '{name}': Orogen 0.2 settings converted" in capfd.readouterr().out
        settings = bpy.data.collections[name].orogen_world
        spec = orogen.addon.specio.read_spec(settings)
        assert settings.spec_version == 5 and spec.fit_height
        assert (spec.params["radius_min"], spec.params["radius_max"]) == (3 * 2.0, 6 * 2.0)  # cells x 2 m
    finally:
        bpy.ops.wm.read_homefile(use_empty=True)


def test_a_development_builds_thermal_iterations_are_read_as_steps(scene, orogen, tmp_path, capfd):
    """Development builds of version 3 stored the thermal filter's steps as ``iterations``: on load the value
    moves to ``steps`` (core.versions.V3_RENAMED) and the terrain regenerates as it was made."""
    spec = {"version": 3, "size": 17, "seed": 3, "filters": [{"type": "thermal", "steps": 9, "talus_angle": 20.0}]}
    bpy.ops.orogen.terrain_add(size=17, spec=json.dumps(spec), set="")
    obj = bpy.context.active_object
    group = orogen.addon.versions._stored(obj)
    raw = group["filters"][0]["thermal"]
    raw["iterations"] = 9  # what a development build stored...
    del raw["steps"], raw["outside"]  # ...without today's names
    group["spec_version"] = 3
    path = tmp_path / "dev.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    capfd.readouterr()
    bpy.ops.wm.open_mainfile(filepath=str(path))
    try:
        assert "filters[0].thermal.iterations is steps" in capfd.readouterr().out
        obj = bpy.data.objects["Terrain"]
        assert obj.orogen.filters[0].thermal.steps == 9
        assert "iterations" not in orogen.addon.versions._stored(obj)["filters"][0]["thermal"]
        expected = orogen.core.spec.TerrainSpec.from_dict(spec).heightmap()
        assert np.array_equal(orogen.addon.specio.read_spec(obj.orogen).heightmap(), expected)
    finally:
        bpy.ops.wm.read_homefile(use_empty=True)


def _appended_hills(tmp_path):
    """The Hills terrain appended into an empty file and regenerated: ``(spec JSON, heights)``, the reference of
    every other route (converted on append in Blender 4.3+, on its first read in 4.2)."""
    blend = tmp_path / "appended.blend"
    shutil.copy(_blend(), blend)
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.wm.append(filepath=str(blend / "Object" / "Hills"), directory=str(blend / "Object"), filename="Hills")
    obj = bpy.data.objects["Hills"]
    z = regenerate(obj)
    assert obj.orogen.spec_version == 5
    assert np.abs(z - np.load(V02 / "Hills.npy")).max() <= BOUND["Hills"] * obj.orogen.height
    text = bpy.data.objects["Hills"].orogen.applied
    bpy.ops.wm.read_homefile(use_empty=True)
    return text, z


def _linked_hills(tmp_path):
    """The Hills terrain linked from a copy of the fixture into the open file, and its library override."""
    blend = tmp_path / "library.blend"
    shutil.copy(_blend(), blend)
    bpy.ops.wm.link(filepath=str(blend / "Object" / "Hills"), directory=str(blend / "Object"), filename="Hills")
    linked = bpy.data.objects["Hills"]
    assert linked.library is not None
    return linked


def test_a_linked_0_2_terrain_is_read_through_the_conversion_and_left_as_it_is(scene, orogen, tmp_path):
    expected, _ = _appended_hills(tmp_path)
    linked = _linked_hills(tmp_path)
    raw = linked.bl_system_properties_get() if hasattr(linked, "bl_system_properties_get") else linked
    stored = raw["orogen"].to_dict()
    assert orogen.addon.specio.read_spec(linked.orogen).to_json() == expected
    assert raw["orogen"].to_dict() == stored and linked.orogen.spec_version == 0  # nothing written
    assert linked.orogen.hills.radius_min == 8.0  # cells, as the library holds them


def test_a_library_overridden_0_2_terrain_is_converted_once_and_made_local_regenerates_the_same(
    scene, orogen, tmp_path, capfd
):
    expected, z_appended = _appended_hills(tmp_path)
    spec_of = orogen.addon.specio.read_spec
    linked = _linked_hills(tmp_path)
    override = linked.override_hierarchy_create(bpy.context.scene, bpy.context.view_layer, do_fully_editable=True)
    assert override.override_library is not None and override.library is None
    capfd.readouterr()
    assert spec_of(override.orogen).to_json() == expected  # converted in place on its first read
    assert "'Hills': Orogen 0.2 settings converted" in capfd.readouterr().out
    assert override.orogen.spec_version == 5 and override.orogen.applied == expected
    assert spec_of(linked.orogen).to_json() == expected and linked.orogen.spec_version == 0
    # Its mesh is the library's, which Orogen cannot write: Regenerate says so instead of doing nothing.
    bpy.context.view_layer.objects.active = override
    with pytest.raises(
        RuntimeError, match=r"the mesh 'Terrain' of Hills is linked from library\.blend and .*Make Local"
    ):
        bpy.ops.orogen.terrain_regenerate()
    live = sys.modules[orogen.__name__ + ".addon.live"]
    seed = override.orogen.seed
    override.orogen.seed = seed + 1
    live._on_msgbus()  # the live update (its message bus, delivered by hand) says so too
    assert override.orogen.status.startswith("Not regenerated: the mesh 'Terrain' of Hills is linked from")
    override.orogen.seed = seed
    mesh = override.data.make_local()  # the mesh made local: Regenerate writes it
    assert override.data == mesh and mesh.library is None
    assert np.array_equal(regenerate(override), z_appended)
    override.make_local()  # the object made local too: still converted once
    assert override.override_library is None and override.library is None
    assert spec_of(override.orogen).to_json() == expected
    assert np.array_equal(regenerate(override), z_appended)
    # Converting again changes nothing: the load handler's pass, and a save and reload.
    assert orogen.addon.versions.migrate_all_v2() == []
    path = tmp_path / "local.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    bpy.ops.wm.open_mainfile(filepath=str(path))
    assert "Orogen 0.2" not in capfd.readouterr().out
    assert spec_of(bpy.data.objects["Hills"].orogen).to_json() == expected
    assert np.array_equal(regenerate(bpy.data.objects["Hills"]), z_appended)
    bpy.ops.wm.read_homefile(use_empty=True)


def test_a_library_override_saved_and_opened_again_is_converted_to_the_same_values(scene, orogen, tmp_path):
    expected, _ = _appended_hills(tmp_path)
    spec_of = orogen.addon.specio.read_spec
    linked = _linked_hills(tmp_path)
    linked.override_hierarchy_create(bpy.context.scene, bpy.context.view_layer, do_fully_editable=True)
    path = tmp_path / "override.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))  # saved before anything read it: still 0.2's values
    for _ in range(2):  # opened twice: converted on load (an override is local data), never twice
        bpy.ops.wm.open_mainfile(filepath=str(path))
        (override,) = [o for o in bpy.data.objects if o.override_library is not None]
        assert override.orogen.spec_version == 5
        assert spec_of(override.orogen).to_json() == expected
        assert override.orogen.hills.radius_min == pytest.approx(18.75)
        bpy.ops.wm.save_as_mainfile(filepath=str(path))
    bpy.ops.wm.read_homefile(use_empty=True)


V03_SPEC = {
    "version": 3,
    "size": 17,
    "seed": 3,
    "width": 160.0,
    "height": 30.0,
    "filters": [
        {"type": "thermal", "steps": 9, "talus_angle": 20.0, "edges": "open"},
        {"type": "erosion", "steps": 2, "dt": 5e4},
        {"type": "hydraulic", "steps": 5},
    ],
}


def _v03_terrain(orogen):
    """A terrain whose group holds what Orogen 0.3 stored: version 3, none of version 4's erosion properties."""
    bpy.ops.orogen.terrain_add(size=17, spec=json.dumps(V03_SPEC), set="")
    obj = bpy.context.active_object
    group = orogen.addon.versions._stored(obj)
    new = (
        ("thermal", ["outside", "time"]),
        ("erosion", ["diffusion_scheme", "flats", "uplift_scale"]),
        ("hydraulic", ["bounded", "time"]),
    )
    for item, (kind, names) in zip(group["filters"], new, strict=True):
        for key in names:
            del item[kind][key]
    group["spec_version"] = 3
    return obj


def test_a_0_3_terrain_read_by_another_route_keeps_its_erosion_algorithms(scene, orogen):
    """Made local or overridden, no handler sees it: its first read converts it in place (marked 5)."""
    obj = _v03_terrain(orogen)
    v3 = orogen.core.spec.TerrainSpec.from_dict(V03_SPEC)
    assert orogen.addon.specio.read_spec(obj.orogen) == v3
    assert obj.orogen.spec_version == 5 and obj.orogen.filters[1].erosion.flats == "first"
    assert orogen.addon.specio.read_spec(obj.orogen) == v3  # once converted, read as it is


def test_a_0_3_terrain_keeps_its_erosion_algorithms(scene, orogen, tmp_path, capfd):
    """Orogen 0.3 stored version-3 groups, without version 4's erosion choices: on load they are named as
    version 3's (core.versions.V3_CHOICES, V4_CHOICES), so Regenerate gives what 0.3 gave, and the group is marked
    5."""
    _v03_terrain(orogen)
    spec = V03_SPEC
    path = tmp_path / "v03.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    capfd.readouterr()
    bpy.ops.wm.open_mainfile(filepath=str(path))
    try:
        out = capfd.readouterr().out
        assert "spec version 3 keeps its erosion algorithms" in out and "filters[0].thermal.outside = lowest" in out
        obj = bpy.data.objects["Terrain"]
        assert obj.orogen.spec_version == 5
        assert obj.orogen.filters[0].thermal.outside == "lowest"
        assert obj.orogen.filters[1].erosion.diffusion_scheme == "peaceman_rachford"
        assert obj.orogen.filters[2].hydraulic.bounded is False
        assert (obj.orogen.filters[0].thermal.time, obj.orogen.filters[2].hydraulic.time) == ("passes", "steps")
        read = orogen.addon.specio.read_spec(obj.orogen)
        v3 = orogen.core.spec.TerrainSpec.from_dict(spec)
        assert read == v3
        assert not np.array_equal(
            v3.heightmap(), orogen.core.spec.TerrainSpec.from_dict({**spec, "version": 4}).heightmap()
        )
    finally:
        bpy.ops.wm.read_homefile(use_empty=True)


V04_SPEC = {**V03_SPEC, "version": 4}


def _v04_terrain(orogen):
    """A terrain whose group holds what Orogen 0.3 released stored: version 4, no time counts."""
    bpy.ops.orogen.terrain_add(size=17, spec=json.dumps(V04_SPEC), set="")
    obj = bpy.context.active_object
    group = orogen.addon.versions._stored(obj)
    for item, kind in zip(group["filters"], ("thermal", "erosion", "hydraulic"), strict=True):
        if kind != "erosion":
            del item[kind]["time"]
    group["spec_version"] = 4
    return obj


def test_a_version_4_terrain_keeps_its_passes_and_steps(scene, orogen, tmp_path, capfd):
    """Version 4 counted the thermal filter's passes and the hydraulic filter's steps: on load they are named
    (core.versions.V4_CHOICES), so Regenerate gives what version 4 gave, and the group is marked 5."""
    _v04_terrain(orogen)
    path = tmp_path / "v04.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    capfd.readouterr()
    bpy.ops.wm.open_mainfile(filepath=str(path))
    try:
        out = capfd.readouterr().out
        assert "spec version 4 keeps its erosion time counts" in out and "filters[0].thermal.time = passes" in out
        obj = bpy.data.objects["Terrain"]
        assert obj.orogen.spec_version == 5
        assert (obj.orogen.filters[0].thermal.time, obj.orogen.filters[2].hydraulic.time) == ("passes", "steps")
        assert obj.orogen.filters[0].thermal.steps == 9
        assert orogen.addon.specio.read_spec(obj.orogen) == orogen.core.spec.TerrainSpec.from_dict(V04_SPEC)
    finally:
        bpy.ops.wm.read_homefile(use_empty=True)


def test_a_version_4_terrain_read_by_another_route_keeps_its_passes(scene, orogen):
    obj = _v04_terrain(orogen)
    v4 = orogen.core.spec.TerrainSpec.from_dict(V04_SPEC)
    assert orogen.addon.specio.read_spec(obj.orogen) == v4
    assert obj.orogen.spec_version == 5 and obj.orogen.filters[0].thermal.time == "passes"
