"""Parameter declarations: every setting of a terrain is declared once, here in core.

A :class:`Param` says everything there is to know about one setting: its
name (the key in a spec's JSON, the Blender property's identifier, the name
``--set NAME=VALUE`` takes in the scripts and the word the docs use), kind,
default, hard bounds (refused outside), soft bounds (the UI's slider range),
unit, label and description. A :class:`Generator` or :class:`Filter` is a
function plus its tuple of params, registered by key in :data:`GENERATORS`
and :data:`FILTERS`; the add-on builds its properties and panels from these
registries at register time, so declaring a generator here is all it takes
for it to appear in Blender, in specs, in presets and in the scripts.

A param may say when it acts (``active_when``: :class:`When` conditions on
its siblings' values, combined with :class:`AllOf` and :class:`AnyOf`);
:func:`inactive_reason` decides for a part's current values and words why
("Acts only when Flow Routing is Multiple Flow"): the panel greys such a
setting out and ``--set`` of it warns.

Checking is shared: :meth:`Param.check` validates one value (raising
``TypeError``/``ValueError`` that name the parameter and its range), and
:func:`check_values` a whole mapping (unknown names, missing values filled
with defaults, ordered pairs such as ``radius_min <= radius_max``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .heightmap import check_number

__all__ = [
    "KINDS",
    "TEXT_KINDS",
    "UNITS",
    "MAX_FILTERS",
    "Param",
    "Part",
    "Generator",
    "Filter",
    "GENERATORS",
    "FILTERS",
    "fitted_defaults",
    "register_generator",
    "register_filter",
    "unregister",
    "check_values",
    "short_list",
    "When",
    "AllOf",
    "AnyOf",
    "Condition",
    "check_conditions",
    "condition_text",
    "inactive_reason",
]

#: Kinds of parameter: how a value is stored and checked.
#: ``range`` is a (low, high) pair of floats with low <= high; ``color`` a linear RGB triple in [0, 1]; ``object``
#: the name of a Blender object (a mesh, curve or the terrain's vertex group, read through :mod:`core.inputs`),
#: text as ``string`` is ("" = none).
KINDS = ("int", "float", "bool", "enum", "range", "color", "string", "path", "object")
#: Text kinds: checked as text (at most 4096 characters, valid Unicode, no NUL).
TEXT_KINDS = ("string", "path", "object")

#: Most filters a stack holds (recipes, specs and their earlier versions are refused beyond it at once).
MAX_FILTERS = 64

#: Units a parameter can be in (the add-on maps them to Blender's subtypes and units).
UNITS = {
    "": "no unit",
    "cells": "heightmap cells",
    "m": "metres",
    "deg": "degrees",
    "factor": "a share in [0, 1]",
    "vertices": "vertices per side",
    "normalised": "normalised height (0 = lowest, 1 = highest)",
    "m/yr": "metres per year",
    "m2": "square metres",
    "m2/yr": "square metres per year",
    "yr": "years",
    "s": "seconds",
    "px": "pixels of the render",
}


def short_list(names: Sequence[str], limit: int = 12) -> str:
    """``names`` sorted and joined, at most ``limit`` of them (messages stay short for any input)."""
    items = sorted(str(n)[:40] for n in names)
    more = len(items) - limit
    return ", ".join(items[:limit]) + (f" and {more} more" if more > 0 else "")


@dataclass(frozen=True, init=False)
class When:
    """A condition on one sibling setting's value: what a :class:`Param`'s ``active_when`` says.

    ``When("routing", "mfd")`` holds when ``routing`` is ``"mfd"``; several values mean any of them
    (``When("mode", "hillshade", "multidirectional")``); ``When("auto_rates", False)`` holds when the bool is
    off; ``When("hills", above=0)`` holds when the number is greater than 0. Combine with :class:`AllOf` and
    :class:`AnyOf`.
    """

    name: str
    values: tuple[Any, ...] = ()
    above: float | None = None

    def __init__(self, name: str, *values: Any, above: float | None = None) -> None:
        if bool(values) == (above is not None):
            raise ValueError(f"When({name!r}): give the values it holds for, or above=, not both or neither")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "values", tuple(values))
        object.__setattr__(self, "above", above)

    def holds(self, values: Mapping[str, Any]) -> bool:
        """Whether the condition holds for ``values`` (the part's values by name; missing names raise
        ``KeyError``)."""
        value = values[self.name]
        if self.above is not None:
            return bool(value > self.above)
        return any(value == v and isinstance(value, bool) == isinstance(v, bool) for v in self.values)

    def text(self, params: Mapping[str, Param]) -> str:
        """In words, with the sibling's label and its choices' labels: "Flow Routing is Multiple Flow"."""
        p = params[self.name]
        if self.above is not None:
            return f"{p.label} is above {self.above:g}"
        if p.kind == "bool":
            return f"{p.label} is {'on' if self.values[0] else 'off'}"
        labels = {item[0]: item[1] for item in p.items}
        return f"{p.label} is " + " or ".join(labels.get(str(v), str(v)) for v in self.values)


@dataclass(frozen=True, init=False)
class AllOf:
    """Every one of ``conditions`` holds."""

    conditions: tuple[Condition, ...]

    def __init__(self, *conditions: Condition) -> None:
        object.__setattr__(self, "conditions", tuple(conditions))

    def holds(self, values: Mapping[str, Any]) -> bool:
        """Whether all hold for ``values``."""
        return all(c.holds(values) for c in self.conditions)

    def text(self, params: Mapping[str, Param]) -> str:
        """The conditions joined with "and"."""
        return " and ".join(_grouped(c, params) for c in self.conditions)


@dataclass(frozen=True, init=False)
class AnyOf:
    """At least one of ``conditions`` holds."""

    conditions: tuple[Condition, ...]

    def __init__(self, *conditions: Condition) -> None:
        object.__setattr__(self, "conditions", tuple(conditions))

    def holds(self, values: Mapping[str, Any]) -> bool:
        """Whether any holds for ``values``."""
        return any(c.holds(values) for c in self.conditions)

    def text(self, params: Mapping[str, Param]) -> str:
        """The conditions joined with "or"."""
        return " or ".join(_grouped(c, params) for c in self.conditions)


#: When a setting acts (:attr:`Param.active_when`).
Condition = When | AllOf | AnyOf


def _grouped(condition: Condition, params: Mapping[str, Param]) -> str:
    text = condition.text(params)
    return f"({text})" if isinstance(condition, (AllOf, AnyOf)) and len(condition.conditions) > 1 else text


def _names(condition: Condition) -> list[When]:
    if isinstance(condition, When):
        return [condition]
    return [w for c in condition.conditions for w in _names(c)]


def check_conditions(params: Sequence[Param], where: str = "") -> None:
    """Check that every ``active_when`` of ``params`` names a sibling (not itself) by a valid value.

    Raises
    ------
    ValueError
        Naming the parameter and what is wrong.
    """
    by_name = {p.name: p for p in params}
    for p in params:
        if p.active_when is None:
            continue
        for w in _names(p.active_when):
            sibling = by_name.get(w.name)
            if sibling is None or sibling is p:
                raise ValueError(f"{where}{p.name}: active_when names {w.name!r}, which is not a sibling setting")
            if w.above is not None and sibling.kind not in ("int", "float"):
                raise ValueError(f"{where}{p.name}: active_when's above= needs a number, {w.name} is {sibling.kind}")
            for v in w.values:
                sibling.check(v, where)


def condition_text(param: Param, params: Sequence[Param]) -> str:
    """ "Acts only when ..." for a ``param`` with ``active_when`` (its siblings ``params`` give the labels);
    ``""`` without."""
    if param.active_when is None:
        return ""
    return "Acts only when " + param.active_when.text({p.name: p for p in params})


def inactive_reason(param: Param, values: Mapping[str, Any], params: Sequence[Param]) -> str | None:
    """Why ``param`` does nothing under ``values``, or ``None`` when it acts.

    Parameters
    ----------
    param : Param
        One of ``params``.
    values : mapping of str to object
        The current values of the part's settings by name (missing ones take their defaults).
    params : sequence of Param
        The part's declarations (the siblings the condition names).

    Returns
    -------
    str or None
        "Acts only when Flow Routing is Multiple Flow" when the setting is ignored under ``values``.
    """
    if param.active_when is None:
        return None
    full = {**{p.name: p.default for p in params}, **values}
    return None if param.active_when.holds(full) else condition_text(param, params)


@dataclass(frozen=True)
class Param:
    """One declared setting.

    Parameters
    ----------
    name : str
        Identifier: the JSON key, the Blender property name and the ``--set`` name (``[a-z][a-z0-9_]*``).
    kind : str
        One of :data:`KINDS`.
    default : object
        Default value (checked against the declaration when the class is made).
    hard : (float, float), optional
        Inclusive bounds: values outside are refused (``int``, ``float``, ``range``).
    soft : (float, float), optional
        The UI's slider range, inside ``hard`` (defaults to ``hard``).
    unit : str
        One of :data:`UNITS`.
    label, description : str
        What the UI shows.
    items : tuple of (identifier, label, description)
        The choices of an ``enum``.
    active_when : When, AllOf or AnyOf, optional
        When the setting acts, in terms of its siblings' values: under other values it does nothing (the
        panel greys it out and says why, ``--set`` of it warns); see :func:`inactive_reason`.
    object_kind : str
        For an ``object`` setting only: the input it names, ``"mesh"``, ``"curve"`` or ``"weights"`` (a
        vertex group), read through :func:`core.inputs.get` (see :mod:`core.inputs`).
    """

    name: str
    kind: str
    default: Any
    hard: tuple[float, float] | None = None
    soft: tuple[float, float] | None = None
    unit: str = ""
    label: str = ""
    description: str = ""
    items: tuple[tuple[str, str, str], ...] = ()
    active_when: Condition | None = None
    object_kind: str = ""

    def __post_init__(self) -> None:
        if not self.name.isidentifier() or not self.name.islower():
            raise ValueError(f"a parameter name must be a lower-case identifier, got {self.name!r}")
        if self.kind not in KINDS:
            raise ValueError(f"{self.name}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.unit not in UNITS:
            raise ValueError(f"{self.name}: unit must be one of {sorted(UNITS)}, got {self.unit!r}")
        if self.kind == "enum" and not self.items:
            raise ValueError(f"{self.name}: an enum needs items")
        if self.kind in ("int", "float", "range") and self.hard is None:
            raise ValueError(f"{self.name}: a number needs hard bounds")
        if (self.kind == "object") != bool(self.object_kind) or self.object_kind not in (
            "",
            "mesh",
            "curve",
            "weights",
        ):
            raise ValueError(f"{self.name}: an object setting (and only one) needs object_kind mesh, curve or weights")
        if not self.label:
            object.__setattr__(self, "label", self.name.replace("_", " ").title())
        object.__setattr__(self, "default", self.check(self.default))

    @property
    def soft_bounds(self) -> tuple[float, float] | None:
        """The UI range: ``soft`` if declared, else ``hard``."""
        return self.soft or self.hard

    @property
    def choices(self) -> tuple[str, ...]:
        """Identifiers of an ``enum``'s items."""
        return tuple(item[0] for item in self.items)

    def check(self, value: object, where: str = "") -> Any:
        """``value`` validated and in its canonical type (``int``, ``float``, ``bool``, ``str``, ``tuple``).

        Raises
        ------
        TypeError, ValueError
            Naming ``where + name`` and the valid range or choices.
        """
        name = where + self.name
        if self.kind == "bool":
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{name} must be true or false, got {value!r:.40}")
            return bool(value)
        if self.kind == "int":
            return _check_int(value, name, self.hard)
        if self.kind == "float":
            assert self.hard is not None
            return check_number(value, name, low=self.hard[0], high=self.hard[1])
        if self.kind == "enum":
            if not isinstance(value, str) or value not in self.choices:
                raise ValueError(f"{name} must be one of {', '.join(self.choices)}, got {value!r:.40}")
            return value
        if self.kind in TEXT_KINDS:
            if not isinstance(value, str):
                raise TypeError(f"{name} must be text, got {type(value).__name__}")
            if len(value) > 4096:
                raise ValueError(f"{name} must be at most 4096 characters, got {len(value)}")
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as err:  # a lone surrogate: no file or Blender string can hold it
                raise ValueError(
                    f"{name} must be valid Unicode text (character {err.start} is a lone surrogate)"
                ) from None
            if "\x00" in value:
                raise ValueError(f"{name} must not contain a NUL character")
            return value
        if self.kind == "range":
            low, high = _check_tuple(value, name, 2, self.hard)
            if low > high:
                raise ValueError(f"{name} must be (low, high) with low <= high, got ({low:g}, {high:g})")
            return (low, high)
        return _check_tuple(value, name, 3, (0.0, 1.0))  # color

    def to_plain(self, value: Any) -> Any:
        """``value`` as JSON data (tuples become lists)."""
        return list(value) if isinstance(value, tuple) else value


def _check_int(value: object, name: str, hard: tuple[float, float] | None) -> int:
    assert hard is not None
    low, high = int(hard[0]), int(hard[1])
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, numbers.Real)):
        raise TypeError(f"{name} must be an integer in [{low}, {high}], got {value!r:.40}")
    if isinstance(value, numbers.Integral):
        v = int(value)
    elif math.isfinite(float(value)) and float(value).is_integer():
        v = int(float(value))  # 300.0 from JSON or a float slider
    else:
        raise TypeError(f"{name} must be an integer in [{low}, {high}], got {value!r:.40}")
    if not low <= v <= high:
        shown = str(v) if len(str(v)) <= 24 else f"an integer of {len(str(abs(v)))} digits"
        raise ValueError(f"{name} must be in [{low}, {high}], got {shown}")
    return v


def _check_tuple(value: object, name: str, size: int, hard: tuple[float, float] | None) -> tuple[float, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != size:
        raise TypeError(f"{name} must be {size} numbers, got {value!r:.60}")
    low, high = hard if hard is not None else (None, None)
    return tuple(check_number(v, f"{name}[{i}]", low=low, high=high) for i, v in enumerate(value))


def check_values(
    params: Sequence[Param],
    values: object,
    where: str,
    *,
    ordered: Sequence[tuple[str, str]] = (),
    partial: bool = False,
) -> dict[str, Any]:
    """Validate a mapping of parameter values against ``params``; missing ones take their defaults.

    Parameters
    ----------
    params : sequence of Param
        The declarations.
    values : mapping of str to object
        The values, by name.
    where : str
        Prefix for messages (``"hills."``).
    ordered : sequence of (str, str)
        Pairs of names whose values must satisfy ``first <= second``.
    partial : bool
        Return only the names given (no defaults filled in).

    Raises
    ------
    TypeError, ValueError
        For a non-mapping, unknown names (listed, at most a dozen), or a bad value.
    """
    if not isinstance(values, Mapping):
        raise TypeError(
            f"{where.rstrip('.') or 'parameters'} must be a mapping of names to values, got {type(values).__name__}"
        )
    by_name = {p.name: p for p in params}
    unknown = [k for k in values if k not in by_name]
    if unknown:
        raise ValueError(
            f"{where.rstrip('.') or 'parameters'}: unknown parameters {short_list(unknown)}; "
            f"valid: {short_list(list(by_name)) or 'none'}"
        )
    out = {name: p.check(values[name], where) for name, p in by_name.items() if name in values}
    full = {**{p.name: p.default for p in params}, **out}
    for low, high in ordered:
        if full[low] > full[high]:
            raise ValueError(f"{where}{low} ({full[low]:g}) must not exceed {where}{high} ({full[high]:g})")
    return out if partial else full


@dataclass(frozen=True)
class Part:
    """What generators and filters share: a key, a label and description, the function and its declared
    parameters; ``ordered`` pairs of them must satisfy ``first <= second``; ``source`` names the paper or
    tutorial."""

    key: str
    label: str
    description: str
    function: Callable[..., Any]
    params: tuple[Param, ...]
    source: str = ""
    ordered: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        check_conditions(self.params, f"{self.key}.")

    def check(self, values: object, partial: bool = False) -> dict[str, Any]:
        """Validated parameter values (see :func:`check_values`)."""
        return check_values(self.params, values, f"{self.key}.", ordered=self.ordered, partial=partial)


@dataclass(frozen=True)
class Generator(Part):
    """A 2-D generator: ``function(world_shape, seed, window=..., **params)`` -> raw float heights.

    ``params`` are the function's keyword parameters. With ``uses_cell_size``
    the function also takes ``cell_size`` (metres per cell). With ``metres`` it also takes ``height`` (the
    terrain's Height in metres) and returns heights in metres (a source: a file, a mesh), which the recipe
    divides by ``height`` (:func:`core.io.formats.units_of_metres`, so the mesh's Z is them bit for bit) instead
    of normalising them by their range.
    """

    uses_cell_size: bool = False
    metres: bool = False


@dataclass(frozen=True)
class Filter(Part):
    """A filter of the stack: ``function(heightmap, **params)`` -> heightmap in ``[0, 1]``.

    ``margin(params)`` is how many cells around a window it reads (for exact
    tiles; a global filter reads the whole world); ``passes(params)`` how many
    grid passes it costs (the stack's work estimate counts them). With
    ``uses_scale`` the function also takes ``cell_size`` and ``height`` (metres
    per cell and metres per unit of the normalised heightmap): physically
    based filters work in metres. With ``makes_maps`` it also takes ``maps``
    (a dict it adds its maps to, see :data:`core.recipe.MAP_NAMES`, or None)
    and ``callback`` (``callback(step, steps)`` after each step; returning
    ``False`` stops the filter, which then raises :class:`core.recipe.Cancelled`).
    ``memory(params)`` is the bytes per cell it holds at its peak beyond the
    heightmap (what the memory guard adds, see :meth:`core.recipe.Recipe.peak_bytes`;
    0 for the filters that hold a few arrays of the heightmap's size).
    With ``uses_window`` it also takes ``window`` (the :class:`core.window.Window`
    of world cells its heightmap covers) and ``world_shape``: a filter that places
    cells in the world (the carve filter's curve, :func:`core.inputs.grid_xy`).
    ``fit(scale)`` gives the values that fit a terrain's scale when the filter is *added* to a stack
    (:func:`fitted_defaults`; ``scale`` holds ``width``, ``height`` and ``cell_size`` in metres): a subset of
    its parameters, checked against their declarations. The declared defaults stay what a spec without the
    key takes, so existing specs keep their heightmaps. With ``changes_scale`` the filter's purpose is to
    change the relief, and the stack does not warn (:class:`core.recipe.ScaleChangeWarning`) when it does.
    """

    margin: Callable[[Mapping[str, Any]], int] = field(default=lambda _p: 0)
    passes: Callable[[Mapping[str, Any]], int] = field(default=lambda _p: 1)
    uses_scale: bool = False
    makes_maps: bool = False
    uses_window: bool = False
    memory: Callable[[Mapping[str, Any]], int] = field(default=lambda _p: 0)
    param_maps: tuple[Any, ...] = ()
    fit: Callable[[Mapping[str, float]], Mapping[str, Any]] | None = None
    changes_scale: bool = False


def fitted_defaults(key: str, *, width: float, height: float, cell_size: float) -> dict[str, Any]:
    """The parameters of filter ``key`` that fit a terrain's scale, for a filter being added to a stack.

    Every parameter of the filter: its declared default, except those its :attr:`Filter.fit` rule sets from
    the terrain's scale (the stream-power uplift so that uplift x duration stays within ``height``, a blur's
    radius in cells, ...). Declared defaults are what a spec *without* a key takes; these are what adding a
    filter fills in (the add-on's Add Filter, :meth:`core.spec.TerrainSpec.with_filter`).

    Parameters
    ----------
    key : str
        A key of :data:`FILTERS`.
    width, height, cell_size : float
        The terrain's width, Height and cell size in metres (``> 0``; ``height >= 0``).

    Returns
    -------
    dict of str to object
        Every parameter of the filter, checked against its declaration.

    Raises
    ------
    ValueError
        For an unknown ``key`` or a non-positive ``width`` or ``cell_size``.
    """
    if key not in FILTERS:
        raise ValueError(f"filter type must be one of {short_list(list(FILTERS))}, got {key!r:.40}")
    w = check_number(width, "width", low=0.0, low_open=True)
    h = check_number(height, "height", low=0.0)
    c = check_number(cell_size, "cell_size", low=0.0, low_open=True)
    f = FILTERS[key]
    fitted = dict(f.fit({"width": w, "height": h, "cell_size": c})) if f.fit is not None else {}
    return f.check(fitted)


#: Generators by key, in registration order (the order menus show them).
GENERATORS: dict[str, Generator] = {}
#: Filters by key, in registration order.
FILTERS: dict[str, Filter] = {}

#: Names a generator or filter key may not take: they are other parts of a spec.
RESERVED = frozenset(
    {
        "version",
        "size",
        "size_y",
        "seed",
        "width",
        "height",
        "fit_height",
        "generator",
        "filters",
        "lighting",
        "material",
        "layers",
        "sources",
        "type",
        "enabled",
        "mask",
    }
)


def _register(registry: dict[str, Any], item: Part, what: str) -> None:
    if not item.key.isidentifier() or not item.key.islower() or item.key in RESERVED:
        raise ValueError(
            f"a {what} key must be a lower-case identifier other than {sorted(RESERVED)}, got {item.key!r}"
        )
    if item.key in GENERATORS or item.key in FILTERS:
        raise ValueError(f"{item.key!r} is already registered")
    names = [p.name for p in item.params]
    if len(set(names)) != len(names) or {"type", "enabled", "mask"} & set(names):
        raise ValueError(f"{item.key}: parameter names must be unique and not 'type', 'enabled' or 'mask'")
    registry[item.key] = item


def register_generator(generator: Generator) -> Generator:
    """Add ``generator`` to :data:`GENERATORS` (``ValueError`` if its key is taken); returns it."""
    _register(GENERATORS, generator, "generator")
    return generator


def register_filter(filter_: Filter) -> Filter:
    """Add ``filter_`` to :data:`FILTERS` (``ValueError`` if its key is taken); returns it."""
    _register(FILTERS, filter_, "filter")
    return filter_


def unregister(key: str) -> None:
    """Remove a generator or filter by key (for tests and add-ons that declared one)."""
    GENERATORS.pop(key, None)
    FILTERS.pop(key, None)
