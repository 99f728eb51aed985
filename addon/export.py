"""Writing heightmaps and baked maps to files with Blender's image API (PNG, OpenEXR) and numpy (RAW, .npy).

Orientation everywhere: row 0 of an array is the top row of the image and
the north (+Y) edge of the terrain mesh. PNG and EXR pass through Blender's
image writer (no hand-written encoders); data maps are tagged Non-Color so
no colour transform touches their values: 0 maps to 0 and 1 to 65535
exactly in a 16-bit PNG. RAW is little-endian unsigned 16-bit, row-major,
no header (the ``.r16`` layout terrain tools and game engines read).
"""

import contextlib
import json
import math
import os

import bpy
import numpy as np
import numpy.typing as npt

from ..core.heightmap import check_shape
from ..core.imagesize import image_size

HEIGHTMAP_FORMATS = ('PNG16', 'EXR', 'R16', 'NPY')
_SUFFIX = {'PNG16': ".png", 'EXR': ".exr", 'R16': ".r16", 'NPY': ".npy"}


def _check_finite(values: npt.NDArray, what: str) -> None:
    if not np.isfinite(values).all():
        raise ValueError(f"{what} holds NaN or Inf: nothing was written")


def write_image(path: str, values: npt.ArrayLike, *, depth: str = '8', file_format: str = 'PNG',
                data: bool = True) -> str:
    """Write ``values`` (``(rows, cols)`` grey, or ``(rows, cols, 3|4)``) as an image file.

    Values are floats in ``[0, 1]`` (clipped) for PNG; any finite floats for
    OpenEXR. ``data=True`` writes them untouched (Non-Color); ``data=False``
    treats RGB as linear colour and lets Blender encode it for display
    (sRGB in PNG). ``depth`` is '8' or '16' for PNG, '16' or '32' for EXR.
    Uses a temporary scene, so the user's render settings are not touched.
    Returns the path written.
    """
    arr = np.asarray(values, dtype=np.float64)
    _check_finite(arr, os.path.basename(path))
    if arr.ndim == 2:
        arr = arr[..., None]
    rows, cols, channels = arr.shape
    if channels not in (1, 3, 4):
        raise ValueError(f"values must have 1, 3 or 4 channels, got {channels}")
    if file_format == 'PNG':
        arr = np.clip(arr, 0.0, 1.0)
        if data:
            # Quantise here (round to nearest level) and hand Blender exact levels, so its own float -> integer
            # conversion cannot round a value near a half-level the other way.
            top = 65535.0 if depth == '16' else 255.0
            arr = np.rint(arr * top) / top
    rgba = np.ones((rows, cols, 4), dtype=np.float32)
    rgba[..., :3] = arr[..., :3] if channels >= 3 else arr[..., :1]
    if channels == 4:
        rgba[..., 3] = arr[..., 3]
    image = bpy.data.images.new("orogen-export", cols, rows, alpha=channels == 4, float_buffer=True, is_data=data)
    scene = bpy.data.scenes.new("orogen-export")
    try:
        image.colorspace_settings.name = 'Non-Color' if data else 'Linear Rec.709'
        image.pixels.foreach_set(rgba[::-1].ravel())  # Blender's rows start at the bottom
        settings = scene.render.image_settings
        settings.file_format = file_format
        settings.color_mode = {1: 'BW', 3: 'RGB', 4: 'RGBA'}[channels]
        settings.color_depth = depth
        if file_format == 'OPEN_EXR':
            settings.exr_codec = 'ZIP'
        scene.view_settings.view_transform = 'Standard'
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        image.save_render(path, scene=scene)
    finally:
        bpy.data.images.remove(image)
        bpy.data.scenes.remove(scene)
    return path


def read_image(path: str, check_size=None) -> npt.NDArray[np.float32]:
    """Read an image with Blender's loader as raw values: ``float32 (rows, cols, 4)``, row 0 at the top.

    8- and 16-bit images come back as ``level / 255`` or ``level / 65535``
    (no colour transform: the image is read as Non-Color data). The file must
    be PNG, TIFF or OpenEXR: ``check_size(rows, cols)`` runs on the size its
    header gives (:func:`core.imagesize.image_size`) before Blender decodes
    any pixel, to refuse an image too large for memory. Raises ``ValueError``.
    """
    # The size from the header first: Blender decodes the whole image to answer Image.size, and a small
    # compressed file can claim gigabytes of pixels.
    try:
        _, rows, cols = image_size(path)
    except (ValueError, OSError) as err:
        raise ValueError(f"{os.path.basename(path)} cannot be read as an image: {err}") from None
    if check_size is not None:
        check_size(rows, cols)
    image = bpy.data.images.load(path, check_existing=False)
    try:
        image.colorspace_settings.name = 'Non-Color'
        if tuple(image.size) == (0, 0):
            raise ValueError(f"Blender could not read the pixels of {os.path.basename(path)} (broken, or a "
                             "multilayer OpenEXR: save the heights as a single-layer image)")
        if tuple(image.size) != (cols, rows):
            raise ValueError(f"{os.path.basename(path)} could not be read as an image (Blender read "
                             f"{image.size[0]} x {image.size[1]} pixels, its header says {cols} x {rows})")
        pixels = np.empty(rows * cols * 4, dtype=np.float32)
        image.pixels.foreach_get(pixels)
    finally:
        bpy.data.images.remove(image)
    return pixels.reshape(rows, cols, 4)[::-1].copy()


#: What :func:`read_heightmap` reads, for messages and the file browser.
IMPORT_SUFFIXES = (".png", ".tif", ".tiff", ".exr", ".r16", ".raw", ".npy")


def _raw_shape(path: str, size: int) -> tuple[int, int]:
    """``(rows, cols)`` of a RAW heightmap: its sidecar's ``shape`` if it has a sidecar, else square."""
    sidecar = path + ".json"
    if not os.path.exists(sidecar):
        side = math.isqrt(size // 2)
        return side, side
    try:
        with open(sidecar, encoding="utf-8") as f:
            shape = json.load(f).get("shape")
    except (ValueError, RecursionError, AttributeError):
        shape = None
    checked = _recorded_shape(shape)
    if checked is None:
        raise ValueError(f"{os.path.basename(sidecar)} must be a JSON object with \"shape\": [rows, cols]")
    return checked


def read_heightmap(path: str, check_size=None) -> npt.NDArray[np.float32]:
    """Read a heightmap file as ``float32 (rows, cols)``, row 0 the north (top) edge.

    Images (PNG 8/16-bit, TIFF, OpenEXR) go through :func:`read_image` and give
    their first channel. ``.r16``/``.raw`` is little-endian unsigned 16-bit,
    row-major, no header, read as ``level / 65535``; its shape comes from the
    ``<file>.json`` sidecar Orogen writes beside it, or else the file must be
    square. ``.npy`` must hold a 2D array of real numbers (read without
    pickles). ``check_size(rows, cols)`` runs before the values are read.

    Raises ``ValueError`` naming the problem (unknown format, a size that does
    not match, NaN or Inf values); nothing is left in ``bpy.data``.
    """
    suffix = os.path.splitext(path)[1].lower()
    name = os.path.basename(path)
    if suffix in (".r16", ".raw"):
        try:
            size = os.path.getsize(path)
            rows, cols = _raw_shape(path, size)
            if rows * cols * 2 != size:
                raise ValueError(f"{name} has {size} bytes: not a {rows} x {cols} 16-bit RAW heightmap "
                                 "(give it a <file>.json sidecar with its \"shape\" if it is not square)")
            if check_size is not None:
                check_size(rows, cols)
            levels = np.fromfile(path, dtype="<u2")
        except OSError as err:
            raise ValueError(f"cannot read {name}: {err.strerror or err}") from None
        values = levels.reshape(rows, cols).astype(np.float32) / np.float32(65535.0)
    elif suffix == ".npy":
        try:
            array = np.load(path, mmap_mode="r", allow_pickle=False)
        except Exception as err:  # noqa: BLE001 - any failure to parse a foreign file means it is not readable
            raise ValueError(f"{name} is not a readable .npy array: {err}") from None
        if not isinstance(array, np.ndarray):  # a .npz archive under a .npy name
            getattr(array, "close", lambda: None)()
            raise ValueError(f"{name} is an archive of arrays, not one array (save it with numpy.save)")
        if array.ndim != 2 or array.dtype.kind not in "iuf":
            raise ValueError(f"{name} must hold a 2D array of real numbers, got shape {array.shape} of {array.dtype}")
        if check_size is not None:
            check_size(*array.shape)
        try:
            values = np.array(array, dtype=np.float32)
        except OSError as err:
            raise ValueError(f"cannot read {name}: {err}") from None
    elif suffix in IMPORT_SUFFIXES:
        values = read_image(path, check_size)[..., 0]  # grey images repeat it in R, G and B
    else:
        raise ValueError(f"cannot read {suffix or 'a file without a suffix'}: "
                         f"Orogen reads heightmaps in {', '.join(IMPORT_SUFFIXES)}")
    if not np.isfinite(values).all():
        raise ValueError(f"{os.path.basename(path)} holds NaN or Inf heights")
    return values


def write_heightmap(path_stem: str, heightmap: npt.NDArray[np.float32], fmt: str, *,
                    height_range: tuple[float, float] | None = None, absolute: bool = False,
                    sidecar: dict | None = None) -> list[str]:
    """Write a heightmap in ``fmt`` ('PNG16', 'EXR', 'R16', 'NPY'); returns the files written.

    ``heightmap`` is normalised to ``[0, 1]``; ``height_range = (low, high)``
    gives the metres that 0 and 1 stand for. With ``absolute`` the EXR and
    NPY files hold heights in metres instead (PNG16 and R16 always keep the
    normalised levels, ``0 -> 0``, ``1 -> 65535``). A JSON sidecar
    ``<file>.json`` (e.g. ``terrain_height.r16.json``) records ``sidecar``
    plus the height range, the encoding and the orientation, whenever a
    height range or sidecar data is given.
    """
    if fmt not in HEIGHTMAP_FORMATS:
        raise ValueError(f"format must be one of {HEIGHTMAP_FORMATS}, got {fmt!r}")
    h = np.asarray(heightmap, dtype=np.float64)
    _check_finite(h, "heightmap")
    path = path_stem + _SUFFIX[fmt]
    if absolute and height_range is None:
        raise ValueError("absolute heights need a height_range in metres")
    absolute = absolute and fmt in ('EXR', 'NPY')
    values = height_range[0] + h * (height_range[1] - height_range[0]) if absolute and height_range else h
    if fmt == 'PNG16':
        write_image(path, values, depth='16')
    elif fmt == 'EXR':
        write_image(path, values, depth='32', file_format='OPEN_EXR')
    elif fmt == 'R16':
        levels = np.rint(np.clip(values, 0.0, 1.0) * 65535.0).astype("<u2")
        levels.tofile(path)
    else:
        np.save(path, values.astype(np.float32))
    written = [path]
    if sidecar is not None or height_range is not None:
        info = dict(sidecar or {})
        rows, cols = h.shape
        info.update({
            "file": os.path.basename(path),
            "shape": [rows, cols],
            "encoding": ("metres" if absolute else
                         "normalised 0..1" if fmt in ('EXR', 'NPY') else "normalised, 0 -> 0, 1 -> 65535"),
            "height_range_m": list(height_range) if height_range is not None else None,
            "orientation": "row 0 = top row of the image = north (+Y) edge of the mesh; column 0 = west (-X)",
        })
        if fmt == 'R16':
            info["raw"] = {"dtype": "uint16", "byte_order": "little", "layout": "row-major", "header": None}
        with open(path + ".json", "w", encoding="utf-8") as f:
            json.dump(info, f, indent=2, sort_keys=True)
        written.append(path + ".json")
    return written


def heightmap_from_mesh(obj: bpy.types.Object) -> npt.NDArray[np.float32]:
    """The normalised heightmap of an Orogen terrain object, from its ``height`` attribute, row 0 north."""
    info = json.loads(obj.get("orogen_terrain", "{}"))
    if "shape" not in info or "height" not in obj.data.attributes:
        raise ValueError(f"{obj.name!r} is not an Orogen terrain (no height attribute or shape)")
    rows, cols = _shape_of(obj, info)
    values = np.empty(rows * cols, dtype=np.float32)
    obj.data.attributes["height"].data.foreach_get("value", values)
    return values.reshape(rows, cols)


def _shape_of(obj: bpy.types.Object, info: dict) -> tuple[int, int]:
    """The terrain's ``(rows, cols)``, checked against its mesh (a hand-edited property must not allocate)."""
    shape = info.get("shape")
    checked = _recorded_shape(shape)
    if checked is None or checked[0] * checked[1] != len(obj.data.vertices):
        raise ValueError(f"{obj.name!r}: its orogen_terrain shape {shape!r} does not match its "
                         f"{len(obj.data.vertices)} vertices (was the mesh edited?)")
    return checked


def _recorded_shape(value: object) -> tuple[int, int] | None:
    """A ``(rows, cols)`` read from JSON (a sidecar, a terrain's property); ``None`` if ``check_shape`` refuses it."""
    try:
        return check_shape(value)
    except (TypeError, ValueError):
        return None


def point_map(obj: bpy.types.Object, name: str) -> npt.NDArray[np.float32] | None:
    """A float point attribute of a terrain as ``(rows, cols)``, or ``None`` if it has none."""
    info = json.loads(obj.get("orogen_terrain", "{}"))
    attr = obj.data.attributes.get(name)
    if attr is None or "shape" not in info:
        return None
    rows, cols = _shape_of(obj, info)
    if attr.data_type == 'FLOAT_COLOR':
        values = np.empty(rows * cols * 4, dtype=np.float32)
        attr.data.foreach_get("color", values)
        return values.reshape(rows, cols, 4)[..., 0]
    values = np.empty(rows * cols, dtype=np.float32)
    attr.data.foreach_get("value", values)
    return values.reshape(rows, cols)


def move_into_place(pairs: list[tuple[str, str]]) -> None:
    """Move each ``(new, target)`` file onto its target, all or none.

    Existing targets are first renamed aside (beside themselves, so on the
    same file system); only when every target is out of the way are the new
    files renamed in. Any failure (a folder where a file should go, an
    immutable or locked file) puts every old file back, moves what was
    placed back where it came from, and raises ``ValueError`` or
    ``OSError``: the folders are left as they were, and the ``new`` files
    stay with their caller.
    """
    for _, target in pairs:
        if os.path.isdir(target):
            raise ValueError(f"{target} is a folder: nothing was written")
    aside: list[tuple[str, str]] = []
    placed: list[tuple[str, str]] = []
    try:
        for i, (_, target) in enumerate(pairs):
            if os.path.lexists(target):
                backup = os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.{os.getpid()}-{i}.old")
                os.replace(target, backup)
                aside.append((target, backup))
        for new, target in pairs:
            os.replace(new, target)
            placed.append((new, target))
    except OSError:
        for new, target in reversed(placed):
            with contextlib.suppress(OSError):
                os.replace(target, new)
        for target, backup in reversed(aside):
            with contextlib.suppress(OSError):
                os.replace(backup, target)
        raise
    for _, backup in aside:
        with contextlib.suppress(OSError):
            os.remove(backup)


def check_path(directory: str) -> str:
    """An absolute, writable folder (created if missing); raises ``ValueError`` otherwise."""
    path = os.path.abspath(bpy.path.abspath(directory))
    if os.path.exists(path) and not os.path.isdir(path):
        raise ValueError(f"{path} is a file, not a folder")
    os.makedirs(path, exist_ok=True)
    if not os.access(path, os.W_OK):
        raise ValueError(f"{path} is not writable")
    return path
