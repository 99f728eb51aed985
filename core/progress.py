"""Progress and cancellation: one callback signature and one exception for every long job.

Every long job of the core (the erosion filters, a recipe's evaluation, a
world's tiles) reports its progress through one kind of callback,
``progress(done, total)`` with ``done`` and ``total`` ints (steps, or work
units of a whole evaluation), called after each completed unit. A callback
that returns ``False`` (exactly ``False``: ``None`` and other values go on)
asks the job to stop; the job then raises :class:`Cancelled`, whose ``result``
carries the partial result when the job has one (stream-power erosion's state
after its last completed step), ``None`` otherwise.

:func:`time_left` and :func:`progress_text` turn a fraction done and the time
elapsed into the figure the add-on's status bar shows; :class:`ProgressBar` is
the scripts' bar on standard error.

Every filter raises it the same way: stream-power, thermal and hydraulic
erosion carry their result after the last completed step. :mod:`core.catalog`'s
filter wrappers re-raise it without that result, which is in metres while a
recipe works in units of Height.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["Cancelled", "Progress", "ProgressBar", "check_progress", "progress_text", "time_left"]

#: ``progress(done, total)``: called after each unit of work; returning ``False`` cancels the job.
Progress = Callable[[int, int], object]


class Cancelled(Exception):
    """A long job's progress callback returned ``False``: the job stopped.

    Attributes
    ----------
    done, total : int or None
        The units of work completed, and the job's total, when known.
    result : object or None
        The partial result (the state after the last completed unit) when the job has one, else ``None``.
    """

    def __init__(self, message: str, *, done: int | None = None, total: int | None = None, result: object = None):
        super().__init__(message)
        self.done = done
        self.total = total
        self.result = result


def check_progress(progress: object, name: str = "progress") -> Progress | None:
    """``progress`` if it is callable or ``None``.

    Raises
    ------
    TypeError
        Naming ``name``, for anything else.
    """
    if progress is not None and not callable(progress):
        raise TypeError(f"{name} must be callable as {name}(done, total) or None, got {type(progress).__name__}")
    return progress


def time_left(fraction: float, elapsed: float) -> float | None:
    """Seconds left of a job ``fraction`` done (0 to 1) after ``elapsed`` seconds, assuming it goes on at the
    rate it went so far: ``elapsed * (1 - fraction) / fraction``.

    Returns ``None`` while nothing is done (``fraction <= 0``) or for a non-finite input; ``0.0`` once done.
    """
    if not (math.isfinite(fraction) and math.isfinite(elapsed)) or fraction <= 0.0:
        return None
    if fraction >= 1.0:
        return 0.0
    return max(0.0, elapsed) * (1.0 - fraction) / fraction


def _duration(seconds: float) -> str:
    whole = int(math.ceil(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole // 60 % 60:02d} min"


def progress_text(fraction: float, elapsed: float) -> str:
    """``"42 %, 1 min 03 s left"``: the percentage done (floored, 0 to 100) and :func:`time_left` (rounded up),
    or ``"0 %, time left unknown"`` while nothing is done."""
    fraction = min(max(fraction, 0.0), 1.0) if math.isfinite(fraction) else 0.0
    left = time_left(fraction, elapsed)
    tail = "time left unknown" if left is None else f"{_duration(left)} left"
    return f"{math.floor(100 * fraction + 1e-9)} %, {tail}"


class ProgressBar:
    """A ``progress(done, total)`` callback showing a job's progress on ``stream`` (standard error by default).

    On a terminal (``stream.isatty()``) one line redrawn in place, ``LABEL [#####.....] 42 %, 3 s left``;
    otherwise a plain line each time another ``step`` percent is done (and at 100 %), for logs. The fraction
    shown never goes back. :meth:`close` ends the terminal's line. It never cancels (returns ``True``).
    """

    def __init__(self, label: str, stream: TextIO | None = None, *, step: int = 5, width: int = 30) -> None:
        self.label = label
        self.stream = sys.stderr if stream is None else stream
        self.step, self.width = max(1, step), width
        self.fraction = 0.0
        self._started = time.perf_counter()
        self._last = -1  # the last percentage written
        self._open = False
        isatty = getattr(self.stream, "isatty", None)
        self.terminal = bool(isatty and isatty())

    def __call__(self, done: int, total: int) -> bool:
        self.fraction = max(self.fraction, min(1.0, done / total if total > 0 else 1.0))
        percent = math.floor(100 * self.fraction + 1e-9)
        text = progress_text(self.fraction, time.perf_counter() - self._started)
        if self.terminal:
            filled = round(self.width * self.fraction)
            self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (self.width - filled)}] {text}\x1b[K")
            self._open = True
        elif percent >= 100 > self._last or percent // self.step > self._last // self.step:
            self.stream.write(f"{self.label}: {text}\n")
        else:
            return True
        self._last = percent
        self.stream.flush()
        return True

    def close(self) -> None:
        """End the terminal's line (nothing to do for plain lines)."""
        if self._open:
            self.stream.write("\n")
            self.stream.flush()
            self._open = False
