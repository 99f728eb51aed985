"""The arithmetic of a world of tile objects (core.world): the tile naming rule, levels of detail, snapped edges,
positions in the world's frame and a WorldCache's tiles equal to the same cells of the world built whole."""

import numpy as np
import pytest

from core.spec import TerrainSpec
from core.window import Window
from core.world import (
    TILE_EDGES,
    TILE_FILES,
    TileGrid,
    WorldCache,
    max_level,
    snap_edges,
    snap_line,
    spec_margins,
    tile_file,
    tile_levels,
    tile_positions,
    world_grid,
    world_recipe,
)

TILE, CELL, HEIGHT = 17, 2.0, 12.0
LIGHT = {"mode": "hillshade", "ao": True, "ao_radius": 3, "shadows": True, "altitude": 30.0}


def spec(**kw):
    data = {
        "version": 2,
        "size": TILE,
        "width": CELL * (TILE - 1),
        "height": HEIGHT,
        "seed": 5,
        "generator": "hills",
        "hills": {"count": 30, "radius_min": 2.0, "radius_max": 9.0},
        "filters": [],
        "lighting": LIGHT,
    }
    data.update(kw)
    return TerrainSpec.from_dict(data)


def test_tile_files_count_x_from_the_west_and_y_from_the_north_but_unity_from_the_south():
    assert set(TILE_FILES) == {"png", "r16", "exr"}
    assert tile_file("png", "w", ty=0, tx=2, tiles_y=3) == "unreal/w_x2_y0.png"
    assert tile_file("exr", "w", ty=1, tx=0, tiles_y=3) == "exr/w_x0_y1.exr"
    assert tile_file("r16", "w", ty=0, tx=2, tiles_y=3) == "unity/w_x2_y2.r16"
    assert tile_file("r16", "w", ty=2, tx=0, tiles_y=3) == "unity/w_x0_y0.r16"
    with pytest.raises(KeyError):
        tile_file("tga", "w", ty=0, tx=0, tiles_y=1)


def test_world_grid_is_square_tiles_sharing_edges_and_refuses_oblong_tiles():
    grid = world_grid(spec(), 2, 3)
    assert grid.shape == (2 * 16 + 1, 3 * 16 + 1) and grid.tile == TILE and grid.tiles == (2, 3)
    with pytest.raises(ValueError, match="tiles are square"):
        world_grid(spec(size_y=9), 2, 2)


def test_max_level_keeps_every_2_to_the_k_th_vertex_and_at_least_two():
    assert [max_level(n) for n in (2, 3, 5, 9, 17, 13, 257)] == [0, 1, 2, 3, 4, 2, 8]


def test_snap_line_puts_the_values_between_coarse_samples_on_the_straight_line():
    values = np.array([0.0, 5.0, 2.0, -1.0, 4.0], np.float32)
    assert np.array_equal(snap_line(values, 2), np.array([0.0, 1.0, 2.0, 3.0, 4.0], np.float32))
    assert np.array_equal(snap_line(values, 4), np.array([0.0, 1.0, 2.0, 3.0, 4.0], np.float32))
    assert np.array_equal(snap_line(values, 1), values)


def test_snap_edges_moves_only_the_edges_toward_coarser_neighbours():
    rng = np.random.default_rng(1)
    heights = rng.random((5, 5)).astype(np.float32)
    co = np.zeros((5, 5, 3), np.float32)
    co[..., 2] = heights * 2.0
    before_h, before_co = heights.copy(), co.copy()
    snapped = snap_edges(co, heights, level=0, neighbour_levels={"north": 1, "east": 0, "west": 2})
    assert snapped == ["north", "west"]
    assert np.array_equal(heights[0], snap_line(before_h[0], 2))
    assert np.array_equal(heights[:, 0][1:], snap_line(before_h[:, 0], 4)[1:])
    assert np.array_equal(heights[1:, 1:], before_h[1:, 1:]) and np.array_equal(co[1:, 1:], before_co[1:, 1:])
    assert set(TILE_EDGES) == {"north", "south", "west", "east"}


def test_tile_positions_are_the_world_frame_so_shared_vertices_agree():
    grid = TileGrid((33, 33), TILE)
    whole = np.linspace(0.0, 1.0, 33 * 33, dtype=np.float32).reshape(33, 33)
    full = tile_positions(grid, Window(0, 0, 33, 33), whole, height=HEIGHT, cell=CELL, step=1)
    assert full[0, 0, 0] == -16 * CELL and full[0, 0, 1] == 16 * CELL and full[16, 16, :2].tolist() == [0.0, 0.0]
    for ty, tx in grid.indices():
        w = grid.window(ty, tx)
        part = tile_positions(grid, w, whole[w.row : w.row + 17, w.col : w.col + 17], height=HEIGHT, cell=CELL, step=1)
        assert np.array_equal(part, full[w.row : w.row + 17, w.col : w.col + 17])
    coarse = tile_positions(grid, Window(0, 0, 17, 17), whole[0:17:4, 0:17:4], height=HEIGHT, cell=CELL, step=4)
    assert np.array_equal(coarse, full[0:17:4, 0:17:4])


def test_tile_levels_ring_out_from_the_tile_under_the_point():
    grid = TileGrid((4 * 16 + 1, 3 * 16 + 1), TILE)
    levels = tile_levels(grid, grid.indices(), x=-CELL * 20, y=CELL * 30, cell=CELL, top=2)
    assert levels[(0, 0)] == 0 and levels[(1, 1)] == 1 and levels[(3, 2)] == 2 and levels[(2, 0)] == 2
    clamped = tile_levels(grid, grid.indices(), x=1e6, y=-1e6, cell=CELL, top=9)  # beyond the south-east corner
    assert clamped[(3, 2)] == 0 and clamped[(0, 0)] == 3


def test_a_world_cache_tile_equals_the_same_cells_of_the_world_built_whole():
    s = spec()
    grid = world_grid(s, 2, 2)
    cache = WorldCache(s, grid)
    assert cache.margins == spec_margins(s, None, HEIGHT) and cache.margin == cache.margins.widest
    whole = world_recipe(s, grid.shape).evaluate()
    maps = s.replace(width=(grid.shape[1] - 1) * s.cell_size).bake(whole)
    for ty, tx in grid.indices():
        w = grid.window(ty, tx)
        cut = (slice(w.row, w.row + TILE), slice(w.col, w.col + TILE))
        t = cache.tile(ty, tx)
        assert np.array_equal(t.heights, whole[cut])
        assert np.array_equal(t.maps["slope"], maps.slope[cut]) and np.array_equal(t.lightmap, maps.lightmap[cut])
        assert t.positions.shape == (TILE, TILE, 3)
    coarse = cache.tile(1, 0, 2)
    assert np.array_equal(coarse.heights, cache.tile(1, 0).heights[::4, ::4])
    again = WorldCache(s, grid, ranges=cache.ranges)
    assert np.array_equal(again.tile(0, 1).heights, cache.tile(0, 1).heights)
