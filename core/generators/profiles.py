"""2-D side-view mountain profiles (one height per column), as for artillery and lander games.

Two methods from the classic answers on side-view landscape generation:

* :func:`slope_walk` -- a random walk of the slope: start at a random height
  with a random slope; each column adds the slope to the height and changes
  the slope by a random amount; both are clipped, and the slope reverses when
  the height reaches the minimum or maximum, which makes an instant peak or
  valley instead of a plateau.
* :func:`sectioned_profile` -- one random point per section, sub-points
  interpolated between consecutive points and offset by a limited shift,
  then random smoothing steps that pull a point toward its neighbours
  (``0.05 * left + 0.9 * point + 0.05 * right``). Each section draws from
  its own sub-seed of the level seed, so a section can be generated alone
  and equals the same columns of the whole profile.

Heights are in whatever unit the bounds are given in (pixels, metres).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..heightmap import check_count, check_number
from ..rng import check_seed, sub_seed, uniform

__all__ = ["MAX_COLUMNS", "MAX_PROFILE_WORK", "slope_walk", "section_bounds", "section_columns", "sectioned_profile"]

#: Upper bound on profile length (columns).
MAX_COLUMNS = 1 << 24
#: Upper bound on the points and smoothing steps of one sectioned profile (about ten seconds of work).
MAX_PROFILE_WORK = 20_000_000


def _bounds(min_height: float, max_height: float) -> tuple[float, float]:
    lo = check_number(min_height, "min_height", low=-1e9, high=1e9)
    hi = check_number(max_height, "max_height", low=-1e9, high=1e9)
    if not lo < hi:
        raise ValueError(f"min_height ({lo}) must be < max_height ({hi})")
    return lo, hi


def slope_walk(
    columns: int,
    seed: int = 0,
    *,
    min_height: float = 0.0,
    max_height: float = 100.0,
    max_slope: float = 2.5,
    slope_change: float = 1.0,
) -> npt.NDArray[np.float32]:
    """Side-view profile by a random walk of the slope.

    Parameters
    ----------
    columns : int
        Profile length, ``1 <= columns <= MAX_COLUMNS``.
    seed : int
        In ``[0, 2**64 - 1]``.
    min_height, max_height : float
        Height bounds, ``min_height < max_height``.
    max_slope : float
        Largest slope magnitude (height units per column), ``> 0``.
    slope_change : float
        Largest change of the slope per column, ``>= 0``; larger is more
        jagged.

    Returns
    -------
    ndarray of float32, shape (columns,)
        Heights in ``[min_height, max_height]``. When the walk reaches a bound
        the height is clamped to it and the slope points back into the range
        (at least ``max_slope / 1024`` steep, and steep enough to change the
        float32 height), so no two consecutive columns lie on the same bound
        (no plateaus).

    Raises
    ------
    TypeError, ValueError
        For bad parameters, naming the parameter and its range.
    """
    n = check_count(columns, "columns", low=1, high=MAX_COLUMNS)
    seed = check_seed(seed)
    lo, hi = _bounds(min_height, max_height)
    s_max = check_number(max_slope, "max_slope", low=0.0, high=1e9, low_open=True)
    change = check_number(slope_change, "slope_change", low=0.0, high=1e9)
    index = np.arange(n, dtype=np.int64)
    steps = ((uniform(seed, "walk/change", index) * 2.0 - 1.0) * change).tolist()
    height = lo + float(uniform(seed, "walk/start", 0)[0]) * (hi - lo)
    slope = (float(uniform(seed, "walk/slope", 0)[0]) * 2.0 - 1.0) * s_max
    # After a turn the slope is at least this steep, so the next column leaves the bound even in float32.
    turn = max(s_max / 1024.0, 4.0 * float(np.spacing(np.float32(max(abs(lo), abs(hi))))))
    out = np.empty(n, dtype=np.float64)
    # Sequential by nature (each column depends on the last): a loop over one dimension.
    for i, step in enumerate(steps):
        out[i] = height
        height += slope
        slope = min(max(slope + step, -s_max), s_max)
        if height >= hi:
            height, slope = hi, -max(abs(slope), turn)
        elif height <= lo:
            height, slope = lo, max(abs(slope), turn)
    return out.astype(np.float32)


def section_bounds(columns: int, sections: int) -> npt.NDArray[np.int64]:
    """Column boundaries of the equal runs in which the sections' points lie: ``int64 (sections + 1,)``."""
    return (np.arange(sections + 1, dtype=np.int64) * columns) // sections


def _anchor(seed: int, i: int, bounds: npt.NDArray[np.int64], lo: float, hi: float) -> tuple[float, float]:
    """Random point of section ``i`` (from its sub-seed): column within the section, height in range."""
    s = sub_seed(seed, "profile/section", i)
    a, b = int(bounds[i]), int(bounds[i + 1])
    x = a + float(uniform(s, "anchor/x", 0)[0]) * (b - a)
    y = lo + float(uniform(s, "anchor/y", 0)[0]) * (hi - lo)
    return x, y


def _smoothed_anchor(seed: int, i: int, bounds: npt.NDArray[np.int64], lo: float, hi: float) -> tuple[float, float]:
    """Section ``i``'s point with its height smoothed against its neighbours' (1/4, 1/2, 1/4).

    The random smoothing steps move only sub-points, so that every section
    stays independent; this fixed step rounds the peaks and valleys at the
    sections' own points, and needs only the neighbouring sections' sub-seeds.
    """
    n_sec = len(bounds) - 1
    x, y = _anchor(seed, i, bounds, lo, hi)
    y_prev = _anchor(seed, i - 1, bounds, lo, hi)[1] if i > 0 else y
    y_next = _anchor(seed, i + 1, bounds, lo, hi)[1] if i + 1 < n_sec else y
    return x, 0.25 * y_prev + 0.5 * y + 0.25 * y_next


def sectioned_profile(
    columns: int,
    seed: int = 0,
    *,
    sections: int = 16,
    sub_points: int = 5,
    shift: float = 0.2,
    smoothing_steps: int = 400,
    min_height: float = 0.0,
    max_height: float = 100.0,
    section: int | None = None,
) -> npt.NDArray[np.float32]:
    """Side-view profile by sectioned interpolation with smoothing.

    The profile is split into ``sections`` equal runs of columns with one
    random point in each (its height then smoothed once with its neighbours',
    1/4, 1/2, 1/4). Section ``i`` owns the columns from its point to
    the next section's point (:func:`section_columns`; the first and last
    sections also reach the profile's ends, held at their point's height).
    Between the two points ``sub_points - 1`` points are interpolated and
    offset by up to ``shift`` (a fraction: of the spacing across, of the
    height range up and down); then ``smoothing_steps``
    random steps each pull one inner point toward its neighbours. All of
    section ``i``'s random values come from ``sub_seed(seed, "profile/section",
    i)``, so the section can be generated alone (``section=i``).

    Parameters
    ----------
    columns : int
        Profile length, ``sections <= columns <= MAX_COLUMNS``.
    seed : int
        Level seed, in ``[0, 2**64 - 1]``.
    sections : int
        ``1 <= sections <= 65536``.
    sub_points : int
        Points per section, ``1 <= sub_points <= 4096``.
    shift : float
        Offset limit as a fraction, ``[0, 1]``.
    smoothing_steps : int
        Random smoothing steps per section, ``0 <= smoothing_steps <= 10**7``.
    min_height, max_height : float
        Height bounds, ``min_height < max_height``; the result is clipped to them.
    section : int, optional
        Generate only this section's columns.

    Returns
    -------
    ndarray of float32
        Shape ``(columns,)``, or, with ``section``, the columns
        ``section_columns(columns, seed, sections, section)`` of it.

    Raises
    ------
    TypeError, ValueError
        For bad parameters, naming the parameter and its range, or more than
        ``MAX_PROFILE_WORK`` points and smoothing steps in all.
    """
    n_sec = check_count(sections, "sections", low=1, high=65536)
    n = check_count(columns, "columns", low=n_sec, high=MAX_COLUMNS)
    seed = check_seed(seed)
    k = check_count(sub_points, "sub_points", low=1, high=4096)
    frac = check_number(shift, "shift", low=0.0, high=1.0)
    steps = check_count(smoothing_steps, "smoothing_steps", low=0, high=10**7)
    lo, hi = _bounds(min_height, max_height)
    work = len(range(n_sec) if section is None else [0]) * (steps + k)
    if work > MAX_PROFILE_WORK:
        raise ValueError(
            f"sections x (smoothing_steps + sub_points) is {work:.3g}, more than "
            f"{MAX_PROFILE_WORK:.0e}: use fewer sections, sub-points or smoothing steps"
        )
    bounds = section_bounds(n, n_sec)
    wanted = range(n_sec) if section is None else [check_count(section, "section", low=0, high=n_sec - 1)]
    parts = [_section_heights(seed, i, bounds, k, frac, steps, lo, hi) for i in wanted]
    return np.concatenate(parts).astype(np.float32)


def section_columns(columns: int, seed: int, sections: int, *, section: int) -> tuple[int, int]:
    """First and one-past-last column of section ``section`` (see :func:`sectioned_profile`).

    Section ``i`` owns the columns from its random point to the next
    section's point (the first from column 0, the last to the end).
    """
    n_sec = check_count(sections, "sections", low=1, high=65536)
    n = check_count(columns, "columns", low=n_sec, high=MAX_COLUMNS)
    bounds = section_bounds(n, n_sec)
    return _owned(check_seed(seed), check_count(section, "section", low=0, high=n_sec - 1), bounds)


def _owned(seed: int, i: int, bounds: npt.NDArray[np.int64]) -> tuple[int, int]:
    n_sec = len(bounds) - 1
    start = 0 if i == 0 else int(np.ceil(_anchor(seed, i, bounds, 0.0, 1.0)[0]))
    stop = int(bounds[-1]) if i == n_sec - 1 else int(np.ceil(_anchor(seed, i + 1, bounds, 0.0, 1.0)[0]))
    return start, stop


def _section_heights(
    seed: int, i: int, bounds: npt.NDArray[np.int64], k: int, frac: float, steps: int, lo: float, hi: float
) -> npt.NDArray[np.float64]:
    """Heights of the columns section ``i`` owns (see :func:`section_columns`), ``float64``."""
    n_sec = len(bounds) - 1
    s = sub_seed(seed, "profile/section", i)
    x0, y0 = _smoothed_anchor(seed, i, bounds, lo, hi)
    x1, y1 = _smoothed_anchor(seed, i + 1, bounds, lo, hi) if i + 1 < n_sec else (float(bounds[-1]), y0)
    idx = np.arange(1, k, dtype=np.int64)
    t = idx / k
    spacing = (x1 - x0) / k
    # Across, sub-points move less than half their spacing so they stay in order.
    xs = x0 + t * (x1 - x0) + (uniform(s, "sub/x", idx) - 0.5) * (0.9 * frac * spacing)
    ys = y0 + t * (y1 - y0) + (uniform(s, "sub/y", idx) - 0.5) * (frac * (hi - lo))
    fx, fy = [x0, *xs.tolist(), x1], [y0, *ys.tolist(), y1]
    if k > 1 and steps:
        picks = (uniform(s, "smooth/pick", np.arange(steps, dtype=np.int64)) * (k - 1)).astype(np.int64) + 1
        for j in picks.tolist():  # sequential: each step sees the previous ones (anchors stay fixed)
            fx[j] = 0.05 * fx[j - 1] + 0.9 * fx[j] + 0.05 * fx[j + 1]
            fy[j] = 0.05 * fy[j - 1] + 0.9 * fy[j] + 0.05 * fy[j + 1]
    start, stop = _owned(seed, i, bounds)
    cols = np.arange(start, stop, dtype=np.float64)
    # np.interp holds the end heights beyond the points (the first and last sections' outer columns).
    return np.clip(np.interp(cols, np.array(fx), np.array(fy)), lo, hi)
