"""The terrain spec: one value that says everything a terrain is.

A :class:`TerrainSpec` holds the world (size in vertices, width and height
range in metres), the seed, the generator and its parameters, the ordered
filter stack, the lighting, the colour layers and the material options.
Its JSON form (schema version :data:`SPEC_VERSION`, described for pipelines
by :func:`json_schema`) uses the declared names throughout::

    {"version": 5, "size": 257, "size_y": 0, "seed": 7, "width": 200.0, "height": 40.0, "fit_height": false,
     "generator": "hills", "hills": {"count": 400, "radius_min": 6.0, ...},
     "filters": [{"type": "flatten", "enabled": true, "exponent": 1.5}],
     "lighting": {"mode": "hillshade", "azimuth": 315.0, ...},
     "material": {"enabled": true, "shading": "lit"},
     "layers": [{"name": "grass", "color": [0.05, 0.12, 0.02], ...}],
     "sources": [{"type": "crater", "blend": "add", "opacity": 1.0, "height": 12.0, "radius": 40.0, ...}]}

``sources`` (optional, default ``[]``; :mod:`core.sources`) is an ordered list of generators and stamps
blended on the generator's heights, in metres, before the filters. It is part of version 4 without a new
version: a version-4 spec without the key loads unchanged and gives the heightmap it gave, and a spec
without sources writes no ``sources`` key. Its settings' paths are ``sources[i].NAME``
(``--set sources[0].opacity=0.5``; ``sources[i].type=KEY`` changes an entry's type, and one index past the
end adds an entry). An entry may hold a ``mask`` object as a filter's does (below; written only when not the
default), its settings' paths ``sources[i].mask.NAME`` (``--set sources[0].mask.source=height``).

The same path names a setting everywhere: ``hills.count`` is the JSON key
``count`` inside ``hills``, the Blender property ``obj.orogen.hills.count``
and ``--set hills.count=400`` (or ``--set count=400``) in the scripts.

**Version 4** is version 3 with four erosion faults
fixed, version 3's algorithms kept as declared choices (the thermal
filter's ``outside``, the stream-power filter's ``diffusion_scheme``,
``flats`` and ``uplift_scale``, the hydraulic filter's ``bounded``; see
:mod:`core.versions.v3_to_v4`): a version-3 spec loads with them named.

**Version 5** (:data:`SPEC_VERSION`) is version 4 with the thermal filter's
time in years (``time: "years"``, ``duration`` years at ``speed`` metres a
year) and the hydraulic filter's in seconds of simulated flow (``time:
"seconds"``, ``duration``), so the same spec gives the same landform at
every size; a version-4 spec loads with version 4's counts named
(``time: "passes"`` and ``"steps"``, their ``steps`` kept; see
:mod:`core.versions.v4_to_v5`) and gives the heightmap it gave.

**Masks** (still version 4): a filter's entry may hold a ``mask`` object
(:data:`core.masks.MASK_PARAMS`: where the filter acts, its result blended
``h + w * (filtered - h)``) and, for filters that declare them, parameter
maps (``erodibility_map`` and ``precipitation_map`` of the stream-power
filter, ``talus_map`` of the thermal filter; :class:`core.masks.ParamMap`)::

     {"type": "erosion", "enabled": true, "steps": 30, ...,
      "mask": {"source": "slope", "low": 0.0, "high": 30.0, "feather": 5.0, ...},
      "erodibility_map": {"source": "weights", "group": "Hard Rock", "map_min": 1.0, "map_max": 0.1, ...}}

They are optional keys, written only when they differ from their defaults:
a version-4 spec without them loads unchanged and gives the heightmap it
gave, bit for bit. ``--set erosion.mask.source=slope`` and
``--set erosion.erodibility_map.map_max=0.1`` set them (for every filter of
that type, as ``erosion.steps`` does).

**Version 3**: every length is in metres (hill and
pit radii, the noise grain, blur radius, low-pass length, fractal feature
size), positions are world coordinates and the diamond-square lattice is
hashed by world position, so ``size`` sets the resolution, not the
landscape: a 257² preview of a 1025² terrain samples the same terrain. The
heightmap is in units of ``height`` metres: the generator's output spans
``0..height`` and the filters work on it without being stretched back
afterwards (unless ``fit_height``).

Everything earlier loads (:func:`load_spec`) into version-3 values that give
the heightmaps it gave (:mod:`core.versions`): version-2 specs and Orogen 0.2's
recipes (cells times the cell size, the version-2 algorithm where it differs,
``fit_height`` on), Orogen 0.1's recipes (no version; their ``erosion``
filter is ``lowpass``), its export sidecars, and (through
:func:`from_v1_settings`) its panel settings and user presets.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from . import catalog  # noqa: F401  (registers the built-in generators and filters)
from .colormap import DEFAULT_LAYERS, HEIGHT_UNITS, LAYER_KINDS, MASKS, MAX_LAYERS, Layer, check_layers
from .heightmap import as_heightmap, check_number
from .io.jsonio import load_json
from .lighting.bake import BakedMaps, bake_maps
from .lighting.settings import LIGHTING_ORDERED, LIGHTING_PARAMS, bake_options, cell_size
from .masks import MASK_PARAMS, check_mask, default_mask, is_masked
from .params import (
    FILTERS,
    GENERATORS,
    TEXT_KINDS,
    AllOf,
    AnyOf,
    Param,
    Part,
    When,
    check_conditions,
    check_values,
    fitted_defaults,
    inactive_reason,
    short_list,
)
from .recipe import MAX_FILTERS, Recipe
from .sources import MAX_SOURCES, SOURCE_PARAMS, STAMPS, Source, source_part, sources_from_data
from .versions import SPEC_VERSION, V1_FILTER_KEYS, Upgraded, recipe_to_spec, settings_01, upgrade, upgrade_spec

__all__ = [
    "SPEC_VERSION",
    "SEED_MAX",
    "MIN_SIDE",
    "MAX_SIDE",
    "WORLD_PARAMS",
    "MATERIAL_PARAMS",
    "LAYER_PARAMS",
    "Step",
    "TerrainSpec",
    "load_spec",
    "from_v1_settings",
    "apply_settings",
    "InactiveSettingWarning",
    "inactive_settings",
    "setting_paths",
    "json_schema",
]

#: Largest seed a spec holds: any 64-bit seed, as core's hash takes (Blender shows the low 31 bits; see
#: ``addon.specio``).
SEED_MAX = 2**64 - 1
#: Vertices per side of a terrain grid (4097: the largest engine size).
MIN_SIDE, MAX_SIDE = 2, 4097

#: The world: grid size, seed, scale (top-level keys of a spec).
WORLD_PARAMS: tuple[Param, ...] = (
    Param(
        "size",
        "int",
        129,
        hard=(MIN_SIDE, MAX_SIDE),
        soft=(MIN_SIDE, 1025),
        unit="vertices",
        label="Size",
        description="Vertices per side of the grid along X (the heightmap is size_y x size cells)",
    ),
    Param(
        "size_y",
        "int",
        0,
        hard=(0, MAX_SIDE),
        soft=(0, 1025),
        unit="vertices",
        label="Size Y",
        description="Vertices along Y (rows) for a non-square terrain; 0 = the same as Size",
    ),
    Param(
        "seed",
        "int",
        0,
        hard=(0, SEED_MAX),
        label="Seed",
        description="Random seed: the same seed and settings give the same terrain",
    ),
    Param(
        "width",
        "float",
        100.0,
        hard=(0.001, 1.0e6),
        soft=(0.001, 10_000.0),
        unit="m",
        label="Width",
        description="Length of the terrain's longer side",
    ),
    Param(
        "height",
        "float",
        20.0,
        hard=(0.0, 1.0e5),
        soft=(0.0, 1000.0),
        unit="m",
        label="Height",
        description="Metres the generator's heights span (lowest point at Z = 0, highest at Z = Height); "
        "filters then work in metres",
    ),
    Param(
        "fit_height",
        "bool",
        False,
        label="Fit Height",
        description="Stretch the filtered terrain to span exactly 0..Height again (what Orogen 0.2 did; it "
        "undoes the relief that filters in metres lowered, steepening talus slopes)",
    ),
)

#: The material options (a spec's ``material`` object).
MATERIAL_PARAMS: tuple[Param, ...] = (
    Param("enabled", "bool", True, label="Material", description="Give the terrain a height-blended material"),
    Param(
        "shading",
        "enum",
        "lit",
        label="Shading",
        description="How the material turns colour and lightmap into light",
        items=(
            (
                "lit",
                "Lit",
                "Principled BSDF of the colour map: Blender's sun, sky and shadows shade the "
                "terrain (the lightmap is not used)",
            ),
            ("unlit", "Unlit", "Emission of colour x lightmap: the flat look of the classic tutorials"),
        ),
        active_when=When("enabled", True),
    ),
    Param(
        "cavity",
        "float",
        0.0,
        hard=(0.0, 1.0),
        unit="factor",
        label="Cavity",
        description="Lit only: darken the colour by the baked ambient occlusion (lighting with AO on), "
        "an artistic cavity term on top of Blender's own light; 0 = off",
        active_when=AllOf(When("enabled", True), When("shading", "lit")),
    ),
    Param(
        "detail",
        "float",
        1.0,
        hard=(0.0, 2.0),
        unit="factor",
        label="Ground Detail",
        description="Lit only: detail below the mesh grid, at metre scale: a bump and colour variation from 3D "
        "noise (nothing stretches on cliffs) and rock beds on cliffs (slopes steeper than 50 degrees); 0 = smooth",
        active_when=AllOf(When("enabled", True), When("shading", "lit")),
    ),
    Param(
        "strata_spacing",
        "float",
        6.0,
        hard=(0.1, 1000.0),
        soft=(0.5, 100.0),
        unit="m",
        label="Strata Spacing",
        description="Lit only: thickness of the rock beds the ground detail draws on steep slopes",
        active_when=AllOf(When("enabled", True), When("shading", "lit")),
    ),
    Param(
        "map_tint",
        "float",
        1.0,
        hard=(0.0, 1.0),
        unit="factor",
        label="Map Tint",
        description="Lit only: how much the terrain's own maps tint the ground: channels (drainage area) and wet "
        "hollows (wetness index) darker, deposits (fans, floodplains, scree) lighter; 0 = off",
        active_when=AllOf(When("enabled", True), When("shading", "lit")),
    ),
    Param(
        "displacement",
        "bool",
        False,
        label="Render Displacement",
        description="Cycles: dice the terrain finer than its grid when rendering (adaptive subdivision) and lay it "
        "on the smooth spline through its heights (a 32-bit height texture), for close-ups: smooth shorelines "
        "and silhouettes. The viewport, exports and the scatter keep the grid",
        active_when=When("enabled", True),
    ),
    Param(
        "dicing_rate",
        "float",
        1.0,
        hard=(0.1, 100.0),
        soft=(0.5, 8.0),
        unit="px",
        label="Dicing Rate",
        description="Render Displacement: the longest edge Cycles dices the terrain into, in pixels of the "
        "render (smaller: finer and slower)",
        active_when=AllOf(When("enabled", True), When("displacement", True)),
    ),
    Param(
        "water",
        "bool",
        False,
        label="Water",
        description="Add a water surface at the water level: its own object and a water material",
    ),
    Param(
        "water_level",
        "float",
        0.0,
        hard=(-1.0e5, 1.0e5),
        soft=(0.0, 1000.0),
        unit="m",
        label="Water Level",
        description="Height of the water surface above the terrain's Z = 0",
        active_when=When("water", True),
    ),
    Param(
        "water_color",
        "color",
        (0.02, 0.09, 0.1),
        label="Depth Colour",
        description="Linear RGB colour deep water takes on (the water's absorption colour)",
        active_when=When("water", True),
    ),
)

#: One colour layer (items of a spec's ``layers`` list); :class:`core.colormap.Layer` holds the values.
LAYER_PARAMS: tuple[Param, ...] = (
    Param("name", "string", "Layer", label="Name", description="Name of the layer"),
    Param("color", "color", (0.5, 0.5, 0.5), label="Colour", description="Linear RGB colour of the layer"),
    Param(
        "minimum",
        "float",
        0.0,
        hard=(-1.0e6, 1.0e6),
        soft=(-1.0, 2.0),
        label="Minimum",
        description="Height where the layer fades in (normalised, or metres: see Heights)",
    ),
    Param(
        "optimal",
        "float",
        0.5,
        hard=(-1.0e6, 1.0e6),
        soft=(-1.0, 2.0),
        label="Optimal",
        description="Height where the layer is at 100 % (normalised, or metres: see Heights)",
    ),
    Param(
        "maximum",
        "float",
        1.0,
        hard=(-1.0e6, 1.0e6),
        soft=(-1.0, 2.0),
        label="Maximum",
        description="Height where the layer has faded out (normalised, or metres: see Heights)",
    ),
    Param(
        "slope_min",
        "float",
        0.0,
        hard=(0.0, 90.0),
        unit="deg",
        label="Slope Min",
        description="Flattest slope the layer covers",
    ),
    Param(
        "slope_max",
        "float",
        90.0,
        hard=(0.0, 90.0),
        unit="deg",
        label="Slope Max",
        description="Steepest slope the layer covers",
    ),
    Param(
        "slope_softness",
        "float",
        5.0,
        hard=(0.01, 90.0),
        unit="deg",
        label="Slope Softness",
        description="Degrees over which the layer fades beyond its slope range",
    ),
    Param(
        "kind",
        "enum",
        "COLOR",
        label="Kind",
        description="How the material paints the layer",
        items=(
            ("COLOR", "Colour", "A flat colour"),
            ("IMAGE", "Image", "An image texture on the terrain's UVs"),
            ("NOISE", "Noise", "Blender's Noise texture between two colours"),
            ("VORONOI", "Voronoi", "Blender's Voronoi texture between two colours"),
        ),
    ),
    Param(
        "image",
        "path",
        "",
        label="Image",
        description="Image file of an Image layer (PNG, JPEG, TIFF or OpenEXR, at most 16384 pixels a side)",
        active_when=When("kind", "IMAGE"),
    ),
    Param(
        "color2",
        "color",
        (0.0, 0.0, 0.0),
        label="Colour 2",
        description="Second colour of a Noise or Voronoi layer",
        active_when=When("kind", "NOISE", "VORONOI"),
    ),
    Param(
        "scale",
        "float",
        5.0,
        hard=(0.001, 10_000.0),
        soft=(0.001, 100.0),
        label="Scale",
        description="Scale of a procedural texture",
        active_when=When("kind", "NOISE", "VORONOI"),
    ),
    Param(
        "mask",
        "enum",
        "none",
        label="Mask",
        description="An erosion map the layer is limited to (no such map in the terrain: the layer is absent)",
        items=(
            ("none", "None", "Not masked"),
            ("drainage", "Drainage Area", "Drainage area in m² (rivers: large areas)"),
            ("deposited", "Deposited", "Material deposited by erosion, metres (sediment, scree)"),
            ("removed", "Removed", "Material removed by erosion, metres (gullies, cliffs)"),
            ("water", "Water Depth", "Water left by hydraulic erosion, metres"),
            ("noise", "Noise", "The layer's noise field (mean 0.5, standard deviation 0.25): patches"),
        ),
    ),
    Param(
        "mask_min",
        "float",
        1.0e-6,
        hard=(1.0e-6, 1.0e15),
        soft=(1.0e-6, 1.0e7),
        label="Mask Min",
        description="Smallest mask value the layer covers (m² for drainage area, else metres; above 0: a "
        "mask marks where its map is positive)",
        active_when=When("mask", "drainage", "deposited", "removed", "water", "noise"),
    ),
    Param(
        "mask_max",
        "float",
        1.0e15,
        hard=(1.0e-6, 1.0e15),
        soft=(1.0e-6, 1.0e7),
        label="Mask Max",
        description="Largest mask value the layer covers",
        active_when=When("mask", "drainage", "deposited", "removed", "water", "noise"),
    ),
    Param(
        "heights",
        "enum",
        "normalised",
        label="Heights",
        description="Unit of Minimum, Optimal and Maximum",
        items=(
            (
                "normalised",
                "Normalised",
                "Shares of Height: 0 at Z = 0, 1 at Z = Height (the generator's "
                "lowest and highest point): follows the Height",
            ),
            (
                "metres",
                "Metres",
                "Metres of Z (above the generator's lowest point): a snow line stays put when Height changes",
            ),
        ),
    ),
    Param(
        "edge_noise",
        "float",
        0.0,
        hard=(0.0, 1.0e6),
        soft=(0.0, 500.0),
        label="Height Noise",
        description="Noise on the heights the layer sees, in its height unit (about 95 % of the shifts are "
        "within it): edges that are not contour lines",
    ),
    Param(
        "slope_noise",
        "float",
        0.0,
        hard=(0.0, 90.0),
        soft=(0.0, 20.0),
        unit="deg",
        label="Slope Noise",
        description="Noise on the slopes the layer sees, in degrees",
    ),
    Param(
        "noise_size",
        "float",
        50.0,
        hard=(1.0e-3, 1.0e6),
        soft=(1.0, 2000.0),
        unit="m",
        label="Noise Size",
        description="Feature size of the layer's noise (edge noise and the Noise mask)",
        active_when=AnyOf(When("edge_noise", above=0), When("slope_noise", above=0), When("mask", "noise")),
    ),
    Param(
        "aspect_shift",
        "float",
        0.0,
        hard=(-1.0e6, 1.0e6),
        soft=(-500.0, 500.0),
        label="Aspect Shift",
        description="How far the layer's heights come down on a slope facing north, in its height unit (times "
        "the sine of the slope): snow lower on shaded slopes; negative for the southern hemisphere",
    ),
)
check_conditions(MATERIAL_PARAMS, "material.")
check_conditions(LAYER_PARAMS, "layers[].")
assert tuple(p.name for p in LAYER_PARAMS) == tuple(f.name for f in fields(Layer)), "LAYER_PARAMS must match Layer"
assert LAYER_PARAMS[8].choices == LAYER_KINDS
assert LAYER_PARAMS[12].choices == tuple(MASKS)
assert LAYER_PARAMS[15].choices == HEIGHT_UNITS

_WORLD = {p.name: p for p in WORLD_PARAMS}
_TOP_KEYS = {"version", "generator", "filters", "sources", "lighting", "material", "layers", *_WORLD}


@dataclass(frozen=True)
class Step:
    """One filter of the stack: its key, its full parameters, whether it runs (hidden filters are kept) and its
    mask (:data:`core.masks.MASK_PARAMS`, every value filled in; source ``"none"``: unmasked)."""

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)
    enabled: bool = True
    mask: Mapping[str, Any] = field(default_factory=default_mask)
    maps: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or self.key not in FILTERS:
            raise ValueError(f"filter type must be one of {short_list(list(FILTERS))}, got {self.key!r:.40}")
        object.__setattr__(self, "params", FILTERS[self.key].check(self.params))
        if not isinstance(self.enabled, (bool, np.bool_)):
            raise TypeError(f"{self.key}.enabled must be true or false, got {self.enabled!r:.40}")
        object.__setattr__(self, "mask", check_mask(self.mask, f"{self.key}.mask."))
        object.__setattr__(self, "maps", check_step_maps(self.key, self.maps))

    @property
    def masked(self) -> bool:
        """Whether the mask changes anything (a source other than ``"none"``)."""
        return is_masked(self.mask)

    def mask_entry(self) -> dict[str, Any]:
        """``{"mask": {...}}`` in the filter's JSON entry when the mask differs from the defaults, else ``{}``:
        a spec without masks writes the JSON it wrote before masks existed."""
        out: dict[str, Any] = {}
        if dict(self.mask) != default_mask():
            out["mask"] = {p.name: p.to_plain(self.mask[p.name]) for p in MASK_PARAMS}
        for pm in FILTERS[self.key].param_maps:
            if dict(self.maps[pm.key]) != pm.default():
                out[pm.key] = {p.name: p.to_plain(self.maps[pm.key][p.name]) for p in pm.params}
        return out


def _default_filters() -> tuple[Step, ...]:
    return (Step("flatten", {"exponent": 1.5}),)


def _default_lighting() -> dict[str, Any]:
    return {p.name: p.default for p in LIGHTING_PARAMS}


def _default_material() -> dict[str, Any]:
    return {p.name: p.default for p in MATERIAL_PARAMS}


@dataclass(frozen=True)
class TerrainSpec:
    """A whole terrain. Construct with keywords; every value is checked against its declaration.

    ``params`` are the generator's (missing ones take the declared defaults),
    ``filters`` a sequence of :class:`Step` (or ``(key, params)`` pairs),
    ``lighting`` and ``material`` mappings of :data:`core.lighting.settings.LIGHTING_PARAMS`
    and :data:`MATERIAL_PARAMS`, ``layers`` 2 to 8 :class:`core.colormap.Layer`.

    Raises
    ------
    TypeError, ValueError
        Naming the setting by its path (``hills.radius_max``) and its range.
    """

    size: int = 129
    size_y: int = 0
    seed: int = 0
    width: float = 100.0
    height: float = 20.0
    fit_height: bool = False
    generator: str = "hills"
    params: Mapping[str, Any] = field(default_factory=dict)
    filters: tuple[Step, ...] = field(default_factory=_default_filters)
    lighting: Mapping[str, Any] = field(default_factory=_default_lighting)
    material: Mapping[str, Any] = field(default_factory=_default_material)
    layers: tuple[Layer, ...] = DEFAULT_LAYERS
    sources: tuple[Source, ...] = ()

    def __post_init__(self) -> None:
        for name, p in _WORLD.items():
            object.__setattr__(self, name, p.check(getattr(self, name)))
        if not isinstance(self.generator, str) or self.generator not in GENERATORS:
            raise ValueError(f"generator must be one of {short_list(list(GENERATORS))}, got {self.generator!r:.40}")
        object.__setattr__(self, "params", GENERATORS[self.generator].check(self.params))
        if not isinstance(self.filters, (tuple, list)):
            raise TypeError(f"filters must be a list of filters, got {type(self.filters).__name__}")
        if len(self.filters) > MAX_FILTERS:
            raise ValueError(f"a filter stack holds at most {MAX_FILTERS} filters, got {len(self.filters)}")
        steps = []
        for i, s in enumerate(self.filters):
            try:
                steps.append(s if isinstance(s, Step) else Step(*s))
            except (TypeError, ValueError) as err:
                raise type(err)(f"filters[{i}]: {err}") from None
        object.__setattr__(self, "filters", tuple(steps))
        object.__setattr__(
            self, "lighting", check_values(LIGHTING_PARAMS, self.lighting, "lighting.", ordered=LIGHTING_ORDERED)
        )
        object.__setattr__(self, "material", check_values(MATERIAL_PARAMS, self.material, "material."))
        object.__setattr__(self, "layers", check_layers(self.layers))
        object.__setattr__(self, "sources", _check_spec_sources(self.sources))
        self.recipe()  # the heightmap part must be valid (its parts and their parameters)

    # --- derived ---------------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the heightmap."""
        return (self.size_y or self.size, self.size)

    @property
    def cell_size(self) -> float:
        """Metres per cell."""
        return cell_size(self.shape, self.width)

    def recipe(self, shape: tuple[int, int] | None = None) -> Recipe:
        """The heightmap part: generator, seed, shape (default the spec's) and the enabled filters."""
        shape = shape or self.shape
        return Recipe(
            self.generator,
            self.seed,
            shape,
            self.params,
            tuple((s.key, s.params) for s in self.filters if s.enabled),
            cell_size(shape, self.width),
            max(self.height, 1e-6),
            version=SPEC_VERSION,
            fit_height=self.fit_height,
            masks=step_masks(self.filters),
            param_maps=step_param_maps(self.filters),
            sources=tuple((src.key, src.values()) for src in self.sources),
        )

    def heightmap(self, shape: tuple[int, int] | None = None) -> npt.NDArray[np.float32]:
        """The heightmap, ``float32 (rows, cols)`` in units of ``height`` metres (default shape: the spec's).

        The generator's output spans [0, 1]; filters may lower (erosion, blur) or raise it (uplift); with
        ``fit_height`` the result spans exactly [0, 1]. Z in metres is ``heightmap * height``.
        """
        return self.recipe(shape).evaluate()

    def bake(self, heightmap: npt.NDArray[np.float32], sun: tuple[float, float] | None = None) -> BakedMaps:
        """Lightmap, slope and curvature of ``heightmap`` with this spec's lighting and scale.

        Parameters
        ----------
        heightmap : array_like, shape (rows, cols)
            Heights in units of the spec's ``height`` (``[0, 1]`` when fitted; version 3's filters may move
            them outside), row 0 north: the maps are those of ``heightmap * height`` metres, the mesh's Z.
        sun : (float, float), optional
            ``(azimuth, altitude)`` in degrees replacing the lighting's own (the scene's Sun).

        Returns
        -------
        BakedMaps
            :func:`core.lighting.bake.bake_maps` of the heights in metres, ``float32`` maps of the heightmap's
            shape (no normal map).

        Raises
        ------
        TypeError, ValueError
            For a bad heightmap or setting, naming it.
        """
        h = as_heightmap(heightmap)
        light = check_values(LIGHTING_PARAMS, self.lighting or {}, "lighting.", ordered=LIGHTING_ORDERED)
        height = check_number(self.height, "height", low=0.0, high=1.0e6)
        cell = cell_size((h.shape[0], h.shape[1]), self.width)
        return bake_maps(h * np.float32(height), cell, **bake_options(light, sun))

    def replace(self, **changes: Any) -> TerrainSpec:
        """A copy with ``changes`` (checked)."""
        return replace(self, **changes)

    def fitted_filter(self, key: str, params: Mapping[str, Any] | None = None) -> Step:
        """A filter of type ``key`` as adding it to this terrain's stack makes it: the values that fit the terrain's
        scale (:func:`core.params.fitted_defaults` of its width, Height and cell size), then ``params``.

        Raises
        ------
        ValueError
            For an unknown ``key`` or a bad value in ``params``, naming it.
        """
        fitted = fitted_defaults(key, width=self.width, height=self.height, cell_size=self.cell_size)
        return Step(key, {**fitted, **dict(params or {})})

    def with_filter(self, key: str, params: Mapping[str, Any] | None = None) -> TerrainSpec:
        """A copy with filter ``key`` added at the end of the stack, its values fitted to the terrain's scale
        (:meth:`fitted_filter`; ``params`` override them). What the add-on's Add Filter does.

        Raises
        ------
        ValueError
            For an unknown ``key``, a bad value in ``params`` or a full stack.
        """
        return self.replace(filters=(*self.filters, self.fitted_filter(key, params)))

    def objects(self) -> list[tuple[str, str, str]]:
        """The Blender objects this spec reads, ``[(path, input kind, name), ...]``: every non-empty setting of
        kind ``object`` of the generator and of the enabled filters (``("object.object", "mesh", "Sculpt")``),
        in order. The evaluation is given them through :func:`core.inputs.using` (see :mod:`core.inputs`)."""
        found: list[tuple[str, str, str]] = []
        groups = [(self.generator, GENERATORS[self.generator].params, self.params)]
        groups += [(s.key, FILTERS[s.key].params, s.params) for s in self.filters if s.enabled]
        groups += [
            (f"sources[{i}]", source_part(s.key).params, s.params) for i, s in enumerate(self.sources) if s.enabled
        ]
        for where, params, values in groups:
            for p in params:
                if p.kind == "object" and values.get(p.name):
                    found.append((f"{where}.{p.name}", p.object_kind, values[p.name]))
        found += mask_objects(self.filters)
        found += source_mask_objects(self.sources)
        return found

    # --- JSON ------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON form (see the module docstring)."""
        gen = GENERATORS[self.generator]
        return {
            "version": SPEC_VERSION,
            **{name: getattr(self, name) for name in _WORLD},
            "generator": self.generator,
            self.generator: {p.name: p.to_plain(self.params[p.name]) for p in gen.params},
            "filters": [
                {
                    "type": s.key,
                    "enabled": s.enabled,
                    **{p.name: p.to_plain(s.params[p.name]) for p in FILTERS[s.key].params},
                    **s.mask_entry(),
                }
                for s in self.filters
            ],
            "lighting": {p.name: p.to_plain(self.lighting[p.name]) for p in LIGHTING_PARAMS},
            "material": {p.name: p.to_plain(self.material[p.name]) for p in MATERIAL_PARAMS},
            "layers": [
                {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(lay).items()} for lay in self.layers
            ],
            **({"sources": [src.to_dict() for src in self.sources]} if self.sources else {}),
        }

    def to_json(self, indent: int | None = None) -> str:
        """JSON text (keys sorted: equal specs give equal text)."""
        return json.dumps(self.to_dict(), sort_keys=True, indent=indent)

    @classmethod
    def from_dict(cls, data: object) -> TerrainSpec:
        """Spec from its JSON form (version 5, or 4, 3 or 2: converted by :func:`core.versions.upgrade_spec`). See
        :func:`load_spec` for every earlier form."""
        if not isinstance(data, Mapping):
            raise TypeError(f"a terrain spec must be a JSON object, got {type(data).__name__}")
        data = upgrade_spec(data, _WORLD)
        if data.get("version") != SPEC_VERSION:
            version = data.get("version")
            raise ValueError(f'a terrain spec needs "version": {SPEC_VERSION} (or 4, 3 or 2), got {version!r:.20}')
        generator = data.get("generator", "hills")
        if not isinstance(generator, str) or generator not in GENERATORS:
            raise ValueError(f"generator must be one of {short_list(list(GENERATORS))}, got {generator!r:.40}")
        unknown = set(data) - _TOP_KEYS - {generator}
        if unknown:
            raise ValueError(f"unknown spec keys: {short_list(list(unknown))}")
        filters = data.get("filters", [])
        if not isinstance(filters, list):
            raise TypeError(f"filters must be a JSON list, got {type(filters).__name__}")
        if len(filters) > MAX_FILTERS:
            raise ValueError(f"a filter stack holds at most {MAX_FILTERS} filters, got {len(filters)}")
        steps: list[Any] = []
        for i, f in enumerate(filters):
            if not isinstance(f, Mapping) or "type" not in f:
                raise ValueError(f"filters[{i}] must be an object with a 'type', got {f!r:.60}")
            declared = filter_objects(f["type"]) if isinstance(f["type"], str) else {}
            params = {k: v for k, v in f.items() if k not in ("type", "enabled", *declared)}
            maps = {k: f[k] for k in declared if k != "mask" and k in f}
            steps.append((f["type"], params, f.get("enabled", True), f.get("mask", {}), maps))
        layers = data.get("layers")
        return cls(
            **{name: data[name] for name in _WORLD if name in data},
            generator=generator,
            params=data.get(generator, {}),
            filters=tuple(steps),
            lighting=data.get("lighting", {}),
            material=data.get("material", {}),
            layers=DEFAULT_LAYERS if layers is None else layers_from_data(layers),
            sources=sources_from_data(data.get("sources", [])),
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> TerrainSpec:
        """Spec from JSON text in any form :func:`load_spec` reads."""
        return load_spec(load_json(text, "terrain spec"))


# --- filter masks (core.masks): kept in their own functions ------------------------------------------------
def filter_objects(key: str) -> dict[str, tuple[Param, ...]]:
    """The objects a filter ``key``'s entry may hold beside its parameters, by JSON key: ``mask``
    (:data:`core.masks.MASK_PARAMS`) and each of its parameter maps (``erodibility_map``: a
    :class:`core.masks.ParamMap`'s settings); ``{}`` for an unknown key."""
    f = FILTERS.get(key)
    if f is None:
        return {}
    return {"mask": MASK_PARAMS, **{pm.key: pm.params for pm in f.param_maps}}


def check_step_maps(key: str, maps: object) -> dict[str, dict[str, Any]]:
    """The parameter maps of a filter ``key``'s step, every declared one filled in (defaults: no map).

    Raises ``TypeError``/``ValueError`` naming ``key.erodibility_map.map_min`` and the like."""
    if not isinstance(maps, Mapping):
        raise TypeError(f"{key}: parameter maps must be a mapping of map keys to maps, got {type(maps).__name__}")
    declared = {pm.key: pm for pm in FILTERS[key].param_maps}
    unknown = [k for k in maps if k not in declared]
    if unknown:
        raise ValueError(
            f"{key}: no parameter maps {short_list(unknown)}; it has {short_list(list(declared)) or 'none'}"
        )
    return {k: pm.check(maps.get(k, {}), f"{key}.{k}.") for k, pm in declared.items()}


def step_param_maps(steps: Sequence[Step]) -> tuple[Mapping[str, Mapping[str, Any]] | None, ...]:
    """The parameter maps of the enabled ``steps`` that act, as a :class:`core.recipe.Recipe` takes them
    (``()`` when none does)."""
    out = tuple({k: v for k, v in s.maps.items() if is_masked(v)} or None for s in steps if s.enabled)
    return out if any(m is not None for m in out) else ()


def step_masks(steps: Sequence[Step]) -> tuple[Mapping[str, Any] | None, ...]:
    """The masks of the enabled ``steps`` as a :class:`core.recipe.Recipe` takes them (``None`` unmasked; ``()``
    when none is masked, so an unmasked stack makes the recipe it made before masks existed)."""
    masks = tuple(s.mask if s.masked else None for s in steps if s.enabled)
    return masks if any(m is not None for m in masks) else ()


def mask_objects(steps: Sequence[Step]) -> list[tuple[str, str, str]]:
    """The vertex groups the enabled ``steps``' masks read: ``[("erosion.mask.group", "weights", name)]`` for
    each mask of source ``"weights"`` (a group named by a mask of another source is not read)."""
    found = []
    for s in steps:
        objects = {"mask": s.mask, **s.maps} if s.enabled else {}
        for key, values in objects.items():
            if values["source"] == "weights" and values["group"]:
                found.append((f"{s.key}.{key}.group", "weights", str(values["group"])))
    return found


def source_mask_objects(sources: Sequence[Source]) -> list[tuple[str, str, str]]:
    """The vertex groups the enabled ``sources``' masks read: ``[("sources[0].mask.group", "weights", name)]`` for
    each mask of source ``"weights"`` naming a group (as :func:`mask_objects` for the filters)."""
    return [
        (f"sources[{i}].mask.group", "weights", str(s.mask["group"]))
        for i, s in enumerate(sources)
        if s.enabled and s.mask["source"] == "weights" and s.mask["group"]
    ]


def _check_spec_sources(sources: object) -> tuple[Source, ...]:
    """A spec's sources: :class:`core.sources.Source` items or ``(type, settings)`` pairs (flat settings, as in
    JSON), at most :data:`core.sources.MAX_SOURCES`; errors name ``sources[i].setting``."""
    if not isinstance(sources, (tuple, list)):
        raise TypeError(f"sources must be a list of sources, got {type(sources).__name__}")
    if len(sources) > MAX_SOURCES:
        raise ValueError(f"sources holds at most {MAX_SOURCES} sources, got {len(sources)}")
    out = []
    for i, src in enumerate(sources):
        if isinstance(src, Source):
            out.append(src)
        elif isinstance(src, (tuple, list)) and len(src) == 2 and isinstance(src[1], Mapping):
            out.append(Source.from_values(src[0], src[1], f"sources[{i}]."))
        else:
            raise TypeError(f"sources[{i}] must be a Source or a (type, settings) pair, got {src!r:.60}")
    return tuple(out)


def layers_from_data(data: object) -> tuple[Layer, ...]:
    """Layers from JSON data (a list of layer objects); missing optional keys take their defaults.

    Raises ``TypeError``/``ValueError`` naming the layer and key.
    """
    if not isinstance(data, list) or not all(isinstance(d, Mapping) for d in data):
        raise TypeError("layers must be a JSON list of layer objects")
    if not 1 <= len(data) <= MAX_LAYERS:
        raise ValueError(f"layers must hold 1 to {MAX_LAYERS} layers, got {len(data)}")
    out = []
    for i, d in enumerate(data):
        missing = [name for name in ("name", "color", "minimum", "optimal", "maximum") if name not in d]
        if missing:
            raise ValueError(f"layers[{i}]: missing keys {missing}")
        values = check_values(LAYER_PARAMS, d, f"layers[{i}].")
        out.append(Layer(**values))
    return tuple(out)


# --- every earlier form: converted by core.versions ----------------------------------------------------------
def _from_upgraded(form: Upgraded) -> TerrainSpec:
    """The spec of what :func:`core.versions.upgrade` made of a file: a spec, or a recipe checked by
    :class:`core.recipe.Recipe` (as Orogen read it) and the spec's other keys."""
    if form.recipe is None:
        return TerrainSpec.from_dict(form.spec)
    if not isinstance(form.recipe, Mapping):
        raise TypeError(f"a recipe must be a JSON object, got {type(form.recipe).__name__}")
    return TerrainSpec.from_dict(recipe_to_spec(Recipe.from_dict(form.recipe).to_dict(), form.spec))


def from_v1_settings(
    settings: Mapping[str, Any], *, recipe: object = None, layers: object = None, terrain: object = None
) -> TerrainSpec:
    """The spec of Orogen 0.1's terrain settings (panel, object or user preset).

    Parameters
    ----------
    settings : mapping
        0.1's settings by their 0.1 names (``hill_count``, ``use_erosion``, ``light_azimuth`` in radians...);
        enums as identifiers or as 0.1's item indices; missing ones take 0.1's defaults.
    recipe : mapping or str, optional
        The recipe 0.1 stored on the object (``orogen_recipe``): it made the heightmap, so it wins over the
        generator settings.
    layers : list or str, optional
        The object's colour layers (``orogen_layers``).
    terrain : mapping or str, optional
        The object's ``orogen_terrain`` (width and height in metres).

    Raises
    ------
    TypeError, ValueError
        For settings no spec can hold. The conversion is :func:`core.versions.settings_01`.
    """
    heightmap, rest = settings_01(settings, recipe=recipe, layers=layers, terrain=terrain)
    return _from_upgraded(Upgraded(rest, heightmap))


def load_spec(data: object) -> TerrainSpec:
    """A spec from any form Orogen wrote: a spec of any version, a recipe (0.1's or since), or an export
    sidecar (0.1's or today's). :func:`core.versions.upgrade` converts it.

    Raises
    ------
    TypeError, ValueError
        For data that is none of these, naming what is wrong.
    """
    if not isinstance(data, Mapping):
        raise TypeError(f"a terrain spec must be a JSON object, got {type(data).__name__}")
    return _from_upgraded(upgrade(data, _WORLD))


# --- settings by path (the scripts' --set) -----------------------------------------------------
#: Most ``NAME=VALUE`` assignments applied at once (a spec has a few hundred settings at most).
MAX_ASSIGNMENTS = 1000


def setting_paths(spec: TerrainSpec) -> dict[str, Param]:
    """Every setting of ``spec`` by its path (``size``, ``hills.count``, ``lighting.azimuth``, ``lowpass.k``)."""
    paths = {p.name: p for p in WORLD_PARAMS}
    paths.update({f"{spec.generator}.{p.name}": p for p in GENERATORS[spec.generator].params})
    paths.update({f"lighting.{p.name}": p for p in LIGHTING_PARAMS})
    paths.update({f"material.{p.name}": p for p in MATERIAL_PARAMS})
    for s in spec.filters:
        paths.update({f"{s.key}.{p.name}": p for p in FILTERS[s.key].params})
    for i, src in enumerate(spec.sources):
        paths.update({f"sources[{i}].{p.name}": p for p in (*SOURCE_PARAMS, *source_part(src.key).params)})
    paths.update(mask_paths(spec))
    paths.update(source_mask_paths(spec))
    return paths


def source_mask_paths(spec: TerrainSpec) -> dict[str, Param]:
    """The mask settings of ``spec``'s sources by path: ``sources[i].mask.NAME`` (``sources[0].mask.low``)."""
    return {f"sources[{i}].mask.{p.name}": p for i in range(len(spec.sources)) for p in MASK_PARAMS}


def _source_mask_group(group: str) -> int | None:
    """The index ``i`` of a path's group ``sources[i].mask``, or ``None``."""
    head, dot, tail = group.partition("].")
    if dot and tail == "mask" and head.startswith("sources[") and head[8:].isdigit():
        return int(head[8:])
    return None


def mask_paths(spec: TerrainSpec) -> dict[str, Param]:
    """The mask and parameter-map settings of ``spec``'s filters by path: ``KEY.mask.NAME``
    (``erosion.mask.source``) and ``KEY.MAP.NAME`` (``erosion.erodibility_map.map_max``); like ``KEY.NAME``,
    it sets that object of every filter ``KEY`` of the stack."""
    return {
        f"{s.key}.{key}.{p.name}": p
        for s in spec.filters
        for key, params in filter_objects(s.key).items()
        for p in params
    }


def _source_type_path(spec: TerrainSpec, name: str) -> int | None:
    """The index ``i`` of ``sources[i].type`` (``i`` up to the number of sources: one more appends), or ``None``."""
    head, dot, tail = name.partition("].")
    if not (dot and tail == "type" and head.startswith("sources[") and head[8:].isdigit()):
        return None
    index = int(head[8:])
    if index > len(spec.sources):
        raise ValueError(
            f"--set {name}: the spec has {len(spec.sources)} sources; sources[{len(spec.sources)}] adds one"
        )
    return index


def _resolve(spec: TerrainSpec, name: str) -> str:
    """The full path of setting ``name`` (a path, or a bare name that only one group of the spec has)."""
    paths = setting_paths(spec)
    if name in paths or name == "generator" or _source_type_path(spec, name) is not None:
        return name
    masks = {**mask_paths(spec), **source_mask_paths(spec)}
    matches = [path for path in paths if path not in masks and path.rsplit(".", 1)[-1] == name]
    if not matches:  # a mask's setting by a shorter path: "low", "mask.low" (when one filter has it)
        matches = [path for path in masks if path.endswith("." + name)]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise ValueError(f"--set {name}: ambiguous, say which: {short_list(matches)}")
    group, _, param = name.rpartition(".")
    parts: dict[str, Part] = {**GENERATORS, **FILTERS}
    owners = [
        key
        for key, part in parts.items()
        if any(p.name == (param or name) for p in part.params) and (not group or group == key)
    ]
    if owners:
        what = " or ".join(f"{k!r}" for k in owners[:4])
        raise ValueError(
            f"--set {name}: a parameter of {what}, which this spec (generator {spec.generator!r}, "
            f"filters {[s.key for s in spec.filters]}) does not use"
        )
    raise ValueError(f"--set {name}: no such setting; valid: {short_list(list(paths), 30)}")


def _parse_value(param: Param | None, text: str, name: str) -> Any:
    """A ``--set`` value: JSON (numbers, true/false, lists), or bare text for enums and strings."""
    if param is None or param.kind in ("enum", *TEXT_KINDS):
        return text
    return load_json(text, f"value of --set {name}", max_bytes=4096, max_depth=2)


def apply_settings(spec: TerrainSpec, assignments: Sequence[str]) -> TerrainSpec:
    """``spec`` with ``NAME=VALUE`` assignments applied (``--set`` in the scripts).

    ``NAME`` is a path (``hills.count``, ``lighting.azimuth``, ``lowpass.k``
    for every low-pass filter of the stack) or a bare name that only one group
    of the spec has (``count``). ``generator=KEY`` switches the generator (its
    parameters start from their defaults; later assignments may set them).

    Raises
    ------
    ValueError, TypeError
        For a malformed assignment, a name the spec does not use (saying
        which generator or filter it belongs to), or a bad value.

    Warns
    -----
    InactiveSettingWarning
        For each setting given that has no effect under the resulting spec
        (:func:`inactive_settings`): a note, not an error, so pipelines keep
        working; the scripts print it, the operators report it.
    """
    if len(assignments) > MAX_ASSIGNMENTS:
        raise ValueError(f"--set takes at most {MAX_ASSIGNMENTS} settings at once, got {len(assignments)}")
    given: list[str] = []
    for item in assignments:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"--set needs NAME=VALUE, got {item!r:.60}")
        path = _resolve(spec, name)
        given.append(path)
        if path == "generator":
            spec = spec.replace(generator=text.strip(), params={})
            continue
        index = _source_type_path(spec, path)
        if index is not None:  # a new type keeps the entry's own settings; its parameters start from defaults
            old = spec.sources[index] if index < len(spec.sources) else None
            kept = {} if old is None else {**old.settings, **old.mask_entry()}  # its mask is the entry's own too
            new = Source.from_values(text.strip(), kept, f"sources[{index}].")
            spec = spec.replace(sources=(*spec.sources[:index], new, *spec.sources[index + 1 :]))
            continue
        param = setting_paths(spec)[path]
        value = param.check(
            _parse_value(param, text.strip(), name), path.rpartition(".")[0] + "." if "." in path else ""
        )
        group, _, key = path.rpartition(".")
        if not group:
            spec = spec.replace(**{key: value})
        elif group == spec.generator:
            spec = spec.replace(params={**spec.params, key: value})
        elif group in ("lighting", "material"):
            spec = spec.replace(**{group: {**getattr(spec, group), key: value}})
        elif _source_mask_group(group) is not None:
            i = int(group[8:].partition("]")[0])
            src = spec.sources[i]
            src = Source.from_values(src.key, {**src.values(), "mask": {**src.mask, key: value}}, f"sources[{i}].")
            spec = spec.replace(sources=(*spec.sources[:i], src, *spec.sources[i + 1 :]))
        elif group.startswith("sources["):
            i = int(group[8:-1])
            src = spec.sources[i]
            src = Source.from_values(src.key, {**src.values(), key: value}, f"{group}.")
            spec = spec.replace(sources=(*spec.sources[:i], src, *spec.sources[i + 1 :]))
        elif "." in group:
            spec = _set_mask(spec, group, key, value)
        else:
            spec = spec.replace(
                filters=tuple(
                    replace(s, params={**s.params, key: value}) if s.key == group else s for s in spec.filters
                )
            )
    for note in inactive_settings(spec, given):
        warnings.warn(note, InactiveSettingWarning, stacklevel=2)
    return spec


def _set_mask(spec: TerrainSpec, group: str, name: str, value: Any) -> TerrainSpec:
    """``spec`` with setting ``name`` of object ``group`` (``KEY.mask`` or ``KEY.erodibility_map``) of every
    filter ``KEY`` set to ``value`` (checked with the object's other values: ``low <= high``, naming
    ``KEY.mask.low``)."""
    key, _, obj = group.partition(".")

    def changed(s: Step) -> Step:
        if obj == "mask":
            return replace(s, mask={**s.mask, name: value})
        return replace(s, maps={**s.maps, obj: {**s.maps[obj], name: value}})

    return spec.replace(filters=tuple(changed(s) if s.key == key else s for s in spec.filters))


class InactiveSettingWarning(UserWarning):
    """A setting given to :func:`apply_settings` has no effect under the resulting spec."""


def _group_values(spec: TerrainSpec, group: str) -> list[tuple[Sequence[Param], Mapping[str, Any]]]:
    """The declarations and current values of each part of ``spec`` that a path's ``group`` names."""
    if group == spec.generator:
        return [(GENERATORS[group].params, spec.params)]
    index = _source_mask_group(group)
    if index is not None:
        return [(MASK_PARAMS, spec.sources[index].mask)] if index < len(spec.sources) else []
    if group.startswith("sources[") and group.endswith("]") and group[8:-1].isdigit():
        index = int(group[8:-1])
        if index >= len(spec.sources):
            return []
        src = spec.sources[index]
        return [((*SOURCE_PARAMS, *source_part(src.key).params), src.values())]
    if group in ("lighting", "material"):
        return [(LIGHTING_PARAMS if group == "lighting" else MATERIAL_PARAMS, getattr(spec, group))]
    if "." in group:
        key, _, obj = group.partition(".")
        return [
            (filter_objects(key)[obj], s.mask if obj == "mask" else s.maps[obj])
            for s in spec.filters
            if s.key == key and obj in filter_objects(key)
        ]
    return [(FILTERS[s.key].params, s.params) for s in spec.filters if s.key == group]


def inactive_settings(spec: TerrainSpec, paths: Sequence[str]) -> list[str]:
    """Notes on the settings of ``paths`` that have no effect under ``spec`` (:func:`core.params.inactive_reason`).

    Parameters
    ----------
    spec : TerrainSpec
        The spec the settings were applied to.
    paths : sequence of str
        Setting paths (``erosion.channel_width``, ``lighting.azimuth``; see :func:`setting_paths`); a path
        the spec does not use, or one of several filters of a kind where any of them uses it, gives no note.

    Returns
    -------
    list of str
        One note per path without effect, in the order given, each once:
        ``"erosion.channel_width has no effect: acts only when Automatic K and D is off"``.
    """
    notes: list[str] = []
    for path in dict.fromkeys(paths):
        group, _, name = path.rpartition(".")
        keys = [s.key for s in spec.filters]
        objects = [f"{k}.{obj}" for k in keys for obj in filter_objects(k)]
        if not group or (
            group != spec.generator
            and group not in ("lighting", "material", *keys, *objects)
            and not group.startswith("sources[")
        ):
            continue
        reasons = []
        for params, values in _group_values(spec, group):
            param = next((p for p in params if p.name == name), None)
            reasons.append(None if param is None else inactive_reason(param, values, params))
        if reasons and all(reasons):
            reason = str(reasons[0])
            notes.append(f"{path} has no effect: {reason[0].lower()}{reason[1:]}")
    return notes


# --- JSON Schema -------------------------------------------------------------------------------
def _param_schema(p: Param) -> dict[str, Any]:
    out: dict[str, Any] = {"description": f"{p.label}: {p.description}" + (f" ({p.unit})" if p.unit else "")}
    if p.kind == "bool":
        out["type"] = "boolean"
    elif p.kind in ("int", "float"):
        assert p.hard is not None
        out.update(type="integer" if p.kind == "int" else "number", minimum=p.hard[0], maximum=p.hard[1])
    elif p.kind == "enum":
        out["enum"] = list(p.choices)
    elif p.kind in TEXT_KINDS:
        out.update(type="string", maxLength=4096)
    else:
        lo, hi = p.hard if p.hard is not None else (0.0, 1.0)
        size = 2 if p.kind == "range" else 3
        out.update(type="array", minItems=size, maxItems=size, items={"type": "number", "minimum": lo, "maximum": hi})
    out["default"] = p.to_plain(p.default)
    return out


def _object_schema(params: Sequence[Param], extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {**{p.name: _param_schema(p) for p in params}, **(extra or {})},
    }


def json_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12) of a version-3 spec, made from the declarations of every registered part."""
    filters = [
        {
            "allOf": [
                {"properties": {"type": {"const": key}}, "required": ["type"]},
                _object_schema(
                    f.params,
                    {
                        "type": {"const": key},
                        "enabled": {"type": "boolean"},
                        **{name: _object_schema(params) for name, params in filter_objects(key).items()},
                    },
                ),
            ]
        }
        for key, f in FILTERS.items()
    ]
    generators = [
        {"properties": {"generator": {"const": key}, key: _object_schema(g.params)}} for key, g in GENERATORS.items()
    ]
    sources = [
        {
            **_object_schema(
                (*SOURCE_PARAMS, *part.params), {"type": {"const": key}, "mask": _object_schema(MASK_PARAMS)}
            ),
            "required": ["type"],
        }
        for key, part in {**GENERATORS, **STAMPS}.items()
    ]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://github.com/orogen-terrain/orogen/terrain-spec.schema.json",
        "title": "Orogen terrain spec",
        "description": "A whole terrain: world, seed, generator, sources, filter stack, lighting, colour layers, "
        "material.",
        "type": "object",
        "required": ["version", "generator"],
        "properties": {
            "version": {"const": SPEC_VERSION},
            **{p.name: _param_schema(p) for p in WORLD_PARAMS},
            "generator": {"enum": list(GENERATORS)},
            **{key: _object_schema(g.params) for key, g in GENERATORS.items()},
            "filters": {"type": "array", "maxItems": MAX_FILTERS, "items": {"oneOf": filters}},
            "sources": {
                "type": "array",
                "maxItems": MAX_SOURCES,
                "description": "Sources blended on the generator, in order, before the filters (optional, default "
                "none; core.sources)",
                "items": {"oneOf": sources},
            },
            "lighting": _object_schema(LIGHTING_PARAMS),
            "material": _object_schema(MATERIAL_PARAMS),
            "layers": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_LAYERS,
                "items": {
                    **_object_schema(LAYER_PARAMS),
                    "required": ["name", "color", "minimum", "optimal", "maximum"],
                },
            },
        },
        "additionalProperties": False,
        "allOf": [{"oneOf": generators}],
        "x-v1-filter-keys": dict(V1_FILTER_KEYS),
        "x-earlier-versions": "version 2 (lengths in cells) and Orogen 0.1's forms load too: core.spec.load_spec",
    }
