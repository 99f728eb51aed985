"""Fractal noise terrain: fBm, billow, ridged and hybrid multifractals, heterogeneous terrain, domain warping.

Musgrave's family of fractal sums of a lattice noise (Musgrave, "Procedural
fractal terrains", in Ebert, Musgrave, Peachey, Perlin and Worley, *Texturing
and Modeling: A Procedural Approach*, 3rd ed., 2003, ch. 14 and 16), with
the parameter names and meanings of Blender's Noise Texture node (Scale as a
feature size, Detail, Roughness, Lacunarity, Offset, Gain, Distortion), so
that a Blender user knows them. Octave ``k`` (``k = 0, 1, ...``) is the basis
noise ``N_k`` (:mod:`.lattice`) at frequency ``lacunarity**k / feature_size``
on a lattice of its own (its own hash and a random sub-cell offset, so the
zeros of gradient noise at lattice points never line up across octaves), and
weight ``w_k = roughness**k``. With ``n = floor(detail)``, octaves
``0 .. n`` are summed in full and octave ``n + 1`` with its weight times the
fraction ``detail − n``, so the terrain changes continuously with detail
(as in Blender). The fractal types:

* ``fbm`` — fractional Brownian motion ``Σ w_k N_k / Σ w_k`` (in ``[-1, 1]``).
* ``billow`` — ``Σ w_k (2|N_k| − 1) / Σ w_k``: rounded hills and sharp
  creases; Perlin's (1985) *turbulence* ``Σ w_k |N_k|`` is the same terrain
  (an affine map of it, which the recipe's normalisation removes).
* ``ridged_multifractal`` — ``s_0 = (offset − |N_0|)²``, then
  ``s_k = (offset − |N_k|)² · clamp(gain · s_{k−1}, 0, 1)``, summed as
  ``Σ w_k s_k``: sharp ridges, smooth valleys (Musgrave's ``RidgedMultifractal``,
  usual ``offset = 1``, ``gain = 2``).
* ``hybrid_multifractal`` — ``v = Σ c_k (N_k + offset) w_k`` with ``c_0 = 1``,
  ``c_k = clamp(gain · c_{k−1} · (N_{k−1} + offset) w_{k−1}, 0, 1)``: smooth
  valleys, rough peaks (Musgrave's ``HybridMultifractal`` with Blender's gain;
  Musgrave clamps the weight above only, Blender stops a cell's sum once its
  weight falls to 0.001, Orogen clamps it to ``[0, 1]``).
* ``hetero_terrain`` — ``v_0 = offset + N_0``, ``v_k = v_{k−1} + (N_k + offset) w_k v_{k−1}``:
  the roughness of each octave scales with the height so far
  (Musgrave's ``Hetero_Terrain``).

**Domain warping** (``distortion > 0``): the point where the terrain is
evaluated is displaced by ``distortion`` metres times a vector of two
gradient-noise fBm fields (same feature size, roughness and lacunarity,
``warp_detail`` detail), ``p ← p₀ + distortion · (W_x(p), W_y(p))``,
``warp_iterations`` times with new fields each time (Quilez's iterated
``f(p + f(p + f(p)))``; one iteration with ``warp_detail = 0`` is Blender's
Distortion).

**Anisotropy** (``stretch > 1``): features are ``stretch`` times longer
along ``stretch_direction`` (degrees clockwise from north, as a compass or
the sun's azimuth) than across it: the noise is evaluated at
``x' = x cos a + y sin a``, ``y' = (y cos a − x sin a) / stretch`` (``x``
east, ``y`` south, ``a`` the direction), before the domain warp. Directions
that are multiples of 180 degrees keep the separable fast path; ``cos`` and
``sin`` of other directions are computed once, in Python (scalar libm calls,
the same on numpy 1.26 and 2.x). Dunes, wind-streaked ridges, grain.

**Cone** (``cone > 0``): a cone of height ``cone`` (in the noise's units:
fBm spans about ``[-1, 1]``) and radius ``cone_radius`` metres is added at
the world's centre, ``cone · clamp(1 − (|r − r_c| + r_c) / cone_radius, 0, 1)``
with ``r`` the distance in metres from the centre and ``r_c`` the crater
radius (inside it the cone falls again, mirrored: a summit crater). A
volcanic island is a cone plus fractal noise; the centre is the world's, so
windows and previews keep it.

**World coordinates.** A cell's value depends only on the seed, the
parameters and its position in metres: ``x = column · cell_size`` (east),
``y = row · cell_size`` (south; row 0 is the north edge). The grid size only
sets the resolution: a 257² preview of a 1025² terrain (four times the cell
size) samples the same landscape, and a window equals the same cells of the
whole bit for bit. Arithmetic is ``float64`` for coordinates and ``float32``
for the sums, with only correctly rounded operations (see :mod:`.lattice`),
so results are bit-identical on numpy 1.26 and 2.x.

Evaluation is vectorised over blocks of rows (a few hundred kilobytes each,
so the octave loop works in cache); on an unwarped grid, gradient and value
noise use the separable form of :func:`.lattice.perlin_grid`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..elementary import sincos
from ..heightmap import check_count, check_number, check_world_shape
from ..rng import check_seed, uniform
from ..window import Window, check_window
from . import lattice

__all__ = ["BASES", "FRACTALS", "MAX_DETAIL", "MAX_STRETCH", "fractal_noise"]

#: Basis noises: gradient (Perlin), simplex, value, and cellular F1, F2 and F2 − F1.
BASES = ("perlin", "simplex", "value", "cellular_f1", "cellular_f2", "cellular_f2_f1")
#: Fractal sums, after Musgrave (Blender's Noise Texture types, plus billow).
FRACTALS = ("fbm", "billow", "ridged_multifractal", "hybrid_multifractal", "hetero_terrain")
#: Largest detail (Blender's): 16 octaves.
MAX_DETAIL = 15.0
MAX_WARP_ITERATIONS = 8
#: Largest anisotropy (feature length along the stretch direction over the length across).
MAX_STRETCH = 100.0
#: Finest lattice allowed across the world (lattice cells per side): keeps lattice coordinates exact.
MAX_LATTICE_EXTENT = 2.0**31
# Cellular distances are centred on their means (one jittered feature point per cell) and doubled,
# so they sit around [-1, 1] like the other bases.
_CELLULAR_MEAN = {"cellular_f1": 0.43, "cellular_f2": 0.70, "cellular_f2_f1": 0.27}
_BLOCK_CELLS = 1 << 16  # cells per block of rows: the working set of an octave stays in cache
_WARP_LATTICES = 32  # lattice numbers: octaves 0..15 of the terrain, then 32 per warp field

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
_ZERO, _ONE, _TWO = np.float32(0.0), np.float32(1.0), np.float32(2.0)


@dataclass(frozen=True)
class _Octave:
    lattice: int
    frequency: float  # lattice units per metre
    shift_x: float  # lattice units
    shift_y: float
    weight: float  # roughness**k, times the fraction of detail for the last, partial octave


def _octaves(
    seed: int, first_lattice: int, feature_size: float, detail: float, roughness: float, lacunarity: float
) -> list[_Octave]:
    """The octaves of a fractal sum; frequencies and weights by repeated products (exact everywhere)."""
    full = int(detail)
    fraction = detail - full
    out = []
    frequency, weight = 1.0 / feature_size, 1.0
    for k in range(full + 2):
        scale = 1.0 if k <= full else fraction
        if scale > 0.0:
            lattice = first_lattice + k
            shift = uniform(seed, "fractal/shift", np.int64(lattice), np.arange(2, dtype=np.int64))
            out.append(_Octave(lattice, frequency, float(shift[0]), float(shift[1]), weight * scale))
        frequency *= lacunarity
        weight *= roughness
    return out


# A block's coordinates in metres: 1-D x (cols,) and y (rows,) for the unwarped grid, or 2-D (rows, cols).
_Coords = tuple[F64, F64]


def _basis(basis: str, seed: int, octave: _Octave, coords: _Coords, amp: float) -> F32:
    """Octave noise times ``amp`` on a block, ``float32 (rows, cols)``."""
    xm, ym = coords
    x = xm * octave.frequency
    x += octave.shift_x
    y = ym * octave.frequency
    y += octave.shift_y
    a = np.float32(amp)
    grid = x.ndim == 1
    if grid and basis in ("perlin", "value"):
        ix, fx = lattice.lattice_coordinates(x)
        iy, fy = lattice.lattice_coordinates(y)
        if basis == "perlin":
            return lattice.perlin_grid_kernel(seed, octave.lattice, a, ix=ix, fx=fx, iy=iy, fy=fy)
        return lattice.value_grid_kernel(seed, octave.lattice, a, ix=ix, fx=fx, iy=iy, fy=fy)
    if grid:
        x, y = np.broadcast_arrays(x[None, :], y[:, None])
    if basis == "simplex":
        return lattice.simplex_points_kernel(seed, octave.lattice, a, x=x, y=y)
    ix, fx = lattice.lattice_coordinates(x)
    iy, fy = lattice.lattice_coordinates(y)
    if basis == "perlin":
        return lattice.perlin_points_kernel(seed, octave.lattice, a, ix=ix, fx=fx, iy=iy, fy=fy)
    if basis == "value":
        return lattice.value_points_kernel(seed, octave.lattice, a, ix=ix, fx=fx, iy=iy, fy=fy)
    f1, f2 = lattice.cellular_points_kernel(
        seed, octave.lattice, ix, fx=fx, iy=iy, fy=fy, need_f2=basis != "cellular_f1"
    )
    n = lattice.cellular_feature(f1, f2, basis[len("cellular_") :])
    n -= np.float32(_CELLULAR_MEAN[basis])
    n *= np.float32(2.0 * amp)
    return n


_Noise = Callable[[_Octave, float], F32]


def _fbm(noise: _Noise, octaves: list[_Octave]) -> F32:
    total = noise(octaves[0], octaves[0].weight)
    for octave in octaves[1:]:
        total += noise(octave, octave.weight)
    total *= np.float32(1.0 / sum(o.weight for o in octaves))
    return total


def _billow(noise: _Noise, octaves: list[_Octave]) -> F32:
    total: F32 | None = None
    for octave in octaves:
        n = noise(octave, octave.weight)  # w·N, and w·(2|N| − 1) = 2|w·N| − w for w >= 0
        np.abs(n, out=n)
        n *= _TWO
        n -= np.float32(octave.weight)
        if total is None:
            total = n
        else:
            total += n
    assert total is not None
    total *= np.float32(1.0 / sum(o.weight for o in octaves))
    return total


def _ridged(noise: _Noise, octaves: list[_Octave], offset: np.float32, gain: np.float32) -> F32:
    total: F32 | None = None
    signal: F32 | None = None
    for octave in octaves:
        n = noise(octave, 1.0)
        np.abs(n, out=n)
        np.subtract(offset, n, out=n)
        n *= n
        if signal is not None:  # weight from the previous octave's signal, clamped to [0, 1]
            signal *= gain
            np.clip(signal, _ZERO, _ONE, out=signal)
            n *= signal
        signal = n
        if total is None:
            total = n.copy()  # the first weight is 1
        else:
            total += n * np.float32(octave.weight)
    assert total is not None
    return total


def _hybrid(noise: _Noise, octaves: list[_Octave], offset: np.float32, gain: np.float32) -> F32:
    total: F32 | None = None
    weight: F32 | None = None
    for octave in octaves:
        signal = noise(octave, 1.0)
        signal += offset
        signal *= np.float32(octave.weight)
        if weight is None:
            total = signal.copy()  # the first weight is 1
            weight = signal * gain
        else:
            assert total is not None
            np.clip(weight, _ZERO, _ONE, out=weight)
            total += weight * signal
            signal *= gain
            weight *= signal
    assert total is not None
    return total


def _hetero(noise: _Noise, octaves: list[_Octave], offset: np.float32) -> F32:
    total = noise(octaves[0], 1.0)
    total += offset
    for octave in octaves[1:]:
        n = noise(octave, 1.0)
        n += offset
        n *= np.float32(octave.weight)
        n *= total
        total += n
    return total


def _fractal(
    basis: str, fractal: str, seed: int, octaves: list[_Octave], coords: _Coords, offset: float, gain: float
) -> F32:
    def noise(octave: _Octave, amp: float) -> F32:
        return _basis(basis, seed, octave, coords, amp)

    if fractal == "fbm":
        return _fbm(noise, octaves)
    if fractal == "billow":
        return _billow(noise, octaves)
    if fractal == "ridged_multifractal":
        return _ridged(noise, octaves, np.float32(offset), np.float32(gain))
    if fractal == "hybrid_multifractal":
        return _hybrid(noise, octaves, np.float32(offset), np.float32(gain))
    return _hetero(noise, octaves, np.float32(offset))


def _choice(value: object, name: str, options: tuple[str, ...]) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, one of {options}, got {type(value).__name__}")
    if value not in options:
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    return value


def fractal_noise(
    world_shape: tuple[int, int],
    seed: int = 0,
    *,
    window: Window | None = None,
    cell_size: float = 1.0,
    basis: str = "perlin",
    fractal: str = "fbm",
    feature_size: float = 200.0,
    detail: float = 5.0,
    roughness: float = 0.5,
    lacunarity: float = 2.0,
    offset: float = 1.0,
    gain: float = 2.0,
    distortion: float = 0.0,
    warp_iterations: int = 1,
    warp_detail: float = 2.0,
    stretch: float = 1.0,
    stretch_direction: float = 0.0,
    cone: float = 0.0,
    cone_radius: float = 500.0,
    crater_radius: float = 0.0,
) -> F64:
    """Fractal noise heights of a window of a world, unnormalised (see the module docstring).

    Parameters
    ----------
    world_shape : (int, int)
        The world's ``(rows, cols)``.
    seed : int
        In ``[0, 2**64 - 1]``.
    window : Window, optional
        Part of the world to compute (default: the whole).
    cell_size : float
        Metres between neighbouring cells, ``(0, 1e6]``.

    The terrain's parameters (default; hard bounds; soft bounds for a
    slider; unit — label: description):

    basis : str
        ``"perlin"``; one of :data:`BASES` — *Basis*: the lattice noise each
        octave is made of (gradient, simplex, value, cellular F1/F2/F2 − F1).
    fractal : str
        ``"fbm"``; one of :data:`FRACTALS` — *Fractal Type*: how octaves are
        combined.
    feature_size : float
        ``200``; ``(0, 1e6]``; ``[1, 10000]``; metres — *Feature Size*: the
        first octave's lattice spacing, the size of the largest hills
        (Blender's *Scale* is ``1 / feature_size`` with texture coordinates
        in metres).
    detail : float
        ``5``; ``[0, 15]``; ``[0, 10]``; octaves beyond the first —
        *Detail*: ``detail + 1`` octaves, the last one partial for a
        fractional value (as Blender's).
    roughness : float
        ``0.5``; ``[0, 1]``; ``[0, 1]``; ratio — *Roughness*: each octave's
        weight relative to the previous one (``lacunarity**-H`` in Musgrave's
        terms; 0.5 with lacunarity 2 is ``H = 1``).
    lacunarity : float
        ``2``; ``[1, 16]``; ``[1.5, 4]``; ratio — *Lacunarity*: each octave's
        frequency relative to the previous one.
    offset : float
        ``1``; ``[-1000, 1000]``; ``[0, 2]``; height — *Offset*: raises the
        basis before the multifractal products (ridged, hybrid,
        heterogeneous terrain; unused by fbm and billow).
    gain : float
        ``2``; ``[0, 1000]``; ``[0, 10]``; factor — *Gain*: how strongly an
        octave's signal weights the next (ridged and hybrid only).
    distortion : float
        ``0``; ``[0, 1e6]``; ``[0, 1000]``; metres — *Distortion*: largest
        displacement of the domain warp (0 turns it off).
    warp_iterations : int
        ``1``; ``[1, 8]``; ``[1, 4]``; count — *Warp Iterations*: how many
        times the warp is applied to its own result.
    warp_detail : float
        ``2``; ``[0, 15]``; ``[0, 6]``; octaves beyond the first — *Warp
        Detail*: detail of the gradient-noise fBm that displaces the domain.
    stretch : float
        ``1``; ``[1, 100]``; ``[1, 10]``; ratio — *Stretch*: features are
        this many times longer along the stretch direction (1: isotropic).
    stretch_direction : float
        ``0``; ``[0, 360]``; degrees clockwise from north — *Stretch
        Direction*: the direction features run along.
    cone : float
        ``0``; ``[0, 1000]``; ``[0, 10]``; noise units — *Cone*: height of a
        cone at the world's centre (0: none).
    cone_radius : float
        ``500``; ``(0, 1e6]``; ``[1, 20000]``; metres — *Cone Radius*.
    crater_radius : float
        ``0``; ``[0, 1e6]``; ``[0, 5000]``; metres — *Crater Radius*: the
        cone falls again inside it (0: no crater).

    Returns
    -------
    ndarray of float64, shape ``window.shape``
        Raw heights: fbm and billow in ``[-1, 1]``; the multifractals'
        range grows with offset, gain and detail. The recipe normalises.

    Raises
    ------
    TypeError, ValueError
        For a bad parameter, naming it and its range; ``ValueError`` also
        when ``lacunarity**detail / feature_size`` (and the warp) would put
        more than ``2**31`` lattice cells across the world.
    """
    rows, cols = check_world_shape(world_shape)
    win = check_window(world_shape, window)
    seed = check_seed(seed)
    cell = check_number(cell_size, "cell_size", low=0.0, high=1e6, low_open=True)  # a spec's widest cell: 1e6 m / 1
    basis = _choice(basis, "basis", BASES)
    fractal = _choice(fractal, "fractal", FRACTALS)
    size = check_number(feature_size, "feature_size", low=0.0, high=1e6, low_open=True)
    detail = check_number(detail, "detail", low=0.0, high=MAX_DETAIL)
    roughness = check_number(roughness, "roughness", low=0.0, high=1.0)
    lacunarity = check_number(lacunarity, "lacunarity", low=1.0, high=16.0)
    offset = check_number(offset, "offset", low=-1000.0, high=1000.0)
    gain = check_number(gain, "gain", low=0.0, high=1000.0)
    distortion = check_number(distortion, "distortion", low=0.0, high=1e6)
    iterations = check_count(warp_iterations, "warp_iterations", low=1, high=MAX_WARP_ITERATIONS)
    warp_detail = check_number(warp_detail, "warp_detail", low=0.0, high=MAX_DETAIL)
    stretch = check_number(stretch, "stretch", low=1.0, high=MAX_STRETCH)
    direction = check_number(stretch_direction, "stretch_direction", low=0.0, high=360.0) % 360.0
    cone = check_number(cone, "cone", low=0.0, high=1000.0)
    cone_radius = check_number(cone_radius, "cone_radius", low=0.0, high=1e6, low_open=True)
    crater_radius = check_number(crater_radius, "crater_radius", low=0.0, high=1e6)

    octaves = _octaves(seed, 0, size, detail, roughness, lacunarity)
    warps = (
        [
            [_octaves(seed, _WARP_LATTICES * (1 + 2 * i + c), size, warp_detail, roughness, lacunarity) for c in (0, 1)]
            for i in range(iterations)
        ]
        if distortion > 0.0
        else []
    )
    rotated = stretch != 1.0 and direction not in (0.0, 180.0)
    extent = (max(rows, cols) - 1) * cell * (2.0 if rotated else 1.0) + distortion
    finest = max([octaves[-1].frequency] + [w[0][-1].frequency for w in warps])
    if extent * finest + 1.0 >= MAX_LATTICE_EXTENT:
        raise ValueError(
            f"feature_size {size:g} m, detail {detail:g} and lacunarity {lacunarity:g} put "
            f"{extent * finest:.3g} lattice cells across the world (with the distortion): at most 2**31; "
            "use a larger feature_size, less detail or a smaller lacunarity"
        )

    out = np.empty(win.shape, dtype=np.float64)
    xm = win.col_coords().astype(np.float64)
    xm *= cell
    # Anisotropy: along-axis directions stay separable (1-D coordinates); others rotate into 2-D coordinates.
    sign = 1.0 if direction == 0.0 else -1.0 if direction == 180.0 else 0.0
    sin_a, cos_a = sincos(math.radians(direction))  # core.elementary: the same bits on every platform
    block = max(1, _BLOCK_CELLS // win.cols)
    for r0 in range(0, win.rows, block):
        ym = np.arange(win.row + r0, win.row + min(r0 + block, win.rows), dtype=np.float64)
        ym *= cell
        coords: _Coords = (xm, ym)
        if stretch != 1.0 and sign != 0.0:
            coords = (xm * sign, ym * sign / stretch)
        elif stretch != 1.0:
            px = xm[None, :] * cos_a + ym[:, None] * sin_a
            py = (ym[:, None] * cos_a - xm[None, :] * sin_a) / stretch
            coords = (px, py)
        base = coords
        for fields in warps:
            bx, by = (base[0][None, :], base[1][:, None]) if base[0].ndim == 1 else base
            wx, wy = (_fractal("perlin", "fbm", seed, field, coords, 0.0, 0.0) for field in fields)
            px = wx.astype(np.float64)
            px *= distortion
            px += bx
            py = wy.astype(np.float64)
            py *= distortion
            py += by
            coords = (px, py)
        out[r0 : r0 + len(ym)] = _fractal(basis, fractal, seed, octaves, coords, offset, gain)
        if cone > 0.0:
            dx = xm[None, :] - 0.5 * (cols - 1) * cell
            dy = ym[:, None] - 0.5 * (rows - 1) * cell
            r = np.sqrt(dx * dx + dy * dy)
            profile = 1.0 - (np.abs(r - crater_radius) + crater_radius) / cone_radius
            out[r0 : r0 + len(ym)] += cone * np.clip(profile, 0.0, 1.0)
    return out
