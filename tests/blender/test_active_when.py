"""Settings that do nothing under the current choices: the panel greys them out and says why, ``set=`` and
``--set`` of one say so (a note, not an error)."""

import subprocess
import sys
from pathlib import Path

import bpy
import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_set_of_a_setting_without_effect_is_reported_and_the_terrain_added(scene, orogen, capfd):
    before = len(bpy.data.objects)
    assert bpy.ops.orogen.terrain_add(size=17, set="hills.count=4; lighting.mode=hillshade; lighting.softness=3") == {
        "FINISHED"
    }
    assert len(bpy.data.objects) == before + 1
    out = capfd.readouterr()
    assert "lighting.softness has no effect: acts only when Lightmap is on and Lighting is Slope" in out.out + out.err
    assert "hills.count has no effect" not in out.out + out.err


def test_tiles_add_reports_a_set_without_effect(scene, orogen, capfd):
    assert bpy.ops.orogen.tiles_add(size=9, tiles_x=1, tiles_y=1, set="lighting.enabled=false; lighting.ao=true") == {
        "FINISHED"
    }
    out = capfd.readouterr()
    assert "lighting.ao has no effect: acts only when Lightmap is on" in out.out + out.err


def test_apply_settings_warns_and_still_applies(orogen):
    spec = orogen.core.spec.TerrainSpec(generator="hills", filters=(("erosion", {}),))
    with pytest.warns(orogen.core.spec.InactiveSettingWarning, match="erosion.channel_width has no effect"):
        out = orogen.core.spec.apply_settings(spec, ["channel_width=3"])
    assert out.filters[0].params["channel_width"] == 3.0  # applied all the same


@pytest.mark.parametrize("script", ["render_terrain.py", "export_heightmaps.py"])
def test_scripts_note_a_set_without_effect_and_carry_on(tmp_path, script):
    args = ["--preset", "river_valleys", "--size", "17", "--set", "channel_width=3", "--set", "seed=2"]
    if script == "render_terrain.py":
        args += ["--resolution", "16", "16", "--samples", "1", "--output", str(tmp_path / "t.png")]
    else:
        args += ["--format", "R16", "--output-dir", str(tmp_path / "out")]
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    note = "note: erosion.channel_width has no effect: acts only when Automatic K and D is off"
    assert proc.stderr.count(note) == 1, proc.stderr
    assert "note: " not in proc.stderr.replace(note, "")  # seed acts: no note for it


class Layout:
    """Stands in for a layout: records each setting drawn as (property group, name, drawn active)."""

    def __init__(self, drawn):
        self.drawn = drawn
        self.active = True
        self.use_property_split = self.use_property_decorate = False

    def prop(self, data, name, **_kw):
        self.drawn.append((data, name, self.active))

    def panel(self, *_a, **_k):  # layout.panel() and panel_prop(): (header, body)
        return Layout(self.drawn), Layout(self.drawn)

    panel_prop = panel

    def __getattr__(self, _name):  # column(), row(), label(), operator(), template_list(), ...
        return lambda *a, **k: Layout(self.drawn)


def drawn(draw, *args):
    out = []
    draw(Layout(out), *args)
    return out


def test_the_terrain_tab_has_a_sub_panel_per_part(orogen):
    panel = orogen.addon.panel
    parts = {cls.__name__: cls for cls in panel.classes[1:]}
    assert list(parts) == [
        "VIEW3D_PT_orogen_generator",
        "VIEW3D_PT_orogen_filters",
        "VIEW3D_PT_orogen_lighting",
        "VIEW3D_PT_orogen_material",
        "VIEW3D_PT_orogen_layers",
        "VIEW3D_PT_orogen_water",
    ]
    for name, cls in parts.items():
        registered = getattr(bpy.types, name)
        assert registered.bl_parent_id == "VIEW3D_PT_orogen_terrain" and registered.bl_category == "Terrain"
        closed = "DEFAULT_CLOSED" in getattr(cls, "bl_options", set())
        assert closed == (name not in ("VIEW3D_PT_orogen_generator", "VIEW3D_PT_orogen_filters")), name
    # Layout panels (the redo panel's and the tile world's collapsible parts): in Blender 4.2 and later.
    functions = bpy.types.UILayout.bl_rna.functions
    assert "panel" in functions and "panel_prop" in functions


def test_an_inactive_setting_is_drawn_greyed_out_and_its_tooltip_says_why(scene, orogen):
    settings = scene.orogen
    assert bpy.ops.orogen.filter_add(type="erosion") == {"FINISHED"}
    item = settings.filters[-1]
    erosion = item.erosion

    def state(name):
        (active,) = [
            a for data, n, a in drawn(orogen.addon.draw.draw_filter_items, settings) if data == erosion and n == name
        ]
        return active

    assert not state("flow_exponent") and not state("channel_width") and not state("k") and state("steps")
    erosion.routing = "mfd"
    assert state("flow_exponent")
    erosion.auto_rates = False
    assert state("channel_width") and state("k") and not state("auto_scale")
    item.enabled = False  # a filter switched off: all its settings greyed
    assert not state("steps")
    rna = type(erosion).bl_rna.properties
    assert rna["flow_exponent"].description.endswith(". Acts only when Flow Routing is Multiple Flow")
    assert rna["channel_width"].description.endswith(". Acts only when Automatic K and D is off")
    assert "Acts only" not in rna["steps"].description
    light = type(settings.lighting).bl_rna.properties
    assert light["softness"].description.endswith("Acts only when Lightmap is on and Lighting is Slope")


def test_lighting_material_and_layers_grey_what_does_nothing(scene, orogen):
    settings, draw = scene.orogen, orogen.addon.draw
    settings.lighting.mode = "slope"

    def states(fn, *args):
        return {n: a for _data, n, a in drawn(fn, *args)}

    light = states(draw.draw_lighting, settings.lighting)
    assert light["softness"] and light["azimuth"] and not light["altitude"] and not light["ao"]
    settings.lighting.mode, settings.lighting.use_scene_sun = "multidirectional", True
    light = states(draw.draw_lighting, settings.lighting)
    assert not light["softness"] and not light["azimuth"] and not light["altitude"] and light["ao"]
    settings.lighting.enabled = False
    assert [n for n, a in states(draw.draw_lighting, settings.lighting).items() if a] == ["enabled"]
    material = states(draw.draw_material, settings)
    assert material["shading"] and not material["cavity"]  # no ambient occlusion to darken by
    water = states(draw.draw_water, settings)
    assert water == {"water": True, "water_level": False, "water_color": False}
    settings.material.water = True
    assert all(states(draw.draw_water, settings).values())
    bpy.ops.orogen.layers_reset()
    assert len(settings.layers) >= 2
    settings.active_layer = 0
    layer = settings.layers[0]
    layer.kind = "NOISE"
    shown = states(draw.draw_layers, settings)
    declared = {p.name for p in orogen.core.spec.LAYER_PARAMS} - {"name"}  # the name is the list's
    assert set(shown) == declared
    assert shown["color2"] and shown["scale"] and not shown["image"] and not shown["mask_min"]


def test_every_generator_and_filter_draws(scene, orogen):
    settings = scene.orogen
    core = orogen.core
    for key in core.params.FILTERS:
        assert bpy.ops.orogen.filter_add(type=key) == {"FINISHED"}
    for generator in core.params.GENERATORS:
        settings.generator = generator
        for operator in (False, True):
            names = {(data, n) for data, n, _a in drawn(orogen.addon.draw.draw_spec, settings, operator)}
            assert {(getattr(settings, generator), p.name) for p in core.params.GENERATORS[generator].params} <= names
            for item in settings.filters:
                group = getattr(item, item.type)
                assert {(group, p.name) for p in core.params.FILTERS[item.type].params} <= names
