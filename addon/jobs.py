"""Long jobs: the one progress-and-cancel mechanism every long operator uses (:class:`Job`), a terrain computed in
a worker thread (:class:`BackgroundCompute`) and the modal protocol of operators that run one
(:class:`BackgroundOperator`).

Every long job (Add, Generate, Regenerate, the live update's full-size pass, tile worlds, heightmap import and
export) reports through a :class:`Job`: its :meth:`Job.progress` is the core's ``progress(done, total)``
callback, it shows the fraction done and the time left (:func:`core.progress.progress_text`) in the status bar
(``window_manager.progress_update`` and the workspace's status text) and returns ``False`` once
:meth:`Job.cancel` was called, so the core raises ``Cancelled`` and the operator leaves the scene as it was.
Esc in a modal operator calls :meth:`Job.cancel`; so may a test, from a :data:`WATCHERS` function.

Add, Regenerate and the live update's full-size pass, started from the UI, compute in a worker thread (core is
numpy only, no ``bpy``) while their operator runs modal, and only the finished result touches the scene, in the
main thread. From Python (``bpy.ops...()``) the same operators run blocking, with the same :class:`Job`.
"""

import contextlib
import threading
import time

from ..core.progress import Cancelled, progress_text
from ..core.spec import TerrainSpec
from .poll import locked_reason, mode_reason
from .terrain.compute import TerrainArrays, compute_terrain

#: Steps of the status bar's progress (Blender's window-manager progress) while a job runs.
PROGRESS_STEPS = 100

#: Functions called as ``watcher(job, text)`` each time a job's progress is shown (in the main thread), with
#: the status text; a watcher may call ``job.cancel()`` (what Esc does). For tests and add-ons.
WATCHERS: list = []


def show_progress(wm, value: int) -> None:
    """Show ``value`` (0 to ``PROGRESS_STEPS``) as ``wm``'s progress (``progress_update``: the cursor's counter)."""
    wm.progress_update(value)


class Job:
    """One long job's progress and cancel flag.

    ``progress(done, total)`` (the core's callback, :mod:`core.progress`) records the fraction done (never
    backwards), shows it when called in the main thread (:meth:`show`; a worker thread's job is shown by its
    operator's timer) and returns ``False`` once :meth:`cancel` was called. :meth:`begin` and :meth:`end`
    (or ``with job:``) open and close the window manager's progress and the status text.
    """

    def __init__(self, doing: str, context=None) -> None:
        self.doing = doing
        self.wm = getattr(context, "window_manager", None)
        self.workspace = getattr(context, "workspace", None)
        self.fraction = 0.0
        self.started = time.perf_counter()
        self.text = ""
        self._stop = threading.Event()
        self._shown = -1
        self._said = ""  # the status text last set

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._stop.is_set()

    def cancel(self) -> None:
        """Ask the job to stop (what Esc does): its next progress report returns ``False``."""
        self._stop.set()

    def progress(self, done: int, total: int) -> bool:
        """The core's ``progress(done, total)``: record, show (main thread only), ``False`` once cancelled."""
        return self._advance(done / total if total > 0 else 1.0)

    def part(self, start: float, end: float):
        """A ``progress(done, total)`` for a part of the job: its fraction maps onto ``start`` to ``end``."""

        def progress(done: int, total: int) -> bool:
            return self._advance(start + (end - start) * min(1.0, done / total if total > 0 else 1.0))

        return progress

    def ticker(self, start: float, end: float, total: int):
        """``tick()`` for a part of ``total`` steps mapped onto ``start`` to ``end``: each call counts one step
        done, shows it and raises ``core.Cancelled`` once the job was cancelled."""
        progress, count = self.part(start, end), [0]

        def tick() -> None:
            count[0] += 1
            if progress(count[0], total) is False:
                message = f"{self.doing}: cancelled after {count[0]} of {total} steps"
                raise Cancelled(message, done=count[0], total=total)

        return tick

    def _advance(self, fraction: float) -> bool:
        self.fraction = max(self.fraction, min(1.0, fraction))
        if threading.current_thread() is threading.main_thread():
            self.show()
        return not self._stop.is_set()

    def status(self, text: str | None) -> None:
        """Set the status bar's text (``None`` clears it); nothing without a workspace."""
        self._said = text or ""
        if self.workspace is not None:
            self.workspace.status_text_set(text)

    def show(self, fraction: float | None = None) -> str:
        """Show the fraction done (the job's, or ``fraction`` when larger) and the time left: the window
        manager's progress and the status text; call the :data:`WATCHERS`. Returns the text."""
        if fraction is not None:
            self.fraction = max(self.fraction, min(1.0, fraction))
        self.text = f"{self.doing}: {progress_text(self.fraction, time.perf_counter() - self.started)} (Esc to cancel)"
        value = int(PROGRESS_STEPS * self.fraction)
        if self.wm is not None and value > self._shown:
            show_progress(self.wm, value)
            self._shown = value
        if self.text != self._said:
            self.status(self.text)
            self._said = self.text
        for watcher in list(WATCHERS):
            watcher(self, self.text)
        return self.text

    def restart(self) -> None:
        """Start the count again (another computation of the same job): fraction 0, time from now."""
        self.fraction, self.started, self._shown = 0.0, time.perf_counter(), -1

    def begin(self) -> "Job":
        if self.wm is not None:
            self.wm.progress_begin(0, PROGRESS_STEPS)
        self.started = time.perf_counter()
        return self

    def end(self) -> None:
        if self.wm is not None:
            self.wm.progress_end()
        self.status(None)

    def __enter__(self) -> "Job":
        return self.begin()

    def __exit__(self, *_exc) -> None:
        self.end()


#: The jobs running in the main thread, innermost last (:func:`running`).
RUNNING: list[Job] = []


@contextlib.contextmanager
def running(doing: str, context=None):
    """``with running(doing, context) as job``: the main-thread :class:`Job` of a long operation. Inside another
    one (an export that regenerates first) it is that job, so the status bar shows one job and one cancel
    stops it all; else a new one, its progress begun and ended here."""
    if RUNNING:
        yield RUNNING[-1]
        return
    job = Job(doing, context)
    RUNNING.append(job)
    try:
        with job:
            yield job
            job.show(1.0)  # done (not after an error or a cancel)
    finally:
        RUNNING.remove(job)


def status_progress(wm):
    """A ``progress(done, total)`` callback moving ``wm``'s progress; kept for callers outside the add-on.
    ``None`` without a window manager. (The add-on's own jobs use :class:`Job`.)"""
    if wm is None:
        return None

    def progress(done: int, total: int) -> bool:
        wm.progress_update(min(PROGRESS_STEPS - 1, (PROGRESS_STEPS - 1) * done // max(total, 1)))
        return True

    return progress


class BackgroundTask:
    """``work(progress)`` run in a worker thread (numpy only, no ``bpy``), reporting to ``job`` (a :class:`Job`,
    shown by its operator's timer), cancellable at its next progress report.

    ``start()`` runs it; ``fraction`` is its progress (0 to 1); ``cancel()`` (``job.cancel()``) makes the next
    report return ``False`` (core raises ``Cancelled``, nothing is returned); ``done()`` says whether the thread
    finished, and then ``result`` or ``error`` holds the outcome (``cancelled`` when it stopped). Nothing in
    Blender is touched by the thread: the operator writes ``result`` in the main thread, so a cancelled run
    leaves the scene as it was. A caller need not wait for a cancelled thread: its result is dropped.
    """

    def __init__(self, work, job: Job | None = None) -> None:
        self.work = work
        self.job = job or Job("Computing")
        self.result = None
        self.error: BaseException | None = None
        self.cancelled = False
        self._thread = threading.Thread(target=self._run, name="orogen-job", daemon=True)

    @property
    def fraction(self) -> float:
        return self.job.fraction

    def _run(self) -> None:
        try:
            result = self.work(self.job.progress)
        except Cancelled:
            self.cancelled = True
        except BaseException as err:  # noqa: BLE001  (handed to the main thread, which reports it)
            self.error = err
        else:
            if self.job.cancelled:  # cancelled after the last check
                self.cancelled = True
            else:
                self.result = result

    def start(self) -> "BackgroundTask":
        self._thread.start()
        return self

    def cancel(self) -> None:
        self.job.cancel()

    def done(self) -> bool:
        return not self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)


class BackgroundCompute(BackgroundTask):
    """A terrain computed in a worker thread (:func:`terrain.compute.compute_terrain`, cancellable between
    erosion steps): a :class:`BackgroundTask` whose result is ``arrays``."""

    def __init__(self, spec: TerrainSpec, sun, shape: tuple[int, int], job: Job | None = None, inputs=None) -> None:
        """``inputs``: the objects ``spec`` reads (:func:`..inputs.gather`, on the main thread, before this)."""
        self.spec, self.sun, self.shape = spec, sun, shape
        super().__init__(lambda progress: compute_terrain(spec, sun, shape, progress, inputs), job)

    @property
    def arrays(self) -> TerrainArrays | None:
        return self.result


#: Seconds between two looks of a modal operator at its background computation (its window timer).
POLL_SECONDS = 0.1


class BackgroundOperator:
    """Mixin for operators that compute in the background while they run modal (started from the UI): a terrain
    (:class:`BackgroundCompute`) or any :class:`BackgroundTask` (a world's tiles).

    :meth:`_begin` starts the task and a window timer; on each timer event :meth:`modal`
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
    #: ``(level, text)`` of the last report (the tests read it: Blender keeps an operator's reports to itself).
    last_report = None

    def _say(self, level: str, text: str) -> None:
        self.report({level}, text)
        self.last_report = (level, text)

    def _attach(self, context, compute: BackgroundTask, begin: bool = False) -> BackgroundTask:
        """Show ``compute``'s job in this operator's window (its status text and progress, from 0), then start it."""
        job = compute.job
        job.doing = self._doing
        job.wm = context.window_manager
        job.workspace = getattr(context, "workspace", None)
        if begin:
            job.begin()
        job.restart()
        job.show()
        self._started = time.perf_counter()
        return compute.start()

    def _begin(self, context, job: BackgroundTask) -> set[str]:
        self._job = self._attach(context, job, begin=True)
        self._timer = context.window_manager.event_timer_add(POLL_SECONDS, window=context.window)
        context.window_manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def _restart(self, context, job: BackgroundTask) -> None:
        """Compute ``job`` instead (the spec changed while the last one ran); the progress starts again."""
        if self._job is not None and self._job is not job:
            self._job.cancel()
        self._job = self._attach(context, job)

    def _end(self, context) -> None:
        """Remove the timer, the progress and the status text (once; Blender may call :meth:`cancel` later)."""
        if self._timer is None:
            return
        context.window_manager.event_timer_remove(self._timer)
        self._timer = None
        self._job.job.end()

    def modal(self, context, event):
        job = self._job
        if event.type == "ESC" and event.value == "PRESS":
            job.job.cancel()  # what a cancel from anywhere does (Job.cancel)
            self._end(context)
            return self._cancelled(context, by_user=True)
        if event.type != "TIMER" or self._timer is None:
            return {"PASS_THROUGH"}
        if not job.done():
            job.job.show()
            return {"PASS_THROUGH"}
        if job.cancelled:
            self._end(context)
            return self._cancelled(context, by_user=False)
        if job.error is not None:
            self._end(context)
            return self._failed(context, job.error)
        reason = self._wait_reason(context)
        if reason:
            job.job.status(f"{self._doing}: done, waiting: {reason} (Esc to cancel)")
            return {"PASS_THROUGH"}
        job.job.show(1.0)
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

    def _apply(self, context, job: BackgroundTask) -> set[str]:
        raise NotImplementedError

    def _cancelled(self, context, by_user: bool) -> set[str]:
        raise NotImplementedError
