"""The glacial erosion filter: valley glaciers from snow above an equilibrium-line altitude scour their beds.

Wraps :func:`core.erosion.glacial.glacial_erosion` (the model, its scheme and its sources are in that module's
docstring) as the filter ``glacial``: the normalised heightmap is multiplied by ``height`` to metres, eroded,
and divided back; the ELA is a height in metres of the terrain (0 at the heightmap's 0). It bakes the map
``ice_thickness`` (metres of ice at the end) and adds its erosion to ``removed`` (glaciers only lower their
bed: ``deposited`` gets zeros). The ice flows on its own grid of ``ice_cell`` metres (:data:`ICE_CELL` by
default; :class:`core.erosion.glacial.IceGrid`). A global filter: ice flows across the whole world.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .erosion.glacial import GLEN_A, glacial_erosion, glacial_passes
from .params import Filter, Param, register_filter
from .progress import Cancelled, Progress

__all__ = ["GLACIAL_PARAMS", "ICE_CELL"]

#: A global filter reads the whole world around any window.
_WHOLE_WORLD = 1 << 30


#: Fitted settings (:func:`core.fitted_defaults`): the ELA at this share of the terrain's Height above its lowest
#: point (glaciers on the upper part of a range), the sliding's coupling length at this share of its width.
ELA_SHARE = 0.6
COUPLING_SHARE = 0.06
#: The ice grid's default cell, metres: a few ice thicknesses' smoothing over a valley glacier's 100-300 m of ice.
ICE_CELL = 200.0


def _fit(s: Any) -> dict[str, Any]:
    """The ELA at :data:`ELA_SHARE` of Height, the coupling length at :data:`COUPLING_SHARE` of the width."""
    return {"ela": float(ELA_SHARE * s["height"]), "coupling_length": float(COUPLING_SHARE * s["width"])}


def _glacial(
    heightmap: Any,
    *,
    cell_size: float,
    height: float,
    ela: float,
    balance_gradient: float,
    max_accumulation: float,
    flow_factor: float,
    sliding: float,
    erosion_constant: float,
    coupling_length: float,
    steps: int,
    dt: float,
    max_substeps: int,
    ice_cell: float,
    maps: dict[str, Any] | None = None,
    callback: Progress | None = None,
) -> Any:
    """Glacial erosion of a normalised heightmap at the terrain's scale (metres), back to normalised units;
    ``flow_factor`` is in units of 1e-17 Pa^-3 yr^-1."""
    shape = (int(heightmap.shape[0]), int(heightmap.shape[1]))
    if min(shape) < 3:
        raise ValueError(
            f"the terrain is too small for the glacial filter: {shape[0]} x {shape[1]} vertices, it needs at "
            "least 3 x 3 (choose a larger Size)"
        )
    try:
        result = glacial_erosion(
            heightmap.astype(np.float64) * height,
            cell_size,
            ela=ela,
            steps=steps,
            dt=dt,
            balance_gradient=balance_gradient,
            max_accumulation=max_accumulation,
            flow_factor=flow_factor * 1e-17,
            sliding=sliding,
            erosion_constant=erosion_constant,
            coupling_length=coupling_length,
            max_substeps=max_substeps,
            ice_cell=ice_cell,
            callback=callback,
        )
    except Cancelled as err:  # the partial result is in metres, which a recipe cannot use
        raise Cancelled(str(err), done=err.done, total=err.total) from None
    if maps is not None:
        for name, values in (("deposited", np.zeros(shape)), ("removed", result.eroded)):
            previous = maps.get(name)
            v = np.asarray(values, dtype=np.float32)
            maps[name] = v.copy() if previous is None else (previous + v).astype(np.float32)
        maps["ice_thickness"] = result.ice_thickness.astype(np.float32)
    return (result.heights / np.float32(max(height, 1e-6))).astype(np.float32)


GLACIAL_PARAMS = (
    Param(
        "ela",
        "float",
        1800.0,
        hard=(-1.0e5, 1.0e5),
        soft=(0.0, 5000.0),
        unit="m",
        label="ELA",
        description="Equilibrium-line altitude: height in metres above which snow builds ice, below which it melts",
    ),
    Param(
        "balance_gradient",
        "float",
        0.007,
        hard=(1.0e-6, 1.0),
        soft=(0.001, 0.02),
        unit="",
        label="Mass-Balance Gradient",
        description="Metres of ice gained per year per metre above the ELA, lost below it (1/yr)",
    ),
    Param(
        "max_accumulation",
        "float",
        2.0,
        hard=(0.0, 100.0),
        soft=(0.1, 5.0),
        unit="m/yr",
        label="Max Accumulation",
        description="Largest accumulation, metres of ice per year, however high the surface",
    ),
    Param(
        "flow_factor",
        "float",
        round(GLEN_A * 1e17, 4),  # 7.574: a value a Blender float property keeps as it is
        hard=(0.0, 1.0e7),
        soft=(0.1, 100.0),
        unit="",
        label="Ice Flow Factor",
        description="Glen's A in 1e-17 Pa^-3 yr^-1 (7.6: temperate ice; smaller is stiffer, colder ice)",
    ),
    Param(
        "sliding",
        "float",
        1.0,
        hard=(0.0, 1000.0),
        soft=(0.0, 10.0),
        unit="factor",
        label="Sliding",
        description="Basal sliding speed over the ice's deformation speed at the surface (0: frozen bed, no erosion)",
    ),
    Param(
        "erosion_constant",
        "float",
        1.0e-4,
        hard=(0.0, 1.0),
        soft=(0.0, 1.0e-3),
        label="Erosion Constant",
        description="K_g: metres of bed eroded per metre the ice slides over it",
    ),
    Param(
        "coupling_length",
        "float",
        600.0,
        hard=(0.0, 1.0e6),
        soft=(0.0, 5000.0),
        unit="m",
        label="Coupling Length",
        description="Radius over which the sliding speed is averaged (the stresses that spread a glacier's "
        "motion across its width, a few ice thicknesses)",
    ),
    Param("steps", "int", 100, hard=(0, 100_000), soft=(1, 400), label="Steps", description="Time steps"),
    Param(
        "dt",
        "float",
        3000.0,
        hard=(1.0e-3, 1.0e7),
        soft=(10.0, 1.0e5),
        unit="yr",
        label="Time Step",
        description="Years of erosion per step",
    ),
    Param(
        "max_substeps",
        "int",
        30,
        hard=(1, 100_000),
        soft=(1, 1000),
        label="Ice Sub-Steps",
        description="Most ice-flow sub-steps per step (the ice lives through less than a step's years when the "
        "stability limit needs more)",
    ),
    Param(
        "ice_cell",
        "float",
        ICE_CELL,
        hard=(0.0, 1.0e6),
        soft=(0.0, 1000.0),
        unit="m",
        label="Ice Cell",
        description="Cell of the grid the ice flows on, metres (never finer than the terrain's; 0: the terrain's "
        "own grid). Ice is smooth over a few ice thicknesses: a coarser ice grid is much faster and gives the same "
        "glaciers at every terrain size",
    ),
)

register_filter(
    Filter(
        "glacial",
        "Glacial Erosion",
        "Ice from snow above the ELA flows downhill (shallow ice) and scours its bed: U-shaped troughs, "
        "cirques, hanging valleys",
        _glacial,
        GLACIAL_PARAMS,
        source="Mahaffy 1976; Hutter 1983; Hallet 1979; Kamb & Echelmeyer 1986; Harbor 1992; Braun, Zwartz & "
        "Tomkin 1999; Herman & Braun 2008; Egholm et al. 2009",
        margin=lambda _p: _WHOLE_WORLD,
        passes=lambda p: glacial_passes(
            int(p.get("steps", 100)),
            int(p.get("max_substeps", 30)),
            cell_size=float(p.get("cell_size", 0.0)),
            ice_cell=float(p.get("ice_cell", ICE_CELL)),
        ),
        memory=lambda _p: 30 * 8,
        uses_scale=True,
        makes_maps=True,
        fit=_fit,
    )
)
