"""Terrain Tiles: a world of tile objects, seamless at their edges, equal to the world built whole."""

import json
import sys

import bmesh
import bpy
import numpy as np
import pytest

SETTINGS = (
    "hills.count=60; hills.radius_min=2; hills.radius_max=9; lighting.mode=hillshade; "
    "lighting.ao=true; lighting.ao_radius=6; lighting.shadows=true; lighting.altitude=30"
)
#: Tiles of 17 vertices, 2 m cells (a binary number: the whole world's width / (size - 1) gives it exactly).
TILE, CELL, HEIGHT, SEED = 17, 2.0, 12.0, 5
ATTRIBUTES = ("height", "slope", "curvature")


@pytest.fixture
def tiles_module(orogen):
    return sys.modules[orogen.__name__ + ".addon.tiles.world"]


def add_world(**kw):
    args = {
        "tiles_x": 3,
        "tiles_y": 3,
        "size": TILE,
        "width": CELL * (TILE - 1),
        "height": HEIGHT,
        "seed": SEED,
        "set": SETTINGS,
        "location": (1.0, -2.0, 0.5),
    }
    args.update(kw)
    assert bpy.ops.orogen.tiles_add(**args) == {"FINISHED"}
    return bpy.context.active_object.orogen_tile.world


def tiles_of(world):
    return {(o.orogen_tile.ty, o.orogen_tile.tx): o for o in world.objects if o.orogen_tile.is_tile}


def grid(obj):
    """Local positions ``(n, n, 3)`` and the point attributes ``{name: (n, n)}`` (Lightmap: its red channel)."""
    mesh = obj.data
    n = int(round(len(mesh.vertices) ** 0.5))
    co = np.empty(len(mesh.vertices) * 3, np.float32)
    mesh.vertices.foreach_get("co", co)
    out = {}
    for name in ATTRIBUTES:
        values = np.empty(len(mesh.vertices), np.float32)
        mesh.attributes[name].data.foreach_get("value", values)
        out[name] = values.reshape(n, n)
    rgba = np.empty(len(mesh.vertices) * 4, np.float32)
    mesh.color_attributes["Lightmap"].data.foreach_get("color", rgba)
    out["Lightmap"] = rgba.reshape(n, n, 4)[..., 0]
    return co.reshape(n, n, 3), out


def world_positions(obj):
    co, _ = grid(obj)
    m = np.array(obj.matrix_world, dtype=np.float32)
    return co @ m[:3, :3].T + m[:3, 3]


def pairs(tiles):
    """Every pair of neighbours with the slices of their shared edge: (a, b, edge of a, edge of b)."""
    for (ty, tx), a in tiles.items():
        if (ty, tx + 1) in tiles:
            yield a, tiles[(ty, tx + 1)], (slice(None), -1), (slice(None), 0)
        if (ty + 1, tx) in tiles:
            yield a, tiles[(ty + 1, tx)], (-1, slice(None)), (0, slice(None))


@pytest.mark.parametrize("azimuth", [315.0, 290.0, 200.0])
def test_tiles_share_edge_vertices_and_attributes_bit_for_bit(scene, azimuth):
    world = add_world(set=SETTINGS + f"; lighting.azimuth={azimuth}")
    tiles = tiles_of(world)
    assert sorted(tiles) == [(y, x) for y in range(3) for x in range(3)]
    assert all(len(o.data.vertices) == TILE * TILE for o in tiles.values())
    assert len({tuple(map(tuple, o.matrix_world)) for o in tiles.values()}) == 1  # one transform for all
    checked = 0
    for a, b, edge_a, edge_b in pairs(tiles):
        co_a, maps_a = grid(a)
        co_b, maps_b = grid(b)
        assert np.array_equal(co_a[edge_a], co_b[edge_b]), (a.name, b.name)
        assert np.array_equal(world_positions(a)[edge_a], world_positions(b)[edge_b])
        for name in (*ATTRIBUTES, "Lightmap"):
            assert np.array_equal(maps_a[name][edge_a], maps_b[name][edge_b]), (a.name, b.name, name)
        checked += 1
    assert checked == 12
    # Not a flat or unlit world: the lightmap has shadows and occlusion, the slopes are real.
    _, maps = grid(tiles[(1, 1)])
    assert maps["slope"].max() > 10.0 and maps["Lightmap"].min() < 0.5
    assert "9 of 9 tiles" in world.orogen_tiles.status


@pytest.mark.smoke
@pytest.mark.parametrize("azimuth", [315.0, 290.0, 200.0, 17.3, 101.7])
def test_tiles_equal_the_world_built_whole(scene, azimuth):
    settings = SETTINGS + f"; lighting.azimuth={azimuth}"
    world = add_world(set=settings)
    tiles = tiles_of(world)
    side = 3 * (TILE - 1) + 1
    bpy.ops.orogen.terrain_add(
        size=side, width=CELL * (side - 1), height=HEIGHT, seed=SEED, set=settings, location=(1.0, -2.0, 0.5)
    )
    whole = bpy.context.active_object
    co, maps = grid(whole)
    assert np.array_equal(np.array(whole.matrix_world), np.array(tiles[(0, 0)].matrix_world))
    for (ty, tx), obj in tiles.items():
        cut = (slice(ty * (TILE - 1), ty * (TILE - 1) + TILE), slice(tx * (TILE - 1), tx * (TILE - 1) + TILE))
        tile_co, tile_maps = grid(obj)
        assert np.array_equal(tile_co, co[cut]), obj.name
        # The lightmap too (hillshade x cast shadows x occlusion): the tiles' shadows trace the whole world's rays
        # (core.lighting.cast_shadows from each grown window's origin), at every azimuth.
        for name in (*ATTRIBUTES, "Lightmap"):
            assert np.array_equal(tile_maps[name], maps[name][cut]), (obj.name, name)
    # Not trivially lit: shadows fall in this world.
    assert maps["Lightmap"].min() < 0.5 and np.mean(maps["Lightmap"] < 0.3) > 0.01


def test_tiles_of_a_world_uplifted_above_height_equal_the_world_built_whole(scene, tiles_module, tmp_path):
    """Version 3 keeps the filtered heights: this island's uplift (stream-power erosion, a global filter) lifts it
    to about 1.45 x Height. The cast shadows' margin covers that relief in metres, not Height: with Height's the
    tiles' reach is 12 cells instead of 16 and one tile's low-sun shadows differ from the whole world's."""
    tile, cell, height, n = 17, 100.0, 200.0, 6
    side = n * (tile - 1) + 1
    spec = {
        "version": 3,
        "size": tile,
        "width": cell * (tile - 1),
        "height": height,
        "seed": 2,
        "generator": "hills",
        "hills": {"count": 20, "radius_min": 600.0, "radius_max": 1000.0, "island": True},
        "filters": [{"type": "erosion", "steps": 5, "dt": 2.0e4, "uplift": 1.0e-3, "auto_rates": False, "k": 1.0e-5}],
        "lighting": {"mode": "hillshade", "shadows": True, "azimuth": 200.0, "altitude": 12.0, "min_brightness": 0.0},
    }
    assert bpy.ops.orogen.tiles_add(tiles_x=n, tiles_y=n, spec=json.dumps(spec)) == {"FINISHED"}
    world = bpy.context.active_object.orogen_tile.world
    tiles = tiles_of(world)
    assert bpy.ops.orogen.terrain_add(spec=json.dumps({**spec, "size": side, "width": cell * (side - 1)})) == {
        "FINISHED"
    }
    co, maps = grid(bpy.context.active_object)
    assert maps["height"].max() > 1.4 and co[..., 2].max() > 1.4 * height  # above Height
    cache = tiles_module.world_cache(world, bpy.context)
    relief = float(co[..., 2].max() - co[..., 2].min())
    assert cache.relief == pytest.approx(relief, rel=1e-6)
    assert (
        cache.margins.reach == orogen_core(tiles_module).lighting.shadow_reach(relief, cell, 12.0, softness=2.0) == 16
    )
    for (ty, tx), obj in tiles.items():
        cut = (slice(ty * (tile - 1), ty * (tile - 1) + tile), slice(tx * (tile - 1), tx * (tile - 1) + tile))
        tile_co, tile_maps = grid(obj)
        assert np.array_equal(tile_co[..., 2], co[cut][..., 2]), obj.name
        for name in (*ATTRIBUTES, "Lightmap"):
            assert np.array_equal(tile_maps[name], maps[name][cut]), (obj.name, name)
    assert np.mean(maps["Lightmap"] < 0.05) > 0.01  # long shadows fall
    # Exported tiles hold the heights over the world's range (not clipped at Height), which land.json records.
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == tiles[(0, 0)])
    bpy.context.view_layer.objects.active = tiles[(0, 0)]
    assert bpy.ops.orogen.tiles_export(directory=str(tmp_path), name="land", png16=False, exr=False) == {"FINISHED"}
    info = json.loads((tmp_path / "land.json").read_text())
    z = co[..., 2].astype(np.float64)
    assert info["metres"]["low"] == pytest.approx(z.min(), rel=1e-6, abs=1e-9)
    assert info["metres"]["high"] == pytest.approx(z.max(), rel=1e-6)
    low, high = cache.filtered_range
    assert (low * height, high * height) == (info["metres"]["low"], info["metres"]["high"])
    # 16-bit tiles: levels over the world's relief in metres (here the same range), one scale for all tiles
    assert (info["levels"]["level_0_m"], info["levels"]["level_65535_m"]) == (low * height, high * height)
    core = orogen_core(tiles_module)
    expected = core.io.formats.quantise(maps["height"] * np.float32(height), (low * height, high * height))[0]
    levels = np.empty((side, side), np.int64)
    for ty, tx in tiles:
        raw = np.fromfile(tmp_path / f"unity/land_x{tx}_y{n - 1 - ty}.r16", dtype="<u2").reshape(tile, tile)[::-1]
        levels[ty * (tile - 1) : ty * (tile - 1) + tile, tx * (tile - 1) : tx * (tile - 1) + tile] = raw
    assert np.array_equal(levels, expected) and levels.min() == 0 and levels.max() == 65535
    above = maps["height"] > 1.0  # what a clip at Height would have flattened into one level
    assert above.sum() > 20 and len(np.unique(levels[above])) == len(np.unique(maps["height"][above]))


def orogen_core(tiles_module):
    return sys.modules[tiles_module.__name__.rpartition(".addon.")[0] + ".core"]


def live_module(tiles_module):
    """The live-update engine (the message bus delivers to it)."""
    return sys.modules[tiles_module.__name__.rpartition(".addon.")[0] + ".addon.live"]


def test_editing_the_world_regenerates_every_tile_and_only_the_tiles(scene, tiles_module):
    bpy.ops.orogen.terrain_add(size=20, seed=1)
    other = bpy.context.active_object
    other_before, _ = grid(other)
    world = add_world()
    tiles = tiles_of(world)
    before = {k: grid(o)[0] for k, o in tiles.items()}
    world.orogen_world.seed = SEED + 1
    live_module(tiles_module)._on_msgbus()  # the message bus notifies in a window's event loop: delivered by hand here
    for key, obj in tiles.items():
        assert not np.array_equal(grid(obj)[0][..., 2], before[key][..., 2]), obj.name
    assert np.array_equal(grid(other)[0], other_before)
    assert "9 of 9 tiles" in world.orogen_tiles.status
    # Still seamless after the edit.
    for a, b, edge_a, edge_b in pairs(tiles):
        assert np.array_equal(grid(a)[0][edge_a], grid(b)[0][edge_b])
    # Nothing changed: nothing is rebuilt.
    status = world.orogen_tiles.status
    live_module(tiles_module)._on_msgbus()
    assert world.orogen_tiles.status == status


def test_one_tile_rebuilds_alone(scene):
    world = add_world()
    tiles = tiles_of(world)
    target = tiles[(1, 2)]
    good, _ = grid(target)
    target.data.vertices[5].co.z += 3.0
    others = {k: grid(o)[0] for k, o in tiles.items() if o != target}
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == target)
    bpy.context.view_layer.objects.active = target
    assert bpy.ops.orogen.tile_rebuild() == {"FINISHED"}
    assert np.array_equal(grid(target)[0], good)
    assert all(np.array_equal(grid(o)[0], others[k]) for k, o in tiles.items() if o != target)
    assert "1 of 9 tiles" in world.orogen_tiles.status


def coarse_edge_check(fine, coarse, edge_f, edge_c):
    """Every vertex of the fine edge lies on the coarse edge's polyline (within float32 rounding of the
    interpolation); the coarse vertices are fine vertices, bit for bit."""
    line_f = world_positions(fine)[edge_f]
    line_c = world_positions(coarse)[edge_c]
    ratio = (len(line_f) - 1) // (len(line_c) - 1)
    assert ratio >= 2
    assert np.array_equal(line_f[::ratio], line_c)
    along = 0 if abs(line_f[-1, 0] - line_f[0, 0]) > abs(line_f[-1, 1] - line_f[0, 1]) else 1
    z = np.interp(
        line_f[:, along].astype(np.float64),
        line_c[:, along].astype(np.float64)[:: np.sign(line_c[-1, along] - line_c[0, along]).astype(int)],
        line_c[:, 2].astype(np.float64)[:: np.sign(line_c[-1, along] - line_c[0, along]).astype(int)],
    )
    assert np.abs(line_f[:, 2] - z).max() <= 1e-5 * HEIGHT
    return np.abs(line_f[:, 2] - z).max()


def test_mixed_levels_of_detail_leave_no_cracks(scene):
    world = add_world(set=SETTINGS + "; lighting.shadows=false")
    world.orogen_tiles.lod_levels = 2
    tiles = tiles_of(world)
    tiles[(0, 0)].select_set(True)
    bpy.context.view_layer.objects.active = tiles[(0, 0)]
    corner = world_positions(tiles[(0, 0)])[2, 2]
    bpy.context.scene.cursor.location = tuple(float(v) for v in corner)
    assert bpy.ops.orogen.tiles_lod() == {"FINISHED"}
    levels = {k: o.orogen_tile.level for k, o in tiles.items()}
    assert levels == {(y, x): max(y, x) for y in range(3) for x in range(3)}
    sizes = {k: int(round(len(o.data.vertices) ** 0.5)) for k, o in tiles.items()}
    assert sizes == {k: (TILE - 1) // 2**lv + 1 for k, lv in levels.items()}
    mixed = 0
    for a, b, edge_a, edge_b in pairs(tiles):
        la, lb = levels[(a.orogen_tile.ty, a.orogen_tile.tx)], levels[(b.orogen_tile.ty, b.orogen_tile.tx)]
        if la == lb:
            assert np.array_equal(world_positions(a)[edge_a], world_positions(b)[edge_b])
        elif la < lb:
            coarse_edge_check(a, b, edge_a, edge_b)
            mixed += 1
        else:
            coarse_edge_check(b, a, edge_b, edge_a)
            mixed += 1
    assert mixed == 6  # 0|1 and 1|2 along the first row and column, 1|2 beside and below the middle tile
    # A coarse tile's vertices are the full-resolution tile's: back to level 0, its every 4th vertex agrees.
    coarse = grid(tiles[(2, 2)])[0]
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == tiles[(2, 2)])
    bpy.context.view_layer.objects.active = tiles[(2, 2)]
    assert bpy.ops.orogen.tile_rebuild(level=0) == {"FINISHED"}
    assert len(tiles[(2, 2)].data.vertices) == TILE * TILE
    assert np.array_equal(grid(tiles[(2, 2)])[0][::4, ::4], coarse)


def test_a_new_tile_size_rebuilds_every_tile_at_that_size_and_bad_worlds_are_refused(scene, tiles_module):
    world = add_world(tiles_x=2, tiles_y=1)
    world.orogen_world.size = 33
    world.orogen_world.width = CELL * 32
    live_module(tiles_module)._on_msgbus()
    tiles = tiles_of(world)
    assert sorted(tiles) == [(0, 0), (0, 1)]
    assert all(len(o.data.vertices) == 33 * 33 for o in tiles.values())
    ((a, b, edge_a, edge_b),) = pairs(tiles)
    assert np.array_equal(grid(a)[0][edge_a], grid(b)[0][edge_b])
    assert grid(b)[0][0, -1, 0] - grid(a)[0][0, 0, 0] == CELL * 64  # two tiles of 32 cells
    with pytest.raises(RuntimeError, match="Size Y"):
        bpy.ops.orogen.tiles_add(size=17, size_y=9)


def test_a_tiles_collection_exports_engine_tiles_with_shared_edges(scene, orogen, tmp_path):
    """Unreal 16-bit PNG and EXR tiles named _x{X}_y{Y} from the north, Unity RAW tiles from the south; every
    file holds its tile's full-resolution heights (whatever its level of detail) and neighbours share edges."""
    from PIL import Image

    world = add_world(tiles_x=3, tiles_y=2, set=SETTINGS + "; lighting.azimuth=290")
    tiles = tiles_of(world)
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == tiles[(1, 2)])
    bpy.context.view_layer.objects.active = tiles[(1, 2)]
    assert bpy.ops.orogen.tile_rebuild(level=1) == {"FINISHED"}  # a coarse tile still exports at full resolution
    fine = {(0, 0), (0, 1), (1, 0)}  # level 0, and no coarser neighbour snapping their edges
    assert bpy.ops.orogen.tiles_export(directory=str(tmp_path), name="land") == {"FINISHED"}
    names = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert names == sorted(
        ["land.json"]
        + [
            f"{folder}/land_x{x}_y{y}{ext}{sidecar}"
            for folder, ext in (("unreal", ".png"), ("unity", ".r16"), ("exr", ".exr"))
            for x in range(3)
            for y in range(2)
            for sidecar in ("", ".json")  # each tile with its own sidecar (its place, size and metres)
        ]
    )
    info = json.loads((tmp_path / "land.json").read_text())  # heights within [0, 1]: 0 and 1 are 0 m and Height
    assert info["metres"]["low"] == 0.0 and info["metres"]["high"] == HEIGHT and info["spec"]["seed"] == SEED
    relief = [info["levels"]["level_0_m"], info["levels"]["level_65535_m"]]
    assert 0.0 <= relief[0] < relief[1] <= HEIGHT  # the world's relief in metres (levels 0 and 65535 below)
    png, exr = {}, {}
    for (ty, tx), obj in tiles.items():
        png[ty, tx] = np.asarray(Image.open(tmp_path / f"unreal/land_x{tx}_y{ty}.png")).astype(np.int64)
        raw = np.fromfile(tmp_path / f"unity/land_x{tx}_y{1 - ty}.r16", dtype="<u2").reshape(TILE, TILE)
        assert np.array_equal(raw[::-1], png[ty, tx]), obj.name  # Unity's rows run from the south
        # Read back with Blender's own loader (no OpenEXR module in the Blender test environments); Blender's
        # writer stores the grey heights as equal R, G, B (as a terrain's EXR export does).
        rgb = orogen.addon.io.heightmaps.read_image(str(tmp_path / f"exr/land_x{tx}_y{ty}.exr"))[..., :3]
        assert rgb.shape == (TILE, TILE, 3) and rgb.dtype == np.float32
        assert np.array_equal(rgb[..., 0], rgb[..., 1]) and np.array_equal(rgb[..., 0], rgb[..., 2])
        exr[ty, tx] = rgb[..., 0]
        # 16-bit: levels over the whole world's relief in metres, the same scale in every tile's sidecar
        side = json.loads((tmp_path / f"unreal/land_x{tx}_y{ty}.png.json").read_text())
        assert side["height_range_m"] == relief and side["levels"] == {
            k: v for k, v in info["levels"].items() if k != "formula"
        }
        metres = exr[ty, tx] * np.float32(HEIGHT)
        assert np.array_equal(png[ty, tx], orogen.core.io.formats.quantise(metres, tuple(relief))[0])
        if (ty, tx) in fine:  # the mesh's own heights, exactly
            assert np.array_equal(exr[ty, tx], grid(obj)[1]["height"]), obj.name
    for ty, tx in tiles:
        if (ty, tx + 1) in tiles:
            assert np.array_equal(png[ty, tx][:, -1], png[ty, tx + 1][:, 0])
            assert np.array_equal(exr[ty, tx][:, -1], exr[ty, tx + 1][:, 0])
        if (ty + 1, tx) in tiles:
            assert np.array_equal(png[ty, tx][-1], png[ty + 1, tx][0])
    assert png[0, 0].min() == 0 or png[0, 0].max() > 1000  # real heights, not an empty image
    every = np.stack(list(png.values()))
    assert every.min() == 0 and every.max() == 65535  # the world's lowest and highest metre
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left


def test_a_tiles_export_that_fails_reports_and_leaves_no_folders(scene, tmp_path):
    """A name too long for a file, or Blender's image writer failing: a report, and no folder or file made."""
    add_world(tiles_x=2, tiles_y=1, set=SETTINGS)
    with pytest.raises(RuntimeError, match="at most 200 bytes"):
        bpy.ops.orogen.tiles_export(directory=str(tmp_path), name="x" * 300)
    out = tmp_path / "ro"
    out.mkdir()
    (out / "exr").write_text("a file where the EXR folder would go")  # the writer cannot make its folder
    with pytest.raises(RuntimeError, match="Tiles not exported"):
        bpy.ops.orogen.tiles_export(directory=str(out), name="land")
    assert sorted(p.name for p in out.iterdir()) == ["exr"] and (out / "exr").is_file()
    assert not list(tmp_path.glob("*/unreal")) and not (tmp_path / "unreal").exists()


# --- water -------------------------------------------------------------------------------------------------
WATER_LEVEL = 5.0


def world_water(world):
    waters = [o for o in bpy.data.objects if o.get("orogen_water")]
    assert len(waters) <= 1
    return waters[0] if waters else None


def border(tiles, n_tiles=3):
    """The world's border vertices (tiles' frame) and the world's bounds ``(x0, x1, y0, y1)``."""
    points = []
    for (ty, tx), obj in tiles.items():
        co, _ = grid(obj)
        if ty == 0:
            points.append(co[0])
        if ty == n_tiles - 1:
            points.append(co[-1])
        if tx == 0:
            points.append(co[:, 0])
        if tx == n_tiles - 1:
            points.append(co[:, -1])
    points = np.unique(np.concatenate(points), axis=0)
    return points, (points[:, 0].min(), points[:, 0].max(), points[:, 1].min(), points[:, 1].max())


def test_a_world_with_water_has_one_water_object_over_the_whole_world_walled_only_at_its_edge(scene, orogen):
    world = add_world(set=SETTINGS + f"; material.water=true; material.water_level={WATER_LEVEL}")
    tiles = tiles_of(world)
    sea = world_water(world)
    assert sea is not None and sea.name in world.objects and not sea.orogen_tile.is_tile
    assert sea["orogen_owner"] == world and sea.parent == tiles[(0, 0)]
    assert sea.matrix_world == tiles[(0, 0)].matrix_world  # the tiles' frame
    co = positions = np.empty(len(sea.data.vertices) * 3, np.float32)
    sea.data.vertices.foreach_get("co", positions)
    co = positions.reshape(-1, 3)
    edge, (x0, x1, y0, y1) = border(tiles)
    # The top: the water level over the world's bounds (not one tile's).
    assert co[:, 2].max() == pytest.approx(WATER_LEVEL)
    assert (co[:, 0].min(), co[:, 0].max(), co[:, 1].min(), co[:, 1].max()) == (x0, x1, y0, y1)
    assert x1 - x0 == pytest.approx(3 * CELL * (TILE - 1))
    # Every vertex but the top's centre lies on the world's edge: no wall stands between two tiles.
    ring = co[:-1]
    on_edge = (ring[:, 0] == x0) | (ring[:, 0] == x1) | (ring[:, 1] == y0) | (ring[:, 1] == y1)
    assert on_edge.all()
    # The lower loop follows the border's own vertices, capped at the level (the tiles close the volume).
    n = len(ring) // 2
    assert n == 4 * 3 * (TILE - 1)  # every border vertex once
    low = ring[n:]
    expected = edge.copy()
    expected[:, 2] = np.minimum(expected[:, 2], WATER_LEVEL)
    assert np.array_equal(np.unique(low, axis=0), np.unique(expected, axis=0))
    assert (edge[:, 2] < WATER_LEVEL).any() and (edge[:, 2] > WATER_LEVEL).any()  # the test sees both cases
    # A water-level edit moves it; the tiles' levels of detail reshape its walls; water off removes it all.
    before = {k: grid(o)[0] for k, o in tiles.items()}
    world.orogen_world.material.water_level = WATER_LEVEL + 1.0
    sys.modules[orogen.__name__ + ".addon.live"]._on_msgbus()
    assert world_water(world) == sea and world.orogen_tiles.status == "Water updated"
    assert all(np.array_equal(grid(o)[0], before[k]) for k, o in tiles.items())  # the tiles stay
    sea_co = np.empty(len(sea.data.vertices) * 3, np.float32)
    sea.data.vertices.foreach_get("co", sea_co)
    assert sea_co.reshape(-1, 3)[:, 2].max() == pytest.approx(WATER_LEVEL + 1.0)
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == tiles[(0, 1)])
    bpy.context.view_layer.objects.active = tiles[(0, 1)]
    assert bpy.ops.orogen.tile_rebuild(level=2) == {"FINISHED"}
    assert len(sea.data.vertices) == 2 * (4 * 3 * (TILE - 1) - (TILE - 1) + (TILE - 1) // 4) + 1
    mesh, material = sea.data.name, sea.data.materials[0].name
    world.orogen_world.material.water = False
    sys.modules[orogen.__name__ + ".addon.live"]._on_msgbus()
    assert world_water(world) is None and mesh not in bpy.data.meshes and material not in bpy.data.materials
    assert len(tiles_of(world)) == 9


def test_tiles_export_ignores_the_water(scene, tmp_path):
    world = add_world(set=SETTINGS + f"; material.water=true; material.water_level={WATER_LEVEL}")
    assert world_water(world) is not None
    tiles_of(world)[(0, 0)].select_set(True)
    bpy.context.view_layer.objects.active = tiles_of(world)[(0, 0)]
    assert bpy.ops.orogen.tiles_export(directory=str(tmp_path), name="w") == {"FINISHED"}
    assert len(list((tmp_path / "unreal").glob("w_x*_y*.png"))) == 9


def water_co(sea):
    co = np.empty(len(sea.data.vertices) * 3, np.float32)
    sea.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


@pytest.mark.parametrize("fault", ["deleted", "not a grid"])
def test_water_that_cannot_follow_a_broken_border_says_so_and_stays_as_it_was(scene, tiles_module, fault):
    """A border tile deleted, or its mesh no longer a grid: the world's outer edge cannot be read, so the water
    stays as it was, and the status says the water was not updated (not "Water updated") until a regenerate
    makes the border whole again; water off still removes it."""
    world = add_world(set=SETTINGS + f"; material.water=true; material.water_level={WATER_LEVEL}")
    tiles = tiles_of(world)
    sea = world_water(world)
    before = water_co(sea)
    if fault == "deleted":
        bpy.data.objects.remove(tiles[(0, 1)])
    else:
        mesh = tiles[(0, 1)].data
        bm = bmesh.new()  # one vertex fewer: no longer a square grid
        bm.from_mesh(mesh)
        bm.verts.ensure_lookup_table()
        bmesh.ops.delete(bm, geom=[bm.verts[TILE + 1]], context="VERTS")
        bm.to_mesh(mesh)
        bm.free()
    world.orogen_world.material.water_level = WATER_LEVEL + 1.0
    live_module(tiles_module)._on_msgbus()
    status = world.orogen_tiles.status
    assert status.startswith("Water not updated") and "x1 y0" in status, status
    assert world_water(world) == sea and np.array_equal(water_co(sea), before)
    target = tiles[(1, 1)]
    target.select_set(True)
    bpy.context.view_layer.objects.active = target
    assert bpy.ops.orogen.tiles_regenerate() == {"FINISHED"}
    if fault == "deleted":
        assert "water not updated" in world.orogen_tiles.status and np.array_equal(water_co(sea), before)
    else:  # the tile is a grid again: the water follows
        assert "water" not in world.orogen_tiles.status
        assert water_co(sea)[:, 2].max() == pytest.approx(WATER_LEVEL + 1.0)
    world.orogen_world.material.water = False
    live_module(tiles_module)._on_msgbus()
    assert world_water(world) is None


def test_an_inner_tile_deleted_leaves_the_water_following_the_level(scene, tiles_module):
    world = add_world(set=SETTINGS + f"; material.water=true; material.water_level={WATER_LEVEL}")
    bpy.data.objects.remove(tiles_of(world)[(1, 1)])
    world.orogen_world.material.water_level = WATER_LEVEL + 1.0
    live_module(tiles_module)._on_msgbus()
    assert world.orogen_tiles.status == "Water updated"
    assert water_co(world_water(world))[:, 2].max() == pytest.approx(WATER_LEVEL + 1.0)


@pytest.mark.parametrize("where", ["sync_tile_water", "build_tile"])
def test_add_terrain_tiles_that_fails_leaves_nothing_behind(scene, tiles_module, monkeypatch, where):
    """A fault after the tiles and the water are built (in the water's sync), or in the first tile's build (the
    tiles' material made, on no mesh yet): no object, mesh, collection or material of the world stays (the
    tiles' material included); the hidden material template may."""

    def data():
        return {
            kind: sorted(i.name for i in getattr(bpy.data, kind) if not i.name.startswith(".Orogen Template"))
            for kind in ("objects", "meshes", "materials", "collections")
        }

    before = data()
    original = getattr(tiles_module, where)

    def failing(*args):
        if where == "sync_tile_water":
            original(*args)
            assert world_water(args[0]) is not None
        raise RuntimeError("injected fault")

    monkeypatch.setattr(tiles_module, where, failing)
    with pytest.raises(RuntimeError, match="Tiles not added: injected fault"):
        bpy.ops.orogen.tiles_add(
            tiles_x=2,
            tiles_y=1,
            size=TILE,
            width=CELL * (TILE - 1),
            height=HEIGHT,
            seed=SEED,
            set=SETTINGS + f"; material.water=true; material.water_level={WATER_LEVEL}",
        )
    assert data() == before
