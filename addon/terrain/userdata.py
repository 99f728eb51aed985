"""The user's data on a terrain mesh, kept across a change of grid size: read, resampled, written back.

Regenerate touches only what Orogen made: the positions, the ``height``,
``slope``, ``curvature`` and ``Lightmap`` attributes, an Unlit terrain's
baked ``Color``, the ``UVMap`` and the smooth shading. Everything else on the mesh is the user's: vertex groups,
shape keys, other UV maps, colour attributes, custom attributes (any
domain), per-face material indices, edge creases and seams. When the grid
changes size the mesh is rebuilt, which would delete all of it; instead it
is read first (:func:`capture`) and written onto the new grid
(:func:`restore`), resampled on the grid's normalised coordinates (the
terrain covers the same area at any size):

- float values on points (vertex groups, shape key offsets from the Basis,
  attributes) bilinearly between the four surrounding vertices;
- float values on face corners (UV maps, corner colours) bilinearly inside
  the old face under the new face's centre, from its four corners (exact
  for a UV map that is linear across the grid, and seams stay seams);
- integers, booleans, matrices and quaternions, and everything on faces
  and edges, from the nearest old element (the nearest of the same
  direction for edges).

Only a mesh that still is a grid (:func:`mesh.grid_shape_of`) can be
resampled; :func:`names` lists what would otherwise be lost, so the caller
can refuse with the list before dropping anything.
"""

from dataclasses import dataclass, field

import bpy
import numpy as np
import numpy.typing as npt

from ...core.resample import resample, resample_points
from ..mesh import (
    BAKED_COLOR_ATTRIBUTE,
    CURVATURE_ATTRIBUTE,
    EROSION_ATTRIBUTES,
    HEIGHT_ATTRIBUTE,
    LIGHTMAP_ATTRIBUTE,
    OCCLUSION_ATTRIBUTE,
    SLOPE_ATTRIBUTE,
    UV_MAP,
)

#: Attributes Orogen writes itself (rewritten on every regeneration, never resampled).
OROGEN_ATTRIBUTES = frozenset(
    {
        "position",
        "sharp_face",
        HEIGHT_ATTRIBUTE,
        SLOPE_ATTRIBUTE,
        CURVATURE_ATTRIBUTE,
        LIGHTMAP_ATTRIBUTE,
        OCCLUSION_ATTRIBUTE,
        UV_MAP,
        BAKED_COLOR_ATTRIBUTE,
        *EROSION_ATTRIBUTES,
    }
)

#: Attribute data types: (foreach property, numpy dtype, components, interpolated).
_TYPES = {
    "FLOAT": ("value", np.float32, 1, True),
    "FLOAT2": ("vector", np.float32, 2, True),
    "FLOAT_VECTOR": ("vector", np.float32, 3, True),
    "FLOAT_COLOR": ("color", np.float32, 4, True),
    "BYTE_COLOR": ("color", np.float32, 4, True),
    "INT": ("value", np.int32, 1, False),
    "INT8": ("value", np.int8, 1, False),
    "BOOLEAN": ("value", bool, 1, False),
    "INT32_2D": ("value", np.int32, 2, False),
    "QUATERNION": ("value", np.float32, 4, False),
    "FLOAT4X4": ("value", np.float32, 16, False),
}


def user_attributes(mesh: bpy.types.Mesh) -> list:
    """The user's attributes of ``mesh`` (not Orogen's, not Blender's internal ``.`` ones)."""
    return [a for a in mesh.attributes if not a.name.startswith(".") and a.name not in OROGEN_ATTRIBUTES]


def names(obj: bpy.types.Object, mesh: bpy.types.Mesh) -> list[str]:
    """What of the user's a rebuild of ``mesh`` would delete, for messages (empty: nothing)."""
    found = [f"vertex group {g.name!r}" for g in obj.vertex_groups] if obj.data == mesh else []
    if mesh.shape_keys is not None:
        found += [f"shape key {k.name!r}" for k in mesh.shape_keys.key_blocks]
    kinds = {"FLOAT2": "UV map", "FLOAT_COLOR": "colour attribute", "BYTE_COLOR": "colour attribute"}
    for attribute in user_attributes(mesh):
        kind = kinds.get(attribute.data_type, "attribute") if attribute.domain in ("POINT", "CORNER") else "attribute"
        found.append(f"{kind} {attribute.name!r}")
    return found


@dataclass
class Captured:
    """The user's data of a ``shape`` grid mesh, as arrays (see :func:`capture`)."""

    shape: tuple[int, int]
    attributes: list = field(default_factory=list)  # (name, domain, data_type, array (count, components))
    groups: list = field(default_factory=list)  # (name, lock_weight, weights float32 (n,), member bool (n,))
    keys: list = field(default_factory=list)  # (name, settings dict, offset float32 (n, 3) from the Basis)
    key_settings: dict = field(default_factory=dict)  # the Key: reference name, use_relative, action
    active: dict = field(default_factory=dict)  # active/render UV map and colour attribute names

    def summary(self) -> list[str]:
        return (
            [f"vertex group {g[0]!r}" for g in self.groups]
            + [f"shape key {k[0]!r}" for k in self.keys]
            + [f"attribute {a[0]!r}" for a in self.attributes]
        )


def _read(attribute) -> npt.NDArray:
    prop, dtype, width, _ = _TYPES[attribute.data_type]
    values = np.empty(len(attribute.data) * width, dtype=dtype)
    attribute.data.foreach_get(prop, values)
    return values.reshape(len(attribute.data), width)


def capture(obj: bpy.types.Object, mesh: bpy.types.Mesh, shape: tuple[int, int]) -> Captured:
    """Read the user's data of ``mesh``, a ``shape`` grid shown by ``obj`` (vertex groups are read by
    vertex, about 1 µs each; the rest with ``foreach_get``)."""
    data = Captured(shape)
    for attribute in user_attributes(mesh):
        if attribute.data_type in _TYPES:
            data.attributes.append((attribute.name, attribute.domain, attribute.data_type, _read(attribute)))
    data.active = {
        "uv": mesh.uv_layers.active.name if mesh.uv_layers.active else None,
        "uv_render": next((uv.name for uv in mesh.uv_layers if uv.active_render), None),
        "color": getattr(mesh.color_attributes.active_color, "name", None),
        "color_render": (
            mesh.color_attributes[mesh.color_attributes.render_color_index].name
            if 0 <= mesh.color_attributes.render_color_index < len(mesh.color_attributes)
            else None
        ),
    }
    if obj.vertex_groups:
        n = len(mesh.vertices)
        weights = np.zeros((len(obj.vertex_groups), n), dtype=np.float32)
        member = np.zeros((len(obj.vertex_groups), n), dtype=bool)
        for vertex in mesh.vertices:
            for element in vertex.groups:
                weights[element.group, vertex.index] = element.weight
                member[element.group, vertex.index] = True
        data.groups = [(g.name, g.lock_weight, weights[g.index], member[g.index]) for g in obj.vertex_groups]
    keys = mesh.shape_keys
    if keys is not None and keys.key_blocks:
        basis = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        keys.reference_key.data.foreach_get("co", basis)
        action = keys.animation_data.action if keys.animation_data else None
        data.key_settings = {
            "reference": keys.reference_key.name,
            "use_relative": keys.use_relative,
            "eval_time": keys.eval_time,
            "action": action,
        }
        values = np.empty_like(basis)
        for block in keys.key_blocks:
            block.data.foreach_get("co", values)
            settings = {
                name: getattr(block, name)
                for name in ("slider_min", "slider_max", "value", "mute", "interpolation", "vertex_group", "lock_shape")
            }
            settings["relative_key"] = block.relative_key.name
            data.keys.append((block.name, settings, (values - basis).reshape(-1, 3)))
    return data


def restore(obj: bpy.types.Object, mesh: bpy.types.Mesh, data: Captured, shape: tuple[int, int]) -> None:
    """Write ``data`` (captured on another grid) onto ``mesh``, now a ``shape`` grid shown by ``obj``.

    Shape keys: the Basis is the mesh's new positions and every other key
    gets its old offset from the Basis, resampled; their settings, relative
    keys and the keys' action come back by name.
    """
    old = data.shape
    for name, domain, data_type, values in data.attributes:
        prop, dtype, _, smooth = _TYPES[data_type]
        if domain not in ("POINT", "CORNER", "FACE", "EDGE"):
            continue
        new_values = resample(values, domain, smooth=smooth, old=old, new=shape)
        attribute = mesh.attributes.get(name) or mesh.attributes.new(name, data_type, domain)
        attribute.data.foreach_set(prop, np.ascontiguousarray(new_values, dtype=dtype).ravel())
    for kind, collection in (("uv", mesh.uv_layers), ("color", mesh.color_attributes)):
        if data.active.get(kind) in collection:
            if kind == "uv":
                collection.active = collection[data.active["uv"]]
            else:
                collection.active_color = collection[data.active["color"]]
    if data.active.get("uv_render") in mesh.uv_layers:
        mesh.uv_layers[data.active["uv_render"]].active_render = True
    if data.active.get("color_render") in mesh.color_attributes:
        mesh.color_attributes.render_color_index = mesh.color_attributes.find(data.active["color_render"])
    for name, lock, weights, member in data.groups:
        group = obj.vertex_groups.get(name) or obj.vertex_groups.new(name=name)
        group.lock_weight = lock
        # Members where the nearest old vertex was one; weights bilinear among the old members only (a vertex
        # on the group's border does not blend with the non-members' absent weight).
        new_member = resample_points(member[:, None], old, shape, smooth=False)[:, 0]
        share = resample_points(member[:, None].astype(np.float32), old, shape, smooth=True)[:, 0]
        total = resample_points(weights[:, None], old, shape, smooth=True)[:, 0]
        indices = np.flatnonzero(new_member & (share > 0))
        values, inverse = np.unique(total[indices] / share[indices], return_inverse=True)
        for k, weight in enumerate(values.tolist()):
            group.add(indices[inverse == k].tolist(), weight, "REPLACE")
    if data.keys:
        _restore_keys(obj, mesh, data, shape)


def _restore_keys(obj: bpy.types.Object, mesh: bpy.types.Mesh, data: Captured, shape: tuple[int, int]) -> None:
    basis = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", basis)
    blocks = {}
    for name, _, offset in data.keys:
        block = obj.shape_key_add(name=name, from_mix=False)
        blocks[name] = block
        if name != data.key_settings["reference"]:
            block.data.foreach_set("co", basis + resample_points(offset, data.shape, shape, smooth=True).ravel())
    for name, settings, _ in data.keys:
        block = blocks[name]
        for prop, value in settings.items():
            if prop == "relative_key":
                if value in blocks:
                    block.relative_key = blocks[value]
            else:
                setattr(block, prop, value)
    keys = mesh.shape_keys
    keys.use_relative = data.key_settings["use_relative"]
    keys.eval_time = data.key_settings["eval_time"]
    if data.key_settings["action"] is not None:
        keys.animation_data_create().action = data.key_settings["action"]
