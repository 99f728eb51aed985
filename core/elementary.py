"""Deterministic elementary functions: the same bits on every CPU, operating system and numpy version.

numpy's transcendental ufuncs (``arctan``, ``exp``, ``log``, ``power``,
``sin``, ``tan``, ...) dispatch at run time to vector code chosen for the
processor (Intel's SVML on AVX-512, numpy's own AVX2 and SSE loops, the C
library elsewhere), and the paths differ in the last bits: a float32 slope
map differs by up to 2 ulp with AVX-512 on or off, and float64 ``exp`` and
``arctan`` differ between numpy 1.26 and 2.x on the same processor. The
functions here are built only from IEEE 754 operations that are correctly
rounded, hence identical everywhere: ``+ - * /``, ``floor``, ``abs``,
comparisons, ``where``, ``frexp`` and ``ldexp`` (exact), each applied by
numpy one at a time (numpy never fuses a multiply and an add).

They are the Cephes Mathematical Library's double-precision algorithms
(Stephen L. Moshier, *Methods and Programs for Mathematical Functions*,
Prentice-Hall 1989; Cephes 2.8 ``atan.c``, ``exp.c``, ``log.c``,
``sin.c``): a Cody-Waite argument reduction (W. J. Cody and W. Waite,
*Software Manual for the Elementary Functions*, 1980; J.-M. Muller,
*Elementary Functions: Algorithms and Implementation*, 3rd ed., Birkhäuser
2016, ch. 11) followed by a minimax rational or polynomial approximation,
with Cephes' published coefficients. Their relative error is below about
``2.5e-16`` (a float64 ulp or two) on the documented domains, so a result
rounded to float32 is the correctly rounded float32 value except where the
exact value lies within ``1e-16`` relative of a float32 rounding boundary
(about one value in ``10**8``).

Every function takes an ``array_like`` of any shape and returns a new
``float64`` array of that shape (a 0-d array for a scalar); NaN gives NaN.
They run :data:`BLOCK` elements at a time, so their dozen temporaries stay
in cache and a large input costs no more memory than its result (as
numpy's own ufunc would).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

__all__ = ["atan", "atan2", "exp", "expm1", "log", "power", "sin", "cos", "sincos", "tangent"]

F64 = npt.NDArray[np.float64]

_PIO2 = 1.57079632679489661923
_PIO4 = 7.85398163397448309616e-1
_T3P8 = 2.41421356237309504880  # tan(3 pi / 8)
_MOREBITS = 6.123233995736765886130e-17  # pi/2 - float64(pi/2)
_ATAN_P = (
    -8.750608600031904122785e-1,
    -1.615753718733365076637e1,
    -7.500855792314704667340e1,
    -1.228866684490136173410e2,
    -6.485021904942025371773e1,
)
_ATAN_Q = (  # leading coefficient 1
    2.485846490142306297962e1,
    1.650270098316988542046e2,
    4.328810604912902668951e2,
    4.853903996359136964868e2,
    1.945506571482613964425e2,
)

_LOG2E = 1.4426950408889634073599
_EXP_C1 = 6.93145751953125e-1  # ln 2 = C1 + C2, C1 with 12 bits: n * C1 is exact
_EXP_C2 = 1.42860682030941723212e-6
_EXP_P = (1.26177193074810590878e-4, 3.02994407707441961300e-2, 9.99999999999999999910e-1)
_EXP_Q = (3.00198505138664455042e-6, 2.52448340349684104192e-3, 2.27265548208155028766e-1, 2.00000000000000000009e0)
_MAXLOG = 7.09782712893383996843e2  # log(largest float64)
_MINLOG = -7.451332191019412076235e2  # log(smallest subnormal float64)

_SQRTH = 0.70710678118654752440
_LN2_HI = 0.693359375  # ln 2 = _LN2_HI + _LN2_LO
_LN2_LO = -2.121944400546905827679e-4
_LOG_P = (
    1.01875663804580931796e-4,
    4.97494994976747001425e-1,
    4.70579119878881725854e0,
    1.44989225341610930846e1,
    1.79368678507819816313e1,
    7.70838733755885391666e0,
)
_LOG_Q = (  # leading coefficient 1
    1.12873587189167450590e1,
    4.52279145837532221105e1,
    8.29875266912776603211e1,
    7.11544750618563894466e1,
    2.31251620126765340583e1,
)
_LOG_R = (-7.89580278884799154124e-1, 1.63866645699558079767e1, -6.41409952958715622951e1)
_LOG_S = (-3.56722798256324312549e1, 3.12093766372244180303e2, -7.69691943550460008604e2)  # leading 1

_FOPI = 1.27323954473516268615  # 4 / pi
_DP1 = 7.85398125648498535156e-1  # pi/4 = DP1 + DP2 + DP3, DP1 and DP2 with few bits: y * DP1 is exact
_DP2 = 3.77489470793079817668e-8
_DP3 = 2.69515142907905952645e-15
#: Largest ``|x|`` :func:`sin` and :func:`cos` accept (Cephes' ``lossth``): beyond, the reduction loses bits.
TRIG_MAX = 1.073741824e9
_SIN = (
    1.58962301576546568060e-10,
    -2.50507477628578072866e-8,
    2.75573136213857245213e-6,
    -1.98412698295895385996e-4,
    8.33333333332211858878e-3,
    -1.66666666666666307295e-1,
)
_COS = (
    -1.13585365213876817300e-11,
    2.08757008419747316778e-9,
    -2.75573141792967388112e-7,
    2.48015872888517045348e-5,
    -1.38888888888730564116e-3,
    4.16666666666665929218e-2,
)


#: Elements per block: the temporaries of a function (a dozen arrays) stay in cache, and a large input costs
#: no more memory than its float64 result.
BLOCK = 1 << 14


def _f64(x: npt.ArrayLike) -> F64:
    return np.asarray(x, dtype=np.float64)


def _by_blocks(kernel: Callable[..., F64], *args: npt.ArrayLike) -> F64:
    """``kernel`` (elementwise, on 1-D float64 blocks) over the broadcast arguments, :data:`BLOCK` at a time."""
    arrays = np.broadcast_arrays(*(_f64(a) for a in args))
    out = np.empty(arrays[0].shape, np.float64)
    flat = [a.reshape(-1) for a in arrays]
    dest = out.reshape(-1)
    for i in range(0, dest.size, BLOCK):
        dest[i : i + BLOCK] = kernel(*(a[i : i + BLOCK] for a in flat))
    return out


def _horner(z: F64, coefficients: tuple[float, ...], *, monic: bool = False) -> F64:
    """``c0 z^n + ... + cn`` (``z^(n+1) + c0 z^n + ... + cn`` when ``monic``), Cephes' polevl and p1evl."""
    r: F64 = z + coefficients[0] if monic else np.full_like(z, coefficients[0])
    for c in coefficients[1:]:
        r *= z
        r += c
    return r


def atan(x: npt.ArrayLike) -> F64:
    """Arc tangent in radians, ``[-pi/2, pi/2]``.

    Cephes ``atan.c``: reduced to ``|x| <= 0.66`` by ``atan x = pi/2 -
    atan(1/x)`` above ``tan(3 pi/8)`` and ``atan x = pi/4 + atan((x - 1)/(x
    + 1))`` above 0.66, then ``x + x^3 P(x^2)/Q(x^2)`` (degree 4/5 rational,
    relative error below ``1.9e-16`` on ``[-10, 10]``). Every float64 input
    is accepted; ``atan(±inf) = ±pi/2``.
    """
    return _by_blocks(_atan_block, x)


def _atan_block(t: F64) -> F64:
    a = np.abs(t)
    big = a > _T3P8
    mid = (a > 0.66) & ~big
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(big, -1.0 / a, np.where(mid, (a - 1.0) / (a + 1.0), a))
    z = r * r
    z = z * _horner(z, _ATAN_P) / _horner(z, _ATAN_Q, monic=True)
    z = r * z + r
    z += np.where(big, _MOREBITS, np.where(mid, 0.5 * _MOREBITS, 0.0))
    out: F64 = np.where(big, _PIO2, np.where(mid, _PIO4, 0.0)) + z
    return np.copysign(out, t)


def atan2(y: npt.ArrayLike, x: npt.ArrayLike) -> F64:
    """Angle of the point ``(x, y)`` in radians, ``[-pi, pi]``, for finite ``x`` and ``y`` (broadcast together).

    Cephes ``atan2.c``: ``atan(y / x)`` (:func:`atan`) plus ``pi`` or
    ``-pi`` in the left half-plane; on the axes exactly ``0``, ``±pi/2`` or
    ``pi`` (``atan2(0, 0) = 0``). Error below 1.5 float64 ulps of the angle.
    """
    return _by_blocks(_atan2_block, y, x)


def _atan2_block(yy: F64, xx: F64) -> F64:
    with np.errstate(divide="ignore", invalid="ignore"):
        z = _atan_block(np.where(xx == 0.0, 0.0, yy / np.where(xx == 0.0, 1.0, xx)))
    w = np.where(xx < 0.0, np.where(yy < 0.0, -2.0 * _PIO2, 2.0 * _PIO2), 0.0)
    out: F64 = w + z
    out = np.where(xx == 0.0, np.where(yy < 0.0, -_PIO2, np.where(yy == 0.0, 0.0, _PIO2)), out)
    return np.where(yy == 0.0, np.where(xx < 0.0, 2.0 * _PIO2, 0.0), out)


def exp(x: npt.ArrayLike) -> F64:
    """``e**x``: ``inf`` above ``log(max float64)``, ``0`` below ``log(min subnormal)``.

    Cephes ``exp.c``: ``x = n ln 2 + g`` with ``|g| <= ln 2 / 2`` (Cody-Waite,
    ``ln 2`` split in two so that ``n C1`` is exact), ``e**g = 1 + 2 g
    P(g^2) / (Q(g^2) - g P(g^2))`` (Padé form, relative error below
    ``1.6e-16``), times ``2**n`` by ``ldexp`` (exact, rounded once in the
    subnormal range).
    """
    return _by_blocks(_exp_block, x)


def _exp_block(t: F64) -> F64:
    if t.size and float(t.min()) >= _MINLOG and float(t.max()) <= _MAXLOG:  # no NaN, no clipping: plain path
        return _exp_kernel(t)
    safe = np.where(np.isnan(t), 0.0, np.clip(t, _MINLOG - 1.0, _MAXLOG + 1.0))
    out = _exp_kernel(safe)  # n = 1025 above _MAXLOG: replaced by inf below
    out = np.where(safe > _MAXLOG, np.inf, np.where(safe < _MINLOG, 0.0, out))
    return np.where(np.isnan(t), np.nan, out)


def _exp_kernel(safe: F64) -> F64:
    """:func:`_exp_block` on values in ``[_MINLOG, _MAXLOG]`` (no NaN): the same operations without the guards."""
    n = np.floor(_LOG2E * safe + 0.5)
    g = safe - n * _EXP_C1
    g -= n * _EXP_C2
    gg = g * g
    p = g * _horner(gg, _EXP_P)
    e = p / (_horner(gg, _EXP_Q) - p)
    e = 1.0 + 2.0 * e
    with np.errstate(over="ignore"):
        out: F64 = np.ldexp(e, n.astype(np.int32))
    return out


def expm1(x: npt.ArrayLike) -> F64:
    """``e**x - 1``, accurate near 0 (``-1`` below about -37, ``inf`` above ``log(max float64)``).

    Cephes ``expm1.c``: for ``|x| <= 1/2`` the Padé form of :func:`exp`
    without its ``1 +``, ``2 g P(g^2) / (Q(g^2) - g P(g^2))`` (relative error
    below ``7e-16``, 3 ulps); beyond, ``exp(x) - 1``.
    """
    return _by_blocks(_expm1_block, x)


def _expm1_block(t: F64) -> F64:
    small = np.abs(t) <= 0.5
    g = np.where(small, t, 0.0)
    gg = g * g
    r = g * _horner(gg, _EXP_P)
    r = r / (_horner(gg, _EXP_Q) - r)
    out: F64 = np.where(small, r + r, _exp_block(t) - 1.0)
    return out


def log(x: npt.ArrayLike) -> F64:
    """Natural logarithm: ``-inf`` at 0, NaN below 0, ``inf`` at ``inf``.

    Cephes ``log.c``: ``x = 2**e m`` (``frexp``, exact; ``m`` in
    ``[sqrt(1/2), sqrt(2))``), ``log x = e ln 2 + log m`` with ``ln 2`` in two
    parts; ``log m`` by the rational ``P(m-1)/Q(m-1)`` of degree 5/5 for
    ``|e| <= 2``, else by ``w + w^3 R(w^2)/S(w^2)`` with ``w = 2 (m - 1)/(m +
    1)`` (relative error below ``1.9e-16``).
    """
    return _by_blocks(_log_block, x)


def _log_far(m: F64, e: F64, low: npt.NDArray[np.bool_]) -> F64:
    """``log`` for ``|e| > 2``: ``w + w^3 R(w^2)/S(w^2)`` with ``w = (m - 1/2) / (m/2 + 1/2)`` (``m`` doubled below
    sqrt(1/2))."""
    z = np.where(low, m - 0.5, (m - 0.5) - 0.5)
    y = np.where(low, 0.5 * z + 0.5, 0.5 * m + 0.5)
    w = z / y
    ww = w * w
    far = w * (ww * _horner(ww, _LOG_R) / _horner(ww, _LOG_S, monic=True))
    far = far + e * _LN2_LO
    far = far + w
    out: F64 = far + e * _LN2_HI
    return out


def _log_near(m: F64, e: F64, low: npt.NDArray[np.bool_]) -> F64:
    """``log`` for ``|e| <= 2``: the rational ``P(u)/Q(u)`` in ``u = m - 1`` (``2m - 1`` below sqrt(1/2))."""
    u = np.where(low, np.ldexp(m, 1) - 1.0, m - 1.0)
    uu = u * u
    near = u * (uu * _horner(u, _LOG_P) / _horner(u, _LOG_Q, monic=True))
    near = near + e * _LN2_LO
    near = near - np.ldexp(uu, -1)
    near = u + near
    out: F64 = near + e * _LN2_HI
    return out


def _log_block(t: F64) -> F64:
    good = np.isfinite(t) & (t > 0.0)
    all_good = bool(good.all())
    v = t if all_good else np.where(good, t, 1.0)
    m, e_int = np.frexp(v)  # m in [0.5, 1)
    low = m < _SQRTH
    e = e_int.astype(np.float64) - low
    # each value takes one of the two forms (elementwise the same bits as computing both and choosing)
    far = np.abs(e) > 2.0
    n_far = int(np.count_nonzero(far))
    if n_far == far.size:
        out = _log_far(m, e, low)
    elif n_far == 0:
        out = _log_near(m, e, low)
    else:
        out = np.empty_like(m)
        out[far] = _log_far(m[far], e[far], low[far])
        near = ~far
        out[near] = _log_near(m[near], e[near], low[near])
    if all_good:
        return out
    with np.errstate(invalid="ignore"):
        return np.where(good, out, np.where(t == 0.0, -np.inf, np.where(t == np.inf, np.inf, np.nan)))


def power(x: npt.ArrayLike, p: float) -> F64:
    """``x**p`` for ``x >= 0`` and a finite exponent ``p``.

    The exponents numpy computes exactly are computed exactly, as numpy does
    (``1``: ``x``; ``2``: ``x * x``; ``0.5``: ``sqrt(x)``; ``-1``: ``1 / x``;
    ``0``: ``1``), so results for them are the bits numpy gives; any other
    exponent is ``exp(p log x)`` (:func:`exp`, :func:`log`), relative error
    below ``(2 + |p log x|) 2.2e-16`` (well under a float32 ulp). ``0**p`` is
    0 for ``p > 0`` and ``inf`` for ``p < 0``.

    Raises
    ------
    ValueError
        If ``p`` is not finite.
    """
    q = float(p)
    if not np.isfinite(q):
        raise ValueError(f"power: the exponent must be finite, got {p!r}")
    t = _f64(x)
    if q == 1.0:
        return t.copy()
    if q == 2.0:
        out: F64 = t * t
        return out
    if q == 0.5:
        return np.sqrt(t)
    if q == -1.0:
        with np.errstate(divide="ignore"):
            return 1.0 / t
    if q == 0.0:
        return np.ones_like(t)
    return _by_blocks(lambda b: np.where(b == 1.0, 1.0, _exp_block(q * _log_block(b))), t)


def _octant(t: F64) -> tuple[F64, F64, F64]:
    """``|t|`` reduced by multiples of pi/4 (Cephes ``sin.c``): ``(z, zz, j)`` with ``j`` the even octant mod 8."""
    a = np.where(np.isfinite(t), np.abs(t), 0.0)
    if a.size and float(a.max()) > TRIG_MAX:
        raise ValueError(f"sin and cos take |x| <= {TRIG_MAX:g} radians, got {float(a.max()):g}")
    y = np.floor(_FOPI * a)
    j = y - 16.0 * np.floor(y / 16.0)  # y mod 16, exact
    odd = j - 2.0 * np.floor(j / 2.0)
    y += odd
    j = (j + odd) % 8.0  # exact on small integers
    z = ((a - y * _DP1) - y * _DP2) - y * _DP3
    return z, z * z, j


def _sin_poly(z: F64, zz: F64) -> F64:
    out: F64 = z + z * (zz * _horner(zz, _SIN))
    return out


def _cos_poly(zz: F64) -> F64:
    out: F64 = (1.0 - np.ldexp(zz, -1)) + zz * zz * _horner(zz, _COS)
    return out


def sin(x: npt.ArrayLike) -> F64:
    """Sine of ``x`` radians, ``|x| <= TRIG_MAX``.

    Cephes ``sin.c``: ``x`` reduced to ``[-pi/4, pi/4]`` by the nearest
    multiple of pi/4 (Cody-Waite, pi/4 in three parts), then the degree-6
    polynomial of sine or cosine of the octant (relative error below
    ``2.2e-16``). ``inf`` gives NaN.

    Raises
    ------
    ValueError
        If some ``|x| > TRIG_MAX`` (the reduction would lose bits).
    """
    return _by_blocks(_sin_block, x)


def _sin_block(t: F64) -> F64:
    z, zz, j = _octant(t)
    flip = j > 3.0
    j = np.where(flip, j - 4.0, j)
    out = np.where((j == 1.0) | (j == 2.0), _cos_poly(zz), _sin_poly(z, zz))
    out = np.where(flip != np.signbit(t), -out, out)
    return np.where(np.isfinite(t), out, np.nan)


def cos(x: npt.ArrayLike) -> F64:
    """Cosine of ``x`` radians, ``|x| <= TRIG_MAX``; as :func:`sin` (Cephes ``sin.c``'s ``cos``).

    Raises
    ------
    ValueError
        If some ``|x| > TRIG_MAX``.
    """
    return _by_blocks(_cos_block, x)


def _cos_block(t: F64) -> F64:
    z, zz, j = _octant(t)
    flip = j > 3.0
    j = np.where(flip, j - 4.0, j)
    flip = flip != (j > 1.0)
    out = np.where((j == 1.0) | (j == 2.0), _sin_poly(z, zz), _cos_poly(zz))
    out = np.where(flip, -out, out)
    return np.where(np.isfinite(t), out, np.nan)


def sincos(angle: float) -> tuple[float, float]:
    """``(sin, cos)`` of one angle in radians as Python floats (:func:`sin`, :func:`cos`): for scalar set-up.

    Raises
    ------
    ValueError
        If ``|angle| > TRIG_MAX``.
    """
    return float(sin(angle)), float(cos(angle))


def tangent(angle: float) -> float:
    """``sin / cos`` of one angle in radians, ``|angle| < pi/2`` in use (a Python float; within 3 float64 ulps).

    Raises
    ------
    ValueError
        If ``|angle| > TRIG_MAX``.
    """
    s, c = sincos(angle)
    return s / c
