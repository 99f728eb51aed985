"""Midpoint displacement by the diamond-square algorithm.

Fournier, Fussell and Carpenter, "Computer rendering of stochastic models"
(CACM 1982), in the diamond-square form popularised by Miller ("The
definition and rendering of terrain maps", SIGGRAPH 1986) and the
fractal-terrain tutorials: starting from a coarse lattice, each *diamond
step* sets the centre of every square to the mean of its four corners plus a
random offset, and each *square step* sets the midpoint of every edge to the
mean of its four neighbours plus an offset. The offset amplitude shrinks by
``2**-roughness`` per level (spacing halved).

Orogen's choices, each for a measurable property (see the tests):

* The lattice is a torus of period ``P = 2**n`` (the smallest with
  ``P + 1 >= max(rows, cols)``, i.e. the next ``2**n + 1`` grid): every point
  has four neighbours, so the borders are as rough as the interior and have
  no bias; a map of exactly ``P + 1`` cells tiles (its opposite edges match).
  Other shapes are the top-left crop of that grid.
* The square step is half a level finer than the diamond step, so its
  amplitude is ``2**(-roughness / 2)`` times the diamond step's.
* Creases: the diamond and square means are exactly the rules cubic B-spline
  subdivision uses for *new* points (Lane and Riesenfeld, "A theoretical
  development for the computer generation and display of piecewise
  polynomial surfaces", IEEE PAMI 1980; Catmull and Clark 1978). The
  original algorithm never moves *existing* points, and that is what leaves
  creases along the lines of the first subdivisions. After each level Orogen
  applies the matching vertex rule to the existing points,
  ``(36 p + 6 * (4 axial neighbours) + (4 diagonal neighbours)) / 64`` of the
  coarser lattice, which makes the deterministic part a C2 surface; the
  tests measure the second differences across the subdivision lines against
  the rest over many seeds.
* Each point's random offset is a hash of the seed and its lattice
  coordinates (modulo ``P``), and a window is computed from only the coarser
  points it depends on, so a window equals the same cells of the whole bit
  for bit.

**Lattices** (``lattice``). ``"world"`` (spec version 3): the torus's period
is the terrain's width (its longer side, ``L = max(rows, cols) - 1`` cells),
and a point is hashed by its position as a dyadic fraction of the period
(``coordinate * 2**20 / P``), so level ``k`` of the lattice (``2**k`` points
per period) holds the same numbers at every resolution: a ``257²`` terrain's
levels are the coarse levels of a ``1025²`` terrain of the same width. When
``L`` is a power of two every vertex is a lattice point; otherwise the lattice
is computed down to the first level at least as fine as the grid
(``P = 2**ceil(log2 L)`` points per period) and each vertex is interpolated
bilinearly from the four lattice points around its position ``c * P / L``
(exact integer arithmetic), so any size samples the same surface and the
terrain still tiles (columns 0 and ``L`` fall on the same lattice point).
``"grid"`` (Orogen 0.2, spec version 2): points are hashed by their grid
coordinates modulo ``P`` and shapes other than ``2**n + 1`` are the top-left
crop of the ``P + 1`` grid, so the landscape changes with the size.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..elementary import power
from ..heightmap import check_number, check_world_shape
from ..rng import check_seed, uniform
from ..window import Window, check_window

__all__ = ["LATTICES", "period", "diamond_square"]

#: Lattice kinds: hashed by world position (resolution independent) or by grid cell (Orogen 0.2).
LATTICES = ("world", "grid")
#: World lattice keys are coordinates in units of ``2**-_KEY_BITS`` of the period (worlds: at most 2**20 cells a side).
_KEY_BITS = 20


def period(world_shape: tuple[int, int]) -> int:
    """Period ``P = 2**n`` of the diamond-square lattice for a world (at least 2)."""
    rows, cols = check_world_shape(world_shape)
    return max(2, 1 << max(max(rows, cols) - 2, 0).bit_length())


# Stencils on the fine grid (row offset, column offset, weight). The diamond step averages the four
# corners of a square; the square step averages an edge's two corners and the two neighbouring centres.
_DIAMOND = ((-1, -1, 0.25), (-1, 1, 0.25), (1, -1, 0.25), (1, 1, 0.25))
_SQUARE = ((-1, 0, 0.25), (1, 0, 0.25), (0, -1, 0.25), (0, 1, 0.25))
_PAD = 1
# Region growth per level, in fine steps: the vertex rule reaches one coarse step (2 fine steps); the
# square step reaches 1 fine step through centres that reach 1 more.
_REACH = 2


def _snap_out(lo: int, hi: int, step: int) -> tuple[int, int]:
    return (lo // step) * step, -((-hi) // step) * step


def diamond_square(
    world_shape: tuple[int, int],
    seed: int = 0,
    *,
    roughness: float = 1.0,
    window: Window | None = None,
    lattice: str = "grid",
) -> npt.NDArray[np.float64]:
    """Diamond-square heights of a window of a world, unnormalised.

    Parameters
    ----------
    world_shape : (int, int)
        The world's ``(rows, cols)``; any shape (generated on the next
        ``2**n + 1`` lattice and cropped).
    seed : int
        In ``[0, 2**64 - 1]``.
    roughness : float
        ``r`` in ``(0, 8]``: offsets shrink by ``2**-r`` per level. Above 1
        gives smooth terrain, below 1 rough, chaotic mountains.
    window : Window, optional
        Part of the world to compute (default: the whole).
    lattice : {"grid", "world"}
        How lattice points are hashed and placed (see the module docstring):
        ``"world"`` is resolution independent, ``"grid"`` is Orogen 0.2's.

    Returns
    -------
    ndarray of float64, shape ``window.shape``
        Heights around 0; the first level's offsets are in ``[-1, 1]``.

    Raises
    ------
    TypeError, ValueError
        For bad parameters, naming the parameter and its range.
    """
    win = check_window(world_shape, window)
    seed = check_seed(seed)
    r = check_number(roughness, "roughness", low=0.0, high=8.0, low_open=True)
    if lattice not in LATTICES:
        raise ValueError(f"lattice must be one of {', '.join(LATTICES)}, got {lattice!r:.40}")
    p = period(world_shape)
    if lattice == "grid":
        return _lattice(p, seed, r, win.row, win.rows, win.col, win.cols, "diamond-square", 1)
    key_scale = (1 << _KEY_BITS) // p  # p <= 2**20 (MAX_WORLD_SIDE = 2**20 + 1)
    span = max(max(world_shape) - 1, 1)  # cells across the period
    if span == p:  # every vertex is a lattice point
        return _lattice(p, seed, r, win.row, win.rows, win.col, win.cols, "diamond-square/world", key_scale)
    # Lattice coordinate of each vertex: index * p / span, split exactly into a lattice index and a fraction.
    rows_idx, rows_frac = np.divmod(win.row_coords() * p, span)
    cols_idx, cols_frac = np.divmod(win.col_coords() * p, span)
    r0, c0 = int(rows_idx[0]), int(cols_idx[0])
    grid = _lattice(
        p, seed, r, r0, int(rows_idx[-1]) - r0 + 2, c0, int(cols_idx[-1]) - c0 + 2, "diamond-square/world", key_scale
    )
    fy = (rows_frac / span)[:, None]
    fx = (cols_frac / span)[None, :]
    ri, ci = (rows_idx - r0)[:, None], (cols_idx - c0)[None, :]
    top = grid[ri, ci] + fx * (grid[ri, ci + 1] - grid[ri, ci])
    bottom = grid[ri + 1, ci] + fx * (grid[ri + 1, ci + 1] - grid[ri + 1, ci])
    out: npt.NDArray[np.float64] = top + fy * (bottom - top)
    return out


def _lattice(
    p: int, seed: int, r: float, row: int, rows: int, col: int, cols: int, stream: str, key_scale: int
) -> npt.NDArray[np.float64]:
    """Lattice values at rows ``row .. row + rows - 1`` and columns ``col .. col + cols - 1`` of the
    period-``p`` torus (finest level), each point's offset hashed by ``(coordinate mod p) * key_scale``."""
    level_factor, half_factor = float(power(2.0, -r)), float(power(2.0, -r / 2.0))  # the same bits everywhere

    # Regions (inclusive bounds, aligned to the spacing) needed at each spacing, finest first.
    regions = {1: (row, row + rows - 1, col, col + cols - 1)}
    s = 1
    while s < p:
        r0, r1, c0, c1 = regions[s]
        r0, r1 = _snap_out(r0 - _REACH * s, r1 + _REACH * s, 2 * s)
        c0, c1 = _snap_out(c0 - _REACH * s, c1 + _REACH * s, 2 * s)
        s *= 2
        regions[s] = (r0, r1, c0, c1)

    r0, r1, c0, c1 = regions[p]
    grid = np.zeros(((r1 - r0) // p + 1, (c1 - c0) // p + 1))  # every lattice point is (0, 0) mod P
    amplitude = 1.0
    s = p
    while s > 1:
        h = s // 2
        r0, r1, c0, c1 = regions[s]
        rows_fine = np.arange(r0, r1 + 1, h, dtype=np.int64) % p
        cols_fine = np.arange(c0, c1 + 1, h, dtype=np.int64) % p
        if key_scale != 1:
            rows_fine *= key_scale
            cols_fine *= key_scale
        n_r, n_c = 2 * grid.shape[0] - 1, 2 * grid.shape[1] - 1
        padded = np.full((n_r + 2 * _PAD, n_c + 2 * _PAD), np.nan)
        fine = padded[_PAD:-_PAD, _PAD:-_PAD]
        # Vertex rule: existing points move toward their neighbours (see the module docstring).
        gp = np.pad(grid, 1, constant_values=np.nan)
        axial = gp[:-2, 1:-1] + gp[2:, 1:-1] + gp[1:-1, :-2] + gp[1:-1, 2:]
        diagonal = gp[:-2, :-2] + gp[:-2, 2:] + gp[2:, :-2] + gp[2:, 2:]
        # Diamond and square steps read the unsmoothed corners, as in the original algorithm.
        fine[0::2, 0::2] = grid
        # Diamond step: square centres (odd, odd) from the four corners.
        _displace(padded, fine, 1, 1, _DIAMOND, amplitude, seed, rows_fine, cols_fine, stream)
        # Square step: edge midpoints from their two corners and the two centres beside them.
        square_amp = amplitude * half_factor
        _displace(padded, fine, 0, 1, _SQUARE, square_amp, seed, rows_fine, cols_fine, stream)
        _displace(padded, fine, 1, 0, _SQUARE, square_amp, seed, rows_fine, cols_fine, stream)
        fine[0::2, 0::2] = (36.0 * grid + 6.0 * axial + diagonal) * (1.0 / 64.0)
        q0, q1, k0, k1 = regions[h]
        grid = fine[(q0 - r0) // h : (q1 - r0) // h + 1, (k0 - c0) // h : (k1 - c0) // h + 1]
        amplitude *= level_factor
        s = h
    return np.ascontiguousarray(grid)


def _displace(
    padded: npt.NDArray[np.float64],
    fine: npt.NDArray[np.float64],
    r_start: int,
    c_start: int,
    stencil: tuple[tuple[int, int, float], ...],
    amplitude: float,
    seed: int,
    rows_fine: npt.NDArray[np.int64],
    cols_fine: npt.NDArray[np.int64],
    stream: str = "diamond-square",
) -> None:
    """Set ``fine[r_start::2, c_start::2]`` to the stencil's interpolation plus random offsets.

    ``padded`` is ``fine`` with ``_PAD`` cells of NaN around it: points whose
    stencil reaches outside the computed region become NaN and lie outside
    the region kept for the next level. Terms are summed in stencil order.
    """
    n_r, n_c = fine.shape
    views = [
        padded[_PAD + r_start + dr : _PAD + n_r + dr : 2, _PAD + c_start + dc : _PAD + n_c + dc : 2]
        for dr, dc, _ in stencil
    ]
    # All weights are 1/4, a power of two: summing first and scaling once gives the same bits as
    # scaling each term, with fewer temporaries.
    total = views[0] + views[1]
    for view in views[2:]:
        total += view
    total *= stencil[0][2]
    u = uniform(seed, stream, rows_fine[r_start::2, None], cols_fine[None, c_start::2])
    u *= 2.0
    u -= 1.0
    u *= amplitude
    total += u
    fine[r_start::2, c_start::2] = total
