"""Every earlier form of a terrain, and its conversion to the current spec version, in one place.

As Blender's ``versioning_*`` files do, this package keeps each old version's conversion together, and the
rest of core reads only the current version. Its modules work on plain JSON data and import nothing above
:mod:`core.catalog`; :func:`core.spec.load_spec` and :meth:`core.spec.TerrainSpec.from_dict` call
:func:`upgrade` and :func:`upgrade_spec`, :meth:`core.recipe.Recipe.from_dict` calls :func:`upgrade_recipe`.
The add-on's .blend conversion (``addon/versions.py``) calls these for every value it converts.

Versions
--------
**Orogen 0.1** (no version; :mod:`.legacy_01`)
    Recipes without a ``version``, whose one-pole low-pass filter was ``erosion`` and whose faults had 0.1's
    spacing (:func:`.legacy_01.recipe_01_to_v2`); export sidecars with ``width_m`` and ``height_range_m``
    (:func:`.legacy_01.sidecar_01`); flat panel settings, object properties and user presets
    (``hill_count``, ``use_erosion``, angles in radians; :func:`.legacy_01.settings_01`). Each becomes a
    version-2 recipe plus the spec's other keys.
**Version 2** (Orogen 0.2; :mod:`.v2`, :mod:`.v2_to_v3`)
    Specs and recipes with lengths in cells, the diamond-square lattice hashed by grid cell, the blur in
    3 x 3 passes, the low-pass ``k``, the erosion filter without lake filling and the thermal filter's
    ``iterations``. Version-2 recipes run the version-2 declarations (:data:`.v2.V2_PARTS`, picked by
    :func:`.v2.part`), so they give the heightmaps they gave; specs, recipes and presets convert to version 3
    (:func:`.v2_to_v3.spec_v2_to_v3`, :func:`.v2_to_v3.v2_params_to_v3`, :func:`.v2_to_v3.preset_v2_to_v3`,
    :func:`.v2_to_v3.recipe_to_spec`).
**Version 3** (Orogen 0.3 development builds; :mod:`.v3`, :mod:`.v3_to_v4`)
    Lengths in metres, positions in world coordinates, ``fit_height`` optional. Development builds wrote the
    thermal filter's ``steps`` as ``iterations`` (:data:`.v3.V3_RENAMED`, :func:`.v3.rename_filters`). Its
    specs, recipes and presets convert to version 4 by naming version 3's erosion algorithms
    (:data:`.v3_to_v4.V3_CHOICES`, :func:`.v3_to_v4.filters_v3_to_v4`).
**Version 4** (Orogen 0.3; :mod:`.v4_to_v5`)
    Version 3 with the thermal filter's open edges, the stream-power filter's diffusion, flats, ties and uplift
    scale and the hydraulic filter's bounds fixed, each version-3 algorithm a declared choice. Its optional
    ``sources`` list (:mod:`core.sources`, default ``[]``) came later without a new version: a version-4 spec
    without the key is read unchanged and gives the heightmap it gave, so nothing here converts it. The same
    holds for the optional ``mask`` object of a filter's entry and its parameter maps (``erodibility_map``,
    ``precipitation_map``, ``talus_map``; :mod:`core.masks`): an entry without them is unmasked and gives the
    heightmap it gave, and a spec without masks writes the JSON it wrote. Its specs, recipes and presets
    convert to version 5 by naming version 4's time counts (:data:`.v4_to_v5.V4_CHOICES`,
    :func:`.v4_to_v5.filters_v4_to_v5`: the thermal filter's ``time: "passes"``, the hydraulic filter's
    ``time: "steps"``, their ``steps`` kept), so they give the heightmaps they gave bit for bit.
**Version 5** (:data:`SPEC_VERSION`)
    Version 4 with the thermal filter's time in years (``duration`` years at ``speed`` metres a year, the
    passes from the cell size) and the hydraulic filter's in seconds of simulated flow (``duration``, the
    steps from the stable time step): the same spec gives the same landform at every size.

Export sidecars carry a version of their own (``sidecar_version``, :data:`core.io.formats.SIDECAR_VERSION`):
those without one (version 1, Orogen 0.1 to 0.3) are read by :func:`core.io.formats.sidecar_scale` as they
meant, their ``height_range_m`` the metres of 0 and 1 and their Height the spec's (or the relief); version 2
adds the Height, the look, the rows' order and a tile's place. Since the exact round trips, a 16-bit
file's (PNG16, R16) levels span the terrain's relief instead of 0..Height: still version 2, because no field
changed its meaning (``height_range_m`` is the metres of 0 and 65535 in every version, so older sidecars and
older readers agree); its sidecar adds ``levels`` (those metres again, the step and the engines' settings),
which readers need not read, and a 16-bit file's values are rounded to their level on reading, any version.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..params import Param
from .legacy_01 import V1_DEFAULTS, V1_ENUMS, V1_FILTER_KEYS, recipe_01_to_v2, settings_01, sidecar_01
from .v2 import V2_DEFAULTS, V2_PARTS, V2_RENAMED, part
from .v2_to_v3 import V2_TO_V3, preset_v2_to_v3, recipe_to_spec, spec_v2_to_v3, v2_params_to_v3
from .v3 import SPEC_VERSION, V3_RENAMED, rename_filters, rename_params
from .v3_to_v4 import V3_CHOICES, filters_v3_to_v4
from .v4_to_v5 import V4_CHOICES, filters_v4_to_v5

__all__ = [
    "SPEC_VERSION",
    "V1_DEFAULTS",
    "V1_ENUMS",
    "V1_FILTER_KEYS",
    "V2_DEFAULTS",
    "V2_PARTS",
    "V2_RENAMED",
    "V2_TO_V3",
    "V3_CHOICES",
    "V3_RENAMED",
    "V4_CHOICES",
    "Upgraded",
    "filters_v3_to_v4",
    "filters_v4_to_v5",
    "part",
    "preset_v2_to_v3",
    "recipe_01_to_v2",
    "recipe_to_spec",
    "rename_filters",
    "rename_params",
    "settings_01",
    "sidecar_01",
    "spec_v2_to_v3",
    "upgrade",
    "upgrade_recipe",
    "upgrade_spec",
    "v2_params_to_v3",
]


def upgrade_spec(data: Mapping[str, Any], world: Mapping[str, Param]) -> Mapping[str, Any]:
    """A spec's JSON form of any spec version (2, 3 also as development builds wrote it, 4, 5) in the current
    version.

    ``world`` holds the declarations of ``size``, ``size_y`` and ``width`` (:data:`core.spec.WORLD_PARAMS` by
    name). Data of another version is returned as it is (the spec reader refuses it by name).

    Raises
    ------
    TypeError, ValueError
        For a version-2 spec holding values version 2 refused, naming them.
    """
    version = data.get("version")
    if isinstance(version, bool):
        return data
    if version == 2:
        data = spec_v2_to_v3(data, world)
        version = 3
    elif version == 3 and "filters" in data:
        data = {**data, "filters": rename_filters(data["filters"])}
    if version == 3:
        data = {**data, "version": 4}
        if "filters" in data:
            data["filters"] = filters_v3_to_v4(data["filters"])
        version = 4
    if version == 4:
        data = {**data, "version": SPEC_VERSION}
        if "filters" in data:
            data["filters"] = filters_v4_to_v5(data["filters"])
    return data


def upgrade_recipe(data: Mapping[str, Any]) -> dict[str, Any]:
    """A recipe's JSON form of any version (0.1's without one, 2, 3, 4, 5) as version-2 or current recipe JSON.

    0.1's recipes become version 2 (:func:`.legacy_01.recipe_01_to_v2`: a version-2 recipe runs the version-2
    declarations, as 0.1's functions did); version 3's old parameter names become today's and version 3's
    recipes name its erosion algorithms (:func:`.v3_to_v4.filters_v3_to_v4`) as version 4; version 4's name its
    time counts (:func:`.v4_to_v5.filters_v4_to_v5`) as version 5. ``fit_height`` is filled in (always on
    before version 3, off by default since).

    Raises
    ------
    ValueError
        For a version that is none of these.
    """
    version = data.get("version", 1)
    if isinstance(version, bool) or version not in (1, 2, 3, 4, SPEC_VERSION):
        raise ValueError(f"recipe version must be 1, 2, 3, 4 or {SPEC_VERSION}, got {version!r:.20}")
    out = recipe_01_to_v2(data) if version == 1 else dict(data)
    out.setdefault("fit_height", version < 3)
    if version == 3:
        out["version"] = 4
        if "filters" in out:
            out["filters"] = filters_v3_to_v4(rename_filters(out["filters"]))
    if version in (3, 4):
        out["version"] = SPEC_VERSION
        if "filters" in out:
            out["filters"] = filters_v4_to_v5(out["filters"])
    return out


@dataclass(frozen=True)
class Upgraded:
    """What :func:`upgrade` makes of a file: a current spec's JSON form, or a recipe and the spec's other keys.

    ``recipe`` (recipe JSON of any version, for :meth:`core.recipe.Recipe.from_dict`) is ``None`` when
    ``spec`` is the whole spec; otherwise the spec is :func:`.v2_to_v3.recipe_to_spec` of the checked recipe
    and ``spec`` (its ``width`` and whatever else the file held).
    """

    spec: Mapping[str, Any]
    recipe: object = None


#: What Orogen 0.1's recipes held (its ``Recipe.to_dict``): without a version, only these are read as one.
_RECIPE_01_KEYS = frozenset({"generator", "seed", "shape", "params", "filters"})
#: What every heightmap sidecar Orogen writes holds (:func:`core.io.formats.sidecar_info`).
_SIDECAR_KEYS = frozenset({"file", "shape", "encoding", "orientation"})


def upgrade(data: Mapping[str, Any], world: Mapping[str, Param]) -> Upgraded:
    """Any form Orogen wrote (a spec of any version, a recipe, an export sidecar: 0.1's or today's) in the
    current version. ``world`` is as for :func:`upgrade_spec`.

    Raises
    ------
    TypeError, ValueError
        For data that none of these can hold, naming what is wrong.
    """
    width = world["width"].default
    if "spec" in data and isinstance(data["spec"], Mapping):  # a sidecar written since the spec
        return Upgraded(upgrade_spec(data["spec"], world))
    if "recipe" in data and ("width_m" in data or "height_range_m" in data):  # a 0.1 sidecar
        recipe, rest = sidecar_01(data)
        return Upgraded(rest, recipe)
    if "spec" in data or _SIDECAR_KEYS <= data.keys():  # a sidecar with no spec: an imported or edited terrain's
        name = data.get("file")
        what = f"the sidecar of the heightmap {name!r:.80}" if isinstance(name, str) else "a heightmap's sidecar"
        edited = " (the terrain was edited by hand: its spec before the edits is in spec_before_edits)"
        raise ValueError(
            f"this is {what}, not a terrain spec: it holds no spec that makes those heights"
            f"{edited if isinstance(data.get('spec_before_edits'), Mapping) else ' (an imported terrain)'}; "
            "import the heightmap file instead (File > Import > Orogen Heightmap)"
        )
    if "version" not in data:
        if "shape" in data and data.keys() <= _RECIPE_01_KEYS:
            return Upgraded({"width": width}, data)  # a 0.1 recipe
        others = sorted(str(k) for k in data.keys() - _RECIPE_01_KEYS)
        raise ValueError(
            f'a terrain spec needs "version": {SPEC_VERSION}: add it. Without a version only an Orogen 0.1 recipe '
            f"is read (the keys {', '.join(sorted(_RECIPE_01_KEYS))}, with shape), and this is not one"
            + (f" (it has {', '.join(others)[:120]})" if others else " (it has no shape)")
        )
    if data.get("version") in (2, 3, 4, SPEC_VERSION) and "params" in data and "shape" in data:
        return Upgraded({"width": width}, data)  # a recipe written since 0.2
    return Upgraded(upgrade_spec(data, world))
