"""Grid meshes from heightmaps, built with ``foreach_set`` (no per-vertex Python)."""

import bpy
import numpy as np
import numpy.typing as npt

HEIGHT_ATTRIBUTE = "height"
LIGHTMAP_ATTRIBUTE = "Lightmap"
UV_MAP = "UVMap"


def grid_faces(rows: int, cols: int) -> npt.NDArray[np.int32]:
    """Vertex indices of the quads of a ``rows x cols`` vertex grid, ``int32 ((rows-1)*(cols-1), 4)``.

    Vertex ``r * cols + c`` is row ``r`` (north first), column ``c`` (west
    first); each quad is wound counter-clockwise seen from above, so normals
    point to +Z.
    """
    top_left = (np.arange(rows - 1, dtype=np.int32)[:, None] * cols + np.arange(cols - 1, dtype=np.int32)).ravel()
    return np.stack([top_left, top_left + cols, top_left + cols + 1, top_left + 1], axis=1)


def grid_coordinates(heightmap: npt.NDArray[np.float32], width: float, height: float) -> npt.NDArray[np.float32]:
    """Vertex positions ``float32 (rows*cols, 3)`` in metres, centred on the origin in X and Y.

    Row 0 lies at ``Y = +width/2`` (north); Z is ``heightmap * height``.
    Non-square maps keep square cells: the longer side spans ``width``.
    """
    rows, cols = heightmap.shape
    cell = width / max(rows - 1, cols - 1, 1)
    x = (np.arange(cols, dtype=np.float64) - (cols - 1) / 2.0) * cell
    y = ((rows - 1) / 2.0 - np.arange(rows, dtype=np.float64)) * cell
    co = np.empty((rows, cols, 3), dtype=np.float32)
    co[..., 0] = x[None, :]
    co[..., 1] = y[:, None]
    co[..., 2] = heightmap * np.float32(height)
    return co.reshape(-1, 3)


def build_grid_mesh(
    name: str,
    heightmap: npt.NDArray[np.float32],
    width: float,
    height: float,
    lightmap: npt.NDArray[np.float32] | None = None,
) -> bpy.types.Mesh:
    """Create a smooth-shaded grid mesh with a UV map and terrain attributes.

    Attributes: ``height`` (point, float, the normalised heightmap) and, if
    ``lightmap`` is given, ``Lightmap`` (point, float colour, linear grey).
    Inputs must be finite (``core`` guarantees it); no operator is called, so
    this works headless and without a 3D View.
    """
    rows, cols = heightmap.shape
    faces = grid_faces(rows, cols)
    mesh = bpy.data.meshes.new(name)
    mesh.vertices.add(rows * cols)
    mesh.loops.add(faces.size)
    mesh.polygons.add(len(faces))
    mesh.vertices.foreach_set("co", grid_coordinates(heightmap, width, height).ravel())
    mesh.loops.foreach_set("vertex_index", faces.ravel())
    mesh.polygons.foreach_set("loop_start", np.arange(0, faces.size, 4, dtype=np.int32))

    uv = np.empty((rows, cols, 2), dtype=np.float32)
    uv[..., 0] = np.linspace(0.0, 1.0, cols, dtype=np.float32)[None, :]
    uv[..., 1] = np.linspace(1.0, 0.0, rows, dtype=np.float32)[:, None]
    mesh.uv_layers.new(name=UV_MAP).data.foreach_set("uv", uv.reshape(-1, 2)[faces.ravel()].ravel())

    mesh.attributes.new(HEIGHT_ATTRIBUTE, 'FLOAT', 'POINT').data.foreach_set(
        "value", np.ascontiguousarray(heightmap, dtype=np.float32).ravel()
    )
    if lightmap is not None:
        rgba = np.ones((rows * cols, 4), dtype=np.float32)
        rgba[:, :3] = lightmap.reshape(-1, 1)
        layer = mesh.color_attributes.new(LIGHTMAP_ATTRIBUTE, 'FLOAT_COLOR', 'POINT')
        layer.data.foreach_set("color", rgba.ravel())  # linear values, no gamma step
    mesh.update(calc_edges=True)
    mesh.shade_smooth()
    return mesh
