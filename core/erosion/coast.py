"""Coastal erosion: waves cut sea cliffs back into the land and their debris builds beaches in the coves.

Waves attack the land at the sea level; a rock coast retreats as a cliff above a shore platform cut at the
wave base (Sunamura 1992; Trenhaile 2000), and the finer debris drifts along the shore into the sheltered
bays, where it builds beaches (pocket beaches between headlands).

The model, on the heightmap's grid:

* The **sea** is every cell at or below the sea level; the map's outside continues its edge cells.
* A cell's **exposure** ``e`` is the share of sea in the square of cells within ``fetch`` metres of it (an
  open straight coast is about 1/2, a headland more, a cove less): waves reach headlands from more directions
  and are refracted onto them (Sunamura 1992, ch. 6), while bays are sheltered.
* A **shore cell** is a land cell beside the sea (4 neighbours). Each retreats at ``retreat_rate * min(2,
  2 e)`` metres per year: ``retreat_rate`` on an open straight coast, up to twice that on headlands, slower in
  coves. When it has retreated its cell's width it is cut down to the platform, ``platform_depth`` metres below
  the sea level, and the cell behind it becomes the shore: the cliff is the land's own height where the retreat
  stopped (tall on high ground, a low scarp on low ground), the platform flat below the sea.
* A share ``beach_share`` of the volume cut is laid, after the cliffs' retreat, along the sheltered shore:
  the sea cells beside land with an exposure under :data:`SHELTERED` (coves), lowest exposure first (ties in
  raster order), each raised to a berm ``berm`` metres above the sea level, then the next row seaward to half
  that, and so on, until the volume is spent or :data:`BEACH_ROWS` rows are laid. The rest is carried
  offshore, out of the map.

Time steps are as long as lets the fastest shore cell retreat at most one cell each; the exposure is worked
out anew every few steps (a quarter of the fetch's cells of retreat at most). Everything is float64 and
integer counts in a fixed order: the same input gives the same bits, at every size the same coast in metres.

Sources: Sunamura 1992 (Geomorphology of Rocky Coasts, Wiley); Trenhaile 2000 (Marine Geology 166);
Walkden & Hall 2005 (Coastal Engineering 52) for cliff retreat rates: 0.001–0.01 m/yr in hard rock to
0.1–1 m/yr in soft rock and till.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..heightmap import as_heightmap, check_number
from ..progress import Progress, check_progress

__all__ = ["BEACH_ROWS", "MAX_COAST_STEPS", "SHELTERED", "CoastResult", "coast_steps", "coastal_erosion", "exposure"]

_F64 = npt.NDArray[np.float64]

#: Most time steps a run may take (a step lets the fastest shore retreat one cell).
MAX_COAST_STEPS = 200_000
#: Exposure under which a shore is sheltered (a cove): an open straight coast's sea cells see about half sea.
SHELTERED = 0.5
#: Rows of beach laid seaward of the shore at most, each at half the height of the one before.
BEACH_ROWS = 12


@dataclass(frozen=True)
class CoastResult:
    """What :func:`coastal_erosion` made: ``heights`` (metres, float64, the input's shape), ``removed`` and
    ``deposited`` (metres of rock cut and of beach laid per cell, float64, >= 0), ``steps`` taken (fewer than
    :func:`coast_steps` when the sea or the land ran out, or the callback ended the run)."""

    heights: _F64
    removed: _F64
    deposited: _F64
    steps: int


def coast_steps(duration: float, retreat_rate: float, cell_size: float) -> int:
    """Time steps of a run: the fastest shore (twice ``retreat_rate``, m/yr) retreats at most one cell
    (``cell_size`` metres) in each of ``duration`` years; 0 for no retreat."""
    return int(math.ceil(2.0 * duration * retreat_rate / cell_size - 1e-9)) if duration * retreat_rate > 0 else 0


def exposure(sea: npt.NDArray[np.bool_], radius: int) -> _F64:
    """The share of ``sea`` cells (bool, (rows, cols)) in the square of ``2 radius + 1`` cells a side around each
    cell, the map's outside continuing its edge cells (float64, in [0, 1]). Exact integer counts (a summed-area
    table), so the same mask gives the same bits."""
    r = int(radius)
    if r < 1:
        raise ValueError(f"radius must be at least 1 cell, got {radius}")
    padded = np.pad(sea.astype(np.int64), r + 1, mode="edge")
    padded[0, :] = 0
    padded[:, 0] = 0
    table = padded.cumsum(axis=0).cumsum(axis=1)
    rows, cols = sea.shape
    w = 2 * r + 1
    total = (
        table[w : w + rows, w : w + cols]
        - table[0:rows, w : w + cols]
        - table[w : w + rows, 0:cols]
        + table[0:rows, 0:cols]
    )
    share: _F64 = total / float(w * w)
    return share


def _beside(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """Cells with a 4-neighbour in ``mask``."""
    out = np.zeros_like(mask)
    out[1:, :] |= mask[:-1, :]
    out[:-1, :] |= mask[1:, :]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


def _beside_max(values: _F64) -> _F64:
    """The largest of each cell's 4 neighbours' ``values`` (0 beyond the map; ``values`` >= 0)."""
    out = np.zeros_like(values)
    np.maximum(out[1:, :], values[:-1, :], out=out[1:, :])
    np.maximum(out[:-1, :], values[1:, :], out=out[:-1, :])
    np.maximum(out[:, 1:], values[:, :-1], out=out[:, 1:])
    np.maximum(out[:, :-1], values[:, 1:], out=out[:, :-1])
    return out


def coastal_erosion(
    heights_m: npt.ArrayLike,
    cell_size: float,
    *,
    sea_level: float,
    duration: float = 5000.0,
    retreat_rate: float = 0.1,
    platform_depth: float = 2.0,
    fetch: float = 500.0,
    beach_share: float = 0.3,
    berm: float = 2.0,
    callback: Progress | None = None,
) -> CoastResult:
    """Cut sea cliffs and a shore platform into the coast of ``heights_m`` and build beaches in its coves.

    Parameters
    ----------
    heights_m : array_like, shape (rows, cols)
        Heights in metres (finite); float64 inside.
    cell_size : float
        Cell spacing in metres, > 0.
    sea_level : float
        The sea level in metres: cells at or below it are sea.
    duration : float
        Years of wave attack, in [0, 1e7].
    retreat_rate : float
        Cliff retreat of an open straight coast, metres per year, in [0, 100] (0.001–0.01 hard rock,
        0.1–1 soft rock: Sunamura 1992; Walkden & Hall 2005). Headlands retreat up to twice as fast.
    platform_depth : float
        Depth in metres below the sea level at which the shore platform is cut, in [0, 1000].
    fetch : float
        Radius in metres over which the exposure to the open sea is measured, >= the cell size.
    beach_share : float
        Share of the volume cut laid as beaches in the sheltered coves, in [0, 1] (what the beach rows cannot
        hold is carried offshore).
    berm : float
        Height in metres of a beach's berm above the sea level, in [0, 100].
    callback : callable or None
        Called as ``callback(step, steps)`` after each step; returning ``False`` ends the cliffs' retreat there
        (the beaches are laid from what was cut so far; ``steps`` of the result says how many were taken).

    Returns
    -------
    CoastResult

    Raises
    ------
    ValueError
        Naming the parameter: a value outside its range, a non-finite height, a run of more than
        :data:`MAX_COAST_STEPS` steps.
    TypeError
        For a non-numeric setting or a callback that is not callable.
    """
    before = as_heightmap(heights_m, "heights_m", dtype=np.float64)
    cell = check_number(cell_size, "cell_size", low=0.0, low_open=True)
    sea = check_number(sea_level, "sea_level")
    years = check_number(duration, "duration", low=0.0, high=1e7)
    rate = check_number(retreat_rate, "retreat_rate", low=0.0, high=100.0)
    depth = check_number(platform_depth, "platform_depth", low=0.0, high=1000.0)
    reach = check_number(fetch, "fetch", low=cell)
    share = check_number(beach_share, "beach_share", low=0.0, high=1.0)
    top = check_number(berm, "berm", low=0.0, high=100.0)
    callback = check_progress(callback, "callback")
    steps = coast_steps(years, rate, cell)
    if steps > MAX_COAST_STEPS:
        raise ValueError(
            f"duration x retreat_rate x 2 / cell_size must be at most {MAX_COAST_STEPS} steps, got {steps} "
            f"({years:g} years at {rate:g} m/yr over {cell:g} m cells): use a shorter duration"
        )
    z = before.copy()
    floor = sea - depth
    radius = max(1, int(round(reach / cell)))
    every = max(1, radius // 4)
    progress = np.zeros(z.shape, dtype=np.float64)
    step_cells = years * rate / max(steps, 1) / cell  # an open coast's retreat per step, in cells
    e = np.zeros(z.shape)
    taken = 0
    for i in range(steps):
        is_sea = z <= sea
        if not is_sea.any() or is_sea.all():
            break
        if i % every == 0:
            e = exposure(is_sea, radius)
        shore = ~is_sea & _beside(is_sea)
        progress[shore] += step_cells * np.minimum(2.0, 2.0 * e[shore])
        cut = shore & (progress >= 1.0)
        if cut.any():
            z[cut] = np.minimum(z[cut], floor)
            # the front carries on: what a cut cell retreated beyond its width passes to the land behind it
            excess = np.where(cut, progress - 1.0, 0.0)
            progress[cut] = 0.0
            behind = _beside_max(excess)
            np.maximum(progress, np.where(z > sea, behind, 0.0), out=progress)
        taken = i + 1
        if callback is not None and callback(taken, steps) is False:
            break
    removed = np.maximum(before - z, 0.0)
    cut_surface = z.copy()
    volume = share * float(removed.sum())  # metres x cells
    if volume > 0.0:
        is_sea = z <= sea
        e = exposure(is_sea, radius)
        land = ~is_sea
        height = top
        for _row in range(BEACH_ROWS):
            if volume <= 0.0:
                break
            target = sea + height
            candidates = np.flatnonzero((is_sea & _beside(land) & (e < SHELTERED)).ravel())
            if candidates.size == 0:
                break
            order = candidates[np.argsort(e.ravel()[candidates], kind="stable")]
            need = np.maximum(target - z.ravel()[order], 0.0)
            filled = np.cumsum(need)
            whole = int(np.searchsorted(filled, volume, side="right"))
            flat = z.reshape(-1)
            flat[order[:whole]] = np.maximum(flat[order[:whole]], target)
            spent = float(filled[whole - 1]) if whole > 0 else 0.0
            if whole < order.size:
                flat[order[whole]] += volume - spent
                volume = 0.0
            else:
                volume -= spent
            land |= z > sea  # flat is z's own memory
            is_sea = ~land
            height *= 0.5
    deposited = np.maximum(z - cut_surface, 0.0)
    return CoastResult(z, removed, deposited, taken)
