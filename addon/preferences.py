"""The extension's preferences (Edit > Preferences > Add-ons > Orogen): the Work Limit.

A terrain of any size the panel offers is made, however long it takes (with its estimated time shown when long,
:mod:`core.work`); the *Work Limit* refuses, before anything runs, a job whose estimated time is over it. It reaches
core through :func:`core.work.set_preference_limit` when it changes, when the extension is enabled and before each
job (:func:`sync`). ``OROGEN_WORK_LIMIT`` (for pipelines) applies as well; the smaller of the two wins.
"""

import threading

import bpy

from ..core.work import WORK_LIMIT_ENV, set_preference_limit

#: The extension's package (``bl_ext.user_default.orogen``): what its preferences are registered under.
PACKAGE = __package__.rpartition(".")[0]


def _on_update(prefs, _context) -> None:
    set_preference_limit(prefs.work_limit)


class OrogenPreferences(bpy.types.AddonPreferences):
    bl_idname = PACKAGE

    work_limit: bpy.props.FloatProperty(
        name="Work Limit",
        description=(
            "Refuse, before it starts, a terrain whose computation is estimated to take longer than this "
            f"(0: no limit; {WORK_LIMIT_ENV} in the environment applies as well, the smaller wins)"
        ),
        unit="TIME_ABSOLUTE",
        min=0.0,
        max=7 * 86400.0,
        soft_max=4 * 3600.0,
        step=6000,
        default=0.0,
        update=_on_update,
    )

    def draw(self, _context):
        layout = self.layout
        layout.prop(self, "work_limit")
        layout.label(text="Long terrains show their estimated time; 0 lets every one run (Esc cancels).")


def preferences() -> OrogenPreferences | None:
    """The extension's preferences, or ``None`` if it is not enabled."""
    addon = bpy.context.preferences.addons.get(PACKAGE)
    return None if addon is None else addon.preferences


def sync() -> None:
    """Hand the Work Limit preference to core (:func:`core.work.set_preference_limit`); nothing if not enabled, or
    off the main thread (a job's worker never touches ``bpy``: the operator that started it synced first)."""
    if threading.current_thread() is not threading.main_thread():
        return
    prefs = preferences()
    if prefs is not None:
        set_preference_limit(prefs.work_limit)


def register() -> None:
    bpy.utils.register_class(OrogenPreferences)
    sync()


def unregister() -> None:
    bpy.utils.unregister_class(OrogenPreferences)
    set_preference_limit(None)
