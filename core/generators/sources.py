"""Sources: a terrain that starts from outside Orogen, a heightmap file or a mesh, in metres.

Two generators whose output is metres, not raw values to normalise (:attr:`core.params.Generator.metres`: the
recipe divides them by the terrain's Height, :func:`core.io.formats.units_of_metres`, so the mesh's Z is them
bit for bit):

- :func:`file_source` reads a heightmap file in any format Orogen imports (RAW, ``.npy``, (Geo)TIFF here with
  numpy; PNG and OpenEXR decoded by the caller and given as a :class:`core.inputs.FileInput`, since numpy alone
  reads neither) in its metres, as the importer takes them: a sidecar's metres or height range (base height
  included, :func:`core.io.formats.file_heights`) in units of the sidecar's Height, else the values over their
  own range times the Height; a georeferenced DEM on square cells (:func:`core.io.geotiff.dem_square_grid`).
  A file of another size than the terrain is resampled bilinearly, corner on corner, onto its grid.
- :func:`object_source` rasterises a triangle mesh (:class:`core.inputs.MeshInput`, terrain-local metres) from
  above onto the terrain's grid: for each grid vertex the highest point of any triangle over it, by barycentric
  interpolation of the triangle's corners (the z-buffer of scan-conversion, e.g. Foley, van Dam, Feiner and
  Hughes, *Computer Graphics: Principles and Practice*, 2nd ed., 15.4, here vectorised over (triangle, vertex)
  pairs); vertices no triangle covers take the declared ``fill``.

Both honour windows exactly: every output value depends only on its world row and column, so a window equals
the same cells of the whole bit for bit.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import inputs
from ..heightmap import MAX_CELLS, normalize
from ..io import formats, geotiff
from ..io.image_headers import MAX_IMAGE_SIDE, check_file
from ..params import Generator, Param, When
from ..window import Window, check_window

__all__ = [
    "FILE_SUFFIXES",
    "DECODED_SUFFIXES",
    "FILLS",
    "SOURCES",
    "file_digest",
    "file_metres",
    "file_source",
    "grey_values",
    "object_source",
    "rasterise_mesh",
    "rasterise_values",
    "read_values",
    "resample_window",
    "resolve_path",
    "set_guards",
]

#: Suffixes a file source reads (those of File > Import > Orogen Heightmap).
FILE_SUFFIXES = (".png", ".tif", ".tiff", ".exr", ".r16", ".raw", ".npy")
#: Suffixes whose pixels the caller decodes (Blender's image loader) and gives as a ``FileInput``.
DECODED_SUFFIXES = (".png", ".exr")
#: What a vertex no triangle covers takes: the mesh's lowest point, or ``fill_height`` metres.
FILLS = (
    ("lowest", "Lowest Point", "The height of the mesh's lowest vertex"),
    ("value", "Fill Height", "Fill Height metres"),
)
#: Most (triangle, grid vertex) pairs tested at once (bounds the rasteriser's memory to about 0.5 GB).
PAIRS_PER_CHUNK = 1 << 22

SizeCheck = Callable[[int, int], None]


def _default_size(rows: int, cols: int) -> None:
    if max(rows, cols) > MAX_IMAGE_SIDE or rows * cols > MAX_CELLS:
        raise ValueError(f"a {rows} x {cols} file is too large: at most {MAX_IMAGE_SIDE} pixels a side")


_GUARDS: dict[str, Callable[..., None] | None] = {"size": None, "bytes": None}
#: The folder a path starting with ``//`` is relative to (Blender's relative paths: the .blend file's folder).
_BLEND_FOLDER: list[str | None] = [None]


def set_guards(
    check_size: SizeCheck | None = None,
    check_bytes: Callable[[int], None] | None = None,
    *,
    blend_folder: str | None = None,
) -> None:
    """Set the memory guards a file source runs before it decodes a file (the add-on sets its own at register
    and clears them at unregister): ``check_size(rows, cols)`` on the header's size, ``check_bytes(need)`` on a
    TIFF decoder's allocation; each raises ``ValueError`` to refuse. The size cap (:data:`MAX_IMAGE_SIDE`) and
    :data:`core.heightmap.MAX_CELLS` always hold. ``blend_folder`` is the folder a ``//`` path is relative to
    (the saved .blend file's; ``None``: such a path is refused)."""
    _GUARDS["size"], _GUARDS["bytes"] = check_size, check_bytes
    _BLEND_FOLDER[0] = blend_folder


def resolve_path(path: str, what: str = "file.path") -> str:
    """``path`` as a file system path: a Blender relative path (``//dem.png``) joined to the folder
    :func:`set_guards` was given; ``ValueError`` naming ``what`` when there is none (an unsaved .blend file)."""
    if not path.startswith("//"):
        return path
    folder = _BLEND_FOLDER[0]
    if not folder:
        raise ValueError(
            f"{what}: {path} is relative to the .blend file, which is not saved: save it or choose an absolute path"
        )
    return os.path.join(folder, path[2:])


def _check_size(rows: int, cols: int) -> None:
    _default_size(rows, cols)
    guard = _GUARDS["size"]
    if guard is not None:
        guard(rows, cols)


def file_digest(path: str) -> str:
    """SHA-256 (hex) of the file at ``path``, read in 1 MiB blocks; ``ValueError`` if it cannot be read."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError as err:
        raise ValueError(f"cannot read {os.path.basename(path)}: {err.strerror or err}") from None
    return h.hexdigest()


def grey_values(pixels: npt.NDArray[np.float32], name: str) -> npt.NDArray[np.float32]:
    """The grey of decoded RGBA ``pixels`` (``float32 (rows, cols, 4)``, row 0 north): the red channel when red,
    green and blue are equal everywhere; ``ValueError`` naming ``name`` for a colour image (its red channel alone
    would import silently) or for NaN or Inf."""
    if not (np.array_equal(pixels[..., 0], pixels[..., 1]) and np.array_equal(pixels[..., 0], pixels[..., 2])):
        raise ValueError(
            f"{name} is a colour image (its red, green and blue differ): a heightmap must be "
            "greyscale; convert it to grey first"
        )
    values = np.ascontiguousarray(pixels[..., 0], dtype=np.float32)
    if not np.isfinite(values).all():
        raise ValueError(f"{name} holds NaN or Inf heights")
    return values


def read_values(
    path: str,
    *,
    what: str = "file.path",
    check_size: SizeCheck | None = None,
    check_bytes: Callable[[int], None] | None = None,
) -> tuple[npt.NDArray[np.float32], geotiff.Elevation | None]:
    """A heightmap file's values as read, ``(float32 (rows, cols), Elevation or None)``, row 0 north.

    RAW and ``.npy`` through :mod:`core.io.formats`, TIFF through :func:`core.io.geotiff.read_elevation` (its
    ``Elevation`` beside); PNG and OpenEXR from the :class:`core.inputs.FileInput` in force for ``path`` (the
    caller decoded it), after :func:`core.io.image_headers.check_file` has checked the file whole and its size.
    ``check_size(rows, cols)`` (default: the size cap and the guards of :func:`set_guards`) runs before any
    value is read.

    Raises
    ------
    ValueError
        Starting with ``what``: no such file, an unknown suffix, a PNG or OpenEXR given no decoded values, and
        what the readers refuse (cut files, sizes, NaN or Inf).
    """
    check = check_size or _check_size
    name = os.path.basename(path) or path
    suffix = os.path.splitext(path)[1].lower()
    key, path = path, resolve_path(path, what)
    try:
        if not os.path.lexists(path):
            raise ValueError(f"no such file: {path}")
        elevation = None
        if suffix in formats.RAW_SUFFIXES:
            values = formats.read_raw(path, check)
        elif suffix == ".npy":
            values = formats.read_npy(path, check)
        elif suffix in (".tif", ".tiff"):
            elevation = geotiff.read_elevation(path, check, check_bytes=check_bytes or _GUARDS["bytes"])
            values = elevation.heights
        elif suffix in DECODED_SUFFIXES:
            check_file(path, check, formats=("PNG", "OpenEXR"))
            found = inputs.current().get(("file", key))
            if not isinstance(found, inputs.FileInput):
                raise ValueError(
                    f"{name}: PNG and OpenEXR pixels are decoded by Blender's image loader (in Blender this is done "
                    "for you; outside, give them with core.inputs.using({('file', path): FileInput(values)}))"
                )
            values = found.values
        else:
            raise ValueError(
                f"cannot read {suffix or 'a file without a suffix'}: "
                f"Orogen reads heightmaps in {', '.join(FILE_SUFFIXES)}"
            )
        if not np.isfinite(values).all():
            raise ValueError(f"{name} holds NaN or Inf heights")
    except ValueError as err:
        raise ValueError(f"{what}: {err}") from None
    return values, elevation


def _sidecar_height(info: dict[str, Any], scale: formats.SidecarScale) -> float | None:
    """The Height a sidecar gives (its ``height_m``, else its spec's ``height``), or ``None``."""
    if scale.height is not None:
        return scale.height
    spec = info.get("spec")
    value = spec.get("height") if isinstance(spec, dict) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0.0 < value <= 1e5:
        return float(value)
    return None


def file_metres(
    path: str,
    *,
    height: float,
    scale_from_file: bool = True,
    what: str = "file.path",
    check_size: SizeCheck | None = None,
) -> npt.NDArray[np.float32]:
    """The heights of a heightmap file in metres for a terrain of Height ``height``, ``float32 (rows, cols)``.

    What File > Import > Orogen Heightmap has always made of a file: with ``scale_from_file`` and a sidecar that
    gives metres or a height range and a Height ``H`` (Orogen's exports), the file's metres (base height
    included, :func:`core.io.formats.file_heights`), times ``height / H`` when ``height`` differs from ``H`` (a
    Height given scales the relief); a georeferenced GeoTIFF on square cells (:func:`core.io.geotiff.dem_square_grid`)
    and any other file: its values over their own range (0 at the lowest, 1 at the highest) times ``height``, in
    float32 (the product a terrain's Z is). Rows are flipped for a sidecar that says the file is south first.

    Raises
    ------
    ValueError
        Starting with ``what`` (:func:`read_values`), or the sidecar's name for a sidecar that cannot say its scale.
    """
    values, dem = read_values(path, what=what, check_size=check_size)
    path = resolve_path(path, what)
    info = formats.read_sidecar(path) if scale_from_file else None
    scale = formats.sidecar_scale(info, os.path.basename(path) + ".json") if info is not None else None
    grid = values
    if scale_from_file and dem is not None and dem.cell_size is not None:
        grid, _ = geotiff.dem_square_grid(values, dem, check_size=check_size or _check_size)
    if scale is not None and info is not None and dem is None:
        known = _sidecar_height(info, scale)
        metres = formats.file_heights(grid, scale)
        if metres is not None and known:
            if np.float32(known) == np.float32(height):
                return metres
            return (metres.astype(np.float64) * (float(np.float32(height)) / float(np.float32(known)))).astype(
                np.float32
            )
        if scale.south_first:
            grid = np.ascontiguousarray(grid[::-1])
    return normalize(grid) * np.float32(height)


def resample_window(
    values: npt.NDArray[np.float32], world_shape: tuple[int, int], window: Window
) -> npt.NDArray[np.float32]:
    """``window`` of ``values`` (a grid of any size) on a ``world_shape`` grid spanning the same extent, corner
    on corner: ``float32 window.shape``. The same size: the values themselves (exact); else bilinear, each
    vertex from its four neighbours at ``r (old_rows - 1) / (rows - 1)``, ``c (old_cols - 1) / (cols - 1)`` in
    float64 (a window equals the same cells of the whole)."""
    old = (int(values.shape[0]), int(values.shape[1]))
    r0, c0 = window.row, window.col
    h, w = window.shape
    if old == tuple(world_shape):
        return np.ascontiguousarray(values[r0 : r0 + h, c0 : c0 + w], dtype=np.float32)

    def axis(n_old: int, n_new: int, start: int, count: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.float64]]:
        scale = (n_old - 1) / (n_new - 1) if n_new > 1 else 0.0
        coord = np.arange(start, start + count, dtype=np.float64) * scale
        i = np.clip(np.floor(coord).astype(np.intp), 0, max(n_old - 2, 0))
        return i, coord - i

    i, fy = axis(old[0], world_shape[0], r0, h)
    j, fx = axis(old[1], world_shape[1], c0, w)
    i1, j1 = np.minimum(i + 1, old[0] - 1), np.minimum(j + 1, old[1] - 1)
    g = values.astype(np.float64)
    fy2, fx2 = fy[:, None], fx[None, :]
    top = g[i[:, None], j[None, :]] * (1 - fx2) + g[i[:, None], j1[None, :]] * fx2
    bottom = g[i1[:, None], j[None, :]] * (1 - fx2) + g[i1[:, None], j1[None, :]] * fx2
    out: npt.NDArray[np.float32] = (top * (1 - fy2) + bottom * fy2).astype(np.float32)
    return out


def file_source(
    world_shape: tuple[int, int],
    seed: int,
    window: Window | None = None,
    *,
    path: str = "",
    scale_from_file: bool = True,
    height: float = 1.0,
) -> npt.NDArray[np.float32]:
    """The heights of the heightmap file ``path`` in metres on the terrain's grid (the ``file`` generator).

    Parameters
    ----------
    world_shape : (int, int)
        The terrain's ``(rows, cols)``; the file is resampled onto it when its size differs
        (:func:`resample_window`), exact at its own size.
    seed : int
        Unused (a file is the same file whatever the seed).
    window : Window, optional
        The cells to return (default the whole world).
    path : str
        The file (absolute, or relative to the working folder), one of :data:`FILE_SUFFIXES`.
    scale_from_file : bool
        Take the metres from the file's sidecar (:func:`file_metres`).
    height : float
        The terrain's Height in metres.

    Returns
    -------
    ndarray of float32, shape window.shape
        Metres (the recipe divides them by ``height``).

    Raises
    ------
    ValueError
        ``"file.path: ..."``: no file named, a missing or unreadable file, one too large.
    """
    del seed
    win = check_window(world_shape, window)
    if not path:
        raise ValueError("file.path: names no file: choose a heightmap file")
    metres = file_metres(path, height=height, scale_from_file=scale_from_file)
    return resample_window(metres, world_shape, win)


def _covered(
    mesh: inputs.MeshInput,
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    cell_size: float,
) -> Iterator[tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64]]]:
    """The (triangle, grid vertex) pairs of :func:`rasterise_mesh` whose vertex the triangle's XY projection
    holds, in chunks of at most :data:`PAIRS_PER_CHUNK`: ``(flat index rows * cols, z, value)`` of each (the
    barycentric interpolation of the corners' ``z`` and of ``mesh.values``, 0 when it has none)."""
    rows, cols = len(y), len(x)
    v = mesh.vertices
    t = mesh.triangles
    if len(t) == 0 or rows == 0 or cols == 0:
        return
    vals = np.zeros(len(v)) if mesh.values is None else mesh.values
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    d = (b[:, 1] - c[:, 1]) * (a[:, 0] - c[:, 0]) + (c[:, 0] - b[:, 0]) * (a[:, 1] - c[:, 1])
    span = np.maximum(np.abs(a[:, :2] - c[:, :2]).max(axis=1), np.abs(b[:, :2] - c[:, :2]).max(axis=1))
    keep = np.abs(d) > 1e-12 * np.maximum(span * span, 1e-300)
    a, b, c, d = a[keep], b[keep], c[keep], d[keep]
    va, vb, vc = vals[t[keep, 0]], vals[t[keep, 1]], vals[t[keep, 2]]
    lo = np.minimum(np.minimum(a, b), c)
    hi = np.maximum(np.maximum(a, b), c)
    eps = 1e-9
    # grid indices: column (x - x0) / cell, row (y0 - y) / cell
    c_lo = np.maximum(np.ceil((lo[:, 0] - x[0]) / cell_size - eps), 0)
    c_hi = np.minimum(np.floor((hi[:, 0] - x[0]) / cell_size + eps), cols - 1)
    r_lo = np.maximum(np.ceil((y[0] - hi[:, 1]) / cell_size - eps), 0)
    r_hi = np.minimum(np.floor((y[0] - lo[:, 1]) / cell_size + eps), rows - 1)
    n_c = np.maximum(c_hi - c_lo + 1, 0).astype(np.int64)
    n_r = np.maximum(r_hi - r_lo + 1, 0).astype(np.int64)
    count = n_c * n_r
    ends = np.cumsum(count)
    total = int(ends[-1]) if len(ends) else 0
    starts = ends - count
    c_lo_i, r_lo_i = c_lo.astype(np.int64), r_lo.astype(np.int64)
    tol = -1e-9
    for k0 in range(0, total, PAIRS_PER_CHUNK):
        pair = np.arange(k0, min(k0 + PAIRS_PER_CHUNK, total), dtype=np.int64)
        tri = np.searchsorted(ends, pair, side="right")
        local = pair - starts[tri]
        rr = r_lo_i[tri] + local // n_c[tri]
        cc = c_lo_i[tri] + local % n_c[tri]
        px, py = x[cc], y[rr]
        ta, tb, tc, td = a[tri], b[tri], c[tri], d[tri]
        w1 = ((tb[:, 1] - tc[:, 1]) * (px - tc[:, 0]) + (tc[:, 0] - tb[:, 0]) * (py - tc[:, 1])) / td
        w2 = ((tc[:, 1] - ta[:, 1]) * (px - tc[:, 0]) + (ta[:, 0] - tc[:, 0]) * (py - tc[:, 1])) / td
        w3 = 1.0 - w1 - w2
        inside = (w1 >= tol) & (w2 >= tol) & (w3 >= tol)
        w1, w2, w3, tri = w1[inside], w2[inside], w3[inside], tri[inside]
        z = w1 * ta[inside, 2] + w2 * tb[inside, 2] + w3 * tc[inside, 2]
        value = w1 * va[tri] + w2 * vb[tri] + w3 * vc[tri]
        yield (rr * cols + cc)[inside], z, value


def rasterise_mesh(
    mesh: inputs.MeshInput,
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    *,
    cell_size: float,
) -> npt.NDArray[np.float64]:
    """The highest surface of ``mesh`` above each vertex of a regular grid, seen from above.

    Parameters
    ----------
    mesh : MeshInput
        Triangles in terrain-local metres.
    x, y : ndarray of float64, shapes (cols,) and (rows,)
        The grid's coordinates (:func:`core.inputs.grid_xy`): ``x`` rising by ``cell_size``, ``y`` falling by it
        (row 0 north).
    cell_size : float
        Metres between neighbouring vertices.

    Returns
    -------
    ndarray of float64, shape (rows, cols)
        For each vertex the largest ``z`` of the triangles whose XY projection holds it (edges and corners
        included), interpolated barycentrically from their corners; ``-inf`` where none does. Triangles of no
        area seen from above (vertical walls) are skipped: their tops are other triangles' edges.
    """
    rows, cols = len(y), len(x)
    out = np.full(rows * cols, -np.inf)
    for index, z, _value in _covered(mesh, x, y, cell_size):
        np.maximum.at(out, index, z)
    return out.reshape(rows, cols)


def rasterise_values(
    mesh: inputs.MeshInput,
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    *,
    cell_size: float,
) -> npt.NDArray[np.float64]:
    """The per-vertex ``values`` of ``mesh`` on its highest surface above each vertex of a regular grid, seen
    from above: what a vertex group painted on an ``object`` source's mesh weighs at each terrain vertex.

    The z-buffer of :func:`rasterise_mesh` (same pairs, same arithmetic): at each grid vertex, the value
    interpolated barycentrically on the triangle(s) whose ``z`` there is the topmost; where several triangles
    reach that same height (a shared edge or corner, coincident faces) the largest of their values. Depends on
    world coordinates alone, so a window gives the whole's cells bit for bit.

    Parameters
    ----------
    mesh : MeshInput
        Triangles in terrain-local metres with ``values`` (one per vertex, 0..1).
    x, y : ndarray of float64, shapes (cols,) and (rows,)
        The grid's coordinates (:func:`core.inputs.grid_xy`).
    cell_size : float
        Metres between neighbouring vertices.

    Returns
    -------
    ndarray of float64, shape (rows, cols)
        Values in ``[0, 1]``; 0 where no triangle covers the vertex.

    Raises
    ------
    ValueError
        ``mesh`` has no ``values``.
    """
    if mesh.values is None:
        raise ValueError(f"mesh {mesh.name!r}: has no per-vertex values to rasterise")
    top = rasterise_mesh(mesh, x, y, cell_size=cell_size).ravel()
    out = np.full(top.shape, -np.inf)
    for index, z, value in _covered(mesh, x, y, cell_size):
        on_top = z == top[index]
        np.maximum.at(out, index[on_top], value[on_top])
    return np.clip(np.where(np.isfinite(out), out, 0.0), 0.0, 1.0).reshape(len(y), len(x))


def object_source(
    world_shape: tuple[int, int],
    seed: int,
    window: Window | None = None,
    *,
    object: str = "",  # noqa: A002 - the declared setting's name
    fill: str = "lowest",
    fill_height: float = 0.0,
    cell_size: float = 1.0,
    height: float = 1.0,
) -> npt.NDArray[np.float64]:
    """The surface of the mesh ``object`` seen from above, in metres on the terrain's grid (the ``object``
    generator).

    Parameters
    ----------
    world_shape : (int, int)
        The terrain's ``(rows, cols)``.
    seed : int
        Unused.
    window : Window, optional
        The cells to return (default the whole world).
    object : str
        The mesh input's name (:func:`core.inputs.get` of kind ``"mesh"``: in Blender, the object's name).
    fill : str
        What vertices no triangle covers take: ``"lowest"`` (the mesh's lowest vertex) or ``"value"``
        (``fill_height`` metres). Both are window independent.
    fill_height : float
        Metres, for ``fill="value"``.
    cell_size : float
        Metres per cell (the terrain's).
    height : float
        The terrain's Height (unused: the output is metres).

    Returns
    -------
    ndarray of float64, shape window.shape
        Metres in the terrain's frame (:func:`rasterise_mesh` over :func:`core.inputs.grid_xy`).

    Raises
    ------
    ValueError
        ``"object.object: ..."``: no object named, none given.
    """
    del seed, height
    win = check_window(world_shape, window)
    mesh = inputs.get("mesh", object, "object.object")
    if not isinstance(mesh, inputs.MeshInput):
        raise TypeError(f"object.object: the input {object!r} is not a mesh")
    x, y = inputs.grid_xy(world_shape, cell_size, win)
    z = rasterise_mesh(mesh, x, y, cell_size=cell_size)
    value = float(mesh.vertices[:, 2].min()) if fill == "lowest" else float(fill_height)
    return np.where(np.isfinite(z), z, value)


#: The two sources as generators, registered by :mod:`core.catalog` after the others (menus list them last).
SOURCES = (
    Generator(
        "file",
        "File",
        "A heightmap file in its metres (PNG, TIFF or GeoTIFF, OpenEXR, RAW, .npy), as File > Import > Orogen "
        "Heightmap reads it; resampled onto the grid when its size differs",
        file_source,
        (
            Param(
                "path",
                "path",
                "",
                label="File",
                description="The heightmap file (read again on each Regenerate)",
            ),
            Param(
                "scale_from_file",
                "bool",
                True,
                label="Scale from File",
                description="Take the metres (base height included) from the JSON sidecar Orogen exports beside "
                "a heightmap, or the square cells of a georeferenced GeoTIFF; off: the values over their own "
                "range span 0..Height",
            ),
        ),
        source="Orogen's heightmap importer",
        metres=True,
    ),
    Generator(
        "object",
        "Object",
        "The surface of a mesh object seen from above (a sculpt, a scan, another terrain), in metres in the "
        "terrain's frame; re-read on each Regenerate and live update",
        object_source,
        (
            Param(
                "object",
                "object",
                "",
                label="Object",
                description="The mesh object whose surface the terrain starts from (kept, hidden)",
                object_kind="mesh",
            ),
            Param(
                "fill",
                "enum",
                "lowest",
                label="Fill",
                description="What the terrain is where no face of the object lies above it",
                items=FILLS,
            ),
            Param(
                "fill_height",
                "float",
                0.0,
                hard=(-1.0e5, 1.0e5),
                soft=(-1000.0, 1000.0),
                unit="m",
                label="Fill Height",
                description="Height of the terrain where no face lies above it",
                active_when=When("fill", "value"),
            ),
        ),
        source="z-buffer scan conversion (Foley et al., Computer Graphics: Principles and Practice, 15.4)",
        uses_cell_size=True,
        metres=True,
    ),
)
