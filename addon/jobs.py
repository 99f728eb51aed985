"""Background jobs: a terrain computed in a worker thread with progress and cancel, and the one protocol every
modal operator follows (:class:`BackgroundOperator`).

Add, Regenerate and the live update's full-size pass, started from the UI, share it: a worker thread computes
(core is numpy only, no ``bpy``), the status bar shows the progress, Esc cancels, and only the finished result
touches the scene, in the main thread. From Python (``bpy.ops...()``) the same operators run blocking.
"""

import threading
import time

from ..core.spec import TerrainSpec
from .poll import locked_reason, mode_reason
from .terrain.compute import TerrainArrays, compute_terrain

#: Steps of the status bar's progress (Blender's window-manager progress) while a terrain is computed.
PROGRESS_STEPS = 100


def status_progress(wm):
    """A ``progress(done, total)`` callback for :func:`terrain.compute.compute_terrain` that moves ``wm``'s progress
    (``window_manager.progress_update``: the status bar's, or the console's in the background) through the
    first ``PROGRESS_STEPS - 1`` steps as the generator and filters work; ``None`` without a window manager."""
    if wm is None:
        return None

    def progress(done: int, total: int) -> bool:
        wm.progress_update(min(PROGRESS_STEPS - 1, (PROGRESS_STEPS - 1) * done // max(total, 1)))
        return True

    return progress


class BackgroundCompute:
    """A terrain computed in a worker thread (core is numpy only, no ``bpy``), cancellable between erosion steps.

    ``start()`` runs :func:`terrain.compute.compute_terrain` in a thread; ``fraction`` is its progress (0 to 1);
    ``cancel()`` makes the next progress report return ``False`` (core raises ``Cancelled``, nothing is
    returned); ``done()`` says whether the thread finished, and then ``arrays`` or ``error`` holds the outcome.
    Nothing in Blender is touched by the thread: the caller writes ``arrays`` into the object in the main
    thread, so a cancelled run leaves the terrain as it was. A caller need not wait for a cancelled thread:
    it stops at its next check (after the generator, each filter and each erosion step) and its result is
    dropped.
    """

    def __init__(self, spec: TerrainSpec, sun, shape: tuple[int, int]) -> None:
        self.spec, self.sun, self.shape = spec, sun, shape
        self.fraction = 0.0
        self.arrays: TerrainArrays | None = None
        self.error: BaseException | None = None
        self.cancelled = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="orogen-terrain", daemon=True)

    def _progress(self, done: int, total: int) -> bool:
        self.fraction = done / max(total, 1)
        return not self._stop.is_set()

    def _run(self) -> None:
        from ..core.recipe import Cancelled

        try:
            arrays = compute_terrain(self.spec, self.sun, self.shape, self._progress)
        except Cancelled:
            self.cancelled = True
        except BaseException as err:  # noqa: BLE001  (handed to the main thread, which reports it)
            self.error = err
        else:
            if self._stop.is_set():  # cancelled during the bake, after the last check
                self.cancelled = True
            else:
                self.arrays = arrays

    def start(self) -> "BackgroundCompute":
        self._thread.start()
        return self

    def cancel(self) -> None:
        self._stop.set()

    def done(self) -> bool:
        return not self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)


#: Seconds between two looks of a modal operator at its background computation (its window timer).
POLL_SECONDS = 0.1


def show_progress(wm, value: int) -> None:
    """Show ``value`` (0 to ``PROGRESS_STEPS``) as ``wm``'s progress (``progress_update``: the cursor's counter)."""
    wm.progress_update(value)


class BackgroundOperator:
    """Mixin for operators that compute a terrain in the background while they run modal (started from the UI).

    :meth:`_begin` starts a :class:`BackgroundCompute` and a window timer; on each timer event :meth:`modal`
    moves the status bar's progress (``window_manager.progress_update``, never backwards); Esc cancels at once
    (the worker stops at its next step, its result dropped; nothing in the scene was changed, so the operator
    returns ``CANCELLED`` and leaves no undo step). When the computation ends, :meth:`_apply` writes it into
    the scene in the main thread; an error in the worker is reported and changes nothing. Other events pass
    through, so the user can keep working while it computes.

    Subclasses give ``_doing`` (the status text), :meth:`_wait_reason` (why the result cannot be written in yet:
    it is kept until then), :meth:`_apply` and :meth:`_cancelled`.
    """

    _doing = "Computing terrain"
    _failure = "Terrain not computed"
    # (No annotations here: Blender reads a registered class's annotations as its properties.)
    _job = None  # the BackgroundCompute running
    _timer = None
    _shown = -1  # the progress shown, 0 to PROGRESS_STEPS
    #: ``(level, text)`` of the last report (the tests read it: Blender keeps an operator's reports to itself).
    last_report = None

    def _say(self, level: str, text: str) -> None:
        self.report({level}, text)
        self.last_report = (level, text)

    def _status(self, context, text: str | None) -> None:
        workspace = getattr(context, "workspace", None)
        if workspace is not None:
            workspace.status_text_set(text)

    def _begin(self, context, job: BackgroundCompute) -> set[str]:
        self._job = job.start()
        self._started = time.perf_counter()
        wm = context.window_manager
        wm.progress_begin(0, PROGRESS_STEPS)
        self._shown = -1
        self._show(context, 0)
        self._timer = wm.event_timer_add(POLL_SECONDS, window=context.window)
        wm.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def _restart(self, context, job: BackgroundCompute) -> None:
        """Compute ``job`` instead (the spec changed while the last one ran); the progress starts again."""
        if self._job is not None and self._job is not job:
            self._job.cancel()
        self._job = job.start()
        self._started = time.perf_counter()
        self._shown = -1
        self._show(context, 0)

    def _show(self, context, value: int) -> None:
        """Show ``value`` (of ``PROGRESS_STEPS``): the window's progress (the cursor's counter) and the
        status bar's text; never backwards."""
        if value > self._shown:
            show_progress(context.window_manager, value)
            self._shown = value
            self._status(context, f"{self._doing}: {100 * value // PROGRESS_STEPS} % (Esc to cancel)")

    def _end(self, context) -> None:
        """Remove the timer, the progress and the status text (once; Blender may call :meth:`cancel` later)."""
        if self._timer is None:
            return
        wm = context.window_manager
        wm.event_timer_remove(self._timer)
        self._timer = None
        wm.progress_end()
        self._status(context, None)

    def modal(self, context, event):
        job = self._job
        if event.type == "ESC" and event.value == "PRESS":
            job.cancel()
            self._end(context)
            return self._cancelled(context, by_user=True)
        if event.type != "TIMER" or self._timer is None:
            return {"PASS_THROUGH"}
        if not job.done():
            self._show(context, int((PROGRESS_STEPS - 1) * job.fraction))
            return {"PASS_THROUGH"}
        if job.cancelled:
            self._end(context)
            return self._cancelled(context, by_user=False)
        if job.error is not None:
            self._end(context)
            return self._failed(context, job.error)
        reason = self._wait_reason(context)
        if reason:
            self._status(context, f"{self._doing}: done, waiting: {reason} (Esc to cancel)")
            return {"PASS_THROUGH"}
        self._show(context, PROGRESS_STEPS)
        result = self._apply(context, job)
        if self._job is not job:  # _apply started another computation
            return {"PASS_THROUGH"}
        self._end(context)
        return result

    def cancel(self, context) -> None:
        """Blender ends the operator (a file is loaded, the window closes): stop the worker and clean up."""
        if self._job is not None:
            self._job.cancel()
        self._end(context)

    def _wait_reason(self, context) -> str | None:
        return locked_reason(context) or mode_reason(context)

    def _failed(self, context, error: BaseException) -> set[str]:
        self._say("ERROR", f"{self._failure}: {error}")
        return {"CANCELLED"}

    def _apply(self, context, job: BackgroundCompute) -> set[str]:
        raise NotImplementedError

    def _cancelled(self, context, by_user: bool) -> set[str]:
        raise NotImplementedError
