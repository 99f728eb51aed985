"""Settings that do nothing under the current choices: the panel greys them out and says why, ``set=`` and
``--set`` of one say so (a note, not an error)."""

import json
import subprocess
import sys
from pathlib import Path

import bpy
import numpy as np
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
    args = ["--preset", "river_valleys", "--size", "17", "--set", "auto_scale=map", "--set", "seed=2"]
    if script == "render_terrain.py":
        args += ["--resolution", "16", "16", "--samples", "1", "--output", str(tmp_path / "t.png")]
    else:
        args += ["--format", "R16", "--output-dir", str(tmp_path / "out")]
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    note = "note: erosion.auto_scale has no effect: acts only when Automatic K and D is on"
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

    def prop_search(self, data, name, *_search, **_kw):  # an object setting: a search of bpy.data.objects
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
    panel = orogen.addon.ui.panel
    parts = {cls.__name__: cls for cls in panel.classes[1:]}
    assert list(parts) == [
        "VIEW3D_PT_orogen_generator",
        "VIEW3D_PT_orogen_sources",
        "VIEW3D_PT_orogen_filters",
        "VIEW3D_PT_orogen_lighting",
        "VIEW3D_PT_orogen_material",
        "VIEW3D_PT_orogen_layers",
        "VIEW3D_PT_orogen_water",
        "VIEW3D_PT_orogen_scatter",
        "VIEW3D_PT_orogen_report",
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
            a for data, n, a in drawn(orogen.addon.ui.draw.draw_filter_items, settings) if data == erosion and n == name
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
    settings, draw = scene.orogen, orogen.addon.ui.draw
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
            names = {(data, n) for data, n, _a in drawn(orogen.addon.ui.draw.draw_spec, settings, operator)}
            assert {(getattr(settings, generator), p.name) for p in core.params.GENERATORS[generator].params} <= names
            for item in settings.filters:
                group = getattr(item, item.type)
                assert {(group, p.name) for p in core.params.FILTERS[item.type].params} <= names


def _value(v):
    if isinstance(v, (int, float, bool, str)):
        return round(v, 6) if isinstance(v, float) else v
    try:
        return tuple(round(float(x), 6) for x in v)
    except TypeError:
        return getattr(v, "name", str(type(v).__name__))


def _tree(tree):
    if tree is None:
        return None
    nodes = sorted(
        (
            n.bl_idname,
            n.name,
            tuple(_value(getattr(n, a)) for a in ("operation", "blend_type", "data_type", "image") if hasattr(n, a)),
            tuple((i.identifier, _value(i.default_value)) for i in n.inputs if hasattr(i, "default_value")),
            tuple((_value(e.position), _value(e.color)) for e in n.color_ramp.elements) if n.type == "VALTORGB" else (),
        )
        for n in tree.nodes
    )
    links = sorted(
        (k.from_node.name, k.from_socket.identifier, k.to_node.name, k.to_socket.identifier) for k in tree.links
    )
    return nodes, links


def made(scene):
    """What adding a terrain made: every object's placement, mesh, attributes and material node trees."""
    out = []
    for obj in sorted(scene.objects, key=lambda o: o.name):
        entry = [obj.type, tuple(round(x, 6) for x in obj.matrix_world.translation)]
        if obj.type == "MESH":
            mesh = obj.data
            co = np.empty(len(mesh.vertices) * 3, np.float32)
            mesh.vertices.foreach_get("co", co)
            entry.append(co.tobytes())
            for attr in sorted(mesh.attributes, key=lambda a: a.name):
                if attr.data_type in ("FLOAT", "FLOAT_COLOR") and not attr.name.startswith("."):
                    width = 4 if attr.data_type == "FLOAT_COLOR" else 1
                    values = np.empty(len(attr.data) * width, np.float32)
                    attr.data.foreach_get("color" if width == 4 else "value", values)
                    entry.append((attr.name, values.tobytes()))
            entry.append([_tree(m.node_tree) if m else None for m in mesh.materials])
        out.append(entry)
    return out


#: The declarations whose effect is the add-on's (tests/core/test_active_when.py cannot see it).
ADDON_ONLY = [  # (group, setting, where it does nothing, where it acts, values)
    ("lighting", "use_scene_sun", {"enabled": False}, {"enabled": True}, [False, True]),
    ("material", "shading", {"enabled": False}, {"enabled": True}, ["lit", "unlit"]),
    ("material", "cavity", {"enabled": False}, {"enabled": True}, [0.0, 0.7]),
    ("material", "cavity", {"shading": "unlit"}, {"shading": "lit"}, [0.0, 0.7]),
    ("material", "water_level", {"water": False}, {"water": True}, [0.0, 5.0]),
    ("material", "water_color", {"water": False}, {"water": True}, [[0.02, 0.09, 0.1], [0.9, 0.1, 0.1]]),
    ("layer", "image", {"kind": "NOISE"}, None, ["", "nothing.png"]),
    ("layer", "color2", {"kind": "COLOR"}, {"kind": "NOISE"}, [[0.0, 0.0, 0.0], [1.0, 0.5, 0.0]]),
    ("layer", "scale", {"kind": "COLOR"}, {"kind": "VORONOI"}, [5.0, 50.0]),
]


def _made_with(scene, core, group, name, where, values):
    base = {"lighting": {"ao": True, "mode": "hillshade"}, "material": {"shading": "lit", "cavity": 0.5}}
    results = []
    for value in values:
        for obj in [o for o in scene.objects if o.type == "MESH"]:
            bpy.data.objects.remove(obj)
        spec = core.spec.TerrainSpec(size=9, seed=3, filters=(("erosion", {"steps": 2}),)).to_dict()
        spec["lighting"].update(base["lighting"])
        spec["material"].update(base["material"])
        target = spec["layers"][1] if group == "layer" else spec[group]
        target.update(where, **{name: value})
        assert bpy.ops.orogen.terrain_add(spec=json.dumps(spec)) == {"FINISHED"}
        results.append(made(scene))
    return results


@pytest.mark.parametrize(("group", "name", "inactive", "active", "values"), ADDON_ONLY, ids=lambda v: str(v)[:20])
def test_addon_only_declarations_hold(scene, orogen, group, name, inactive, active, values):
    """As tests/core/test_active_when.py, for what the add-on makes: the objects, meshes and material trees
    are the same whatever value a setting takes where it is declared inactive, and differ where it acts."""
    core = orogen.core
    if group == "layer":
        params = core.spec.LAYER_PARAMS
    else:
        params = core.lighting.LIGHTING_PARAMS if group == "lighting" else core.spec.MATERIAL_PARAMS
    param = next(p for p in params if p.name == name)
    assert core.params.inactive_reason(param, inactive, params)
    bpy.ops.object.light_add(type="SUN", rotation=(0.3, 0.2, 0.1))  # a scene Sun for use_scene_sun
    same = _made_with(scene, core, group, name, inactive, values)
    assert all(other == same[0] for other in same[1:]), f"{group}.{name} changed what was made under {inactive}"
    if active is not None:
        assert core.params.inactive_reason(param, active, params) is None
        differ = _made_with(scene, core, group, name, active, values)
        assert differ[0] != differ[1], f"{group}.{name} changed nothing under {active}"
