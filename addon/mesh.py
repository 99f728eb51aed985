"""Grid meshes from heightmaps, built with ``foreach_set`` (no per-vertex Python)."""

import bpy
import numpy as np
import numpy.typing as npt

from ..core.catalog import MAP_NAMES
from ..core.lighting import cell_size

HEIGHT_ATTRIBUTE = "height"
SLOPE_ATTRIBUTE = "slope"
#: Custom property of every Orogen terrain mesh object (generated or imported): the grid as built (JSON).
TERRAIN_PROPERTY = "orogen_terrain"
#: The baked ambient-occlusion factor (lighting with AO on): what a Lit material's cavity term reads.
OCCLUSION_ATTRIBUTE = "occlusion"
CURVATURE_ATTRIBUTE = "curvature"
#: Point attributes of the erosion maps (core.recipe.MAP_NAMES), only those the terrain's filters make.
EROSION_ATTRIBUTES = tuple(MAP_NAMES)
LIGHTMAP_ATTRIBUTE = "Lightmap"
#: Unlit terrains: the colour map times the lightmap at each vertex, linear (what glTF exports as COLOR_0).
BAKED_COLOR_ATTRIBUTE = "Color"
UV_MAP = "UVMap"


def _buffer(out: npt.NDArray | None, dtype: type, shape: tuple[int, ...]) -> npt.NDArray:
    """``out``'s first bytes as a C-contiguous array of ``dtype`` and ``shape``, or a new array when ``out`` is None.

    ``out`` is a scratch buffer (``uint8``, C-contiguous, large enough) reused
    for several arrays in turn: a fresh array costs a page fault per 4 KiB
    the first time it is written, as much as computing it.
    """
    if out is None:
        return np.empty(shape, dtype=dtype)
    count = int(np.prod(shape)) * np.dtype(dtype).itemsize
    return out[:count].view(dtype).reshape(shape)


def grid_faces(rows: int, cols: int, out: npt.NDArray[np.uint8] | None = None) -> npt.NDArray[np.int32]:
    """Vertex indices of the quads of a ``rows x cols`` vertex grid, ``int32 ((rows-1)*(cols-1), 4)``.

    Vertex ``r * cols + c`` is row ``r`` (north first), column ``c`` (west
    first); each quad is wound counter-clockwise seen from above, so normals
    point to +Z. ``out``: a scratch buffer to write into (see :func:`_buffer`).
    """
    faces = _buffer(out, np.int32, (rows - 1, cols - 1, 4))
    np.add(
        np.arange(rows - 1, dtype=np.int32)[:, None] * np.int32(cols),
        np.arange(cols - 1, dtype=np.int32),
        out=faces[..., 0],
    )  # top-left
    np.add(faces[..., 0], np.int32(cols), out=faces[..., 1])  # bottom-left
    np.add(faces[..., 0], np.int32(cols + 1), out=faces[..., 2])  # bottom-right
    np.add(faces[..., 0], np.int32(1), out=faces[..., 3])  # top-right
    return faces.reshape(-1, 4)


def grid_coordinates(
    heightmap: npt.NDArray[np.float32], width: float, height: float, out: npt.NDArray[np.uint8] | None = None
) -> npt.NDArray[np.float32]:
    """Vertex positions ``float32 (rows*cols, 3)`` in metres, centred on the origin in X and Y.

    Row 0 lies at ``Y = +width/2`` (north); Z is ``heightmap * height``.
    Non-square maps keep square cells: the longer side spans ``width``.
    ``out``: a scratch buffer to write into (see :func:`_buffer`).
    """
    rows, cols = heightmap.shape
    cell = cell_size((rows, cols), width)
    x = (np.arange(cols, dtype=np.float64) - (cols - 1) / 2.0) * cell  # one row: float64 is cheap here
    y = ((rows - 1) / 2.0 - np.arange(rows, dtype=np.float64)) * cell
    co = _buffer(out, np.float32, (rows, cols, 3))
    co[..., 0] = x[None, :]
    co[..., 1] = y[:, None]
    np.multiply(heightmap, np.float32(height), out=co[..., 2])
    return co.reshape(-1, 3)


def grid_edges(rows: int, cols: int, out: npt.NDArray[np.uint8] | None = None) -> npt.NDArray[np.int32]:
    """The edges of a ``rows x cols`` vertex grid as vertex pairs, ``int32 (rows*(cols-1) + (rows-1)*cols, 2)``.

    First the east-west edges row by row (edge ``r * (cols-1) + c`` joins
    vertices ``(r, c)`` and ``(r, c+1)``), then the north-south edges (edge
    ``rows * (cols-1) + r * cols + c`` joins ``(r, c)`` and ``(r+1, c)``).
    ``out``: a scratch buffer to write into (see :func:`_buffer`).
    """
    across = rows * (cols - 1)
    edges = _buffer(out, np.int32, (across + (rows - 1) * cols, 2))
    row_start = np.arange(rows, dtype=np.int32)[:, None] * np.int32(cols)
    east_west = edges[:across].reshape(rows, cols - 1, 2)
    np.add(row_start, np.arange(cols - 1, dtype=np.int32), out=east_west[..., 0])
    np.add(east_west[..., 0], np.int32(1), out=east_west[..., 1])
    north_south = edges[across:].reshape(rows - 1, cols, 2)
    np.add(row_start[:-1], np.arange(cols, dtype=np.int32), out=north_south[..., 0])
    np.add(north_south[..., 0], np.int32(cols), out=north_south[..., 1])
    return edges


def grid_corner_edges(rows: int, cols: int, out: npt.NDArray[np.uint8] | None = None) -> npt.NDArray[np.int32]:
    """The edge after each corner of :func:`grid_faces` (as :func:`grid_edges` numbers them), ``int32 (faces, 4)``.

    Corner ``k`` of a face is followed by the edge from its vertex to the
    vertex of corner ``k + 1`` (mod 4), Blender's convention: the west,
    south, east and north sides for the top-left, bottom-left, bottom-right
    and top-right corners. ``out``: a scratch buffer to write into (see :func:`_buffer`).
    """
    across = rows * (cols - 1)
    corner_edges = _buffer(out, np.int32, (rows - 1, cols - 1, 4))
    c = np.arange(cols - 1, dtype=np.int32)
    np.add(np.arange(rows - 1, dtype=np.int32)[:, None] * np.int32(cols - 1), c, out=corner_edges[..., 3])  # north
    np.add(corner_edges[..., 3], np.int32(cols - 1), out=corner_edges[..., 1])  # south
    np.add(
        np.arange(rows - 1, dtype=np.int32)[:, None] * np.int32(cols) + np.int32(across), c, out=corner_edges[..., 0]
    )  # west
    np.add(corner_edges[..., 0], np.int32(1), out=corner_edges[..., 2])  # east
    return corner_edges.reshape(-1, 4)


def grid_uvs(rows: int, cols: int, out: npt.NDArray[np.uint8] | None = None) -> npt.NDArray[np.float32]:
    """UVs of the corners of :func:`grid_faces`, ``float32 ((rows-1)*(cols-1)*4, 2)``: the grid spans [0, 1]².

    ``out``: a scratch buffer to write into (see :func:`_buffer`).
    """
    # Each (u, v) pair is written as one complex64 (u + iv), so every corner is a plain 2-D copy.
    u = (np.arange(cols, dtype=np.float32) / np.float32(max(cols - 1, 1))).astype(np.complex64)
    v = (np.float32(1.0) - np.arange(rows, dtype=np.float32) / np.float32(max(rows - 1, 1))) * np.complex64(1j)
    uv = _buffer(out, np.float32, (rows - 1, cols - 1, 4, 2))
    corners = uv.view(np.complex64)[..., 0]
    # Corner order of each quad: top-left, bottom-left, bottom-right, top-right.
    for k, (dr, dc) in enumerate(((0, 0), (1, 0), (1, 1), (0, 1))):
        np.add(v[dr : rows - 1 + dr, None], u[None, dc : cols - 1 + dc], out=corners[..., k])
    return uv.reshape(-1, 2)


def face_edges(faces: npt.NDArray[np.int32]) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """Edges of any polygons with ``k`` sides, ``int32 (m, k)``: ``(edges int32 (e, 2), corner_edges int32 (m, k))``.

    Each undirected side of a face becomes one edge (a side shared by two faces
    once), numbered in sorted order; corner ``j`` of a face gets the edge to
    the vertex of corner ``j + 1`` (mod ``k``). For small meshes such as
    side-view profiles: it sorts all sides.
    """
    first = faces.astype(np.int64).ravel()
    second = np.roll(faces, -1, axis=1).astype(np.int64).ravel()
    span = int(faces.max(initial=0)) + 1
    keys, corner_edges = np.unique(np.minimum(first, second) * span + np.maximum(first, second), return_inverse=True)
    edges = np.stack([keys // span, keys % span], axis=1).astype(np.int32)
    return edges, corner_edges.astype(np.int32).reshape(faces.shape)


def new_mesh(name: str, co: npt.NDArray[np.float32], faces: npt.NDArray[np.int32]) -> bpy.types.Mesh:
    """A mesh from vertex positions ``float32 (n, 3)`` and quads ``int32 (m, 4)``, with its edges.

    Edges come from :func:`face_edges`, written like everything else with
    ``foreach_set`` (see :func:`_write_geometry`); Blender computes nothing.
    """
    mesh = bpy.data.meshes.new(name)
    edges, corner_edges = face_edges(faces)
    _add_geometry(mesh, len(co), len(edges), faces.shape)
    _write_geometry(mesh, co, edges, faces, corner_edges)
    _set_face_starts(mesh, len(faces), faces.shape[1])
    mesh.update()
    return mesh


def _grid_scratch(rows: int, cols: int) -> npt.NDArray[np.uint8]:
    """One scratch buffer for every temporary array of a ``rows x cols`` grid (the UVs are the largest)."""
    return np.empty(4 * max(8 * (rows - 1) * (cols - 1), 4 * rows * cols), dtype=np.uint8)


def new_grid_mesh(name: str, heightmap: npt.NDArray[np.float32], width: float, height: float) -> bpy.types.Mesh:
    """A bare grid mesh of ``heightmap`` (positions, edges and quads only: no UVs, no attributes).

    The geometry step of :func:`build_grid_mesh` on its own: the floor a
    terrain's mesh cannot beat, which ``scripts/bench.py`` measures against.
    """
    mesh = bpy.data.meshes.new(name)
    _fill_grid(mesh, heightmap, width, height, _grid_scratch(*heightmap.shape))
    mesh.update()
    return mesh


def _fill_grid(
    mesh: bpy.types.Mesh,
    heightmap: npt.NDArray[np.float32],
    width: float,
    height: float,
    scratch: npt.NDArray[np.uint8],
) -> None:
    """Give an empty mesh the vertices, edges and quads of a grid, each array made in ``scratch`` in turn."""
    rows, cols = heightmap.shape
    _add_geometry(mesh, rows * cols, rows * (cols - 1) + (rows - 1) * cols, ((rows - 1) * (cols - 1), 4))
    _write_geometry(
        mesh,
        lambda: grid_coordinates(heightmap, width, height, scratch),
        lambda: grid_edges(rows, cols, scratch),
        lambda: grid_faces(rows, cols, scratch),
        lambda: grid_corner_edges(rows, cols, scratch),
    )
    _set_face_starts(mesh, (rows - 1) * (cols - 1), 4)


def _add_geometry(mesh: bpy.types.Mesh, vertices: int, edges: int, faces: tuple[int, int]) -> None:
    mesh.vertices.add(vertices)
    mesh.edges.add(edges)
    mesh.loops.add(faces[0] * faces[1])
    mesh.polygons.add(faces[0])


def _write_geometry(mesh: bpy.types.Mesh, co, edges, corner_verts, corner_edges) -> None:
    """Write positions ``(n, 3)``, edges ``(e, 2)``, corner vertices and corner edges ``(m, k)``.

    Each argument is an array or a function that makes it (called only when
    the previous array has been written, so all can share one buffer). They
    go through the generic attribute API (``position``, ``.edge_verts``,
    ``.corner_vert``, ``.corner_edge``, present from Blender 4.2 to 5.0), a
    straight copy of each buffer, about a hundred times faster than
    ``vertices.foreach_set("co")``; where an attribute is missing the classic
    collections take the same values. Writing the edges here saves Blender's
    edge calculation (``update(calc_edges=True)``), which took three times as
    long as the rest of the mesh.
    """
    # The classic index properties are unsigned: a uint32 view of the same (non-negative) indices is
    # copied in C, an int32 array read one Python object at a time (see _set_face_starts).
    for name, prop, values, fallback in (
        ("position", "vector", co, lambda v: mesh.vertices.foreach_set("co", v)),
        (".edge_verts", "value", edges, lambda v: mesh.edges.foreach_set("vertices", v.view(np.uint32))),
        (".corner_vert", "value", corner_verts, lambda v: mesh.loops.foreach_set("vertex_index", v.view(np.uint32))),
        (".corner_edge", "value", corner_edges, lambda v: mesh.loops.foreach_set("edge_index", v.view(np.uint32))),
    ):
        array_ = values() if callable(values) else values
        _set_attribute(mesh, name, prop, array_.ravel(), fallback)


def _set_face_starts(mesh: bpy.types.Mesh, count: int, sides: int) -> None:
    """Faces of ``sides`` corners each, in order: loop starts ``0, sides, 2 * sides, ...``.

    Face offsets are no attribute: ``foreach_set("loop_start")`` goes through
    the property, which Blender declares unsigned. From a ``uint32`` buffer it
    copies in C (2 ms for a million faces); from ``int32`` (a signedness
    mismatch) it reads the values one Python object at a time (40 ms).
    """
    mesh.polygons.foreach_set("loop_start", np.arange(0, count * sides, sides, dtype=np.uint32))


def write_polygons(
    mesh: bpy.types.Mesh, co: npt.NDArray[np.float32], corners: npt.NDArray[np.uint32], sizes: npt.NDArray[np.uint32]
) -> None:
    """Replace ``mesh``'s geometry with ``co`` (``float32 (n, 3)`` positions) and faces of any size: ``corners``
    holds each face's vertex indices one face after another and ``sizes`` each face's corner count (both
    ``uint32``; ``sizes`` sums to ``len(corners)``). Arrays go in with ``foreach_set``; Blender makes the edges.
    Faces are flat-shaded, as ``from_pydata`` makes them (a face without the ``sharp_face`` attribute would be
    smooth, bending a flat plane's normals at its rim).
    Raises ``ValueError`` when the sizes do not add up or an index is not a vertex."""
    sizes = np.ascontiguousarray(sizes, dtype=np.uint32)
    corners = np.ascontiguousarray(corners, dtype=np.uint32)
    if int(sizes.sum()) != len(corners) or (sizes < 3).any() or (len(corners) and int(corners.max()) >= len(co)):
        raise ValueError("faces must have 3 or more corners, all on the mesh's vertices")
    mesh.clear_geometry()
    mesh.vertices.add(len(co))
    mesh.loops.add(len(corners))
    mesh.polygons.add(len(sizes))
    mesh.vertices.foreach_set("co", np.ascontiguousarray(co, dtype=np.float32).ravel())
    mesh.loops.foreach_set("vertex_index", corners)
    starts = np.zeros(len(sizes), np.uint32)
    np.cumsum(sizes[:-1], out=starts[1:])
    mesh.polygons.foreach_set("loop_start", starts)
    mesh.polygons.foreach_set("use_smooth", np.zeros(len(sizes), dtype=bool))
    mesh.update(calc_edges=True)


def tag_positions_changed(mesh: bpy.types.Mesh) -> None:
    """After a write through the ``position`` attribute (which keeps the cached bounds), set one vertex's ``co``
    to itself: its update tags the positions, so ``dimensions`` and ``bound_box`` follow (Frame Selected)."""
    if len(mesh.vertices):
        mesh.vertices[0].co = mesh.vertices[0].co.copy()


def _set_attribute(mesh: bpy.types.Mesh, name: str, prop: str, values: npt.NDArray, fallback) -> None:
    attribute = mesh.attributes.get(name)
    if attribute is None:
        fallback(values)
    else:
        attribute.data.foreach_set(prop, values)


def build_grid_mesh(
    name: str,
    heightmap: npt.NDArray[np.float32],
    width: float,
    height: float,
    lightmap: npt.NDArray[np.float32] | None = None,
    data_maps: dict[str, npt.NDArray[np.float32]] | None = None,
) -> bpy.types.Mesh:
    """Create a smooth-shaded grid mesh with a UV map and terrain attributes.

    Attributes: ``height`` (point, float, the heightmap in units of ``height``), each of
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
    *,
    same_grid: bool | None = None,
) -> bool:
    """Write a terrain into an existing mesh (see :func:`build_grid_mesh`); returns True if rebuilt.

    When the mesh already is a grid of the same size only positions and
    attributes are rewritten (same vertices, faces, UVs and materials);
    otherwise its geometry is replaced, keeping the mesh datablock and its
    material slots. Every array is written with ``foreach_set`` straight
    from a float32 or int32 buffer (no float64 copies), and the temporary
    arrays share one scratch buffer.
    """
    rows, cols = heightmap.shape
    if same_grid is None:  # a caller that already checked says so (the check reads every corner)
        same_grid = is_grid_of(mesh, rows, cols)
    if same_grid:
        scratch = np.empty(4 * 4 * rows * cols, dtype=np.uint8)  # positions, then the lightmap's colours
        co = grid_coordinates(heightmap, width, height, scratch)
        shift_shape_keys(mesh, co)
        _set_attribute(mesh, "position", "vector", co.ravel(), lambda v: mesh.vertices.foreach_set("co", v))
    else:
        if mesh.shape_keys is not None:  # its key blocks would keep the old length (NaN vertices in Edit Mode)
            raise ValueError(
                f"mesh {mesh.name!r} has shape keys: remove them (or resample them, as "
                "regenerating a terrain does) before its grid is rebuilt"
            )
        scratch = _grid_scratch(rows, cols)
        mesh.clear_geometry()
        _fill_grid(mesh, heightmap, width, height, scratch)
        # A UV map is a 2D-vector corner attribute; creating it as one skips uv_layers.new()'s default fill.
        mesh.attributes.new(UV_MAP, "FLOAT2", "CORNER").data.foreach_set(
            "vector", grid_uvs(rows, cols, scratch).ravel()
        )
    for name, values in {HEIGHT_ATTRIBUTE: heightmap, **(data_maps or {})}.items():
        attribute = mesh.attributes.get(name) or mesh.attributes.new(name, "FLOAT", "POINT")
        attribute.data.foreach_set("value", np.ascontiguousarray(values, dtype=np.float32).ravel())
    for name in (*EROSION_ATTRIBUTES, OCCLUSION_ATTRIBUTE):  # a map no longer made must not stay from a run before
        if name not in (data_maps or {}) and mesh.attributes.get(name) is not None:
            mesh.attributes.remove(mesh.attributes[name])
    existing = mesh.color_attributes.get(LIGHTMAP_ATTRIBUTE)
    if lightmap is None:
        if existing is not None:
            mesh.color_attributes.remove(existing)
    else:
        rgba = _buffer(scratch, np.float32, (rows * cols, 4))
        grey = np.ravel(lightmap)
        for channel in range(3):  # one channel at a time: four times faster than broadcasting a column
            rgba[:, channel] = grey
        rgba[:, 3] = 1.0
        layer = existing or mesh.color_attributes.new(LIGHTMAP_ATTRIBUTE, "FLOAT_COLOR", "POINT")
        layer.data.foreach_set("color", rgba.ravel())  # linear values, no gamma step
    if same_grid:
        tag_positions_changed(mesh)
        mesh.update()
    else:
        mesh.shade_smooth()
    return not same_grid


def shift_shape_keys(mesh: bpy.types.Mesh, co: npt.NDArray[np.float32]) -> None:
    """Make ``co`` (``float32 (n, 3)``, the new positions) the Basis of ``mesh``'s shape keys, if it has any.

    The Basis (reference key) is what Blender shows and exports, not the
    vertex positions, so it takes the new positions; every other key moves
    by the same per-vertex change, keeping its offset from the Basis (a key
    that raised a hill by 2 m still raises it by 2 m on the new terrain).
    """
    keys = mesh.shape_keys
    if keys is None or not keys.key_blocks:
        return
    basis = keys.reference_key
    old = np.empty(co.size, dtype=np.float32)
    basis.data.foreach_get("co", old)
    delta = co.ravel() - old
    values = np.empty_like(old)
    for block in keys.key_blocks:
        if block == basis:
            block.data.foreach_set("co", co.ravel())
            continue
        block.data.foreach_get("co", values)
        values += delta
        block.data.foreach_set("co", values)


def is_grid_of(mesh: bpy.types.Mesh, rows: int, cols: int) -> bool:
    """Whether ``mesh`` is Orogen's ``rows x cols`` terrain grid: its counts, its UV map and its topology.

    Counts alone are not enough: a mesh whose vertices were reordered (Sort
    Mesh Elements) or whose faces were remade keeps its counts. So the faces
    are read back and compared with :func:`grid_faces` (every face four
    corners, in order, on the grid's vertices): the fingerprint of the grid's
    topology, about 10 ms for a million faces, in blocks of rows so the
    comparison needs no second full-size array. Vertex positions are not
    compared: :func:`update_grid_mesh` rewrites them all. When this holds,
    :func:`update_grid_mesh` rewrites positions and attributes only.
    """
    faces = (rows - 1) * (cols - 1)
    if not (
        len(mesh.vertices) == rows * cols
        and len(mesh.polygons) == faces
        and len(mesh.loops) == 4 * faces
        and len(mesh.edges) == rows * (cols - 1) + (rows - 1) * cols
        and mesh.attributes.get(UV_MAP) is not None
    ):
        return False
    if faces == 0:
        return True
    starts = np.empty(faces, dtype=np.uint32)
    mesh.polygons.foreach_get("loop_start", starts)
    if not np.array_equal(starts, np.arange(0, 4 * faces, 4, dtype=np.uint32)):
        return False
    del starts
    corners = np.empty(4 * faces, dtype=np.int32)
    attribute = mesh.attributes.get(".corner_vert")
    if attribute is None:
        mesh.loops.foreach_get("vertex_index", corners.view(np.uint32))
    else:
        attribute.data.foreach_get("value", corners)
    corners = corners.reshape(rows - 1, cols - 1, 4)
    offsets = np.array([0, cols, cols + 1, 1], dtype=np.int32)  # top-left, bottom-left, bottom-right, top-right
    column = np.arange(cols - 1, dtype=np.int32)
    block = max(1, (1 << 20) // max(cols - 1, 1))
    for start in range(0, rows - 1, block):
        part = corners[start : start + block]
        first = np.arange(start, start + len(part), dtype=np.int32)[:, None] * np.int32(cols) + column
        if not np.array_equal(part, first[..., None] + offsets):
            return False
    return True


#: The sides of a grid, each in the direction the edge loop runs round it (clockwise seen from above).
GRID_SIDES = ("north", "east", "south", "west")


def _side_indices(rows: int, cols: int, side: str) -> list[int]:
    """Row-major vertex indices of ``side`` of a ``rows x cols`` grid, corner to corner, in loop order:
    north west to east, east north to south, south east to west, west south to north."""
    if side == "north":
        return list(range(cols))
    if side == "east":
        return [r * cols + cols - 1 for r in range(rows)]
    if side == "south":
        return [(rows - 1) * cols + c for c in range(cols - 1, -1, -1)]
    if side == "west":
        return [r * cols for r in range(rows - 1, -1, -1)]
    raise ValueError(f"side must be one of {', '.join(GRID_SIDES)}, got {side!r}")


def _positions(mesh: bpy.types.Mesh, indices: list[int]) -> npt.NDArray[np.float32]:
    verts = mesh.vertices
    return np.array([verts[i].co[:] for i in indices], dtype=np.float32).reshape(-1, 3)


def grid_side(mesh: bpy.types.Mesh, rows: int, cols: int, side: str) -> npt.NDArray[np.float32]:
    """The vertices of one side of ``mesh``, a ``rows x cols`` grid: ``float32 (k, 3)`` local positions,
    both corners included, in the direction :func:`grid_edge_ring` runs (``side`` one of :data:`GRID_SIDES`).
    Raises ``ValueError`` for another side."""
    return _positions(mesh, _side_indices(rows, cols, side))


def grid_edge_ring(mesh: bpy.types.Mesh, rows: int, cols: int) -> npt.NDArray[np.float32]:
    """The edge vertices of ``mesh``, a ``rows x cols`` grid, once round it: ``float32 (n, 3)`` local positions.

    The loop starts at the north-west corner and runs east along row 0, south down the east column, west
    along the last row and north up the west column (row-major vertex indices, see :func:`grid_faces`):
    clockwise seen from above. Only the edge vertices are read (one Python access each: 16 k for a 4097²
    grid, where ``foreach_get`` of every position would take 200 MB).
    """
    north, east, south, west = (_side_indices(rows, cols, side) for side in GRID_SIDES)
    return _positions(mesh, north + east[1:] + south[1:] + west[1:-1])


#: Mesh custom property naming the object whose own or preview mesh it is (see :func:`grid_mesh_for`).
OWNER_PROPERTY = "orogen_owner"


def grid_shape_of(mesh: bpy.types.Mesh) -> tuple[int, int] | None:
    """``(rows, cols)`` of ``mesh`` if it is an Orogen grid (:func:`is_grid_of`), else ``None``.

    The first face's second corner is vertex ``cols`` (see :func:`grid_faces`).
    """
    if len(mesh.polygons) == 0 or len(mesh.loops) < 2:
        return None
    cols = mesh.loops[1].vertex_index
    if cols < 2 or len(mesh.vertices) % cols:
        return None
    rows = len(mesh.vertices) // cols
    return (rows, cols) if is_grid_of(mesh, rows, cols) else None
