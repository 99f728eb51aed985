"""Every generator and filter through the operator, and side-view profiles."""

import json

import bpy
import numpy as np
import pytest

GENERATORS = ("hills", "faults", "diamond_square", "noise")


def z_of(obj):
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


@pytest.mark.parametrize("generator", GENERATORS)
def test_each_generator_makes_a_terrain_spanning_the_height(scene, orogen, generator):
    spec = {
        "version": 2,
        "generator": generator,
        "size": 40,
        "seed": 3,
        "height": 8.0,
        "width": 39.0,
        "filters": [
            {"type": "flatten", "exponent": 1.5},
            {"type": "box_blur", "passes": 2},
            {"type": "lowpass", "k": 0.4},
        ],
    }
    result = bpy.ops.orogen.terrain_add(spec=json.dumps(spec))
    assert result == {"FINISHED"}
    obj = bpy.context.active_object
    co = z_of(obj)
    assert len(co) == 1600 and np.isfinite(co).all()
    assert co[:, 2].min() == 0.0 and co[:, 2].max() == pytest.approx(8.0, rel=1e-6)
    # The mesh is exactly the recipe the settings describe.
    recipe = orogen.core.recipe.Recipe(
        generator,
        3,
        (40, 40),
        _params(generator),
        (("flatten", {"exponent": 1.5}), ("box_blur", {"passes": 2}), ("lowpass", {"k": 0.4, "passes": 1})),
        version=2,
    )
    expected = recipe.evaluate()
    assert np.allclose(co[:, 2].reshape(40, 40), expected * np.float32(8.0), atol=1e-5)


def _params(generator):
    return {
        "hills": {"count": 150, "radius_min": 4.0, "radius_max": 20.0, "island": False},
        "faults": {"faults": 200, "displacement_max": 1.0, "displacement_min": 0.05},
        "diamond_square": {"roughness": 1.0},
        "noise": {
            "noise": 0.1,
            "hills": 300,
            "hill_radius": (4.0, 16.0),
            "hill_height": (0.2, 0.6),
            "pits": 100,
            "pit_radius": (3.0, 8.0),
            "pit_height": (0.2, 0.5),
        },
    }[generator]


def test_terrace_and_sea_level_shape_the_heights(scene):
    spec = {
        "version": 2,
        "generator": "diamond_square",
        "size": 64,
        "height": 10.0,
        "filters": [{"type": "terrace", "levels": 4, "smoothness": 0.2}, {"type": "sea_level", "level": 0.4}],
    }
    bpy.ops.orogen.terrain_add(spec=json.dumps(spec))
    assert len(bpy.context.active_object.data.vertices) == 64 * 64
    z = z_of(bpy.context.active_object)[:, 2]
    # Sea: a flat floor at Z = 0 covering a good part of the map; terraces: few distinct levels dominate.
    assert (z == 0.0).mean() > 0.2
    levels, counts = np.unique(np.round(z, 3), return_counts=True)
    assert counts[np.argsort(counts)[-4:]].sum() > 0.6 * len(z)


def test_recipe_json_replaces_the_generator_settings(scene, orogen):
    recipe = {
        "generator": "faults",
        "seed": 9,
        "shape": [30, 50],
        "params": {"faults": 80},
        "filters": [{"type": "erosion", "k": 0.5, "passes": 1}],
    }
    assert bpy.ops.orogen.terrain_add(spec=json.dumps(recipe), set="height=5; width=49") == {"FINISHED"}
    obj = bpy.context.active_object
    assert [item.type for item in obj.orogen.filters] == ["lowpass"]  # 0.1's "erosion" filter
    co = z_of(obj)
    assert len(co) == 1500
    # A 0.1 recipe is read at the default width (100 m, its lengths in cells become metres there); setting the width
    # afterwards keeps those metres (spec version 3: the width scales the landscape, not the lengths).
    expected = orogen.core.spec.load_spec(recipe).replace(width=49.0, height=5.0).heightmap()
    assert np.allclose(co[:, 2].reshape(30, 50), expected * np.float32(5.0), rtol=0, atol=1e-5)  # float32 props
    assert co[:, 0].max() - co[:, 0].min() == pytest.approx(49.0)
    assert bpy.ops.orogen.terrain_add(spec=json.dumps(recipe), set="height=5") == {"FINISHED"}
    original = orogen.core.recipe.Recipe.from_dict(recipe).evaluate()  # the heightmap 0.1 made
    assert np.abs(z_of(bpy.context.active_object)[:, 2].reshape(30, 50) - original * np.float32(5.0)).max() < 1e-5


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"spec": "{not json"}, "Terrain not added"),
        ({"spec": json.dumps({"version": 2, "generator": "perlin"})}, "generator must be one of"),
        ({"generator": "noise", "set": "noise.pit_height=[0.9, 0.1]"}, r"noise\.pit_height must be \(low, high\)"),
    ],
)
def test_bad_recipes_and_ranges_are_reported_and_change_nothing(scene, kwargs, match):
    before = (len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.materials))
    with pytest.raises(RuntimeError, match=match):
        bpy.ops.orogen.terrain_add(**kwargs)
    assert (len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.materials)) == before


class _Layout:
    """Stands in for a panel's layout: records every setting drawn, as (property group, name)."""

    def __init__(self, drawn):
        self.drawn = drawn

    def prop(self, data, name, **_kwargs):
        self.drawn.append((data, name))

    def prop_search(self, data, name, *_args, **_kwargs):  # an object setting: a search field
        self.drawn.append((data, name))

    def panel(self, *_args, **_kwargs):  # layout.panel() and panel_prop(): (header, body)
        return _Layout(self.drawn), _Layout(self.drawn)

    panel_prop = panel

    def __getattr__(self, _name):  # column, row, box, label, operator, menu, template_list...
        return lambda *_args, **_kwargs: _Layout(self.drawn)


def test_panel_shows_only_the_chosen_generators_settings(scene, orogen):
    declared = orogen.core.params.GENERATORS
    assert set(GENERATORS) <= set(declared)
    settings = scene.orogen
    for generator in declared:
        settings.generator = generator
        drawn = []
        orogen.addon.ui.draw.draw_spec(_Layout(drawn), settings)
        shown = {name for data, name in drawn if data == getattr(settings, generator)}
        assert shown == {p.name for p in declared[generator].params}
        others = {getattr(settings, g) for g in declared if g != generator}
        assert not [name for data, name in drawn if data in others]  # no other generator's settings


@pytest.mark.parametrize("method", ["WALK", "SECTIONS"])
def test_profile_is_a_filled_shape_between_profile_and_base(scene, orogen, method):
    result = bpy.ops.orogen.profile_add(
        method=method, columns=200, seed=4, length=50.0, min_height=3.0, max_height=20.0, base=-1.0
    )
    assert result == {"FINISHED"}
    obj = bpy.context.active_object
    co = z_of(obj)
    assert len(co) == 400 and len(obj.data.polygons) == 199
    top, bottom = co[:200], co[200:]
    assert (bottom[:, 2] == -1.0).all()
    assert top[:, 2].min() >= 3.0 and top[:, 2].max() <= 20.0
    assert top[:, 0].min() == pytest.approx(-25.0) and top[:, 0].max() == pytest.approx(25.0)
    assert (co[:, 1] == 0.0).all()
    profiles = orogen.core.generators.profiles
    expected = (
        profiles.slope_walk(
            200,
            4,
            min_height=3.0,
            max_height=20.0,
            max_slope=np.float32(0.6).item(),
            slope_change=np.float32(0.15).item(),
        )
        if method == "WALK"
        else profiles.sectioned_profile(
            200,
            4,
            sections=12,
            sub_points=6,
            shift=np.float32(0.25).item(),
            smoothing_steps=300,
            min_height=3.0,
            max_height=20.0,
        )
    )
    assert np.array_equal(top[:, 2], expected)
    normals = np.empty(len(obj.data.polygons) * 3, dtype=np.float32)
    obj.data.polygons.foreach_get("normal", normals)
    assert (normals.reshape(-1, 3)[:, 1] < -0.99).all()  # facing the front view


def test_extruded_profile_is_closed_with_outward_normals(scene):
    bpy.ops.orogen.profile_add(columns=50, depth=4.0, base=0.0)
    mesh = bpy.context.active_object.data
    assert len(mesh.vertices) == 200 and len(mesh.polygons) == 4 * 49 + 2
    # Closed: every edge is shared by exactly two faces.
    counts = {}
    for poly in mesh.polygons:
        for key in poly.edge_keys:
            counts[key] = counts.get(key, 0) + 1
    assert set(counts.values()) == {2}
    # Outward normals: the signed volume (divergence theorem) is positive and equals the area under
    # the profile (trapezoids) times the depth.
    co = np.array([v.co for v in mesh.vertices], dtype=np.float64)
    volume = 0.0
    for poly in mesh.polygons:
        v = [co[i] for i in poly.vertices]
        for a, b in ((1, 2), (2, 3)):
            volume += np.dot(v[0], np.cross(v[a], v[b])) / 6.0
    top = co[:50]
    area = float(np.sum((top[1:, 2] + top[:-1, 2]) / 2 * np.diff(top[:, 0])))
    assert volume == pytest.approx(area * 4.0, rel=1e-6)


def test_profile_with_base_above_min_height_is_refused(scene):
    before = len(bpy.data.objects)
    with pytest.raises(RuntimeError, match="Base"):
        bpy.ops.orogen.profile_add(base=5.0, min_height=2.0)
    assert len(bpy.data.objects) == before
