"""A realism report: does a heightmap measure like a real landscape?

:func:`report` measures a heightmap the way geomorphologists measure real
terrain, and sets each number beside the range real landscapes show:

* the share of **channel cells in closed depressions**, on a plain D8 routing
  (O'Callaghan & Mark 1984) that resolves no depression (:func:`d8_routing`),
  water leaving at the map's edges and into an optional sea;
* **channel concavity** ``θ`` of Flint's law ``S = k_s A^(-θ)`` (Flint 1974)
  and **Hack's exponent** ``h`` of ``L = c A^h`` (Hack 1957), fitted with
  :mod:`.erosion.river_network`;
* the **hypsometric integral** (Strahler 1952);
* the **slope histogram** and the median slope;
* the **power spectrum**'s slope ``β`` (``P ∝ k^(-β)``) and its rollover
  wavelength (Perron, Kirchner & Dietrich 2008, JGR 113, F04003);
* the share of each **geomorphon** class (Jasiewicz & Stepinski 2013,
  Geomorphology 182, 147-156), :func:`geomorphons`.

Every number is finite or ``None`` with a reason; :meth:`Report.to_dict` is
JSON-ready.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .erosion.depressions import drain_depressions
from .erosion.flow import drainage_area, route_flow
from .erosion.river_network import concavity, hack_exponent, stack_from_receivers, upstream_length
from .heightmap import as_heightmap, check_number
from .lighting.derivatives import slope_degrees

__all__ = [
    "GEOMORPHON_CLASSES",
    "REAL_RANGES",
    "Measure",
    "Report",
    "d8_routing",
    "drainage_area_cells",
    "closed_depression_share",
    "hypsometric_integral",
    "power_spectrum_slope",
    "geomorphons",
    "report",
]

_F64 = npt.NDArray[np.float64]
_I64 = npt.NDArray[np.int64]

#: Geomorphon classes, in the order of the integer codes :func:`geomorphons` returns (0 to 9).
GEOMORPHON_CLASSES = (
    "flat",
    "peak",
    "ridge",
    "shoulder",
    "spur",
    "slope",
    "hollow",
    "footslope",
    "valley",
    "pit",
)

#: The range each measure shows on real landscapes ``(low, high)``, and where it is from.
REAL_RANGES: dict[str, tuple[float, float, str]] = {
    "closed_depression_share": (0.0, 0.05, "real river networks drain: few channel cells end in pits"),
    "concavity": (0.35, 0.6, "Flint 1974; Whipple & Tucker 1999"),
    "hack_exponent": (0.5, 0.6, "Hack 1957; Rigon et al. 1996"),
    "hypsometric_integral": (0.2, 0.6, "Strahler 1952: old (0.2) to young (0.6) landscapes"),
    "median_slope_deg": (2.0, 35.0, "plains to steep mountains"),
    # A fractal (self-affine) surface gives beta = 2 + 2H, 2 to 4 (Turcotte 1997); real landscapes are smoother
    # than that below their hillslope length, where power falls sharply (Perron, Kirchner & Dietrich 2008):
    # 4.9 on the Jacksboro DEM (3 arc-second SRTM, matplotlib's sample), the steep limb being the one reported.
    "spectrum_beta": (3.5, 6.0, "Perron, Kirchner & Dietrich 2008: smoother than fractal at short wavelengths"),
}

# Jasiewicz & Stepinski 2013, Fig. 4: the landform of (number of lower, number of higher) directions.
_FL, _PK, _RI, _SH, _SP, _SL, _HL, _FS, _VL, _PT = range(10)
_FORMS = np.array(
    [
        [_FL, _FL, _FL, _FS, _FS, _VL, _VL, _VL, _PT],
        [_FL, _FL, _FS, _FS, _FS, _VL, _VL, _VL, _VL],
        [_FL, _SH, _SL, _SL, _HL, _HL, _VL, _VL, _VL],
        [_SH, _SH, _SL, _SL, _SL, _HL, _HL, _HL, _HL],
        [_SH, _SH, _SP, _SL, _SL, _SL, _SL, _SL, _SL],
        [_RI, _RI, _SP, _SP, _SL, _SL, _SL, _SL, _SL],
        [_RI, _RI, _RI, _SP, _SL, _SL, _SL, _SL, _SL],
        [_RI, _RI, _RI, _SP, _SL, _SL, _SL, _SL, _SL],
        [_PK, _RI, _RI, _SP, _SL, _SL, _SL, _SL, _SL],
    ],
    dtype=np.int8,
)
_OFFSETS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))  # raster order: ties go to the first


@dataclass(frozen=True)
class Measure:
    """One measure of the report: its value (``None`` with ``reason`` when undefined), the real range, a verdict.

    ``verdict`` is ``"real-like"`` (inside ``real``), ``"low"``, ``"high"`` or ``"undefined"``; ``text`` says it
    in plain words.
    """

    name: str
    value: float | None
    real: tuple[float, float]
    verdict: str
    text: str
    source: str
    extra: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The measure as JSON-ready data."""
        out: dict[str, Any] = {
            "value": self.value,
            "real": list(self.real),
            "verdict": self.verdict,
            "text": self.text,
            "source": self.source,
        }
        if self.reason is not None:
            out["reason"] = self.reason
        out.update(self.extra)
        return out


@dataclass(frozen=True)
class Report:
    """The realism report of a heightmap (see :func:`report`)."""

    shape: tuple[int, int]
    cell_size: float
    measures: tuple[Measure, ...]
    slope_histogram: tuple[tuple[float, float, float], ...]
    geomorphon_shares: dict[str, float]

    def measure(self, name: str) -> Measure:
        """The measure called ``name`` (a key of :data:`REAL_RANGES`); ``KeyError`` if none."""
        for m in self.measures:
            if m.name == name:
                return m
        raise KeyError(name)

    @property
    def real_like(self) -> int:
        """How many measures are inside the real range."""
        return sum(m.verdict == "real-like" for m in self.measures)

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (every number finite or ``None``)."""
        return {
            "shape": list(self.shape),
            "cell_size_m": self.cell_size,
            "real_like": self.real_like,
            "measures": {m.name: m.to_dict() for m in self.measures},
            "slope_histogram": [{"from_deg": a, "to_deg": b, "share": s} for a, b, s in self.slope_histogram],
            "geomorphons": dict(self.geomorphon_shares),
        }


def d8_routing(heights_m: npt.ArrayLike, cell_size: float, *, sea_level: float | None = None) -> tuple[_I64, _F64]:
    """Plain D8 routing: each cell drains to its steepest lower neighbour; no depression is resolved.

    Edge cells and sea cells (at or below ``sea_level`` m) are outlets (their own receivers), as are
    interior cells with no lower neighbour (pits). O'Callaghan & Mark 1984.

    Parameters
    ----------
    heights_m : array_like, (rows, cols)
        Heights in metres, finite, at least 2 x 2.
    cell_size : float
        Cell side in metres, > 0.
    sea_level : float or None
        Keyword-only: cells at or below it (m) are base level.

    Returns
    -------
    receivers : int64 (rows * cols,)
        Flat index of each cell's receiver.
    distances : float64 (rows * cols,)
        Distance to it in metres (0 at outlets).

    Raises
    ------
    ValueError
        For a heightmap that is not finite 2-D or a cell size not > 0.
    """
    z = as_heightmap(heights_m, "heights_m", dtype=np.float64)
    d = check_number(cell_size, "cell_size", low=0.0, low_open=True)
    rows, cols = z.shape
    idx = np.arange(z.size, dtype=np.int64).reshape(z.shape)
    best = np.zeros(z.shape)
    rec = idx.copy()
    dist = np.zeros(z.shape)
    pad = np.pad(z, 1, constant_values=np.inf)
    ipad = np.pad(idx, 1, constant_values=-1)
    for dr, dc in _OFFSETS:
        length = d * math.hypot(dr, dc)
        zn = pad[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols]
        s = (z - zn) / length
        better = s > best
        best = np.where(better, s, best)
        rec = np.where(better, ipad[1 + dr : 1 + dr + rows, 1 + dc : 1 + dc + cols], rec)
        dist = np.where(better, length, dist)
    outlet = np.zeros(z.shape, dtype=bool)
    outlet[[0, -1], :] = True
    outlet[:, [0, -1]] = True
    if sea_level is not None:
        outlet |= z <= check_number(sea_level, "sea_level", low=-1e6, high=1e6)
    rec = np.where(outlet, idx, rec)
    dist = np.where(outlet, 0.0, dist)
    return rec.ravel(), dist.ravel()


def drainage_area_cells(receivers: npt.ArrayLike) -> _F64:
    """Drainage area in cells (each cell counts itself) of a receiver tree, flat float64.

    Raises
    ------
    ValueError
        If ``receivers`` is not a tree of flat indices (see :func:`.erosion.stack_from_receivers`).
    """
    rec = np.asarray(receivers).astype(np.int64).ravel()
    order, starts = stack_from_receivers(rec)
    area = np.ones(rec.size)
    for k in range(len(starts) - 2, 0, -1):
        cells = order[starts[k] : starts[k + 1]]
        np.add.at(area, rec[cells], area[cells])
    return area


def _outlets(rec: _I64) -> _I64:
    ptr = rec.copy()
    while True:
        nxt = ptr[ptr]
        if np.array_equal(nxt, ptr):
            return ptr
        ptr = nxt


def closed_depression_share(
    heights_m: npt.ArrayLike,
    cell_size: float,
    *,
    min_area: float = 50.0,
    sea_level: float | None = None,
    depth: float = 1.0e-3,
) -> float | None:
    """Share of channel cells (drainage area >= ``min_area`` cells) that lie in closed depressions.

    A cell is in a closed depression where the depression-filled surface (the spill surface of priority-flood
    filling, Barnes, Lehman & Mulla 2014, here :func:`core.erosion.depressions.drain_depressions`) lies more
    than ``depth`` metres above it; water leaves at the map's edges and into the sea (cells at or below
    ``sea_level`` m). Channel cells are those whose drainage area, routed D8 with the depressions resolved over
    their lowest pass and flats drained (:func:`core.erosion.flow.route_flow`), reaches ``min_area`` cells: a
    lake's floor collects its basin's area. A level plain is no depression (an integer DEM's flats drain).
    ``None`` when no cell reaches ``min_area``. Returns a share in ``[0, 1]``. The tests compare it with
    fastscapelib's routing and filler.

    Raises
    ------
    ValueError
        For bad heights or cell size, ``min_area`` below 1, a negative ``depth``.
    """
    z = as_heightmap(heights_m, "heights_m", dtype=np.float64)
    threshold = check_number(min_area, "min_area", low=1.0)
    tol = check_number(depth, "depth", low=0.0)
    cs = check_number(cell_size, "cell_size", low=0.0, high=1e6, low_open=True)
    sea = None if sea_level is None else float(np.nextafter(check_number(sea_level, "sea_level"), np.inf))
    routing = route_flow(z, cs, sea_level=sea)
    channel = drainage_area(routing).reshape(z.shape) >= threshold * cs * cs
    if not channel.any():
        return None
    closed = drain_depressions(z, cs, mode="fill", sea_level=sea) - z > tol
    return float((closed & channel).sum() / channel.sum())


def hypsometric_integral(heights_m: npt.ArrayLike) -> float | None:
    """Strahler's (1952) hypsometric integral ``(mean - min) / (max - min)``, in ``[0, 1]``; ``None`` if flat."""
    z = as_heightmap(heights_m, "heights_m", dtype=np.float64)
    lo, hi = float(z.min()), float(z.max())
    if hi <= lo:
        return None
    return (float(z.mean()) - lo) / (hi - lo)


def _radial_spectrum(z: _F64, cell: float) -> tuple[_F64, _F64]:
    rows, cols = z.shape
    yy, xx = np.mgrid[0:rows, 0:cols].astype(np.float64)
    a = np.c_[xx.ravel(), yy.ravel(), np.ones(z.size)]
    coef, *_ = np.linalg.lstsq(a, z.ravel(), rcond=None)
    z = z - (a @ coef).reshape(z.shape)
    # An elliptical Hann window (Perron et al. 2008, eq. 5), its power normalised back.
    r = np.hypot((xx - (cols - 1) / 2) / ((cols - 1) / 2 + 1e-12), (yy - (rows - 1) / 2) / ((rows - 1) / 2 + 1e-12))
    w = np.where(r < 1.0, 0.5 * (1.0 + np.cos(np.pi * r)), 0.0)
    f = np.fft.fft2(z * w)
    power = np.abs(f) ** 2 / max(float((w**2).sum()), 1e-300)
    k = np.hypot(*np.meshgrid(np.fft.fftfreq(rows, cell), np.fft.fftfreq(cols, cell), indexing="ij"))
    kmin = 1.0 / (max(rows, cols) * cell)
    kmax = 0.5 / cell
    edges = np.geomspace(kmin, kmax, 25)
    which = np.digitize(k.ravel(), edges)
    ok = (which >= 1) & (which < edges.size)
    count = np.bincount(which[ok], minlength=edges.size)
    total = np.bincount(which[ok], weights=power.ravel()[ok], minlength=edges.size)
    ksum = np.bincount(which[ok], weights=k.ravel()[ok], minlength=edges.size)
    keep = count > 0
    return ksum[keep] / count[keep], total[keep] / count[keep]


def power_spectrum_slope(heights_m: npt.ArrayLike, cell_size: float) -> tuple[float | None, float | None, float]:
    """The radially averaged power spectrum's slope ``β`` (``P ∝ k^(-β)``) and its rollover wavelength.

    The heightmap is detrended (a least-squares plane), windowed (elliptical Hann) and Fourier transformed;
    the power is averaged in 24 logarithmic bins of wavenumber from ``1 / (N Δ)`` to Nyquist ``1 / (2 Δ)``
    (Perron, Kirchner & Dietrich 2008). ``log P`` against ``log k`` is fitted by one line and by two lines
    broken at each bin; when the broken fit halves the squared residual and its long-wavelength limb is
    flatter than half the short one, the break is the rollover and ``β`` is the short limb's.

    Returns
    -------
    beta : float or None
        ``None`` for a flat map (no power).
    rollover_m : float or None
        The rollover wavelength in metres, ``None`` if the spectrum does not flatten.
    r2 : float
        R² of the line ``β`` comes from.

    Raises
    ------
    ValueError
        As :func:`d8_routing`; a heightmap under 8 cells a side.
    """
    z = as_heightmap(heights_m, "heights_m", dtype=np.float64)
    cell = check_number(cell_size, "cell_size", low=0.0, low_open=True)
    if min(z.shape) < 8:
        raise ValueError(f"heights_m must be at least 8 x 8 cells for a spectrum, got {z.shape}")
    k, p = _radial_spectrum(z, cell)
    ok = p > 1e-300
    if ok.sum() < 6:
        return None, None, 0.0
    lk, lp = np.log10(k[ok]), np.log10(p[ok])

    def line(x: _F64, y: _F64) -> tuple[float, float, float]:
        a, b = np.polyfit(x, y, 1)
        return float(a), float(b), float(((y - (a * x + b)) ** 2).sum())

    def r2(x: _F64, y: _F64, sse: float) -> float:
        total = float(((y - y.mean()) ** 2).sum())
        return 1.0 - sse / total if total > 0 else 0.0

    slope, _, sse = line(lk, lp)
    best: tuple[float, int, float, float] | None = None
    for i in range(3, lk.size - 3):
        a1, _, e1 = line(lk[:i], lp[:i])
        a2, _, e2 = line(lk[i:], lp[i:])
        if best is None or e1 + e2 < best[0]:
            best = (e1 + e2, i, a1, a2)
    if best is not None and best[0] < 0.5 * sse and best[3] < 0 and best[2] > 0.5 * best[3]:
        i = best[1]
        _, _, e2 = line(lk[i:], lp[i:])
        return -best[3], float(1.0 / 10 ** lk[i]), r2(lk[i:], lp[i:], e2)
    return -slope, None, r2(lk, lp, sse)


def geomorphons(
    heights_m: npt.ArrayLike, cell_size: float, *, radius: int = 10, flat_deg: float = 1.0
) -> npt.NDArray[np.int8]:
    """Geomorphon class of each cell (codes of :data:`GEOMORPHON_CLASSES`), Jasiewicz & Stepinski 2013.

    Along each of 8 directions, the highest and lowest elevation angles of the cells up to ``radius`` cells
    away (line of sight) say whether the terrain rises (``+``), falls (``-``) or stays level (``0``: both
    within ``flat_deg`` of the horizontal, or rise and fall equal); the number of ``-`` and ``+`` directions
    names the landform. Directions leaving the map count as level.

    Parameters
    ----------
    heights_m : array_like, (rows, cols)
        Heights in metres.
    cell_size : float
        Cell side, metres, > 0.
    radius : int
        Keyword-only: lookup distance in cells, 1 to 1000.
    flat_deg : float
        Keyword-only: flatness threshold in degrees, 0 to 45.

    Returns
    -------
    int8 (rows, cols)
        Class codes 0 (flat) to 9 (pit).

    Raises
    ------
    ValueError
        Naming the parameter out of range.
    """
    z = as_heightmap(heights_m, "heights_m", dtype=np.float64)
    d = check_number(cell_size, "cell_size", low=0.0, low_open=True)
    if isinstance(radius, bool) or not isinstance(radius, (int, np.integer)) or not 1 <= radius <= 1000:
        raise ValueError(f"radius must be a whole number of cells in [1, 1000], got {radius!r:.40}")
    t = math.radians(check_number(flat_deg, "flat_deg", low=0.0, high=45.0))
    rows, cols = z.shape
    pad = np.pad(z, radius, constant_values=np.nan)
    lower = np.zeros(z.shape, dtype=np.int8)
    higher = np.zeros(z.shape, dtype=np.int8)
    for dr, dc in _OFFSETS:
        up = np.full(z.shape, -np.inf)
        down = np.full(z.shape, np.inf)
        for s in range(1, radius + 1):
            r0, c0 = radius + dr * s, radius + dc * s
            zn = pad[r0 : r0 + rows, c0 : c0 + cols]
            angle = np.arctan((zn - z) / (s * d * math.hypot(dr, dc)))
            up = np.fmax(up, angle)
            down = np.fmin(down, angle)
        rise = np.where(np.isfinite(up), np.maximum(up, 0.0), 0.0)
        fall = np.where(np.isfinite(down), np.maximum(-down, 0.0), 0.0)
        level = (np.maximum(rise, fall) <= t) | (rise == fall)
        higher += (~level & (rise > fall)).astype(np.int8)
        lower += (~level & (fall > rise)).astype(np.int8)
    return _FORMS[lower, higher]


def _verdict(name: str, value: float | None, reason: str, words: str, fmt: str, **extra: Any) -> Measure:
    lo, hi, source = REAL_RANGES[name]
    real = f"real: {fmt.format(lo)}–{fmt.format(hi)}"
    if value is None or not math.isfinite(value):
        return Measure(name, None, (lo, hi), "undefined", f"{words}: undefined — {reason}", source, extra, reason)
    if value < lo:
        verdict = "low"
    elif value > hi:
        verdict = "high"
    else:
        verdict = "real-like"
    return Measure(name, value, (lo, hi), verdict, f"{words}: {fmt.format(value)} — {verdict} ({real})", source, extra)


def report(
    heights_m: npt.ArrayLike,
    cell_size: float,
    *,
    sea_level: float | None = None,
    min_area: float = 50.0,
    radius: int = 10,
    flat_deg: float = 1.0,
    slope_bin_deg: float = 5.0,
) -> Report:
    """The realism report of a heightmap: each measure, the range real landscapes show, a verdict.

    Parameters
    ----------
    heights_m : array_like, (rows, cols)
        Heights in metres, finite, at least 8 x 8, row 0 north.
    cell_size : float
        Cell side in metres, > 0.
    sea_level : float or None
        Keyword-only: cells at or below it (m) are the sea, base level of the drainage; default none.
    min_area : float
        Keyword-only: drainage area (cells, >= 1) from which a cell is a channel; 50.
    radius : int
        Keyword-only: geomorphon lookup distance in cells; 10.
    flat_deg : float
        Keyword-only: geomorphon flatness threshold in degrees; 1.
    slope_bin_deg : float
        Keyword-only: slope histogram bin width in degrees, 0.5 to 45; 5.

    Returns
    -------
    Report
        Frozen; :meth:`Report.to_dict` gives JSON-ready data.

    Raises
    ------
    ValueError
        Naming the parameter out of range.
    """
    z = as_heightmap(heights_m, "heights_m", dtype=np.float64)
    cell = check_number(cell_size, "cell_size", low=0.0, low_open=True)
    if min(z.shape) < 8:
        raise ValueError(f"heights_m must be at least 8 x 8 cells, got {z.shape}")
    threshold = check_number(min_area, "min_area", low=1.0)
    bin_deg = check_number(slope_bin_deg, "slope_bin_deg", low=0.5, high=45.0)
    measures = []

    share = closed_depression_share(z, cell, min_area=threshold, sea_level=sea_level)
    pct = None if share is None else 100.0 * share
    m = _verdict(
        "closed_depression_share",
        share,
        f"no cell drains {threshold:g} cells",
        "closed depressions",
        "{:.3f}",
    )
    if pct is not None:
        words = "no drainage network" if m.verdict != "real-like" else "the network drains"
        m = Measure(
            m.name,
            m.value,
            m.real,
            m.verdict,
            f"closed depressions: {pct:.0f} % of channel cells — {words} (real: under 5 %)",
            m.source,
        )
    measures.append(m)

    rec, dist = d8_routing(z, cell, sea_level=sea_level)
    area = drainage_area_cells(rec)
    try:
        fit = concavity(z, rec, dist, area=area * cell * cell, min_area=threshold * cell * cell)
        theta, r2, count, why = -fit.exponent, fit.r2, fit.count, ""
    except ValueError as err:
        theta, r2, count, why = None, None, 0, str(err)
    measures.append(_verdict("concavity", theta, why, "channel concavity θ", "{:.2f}", r2=r2, channel_cells=count))
    try:
        hack = hack_exponent(upstream_length(rec, dist), area * cell * cell, threshold * cell * cell)
        h, hr2, why = hack.exponent, hack.r2, ""
    except ValueError as err:
        h, hr2, why = None, None, str(err)
    measures.append(_verdict("hack_exponent", h, why, "Hack's exponent h", "{:.2f}", r2=hr2))

    measures.append(
        _verdict("hypsometric_integral", hypsometric_integral(z), "a flat map", "hypsometric integral", "{:.2f}")
    )

    slope = slope_degrees(z, cell).astype(np.float64)
    measures.append(_verdict("median_slope_deg", float(np.median(slope)), "", "median slope (degrees)", "{:.1f}"))
    edges = np.arange(0.0, 90.0 + bin_deg, bin_deg)
    edges[-1] = max(edges[-1], 90.0)
    counts, _ = np.histogram(np.clip(slope, 0.0, 90.0), bins=edges)
    hist = tuple(
        (float(a), float(min(b, 90.0)), float(c) / slope.size)
        for a, b, c in zip(edges[:-1], edges[1:], counts, strict=True)
    )

    beta, rollover, beta_r2 = power_spectrum_slope(z, cell)
    measures.append(
        _verdict(
            "spectrum_beta",
            beta,
            "a flat map has no power",
            "power spectrum slope β",
            "{:.2f}",
            r2=beta_r2,
            rollover_m=rollover,
        )
    )

    forms = geomorphons(z, cell, radius=radius, flat_deg=flat_deg)
    shares = np.bincount(forms.ravel(), minlength=10) / forms.size
    geo = {name: float(s) for name, s in zip(GEOMORPHON_CLASSES, shares, strict=True)}
    return Report((int(z.shape[0]), int(z.shape[1])), cell, tuple(measures), hist, geo)
