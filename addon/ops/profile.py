"""Add > Mesh > Terrain Profile: a side-view terrain, the area between a 2D mountain profile and a base line."""

import bpy
import numpy as np
import numpy.typing as npt
from bpy_extras import object_utils

from ...core.colormap import DEFAULT_LAYERS
from ...core.generators.profiles import sectioned_profile, slope_walk
from ..material import build_material
from ..mesh import (
    HEIGHT_ATTRIBUTE,
    new_mesh,
)
from ..poll import AddsObjects
from ..properties import nonfinite_error


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
    mesh.attributes.new(HEIGHT_ATTRIBUTE, "FLOAT", "POINT").data.foreach_set("value", heights)
    return mesh


class OROGEN_OT_profile_add(AddsObjects, bpy.types.Operator, object_utils.AddObjectHelper):
    """Add a side-view terrain: the area between a 2D mountain profile and a base line"""

    bl_idname = "orogen.profile_add"
    bl_label = "Add Terrain Profile"
    bl_options = {"REGISTER", "UNDO"}

    method: bpy.props.EnumProperty(
        name="Method",
        description="How the profile is generated",
        items=(
            ("WALK", "Slope Walk", "Random walk of the slope; it turns at the height limits (no plateaus)"),
            ("SECTIONS", "Sections", "One random point per section, interpolated, shifted and smoothed"),
        ),
        default="SECTIONS",
    )
    columns: bpy.props.IntProperty(
        name="Columns", description="Heights along the profile", min=2, max=1_000_000, soft_max=8192, default=512
    )
    seed: bpy.props.IntProperty(
        name="Seed", description="Level seed; sections use sub-seeds of it", min=0, max=2**31 - 1, default=0
    )
    length: bpy.props.FloatProperty(
        name="Length",
        description="Length of the profile along X",
        min=0.001,
        max=1.0e6,
        soft_max=10_000.0,
        default=100.0,
        subtype="DISTANCE",
        unit="LENGTH",
    )
    min_height: bpy.props.FloatProperty(
        name="Min Height",
        description="Lowest point of the profile",
        min=-1.0e5,
        max=1.0e5,
        default=2.0,
        subtype="DISTANCE",
        unit="LENGTH",
    )
    max_height: bpy.props.FloatProperty(
        name="Max Height",
        description="Highest point of the profile",
        min=-1.0e5,
        max=1.0e5,
        default=30.0,
        subtype="DISTANCE",
        unit="LENGTH",
    )
    base: bpy.props.FloatProperty(
        name="Base",
        description="Height of the base line the profile is filled down to",
        min=-1.0e5,
        max=1.0e5,
        default=0.0,
        subtype="DISTANCE",
        unit="LENGTH",
    )
    depth: bpy.props.FloatProperty(
        name="Depth",
        description="Extrusion along Y; 0 gives a flat 2D shape",
        min=0.0,
        max=1.0e5,
        soft_max=1000.0,
        default=0.0,
        subtype="DISTANCE",
        unit="LENGTH",
    )
    max_slope: bpy.props.FloatProperty(
        name="Max Slope",
        description="Steepest slope, metres per column",
        min=0.001,
        max=1.0e4,
        soft_max=10.0,
        default=0.6,
    )
    slope_change: bpy.props.FloatProperty(
        name="Slope Change",
        description="Largest change of the slope per column; larger is jagged",
        min=0.0,
        max=1.0e4,
        soft_max=5.0,
        default=0.15,
    )
    sections: bpy.props.IntProperty(
        name="Sections",
        description="Number of sections (one random point each)",
        min=1,
        max=65536,
        soft_max=256,
        default=12,
    )
    sub_points: bpy.props.IntProperty(
        name="Sub-points", description="Interpolated points per section", min=1, max=4096, soft_max=64, default=6
    )
    shift: bpy.props.FloatProperty(
        name="Shift",
        description="How far sub-points are offset, as a fraction",
        min=0.0,
        max=1.0,
        default=0.25,
        subtype="FACTOR",
    )
    smoothing_steps: bpy.props.IntProperty(
        name="Smoothing",
        description="Random smoothing steps per section",
        min=0,
        max=10_000_000,
        soft_max=10_000,
        default=300,
    )
    use_material: bpy.props.BoolProperty(name="Material", description="Colour the profile by height", default=True)

    def draw(self, _context):
        layout = self.layout
        layout.use_property_split = True
        layout.use_property_decorate = False
        col = layout.column()
        for name in ("method", "columns", "seed", "length", "min_height", "max_height", "base", "depth"):
            col.prop(self, name)
        col = layout.column(align=True)
        names = (
            ("max_slope", "slope_change")
            if self.method == "WALK"
            else ("sections", "sub_points", "shift", "smoothing_steps")
        )
        for name in names:
            col.prop(self, name)
        layout.prop(self, "use_material")
        col = layout.column()
        col.prop(self, "align")
        col.prop(self, "location")
        col.prop(self, "rotation")

    def execute(self, context):
        message = nonfinite_error(self)
        if message:
            self.report({"ERROR"}, message)
            return {"CANCELLED"}
        if self.base >= self.min_height:
            self.report({"ERROR"}, f"Base ({self.base:g}) must be below Min Height ({self.min_height:g})")
            return {"CANCELLED"}
        try:
            if self.method == "WALK":
                profile = slope_walk(
                    self.columns,
                    self.seed,
                    min_height=self.min_height,
                    max_height=self.max_height,
                    max_slope=self.max_slope,
                    slope_change=self.slope_change,
                )
            else:
                profile = sectioned_profile(
                    self.columns,
                    self.seed,
                    sections=self.sections,
                    sub_points=self.sub_points,
                    shift=self.shift,
                    smoothing_steps=self.smoothing_steps,
                    min_height=self.min_height,
                    max_height=self.max_height,
                )
        except (ValueError, TypeError) as err:
            self.report({"ERROR"}, f"Profile not added: {err}")
            return {"CANCELLED"}
        mesh = build_profile_mesh("Terrain Profile", profile, self.length, self.base, self.depth)
        if self.use_material:
            mesh.materials.append(build_material("Terrain Profile", DEFAULT_LAYERS, use_lightmap=False))
        object_utils.object_data_add(context, mesh, operator=self)
        return {"FINISHED"}


def menu_func(self, _context):
    self.layout.operator(OROGEN_OT_profile_add.bl_idname, text="Terrain Profile", icon="IPO_EASE_IN_OUT")


classes = (OROGEN_OT_profile_add,)


def register() -> None:
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.VIEW3D_MT_mesh_add.append(menu_func)


def unregister() -> None:
    bpy.types.VIEW3D_MT_mesh_add.remove(menu_func)
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
