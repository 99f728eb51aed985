"""Recipes: a terrain as a generator plus an ordered stack of filters, with a seed.

A :class:`Recipe` is plain data, serialisable to and from JSON; the add-on,
presets, saved objects and headless scripts all describe terrains with it.
Evaluating a recipe runs:

1. the generator on the world (or a window of it, widened by the margin the
   filters read), giving raw heights;
2. normalisation to ``[0, 1]`` by the world's raw range;
3. the ``sources`` stack, if any (:mod:`core.sources`): generators and stamps
   blended on in metres, each placed and with its own seed, each optionally
   masked (a recipe without sources skips this step and gives exactly what
   it gave; with masked sources, steps 1 to 3 run over the window grown by
   the masks' reach, :meth:`Recipe.sources_margin`, cropped before step 4);
4. the filters, in order, on heights in units of ``height`` metres (filters
   that work in metres multiply by it);
5. with ``fit_height`` (always in versions 1 and 2), a final normalisation by
   the world's range after the filters, so every terrain spans exactly
   ``[0, 1]``. Without it (version 3's default) the filtered heights are the
   result: relief a filter lowered in metres stays lowered.

**Versions.** A version-3 recipe (what a :class:`core.spec.TerrainSpec`
makes) takes the declarations of :data:`core.params.GENERATORS` and
:data:`core.params.FILTERS`, lengths in metres. Versions 1 and 2 (Orogen 0.1
and 0.2) take the version-2 declarations (:data:`core.versions.V2_PARTS`:
lengths in cells) and give exactly the heightmaps they gave. A ``Recipe``
made without a version is of the current version (:data:`RECIPE_VERSION`).

For the whole world both ranges are the map's own. A window needs them from
the world (:meth:`Recipe.world_ranges`), and then equals the same cells of the
whole bit for bit (within ``filters.WINDOW_TOLERANCE`` of the range when the
erosion filter is in the stack). A generator source is normalised by the raw
range of its own whole grid: ``world_ranges`` then returns it as a third
element (:data:`Ranges`); given the two-element form (as :mod:`core.world`'s
tile passes make it), an evaluation computes those ranges itself, in bands,
and caches them (:func:`core.sources.source_range`).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from . import catalog, filters, work  # noqa: F401  (catalog registers the built-in generators and filters)
from .catalog import MAP_NAMES
from .heightmap import MAX_CELLS, check_number, check_world_shape, normalize
from .io.formats import units_of_metres
from .io.jsonio import load_json
from .masks import blend_masked, check_mask, is_masked, mask_margin, mask_weights
from .params import FILTERS, GENERATORS, MAX_FILTERS, Filter, Generator, short_list
from .progress import Cancelled, Progress, check_progress
from .rng import check_seed, sub_seed
from .scale import check_scale_change, relief
from .sources import STAMPS, apply_sources, check_sources, source_range, source_seed, sources_margin
from .versions import SPEC_VERSION, part, upgrade_recipe
from .window import Window, check_window, crop, expand

#: Bytes per cell an evaluation holds while a filter runs, beside the filter's own: the normalised heightmap
#: (float32) and its metres (float64) in the filter's wrapper.
HELD_BYTES = 16

__all__ = [
    "MAP_NAMES",
    "GENERATORS",
    "FILTERS",
    "MAX_FILTERS",
    "MAX_JSON_BYTES",
    "MAX_PARAMS",
    "RECIPE_VERSION",
    "Recipe",
    "Ranges",
    "SourceRanges",
]

#: ``((raw_low, raw_high), (low, high))``, or with generator sources a third element: each source's whole-grid
#: raw range (``None`` for a stamp), see :meth:`Recipe.world_ranges`.
Ranges = (
    tuple[tuple[float, float], tuple[float, float]]
    | tuple[tuple[float, float], tuple[float, float], tuple[tuple[float, float] | None, ...]]
)
SourceRanges = tuple[tuple[float, float] | None, ...]

#: Bounds checked before anything else is validated, so a huge recipe is refused at once with a short message
#: (and :data:`core.params.MAX_FILTERS`, the longest filter stack).
#: Most parameters a generator or filter entry may name (every function has fewer than 16).
MAX_PARAMS = 64
#: Largest recipe JSON read, in bytes (a recipe is about 1 kB).
MAX_JSON_BYTES = 1 << 20


def _check_count_of(items: object, what: str, limit: int) -> None:
    """Refuse more than ``limit`` entries before looking at any of them (``ValueError``)."""
    if isinstance(items, (Mapping, list, tuple)) and len(items) > limit:
        raise ValueError(f"{what} has {len(items)} entries; at most {limit} are allowed")


#: Recipe JSON version of today's recipes (lengths in metres), the spec's; 2 is Orogen 0.2's, recipes without a
#: version 0.1's (see :mod:`core.versions`).
RECIPE_VERSION = SPEC_VERSION


def _check_required(function: Callable[..., Any], params: Mapping[str, Any], what: str) -> None:
    """Refuse ``params`` that leave out a parameter ``function`` has no default for."""
    signature = inspect.signature(function).parameters
    missing = [
        name
        for name, p in signature.items()
        if p.default is inspect.Parameter.empty
        and name not in ("heightmap", "world_shape", "seed")
        and name not in params
    ]
    if missing:
        raise ValueError(f"{what}: missing parameters {sorted(missing)}")


def _declared_maps(key: str, version: int) -> set[str]:
    """The JSON keys of the parameter maps filter ``key`` declares at ``version`` (none for an unknown key)."""
    try:
        return {pm.key for pm in cast(Filter, part(key, version)).param_maps}
    except (KeyError, ValueError, TypeError):
        return set()


def _check_ranges(ranges: object) -> Ranges:
    """Validate ``((raw_low, raw_high), (low, high))`` as returned by :meth:`Recipe.world_ranges`, with or without
    its third element (the sources' ranges, :func:`_check_source_ranges`)."""
    ok = (
        isinstance(ranges, (tuple, list))
        and len(ranges) in (2, 3)
        and all(isinstance(r, (tuple, list)) and len(r) == 2 for r in ranges[:2])
    )
    if not ok:
        raise TypeError(f"ranges must be ((raw_low, raw_high), (low, high)) from world_ranges(), got {ranges!r:.200}")
    seq = cast("Sequence[Sequence[object]]", ranges)
    pairs: list[tuple[float, float]] = []
    for i, pair in enumerate(seq[:2]):
        pairs.append((check_number(pair[0], f"ranges[{i}][0]"), check_number(pair[1], f"ranges[{i}][1]")))
    if len(seq) == 3:
        return pairs[0], pairs[1], _check_source_ranges(seq[2])
    return pairs[0], pairs[1]


def _check_source_ranges(ranges: object) -> SourceRanges:
    """Validate the sources' ranges (the third element of :data:`Ranges`): ``None`` or ``(low, high)`` each."""
    if not isinstance(ranges, (tuple, list)):
        raise TypeError(f"ranges[2] must be a list of the sources' (low, high) or null, got {ranges!r:.80}")
    out: list[tuple[float, float] | None] = []
    for i, pair in enumerate(ranges):
        if pair is None:
            out.append(None)
            continue
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"ranges[2][{i}] must be (low, high) or null, got {pair!r:.80}")
        out.append((check_number(pair[0], f"ranges[2][{i}][0]"), check_number(pair[1], f"ranges[2][{i}][1]")))
    return tuple(out)


def _sources_of(data: object) -> tuple[tuple[str, Mapping[str, Any]], ...]:
    """A recipe's ``sources`` from JSON: a list of objects with a ``type``."""
    if not isinstance(data, list):
        raise TypeError(f"sources must be a JSON list, got {type(data).__name__}")
    out = []
    for i, f in enumerate(data):
        if not isinstance(f, Mapping) or "type" not in f:
            raise ValueError(f"sources[{i}] must be an object with a 'type', got {f!r:.60}")
        out.append((str(f["type"]), {k: v for k, v in f.items() if k != "type"}))
    return tuple(out)


@dataclass(frozen=True)
class Recipe:
    """A heightmap: ``generator`` with ``params``, ``seed``, world ``shape`` and a filter stack.

    ``filters`` is a tuple of ``(key, params)`` pairs applied in order, keys
    from :data:`core.params.FILTERS`. Parameters are checked against their
    declarations (see :mod:`core.catalog`); missing ones take the functions'
    defaults. ``cell_size`` (metres per cell) reaches generators that work in
    metres; ``cell_size`` and ``height`` (metres of the normalised range) reach filters
    that work in metres. ``sources`` are ``(type, settings)`` pairs of :mod:`core.sources` (a generator or stamp
    key; the entry's :data:`core.sources.SOURCE_PARAMS` and the part's parameters, flat), blended on after the
    normalisation and before the filters; disabled entries are kept (each source's seed is its index's). A
    :class:`core.spec.TerrainSpec` is the whole terrain (scale, lighting, colours); its heightmap part is a recipe.
    """

    generator: str = "hills"
    seed: int = 0
    shape: tuple[int, int] = (129, 129)
    params: Mapping[str, Any] = field(default_factory=dict)
    filters: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    cell_size: float = 1.0
    height: float = 1.0
    version: int = RECIPE_VERSION
    fit_height: bool = True
    sources: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    masks: tuple[Mapping[str, Any] | None, ...] = ()
    param_maps: tuple[Mapping[str, Mapping[str, Any]] | None, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.version, bool) or self.version not in (2, 3, RECIPE_VERSION):
            raise ValueError(f"version must be 2, 3 or {RECIPE_VERSION}, got {self.version!r:.20}")
        if self.version == 3 and isinstance(self.filters, (tuple, list)):  # version 3's algorithms named
            pairs = [e for e in self.filters if isinstance(e, (tuple, list)) and len(e) == 2]
            if len(pairs) == len(self.filters) and all(isinstance(p, Mapping) for _, p in pairs):
                data = upgrade_recipe({"version": 3, "filters": [{**p, "type": k} for k, p in pairs]})
                named = tuple((f["type"], {k: v for k, v in f.items() if k != "type"}) for f in data["filters"])
                object.__setattr__(self, "filters", named)
        if self.version == 3:
            object.__setattr__(self, "version", RECIPE_VERSION)
        if not isinstance(self.fit_height, (bool, np.bool_)):
            raise TypeError(f"fit_height must be true or false, got {self.fit_height!r:.40}")
        if self.version == 2 and not self.fit_height:
            raise ValueError("a version-2 recipe always fits its heights to [0, 1] (fit_height)")
        object.__setattr__(self, "fit_height", bool(self.fit_height))
        if not isinstance(self.generator, str) or self.generator not in GENERATORS:
            raise ValueError(f"generator must be one of {short_list(list(GENERATORS))}, got {self.generator!r:.40}")
        object.__setattr__(self, "seed", check_seed(self.seed))
        object.__setattr__(
            self, "shape", check_world_shape(tuple(self.shape) if isinstance(self.shape, list) else self.shape, "shape")
        )
        object.__setattr__(self, "cell_size", check_number(self.cell_size, "cell_size", low=1e-9, high=1e9))
        object.__setattr__(self, "height", check_number(self.height, "height", low=0.0, high=1e9))
        # Version 3 fills in every declared default (a hand-made recipe gets what a spec gets, e.g. the diamond-square
        # world lattice); version 2 keeps what it was given, its functions' defaults being version 2's.
        object.__setattr__(
            self, "params", part(self.generator, self.version).check(self.params, partial=self.version == 2)
        )
        if not isinstance(self.filters, (tuple, list)):
            raise TypeError(f"filters must be a sequence of (key, params) pairs, got {type(self.filters).__name__}")
        _check_count_of(self.filters, "filters", MAX_FILTERS)
        stack = []
        for i, entry in enumerate(self.filters):
            if not isinstance(entry, (tuple, list)) or len(entry) != 2:
                raise TypeError(f"filters[{i}] must be a (key, params) pair, got {entry!r:.60}")
            key, params = entry
            if not isinstance(key, str) or key not in FILTERS:
                raise ValueError(f"filters[{i}] must be one of {short_list(list(FILTERS))}, got {key!r:.40}")
            f = self._filter(key)
            try:  # filters that work in metres are new: their declarations give every default
                stack.append((key, f.check(params, partial=self.version == 2 and not f.uses_scale)))
            except (TypeError, ValueError) as err:
                raise type(err)(f"filters[{i}]: {err}") from None
            if not f.uses_scale:
                _check_required(f.function, stack[-1][1], f"filters[{i}] ({key!r})")
        # The stack's work is checked against the user's limit when a job starts (check_work, _run), not here:
        # a spec over the limit can still be read, shown and changed.
        object.__setattr__(self, "filters", tuple(stack))
        self._check_sources()
        object.__setattr__(self, "masks", self._check_masks(self.masks))
        object.__setattr__(self, "param_maps", self._check_param_maps(self.param_maps))

    def _check_param_maps(self, maps: object) -> tuple[Mapping[str, Mapping[str, Any]] | None, ...]:
        """``param_maps`` checked: per filter ``None`` or ``{"erodibility_map": values, ...}`` of the maps it
        declares (:attr:`core.params.Filter.param_maps`); maps of source ``"none"`` are dropped, and a stack
        without any map is ``()`` (the recipe without maps, bit for bit)."""
        if not isinstance(maps, (tuple, list)):
            raise TypeError(f"param_maps must be a sequence, one per filter, got {type(maps).__name__}")
        if not maps:
            return ()
        if len(maps) != len(self.filters):
            raise ValueError(
                f"param_maps must give one entry (or None) per filter ({len(self.filters)}), got {len(maps)}"
            )
        out: list[Mapping[str, Mapping[str, Any]] | None] = []
        for i, ((key, _), entry) in enumerate(zip(self.filters, maps, strict=True)):
            if entry is None:
                out.append(None)
                continue
            if not isinstance(entry, Mapping):
                raise TypeError(f"filters[{i}]: param_maps must be a mapping of map keys to maps")
            declared = {pm.key: pm for pm in self._filter(key).param_maps}
            unknown = [k for k in entry if k not in declared]
            if unknown:
                raise ValueError(
                    f"filters[{i}] ({key!r}) has no maps {short_list(unknown)}; "
                    f"it has {short_list(list(declared)) or 'none'}"
                )
            checked = {k: declared[k].check(v, f"filters[{i}].{k}.") for k, v in entry.items()}
            kept = {k: v for k, v in checked.items() if is_masked(v)}
            out.append(kept or None)
        return tuple(out) if any(e is not None for e in out) else ()

    def maps_of(self, i: int) -> Mapping[str, Mapping[str, Any]]:
        """The parameter maps of filter ``i`` of the stack that act (``{}``: none)."""
        entry = self.param_maps[i] if self.param_maps else None
        return entry or {}

    def _check_masks(self, masks: object) -> tuple[Mapping[str, Any] | None, ...]:
        """``masks`` checked (:func:`core.masks.check_mask`): one per filter or none at all; a mask of source
        ``"none"`` becomes ``None``, and a stack without any mask ``()`` (the unmasked recipe, bit for bit)."""
        if not isinstance(masks, (tuple, list)):
            raise TypeError(f"masks must be a sequence of masks (or None), one per filter, got {type(masks).__name__}")
        if not masks:
            return ()
        if len(masks) != len(self.filters):
            raise ValueError(f"masks must give one mask (or None) per filter ({len(self.filters)}), got {len(masks)}")
        if self.version == 2 and any(is_masked(m) for m in masks if m is not None):
            raise ValueError("a version-2 recipe has no masks")
        out = [None if m is None else check_mask(m, f"filters[{i}].mask.") for i, m in enumerate(masks)]
        checked = tuple(m if is_masked(m) else None for m in out)
        return checked if any(m is not None for m in checked) else ()

    def mask_of(self, i: int) -> Mapping[str, Any] | None:
        """The mask of filter ``i`` of the stack (``None``: unmasked)."""
        return self.masks[i] if self.masks else None

    def check_work(self) -> float:
        """Refuse this recipe's filter stack if its estimated time is over the limit the user set
        (``OROGEN_WORK_LIMIT`` or the add-on's preference, :mod:`core.work`), before any work; return the estimate
        in seconds (:meth:`work_seconds`). With no limit set nothing is refused.

        Raises
        ------
        ValueError
            Naming the setting of the filter that costs most (``erosion.steps``), the most it may be at this size
            with the rest of the stack as it is, the limit and the setting that set it. A world too large to
            evaluate whole is checked per window instead, as it is evaluated.
        """
        if self.shape[0] * self.shape[1] <= MAX_CELLS:
            self._check_work(self.shape, self.filters)
        return self.work_seconds()

    def _check_work(self, shape: tuple[int, int], stack: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
        """Refuse a stack whose estimated time is over the limit the user set (``OROGEN_WORK_LIMIT`` or the add-on's
        preference, :mod:`core.work`), naming the setting of the filter that costs most (``erosion.steps``), the
        most it may be at this size with the rest of the stack as it is, and the limit. With no limit, nothing."""
        limit = work.limit_work(shape[0] * shape[1])
        total = self._passes(stack)
        if limit is None or filters.filter_work(shape, total) <= limit or not stack:
            return
        costs = [self._filter(key).passes(self._scaled(key, p)) for key, p in stack]
        i = max(range(len(stack)), key=costs.__getitem__)
        key, params = stack[i]
        f = self._filter(key)
        rest = total - costs[i]

        def fits(name: str, value: int) -> bool:
            return filters.filter_work(shape, rest + f.passes(self._scaled(key, {**params, name: value}))) <= limit

        advice = "use fewer or a smaller heightmap"
        for q in f.params:  # the count its work grows with (steps, passes)
            value = params.get(q.name)
            if q.kind != "int" or not isinstance(value, int) or value < 1 or fits(q.name, value):
                continue
            low, high = 0, value  # fits(low) unless the rest alone is too much
            if not fits(q.name, low):
                break
            while high - low > 1:
                mid = (low + high) // 2
                low, high = (mid, high) if fits(q.name, mid) else (low, mid)
            work.check_work_limit(
                filters.filter_work(shape, total),
                f"{key}.{q.name}: {value} over {shape[0]} x {shape[1]} cells (filters[{i}] {key!r})",
                f"at this size {key}.{q.name} must be at most {low} with the rest of the stack as it is: {advice}",
                cells=shape[0] * shape[1],
            )
        filters.check_filter_work(shape, total, "filters")

    def work(self) -> int:
        """The estimated work of this recipe's filter stack over its whole shape, in cell passes
        (:func:`core.filters.filter_work` of the filters' passes, the generator not counted)."""
        return filters.filter_work(self.shape, self._passes(self.filters))

    def work_seconds(self) -> float:
        """The estimated time of :meth:`work` on the reference machine, in seconds (:func:`core.work.work_seconds`)."""
        return work.work_seconds(self.work(), self.shape[0] * self.shape[1])

    def work_warning(self) -> str | None:
        """``"a 4097 x 4097 terrain's filters will take about 40 minutes (...)"`` when :meth:`work_seconds` is at
        least :data:`core.work.WARN_SECONDS`, else ``None``: what the add-on reports and the scripts print."""
        rows, cols = self.shape
        return work.work_warning(self.work(), f"a {rows} x {cols} terrain's filters", cells=rows * cols)

    def _filter(self, key: str) -> Filter:
        """The declaration of filter ``key`` in this recipe's version."""
        return cast(Filter, part(key, self.version))

    def _scaled(self, key: str, params: Mapping[str, Any]) -> Mapping[str, Any]:
        """``params`` with the recipe's ``cell_size`` and ``height`` for a filter that works in metres (what its
        ``margin`` and ``passes`` read)."""
        if self._filter(key).uses_scale:
            return {**params, "cell_size": self.cell_size, "height": self.height}
        return params

    def peak_bytes(self) -> int:
        """Bytes an evaluation of this recipe holds at its peak: ``cells x (HELD_BYTES + the most any filter
        declares)`` (:attr:`core.params.Filter.memory`; measured with tracemalloc in
        ``tests/core/test_memory_estimate.py``)."""
        most = max((self._filter(key).memory(self._scaled(key, p)) for key, p in self.filters), default=0)
        return self.shape[0] * self.shape[1] * (HELD_BYTES + most)

    def _passes(self, stack: Sequence[tuple[str, Mapping[str, Any]]]) -> int:
        return sum(self._filter(key).passes(self._scaled(key, p)) for key, p in stack)

    # --- sources (core.sources) ------------------------------------------------------------
    def _check_sources(self) -> None:
        """Validate the sources stack (:func:`core.sources.check_sources`); version 2 has none."""
        if self.sources and self.version == 2:
            raise ValueError("a version-2 recipe has no sources")
        object.__setattr__(self, "sources", check_sources(self.sources))

    def source_ranges(self) -> SourceRanges:
        """Each source's whole-grid raw range (:func:`core.sources.source_range`; ``None`` for a stamp, a source in
        metres or a disabled source): what generator sources are normalised by, whichever window is evaluated."""
        return tuple(
            None
            if key in STAMPS or not settings["enabled"] or GENERATORS[key].metres
            else source_range(
                key,
                {k: settings[k] for k in (p.name for p in GENERATORS[key].params)},
                shape=self.shape,
                seed=self._source_seed(i),
                cell_size=self.cell_size,
            )
            for i, (key, settings) in enumerate(self.sources)
        )

    def _source_seed(self, index: int) -> int:
        return source_seed(self.seed, index)

    def _needs_source_ranges(self) -> bool:
        return any(
            key not in STAMPS and settings["enabled"] and not GENERATORS[key].metres for key, settings in self.sources
        )

    def sources_margin(self) -> int:
        """Cells around the filters' window that the sources' masks read (:func:`core.sources.sources_margin`):
        the base and the sources are evaluated over the window grown by it (beyond the filters' margin) and
        cropped before the filters; 0 without masked sources."""
        return sources_margin(self.sources, self.cell_size)

    def _sources_window(self, outer: Window) -> Window:
        """The window the base and the sources are evaluated over for the filters' window ``outer``: ``outer``
        itself without masked sources (the recipe as before source masks, bit for bit), else ``outer`` grown by
        :meth:`sources_margin` (clamped to the world)."""
        margin = self.sources_margin()
        return expand(self.shape, outer, margin) if margin else outer

    def _apply_sources(
        self, h: npt.NDArray[np.float32], window: Window, ranges: SourceRanges | None
    ) -> npt.NDArray[np.float32]:
        """The heights of ``window`` with the sources blended on in metres, back in units of ``height``
        (:func:`core.sources.apply_sources`); ``h`` are the normalised base heights of :meth:`_sources_window` of
        ``window`` (``window`` itself without masked sources; grown by the masks' reach, blended over and cropped
        to ``window`` with them). ``h`` itself when no source is enabled, so a recipe without sources gives
        exactly what it gave. ``ranges``: the sources' ranges, or ``None`` to compute them."""
        wide = self._sources_window(window)
        if wide != window:
            return np.ascontiguousarray(crop(self._blend_sources(h, wide, ranges), wide, window))
        return self._blend_sources(h, window, ranges)

    def _blend_sources(
        self, h: npt.NDArray[np.float32], window: Window, ranges: SourceRanges | None
    ) -> npt.NDArray[np.float32]:
        """:meth:`_apply_sources` over ``window`` itself (``h`` of ``window.shape``), nothing cropped."""
        if not any(settings["enabled"] for _, settings in self.sources):
            return h
        if ranges is None or len(ranges) != len(self.sources):
            ranges = self.source_ranges() if self._needs_source_ranges() else (None,) * len(self.sources)
        return apply_sources(
            h,
            self.sources,
            shape=self.shape,
            window=window,
            cell_size=self.cell_size,
            height=self.height if self.height > 0 else 1e-6,
            seed=self.seed,
            ranges=ranges,
        )

    # --- JSON -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """Plain data (lists for tuples), the JSON form."""

        def plain(v: Any) -> Any:
            return list(v) if isinstance(v, tuple) else v

        return {
            "version": self.version,
            **({} if self.version == 2 else {"fit_height": self.fit_height}),
            "generator": self.generator,
            "seed": self.seed,
            "shape": list(self.shape),
            "cell_size": self.cell_size,
            "height": self.height,
            "params": {k: plain(v) for k, v in self.params.items()},
            "filters": [
                {"type": key, **{k: plain(v) for k, v in p.items()}, **self._mask_entry(i)}
                for i, (key, p) in enumerate(self.filters)
            ],
            **(
                {"sources": [{"type": key, **{k: plain(v) for k, v in p.items()}} for key, p in self.sources]}
                if self.sources
                else {}
            ),
        }

    def _mask_entry(self, i: int) -> dict[str, Any]:
        """``{"mask": {...}}`` for a masked filter ``i`` of the JSON form, ``{}`` for an unmasked one."""
        m = self.mask_of(i)
        return ({} if m is None else {"mask": dict(m)}) | {k: dict(v) for k, v in self.maps_of(i).items()}

    def to_json(self) -> str:
        """JSON text of the recipe (keys sorted, so equal recipes give equal text)."""
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Recipe:
        """Recipe from :meth:`to_dict` data (version 2 or 3), or 0.1's (no ``version``; converted by
        :func:`core.versions.upgrade_recipe`).

        Raises ``ValueError``/``TypeError`` naming what is wrong.
        """
        if not isinstance(data, Mapping):
            raise TypeError(f"a recipe must be a JSON object, got {type(data).__name__}")
        unknown = set(data) - {
            "version",
            "generator",
            "seed",
            "shape",
            "params",
            "filters",
            "cell_size",
            "height",
            "fit_height",
            "sources",
        }
        if unknown:
            raise ValueError(f"unknown recipe keys: {short_list(list(unknown))}")
        filters_data = data.get("filters", [])
        if isinstance(filters_data, list):
            _check_count_of(filters_data, "filters", MAX_FILTERS)
        data = upgrade_recipe(data)  # 0.1's (no version) as version 2, old names as today's
        filters_data = data.get("filters", [])
        if not isinstance(filters_data, list):
            raise TypeError(f"filters must be a JSON list, got {type(filters_data).__name__}")
        _check_count_of(data.get("params", {}), "params", MAX_PARAMS)
        stack: list[tuple[str, Mapping[str, Any]]] = []
        masks: list[Mapping[str, Any] | None] = []
        pmaps: list[Mapping[str, Any] | None] = []
        for i, f in enumerate(filters_data):
            if not isinstance(f, Mapping) or "type" not in f:
                raise ValueError(f"filters[{i}] must be an object with a 'type', got {f!r:.60}")
            declared = _declared_maps(str(f["type"]), data["version"])
            stack.append((str(f["type"]), {k: v for k, v in f.items() if k not in ("type", "mask", *declared)}))
            masks.append(f.get("mask"))
            pmaps.append({k: f[k] for k in declared if k in f} or None)
        return cls(
            generator=data.get("generator", "hills"),
            seed=data.get("seed", 0),
            shape=data.get("shape", (129, 129)),
            params=data.get("params", {}),
            filters=tuple(stack),
            cell_size=data.get("cell_size", 1.0),
            height=data.get("height", 1.0),
            version=data["version"],
            fit_height=data["fit_height"],
            masks=tuple(masks) if any(m is not None for m in masks) else (),
            param_maps=tuple(pmaps) if any(m is not None for m in pmaps) else (),
            sources=_sources_of(data.get("sources", [])),
        )

    @classmethod
    def from_json(cls, text: str) -> Recipe:
        """Recipe from JSON text (see :meth:`from_dict`).

        The text is read with :func:`core.io.jsonio.load_json`: at most
        :data:`MAX_JSON_BYTES` bytes and 32 levels of nesting. Invalid or
        oversized JSON raises a :class:`core.io.jsonio.JSONError` (a ``ValueError``).
        """
        if not isinstance(text, (str, bytes, bytearray)):
            raise TypeError(f"a recipe's JSON must be text, got {type(text).__name__}")
        return cls.from_dict(load_json(text, "the recipe", max_bytes=MAX_JSON_BYTES))

    # --- evaluation ------------------------------------------------------------------------
    def filter_margins(self, filters: Sequence[tuple[str, Mapping[str, Any]]] | None = None) -> list[int]:
        """Cells each of ``filters`` (default: the stack) reads around a window, at this recipe's version and
        cell size; a margin of at least the world's longest side means the filter is global."""
        steps = self.filters if filters is None else filters
        margins = [self._filter(key).margin(self._scaled(key, params)) for key, params in steps]
        if filters is None:  # a mask's reach adds to its filter's (see mask_margins)
            margins = [m + extra for m, extra in zip(margins, self.mask_margins(), strict=True)]
        return margins

    def mask_margins(self) -> list[int]:
        """Cells each filter's mask reads around a window (:func:`core.masks.mask_margin`; 0 unmasked), which
        :meth:`filter_margins` adds to the filter's own."""
        return [
            mask_margin(self.mask_of(i), self.cell_size)
            + sum(mask_margin(m, self.cell_size) for m in self.maps_of(i).values())
            for i in range(len(self.filters))
        ]

    def margin(self) -> int:
        """Cells the filter stack reads around a window."""
        return sum(self.filter_margins())

    def global_filters(self) -> list[str]:
        """Keys of the stack's filters that read the whole world around any window (the erosion filters)."""
        return [key for (key, _), m in zip(self.filters, self.filter_margins(), strict=True) if m >= max(self.shape)]

    def raw_heights(self, window: Window | None = None) -> npt.NDArray[np.float64]:
        """The generator's raw (unnormalised) heights of ``window``, ``float64 window.shape``.

        Their minimum and maximum over the whole world are the world's raw range
        (``world_ranges()[0]``), whichever windows cover it.
        """
        win = check_window(self.shape, window)
        generator = cast(Generator, part(self.generator, self.version))
        extra: dict[str, float] = {"cell_size": self.cell_size} if generator.uses_cell_size else {}
        if generator.metres:
            extra["height"] = self.height
        try:
            raw: npt.NDArray[np.float64] = generator.function(self.shape, self.seed, window=win, **extra, **self.params)
        except ValueError as err:
            if "cell_size" not in str(err):
                raise
            raise ValueError(
                f"the {self.generator} generator cannot work at this scale: {err} (the cell size is "
                "the width divided by the longer side's vertices minus one: change Width or Size)"
            ) from None
        return raw

    def filtered_heights(self, window: Window, raw_range: tuple[float, float]) -> npt.NDArray[np.float32]:
        """Heights of ``window`` after normalising by the world's ``raw_range`` and the filter stack.

        ``float32 window.shape``, before the final normalisation: their minimum and
        maximum over the whole world are ``world_ranges()[1]``, and
        ``normalize(filtered_heights(w, r[0]), r[1])`` is ``evaluate(w, r)``.
        """
        win = check_window(self.shape, window)
        low, high = _check_ranges((raw_range, (0.0, 0.0)))[0]
        return self._run(win, (low, high))[0]

    def _run(
        self,
        window: Window,
        raw_range: tuple[float, float] | None,
        maps: dict[str, npt.NDArray[np.float32]] | None = None,
        progress: Progress | None = None,
        source_ranges: SourceRanges | None = None,
    ) -> tuple[npt.NDArray[np.float32], tuple[float, float]]:
        outer = expand(self.shape, window, self.margin())
        self._check_work(outer.shape, self.filters)
        total = 1 + self._passes(self.filters)
        done = 0

        def report(units: int) -> None:
            if progress is not None and progress(units, total) is False:
                raise Cancelled(f"cancelled after {units} of {total} work units", done=units, total=total)

        raw = self.raw_heights(self._sources_window(outer))
        report(1)
        done = 1
        if raw_range is None:
            raw_range = (float(raw.min()), float(raw.max()))
        h = self._apply_sources(self._start(raw, raw_range), outer, source_ranges)
        for i, (key, params) in enumerate(self.filters):
            f = self._filter(key)
            scale = {"cell_size": self.cell_size, "height": self.height} if f.uses_scale else {}
            extra: dict[str, Any] = {}
            passes = f.passes(self._scaled(key, params))
            if f.makes_maps:

                def step(i: int, steps: int, start: int = done, passes: int = passes) -> bool:
                    return progress is None or progress(start + passes * i // max(steps, 1), total) is not False

                extra = {"maps": maps, "callback": None if progress is None else step}
            if f.uses_window:
                extra.update(window=outer, world_shape=self.shape)
            mask = self.mask_of(i)
            extra.update(self._param_map_values(i, h, outer))
            # Whether the filter's change of scale is checked: on the whole world (a tile's window would warn once
            # per tile) and when the heights are not fitted to Height afterwards (then Height is their scale anyway).
            whole = outer.shape == self.shape and not self.fit_height
            start = relief(h, self.height) if whole else 0.0
            try:
                if mask is None:
                    h = f.function(h, **scale, **params, **extra)
                else:  # blended by its mask: h + w * (filtered - h), its maps weighted (core.masks.blend_masked)
                    w = self._mask_weights(i, mask, h, outer)
                    own: dict[str, npt.NDArray[np.float32]] | None = None if maps is None else {}
                    before = h.copy()
                    after = f.function(h, **scale, **params, **({**extra, "maps": own} if f.makes_maps else extra))
                    h = blend_masked(before, after, w, maps=maps if f.makes_maps else None, own=own)
            except ValueError as err:
                if "cell_size" not in str(err):
                    raise
                raise ValueError(
                    f"the {key} filter cannot work at this scale: {err} (the cell size is the width "
                    "divided by the longer side's vertices minus one: change Width or Size)"
                ) from None
            if whole:
                check_scale_change(key, index=i, params=params, before=start, after=h, height=self.height)
            done += passes
            report(done)
        return np.ascontiguousarray(crop(h, outer, window)), raw_range

    def _start(self, raw: npt.NDArray[np.floating[Any]], raw_range: tuple[float, float]) -> npt.NDArray[np.float32]:
        """The generator's raw heights as the filters take them, in units of ``height`` metres: a generator in
        metres (:attr:`core.params.Generator.metres`, a source) divided by ``height`` (``units_of_metres``: the
        mesh's Z gives its metres back bit for bit), any other normalised by the world's ``raw_range``."""
        if cast(Generator, part(self.generator, self.version)).metres:
            return units_of_metres(raw, self.height)
        return normalize(raw, raw_range)

    def _param_map_values(self, i: int, h: npt.NDArray[np.float32], outer: Window) -> dict[str, Any]:
        """``{"erodibility_map": per-cell values, ...}`` of filter ``i``'s parameter maps over ``h``, the heights it
        is given (:meth:`core.masks.ParamMap.values` of the maps' weights); ``{}`` without maps."""
        out: dict[str, Any] = {}
        declared = {pm.key: pm for pm in self._filter(self.filters[i][0]).param_maps}
        for key, values in self.maps_of(i).items():
            weights = mask_weights(
                values,
                h,
                cell_size=self.cell_size,
                height=self.height,
                world_shape=self.shape,
                window=outer,
                seed=sub_seed(self.seed, "mask", int(values["noise_seed"])),
                where=f"filters[{i}].{key}.",
                params=declared[key].params,
            )
            out[key] = declared[key].values(weights, values)
        return out

    def _mask_weights(self, i: int, mask: Mapping[str, Any], h: npt.NDArray[np.float32], outer: Window) -> Any:
        """The weights of filter ``i``'s ``mask`` over ``h``, the heights of window ``outer`` it is given
        (:func:`core.masks.mask_weights`; the noise seeded by ``sub_seed(seed, "mask", noise_seed)``)."""
        return mask_weights(
            mask,
            h,
            cell_size=self.cell_size,
            height=self.height,
            world_shape=self.shape,
            window=outer,
            seed=sub_seed(self.seed, "mask", int(mask["noise_seed"])),
            where=f"filters[{i}].mask.",
        )

    def world_ranges(self) -> Ranges:
        """The world's raw range and its range after the filters (what windows normalise by).

        With enabled generator sources a third element follows: each source's whole-grid raw range
        (:meth:`source_ranges`), which windows need too. ``evaluate`` also takes the two-element form (from the
        tile passes of :mod:`core.world`) and then computes the sources' ranges itself (cached)."""
        sources = self.source_ranges() if self._needs_source_ranges() else None
        h, raw_range = self._run(check_window(self.shape, None), None, source_ranges=sources)
        if sources is not None:
            return raw_range, (float(h.min()), float(h.max())), sources
        return raw_range, (float(h.min()), float(h.max()))

    def evaluate_with_maps(
        self, progress: Progress | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, npt.NDArray[np.float32]]]:
        """The whole world's heightmap (:meth:`evaluate`, bit for bit) and the erosion maps its filters made.

        Maps come from the whole world only (a window has none: the erosion
        filters read the whole world, and tiles take heights alone).

        Parameters
        ----------
        progress : callable(done, total) or None
            Called after the generator, after each filter and after each step
            of an erosion filter, with work units (the generator counts 1, a
            filter its passes, see :class:`core.params.Filter`): ``0 < done <=
            total``. Returning ``False`` cancels.

        Returns
        -------
        heights : ndarray of float32, shape (rows, cols)
            Equal to ``evaluate()``: in ``[0, 1]`` with ``fit_height``, else in units of ``height`` metres.
        maps : dict of str to ndarray of float32, shape (rows, cols)
            Some of :data:`MAP_NAMES`, each only when a filter of the stack
            made it: ``drainage_area`` (m², at least one cell's area) and
            ``flow_direction`` (D8 code, the index into
            :data:`core.erosion.flow.NEIGHBOR_OFFSETS`, -1 at outlets) from the last
            stream-power filter's routing; ``water_depth`` (metres) left by
            the last hydraulic filter; ``deposited`` and ``removed`` (metres,
            >= 0) summed over the erosion filters (thermal, hydraulic and
            stream power, whose ``removed`` is its erosion and ``deposited``
            where hillslope diffusion laid down more than was eroded). Metres
            are at the filters' scale (``height`` metres per unit of the
            normalised heights, before any final normalisation).

        Raises
        ------
        Cancelled
            When ``progress`` returned ``False`` (nothing is returned).
        TypeError, ValueError
            As :meth:`evaluate`.
        """
        progress = check_progress(progress)
        maps: dict[str, npt.NDArray[np.float32]] = {}
        h, _ = self._run(check_window(self.shape, None), None, maps, progress)
        return (normalize(h) if self.fit_height else h), maps

    def evaluate(self, window: Window | None = None, ranges: Ranges | None = None) -> npt.NDArray[np.float32]:
        """The heightmap: ``float32`` of ``window.shape`` (default the whole world).

        With ``fit_height`` it spans ``[0, 1]`` over the world; without, it is
        the filtered heights in units of ``height`` metres (the generator's
        output spans ``[0, 1]``, filters may lower or raise it).

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
            return normalize(h) if self.fit_height else h
        h, _ = self._run(win, ranges[0], source_ranges=ranges[2] if len(ranges) == 3 else None)
        return normalize(h, ranges[1]) if self.fit_height else h
