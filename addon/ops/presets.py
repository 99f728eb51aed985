"""Presets are specs: the built-in ones (``core.presets``) and the user's own, JSON files in the user's
presets folder (``scripts/presets/orogen/terrain``, never the extension's folder).

A user preset keeps the whole spec, colour layers included. Both kinds load
by name from Python (``bpy.ops.orogen.preset_load(name='island')``); 0.1's
user presets (Python files) are read without running them and load too.
The side-view profile preset adds its profile directly (profiles are not terrain specs).
"""

import os
from pathlib import Path

import bpy

from ...core.io.files import write_text
from ...core.io.jsonio import load_json, read_regular_file
from ...core.params import GENERATORS
from ...core.presets import PRESETS, preset_scatter, preset_spec
from ...core.spec import TerrainSpec, load_spec
from .. import thumbnails
from ..live import changed, suspended
from ..poll import active_terrain, mode_reason, poll_with
from ..specio import read_spec, write_spec
from ..versions import v1_preset

PRESET_SUBDIR = "presets/orogen/terrain"
#: Presets that add a side-view profile instead of loading a spec.
PROFILE_PRESETS = {
    "side_view_level": {
        "label": "Side-View Level (2D)",
        "description": "A side-view mountain profile for a 2D game level",
        "profile": {
            "method": "SECTIONS",
            "columns": 1024,
            "length": 200.0,
            "min_height": 5.0,
            "max_height": 40.0,
            "sections": 14,
            "sub_points": 24,
            "shift": 0.15,
            "smoothing_steps": 3000,
            "base": 0.0,
            "depth": 0.0,
        },
    },
}
_MAX_PRESET_BYTES = 1 << 20


def user_preset_folder(create: bool = False) -> str:
    """The user's Orogen preset folder (in Blender's user scripts folder)."""
    return bpy.utils.user_resource("SCRIPTS", path=PRESET_SUBDIR, create=create)


def user_presets() -> dict[str, str]:
    """User presets by name: their JSON files, and 0.1's Python presets not yet saved as JSON."""
    folder = user_preset_folder()
    found: dict[str, str] = {}
    if os.path.isdir(folder):
        for entry in sorted(os.listdir(folder)):
            stem, suffix = os.path.splitext(entry)
            if entry.startswith("."):  # hidden: a write's staging file, never a preset
                continue
            if suffix in (".json", ".py") and (suffix == ".json" or stem not in found):
                found[stem] = os.path.join(folder, entry)
    return found


def read_user_preset(path: str) -> TerrainSpec:
    """The spec in a user preset file (a spec JSON, or a 0.1 Python preset). Raises ``ValueError``."""
    name = os.path.basename(path)
    data = read_regular_file(path, f"preset {name}", _MAX_PRESET_BYTES)
    if path.endswith(".py"):
        return v1_preset(data.decode("utf-8", errors="replace"))
    return load_spec(load_json(data, f"preset {name}"))


#: A user preset by its own name whatever the built-ins are called: ``user:NAME`` (the menu's entries).
USER_PREFIX = "user:"


def builtin_names() -> set[str]:
    """The built-in presets' keys (profiles too): no user preset may be saved as one (a key loads the built-in;
    a label such as "Island" may be yours, and loads yours)."""
    return {*PRESETS, *PROFILE_PRESETS}


def find_preset(name: str) -> TerrainSpec | None:
    """The spec of the built-in or user preset ``name`` (a key, a label or a file name), ``None`` for a profile.

    ``user:NAME`` is the user preset ``NAME`` only (so a file of yours named like a built-in, saved by an
    earlier Orogen or copied in, loads itself). Raises ``ValueError`` naming the presets there are when none
    has that name.
    """
    if name.startswith(USER_PREFIX):
        path = user_presets().get(name[len(USER_PREFIX) :])
        if path is None:
            raise ValueError(f"no preset of yours is called {name[len(USER_PREFIX) :]!r:.60}")
        return read_user_preset(path)
    if name in PRESETS:
        return preset_spec(name)
    users = user_presets()  # before the labels: a preset of yours named "Island" is yours, not the built-in
    for key in (name, bpy.path.clean_name(name)):  # the name as typed, or as saved (a file name)
        if key in users:
            return read_user_preset(users[key])
    labels = {p["label"]: key for key, p in PRESETS.items()}
    if name in labels:
        return preset_spec(labels[name])
    if name in PROFILE_PRESETS:
        return None
    raise ValueError(
        f"no preset {name!r:.60}; built-in: {', '.join([*PRESETS, *PROFILE_PRESETS])}; "
        f"yours: {', '.join(users) or 'none'}"
    )


def builtin_key(name: str) -> str | None:
    """The key of the built-in preset ``name`` loads (a key, or a label no preset of yours has), else ``None``."""
    if name in PRESETS:
        return name
    if name.startswith(USER_PREFIX) or name in user_presets() or bpy.path.clean_name(name) in user_presets():
        return None
    return next((key for key, p in PRESETS.items() if p["label"] == name), None)


def add_preset_scatter(obj, key: str) -> tuple[list[str], list[str]]:
    """Scatter ``obj`` with built-in preset ``key``'s trees and rocks (Add Scatter, one call per entry: a kind
    already there is updated, kinds the preset has not are left alone). Returns the kinds added and a message
    for each that failed (that kind is left off; Add Scatter leaves the terrain as it was)."""
    added, failed = [], []
    for entry in preset_scatter(key):
        settings = dict(entry)
        kind = settings.pop("kind")
        with bpy.context.temp_override(active_object=obj, object=obj):
            try:
                result = bpy.ops.orogen.scatter_add(kind=kind.upper(), **settings)
            except RuntimeError as err:  # its own report, raised as an error by an operator call from Python
                failed.append(f"{kind} not scattered: {str(err).strip()[:200]}")
                continue
        if "FINISHED" in result:
            added.append(kind)
    return added, failed


def keep_source(current: TerrainSpec, preset: TerrainSpec) -> tuple[TerrainSpec, str]:
    """``preset`` as it dresses a terrain that starts from a source (a file, an object: a generator in metres):
    its filters, lighting, material and layers on the terrain's own source, size, width and Height; with a
    note for the report. Any other terrain takes the preset whole (``(preset, "")``)."""
    if not GENERATORS[current.generator].metres:
        return preset, ""
    kept = preset.replace(
        generator=current.generator,
        params=current.params,
        size=current.size,
        size_y=current.size_y,
        width=current.width,
        height=current.height,
        seed=current.seed,
    )
    return kept, f" (kept its {GENERATORS[current.generator].label.lower()} source)"


def _target(context):
    obj = active_terrain(context)
    return (obj, obj.orogen) if obj is not None else (None, context.scene.orogen)


class OROGEN_OT_preset_load(bpy.types.Operator):
    """Load a terrain preset (built-in or yours) into the Terrain panel's settings, or into the selected \
terrain (which then regenerates)"""

    bl_idname = "orogen.preset_load"
    bl_label = "Load Terrain Preset"
    bl_options = {"REGISTER", "UNDO"}

    name: bpy.props.StringProperty(name="Preset", description="Built-in preset key or label, or your preset's name")
    scatter: bpy.props.BoolProperty(
        name="Trees and Rocks",
        default=True,
        description="Loaded into a terrain, a built-in preset scatters its trees and rocks too (Add Scatter)",
    )

    @classmethod
    def poll(cls, context):
        return poll_with(cls, mode_reason(context))

    def execute(self, context):
        try:
            spec = find_preset(self.name)
        except (ValueError, TypeError, OSError) as err:
            self.report({"ERROR"}, f"Preset not loaded: {err}")
            return {"CANCELLED"}
        if spec is None:
            bpy.ops.orogen.profile_add(**PROFILE_PRESETS[self.name]["profile"])
            self.report({"INFO"}, f"Added {PROFILE_PRESETS[self.name]['label']}")
            return {"FINISHED"}
        obj, settings = _target(context)
        kept = ""
        try:
            spec, kept = keep_source(read_spec(settings), spec)
        except (ValueError, TypeError):  # the settings shown cannot be read: the preset replaces them whole
            pass
        with suspended():
            write_spec(settings, spec)
        if obj is not None:
            changed(obj, context)
            key = builtin_key(self.name) if self.scatter else None
            added, failed = add_preset_scatter(obj, key) if key is not None else ([], [])
            for message in failed:
                self.report({"WARNING"}, message)
            trees = f", scattered with {', '.join(added)}" if added else ""
            self.report({"INFO"}, f"Loaded {self.name} into {obj.name}{kept}{trees}")
        else:
            self.report({"INFO"}, f"Loaded {self.name}: press Generate")
        return {"FINISHED"}


class OROGEN_OT_preset_save(bpy.types.Operator):
    """Save the shown terrain settings, colour layers included, as a preset in your presets folder"""

    bl_idname = "orogen.preset_save"
    bl_label = "Save Terrain Preset"
    bl_options = {"REGISTER"}

    name: bpy.props.StringProperty(name="Name", description="Preset name (a file name in your presets folder)")

    @classmethod
    def poll(cls, context):
        return poll_with(cls, None if getattr(context, "scene", None) is not None else "No scene to work in")

    def invoke(self, context, _event):
        return context.window_manager.invoke_props_dialog(self)

    def execute(self, context):
        name = bpy.path.clean_name(self.name.strip()) if self.name.strip() else ""
        if not name:
            self.report({"ERROR"}, "Preset not saved: give it a name")
            return {"CANCELLED"}
        if {self.name.strip(), name} & builtin_names():
            self.report(
                {"ERROR"}, f"Preset not saved: {self.name.strip()!r:.60} is a built-in preset's name: choose another"
            )
            return {"CANCELLED"}
        try:
            text = read_spec(_target(context)[1]).to_json(indent=1)
            path = os.path.join(user_preset_folder(create=True), name + ".json")
            # verified before it replaces anything; on a full disk nothing half-written stays
            write_text(path, text, check=lambda staged: load_spec(load_json(Path(staged), "preset")))
        except (ValueError, TypeError, OSError) as err:
            where = f": {err.filename}" if isinstance(err, OSError) and err.filename else ""
            self.report(
                {"ERROR"}, f"Preset not saved: {(err.strerror if isinstance(err, OSError) else None) or err}{where}"
            )
            return {"CANCELLED"}
        self.report({"INFO"}, f"Saved preset {name} to {path}")
        return {"FINISHED"}


class OROGEN_OT_preset_remove(bpy.types.Operator):
    """Remove one of your presets (built-in presets cannot be removed)"""

    bl_idname = "orogen.preset_remove"
    bl_label = "Remove Terrain Preset"
    bl_options = {"REGISTER"}

    name: bpy.props.StringProperty(name="Name", description="Your preset's name")

    def execute(self, _context):
        path = user_presets().get(self.name)
        if path is None:
            self.report({"ERROR"}, f"No preset of yours is called {self.name!r}")
            return {"CANCELLED"}
        try:
            os.remove(path)
        except OSError as err:
            self.report({"ERROR"}, f"Preset not removed: {err.strerror or err}: {path}")
            return {"CANCELLED"}
        return {"FINISHED"}


class OROGEN_MT_terrain_presets(bpy.types.Menu):
    """Built-in presets, then your own."""

    bl_label = "Terrain Presets"

    def draw(self, _context):
        layout = self.layout
        for key, preset in {**PRESETS, **PROFILE_PRESETS}.items():
            icon = thumbnails.icon_id(key)
            layout.operator(OROGEN_OT_preset_load.bl_idname, text=preset["label"], icon_value=icon).name = key
        users = user_presets()
        if users:
            layout.separator()
            for name in users:  # by their own name: a file named like a built-in loads itself
                layout.operator(OROGEN_OT_preset_load.bl_idname, text=name).name = USER_PREFIX + name


class OROGEN_MT_terrain_presets_remove(bpy.types.Menu):
    bl_label = "Remove Preset"

    def draw(self, _context):
        for name in user_presets():
            self.layout.operator(OROGEN_OT_preset_remove.bl_idname, text=name).name = name


class OROGEN_PT_preset_gallery(bpy.types.Panel):
    """The built-in presets as pictures (their renders), a click loads one: the preset menu's gallery."""

    bl_label = "Preset Gallery"
    bl_space_type = "VIEW_3D"
    bl_region_type = "HEADER"
    bl_ui_units_x = 24

    def draw(self, _context):
        grid = self.layout.grid_flow(row_major=True, columns=3, even_columns=True, even_rows=True)
        for key, preset in {**PRESETS, **PROFILE_PRESETS}.items():
            col = grid.column(align=True)
            if thumbnails.preview(key) is not None:
                col.template_icon(icon_value=thumbnails.icon_id(key), scale=6.0)
            col.operator(OROGEN_OT_preset_load.bl_idname, text=preset["label"]).name = key


def draw_presets(layout) -> None:
    """Preset menu with save and remove buttons, as Blender's own preset headers, and the gallery of pictures."""
    row = layout.row(align=True)
    row.menu("OROGEN_MT_terrain_presets", text=OROGEN_MT_terrain_presets.bl_label)
    row.popover(OROGEN_PT_preset_gallery.__name__, text="", icon="IMAGE_BACKGROUND")
    row.operator(OROGEN_OT_preset_save.bl_idname, text="", icon="ADD")
    row.menu("OROGEN_MT_terrain_presets_remove", text="", icon="REMOVE")


classes = (
    OROGEN_OT_preset_load,
    OROGEN_OT_preset_save,
    OROGEN_OT_preset_remove,
    OROGEN_MT_terrain_presets,
    OROGEN_MT_terrain_presets_remove,
    OROGEN_PT_preset_gallery,
)


register, unregister = bpy.utils.register_classes_factory(classes)
