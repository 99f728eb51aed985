"""Linear hillslope diffusion ``dz/dt = D ∇²z`` by the Peaceman-Rachford ADI scheme.

One half step implicit along rows and explicit along columns, then the
reverse (Peaceman & Rachford 1955): unconditionally stable, second order in
time, each implicit line a tridiagonal system solved by the Thomas algorithm
with factors shared by every line. Heights in metres (``float64``), cell size
in metres, ``D`` in m²/yr, ``dt`` in years. Open edges (letters of
``"nesw"``) hold their heights (Dirichlet); closed edges pass no flux
(Neumann), so a closed map keeps its volume.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..heightmap import as_heightmap, check_number
from .flow import check_open_edges

__all__ = ["hillslope_diffusion", "adi_diffusion"]

_FloatArray = npt.NDArray[np.float64]


def _tridiagonal_factors(size: int, f: float, open_start: bool, open_end: bool) -> tuple[_FloatArray, _FloatArray]:
    """Thomas-algorithm factors of ``(1 + 2f) x_i - f x_(i-1) - f x_(i+1)`` with fixed or no-flux ends.

    Returns ``(inv_beta, gamma)``: the forward sweep is
    ``y_i = (b_i - a_i y_(i-1)) * inv_beta_i`` and the back substitution
    ``x_i = y_i - gamma_(i+1) x_(i+1)``; the same for every line, so computed once.
    """
    lower = np.full(size, -f)
    diag = np.full(size, 1.0 + 2.0 * f)
    upper = np.full(size, -f)
    lower[0] = upper[-1] = 0.0
    if open_start:
        diag[0], upper[0] = 1.0, 0.0
    else:  # mirror ghost cell: no flux through the edge
        diag[0], upper[0] = 1.0 + f, -f
    if open_end:
        diag[-1], lower[-1] = 1.0, 0.0
    else:
        diag[-1], lower[-1] = 1.0 + f, -f
    if size == 1:
        diag[0] = 1.0
    inv_beta = np.empty(size)
    gamma = np.zeros(size)
    beta = diag[0]
    inv_beta[0] = 1.0 / beta
    for i in range(1, size):  # one line of scalars, shared by every row
        gamma[i] = upper[i - 1] / beta
        beta = diag[i] - lower[i] * gamma[i]
        inv_beta[i] = 1.0 / beta
    return inv_beta, gamma


def _adi_half(
    z: _FloatArray, f_impl: float, f_expl: float, impl_open: tuple[bool, bool], expl_open: tuple[bool, bool]
) -> _FloatArray:
    """One Peaceman-Rachford half step: implicit along axis 0 of ``z``, explicit along axis 1.

    ``z`` is ``(lines, points)`` with the implicit direction along axis 0 (so
    each step of the sweeps is a contiguous row of the array).
    """
    n0, n1 = z.shape
    # explicit part along axis 1, with no-flux mirrors at closed ends
    left = np.empty_like(z)
    right = np.empty_like(z)
    left[:, 1:] = z[:, :-1]
    right[:, :-1] = z[:, 1:]
    left[:, 0] = z[:, 0]
    right[:, -1] = z[:, -1]
    rhs = (1.0 - 2.0 * f_expl) * z + f_expl * (left + right)
    if expl_open[0]:
        rhs[:, 0] = z[:, 0]
    if expl_open[1]:
        rhs[:, -1] = z[:, -1]
    # implicit part along axis 0: fixed ends keep their value
    if impl_open[0]:
        rhs[0] = z[0]
    if impl_open[1]:
        rhs[-1] = z[-1]
    inv_beta, gamma = _tridiagonal_factors(n0, f_impl, impl_open[0], impl_open[1])
    lower0 = 0.0 if impl_open[1] else -f_impl
    out = np.empty_like(z)
    out[0] = rhs[0] * inv_beta[0]
    for i in range(1, n0):
        a = lower0 if i == n0 - 1 else -f_impl
        out[i] = (rhs[i] - a * out[i - 1]) * inv_beta[i]
    for i in range(n0 - 2, -1, -1):
        out[i] -= gamma[i + 1] * out[i + 1]
    # fixed lines of the explicit direction are not solved at all
    if expl_open[0]:
        out[:, 0] = z[:, 0]
    if expl_open[1]:
        out[:, -1] = z[:, -1]
    return out


def hillslope_diffusion(
    heights_m: npt.ArrayLike, cell_size: float, diffusivity: float, *, dt: float, open_edges: str = "nesw"
) -> _FloatArray:
    """One implicit time step of linear hillslope diffusion ``dz/dt = D ∇²z`` (ADI).

    Peaceman & Rachford's alternating-direction implicit scheme ("The
    numerical solution of parabolic and elliptic differential equations",
    1955): a half step implicit along columns (each row a tridiagonal
    system), then a half step implicit along rows, each explicit in the other
    direction; unconditionally stable, second order in time.

    Parameters
    ----------
    heights_m : array_like, shape (rows, cols)
        Heights in metres.
    cell_size : float
        Metres, in ``(0, 1e6]``.
    diffusivity : float
        ``D`` in m²/yr, in ``[0, 1e6]``.
    dt : float
        Years, in ``(0, 1e8]``.
    open_edges : str
        Letters of ``"nesw"``: these edges keep their heights (fixed value);
        the others pass no flux.

    Returns
    -------
    ndarray of float64, shape (rows, cols)
    """
    z = as_heightmap(heights_m, "heights_m", dtype=np.float64)
    cs = check_number(cell_size, "cell_size", low=0.0, high=1e6, low_open=True)
    d = check_number(diffusivity, "diffusivity", low=0.0, high=1e6)
    t = check_number(dt, "dt", low=0.0, high=1e8, low_open=True)
    return adi_diffusion(z, cs, d, dt=t, open_edges=check_open_edges(open_edges))


def adi_diffusion(z: _FloatArray, cell_size: float, d: float, *, dt: float, open_edges: str) -> _FloatArray:
    """:func:`hillslope_diffusion` on checked input: ``float64`` heights in metres, ``open_edges`` checked letters."""
    if d == 0.0:
        return z.copy()
    f = 0.5 * d * dt / (cell_size * cell_size)
    rows_open = ("n" in open_edges, "s" in open_edges)
    cols_open = ("w" in open_edges, "e" in open_edges)
    # half step 1: implicit along each row (x), explicit along columns (y); work on the transpose
    half = _adi_half(np.ascontiguousarray(z.T), f, f, cols_open, rows_open).T
    # half step 2: implicit along columns (y), explicit along rows (x)
    out = _adi_half(np.ascontiguousarray(half), f, f, rows_open, cols_open)
    return out
