"""Transverse and barchanoid dune fields: asymmetric dunes with slip faces, crests that bend, fork and end.

A geometric model of a dune field under one sand-moving wind, built from the
measured shape of transverse and barchanoid dunes rather than from their
dynamics:

* **Crest lines** are the level sets of a phase field ``phi(x, y)`` (one
  dune per unit of phase): ``phi = s / spacing + sinuosity * (0.6 W + |L|)
  + Σ_k ±atan2(t - t_k, 1.5 (s - s_k)) / 2π`` with ``s`` the distance
  downwind and ``t`` along the crests (metres), ``W`` and ``L`` gradient-noise
  fBm (Perlin 2002, by :func:`core.noise.lattice.perlin_noise`) 4 and 1.8
  spacings long along the crests, so that crests meander and bow into
  barchanoid arcs between cusped horns (the zeros of ``L``), and a few hashed **defects** ``p_k`` (in pairs of opposite
  windings 1.5 to 4 spacings apart along the crests): each winds the phase
  by one whole dune around it, the edge dislocation of a stripe pattern, so
  that a crest forks into two there (a Y-junction) or ends (Werner 1995;
  Werner & Kocurek 1999, "Bedform spacing from defect dynamics", *Geology*
  27: the defects, crest terminations and junctions, are what makes a real
  dune pattern irregular and what its spacing evolves by).
* **Profile.** Along the wind each dune rises over its stoss (windward)
  slope at ``stoss_slope`` degrees, and falls over its slip face (lee side)
  at the angle of repose of dry sand, ``slip_face`` (32 to 34 degrees,
  Bagnold 1941; Pye & Tsoar 2009, *Aeolian Sand and Sand Dunes*), with a
  flat interdune corridor between the slip face's foot and the next stoss
  slope. The distances are true metres perpendicular to the crest (the
  phase's gradient is measured at each cell), so the slopes keep their
  angles where the crests bend or crowd.
* **Height and spacing.** A dune of full size is ``aspect * spacing`` high;
  crescentic and transverse dunes measure ``H ≈ 0.03 to 0.1 × spacing``
  (Lancaster 1988, "Controls of eolian dune size and spacing", *Geology* 16,
  972-975: the relation depends on dune type and sand supply; simple dunes
  space 50 to 500 m, compound ones and draas 0.5 to 3 km or more, Wilson
  1972; Breed & Grow 1979). The height varies along and across the field
  with a low-frequency fBm (``height_variation``): low crests break into
  separate barchanoid segments with saddles and bare interdunes between. A
  dune fades out at a defect's core, where its crest ends.

Heights are metres above the interdune floor (0), ``float64``; a recipe
normalises them by their range, so a terrain whose Height is that range
(about ``aspect * spacing``) keeps the declared angles. Each cell's value
depends only on the seed, the parameters and its position in metres (column
``x`` east, row ``y`` south, from the world's north-west corner): a window
holds exactly the whole world's values and sizes of the same width sample
the same field. Vectorised numpy; cost ``O(cells × (octaves + defects))``.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..elementary import atan2, exp, sincos
from ..heightmap import check_number, check_world_shape
from ..noise.lattice import perlin_noise
from ..rng import check_seed, uniform
from ..window import Window, check_window

__all__ = ["MAX_DEFECTS", "dune_field"]

F64 = npt.NDArray[np.float64]

#: Upper bound on the defects (crest forks and ends) of one world: their cost is per cell and defect.
MAX_DEFECTS = 4096
#: Octaves of the crest-meander and height fBm.
_OCTAVES = 3
#: Metres of the finite difference that measures the phase's gradient.
_DELTA = 0.5
#: How many times a defect's downwind distance is stretched before its angle is taken (1: a plain edge
#: dislocation, whose crests radiate from its core; larger: a Y-junction that opens along the crests).
_FORK = 1.5
#: Cells per block (bounds the temporary arrays).
_BLOCK_CELLS = 1 << 18


def _fbm(x: F64, y: F64, seed: int, lattice: int) -> F64:
    """Three octaves of gradient noise at lattice coordinates ``(x, y)``, weights 1, 0.5, 0.25, in about [-1, 1]."""
    total = np.zeros(np.broadcast_shapes(x.shape, y.shape), dtype=np.float64)
    for k in range(_OCTAVES):
        f = 2.0**k
        # A fixed offset per octave keeps the octaves' lattice points apart.
        total += perlin_noise(x * f + 0.37 * k, y * f + 0.61 * k, seed, lattice=lattice + k, amplitude=0.5**k)
    return total / 1.75


def _lunes(s: F64, t: F64, seed: int, spacing: float) -> F64:
    """``|fBm|`` about 1.8 dunes long along the crests: 0 at the horns of the crescents, rounded between."""
    return np.abs(_fbm(t / (1.8 * spacing), s / (6.0 * spacing), seed, 8))


def _phase(
    x: F64, y: F64, *, seed: int, wind: tuple[float, float], spacing: float, sinuosity: float, defects: F64
) -> F64:
    """The crest phase at points ``(x east, y south)`` metres: one unit per dune, growing downwind."""
    dx, dy = wind
    s = x * dx + y * dy  # downwind distance
    t = y * dx - x * dy  # across the wind, along the crests
    # Meanders 4 dunes long along the crests, and crescents: where |fBm| is 0 a crest's horn trails downwind in
    # a cusp, between two horns the crest bows upwind in an arc (barchanoid ridges).
    phi = s / spacing + sinuosity * (0.6 * _fbm(t / (4.0 * spacing), s / (6.0 * spacing), seed, 0))
    phi += sinuosity * _lunes(s, t, seed, spacing)
    # Each defect winds the phase by one dune around it, the winding spread along the crests: the angle is taken
    # with the downwind distance stretched _FORK times, so the extra crest opens as a Y over a few dunes' length.
    for k in range(defects.shape[0]):
        ds, dt = s - defects[k, 3], t - defects[k, 4]
        phi += defects[k, 2] * atan2(dt, _FORK * ds) * (0.5 / math.pi)
    return phi


def dune_field(
    world_shape: tuple[int, int],
    seed: int = 0,
    *,
    window: Window | None = None,
    cell_size: float = 1.0,
    wind_direction: float = 250.0,
    spacing: float = 500.0,
    aspect: float = 0.08,
    stoss_slope: float = 9.0,
    slip_face: float = 33.0,
    sinuosity: float = 0.8,
    height_variation: float = 0.75,
    defects: float = 1.0,
) -> F64:
    """Heights of a transverse/barchanoid dune field in metres (see the module docstring).

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
    wind_direction : float
        ``250``; ``[0, 360]``; degrees clockwise from north — the direction the
        sand-moving wind blows **from** (meteorological convention): the slip
        faces look the other way.
    spacing : float
        ``500``; ``[1e-3, 1e6]``; metres — crest-to-crest distance along the wind.
    aspect : float
        ``0.08``; ``[0.001, 0.5]``; ratio — height of a full-size dune over its spacing;
        ``aspect * (cot stoss_slope + cot slip_face)`` must be at most 0.95 (room
        for the interdune).
    stoss_slope : float
        ``9``; ``[0.5, 45]``; degrees — the windward slope, below ``slip_face``.
    slip_face : float
        ``33``; ``[1, 80]``; degrees — the lee slope (the angle of repose of dry sand
        is 32-34).
    sinuosity : float
        ``0.8``; ``[0, 4]``; dunes — how far the crests meander downwind and back.
    height_variation : float
        ``0.75``; ``[0, 1]``; share — how much dune heights vary over the field (0:
        all full size; 1: from nothing to full size).
    defects : float
        ``1``; ``[0, 1000]``; per square kilometre — crest forks and ends, placed in pairs of opposite
        windings (a crest segment inserted between them).

    Returns
    -------
    ndarray of float64, shape ``window.shape``
        Metres above the interdune floor, in ``[0, aspect * spacing]``.

    Raises
    ------
    TypeError, ValueError
        For a bad shape, seed or window, a parameter out of its range (the
        message names it), a stoss slope not below the slip face, an aspect
        that leaves no room between dunes, or more than ``MAX_DEFECTS`` defects
        over the world.
    """
    rows, cols = check_world_shape(world_shape, "world_shape")
    seed = check_seed(seed)
    win = check_window((rows, cols), window)
    cell = check_number(cell_size, "cell_size", low=0.0, high=1e6, low_open=True)
    direction = check_number(wind_direction, "wind_direction", low=0.0, high=360.0) % 360.0
    spacing = check_number(spacing, "spacing", low=1e-3, high=1e6)
    aspect = check_number(aspect, "aspect", low=1e-3, high=0.5)
    stoss = check_number(stoss_slope, "stoss_slope", low=0.5, high=45.0)
    lee = check_number(slip_face, "slip_face", low=1.0, high=80.0)
    sinuosity = check_number(sinuosity, "sinuosity", low=0.0, high=4.0)
    variation = check_number(height_variation, "height_variation", low=0.0, high=1.0)
    density = check_number(defects, "defects", low=0.0, high=1000.0)
    if stoss >= lee:
        raise ValueError(f"stoss_slope ({stoss:g} degrees) must be below slip_face ({lee:g} degrees)")
    (sin_s, cos_s), (sin_l, cos_l) = sincos(math.radians(stoss)), sincos(math.radians(lee))
    tan_s, tan_l = sin_s / cos_s, sin_l / cos_l  # core.elementary: the same bits on every platform
    footprint = 1.0 / tan_s + 1.0 / tan_l  # a dune's length per metre of its height
    if aspect * footprint > 0.95:
        raise ValueError(
            f"aspect ({aspect:g}) is too large for these slopes: a dune {aspect:g} x spacing high is "
            f"{aspect * footprint:.3g} spacings long; it must be at most {0.95 / footprint:.4g} "
            "(lower aspect or raise stoss_slope)"
        )
    width_m, length_m = (cols - 1) * cell, (rows - 1) * cell
    area_km2 = max(width_m, cell) * max(length_m, cell) / 1e6
    pairs = int(math.floor(density * area_km2 / 2.0 + 0.5))
    count = 2 * pairs
    if count > MAX_DEFECTS:
        raise ValueError(
            f"defects ({density:g} per km²) makes {count} over this {area_km2:.3g} km² world, more than "
            f"{MAX_DEFECTS}: lower defects"
        )
    index = np.arange(pairs, dtype=np.int64)
    # The downwind unit vector in (x east, y south): the wind blows from `direction`.
    sin_a, cos_a = sincos(math.radians(direction))
    wind = (-sin_a, cos_a)
    # Defects in pairs of opposite windings 1.5 to 4 spacings apart along the crests: a crest segment inserted
    # between two forks or two ends, the phase unchanged away from the pair (so the mean spacing holds). Each
    # row: x, y, the winding's sign, and the position downwind and along the crests.
    points = np.empty((count, 5), dtype=np.float64)
    x0 = uniform(seed, "dunes/defect_x", index) * width_m
    y0 = uniform(seed, "dunes/defect_y", index) * length_m
    apart = (1.5 + 2.5 * uniform(seed, "dunes/defect_gap", index)) * spacing
    sign = np.where(uniform(seed, "dunes/defect_sign", index) < 0.5, -1.0, 1.0)
    # the crest direction in (x east, y south) is (-wind y, wind x)
    points[0::2, 0], points[0::2, 1], points[0::2, 2] = x0, y0, sign
    points[1::2, 0], points[1::2, 1], points[1::2, 2] = x0 - apart * wind[1], y0 + apart * wind[0], -sign
    points[:, 3] = points[:, 0] * wind[0] + points[:, 1] * wind[1]
    points[:, 4] = points[:, 1] * wind[0] - points[:, 0] * wind[1]
    core = 0.45 * spacing  # a crest fades out within about this distance of the defect it ends at
    full = aspect * spacing

    out = np.empty(win.shape, dtype=np.float64)
    xm = (np.arange(win.col, win.col + win.cols, dtype=np.float64) * cell)[None, :]
    block = max(1, _BLOCK_CELLS // win.cols)
    for r0 in range(0, win.rows, block):
        r1 = min(r0 + block, win.rows)
        ym = (np.arange(win.row + r0, win.row + r1, dtype=np.float64) * cell)[:, None]
        x, y = np.broadcast_arrays(xm, ym)

        def phase(px: F64, py: F64) -> F64:
            return _phase(px, py, seed=seed, wind=wind, spacing=spacing, sinuosity=sinuosity, defects=points)

        phi = phase(x, y)
        # Differences modulo whole dunes: a defect's branch cut steps the phase by exactly one.
        gx = phase(x + _DELTA, y) - phi
        gx -= np.round(gx)
        gx /= _DELTA
        gy = phase(x, y + _DELTA) - phi
        gy -= np.round(gy)
        gy /= _DELTA
        gradient = np.maximum(np.sqrt(gx * gx + gy * gy), 1e-12)  # phase per metre across the crests
        # Metres upwind from the next slip face's foot, perpendicular to the crest.
        upwind = (np.ceil(phi) - phi) / gradient
        period = 1.0 / gradient
        # Dune height: low-frequency fBm over the field (4 spacings), crests fading out at defect cores.
        dx, dy = wind
        s, t = x * dx + y * dy, y * dx - x * dy
        noise = _fbm(t / (4.0 * spacing), s / (3.0 * spacing), seed, 16)
        horns = np.minimum(_lunes(s, t, seed, spacing) * (1.0 / 0.3), 1.0)  # 0 at a horn, 1 on an arc
        height = full * np.clip(1.0 - variation * (0.9 - 0.9 * noise - 0.5 * horns), 0.0, 1.0)
        for k in range(count):
            d2 = (x - points[k, 0]) ** 2 + (y - points[k, 1]) ** 2
            height *= 1.0 - exp(-d2 / (core * core))
        # Where crests crowd, a dune is only as high as fits its period with room to spare.
        height = np.minimum(height, 0.95 * period / footprint)
        lee_face = tan_l * upwind
        stoss_face = height - tan_s * (upwind - height / tan_l)
        out[r0:r1] = np.maximum(np.minimum(lee_face, stoss_face), 0.0)
    return out
