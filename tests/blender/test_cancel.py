"""Every long job can be cancelled and shows its progress with the time left; a cancel leaves everything as it was.

Each job runs as Python starts it (blocking, headless) with a watcher (``addon.jobs.WATCHERS``) that calls
``job.cancel()`` once the job is some fraction done: what Esc calls in a modal operator. The scene (objects,
meshes' vertices and attributes read with ``foreach_get``, materials, collections, custom properties) and the
files on disk must be exactly as before. The progress shown (the window manager's progress values and the
status texts) must go forward only, and name the time left.
"""

import json
import os
import re
import time
from pathlib import Path

import bpy
import numpy as np
import pytest

ERODED = [{"type": "thermal", "iterations": 30}, {"type": "hydraulic", "steps": 40}]
TEXT = re.compile(
    r"^(?P<doing>[A-Z][a-z -]+): (?P<percent>\d+) %, (?:time left unknown|[\dhmins ]+ left) \(Esc to cancel\)$"
)


def spec_json(size=65, filters=None, seed=7):
    return json.dumps(
        {
            "version": 2,
            "generator": "fractal",
            "size": size,
            "seed": seed,
            "width": 100.0,
            "height": 20.0,
            "filters": ERODED if filters is None else filters,
        }
    )


class Shown:
    """What the jobs showed: ``(doing, fraction, text)`` per report, the window manager's values, the status."""

    def __init__(self):
        self.reports, self.values, self.status = [], [], []
        self.cancel_at = None  # (doing, fraction): cancel that job once it is this far
        self.cancelled = []
        self.jobs = []  # each job watched, held so that no later job can reuse its id()

    def watch(self, job, text):
        if not any(j is job for j in self.jobs):
            self.jobs.append(job)
        self.reports.append((id(job), job.doing, job.fraction, text))
        if self.cancel_at is not None and job.doing == self.cancel_at[0] and job.fraction >= self.cancel_at[1]:
            if not job.cancelled:
                self.cancelled.append(job.fraction)
            job.cancel()  # what Esc does

    def runs(self, doing):
        """The fractions each job called ``doing`` reported, job by job."""
        runs = {}
        for job, d, f, _t in self.reports:
            if d == doing:
                runs.setdefault(job, []).append(f)
        return list(runs.values())

    def fractions(self, doing):
        """The fractions the last job called ``doing`` reported."""
        return self.runs(doing)[-1]


@pytest.fixture
def shown(orogen, monkeypatch):
    jobs = orogen.addon.jobs
    record = Shown()
    real_show, real_status = jobs.show_progress, jobs.Job.status

    def show_progress(wm, value):
        record.values.append(value)
        real_show(wm, value)

    def status(self, text):
        record.status.append(text)
        real_status(self, text)

    monkeypatch.setattr(jobs, "show_progress", show_progress)
    monkeypatch.setattr(jobs.Job, "status", status)
    jobs.WATCHERS.append(record.watch)
    yield record
    jobs.WATCHERS.remove(record.watch)
    assert not jobs.RUNNING  # every job ended


def heights(mesh):
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    out = {"co": co.tobytes()}
    for attr in mesh.attributes:
        if attr.domain == "POINT" and attr.data_type in ("FLOAT", "FLOAT_COLOR", "FLOAT_VECTOR"):
            width = {"FLOAT": 1, "FLOAT_COLOR": 4, "FLOAT_VECTOR": 3}[attr.data_type]
            values = np.empty(len(attr.data) * width, dtype=np.float32)
            attr.data.foreach_get(
                "color" if attr.data_type == "FLOAT_COLOR" else "value" if width == 1 else "vector", values
            )
            out[attr.name] = values.tobytes()
    return out


def props(idblock):
    """The ID properties of ``idblock``, an empty group left out: Blender 4.2 and 4.5 store a property group's
    (empty) storage the first time Python reads one of its values, which this very snapshot does."""
    out = {}
    for k in idblock.keys():
        v = idblock[k]
        text = json.dumps(v, default=str) if not hasattr(v, "to_dict") else str(v.to_dict())
        if text != "{}":
            out[k] = text
    return out


def snapshot():
    """Everything a cancelled job must leave as it was."""
    return {
        "objects": {
            o.name: (
                o.data.name if o.data else None,
                tuple(map(tuple, o.matrix_world)),
                props(o),
                o.orogen.applied,
                o.orogen.preview_pending,
                o.orogen_tile.level,
                o.orogen_tile.applied,
                [s.material.name if s.material else None for s in o.material_slots],
            )
            for o in bpy.data.objects
        },
        "meshes": {m.name: heights(m) for m in bpy.data.meshes},
        "materials": sorted(m.name for m in bpy.data.materials),
        "images": sorted(i.name for i in bpy.data.images),
        "collections": {
            c.name: (sorted(o.name for o in c.objects), props(c), c.orogen_tiles.applied) for c in bpy.data.collections
        },
        "selected": sorted(o.name for o in bpy.context.selected_objects),
        "active": getattr(bpy.context.view_layer.objects.active, "name", None),
    }


def files(folder):
    """Every file under ``folder`` (hidden ones too: staging leftovers), with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(Path(folder).rglob("*")) if p.is_file()}


def assert_forward(shown, doing):
    runs = shown.runs(doing)
    assert runs and all(fractions == sorted(fractions) for fractions in runs)  # each job's: forward only
    texts = [t for _j, d, _f, t in shown.reports if d == doing]
    for text in texts:
        match = TEXT.match(text)
        assert match and match["doing"] == doing, text
    assert any(t.endswith(" left (Esc to cancel)") and "unknown" not in t for t in texts)
    return runs[-1]


def pick(obj):
    for o in bpy.context.view_layer.objects:
        o.select_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj


# --- the terrain's own jobs -----------------------------------------------------------------------------------
def test_add_shows_its_progress_to_the_end(scene, orogen, shown):
    assert bpy.ops.orogen.terrain_add(spec=spec_json()) == {"FINISHED"}
    fractions = assert_forward(shown, "Adding terrain")
    assert fractions[-1] == 1.0 and len(set(fractions)) > 10  # each erosion step moves it
    assert shown.values[0] == 0 and shown.values[-1] == 100 and shown.values == sorted(set(shown.values))
    assert shown.status[-1] is None  # the status text is cleared at the end


@pytest.mark.parametrize("at", [0.0, 0.3, 0.9])
def test_a_cancelled_add_adds_nothing(scene, orogen, shown, at):
    bpy.ops.mesh.primitive_cube_add()
    before = snapshot()
    shown.cancel_at = ("Adding terrain", at)
    assert bpy.ops.orogen.terrain_add(spec=spec_json()) == {"CANCELLED"}
    assert snapshot() == before
    fractions = assert_forward(shown, "Adding terrain")
    assert at <= shown.cancelled[0] and fractions[-1] < 1.0
    assert shown.values[-1] < 100 and shown.status[-1] is None


def test_a_cancelled_generate_adds_nothing(scene, orogen, shown):
    with orogen.addon.live.suspended():
        orogen.addon.specio.write_spec(scene.orogen, orogen.core.spec.TerrainSpec.from_json(spec_json()))
    before = snapshot()
    shown.cancel_at = ("Adding terrain", 0.5)
    assert bpy.ops.orogen.terrain_generate() == {"CANCELLED"}
    assert snapshot() == before and shown.cancelled


def test_a_cancelled_regenerate_keeps_the_terrain(scene, orogen, shown):
    assert bpy.ops.orogen.terrain_add(spec=spec_json(seed=1)) == {"FINISHED"}
    obj = bpy.context.active_object
    with orogen.addon.live.suspended():
        orogen.addon.specio.write_spec(obj.orogen, orogen.core.spec.TerrainSpec.from_json(spec_json(97, seed=2)))
    before = snapshot()
    shown.reports.clear()
    shown.cancel_at = ("Regenerating terrain", 0.5)
    assert bpy.ops.orogen.terrain_regenerate() == {"CANCELLED"}
    assert snapshot() == before
    assert_forward(shown, "Regenerating terrain")
    shown.cancel_at = None
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}  # and it can run again, to the end
    assert len(obj.data.vertices) == 97 * 97 and shown.fractions("Regenerating terrain")[-1] == 1.0


def test_a_cancelled_full_size_pass_keeps_the_preview(scene, orogen, shown):
    live, settle = orogen.addon.live, orogen.addon.terrain.settle
    assert bpy.ops.orogen.terrain_add(spec=spec_json(129, seed=1)) == {"FINISHED"}
    obj = bpy.context.active_object
    obj.orogen.preview_size = 33
    with live.suspended():
        orogen.addon.specio.write_spec(obj.orogen, orogen.core.spec.TerrainSpec.from_json(spec_json(129, seed=5)))
    live.on_setting_changed(obj, bpy.context)
    assert len(obj.data.vertices) == 33 * 33 and obj.orogen.preview_pending
    before = snapshot()
    shown.reports.clear()
    shown.cancel_at = ("Full-size terrain", 0.4)
    try:
        assert settle.flush_live_updates(force=True) == []
        assert snapshot()["meshes"] == before["meshes"] and obj.orogen.preview_pending
        assert obj.orogen.status.startswith("Full size cancelled: showing the 33 x 33 preview")
        assert_forward(shown, "Full-size terrain")
    finally:
        settle._declined.discard(obj.session_uid)


# --- tile worlds ------------------------------------------------------------------------------------------------
TILES = {"tiles_x": 2, "tiles_y": 2, "size": 17, "width": 32.0, "height": 12.0, "seed": 5}


@pytest.mark.parametrize("eroded", [False, True], ids=["by-tile", "whole-world"])
def test_a_cancelled_tiles_add_adds_nothing(scene, orogen, shown, eroded):
    bpy.ops.mesh.primitive_cube_add()
    before = snapshot()
    shown.cancel_at = ("Building tiles", 0.6 if not eroded else 0.2)
    kw = {"set": "hills.count=40"} if not eroded else {"spec": spec_json(33, ERODED)}
    assert bpy.ops.orogen.tiles_add(**TILES, **kw) == {"CANCELLED"}
    assert snapshot() == before and shown.cancelled
    assert_forward(shown, "Building tiles")


def test_a_cancelled_tiles_regenerate_or_rebuild_keeps_the_tiles(scene, orogen, shown):
    assert bpy.ops.orogen.tiles_add(**TILES, set="hills.count=40") == {"FINISHED"}
    world = bpy.context.active_object.orogen_tile.world
    tile = bpy.context.active_object
    with orogen.addon.live.suspended():
        world.orogen_world.seed = 9
    before = snapshot()
    shown.cancel_at = ("Building tiles", 0.7)
    assert bpy.ops.orogen.tiles_regenerate() == {"CANCELLED"}
    assert snapshot() == before
    pick(tile)
    assert bpy.ops.orogen.tile_rebuild(level=1) == {"CANCELLED"}  # a new level of detail: the levels stay
    assert snapshot() == before
    shown.cancel_at = None
    assert bpy.ops.orogen.tiles_regenerate() == {"FINISHED"}
    assert snapshot()["meshes"] != before["meshes"]  # (the seed changed: it could tell)


# --- files ------------------------------------------------------------------------------------------------------
def test_a_cancelled_export_leaves_the_old_files(scene, orogen, shown, tmp_path):
    assert bpy.ops.orogen.terrain_add(spec=spec_json(seed=1)) == {"FINISHED"}
    obj = bpy.context.active_object
    assert bpy.ops.orogen.export_maps(directory=str(tmp_path), name="t", heightmap_format="PNG16") == {"FINISHED"}
    old = files(tmp_path)
    assert "t_height.png" in old and len(old) > 4
    with orogen.addon.live.suspended():
        orogen.addon.specio.write_spec(obj.orogen, orogen.core.spec.TerrainSpec.from_json(spec_json(seed=2)))
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    before = snapshot()
    for at in (0.5, 0.7, 0.9):
        shown.cancel_at = ("Exporting terrain maps", at)
        assert bpy.ops.orogen.export_maps(directory=str(tmp_path), name="t", heightmap_format="PNG16") == {"CANCELLED"}
        assert files(tmp_path) == old and snapshot() == before
    assert_forward(shown, "Exporting terrain maps")
    shown.cancel_at = None
    assert bpy.ops.orogen.export_maps(directory=str(tmp_path), name="t", heightmap_format="PNG16") == {"FINISHED"}
    assert files(tmp_path) != old  # the new terrain's files (so the comparison could fail)


def test_a_cancelled_tiles_export_leaves_the_old_files(scene, orogen, shown, tmp_path):
    assert bpy.ops.orogen.tiles_add(**TILES, set="hills.count=40") == {"FINISHED"}
    world = bpy.context.active_object.orogen_tile.world
    assert bpy.ops.orogen.tiles_export(directory=str(tmp_path), name="land") == {"FINISHED"}
    old = files(tmp_path)
    assert "land.json" in old and len(old) == 1 + 2 * 3 * 4  # the manifest, each tile file and its sidecar
    with orogen.addon.live.suspended():
        world.orogen_world.seed = 9
    assert bpy.ops.orogen.tiles_regenerate() == {"FINISHED"}
    before = snapshot()
    shown.cancel_at = ("Exporting tiles", 0.6)
    assert bpy.ops.orogen.tiles_export(directory=str(tmp_path), name="land") == {"CANCELLED"}
    assert files(tmp_path) == old and snapshot() == before
    assert_forward(shown, "Exporting tiles")
    shown.cancel_at = None
    assert bpy.ops.orogen.tiles_export(directory=str(tmp_path), name="land") == {"FINISHED"}
    assert files(tmp_path) != old


def test_a_cancelled_import_adds_nothing(scene, orogen, shown, tmp_path):
    assert bpy.ops.orogen.terrain_add(spec=spec_json(seed=1)) == {"FINISHED"}
    assert bpy.ops.orogen.export_maps(directory=str(tmp_path), name="t", heightmap_format="PNG16") == {"FINISHED"}
    before = snapshot()
    for at in (0.0, 0.3, 0.6):
        shown.cancel_at = ("Importing heightmap", at)
        assert bpy.ops.orogen.heightmap_import(filepath=os.path.join(tmp_path, "t_height.png")) == {"CANCELLED"}
        assert snapshot() == before
    assert_forward(shown, "Importing heightmap")
    shown.cancel_at = None
    assert bpy.ops.orogen.heightmap_import(filepath=os.path.join(tmp_path, "t_height.png")) == {"FINISHED"}
    assert len(bpy.data.objects) == len(before["objects"]) + 1


# --- from the UI: the tiles computed in the background, Esc ----------------------------------------------------
class Event:
    def __init__(self, type, value="NOTHING"):
        self.type, self.value = type, value


@pytest.fixture
def modal(monkeypatch):
    """``modal(op_class)``: ``bpy.ops`` calls of ``op_class`` run its ``invoke`` (as from the UI) and list
    ``(operator, its context)`` for the test to drive (see ``test_background_ops``)."""

    def patch(cls):
        started = []

        def execute(self, context):
            started.append((self, context))
            return cls.invoke(self, context, Event("NONE"))

        monkeypatch.setattr(cls, "execute", execute)
        return started

    return patch


def drive(op, context, timeout=120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = op.modal(context, Event("TIMER"))
        if result not in ({"PASS_THROUGH"}, {"RUNNING_MODAL"}):
            return result
        time.sleep(0.005)
    raise AssertionError("the operator did not end")


def test_esc_cancels_regenerate_tiles_from_the_ui_and_the_world_stays(scene, orogen, modal):
    assert bpy.ops.orogen.tiles_add(**TILES, set="hills.count=40") == {"FINISHED"}
    world = bpy.context.active_object.orogen_tile.world
    with orogen.addon.live.suspended():  # a whole-world erosion of many seconds
        orogen.addon.specio.write_spec(
            world.orogen_world,
            orogen.core.spec.TerrainSpec.from_json(spec_json(129, [{"type": "hydraulic", "steps": 1500}])),
        )
    before = snapshot()
    started = modal(orogen.addon.tiles.operators.OROGEN_OT_tiles_regenerate)
    assert bpy.ops.orogen.tiles_regenerate() == {"RUNNING_MODAL"}
    op, context = started[0]
    job = op._job
    deadline = time.monotonic() + 60
    while job.fraction == 0.0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert op.modal(context, Event("TIMER")) == {"PASS_THROUGH"}
    assert not job.done() and 0 < job.fraction < 1 and snapshot() == before  # nothing written while it computes
    assert op.modal(context, Event("ESC", "PRESS")) == {"CANCELLED"}
    assert op.last_report == ("WARNING", "Regenerate Tiles cancelled: the tiles are as they were")
    job.join(60)
    assert job.done() and job.cancelled and job.result is None
    assert snapshot() == before and op._timer is None


def test_rebuild_tiles_from_the_ui_equals_the_blocking_one(scene, orogen, modal):
    assert bpy.ops.orogen.tiles_add(**TILES, set="hills.count=40") == {"FINISHED"}
    tile = bpy.context.active_object
    world = tile.orogen_tile.world
    with orogen.addon.live.suspended():
        world.orogen_world.seed = 9
    assert bpy.ops.orogen.tile_rebuild(level=1) == {"FINISHED"}  # blocking
    blocking = snapshot()
    with orogen.addon.live.suspended():
        world.orogen_world.seed = 5
    for o in world.objects:
        o.orogen_tile.level = 0
    assert bpy.ops.orogen.tiles_regenerate() == {"FINISHED"}
    with orogen.addon.live.suspended():
        world.orogen_world.seed = 9
    pick(tile)
    started = modal(orogen.addon.tiles.operators.OROGEN_OT_tile_rebuild)
    assert bpy.ops.orogen.tile_rebuild(level=1) == {"RUNNING_MODAL"}
    op, context = started[0]
    assert drive(op, context) == {"FINISHED"}
    assert op.last_report[0] == "INFO" and op.last_report[1].startswith("Rebuilt ")
    now = snapshot()
    assert now["meshes"] == blocking["meshes"] and tile.orogen_tile.level == 1


def test_add_tiles_from_the_ui_adds_nothing_until_done_and_equals_the_blocking_add(scene, orogen, modal):
    kw = {**TILES, "set": "hills.count=40"}
    assert bpy.ops.orogen.tiles_add(**kw) == {"FINISHED"}
    blocking = {o.name: heights(o.data) for o in bpy.data.objects}
    bpy.ops.wm.read_homefile(use_empty=True)
    before = snapshot()
    started = modal(orogen.addon.tiles.operators.OROGEN_OT_tiles_add)
    assert bpy.ops.orogen.tiles_add(**kw) == {"RUNNING_MODAL"}
    op, context = started[0]
    assert snapshot() == before  # nothing is added while it computes
    assert drive(op, context) == {"FINISHED"}
    assert {o.name: heights(o.data) for o in bpy.data.objects} == blocking
    assert bpy.context.active_object.name == "Tile_x0_y0" and op._timer is None


def test_esc_cancels_add_tiles_from_the_ui_leaving_nothing(scene, orogen, modal):
    bpy.ops.mesh.primitive_cube_add()
    before = snapshot()
    started = modal(orogen.addon.tiles.operators.OROGEN_OT_tiles_add)
    heavy = spec_json(129, [{"type": "hydraulic", "steps": 1500}])
    assert bpy.ops.orogen.tiles_add(**TILES, spec=heavy) == {"RUNNING_MODAL"}
    op, context = started[0]
    job = op._job
    deadline = time.monotonic() + 60
    while job.fraction == 0.0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert op.modal(context, Event("TIMER")) == {"PASS_THROUGH"} and not job.done()
    assert op.modal(context, Event("ESC", "PRESS")) == {"CANCELLED"}
    assert op.last_report == ("WARNING", "Add Terrain Tiles cancelled: nothing was added")
    job.join(60)
    assert job.done() and job.cancelled and snapshot() == before
