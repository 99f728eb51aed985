"""Inputs from outside a spec: the meshes, curves and painted weights a terrain reads from Blender objects.

A spec names an object (a setting of kind ``object``: the object source's ``object``, the carve filter's
``curve``, a mask's vertex group); the object's geometry is not part of the spec. Whoever evaluates the spec
gives it, as plain arrays, for the length of the evaluation::

    with inputs.using({("mesh", "Sculpt"): inputs.MeshInput(vertices, triangles)}):
        heights = spec.recipe().evaluate()

The add-on gathers every object a spec names on Blender's main thread (``addon/inputs.py``) before a job
starts, and the job's thread evaluates inside :func:`using`; a technical artist in the console or a pipeline
without Blender does the same with arrays of its own. Generators and filters read them with :func:`get`.

Invariants
----------
- Coordinates are **terrain-local metres**: X east, Y north, Z up, the origin at the centre of the terrain's
  grid and at its Z = 0, as the terrain's mesh lies (:func:`grid_xy`); the add-on maps world space into this
  frame with the terrain object's matrix, so "sampled from above in world space" holds wherever the terrain is.
- The inputs in force are per thread of evaluation (a :class:`contextvars.ContextVar`): two jobs evaluating
  at once, each with its own inputs, do not see each other's.
- A ``("weights", group)`` input is the vertex group ``group`` a filter or source mask reads: a
  :class:`WeightsInput` on the terrain's own grid when the group is painted on the terrain, or a
  :class:`MeshInput` with ``values`` (the group's weight per vertex of the terrain's source object, in this
  frame) when it is painted on the source mesh of an ``object`` generator; the mask rasterises that one from
  above onto the grid as the object source rasterises heights
  (:func:`core.generators.sources.rasterise_values`). The add-on takes the terrain's group when both have it.
- Every array is checked when an input is made (finite, shapes, index ranges, caps), so nothing NaN or
  out of range reaches a generator; :attr:`MeshInput.digest` and friends fingerprint the data, so a cache
  keyed by spec and digests notices an edited object.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import numpy.typing as npt

from .window import Window

__all__ = [
    "KINDS",
    "MAX_VERTICES",
    "MAX_TRIANGLES",
    "MAX_POINTS",
    "MAX_COORDINATE",
    "MeshInput",
    "CurveInput",
    "WeightsInput",
    "FileInput",
    "Input",
    "Inputs",
    "using",
    "current",
    "get",
    "digest",
    "grid_xy",
]

#: Most vertices and triangles of a mesh input (a 4097² grid has 16.8 M vertices and 33.5 M triangles).
MAX_VERTICES = 1 << 25
MAX_TRIANGLES = 1 << 26
#: Most points of all the splines of one curve input.
MAX_POINTS = 1 << 22


#: Largest |coordinate| of an input, metres (far beyond any terrain; what the carve filter allows too).
MAX_COORDINATE = 1.0e12


def _finite(a: npt.NDArray[np.float64], what: str) -> None:
    if not np.isfinite(a).all():
        bad = int(np.count_nonzero(~np.isfinite(a)))
        raise ValueError(f"{what}: {bad} coordinates are NaN or infinite")
    if a.size and float(np.abs(a).max()) > MAX_COORDINATE:
        raise ValueError(
            f"{what}: reaches {float(np.abs(a).max()):.3g} m from the terrain's centre; at most {MAX_COORDINATE:g} m"
        )


def _sha(*arrays: npt.NDArray[np.generic]) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(str(a.shape).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:32]


@dataclass(frozen=True, eq=False)
class MeshInput:
    """A triangle mesh in terrain-local metres (see the module's invariants).

    Parameters
    ----------
    vertices : array_like of float, shape (n, 3)
        Positions in metres; converted to ``float64``.
    triangles : array_like of int, shape (m, 3)
        Vertex indices of each triangle (a mesh's ``loop_triangles``), ``0 <= index < n``; converted to ``int64``.
    values : array_like of float, shape (n,), optional
        A value per vertex (a vertex group's weights, 0..1), interpolated across each triangle.
    name : str
        What error messages call it (the object's name).

    Raises
    ------
    ValueError
        Naming the input: wrong shapes, non-finite coordinates, indices out of range, more than
        :data:`MAX_VERTICES` or :data:`MAX_TRIANGLES`, weights outside 0..1.
    """

    vertices: npt.NDArray[np.float64]
    triangles: npt.NDArray[np.int64]
    values: npt.NDArray[np.float64] | None = None
    name: str = "mesh"

    def __post_init__(self) -> None:
        what = f"mesh {self.name!r}"
        v = np.asarray(self.vertices, dtype=np.float64)
        t = np.asarray(self.triangles)
        if v.ndim != 2 or v.shape[1] != 3:
            raise ValueError(f"{what}: vertices must be (n, 3), got shape {v.shape}")
        if t.ndim != 2 or t.shape[1] != 3 or (t.size and not np.issubdtype(t.dtype, np.integer)):
            raise ValueError(f"{what}: triangles must be integer (m, 3), got {t.dtype} of shape {t.shape}")
        if len(v) > MAX_VERTICES or len(t) > MAX_TRIANGLES:
            raise ValueError(
                f"{what}: {len(v)} vertices and {len(t)} triangles; at most {MAX_VERTICES} and {MAX_TRIANGLES}"
            )
        t = t.astype(np.int64, copy=False)
        if t.size and (t.min() < 0 or t.max() >= len(v)):
            raise ValueError(f"{what}: triangle indices must be 0..{len(v) - 1}, got {t.min()}..{t.max()}")
        _finite(v, what)
        object.__setattr__(self, "vertices", np.ascontiguousarray(v))
        object.__setattr__(self, "triangles", np.ascontiguousarray(t))
        if self.values is not None:
            w = np.asarray(self.values, dtype=np.float64)
            if w.shape != (len(v),):
                raise ValueError(f"{what}: values must be one per vertex ({len(v)}), got shape {w.shape}")
            if not np.isfinite(w).all() or w.size and (w.min() < 0.0 or w.max() > 1.0):
                raise ValueError(f"{what}: values must be finite weights in 0..1")
            object.__setattr__(self, "values", np.ascontiguousarray(w))

    @property
    def digest(self) -> str:
        """Fingerprint of the data (32 hex digits): equal for equal arrays."""
        extra = () if self.values is None else (self.values,)
        return _sha(self.vertices, self.triangles, *extra)


@dataclass(frozen=True, eq=False)
class CurveInput:
    """A curve as polylines in terrain-local metres: each spline evaluated to points in order.

    Parameters
    ----------
    splines : sequence of array_like of float, shape (k, 3)
        Each spline's points, ``k >= 2``, from its start to its end (a river's from its source downstream);
        converted to ``float64``.
    cyclic : sequence of bool, optional
        Per spline: whether it closes back on its first point (default: none do).
    name : str
        What error messages call it (the object's name).

    Raises
    ------
    ValueError
        Naming the input: no spline, a spline of fewer than 2 points, non-finite points, more than
        :data:`MAX_POINTS` in all.
    """

    splines: tuple[npt.NDArray[np.float64], ...]
    cyclic: tuple[bool, ...] = ()
    name: str = "curve"

    def __post_init__(self) -> None:
        what = f"curve {self.name!r}"
        splines = tuple(np.asarray(s, dtype=np.float64) for s in self.splines)
        if not splines:
            raise ValueError(f"{what}: has no splines")
        if sum(len(s) for s in splines) > MAX_POINTS:
            raise ValueError(f"{what}: more than {MAX_POINTS} points")
        for i, s in enumerate(splines):
            if s.ndim != 2 or s.shape[1] != 3 or len(s) < 2:
                raise ValueError(f"{what}: spline {i} must be (k >= 2, 3) points, got shape {s.shape}")
            _finite(s, f"{what} spline {i}")
        cyclic = tuple(bool(c) for c in self.cyclic) or (False,) * len(splines)
        if len(cyclic) != len(splines):
            raise ValueError(f"{what}: cyclic must give one flag per spline ({len(splines)}), got {len(cyclic)}")
        object.__setattr__(self, "splines", tuple(np.ascontiguousarray(s) for s in splines))
        object.__setattr__(self, "cyclic", cyclic)

    @property
    def digest(self) -> str:
        """Fingerprint of the data (32 hex digits)."""
        return _sha(*self.splines, np.array(self.cyclic, dtype=bool))


@dataclass(frozen=True, eq=False)
class WeightsInput:
    """Weights on the terrain's own grid (a vertex group painted on the terrain), ``float32 (rows, cols)``.

    ``weights`` are in 0..1, one per vertex of the whole world's grid, row 0 north (the terrain mesh's vertex
    order); ``name`` is what error messages call it. ``ValueError`` for a bad shape or values.
    """

    weights: npt.NDArray[np.float32]
    name: str = "weights"

    def __post_init__(self) -> None:
        w = np.asarray(self.weights, dtype=np.float32)
        if w.ndim != 2 or min(w.shape) < 1:
            raise ValueError(f"weights {self.name!r}: must be (rows, cols), got shape {w.shape}")
        if not np.isfinite(w).all() or w.min() < 0.0 or w.max() > 1.0:
            raise ValueError(f"weights {self.name!r}: must be finite weights in 0..1")
        object.__setattr__(self, "weights", np.ascontiguousarray(w))

    @property
    def digest(self) -> str:
        """Fingerprint of the data (32 hex digits)."""
        return _sha(self.weights)


@dataclass(frozen=True, eq=False)
class FileInput:
    """A heightmap file's grey values as decoded by the caller, ``float32 (rows, cols)``, row 0 north.

    For the formats core cannot decode with numpy alone (PNG and OpenEXR, which the add-on reads with
    Blender's image loader on the main thread); keyed ``("file", path)`` with the path exactly as the file
    source's ``path`` setting gives it. ``file_digest`` is the file's SHA-256 when the caller took it (else "").
    ``ValueError`` for a bad shape or non-finite values.
    """

    values: npt.NDArray[np.float32]
    name: str = "file"
    file_digest: str = ""

    def __post_init__(self) -> None:
        v = np.asarray(self.values, dtype=np.float32)
        if v.ndim != 2 or min(v.shape) < 1:
            raise ValueError(f"file {self.name!r}: values must be (rows, cols), got shape {v.shape}")
        if not np.isfinite(v).all():
            raise ValueError(f"file {self.name!r}: holds NaN or Inf heights")
        object.__setattr__(self, "values", np.ascontiguousarray(v))

    @property
    def digest(self) -> str:
        """Fingerprint of the data (32 hex digits)."""
        return _sha(self.values)


Input = MeshInput | CurveInput | WeightsInput | FileInput
#: Inputs of one evaluation: ``(kind, name) -> input``; kinds are :data:`KINDS`' keys.
Inputs = Mapping[tuple[str, str], Input]
#: The kinds of input and the classes each may hold: a ``weights`` input is a :class:`WeightsInput` (a group
#: painted on the terrain) or a :class:`MeshInput` with ``values`` (a group painted on its source object).
KINDS: dict[str, tuple[type, ...]] = {
    "mesh": (MeshInput,),
    "curve": (CurveInput,),
    "weights": (WeightsInput, MeshInput),
    "file": (FileInput,),
}

_CURRENT: ContextVar[Mapping[tuple[str, str], Input]] = ContextVar("orogen_inputs", default=MappingProxyType({}))


def _check(inputs: Mapping[tuple[str, str], Input]) -> dict[tuple[str, str], Input]:
    if not isinstance(inputs, Mapping):
        raise TypeError(f"inputs must be a mapping of (kind, name) to inputs, got {type(inputs).__name__}")
    out: dict[tuple[str, str], Input] = {}
    for key, value in inputs.items():
        if not (isinstance(key, tuple) and len(key) == 2 and key[0] in KINDS and isinstance(key[1], str)):
            raise ValueError(f"an input's key must be (kind, name) with kind one of {sorted(KINDS)}, got {key!r:.60}")
        if not isinstance(value, KINDS[key[0]]):
            names = " or ".join(k.__name__ for k in KINDS[key[0]])
            raise TypeError(f"input {key[1]!r} of kind {key[0]!r} must be a {names}")
        if key[0] == "weights" and isinstance(value, MeshInput) and value.values is None:
            raise ValueError(f"input {key[1]!r} of kind 'weights': a MeshInput of weights needs its values")
        out[key] = value
    return out


@contextmanager
def using(inputs: Inputs) -> Iterator[None]:
    """Make ``inputs`` the ones :func:`get` returns in this thread (and in what it runs) until the block ends.

    Blocks nest: the inner block's inputs are added to the outer's (an inner one of the same key wins).
    ``TypeError``/``ValueError`` for keys or values of the wrong kind.
    """
    token = _CURRENT.set({**_CURRENT.get(), **_check(inputs)})
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current() -> Mapping[tuple[str, str], Input]:
    """The inputs in force in this thread (empty outside :func:`using`)."""
    return _CURRENT.get()


def get(kind: str, name: str, what: str) -> Input:
    """The input of ``kind`` (``"mesh"``, ``"curve"``, ``"weights"``) named ``name``; ``what`` names the setting.

    Raises
    ------
    ValueError
        ``"what: no mesh object 'Sculpt' was given ..."`` when none is in force: the spec names an object
        that the evaluation was not given (or an empty name).
    """
    if not name:
        raise ValueError(f"{what}: names no object: choose one")
    found = _CURRENT.get().get((kind, name))
    if found is None:
        raise ValueError(
            f"{what}: no {kind} {name!r} was given (in Blender: no such object, or not a {kind}; outside Blender, "
            "give it with core.inputs.using)"
        )
    return found


def digest(kind: str, name: str) -> str | None:
    """The fingerprint of the input in force (``None`` if there is none): for caches keyed by inputs."""
    found = _CURRENT.get().get((kind, name))
    return None if found is None else found.digest


def grid_xy(
    shape: tuple[int, int], cell_size: float, window: Window | None = None
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Terrain-local metres of the grid's vertices: ``x`` (``float64 (cols,)``, east) and ``y`` (``(rows,)``,
    north) of ``window`` (default the whole ``shape``), as the terrain's mesh places them: centred on the
    origin, row 0 at ``y = +(rows - 1) / 2 * cell_size`` (north), ``cell_size`` metres apart."""
    rows, cols = shape
    r0, c0, h, w = (0, 0, rows, cols) if window is None else (window.row, window.col, *window.shape)
    x = (np.arange(c0, c0 + w, dtype=np.float64) - (cols - 1) / 2.0) * cell_size
    y = ((rows - 1) / 2.0 - np.arange(r0, r0 + h, dtype=np.float64)) * cell_size
    return x, y
