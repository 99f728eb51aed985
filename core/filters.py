"""Heightmap filters: box blur, the one-pole erosion filter, terraces, sea level.

Filters take and return heightmaps (``float32 (rows, cols)``); each declares
the *margin* it reads around a cell (:func:`margin`), so a window of a world
can be filtered exactly like the whole (see :mod:`.window`). Blender bundles
numpy but not scipy, so the neighbourhood filters are written here with
whole-array numpy operations (no per-cell Python loops).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from .elementary import log
from .heightmap import as_heightmap, check_count, check_number
from .work import check_work_limit

__all__ = [
    "MAX_PASSES",
    "LINE_COST",
    "filter_work",
    "check_filter_work",
    "WINDOW_TOLERANCE",
    "box_blur",
    "MAX_SIGMA",
    "gaussian_blur",
    "gaussian_convolve",
    "gaussian_margin",
    "gaussian_passes",
    "erosion_filter",
    "erosion_margin",
    "terrace",
    "sea_level",
]

#: Upper bound on filter passes.
MAX_PASSES = 1000
#: What one row or column costs a pass beyond its cells, in cells: the erosion filter's recursion runs
#: line by line (numpy cannot vectorise along it), about 4 microseconds a line.
LINE_COST = 256
#: How close a window filtered by the erosion filter comes to the whole (relative to the value range).
WINDOW_TOLERANCE = 1e-7


def box_blur(heightmap: npt.ArrayLike, passes: int = 1) -> npt.NDArray[np.float32]:
    """Mean of each cell's 3 x 3 neighbourhood, repeated ``passes`` times.

    The blur of the noise-with-hills tutorial ("land blur"). Edges are smoothed
    too: a border cell takes the mean of the neighbours that exist (6 on an
    edge, 4 in a corner), so a constant map stays constant and nothing is
    skipped. Each pass reads one cell around each cell (margin = ``passes``).

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Finite heights.
    passes : int
        ``0 <= passes <= MAX_PASSES``, and the work's estimated time within
        the limit the user set (:func:`core.work.check_work_limit`); 0 returns a copy.

    Returns
    -------
    ndarray of float32, shape (rows, cols)
        Within the input's range.
    """
    passes = check_count(passes, "passes", low=0, high=MAX_PASSES)
    h: npt.NDArray[np.float64] = as_heightmap(heightmap, dtype=np.float64, float32_range=True).copy()
    check_filter_work((h.shape[0], h.shape[1]), passes)
    rows, cols = h.shape
    # How many neighbours exist along each axis (3 inside, 2 at an edge, 1 for a single row/column).
    counts = _axis_counts(rows)[:, None] * _axis_counts(cols)[None, :]
    v = np.empty_like(h)
    for _ in range(passes):
        # Sums over the neighbours that exist, rows then columns, in place (two float64 buffers in all).
        v[:] = h
        v[1:] += h[:-1]
        v[:-1] += h[1:]
        h[:] = v
        h[:, 1:] += v[:, :-1]
        h[:, :-1] += v[:, 1:]
        h /= counts
    return h.astype(np.float32)


def _axis_counts(n: int) -> npt.NDArray[np.float64]:
    counts = np.full(n, 3.0)
    counts[0] -= 1.0
    counts[-1] -= 1.0
    return np.maximum(counts, 1.0)


#: Largest Gaussian blur accepted, in cells (standard deviation).
MAX_SIGMA = 1.0e5
#: Extended box filters per axis: three give a Gaussian within a few per cent (Gwosdek et al. 2011).
_BOXES = 3


def _extended_box(variance: float) -> tuple[int, float]:
    """Radius ``r`` and end weight ``alpha`` in ``[0, 1)`` of the extended box filter of ``variance`` cells².

    The filter weighs the ``2r + 1`` cells around a cell by 1 and the next cell
    on each side by ``alpha``, over ``2r + 1 + 2 alpha``; its variance
    ``(r (r + 1)(2r + 1) / 3 + 2 alpha (r + 1)**2) / (2r + 1 + 2 alpha)`` runs
    continuously from ``r (r + 1) / 3`` (``alpha = 0``) to ``(r + 1)(r + 2) / 3``
    (Gwosdek, Grewenig, Bruhn & Weickert, "Theoretical foundations of Gaussian
    convolution by extended box filtering", SSVM 2011).
    """
    r = int((math.sqrt(1.0 + 12.0 * variance) - 1.0) / 2.0)  # largest r with r (r + 1) / 3 <= variance
    while r > 0 and r * (r + 1) / 3.0 > variance:
        r -= 1
    while (r + 1) * (r + 2) / 3.0 <= variance:
        r += 1
    alpha = (2 * r + 1) * (r * (r + 1) / 3.0 - variance) / (2.0 * (variance - (r + 1) ** 2))
    return r, min(max(alpha, 0.0), 1.0)


def _box_sums(a: npt.NDArray[np.float64], r: int, alpha: float) -> npt.NDArray[np.float64]:
    """Along axis 0: sum of ``a[i - r .. i + r]`` plus ``alpha`` times ``a[i - r - 1] + a[i + r + 1]`` (zeros outside).

    Sums of power-of-two runs are built by doubling and each cell adds the runs
    its width is made of, always in the same order relative to the cell, so a
    cell's value does not depend on where the array starts (windows are exact).
    """
    n = a.shape[0]
    pad = r + 1
    p = np.zeros((n + 2 * pad,) + a.shape[1:])
    p[pad : pad + n] = a
    width = 2 * r + 1
    out: npt.NDArray[np.float64] | None = None
    runs = p[1:]  # runs[j] = sum of p[1 + j .. j + length]: length 1 to start
    offset, length = 0, 1
    while True:
        if width & length:
            piece = runs[offset : offset + n]
            out = piece.copy() if out is None else out + piece
            offset += length
        if length * 2 > width:
            break
        runs = runs[:-length] + runs[length:]
        length *= 2
    assert out is not None
    if alpha > 0.0:
        out += alpha * (p[:n] + p[2 * pad : 2 * pad + n])
    return out


def gaussian_blur(heightmap: npt.ArrayLike, sigma: float) -> npt.NDArray[np.float32]:
    """A Gaussian blur of standard deviation ``sigma`` cells: three extended box filters along each axis.

    Each axis is filtered by three extended box filters of variance
    ``sigma**2 / 3`` each (:func:`_extended_box`; Gwosdek et al. 2011), so
    the variance is exactly ``sigma**2`` for any ``sigma`` (the blur changes
    continuously with it) and the cost grows with ``log(sigma)``, not with
    ``sigma``. Edges as :func:`box_blur`: a cell near the border takes the
    weighted mean of the cells that exist (the same filter applied to ones),
    so a constant map stays constant. Reads :func:`gaussian_margin` cells
    around each cell.

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Finite heights.
    sigma : float
        Standard deviation in cells, ``[0, MAX_SIGMA]``; 0 returns a copy.

    Returns
    -------
    ndarray of float32, shape (rows, cols)
        Within the input's range.
    """
    sig = check_number(sigma, "sigma", low=0.0, high=MAX_SIGMA)
    h: npt.NDArray[np.float64] = as_heightmap(heightmap, dtype=np.float64, float32_range=True).copy()
    check_filter_work((h.shape[0], h.shape[1]), gaussian_passes(sig))
    if sig == 0.0:
        return h.astype(np.float32)
    r, alpha = _extended_box(sig * sig / _BOXES)
    for axis in (0, 1):
        view = h if axis == 0 else h.T
        ones = np.ones((view.shape[0], 1))
        for _ in range(_BOXES):
            view[:] = _box_sums(view, r, alpha) / _box_sums(ones, r, alpha)
    return h.astype(np.float32)


def gaussian_convolve(values: npt.ArrayLike, sigma: float) -> npt.NDArray[np.float64]:
    """``values`` convolved with :func:`gaussian_blur`'s Gaussian of ``sigma`` cells, zeros outside the map.

    Unlike :func:`gaussian_blur` the weights are not renormalised at the border (a cell near it keeps less
    than it had; what falls outside is dropped) and the result is float64: the linear, symmetric operator
    itself, for sums that must add up (a quantity spread and its total, as :mod:`core.erosion.marine` does).

    Parameters
    ----------
    values : array_like, shape (rows, cols)
        Finite values of any unit.
    sigma : float
        Standard deviation in cells, ``[0, MAX_SIGMA]``; 0 returns a float64 copy.

    Returns
    -------
    ndarray of float64, shape (rows, cols)

    Raises
    ------
    TypeError, ValueError
        For non-finite values or ``sigma`` out of range, naming it.
    """
    sig = check_number(sigma, "sigma", low=0.0, high=MAX_SIGMA)
    out: npt.NDArray[np.float64] = as_heightmap(values, "values", dtype=np.float64).copy()
    if sig == 0.0:
        return out
    r, alpha = _extended_box(sig * sig / _BOXES)
    total = 2 * r + 1 + 2 * alpha
    for axis in (0, 1):
        view = out if axis == 0 else out.T
        for _ in range(_BOXES):
            view[:] = _box_sums(view, r, alpha) / total
    return out


def gaussian_margin(sigma: float) -> int:
    """Cells :func:`gaussian_blur` reads around a cell (its three boxes' reach)."""
    sig = check_number(sigma, "sigma", low=0.0, high=MAX_SIGMA)
    if sig == 0.0:
        return 0
    r, _ = _extended_box(sig * sig / _BOXES)
    return _BOXES * (r + 1)


def gaussian_passes(sigma: float) -> int:
    """Work of :func:`gaussian_blur` in 3 x 3 box-blur passes (for :func:`check_filter_work`)."""
    sig = check_number(sigma, "sigma", low=0.0, high=MAX_SIGMA)
    if sig == 0.0:
        return 0
    r, _ = _extended_box(sig * sig / _BOXES)
    return 2 * (2 * r + 3).bit_length()


def erosion_margin(k: float, passes: int, tolerance: float = WINDOW_TOLERANCE) -> int:
    """Cells the erosion filter must read around a window for ``tolerance``.

    One direction of the filter weighs the value ``m`` cells back by
    ``(1 - k) * k**m``; beyond ``m`` cells all weights sum to ``k**m``. With
    ``m = ceil(log(tolerance) / log(k))`` per pass and direction, the window's
    result differs from the whole by at most about ``4 * passes * tolerance``
    times the value range.
    """
    k = check_number(k, "k", low=0.0, high=1.0, high_open=True)
    passes = check_count(passes, "passes", low=0, high=MAX_PASSES)
    tolerance = check_number(tolerance, "tolerance", low=1e-300, high=1.0, high_open=True)
    if k == 0.0:
        return 0
    return passes * math.ceil(float(log(tolerance)) / float(log(k)))


def erosion_filter(heightmap: npt.ArrayLike, k: float = 0.5, passes: int = 1) -> npt.NDArray[np.float32]:
    """The one-pole low-pass "FIR" erosion filter, run in all four directions.

    From the fault-formation literature (Polack, *Focus on 3D Terrain
    Programming*, 2002, and the fractal-terrain tutorials that follow it):
    along a line of cells ``y_i = k * y_(i-1) + (1 - k) * x_i`` with
    ``y_0 = x_0``. One pass filters every row left to right and right to
    left, then every column top to bottom and bottom to top, so the result
    has no directional bias. (Despite the literature's name the filter is
    recursive, an exponential moving average.)

    Windows: the filter's reach is unbounded but decays as ``k**m``; a window
    read with :func:`erosion_margin` cells around it matches the whole within
    about ``4 * passes * WINDOW_TOLERANCE`` of the value range.

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Finite heights.
    k : float
        Filter coefficient in ``[0, 1)``; 0 leaves the map as it is, values
        near 1 smooth strongly.
    passes : int
        ``0 <= passes <= MAX_PASSES``, and the work's estimated time within
        the limit the user set (:func:`core.work.check_work_limit`).

    Returns
    -------
    ndarray of float32, shape (rows, cols)
        Within the input's range (each step is a convex combination).
    """
    k = check_number(k, "k", low=0.0, high=1.0, high_open=True)
    passes = check_count(passes, "passes", low=0, high=MAX_PASSES)
    h: npt.NDArray[np.float64] = as_heightmap(heightmap, dtype=np.float64, float32_range=True).copy()
    check_filter_work((h.shape[0], h.shape[1]), passes)
    if k == 0.0:
        return h.astype(np.float32)
    for _ in range(passes):
        for axis in (1, 0):
            view = h if axis == 1 else h.T  # filter along columns of view = along rows of h
            _one_pole(view, k, reverse=False)
            _one_pole(view, k, reverse=True)
    return h.astype(np.float32)


def filter_work(shape: tuple[int, int], passes: int) -> int:
    """Work of ``passes`` filter passes over a ``(rows, cols)`` heightmap, in cell passes.

    ``passes x (rows x cols + LINE_COST x (rows + cols))``: the cells, plus
    the per-line cost that dominates on thin maps (a 2 x 4097 strip).
    """
    rows, cols = shape
    return passes * (rows * cols + LINE_COST * (rows + cols))


def check_filter_work(shape: tuple[int, int], passes: int, what: str = "passes") -> None:
    """Refuse filtering whose estimated time is over the limit the user set (:mod:`core.work`).

    :func:`filter_work` of ``shape`` and ``passes``, in seconds
    (:func:`core.work.work_seconds`), over ``OROGEN_WORK_LIMIT`` or the
    add-on's preference raises ``ValueError`` naming ``what``, the limit and
    the setting; with no limit set nothing is refused. :func:`box_blur`,
    :func:`erosion_filter` and a recipe's filter stack call this before any work.
    """
    work = filter_work(shape, passes)
    check_work_limit(
        work,
        f"{what}: {passes} passes over {shape[0]} x {shape[1]} cells",
        "use fewer passes or a smaller heightmap",
        cells=shape[0] * shape[1],
    )


def _one_pole(view: npt.NDArray[np.float64], k: float, reverse: bool) -> None:
    """In place along axis 1 of ``view``: ``y_i = k * y_(i-1) + (1 - k) * x_i``, ``y_0 = x_0``."""
    n = view.shape[1]
    order = range(n - 2, -1, -1) if reverse else range(1, n)
    step = 1 if reverse else -1
    one_minus_k = 1.0 - k
    for i in order:  # a loop over one dimension; each step is a whole-column numpy operation
        view[:, i] = k * view[:, i + step] + one_minus_k * view[:, i]


def terrace(heightmap: npt.ArrayLike, levels: int = 8, smoothness: float = 0.5) -> npt.NDArray[np.float32]:
    """Quantise normalised heights into ``levels`` terraces joined by smooth steps.

    Each band ``[i / levels, (i + 1) / levels)`` becomes a flat terrace for the
    first ``1 - smoothness`` of it and rises to the next terrace over the rest
    with a smoothstep ``3t**2 - 2t**3``. ``smoothness = 1`` gives rounded
    steps everywhere, values near 0 hard cliffs. Monotonic; 0 stays 0 and 1
    stays 1.

    Parameters
    ----------
    heightmap : array_like, shape (rows, cols)
        Normalised heights; values outside ``[0, 1]`` are clipped first.
    levels : int
        Number of terraces, ``1 <= levels <= 4096``.
    smoothness : float
        In ``(0, 1]``.

    Returns
    -------
    ndarray of float32, shape (rows, cols), in ``[0, 1]``.
    """
    levels = check_count(levels, "levels", low=1, high=4096)
    w = check_number(smoothness, "smoothness", low=0.0, high=1.0, low_open=True)
    t = np.clip(as_heightmap(heightmap, dtype=np.float64, float32_range=True), 0.0, 1.0) * levels
    band = np.minimum(np.floor(t), levels - 1)
    f = np.clip((t - band - (1.0 - w)) / w, 0.0, 1.0)
    out: npt.NDArray[np.float32] = ((band + f * f * (3.0 - 2.0 * f)) / levels).astype(np.float32)
    return out


def sea_level(heightmap: npt.ArrayLike, level: float = 0.2) -> npt.NDArray[np.float32]:
    """Clamp heights below ``level`` to ``level``: a flat sea floor (or water surface).

    ``heightmap`` holds normalised heights; ``level`` is in ``[0, 1]``.
    Returns ``float32 (rows, cols)`` in ``[level, max(level, h.max())]``.
    """
    lv = check_number(level, "level", low=0.0, high=1.0)
    h = as_heightmap(heightmap, dtype=np.float64, float32_range=True)
    out: npt.NDArray[np.float32] = np.maximum(h, lv).astype(np.float32)
    return out
