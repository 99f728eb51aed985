"""Moving heightmaps and baked maps between Blender and files: Blender's image API for PNG and OpenEXR.

Orientation everywhere: row 0 of an array is the top row of the image and
the north (+Y) edge of the terrain mesh. PNG and EXR pass through Blender's
image writer (no hand-written encoders); data maps are tagged Non-Color so
no colour transform touches their values: 0 maps to 0 and 1 to 65535
exactly in a 16-bit PNG. RAW, ``.npy`` and the JSON sidecars are core's
(:mod:`core.formats`), (Geo)TIFF is read by :mod:`core.geotiff`, and every
file written reaches its target through :func:`core.files.commit`
(verified, then one atomic rename).
"""

import contextlib
import json
import os

import bpy
import numpy as np
import numpy.typing as npt

from ...core.heightmap import check_shape, surface_heights
from ...core.io import files, formats
from ...core.io.image_headers import check_file
from ..terrain.compute import check_decode_memory

HEIGHTMAP_FORMATS = ("PNG16", "EXR", "R16", "NPY")
_SUFFIX = {"PNG16": ".png", "EXR": ".exr", "R16": ".r16", "NPY": ".npy"}


def _check_finite(values: npt.NDArray, what: str) -> None:
    if not np.isfinite(values).all():
        raise ValueError(f"{what} holds NaN or Inf: nothing was written")


@contextlib.contextmanager
def naming(path: str):
    """Give an ``OSError`` raised inside without a file name (``f.write`` on a full disk: "[Errno 28] No space
    left on device") the name of ``path``, the file being written."""
    try:
        yield
    except OSError as err:
        if err.filename is None:
            raise OSError(err.errno, err.strerror or str(err), path) from err
        raise


def staged_error(err: OSError, staging: str, folder: str) -> OSError:
    """``err`` (raised while writing into the staging folder ``staging`` of ``folder``) as the user should read
    it: naming the file in ``folder`` that was being written, and saying that nothing was written or changed
    (the caller removes the staging folder). An error about another file is returned as it is."""
    name = err.filename if isinstance(err.filename, str) else None
    if name is None or os.path.dirname(os.path.abspath(name)) != os.path.abspath(staging):
        return err
    target = os.path.join(folder, os.path.basename(name))
    new = OSError(f"could not write {target}: {err.strerror or err}; no file was written or changed")
    new.errno = err.errno
    return new


def write_image(
    path: str, values: npt.ArrayLike, *, depth: str = "8", file_format: str = "PNG", data: bool = True
) -> str:
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
    if file_format == "PNG":
        arr = np.clip(arr, 0.0, 1.0)
        if data:
            # Quantise here (round to nearest level) and hand Blender exact levels, so its own float -> integer
            # conversion cannot round a value near a half-level the other way.
            top = 65535.0 if depth == "16" else 255.0
            arr = np.rint(arr * top) / top
    rgba = np.ones((rows, cols, 4), dtype=np.float32)
    rgba[..., :3] = arr[..., :3] if channels >= 3 else arr[..., :1]
    if channels == 4:
        rgba[..., 3] = arr[..., 3]
    # Four 8-bit data channels (splat weights) are four independent values, not colour and coverage: a float
    # buffer is taken as premultiplied and divided by alpha on save, so (11, 118, 116, 10) would be written
    # as (255, 255, 255, 10), whatever the alpha mode. A byte buffer is stored and written as given.
    packed = channels == 4 and data and file_format == "PNG" and depth == "8"
    image = bpy.data.images.new("orogen-export", cols, rows, alpha=channels == 4, float_buffer=not packed, is_data=data)
    scene = bpy.data.scenes.new("orogen-export")
    try:
        if packed:
            image.alpha_mode = "CHANNEL_PACKED"
        image.colorspace_settings.name = "Non-Color" if data else "Linear Rec.709"
        image.pixels.foreach_set(rgba[::-1].ravel())  # Blender's rows start at the bottom
        settings = scene.render.image_settings
        settings.file_format = file_format
        settings.color_mode = {1: "BW", 3: "RGB", 4: "RGBA"}[channels]
        settings.color_depth = depth
        if file_format == "OPEN_EXR":
            settings.exr_codec = "ZIP"
        scene.view_settings.view_transform = "Standard"
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
    be PNG, TIFF or OpenEXR, whole: :func:`core.io.image_headers.check_file` reads
    its header and checks that every chunk, strip or tile lies inside the
    file (Blender's OpenEXR loader crashes on a cut file, its TIFF loader
    fills missing strips with 0). ``check_size(rows, cols)`` runs on the
    size its header gives before Blender decodes any pixel, to refuse an
    image too large for memory. Raises ``ValueError``.
    """
    # The size from the header first: Blender decodes the whole image to answer Image.size, and a small
    # compressed file can claim gigabytes of pixels.
    _, rows, cols = check_file(path, check_size, formats=("PNG", "TIFF", "OpenEXR"))
    image = bpy.data.images.load(path, check_existing=False)
    try:
        image.colorspace_settings.name = "Non-Color"
        if tuple(image.size) == (0, 0):
            raise ValueError(
                f"Blender could not read the pixels of {os.path.basename(path)} (broken, or a "
                "multilayer OpenEXR: save the heights as a single-layer image)"
            )
        if tuple(image.size) != (cols, rows):
            raise ValueError(
                f"{os.path.basename(path)} could not be read as an image (Blender read "
                f"{image.size[0]} x {image.size[1]} pixels, its header says {cols} x {rows})"
            )
        pixels = np.empty(rows * cols * 4, dtype=np.float32)
        image.pixels.foreach_get(pixels)
    finally:
        bpy.data.images.remove(image)
    return pixels.reshape(rows, cols, 4)[::-1].copy()


#: What :func:`read_heightmap` reads, for messages and the file browser.
IMPORT_SUFFIXES = (".png", ".tif", ".tiff", ".exr", ".r16", ".raw", ".npy")


def read_heightmap(path: str, check_size=None) -> npt.NDArray[np.float32]:
    """Read a heightmap file as ``float32 (rows, cols)``, row 0 the north (top) edge.

    :func:`read_elevation` without the georeferencing.
    """
    return read_elevation(path, check_size)[0]


def read_elevation(path: str, check_size=None):
    """Read a heightmap file: ``(float32 (rows, cols), core.geotiff.Elevation or None)``, row 0 north.

    - PNG (8/16-bit) and OpenEXR go through :func:`read_image` and must be
      grey: an image whose red, green and blue differ anywhere is refused
      (a colour or palette picture is not a heightmap, and its red channel
      alone would import silently).
    - TIFF is read by :func:`core.geotiff.read_elevation` (tifffile): heights
      in metres when georeferenced, nodata filled and counted; the
      ``Elevation`` is returned beside the values.
    - ``.r16``/``.raw`` and ``.npy``: :func:`core.formats.read_raw` and
      :func:`core.formats.read_npy` (the RAW sidecar's shape and byte order
      are honoured).

    ``check_size(rows, cols)`` runs before the values are read. Raises
    ``ValueError`` naming the problem (unknown format, a size that does not
    match, a cut file, NaN or Inf values); nothing is left in ``bpy.data``.
    """
    from ...core.generators.sources import grey_values
    from ...core.io import geotiff

    suffix = os.path.splitext(path)[1].lower()
    name = os.path.basename(path)
    elevation = None
    if suffix in formats.RAW_SUFFIXES:
        values = formats.read_raw(path, check_size)
    elif suffix == ".npy":
        values = formats.read_npy(path, check_size)
    elif suffix in (".tif", ".tiff"):
        elevation = geotiff.read_elevation(path, check_size, check_bytes=check_decode_memory)
        values = elevation.heights
    elif suffix in IMPORT_SUFFIXES:
        values = grey_values(read_image(path, check_size), name)  # core's check: grey, finite
    else:
        raise ValueError(
            f"cannot read {suffix or 'a file without a suffix'}: "
            f"Orogen reads heightmaps in {', '.join(IMPORT_SUFFIXES)}"
        )
    if not np.isfinite(values).all():
        raise ValueError(f"{name} holds NaN or Inf heights")
    return values, elevation


def write_heightmap(
    path_stem: str,
    heightmap: npt.NDArray[np.float32],
    fmt: str,
    *,
    height_range: tuple[float, float] | None = None,
    absolute: bool = False,
    sidecar: dict | None = None,
    metres: npt.NDArray[np.float32] | None = None,
) -> list[str]:
    """Write a heightmap in ``fmt`` ('PNG16', 'EXR', 'R16', 'NPY'); returns the files written.

    ``heightmap`` is normalised to ``[0, 1]``; ``height_range = (low, high)``
    gives the metres that 0 and 1 stand for. With ``absolute`` the EXR and
    NPY files hold heights in metres instead. PNG16 and R16 hold 16-bit levels of the metres over their
    own relief (:func:`core.io.formats.quantise`: level 0 the lowest metre, 65535 the highest; the sidecar's
    height range is then that ``[min, max]``, and its ``"levels"`` the same for game engines). A JSON sidecar
    ``<file>.json`` (e.g. ``terrain_height.r16.json``) records ``sidecar``
    plus the height range, the encoding and the orientation, whenever a
    height range or sidecar data is given. ``metres`` (``float32``, the shape of ``heightmap``) are the
    heights an absolute file holds and a 16-bit file quantises when given (a terrain's vertex Z, so that an
    import gives them back bit for bit, or within half a 16-bit step of their relief), instead of
    ``low + heightmap × (high - low)``.
    """
    if fmt not in HEIGHTMAP_FORMATS:
        raise ValueError(f"format must be one of {HEIGHTMAP_FORMATS}, got {fmt!r}")
    h = np.asarray(heightmap, dtype=np.float64)
    _check_finite(h, "heightmap")
    path = path_stem + _SUFFIX[fmt]
    if absolute and height_range is None:
        raise ValueError("absolute heights need a height_range in metres")
    absolute = absolute and fmt in ("EXR", "NPY")
    values = height_range[0] + h * (height_range[1] - height_range[0]) if absolute and height_range else h
    if absolute and metres is not None:
        values = np.asarray(metres, dtype=np.float32)
        _check_finite(values, "heights in metres")
        if values.shape != h.shape:
            raise ValueError(f"metres of shape {values.shape} for a heightmap of shape {h.shape}")
    if fmt in ("PNG16", "R16") and not absolute and height_range is not None:
        source = np.asarray(metres, dtype=np.float32) if metres is not None else values
        if metres is None:  # the metres the normalised values stand for
            source = height_range[0] + h * (height_range[1] - height_range[0])
        elif source.shape != h.shape:
            raise ValueError(f"metres of shape {source.shape} for a heightmap of shape {h.shape}")
        levels, height_range = formats.quantise(source)  # over their relief: one step is (max - min) / 65535
        values = levels.astype(np.float64) / formats.TOP_16
    if fmt == "PNG16":
        write_image(path, values, depth="16")
    elif fmt == "EXR":
        write_image(path, values, depth="32", file_format="OPEN_EXR")
    elif fmt == "R16":
        with naming(path):
            formats.write_raw(path, values)
    else:
        with naming(path):
            formats.write_npy(path, values)
    written = [path]
    if sidecar is not None or height_range is not None:
        info = formats.sidecar_info(path, h.shape, fmt, absolute=absolute, height_range=height_range, extra=sidecar)
        with naming(path + ".json"), open(path + ".json", "w", encoding="utf-8") as f:
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


def mesh_heights(obj: bpy.types.Object) -> tuple[npt.NDArray[np.float32], tuple[float, float], int]:
    """The heights of the terrain the user sees: ``(normalised float32 (rows, cols), (low, high) metres, edited)``.

    Positions come from the evaluated object (shape keys at their values,
    and modifiers that keep the vertices, such as Displace or Smooth), or from
    the mesh itself when a modifier changes the vertex count (Subdivision).
    When every Z equals the generated height (``height × Height``) this is the
    ``height`` attribute with the range ``(0, Height)``, bit for bit (when the
    attribute lies in [0, 1]: a version-3 terrain whose filters raised it above
    Height is normalised over its own range, in metres);
    otherwise (hand edits, sculpting, shape keys) the heights are the
    vertices' Z, normalised over their own range, and ``edited`` counts the
    vertices that differ. Raises ``ValueError`` when the vertices no longer
    stand on the grid (moved sideways, reordered): such a mesh is no heightmap.
    """
    z, generated, height = _surface(obj)
    return surface_heights(z, generated, height)


def surface_z(obj: bpy.types.Object) -> npt.NDArray[np.float32]:
    """The heights of the terrain the user sees in metres, ``float32 (rows, cols)``, row 0 north: its vertices'
    Z, as :func:`mesh_heights` reads them (an absolute export writes these, bit for bit)."""
    return _surface(obj)[0]


def terrain_sidecar(obj: bpy.types.Object, spec) -> dict:
    """What an export's sidecar records so that an import gives the terrain back: its Height (``height_m``,
    metres per unit of its heights) and its look (``look``: lighting, material with the water, and colour
    layers, as spec JSON). See :func:`core.io.formats.sidecar_scale`."""
    info = json.loads(obj.get("orogen_terrain", "{}"))
    return {"height_m": float(info["height"]), "look": spec_look(spec)}


def spec_look(spec) -> dict:
    """A spec's look as a sidecar records it: ``{"version", "lighting", "material", "layers"}`` of its JSON."""
    made = spec.to_dict()
    return {key: made[key] for key in ("version", "lighting", "material", "layers")}


def _surface(obj: bpy.types.Object) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], float]:
    """``(vertex Z in metres, generated heights in units of Height, Height)`` of a terrain, each
    ``(rows, cols)``; raises ``ValueError`` as :func:`mesh_heights` says."""
    from ..mesh import grid_coordinates

    info = json.loads(obj.get("orogen_terrain", "{}"))
    generated = heightmap_from_mesh(obj)
    rows, cols = generated.shape
    height = float(info["height"])
    mesh, evaluated = obj.data, None
    depsgraph = bpy.context.evaluated_depsgraph_get() if bpy.context is not None else None
    if depsgraph is not None:
        evaluated = obj.evaluated_get(depsgraph)
        candidate = evaluated.to_mesh()
        if len(candidate.vertices) == rows * cols:
            mesh = candidate
    try:
        co = np.empty(rows * cols * 3, dtype=np.float32)
        mesh.vertices.foreach_get("co", co)
    finally:
        if evaluated is not None:
            evaluated.to_mesh_clear()
    co = co.reshape(rows, cols, 3)
    grid = grid_coordinates(np.zeros((rows, cols), np.float32), float(info["width"]), height).reshape(rows, cols, 3)
    cell = float(info["width"]) / max(rows - 1, cols - 1, 1)
    if np.abs(co[..., :2] - grid[..., :2]).max(initial=0.0) > 1e-3 * cell:
        raise ValueError(
            f"{obj.name!r}: its vertices no longer stand on the terrain's grid (moved sideways or "
            "reordered), so it is no heightmap: regenerate it, or undo the edit"
        )
    return np.ascontiguousarray(co[..., 2]), generated, height


def _shape_of(obj: bpy.types.Object, info: dict) -> tuple[int, int]:
    """The terrain's ``(rows, cols)``, checked against its mesh (a hand-edited property must not allocate)."""
    shape = info.get("shape")
    checked = _recorded_shape(shape)
    if checked is None or checked[0] * checked[1] != len(obj.data.vertices):
        raise ValueError(
            f"{obj.name!r}: its orogen_terrain shape {shape!r} does not match its "
            f"{len(obj.data.vertices)} vertices (was the mesh edited?)"
        )
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
    if attr.data_type == "FLOAT_COLOR":
        values = np.empty(rows * cols * 4, dtype=np.float32)
        attr.data.foreach_get("color", values)
        return values.reshape(rows, cols, 4)[..., 0]
    values = np.empty(rows * cols, dtype=np.float32)
    attr.data.foreach_get("value", values)
    return values.reshape(rows, cols)


#: Units of the erosion maps, recorded in their sidecar.
EROSION_UNITS = {
    "drainage_area": "m2",
    "flow_direction": "D8 code (core.flow.NEIGHBOR_OFFSETS index, -1 outlet)",
    "water_depth": "m",
    "deposited": "m",
    "removed": "m",
    "ice_thickness": "m",
    "lake_depth": "m (> 0: the lake mask)",
    "river_width": "m (> 0: the river mask)",
    "river_depth": "m",
}


def write_erosion_maps(stem: str, maps: dict[str, npt.NDArray[np.float32]]) -> list[str]:
    """Write each erosion map as ``stem_<name>.exr`` (32-bit float, the values) and ``stem_<name>.png`` (a 16-bit
    grey mask, ``(v - low) / (high - low)``), with ``stem_erosion.json`` recording each map's ``low``, ``high``
    and unit (a constant map is written as 0). Returns the paths."""
    written: list[str] = []
    ranges = {}
    for name, values in maps.items():
        v = np.asarray(values, dtype=np.float32)
        _check_finite(v, name)
        low, high = float(v.min()), float(v.max())
        ranges[name] = {"low": low, "high": high, "unit": EROSION_UNITS.get(name, "")}
        written.append(write_image(f"{stem}_{name}.exr", v, depth="32", file_format="OPEN_EXR"))
        scaled = (v.astype(np.float64) - low) / (high - low) if high > low else np.zeros(v.shape)
        written.append(write_image(f"{stem}_{name}.png", scaled, depth="16"))
    path = f"{stem}_erosion.json"
    with naming(path), open(path, "w", encoding="utf-8") as f:
        json.dump({"maps": ranges, "png": "16-bit grey: value = low + png / 65535 * (high - low)"}, f, indent=1)
    written.append(path)
    return written


def stage_dir(folder: str) -> str:
    """A private staging folder inside ``folder`` for files to :func:`commit` (see :func:`core.files.stage_dir`)."""
    return files.stage_dir(folder)


def commit(pairs: list[tuple[str, str]], shape: tuple[int, int] | None = None) -> None:
    """Move each ``(staged, target)`` file onto its target: verified, atomically, all or nothing.

    :func:`core.files.commit`, with ``shape`` the ``(rows, cols)`` every
    image, RAW and ``.npy`` target must have. A file Blender's writer left
    short (a full disk, a file-size limit) fails the check and nothing is
    replaced (``ValueError``); a failed rename puts the old files back
    (``OSError``). The staged files stay with the caller.
    """
    shapes = {}
    if shape is not None:
        for _, target in pairs:
            if os.path.splitext(target)[1].lower() != ".json":
                shapes[os.path.abspath(target)] = tuple(shape)
    files.commit(pairs, shapes)


def terrain_shape(obj: bpy.types.Object) -> tuple[int, int]:
    """A terrain object's ``(rows, cols)``, checked against its mesh."""
    return _shape_of(obj, json.loads(obj.get("orogen_terrain", "{}")))


def check_path(directory: str) -> str:
    """An absolute, writable folder (created if missing); raises ``ValueError`` otherwise.

    A folder relative to the .blend file (``//``) needs a saved .blend file:
    without one Blender has nothing to resolve it against.
    """
    if directory.startswith("//") and not bpy.data.filepath:
        raise ValueError(
            f"the folder {directory!r} is relative to the .blend file, which is not saved: "
            "save the file first or choose an absolute folder"
        )
    path = os.path.abspath(bpy.path.abspath(directory))
    if os.path.exists(path) and not os.path.isdir(path):
        raise ValueError(f"{path} is a file, not a folder")
    os.makedirs(path, exist_ok=True)
    if not os.access(path, os.W_OK):
        raise ValueError(f"{path} is not writable")
    return path
