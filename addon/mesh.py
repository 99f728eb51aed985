"""Grid meshes from heightmaps, built with ``foreach_set`` (no per-vertex Python)."""

import bpy
import numpy as np
import numpy.typing as npt

HEIGHT_ATTRIBUTE = "height"
SLOPE_ATTRIBUTE = "slope"
CURVATURE_ATTRIBUTE = "curvature"
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


def new_mesh(name: str, co: npt.NDArray[np.float32], faces: npt.NDArray[np.int32]) -> bpy.types.Mesh:
    """A mesh from vertex positions ``float32 (n, 3)`` and quads ``int32 (m, 4)``, with edges computed.

    Positions and corner vertices are written through the generic attribute
    API (``position``, ``.corner_vert``), a straight copy that is about a
    hundred times faster than ``vertices.foreach_set("co")``; Blender versions
    without those attributes fall back to the classic collections.
    """
    mesh = bpy.data.meshes.new(name)
    _fill_geometry(mesh, co, faces)
    return mesh


def _fill_geometry(mesh: bpy.types.Mesh, co: npt.NDArray[np.float32], faces: npt.NDArray[np.int32]) -> None:
    """Add vertices and quads to an empty mesh and compute its edges."""
    mesh.vertices.add(len(co))
    mesh.loops.add(faces.size)
    mesh.polygons.add(len(faces))
    _set_attribute(mesh, "position", "vector", co.ravel(), lambda v: mesh.vertices.foreach_set("co", v))
    _set_attribute(mesh, ".corner_vert", "value", faces.ravel(),
                   lambda v: mesh.loops.foreach_set("vertex_index", v))
    mesh.polygons.foreach_set("loop_start", np.arange(0, faces.size, 4, dtype=np.int32))
    mesh.update(calc_edges=True)


def _set_attribute(mesh: bpy.types.Mesh, name: str, prop: str, values: npt.NDArray, fallback) -> None:
    attribute = mesh.attributes.get(name)
    if attribute is None:
        fallback(values)
    else:
        attribute.data.foreach_set(prop, values)


def grid_uvs(rows: int, cols: int) -> npt.NDArray[np.float32]:
    """UVs of the corners of :func:`grid_faces`, ``float32 ((rows-1)*(cols-1)*4, 2)``: the grid spans [0, 1]²."""
    u = np.arange(cols, dtype=np.float32) / np.float32(max(cols - 1, 1))
    v = np.float32(1.0) - np.arange(rows, dtype=np.float32) / np.float32(max(rows - 1, 1))
    uv = np.empty((rows - 1, cols - 1, 4, 2), dtype=np.float32)
    # Corner order of each quad: top-left, bottom-left, bottom-right, top-right.
    uv[:, :, :, 0] = np.stack([u[:-1], u[:-1], u[1:], u[1:]], axis=-1)
    uv[:, :, :, 1] = np.stack([v[:-1], v[1:], v[1:], v[:-1]], axis=-1)[:, None, :]
    return uv.reshape(-1, 2)


def build_grid_mesh(
    name: str,
    heightmap: npt.NDArray[np.float32],
    width: float,
    height: float,
    lightmap: npt.NDArray[np.float32] | None = None,
    data_maps: dict[str, npt.NDArray[np.float32]] | None = None,
) -> bpy.types.Mesh:
    """Create a smooth-shaded grid mesh with a UV map and terrain attributes.

    Attributes: ``height`` (point, float, the normalised heightmap), each of
    ``data_maps`` (point, float, e.g. ``slope`` in degrees and ``curvature``)
    and, if ``lightmap`` is given, ``Lightmap`` (point, float colour, linear
    grey). Inputs must be finite (``core`` guarantees it); no operator is
    called, so this works headless and without a 3D View.
    """
    mesh = bpy.data.meshes.new(name)
    update_grid_mesh(mesh, heightmap, width, height, lightmap, data_maps)
    return mesh


def update_grid_mesh(
    mesh: bpy.types.Mesh,
    heightmap: npt.NDArray[np.float32],
    width: float,
    height: float,
    lightmap: npt.NDArray[np.float32] | None = None,
    data_maps: dict[str, npt.NDArray[np.float32]] | None = None,
) -> bool:
    """Write a terrain into an existing mesh (see :func:`build_grid_mesh`); returns True if rebuilt.

    When the mesh already is a grid of the same size only positions and
    attributes are rewritten (same vertices, faces, UVs and materials);
    otherwise its geometry is replaced, keeping the mesh datablock and its
    material slots.
    """
    rows, cols = heightmap.shape
    co = grid_coordinates(heightmap, width, height)
    same_grid = (len(mesh.vertices) == rows * cols and len(mesh.polygons) == (rows - 1) * (cols - 1)
                 and mesh.attributes.get(UV_MAP) is not None)
    if same_grid:
        _set_attribute(mesh, "position", "vector", co.ravel(), lambda v: mesh.vertices.foreach_set("co", v))
    else:
        mesh.clear_geometry()
        _fill_geometry(mesh, co, grid_faces(rows, cols))
        # A UV map is a 2D-vector corner attribute; creating it as one skips uv_layers.new()'s default fill.
        mesh.attributes.new(UV_MAP, 'FLOAT2', 'CORNER').data.foreach_set("vector", grid_uvs(rows, cols).ravel())
    for name, values in {HEIGHT_ATTRIBUTE: heightmap, **(data_maps or {})}.items():
        attribute = mesh.attributes.get(name) or mesh.attributes.new(name, 'FLOAT', 'POINT')
        attribute.data.foreach_set("value", np.ascontiguousarray(values, dtype=np.float32).ravel())
    existing = mesh.color_attributes.get(LIGHTMAP_ATTRIBUTE)
    if lightmap is None:
        if existing is not None:
            mesh.color_attributes.remove(existing)
    else:
        rgba = np.empty((rows * cols, 4), dtype=np.float32)
        rgba[:, :3] = lightmap.reshape(-1, 1)
        rgba[:, 3] = 1.0
        layer = existing or mesh.color_attributes.new(LIGHTMAP_ATTRIBUTE, 'FLOAT_COLOR', 'POINT')
        layer.data.foreach_set("color", rgba.ravel())  # linear values, no gamma step
    if same_grid:
        mesh.update()
    else:
        mesh.shade_smooth()
    return not same_grid


def build_profile_mesh(
    name: str,
    profile: npt.NDArray[np.float32],
    length: float,
    base: float,
    depth: float = 0.0,
) -> bpy.types.Mesh:
    """A side-view terrain: the area between a profile and a base line, in the XZ plane.

    Parameters
    ----------
    profile : ndarray of float32, shape (columns,)
        Heights in metres (Z), one per column, columns >= 2, all >= ``base``.
    length : float
        Metres along X from the first column to the last, centred on the origin.
    base : float
        Z of the base line in metres.
    depth : float
        Extrusion along +Y in metres; 0 gives a flat (2-D) face.

    The mesh gets a point attribute ``height``: the profile normalised to
    ``[0, 1]`` on the top vertices and 0 on the base, so the terrain material
    colours it by height. Faces point outward (-Y for the flat face).
    """
    n = len(profile)
    x = np.linspace(-length / 2.0, length / 2.0, n, dtype=np.float64)
    top = profile.astype(np.float64)
    span = float(top.max() - top.min())
    top_h = ((top - top.min()) / span if span > 0 else np.zeros(n)).astype(np.float32)
    # Vertex rings: front top, front bottom, then (with depth) back top, back bottom.
    rings = [(0.0, top), (0.0, np.full(n, base))]
    if depth > 0:
        rings += [(depth, top), (depth, np.full(n, base))]
    co = np.concatenate([np.stack([x, np.full(n, y), z], axis=1) for y, z in rings]).astype(np.float32)
    heights = np.concatenate([top_h if i % 2 == 0 else np.zeros(n, np.float32) for i in range(len(rings))])

    i = np.arange(n - 1, dtype=np.int32)
    ft, fb, bt, bb = 0, n, 2 * n, 3 * n  # ring offsets

    def strip(a: int, b: int) -> npt.NDArray[np.int32]:  # quads a_i, a_i+1, b_i+1, b_i
        return np.stack([a + i, a + i + 1, b + i + 1, b + i], axis=1)

    quads = [strip(fb, ft)]  # front face, normal -Y
    if depth > 0:
        quads += [strip(bt, bb), strip(ft, bt), strip(bb, fb)]  # back (+Y), top (up), bottom (down)
        ends = np.array([[fb, ft, bt, bb], [ft + n - 1, fb + n - 1, bb + n - 1, bt + n - 1]], dtype=np.int32)
        quads.append(ends)
    faces = np.concatenate(quads).astype(np.int32)

    mesh = new_mesh(name, co, faces)
    mesh.attributes.new(HEIGHT_ATTRIBUTE, 'FLOAT', 'POINT').data.foreach_set("value", heights)
    return mesh
