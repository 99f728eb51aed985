"""The Realism Report operator: :func:`core.geomorph.report` of the selected terrain's heights.

It changes no data (no undo step): the report is kept in this module, per object (its ``session_uid``), for the
panel to draw and for scripts (:func:`stored_report`); a report of heights that have since changed is dropped.
"""

import json

import bpy
import numpy as np

from ...core import geomorph
from ...core.lighting import cell_size
from ..io import heightmaps
from ..mesh import TERRAIN_PROPERTY
from ..poll import export_reason, poll_with, selected_active

_REPORTS: dict[int, tuple[int, dict]] = {}


def terrain_metres(obj: bpy.types.Object) -> tuple[np.ndarray, float, float | None]:
    """The terrain's heights as the mesh holds them, metres above its Z = 0 (float64), its cell size in metres,
    and its sea level in metres (its water's level when the water is on, else ``None``)."""
    info = json.loads(obj[TERRAIN_PROPERTY])
    h, (low, high), _ = heightmaps.mesh_heights(obj)
    metres = h.astype(np.float64) * (high - low)
    material = obj.orogen.material
    sea = float(material.water_level) if obj.orogen.is_terrain and material.water else None
    return metres, cell_size(tuple(info["shape"]), info["width"]), sea


def _version(metres: np.ndarray) -> int:
    return hash(metres.tobytes())


def stored_report(obj: bpy.types.Object) -> dict | None:
    """The last report of ``obj`` (:meth:`core.geomorph.Report.to_dict`), or ``None`` if none or its heights
    have changed since."""
    found = _REPORTS.get(obj.session_uid)
    if found is None:
        return None
    try:
        metres = terrain_metres(obj)[0]
    except (ValueError, KeyError):
        return None
    return found[1] if found[0] == _version(metres) else None


class OROGEN_OT_realism_report(bpy.types.Operator):
    """Measure the selected terrain as geomorphologists measure real landscapes, each number beside the range
    real terrain shows"""

    bl_idname = "orogen.realism_report"
    bl_label = "Realism Report"
    bl_options = {"REGISTER"}

    @classmethod
    def poll(cls, context):
        return poll_with(cls, export_reason(context))

    def execute(self, context):
        obj = selected_active(context)
        try:
            metres, cell, sea = terrain_metres(obj)
            report = geomorph.report(metres, cell, sea_level=sea)
        except ValueError as err:
            self.report({"ERROR"}, str(err))
            return {"CANCELLED"}
        _REPORTS[obj.session_uid] = (_version(metres), report.to_dict())
        self.report({"INFO"}, f"{report.real_like} of {len(report.measures)} measures real-like")
        return {"FINISHED"}


def draw_report(layout, obj) -> None:
    """The Realism Report sub-panel's content: the button, then each measure's verdict in plain words."""
    layout.operator(OROGEN_OT_realism_report.bl_idname, icon="INFO")
    data = stored_report(obj) if obj is not None else None
    if data is None:
        return
    col = layout.column(align=True)
    for measure in data["measures"].values():
        icon = "CHECKMARK" if measure["verdict"] == "real-like" else "ERROR"
        col.label(text=measure["text"], icon=icon)
    shares = sorted(data["geomorphons"].items(), key=lambda kv: -kv[1])[:4]
    col.label(text="Landforms: " + ", ".join(f"{name} {100 * s:.0f} %" for name, s in shares))


classes = (OROGEN_OT_realism_report,)

register, unregister = bpy.utils.register_classes_factory(classes)
