"""Whether a filter of the stack changed the terrain's scale: :class:`ScaleChangeWarning`.

A filter that multiplies or divides the relief (highest minus lowest height, in metres) by more than
:data:`SCALE_FACTOR` has most likely been given settings that do not fit the terrain (600 m of stream-power
uplift on a 20 m terrain). The filter stack (:meth:`core.recipe.Recipe.evaluate` and the other whole-world
runs) calls :func:`check_scale_change` after each filter; filters whose purpose is to change the relief
(:attr:`core.params.Filter.changes_scale`: the sea level) are not checked, nor are stacks whose heights are
fitted to Height afterwards (``fit_height``: the terrain's scale is then Height whatever the filters do), nor
a tile's window (the whole world is checked once).
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np
import numpy.typing as npt

from .params import FILTERS

__all__ = ["SCALE_FACTOR", "ScaleChangeWarning", "relief", "check_scale_change", "scale_setting", "scale_notes"]

#: How far a filter may change the relief, up or down, before the stack warns.
SCALE_FACTOR = 2.0


class ScaleChangeWarning(UserWarning):
    """A filter of the stack changed the relief by more than :data:`SCALE_FACTOR` up or down.

    Attributes: ``key`` (the filter's type), ``index`` (its position in the stack, from 0), ``before`` and
    ``after`` (the relief in metres) and ``setting`` (the setting most likely responsible, as text).
    """

    def __init__(self, message: str, *, key: str, index: int, before: float, after: float, setting: str) -> None:
        super().__init__(message)
        self.key, self.index, self.before, self.after, self.setting = key, index, before, after, setting


_COLLECTING = threading.local()


@contextmanager
def scale_notes() -> Iterator[list[ScaleChangeWarning]]:
    """Collect the :class:`ScaleChangeWarning` of the stacks run in this thread into the list it yields, instead
    of issuing them (``warnings.catch_warnings`` is not thread-safe: the add-on computes in a worker thread)."""
    previous = getattr(_COLLECTING, "notes", None)
    notes: list[ScaleChangeWarning] = []
    _COLLECTING.notes = notes
    try:
        yield notes
    finally:
        _COLLECTING.notes = previous


def relief(heightmap: npt.NDArray[np.floating[Any]], height: float) -> float:
    """Highest minus lowest height of a normalised heightmap, in metres (``height`` metres per unit)."""
    return (float(heightmap.max()) - float(heightmap.min())) * float(height)


def scale_setting(key: str, params: Mapping[str, Any], height: float) -> str:
    """The setting of filter ``key`` most likely responsible for a change of scale, as text.

    The stream-power filter: its uplift over the run (``uplift x dt x steps`` metres) against Height; a
    hydraulic filter: its depth scale; a blur or low-pass: its length; otherwise its settings in general.
    """
    if key == "erosion":
        total = float(params["uplift"]) * float(params["dt"]) * int(params["steps"])
        return (
            f"Uplift x Time Step x Steps = {float(params['uplift']):g} m/yr x {float(params['dt']):g} yr x "
            f"{int(params['steps'])} = {total:.4g} m of uplift against the terrain's Height of {height:g} m "
            "(lower Uplift, or add the filter again to have it fitted)"
        )
    if key == "hydraulic":
        return f"Depth Scale {float(params['depth_scale']):g} m against the terrain's Height of {height:g} m"
    for name in ("radius", "length"):
        if name in params:
            return f"{name.capitalize()} {float(params[name]):g} m"
    return "its settings"


def check_scale_change(
    key: str,
    *,
    index: int,
    params: Mapping[str, Any],
    before: float,
    after: npt.NDArray[np.floating[Any]],
    height: float,
) -> None:
    """Warn (:class:`ScaleChangeWarning`) when filter ``index`` of type ``key`` changed the relief ``before`` (metres,
    :func:`relief`) into that of ``after`` (normalised heights, ``height`` metres per unit) by more than
    :data:`SCALE_FACTOR`.

    Nothing for a flat ``before`` or ``after`` of no relief at all (nothing to compare), a zero ``height`` or a
    filter with :attr:`core.params.Filter.changes_scale`.
    """
    f = FILTERS.get(key)
    if f is None or f.changes_scale or height <= 0.0:
        return
    b, a = float(before), relief(after, height)
    if b <= 0.0 or b / SCALE_FACTOR <= a <= SCALE_FACTOR * b:
        return
    setting = scale_setting(key, params, height)
    note = ScaleChangeWarning(
        f"filter {index + 1} ({f.label}) changes the relief from {b:.3g} m to {a:.3g} m ({a / b:.2g}x): {setting}",
        key=key,
        index=index,
        before=b,
        after=a,
        setting=setting,
    )
    collecting = getattr(_COLLECTING, "notes", None)
    if collecting is not None:
        collecting.append(note)
    else:
        warnings.warn(note, stacklevel=3)
