"""Meshes and materials built for speed: exact topology, nothing for ``validate()`` to fix, cached materials."""

import bpy
import numpy as np
import pytest

GRIDS = [(2, 2), (2, 5), (5, 2), (7, 3), (33, 40), (129, 129)]


@pytest.fixture
def mesh_module(orogen):
    return orogen.addon.mesh


def ints(collection, prop, per_item):
    values = np.empty(len(collection) * per_item, dtype=np.int32)
    collection.foreach_get(prop, values)
    return values.reshape(len(collection), per_item) if per_item > 1 else values


def check_topology(mesh):
    """Every corner's edge joins its vertex and the next corner's; every edge is some face's side, once."""
    assert not mesh.validate(verbose=True), "validate() found something to fix"
    edges = np.sort(ints(mesh.edges, "vertices", 2), axis=1)
    starts = ints(mesh.polygons, "loop_start", 1)
    totals = ints(mesh.polygons, "loop_total", 1)
    corner_vert = ints(mesh.loops, "vertex_index", 1)
    corner_edge = ints(mesh.loops, "edge_index", 1)
    assert np.array_equal(starts, np.concatenate([[0], np.cumsum(totals)[:-1]]))
    face = np.repeat(np.arange(len(starts)), totals)
    following = np.arange(len(corner_vert)) + 1
    following[np.cumsum(totals) - 1] = starts  # the last corner of a face is followed by its first
    sides = np.sort(np.stack([corner_vert, corner_vert[following]], axis=1), axis=1)
    assert np.array_equal(edges[corner_edge], sides)
    assert len(np.unique(edges, axis=0)) == len(edges)  # no edge twice
    assert np.array_equal(np.unique(corner_edge), np.arange(len(edges)))  # no loose edge
    return edges, face


def blender_edges(co, faces):
    """Edges as Blender's own edge calculation finds them, for comparison."""
    ref = bpy.data.meshes.new("reference")
    ref.from_pydata(co.tolist(), [], faces.tolist())
    try:
        return {tuple(sorted(e)) for e in ints(ref.edges, "vertices", 2).tolist()}
    finally:
        bpy.data.meshes.remove(ref)


@pytest.mark.parametrize(("rows", "cols"), GRIDS)
def test_grid_mesh_edges_are_exact_and_valid(scene, mesh_module, rows, cols):
    h = np.random.default_rng(rows * 100 + cols).random((rows, cols)).astype(np.float32)
    mesh = mesh_module.build_grid_mesh("t", h, 10.0, 2.0, h, {"slope": h})
    assert len(mesh.vertices) == rows * cols
    assert len(mesh.edges) == rows * (cols - 1) + cols * (rows - 1)
    assert len(mesh.polygons) == (rows - 1) * (cols - 1)
    edges, _ = check_topology(mesh)
    # The quads' corner order (top-left, bottom-left, bottom-right, top-right) gives the west, south,
    # east and north sides.
    corner_edge = ints(mesh.loops, "edge_index", 1).reshape(-1, 4)
    corner_vert = ints(mesh.loops, "vertex_index", 1).reshape(-1, 4)
    west = edges[corner_edge[:, 0]]
    assert np.array_equal(west[:, 1] - west[:, 0], np.full(len(west), cols))
    north = edges[corner_edge[:, 3]]
    assert np.array_equal(north, np.sort(corner_vert[:, [0, 3]], axis=1))
    if rows * cols <= 40 * 40:
        co = mesh_module.grid_coordinates(h, 10.0, 2.0)
        assert {tuple(e) for e in edges.tolist()} == blender_edges(co, mesh_module.grid_faces(rows, cols))


def test_grid_arrays_do_not_depend_on_a_scratch_buffer(mesh_module):
    scratch = np.full(4 * 8 * 6 * 4 + 64, 255, dtype=np.uint8)
    for fn in (mesh_module.grid_faces, mesh_module.grid_edges, mesh_module.grid_corner_edges, mesh_module.grid_uvs):
        assert np.array_equal(fn(7, 5), fn(7, 5, scratch)), fn.__name__
    h = np.linspace(0, 1, 35, dtype=np.float32).reshape(7, 5)
    assert np.array_equal(mesh_module.grid_coordinates(h, 3.0, 2.0), mesh_module.grid_coordinates(h, 3.0, 2.0, scratch))


def test_face_edges_of_any_quads(mesh_module):
    faces = np.array([[0, 1, 4, 3], [1, 2, 5, 4]], dtype=np.int32)
    edges, corner_edges = mesh_module.face_edges(faces)
    assert len(edges) == 7  # two quads sharing one side
    sides = np.sort(np.stack([faces, np.roll(faces, -1, axis=1)], axis=-1), axis=-1)
    assert np.array_equal(edges[corner_edges], sides)


@pytest.mark.parametrize("depth", [0.0, 3.0])
def test_profile_mesh_is_valid_and_closed(scene, orogen, mesh_module, depth):
    profile = np.array([2.0, 5.0, 3.0, 4.0, 6.0], dtype=np.float32)
    mesh = orogen.addon.ops.profile.build_profile_mesh("p", profile, 20.0, 0.0, depth)
    check_topology(mesh)
    v, e, f = len(mesh.vertices), len(mesh.edges), len(mesh.polygons)
    if depth > 0:
        assert v - e + f == 2  # a closed solid (Euler's formula)
    else:
        assert (v, e, f) == (10, 13, 4)


def test_without_the_generic_attributes_the_classic_collections_write_the_same_mesh(scene, mesh_module, monkeypatch):
    h = np.random.default_rng(5).random((9, 6)).astype(np.float32)
    fast = mesh_module.build_grid_mesh("fast", h, 10.0, 2.0, h)
    monkeypatch.setattr(mesh_module, "_set_attribute", lambda mesh, name, prop, values, fallback: fallback(values))
    classic = mesh_module.build_grid_mesh("classic", h, 10.0, 2.0, h)
    check_topology(classic)
    for collection, prop, width in (("edges", "vertices", 2), ("loops", "vertex_index", 1), ("loops", "edge_index", 1)):
        assert np.array_equal(
            ints(getattr(fast, collection), prop, width), ints(getattr(classic, collection), prop, width)
        )
    co = [np.empty(len(m.vertices) * 3, dtype=np.float32) for m in (fast, classic)]
    fast.vertices.foreach_get("co", co[0])
    classic.vertices.foreach_get("co", co[1])
    assert np.array_equal(*co)


def test_rebuilding_at_another_size_stays_valid(scene, mesh_module):
    mesh = mesh_module.build_grid_mesh("t", np.zeros((17, 17), np.float32), 10.0, 2.0)
    h = np.random.default_rng(1).random((9, 12)).astype(np.float32)
    assert mesh_module.update_grid_mesh(mesh, h, 10.0, 2.0, h, {"slope": h}) is True
    check_topology(mesh)
    assert len(mesh.edges) == 9 * 11 + 12 * 8
    assert mesh_module.update_grid_mesh(mesh, h[::-1].copy(), 10.0, 2.0, h) is False  # same size: rewrite only
    check_topology(mesh)
    assert len(mesh.uv_layers) == 1


def test_bare_grid_mesh_has_geometry_only(scene, mesh_module):
    mesh = mesh_module.new_grid_mesh("floor", np.zeros((5, 4), np.float32), 10.0, 2.0)
    check_topology(mesh)
    assert len(mesh.uv_layers) == 0 and "height" not in mesh.attributes


def test_grid_mesh_for_swaps_between_two_meshes(scene, orogen, mesh_module):
    bpy.ops.orogen.terrain_add(size=33)
    obj = bpy.context.active_object
    own, material = obj.data, obj.data.materials[0]
    preview = orogen.addon.terrain.meshes.grid_mesh_for(obj, 9, 9)
    assert obj.data == preview != own and list(preview.materials) == [material]
    assert obj[orogen.addon.terrain.meshes.OTHER_MESH_PROPERTY] == own and own.users == 1  # kept, by the property
    h = np.zeros((9, 9), np.float32)
    assert mesh_module.update_grid_mesh(preview, h, 10.0, 2.0) is True  # built once
    assert orogen.addon.terrain.meshes.grid_mesh_for(obj, 33, 33) == own == obj.data  # back, nothing rebuilt
    assert obj[orogen.addon.terrain.meshes.OTHER_MESH_PROPERTY] == preview
    assert orogen.addon.terrain.meshes.grid_mesh_for(obj, 9, 9) == preview  # and the preview is at hand again
    assert mesh_module.update_grid_mesh(preview, h, 10.0, 2.0) is False
    assert orogen.addon.terrain.meshes.grid_mesh_for(obj, 33, 33) == own
    preview_name = preview.name
    orogen.addon.terrain.meshes.drop_other_mesh(obj)
    assert orogen.addon.terrain.meshes.OTHER_MESH_PROPERTY not in obj and preview_name not in bpy.data.meshes
    check_topology(obj.data)


# --- materials -------------------------------------------------------------------------------
def tree_signature(mat):
    """Everything a node tree computes with: nodes (type, name, settings, unlinked inputs) and links."""
    nodes = {}
    for node in mat.node_tree.nodes:
        settings = {}
        for prop in node.bl_rna.properties:
            if prop.type in {"BOOLEAN", "INT", "FLOAT", "STRING", "ENUM"} and prop.identifier != "select":
                value = getattr(node, prop.identifier)
                settings[prop.identifier] = (
                    tuple(value) if hasattr(value, "__len__") and not isinstance(value, str) else value
                )
        inputs = {
            s.identifier: tuple(s.default_value) if hasattr(s.default_value, "__len__") else s.default_value
            for s in node.inputs
            if hasattr(s, "default_value") and not s.is_linked
        }
        ramp = None
        if node.bl_idname == "ShaderNodeValToRGB":
            ramp = [(e.position, tuple(e.color)) for e in node.color_ramp.elements]
        nodes[node.name] = (node.bl_idname, settings, inputs, ramp, getattr(node, "image", None))
    links = sorted(
        (link.from_node.name, link.from_socket.identifier, link.to_node.name, link.to_socket.identifier)
        for link in mat.node_tree.links
    )
    return nodes, links


def material_cases(core):
    layers = core.DEFAULT_LAYERS
    slope_rock = core.Layer("rock", (0.3, 0.3, 0.3), 0.1, 0.5, 0.9, slope_min=30.0, slope_max=90.0)
    noise = core.Layer("moss", (0.1, 0.3, 0.1), -1.0, 0.2, 0.6, kind="NOISE", color2=(0.2, 0.4, 0.1))
    return [
        (layers, True, "LIT"),
        (layers, True, "UNLIT"),
        (layers, False, "UNLIT"),
        ((*layers[:2], slope_rock), True, "LIT"),
        ((noise, layers[1]), True, "UNLIT"),
    ]


def test_a_material_from_the_cache_equals_one_built_node_by_node(scene, orogen):
    material = orogen.addon.material
    for layers, use_lightmap, shading in material_cases(orogen.core):
        fresh = material.build_material("fresh", layers, use_lightmap, shading, cached=False)
        first = material.build_material("Terrain", layers, use_lightmap, shading)  # makes the template
        second = material.build_material("Terrain", layers, use_lightmap, shading)  # copies it
        expected = tree_signature(fresh)
        assert tree_signature(first) == expected
        assert tree_signature(second) == expected
        assert first.name.startswith("Terrain") and second.name.startswith("Terrain")
        for mat in (first, second):
            assert material.TEMPLATE_KEY not in mat and material.TEMPLATE_ORDER not in mat
            assert mat.users == 0 and not mat.use_fake_user
    kept = material.templates()
    assert len(kept) == len(material_cases(orogen.core))
    # Lit never reads the lightmap: with or without one it is the same material (the same template).
    lit = material.build_material("Terrain", orogen.core.DEFAULT_LAYERS, False, "LIT")
    assert len(material.templates()) == len(kept)
    assert not [n for n in lit.node_tree.nodes if n.bl_idname == "ShaderNodeVertexColor"]
    assert all(t.name.startswith(".") and t.users == 0 and not t.use_fake_user for t in kept)


def test_the_template_is_made_again_after_deletion_reload_or_tampering(scene, orogen):
    material = orogen.addon.material
    layers = orogen.core.DEFAULT_LAYERS
    expected = tree_signature(material.build_material("fresh", layers, cached=False))
    material.build_material("Terrain", layers)
    (template,) = material.templates()
    name = template.name
    bpy.data.materials.remove(template)  # deleted (or purged as unused)
    assert tree_signature(material.build_material("Terrain", layers)) == expected
    assert [t.name for t in material.templates()] == [name]
    bpy.ops.wm.read_homefile(use_empty=True)  # another file
    assert material.templates() == []
    assert tree_signature(material.build_material("Terrain", layers)) == expected
    material.templates()[0][material.TEMPLATE_KEY] = "stale"  # a template of an older tree
    assert tree_signature(material.build_material("Terrain", layers)) == expected
    assert material.templates()[0][material.TEMPLATE_KEY] != "stale"
    user = bpy.data.materials[name]
    bpy.data.materials.remove(user)
    bpy.data.materials.new(name)  # the user's own material, by chance of that name: left alone
    assert tree_signature(material.build_material("Terrain", layers)) == expected
    assert bpy.data.materials[name].node_tree is None or len(bpy.data.materials[name].node_tree.nodes) <= 2


def test_old_templates_are_pruned(scene, orogen):
    material, core = orogen.addon.material, orogen.core
    base = core.DEFAULT_LAYERS
    for i in range(material.MAX_TEMPLATES + 3):
        low = core.Layer("low", (0.01 * i, 0.1, 0.0), -1.0, 0.15, 0.5)
        material.build_material("Terrain", (low, *base[1:]))
    kept = material.templates()
    assert len(kept) == material.MAX_TEMPLATES
    assert [t[material.TEMPLATE_ORDER] for t in kept] == list(range(3, material.MAX_TEMPLATES + 3))


def test_image_layers_are_not_cached(scene, orogen, tmp_path):
    material, core = orogen.addon.material, orogen.core
    image = bpy.data.images.new("texture", 4, 4)
    image.filepath_raw = str(tmp_path / "texture.png")
    image.file_format = "PNG"
    image.save()
    bpy.data.images.remove(image)
    layer = core.Layer("photo", (0.5, 0.5, 0.5), -1.0, 0.3, 2.0, kind="IMAGE", image=str(tmp_path / "texture.png"))
    mat = material.build_material("Terrain", (layer, core.DEFAULT_LAYERS[2]))
    assert material.templates() == []
    assert any(n.bl_idname == "ShaderNodeTexImage" and n.image is not None for n in mat.node_tree.nodes)


def test_polygons_of_mixed_sizes_are_written_as_given(scene, mesh_module):
    """write_polygons (the water's mesh): triangles, quads and a pentagon, in order, nothing to fix."""
    co = np.array(
        [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [2, 0, 0], [2, 1, 0], [3, 0.5, 0], [2.5, 2, 0]], dtype=np.float32
    )
    faces = [(0, 1, 2, 3), (1, 4, 5, 2), (4, 6, 5), (2, 5, 7, 3, 0)]
    mesh = bpy.data.meshes.new("polygons")
    mesh_module.write_polygons(
        mesh, co, np.concatenate(faces).astype(np.uint32), np.array([len(f) for f in faces], np.uint32)
    )
    check_topology(mesh)
    assert [tuple(p.vertices) for p in mesh.polygons] == faces
    assert not any(p.use_smooth for p in mesh.polygons)  # flat, as from_pydata makes them
    got = np.empty(len(co) * 3, np.float32)
    mesh.vertices.foreach_get("co", got)
    assert np.array_equal(got.reshape(-1, 3), co)
    mesh_module.write_polygons(mesh, co[:3], np.array([0, 1, 2], np.uint32), np.array([3], np.uint32))
    assert len(mesh.vertices) == 3 and len(mesh.polygons) == 1 and len(mesh.edges) == 3  # replaced, not added
    for corners, sizes in (([0, 1, 2], [4]), ([0, 1], [2]), ([0, 1, 9], [3])):
        with pytest.raises(ValueError, match="3 or more corners"):
            mesh_module.write_polygons(mesh, co[:3], np.array(corners, np.uint32), np.array(sizes, np.uint32))
    assert len(mesh.polygons) == 1  # a refused call leaves the mesh as it was
