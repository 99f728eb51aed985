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
    "file_heights",
    "raw_layout",
    "read_npy",
    "read_raw",
    "read_sidecar",
    "sidecar_info",
    "sidecar_scale",
    "units_of_metres",
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
    ``south_first`` says the file's first row is the south edge (Unity's RAW tiles).
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
    (``{"lighting": ..., "material": ..., "layers": ...}``) or ``None``; ``version`` the sidecar's version.
    """

    width: float | None
    height: float | None
    metres: bool
    height_range: tuple[float, float] | None
    south_first: bool
    location: tuple[float, float, float] | None
    look: Mapping[str, Any] | None
    version: int


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
    )


def file_heights(values: npt.ArrayLike, scale: SidecarScale) -> npt.NDArray[np.float32] | None:
    """A heightmap file's ``values`` (``(rows, cols)``, as read) in metres, row 0 north, as its sidecar says.

    Metres as they are (``float32``, bit for bit); normalised values as ``low + v × (high - low)`` over the
    sidecar's height range, in float64 rounded once to float32 (so ``v × Height`` comes back as the terrain's
    ``float32`` product exactly when the range is ``(0, Height)``). Rows are flipped when the file is south
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
