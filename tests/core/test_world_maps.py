"""The maps of a world's tiles (core.world.window_maps over core.world.map_margins) equal the whole world's:
slope, curvature, hillshade, cast shadows and ambient occlusion, for any sun."""

import math

import numpy as np
import pytest

from core.spec import TerrainSpec
from core.window import Window, crop
from core.world import MAX_SHADOW_TILES, Margins, TileGrid, grow, map_margins, window_maps, world_recipe

#: Tiles of 17 vertices at 2 m (a binary number: the whole world's width / (cols - 1) is the same float).
TILE, CELL, HEIGHT = 17, 2.0, 12.0
LIGHT = {
    "mode": "hillshade",
    "ao": True,
    "ao_radius": 6,
    "shadows": True,
    "altitude": 30.0,
    "min_brightness": 0.2,
    "max_brightness": 0.9,
}


def world(tiles=4, generator="hills", seed=5):
    spec = TerrainSpec.from_dict(
        {
            "version": 2,
            "size": TILE,
            "width": CELL * (TILE - 1),
            "height": HEIGHT,
            "seed": seed,
            "generator": generator,
            "hills": {"count": 60, "radius_min": 2.0, "radius_max": 9.0},
            "filters": [],
        }
    )
    grid = TileGrid((tiles * (TILE - 1) + 1,) * 2, TILE)
    recipe = world_recipe(spec, grid.shape)
    return spec, grid, recipe, recipe.world_ranges()


def tile_maps_equal_whole(light, sun=None):
    spec, grid, recipe, ranges = world()
    whole = recipe.evaluate()
    expected = spec.replace(width=(grid.shape[1] - 1) * spec.cell_size, lighting=light).bake(whole, sun)
    margins = map_margins(light, HEIGHT, spec.cell_size, tile=TILE, sun=sun)
    everything = Window(0, 0, *grid.shape)
    worst = 0.0
    for ty, tx in grid.indices():
        window = grid.window(ty, tx)
        outer = grow(grid.shape, window, margins)
        maps = window_maps(
            recipe.evaluate(outer, ranges), outer, HEIGHT, cell_size=spec.cell_size, lighting=light, sun=sun
        )
        for name in ("lightmap", "slope", "curvature"):
            got, want = getattr(maps, name), getattr(expected, name)
            if want is None:
                assert got is None
                continue
            worst = max(worst, float(np.abs(crop(got, outer, window) - crop(want, everything, window)).max()))
    return worst, expected, margins


@pytest.mark.parametrize("azimuth", [315.0, 290.0, 200.0, 17.3, 101.7, 243.9, 0.0, 90.0])
def test_four_by_four_tiles_lighting_maps_equal_the_whole_world(azimuth):
    light = {**LIGHT, "azimuth": azimuth}
    worst, expected, margins = tile_maps_equal_whole(light)
    assert worst == 0.0  # bit for bit (the issue asks for 1e-6)
    assert not margins.cut and margins.reach == math.ceil(HEIGHT / (math.tan(math.radians(29.125)) * CELL)) + 1
    light_map = expected.lightmap
    assert light_map.min() == pytest.approx(0.2) and light_map.max() <= 0.9  # shadowed cells, and lit ones
    assert np.mean(light_map <= 0.2 + 1e-6) > 0.01


@pytest.mark.parametrize(
    "light",
    [
        {"mode": "multidirectional", "ao": True, "ao_radius": 5, "shadows": True, "altitude": 40.0},
        {"mode": "slope", "azimuth": 130.0},
        {"mode": "hillshade", "shadows": True, "shadow_softness": 8.0, "altitude": 20.0, "azimuth": 157.0},
        {"enabled": False},
    ],
)
def test_every_lighting_mode_is_seamless(light):
    worst, _, _ = tile_maps_equal_whole(light)
    assert worst == 0.0


def test_the_scene_sun_sets_the_margin():
    worst, _, margins = tile_maps_equal_whole(LIGHT, sun=(222.0, 38.0))
    assert worst == 0.0
    assert (margins.north, margins.west) == (6, margins.reach) and margins.south == margins.reach


def test_margins_follow_the_relief_and_the_sun():
    light = {**LIGHT, "azimuth": 100.0, "ao": False}
    m = map_margins(light, 12.0, 2.0, tile=17)
    assert (m.north, m.west) == (1, 1) and m.south == m.east == m.reach  # the sun east, a little south
    assert map_margins(light, 24.0, 2.0, tile=17).reach > m.reach  # more relief, longer shadows
    assert map_margins({**light, "altitude": 60.0}, 12.0, 2.0, tile=17).reach < m.reach
    low = map_margins({**light, "altitude": 1.0}, 12.0, 2.0, tile=17)  # the disc reaches the horizon
    assert low.cut and low.reach == MAX_SHADOW_TILES * 16
    assert map_margins({"mode": "slope"}, 12.0, 2.0, tile=17) == Margins(1, 1, 1, 1)


def test_bad_windows_are_refused():
    with pytest.raises(ValueError, match="outer"):
        window_maps(np.zeros((4, 4), np.float32), Window(0, 0, 5, 4), 10.0, cell_size=1.0)
    with pytest.raises(ValueError, match="lighting"):
        map_margins({"mode": "nope"}, 10.0, 1.0, tile=17)
