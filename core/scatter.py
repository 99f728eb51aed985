"""Maps and settings for scattering trees and rocks over a terrain.

The add-on's Geometry Nodes scatter (``addon/scatter.py``) weights its density by maps of the terrain; the one
that Blender cannot compute from the mesh alone is the *topographic wetness index* (TWI) of Beven and Kirkby
(K. J. Beven and M. J. Kirkby, "A physically based, variable contributing area model of basin hydrology",
*Hydrological Sciences Bulletin* 24 (1), 1979, pp. 43-69):

    TWI = ln(a / tan b)

where ``a`` is the specific catchment area (the area draining through a cell per unit contour width, m²/m =
m: the drainage area divided by the cell size, the width of the cell's outflow in a D8 routing) and ``b`` the
local slope. Wet ground (valley floors, hollows that collect water from a large area and drain it slowly) has a
high index, dry ground (ridges, steep faces) a low one: about 2 on a 1 m grid's ridge crest, 10 to 20 along its
valleys. On flat ground ``tan b`` is 0 and the index infinite; the slope is floored at :data:`MIN_TAN` (as
GIS tools floor it) so the index stays finite.

:data:`SCATTER_KINDS` declares the placeholder kinds the add-on builds, with sizes in metres and the default
density rules of each (declared once here, so that a spec or preset can one day carry them), and
:data:`CLUMP_OPTIONS` the settings that gather the instances into stands with clearings between them (their
bounds, units and descriptions, which the add-on's node group and Add Scatter take from here).

Real forests are not spread evenly: trees stand in groves with gaps (old clearings, windthrow, soil, grazing),
and grow bigger where the ground is moist. The scatter multiplies its density by a *grove factor* made from a
low-frequency noise of the position in metres (its features about ``clump_size`` metres across): 1 inside a
grove, ``1 - clumping`` in a clearing. The same noise, and the wetness when the terrain has it baked, set a
*site* value in ``[0, 1]`` that ``site_scale`` of each instance's random scale follows (bigger trees inside
groves and in moist hollows, smaller ones at the edges and on dry ridges).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .elementary import log
from .erosion.flow import drainage_area as flow_drainage_area
from .erosion.flow import route_flow
from .heightmap import as_heightmap, check_number
from .lighting.gradient import horn_gradient
from .resample import resample_points

__all__ = [
    "CLUMP_OPTIONS",
    "MIN_TAN",
    "ScatterKind",
    "ScatterOption",
    "SCATTER_KINDS",
    "auto_clump_size",
    "wetness_index",
]

#: The smallest slope tangent the wetness index uses (about 0.057 degrees): flat cells get a finite index.
MIN_TAN = 1.0e-3


def wetness_index(
    heights_m: npt.ArrayLike,
    cell_size: float,
    *,
    drainage: npt.ArrayLike | None = None,
    max_side: int | None = None,
) -> npt.NDArray[np.float32]:
    """Topographic wetness index ``ln(a / tan b)`` of every cell (Beven and Kirkby 1979, see the module).

    Parameters
    ----------
    heights_m : array_like, shape (rows, cols)
        Finite heights in metres, row 0 north.
    cell_size : float
        Metres per cell, in ``(0, 1e6]``.
    drainage : array_like, shape (rows, cols), optional
        Drainage area in m² (the ``drainage_area`` erosion map, :func:`core.erosion.flow.drainage_area`);
        values below ``cell_size²`` are raised to it. Without it the area comes from a D8 routing of
        ``heights_m`` with every edge open and depressions rerouted (:func:`core.erosion.flow.route_flow`).
    max_side : int, optional
        Without ``drainage``, route at most this many cells along the longer side (at least 2): a larger grid
        is resampled bilinearly to one of that many (same extent, cells as square as the shape allows), its
        index computed there at its cell size and resampled back bilinearly. The routing's time grows faster
        than the cell count (about 1 s at 1025², 8 s at 2049²); the coarser index is smoother, and the same
        for every size above ``max_side`` (the index depends on the grid's resolution: Sørensen and Seibert,
        "Effects of DEM resolution on the calculation of topographic wetness indices", *Journal of
        Hydrology* 347, 2007, pp. 79-89). ``None``: the grid as it is.

    Returns
    -------
    ndarray of float32, shape (rows, cols)
        The index, dimensionless (``ln`` of metres): ``a = area / cell_size`` in metres and ``tan b`` from
        Horn's gradient, at least :data:`MIN_TAN`. Computed in float64 with :func:`core.elementary.log`
        (the same bits on every processor), rounded once to float32.

    Raises
    ------
    TypeError, ValueError
        For heights or a drainage map that are not finite 2-D real arrays, a drainage map of another shape,
        or a cell size outside ``(0, 1e6]``.
    """
    z = as_heightmap(heights_m, "heights_m", dtype=np.float64)
    cell = check_number(cell_size, "cell_size", low=0.0, high=1e6, low_open=True)
    if max_side is not None and (isinstance(max_side, bool) or not isinstance(max_side, (int, np.integer))):
        raise TypeError(f"max_side must be an integer, got {type(max_side).__name__}")
    if max_side is not None and max_side < 2:
        raise ValueError(f"max_side must be at least 2, got {max_side}")
    if drainage is None and max_side is not None and max(z.shape) > max_side:
        rows, cols = z.shape
        longer = max(rows, cols) - 1
        small = (
            max(2, round((rows - 1) * (max_side - 1) / longer) + 1),
            max(2, round((cols - 1) * (max_side - 1) / longer) + 1),
        )
        coarse = resample_points(z.reshape(-1, 1), (rows, cols), small, smooth=True).reshape(small)
        index = wetness_index(coarse, cell * longer / (max(small) - 1)).astype(np.float64)
        fine = resample_points(index.reshape(-1, 1), small, (rows, cols), smooth=True)
        return fine.reshape(rows, cols).astype(np.float32)
    if drainage is None:
        area = flow_drainage_area(route_flow(z, cell))
    else:
        area = as_heightmap(drainage, "drainage", dtype=np.float64)
        if area.shape != z.shape:
            raise ValueError(f"drainage must have the heights' shape {z.shape}, got {area.shape}")
    specific = np.maximum(area, cell * cell) / cell
    dx, dy = horn_gradient(z, cell)
    tan_b = np.sqrt(dx * dx + dy * dy)
    np.maximum(tan_b, MIN_TAN, out=tan_b)
    return log(specific / tan_b).astype(np.float32)


@dataclass(frozen=True)
class ScatterOption:
    """One scatter setting declared with its bounds: the node group's input, Add Scatter's property and a
    :class:`ScatterKind` field (its default per kind) of the same meaning.

    ``name`` is the setting's key (Add Scatter's property, a preset entry's key, the :class:`ScatterKind`
    field), ``label`` the node group's input and the property's name, ``unit`` ``"m"`` (metres) or ``""``
    (a factor), ``low`` and ``high`` the bounds (inclusive), ``description`` the tooltip.
    """

    name: str
    label: str
    unit: str
    low: float
    high: float
    description: str

    def check(self, value: float) -> float:
        """``value`` as a float when it lies in ``[low, high]``; ``ValueError`` (naming the setting) if not."""
        return check_number(value, self.name, low=self.low, high=self.high)


#: The grove settings (see the module): the noise's feature size, how bare its clearings are, and how much
#: of an instance's scale follows the site. Clump Size 0 asks Add Scatter for :func:`auto_clump_size`.
CLUMP_OPTIONS: tuple[ScatterOption, ...] = (
    ScatterOption(
        "clump_size",
        "Clump Size",
        "m",
        0.0,
        1.0e5,
        "Metres across a grove or a clearing (the grove noise's feature size; 0: from the terrain's size)",
    ),
    ScatterOption(
        "clumping",
        "Clumping",
        "",
        0.0,
        1.0,
        "How bare the clearings between groves are: 0 even spread, 1 nothing between groves",
    ),
    ScatterOption(
        "site_scale",
        "Site Scale",
        "",
        0.0,
        1.0,
        "Share of an instance's scale set by its site (bigger inside groves and in moist hollows), not chance",
    ),
)

#: :func:`auto_clump_size`'s bounds in metres and its share of the terrain's longer side.
AUTO_CLUMP = (30.0, 400.0, 1.0 / 16.0)


def auto_clump_size(extent_m: float) -> float:
    """The grove size Add Scatter gives a terrain ``extent_m`` metres along its longer side when Clump Size is
    0: a sixteenth of it, at least 30 m and at most 400 m (a 256 m terrain gets 30 m groves, a 4 km one 250 m,
    a 15 km range 400 m), so every terrain shows several groves and clearings across.

    Raises ``ValueError`` for an extent that is not a finite number in ``[0, 1e7]`` metres.
    """
    extent = check_number(extent_m, "extent_m", low=0.0, high=1.0e7)
    low, high, share = AUTO_CLUMP
    return float(min(max(extent * share, low), high))


@dataclass(frozen=True)
class ScatterKind:
    """One kind of scattered object: its placeholder's size and its default density rules.

    Sizes are metres: the placeholder models are ``size`` tall (trees) or across (boulders), scaled per
    instance by a factor in ``[scale_min, scale_max]`` (so instances range ``size * scale_min`` to
    ``size * scale_max``). Density is instances per hectare where every factor is 1, spacing the least
    distance between two instances (metres, Poisson disc), slopes in degrees, wetness in index units
    (:func:`wetness_index`), ``align`` how far instances lean to the ground's normal (0 upright, 1 normal to
    the ground), ``rotation`` the random turn about the vertical in degrees (0 to 180: up to that either
    way), ``sink`` metres the instances are lowered into the ground (a trunk on a slope reaches it);
    ``clump_size``, ``clumping`` and ``site_scale`` the grove settings (:data:`CLUMP_OPTIONS`).
    """

    label: str
    size: float
    scale_min: float
    scale_max: float
    density: float
    spacing: float
    slope_min: float
    slope_max: float
    slope_softness: float
    wetness_min: float
    wetness_softness: float
    align: float
    rotation: float
    sink: float
    clump_size: float = 0.0
    clumping: float = 0.0
    site_scale: float = 0.0
    #: How many variants the placeholder collection holds (picked at random per instance).
    variants: int = 3

    def as_dict(self) -> dict[str, Any]:
        """The settings as a plain dict (every field)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


#: The built-in kinds: conifers 10 to 30 m, broadleaf trees 8 to 20 m, boulders 0.5 to 3 m.
SCATTER_KINDS: dict[str, ScatterKind] = {
    "conifers": ScatterKind(
        label="Conifers",
        size=20.0,
        scale_min=0.5,
        scale_max=1.5,
        density=150.0,
        spacing=4.0,
        slope_min=0.0,
        slope_max=35.0,
        slope_softness=5.0,
        wetness_min=-100.0,
        wetness_softness=1.0,
        align=0.0,
        rotation=180.0,
        sink=0.5,
        clumping=0.85,
        site_scale=0.5,
        variants=6,
    ),
    "broadleaf": ScatterKind(
        label="Broadleaf Trees",
        size=14.0,
        scale_min=8.0 / 14.0,
        scale_max=20.0 / 14.0,
        density=80.0,
        spacing=6.0,
        slope_min=0.0,
        slope_max=25.0,
        slope_softness=5.0,
        wetness_min=6.0,
        wetness_softness=2.0,
        align=0.0,
        rotation=180.0,
        sink=0.5,
        clumping=0.8,
        site_scale=0.5,
        variants=6,
    ),
    "boulders": ScatterKind(
        label="Boulders",
        size=1.5,
        scale_min=1.0 / 3.0,
        scale_max=2.0,
        density=40.0,
        spacing=2.0,
        slope_min=15.0,
        slope_max=60.0,
        slope_softness=10.0,
        wetness_min=-100.0,
        wetness_softness=1.0,
        align=1.0,
        rotation=180.0,
        sink=0.2,
        clumping=0.6,
        site_scale=0.0,
        variants=6,
    ),
}
