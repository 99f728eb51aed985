"""Fault formation.

The fault-formation algorithm of the terrain literature (Polack, *Focus on 3D
Terrain Programming*, 2002; described again in the fractal-terrain
tutorials): draw a random line across the map through two random points,
raise every cell on one side of it, and repeat. The displacement falls linearly from a maximum
for the first fault to a minimum for the last, ``d_i = d_max - (d_max -
d_min) * i / (n - 1)`` (the last fault's is exactly ``d_min``); the result is then normalised and usually smoothed with
the erosion filter (:mod:`.erosion`).

Orogen's implementation is exact and fast. A fault line crosses each row of
the world at one point, so the raised cells of a row form one run; each
fault adds ``+d`` and ``-d`` at the run's ends of a per-row difference array,
and a cumulative sum along the rows gives every cell's height. Displacements
are quantised to integers of ``d_max / 2**30`` before the sums, so the sums
are exact integer arithmetic: any window gives the same bits as the whole
world, and the cost is ``O(faults x rows + cells)`` instead of
``O(faults x cells)``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..heightmap import check_count, check_number, check_world_shape
from ..rng import check_seed, uniform
from ..window import Window, check_window

__all__ = ["MAX_FAULTS", "MAX_FAULT_WORK", "fault_lines", "fault_displacements", "fault_formation"]

#: Upper bound on the number of faults per call.
MAX_FAULTS = 100_000
#: Upper bound on faults x rows of one call (about a minute of work): refuse instead of freezing the caller.
MAX_FAULT_WORK = 400_000_000
_QUANTUM_BITS = 30
_CHUNK = 1 << 22  # fault x row pairs handled at once: bounds the working memory to ~200 MB


def fault_lines(world_shape: tuple[int, int], seed: int, faults: int) -> npt.NDArray[np.float64]:
    """The random fault lines: ``float64 (faults, 4)`` of ``(row1, col1, row2, col2)``.

    Both points of each line are uniform over the world's cell coordinates
    ``[0, rows - 1] x [0, cols - 1]``.
    """
    rows, cols = check_world_shape(world_shape)
    seed = check_seed(seed)
    faults = check_count(faults, "faults", low=0, high=MAX_FAULTS)
    i = np.arange(faults, dtype=np.int64)
    return (
        np.stack(
            [
                uniform(seed, "faults/row1", i) * (rows - 1),
                uniform(seed, "faults/col1", i) * (cols - 1),
                uniform(seed, "faults/row2", i) * (rows - 1),
                uniform(seed, "faults/col2", i) * (cols - 1),
            ],
            axis=1,
        )
        if faults
        else np.zeros((0, 4))
    )


#: How the displacement falls from the first fault to the last: ``"to_last"`` reaches ``displacement_min``
#: at the last fault; ``"orogen_0_1"`` is Orogen 0.1's spacing, one step short of it, which 0.1's terrains
#: and recipes were made with (they keep it, so they give the heightmaps they gave).
SPACINGS = ("to_last", "orogen_0_1")


def fault_displacements(
    faults: int, displacement_max: float, displacement_min: float, *, spacing: str = "to_last"
) -> npt.NDArray[np.float64]:
    """The displacement of each fault, ``float64 (faults,)``, falling linearly from the first to the last.

    ``"to_last"``: ``d_i = d_max - (d_max - d_min) * i / (faults - 1)``, so the first fault moves by
    ``displacement_max`` and the last by exactly ``displacement_min`` (a single fault by
    ``displacement_max``). ``"orogen_0_1"``: ``d_i = d_max - (d_max - d_min) * i / faults``, Orogen 0.1's
    spacing (the last fault one step above ``displacement_min``). Raises ``ValueError`` for another spacing.
    """
    if spacing not in SPACINGS:
        raise ValueError(f"spacing must be one of {', '.join(SPACINGS)}, got {spacing!r:.40}")
    i = np.arange(faults, dtype=np.float64)
    if spacing == "orogen_0_1":
        legacy: npt.NDArray[np.float64] = displacement_max - (displacement_max - displacement_min) * i / faults
        return legacy
    out: npt.NDArray[np.float64] = displacement_max - (displacement_max - displacement_min) * i / max(faults - 1, 1)
    if faults > 1:
        out[-1] = displacement_min  # exactly, whatever the rounding of the line above
    return out


def fault_formation(
    world_shape: tuple[int, int],
    seed: int = 0,
    *,
    faults: int = 200,
    displacement_max: float = 1.0,
    displacement_min: float = 0.0,
    window: Window | None = None,
    spacing: str = "to_last",
) -> npt.NDArray[np.float64]:
    """Raise random faults across a world; unnormalised heights of a window of it.

    A cell ``(r, c)`` is raised by fault ``i`` when it lies strictly on the
    left of the directed line from point 1 to point 2 (seen with rows growing
    southward), i.e. when ``(c2 - c1) * (r - r1) - (r2 - r1) * (c - c1) < 0``
    evaluated through the line's crossing column in row ``r``.

    Parameters
    ----------
    world_shape : (int, int)
        The world's ``(rows, cols)``.
    seed : int
        In ``[0, 2**64 - 1]``.
    faults : int
        Number of faults, ``0 <= faults <= MAX_FAULTS``.
    displacement_max, displacement_min : float
        Displacement of the first and the last fault, ``0 <= displacement_min
        <= displacement_max``, ``1e-6 <= displacement_max <= 1e6``.
    window : Window, optional
        Part of the world to compute (default: the whole).
    spacing : {"to_last", "orogen_0_1"}
        How the displacement falls (see :func:`fault_displacements`).

    Returns
    -------
    ndarray of float64, shape ``window.shape``
        Sum of the displacements of the faults that raise each cell, each
        displacement rounded to a multiple of ``displacement_max / 2**30``.

    Raises
    ------
    TypeError, ValueError
        For bad parameters, naming the parameter and its range, or more than
        ``MAX_FAULT_WORK`` fault-row pairs.
    """
    win = check_window(world_shape, window)
    d_max = check_number(displacement_max, "displacement_max", low=1e-6, high=1e6)
    d_min = check_number(displacement_min, "displacement_min", low=0.0, high=d_max)
    lines = fault_lines(world_shape, seed, faults)
    n = len(lines)
    if n * win.rows > MAX_FAULT_WORK:
        raise ValueError(
            f"faults x rows is {n * win.rows:.3g}, more than {MAX_FAULT_WORK:.0e}: use fewer faults or a smaller map"
        )
    quantum = d_max / 2**_QUANTUM_BITS
    steps = np.rint(fault_displacements(n, d_max, d_min, spacing=spacing) / quantum).astype(np.int64)
    width = win.cols + 1
    diff = np.zeros(win.rows * width, dtype=np.float64)
    per_chunk = max(1, _CHUNK // max(win.rows, 1))
    for first in range(0, n, per_chunk):  # a loop over chunks of faults, each a whole-array step
        diff += _fault_runs(lines[first : first + per_chunk], steps[first : first + per_chunk], win, width)
    # bincount sums float64 integers below 2**53 exactly; back to int64 for an exact cumulative sum.
    heights = np.rint(diff).astype(np.int64).reshape(win.rows, width)[:, :-1]
    np.cumsum(heights, axis=1, out=heights)
    out: npt.NDArray[np.float64] = heights * quantum
    return out


def _fault_runs(
    lines: npt.NDArray[np.float64], steps: npt.NDArray[np.int64], win: Window, width: int
) -> npt.NDArray[np.float64]:
    """Per-row difference array of the raised runs of some faults (exact integers in float64)."""
    rows = win.row_coords().astype(np.float64)
    r1, c1, r2, c2 = (lines[:, k : k + 1] for k in range(4))
    d_row, d_col = r2 - r1, c2 - c1
    # Sign of the cross product (c2-c1)*(r-r1) - (r2-r1)*(c-c1) as c grows: raised side is c < x or c > x.
    with np.errstate(divide="ignore", invalid="ignore"):
        crossing = c1 + (rows[None, :] - r1) * d_col / d_row  # (faults, rows), column where the line crosses
    horizontal = d_row == 0.0
    # First raised world column and one past the last, per (fault, row).
    below = np.floor(crossing) + 1.0  # first column strictly right of the crossing
    start = np.where(d_row > 0, below, 0.0)  # d_row > 0: raised side is c > crossing
    stop = np.where(d_row > 0, np.inf, np.ceil(crossing))  # d_row < 0: raised side is c < crossing
    if horizontal.any():
        raised_row = (d_col * (rows[None, :] - r1)) < 0.0
        start = np.where(horizontal, np.where(raised_row, 0.0, np.inf), start)
        stop = np.where(horizontal, np.inf, stop)
    # Clip the runs to the window (in window-local columns) and accumulate exactly in integers.
    lo = np.clip(start - win.col, 0, win.cols).astype(np.int64)
    hi = np.clip(stop - win.col, 0, win.cols).astype(np.int64)
    valid = hi > lo
    row_index = np.broadcast_to(np.arange(win.rows, dtype=np.int64), lo.shape)
    weight = np.broadcast_to(steps[:, None], lo.shape)
    runs: npt.NDArray[np.float64] = np.bincount(  # type: ignore[assignment]  # float64 with weights
        np.concatenate([(row_index * width + lo)[valid], (row_index * width + hi)[valid]]),
        weights=np.concatenate([weight[valid], -weight[valid]]).astype(np.float64),
        minlength=win.rows * width,
    )
    return runs
