"""Add > Mesh > Terrain, driven as a user or a script would."""

import json
import math
import os

import bpy
import numpy as np
import pytest


def add(**kwargs):
    result = bpy.ops.orogen.terrain_add(**kwargs)
    return result, bpy.context.active_object


def vertices(obj):
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def point_attribute(obj, name, prop, width):
    attr = obj.data.attributes[name]
    assert attr.domain == "POINT"
    values = np.empty(len(attr.data) * width, dtype=np.float32)
    attr.data.foreach_get(prop, values)
    return values.reshape(len(attr.data), width)


@pytest.mark.parametrize(("size", "height"), [(2, 5.0), (33, 12.5), (64, 30.0)])
def test_grid_has_size_squared_vertices_and_z_range_equal_to_height(scene, size, height):
    result, obj = add(
        size=size, seed=3, height=height, width=50, set="hills.count=40; hills.radius_min=2; hills.radius_max=12"
    )
    assert result == {"FINISHED"}
    mesh = obj.data
    assert len(mesh.vertices) == size * size
    assert len(mesh.polygons) == (size - 1) ** 2
    co = vertices(obj)
    assert co[:, 2].min() == 0.0
    assert co[:, 2].max() == pytest.approx(height, rel=1e-6)
    assert co[:, 0].min() == pytest.approx(-25.0) and co[:, 0].max() == pytest.approx(25.0)
    assert np.isfinite(co).all()


@pytest.mark.smoke
def test_mesh_matches_the_core_heightmap_north_up(scene, orogen):
    core = orogen.core
    _, obj = add(
        size=40, seed=11, height=10.0, width=39.0, set="hills.count=30; hills.radius_min=3; hills.radius_max=9"
    )
    expected = core.circle_hills((40, 40), seed=11, count=30, radius_min=3, radius_max=9, flattening=1.5)
    co = vertices(obj).reshape(40, 40, 3)
    assert np.array_equal(co[..., 2], expected * np.float32(10.0))
    assert (co[0, :, 1] > co[-1, :, 1]).all()  # row 0 is north (+Y)
    assert (co[:, 0, 0] < co[:, -1, 0]).all()  # column 0 is west (-X)
    height = point_attribute(obj, "height", "value", 1).reshape(40, 40)
    assert np.array_equal(height, expected)


def test_attributes_uv_and_smooth_shading(scene):
    _, obj = add(size=24, seed=1, set="hills.count=20; hills.radius_min=2; hills.radius_max=6")
    mesh = obj.data
    height = point_attribute(obj, "height", "value", 1)
    assert height.shape == (24 * 24, 1) and height.min() == 0.0 and height.max() == 1.0
    light_attr = mesh.color_attributes["Lightmap"]
    assert light_attr.data_type == "FLOAT_COLOR" and light_attr.domain == "POINT"
    light = point_attribute(obj, "Lightmap", "color", 4)
    assert light.shape == (24 * 24, 4)
    assert light[:, :3].min() >= 0.25 - 1e-6 and light[:, :3].max() <= 1.0
    assert (light[:, 0] == light[:, 1]).all() and (light[:, 3] == 1.0).all()
    assert light[:, 0].min() < light[:, 0].max()  # not a constant bake
    uv = np.empty(len(mesh.loops) * 2, dtype=np.float32)
    assert mesh.uv_layers.active.name == "UVMap"
    mesh.uv_layers["UVMap"].data.foreach_get("uv", uv)
    assert uv.min() == 0.0 and uv.max() == 1.0
    # Each corner's UV is its vertex's position across the terrain (u east, v north).
    corner_vertex = np.empty(len(mesh.loops), dtype=np.int32)
    mesh.loops.foreach_get("vertex_index", corner_vertex)
    xy = vertices(obj)[corner_vertex, :2]
    assert np.allclose(uv.reshape(-1, 2), (xy + 50.0) / 100.0, atol=1e-6)
    assert all(p.use_smooth for p in mesh.polygons)
    normals = np.empty(len(mesh.polygons) * 3, dtype=np.float32)
    mesh.polygons.foreach_get("normal", normals)
    assert (normals.reshape(-1, 3)[:, 2] > 0).all()  # faces wound to point up
    assert mesh.validate(verbose=False) is False  # nothing to fix


def test_lightmap_matches_core_in_linear_values(scene, orogen):
    core = orogen.core
    _, obj = add(
        size=32,
        seed=5,
        width=31.0,
        height=6.0,
        set="hills.count=25; hills.radius_min=2; hills.radius_max=8; lighting.azimuth=90; "
        "lighting.softness=0.75; lighting.min_brightness=0.125",
    )
    assert obj.orogen.lighting.azimuth == pytest.approx(math.radians(90.0))
    h = core.circle_hills((32, 32), seed=5, count=25, radius_min=2, radius_max=8, flattening=1.5)
    expected = core.slope_lightmap(
        h * np.float32(6.0), azimuth=90.0, softness=0.75, min_brightness=0.125, cell_size=1.0
    )
    light = point_attribute(obj, "Lightmap", "color", 4)[:, 0].reshape(32, 32)
    assert np.array_equal(light, expected)


def test_material_links_are_valid_and_read_the_attributes(scene):
    _, obj = add(size=16, seed=2)
    mat = obj.active_material
    assert mat is not None
    tree = mat.node_tree
    assert tree.links and all(link.is_valid for link in tree.links)
    attrs = [n for n in tree.nodes if n.bl_idname == "ShaderNodeAttribute"]
    # the colour map reads the height; the Lit ground stage the maps that tint it (missing ones read 0)
    assert [n.attribute_name for n in attrs] == [
        "height",
        "drainage_area",
        "orogen_wetness",
        "river_width",
        "lake_depth",
        "deposited",
    ]
    # Lit (the default): Blender lights it, the baked lightmap is not read (Unlit's, below, is)
    assert [n.layer_name for n in tree.nodes if n.bl_idname == "ShaderNodeVertexColor"] == []
    mixes = [n for n in tree.nodes if n.bl_idname == "ShaderNodeMix"]
    assert mixes and all(n.data_type == "RGBA" for n in mixes)
    output = next(n for n in tree.nodes if n.bl_idname == "ShaderNodeOutputMaterial")
    assert output.inputs["Surface"].links[0].from_node.bl_idname == "ShaderNodeBsdfPrincipled"


def test_unlit_shading_uses_emission_and_toggles_work(scene):
    _, obj = add(size=8, set="material.shading=unlit")
    outputs = [n for n in obj.active_material.node_tree.nodes if n.bl_idname == "ShaderNodeOutputMaterial"]
    for output in outputs:  # Cycles and EEVEE render the Emission; exporters read the unlit pattern (test_maps)
        linked = output.inputs["Surface"].links[0].from_node.bl_idname
        assert linked == ("ShaderNodeEmission" if output.target != "ALL" else "ShaderNodeMixShader")
    assert {o.target for o in outputs} == {"CYCLES", "EEVEE", "ALL"}
    assert "Lightmap" in [
        n.layer_name for n in obj.active_material.node_tree.nodes if n.bl_idname == "ShaderNodeVertexColor"
    ]
    _, bare = add(size=8, set="lighting.enabled=false; material.enabled=false")
    assert "Lightmap" not in bare.data.color_attributes
    assert len(bare.data.materials) == 0


def test_same_seed_gives_identical_vertices(scene):
    _, a = add(size=48, seed=99, set="hills.count=60; hills.island=true")
    _, b = add(size=48, seed=99, set="hills.count=60; hills.island=true")
    _, c = add(size=48, seed=100, set="hills.count=60; hills.island=true")
    assert np.array_equal(vertices(a), vertices(b))
    assert not np.array_equal(vertices(a), vertices(c))


@pytest.mark.smoke
def test_bad_radius_range_is_reported_and_leaves_the_scene_as_it_was(scene):
    add(size=8)
    before = (len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.materials))
    with pytest.raises(RuntimeError, match=r"hills\.radius_min \(30\) must not exceed hills\.radius_max \(5\)"):
        bpy.ops.orogen.terrain_add(set="hills.radius_max=5; hills.radius_min=30")
    with pytest.raises(RuntimeError, match=r"lighting\.min_brightness .* must not exceed lighting\.max_brightness"):
        bpy.ops.orogen.terrain_add(set="lighting.max_brightness=0.2; lighting.min_brightness=0.9")
    assert (len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.materials)) == before


def test_out_of_bounds_values_are_clamped_by_the_properties(scene):
    result, obj = add(size=1)
    assert result == {"FINISHED"}
    assert len(obj.data.vertices) == 4  # size clamped to its minimum, 2
    settings = scene.orogen  # the panel's settings clamp the same way
    settings.size, settings.hills.count = 1, -5
    assert (settings.size, settings.hills.count) == (2, 0)


def test_panel_settings_drive_the_generate_button(scene, orogen):
    settings = scene.orogen
    settings.size, settings.seed, settings.height = 20, 42, 7.0
    panel_module = orogen.addon.ui.panel
    names = orogen.core.spec.setting_paths(orogen.addon.specio.read_spec(settings))
    assert {"size", "seed", "hills.count", "height", "width", "lighting.azimuth"} <= set(names)
    assert panel_module.VIEW3D_PT_orogen_terrain.bl_category == "Terrain"
    # The Generate button: a terrain with the scene's settings.
    assert bpy.ops.orogen.terrain_generate() == {"FINISHED"}
    obj = bpy.context.active_object
    assert len(obj.data.vertices) == 400
    assert vertices(obj)[:, 2].max() == pytest.approx(7.0)
    assert (obj.orogen.size, obj.orogen.seed) == (20, 42)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"width": float("nan")}, "width must be finite"),
        ({"height": float("nan"), "set": "lighting.enabled=false"}, "height must be finite"),
        ({"set": "lighting.softness=NaN"}, r"lighting\.softness must be finite"),
        ({"location": (float("nan"), 0.0, 0.0)}, "Location must be a finite number"),
    ],
)
def test_nan_settings_are_reported_and_never_reach_a_mesh(scene, kwargs, match):
    before = (len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.materials))
    with pytest.raises(RuntimeError, match=match):
        bpy.ops.orogen.terrain_add(size=8, **kwargs)
    with pytest.raises(RuntimeError, match="must be a finite number"):
        bpy.ops.orogen.profile_add(
            columns=8, **{k: v for k, v in kwargs.items() if k == "location"}, length=float("nan")
        )
    assert (len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.materials)) == before


def test_too_much_hill_work_is_refused_quickly(scene):
    # 100k hills each covering the whole 513 x 513 map: 2.6e10 cell updates. The size is small
    # enough that the memory guard passes on any test machine, so the hill-work bound must answer.
    before = len(bpy.data.objects)
    with pytest.raises(RuntimeError, match=r"2\.63e\+10 cell updates"):
        bpy.ops.orogen.terrain_add(size=513, set="hills.count=100000; hills.radius_max=600; hills.radius_min=600")
    assert len(bpy.data.objects) == before


def test_memory_guard_refuses_before_allocating(scene, monkeypatch):
    monkeypatch.setenv("OROGEN_MEMORY_LIMIT", str(64 * 2**20))  # as if only 64 MiB were free
    before = len(bpy.data.objects)
    with pytest.raises(RuntimeError, match=r"1025 x 1025 terrain needs about 200 MiB of memory and 64 MiB are avail"):
        bpy.ops.orogen.terrain_add(size=1025)
    assert len(bpy.data.objects) == before
    assert bpy.ops.orogen.terrain_add(size=129) == {"FINISHED"}  # 7 MiB fits
    # multiple-flow erosion holds 16 + 320 bytes a cell while it runs, more than the mesh's 200: 84.3 MiB at 513^2
    with pytest.raises(RuntimeError, match=r"513 x 513 terrain needs about 84.3 MiB of memory"):
        spec = {"version": 3, "size": 513, "generator": "hills", "filters": [{"type": "erosion", "routing": "mfd"}]}
        bpy.ops.orogen.terrain_add(spec=json.dumps(spec))
    assert len(bpy.data.objects) == before + 1


def test_memory_sizes_are_written_in_the_unit_that_fits(scene, monkeypatch):
    monkeypatch.setenv("OROGEN_MEMORY_LIMIT", "1b")  # reported "0.0 GiB"
    with pytest.raises(RuntimeError, match=r"129 x 129 terrain needs about 3.17 MiB of memory and 1 B are available"):
        bpy.ops.orogen.terrain_add(size=129)


MEMINFO = """MemTotal:       25000000 kB
MemFree:         1000000 kB
MemAvailable:   20000000 kB
Buffers:          100000 kB
"""


@pytest.mark.parametrize(
    ("meminfo", "cgroup", "limit", "expected"),
    [
        # The page cache counts as available: MemAvailable, not MemFree.
        (MEMINFO, None, None, 20_000_000 * 1024),
        # A container's limit minus its use caps it.
        (MEMINFO, ("8589934592\n", "1073741824\n"), None, 7 * 2**30),
        # "max" is no cgroup limit.
        (MEMINFO, ("max\n", "1073741824\n"), None, 20_000_000 * 1024),
        # OROGEN_MEMORY_LIMIT caps it further.
        (MEMINFO, ("8589934592\n", "1073741824\n"), str(2**30), 2**30),
        # A container over its limit has nothing left.
        (MEMINFO, ("1000\n", "5000\n"), None, 0),
    ],
)
def test_available_memory_reads_what_the_kernel_can_give(
    orogen, tmp_path, monkeypatch, meminfo, cgroup, limit, expected
):
    terrain = orogen.addon.terrain.compute
    (tmp_path / "meminfo").write_text(meminfo)
    monkeypatch.setattr(terrain, "MEMINFO", str(tmp_path / "meminfo"))
    monkeypatch.setattr(terrain, "CGROUP_MAX", str(tmp_path / "memory.max"))
    monkeypatch.setattr(terrain, "CGROUP_CURRENT", str(tmp_path / "memory.current"))
    if cgroup is not None:
        (tmp_path / "memory.max").write_text(cgroup[0])
        (tmp_path / "memory.current").write_text(cgroup[1])
    if limit is None:
        monkeypatch.delenv("OROGEN_MEMORY_LIMIT", raising=False)
    else:
        monkeypatch.setenv("OROGEN_MEMORY_LIMIT", limit)
    assert terrain.available_memory() == expected


def test_available_memory_without_meminfo_falls_back_to_free_pages(orogen, tmp_path, monkeypatch):
    terrain = orogen.addon.terrain.compute
    monkeypatch.delenv("OROGEN_MEMORY_LIMIT", raising=False)
    for name in ("MEMINFO", "CGROUP_MAX", "CGROUP_CURRENT"):
        monkeypatch.setattr(terrain, name, str(tmp_path / "missing"))
    pages = {"SC_AVPHYS_PAGES": 1000, "SC_PAGE_SIZE": 4096}
    monkeypatch.setattr(os, "sysconf", pages.__getitem__)
    assert terrain.available_memory() == 4096 * 1000
    (tmp_path / "meminfo").write_text("MemTotal: 1 kB\n")  # no MemAvailable line (kernels before 3.14)
    monkeypatch.setattr(terrain, "MEMINFO", str(tmp_path / "meminfo"))
    assert terrain.available_memory() == 4096 * 1000

    def unknown(name):
        raise ValueError(f"unrecognized configuration name {name!r}")

    monkeypatch.setattr(os, "sysconf", unknown)  # as on macOS: the guard then cannot tell and lets it be
    assert terrain.available_memory() is None


def test_the_stored_recipe_says_the_numbers_as_typed_and_a_hand_written_recipe_gives_the_same_terrain(scene, orogen):
    stack = json.dumps(
        {
            "version": 2,
            "generator": "faults",
            "size": 33,
            "seed": 5,
            "height": 10.0,
            "filters": [{"type": "flatten", "exponent": 1.5}, {"type": "lowpass", "k": 0.5}],
        }
    )
    # Version 3's low-pass filter takes a decay length in metres: 0.1's k = 0.6 per cell is this length at the
    # spec's 3.125 m cells (100 m over 32 cells), typed as a float32 property shows it.
    length = orogen.core.versions.V2_TO_V3["lowpass"]({"k": 0.6, "passes": 1}, 100.0 / 32)["length"]
    typed = str(np.float32(length))
    assert float(typed) != length and abs(float(typed) - length) < 1e-6 * length  # not a float32: rounded
    # The numbers go through the settings (float32 properties) and come back as typed.
    assert bpy.ops.orogen.terrain_add(
        spec=stack, set=f"faults.faults=40; faults.displacement_min=0.1; flatten.exponent=1.8; lowpass.length={typed}"
    ) == {"FINISHED"}
    first = bpy.context.active_object
    recipe = orogen.addon.specio.read_spec(first.orogen).to_dict()
    assert recipe["faults"]["displacement_min"] == 0.1 and recipe["fit_height"] is True  # migrated from version 2
    assert recipe["filters"] == [
        {"type": "flatten", "enabled": True, "exponent": 1.8},
        {"type": "lowpass", "enabled": True, "length": float(typed), "passes": 1},
    ]
    # Written by hand in 0.1's recipe form (its "erosion" filter is the low-pass one); a 0.1 recipe keeps
    # 0.1's fault spacing unless it says otherwise, and this one says the spec's. Its k = 0.6 migrates to the
    # length above, which the panel's float32 property holds as the typed one.
    by_hand = json.dumps(
        {
            "generator": "faults",
            "seed": 5,
            "shape": [33, 33],
            "params": {"faults": 40, "displacement_min": 0.1, "spacing": "to_last"},
            "filters": [{"type": "flatten", "exponent": 1.8}, {"type": "erosion", "k": 0.6}],
        }
    )
    assert bpy.ops.orogen.terrain_add(spec=by_hand, set="height=10") == {"FINISHED"}
    assert orogen.addon.specio.read_spec(bpy.context.active_object.orogen).to_dict() == recipe
    assert np.array_equal(vertices(bpy.context.active_object), vertices(first))


def test_a_late_failure_leaves_nothing_added(scene, orogen, monkeypatch):
    """If a step after the mesh is made fails (here the Unlit colour bake), the object, its mesh, material and
    water are removed again and the operator reports: the scene is as it was."""
    spec = {"version": 3, "size": 17, "material": {"shading": "unlit", "water": True, "water_level": 5.0}}
    before = (set(bpy.data.objects), set(bpy.data.meshes), set(bpy.data.materials))

    def fails(obj, spec):
        raise ValueError("the bake failed")

    monkeypatch.setattr(orogen.addon.ops.terrain, "bake_unlit_color", fails)
    with pytest.raises(RuntimeError, match="Terrain not added: the bake failed"):
        bpy.ops.orogen.terrain_add(spec=json.dumps(spec))
    # (the material's node-tree template, a hidden cache kept for the next terrain, may stay)
    materials = {m for m in bpy.data.materials if not m.name.startswith(".Orogen Template")}
    assert (set(bpy.data.objects), set(bpy.data.meshes), materials) == before


def test_a_continental_unlit_terrain_with_noisy_layers_is_added(scene):
    """Cells of 31 km (the widest world on a small grid): the layers' noise field takes any cell a spec allows."""
    spec = {
        "version": 3,
        "size": 33,
        "width": 1.0e6,
        "material": {"shading": "unlit"},
        "layers": [
            {"name": "b", "color": [0, 1, 0], "minimum": 0, "optimal": 0.5, "maximum": 1, "mask": "noise"},
            {"name": "c", "color": [1, 0, 0], "minimum": 0, "optimal": 0.5, "maximum": 1, "edge_noise": 0.1},
        ],
    }
    assert bpy.ops.orogen.terrain_add(spec=json.dumps(spec)) == {"FINISHED"}
    obj = bpy.context.active_object
    colors = np.empty(len(obj.data.vertices) * 4, dtype=np.float32)
    obj.data.color_attributes["Color"].data.foreach_get("color", colors)
    assert np.isfinite(colors).all() and colors.reshape(-1, 4)[:, :3].max() > 0.1
