"""Version 2 to version 3: lengths in cells become metres, version 2's algorithms stay behind declared choices.

Version 3 (Orogen 0.3) measures every length in metres and hashes positions by world coordinates, so the size
of a terrain sets its resolution, not its landscape. A version-2 spec, recipe, preset or .blend group converts
to version-3 values that give the heightmap version 2 gave: lengths in cells times the cell size, the
version-2 algorithm where it differs (diamond-square ``lattice: "grid"``, blur ``method: "passes"``, the noise
``grain`` of one cell, the erosion filter's version-2 defaults), the thermal filter's ``iterations`` as
``steps``, and ``fit_height`` on (version 2 stretched the filtered terrain to its height range).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from typing import Any

from ..elementary import log
from ..lighting.settings import cell_size
from ..params import MAX_FILTERS, Param
from .v2 import V2_DEFAULTS, V2_PARTS, V2_RENAMED, part
from .v3 import SPEC_VERSION
from .v3_to_v4 import V3_CHOICES

__all__ = ["V2_TO_V3", "v2_params_to_v3", "spec_v2_to_v3", "preset_v2_to_v3", "recipe_to_spec"]


def _lowpass_length(k: float, cell_size: float) -> float:
    return 0.0 if k <= 0.0 else -cell_size / float(log(k))


def _renamed(names: Mapping[str, str]) -> Callable[[Mapping[str, Any], float], dict[str, Any]]:
    """Version-2 values of a part whose parameters version 3 renamed (old name to new ``names``)."""
    return lambda p, _cell: {names.get(k, k): v for k, v in p.items()}


#: Version-2 values (complete: every parameter of the version-2 declaration) to version-3 values at a cell size
#: in metres, giving the heightmap they gave: lengths in cells times the cell size, the version-2 algorithm
#: where it differs (the diamond-square grid lattice, 3 x 3 blur passes), renamed parameters by today's names.
#: Hill radii and the low-pass length go through a float round trip (``r * cell / cell``,
#: ``exp(-cell / (-cell / log k))``), which can differ from the version-2 value by an ulp or two:
#: tests/core/test_spec_v3.py bounds what that does to a heightmap.
V2_TO_V3: dict[str, Callable[[Mapping[str, Any], float], dict[str, Any]]] = {
    "hills": lambda p, cell: {**p, "radius_min": p["radius_min"] * cell, "radius_max": p["radius_max"] * cell},
    "diamond_square": lambda p, cell: {**p, "lattice": "grid"},
    "noise": lambda p, cell: {
        **p,
        "grain": cell,
        "hill_radius": (p["hill_radius"][0] * cell, p["hill_radius"][1] * cell),
        "pit_radius": (p["pit_radius"][0] * cell, p["pit_radius"][1] * cell),
    },
    "box_blur": lambda p, cell: {"radius": math.sqrt(p["passes"] / 1.5) * cell, "method": "passes"},
    "lowpass": lambda p, cell: {"length": _lowpass_length(p["k"], cell), "passes": p["passes"]},
    **{key: (lambda p, _cell: dict(p)) for key in V2_DEFAULTS},  # same parameters, version 2's defaults filled in
    **{key: _renamed(names) for key, names in V2_RENAMED.items()},  # the thermal filter's iterations are steps
}


def v2_params_to_v3(key: str, params: Mapping[str, Any], cell: float) -> dict[str, Any]:
    """Version-3 values of generator or filter ``key``'s version-2 ``params`` at ``cell`` metres per cell.

    Missing version-2 values take their version-2 defaults first (a version-2 spec meant those). Parts that did
    not change (faults, fractal, flatten...) keep their values. See :data:`V2_TO_V3`.

    Raises
    ------
    TypeError, ValueError
        For values the version-2 declaration refuses, naming them (``hills.radius_min``).
    """
    if key not in V2_PARTS:
        return dict(params)
    return V2_TO_V3[key](V2_PARTS[key].check(params), cell)


def _cell(data: Mapping[str, Any], world: Mapping[str, Param]) -> float:
    """Metres per cell of spec data ``data`` (``width / (longest side - 1)``), its values checked by ``world``."""
    size = world["size"].check(data.get("size", world["size"].default))
    size_y = world["size_y"].check(data.get("size_y", 0))
    return cell_size((size_y or size, size), world["width"].check(data.get("width", world["width"].default)))


def spec_v2_to_v3(data: Mapping[str, Any], world: Mapping[str, Param]) -> dict[str, Any]:
    """A version-2 spec's JSON form as version 3, giving the heightmap version 2 gave (then
    :func:`.v3_to_v4.filters_v3_to_v4` for the current version).

    ``world`` holds the declarations of the spec's ``size``, ``size_y`` and ``width``
    (:data:`core.spec.WORLD_PARAMS` by name), which give the cell size. Hill radii and the low-pass length go
    through a float round trip that can move a height by a few float32 steps (tests/core/test_spec_v3.py
    bounds it); everything else is bit for bit.

    Raises
    ------
    TypeError, ValueError
        For data no version-2 spec holds, naming the setting.
    """
    if not isinstance(data, Mapping):
        raise TypeError(f"a terrain spec must be a JSON object, got {type(data).__name__}")
    filters = data.get("filters", [])
    if isinstance(filters, list) and len(filters) > MAX_FILTERS:
        raise ValueError(f"a filter stack holds at most {MAX_FILTERS} filters, got {len(filters)}")
    cell = _cell(data, world)
    out = {**data, "version": 3, "fit_height": True}
    generator = data.get("generator", "hills")
    if isinstance(generator, str) and generator in V2_PARTS:
        out[generator] = v2_params_to_v3(generator, data.get(generator, {}), cell)
    if isinstance(filters, list):
        steps = []
        for i, f in enumerate(filters):
            if isinstance(f, Mapping) and f.get("type") in V2_PARTS:
                params = {k: v for k, v in f.items() if k not in ("type", "enabled")}
                try:
                    values = v2_params_to_v3(f["type"], params, cell)
                except (TypeError, ValueError) as err:
                    raise type(err)(f"filters[{i}]: {err}") from None
                f = {"type": f["type"], **({"enabled": f["enabled"]} if "enabled" in f else {}), **values}
            steps.append(f)
        out["filters"] = steps
    return out


def preset_v2_to_v3(preset: Mapping[str, Any], world: Mapping[str, Param]) -> dict[str, Any]:
    """A preset written with version-2 numbers (lengths in cells) as a version-3 preset that looks the same.

    Lengths become metres at the preset's own cell size (as :func:`spec_v2_to_v3`), but with version 3's
    algorithms: the diamond-square world lattice, the Gaussian blur of the same radius, and no ``fit_height``
    (relief a filter lowers in metres stays lowered). The result is a partial spec for
    :data:`core.presets.PRESETS`; ``world`` is as for :func:`spec_v2_to_v3`.

    Raises
    ------
    TypeError, ValueError
        For values no version-2 spec holds.
    """
    out = spec_v2_to_v3({**preset, "version": 2}, world)
    del out["version"], out["fit_height"]
    if out.get("generator") == "diamond_square":
        out["diamond_square"] = {**out["diamond_square"], "lattice": "world"}
    out["filters"] = [
        {**f, "method": "gaussian"} if isinstance(f, dict) and f.get("type") == "box_blur" else f
        for f in out.get("filters", [])
    ]
    return out


def _function_defaults(function: Any, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` completed with ``function``'s own keyword defaults (0.1 ran functions with what it was given)."""
    out = dict(params)
    for name, p in inspect.signature(function).parameters.items():
        if name not in out and p.default is not inspect.Parameter.empty and name not in ("window", "seed"):
            out[name] = p.default
    return out


def recipe_to_spec(recipe: Mapping[str, Any], rest: Mapping[str, Any]) -> dict[str, Any]:
    """The spec JSON form (current version) whose heightmap part is ``recipe``, its other keys ``rest``.

    Parameters
    ----------
    recipe : mapping
        A checked recipe's JSON form (:meth:`core.recipe.Recipe.to_dict`; version 2 or the current one). Parameters
        it leaves out take its functions' defaults (as 0.1's and 0.2's functions took them; version 3's
        algorithms where version 4 changed them, :data:`.v3_to_v4.V3_CHOICES`); a version-2 recipe's values
        are converted to version 3 (:func:`v2_params_to_v3`) at the cell size of ``rest["width"]`` metres over
        the recipe's shape, with ``fit_height`` on.
    rest : mapping
        The spec's other keys (``width`` required; ``height``, ``lighting``, ``material``, ``layers``...).
    """
    rows, cols = recipe["shape"]
    version = recipe["version"]
    cell = cell_size((rows, cols), rest["width"])

    def values(key: str, params: Mapping[str, Any]) -> dict[str, Any]:
        declaration = part(key, version)
        names = {p.name for p in declaration.params}
        if version < SPEC_VERSION:  # versions 2 and 3 ran version 3's algorithms, whatever the function's default
            params = {**V3_CHOICES.get(key, {}), **params}
        out = {k: v for k, v in _function_defaults(declaration.function, params).items() if k in names}
        return out if version == SPEC_VERSION else v2_params_to_v3(key, out, cell)

    generator = recipe["generator"]
    filters = [
        {"type": f["type"], **values(f["type"], {k: v for k, v in f.items() if k != "type"})} for f in recipe["filters"]
    ]
    return {
        **rest,
        "version": SPEC_VERSION,
        "size": cols,
        "size_y": 0 if rows == cols else rows,
        "seed": recipe["seed"],
        "generator": generator,
        generator: values(generator, recipe["params"]),
        "filters": filters,
        "fit_height": recipe.get("fit_height", True),
    }
