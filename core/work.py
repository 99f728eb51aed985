"""How long a job will take, and the limit a user may set on it.

Every long computation (a recipe's filter stack, stream-power, thermal and
hydraulic erosion, the neighbourhood filters) counts its work up front in
*cell passes* (:func:`core.filters.filter_work`, :func:`core.erosion.step_work`):
one pass of simple whole-array arithmetic over one cell. :data:`WORK_PER_SECOND`
turns that into an estimate of the time on the reference machine (two shared
cores), which the add-on shows in its status bar and report and the scripts
print (:func:`describe_seconds`: "about 4 minutes").

Nothing is refused for its time alone unless the user sets a limit: the
environment variable :data:`WORK_LIMIT_ENV` (``OROGEN_WORK_LIMIT``, for
pipelines) or the add-on's *Work Limit* preference (:func:`set_preference_limit`).
The memory guard and the count bounds of each setting stay as they are.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass

__all__ = [
    "WORK_PER_SECOND",
    "REFERENCE_CELLS",
    "GROWTH",
    "WARN_SECONDS",
    "WORK_LIMIT_ENV",
    "PREFERENCE_NAME",
    "WorkLimit",
    "parse_seconds",
    "work_seconds",
    "describe_seconds",
    "set_preference_limit",
    "work_limit",
    "limit_work",
    "check_work_limit",
    "work_warning",
]

#: Cell passes one second does at :data:`REFERENCE_CELLS` on the reference machine (two cores): measured by
#: ``scripts/bench.py --scaling`` (docs/performance.md) on the slowest per pass, stream-power erosion (Eroded
#: Mountains at 1025²: 6.5e7 in CPU seconds on a shared machine, 8.4e7 on a quiet one). Thermal and hydraulic
#: erosion run 2 to 3 times faster per counted pass: their estimates err long.
WORK_PER_SECOND = 60_000_000
#: The map size :data:`WORK_PER_SECOND` holds at (1025², cells).
REFERENCE_CELLS = 1025 * 1025
#: How a cell pass slows as maps grow (the arrays leave the caches): seconds grow as work x
#: ``(cells / REFERENCE_CELLS) ** GROWTH``. Measured by the scaling table in CPU seconds: Eroded Mountains' time
#: per counted pass grows 1.2 times from 257² to 1025² (1.3 times on a quiet machine, 0.71 s to 15.0 s).
GROWTH = 0.1
#: Estimated times at or above this many seconds come with a warning ("about N minutes").
WARN_SECONDS = 10.0
#: The environment variable that limits the time of any one job, for pipelines (see :func:`parse_seconds`).
WORK_LIMIT_ENV = "OROGEN_WORK_LIMIT"
#: How messages name the add-on's preference.
PREFERENCE_NAME = "the Work Limit preference (Edit > Preferences > Add-ons > Orogen)"

_SECONDS = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?(?:[eE][+]?[0-9]+)?)\s*(s|sec|m|min|h|hr|d)?\s*$", re.IGNORECASE)
_UNIT = {"": 1.0, "s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "hr": 3600.0, "d": 86400.0}
_preference: float | None = None


@dataclass(frozen=True)
class WorkLimit:
    """A limit on the estimated time of one job: ``seconds`` (> 0), set by ``source`` (what messages name)."""

    seconds: float
    source: str

    def describe(self) -> str:
        """``"the limit of 5 minutes set by OROGEN_WORK_LIMIT"``."""
        return f"the limit of {describe_seconds(self.seconds, about=False)} set by {self.source}"


def parse_seconds(text: str, what: str) -> float:
    """A duration from text: ``600``, ``1e3``, ``90s``, ``30m``, ``30min``, ``1.5h``, ``2d``.

    A plain number (integer, decimal or exponent) is seconds, as a plain number
    is bytes for ``OROGEN_MEMORY_LIMIT`` (:func:`core.units.parse_bytes`);
    ``s``/``sec``, ``m``/``min``, ``h``/``hr`` and ``d`` are seconds, minutes,
    hours and days (any case).

    Parameters
    ----------
    text : str
        The text to read.
    what : str
        Its name for the message (``"OROGEN_WORK_LIMIT"``).

    Returns
    -------
    float
        Seconds, finite and above 0.

    Raises
    ------
    ValueError
        For anything else (negative, zero, NaN, unknown units), naming ``what`` and the forms accepted.
    """
    match = _SECONDS.match(text)
    forms = "seconds as a number (600, 1e3) or with s, min, h or d (90s, 30min, 1.5h)"
    if match is None:
        raise ValueError(f"{what} must be {forms}, got {text[:40]!r}")
    number, unit = match.groups()
    value = float(number) * _UNIT[(unit or "").lower()]
    if not math.isfinite(value) or value <= 0.0:
        raise ValueError(f"{what} must be above 0 seconds and finite, got {text[:40]!r}")
    return value


def work_seconds(work: float, cells: int = REFERENCE_CELLS) -> float:
    """Estimated seconds ``work`` cell passes over a map of ``cells`` cells take on the reference machine:
    ``work / WORK_PER_SECOND x (cells / REFERENCE_CELLS) ** GROWTH``."""
    return float(work) / WORK_PER_SECOND * _growth(cells)


def _growth(cells: int) -> float:
    ratio: float = max(int(cells), 1) / REFERENCE_CELLS
    return float(ratio**GROWTH)


def describe_seconds(seconds: float, *, about: bool = True) -> str:
    """A duration for people: ``"about 40 seconds"``, ``"about 3 minutes"``, ``"about 1.5 hours"``.

    Under two minutes in seconds, under two hours in minutes, else in hours
    (two significant figures); ``about=False`` leaves out "about".
    """
    if seconds < 120.0:
        text = f"{max(round(seconds), 1)} second" + ("" if max(round(seconds), 1) == 1 else "s")
    elif seconds < 7200.0:
        text = f"{round(seconds / 60.0)} minutes"
    else:
        text = f"{seconds / 3600.0:.2g} hours"
    return f"about {text}" if about else text


def set_preference_limit(seconds: float | None) -> None:
    """The add-on's Work Limit preference: ``seconds`` above 0, or ``None``/0 for no limit.

    Held for the process (the add-on's jobs run in threads of it) until set again.
    """
    global _preference
    if seconds is not None and not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds >= 0):
        raise ValueError(f"the work limit must be 0 (none) or a number of seconds above 0, got {seconds!r:.40}")
    _preference = float(seconds) if seconds else None


def work_limit() -> WorkLimit | None:
    """The limit in force: the smaller of :data:`WORK_LIMIT_ENV` and the preference, or ``None``.

    Raises
    ------
    ValueError
        If ``OROGEN_WORK_LIMIT`` is set to something that is not a duration (it is refused, never ignored).
    """
    limits = []
    text = os.environ.get(WORK_LIMIT_ENV, "")
    if text.strip():
        limits.append(WorkLimit(parse_seconds(text, WORK_LIMIT_ENV), WORK_LIMIT_ENV))
    if _preference is not None:
        limits.append(WorkLimit(_preference, PREFERENCE_NAME))
    return min(limits, key=lambda limit: limit.seconds) if limits else None


def limit_work(cells: int = REFERENCE_CELLS) -> int | None:
    """The most cell passes over a map of ``cells`` cells the limit in force allows (``None``: no limit)."""
    limit = work_limit()
    return None if limit is None else int(limit.seconds * WORK_PER_SECOND / _growth(cells))


def check_work_limit(
    work: float, what: str, advice: str = "use fewer steps or a smaller heightmap", *, cells: int = REFERENCE_CELLS
) -> float:
    """Refuse ``work`` cell passes over ``cells`` cells whose estimated time (:func:`work_seconds`) is over the limit
    in force; return the estimate in seconds.

    Raises
    ------
    ValueError
        Naming ``what``, the estimate, the limit and the setting that set it (``OROGEN_WORK_LIMIT`` or
        the preference).
    """
    seconds = work_seconds(work, cells)
    limit = work_limit()
    if limit is not None and seconds > limit.seconds:
        raise ValueError(
            f"{what}: {describe_seconds(seconds)} of work ({work:.3g} cell passes), more than {limit.describe()}: "
            f"{advice}, or raise the limit"
        )
    return seconds


def work_warning(work: float, what: str, *, cells: int = REFERENCE_CELLS) -> str | None:
    """``"<what> will take about 3 minutes"`` when the estimate (:func:`work_seconds`) is at least
    :data:`WARN_SECONDS`, else ``None``."""
    seconds = work_seconds(work, cells)
    if seconds < WARN_SECONDS:
        return None
    return f"{what} will take {describe_seconds(seconds)} ({work:.3g} cell passes)"
