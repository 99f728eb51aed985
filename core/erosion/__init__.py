"""Erosion: the filters that move material, and the drainage network they route it along.

- :mod:`.flow`: D8 and multiple-flow-direction routing, depressions
  resolved by the basin graph, drainage area and flow length;
- :mod:`.stream_power`: fluvial incision by the stream-power law (implicit
  along the receiver stack), with uplift, hillslope diffusion and lakes;
- :mod:`.diffusion`: linear hillslope diffusion (Peaceman-Rachford ADI);
- :mod:`.lakes`: sediment filling closed depressions from their floor up;
- :mod:`.marine`: river sediment laid on the sea floor beside the coast (deltas, shelves);
- :mod:`.thermal`: talus-angle (thermal) erosion on the grid, and the
  :class:`.thermal.ErosionResult` it shares with hydraulic erosion;
- :mod:`.hydraulic`: shallow-water hydraulic erosion (virtual pipes);
- :mod:`.glacial`: glacial erosion under shallow-ice flow from an equilibrium-line altitude;
- :mod:`.coast`: sea cliffs cut back by the waves over a shore platform, beaches in the coves;
- :mod:`.river_network`: statistics of a river network (concavity, Hack's
  law, upstream length) that the tests compare with nature.

Invariants: heights in metres, cell sizes in metres, material conserved up
to what leaves over open edges (reported), work estimated up front
and refused only past the limit the user set (:mod:`core.work`), progress and cancellation through
:mod:`core.progress`.
"""

from __future__ import annotations

from .coast import BEACH_ROWS, MAX_COAST_STEPS, SHELTERED, CoastResult, coast_steps, coastal_erosion, exposure
from .depressions import DRAIN_MODES, drain_depressions
from .diffusion import (
    DIFFUSION_SCHEMES,
    adi_diffusion,
    check_diffusion_scheme,
    hillslope_diffusion,
)
from .flow import (
    FLAT_ROUTINGS,
    NEIGHBOR_OFFSETS,
    FlowRouting,
    MultipleFlowRouting,
    base_level_mask,
    check_flat_routing,
    drainage_area,
    flow_direction,
    flow_length,
    route_flow,
    route_multiple_flow,
)
from .glacial import (
    BALANCE_STEP,
    EROSION_STEP,
    GLACIAL_SUBSTEP_COST,
    GLEN_A,
    GRAVITY,
    ICE_GRID_SPEEDUP,
    MAX_GLACIAL_STEPS,
    MAX_SUBSTEPS,
    MIN_THICKNESS,
    RHO_ICE,
    STABILITY,
    GlacialResult,
    IceGrid,
    glacial_erosion,
    glacial_passes,
)
from .hydraulic import (
    HYDRAULIC_STEP_COST,
    HYDRAULIC_TIMES,
    MAX_HYDRAULIC_STEPS,
    PiledSedimentWarning,
    hydraulic_erosion,
    hydraulic_steps,
    max_time_step,
)
from .lakes import (
    LakeFill,
    deposit_in_lakes,
    fill_lakes,
)
from .marine import MAX_SPREAD_CELLS, marine_spread_cells, spread_on_sea
from .river_network import (
    LogFit,
    concavity,
    depression_share,
    hack_exponent,
    stack_from_receivers,
    upstream_length,
)
from .stream_power import (
    CHANNEL_WIDTH_SHARE,
    DEPOSITION_ITERATIONS,
    DEPOSITION_RANGE,
    DIFFUSION_LENGTH_SHARE,
    MAX_STEPS,
    MFD_STEP_BYTES,
    ROUTINGS,
    STEP_BYTES,
    STEP_COST,
    StreamPowerResult,
    check_stream_power_work,
    default_channel_width,
    default_diffusivity,
    default_erodibility,
    map_diffusivity,
    step_work,
    stream_power_erosion,
    stream_power_passes,
    stream_power_step,
)
from .thermal import (
    EDGES,
    MAX_EROSION_HEIGHT,
    MAX_THERMAL_PASSES,
    MAX_THERMAL_STEPS,
    OUTSIDES,
    THERMAL_STEP_COST,
    THERMAL_TIMES,
    ErosionResult,
    check_edges,
    check_step_work,
    erosion_heights,
    thermal_erosion,
    thermal_passes,
)

__all__ = [
    "MAX_SPREAD_CELLS",
    "marine_spread_cells",
    "spread_on_sea",
    "DIFFUSION_SCHEMES",
    "FLAT_ROUTINGS",
    "OUTSIDES",
    "check_diffusion_scheme",
    "check_flat_routing",
    "hillslope_diffusion",
    "adi_diffusion",
    "NEIGHBOR_OFFSETS",
    "FlowRouting",
    "MultipleFlowRouting",
    "base_level_mask",
    "route_flow",
    "route_multiple_flow",
    "drainage_area",
    "flow_length",
    "flow_direction",
    "BALANCE_STEP",
    "EROSION_STEP",
    "GLACIAL_SUBSTEP_COST",
    "GLEN_A",
    "GRAVITY",
    "MAX_GLACIAL_STEPS",
    "MAX_SUBSTEPS",
    "MIN_THICKNESS",
    "RHO_ICE",
    "STABILITY",
    "GlacialResult",
    "glacial_erosion",
    "IceGrid",
    "ICE_GRID_SPEEDUP",
    "glacial_passes",
    "MAX_HYDRAULIC_STEPS",
    "HYDRAULIC_STEP_COST",
    "HYDRAULIC_TIMES",
    "max_time_step",
    "hydraulic_steps",
    "PiledSedimentWarning",
    "hydraulic_erosion",
    "DRAIN_MODES",
    "drain_depressions",
    "BEACH_ROWS",
    "MAX_COAST_STEPS",
    "SHELTERED",
    "CoastResult",
    "coast_steps",
    "coastal_erosion",
    "exposure",
    "LakeFill",
    "fill_lakes",
    "deposit_in_lakes",
    "LogFit",
    "stack_from_receivers",
    "upstream_length",
    "concavity",
    "hack_exponent",
    "depression_share",
    "STEP_COST",
    "STEP_BYTES",
    "MFD_STEP_BYTES",
    "DEPOSITION_ITERATIONS",
    "DEPOSITION_RANGE",
    "check_stream_power_work",
    "step_work",
    "stream_power_passes",
    "ROUTINGS",
    "MAX_STEPS",
    "StreamPowerResult",
    "default_erodibility",
    "default_diffusivity",
    "map_diffusivity",
    "default_channel_width",
    "DIFFUSION_LENGTH_SHARE",
    "CHANNEL_WIDTH_SHARE",
    "stream_power_step",
    "stream_power_erosion",
    "MAX_THERMAL_STEPS",
    "THERMAL_STEP_COST",
    "EDGES",
    "ErosionResult",
    "MAX_EROSION_HEIGHT",
    "erosion_heights",
    "check_step_work",
    "check_edges",
    "THERMAL_TIMES",
    "MAX_THERMAL_PASSES",
    "thermal_erosion",
    "thermal_passes",
]
