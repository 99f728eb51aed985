"""Scatter operators: Add Scatter puts trees or boulders on the selected terrain; Remove Scatter takes them off.

See :mod:`..scatter` for the node group and the maps it reads, :mod:`..placeholders` for the built-in objects.
"""

import bpy

from ...core.scatter import CLUMP_OPTIONS, SCATTER_KINDS, ScatterOption, auto_clump_size
from ..placeholders import placeholder_collection, remove_placeholder_collection
from ..poll import poll_with, terrain_reason
from ..scatter import (
    GROUP_PROPERTY,
    footprint,
    identifiers,
    is_scatter_group,
    layer_attribute,
    scatter_group,
    scatter_modifiers,
    set_inputs,
    sync_scatter,
)
from ..specio import read_spec

#: Operator settings filled from the kind's defaults (core.scatter.ScatterKind's fields of the same name).
KIND_SETTINGS = (
    "density",
    "spacing",
    "slope_min",
    "slope_max",
    "slope_softness",
    "wetness_min",
    "wetness_softness",
    "scale_min",
    "scale_max",
    "rotation",
    "align",
    "sink",
    *(option.name for option in CLUMP_OPTIONS),
)

#: A warning when a scatter may place more instances than this (a render holds each one).
MANY_INSTANCES = 2_000_000


def modifier_name(kind: str) -> str:
    """The name of the modifier that scatters ``kind`` (re-running Add Scatter updates that one)."""
    return f"Orogen {SCATTER_KINDS[kind].label}"


#: The Kind menu: each of core's scatter kinds.
KIND_ITEMS = [(name.upper(), kind.label, f"Placeholder {kind.label.lower()}") for name, kind in SCATTER_KINDS.items()]


def _length(name: str, default: float, description: str, low: float = 0.0, high: float = 1.0e4):
    return bpy.props.FloatProperty(
        name=name, default=default, min=low, max=high, unit="LENGTH", subtype="DISTANCE", description=description
    )


def _option(option: ScatterOption, default: float):
    """A property of the scatter setting ``option`` (core's bounds, unit and description)."""
    if option.unit == "m":
        return _length(option.label, default, option.description, option.low, option.high)
    return bpy.props.FloatProperty(
        name=option.label,
        default=default,
        min=option.low,
        max=option.high,
        subtype="FACTOR",
        description=option.description,
    )


_CLUMP = {option.name: option for option in CLUMP_OPTIONS}


def _angle(name: str, default: float, description: str, high: float = 90.0):
    return bpy.props.FloatProperty(name=name, default=default, min=0.0, max=high, description=description)


class OROGEN_OT_scatter_add(bpy.types.Operator):
    """Scatter trees or boulders over the selected terrain (a Geometry Nodes modifier: light instances, points in \
the viewport), their density following its slope, altitude, wetness and a colour layer; settings not given take \
the kind's defaults"""

    bl_idname = "orogen.scatter_add"
    bl_label = "Add Scatter"
    bl_options = {"REGISTER", "UNDO"}

    kind: bpy.props.EnumProperty(
        name="Kind", items=KIND_ITEMS, default="CONIFERS", description="What to scatter (its defaults)"
    )
    collection: bpy.props.StringProperty(
        name="Collection",
        default="",
        description="Your collection to place instead of the placeholders (empty: "
        "Orogen's placeholder objects of the kind)",
    )
    seed: bpy.props.IntProperty(name="Seed", default=0, min=0, description="Same seed, same instances")
    density: bpy.props.FloatProperty(
        name="Density", default=100.0, min=0.0, max=1.0e5, description="Instances per hectare on ideal ground"
    )
    spacing: _length("Spacing", 4.0, "Least distance between two instances (Poisson disc)")
    slope_min: _angle("Slope Min", 0.0, "Degrees: fewer instances below (over the softness)")
    slope_max: _angle("Slope Max", 35.0, "Degrees: fewer instances above (over the softness)")
    slope_softness: _angle("Slope Softness", 5.0, "Degrees over which the slope factor falls to 0")
    altitude_min: _length(
        "Altitude Min",
        -1.0e4,
        "Metres above the terrain's lowest point (with water: a softness above its level)",
        -1.0e6,
        1.0e6,
    )
    altitude_max: _length("Altitude Max", 1.0e6, "Metres above the terrain's lowest point", -1.0e6, 1.0e6)
    altitude_softness: _length("Altitude Softness", 20.0, "Metres over which the altitude factor falls to 0")
    wetness_min: bpy.props.FloatProperty(
        name="Wetness Min",
        default=-100.0,
        min=-100.0,
        max=100.0,
        description="Topographic wetness index: fewer "
        "instances on drier ground (ridges about 2, valley floors 10 and more)",
    )
    wetness_softness: bpy.props.FloatProperty(
        name="Wetness Softness", default=1.0, min=0.0, max=100.0, description="Index units over which it falls"
    )
    layer: bpy.props.StringProperty(
        name="Colour Layer",
        default="",
        description="Only where this colour layer of the terrain shows, in proportion to its weight (empty: anywhere)",
    )
    scale_min: bpy.props.FloatProperty(
        name="Scale Min",
        default=0.5,
        min=0.0,
        max=1.0e3,
        description="Smallest instance, times the placeholder's "
        "size (conifers 20 m tall, broadleaf trees 14 m, boulders 1.5 m across)",
    )
    scale_max: bpy.props.FloatProperty(
        name="Scale Max", default=1.5, min=0.0, max=1.0e3, description="Largest instance, times the placeholder's size"
    )
    clump_size: _option(_CLUMP["clump_size"], 0.0)
    clumping: _option(_CLUMP["clumping"], 0.0)
    site_scale: _option(_CLUMP["site_scale"], 0.0)
    rotation: _angle("Rotation Jitter", 180.0, "Random turn about the vertical, degrees either way", 180.0)
    align: bpy.props.FloatProperty(
        name="Align to Slope",
        default=0.0,
        min=0.0,
        max=1.0,
        subtype="FACTOR",
        description="0: upright (trees), 1: normal to the ground (boulders)",
    )
    sink: _length("Sink", 0.5, "Lower each instance into the ground by this much", -1.0e3, 1.0e3)
    viewport_points: bpy.props.BoolProperty(
        name="Viewport Points", default=True, description="Show points in the viewport, instances in renders"
    )
    filled_for: bpy.props.StringProperty(
        default="", options={"HIDDEN", "SKIP_SAVE"}, description="The kind whose defaults the settings hold"
    )

    @classmethod
    def poll(cls, context):
        return poll_with(cls, terrain_reason(context))

    def _fill(self, spec) -> None:
        """Take the kind's defaults for every kind setting not given (first run), or all (the kind changed). On
        a terrain with water, Altitude Min not given starts a softness above the water level (nothing under
        water)."""
        kind = SCATTER_KINDS[self.kind.lower()]
        first = not self.filled_for
        if first and spec.material.get("water", False) and not self.properties.is_property_set("altitude_min"):
            self.altitude_min = float(spec.material["water_level"]) + self.altitude_softness
        if self.filled_for != self.kind:
            for name in KIND_SETTINGS:
                if not (first and self.properties.is_property_set(name)):
                    setattr(self, name, getattr(kind, name))
            self.filled_for = self.kind

    def _values(self, obj, collection) -> dict:
        """The modifier's inputs; ``ValueError`` for settings that contradict each other."""
        if self.scale_min > self.scale_max:
            raise ValueError(f"Scale Min {self.scale_min:g} is above Scale Max {self.scale_max:g}")
        if self.slope_min > self.slope_max:
            raise ValueError(f"Slope Min {self.slope_min:g} is above Slope Max {self.slope_max:g}")
        if self.altitude_min > self.altitude_max:
            raise ValueError(f"Altitude Min {self.altitude_min:g} m is above Altitude Max {self.altitude_max:g} m")
        clump = {option.label: option.check(getattr(self, option.name)) for option in CLUMP_OPTIONS}
        if clump["Clump Size"] == 0.0:  # (the group reads positions in the object's space: its unscaled extent)
            clump["Clump Size"] = auto_clump_size(max(footprint(obj, scaled=False)))
        return {
            "Collection": collection,
            "Seed": self.seed,
            "Density": self.density,
            "Spacing": self.spacing,
            "Slope Min": self.slope_min,
            "Slope Max": self.slope_max,
            "Slope Softness": self.slope_softness,
            "Altitude Min": self.altitude_min,
            "Altitude Max": self.altitude_max,
            "Altitude Softness": self.altitude_softness,
            "Wetness Min": self.wetness_min,
            "Wetness Softness": self.wetness_softness,
            "Layer Attribute": layer_attribute(self.layer) if self.layer.strip() else "",
            "Scale Min": self.scale_min,
            "Scale Max": self.scale_max,
            **clump,
            "Rotation": self.rotation,
            "Align": self.align,
            "Sink": self.sink,
            "Viewport Points": self.viewport_points,
        }

    def _collection(self) -> tuple[bpy.types.Collection, bool]:
        name = self.collection.strip()
        if not name:
            return placeholder_collection(self.kind.lower())
        found = bpy.data.collections.get(name)
        if found is None:
            raise ValueError(f"no collection called {name!r}")
        if not found.all_objects:
            raise ValueError(f"the collection {name!r} holds no objects to place")
        return found, False

    def execute(self, context):
        obj = context.active_object
        try:
            spec = read_spec(obj.orogen)
            self._fill(spec)
            if self.layer.strip() and self.layer.strip() not in {lay.name for lay in spec.layers}:
                raise ValueError(f"{obj.name} has no colour layer called {self.layer.strip()!r}")
        except (ValueError, TypeError) as err:
            self.report({"ERROR"}, f"Scatter not added: {err}")
            return {"CANCELLED"}
        name = modifier_name(self.kind.lower())
        existing = obj.modifiers.get(name)
        if existing is not None and not (existing.type == "NODES" and is_scatter_group(existing.node_group)):
            self.report({"ERROR"}, f"Scatter not added: {obj.name} has a modifier {name!r} of its own: rename it")
            return {"CANCELLED"}
        made = []  # (kind of data, data) made by this run, removed again on failure
        if existing is not None:  # its group and inputs, put back on failure
            made.append(("inputs", (existing, existing.node_group, {k: existing[k] for k in existing.keys()})))
        try:
            group, new_group = scatter_group()
            if new_group:
                made.append(("group", group))
            collection, new_collection = self._collection()
            if new_collection:
                made.append(("collection", collection))
            values = self._values(obj, collection)
            modifier = existing
            if modifier is None:
                modifier = obj.modifiers.new(name, "NODES")
                made.append(("modifier", modifier))
            if modifier.node_group is not group:
                modifier.node_group = group
            set_inputs(modifier, values)
            notes = sync_scatter(obj, spec)
        except (ValueError, TypeError, RuntimeError, KeyError) as err:
            self._undo(obj, made)
            self.report({"ERROR"}, f"Scatter not added: {err}")
            return {"CANCELLED"}
        for note in notes:
            self.report({"WARNING"}, note)
        width, depth = footprint(obj)
        most = self.density * width * depth / 10000.0
        level = "WARNING" if most > MANY_INSTANCES else "INFO"
        self.report({level}, f"{name} on {obj.name}: up to {most:,.0f} instances over {width:.0f} x {depth:.0f} m")
        return {"FINISHED"}

    @staticmethod
    def _undo(obj, made) -> None:
        for what, data in reversed(made):
            if what == "modifier":
                obj.modifiers.remove(data)
            elif what == "inputs":
                modifier, group, values = data
                modifier.node_group = group
                for key, value in values.items():
                    modifier[key] = value
            elif what == "collection" and data.users == 0:
                remove_placeholder_collection(data)
            elif what == "group" and data.users == 0:
                bpy.data.node_groups.remove(data)

    def draw(self, _context):
        col = self.layout.column()
        for name in ("kind", "collection", "seed", "density", "spacing"):
            col.prop(self, name)
        for title, names in (
            ("Where", ("slope_min", "slope_max", "slope_softness", "altitude_min", "altitude_max")),
            ("", ("altitude_softness", "wetness_min", "wetness_softness", "layer")),
            ("Groves", tuple(option.name for option in CLUMP_OPTIONS)),
            ("Instances", ("scale_min", "scale_max", "rotation", "align", "sink", "viewport_points")),
        ):
            if title:
                col.label(text=title)
            for name in names:
                col.prop(self, name)


class OROGEN_OT_scatter_remove(bpy.types.Operator):
    """Remove the selected terrain's Orogen scatters (their modifiers; placeholder objects no scatter uses go too)"""

    bl_idname = "orogen.scatter_remove"
    bl_label = "Remove Scatter"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        reason = terrain_reason(context)
        if reason is None and not scatter_modifiers(context.active_object):
            reason = f"{context.active_object.name} has no Orogen scatter"
        return poll_with(cls, reason)

    def execute(self, context):
        obj = context.active_object
        removed = 0
        for modifier in scatter_modifiers(obj):
            obj.modifiers.remove(modifier)
            removed += 1
        for collection in [c for c in bpy.data.collections if c.get("orogen_scatter_placeholder")]:
            if collection.users == 0:
                remove_placeholder_collection(collection)
        for group in [g for g in bpy.data.node_groups if g.get(GROUP_PROPERTY) is not None]:
            if group.users == 0:
                bpy.data.node_groups.remove(group)
        self.report({"INFO"}, f"Removed {removed} scatter{'s' if removed != 1 else ''} from {obj.name}")
        return {"FINISHED"}


#: The inputs the panel shows for each scatter (the modifier's own panel shows them all).
PANEL_INPUTS = ("Seed", "Density", "Spacing", "Slope Max", "Viewport Points")


def draw_scatter(layout, obj) -> None:
    """The Trees and Rocks panel for terrain ``obj`` (``None``: a hint): a button per kind, then each scatter's
    main inputs (the rest are in the modifier's panel, Properties > Modifiers)."""
    if obj is None:
        layout.label(text="Select a terrain to scatter on it", icon="INFO")
        return
    row = layout.row(align=True)
    for name, kind in SCATTER_KINDS.items():
        row.operator(OROGEN_OT_scatter_add.bl_idname, text=kind.label.split()[0]).kind = name.upper()
    for modifier in scatter_modifiers(obj):
        box = layout.box()
        box.prop(modifier, "show_viewport", text=modifier.name, emboss=False, icon="OUTLINER_OB_POINTCLOUD")
        ids = identifiers(modifier.node_group)
        for name in PANEL_INPUTS:
            if name in ids:
                box.prop(modifier, f'["{ids[name]}"]', text=name)
    if scatter_modifiers(obj):
        layout.operator(OROGEN_OT_scatter_remove.bl_idname, icon="TRASH")


classes = (OROGEN_OT_scatter_add, OROGEN_OT_scatter_remove)


def register() -> None:
    for cls in classes:
        bpy.utils.register_class(cls)


def unregister() -> None:
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
