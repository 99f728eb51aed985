"""The water of a world of tiles: one object walled at the world's outer edge, read from its border tiles."""

import math

import numpy as np

from ...core.spec import TerrainSpec
from ..mesh import grid_side
from ..water import sync_world_water


def border_gaps(tiles: dict, tiles_y: int, tiles_x: int) -> list[tuple[int, int]]:
    """``(ty, tx)`` of the world's border tiles that are missing or whose mesh is not a square grid (of at least
    2 x 2 vertices), north-west first: where :func:`world_edge_ring` cannot read the world's outer edge."""
    border = sorted(
        {(ty, tx) for ty in range(tiles_y) for tx in range(tiles_x) if ty in (0, tiles_y - 1) or tx in (0, tiles_x - 1)}
    )
    gaps = []
    for key in border:
        obj = tiles.get(key)
        count = 0 if obj is None else len(obj.data.vertices)
        if count < 4 or math.isqrt(count) ** 2 != count:
            gaps.append(key)
    return gaps


def world_edge_ring(tiles: dict, tiles_y: int, tiles_x: int) -> np.ndarray | None:
    """The world's outer edge, once round it: ``float32 (n, 3)`` vertex positions in the tiles' frame, clockwise
    seen from above from the north-west corner (as :func:`mesh.grid_edge_ring` runs round one grid), read from
    the tiles on the world's border at their own levels of detail. ``None`` when a border tile is missing or is
    not a square grid."""
    if border_gaps(tiles, tiles_y, tiles_x):
        return None

    def side(key, name):
        n = math.isqrt(len(tiles[key].data.vertices))
        return grid_side(tiles[key].data, n, n, name)

    runs = (
        [side((0, tx), "north") for tx in range(tiles_x)]
        + [side((ty, tiles_x - 1), "east") for ty in range(tiles_y)]
        + [side((tiles_y - 1, tx), "south") for tx in reversed(range(tiles_x))]
        + [side((ty, 0), "west") for ty in reversed(range(tiles_y))]
    )
    # Each run starts where the one before it ended (a shared tile corner): keep that vertex once.
    ring = np.concatenate([runs[0], *(run[1:] for run in runs[1:])])
    return ring[:-1]  # the last vertex is the first (the north-west corner)


def sync_tile_water(world, spec: TerrainSpec, tiles: dict) -> str | None:
    """The world's water (:func:`water.sync_world_water`) over its tiles as they are now: ``None``, or why it
    could not follow them (a border tile missing or not a grid, :func:`border_gaps`: the water stays as it was), or
    what it did instead of changing a user's mesh found in the water object."""
    settings = world.orogen_tiles
    ring = world_edge_ring(tiles, settings.tiles_y, settings.tiles_x) if spec.material.get("water") else None
    notes = sync_world_water(world, spec, ring, tiles.get((0, 0)))
    if ring is not None or not spec.material.get("water"):
        return "; ".join(notes) or None
    gaps = border_gaps(tiles, settings.tiles_y, settings.tiles_x)
    names = ", ".join(f"x{tx} y{ty}" for ty, tx in gaps[:4]) + (" ..." if len(gaps) > 4 else "")
    return f"water not updated: border tile {names} missing or not a grid (the water follows the world's edge)"
