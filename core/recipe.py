"""Recipes: a terrain as a generator plus an ordered stack of filters, with a seed.

A :class:`Recipe` is plain data, serialisable to and from JSON; the add-on,
presets, saved objects and headless scripts all describe terrains with it.
Evaluating a recipe runs:

1. the generator on the world (or a window of it, widened by the margin the
   filters read), giving raw heights;
2. normalisation to ``[0, 1]`` by the world's raw range;
3. the filters, in order (each maps ``[0, 1]`` heights to ``[0, 1]``);
4. a final normalisation by the world's range after the filters, so every
   terrain spans exactly ``[0, 1]``.

For the whole world both ranges are the map's own. A window needs them from
the world (:meth:`Recipe.world_ranges`), and then equals the same cells of the
whole bit for bit (within ``filters.WINDOW_TOLERANCE`` of the range when the
erosion filter is in the stack).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from . import filters
from .faults import fault_formation
from .heightmap import check_count, check_number, check_shape, flatten, normalize
from .hills import hills_raw
from .jsonio import load_json
from .midpoint import diamond_square
from .noise import noise_hills_pits
from .rng import check_seed
from .window import Window, check_window, crop, expand

__all__ = ["GENERATORS", "FILTERS", "MAX_FILTERS", "MAX_JSON_BYTES", "MAX_PARAMS", "Recipe", "Ranges"]

Ranges = tuple[tuple[float, float], tuple[float, float]]

#: Bounds checked before anything else is validated, so a huge recipe is refused at once with a short message.
MAX_FILTERS = 64
#: Most parameters a generator or filter entry may name (every function has fewer than 16).
MAX_PARAMS = 64
#: Largest recipe JSON read, in bytes (a recipe is about 1 kB).
MAX_JSON_BYTES = 1 << 20


def _names(names: Iterable[object], limit: int = 8) -> str:
    """A sorted list of names for a message, cut after ``limit`` with the count."""
    shown = sorted(repr(n)[:40] for n in names)
    if len(shown) <= limit:
        return "[" + ", ".join(shown) + "]"
    return "[" + ", ".join(shown[:limit]) + f", … ({len(shown)} in all)]"


def _check_count_of(items: object, what: str, limit: int) -> None:
    """Refuse more than ``limit`` entries before looking at any of them (``ValueError``)."""
    if isinstance(items, (Mapping, list, tuple)) and len(items) > limit:
        raise ValueError(f"{what} has {len(items)} entries; at most {limit} are allowed")


@dataclass(frozen=True)
class _Generator:
    label: str
    function: Callable[..., npt.NDArray[np.float64]]
    description: str


@dataclass(frozen=True)
class _Filter:
    label: str
    function: Callable[..., npt.NDArray[np.float32]]
    margin: Callable[..., int]
    description: str


#: The 2-D generators a recipe can name, by key. Each takes ``(world_shape, seed, window=..., **params)``.
GENERATORS: dict[str, _Generator] = {
    "hills": _Generator("Hills", hills_raw, "Circle-based hills, optionally clustered into an island"),
    "faults": _Generator("Fault Formation", fault_formation, "Random faults, each raising one side of a line"),
    "diamond_square": _Generator("Diamond-Square", diamond_square, "Midpoint displacement with roughness"),
    "noise": _Generator("Noise, Hills and Pits", noise_hills_pits, "White noise with hills and pits"),
}

#: The filters a recipe's stack can hold, by key. Each takes ``(heightmap, **params)``.
FILTERS: dict[str, _Filter] = {
    "flatten": _Filter("Flatten", flatten, lambda **p: 0, "Raise heights to an exponent"),
    "box_blur": _Filter(
        "Box Blur", filters.box_blur,
        lambda passes=1, **p: check_count(passes, "passes", 0, filters.MAX_PASSES), "3 x 3 mean, N passes",
    ),
    "erosion": _Filter(
        "Erosion Filter", filters.erosion_filter,
        lambda k=0.5, passes=1, **p: filters.erosion_margin(
            check_number(k, "k", 0.0, 1.0, high_open=True), check_count(passes, "passes", 0, filters.MAX_PASSES)),
        "One-pole low-pass filter in four directions",
    ),
    "terrace": _Filter("Terrace", filters.terrace, lambda **p: 0, "Quantise into smooth steps"),
    "sea_level": _Filter("Sea Level", filters.sea_level, lambda **p: 0, "Clamp heights below a level"),
}


def _check_ranges(ranges: object) -> Ranges:
    """Validate ``((raw_low, raw_high), (low, high))`` as returned by :meth:`Recipe.world_ranges`."""
    ok = (isinstance(ranges, (tuple, list)) and len(ranges) == 2
          and all(isinstance(r, (tuple, list)) and len(r) == 2 for r in ranges))
    if not ok:
        raise TypeError(f"ranges must be ((raw_low, raw_high), (low, high)) from world_ranges(), got {ranges!r}")
    pairs: list[tuple[float, float]] = []
    for i, pair in enumerate(cast("Sequence[Sequence[object]]", ranges)):
        pairs.append((check_number(pair[0], f"ranges[{i}][0]"), check_number(pair[1], f"ranges[{i}][1]")))
    return pairs[0], pairs[1]


def _check_params(params: object, what: str, function: Callable[..., Any], fixed: set[str]) -> dict[str, Any]:
    """Validate parameter names against ``function``'s keywords (values are checked when it runs)."""
    if not isinstance(params, Mapping):
        raise TypeError(f"{what} must be a mapping of parameter names to values")
    _check_count_of(params, what, MAX_PARAMS)
    if not all(isinstance(k, str) for k in params):
        raise TypeError(f"{what} must be a mapping of parameter names to values")
    signature = inspect.signature(function).parameters
    allowed = set(signature) - fixed
    unknown = set(params) - allowed
    if unknown:
        raise ValueError(f"{what}: unknown parameters {_names(unknown)}; valid: {sorted(allowed)}")
    missing = [name for name in allowed if signature[name].default is inspect.Parameter.empty and name not in params]
    if missing:
        raise ValueError(f"{what}: missing parameters {sorted(missing)}")
    return {k: (tuple(v) if isinstance(v, list) else v) for k, v in params.items()}


@dataclass(frozen=True)
class Recipe:
    """A terrain: ``generator`` with ``params``, ``seed``, world ``shape`` and a filter stack.

    ``filters`` is a tuple of ``(key, params)`` pairs applied in order, keys
    from :data:`FILTERS`. Parameters are the keyword arguments of the
    generator and filter functions (see their docstrings for units and
    ranges); missing ones take the functions' defaults.
    """

    generator: str = "hills"
    seed: int = 0
    shape: tuple[int, int] = (129, 129)
    params: Mapping[str, Any] = field(default_factory=dict)
    filters: tuple[tuple[str, Mapping[str, Any]], ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.generator, str) or self.generator not in GENERATORS:
            raise ValueError(f"generator must be one of {sorted(GENERATORS)}, got {self.generator!r}")
        object.__setattr__(self, "seed", check_seed(self.seed))
        object.__setattr__(self, "shape", check_shape(tuple(self.shape) if isinstance(self.shape, list)
                                                      else self.shape))
        object.__setattr__(self, "params", _check_params(
            self.params, f"params of {self.generator!r}", GENERATORS[self.generator].function,
            {"world_shape", "seed", "window"}))
        if not isinstance(self.filters, (tuple, list)):
            raise TypeError(f"filters must be a sequence of (key, params) pairs, got {type(self.filters).__name__}")
        _check_count_of(self.filters, "filters", MAX_FILTERS)
        stack = []
        for i, entry in enumerate(self.filters):
            if not isinstance(entry, (tuple, list)) or len(entry) != 2:
                raise TypeError(f"filters[{i}] must be a (key, params) pair, got {repr(entry)[:80]}")
            key, params = entry
            if not isinstance(key, str) or key not in FILTERS:
                raise ValueError(f"filters[{i}] must be one of {sorted(FILTERS)}, got {repr(key)[:40]}")
            stack.append((key, _check_params(params, f"filters[{i}] ({key!r})", FILTERS[key].function,
                                             {"heightmap"})))
        # The stack's whole work, before any of it runs (each filter alone is bounded by its function).
        passes = [check_count(p.get("passes", 1), f"filters[{i}] ({key!r}) passes", 0, filters.MAX_PASSES)
                  if "passes" in inspect.signature(FILTERS[key].function).parameters else 1
                  for i, (key, p) in enumerate(stack)]
        filters.check_filter_work(self.shape, sum(passes), "filters")
        object.__setattr__(self, "filters", tuple(stack))

    # --- JSON -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Plain data (lists for tuples), the JSON form."""
        def plain(v: Any) -> Any:
            return list(v) if isinstance(v, tuple) else v

        return {
            "generator": self.generator,
            "seed": self.seed,
            "shape": list(self.shape),
            "params": {k: plain(v) for k, v in self.params.items()},
            "filters": [{"type": key, **{k: plain(v) for k, v in p.items()}} for key, p in self.filters],
        }

    def to_json(self) -> str:
        """JSON text of the recipe (keys sorted, so equal recipes give equal text)."""
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Recipe:
        """Recipe from :meth:`to_dict` data; raises ``ValueError``/``TypeError`` naming what is wrong."""
        if not isinstance(data, Mapping):
            raise TypeError(f"a recipe must be a JSON object, got {type(data).__name__}")
        keys = {"generator", "seed", "shape", "params", "filters"}
        unknown = set(data) - keys
        if unknown:
            raise ValueError(f"unknown recipe keys: {_names(unknown)}; valid: {sorted(keys)}")
        filters_data = data.get("filters", [])
        if not isinstance(filters_data, list):
            raise TypeError(f"filters must be a JSON list, got {type(filters_data).__name__}")
        _check_count_of(filters_data, "filters", MAX_FILTERS)
        _check_count_of(data.get("params", {}), "params", MAX_PARAMS)
        stack = []
        for i, f in enumerate(filters_data):
            if not isinstance(f, Mapping) or "type" not in f:
                raise ValueError(f"filters[{i}] must be an object with a 'type', got {repr(f)[:80]}")
            stack.append((f["type"], {k: v for k, v in f.items() if k != "type"}))
        return cls(
            generator=data.get("generator", "hills"),
            seed=data.get("seed", 0),
            shape=data.get("shape", (129, 129)),
            params=data.get("params", {}),
            filters=tuple(stack),
        )

    @classmethod
    def from_json(cls, text: str) -> Recipe:
        """Recipe from JSON text (see :meth:`from_dict`).

        The text is read with :func:`core.jsonio.load_json`: at most
        :data:`MAX_JSON_BYTES` bytes and 32 levels of nesting. Invalid or
        oversized JSON raises a :class:`core.jsonio.JSONError` (a ``ValueError``).
        """
        if not isinstance(text, (str, bytes, bytearray)):
            raise TypeError(f"a recipe's JSON must be text, got {type(text).__name__}")
        return cls.from_dict(load_json(text, "the recipe", max_bytes=MAX_JSON_BYTES))

    # --- evaluation ------------------------------------------------------------------------
    def margin(self) -> int:
        """Cells the filter stack reads around a window."""
        return sum(FILTERS[key].margin(**params) for key, params in self.filters)

    def _run(self, window: Window, raw_range: tuple[float, float] | None) -> tuple[
            npt.NDArray[np.float32], tuple[float, float]]:
        outer = expand(self.shape, window, self.margin())
        raw = GENERATORS[self.generator].function(self.shape, self.seed, window=outer, **self.params)
        if raw_range is None:
            raw_range = (float(raw.min()), float(raw.max()))
        h = normalize(raw, raw_range)
        for key, params in self.filters:
            h = FILTERS[key].function(h, **params)
        return np.ascontiguousarray(crop(h, outer, window)), raw_range

    def world_ranges(self) -> Ranges:
        """The world's raw range and its range after the filters (what windows normalise by)."""
        h, raw_range = self._run(check_window(self.shape, None), None)
        return raw_range, (float(h.min()), float(h.max()))

    def evaluate(self, window: Window | None = None, ranges: Ranges | None = None) -> npt.NDArray[np.float32]:
        """The heightmap: ``float32`` of ``window.shape`` (default the whole world), in ``[0, 1]``.

        Parameters
        ----------
        window : Window, optional
            Cells of the world to compute.
        ranges : ((float, float), (float, float)), optional
            The world's ranges from :meth:`world_ranges`; required with a
            window smaller than the world, so that tiles share one scale.

        Raises
        ------
        TypeError, ValueError
            For bad parameters of the generator or a filter (naming it), or a
            window without ranges.
        """
        win = check_window(self.shape, window)
        if ranges is not None:
            ranges = _check_ranges(ranges)
        if ranges is None:
            if win.shape != self.shape:
                raise ValueError("ranges are required to evaluate a window: use Recipe.world_ranges()")
            h, _ = self._run(win, None)
            return normalize(h)
        h, _ = self._run(win, ranges[0])
        return normalize(h, ranges[1])
