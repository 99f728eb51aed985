"""Long computations started from the UI run in the background: progress, Esc cancels, the scene stays as it was.

Add Terrain, Regenerate and the live update's full-size pass run modal when invoked from the UI. Headless
Blender (the ``bpy`` module) has a window but no event loop, and ``INVOKE_DEFAULT`` runs ``execute`` there
(there is no event to invoke with). So these tests drive the real operators by hand: ``execute`` is patched
to call the operator's own ``invoke`` with a stand-in event (Blender keeps the operator, whose modal handler
it registered, alive), and then ``modal`` is called with stand-in TIMER and ESC events, as the window's event
loop would. Each event is sent with the context Blender gave the operator when it started, never with the
module-level ``bpy.context``: Blender 4.2 keeps the scene of ``context.layer_collection`` (read by Add Object's
``object_data_add``) on the context object it was read through, so the global one would point at a freed scene
after the next file load, and the glTF exporter's ``context.window.scene = ...`` then crashes (the event loop
hands every call a fresh context, so a user never meets this).

What only a window shows is not checked here: the status bar drawing the progress and text, and the timer and
key events coming from Blender itself. Undo is checked in ``test_undo.py`` (a background session has an undo
stack once ``ed.undo_push`` made it).
"""

import json
import sys
import time

import bpy
import numpy as np
import pytest

STEPS = 100  # orogen.addon.jobs.PROGRESS_STEPS
MODULE = "bl_ext.user_default.orogen"


class Event:
    """What a modal operator reads of an event."""

    def __init__(self, type, value="NOTHING"):
        self.type, self.value = type, value


TIMER = Event("TIMER")
ESC = Event("ESC", "PRESS")
#: The context each running operator was started with (by ``as_pointer()``): what ``send`` hands its ``modal``.
CONTEXTS = {}


def send(op, event):
    """``event`` to the running operator ``op``, as the window's event loop sends it (with its own context)."""
    return op.modal(CONTEXTS[op.as_pointer()], event)


@pytest.fixture
def modal(monkeypatch):
    """``modal(op_class)``: an ``invoke`` (as from the UI) of ``op_class`` that the test then drives; calls
    made through ``bpy.ops`` append the running operators to the returned list (one list per class)."""

    def patch(cls):
        started = []

        def execute(self, context):
            started.append(self)
            CONTEXTS[self.as_pointer()] = context
            return cls.invoke(self, context, Event("NONE"))

        monkeypatch.setattr(cls, "execute", execute)
        return started

    yield patch
    CONTEXTS.clear()


@pytest.fixture
def progress(monkeypatch, orogen):
    """The values the operators show as progress (of ``PROGRESS_STEPS``), in order."""
    shown = []
    real = orogen.addon.jobs.show_progress

    def record(wm, value):
        shown.append(value)
        real(wm, value)

    monkeypatch.setattr(orogen.addon.jobs, "show_progress", record)
    return shown


def run(op, timeout=120.0):
    """Send timer events until the operator ends; its result."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = send(op, TIMER)
        if result not in ({"PASS_THROUGH"}, {"RUNNING_MODAL"}):
            return result
        time.sleep(0.005)
    raise AssertionError("the operator did not end")


def spec_json(size=48, filters=None, seed=7, **extra):
    filters = (
        [{"type": "thermal", "iterations": 12}, {"type": "hydraulic", "steps": 20}] if filters is None else filters
    )
    return json.dumps(
        {
            "version": 2,
            "generator": "fractal",
            "size": size,
            "seed": seed,
            "width": 100.0,
            "height": 20.0,
            "filters": filters,
            **extra,
        }
    )


HEAVY = [{"type": "hydraulic", "steps": 2000}]  # many seconds at 257^2: cancelled long before it ends


def _read_spec(obj):
    return sys.modules[MODULE].addon.specio.read_spec(obj.orogen).to_json()


def snapshot():
    """What a cancelled or failed run must leave as it was."""

    def data(obj):
        mesh = obj.data
        co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        mesh.vertices.foreach_get("co", co)
        attributes = {}
        for attr in mesh.attributes:
            if attr.data_type == "FLOAT" and attr.domain == "POINT":
                values = np.empty(len(attr.data), dtype=np.float32)
                attr.data.foreach_get("value", values)
                attributes[attr.name] = values.tobytes()
        spec = json.dumps({k: getattr(obj.orogen, k) for k in ("applied", "preview_pending", "is_terrain")})
        return mesh.name, co.tobytes(), attributes, spec, obj.get("orogen_terrain"), tuple(obj.matrix_world)

    return {
        "objects": sorted(o.name for o in bpy.data.objects),
        "meshes": sorted(m.name for m in bpy.data.meshes),
        "materials": sorted(m.name for m in bpy.data.materials),
        "images": sorted(i.name for i in bpy.data.images),
        "selected": sorted(o.name for o in bpy.context.selected_objects),
        "active": getattr(bpy.context.view_layer.objects.active, "name", None),
        "data": {o.name: data(o) for o in bpy.data.objects if o.type == "MESH"},
        "specs": {o.name: _read_spec(o) for o in bpy.data.objects if o.type == "MESH"},
    }


def spec_of(orogen, obj):
    return orogen.addon.specio.read_spec(obj.orogen).to_json()


def mesh_arrays(obj):
    mesh = obj.data
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    out = {"co": co}
    for attr in mesh.attributes:
        if attr.domain == "POINT" and attr.data_type in ("FLOAT", "FLOAT_COLOR"):
            width = 4 if attr.data_type == "FLOAT_COLOR" else 1
            values = np.empty(len(attr.data) * width, dtype=np.float32)
            attr.data.foreach_get("color" if width == 4 else "value", values)
            out[attr.name] = values
    return out


def assert_same_mesh(a, b):
    arrays_a, arrays_b = mesh_arrays(a), mesh_arrays(b)
    assert sorted(arrays_a) == sorted(arrays_b)
    for name in arrays_a:
        assert np.array_equal(arrays_a[name], arrays_b[name]), name
    assert a.get("orogen_terrain") == b.get("orogen_terrain")


def assert_progress(shown, between=0):
    """From 0 to PROGRESS_STEPS, never backwards, with at least ``between`` values between (the filters report
    as they work; how many the timer sees depends on the machine's speed)."""
    assert shown[0] == 0 and shown[-1] == STEPS
    assert shown == sorted(shown) and len(set(shown)) == len(shown)
    assert len(shown) >= 2 + between


def wait_for(job, timeout=60.0):
    job.join(timeout)
    assert job.done()


# --- Add Terrain ---------------------------------------------------------------------------------------------
def test_add_from_the_ui_gives_the_same_terrain_as_from_python_with_progress(scene, orogen, modal, progress):
    spec = spec_json(129, [{"type": "thermal", "iterations": 20}, {"type": "hydraulic", "steps": 150}])
    assert bpy.ops.orogen.terrain_add(spec=spec) == {"FINISHED"}
    sync = bpy.context.active_object
    sync.name = "FromPython"
    before = len(bpy.data.objects)
    assert_progress(progress)  # from Python too (blocking): 0 to 100 %
    progress.clear()

    started = modal(orogen.addon.ops.terrain.OROGEN_OT_terrain_add)
    assert bpy.ops.orogen.terrain_add(spec=spec) == {"RUNNING_MODAL"}
    assert len(bpy.data.objects) == before  # nothing is added while it computes
    op = started[0]
    assert run(op) == {"FINISHED"}
    obj = bpy.context.active_object
    assert len(bpy.data.objects) == before + 1 and obj is not sync
    assert obj.select_get() and not sync.select_get()
    assert_same_mesh(obj, sync)
    assert spec_of(orogen, obj) == spec_of(orogen, sync) and obj.orogen.applied == sync.orogen.applied
    assert obj.orogen.is_terrain and obj.matrix_world == sync.matrix_world
    assert [s.material is not None for s in obj.material_slots] == [True]
    assert op.last_report[0] == "INFO" and op.last_report[1].startswith(f"Added terrain {obj.name}, 129 x 129")
    assert_progress(progress, between=2)  # about a second of erosion: the timer sees it advance
    assert op._timer is None


def test_esc_cancels_add_leaving_nothing_behind(scene, orogen, modal, progress):
    bpy.ops.mesh.primitive_cube_add()
    before = snapshot()
    started = modal(orogen.addon.ops.terrain.OROGEN_OT_terrain_add)
    assert bpy.ops.orogen.terrain_add(spec=spec_json(257, HEAVY)) == {"RUNNING_MODAL"}
    op = started[0]
    job = op._job
    deadline = time.monotonic() + 30.0
    while job.fraction == 0.0 and time.monotonic() < deadline:  # the generator has run, the erosion runs
        time.sleep(0.01)
    assert send(op, TIMER) == {"PASS_THROUGH"}
    assert send(op, Event("MOUSEMOVE")) == {"PASS_THROUGH"}  # the user keeps working meanwhile
    assert not job.done() and 0 < job.fraction < 1
    pressed = time.monotonic()
    assert send(op, ESC) == {"CANCELLED"}  # at once, not when the worker has stopped
    assert op.last_report == ("WARNING", "Add Terrain cancelled: nothing was added")
    assert snapshot() == before and op._timer is None
    wait_for(job)
    stopped = time.monotonic() - pressed
    assert job.cancelled and job.arrays is None and job.error is None
    assert snapshot() == before
    assert progress == sorted(progress) and progress[0] == 0 and progress[-1] < STEPS
    print(f"worker stopped {stopped:.3f} s after Esc")


def test_an_error_in_the_worker_is_reported_and_adds_nothing(scene, orogen, modal, monkeypatch):
    bpy.ops.mesh.primitive_cube_add()
    before = snapshot()

    def broken(spec, sun=None, shape=None, progress=None, inputs=None):
        progress(1, 2)
        raise RuntimeError("out of luck")

    monkeypatch.setattr(orogen.addon.jobs, "compute_terrain", broken)
    started = modal(orogen.addon.ops.terrain.OROGEN_OT_terrain_add)
    assert bpy.ops.orogen.terrain_add(spec=spec_json()) == {"RUNNING_MODAL"}
    op = started[0]
    assert run(op) == {"CANCELLED"}
    assert op.last_report == ("ERROR", "Terrain not added: out of luck")
    assert snapshot() == before and op._timer is None


def test_a_spec_refused_at_once_starts_nothing(scene, orogen, modal):
    before = snapshot()
    started = modal(orogen.addon.ops.terrain.OROGEN_OT_terrain_add)
    with pytest.raises(RuntimeError, match="Terrain not added: Location must be a finite number"):
        bpy.ops.orogen.terrain_add(spec=spec_json(), location=(float("nan"), 0.0, 0.0))
    assert snapshot() == before
    with pytest.raises(ReferenceError):  # Blender freed it: no modal handler, no worker
        getattr(started[0], "_job")  # noqa: B009


def test_python_and_scripts_stay_synchronous(scene, orogen):
    assert bpy.ops.orogen.terrain_add("EXEC_DEFAULT", spec=spec_json()) == {"FINISHED"}
    assert bpy.context.active_object.orogen.is_terrain
    # INVOKE_DEFAULT without an event (a background session) runs execute too: at once.
    assert bpy.ops.orogen.terrain_add("INVOKE_DEFAULT", spec=spec_json(seed=8)) == {"FINISHED"}
    assert len([o for o in bpy.data.objects if o.orogen.is_terrain]) == 2


# --- Regenerate ----------------------------------------------------------------------------------------------
def test_regenerate_from_the_ui_equals_the_synchronous_one_and_esc_keeps_the_terrain(scene, orogen, modal, progress):
    live, specio, TerrainSpec = orogen.addon.live, orogen.addon.specio, orogen.core.spec.TerrainSpec
    bpy.ops.orogen.terrain_add(spec=spec_json(seed=1))
    obj = bpy.context.active_object
    with live.suspended():
        specio.write_spec(obj.orogen, TerrainSpec.from_json(spec_json(257, HEAVY, seed=9)))
    started = modal(orogen.addon.ops.terrain.OROGEN_OT_terrain_regenerate)

    before = snapshot()
    assert bpy.ops.orogen.terrain_regenerate() == {"RUNNING_MODAL"}
    assert op_cancel(started[-1]) == {"CANCELLED"}
    assert started[-1].last_report == ("WARNING", "Regenerate cancelled: the terrain is as it was")
    assert snapshot() == before
    wait_for(started[-1]._job)
    assert started[-1]._job.cancelled and snapshot() == before

    with live.suspended():
        specio.write_spec(obj.orogen, TerrainSpec.from_json(spec_json(seed=9)))
    progress.clear()
    assert bpy.ops.orogen.terrain_regenerate() == {"RUNNING_MODAL"}
    assert run(started[-1]) == {"FINISHED"}
    assert_progress(progress)
    assert obj.orogen.status.startswith("Regenerated terrain 48 x 48")
    bpy.ops.orogen.terrain_add(spec=spec_json(seed=9))  # the same spec, synchronously
    assert_same_mesh(obj, bpy.context.active_object)


def op_cancel(op):
    """Esc while the worker runs."""
    time.sleep(0.05)
    assert send(op, TIMER) == {"PASS_THROUGH"} and not op._job.done()
    return send(op, ESC)


def test_regenerate_waits_for_object_mode_and_follows_settings_changed_meanwhile(scene, orogen, modal):
    live = orogen.addon.live
    bpy.ops.orogen.terrain_add(spec=spec_json(seed=1))
    obj = bpy.context.active_object
    started = modal(orogen.addon.ops.terrain.OROGEN_OT_terrain_regenerate)
    assert bpy.ops.orogen.terrain_regenerate() == {"RUNNING_MODAL"}
    op = started[0]
    wait_for(op._job)
    bpy.ops.object.mode_set(mode="EDIT")
    for _ in range(3):  # the result waits: a mesh in Edit Mode is not rewritten
        assert send(op, TIMER) == {"PASS_THROUGH"}
    bpy.ops.object.mode_set(mode="OBJECT")
    with live.suspended():
        obj.orogen.seed = 4  # changed while it computed: the operator computes the new settings
    assert run(op) == {"FINISHED"}
    assert json.loads(obj.orogen.applied)["seed"] == 4
    bpy.ops.orogen.terrain_add(spec=spec_json(seed=4))
    assert_same_mesh(obj, bpy.context.active_object)


def test_settings_changed_meanwhile_meet_the_memory_guard_before_they_are_computed(scene, orogen, modal, monkeypatch):
    """A Size raised while Regenerate computes is computed next only if the memory guard lets it: a start's
    guards hold for the restart too, and the terrain stays as it was."""
    live = orogen.addon.live
    bpy.ops.orogen.terrain_add(spec=spec_json(seed=1))
    obj = bpy.context.active_object
    started = modal(orogen.addon.ops.terrain.OROGEN_OT_terrain_regenerate)
    assert bpy.ops.orogen.terrain_regenerate() == {"RUNNING_MODAL"}
    op = started[0]
    wait_for(op._job)
    monkeypatch.setenv("OROGEN_MEMORY_LIMIT", "1MiB")
    with live.suspended():
        obj.orogen.size = 1025  # changed while it computed, past the memory the guard allows
    before = snapshot()  # the user's change made, the mesh still the old one
    computed = []
    monkeypatch.setattr(orogen.addon.jobs, "compute_terrain", lambda *a, **k: computed.append(a) or 1 / 0)
    assert run(op) == {"CANCELLED"}
    assert computed == []  # refused before a computation of the new settings started
    assert op.last_report[0] == "ERROR" and op.last_report[1].startswith("Terrain not regenerated: ")
    assert "memory" in op.last_report[1].lower() or "MiB" in op.last_report[1], op.last_report
    assert snapshot() == before


def test_regenerate_of_a_deleted_terrain_or_a_failed_worker_reports_and_changes_nothing(
    scene, orogen, modal, monkeypatch
):
    bpy.ops.orogen.terrain_add(spec=spec_json(seed=1))
    obj = bpy.context.active_object
    started = modal(orogen.addon.ops.terrain.OROGEN_OT_terrain_regenerate)
    assert bpy.ops.orogen.terrain_regenerate() == {"RUNNING_MODAL"}
    bpy.data.objects.remove(obj)
    before = snapshot()
    assert run(started[0]) == {"CANCELLED"}
    assert started[0].last_report == ("ERROR", "Terrain not regenerated: the terrain was deleted")
    assert snapshot() == before

    bpy.ops.orogen.terrain_add(spec=spec_json(seed=2))
    monkeypatch.setattr(
        orogen.addon.jobs, "compute_terrain", lambda *a, **k: (_ for _ in ()).throw(MemoryError("no room"))
    )
    before = snapshot()
    assert bpy.ops.orogen.terrain_regenerate() == {"RUNNING_MODAL"}
    assert run(started[1]) == {"CANCELLED"}
    assert started[1].last_report == ("ERROR", "Terrain not regenerated: no room")
    assert snapshot() == before


# --- the live update's full-size pass ------------------------------------------------------------------------
def live_terrain(orogen, size=129, preview=33, filters=None):
    """A terrain showing a live-update preview (a setting changed, as when a slider is dragged)."""
    live = orogen.addon.live
    bpy.ops.orogen.terrain_add(spec=spec_json(size, seed=1))
    obj = bpy.context.active_object
    obj.orogen.preview_size = preview
    with live.suspended():
        spec = orogen.core.spec.TerrainSpec.from_json(spec_json(size, filters, seed=5))
        orogen.addon.specio.write_spec(obj.orogen, spec)
    live.on_setting_changed(obj, bpy.context)
    assert len(obj.data.vertices) == preview * preview and obj.orogen.preview_pending
    return obj


def test_dragging_shows_the_coarse_preview_and_the_settle_pass_makes_the_full_size(scene, orogen, modal, progress):
    live = orogen.addon.live
    obj = live_terrain(orogen)
    for seed in (6, 7, 8):  # each change while dragging regenerates the preview only
        obj.orogen.seed = seed
        live.on_setting_changed(obj, bpy.context)
        assert len(obj.data.vertices) == 33 * 33 and obj.orogen.preview_pending
        assert obj.orogen.status.startswith("Regenerated preview 33 x 33")
    assert progress[-1] == STEPS  # each preview shows its progress, to the end
    progress.clear()
    started = modal(orogen.addon.terrain.settle.OROGEN_OT_live_settle)
    assert bpy.ops.orogen.live_settle() == {"RUNNING_MODAL"}
    assert orogen.addon.terrain.settle.settling() and len(obj.data.vertices) == 33 * 33
    assert bpy.ops.orogen.live_settle() == {"CANCELLED"}  # one full-size pass at a time
    op = started[0]
    assert run(op) == {"FINISHED"}
    assert not orogen.addon.terrain.settle.settling() and orogen.addon.terrain.settle._settling[0] is None
    assert len(obj.data.vertices) == 129 * 129 and not obj.orogen.preview_pending
    assert obj.orogen.status.startswith("Regenerated terrain 129 x 129")
    assert_progress(progress)
    bpy.ops.orogen.terrain_add(spec=spec_json(129, seed=8))
    assert_same_mesh(obj, bpy.context.active_object)


def test_esc_during_the_settle_pass_keeps_the_preview_until_the_next_change(scene, orogen, modal):
    live = orogen.addon.live
    obj = live_terrain(orogen, size=257, preview=33, filters=HEAVY)
    before = snapshot()
    started = modal(orogen.addon.terrain.settle.OROGEN_OT_live_settle)
    assert bpy.ops.orogen.live_settle() == {"RUNNING_MODAL"}
    op = started[0]
    assert op_cancel(op) == {"CANCELLED"}
    assert op.last_report == ("WARNING", f"Full size cancelled: {obj.name} keeps its preview")
    assert obj.orogen.status.startswith("Full size cancelled: showing the 33 x 33 preview")
    assert snapshot() == before and not orogen.addon.terrain.settle.settling()
    wait_for(op._job)
    assert op._job.cancelled and snapshot() == before
    orogen.addon.terrain.settle._last_change[0] = 0.0
    assert (
        orogen.addon.terrain.settle._settle_timer() is None and snapshot() == before
    )  # the timer does not start it again
    obj.orogen.seed = 6  # a new change: a new preview, and its full size is due again
    live.on_setting_changed(obj, bpy.context)
    assert (
        obj.session_uid not in orogen.addon.terrain.settle._declined
        and orogen.addon.terrain.settle._settle_targets() == [obj]
    )


def test_a_change_during_the_settle_pass_drops_its_result(scene, orogen, modal):
    live = orogen.addon.live
    obj = live_terrain(orogen, size=257, preview=33, filters=HEAVY)
    started = modal(orogen.addon.terrain.settle.OROGEN_OT_live_settle)
    assert bpy.ops.orogen.live_settle() == {"RUNNING_MODAL"}
    op = started[0]
    job = op._job
    obj.orogen.seed = 6
    live.on_setting_changed(obj, bpy.context)  # cancels the running pass: its settings are gone
    assert run(op) == {"CANCELLED"} and job.cancelled and op.last_report is None
    assert len(obj.data.vertices) == 33 * 33 and obj.orogen.preview_pending
    assert json.loads(obj.orogen.applied)["seed"] == 6 and obj.session_uid not in orogen.addon.terrain.settle._declined


def test_a_failed_settle_pass_shows_the_terrain_from_before_the_preview(scene, orogen, modal, monkeypatch):
    live = orogen.addon.live
    bpy.ops.orogen.terrain_add(spec=spec_json(129, seed=1))
    obj = bpy.context.active_object
    full = mesh_arrays(obj)
    obj.orogen.preview_size = 33
    obj.orogen.seed = 5
    live.on_setting_changed(obj, bpy.context)
    monkeypatch.setattr(
        orogen.addon.jobs, "compute_terrain", lambda *a, **k: (_ for _ in ()).throw(ValueError("too big"))
    )
    started = modal(orogen.addon.terrain.settle.OROGEN_OT_live_settle)
    assert bpy.ops.orogen.live_settle() == {"RUNNING_MODAL"}
    assert run(started[0]) == {"CANCELLED"}
    assert started[0].last_report == ("ERROR", "Full size not made: too big")
    assert obj.orogen.status == "Not regenerated: too big" and not obj.orogen.preview_pending
    after = mesh_arrays(obj)
    assert all(np.array_equal(full[k], after[k]) for k in full)


def test_without_a_user_interface_the_settle_timer_makes_the_full_size_at_once(scene, orogen):
    obj = live_terrain(orogen)
    assert orogen.addon.terrain.settle._settle_timer() == 0.1  # changes have not settled yet
    orogen.addon.terrain.settle._last_change[0] = 0.0
    assert orogen.addon.terrain.settle._settle_timer() is None
    assert len(obj.data.vertices) == 129 * 129 and not obj.orogen.preview_pending


def test_blender_ending_the_settle_pass_stops_its_worker(scene, orogen, modal):
    """Loading a file (or closing the window) ends a running modal operator through its ``cancel``."""
    live_terrain(orogen, size=257, preview=33, filters=HEAVY)
    started = modal(orogen.addon.terrain.settle.OROGEN_OT_live_settle)
    assert bpy.ops.orogen.live_settle() == {"RUNNING_MODAL"}
    job = started[0]._job
    assert orogen.addon.terrain.settle.settling()
    bpy.ops.wm.read_homefile(use_empty=True)
    assert not orogen.addon.terrain.settle.settling() and orogen.addon.terrain.settle._settling[0] is None
    wait_for(job)
    assert job.cancelled and job.arrays is None


def test_the_settle_timer_starts_the_operator_in_a_window(scene, orogen):
    """How the timer starts the full-size pass in a window; headless Blender runs its execute (at once)."""
    obj = live_terrain(orogen)
    assert orogen.addon.terrain.settle._start_settle() is False  # no event to invoke with: it ran at once
    assert len(obj.data.vertices) == 129 * 129 and not obj.orogen.preview_pending


def test_regenerate_drops_a_running_settle_pass_of_its_terrain(scene, orogen, modal):
    obj = live_terrain(orogen, size=257, preview=33, filters=HEAVY)
    settle = modal(orogen.addon.terrain.settle.OROGEN_OT_live_settle)
    assert bpy.ops.orogen.live_settle() == {"RUNNING_MODAL"}
    regenerate = modal(orogen.addon.ops.terrain.OROGEN_OT_terrain_regenerate)
    assert bpy.ops.orogen.terrain_regenerate() == {"RUNNING_MODAL"}
    assert run(settle[0]) == {"CANCELLED"} and settle[0]._job.cancelled and settle[0].last_report is None
    before = snapshot()
    assert regenerate[0]._job is not settle[0]._job
    assert op_cancel(regenerate[0]) == {"CANCELLED"}
    assert snapshot() == before and len(obj.data.vertices) == 33 * 33 and obj.orogen.preview_pending
