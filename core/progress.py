"""Progress and cancellation: one callback signature and one exception for every long job.

Every long job of the core (the erosion filters, a recipe's evaluation, a
world's tiles) reports its progress through one kind of callback,
``progress(done, total)`` with ``done`` and ``total`` ints (steps, or work
units of a whole evaluation), called after each completed unit. A callback
that returns ``False`` (exactly ``False``: ``None`` and other values go on)
asks the job to stop; the job then raises :class:`Cancelled`, whose ``result``
carries the partial result when the job has one (stream-power erosion's state
after its last completed step), ``None`` otherwise.

Every filter raises it the same way: stream-power, thermal and hydraulic
erosion carry their result after the last completed step. :mod:`core.catalog`'s
filter wrappers re-raise it without that result, which is in metres while a
recipe works in units of Height.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["Cancelled", "Progress", "check_progress"]

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
