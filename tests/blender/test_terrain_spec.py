"""The terrain spec in Blender: declared once in core, held by the object, edited by the panel and the scripts."""

import hashlib
import json
import shutil
import sys
from pathlib import Path

import bpy
import numpy as np
import pytest
from top_view import plain_top_view

ROOT = Path(__file__).resolve().parents[2]
V01 = ROOT / "tests" / "fixtures" / "v0_1"


def mesh_heightmap(obj):
    """The normalised heightmap a terrain's mesh holds (its ``height`` attribute, as 0.1's fixtures were read)."""
    info = json.loads(obj["orogen_terrain"])
    values = np.empty(len(obj.data.vertices), dtype=np.float32)
    obj.data.attributes["height"].data.foreach_get("value", values)
    return values.reshape(info["shape"])


def sha(h):
    return hashlib.sha256(np.ascontiguousarray(h, dtype=np.float32).tobytes()).hexdigest()


class Layout:
    """Records what a panel's draw() shows (headless Blender has no window to draw into)."""

    def __init__(self, shown):
        self.shown = shown
        self.use_property_split = self.use_property_decorate = self.active = False

    def prop(self, data, name, **_kw):
        self.shown.append((data, name))

    def panel(self, *_a, **_k):  # layout.panel() and panel_prop(): (header, body)
        return Layout(self.shown), Layout(self.shown)

    panel_prop = panel

    def __getattr__(self, _name):  # column(), row(), box(), label(), operator(), menu(), ...
        return lambda *a, **k: Layout(self.shown)


def shown_names(draw, data):
    shown = []
    draw(Layout(shown), data)
    return {name for _data, name in shown}


@pytest.fixture
def toy_generator(orogen):
    """A throwaway generator with two parameters, declared in core only; the add-on re-registered around it."""
    core = orogen.core

    def tilt_plane(world_shape, seed, window=None, amplitude=1.0, tilt=0.5):
        win = core.window.check_window(world_shape, window)
        rows = win.row_coords()[:, None].astype(np.float64)
        cols = win.col_coords()[None, :].astype(np.float64)
        return amplitude * (rows * tilt + cols * (1 - tilt))

    core.register_generator(
        core.Generator(
            "toy_plane",
            "Toy Plane",
            "A tilted plane",
            tilt_plane,
            (
                core.Param("amplitude", "float", 1.0, hard=(0.0, 10.0), label="Amplitude", description="Height"),
                core.Param(
                    "tilt", "float", 0.5, hard=(0.0, 1.0), unit="factor", label="Tilt", description="Along rows"
                ),
            ),
        )
    )
    orogen.unregister()
    orogen.register()
    yield
    orogen.unregister()
    core.params.unregister("toy_plane")
    orogen.register()


def test_a_generator_declared_in_core_only_appears_everywhere(scene, orogen, toy_generator, tmp_path, user_dir):
    # The operator (its redo panel) and the object's settings.
    props = bpy.ops.orogen.terrain_add.get_rna_type().properties
    assert "toy_plane" in props and "toy_plane" in [i.identifier for i in props["generator"].enum_items]
    bpy.ops.orogen.terrain_add(size=9, generator="toy_plane", set="tilt=1.0; amplitude=2.0", spec="")
    obj = bpy.context.active_object
    assert obj.orogen.generator == "toy_plane" and obj.orogen.toy_plane.tilt == 1.0
    spec = orogen.addon.specio.read_spec(obj.orogen)
    assert spec.to_dict()["toy_plane"] == {"amplitude": 2.0, "tilt": 1.0}
    assert orogen.core.TerrainSpec.from_json(spec.to_json()) == spec
    # The N-panel draws its parameters, as the redo panel does.
    draw = orogen.addon.ui.draw
    assert {"amplitude", "tilt"} <= shown_names(draw.draw_spec, obj.orogen)
    assert {"amplitude", "tilt"} <= shown_names(lambda lay, d: draw.draw_spec(lay, d, operator=True), obj.orogen)
    # A user preset saved and loaded again by name (the panel's settings: no terrain selected).
    bpy.context.view_layer.objects.active = None
    scene.orogen.generator = "toy_plane"
    scene.orogen.toy_plane.tilt = 0.25
    bpy.ops.orogen.preset_save(name="toy preset")
    scene.orogen.toy_plane.tilt = 0.75
    bpy.ops.orogen.preset_load(name="toy_preset")
    assert scene.orogen.generator == "toy_plane" and scene.orogen.toy_plane.tilt == 0.25
    # --set in both scripts (run in this Blender, where the generator is declared).
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import export_heightmaps
        import render_terrain

        spec_file = tmp_path / "toy.json"
        spec_file.write_text(spec.to_json())
        export_heightmaps.main(
            [
                "--spec",
                str(spec_file),
                "--set",
                "toy_plane.tilt=0.0",
                "--format",
                "NPY",
                "--maps",
                "none",
                "--output-dir",
                str(tmp_path / "out"),
            ]
        )
        h = np.load(tmp_path / "out" / "terrain_height.npy")
        expected_cols = np.linspace(0, 1, 9, dtype=np.float32) ** np.float32(1.5)  # the default flatten filter
        assert np.allclose(h, np.broadcast_to(expected_cols, (9, 9)), atol=1e-6)
        args = render_terrain.parse_args(["--spec", str(spec_file), "--set", "amplitude=3"])
        assert render_terrain.spec_from_args(args, orogen).params["amplitude"] == 3.0
        with pytest.raises(SystemExit, match="a parameter of 'toy_plane'"):
            render_terrain.spec_from_args(render_terrain.parse_args(["--set", "tilt=0.2"]), orogen)
    finally:
        sys.path.remove(str(ROOT / "scripts"))


def test_a_recipe_terrain_keeps_its_recipe_when_only_the_lighting_changes(scene, orogen):
    recipe = json.loads((V01 / "recipe_alpine.json").read_text())
    bpy.ops.orogen.terrain_add(spec=json.dumps(recipe))
    obj = bpy.context.active_object
    before = mesh_heightmap(obj)
    obj.orogen.lighting.azimuth = 1.0
    bpy.ops.orogen.terrain_regenerate()
    assert obj.orogen.generator == "faults" and (obj.orogen.size, obj.orogen.faults.faults) == (30, 60)
    assert len(obj.data.vertices) == 900
    assert np.array_equal(mesh_heightmap(obj), before)


def test_editing_a_terrains_layer_colour_rebuilds_its_material(scene, orogen):
    bpy.ops.orogen.terrain_add(size=17)
    obj = bpy.context.active_object
    old = obj.material_slots[0].material

    def colours(material):
        return {
            tuple(round(c, 4) for c in n.outputs[0].default_value[:3])
            for n in material.node_tree.nodes
            if n.type == "RGB"
        }

    assert (0.9, 0.1, 0.1) not in colours(old)
    obj.orogen.layers[0].color = (0.9, 0.1, 0.1)
    orogen.addon.live.on_setting_changed(obj, bpy.context)  # what the property's update (or the message bus) calls
    material = obj.material_slots[0].material
    assert material is not old and (0.9, 0.1, 0.1) in colours(material)
    assert obj.orogen.status == "Material rebuilt from the colour layers"
    assert orogen.addon.specio.read_spec(obj.orogen).layers[0].color == (0.9, 0.1, 0.1)


def test_renaming_a_terrain_during_a_pending_live_update_settles_at_full_size(scene, orogen):
    live = orogen.addon.live
    bpy.ops.orogen.terrain_add(size=129)
    obj = bpy.context.active_object
    obj.orogen.preview_size = 33
    obj.orogen.seed = 5
    live.on_setting_changed(obj, bpy.context)
    assert len(obj.data.vertices) == 33 * 33 and obj.orogen.preview_pending
    obj.name = "Renamed"
    bpy.ops.mesh.primitive_cube_add()
    bpy.context.active_object.name = "Terrain"  # an object that takes the old name is left alone
    cube_vertices = len(bpy.context.active_object.data.vertices)
    assert orogen.addon.terrain.settle.flush_live_updates(force=True) == ["Renamed"]
    assert len(obj.data.vertices) == 129 * 129 and not obj.orogen.preview_pending
    assert len(bpy.data.objects["Terrain"].data.vertices) == cube_vertices


def test_duplicating_or_deleting_during_a_pending_update_is_safe(scene, orogen):
    live = orogen.addon.live
    bpy.ops.orogen.terrain_add(size=65)
    obj = bpy.context.active_object
    obj.orogen.preview_size = 17
    obj.orogen.seed = 2
    live.on_setting_changed(obj, bpy.context)
    copy = obj.copy()
    copy.data = obj.data.copy()
    scene.collection.objects.link(copy)
    done = orogen.addon.terrain.settle.flush_live_updates(force=True)
    assert sorted(done) == sorted([obj.name, copy.name])
    assert len(copy.data.vertices) == 65 * 65
    obj.orogen.seed = 3
    live.on_setting_changed(obj, bpy.context)
    bpy.data.objects.remove(obj)
    assert orogen.addon.terrain.settle.flush_live_updates(force=True) == []


def test_the_filter_stack_is_an_ordered_list_with_repeats(scene, orogen):
    bpy.ops.orogen.terrain_add(size=33, set="flatten.exponent=1.0")
    obj = bpy.context.active_object
    for kind in ("lowpass", "box_blur", "lowpass"):
        bpy.ops.orogen.filter_add(type=kind)
    assert [f.type for f in obj.orogen.filters] == ["flatten", "lowpass", "box_blur", "lowpass"]
    obj.orogen.active_filter = 3
    bpy.ops.orogen.filter_move(direction="UP")
    bpy.ops.orogen.filter_duplicate()
    assert [f.type for f in obj.orogen.filters] == ["flatten", "lowpass", "lowpass", "lowpass", "box_blur"]
    obj.orogen.filters[4].enabled = False
    bpy.ops.orogen.filter_remove()
    spec = orogen.addon.specio.read_spec(obj.orogen)
    assert [(s.key, s.enabled) for s in spec.filters] == [
        ("flatten", True),
        ("lowpass", True),
        ("lowpass", True),
        ("box_blur", False),
    ]
    assert np.array_equal(mesh_heightmap(obj), spec.heightmap())  # the mesh follows the stack (live)
    assert [k for k, _ in spec.recipe().filters] == ["flatten", "lowpass", "lowpass"]


def test_disabled_buttons_say_why(scene, orogen, tmp_path):
    bpy.ops.object.select_all(action="DESELECT")
    bpy.context.view_layer.objects.active = None
    with pytest.raises(RuntimeError, match="Select a terrain first"):
        bpy.ops.orogen.terrain_regenerate()
    with pytest.raises(RuntimeError, match="Select a terrain"):
        bpy.ops.orogen.export_maps(directory=str(tmp_path))
    bpy.ops.orogen.terrain_add(size=9)
    with pytest.raises(RuntimeError, match="at least 2 colour layers"):
        bpy.ops.orogen.layer_remove()
        bpy.ops.orogen.layer_remove()
    np.save(tmp_path / "dem.npy", np.random.default_rng(1).random((9, 9)).astype(np.float32))
    bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / "dem.npy"))
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}  # an import's source is its file: it regenerates


def _v01_blend():
    """The 0.1 fixture this Blender can read: 5.0 reads 5.0's file, 4.2 and 4.5 the one 4.2 wrote."""
    return V01 / ("terrains.blend" if bpy.app.version >= (5, 0, 0) else "terrains-4.2.blend")


def test_a_0_1_blend_loads_and_regenerates_to_the_same_heightmaps(orogen):
    expected = json.loads((V01 / "expected.json").read_text())
    bpy.ops.wm.open_mainfile(filepath=str(_v01_blend()))
    try:
        for name, e in expected.items():
            obj = bpy.data.objects[name]
            assert obj.orogen.is_terrain and "orogen_recipe" not in obj
            spec = orogen.addon.specio.read_spec(obj.orogen)
            assert list(spec.shape) == e["shape"]
            # The heightmap 0.1 made (core gives it bit for bit, tests/core/test_spec.py); through Blender's float32
            # properties a length in metres (cells x cell size) can move by a float32 step, and the heights by a few.
            made = orogen.core.spec.load_spec(e["recipe"]).heightmap()
            assert sha(made) == e["sha256"], name
            assert np.abs(spec.heightmap() - made).max() <= 1e-6, name
            obj.select_set(True)
            bpy.context.view_layer.objects.active = obj
            bpy.ops.orogen.terrain_regenerate()
            assert np.abs(mesh_heightmap(obj) - made).max() <= 1e-6, name
        noise = bpy.data.objects["NoiseLayers"].orogen
        assert [lay.name for lay in noise.layers] == ["Sand", "Grass", "Rock"]
        assert noise.lighting.mode == "hillshade" and noise.lighting.ao and noise.material.shading == "unlit"
        assert [f.type for f in bpy.data.objects["IslandHills"].orogen.filters] == ["flatten", "lowpass", "sea_level"]
        panel = bpy.context.scene.orogen
        assert (panel.generator, panel.faults.faults, panel.size) == ("faults", 321, 65)
        assert [f.type for f in panel.filters] == ["flatten", "lowpass"]
    finally:
        bpy.ops.wm.read_homefile(use_empty=True)


def test_a_0_1_user_preset_loads_by_name(scene, orogen):
    folder = Path(orogen.addon.ops.presets.user_preset_folder(create=True))
    shutil.copy(V01 / "My_Faults.py", folder / "My_Faults.py")
    try:
        bpy.ops.orogen.preset_load(name="My_Faults")
        s = scene.orogen
        assert (s.generator, s.faults.faults, s.size) == ("faults", 321, 65)
        # 0.1's k = 0.7 per cell is a decay length of -cell / ln 0.7 metres (100 m over 64 cells)
        assert [(f.type, round(f.lowpass.length, 5)) for f in s.filters if f.type == "lowpass"] == [
            ("lowpass", round(-100.0 / 64 / np.log(0.7), 5))
        ]
        bpy.ops.orogen.terrain_generate()
        obj = bpy.context.active_object
        v01 = orogen.core.spec.from_v1_settings(
            {"generator": "faults", "fault_count": 321, "size": 65, "use_erosion": True, "erosion_k": 0.7}
        )
        assert np.abs(mesh_heightmap(obj) - v01.heightmap()).max() <= 1e-6  # the length went through float32
    finally:
        (folder / "My_Faults.py").unlink()


def test_export_then_import_and_spec_from_sidecar_keep_the_scale(scene, orogen, tmp_path):
    bpy.ops.orogen.terrain_add(size=33, width=200.0, height=40.0)
    bpy.ops.orogen.export_maps(
        directory=str(tmp_path),
        name="t",
        heightmap_format="R16",
        use_lightmap=False,
        use_colormap=False,
        use_normal_map=False,
        use_data_maps=False,
        use_splat_maps=False,
    )
    bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / "t_height.r16"))
    imported = bpy.context.active_object
    xs = [v.co.x for v in imported.data.vertices]
    zs = [v.co.z for v in imported.data.vertices]
    assert max(xs) - min(xs) == pytest.approx(200.0) and max(zs) == pytest.approx(40.0)
    spec = orogen.core.TerrainSpec.from_json((tmp_path / "t_height.r16.json").read_text())
    assert (spec.width, spec.height, spec.size) == (200.0, 40.0, 33)


def test_a_64_bit_seed_is_kept_whole_and_editing_the_seed_replaces_it(scene, orogen):
    recipe = {"generator": "faults", "seed": 2**63 + 9, "shape": [20, 20], "params": {"faults": 30}}
    bpy.ops.orogen.terrain_add(spec=json.dumps(recipe))  # a 0.1 recipe could hold any 64-bit seed
    obj = bpy.context.active_object
    assert obj.orogen.seed == 9  # Blender's 32-bit integer shows the low 31 bits
    spec = orogen.addon.specio.read_spec(obj.orogen)
    assert spec.seed == 2**63 + 9
    assert np.array_equal(mesh_heightmap(obj), orogen.core.load_spec(recipe).heightmap())
    bpy.ops.orogen.terrain_regenerate()
    assert np.array_equal(mesh_heightmap(obj), orogen.core.load_spec(recipe).heightmap())
    obj.orogen.seed = 5
    assert orogen.addon.specio.read_spec(obj.orogen).seed == 5


def test_editing_a_terrains_layer_colour_changes_its_render(scene, orogen, tmp_path):
    """Unlit top-down renders before and after the edit: the pixels where the first layer rules turn red."""
    core = orogen.core
    size, width = 24, 23.0
    bpy.ops.orogen.terrain_add(size=size, width=width, set="material.shading=unlit; lighting.enabled=false")
    obj = bpy.context.active_object
    before = plain_top_view(orogen, scene, obj, tmp_path / "before.exr", size, width)
    obj.orogen.layers[0].color = (1.0, 0.0, 0.0)
    orogen.addon.live.on_setting_changed(obj, bpy.context)
    after = plain_top_view(orogen, scene, obj, tmp_path / "after.exr", size, width)
    spec = orogen.addon.specio.read_spec(obj.orogen)
    first = core.layer_weights(mesh_heightmap(obj), spec.layers)[..., 0] > 0.99  # where layer 0 alone shows
    first[:2], first[-2:], first[:, :2], first[:, -2:] = False, False, False, False  # pixels wholly on the terrain
    assert first.sum() > 10
    assert np.abs(after[first] - (1.0, 0.0, 0.0)).max() < 2 / 255
    assert np.linalg.norm(before[first] - (1.0, 0.0, 0.0), axis=-1).min() > 0.5  # every one was another colour


def test_duplicating_with_shift_d_during_a_preview_keeps_both_terrains_their_own(scene, orogen):
    live = orogen.addon.live
    bpy.ops.orogen.terrain_add(size=65, seed=1)
    a = bpy.context.active_object
    a.orogen.preview_size = 17
    a.orogen.seed = 2
    live.on_setting_changed(a, bpy.context)  # a shows its preview; its own mesh waits aside
    bpy.ops.object.duplicate()  # Shift+D: the copy inherits the record of a's own mesh
    b = bpy.context.active_object
    assert b != a
    b.orogen.seed = 3
    live.on_setting_changed(b, bpy.context)
    orogen.addon.terrain.settle.flush_live_updates(force=True)
    assert a.data != b.data and (a.orogen.seed, b.orogen.seed) == (2, 3)
    for obj, seed in ((a, 2), (b, 3)):
        spec = orogen.addon.specio.read_spec(obj.orogen)
        assert spec.seed == seed and len(obj.data.vertices) == 65 * 65
        assert np.array_equal(mesh_heightmap(obj), spec.heightmap())


def test_a_failed_full_size_pass_goes_back_to_the_terrain_before_the_preview(scene, orogen):
    live = orogen.addon.live
    bpy.ops.orogen.terrain_add(
        spec=json.dumps({"version": 2, "size": 33, "width": 0.5, "filters": [{"type": "hydraulic", "steps": 2}]})
    )
    obj = bpy.context.active_object
    before = mesh_heightmap(obj).copy()
    obj.orogen.preview_size = 17
    obj.orogen.size = 65  # its preview (17²) has 3 cm cells; at full size 8 mm: the hydraulic filter refuses
    live.on_setting_changed(obj, bpy.context)
    orogen.addon.terrain.settle.flush_live_updates(force=True)
    assert obj.orogen.status.startswith("Not regenerated") and "cell" in obj.orogen.status
    assert not obj.data.get("orogen_preview_mesh") and np.array_equal(mesh_heightmap(obj), before)
    assert not any(name in obj.orogen.status for name in ("deposited", "water_depth"))  # Orogen's own maps


def test_the_full_size_pass_waits_while_the_terrain_is_in_edit_mode(scene, orogen):
    live = orogen.addon.live
    bpy.ops.orogen.terrain_add(size=65)
    obj = bpy.context.active_object
    obj.orogen.preview_size = 17
    obj.orogen.seed = 4
    live.on_setting_changed(obj, bpy.context)
    bpy.ops.object.mode_set(mode="EDIT")
    assert orogen.addon.terrain.settle.flush_live_updates(force=True) == [] and obj.orogen.preview_pending
    bpy.ops.object.mode_set(mode="OBJECT")
    assert (
        orogen.addon.terrain.settle.flush_live_updates(force=True) == [obj.name] and len(obj.data.vertices) == 65 * 65
    )


def test_an_imported_terrains_export_comes_back_at_its_scale_and_a_lying_sidecar_is_refused(scene, orogen, tmp_path):
    np.save(tmp_path / "dem.npy", np.linspace(0, 1, 81, dtype=np.float32).reshape(9, 9))
    bpy.ops.orogen.heightmap_import(
        filepath=str(tmp_path / "dem.npy"), use_sidecar_scale=False, width=321.0, height=45.0
    )
    bpy.ops.orogen.export_maps(
        directory=str(tmp_path / "out"),
        name="t",
        heightmap_format="NPY",
        use_lightmap=False,
        use_colormap=False,
        use_normal_map=False,
        use_data_maps=False,
        use_splat_maps=False,
    )
    bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / "out" / "t_height.npy"))
    xs = [v.co.x for v in bpy.context.active_object.data.vertices]
    zs = [v.co.z for v in bpy.context.active_object.data.vertices]
    assert max(xs) - min(xs) == pytest.approx(321.0) and max(zs) == pytest.approx(45.0)
    sidecar = tmp_path / "out" / "t_height.npy.json"
    info = json.loads(sidecar.read_text())
    info["width_m"] = -5
    sidecar.write_text(json.dumps(info))
    count = len(bpy.data.objects)
    with pytest.raises(RuntimeError, match=r"width_m must be in \[0.001, 1000000.0\], got -5"):
        bpy.ops.orogen.heightmap_import(filepath=str(tmp_path / "out" / "t_height.npy"))
    assert len(bpy.data.objects) == count


def test_a_blend_saved_today_opens_without_being_taken_for_0_1(scene, orogen, tmp_path, capfd):
    bpy.ops.orogen.terrain_add(size=17, set="lighting.azimuth=100; lighting.mode=hillshade")
    bpy.context.scene.orogen.lighting.azimuth = 1.0  # the panel's lighting edited too
    spec = orogen.addon.specio.read_spec(bpy.context.active_object.orogen)
    path = tmp_path / "today.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    bpy.ops.wm.open_mainfile(filepath=str(path))
    try:
        assert "0.1 settings" not in capfd.readouterr().out
        assert orogen.addon.specio.read_spec(bpy.data.objects["Terrain"].orogen) == spec
    finally:
        bpy.ops.wm.read_homefile(use_empty=True)


def test_an_export_during_a_pending_preview_writes_the_full_size_terrain(scene, orogen, tmp_path):
    bpy.ops.orogen.terrain_add(size=65)
    obj = bpy.context.active_object
    obj.orogen.preview_size = 17
    bpy.ops.orogen.size_set(size=129)  # headless, the settle timer never fires: the preview stays
    assert len(obj.data.vertices) == 17 * 17 and obj.orogen.preview_pending
    bpy.ops.orogen.export_maps(
        directory=str(tmp_path),
        name="t",
        heightmap_format="NPY",
        use_lightmap=False,
        use_colormap=False,
        use_normal_map=False,
        use_data_maps=False,
        use_splat_maps=False,
    )
    assert np.load(tmp_path / "t_height.npy").shape == (129, 129)
    assert json.loads((tmp_path / "t_height.npy.json").read_text())["shape"] == [129, 129]
    assert not obj.orogen.preview_pending


@pytest.mark.parametrize(
    "text, match",
    [
        ("settings.generator = 'evil'\n", "generator must be one of hills"),
        ("settings.size = " + "-" * 200_000 + "1\n", "not a 0.1 preset"),
        ("import os\nsettings.size = __import__('os').system('touch /tmp/orogen-pwned')\n", "not a 0.1 preset"),
    ],
)
def test_a_broken_0_1_preset_is_reported_and_never_run(scene, orogen, text, match):
    folder = Path(orogen.addon.ops.presets.user_preset_folder(create=True))
    (folder / "broken.py").write_text(text)
    try:
        with pytest.raises(RuntimeError, match=match):
            bpy.ops.orogen.preset_load(name="broken")
        assert not Path("/tmp/orogen-pwned").exists()
    finally:
        (folder / "broken.py").unlink()


def test_duplicating_a_filter_respects_the_stack_limit(scene, orogen):
    limit = orogen.core.recipe.MAX_FILTERS
    bpy.ops.orogen.terrain_add(
        size=9, spec=json.dumps({"version": 2, "size": 9, "filters": [{"type": "sea_level"}] * limit})
    )
    with pytest.raises(RuntimeError, match=f"at most {limit} filters"):
        bpy.ops.orogen.filter_duplicate()
