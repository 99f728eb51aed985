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
  :data:`SIDECAR_MAX_BYTES`).
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..heightmap import check_shape
from .jsonio import JSONError, load_json

__all__ = [
    "ORIENTATION",
    "RAW_SUFFIXES",
    "SIDECAR_MAX_BYTES",
    "raw_layout",
    "read_npy",
    "read_raw",
    "read_sidecar",
    "sidecar_info",
    "write_npy",
    "write_raw",
]

#: Suffixes read as RAW 16-bit heightmaps.
RAW_SUFFIXES = (".r16", ".raw")
#: Largest sidecar read, in bytes (Orogen's own are about 2 kB with a recipe).
SIDECAR_MAX_BYTES = 1 << 20
ORIENTATION = "row 0 = top row of the image = north (+Y) edge of the mesh; column 0 = west (-X)"

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
) -> dict[str, Any]:
    """The JSON sidecar's content for a heightmap file ``path`` of ``shape`` in ``fmt``.

    ``fmt`` is 'PNG16', 'EXR', 'R16' or 'NPY'; ``absolute`` says the values are
    metres (EXR and NPY only); ``extra`` (recipe, cell size...) is merged first.
    """
    info = dict(extra or {})
    info.update(
        {
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
            "orientation": ORIENTATION,
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
