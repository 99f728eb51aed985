"""The carve filter in Blender: a curve object carves the terrain, and moving it moves the channel."""

import bpy
import numpy as np
import pytest
from mathutils import Matrix

WIDTH, SIZE, HEIGHT = 100.0, 65, 20.0  # cells of 1.5625 m


def bezier(name: str, points, *, kind: str = "BEZIER", cyclic: bool = False) -> bpy.types.Object:
    """A curve object of one spline through ``points`` (world metres), linked to the scene."""
    data = bpy.data.curves.new(name, "CURVE")
    data.dimensions = "3D"
    spline = data.splines.new(kind)
    if kind == "BEZIER":
        spline.bezier_points.add(len(points) - 1)
        for bp, co in zip(spline.bezier_points, points, strict=True):
            bp.co = co
            bp.handle_left_type = bp.handle_right_type = "VECTOR"  # straight segments: exact positions
    else:
        spline.points.add(len(points) - 1)
        for p, co in zip(spline.points, points, strict=True):
            p.co = (*co, 1.0)
    spline.use_cyclic_u = cyclic
    obj = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def heights(obj) -> np.ndarray:
    """The terrain's vertex Z (metres, object space) as (rows, cols), row 0 north."""
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(SIZE, SIZE, 3)[..., 2].copy()


def rows_at(y: float) -> int:
    return int(round((WIDTH / 2 - y) / (WIDTH / (SIZE - 1))))


def carve_terrain(orogen, **carve):
    core = orogen.core
    spec = core.spec.TerrainSpec(
        size=SIZE,
        width=WIDTH,
        height=HEIGHT,
        seed=3,
        generator="hills",
        params={"count": 40},
        filters=(("carve", {"curve": "River", "width": 8.0, "depth": 3.0, "bank": 4.0, **carve}),),
    )
    assert bpy.ops.orogen.terrain_add(spec=spec.to_json()) == {"FINISHED"}
    return bpy.context.active_object


def plain_heights(orogen) -> np.ndarray:
    spec = orogen.core.spec.TerrainSpec(
        size=SIZE, width=WIDTH, height=HEIGHT, seed=3, generator="hills", params={"count": 40}, filters=()
    )
    return spec.heightmap() * np.float32(HEIGHT)


def test_a_curve_carves_a_river_and_moving_it_moves_the_channel(scene, orogen):
    river = bezier("River", [(-70.0, 0.0, 0.0), (0.0, 0.0, 0.0), (70.0, 0.0, 0.0)])
    terrain = carve_terrain(orogen)
    plain = plain_heights(orogen)
    carved = heights(terrain)
    r0 = rows_at(0.0)
    assert (carved[r0] <= plain[r0] - 3.0 + 1e-4).all()  # at least the depth below the terrain along the curve
    far = [r for r in range(SIZE) if abs(WIDTH / 2 - r * WIDTH / (SIZE - 1)) > 8.0 / 2 + 4.0 + 1e-6]
    assert np.array_equal(carved[far], plain[far])
    assert (np.diff(carved[r0]) <= 1e-5).all()  # descends from the first point (west) to the last (east)

    # a point of the curve moved (as in Edit Mode), then Regenerate: the channel follows
    for bp in river.data.splines[0].bezier_points:
        bp.co.y += 12.5  # 8 cells: the curve runs along a row of vertices again
        bp.handle_left.y += 12.5
        bp.handle_right.y += 12.5
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    moved = heights(terrain)
    r12 = rows_at(12.5)
    # (the bed follows the terrain sampled every half cell along the curve: a few centimetres between cells)
    assert np.array_equal(moved[r0], plain[r0]) and (moved[r12] <= plain[r12] - 3.0 + 0.05).all()

    # the curve object moved, and the terrain too: the curve is read in world metres, in the terrain's frame
    river.location = (0.0, -25.0, 0.0)  # the channel at world y = -12.5
    terrain.location = (0.0, 6.25, 0.0)  # terrain-local y = -18.75
    bpy.context.view_layer.update()
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    local = heights(terrain)
    r18 = rows_at(-18.75)
    assert (local[r18] <= plain[r18] - 3.0 + 0.05).all() and np.array_equal(local[r12], plain[r12])


def test_the_panel_names_the_curve_and_undo_takes_the_carve_back(scene, orogen):
    bezier("River", [(-70.0, 12.5, 0.0), (70.0, 12.5, 0.0)])
    assert bpy.ops.orogen.terrain_add(size=SIZE, width=WIDTH, height=HEIGHT, seed=3, set="count=40") == {"FINISHED"}
    terrain = bpy.context.active_object
    settings = terrain.orogen
    while settings.filters:  # the default stack aside: the carve alone
        bpy.ops.orogen.filter_remove()
    bpy.ops.ed.undo_push(message="start")
    before = heights(terrain)
    assert bpy.ops.orogen.filter_add(type="carve") == {"FINISHED"}
    with pytest.raises(RuntimeError, match=r"carve\.curve: names no object"):  # added with no curve named yet
        bpy.ops.orogen.terrain_regenerate()
    assert np.array_equal(heights(terrain), before)
    item = settings.filters[0]
    item.carve.curve = "River"  # the panel's object search writes the name
    item.carve.mode = "road"
    item.carve.width = 6.0
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    bpy.ops.ed.undo_push(message="carve")
    road = heights(terrain)
    assert not np.array_equal(road, before)
    level = rows_at(12.5)
    assert np.allclose(road[level], 0.0, atol=1e-4)  # the road's bed at the curve's Z (0 m)
    name = terrain.name
    bpy.ops.ed.undo()
    terrain = bpy.data.objects[name]
    assert np.array_equal(heights(terrain), before) and len(terrain.orogen.filters) == 0
    bpy.ops.ed.redo()
    terrain = bpy.data.objects[name]
    assert np.array_equal(heights(terrain), road) and terrain.orogen.filters[0].carve.curve == "River"


def test_a_non_curve_or_an_empty_curve_is_refused_by_name(scene, orogen):
    bezier("River", [(-70.0, 0.0, 0.0), (70.0, 0.0, 0.0)])
    terrain = carve_terrain(orogen)
    before = heights(terrain)
    terrain.orogen.filters[0].carve.curve = terrain.name  # a mesh
    with pytest.raises(RuntimeError, match=r"carve\.curve: object 'Terrain[^']*' is a mesh, not a curve"):
        bpy.ops.orogen.terrain_regenerate()
    empty = bpy.data.objects.new("Empty Curve", bpy.data.curves.new("Empty Curve", "CURVE"))
    scene.collection.objects.link(empty)
    terrain.orogen.filters[0].carve.curve = empty.name
    with pytest.raises(RuntimeError, match=r"carve\.curve: curve 'Empty Curve' has no spline of two points"):
        bpy.ops.orogen.terrain_regenerate()
    terrain.orogen.filters[0].carve.curve = "Nowhere"
    with pytest.raises(RuntimeError, match=r"carve\.curve: no object named 'Nowhere'"):
        bpy.ops.orogen.terrain_regenerate()
    assert np.array_equal(heights(terrain), before)


def test_poly_nurbs_and_cyclic_splines_are_read_in_the_terrains_frame(scene, orogen):
    reader = orogen.addon.inputs.read_curve
    depsgraph = bpy.context.evaluated_depsgraph_get()
    poly = bezier("Poly", [(0.0, 0.0, 1.0), (10.0, 0.0, 2.0), (10.0, 10.0, 3.0)], kind="POLY", cyclic=True)
    poly.location = (5.0, 0.0, 0.0)
    bpy.context.view_layer.update()
    frame = Matrix.Translation((0.0, 0.0, 1.0))  # a terrain 1 m up
    got = reader(poly, frame, bpy.context.evaluated_depsgraph_get())
    assert got.cyclic == (True,)
    assert np.allclose(got.splines[0], [[5, 0, 0], [15, 0, 1], [15, 10, 2]])
    nurbs = bezier("Nurbs", [(0.0, 0.0, 0.0), (3.0, 0.0, 0.0), (6.0, 3.0, 0.0), (9.0, 3.0, 0.0)], kind="NURBS")
    nurbs.data.splines[0].use_endpoint_u = True
    depsgraph = bpy.context.evaluated_depsgraph_get()
    got = reader(nurbs, Matrix.Identity(4), depsgraph)
    points = got.splines[0]
    assert len(points) > 4 and np.allclose(points[0], [0, 0, 0]) and np.allclose(points[-1], [9, 3, 0], atol=1e-5)
    arc = bezier("Arc", [(0.0, 0.0, 0.0), (10.0, 0.0, 0.0)])
    for bp in arc.data.splines[0].bezier_points:
        bp.handle_left_type = bp.handle_right_type = "AUTO"
    arc.data.bevel_depth = 0.5  # bevelled: read from its splines, at the curve's resolution
    depsgraph = bpy.context.evaluated_depsgraph_get()
    got = reader(arc, Matrix.Identity(4), depsgraph)
    assert len(got.splines[0]) == arc.data.splines[0].resolution_u + 1
    assert np.allclose(got.splines[0][[0, -1]], [[0, 0, 0], [10, 0, 0]], atol=1e-6)


class Recorder:
    """Stands in for a panel layout: records each setting drawn, how, and whether it is drawn active."""

    def __init__(self, drawn):
        self.drawn, self.active = drawn, True

    def prop(self, data, name, **_kw):
        self.drawn[name] = ("prop", self.active)

    def prop_search(self, data, name, search_data, search_name, **_kw):
        self.drawn[name] = (f"search {search_name}", self.active)

    def __getattr__(self, _name):
        return lambda *a, **k: Recorder(self.drawn)


def test_the_panel_draws_the_curve_as_an_object_search_and_greys_the_other_modes_settings(scene, orogen):
    bezier("River", [(-70.0, 0.0, 0.0), (70.0, 0.0, 0.0)])
    terrain = carve_terrain(orogen)
    group = terrain.orogen.filters[0].carve
    params = orogen.core.params.FILTERS["carve"].params
    river_only, road_only = {"depth", "profile", "bed", "bank"}, {"shoulder", "cut_angle", "fill_angle", "reach"}
    for mode, greyed in (("river", road_only | {"smoothing"}), ("road", river_only)):
        group.mode = mode
        drawn = {}
        orogen.addon.ui.draw.draw_params(Recorder(drawn), group, params)
        assert drawn["curve"] == ("search objects", True)
        assert {name for name, (_how, active) in drawn.items() if not active} == greyed


def test_set_names_the_curve_of_a_carve_in_the_stack(scene, orogen):
    bezier("Road", [(-70.0, -12.5, 2.0), (70.0, -12.5, 2.0)])
    spec = orogen.core.spec.TerrainSpec(size=SIZE, width=WIDTH, height=HEIGHT, seed=3, filters=(("carve", {}),))
    assert bpy.ops.orogen.terrain_add(spec=spec.to_json(), set="carve.curve=Road; carve.mode=road") == {"FINISHED"}
    terrain = bpy.context.active_object
    assert terrain.orogen.filters[0].carve.curve == "Road" and terrain.orogen.filters[0].carve.mode == "road"
    assert np.allclose(heights(terrain)[rows_at(-12.5)], 2.0, atol=1e-4)  # the road's bed at the curve's 2 m


def test_a_tile_world_follows_its_carve_curve_live(scene, orogen):
    curve = bezier("River", [(-40.0, -5.0, 0.0), (0.0, 3.0, 0.0), (40.0, 10.0, 0.0)])
    spec = orogen.core.TerrainSpec(
        size=17,
        width=16.0,
        height=10.0,
        seed=2,
        generator="fractal",
        filters=(("carve", {"curve": "River", "width": 3.0, "mode": "road"}),),
    )
    assert bpy.ops.orogen.tiles_add(tiles_x=3, tiles_y=2, spec=spec.to_json()) == {"FINISHED"}
    world = bpy.context.active_object.orogen_tile.world
    tiles = sorted((o for o in world.all_objects if o.orogen_tile.is_tile), key=lambda o: o.name)
    assert world.orogen_tiles.live_update and len(tiles) == 6

    def zs():
        out = []
        for o in tiles:
            co = np.empty(len(o.data.vertices) * 3, dtype=np.float32)
            o.data.vertices.foreach_get("co", co)
            out.append(co[2::3].copy())
        return out

    before = zs()
    bpy.context.view_layer.update()  # nothing changed: no rebuild
    assert all(np.array_equal(a, b) for a, b in zip(before, zs(), strict=True))
    curve.location.y = 4.0
    bpy.context.view_layer.update()  # the handler: the world's live update reads the curve again
    after = zs()
    assert sum(not np.array_equal(a, b) for a, b in zip(before, after, strict=True)) >= 2
