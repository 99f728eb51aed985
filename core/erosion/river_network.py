"""Geomorphic statistics of a drainage network: do these channels look like real rivers?

Given any single-flow routing (receivers and receiver distances, from
:mod:`.flow` or another library) and heights, these measure what
field studies measure on real landscapes:

* **channel concavity** ``θ``: along channels slope falls with drainage
  area as ``S = k_s A^(-θ)`` (Flint's law, Flint 1974), ``θ`` about 0.35–0.6
  in nature; fitted by least squares on ``log S`` against ``log A`` over the
  channel cells, with its R²;
* **Hack's exponent** ``h``: the upstream length of the longest flow path
  grows as ``L ∝ A^h`` (Hack 1957), ``h`` about 0.5–0.6;
* the share of **channel cells in closed depressions**: cells whose
  depression-filled height is above their height (a real river network
  drains; a noise terrain is pocked with pits).

Used by the tests to check eroded terrains against an independent routing
(fastscapelib's).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..heightmap import as_heightmap, check_number

__all__ = ["LogFit", "stack_from_receivers", "upstream_length", "concavity", "hack_exponent", "depression_share"]

_IntArray = npt.NDArray[np.int64]
_FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class LogFit:
    """A least-squares line ``log10 y = intercept + exponent · log10 x`` over ``count`` cells, with its R²."""

    exponent: float
    intercept: float
    r2: float
    count: int


def _fit(x: _FloatArray, y: _FloatArray) -> LogFit:
    ok = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    lx, ly = np.log10(x[ok]), np.log10(y[ok])
    if lx.size < 3 or np.ptp(lx) == 0.0:
        raise ValueError("too few channel cells with positive values to fit a power law")
    a, b = np.polyfit(lx, ly, 1)
    resid = ly - (a * lx + b)
    total = float(((ly - ly.mean()) ** 2).sum())
    r2 = 1.0 - float((resid**2).sum()) / total if total > 0 else 0.0
    return LogFit(float(a), float(b), r2, int(lx.size))


def _receivers(receivers: npt.ArrayLike, size: int) -> _IntArray:
    rec = np.asarray(receivers).astype(np.int64).ravel()
    if rec.size != size or rec.min() < 0 or rec.max() >= size:
        raise ValueError(f"receivers must hold {size} flat cell indices in [0, {size - 1}]")
    return rec


def stack_from_receivers(receivers: npt.ArrayLike) -> tuple[_IntArray, _IntArray]:
    """Levels of a receiver tree: cells sorted by their number of steps to the outlet.

    Returns ``(order, starts)`` like :class:`.flow.FlowRouting`'s ``order`` and
    ``level_starts``. The depth is found by pointer jumping (``O(n log n)``),
    so any routing (another library's) can be measured.

    Raises
    ------
    ValueError
        If the receivers have a cycle other than an outlet (its own receiver).
    """
    rec = np.asarray(receivers).astype(np.int64).ravel()
    rec = _receivers(rec, rec.size)
    depth = (rec != np.arange(rec.size)).astype(np.int64)
    ptr = rec.copy()
    for _ in range(64):
        nxt = ptr[ptr]
        if np.array_equal(nxt, ptr):
            break
        depth += depth[ptr]
        ptr = nxt
    else:
        raise ValueError("receivers do not form a tree (a cycle that is not an outlet)")
    order = np.argsort(depth, kind="stable").astype(np.int64)
    starts = np.searchsorted(depth[order], np.arange(int(depth.max()) + 2)).astype(np.int64)
    return order, starts


def upstream_length(receivers: npt.ArrayLike, distances: npt.ArrayLike) -> _FloatArray:
    """Length (same unit as ``distances``) of the longest flow path from a divide to each cell.

    ``receivers``: flat receiver index per cell (any shape, raveled);
    ``distances``: distance to the receiver. Returns a flat float64 array.
    """
    rec = np.asarray(receivers).astype(np.int64).ravel()
    dist = np.asarray(distances, dtype=np.float64).ravel()
    order, starts = stack_from_receivers(rec)
    length = np.zeros(rec.size)
    for k in range(len(starts) - 2, 0, -1):
        cells = order[starts[k] : starts[k + 1]]
        np.maximum.at(length, rec[cells], length[cells] + dist[cells])
    return length


def concavity(
    heights_m: npt.ArrayLike,
    receivers: npt.ArrayLike,
    distances: npt.ArrayLike,
    *,
    area: npt.ArrayLike,
    min_area: float,
) -> LogFit:
    """Channel concavity: the fit of ``log S`` against ``log A`` over cells with ``A >= min_area``.

    ``S = (z - z_receiver) / distance`` (cells with ``S <= 0``, in lakes, are
    left out). Returns a :class:`LogFit` whose ``exponent`` is ``-θ``.
    """
    z = as_heightmap(heights_m, "heights_m", dtype=np.float64).ravel()
    rec = _receivers(receivers, z.size)
    dist = np.asarray(distances, dtype=np.float64).ravel()
    a = np.asarray(area, dtype=np.float64).ravel()
    threshold = check_number(min_area, "min_area", low=0.0)
    channel = (a >= threshold) & (dist > 0)
    slope = (z[channel] - z[rec[channel]]) / dist[channel]
    return _fit(a[channel], slope)


def hack_exponent(length: npt.ArrayLike, area: npt.ArrayLike, min_area: float) -> LogFit:
    """Hack's law: the fit of ``log L`` against ``log A`` over cells with ``A >= min_area``; ``exponent`` is ``h``."""
    a = np.asarray(area, dtype=np.float64).ravel()
    lengths = np.asarray(length, dtype=np.float64).ravel()
    threshold = check_number(min_area, "min_area", low=0.0)
    channel = a >= threshold
    return _fit(a[channel], lengths[channel])


def depression_share(
    heights_m: npt.ArrayLike, filled_m: npt.ArrayLike, area: npt.ArrayLike, *, min_area: float, depth: float = 1e-3
) -> float:
    """Share of channel cells (``A >= min_area``) in closed depressions: filled height above height by ``> depth`` m.

    ``filled_m`` is the depression-filled surface (priority flood, from any
    library). Returns a number in ``[0, 1]``.
    """
    z = as_heightmap(heights_m, "heights_m", dtype=np.float64)
    f = as_heightmap(filled_m, "filled_m", dtype=np.float64)
    a = np.asarray(area, dtype=np.float64).reshape(z.shape)
    channel = a >= check_number(min_area, "min_area", low=0.0)
    if not channel.any():
        raise ValueError("no channel cells: lower min_area")
    return float(((f - z > depth) & channel).sum() / channel.sum())
