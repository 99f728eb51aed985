"""Undo and redo of every operator that changes data, in the real ``bpy`` module.

A background session starts without an undo stack, but ``bpy.ops.ed.undo_push`` creates it, and then
``bpy.ops.ed.undo`` and ``redo`` run as Ctrl+Z and Shift+Ctrl+Z do. After an operator with the ``UNDO`` flag
finishes, the window manager pushes an undo step named after it; a Python call from a script does not, so
each test pushes the step itself (:func:`done`), as the window manager would, and then undoes and redoes it.
A setting changed in the panel is pushed in the same way after its update has run (so the setting and what
it regenerated are one step); the message bus that background sessions use instead is delivered by hand.

Each test records the whole file's state (:func:`state`: every object, its mesh heights read with
``foreach_get``, its seed, spec, status, material, water and modifiers; every collection and tile world), and asserts
that undo brings back the state before the step, exactly, and that redo brings back the state after it.
Every operator of Orogen's with the ``UNDO`` flag has a case here: a new one without a case fails
:func:`test_every_undoable_operator_is_tested`.
"""

import json
import sys
import time

import bpy
import numpy as np
import pytest

MODULE = "bl_ext.user_default.orogen"


def _heights(mesh) -> np.ndarray:
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def state() -> dict:
    """Everything an Orogen operator may change in the open file, by name (IDs are found again after undo)."""
    out = {}
    for obj in bpy.data.objects:
        entry = {
            "uid": obj.session_uid,
            "type": obj.type,
            "parent": obj.parent.name if obj.parent else None,
            "users": obj.users,
        }
        entry["collections"] = tuple(sorted(c.name for c in obj.users_collection))
        entry["location"] = tuple(obj.location)
        entry["hide_render"] = obj.hide_render
        if obj.type == "MESH":
            entry["mesh"] = obj.data.name
            entry["co"] = _heights(obj.data).tobytes()
            entry["materials"] = tuple(s.material.name if s.material else None for s in obj.material_slots)
            entry["attributes"] = tuple(sorted(a.name for a in obj.data.attributes))
        entry["modifiers"] = tuple(
            (m.name, m.type, m.node_group.name if getattr(m, "node_group", None) else None, _inputs(m))
            for m in obj.modifiers
        )
        settings = getattr(obj, "orogen", None)
        if settings is not None and settings.is_terrain:
            entry["seed"] = settings.seed
            entry["size"] = settings.size
            entry["applied"] = settings.applied
            entry["status"] = settings.status
            entry["preview_pending"] = settings.preview_pending
            entry["filters"] = tuple((f.type, f.enabled) for f in settings.filters)
            entry["sources"] = tuple((s.type, s.enabled, s.blend, s.opacity) for s in settings.sources)
            entry["layers"] = tuple(lay.name for lay in settings.layers)
        tile = getattr(obj, "orogen_tile", None)
        if tile is not None and tile.is_tile:
            entry["tile"] = (tile.tx, tile.ty, tile.level)
        out[f"OB:{obj.name}"] = entry
    for coll in bpy.data.collections:
        world = getattr(coll, "orogen_world", None)
        entry = {"objects": tuple(sorted(o.name for o in coll.objects))}
        if world is not None:
            entry["world_seed"] = world.seed
        tiles = getattr(coll, "orogen_tiles", None)
        if tiles is not None:
            entry["tiles_status"] = tiles.status
        out[f"CO:{coll.name}"] = entry
    panel = bpy.context.scene.orogen
    out["SC:panel"] = {
        "seed": panel.seed,
        "size": panel.size,
        "filters": tuple((f.type, f.enabled) for f in panel.filters),
        "sources": tuple((s.type, s.enabled, s.blend, s.opacity) for s in panel.sources),
        "layers": tuple(lay.name for lay in panel.layers),
    }
    out["materials"] = tuple(sorted(m.name for m in bpy.data.materials if m.users))
    out["node_groups"] = tuple(sorted(g.name for g in bpy.data.node_groups if g.users))
    return out


def _inputs(modifier) -> tuple:
    """A Geometry Nodes modifier's input values (IDs by name), sorted by key."""
    if modifier.type != "NODES":
        return ()
    return tuple(sorted((k, getattr(v, "name", v)) for k, v in modifier.items() if not hasattr(v, "to_dict")))


def differences(a: dict, b: dict) -> list[str]:
    """What differs between two states (for an assertion's message)."""
    out = []
    for key in sorted(set(a) | set(b)):
        if key not in a or key not in b:
            out.append(f"{key} {'added' if key in b else 'removed'}")
        elif a[key] != b[key]:
            if isinstance(a[key], dict):
                out += [f"{key}.{k}" for k in sorted(set(a[key]) | set(b[key])) if a[key].get(k) != b[key].get(k)]
            else:
                out.append(key)
    return out


def done(name: str) -> None:
    """What the window manager does when an operator with the ``UNDO`` flag (or a setting's edit) finished."""
    bpy.ops.ed.undo_push(message=name)


def undo() -> None:
    assert bpy.ops.ed.undo() == {"FINISHED"}


def redo() -> None:
    assert bpy.ops.ed.redo() == {"FINISHED"}


def live(orogen):
    return sys.modules[orogen.__name__ + ".addon.live"]


def edit(orogen, owner, **settings) -> None:
    """Change settings as the panel does (``hills__count`` is ``owner.orogen.hills.count``), then deliver the
    message bus's notification by hand (it runs in a window's event loop)."""
    for name, value in settings.items():
        *groups, prop = name.split("__")
        data = owner.orogen if isinstance(owner, bpy.types.Object) else owner.orogen_world
        for group in groups:
            data = data[int(group)] if group.isdigit() else getattr(data, group)
        setattr(data, prop, value)
    live(orogen)._on_msgbus()


def select(obj) -> None:
    for other in bpy.context.view_layer.objects:
        other.select_set(other == obj)
    bpy.context.view_layer.objects.active = obj


def check_undo_redo(step, name: str):
    """Run ``step``, push its undo step, then assert undo gives the state before it and redo the state after it.
    Returns ``(before, after)``."""
    before = state()
    step()
    done(name)
    after = state()
    assert differences(before, after), f"{name} changed nothing"
    undo()
    assert state() == before, f"undo of {name}: {differences(before, state())}"
    redo()
    assert state() == after, f"redo of {name}: {differences(after, state())}"
    return before, after


@pytest.fixture
def fresh(scene):
    """An empty file with an undo stack (its first step: the empty file)."""
    done("empty file")
    return scene


@pytest.fixture
def terrain(fresh):
    """A small terrain of hills, its own undo step."""
    bpy.ops.orogen.terrain_add(size=33, seed=3, width=32.0, height=8.0, set="hills.count=40")
    done("Add Terrain")
    return bpy.context.active_object.name


def z_of(name: str) -> np.ndarray:
    return _heights(bpy.data.objects[name].data)[:, 2].copy()


# --- the cases: one per undoable operator --------------------------------------------------------------------


def test_add_then_regenerate_undo_one_step_at_a_time(fresh):
    before = state()
    bpy.ops.orogen.terrain_add(size=33, seed=3, width=32.0, height=8.0)
    done("Add Terrain")
    (name,) = [o.name for o in bpy.data.objects]
    added, z_added = state(), z_of(name)
    bpy.data.objects[name].orogen.seed = 11
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    done("Regenerate Terrain")
    regenerated, z_new = state(), z_of(name)
    assert not np.array_equal(z_added, z_new)
    undo()
    assert bpy.data.objects[name].orogen.seed == 3
    assert np.array_equal(z_of(name), z_added) and state() == added
    undo()
    assert name not in bpy.data.objects and state() == before
    redo()
    assert np.array_equal(z_of(name), z_added) and bpy.data.objects[name].orogen.seed == 3
    redo()
    assert bpy.data.objects[name].orogen.seed == 11 and np.array_equal(z_of(name), z_new)
    assert state() == regenerated


def test_terrain_add(fresh):
    check_undo_redo(lambda: bpy.ops.orogen.terrain_add(size=17, seed=5, set="island=true"), "Add Terrain")


def test_terrain_generate(fresh):
    fresh.orogen.size = 17
    fresh.orogen.seed = 9
    done("panel")
    before, after = check_undo_redo(bpy.ops.orogen.terrain_generate, "Generate Terrain")
    (added,) = set(after) - set(before)
    assert after[added]["seed"] == 9


def test_terrain_regenerate(terrain):
    def step():
        bpy.data.objects[terrain].orogen.seed = 12  # live update is on, but the message bus is not delivered
        assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}

    before, after = check_undo_redo(step, "Regenerate Terrain")
    assert before[f"OB:{terrain}"]["seed"] == 3 and after[f"OB:{terrain}"]["seed"] == 12


def test_material_rebuild(terrain):
    def step():
        obj = bpy.data.objects[terrain]
        obj.orogen.layers[0].name = "Sand"  # with live update off, the material waits for Rebuild Material
        assert bpy.ops.orogen.material_rebuild() == {"FINISHED"}

    bpy.data.objects[terrain].orogen.live_update = False
    done("live update off")
    check_undo_redo(step, "Rebuild Material")


def test_a_live_edit_is_one_undo_step(terrain, orogen):
    z0 = z_of(terrain)
    before, after = check_undo_redo(lambda: edit(orogen, bpy.data.objects[terrain], seed=21), "Seed")
    assert after[f"OB:{terrain}"]["seed"] == 21 and not np.array_equal(z_of(terrain), z0)
    undo()
    assert np.array_equal(z_of(terrain), z0) and bpy.data.objects[terrain].orogen.seed == 3


def test_a_live_edit_with_its_full_size_pass_is_one_undo_step(terrain, orogen):
    obj = bpy.data.objects[terrain]
    obj.orogen.preview_size = 17
    done("Preview Size")
    z0 = z_of(terrain)
    before = state()
    edit(orogen, obj, seed=22)  # the preview, at 17 x 17
    done("Seed")
    assert len(z_of(terrain)) == 17 * 17 and bpy.data.objects[terrain].orogen.preview_pending
    assert bpy.ops.orogen.live_settle() == {"FINISHED"}  # the full-size pass: no undo step of its own
    full = state()
    z_full = z_of(terrain)
    assert len(z_full) == 33 * 33 and not full[f"OB:{terrain}"]["preview_pending"]
    undo()  # one step back: the terrain before the edit
    assert state() == before and np.array_equal(z_of(terrain), z0)
    redo()  # the edit again, and its full size follows (here and now: no event loop)
    assert bpy.data.objects[terrain].orogen.seed == 22
    orogen.addon.terrain.settle.flush_live_updates(force=True)
    again = state()
    assert again[f"OB:{terrain}"].pop("status").startswith("Regenerated terrain 33 x 33")
    del full[f"OB:{terrain}"]["status"]  # (it says how long the computation took)
    assert again == full, differences(full, again)
    assert np.array_equal(z_of(terrain), z_full)


def test_live_edits_of_the_water_and_the_layers_are_one_undo_step_each(terrain, orogen):
    """A live edit that rebuilds only the water (its own object) or only the material is undone whole too."""
    _, after = check_undo_redo(lambda: edit(orogen, bpy.data.objects[terrain], material__water=True), "Water")
    assert any(k.startswith("OB:") and k != f"OB:{terrain}" for k in after)  # the water object
    check_undo_redo(lambda: edit(orogen, bpy.data.objects[terrain], material__water_level=4.0), "Water Level")
    obj = bpy.data.objects[terrain]
    check_undo_redo(lambda: edit(orogen, obj, layers__0__name="Sand"), "Layer Name")


def test_undo_back_to_a_preview_makes_its_full_size_again(terrain, orogen):
    """The full-size pass is no undo step: the step of the live edit holds its preview. Undoing the next step
    returns to that preview, and its full size must follow again (the settle timer is restarted)."""
    settle = orogen.addon.terrain.settle
    obj = bpy.data.objects[terrain]
    obj.orogen.preview_size = 17
    done("Preview Size")
    edit(orogen, obj, seed=23)
    done("Seed")
    assert settle.flush_live_updates(force=True) == [terrain]
    z_full = z_of(terrain)
    bpy.data.objects[terrain].location.x = 5.0
    done("Move")
    if bpy.app.timers.is_registered(settle._settle_timer):  # (timers never fire in the bpy module)
        bpy.app.timers.unregister(settle._settle_timer)
    undo()
    obj = bpy.data.objects[terrain]
    assert obj.location.x == 0.0 and obj.orogen.preview_pending and len(z_of(terrain)) == 17 * 17
    assert bpy.app.timers.is_registered(settle._settle_timer), "the preview's full size does not follow"
    assert settle.flush_live_updates(force=True) == [terrain]
    assert np.array_equal(z_of(terrain), z_full)
    bpy.app.timers.unregister(settle._settle_timer)
    redo()
    assert bpy.data.objects[terrain].location.x == 5.0 and np.array_equal(z_of(terrain), z_full)
    assert not bpy.app.timers.is_registered(settle._settle_timer)  # nothing pending: no timer


def test_a_live_edit_undone_and_made_again_regenerates(terrain, orogen):
    """After undo the applied spec is the one before the edit (Blender data, not a Python cache), so making the
    same edit again regenerates."""
    edit(orogen, bpy.data.objects[terrain], seed=24)
    done("Seed")
    z_edit = z_of(terrain)
    undo()
    assert bpy.data.objects[terrain].orogen.seed == 3
    edit(orogen, bpy.data.objects[terrain], seed=24)
    assert np.array_equal(z_of(terrain), z_edit)


@pytest.mark.parametrize(
    ("operator", "prepare"),
    [
        ("filter_add", {"type": "thermal"}),
        ("filter_remove", {}),
        ("filter_move", {"direction": "UP"}),
        ("filter_duplicate", {}),
        ("layer_add", {}),
        ("layer_remove", {}),
        ("layers_reset", {}),
    ],
)
def test_stack_edits_of_a_terrain(terrain, operator, prepare):
    obj = bpy.data.objects[terrain]
    obj.orogen.active_filter = len(obj.orogen.filters) - 1
    if operator == "filter_move":
        assert bpy.ops.orogen.filter_add(type="terrace") == {"FINISHED"}
        assert obj.orogen.active_filter == len(obj.orogen.filters) - 1 > 0
    if operator == "layers_reset":
        obj.orogen.layers.remove(0)
        assert bpy.ops.orogen.material_rebuild() == {"FINISHED"}
    done("prepare")
    select(bpy.data.objects[terrain])
    before, after = check_undo_redo(lambda: getattr(bpy.ops.orogen, operator)(**prepare), operator)
    key = f"OB:{terrain}"
    assert before[key]["filters"] != after[key]["filters"] or before[key]["layers"] != after[key]["layers"]


@pytest.mark.parametrize(
    ("operator", "prepare"),
    [
        ("source_add", {"type": "crater"}),
        ("source_remove", {}),
        ("source_move", {"direction": "UP"}),
        ("source_duplicate", {}),
    ],
)
def test_source_stack_edits_of_a_terrain(terrain, orogen, operator, prepare):
    obj = bpy.data.objects[terrain]
    select(obj)
    if operator != "source_add":
        assert bpy.ops.orogen.source_add(type="cone") == {"FINISHED"}
        assert bpy.ops.orogen.source_add(type="ridge") == {"FINISHED"}
        cone, ridge = obj.orogen.sources
        cone.cone.radius, cone.offset_x, cone.height = 6.0, -8.0, 3.0
        ridge.ridge.radius, ridge.ridge.length, ridge.offset_y, ridge.height = 3.0, 10.0, 7.0, 2.0
        ridge.blend = "replace"
        live(orogen)._on_msgbus()
        if operator == "source_duplicate":
            obj.orogen.active_source = 0  # the cone (added twice: twice as high)
        done("prepare")
    before, after = check_undo_redo(lambda: getattr(bpy.ops.orogen, operator)(**prepare), operator)
    key = f"OB:{terrain}"
    assert before[key]["sources"] != after[key]["sources"]
    assert before[key]["co"] != after[key]["co"]  # the terrain followed (live)


def test_a_source_opacity_edit_undone(terrain, orogen):
    obj = bpy.data.objects[terrain]
    select(obj)
    assert bpy.ops.orogen.source_add(type="mesa") == {"FINISHED"}
    obj.orogen.sources[0].mesa.radius = 6.0
    obj.orogen.sources[0].height = 4.0
    live(orogen)._on_msgbus()
    done("Add Source")
    before, after = check_undo_redo(lambda: edit(orogen, obj, sources__0__opacity=0.25), "Opacity")
    assert before[f"OB:{terrain}"]["co"] != after[f"OB:{terrain}"]["co"]
    assert after[f"OB:{terrain}"]["sources"] == (("mesa", True, "add", 0.25),)


def test_stack_edits_of_the_panel(fresh):
    check_undo_redo(lambda: bpy.ops.orogen.filter_add(type="terrace"), "Add Filter")


def test_size_set(terrain):
    select(bpy.data.objects[terrain])
    _, after = check_undo_redo(lambda: bpy.ops.orogen.size_set(size=129), "Size")
    assert after[f"OB:{terrain}"]["size"] == 129


def test_preset_load(terrain):
    select(bpy.data.objects[terrain])
    before, after = check_undo_redo(lambda: bpy.ops.orogen.preset_load(name="island"), "Load Preset")
    assert before[f"OB:{terrain}"]["co"] != after[f"OB:{terrain}"]["co"]


def test_profile_add(fresh):
    check_undo_redo(lambda: bpy.ops.orogen.profile_add(), "Add Terrain Profile")


def test_heightmap_import(fresh, tmp_path):
    path = tmp_path / "dem.npy"
    np.save(path, np.linspace(0.0, 1.0, 9 * 7, dtype=np.float32).reshape(9, 7))
    check_undo_redo(lambda: bpy.ops.orogen.heightmap_import(filepath=str(path)), "Import Heightmap")


def test_terrain_from_object(fresh):
    bpy.ops.mesh.primitive_uv_sphere_add(radius=5.0, location=(3.0, -2.0, 1.0))
    done("UV sphere")
    before, after = check_undo_redo(lambda: bpy.ops.orogen.terrain_from_object(size=17), "Terrain from Object")
    assert len(after) == len(before) + 1 and after["OB:Sphere"]["hide_render"]


def world_tiles():
    return sorted(o.name for o in bpy.data.objects if o.orogen_tile.is_tile)


@pytest.fixture
def world(fresh):
    assert bpy.ops.orogen.tiles_add(tiles_x=2, tiles_y=2, size=9, seed=4) == {"FINISHED"}
    done("Add Terrain Tiles")
    return bpy.context.active_object.orogen_tile.world.name


def test_tiles_add(fresh):
    before, after = check_undo_redo(lambda: bpy.ops.orogen.tiles_add(tiles_x=2, tiles_y=2, size=9), "Add Tiles")
    assert len(world_tiles()) == 4 and not any(k.startswith("OB:") for k in before)


def test_tiles_regenerate(world):
    def step():
        bpy.data.collections[world].orogen_world.live_update = False
        bpy.data.collections[world].orogen_world.seed = 5
        assert bpy.ops.orogen.tiles_regenerate() == {"FINISHED"}

    select(bpy.data.objects[world_tiles()[0]])
    before, after = check_undo_redo(step, "Regenerate Tiles")
    assert before[f"CO:{world}"]["world_seed"] == 4 and after[f"CO:{world}"]["world_seed"] == 5


def test_a_live_edit_of_a_world(world, orogen):
    check_undo_redo(lambda: edit(orogen, bpy.data.collections[world], seed=6), "Seed")


def test_tile_rebuild(world):
    tile = world_tiles()[0]
    bpy.data.objects[tile].data.vertices[3].co.z += 2.0
    done("hand edit")
    select(bpy.data.objects[tile])
    check_undo_redo(bpy.ops.orogen.tile_rebuild, "Rebuild Tile")
    check_undo_redo(lambda: bpy.ops.orogen.tile_rebuild(level=1), "Rebuild Tile at a level")


def test_tiles_lod(world):
    select(bpy.data.objects[world_tiles()[0]])
    bpy.context.scene.cursor.location = (1e4, 1e4, 0.0)
    done("cursor")
    check_undo_redo(bpy.ops.orogen.tiles_lod, "Level of Detail from Cursor")


def test_scatter_add(terrain):
    select(bpy.data.objects[terrain])
    check_undo_redo(lambda: bpy.ops.orogen.scatter_add(kind="BROADLEAF", seed=2), "Add Scatter")  # (bakes wetness)
    check_undo_redo(lambda: bpy.ops.orogen.scatter_add(kind="BROADLEAF", seed=3), "Add Scatter again")


def test_scatter_remove(terrain):
    select(bpy.data.objects[terrain])
    bpy.ops.orogen.scatter_add(kind="CONIFERS", seed=2)
    done("Add Scatter")
    check_undo_redo(bpy.ops.orogen.scatter_remove, "Remove Scatter")


#: The operators with a case above.
TESTED = {
    "terrain_add",
    "terrain_generate",
    "terrain_regenerate",
    "material_rebuild",
    "filter_add",
    "filter_remove",
    "filter_move",
    "filter_duplicate",
    "source_add",
    "source_remove",
    "source_move",
    "source_duplicate",
    "layer_add",
    "layer_remove",
    "layers_reset",
    "size_set",
    "preset_load",
    "profile_add",
    "heightmap_import",
    "terrain_from_object",
    "tiles_add",
    "tiles_regenerate",
    "tile_rebuild",
    "tiles_lod",
    "scatter_add",
    "scatter_remove",
}


def test_every_undoable_operator_is_tested(orogen):
    undoable = {
        cls.bl_idname.split(".", 1)[1]
        for cls in bpy.types.Operator.__subclasses__()
        if getattr(cls, "bl_idname", "").startswith("orogen.") and "UNDO" in getattr(cls, "bl_options", set())
    }
    registered = {name for name in dir(bpy.ops.orogen) if "UNDO" in getattr(bpy.ops.orogen, name).bl_options}
    assert undoable == registered
    assert undoable == TESTED, f"without an undo test: {sorted(undoable - TESTED)}"


def test_data_changing_operators_without_undo_change_no_data(orogen):
    """The operators without the ``UNDO`` flag are the ones that change no saved data (they write files, save
    presets, report, measure the terrain) or that are part of another step (the full-size pass of a live edit)."""
    others = {name for name in dir(bpy.ops.orogen) if "UNDO" not in getattr(bpy.ops.orogen, name).bl_options}
    assert others == {
        "export_maps",
        "tiles_export",
        "preset_save",
        "preset_remove",
        "migration_report",
        "live_settle",
        "realism_report",
    }


def test_the_spec_survives_undo_as_json(terrain):
    """The applied spec is Blender data: undo restores it with the mesh, so the next live edit compares against
    the right one."""
    applied = bpy.data.objects[terrain].orogen.applied
    bpy.data.objects[terrain].orogen.seed = 30
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    done("Regenerate")
    undo()
    assert bpy.data.objects[terrain].orogen.applied == applied
    assert json.loads(applied)["seed"] == 3


# --- undo while a background computation runs (started from the UI) -------------------------------------------


class Event:
    """What a modal operator reads of an event."""

    def __init__(self, type, value="NOTHING"):
        self.type, self.value = type, value


@pytest.fixture
def modal(monkeypatch):
    """``modal(op_class)``: calls of ``op_class`` through ``bpy.ops`` run its ``invoke`` (as from the UI) and
    append ``(operator, context)`` to the returned list; the test then sends it timer events (:func:`finish`),
    with the context Blender gave it (see ``test_background_ops.py``)."""

    def patch(cls):
        started = []

        def execute(self, context):
            started.append((self, context))
            return cls.invoke(self, context, Event("NONE"))

        monkeypatch.setattr(cls, "execute", execute)
        return started

    return patch


def finish(started, timeout=120.0):
    """Send timer events to the running operator until it ends; its result."""
    op, context = started[0]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = op.modal(context, Event("TIMER"))
        if result not in ({"PASS_THROUGH"}, {"RUNNING_MODAL"}):
            return result
        time.sleep(0.005)
    raise AssertionError("the operator did not end")


def test_undo_while_the_full_size_pass_runs_keeps_what_undo_gave_back(terrain, orogen, modal):
    obj = bpy.data.objects[terrain]
    obj.orogen.preview_size = 17
    done("Preview Size")
    before = state()
    edit(orogen, obj, seed=25)
    done("Seed")
    started = modal(orogen.addon.terrain.settle.OROGEN_OT_live_settle)
    assert bpy.ops.orogen.live_settle() == {"RUNNING_MODAL"}
    undo()  # while the full size of the edit is computed
    assert state() == before
    assert finish(started) == {"FINISHED"}
    assert state() == before, differences(before, state())  # the full size of the undone edit is not written


def test_undo_while_regenerate_runs_leaves_the_terrain_as_undo_gave_it_back(terrain, orogen, modal):
    bpy.data.objects[terrain].orogen.seed = 26
    done("Seed")
    z0 = z_of(terrain)
    started = modal(orogen.addon.ops.terrain.OROGEN_OT_terrain_regenerate)
    select(bpy.data.objects[terrain])
    assert bpy.ops.orogen.terrain_regenerate() == {"RUNNING_MODAL"}
    undo()  # the seed is 3 again while seed 26 is computed
    assert bpy.data.objects[terrain].orogen.seed == 3
    assert finish(started) == {"FINISHED"}
    obj = bpy.data.objects[terrain]
    assert obj.orogen.seed == 3 and json.loads(obj.orogen.applied)["seed"] == 3
    assert np.array_equal(z_of(terrain), z0)  # the heights of seed 3, as before
