"""The built-in generators and filters, each declared once with its parameters.

Importing :mod:`core` registers them in :data:`core.params.GENERATORS` and
:data:`core.params.FILTERS`. Parameter names are the functions' keyword
names; bounds are the functions' own (the UI's slider ranges are the soft
bounds).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np

from . import filters
from .elementary import exp
from .erosion.hydraulic import hydraulic_erosion, hydraulic_steps
from .erosion.stream_power import (
    MFD_STEP_BYTES,
    STEP_BYTES,
    default_channel_width,
    default_erodibility,
    map_diffusivity,
    stream_power_erosion,
    stream_power_passes,
)
from .erosion.thermal import thermal_erosion, thermal_passes
from .generators.dunes import dune_field
from .generators.faults import MAX_FAULTS, fault_formation
from .generators.hills import MAX_HILLS, hills_raw
from .generators.hills_pits import noise_hills_pits
from .generators.midpoint_displacement import diamond_square
from .generators.sources import SOURCES
from .heightmap import flatten
from .masks import param_map
from .noise.fractal import fractal_noise
from .params import (
    AllOf,
    AnyOf,
    Condition,
    Filter,
    Generator,
    Param,
    When,
    register_filter,
    register_generator,
)
from .progress import Cancelled, Progress

__all__ = ["RADIUS_MAX", "OPEN_LOW", "blur_passes", "lowpass_k"]

#: Largest radius the UI offers (cells); the functions accept up to 1e6.
RADIUS_MAX = 1.0e6
#: Stand-in for "greater than 0" in inclusive hard bounds.
OPEN_LOW = 1e-6


#: Bounds of a length in metres that was a count of cells until spec version 2: any length a version-2 value
#: (up to 1e6 cells of up to 1e6 m, down to 1e-6 cells of 2.4e-7 m) converts to. What a length may cost is
#: bounded in cells, at the terrain's cell size, by the functions (their messages say it in metres).
LENGTH_MIN, LENGTH_MAX = 1.0e-13, 1.0e12


def _radius_m(name: str, label: str, default: float, what: str, active_when: Condition | None = None) -> Param:
    return Param(
        name,
        "float",
        default,
        hard=(LENGTH_MIN, LENGTH_MAX),
        soft=(0.1, 1000.0),
        unit="m",
        label=label,
        description=f"{what}, in metres",
        active_when=active_when,
    )


def _in_cells(value: float, cell_size: float, name: str, low: float = OPEN_LOW, high: float = RADIUS_MAX) -> float:
    """``value`` metres as cells of ``cell_size`` metres, refused in the user's terms when outside ``[low, high]``
    cells (what the cell-based functions accept)."""
    cells = value / cell_size
    if not low <= cells <= high:
        raise ValueError(
            f"{name} ({value:g} m) is {cells:.3g} cells of this terrain's {cell_size:.3g} m: it must be "
            f"{low:g} to {high:g} cells (change {name}, or the terrain's Width or Size)"
        )
    return cells


def range_param(
    name: str,
    label: str,
    default: tuple[float, float],
    *,
    unit: str,
    description: str,
    hard: tuple[float, float],
    soft: tuple[float, float],
    active_when: Condition | None = None,
) -> Param:
    """A ``"range"`` parameter (a ``(low, high)`` pair of ``unit``) with hard and soft bounds, shared by versions."""
    return Param(
        name,
        "range",
        default,
        hard=hard,
        soft=soft,
        unit=unit,
        label=label,
        description=description,
        active_when=active_when,
    )


# --- lengths in metres ----------------------------------------------------------------------------------------
# A generator or filter whose lengths were cells until spec version 2 takes them in metres and converts them
# with the terrain's cell size, so the size of a terrain sets its resolution, not its landscape. Its version-2
# declaration and the conversion of version-2 values are in core.versions (V2_PARTS, V2_TO_V3), for recipes and
# specs written before.


def _hills_m(
    world_shape: tuple[int, int],
    seed: int = 0,
    count: int = 150,
    radius_min: float = 3.0,
    radius_max: float = 16.0,
    island: bool = False,
    window: Any = None,
    cell_size: float = 1.0,
) -> Any:
    """Circle hills with radii in metres (see :func:`.hills.hills_raw`); centres are uniform over the world,
    so the same hills stand at the same places at any resolution."""
    return hills_raw(
        world_shape,
        seed,
        count=count,
        radius_min=_in_cells(radius_min, cell_size, "hills.radius_min"),
        radius_max=_in_cells(radius_max, cell_size, "hills.radius_max"),
        island=island,
        window=window,
    )


def _noise_m(
    world_shape: tuple[int, int],
    seed: int = 0,
    noise: float = 0.1,
    grain: float = 1.0,
    hills: int = 300,
    hill_radius: tuple[float, float] = (3.0, 12.0),
    hill_height: tuple[float, float] = (0.2, 0.6),
    pits: int = 100,
    pit_radius: tuple[float, float] = (2.0, 6.0),
    pit_height: tuple[float, float] = (0.2, 0.5),
    window: Any = None,
    cell_size: float = 1.0,
) -> Any:
    """Noise with hills and pits, lengths in metres (see :func:`core.generators.hills_pits.noise_hills_pits`)."""
    return noise_hills_pits(
        world_shape,
        seed,
        noise=noise,
        hills=hills,
        hill_radius=(
            _in_cells(hill_radius[0], cell_size, "noise.hill_radius"),
            _in_cells(hill_radius[1], cell_size, "noise.hill_radius"),
        ),
        hill_height=hill_height,
        pits=pits,
        pit_radius=(
            _in_cells(pit_radius[0], cell_size, "noise.pit_radius"),
            _in_cells(pit_radius[1], cell_size, "noise.pit_radius"),
        ),
        pit_height=pit_height,
        window=window,
        grain=_in_cells(grain, cell_size, "noise.grain"),
    )


register_generator(
    Generator(
        "hills",
        "Hills",
        "Circle-based hills (paraboloids on random circles, summed), optionally clustered into an island",
        _hills_m,
        (
            Param(
                "count",
                "int",
                150,
                hard=(0, MAX_HILLS),
                soft=(0, 5000),
                label="Hills",
                description="Number of circle-based hills raised on the terrain",
            ),
            _radius_m(
                "radius_min",
                "Radius Min",
                3.0,
                "Smallest hill radius",
                active_when=When("count", above=0),
            ),
            _radius_m(
                "radius_max",
                "Radius Max",
                16.0,
                "Largest hill radius (at least Radius Min)",
                active_when=When("count", above=0),
            ),
            Param(
                "island",
                "bool",
                False,
                label="Island",
                description="Cluster the hills around the centre into one island",
                active_when=When("count", above=0),
            ),
        ),
        source="Nystrom's and Lighthouse 3D's hill tutorials",
        ordered=(("radius_min", "radius_max"),),
        uses_cell_size=True,
    )
)

register_generator(
    Generator(
        "faults",
        "Fault Formation",
        "Random fault lines, each raising one side; smooth with the low-pass filter",
        fault_formation,
        (
            Param(
                "faults",
                "int",
                200,
                hard=(0, MAX_FAULTS),
                soft=(0, 5000),
                label="Faults",
                description="Number of fault lines",
            ),
            Param(
                "displacement_max",
                "float",
                1.0,
                hard=(OPEN_LOW, 1.0e6),
                soft=(0.01, 10.0),
                label="First Displacement",
                description="Displacement of the first fault (heights are normalised afterwards, so only the ratio "
                "to Last Displacement matters)",
                active_when=When("faults", above=0),
            ),
            Param(
                "displacement_min",
                "float",
                0.05,
                hard=(0.0, 1.0e6),
                soft=(0.0, 1.0),
                label="Last Displacement",
                description="Displacement of the last fault (the displacement falls linearly from the first)",
                active_when=When("faults", above=0),
            ),
            Param(
                "spacing",
                "enum",
                "to_last",
                label="Spacing",
                description="How the displacement falls",
                items=(
                    ("to_last", "To Last", "Linearly from the first fault's displacement to the last's"),
                    (
                        "orogen_0_1",
                        "Orogen 0.1",
                        "Orogen 0.1's steps, one short of Last Displacement (0.1's terrains keep it)",
                    ),
                ),
                active_when=When("faults", above=0),
            ),
        ),
        source="Polack 2002; fractal-terrain tutorials",
        ordered=(("displacement_min", "displacement_max"),),
    )
)

register_generator(
    Generator(
        "diamond_square",
        "Diamond-Square",
        "Midpoint displacement: fractal mountains with a roughness",
        diamond_square,
        (
            Param(
                "roughness",
                "float",
                1.0,
                hard=(0.01, 8.0),
                soft=(0.05, 3.0),
                label="Roughness",
                description="Offsets shrink by 2^-roughness per level: above 1 smooth, below 1 rough and chaotic",
            ),
            Param(
                "lattice",
                "enum",
                "world",
                label="Lattice",
                description="How the random offsets are placed",
                items=(
                    (
                        "world",
                        "World",
                        "By world position, over a period of the terrain's width: every size "
                        "samples the same landscape",
                    ),
                    (
                        "grid",
                        "Grid (Orogen 0.2)",
                        "By grid cell: the landscape changes with Size (spec version 2's terrains keep it)",
                    ),
                ),
            ),
        ),
        source="Fournier, Fussell & Carpenter 1982; Miller 1986",
    )
)

register_generator(
    Generator(
        "noise",
        "Noise, Hills and Pits",
        "Value noise with hills and pits; smooth with the box blur",
        _noise_m,
        (
            Param(
                "noise",
                "float",
                0.1,
                hard=(0.0, 1.0e6),
                soft=(0.0, 2.0),
                label="Noise",
                description="Amplitude of the noise base, relative to hill heights",
            ),
            Param(
                "grain",
                "float",
                1.0,
                hard=(LENGTH_MIN, LENGTH_MAX),
                soft=(0.01, 100.0),
                unit="m",
                label="Grain",
                description="Spacing of the noise base's random values (interpolated between); cells larger than "
                "the grain see it averaged down",
                active_when=When("noise", above=0),
            ),
            Param(
                "hills",
                "int",
                300,
                hard=(0, MAX_HILLS),
                soft=(0, 5000),
                label="Hills",
                description="Number of hills raised on the noise",
            ),
            range_param(
                "hill_radius",
                "Hill Radius",
                (3.0, 12.0),
                unit="m",
                description="Smallest and largest hill radius, in metres",
                hard=(LENGTH_MIN, LENGTH_MAX),
                soft=(0.1, 1000.0),
                active_when=When("hills", above=0),
            ),
            range_param(
                "hill_height",
                "Hill Height",
                (0.2, 0.6),
                unit="",
                description="Lowest and highest hill peak, relative to the noise",
                hard=(0.0, 1.0e6),
                soft=(0.0, 5.0),
                active_when=When("hills", above=0),
            ),
            Param(
                "pits",
                "int",
                100,
                hard=(0, MAX_HILLS),
                soft=(0, 5000),
                label="Pits",
                description="Number of pits dug into the noise",
            ),
            range_param(
                "pit_radius",
                "Pit Radius",
                (2.0, 6.0),
                unit="m",
                description="Smallest and largest pit radius, in metres",
                hard=(LENGTH_MIN, LENGTH_MAX),
                soft=(0.1, 1000.0),
                active_when=When("pits", above=0),
            ),
            range_param(
                "pit_height",
                "Pit Depth",
                (0.2, 0.5),
                unit="",
                description="Shallowest and deepest pit, relative to the noise",
                hard=(0.0, 1.0e6),
                soft=(0.0, 5.0),
                active_when=When("pits", above=0),
            ),
        ),
        source="the elevation-map tutorial's hills and pits",
        uses_cell_size=True,
    )
)


#: Share of the terrain's Height the stream-power filter's fitted uplift adds over its run (uplift x dt x steps).
UPLIFT_SHARE = 0.1
#: The fitted blur radius and low-pass length, in cells (:func:`core.params.fitted_defaults`).
FIT_CELLS = 1.5
#: The fitted hydraulic depth scale as a share of the terrain's Height (0.2 m on the default 20 m terrain).
DEPTH_SHARE = 0.01


def _fit_cells(name: str) -> Callable[[Mapping[str, float]], dict[str, Any]]:
    """A fit rule setting length ``name`` to :data:`FIT_CELLS` cells, in metres (a blur that shows at any size)."""
    return lambda s: {name: float(FIT_CELLS * s["cell_size"])}


def _fit_hydraulic(s: Mapping[str, float]) -> dict[str, Any]:
    """The depth scale at :data:`DEPTH_SHARE` of Height: channels at the terrain's scale (0 Height: the default)."""
    return {"depth_scale": float(DEPTH_SHARE * s["height"])} if s["height"] > 0.0 else {}


def _fit_stream_power(s: Mapping[str, float]) -> dict[str, Any]:
    """Uplift so that uplift x dt x steps is :data:`UPLIFT_SHARE` of Height (the declared dt and steps)."""
    return {"uplift": float(UPLIFT_SHARE * s["height"] / (2.0e4 * 30))}


def passes_of(params: Mapping[str, Any]) -> int:
    """The ``passes`` of a filter's parameters (1 when absent): its work and its margin in cells."""
    return int(params.get("passes", 1))


register_filter(
    Filter(
        "flatten",
        "Flatten",
        "Raise heights to an exponent: above 1 broad lowlands and sharp peaks",
        flatten,
        (
            Param(
                "exponent",
                "float",
                1.5,
                hard=(OPEN_LOW, 64.0),
                soft=(0.1, 8.0),
                label="Exponent",
                description="Exponent applied to the heights as a share of Height (clipped to [0, 1] first): 1 = none, "
                "above 1 = broad lowlands and sharp peaks, below 1 = plateaus",
            ),
        ),
        source="Lighthouse 3D's hill tutorial",
    )
)


def blur_passes(radius: float, cell_size: float) -> int:
    """3 x 3 box-blur passes of a blur of ``radius`` metres (standard deviation) at ``cell_size`` metres.

    One pass has a variance of 2/3 cell² per axis, so ``round(1.5 (radius / cell_size)**2)`` passes (Orogen 0.2's
    ``passes``, kept exactly: :data:`core.versions.V2_TO_V3` stores ``sqrt(passes / 1.5) * cell_size``).
    """
    return int(round(1.5 * (radius / cell_size) ** 2))


def _blur(heightmap: Any, *, cell_size: float, height: float, radius: float, method: str) -> Any:
    """Blur of ``radius`` metres (standard deviation): a Gaussian, or 3 x 3 passes (Orogen 0.2)."""
    del height
    if method == "passes":
        passes = blur_passes(radius, cell_size)
        if passes > filters.MAX_PASSES:
            raise ValueError(
                f"box_blur.radius ({radius:g} m) is {passes} passes of the 3 x 3 mean on this terrain's "
                f"{cell_size:.3g} m cells, more than {filters.MAX_PASSES}: use the Gaussian method, a "
                "smaller radius or a coarser grid"
            )
        return filters.box_blur(heightmap, passes)
    return filters.gaussian_blur(heightmap, _in_cells(radius, cell_size, "box_blur.radius", 0.0, filters.MAX_SIGMA))


def _blur_cells(p: Mapping[str, Any]) -> float:
    return float(p.get("radius", 1.0)) / float(p.get("cell_size", 1.0))


register_filter(
    Filter(
        "box_blur",
        "Blur",
        "Smooth the terrain over a radius in metres (a Gaussian, or 3 x 3 box passes)",
        _blur,
        (
            Param(
                "radius",
                "float",
                1.0,
                hard=(0.0, LENGTH_MAX),
                soft=(0.0, 100.0),
                unit="m",
                label="Radius",
                description="How far the blur reaches: the standard deviation of the Gaussian, in metres",
            ),
            Param(
                "method",
                "enum",
                "gaussian",
                label="Method",
                description="How the blur is computed",
                items=(
                    ("gaussian", "Gaussian", "Three extended box filters per axis (cost independent of the radius)"),
                    (
                        "passes",
                        "3 x 3 Passes (Orogen 0.2)",
                        "round(1.5 (radius / cell)^2) passes of the 3 x 3 mean (spec version 2's terrains keep it)",
                    ),
                ),
            ),
        ),
        source="the elevation-map tutorial; Gwosdek et al. 2011 (extended box filtering)",
        margin=lambda p: (
            blur_passes(float(p.get("radius", 1.0)), float(p.get("cell_size", 1.0)))
            if p.get("method") == "passes"
            else filters.gaussian_margin(_blur_cells(p))
        ),
        passes=lambda p: (
            blur_passes(float(p.get("radius", 1.0)), float(p.get("cell_size", 1.0)))
            if p.get("method") == "passes"
            else filters.gaussian_passes(_blur_cells(p))
        ),
        fit=_fit_cells("radius"),
        uses_scale=True,
    )
)


#: Largest per-cell coefficient a low-pass length gives (the filter needs k < 1).
_K_MAX = 1.0 - 1e-9


def lowpass_k(length: float, cell_size: float) -> float:
    """The per-cell coefficient ``k = exp(-cell_size / length)`` of a low-pass decay length in metres (0 -> 0).

    A one-pole filter ``y = k y[-1] + (1 - k) x`` weighs a value ``d`` metres back by ``exp(-d / length)``
    at any cell size: the discretisation of exponential smoothing over ``length`` metres.
    """
    if length <= 0.0:
        return 0.0
    return min(float(exp(-cell_size / length)), _K_MAX)  # core.elementary: the same bits everywhere


def _lowpass(heightmap: Any, *, cell_size: float, height: float, length: float, passes: int) -> Any:
    """The low-pass filter with its decay length in metres (:func:`lowpass_k`)."""
    del height
    return filters.erosion_filter(heightmap, lowpass_k(length, cell_size), passes)


register_filter(
    Filter(
        "lowpass",
        "Low-pass (FIR erosion filter)",
        "One-pole low-pass filter y = k*y[-1] + (1 - k)*x run in all four directions (the fault-formation smoothing), "
        "k = exp(-cell / length)",
        _lowpass,
        (
            Param(
                "length",
                "float",
                1.0,
                hard=(0.0, LENGTH_MAX),
                soft=(0.0, 1000.0),
                unit="m",
                label="Length",
                description="Decay length in metres: a height d metres away weighs exp(-d / length) (0 keeps the map)",
                active_when=When("passes", above=0),
            ),
            Param(
                "passes",
                "int",
                1,
                hard=(0, filters.MAX_PASSES),
                soft=(1, 20),
                label="Passes",
                description="Low-pass filter passes",
                active_when=When("length", above=0),
            ),
        ),
        source="Polack 2002 (the 'FIR erosion filter')",
        margin=lambda p: filters.erosion_margin(
            lowpass_k(float(p.get("length", 1.0)), float(p.get("cell_size", 1.0))), p.get("passes", 1)
        ),
        passes=passes_of,
        fit=_fit_cells("length"),
        uses_scale=True,
    )
)

register_filter(
    Filter(
        "terrace",
        "Terrace",
        "Quantise heights into smooth steps",
        filters.terrace,
        (
            Param("levels", "int", 8, hard=(1, 4096), soft=(1, 64), label="Levels", description="Number of terraces"),
            Param(
                "smoothness",
                "float",
                0.5,
                hard=(0.01, 1.0),
                unit="factor",
                label="Smoothness",
                description="Share of each step that rises to the next: 1 rounded, near 0 cliffs",
            ),
        ),
    )
)

register_filter(
    Filter(
        "sea_level",
        "Sea Level",
        "Flatten everything below a level",
        filters.sea_level,
        (
            Param(
                "level",
                "float",
                0.2,
                hard=(0.0, 1.0),
                unit="normalised",
                label="Level",
                description="Sea level as a share of the height range",
            ),
        ),
        changes_scale=True,
    )
)


register_generator(
    Generator(
        "fractal",
        "Fractal Noise",
        "Gradient, simplex, value or cellular noise summed as fBm, billow, ridged or hybrid multifractal or "
        "heterogeneous terrain, optionally domain-warped; lengths in metres, so the size sets the resolution, "
        "not the landscape",
        fractal_noise,
        (
            Param(
                "basis",
                "enum",
                "perlin",
                label="Basis",
                description="The lattice noise each octave is made of",
                items=(
                    ("perlin", "Perlin", "Gradient noise (Perlin 2002)"),
                    ("simplex", "Simplex", "Simplex-type gradient noise"),
                    ("value", "Value", "Value noise: random heights at lattice points, smoothly interpolated"),
                    ("cellular_f1", "Cellular F1", "Worley noise: distance to the nearest feature point"),
                    ("cellular_f2", "Cellular F2", "Worley noise: distance to the second nearest point"),
                    ("cellular_f2_f1", "Cellular F2 - F1", "Worley noise: cell walls"),
                ),
            ),
            Param(
                "fractal",
                "enum",
                "fbm",
                label="Fractal Type",
                description="How the octaves are combined",
                items=(
                    ("fbm", "fBm", "Fractional Brownian motion: the plain sum of octaves"),
                    ("billow", "Billow", "Sum of absolute values (turbulence): rounded hills, creased valleys"),
                    ("ridged_multifractal", "Ridged Multifractal", "Sharp ridges, smooth valleys (Musgrave)"),
                    ("hybrid_multifractal", "Hybrid Multifractal", "Smooth lowlands, rough peaks (Musgrave)"),
                    ("hetero_terrain", "Heterogeneous Terrain", "Roughness grows with height (Musgrave)"),
                ),
            ),
            Param(
                "feature_size",
                "float",
                200.0,
                hard=(0.001, 1.0e6),
                soft=(1.0, 10_000.0),
                unit="m",
                label="Feature Size",
                description="Size of the largest hills: the first octave's lattice spacing "
                "(Blender's Scale is 1 / Feature Size with coordinates in metres)",
            ),
            Param(
                "detail",
                "float",
                5.0,
                hard=(0.0, 15.0),
                soft=(0.0, 10.0),
                label="Detail",
                description="Octaves beyond the first; a fractional value blends the last one in (as Blender's)",
            ),
            Param(
                "roughness",
                "float",
                0.5,
                hard=(0.0, 1.0),
                unit="factor",
                label="Roughness",
                description="Each octave's weight relative to the previous one",
                active_when=AnyOf(
                    When("detail", above=0), AllOf(When("distortion", above=0), When("warp_detail", above=0))
                ),
            ),
            Param(
                "lacunarity",
                "float",
                2.0,
                hard=(1.0, 16.0),
                soft=(1.5, 4.0),
                label="Lacunarity",
                description="Each octave's frequency relative to the previous one",
                active_when=AnyOf(
                    When("detail", above=0), AllOf(When("distortion", above=0), When("warp_detail", above=0))
                ),
            ),
            Param(
                "offset",
                "float",
                1.0,
                hard=(-1000.0, 1000.0),
                soft=(0.0, 2.0),
                label="Offset",
                description="Raises the basis before the multifractal products (ridged, hybrid, heterogeneous)",
                active_when=When("fractal", "ridged_multifractal", "hybrid_multifractal", "hetero_terrain"),
            ),
            Param(
                "gain",
                "float",
                2.0,
                hard=(0.0, 1000.0),
                soft=(0.0, 10.0),
                label="Gain",
                description="How strongly an octave's signal weights the next (ridged and hybrid)",
                active_when=When("fractal", "ridged_multifractal", "hybrid_multifractal"),
            ),
            Param(
                "distortion",
                "float",
                0.0,
                hard=(0.0, 1.0e6),
                soft=(0.0, 1000.0),
                unit="m",
                label="Distortion",
                description="Largest displacement of the domain warp (0: no warping)",
            ),
            Param(
                "warp_iterations",
                "int",
                1,
                hard=(1, 8),
                soft=(1, 4),
                label="Warp Iterations",
                description="How many times the warp is applied to its own result",
                active_when=When("distortion", above=0),
            ),
            Param(
                "warp_detail",
                "float",
                2.0,
                hard=(0.0, 15.0),
                soft=(0.0, 6.0),
                label="Warp Detail",
                description="Octaves beyond the first of the fBm that displaces the domain",
                active_when=When("distortion", above=0),
            ),
            Param(
                "stretch",
                "float",
                1.0,
                hard=(1.0, 100.0),
                soft=(1.0, 10.0),
                unit="factor",
                label="Stretch",
                description="Features are this many times longer along the stretch direction (1: isotropic; dunes)",
            ),
            Param(
                "stretch_direction",
                "float",
                0.0,
                hard=(0.0, 360.0),
                unit="deg",
                label="Stretch Direction",
                description="Direction features run along, degrees clockwise from north",
                active_when=When("stretch", above=1),
            ),
            Param(
                "cone",
                "float",
                0.0,
                hard=(0.0, 1000.0),
                soft=(0.0, 10.0),
                label="Cone",
                description="Height of a cone added at the world's centre, in the noise's units (fBm spans about "
                "-1 to 1; 0: none): a volcano",
            ),
            Param(
                "cone_radius",
                "float",
                500.0,
                hard=(OPEN_LOW, 1.0e6),
                soft=(1.0, 20_000.0),
                unit="m",
                label="Cone Radius",
                description="Radius of the cone's foot",
                active_when=When("cone", above=0),
            ),
            Param(
                "crater_radius",
                "float",
                0.0,
                hard=(0.0, 1.0e6),
                soft=(0.0, 5000.0),
                unit="m",
                label="Crater Radius",
                description="Radius of the summit crater, where the cone falls again (0: none)",
                active_when=When("cone", above=0),
            ),
        ),
        source="Perlin 1985, 2002; Worley 1996; Musgrave in Ebert et al., Texturing and Modeling (2003)",
        uses_cell_size=True,
    )
)

register_generator(
    Generator(
        "dunes",
        "Dunes",
        "A transverse and barchanoid dune field under one wind: gentle stoss slopes, slip faces at the angle of "
        "repose, crests that meander, fork and end; lengths in metres (set Height to about Aspect x Spacing)",
        dune_field,
        (
            Param(
                "wind_direction",
                "float",
                250.0,
                hard=(0.0, 360.0),
                unit="deg",
                label="Wind From",
                description="Direction the sand-moving wind blows from, degrees clockwise from north (the slip "
                "faces look the other way)",
            ),
            Param(
                "spacing",
                "float",
                500.0,
                hard=(1.0e-3, 1.0e6),
                soft=(20.0, 3000.0),
                unit="m",
                label="Spacing",
                description="Crest-to-crest distance along the wind (simple dunes 50-500 m, draas 0.5-3 km)",
            ),
            Param(
                "aspect",
                "float",
                0.08,
                hard=(1.0e-3, 0.5),
                soft=(0.02, 0.12),
                unit="factor",
                label="Aspect",
                description="Height of a full-size dune over its spacing (measured 0.03-0.1, Lancaster 1988); "
                "the dunes' stoss and lee must fit in the spacing",
            ),
            Param(
                "stoss_slope",
                "float",
                9.0,
                hard=(0.5, 45.0),
                soft=(3.0, 20.0),
                unit="deg",
                label="Stoss Slope",
                description="Windward slope of the dunes (5-15 degrees on real dunes), below Slip Face",
            ),
            Param(
                "slip_face",
                "float",
                33.0,
                hard=(1.0, 80.0),
                soft=(25.0, 40.0),
                unit="deg",
                label="Slip Face",
                description="Lee slope: the angle of repose of dry sand, 32-34 degrees",
            ),
            Param(
                "sinuosity",
                "float",
                0.8,
                hard=(0.0, 4.0),
                soft=(0.0, 2.0),
                label="Sinuosity",
                description="How far, in spacings, crests meander and bow into crescents (0: straight crests)",
            ),
            Param(
                "height_variation",
                "float",
                0.75,
                hard=(0.0, 1.0),
                unit="factor",
                label="Height Variation",
                description="How much dune heights vary over the field and along crests (low horns, saddles)",
            ),
            Param(
                "defects",
                "float",
                1.0,
                hard=(0.0, 1000.0),
                soft=(0.0, 10.0),
                label="Defects",
                description="Crest forks and ends per square kilometre",
            ),
        ),
        source="Lancaster 1988; Werner & Kocurek 1999; Bagnold 1941",
        uses_cell_size=True,
    )
)

#: A global filter reads the whole world around any window.
_WHOLE_WORLD = 1 << 30
_EDGES = (
    ("closed", "Closed", "Water and material stay in the map"),
    ("open", "Open", "Water and material leave over the map's border"),
)


#: Erosion maps a recipe evaluation can carry out (:meth:`core.recipe.Recipe.evaluate_with_maps`).
MAP_NAMES = (
    "drainage_area",
    "flow_direction",
    "water_depth",
    "deposited",
    "removed",
    "ice_thickness",
    "lake_depth",
    "river_width",
    "river_depth",
)


def _add_change(maps: dict[str, Any] | None, deposited: Any, removed: Any) -> None:
    """Add a filter's deposited and removed metres to ``maps`` (summed over the erosion filters of a stack)."""
    if maps is None:
        return
    for name, values in (("deposited", deposited), ("removed", removed)):
        previous = maps.get(name)
        v = np.asarray(values, dtype=np.float32)
        maps[name] = v.copy() if previous is None else (previous + v).astype(np.float32)


@contextmanager
def _metres_discarded() -> Iterator[None]:
    """A filter cancelled inside: its partial result is in metres, which a recipe's caller cannot use, so the
    :class:`Cancelled` that leaves carries the steps done and no result."""
    try:
        yield
    except Cancelled as err:
        raise Cancelled(str(err), done=err.done, total=err.total) from None


#: The thermal filter's talus angle per cell (a mask mapped to angles: steep rock, gentle scree).
TALUS_MAP = param_map(
    "talus",
    "Talus Angle",
    "Talus angle per cell: the map's weights 0..1 become angles between its two values (replacing Talus Angle)",
    unit="deg",
    hard=(0.0, 89.0),
    soft=(10.0, 60.0),
    default=(30.0, 45.0),
)
#: The stream-power filter's rock hardness: a factor on K per cell (0 = rock that does not erode).
ERODIBILITY_MAP = param_map(
    "erodibility",
    "Erodibility",
    "Rock hardness per cell: K times a factor between the map's two values (0: rock that does not erode)",
    unit="factor",
    hard=(0.0, 100.0),
    soft=(0.0, 4.0),
    default=(1.0, 1.0),
)
#: The stream-power filter's precipitation: each cell's area weighted by it before accumulation (the discharge).
PRECIPITATION_MAP = param_map(
    "precipitation",
    "Precipitation",
    "Precipitation per cell relative to 1: the drainage area becomes the discharge of the rain that falls",
    unit="factor",
    hard=(0.0, 1000.0),
    soft=(0.0, 4.0),
    default=(1.0, 1.0),
)


def _thermal(
    heightmap: Any,
    *,
    cell_size: float,
    height: float,
    talus_angle: float,
    steps: int,
    rate: float,
    edges: str,
    outside: str = "extend",
    time: str = "years",
    duration: float = 10.0,
    diffusivity: float = 1.0,
    maps: dict[str, Any] | None = None,
    callback: Progress | None = None,
    talus_map: Any = None,
) -> Any:
    """Thermal erosion of a normalised heightmap at the terrain's scale (metres), back to normalised units;
    ``talus_map`` (degrees per cell, :data:`TALUS_MAP`) replaces ``talus_angle``. ``time="years"`` runs
    ``duration`` years at ``diffusivity`` (:func:`core.erosion.thermal.thermal_passes`), ``"passes"`` (spec version 4)
    ``steps`` passes."""
    with _metres_discarded():
        result = thermal_erosion(
            heightmap * np.float32(height),
            talus_angle=talus_angle if talus_map is None else np.asarray(talus_map, dtype=np.float64),
            cell_size=cell_size,
            steps=steps,
            rate=rate,
            edges=edges,
            outside=outside,
            duration=duration if time == "years" else None,
            diffusivity=diffusivity,
            callback=callback,
        )
    _add_change(maps, result.deposited, result.removed)
    return (result.heights / np.float32(height)).astype(np.float32)


def _hydraulic(
    heightmap: Any,
    *,
    cell_size: float,
    height: float,
    steps: int,
    rain_rate: float,
    capacity: float,
    dissolve_rate: float,
    deposit_rate: float,
    evaporation_rate: float,
    depth_scale: float,
    edges: str,
    bounded: bool = True,
    time: str = "seconds",
    duration: float = 10.0,
    maps: dict[str, Any] | None = None,
    callback: Progress | None = None,
) -> Any:
    """Hydraulic erosion of a normalised heightmap at the terrain's scale (metres), back to normalised units.
    ``time="seconds"`` simulates ``duration`` seconds (:func:`core.erosion.hydraulic.hydraulic_steps`),
    ``"steps"`` (spec version 4) ``steps`` time steps of half the stable one."""
    with _metres_discarded():
        result = hydraulic_erosion(
            heightmap * np.float32(height),
            cell_size,
            steps=steps,
            time_step=None,
            rain_rate=rain_rate,
            capacity=capacity,
            dissolve_rate=dissolve_rate,
            deposit_rate=deposit_rate,
            evaporation_rate=evaporation_rate,
            depth_scale=depth_scale,
            edges=edges,
            bounded=bounded,
            duration=duration if time == "seconds" else None,
            callback=callback,
        )
    _add_change(maps, result.deposited, result.removed)
    if maps is not None and result.water is not None:
        maps["water_depth"] = result.water.astype(np.float32)
    return (result.heights / np.float32(height)).astype(np.float32)


def _thermal_passes(p: Mapping[str, Any]) -> int:
    """The passes a thermal filter's parameters (with the recipe's ``cell_size``) run (its work's count)."""
    if p.get("time", "years") == "passes" or "cell_size" not in p:
        return int(p.get("steps", 50))
    try:
        return thermal_passes(p.get("duration", 10.0), p.get("diffusivity", 1.0), p["cell_size"])
    except (TypeError, ValueError):  # the filter itself refuses these by name
        return 0


def _hydraulic_steps(p: Mapping[str, Any]) -> int:
    """The time steps a hydraulic filter's parameters (with the recipe's ``cell_size``) run (its work's count)."""
    if p.get("time", "seconds") == "steps" or "cell_size" not in p:
        return int(p.get("steps", 200))
    try:
        return hydraulic_steps(p.get("duration", 10.0), p["cell_size"])[0]
    except (TypeError, ValueError):  # the filter itself refuses these by name
        return 0


register_filter(
    Filter(
        "thermal",
        "Thermal Erosion",
        "Material slides downhill until no slope is steeper than the talus angle (scree)",
        _thermal,
        (
            Param(
                "talus_angle",
                "float",
                35.0,
                hard=(0.0, 89.0),
                soft=(10.0, 60.0),
                unit="deg",
                label="Talus Angle",
                description="Steepest slope loose material rests at",
            ),
            Param(
                "time",
                "enum",
                "years",
                label="Time",
                description="How the filter's time is counted",
                items=(
                    (
                        "years",
                        "Years",
                        "Duration in years at a diffusivity in square metres a year: the same landform at every size",
                    ),
                    (
                        "passes",
                        "Passes",
                        "Steps as passes over the grid: less in metres at a larger size (version 4)",
                    ),
                ),
            ),
            Param(
                "duration",
                "float",
                10.0,
                hard=(0.0, 1.0e7),
                soft=(1.0, 2000.0),
                unit="yr",
                label="Duration",
                description="Years loose material moves for (passes: Duration x Diffusivity / cell size²)",
                active_when=When("time", "years"),
            ),
            Param(
                "diffusivity",
                "float",
                1.0,
                hard=(1.0e-3, 1.0e4),
                soft=(0.1, 10.0),
                unit="m2/yr",
                label="Diffusivity",
                description="How fast loose material above the talus slope spreads",
                active_when=When("time", "years"),
            ),
            Param(
                "steps",
                "int",
                50,
                hard=(0, 100_000),
                soft=(1, 400),
                label="Steps",
                description="Time steps: passes of material moving downhill",
                active_when=When("time", "passes"),
            ),
            Param(
                "rate",
                "float",
                0.5,
                hard=(0.01, 1.0),
                unit="factor",
                label="Rate",
                description="Share of the excess moved per pass",
            ),
            Param("edges", "enum", "closed", label="Edges", description="What the map's border does", items=_EDGES),
            Param(
                "outside",
                "enum",
                "extend",
                label="Outside",
                description="What lies beyond open edges",
                items=(
                    (
                        "extend",
                        "Edge Slope",
                        "The edge's own slope continues outwards: an open edge steepens nothing inside it",
                    ),
                    (
                        "lowest",
                        "Lowest Height",
                        "A ring at the terrain's lowest height, a cliff that wears the edges down (version 3)",
                    ),
                ),
                active_when=When("edges", "open"),
            ),
        ),
        source="Musgrave, Kolb & Mace 1989; Olsen 2004",
        margin=lambda _p: _WHOLE_WORLD,
        passes=lambda p: 5 * _thermal_passes(p),
        uses_scale=True,
        param_maps=(TALUS_MAP,),
        makes_maps=True,
    )
)

register_filter(
    Filter(
        "hydraulic",
        "Hydraulic Erosion",
        "Rain, shallow-water flow through virtual pipes, sediment taken up and laid down "
        "(gullies, fans, filled valleys)",
        _hydraulic,
        (
            Param(
                "time",
                "enum",
                "seconds",
                label="Time",
                description="How the filter's time is counted",
                items=(
                    (
                        "seconds",
                        "Seconds",
                        "Duration in seconds of flow, in stable time steps: the same landform at every size",
                    ),
                    (
                        "steps",
                        "Steps",
                        "Time steps of half the stable one: a shorter time at a larger size (version 4)",
                    ),
                ),
            ),
            Param(
                "duration",
                "float",
                10.0,
                hard=(0.0, 1.0e6),
                soft=(1.0, 100.0),
                unit="s",
                label="Duration",
                description="Seconds of simulated flow",
                active_when=When("time", "seconds"),
            ),
            Param(
                "steps",
                "int",
                200,
                hard=(0, 100_000),
                soft=(10, 400),
                label="Steps",
                description="Time steps simulated",
                active_when=When("time", "steps"),
            ),
            Param(
                "rain_rate",
                "float",
                0.02,
                hard=(0.0, 10.0),
                soft=(0.001, 0.1),
                label="Rain",
                description="Rainfall in metres of water per second (storm strength, compressed in time)",
            ),
            Param(
                "capacity",
                "float",
                0.02,
                hard=(0.0, 100.0),
                soft=(0.002, 0.2),
                label="Capacity",
                description="Sediment the water can carry per unit of speed and sine of the tilt (Kc, seconds)",
            ),
            Param(
                "dissolve_rate",
                "float",
                2.0,
                hard=(0.0, 1.0e4),
                soft=(0.1, 20.0),
                label="Dissolving",
                description="How fast water takes up terrain below its capacity (Ks, 1/s)",
            ),
            Param(
                "deposit_rate",
                "float",
                2.0,
                hard=(0.0, 1.0e4),
                soft=(0.1, 20.0),
                label="Deposition",
                description="How fast sediment above the capacity settles (Kd, 1/s)",
            ),
            Param(
                "evaporation_rate",
                "float",
                0.2,
                hard=(0.0, 1.0e4),
                soft=(0.01, 2.0),
                label="Evaporation",
                description="Share of the water lost per second (Ke, 1/s)",
            ),
            Param(
                "depth_scale",
                "float",
                0.2,
                hard=(0.0, 1.0e4),
                soft=(0.02, 1.0),
                unit="m",
                label="Depth Scale",
                description="Water depth at which the capacity is full: erosion gathers in channels (0: off)",
            ),
            Param("edges", "enum", "closed", label="Edges", description="What the map's border does", items=_EDGES),
            Param(
                "bounded",
                "bool",
                True,
                label="Bounded",
                description="A step dissolves a cell at most to its lowest neighbour and deposits at most to its "
                "highest, so the terrain stays within its starting heights at any rate (off: version 3)",
            ),
        ),
        source="Mei, Decaudin & Hu 2007; Šťava et al. 2008",
        margin=lambda _p: _WHOLE_WORLD,
        passes=lambda p: 6 * _hydraulic_steps(p),
        fit=_fit_hydraulic,
        uses_scale=True,
        makes_maps=True,
    )
)


#: How an uplift map follows the terrain (``uplift_from_terrain``): ``"peak"`` (spec version 4) the highest
#: point (in height) rises at ``uplift``; ``"height"`` (version 3) ``uplift`` times the normalised height.
UPLIFT_SCALES = ("peak", "height")


def uplift_map(heightmap: Any, uplift: float, scale: str) -> Any:
    """The uplift rate map (m/yr, float64) of a normalised heightmap, never beyond ``±|uplift|`` for ``"peak"``.

    ``"peak"``: ``uplift x h / max|h|`` (0 on an all-zero map), so the terrain's highest point rises at
    ``uplift`` whatever the filters before made of its range, and a stack of stream-power filters does not
    compound (each one's uplift is the rate the user set). ``"height"`` (version 3): ``uplift x h``, which
    a terrain raised above its height range by an earlier filter pushed past the filter's bound; the derived
    map is then clipped to the physical bound ``[-1, 1]`` m/yr (version 3 refused it, naming ``uplift``, a
    value the user never set).
    """
    h = np.asarray(heightmap, dtype=np.float64)
    if scale == "height":
        return np.clip(uplift * h, -1.0, 1.0)
    peak = float(np.abs(h).max()) if h.size else 0.0
    return uplift * (h / peak) if peak > 0.0 else np.zeros_like(h)


def _erodibility(
    shape: tuple[int, int], cell_size: float, duration: float, k: float | None, m: float, n: float, factors: Any
) -> Any:
    """K for the solver: ``k`` (``None``: the automatic one, left to the solver) times the erodibility map's
    per-cell factors when there are any (then the automatic K is :func:`.stream_power.default_erodibility`)."""
    if factors is None:
        return k
    base = default_erodibility(shape, cell_size, duration, m=m, n=n) if k is None else k
    return np.clip(base * np.asarray(factors, dtype=np.float64), 0.0, 1.0)


def _stream_power(
    heightmap: Any,
    *,
    cell_size: float,
    height: float,
    auto_rates: bool,
    k: float,
    m: float,
    n: float,
    uplift: float,
    uplift_from_terrain: bool,
    diffusion: float,
    dt: float,
    steps: int,
    use_sea_level: bool,
    sea_level: float,
    routing: str = "d8",
    flow_exponent: float = 1.0,
    lake_fill: bool = False,
    auto_scale: str = "cell",
    channel_width: float = 0.0,
    channel_area: float = 0.0,
    uplift_scale: str = "peak",
    diffusion_scheme: str = "implicit",
    flats: str = "towards_lower",
    deposition: float = 0.0,
    marine_diffusion: float = 0.0,
    maps: dict[str, Any] | None = None,
    callback: Progress | None = None,
    erodibility_map: Any = None,
    precipitation_map: Any = None,
) -> Any:
    """Stream-power erosion of a normalised heightmap at the terrain's scale, back to normalised units.

    ``erodibility_map`` (:data:`ERODIBILITY_MAP`) multiplies K per cell (the automatic K too), as Braun &
    Willett 2013's implicit scheme takes a spatially variable K cell by cell; ``precipitation_map``
    (:data:`PRECIPITATION_MAP`) weights each cell's area before it is accumulated (the effective discharge).
    Without them the run is the one without maps, bit for bit.

    With ``uplift_from_terrain`` the uplift map is the starting terrain scaled to ``uplift`` at its highest
    point, so the generator's large shapes stay as a tectonic start. With ``auto_rates`` and ``auto_scale``
    ``"map"`` the diffusivity and the channel width come from the map's size in metres
    (:func:`.stream_power.map_diffusivity`, :func:`.stream_power.default_channel_width`), so a preview and the
    full terrain of the same width erode alike; ``"cell"`` (version 2) smooths one cell, channels a cell wide.
    """
    shape = (int(heightmap.shape[0]), int(heightmap.shape[1]))
    if min(shape) < 3:  # the solver's own message names its argument, not what the user chose
        raise ValueError(
            f"the terrain is too small for the erosion filter: {shape[0]} x {shape[1]} vertices, it needs at "
            "least 3 x 3 (choose a larger Size)"
        )
    metres = heightmap.astype(np.float64) * height
    rate: Any = uplift_map(heightmap, uplift, uplift_scale) if uplift_from_terrain else uplift
    d: float | None = diffusion
    width = channel_width
    if auto_rates:
        by_map = auto_scale == "map"
        d = map_diffusivity(shape, cell_size, dt * max(steps, 1)) if by_map else None
        width = default_channel_width(shape, cell_size) if by_map else 0.0
    with _metres_discarded():
        result = stream_power_erosion(
            metres,
            cell_size,
            k=_erodibility(shape, cell_size, dt * max(steps, 1), None if auto_rates else k, m, n, erodibility_map),
            m=m,
            n=n,
            uplift=rate,
            diffusion=d,
            dt=dt,
            steps=steps,
            sea_level=sea_level * height if use_sea_level else None,
            routing=routing,
            flow_exponent=flow_exponent,
            lake_fill=lake_fill,
            channel_width=width,
            channel_area=channel_area,
            diffusion_scheme=diffusion_scheme,
            flats=flats,
            callback=callback,
            precipitation=precipitation_map,
            deposition=deposition,
            marine_diffusion=marine_diffusion,
        )
    if maps is not None:
        maps["drainage_area"] = result.drainage_area.astype(np.float32)
        maps["flow_direction"] = result.direction.astype(np.float32)
        _add_change(maps, np.maximum(-result.eroded, 0.0), np.maximum(result.eroded, 0.0))
    return (result.heights / np.float32(max(height, 1e-6))).astype(np.float32)


register_filter(
    Filter(
        "erosion",
        "Stream-Power Erosion",
        "Rivers cut valleys into uplifting rock: dz/dt = U - K A^m S^n + D laplacian(z), water leaving through the "
        "map's edges (or the sea)",
        _stream_power,
        (
            Param("steps", "int", 30, hard=(0, 100_000), soft=(1, 100), label="Steps", description="Time steps"),
            Param(
                "dt",
                "float",
                2.0e4,
                hard=(1.0, 1.0e8),
                soft=(100.0, 1.0e6),
                unit="yr",
                label="Time Step",
                description="Years per step (the schemes are implicit: stable at any step)",
            ),
            Param(
                "uplift",
                "float",
                1.0e-3,
                hard=(-1.0, 1.0),
                soft=(0.0, 0.01),
                unit="m/yr",
                label="Uplift",
                description="Rock uplift rate U",
            ),
            Param(
                "uplift_from_terrain",
                "bool",
                True,
                label="Uplift from Terrain",
                description="Uplift in proportion to the starting terrain (its highest point at Uplift), so the "
                "generator's shapes stay as a tectonic start",
            ),
            Param(
                "auto_rates",
                "bool",
                True,
                label="Automatic K and D",
                description="Erodibility and diffusivity from the map's size and the run length, so valleys form at "
                "any scale",
            ),
            Param(
                "k",
                "float",
                2.0e-5,
                hard=(0.0, 1.0),
                soft=(1.0e-7, 1.0e-3),
                label="Erodibility",
                description="Erodibility K (1/yr * m^(1-2m)), when not automatic",
                active_when=When("auto_rates", False),
            ),
            Param(
                "m",
                "float",
                0.45,
                hard=(0.0, 2.0),
                soft=(0.3, 0.6),
                label="Area Exponent",
                description="Drainage-area exponent m (concavity m / n; 0.35-0.6 in nature)",
            ),
            Param(
                "n",
                "float",
                1.0,
                hard=(0.25, 4.0),
                soft=(0.5, 2.0),
                label="Slope Exponent",
                description="Slope exponent n (1 is solved exactly)",
            ),
            Param(
                "diffusion",
                "float",
                0.01,
                hard=(0.0, 1.0e6),
                soft=(0.0, 10.0),
                unit="m2/yr",
                label="Diffusivity",
                description="Hillslope diffusivity D, when not automatic",
                active_when=When("auto_rates", False),
            ),
            Param(
                "use_sea_level",
                "bool",
                False,
                label="Sea",
                description="Cells under the sea level are base level: rivers end at the coast",
            ),
            Param(
                "sea_level",
                "float",
                0.1,
                hard=(0.0, 1.0),
                unit="normalised",
                label="Sea Level",
                description="Sea level as a share of the starting height range",
                active_when=When("use_sea_level", True),
            ),
            Param(
                "routing",
                "enum",
                "d8",
                label="Flow Routing",
                description="How water leaves a cell: to its steepest neighbour, or shared among all lower ones",
                items=(
                    ("d8", "D8", "All water to the steepest lower neighbour: sharp, one-cell channels"),
                    (
                        "mfd",
                        "Multiple Flow",
                        "Water shared among all lower neighbours by slope: drainage "
                        "spreads over hillslopes and valley floors (about three times slower)",
                    ),
                ),
            ),
            Param(
                "flow_exponent",
                "float",
                1.0,
                hard=(0.0, 20.0),
                soft=(0.5, 8.0),
                label="Flow Exponent",
                description="Multiple flow: slope exponent p of the shares S^p (1 Quinn, 1.1 Freeman, 4-8 Holmgren: "
                "higher is closer to D8)",
                active_when=When("routing", "mfd"),
            ),
            Param(
                "lake_fill",
                "bool",
                True,
                label="Fill Lakes",
                description="Sediment eroded upstream fills closed depressions from their floor up to their spill "
                "level (the excess flows on), so basins below the map's edge do not stay lakes",
            ),
            Param(
                "deposition",
                "float",
                0.0,
                hard=(0.0, 10.0),
                soft=(0.0, 2.0),
                label="Deposition (G)",
                description="How much of the sediment rivers carry settles where they slow down: 0 = rivers only "
                "cut (detachment-limited), 1 = about as much deposited as eroded on fans and floodplains "
                "(single-flow routing only)",
            ),
            Param(
                "marine_diffusion",
                "float",
                0.0,
                hard=(0.0, 1.0e6),
                soft=(0.0, 10.0),
                unit="m2/yr",
                label="Marine Diffusivity",
                description="Sediment the rivers carry into the sea settles on the sea floor around their mouths, "
                "building deltas and shelves up to the sea level; each step's load spreads about sqrt(2 D dt) "
                "(0: it leaves the map)",
                active_when=When("use_sea_level", True),
            ),
            Param(
                "auto_scale",
                "enum",
                "map",
                label="Automatic Scale",
                description="What the automatic rates scale hillslope diffusion and channel width with",
                items=(
                    (
                        "map",
                        "Map",
                        "Diffusion over 1/64 of the map's width, channels 1/1024 of it wide: the "
                        "preview erodes as the full-size terrain does",
                    ),
                    (
                        "cell",
                        "Cell",
                        "Diffusion over one cell, channels one cell wide (version 2): a coarser preview erodes faster",
                    ),
                ),
                active_when=When("auto_rates", True),
            ),
            Param(
                "channel_width",
                "float",
                0.0,
                hard=(0.0, 1.0e6),
                soft=(0.0, 100.0),
                unit="m",
                label="Channel Width",
                description="Channel width when not automatic: a wider cell is lowered by width / cell of the bed's "
                "incision (0: one cell)",
                active_when=When("auto_rates", False),
            ),
            Param(
                "channel_area",
                "float",
                0.0,
                hard=(0.0, 1.0e12),
                soft=(0.0, 1.0e6),
                unit="m2",
                label="Channel Area",
                description="Drainage area at which channels begin: cells draining less are hillslopes, shaped by "
                "diffusion only (0: stream power everywhere)",
            ),
            Param(
                "uplift_scale",
                "enum",
                "peak",
                label="Uplift Scale",
                description="How Uplift from Terrain follows the starting terrain (the same for a terrain spanning "
                "its height range, as a generator's does)",
                items=(
                    ("peak", "Highest Point", "The terrain's highest point rises at Uplift, the rest in proportion"),
                    (
                        "height",
                        "Height",
                        "Uplift times the height in units of the terrain's height, so a terrain an earlier filter "
                        "raised rises faster (version 3)",
                    ),
                ),
            ),
            Param(
                "diffusion_scheme",
                "enum",
                "implicit",
                label="Diffusion Scheme",
                description="Time stepping of the hillslope diffusion",
                items=(
                    (
                        "implicit",
                        "Implicit",
                        "Backward Euler split by direction: monotone at any step, no new pits or peaks",
                    ),
                    (
                        "peaceman_rachford",
                        "Peaceman-Rachford",
                        "Alternating-direction implicit, second order, but rings at long steps (version 3)",
                    ),
                ),
            ),
            Param(
                "flats",
                "enum",
                "towards_lower",
                label="Flats",
                description="How water crosses flats and picks among equally steep neighbours",
                items=(
                    (
                        "towards_lower",
                        "Towards Lower",
                        "Flats drain towards lower and away from higher ground; ties favour no direction",
                    ),
                    (
                        "first",
                        "First Neighbour",
                        "Each flat cell is a pit of its own; ties go to the first neighbour (version 3)",
                    ),
                ),
            ),
        ),
        source="Braun & Willett 2013; Cordonnier, Bovy & Braun 2019; Yanenko 1971; Peaceman & Rachford 1955; "
        "Barnes, Lehman & Mulla 2014; Quinn et al. 1991; Freeman 1991; Holmgren 1994; Yuan et al. 2019; "
        "Armitage 2019; Yuan, Braun, Guerit, Rouby & Cordonnier 2019 (deposition, marine diffusion)",
        margin=lambda _p: _WHOLE_WORLD,
        memory=lambda p: MFD_STEP_BYTES if p.get("routing") == "mfd" else STEP_BYTES,
        passes=lambda p: stream_power_passes(
            int(p.get("steps", 30)),
            routing=str(p.get("routing", "d8")),
            n=float(p.get("n", 1.0)),
            deposition=float(p.get("deposition", 0.0)),
        ),
        fit=_fit_stream_power,
        uses_scale=True,
        param_maps=(ERODIBILITY_MAP, PRECIPITATION_MAP),
        makes_maps=True,
    )
)
from . import glacial  # noqa: E402, F401, I001  (registers the glacial filter, after the erosion filters)
from . import drain  # noqa: E402, F401, I001  (registers the drain filter after the erosion filters)
from . import coast  # noqa: E402, F401, I001  (registers the coastal erosion filter after the drain filter)
from . import surface_water  # noqa: E402, F401, I001  (registers the rivers and lakes filter after the coast)

for _source in SOURCES:  # the file and object sources, after the generators
    register_generator(_source)

from . import carve  # noqa: E402, F401  (registers the carve filter, last in the menus)
