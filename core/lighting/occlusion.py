"""Ambient occlusion: how much of the sky a cell sees over the terrain around it.

The horizon is marched in ``directions`` directions out to ``radius`` cells
(heights and cell size in metres); the result is ``float32`` in ``[0, 1]`` of
the heightmap's shape, 1 on a plane. Bands of rows run on up to four threads,
with the same result as one. Work above :data:`.gradient.MAX_LIGHT_WORK` is
refused up front.
"""

from __future__ import annotations

import math
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ..elementary import BLOCK, power, sincos
from ..heightmap import check_count
from .gradient import F32, check_light_work, prepare_heights, worker_count

__all__ = [
    "ambient_work",
    "ambient_occlusion",
    "ambient_parameters",
    "trace_occlusion",
    "occlusion_power",
]


# --- ambient occlusion ------------------------------------------------------------------------
def _march_distances(max_cells: float, growth: float) -> list[int]:
    """Step distances in cells: every cell up to 8, then growing by ``growth`` (distinct integers)."""
    d, out = 1.0, []
    while d <= max_cells:
        out.append(int(round(d)))
        d = d + 1.0 if d < 8 else d * growth
    return sorted(set(out))


def _ambient_plan(shape: tuple[int, int], directions: int, radius: int) -> list[list[tuple[int, int, float]]]:
    """Per direction, the ``(d_row, d_col, 1 / length in cells)`` of each sample inside the map."""
    rows, cols = shape
    distances = _march_distances(float(radius), 1.25)
    plan = []
    for k in range(directions):
        az = 2.0 * math.pi * k / directions
        east, north = sincos(az)
        steps = []
        for d in distances:
            dr, dc = int(round(-north * d)), int(round(east * d))
            if abs(dr) >= rows or abs(dc) >= cols or (dr == 0 and dc == 0):
                continue
            steps.append((dr, dc, 1.0 / math.sqrt(dr * dr + dc * dc)))
        plan.append(steps)
    return plan


def ambient_work(shape: tuple[int, int], directions: int = 16, radius: int = 64) -> int:
    """Work of :func:`ambient_occlusion` on a ``(rows, cols)`` map, in cell samples.

    ``rows x cols x`` the number of samples (directions x distances) that
    fall inside the map.
    """
    rows, cols = shape
    return rows * cols * sum(len(s) for s in _ambient_plan(shape, directions, radius))


def ambient_occlusion(
    heightmap: npt.ArrayLike,
    cell_size: float = 1.0,
    *,
    z_factor: float = 1.0,
    directions: int = 16,
    radius: int = 64,
) -> F32:
    """Ambient occlusion from horizon angles: the share of the sky a cell sees.

    In the manner of horizon-based sky-view factors (Zakšek, Oštir and
    Kokalj, "Sky-view factor as a relief visualization technique", Remote
    Sensing 3, 2011; also RVT and the heightmap AO of terrain tools): in each
    of ``directions`` evenly spaced azimuths the horizon angle ``h`` is the
    steepest elevation angle of the terrain sampled within ``radius`` cells
    (at the nearest cell every cell out to 8 cells, then 25 % further each
    sample; cells beyond the map do not occlude); the cell sees
    ``1 - sin(max(h, 0))`` of the sky in that direction, averaged over the
    directions.

    **Speed.** Opposite directions are marched together: the rise
    ``h[i + dr, j + dc] - h[i, j]`` one samples at a cell is, negated, the
    rise the other samples at the far cell, so one subtraction and one
    multiplication serve two samples (with ``directions`` even; the horizons
    are exactly those of marching each direction alone). The map is padded
    with its lowest height so that a block of rows and each sample of it are
    contiguous runs of memory; blocks of rows small enough to stay in the
    processor's cache are marched southwards in ``float32``, in bands of rows
    on up to four threads. The values equal a whole-map ``float64`` march
    within about ``1e-5`` (float32 rounding), at every sample of the full
    resolution (no coarser level).

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Heights in metres.
    cell_size, z_factor : float
        As :func:`hillshade`.
    directions : int
        ``4 <= directions <= 360``.
    radius : int
        Search radius in cells, ``1 <= radius <= 100000``.

    Returns
    -------
    ndarray of float32, shape (rows, cols), in ``[0, 1]`` (1 = open sky).

    Raises
    ------
    TypeError, ValueError
        For bad parameters, naming the parameter and its range, or work above
        :data:`MAX_LIGHT_WORK` (see :func:`ambient_work`).
    """
    h, cell, z = prepare_heights(heightmap, cell_size, z_factor)
    plan = ambient_parameters(h.shape, directions, radius)
    return trace_occlusion(h, cell, z, plan=plan)


def ambient_parameters(shape: tuple[int, ...], directions: int, radius: int) -> list[list[tuple[int, int, float]]]:
    """The checked sampling plan of :func:`ambient_occlusion`, its work bounded."""
    n_dir = check_count(directions, "directions", low=4, high=360)
    r = check_count(radius, "radius", low=1, high=100_000)
    rows, cols = shape[0], shape[1]
    plan = _ambient_plan((rows, cols), n_dir, r)
    check_light_work(
        rows * cols * sum(len(s) for s in plan),
        f"ambient_occlusion: {n_dir} directions x radius {r} over {rows} x {cols} cells",
    )
    return plan


def trace_occlusion(h: F32, cell: float, z: float, *, plan: list[list[tuple[int, int, float]]]) -> F32:
    """:func:`ambient_occlusion` of checked float32 heights (not yet scaled by ``z``) with a checked plan."""
    rows, cols = h.shape
    scaled = [[(dr, dc, np.float32(inv * z / cell)) for dr, dc, inv in steps] for steps in plan]
    jobs = _ambient_jobs(scaled)
    reach = max((dr for samples, _ in jobs for dr, *_ in samples), default=0)
    # The map is laid out with ``pad`` columns each side holding its lowest height (no occluder: a rise
    # to it is never positive, a rise from it never negative) and ``pad`` more cells before and after, so
    # that a block of rows and any sample of it within the padding are each one contiguous run of memory.
    pad = min(_AO_PAD, max((abs(dc) for samples, _ in jobs for _, dc, *_ in samples), default=0))
    width = cols + 2 * pad
    flat = np.full(rows * width + 2 * pad, h.min(), np.float32)
    flat[pad : pad + rows * width].reshape(rows, width)[:, pad : pad + cols] = h
    sky = np.zeros(rows * width, np.float32)
    layout = _Layout(rows, cols, pad, width)
    block = max(1, _AO_BLOCK_CELLS // width)
    # Bands of whole blocks, several per thread, so that a thread slowed by another job does not hold up
    # the rest; a band carries its opposite directions' horizons from block to block.
    workers = worker_count(rows * cols)
    band = rows if workers == 1 else max(block, -(-rows // (workers * _AO_BANDS_PER_WORKER * block)) * block)
    bands = [(r0, min(rows, r0 + band)) for r0 in range(0, rows, band)]
    local = threading.local()

    def run(rng: tuple[int, int]) -> None:
        if not hasattr(local, "buffers"):
            b = min(block, rows)
            local.buffers = (
                np.empty(b * width, np.float32),
                np.empty((2, b * width), np.float32),
                np.empty((2, (_AO_AHEAD_BLOCKS * b + reach) * width + 2 * pad), np.float32),
            )
        for samples, members in jobs:
            _ambient_band(flat, layout, rng[0], rng[1], block, samples, members, sky, local.buffers)

    if len(bands) > 1:
        with ThreadPoolExecutor(min(workers, len(bands))) as pool:
            list(pool.map(run, bands))
    else:
        run(bands[0])
    del flat
    out = np.empty(h.shape, np.float32)
    np.multiply(sky.reshape(rows, width)[:, pad : pad + cols], np.float32(-1.0 / len(plan)), out=out)
    out += np.float32(1.0)
    np.clip(out, 0.0, 1.0, out=out)
    return out


#: Cells per block of rows of ambient occlusion: its working set is a few blocks and the rows they sample;
#: measured fastest on two cores with a 1 MiB second-level cache each.
_AO_BLOCK_CELLS = 1 << 18


#: Columns of padding beside the map for ambient occlusion's samples (farther ones are clipped, slower).
_AO_PAD = 256


#: Blocks of rows the opposite directions' buffer holds beyond the reach (it moves up once per so many).
_AO_AHEAD_BLOCKS = 4


#: Bands of rows per thread (a band is one thread's unit of work; more bands balance a shared machine).
_AO_BANDS_PER_WORKER = 4


class _Layout(NamedTuple):
    """The padded map of :func:`trace_occlusion`: ``rows x cols`` cells, ``pad`` columns each side."""

    rows: int
    cols: int
    pad: int
    width: int


Job = tuple[list[tuple[int, int, np.float32, int, int]], int]


def _ambient_jobs(plan: list[list[tuple[int, int, np.float32]]]) -> list[Job]:
    """Opposite directions paired into jobs of samples ``(d_row, d_col, scale, forward, back)``, ``d_row >= 0``.

    The rise ``h[i + dr, j + dc] - h[i, j]`` that one direction samples at
    cell ``(i, j)`` is, negated, the rise its opposite samples at
    ``(i + dr, j + dc)``: one subtraction and one multiplication serve both.
    Every sample is turned to point south (or east along a row); ``forward``
    is the member of the job (0 or 1) that samples it as it is, at the cell
    itself, ``back`` the member that samples it negated, at the far cell
    (-1 for none). The second item is the number of directions in the job.
    """
    n = len(plan)
    half = n // 2 if n % 2 == 0 else 0
    jobs: list[Job] = []
    for k in range(half or n):
        members = [k, k + half] if half else [k]
        samples: dict[tuple[int, int], list[Any]] = {}
        for m, direction in enumerate(members):
            for dr, dc, inv in plan[direction]:
                south = dr > 0 or (dr == 0 and dc > 0)
                key = (dr, dc) if south else (-dr, -dc)
                entry = samples.setdefault(key, [key[0], key[1], inv, -1, -1])
                entry[3 if south else 4] = m
        jobs.append(([(e[0], e[1], e[2], e[3], e[4]) for _, e in sorted(samples.items())], len(members)))
    return jobs


def _ambient_band(
    flat: F32,
    layout: _Layout,
    t0: int,
    t1: int,
    block: int,
    samples: list[tuple[int, int, np.float32, int, int]],
    members: int,
    sky: F32,
    buffers: tuple[F32, F32, F32],
) -> None:
    """Add one job's ``sin(horizon)`` of rows ``t0 .. t1 - 1`` to ``sky``, marching blocks of rows southwards.

    ``best[m]`` holds member ``m``'s steepest rise found at the cell itself
    for the current block; ``ahead[m]`` the steepest found through negated
    rises, negated (a running minimum), for the rows from the current block
    to ``reach`` rows past it (after ``pad`` cells of margin).
    """
    rows, _, pad, width = layout
    tmp, best, ahead = buffers
    reach = max((dr for dr, *_ in samples), default=0)
    forwards = {forward for *_, forward, _ in samples if forward >= 0}
    backs = {back for *_, back in samples if back >= 0}
    lines = (ahead.shape[1] - 2 * pad) // width  # rows base .. base + lines - 1 of the map
    base = t0
    ahead[:members].fill(0.0)
    # Rises from the rows above the band reach into it.
    for dr, dc, inv, _, back in samples:
        for a0 in range(max(0, t0 - dr), min(t0, rows - dr), block) if back >= 0 else ():
            _ambient_sample(
                flat, layout, a0, min(t0, rows - dr, a0 + block), t0, base, dr, dc, inv, -1, back, tmp, best, ahead
            )
    for r0 in range(t0, t1, block):
        r1 = min(t1, r0 + block)
        size = (r1 - r0) * width
        if r0 + block + reach > base + lines:  # the rows still to come move to the top; the rest start from 0
            kept = (base + lines - r0) * width
            for m in backs:
                ahead[m, pad : pad + kept] = ahead[m, pad + (r0 - base) * width : pad + lines * width]
                ahead[m, pad + kept :].fill(0.0)
            base = r0
        at = pad + (r0 - base) * width
        for m in forwards:
            best[m, :size].fill(0.0)  # horizons below 0 count as 0
        for dr, dc, inv, forward, back in samples:
            _ambient_sample(
                flat, layout, r0, min(r1, rows - dr), r0, base, dr, dc, inv, forward, back, tmp, best, ahead
            )
        t = tmp[:size]
        for m in sorted(forwards | backs):  # a direction without samples adds sin(0) = 0
            negated = m not in forwards  # sin(atan(t)) is odd: work on the negated horizon and subtract
            if negated:
                horizon = ahead[m, at : at + size]
            else:
                horizon = best[m, :size]
                if m in backs:
                    np.negative(ahead[m, at : at + size], out=t)
                    np.maximum(horizon, t, out=horizon)
            # sin(atan(t)) = t / sqrt(1 + t * t)
            np.multiply(horizon, horizon, out=t)
            t += np.float32(1.0)
            np.sqrt(t, out=t)
            np.divide(horizon, t, out=t)
            if negated:
                sky[r0 * width : r1 * width] -= t
            else:
                sky[r0 * width : r1 * width] += t


def _ambient_sample(
    flat: F32,
    layout: _Layout,
    a0: int,
    a1: int,
    r0: int,
    base: int,
    dr: int,
    dc: int,
    inv: np.float32,
    forward: int,
    back: int,
    tmp: F32,
    best: F32,
    ahead: F32,
) -> None:
    """One shared sample ``(dr, dc)`` of rows ``a0 .. a1 - 1``; ``best`` starts at row ``r0``, ``ahead`` at ``base``."""
    rows, cols, pad, width = layout
    if a0 >= a1:
        return
    if abs(dc) <= pad:  # whole padded rows: contiguous runs (the padding's values change nothing)
        size = (a1 - a0) * width
        at, shift = pad + a0 * width, dr * width + dc
        t = tmp[:size]
        np.subtract(flat[at + shift : at + shift + size], flat[at : at + size], out=t)
        t *= inv
        at = (a0 - r0) * width
        if forward >= 0:
            view = best[forward, at : at + size]
            np.maximum(view, t, out=view)
        if back >= 0:
            at = (a0 - base) * width
            view = ahead[back, pad + at + shift : pad + at + shift + size]
            np.minimum(view, t, out=view)
        return
    c0, c1 = pad + max(0, -dc), pad + min(cols, cols - dc)  # columns whose sample lies on the map
    if c0 >= c1:
        return
    grid = flat[pad : pad + rows * width].reshape(rows, width)
    t2 = tmp[: (a1 - a0) * width].reshape(a1 - a0, width)[:, c0:c1]
    np.subtract(grid[a0 + dr : a1 + dr, c0 + dc : c1 + dc], grid[a0:a1, c0:c1], out=t2)
    t2 *= inv
    if forward >= 0:
        view2 = best[forward, : (a1 - r0) * width].reshape(a1 - r0, width)[a0 - r0 :, c0:c1]
        np.maximum(view2, t2, out=view2)
    if back >= 0:
        lines = (ahead.shape[1] - 2 * pad) // width
        view2 = ahead[back, pad : pad + lines * width].reshape(lines, width)[
            a0 + dr - base : a1 + dr - base, c0 + dc : c1 + dc
        ]
        np.minimum(view2, t2, out=view2)


def occlusion_power(ao: F32, strength: float) -> F32:
    """``ao ** strength`` in place, ``ao`` in ``[0, 1]``: :func:`core.elementary.power` in float64, rounded to float32.

    (numpy's ``exp``, ``log`` and ``power`` differ between processors; these bits do not.)
    """
    if strength != 1.0 and not ao.flags.c_contiguous:
        np.copyto(ao, power(ao, strength), casting="same_kind")
    elif strength != 1.0:
        flat = ao.reshape(-1)  # a view: in place, a block at a time, no float64 copy of the whole map
        for i in range(0, flat.size, BLOCK):
            np.copyto(flat[i : i + BLOCK], power(flat[i : i + BLOCK], strength), casting="same_kind")
    return ao
