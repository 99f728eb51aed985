"""Lattice noises of the plane: gradient (Perlin), simplex, value and cellular (Worley) noise.

Each noise is a smooth random function of a point ``(x, y)`` given in
*lattice units* (the lattice spacing is 1), built from random values attached
to the integer lattice points. A lattice point's values are a hash of the
seed, a *lattice number* (independent lattices for the octaves of a fractal
sum) and its integer coordinates (:func:`.rng.hash_u64`), so a value depends
only on the point, never on which other points are evaluated with it.

* **Gradient noise** (Perlin, "An image synthesizer", SIGGRAPH 1985;
  "Improving noise", SIGGRAPH 2002): each lattice point has a gradient, one of
  16 evenly spaced directions; the noise is the blend of the four corners'
  ramps ``g · (p - corner)`` with the quintic fade ``6t⁵ − 15t⁴ + 10t³``
  (Perlin 2002), scaled by √2 so that it spans ``[-1, 1]``. It is 0 at every
  lattice point.
* **Simplex noise** (Perlin, "Noise hardware", SIGGRAPH 2001 course notes, as
  explained by Gustavson, "Simplex noise demystified", 2005): the plane is
  cut into triangles by skewing the square lattice; each of a point's three
  corners adds ``(0.5 − r²)⁴ g · d`` (zero beyond ``r² = 0.5``), scaled by 99
  so that the range stays within ``[-1, 1]`` (the exact bound is 99.2).
* **Value noise**: a uniform value in ``[-1, 1)`` per lattice point, blended
  with the same quintic fade.
* **Cellular noise** (Worley, "A cellular texture basis function", SIGGRAPH
  1996): one feature point per lattice cell, uniformly placed in it; ``F1``
  and ``F2`` are the distances to the nearest and second-nearest feature
  point. Orogen searches the 5 × 5 cells around the point's cell, which is
  exact: ``F2`` is below 1.81 (the own cell's point and the horizontal
  neighbour's toward the nearer side are both closer), and every cell outside
  that block is at least 2 away. (The common 3 × 3 search misses some.)

Every noise is computed with ``float64`` lattice coordinates (floor and
fraction) and ``float32`` arithmetic after that, using only IEEE basic
operations, ``floor``, ``abs``, ``minimum``/``maximum`` and ``sqrt``, which are
correctly rounded on every platform and SIMD path: the results are
bit-identical on numpy 1.26 and 2.x. The gradient tables are built from
decimal constants, not from ``sin``/``cos``.

On a regular grid, gradient and value noise are separable in their lattice
weights; :func:`perlin_grid` and :func:`value_grid` use that (the work per
cell is a dozen array operations) and give bit for bit the values of
:func:`perlin_noise` and :func:`value_noise` at the grid's points.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from ..heightmap import check_count, check_number
from ..rng import check_seed, hash_u64

__all__ = [
    "CELLULAR_FEATURES",
    "perlin_noise",
    "perlin_grid",
    "simplex_noise",
    "value_noise",
    "value_grid",
    "cellular_noise",
    "lattice_coordinates",
    "perlin_points_kernel",
    "perlin_grid_kernel",
    "value_points_kernel",
    "value_grid_kernel",
    "simplex_points_kernel",
    "cellular_feature",
    "cellular_points_kernel",
]

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

#: Cellular features: nearest distance, second-nearest distance, their difference (cell edges).
CELLULAR_FEATURES = ("f1", "f2", "f2_f1")
#: Largest lattice number (independent lattices per seed).
MAX_LATTICE = 2**31 - 1

_ONE = np.float32(1.0)
_HALF = np.float32(0.5)
# Quintic fade 6t⁵ − 15t⁴ + 10t³ (Perlin 2002), evaluated as t³(t(6t − 15) + 10).
_SIX, _FIFTEEN, _TEN = np.float32(6.0), np.float32(15.0), np.float32(10.0)

# Sixteen unit directions k·22.5°, from cos 22.5° and cos 45° (decimal constants, exact everywhere).
_C1, _S1, _H = 0.9238795325112867, 0.3826834323650898, 0.7071067811865476
_DIRECTIONS = np.array(
    [
        (1.0, 0.0),
        (_C1, _S1),
        (_H, _H),
        (_S1, _C1),
        (0.0, 1.0),
        (-_S1, _C1),
        (-_H, _H),
        (-_C1, _S1),
        (-1.0, 0.0),
        (-_C1, -_S1),
        (-_H, -_H),
        (-_S1, -_C1),
        (0.0, -1.0),
        (_S1, -_C1),
        (_H, -_H),
        (_C1, -_S1),
    ]
)
#: Gradient length of Perlin noise: its extreme with unit gradients is √2 / 2 at a cell's centre.
PERLIN_SCALE = 1.4142135623730951
#: Scale of simplex noise with unit gradients: its extreme is 1 / 99.204 (Orogen rounds down to stay in [-1, 1]).
SIMPLEX_SCALE = 99.0
_PERLIN_GX = (_DIRECTIONS[:, 0] * PERLIN_SCALE).astype(np.float32)
_PERLIN_GY = (_DIRECTIONS[:, 1] * PERLIN_SCALE).astype(np.float32)
_SIMPLEX_GX = (_DIRECTIONS[:, 0] * SIMPLEX_SCALE).astype(np.float32)
_SIMPLEX_GY = (_DIRECTIONS[:, 1] * SIMPLEX_SCALE).astype(np.float32)
# Simplex skew and unskew factors (√3 − 1) / 2 and (3 − √3) / 6.
_SKEW, _UNSKEW = 0.36602540378443865, 0.21132486540518713
_G2, _G2X2M1 = np.float32(_UNSKEW), np.float32(2.0 * _UNSKEW - 1.0)
_INV_2_24 = np.float32(1.0 / 16777216.0)
_INV_2_23 = np.float32(1.0 / 8388608.0)
_S60, _S40, _S16, _MASK24 = np.uint64(60), np.uint64(40), np.uint64(16), np.uint64(0xFFFFFF)
# A lattice box larger than this many points per evaluated point is not tabulated; its points are hashed
# one by one instead (same values, less memory when a warp scatters the points far apart).
_BOX_PER_POINT = 4
_BOX_MIN = 1 << 16


# --- lattice values ------------------------------------------------------------------------------------
def _gradients(seed: int, lattice: int, iy: npt.ArrayLike, ix: npt.ArrayLike) -> npt.NDArray[np.intp]:
    """Index (0..15) of the gradient direction at lattice points ``(iy, ix)``."""
    return (hash_u64(seed, "noise/gradient", np.int64(lattice), iy, ix) >> _S60).astype(np.intp)


def _simplex_gradients(seed: int, lattice: int, iy: npt.ArrayLike, ix: npt.ArrayLike) -> npt.NDArray[np.intp]:
    return (hash_u64(seed, "noise/simplex", np.int64(lattice), iy, ix) >> _S60).astype(np.intp)


def _perlin_at(seed: int, lattice: int, amp: np.float32, iy: npt.ArrayLike, ix: npt.ArrayLike) -> tuple[F32, F32]:
    g = _gradients(seed, lattice, iy, ix)
    gx, gy = _PERLIN_GX[g], _PERLIN_GY[g]
    gx *= amp
    gy *= amp
    return gx, gy


def _simplex_at(seed: int, lattice: int, amp: np.float32, iy: npt.ArrayLike, ix: npt.ArrayLike) -> tuple[F32, F32]:
    g = _simplex_gradients(seed, lattice, iy, ix)
    gx, gy = _SIMPLEX_GX[g], _SIMPLEX_GY[g]
    gx *= amp
    gy *= amp
    return gx, gy


def _value_at(seed: int, lattice: int, amp: np.float32, iy: npt.ArrayLike, ix: npt.ArrayLike) -> tuple[F32]:
    """Uniform values in ``[-1, 1)`` (24 random bits, exact in float32), times ``amp``."""
    v = (hash_u64(seed, "noise/value", np.int64(lattice), iy, ix) >> _S40).astype(np.float32)
    v *= _INV_2_23
    v -= _ONE
    v *= amp
    return (v,)


def _cellular_at(seed: int, lattice: int, amp: np.float32, iy: npt.ArrayLike, ix: npt.ArrayLike) -> tuple[F32, F32]:
    """Feature point of each cell, ``(x, y)`` offsets in ``[0, 1)`` from its corner (``amp`` unused)."""
    h = hash_u64(seed, "noise/cellular", np.int64(lattice), iy, ix)
    jx = ((h >> _S40) & _MASK24).astype(np.float32)
    jx *= _INV_2_24
    jy = ((h >> _S16) & _MASK24).astype(np.float32)
    jy *= _INV_2_24
    return jx, jy


_Table = Callable[[int, int, np.float32, npt.ArrayLike, npt.ArrayLike], tuple[F32, ...]]


class _Gather:
    """Lattice values at integer points ``(iy + dy, ix + dx)`` for small offsets, by box table or by hashing.

    When the points' lattice box (grown by the offsets) is small compared with
    the number of points, its values are tabulated once and gathered; else
    each lookup hashes the points themselves. Both give the same values.
    """

    def __init__(
        self, table: _Table, seed: int, lattice: int, amp: np.float32, iy: I64, ix: I64, lo: int, hi: int
    ) -> None:
        self.table, self.seed, self.lattice, self.amp, self.iy, self.ix = table, seed, lattice, amp, iy, ix
        self.lo = lo
        ymin, xmin = int(iy.min()), int(ix.min())
        y0, x0 = ymin + lo, xmin + lo
        ny, nx = int(iy.max()) + hi - y0 + 1, int(ix.max()) + hi - x0 + 1
        self.boxed = ny * nx <= max(_BOX_PER_POINT * iy.size, _BOX_MIN)
        if self.boxed:
            rows = np.arange(y0, y0 + ny, dtype=np.int64)[:, None]
            cols = np.arange(x0, x0 + nx, dtype=np.int64)[None, :]
            self.flat = [t.ravel() for t in table(seed, lattice, amp, rows, cols)]
            self.nx = nx
            # Index of (iy, ix) in the table less its offset from the table's corner: the lookup at
            # (iy + dy, ix + dx) is k0 + (dy - lo)·nx + (dx - lo), a non-negative shift of one index array.
            self.k0 = (iy - ymin) * nx
            self.k0 += ix - xmin

    def __call__(self, dy: int, dx: int) -> tuple[F32, ...]:
        if self.boxed:
            shift = (dy - self.lo) * self.nx + (dx - self.lo)
            return tuple(np.take(t[shift:], self.k0) for t in self.flat)
        return self.table(self.seed, self.lattice, self.amp, self.iy + dy, self.ix + dx)

    def at(self, dy: I64, dx: I64) -> tuple[F32, ...]:
        """Values at per-point offsets (arrays of 0 or 1)."""
        if self.boxed:
            k = (dy - self.lo) * self.nx
            k += dx - self.lo
            k += self.k0
            return tuple(np.take(t, k) for t in self.flat)
        return self.table(self.seed, self.lattice, self.amp, self.iy + dy, self.ix + dx)


# --- coordinates ---------------------------------------------------------------------------------------
def lattice_coordinates(x: npt.ArrayLike, name: str = "x") -> tuple[I64, F32]:
    """Split lattice coordinates into the integer cell and the fraction.

    Parameters
    ----------
    x : array_like of float
        Coordinates in lattice units, ``|x| < 2**52``.
    name : str
        Parameter name for error messages.

    Returns
    -------
    cell : ndarray of int64
        ``floor(x)``.
    fraction : ndarray of float32
        ``x - floor(x)`` computed in float64, in ``[0, 1]`` (1 only by rounding
        for a tiny negative ``x``; every noise is continuous there).

    Raises
    ------
    TypeError
        If ``x`` is not real.
    ValueError
        If ``x`` has NaN/Inf or magnitudes of ``2**52`` or more.
    """
    arr = np.asarray(x)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if arr.size and not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite (no NaN or infinity)")
    if arr.size and float(np.abs(arr).max()) >= 2.0**52:
        raise ValueError(f"{name} must have magnitudes below 2**52 lattice units")
    cell = np.floor(arr)
    fraction = (arr - cell).astype(np.float32)
    return cell.astype(np.int64), fraction


def _fade(t: F32) -> F32:
    """Quintic fade ``t³(t(6t − 15) + 10)`` in float32."""
    u = t * _SIX
    u -= _FIFTEEN
    u *= t
    u += _TEN
    u *= t
    u *= t
    u *= t
    return u


def _points(x: npt.ArrayLike, y: npt.ArrayLike) -> tuple[I64, F32, I64, F32]:
    ix, fx = lattice_coordinates(x, "x")
    iy, fy = lattice_coordinates(y, "y")
    if ix.shape != iy.shape:
        try:
            shape = np.broadcast_shapes(ix.shape, iy.shape)
        except ValueError:
            raise ValueError(f"x and y must have broadcastable shapes, got {ix.shape} and {iy.shape}") from None
        ix, iy = np.broadcast_to(ix, shape), np.broadcast_to(iy, shape)
        fx, fy = np.broadcast_to(fx, shape), np.broadcast_to(fy, shape)
    return ix, fx, iy, fy


def _check(seed: int, lattice: int, amplitude: float = 1.0) -> tuple[int, int, np.float32]:
    amp = check_number(amplitude, "amplitude", low=-1e6, high=1e6)
    return check_seed(seed), check_count(lattice, "lattice", low=0, high=MAX_LATTICE), np.float32(amp)


# --- gradient noise ------------------------------------------------------------------------------------
def _perlin_x(fx: F32) -> tuple[F32, F32, F32]:
    """Per-x weights of the separable form: ``(1 − u)·fx``, ``u·(fx − 1)`` and ``u``."""
    ux = _fade(fx)
    w0 = _ONE - ux
    w0 *= fx
    w1 = fx - _ONE
    w1 *= ux
    return w0, w1, ux


def perlin_noise(x: npt.ArrayLike, y: npt.ArrayLike, seed: int = 0, *, lattice: int = 0, amplitude: float = 1.0) -> F32:
    """Gradient (Perlin) noise at points given in lattice units.

    Parameters
    ----------
    x, y : array_like of float
        Coordinates in lattice units (broadcast together), ``|x|, |y| < 2**52``.
    seed : int
        In ``[0, 2**64 - 1]``.
    lattice : int
        Which independent lattice, ``[0, 2**31 - 1]`` (an octave's number).
    amplitude : float
        Factor applied to the gradients (exactly as if applied to the result).

    Returns
    -------
    ndarray of float32, the broadcast shape
        Values in ``[-amplitude, amplitude]``, 0 on the lattice points.

    Raises
    ------
    TypeError, ValueError
        For non-real or non-finite coordinates, or a bad seed or lattice.
    """
    seed, lattice, amp = _check(seed, lattice, amplitude)
    ix, fx, iy, fy = _points(x, y)
    return perlin_points_kernel(seed, lattice, amp, ix=ix, fx=fx, iy=iy, fy=fy)


def perlin_points_kernel(seed: int, lattice: int, amp: np.float32, *, ix: I64, fx: F32, iy: I64, fy: F32) -> F32:
    """Perlin noise times ``amp`` at points on checked lattice coordinates (see :func:`lattice_coordinates`)."""
    g = _Gather(_perlin_at, seed, lattice, amp, iy, ix, 0, 1)
    w0, w1, ux = _perlin_x(fx)
    rows = []
    for dy, wy in ((0, fy), (1, fy - _ONE)):
        gx0, gy0 = g(dy, 0)
        gx1, gy1 = g(dy, 1)
        tx = gx0 * w0
        gx1 *= w1
        tx += gx1
        ty = gy1 - gy0
        ty *= ux
        ty += gy0
        ty *= wy
        tx += ty
        rows.append(tx)
    return _lerp_rows(rows[0], rows[1], _fade(fy))


def _lerp_rows(low: F32, high: F32, u: F32) -> F32:
    """``low + u·(high − low)``, reusing ``high`` (the row blend of the separable form)."""
    high -= low
    high *= u
    high += low
    return high


def perlin_grid(x: npt.ArrayLike, y: npt.ArrayLike, seed: int = 0, *, lattice: int = 0, amplitude: float = 1.0) -> F32:
    """Gradient noise on the grid ``x × y``: ``perlin_noise(x[None, :], y[:, None])`` bit for bit, faster.

    Parameters
    ----------
    x : array_like of float, shape ``(cols,)``
        Column coordinates in lattice units.
    y : array_like of float, shape ``(rows,)``
        Row coordinates in lattice units.
    seed, lattice, amplitude
        As :func:`perlin_noise`.

    Returns
    -------
    ndarray of float32, shape ``(rows, cols)``

    Notes
    -----
    The blend along x of each lattice row is computed once per column
    (``(lattice rows) × cols`` work); each grid row then blends two of them.
    """
    seed, lattice, amp = _check(seed, lattice, amplitude)
    ix, fx = lattice_coordinates(np.ravel(x), "x")
    iy, fy = lattice_coordinates(np.ravel(y), "y")
    return perlin_grid_kernel(seed, lattice, amp, ix=ix, fx=fx, iy=iy, fy=fy)


def _box_too_large(iy: I64, ix: I64) -> bool:
    """Whether a grid's lattice box (lattice finer than the grid) is better hashed point by point."""
    area = (int(iy.max()) - int(iy.min()) + 2) * (int(ix.max()) - int(ix.min()) + 2)
    return area > max(_BOX_PER_POINT * iy.size * ix.size, _BOX_MIN)


def _as_points(ix: I64, fx: F32, iy: I64, fy: F32) -> tuple[I64, F32, I64, F32]:
    shape = (iy.size, ix.size)
    return (
        np.broadcast_to(ix[None, :], shape),
        np.broadcast_to(fx[None, :], shape),
        np.broadcast_to(iy[:, None], shape),
        np.broadcast_to(fy[:, None], shape),
    )


def _box_rows(iy: I64, ix: I64, hi: int) -> tuple[I64, I64, I64, I64]:
    y0, x0 = int(iy.min()), int(ix.min())
    rows = np.arange(y0, int(iy.max()) + hi + 1, dtype=np.int64)
    cols = np.arange(x0, int(ix.max()) + hi + 1, dtype=np.int64)
    return rows[:, None], cols[None, :], iy - y0, ix - x0


def perlin_grid_kernel(seed: int, lattice: int, amp: np.float32, *, ix: I64, fx: F32, iy: I64, fy: F32) -> F32:
    """Perlin noise times ``amp`` on the grid ``iy x ix`` (separable form), ``float32 (rows, cols)``; checked input."""
    if _box_too_large(iy, ix):
        px, pfx, py, pfy = _as_points(ix, fx, iy, fy)
        return perlin_points_kernel(seed, lattice, amp, ix=px, fx=pfx, iy=py, fy=pfy)
    rows, cols, jy, jx = _box_rows(iy, ix, 1)
    gx, gy = _perlin_at(seed, lattice, amp, rows, cols)
    w0, w1, ux = _perlin_x(fx)
    # Along x, per lattice row: tx = gx0·w0 + gx1·w1, ty = gy0 + u·(gy1 − gy0); same operations as the points.
    gx0, gx1 = np.take(gx, jx, axis=1), np.take(gx, jx + 1, axis=1)
    gy0, gy1 = np.take(gy, jx, axis=1), np.take(gy, jx + 1, axis=1)
    tx = gx0 * w0
    gx1 *= w1
    tx += gx1
    ty = gy1 - gy0
    ty *= ux
    ty += gy0
    blended = []
    for dy, wy in ((0, fy), (1, fy - _ONE)):
        row_x = np.take(tx, jy + dy, axis=0)
        row_y = np.take(ty, jy + dy, axis=0)
        row_y *= wy[:, None]
        row_x += row_y
        blended.append(row_x)
    return _lerp_rows(blended[0], blended[1], _fade(fy)[:, None])


# --- value noise ---------------------------------------------------------------------------------------
def value_noise(x: npt.ArrayLike, y: npt.ArrayLike, seed: int = 0, *, lattice: int = 0, amplitude: float = 1.0) -> F32:
    """Value noise at points in lattice units: lattice values in ``[-1, 1)`` blended by the quintic fade.

    Parameters and errors as :func:`perlin_noise`; returns ``float32`` of the
    broadcast shape, in ``[-amplitude, amplitude]``.
    """
    seed, lattice, amp = _check(seed, lattice, amplitude)
    ix, fx, iy, fy = _points(x, y)
    return value_points_kernel(seed, lattice, amp, ix=ix, fx=fx, iy=iy, fy=fy)


def value_points_kernel(seed: int, lattice: int, amp: np.float32, *, ix: I64, fx: F32, iy: I64, fy: F32) -> F32:
    """Value noise times ``amp`` at points on checked lattice coordinates, ``float32``."""
    g = _Gather(_value_at, seed, lattice, amp, iy, ix, 0, 1)
    ux = _fade(fx)
    rows = []
    for dy in (0, 1):
        (v0,), (v1,) = g(dy, 0), g(dy, 1)
        rows.append(_lerp_rows(v0, v1, ux))
    return _lerp_rows(rows[0], rows[1], _fade(fy))


def value_grid(x: npt.ArrayLike, y: npt.ArrayLike, seed: int = 0, *, lattice: int = 0, amplitude: float = 1.0) -> F32:
    """Value noise on the grid ``x × y``: ``value_noise(x[None, :], y[:, None])`` bit for bit, faster.

    Shapes as :func:`perlin_grid`.
    """
    seed, lattice, amp = _check(seed, lattice, amplitude)
    ix, fx = lattice_coordinates(np.ravel(x), "x")
    iy, fy = lattice_coordinates(np.ravel(y), "y")
    return value_grid_kernel(seed, lattice, amp, ix=ix, fx=fx, iy=iy, fy=fy)


def value_grid_kernel(seed: int, lattice: int, amp: np.float32, *, ix: I64, fx: F32, iy: I64, fy: F32) -> F32:
    """Value noise times ``amp`` on the grid ``iy x ix``, ``float32 (rows, cols)``; checked input."""
    if _box_too_large(iy, ix):
        px, pfx, py, pfy = _as_points(ix, fx, iy, fy)
        return value_points_kernel(seed, lattice, amp, ix=px, fx=pfx, iy=py, fy=pfy)
    rows, cols, jy, jx = _box_rows(iy, ix, 1)
    (v,) = _value_at(seed, lattice, amp, rows, cols)
    t = _lerp_rows(np.take(v, jx, axis=1), np.take(v, jx + 1, axis=1), _fade(fx))
    return _lerp_rows(np.take(t, jy, axis=0), np.take(t, jy + 1, axis=0), _fade(fy)[:, None])


# --- simplex noise -------------------------------------------------------------------------------------
def simplex_noise(
    x: npt.ArrayLike, y: npt.ArrayLike, seed: int = 0, *, lattice: int = 0, amplitude: float = 1.0
) -> F32:
    """Simplex noise at points in lattice units (the square lattice skewed into triangles).

    The skewed lattice's spacing along an axis is about 0.8 of the square
    lattice's; parameters and errors as :func:`perlin_noise`. Returns
    ``float32`` of the broadcast shape, within ``[-amplitude, amplitude]``.
    """
    seed, lattice, amp = _check(seed, lattice, amplitude)
    xa, ya = np.broadcast_arrays(np.asarray(x), np.asarray(y))
    for arr, name in ((xa, "x"), (ya, "y")):  # the checks of lattice_coordinates, before skewing
        lattice_coordinates(arr, name)
    return simplex_points_kernel(seed, lattice, amp, x=xa.astype(np.float64), y=ya.astype(np.float64))


def simplex_points_kernel(seed: int, lattice: int, amp: np.float32, *, x: F64, y: F64) -> F32:
    """Simplex noise times ``amp`` at checked ``float64`` points ``(x, y)``, ``float32``."""
    skew = x + y
    skew *= _SKEW
    i, _ = lattice_coordinates(x + skew, "x")
    j, _ = lattice_coordinates(y + skew, "y")
    t = (i + j).astype(np.float64)
    t *= _UNSKEW
    x0 = (x - (i - t)).astype(np.float32)  # offsets from the cell's first corner, in the unskewed plane
    y0 = (y - (j - t)).astype(np.float32)
    lower = x0 > y0  # the lower triangle's middle corner is (1, 0), the upper's (0, 1)
    di, dj = lower.astype(np.int64), (~lower).astype(np.int64)
    g = _Gather(_simplex_at, seed, lattice, amp, j, i, 0, 1)
    x1 = x0 - di.astype(np.float32)
    x1 += _G2
    y1 = y0 - dj.astype(np.float32)
    y1 += _G2
    x2, y2 = x0 + _G2X2M1, y0 + _G2X2M1
    total: F32 | None = None
    for (gx, gy), dx, dy in ((g(0, 0), x0, y0), (g.at(dj, di), x1, y1), (g(1, 1), x2, y2)):
        falloff = dx * dx
        falloff += dy * dy
        np.subtract(_HALF, falloff, out=falloff)
        np.maximum(falloff, np.float32(0.0), out=falloff)
        falloff *= falloff
        falloff *= falloff
        gx *= dx
        gy *= dy
        gx += gy
        gx *= falloff
        if total is None:
            total = gx
        else:
            total += gx
    assert total is not None
    return total


# --- cellular noise ------------------------------------------------------------------------------------
def cellular_noise(x: npt.ArrayLike, y: npt.ArrayLike, seed: int = 0, *, lattice: int = 0, feature: str = "f1") -> F32:
    """Cellular (Worley) noise: distances to the nearest feature points, in lattice units.

    Parameters
    ----------
    x, y : array_like of float
        Coordinates in lattice units (broadcast together), ``|x|, |y| < 2**52``.
    seed : int
        In ``[0, 2**64 - 1]``.
    lattice : int
        Which independent lattice, ``[0, 2**31 - 1]``.
    feature : {"f1", "f2", "f2_f1"}
        Nearest distance ``F1`` (in ``[0, √2)``), second-nearest ``F2`` (in
        ``[0, 1.81)``), or ``F2 − F1`` (0 on the cells' borders).

    Returns
    -------
    ndarray of float32, the broadcast shape

    Raises
    ------
    TypeError, ValueError
        As :func:`perlin_noise`, or for an unknown ``feature``.
    """
    seed, lattice, _ = _check(seed, lattice)
    if feature not in CELLULAR_FEATURES:
        raise ValueError(f"feature must be one of {CELLULAR_FEATURES}, got {feature!r}")
    ix, fx, iy, fy = _points(x, y)
    f1, f2 = cellular_points_kernel(seed, lattice, ix, fx=fx, iy=iy, fy=fy, need_f2=feature != "f1")
    return cellular_feature(f1, f2, feature)


def cellular_feature(f1: F32, f2: F32, feature: str) -> F32:
    """The cellular feature ``"f1"``, ``"f2"`` or ``"f2_f1"`` (distances) from squared ``f1``, ``f2``, in place."""
    if feature == "f1":
        return np.sqrt(f1, out=f1)
    np.sqrt(f2, out=f2)
    if feature == "f2":
        return f2
    f2 -= np.sqrt(f1, out=f1)
    return f2


def cellular_points_kernel(
    seed: int, lattice: int, ix: I64, *, fx: F32, iy: I64, fy: F32, need_f2: bool = True
) -> tuple[F32, F32]:
    """Squared ``F1`` and ``F2`` over the 5 × 5 cells around each point's cell.

    For ``F1`` alone (``need_f2`` false; ``F2`` is then returned unset) the
    four corner cells are skipped: their points are at least √2 away, and the
    own cell's is closer.
    """
    g = _Gather(_cellular_at, seed, lattice, np.float32(1.0), iy, ix, -2, 2)
    shifted_x = {d: fx - np.float32(d) for d in range(-2, 3)}
    shifted_y = {d: fy - np.float32(d) for d in range(-2, 3)}
    f1 = np.full(fx.shape, np.inf, dtype=np.float32)
    f2 = np.full(fx.shape, np.inf, dtype=np.float32)
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            if not need_f2 and abs(dx) == abs(dy) == 2:
                continue
            jx, jy = g(dy, dx)
            jx -= shifted_x[dx]
            jx *= jx
            jy -= shifted_y[dy]
            jy *= jy
            jx += jy  # squared distance to this cell's feature point
            if need_f2:
                np.maximum(jx, f1, out=jy)
                np.minimum(f2, jy, out=f2)
            np.minimum(f1, jx, out=f1)
    return f1, f2
