"""Marine deposition: the sediment rivers carry into the sea settles on the sea floor beside the coast.

The marine part of the landscape model of Yuan, Braun, Guerit, Rouby & Cordonnier, "A new efficient method
to solve the stream power law model taking into account sediment deposition" (JGR Earth Surface 124, 2019;
the marine component of fastscape): sediment that reaches the shoreline is spread over the sea floor by
linear diffusion, ``dh/dt = K_m ∇²h + Q_s``, so deltas and shelves build out from the river mouths and a
cell filled to the sea level becomes land, across which the river then runs (the delta progrades).

Orogen's simplification, one grain size and a step of the stream-power filter at a time: each step's
supply (the net volume every basin gives, arriving at the sea cell it drains to) is spread by the Green's
function of diffusion over the step, a Gaussian of standard deviation ``sqrt(2 K_m dt)``, restricted to the
sea and normalised per source, so every cubic metre that reaches the sea lands on a sea cell of the map
(:func:`spread_on_sea`). Deposits of earlier steps stay where they settled (Yuan et al. diffuse the whole
marine layer every step), and the generator's sea floor is not smoothed. The sea floor is raised at most to
the sea level; what would rise above it is carried on, out of the map (``lost``).

Heights in metres (float64), the cell size in metres, ``K_m`` in m²/yr, ``dt`` in years. The Gaussian is
three extended box filters per axis (:func:`core.filters.gaussian_convolve`, Gwosdek et al. 2011), so the cost
does not grow with the spread.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..filters import gaussian_convolve
from ..heightmap import as_heightmap, check_number

__all__ = ["MAX_SPREAD_CELLS", "spread_on_sea", "marine_spread_cells"]

_FloatArray = npt.NDArray[np.float64]

#: The largest spread (standard deviation, cells) :func:`spread_on_sea` takes; beyond it the Gaussian is wider
#: than any map Orogen builds.
MAX_SPREAD_CELLS = 1.0e5


def marine_spread_cells(diffusivity: float, dt: float, cell_size: float) -> float:
    """The standard deviation in cells of one step's spread: ``sqrt(2 K_m dt) / cell_size``, at most
    :data:`MAX_SPREAD_CELLS`.

    ``diffusivity`` in m²/yr (``[0, 1e6]``), ``dt`` in years (``(0, 1e8]``), ``cell_size`` in metres
    (``(0, 1e6]``); raises ``ValueError`` naming a value outside its range.
    """
    d = check_number(diffusivity, "marine_diffusion", low=0.0, high=1e6)
    step = check_number(dt, "dt", low=0.0, high=1e8, low_open=True)
    cs = check_number(cell_size, "cell_size", low=0.0, high=1e6, low_open=True)
    return min(math.sqrt(2.0 * d * step) / cs, MAX_SPREAD_CELLS)


def spread_on_sea(supply: npt.ArrayLike, sea: npt.ArrayLike, sigma: float) -> _FloatArray:
    """Spread ``supply`` over the ``sea`` cells by a Gaussian of ``sigma`` cells, each source's share normalised
    over the sea cells its Gaussian reaches: ``out = sea x G * (supply / (G * sea))``.

    Exactly what is supplied on sea cells is laid on sea cells (to rounding): the deposit of each source
    falls off with distance as the Gaussian does, none lands on land, and a source by a narrow bay fills the
    bay. ``supply`` off the sea is ignored.

    Parameters
    ----------
    supply : array_like, shape (rows, cols)
        Finite volume per cell (any unit: metres of thickness, m³), ``>= 0``.
    sea : array_like of bool, shape (rows, cols)
        The cells that receive.
    sigma : float
        Standard deviation in cells, ``[0, MAX_SPREAD_CELLS]``; 0 returns the supply on the sea as it is.

    Returns
    -------
    ndarray of float64, shape (rows, cols)
        0 off the sea; its sum is the sum of ``supply`` over the sea.

    Raises
    ------
    TypeError, ValueError
        For non-finite or negative supply, a mask of another shape or ``sigma`` out of range, naming it.
    """
    q = as_heightmap(supply, "supply", dtype=np.float64)
    if float(q.min()) < 0.0:
        raise ValueError(f"supply must be >= 0 everywhere, got a minimum of {float(q.min()):g}")
    wet = np.asarray(sea, dtype=bool)
    if wet.shape != q.shape:
        raise ValueError(f"sea must have the supply's shape {q.shape}, got {wet.shape}")
    sig = check_number(sigma, "sigma", low=0.0, high=MAX_SPREAD_CELLS)
    q = np.where(wet, q, 0.0)
    if sig == 0.0 or not q.any():
        return q
    reach = gaussian_convolve(wet.astype(np.float64), sig)  # per source: the share of its Gaussian on the sea
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(q > 0.0, q / reach, 0.0)  # a sea source reaches at least itself: reach > 0
    out: _FloatArray = np.where(wet, gaussian_convolve(share, sig), 0.0)
    return out
