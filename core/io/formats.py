"""Heightmap files that need no image library: RAW (``.r16``/``.raw``), NumPy ``.npy`` and JSON sidecars.

Pure functions on numpy arrays and paths; the add-on only moves arrays into
and out of Blender. Orientation everywhere: row 0 is the top row of the image
and the north (+Y) edge of the terrain mesh; column 0 is west (-X).

- RAW: unsigned 16-bit, row-major, no header (the ``.r16`` layout terrain
  tools and game engines read), ``0 -> 0`` and ``1 -> 65535``. Orogen writes
  little-endian and records it in the sidecar (``"raw": {"byte_order":
  "little", ...}``); a sidecar saying ``"big"`` is honoured on reading.
- NPY: ``float32`` written with :func:`numpy.save`; read without pickles.
- Sidecar: ``<file>.json`` beside a heightmap (``terrain_height.r16.json``),
  read with :func:`core.io.jsonio.load_json` (a regular file of at most
  :data:`SIDECAR_MAX_BYTES`). Version :data:`SIDECAR_VERSION` (``"sidecar_version": 2``) adds what an
  import needs to give the terrain back exactly: ``"height_m"`` (the terrain's Height: metres per unit of
  its heights), ``"look"`` (its lighting, material with the water, and colour layers, as spec JSON),
  ``"row_0"`` (``"north"``, or ``"south"`` for Unity's RAW tiles) and, for a tile, ``"location_m"`` (its
  centre in the world's frame). Sidecars without a version (Orogen 0.1 to 0.3's) stay readable: their
  ``height_range_m`` always gave the metres 0 and 1 stand for, their rows are north first, and their
  Height is the spec's (or the relief, for an imported terrain's); see :func:`sidecar_scale`.
- 16-bit files (PNG16, R16): the heights in metres quantised over the terrain's own relief, ``[min, max]``
  (a tile world's whole range for its tiles, so they share one scale): level ``0`` is the lowest metre,
  ``65535`` the highest, one step ``(max - min) / 65535`` (:func:`quantise`, :func:`dequantise`). The
  sidecar's ``height_range_m`` is that ``[min, max]`` (as it always was, the metres of 0 and 1), and its
  ``"levels"`` object says the same for a user and game engines: ``level_0_m``, ``level_65535_m``,
  ``step_m`` and what to type into Unity and Unreal (:func:`engine_levels`).
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..heightmap import check_number, check_shape
from .jsonio import JSONError, load_json

__all__ = [
    "ORIENTATION",
    "RAW_SUFFIXES",
    "SIDECAR_MAX_BYTES",
    "SIDECAR_VERSION",
    "SidecarScale",
    "dequantise",
    "engine_levels",
    "file_heights",
    "levels_text",
    "quantise",
    "raw_layout",
    "read_npy",
    "read_raw",
    "read_sidecar",
    "sidecar_info",
    "sidecar_scale",
    "units_of_metres",
    "value_range",
    "write_npy",
    "write_raw",
]

#: Suffixes read as RAW 16-bit heightmaps.
RAW_SUFFIXES = (".r16", ".raw")
#: Largest sidecar read, in bytes (Orogen's own are about 2 kB with a recipe).
SIDECAR_MAX_BYTES = 1 << 20
#: The version of the sidecars :func:`sidecar_info` writes (those without one are version 1).
SIDECAR_VERSION = 2
ORIENTATION = "row 0 = top row of the image = north (+Y) edge of the mesh; column 0 = west (-X)"
#: The orientation of a file whose first row is the south edge (Unity's RAW tiles).
ORIENTATION_SOUTH = "row 0 = south (-Y) edge of the mesh (Unity's RAW tiles); column 0 = west (-X)"

SizeCheck = Callable[[int, int], None]
#: The highest level of a 16-bit heightmap file (PNG16, R16): level 0 is its lowest metre, this its highest.
TOP_16 = 65535
#: An Unreal landscape's levels per centimetre at its actor's Scale Z of 1: level ``n`` stands at
#: ``(n - 32768) × scale_z / 128`` cm, so the default Scale Z of 100 spans 512 m.
UNREAL_LEVELS_PER_CM_AT_1 = 128.0


def _regular_file(path: str, name: str) -> int:
    """The size of ``path`` in bytes; ``ValueError`` unless it is a regular file (a FIFO would block a read
    forever, a device never ends)."""
    try:
        info = os.stat(path)
    except OSError as err:
        raise ValueError(f"cannot read {name}: {err.strerror or err}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{name} is not a regular file (a folder, FIFO or device is not read)")
    return info.st_size


def write_raw(path: str, heightmap: npt.ArrayLike) -> None:
    """Write a normalised heightmap as RAW: little-endian ``uint16``, row-major, no header.

    Values are clipped to ``[0, 1]`` and rounded to the nearest of 65536
    levels (``0 -> 0``, ``1 -> 65535``). The file has exactly ``rows * cols * 2`` bytes.
    """
    values = np.asarray(heightmap, dtype=np.float64)
    levels = np.rint(np.clip(values, 0.0, 1.0) * 65535.0).astype("<u2")
    with open(path, "wb") as f:
        f.write(levels.tobytes(order="C"))


def value_range(metres: npt.ArrayLike, name: str = "heights") -> tuple[float, float]:
    """``(min, max)`` of finite heights in metres, as Python floats (``float64``).

    Raises
    ------
    ValueError
        If ``metres`` is empty or holds NaN or Inf (naming ``name``): no file is written from such heights.
    """
    m = np.asarray(metres)
    if m.size == 0:
        raise ValueError(f"{name} are empty: nothing to write")
    if not np.isfinite(m).all():
        raise ValueError(f"{name} hold NaN or Inf: nothing was written")
    return float(m.min()), float(m.max())


def quantise(
    metres: npt.ArrayLike, value_range_m: tuple[float, float] | None = None, *, top: int = TOP_16
) -> tuple[npt.NDArray[np.uint16], tuple[float, float]]:
    """Heights in metres as the levels of a 16-bit (or 8-bit) file over their relief: ``(levels, (low, high))``.

    ``level = rint((m - low) / (high - low) × top)``, so level 0 is ``low`` and ``top`` is ``high`` and an
    import (:func:`dequantise`) gives every height back within half a step ``(high - low) / top``. A flat
    terrain (``high == low``) is all level 0, without a division by zero, and comes back at its height.

    Parameters
    ----------
    metres : array_like of float, shape (rows, cols) (any shape)
        Finite heights in metres (a terrain's vertex Z).
    value_range_m : (float, float), optional
        The ``(low, high)`` metres of levels 0 and ``top``; by default the heights' own ``(min, max)``. A tile
        passes its world's range, so the tiles of a world share one scale; heights outside it are clipped.
    top : int
        The highest level: 65535 (:data:`TOP_16`, PNG16 and R16) or 255 (an 8-bit PNG).

    Returns
    -------
    levels : ndarray of uint16, the shape of ``metres``
    (low, high) : the metres of levels 0 and ``top``, floats.

    Raises
    ------
    ValueError
        If the heights hold NaN or Inf or are empty, the range is not finite with ``low <= high``, or ``top``
        is not 255 or 65535.
    """
    if top not in (255, TOP_16):
        raise ValueError(f"top must be 255 or {TOP_16}, got {top!r}")
    m = np.asarray(metres, dtype=np.float64)
    own = value_range(m)
    low, high = own if value_range_m is None else (float(value_range_m[0]), float(value_range_m[1]))
    if not (math.isfinite(low) and math.isfinite(high) and low <= high):
        raise ValueError(f"the range of the levels must be finite metres with low <= high, got ({low}, {high})")
    if high == low:
        return np.zeros(m.shape, dtype=np.uint16), (low, high)
    v = (m - low) / (high - low)
    levels: npt.NDArray[np.uint16] = np.rint(np.clip(v, 0.0, 1.0) * top).astype(np.uint16)
    return levels, (low, high)


def dequantise(
    levels: npt.ArrayLike, value_range_m: tuple[float, float], *, top: int = TOP_16
) -> npt.NDArray[np.float64]:
    """The metres of a 16-bit (or 8-bit) file's ``levels`` over ``value_range_m = (low, high)``: ``float64``.

    ``low + level / top × (high - low)``, the inverse of :func:`quantise` within half a step. ``levels`` may
    also be the normalised values a reader gives (``level / top`` as ``float32``): they are rounded to the
    nearest level first, so the float32 division costs nothing.

    Raises
    ------
    ValueError
        If a level is not finite or lies outside ``[0, top]`` (beyond half a level), or the range is not finite
        with ``low <= high``.
    """
    low, high = (float(v) for v in value_range_m)
    if not (math.isfinite(low) and math.isfinite(high) and low <= high):
        raise ValueError(f"the range of the levels must be finite metres with low <= high, got ({low}, {high})")
    raw = np.asarray(levels)
    if raw.dtype.kind == "f":
        if not np.isfinite(raw).all():
            raise ValueError("the levels hold NaN or Inf")
        raw = np.rint(raw.astype(np.float64) * top)
    n = raw.astype(np.float64)
    if n.size and (n.min() < 0 or n.max() > top):
        raise ValueError(f"levels must lie in 0..{top}, got {n.min():g}..{n.max():g}")
    return low + (n / top) * (high - low)


def engine_levels(value_range_m: tuple[float, float]) -> dict[str, Any]:
    """What a sidecar's ``"levels"`` says of a 16-bit file over ``value_range_m = (low, high)`` metres.

    ``{"bits", "level_0_m", "level_65535_m", "step_m", "unity", "unreal"}``: the metres of levels 0 and 65535,
    one step, and the settings that put the file at those metres in a game engine —

    - Unity (Import Raw maps 0..65535 over the terrain's height): ``terrain_height_m`` (Terrain Size Y) is
      ``high - low`` and ``position_y_m`` (the terrain object's Y) is ``low``;
    - Unreal (a landscape's level ``n`` stands at ``(n - 32768) × scale_z / 128`` cm above its actor, whose
      default Scale Z of 100 spans 512 m): ``scale_z`` is ``12800 × (high - low) / 65535`` (about
      ``relief / 5.12``) and ``location_z_cm`` (the actor's Z) is ``100 × (low + 32768 / 65535 × (high - low))``.

    Floats; a flat terrain's scale Z is 0 (an engine may refuse it: any value keeps it flat).
    """
    low, high = (float(v) for v in value_range_m)
    relief = high - low
    return {
        "bits": 16,
        "level_0_m": low,
        "level_65535_m": high,
        "step_m": relief / TOP_16,
        "unity": {"terrain_height_m": relief, "position_y_m": low},
        "unreal": {
            "scale_z": UNREAL_LEVELS_PER_CM_AT_1 * 100.0 * relief / TOP_16,
            "location_z_cm": 100.0 * (low + 32768.0 / TOP_16 * relief),
        },
    }


def levels_text(value_range_m: tuple[float, float]) -> str:
    """The metres of a 16-bit file's levels 0 and 65535 as an export reports them, for typing into an engine."""
    info = engine_levels(value_range_m)
    return (
        f"16-bit levels 0 = {info['level_0_m']:.6g} m, 65535 = {info['level_65535_m']:.6g} m "
        f"(step {info['step_m'] * 1000:.4g} mm; Unity Terrain Height {info['unity']['terrain_height_m']:.6g} m at "
        f"Y {info['unity']['position_y_m']:.6g} m; Unreal Scale Z {info['unreal']['scale_z']:.6g}, "
        f"Z {info['unreal']['location_z_cm']:.6g} cm)"
    )


def write_npy(path: str, values: npt.ArrayLike) -> None:
    """Write ``values`` as a ``float32`` ``.npy`` file (:func:`numpy.save`, no pickles)."""
    with open(path, "wb") as f:
        np.save(f, np.asarray(values, dtype=np.float32), allow_pickle=False)


def sidecar_info(
    path: str,
    shape: tuple[int, int],
    fmt: str,
    *,
    absolute: bool,
    height_range: tuple[float, float] | None,
    extra: Mapping[str, Any] | None = None,
    south_first: bool = False,
) -> dict[str, Any]:
    """The JSON sidecar's content (version :data:`SIDECAR_VERSION`) for a heightmap file ``path`` of ``shape``
    in ``fmt``.

    ``fmt`` is 'PNG16', 'EXR', 'R16' or 'NPY'; ``absolute`` says the values are
    metres (EXR and NPY only); ``height_range`` the metres that 0 and 1 stand for (normalised values);
    ``extra`` (spec, ``width_m``, ``height_m``, ``look``, ``location_m``...) is merged first;
    ``south_first`` says the file's first row is the south edge (Unity's RAW tiles). A 16-bit file's sidecar
    also has ``"levels"`` (:func:`engine_levels` of ``height_range``: the metres of levels 0 and 65535, for
    typing into a game engine).
    """
    info = dict(extra or {})
    info.update(
        {
            "sidecar_version": SIDECAR_VERSION,
            "row_0": "south" if south_first else "north",
            "file": os.path.basename(path),
            "shape": [int(shape[0]), int(shape[1])],
            "encoding": (
                "metres"
                if absolute
                else "normalised 0..1"
                if fmt in ("EXR", "NPY")
                else "normalised, 0 -> 0, 1 -> 65535"
            ),
            "height_range_m": list(height_range) if height_range is not None else None,
            "orientation": ORIENTATION_SOUTH if south_first else ORIENTATION,
        }
    )
    if fmt in ("PNG16", "R16") and not absolute and height_range is not None:
        info["levels"] = engine_levels(height_range)
    if fmt == "R16":
        info["raw"] = {"dtype": "uint16", "byte_order": "little", "layout": "row-major", "header": None}
    return info


def read_sidecar(path: str) -> dict[str, Any] | None:
    """The JSON object of ``path + ".json"``, or ``None`` if there is no such file.

    Raises
    ------
    ValueError
        If the sidecar is not a regular file (a FIFO, a link to a device), is
        larger than :data:`SIDECAR_MAX_BYTES`, is not JSON or not an object.
    """
    sidecar = path + ".json"
    if not os.path.lexists(sidecar):
        return None
    name = os.path.basename(sidecar)
    try:
        data = load_json(Path(sidecar), name, max_bytes=SIDECAR_MAX_BYTES)
    except JSONError as err:
        raise ValueError(str(err).replace(f" ({sidecar})", "")) from None
    if not isinstance(data, dict):
        raise ValueError(f"{name} must be a JSON object, got {type(data).__name__}")
    return data


def raw_layout(path: str, size: int) -> tuple[tuple[int, int], str]:
    """``((rows, cols), byte_order)`` of a RAW file of ``size`` bytes, from its sidecar or else square.

    The sidecar's ``"shape"`` gives the shape; its ``"raw"`` object, if any,
    must describe unsigned 16-bit row-major data without a header, and its
    ``"byte_order"`` (``"little"`` or ``"big"``) is honoured. Without a sidecar
    the file is little-endian and square.

    Raises
    ------
    ValueError
        For a sidecar that cannot be read or describes another layout.
    """
    info = read_sidecar(path)
    if info is None:
        side = math.isqrt(size // 2)
        return (side, side), "little"
    name = os.path.basename(path) + ".json"
    try:
        shape = check_shape(info.get("shape"))
    except (TypeError, ValueError):
        raise ValueError(f'{name} must be a JSON object with "shape": [rows, cols]') from None
    raw = info.get("raw", {})
    if not isinstance(raw, dict):
        raise ValueError(f'{name}: "raw" must be an object, got {type(raw).__name__}')
    expected = {"dtype": "uint16", "layout": "row-major", "header": None}
    for key, value in expected.items():
        if key in raw and raw[key] != value:
            raise ValueError(f'{name}: "raw".{key} is {str(raw[key])[:40]!r}; Orogen reads {value!r} only')
    order = raw.get("byte_order", "little")
    if order not in ("little", "big"):
        raise ValueError(f'{name}: "raw".byte_order must be "little" or "big", got {str(order)[:40]!r}')
    return shape, order


def read_raw(path: str, check_size: SizeCheck | None = None) -> npt.NDArray[np.float32]:
    """Read a RAW 16-bit heightmap as ``float32 (rows, cols)``: ``level / 65535``.

    The shape and byte order come from :func:`raw_layout`. ``check_size(rows,
    cols)`` runs before the values are read. Raises ``ValueError`` when the
    file's size does not match its shape, it is not a regular file, or it cannot be read.
    """
    name = os.path.basename(path)
    size = _regular_file(path, name)
    try:
        (rows, cols), order = raw_layout(path, size)
        if rows * cols * 2 != size:
            raise ValueError(
                f"{name} has {size} bytes: not a {rows} x {cols} 16-bit RAW heightmap "
                '(give it a <file>.json sidecar with its "shape" if it is not square)'
            )
        if check_size is not None:
            check_size(rows, cols)
        with open(path, "rb") as f:
            data = f.read(size + 1)
    except OSError as err:
        raise ValueError(f"cannot read {name}: {err.strerror or err}") from None
    if len(data) != size:
        raise ValueError(f"{name} changed size while it was read")
    levels = np.frombuffer(data, dtype="<u2" if order == "little" else ">u2")
    return levels.reshape(rows, cols).astype(np.float32) / np.float32(65535.0)


def read_npy(path: str, check_size: SizeCheck | None = None) -> npt.NDArray[np.float32]:
    """Read a ``.npy`` file holding a 2D array of real numbers as ``float32 (rows, cols)``.

    Read without pickles, memory-mapped until ``check_size(rows, cols)`` has
    accepted the shape. Raises ``ValueError`` for anything else (a ``.npz``
    archive, object arrays, 3D arrays, a truncated file, a FIFO or device).
    """
    name = os.path.basename(path)
    _regular_file(path, name)
    try:
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except Exception as err:  # noqa: BLE001 - any failure to parse a foreign file means it is not readable
        raise ValueError(f"{name} is not a readable .npy array: {str(err)[:200]}") from None
    if not isinstance(array, np.ndarray):  # a .npz archive under a .npy name
        getattr(array, "close", lambda: None)()
        raise ValueError(f"{name} is an archive of arrays, not one array (save it with numpy.save)")
    if array.ndim != 2 or array.dtype.kind not in "iuf":
        raise ValueError(f"{name} must hold a 2D array of real numbers, got shape {array.shape} of {array.dtype}")
    if check_size is not None:
        check_size(*array.shape)
    try:
        return np.array(array, dtype=np.float32)
    except OSError as err:
        raise ValueError(f"cannot read {name}: {err}") from None


@dataclass(frozen=True)
class SidecarScale:
    """What a sidecar says of its heightmap's place in metres (:func:`sidecar_scale`).

    ``width`` is the terrain's longer side and ``height`` its Height (metres per unit of its heights), each
    ``None`` when the sidecar does not record it (then the spec it holds, if any, says it); ``metres`` says the
    file holds metres, else ``height_range`` is ``(low, high)``, the metres its values 0 and 1 stand for (or
    ``None``); ``south_first`` that its first row is the south edge; ``location`` the centre of a tile in its
    world's frame, metres, or ``None``; ``look`` the lighting, material and colour layers as spec JSON
    (``{"lighting": ..., "material": ..., "layers": ...}``) or ``None``; ``version`` the sidecar's version;
    ``top`` the highest level of a 16-bit file's values (65535: its encoding says ``1 -> 65535``, any version),
    else ``None``.
    """

    width: float | None
    height: float | None
    metres: bool
    height_range: tuple[float, float] | None
    south_first: bool
    location: tuple[float, float, float] | None
    look: Mapping[str, Any] | None
    version: int
    top: int | None = None


def sidecar_scale(info: Mapping[str, Any], name: str) -> SidecarScale:
    """Read the scale of a sidecar's JSON object ``info`` (named ``name`` in messages), any version.

    Version 1 (no ``sidecar_version``): ``width_m``, ``height_range_m`` and the encoding as version 2 has them;
    its Height is the spec's (the caller reads it) or, without a spec, the relief ``high - low``; rows north
    first.

    Raises
    ------
    TypeError, ValueError
        Naming the key: a width outside (0, 10⁶] m, a Height outside [0, 10⁵] m, a height range that is not
        ``[low, high]`` with ``low <= high`` finite metres, a ``row_0`` other than "north"/"south", a location
        that is not three finite numbers, a ``look`` that is not an object, a version newer than this Orogen's.
    """
    version = info.get("sidecar_version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= SIDECAR_VERSION:
        raise ValueError(
            f"{name}: sidecar_version {str(version)[:20]!r} is not one this Orogen reads (1 to {SIDECAR_VERSION}): "
            "update Orogen"
        )
    width = (
        None if info.get("width_m") is None else check_number(info["width_m"], f"{name}: width_m", low=1e-3, high=1e6)
    )
    span = info.get("height_range_m")
    height_range = None
    if span is not None:
        if not isinstance(span, list) or len(span) != 2:
            raise ValueError(f"{name}: height_range_m must be [low, high] in metres")
        low, high = (check_number(v, f"{name}: height_range_m", low=-1e6, high=1e6) for v in span)
        if high < low:
            raise ValueError(f"{name}: height_range_m must be [low, high] with low <= high, got {span}")
        height_range = (low, high)
    height = None
    if info.get("height_m") is not None:
        height = check_number(info["height_m"], f"{name}: height_m", low=0.0, high=1e5)
    elif version == 1 and not isinstance(info.get("spec"), Mapping) and height_range is not None and width is not None:
        height = check_number(height_range[1] - height_range[0], f"{name}: height range", low=0.0, high=1e5)
    row_0 = info.get("row_0", "north")
    if row_0 not in ("north", "south"):
        raise ValueError(f'{name}: row_0 must be "north" or "south", got {str(row_0)[:40]!r}')
    location = info.get("location_m")
    if location is not None:
        if not isinstance(location, list) or len(location) != 3:
            raise ValueError(f"{name}: location_m must be [x, y, z] in metres")
        x, y, z = (check_number(v, f"{name}: location_m", low=-1e9, high=1e9) for v in location)
        location = (x, y, z)
    look = info.get("look")
    if look is not None and not isinstance(look, Mapping):
        raise ValueError(f"{name}: look must be an object (lighting, material, layers)")
    return SidecarScale(
        width=width,
        height=height,
        metres=info.get("encoding") == "metres",
        height_range=height_range,
        south_first=row_0 == "south",
        location=location,
        look=look,
        version=version,
        top=TOP_16 if str(info.get("encoding", "")).endswith(f"1 -> {TOP_16}") else None,
    )


def file_heights(values: npt.ArrayLike, scale: SidecarScale) -> npt.NDArray[np.float32] | None:
    """A heightmap file's ``values`` (``(rows, cols)``, as read) in metres, row 0 north, as its sidecar says.

    Metres as they are (``float32``, bit for bit); normalised values as ``low + v × (high - low)`` over the
    sidecar's height range, in float64 rounded once to float32 (so ``v × Height`` comes back as the terrain's
    ``float32`` product exactly when the range is ``(0, Height)``); a 16-bit file's values (``scale.top``)
    are first rounded to their level (:func:`dequantise`), so its metres come back within half a step
    ``(high - low) / 65535`` (plus float32's rounding of the metres). Rows are flipped when the file is south
    first. ``None`` when the sidecar gives neither metres nor a height range.
    """
    v = np.asarray(values)
    if scale.south_first:
        v = v[::-1]
    if scale.metres:
        return np.ascontiguousarray(v, dtype=np.float32)
    if scale.height_range is None:
        return None
    low, high = scale.height_range
    if scale.top is not None:
        return dequantise(v.astype(np.float32), (low, high), top=scale.top).astype(np.float32)
    return (low + v.astype(np.float64) * (high - low)).astype(np.float32)


def units_of_metres(metres: npt.ArrayLike, height: float) -> npt.NDArray[np.float32]:
    """Heights in metres as ``float32`` units of ``height`` whose product gives them back exactly.

    For each value ``m`` the result ``u`` is ``float32(m / height)`` or its neighbour float32 on either side,
    the one for which ``u * float32(height) == m`` in float32 (the product a terrain mesh's Z is), whenever
    one of them gives it: every ``m`` that is such a product comes back bit for bit. Others (metres no
    float32 product gives) are the nearest quotient, within one float32 step.

    Parameters
    ----------
    metres : array_like of float, any shape
        Finite heights in metres.
    height : float
        Metres per unit, greater than 0.

    Raises
    ------
    ValueError
        If ``height`` is not a positive finite number, or a quotient lies beyond float32's range.
    """
    h32 = np.float32(check_number(height, "height", low=1e-30, high=1e30))
    m = np.asarray(metres, dtype=np.float32)
    q = m.astype(np.float64) / float(h32)
    top = float(np.abs(q).max(initial=0.0))
    if top > float(np.finfo(np.float32).max):
        raise ValueError(
            f"heights of {float(np.abs(m).max()):g} m at a Height of {float(h32):g} m leave float32's range "
            f"({top:g} units)"
        )
    u = q.astype(np.float32)
    for towards in (np.float32(np.inf), np.float32(-np.inf)):
        wrong = u * h32 != m
        if not wrong.any():
            break
        neighbour = np.nextafter(u, towards)
        u = np.where(wrong & (neighbour * h32 == m), neighbour, u)
    return u
