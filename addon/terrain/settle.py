"""The live update's full-size pass: a terrain larger than its preview size shows a preview on every change
and its full size once changes have settled (``SETTLE_SECONDS`` without a further change).

With a user interface the pass runs in the background (:class:`OROGEN_OT_live_settle`: progress in the status
bar, Esc keeps the preview), without one at once (:func:`flush_live_updates`). Nothing is kept by object
name: each terrain records whether its mesh is a preview awaiting its full size (``orogen.preview_pending``),
so renaming, duplicating or deleting a terrain during a pending update is safe. The full-size pass is not an
undo step of its own: the live edit's step holds its preview, so undo and redo can come back to a preview, and
its full size then follows again (:func:`on_undo_redo`, an ``undo_post`` and ``redo_post`` handler).
"""

import json
import time

import bpy

from ...core.progress import Cancelled
from ..inputs import terrain_inputs
from ..jobs import BackgroundCompute, BackgroundOperator, running
from ..live import same_heights, suspended
from ..mesh import TERRAIN_PROPERTY, grid_shape_of
from ..poll import locked_reason, object_by_uid
from ..specio import read_spec
from .apply import apply_arrays, regenerate, regenerate_status, sun_for
from .compute import check_size, work_note
from .meshes import full_size_mesh

#: Seconds without a further change before a live preview is replaced by the full-size terrain.
SETTLE_SECONDS = 0.4

_last_change = [0.0]  # monotonic time of the last live change (one clock for all terrains)


def preview_made() -> None:
    """A live change made a preview: its full size follows once changes have settled (the settle timer)."""
    _last_change[0] = time.monotonic()
    if not bpy.app.timers.is_registered(_settle_timer):
        bpy.app.timers.register(_settle_timer, first_interval=SETTLE_SECONDS)


def wanted_again(obj: bpy.types.Object) -> None:
    """``obj``'s settings changed: a full size the user declined is wanted again, and a full size of its previous
    settings no longer."""
    _declined.discard(obj.session_uid)
    stop_settling(obj)


def _pending_objects() -> list:
    return [
        obj
        for obj in bpy.data.objects
        if obj.type == "MESH" and obj.orogen.is_terrain and obj.orogen.preview_pending and obj.users > 0
    ]


def _back_to_full_size(obj: bpy.types.Object) -> None:
    """Show the terrain as it was before its preview (a full-size pass failed), with its recorded shape."""
    full_size_mesh(obj)
    shape = grid_shape_of(obj.data)
    if shape is not None and TERRAIN_PROPERTY in obj:
        info = json.loads(obj[TERRAIN_PROPERTY])
        obj[TERRAIN_PROPERTY] = json.dumps({**info, "shape": list(shape)})


def _full_size_failed(obj: bpy.types.Object, err: BaseException) -> None:
    """The full-size pass of ``obj`` failed: it shows the terrain it had before the preview again."""
    _back_to_full_size(obj)
    obj.orogen.status = f"Not regenerated: {err}"
    with suspended():
        obj.orogen.preview_pending = False


def flush_live_updates(force: bool = False) -> list[str]:
    """Regenerate at full size every terrain whose preview is pending once changes have settled
    (at once with ``force``), here and now (blocking: background sessions and scripts); returns the names
    regenerated. With a user interface the settle timer runs :class:`OROGEN_OT_live_settle` instead."""
    if not force and time.monotonic() - _last_change[0] < SETTLE_SECONDS:
        return []
    done = []
    for obj in _pending_objects():
        if obj.mode != "OBJECT":  # a mesh in Edit Mode cannot be rewritten: it waits until the user leaves
            obj.orogen.status = "Full size waits: leave Edit Mode"
            continue
        try:
            with running("Full-size terrain", bpy.context):
                obj.orogen.status = regenerate(obj, bpy.context)
        except (ValueError, TypeError, RuntimeError) as err:
            _full_size_failed(obj, err)
        except Cancelled:  # as Esc in the background pass: it keeps its preview until a setting changes
            _decline(obj)
            continue
        done.append(obj.name)
    return done


#: ``session_uid`` of terrains whose full-size pass the user cancelled (Esc): they keep their preview until
#: their settings change again (or Regenerate, or an export, makes the full size).
_declined: set[int] = set()
#: The full-size pass running in the background: ``{"uid": object's session_uid, "job": BackgroundCompute,
#: "beat": monotonic time its operator last looked at it}``, or ``None``.
_settling: list[dict | None] = [None]
#: Seconds without a look from its operator after which a full-size pass counts as gone (its operator was
#: ended without being told).
SETTLE_STALE_SECONDS = 2.0


def _decline(obj: bpy.types.Object) -> None:
    """The user cancelled ``obj``'s full-size pass: it keeps its preview until its settings change again."""
    _declined.add(obj.session_uid)
    rows, cols = grid_shape_of(obj.data) or (0, 0)
    obj.orogen.status = (
        f"Full size cancelled: showing the {rows} x {cols} preview (change a setting or Regenerate for the full size)"
    )


def settling() -> bool:
    """True while a full-size pass runs in the background (:class:`OROGEN_OT_live_settle`)."""
    entry = _settling[0]
    return entry is not None and time.monotonic() - entry["beat"] < SETTLE_STALE_SECONDS


def stop_settling(obj: bpy.types.Object | None = None) -> None:
    """Cancel the background full-size pass (of ``obj`` only, when given): its result will not be used."""
    entry = _settling[0]
    if entry is not None and (obj is None or entry["uid"] == obj.session_uid):
        entry["job"].cancel()


def _settle_targets() -> list[bpy.types.Object]:
    """Terrains whose full size is due now: pending, in Object Mode, not declined (Edit Mode ones are told)."""
    targets = []
    for obj in _pending_objects():
        if obj.session_uid in _declined:
            continue
        if obj.mode != "OBJECT":
            obj.orogen.status = "Full size waits: leave Edit Mode"
            continue
        targets.append(obj)
    return targets


def _start_settle() -> bool:
    """Run :class:`OROGEN_OT_live_settle` from the UI (in the first window); True when it runs modal."""
    for window in bpy.context.window_manager.windows:
        with bpy.context.temp_override(window=window):
            return "RUNNING_MODAL" in bpy.ops.orogen.live_settle("INVOKE_DEFAULT")
    return False


def _settle_timer() -> float | None:
    """Once changes have settled, make the full size of every pending preview: in the background with a user
    interface (progress in the status bar, Esc keeps the previews), here and now without one."""
    if time.monotonic() - _last_change[0] < SETTLE_SECONDS:
        return 0.1
    if settling() or locked_reason(bpy.context):  # (a render locks the interface: data waits)
        return 0.1
    if _settle_targets():
        if bpy.app.background or not _start_settle():
            flush_live_updates()
    return 0.1 if any(obj.session_uid not in _declined for obj in _pending_objects()) else None


class OROGEN_OT_live_settle(BackgroundOperator, bpy.types.Operator):
    """Make the full-size terrain of every live-update preview, in the background (Esc keeps the previews)"""

    bl_idname = "orogen.live_settle"
    bl_label = "Full-Size Terrain"
    bl_options = {"INTERNAL"}  # no undo step of its own (see the module docstring)
    _doing = "Full-size terrain"
    _failure = "Full size not made"

    def execute(self, _context):
        flush_live_updates(force=True)  # without a window: here and now
        return {"FINISHED"}

    def invoke(self, context, _event):
        if context.window is None:
            return self.execute(context)
        if settling():
            return {"CANCELLED"}
        self._done: list[str] = []
        job = self._next(context)
        if job is None:
            return {"CANCELLED"}
        return self._begin(context, job)

    def _next(self, context) -> BackgroundCompute | None:
        """The next pending terrain's computation (not started), or ``None`` when none is left."""
        for obj in _settle_targets():
            try:
                spec = read_spec(obj.orogen)
                check_size(*spec.shape, spec)
                inputs = terrain_inputs(
                    spec, obj.matrix_world, context, terrain=obj
                )  # a curve deleted since the preview
            except (ValueError, TypeError) as err:
                _full_size_failed(obj, err)
                continue
            self._uid = obj.session_uid
            job = BackgroundCompute(spec, sun_for(spec, context), spec.shape, inputs=inputs)
            _settling[0] = {"uid": self._uid, "job": job, "beat": time.monotonic()}
            note = work_note(spec)
            about = "" if note is None else f", {note.partition(' will take ')[2].partition(' (')[0]}"
            obj.orogen.status = f"Making the full size {spec.shape[0]} x {spec.shape[1]}{about} (Esc keeps the preview)"
            return job
        return None

    def modal(self, context, event):
        entry = _settling[0]
        if entry is not None and entry["job"] is self._job:
            entry["beat"] = time.monotonic()
        return super().modal(context, event)

    def _end(self, context) -> None:
        super()._end(context)
        entry = _settling[0]
        if entry is not None and entry["job"] is self._job:
            _settling[0] = None

    def _wait_reason(self, context) -> str | None:
        obj = object_by_uid(self._uid)
        return locked_reason(context) or ("leave Edit Mode" if obj is not None and obj.mode != "OBJECT" else None)

    def _apply(self, context, job: BackgroundCompute) -> set[str]:
        obj = object_by_uid(self._uid)
        if obj is not None and obj.orogen.preview_pending:  # else: deleted, or made full size meanwhile
            try:
                spec = read_spec(obj.orogen)
                if same_heights(job.spec, spec):  # else: changed meanwhile (its own settle pass follows)
                    obj.orogen.status = regenerate_status(
                        apply_arrays(obj, spec, spec.shape, job.arrays, self._started)
                    )
                    self._done.append(obj.name)
            except (ValueError, TypeError, RuntimeError) as err:
                _full_size_failed(obj, err)
        job = self._next(context)
        if job is not None:
            self._restart(context, job)
            return {"RUNNING_MODAL"}
        if self._done:
            self._say("INFO", f"Full size made: {', '.join(self._done[:4])}" + (" ..." if len(self._done) > 4 else ""))
        return {"FINISHED"}

    def _failed(self, context, error: BaseException) -> set[str]:
        obj = object_by_uid(self._uid)
        if obj is not None and obj.orogen.preview_pending:
            _full_size_failed(obj, error)
        return super()._failed(context, error)

    def _cancelled(self, context, by_user: bool) -> set[str]:
        if not by_user:  # a setting changed: that terrain's next settle pass makes it
            return {"CANCELLED"}
        kept = []
        for obj in _pending_objects():
            _decline(obj)
            kept.append(obj.name)
        self._say("WARNING", f"Full size cancelled: {', '.join(kept[:4]) or 'the terrain'} keeps its preview")
        return {"CANCELLED"}


@bpy.app.handlers.persistent
def on_undo_redo(*_args) -> None:
    """Undo or redo came back to a step holding a preview (a live edit's step: its full-size pass made no step of
    its own): its full size follows again once changes have settled, as after the edit itself."""
    if _pending_objects():
        preview_made()


classes = (OROGEN_OT_live_settle,)
_HANDLERS = (bpy.app.handlers.undo_post, bpy.app.handlers.redo_post)


def register() -> None:
    for cls in classes:
        bpy.utils.register_class(cls)
    for handlers in _HANDLERS:
        handlers.append(on_undo_redo)


def unregister() -> None:
    for handlers in _HANDLERS:
        if on_undo_redo in handlers:
            handlers.remove(on_undo_redo)
    if bpy.app.timers.is_registered(_settle_timer):
        bpy.app.timers.unregister(_settle_timer)
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
