"""The Work Limit in Blender: every preset at every size the panel offers passes the add-on's
checks, a long job shows its estimated time, and only the user's limit (the preference or OROGEN_WORK_LIMIT)
refuses one, naming itself, before anything is added.

Modal jobs are driven by hand as in ``test_background_ops.py`` (headless Blender has no event loop).
"""

import bpy
import pytest

MODULE = "bl_ext.user_default.orogen"


class Event:
    def __init__(self, type, value="NOTHING"):
        self.type, self.value = type, value


@pytest.fixture
def prefs(orogen, monkeypatch):
    monkeypatch.delenv("OROGEN_WORK_LIMIT", raising=False)
    prefs = bpy.context.preferences.addons[MODULE].preferences
    yield prefs
    prefs.work_limit = 0.0


def preset_json(orogen, name, size):
    return orogen.core.presets.preset_spec(name).replace(size=size).to_json()


def test_the_preference_is_declared_with_bounds_unit_and_description(prefs):
    rna = prefs.bl_rna.properties["work_limit"]
    assert (rna.name, rna.unit, rna.default) == ("Work Limit", "TIME_ABSOLUTE", 0.0)
    assert (rna.hard_min, rna.hard_max, rna.soft_max) == (0.0, 7 * 86400.0, 4 * 3600.0)
    assert "0: no limit" in rna.description and "OROGEN_WORK_LIMIT" in rna.description
    prefs.work_limit = -5.0
    assert prefs.work_limit == 0.0  # clamped to its bound


def test_every_preset_at_every_panel_size_passes_the_add_ons_checks(orogen, prefs):
    compute = orogen.addon.terrain.compute
    for name in orogen.core.presets.PRESETS:
        for size in orogen.addon.ui.sizes.ENGINE_SIZES:
            spec = orogen.core.presets.preset_spec(name).replace(size=size)
            compute.check_size(size, size, spec)  # no compute: the grid, the memory guard and the work checks
    note = compute.work_note(orogen.core.presets.preset_spec("river_valleys").replace(size=4097))
    assert note.startswith("a 4097 x 4097 terrain's filters will take about ") and " minutes (" in note


def test_the_preference_reaches_the_check_and_refuses_naming_itself(orogen, prefs, scene):
    work = orogen.core.work
    spec = preset_json(orogen, "eroded_mountains", 1025)  # about 20 s estimated
    prefs.work_limit = 10.0
    assert work.work_limit() == work.WorkLimit(10.0, work.PREFERENCE_NAME)
    work.set_preference_limit(None)  # as if core had lost it: each job reads the preference again
    before = len(bpy.data.objects)
    with pytest.raises(
        RuntimeError,
        match=r"Terrain not added: erosion.steps: \d+ over 1025 x 1025 cells \(filters\[0\] 'erosion'\): about \d+ "
        r"seconds of work .* more than the limit of 10 seconds set by the Work Limit preference \(Edit > "
        r"Preferences > Add-ons > Orogen\): at this size erosion.steps must be at most \d+ ",
    ):
        bpy.ops.orogen.terrain_add(spec=spec)
    assert len(bpy.data.objects) == before
    prefs.work_limit = 0.0
    assert work.work_limit() is None
    orogen.addon.terrain.compute.check_size(1025, 1025, orogen.core.spec.TerrainSpec.from_json(spec))


def test_the_environment_limit_refuses_in_blender_too(orogen, prefs, scene, monkeypatch):
    monkeypatch.setenv("OROGEN_WORK_LIMIT", "15s")
    prefs.work_limit = 3600.0  # the smaller limit wins
    before = len(bpy.data.objects)
    with pytest.raises(RuntimeError, match=r"more than the limit of 15 seconds set by OROGEN_WORK_LIMIT"):
        bpy.ops.orogen.terrain_add(spec=preset_json(orogen, "scree_slopes", 1025))
    monkeypatch.setenv("OROGEN_WORK_LIMIT", "soon")
    with pytest.raises(RuntimeError, match=r"OROGEN_WORK_LIMIT must be seconds as a number"):
        bpy.ops.orogen.terrain_add(size=33)
    assert len(bpy.data.objects) == before


def test_a_long_job_shows_its_estimated_time_and_esc_still_cancels(orogen, prefs, scene, monkeypatch):
    cls = orogen.addon.ops.terrain.OROGEN_OT_terrain_add
    started, contexts = [], {}

    def execute(self, context):  # as from the UI: invoke, then the test sends the events
        started.append(self)
        contexts[self.as_pointer()] = context
        return cls.invoke(self, context, Event("NONE"))

    monkeypatch.setattr(cls, "execute", execute)
    before = len(bpy.data.objects)
    assert bpy.ops.orogen.terrain_add(spec=preset_json(orogen, "eroded_mountains", 2049)) == {"RUNNING_MODAL"}
    op = started[0]
    assert op._doing.startswith("Adding terrain (about ") and op._doing.endswith((" seconds)", " minutes)"))
    job = op._job
    assert op.modal(contexts[op.as_pointer()], Event("ESC", "PRESS")) == {"CANCELLED"}
    job.join(60.0)  # it stops at its next check
    assert job.done() and job.cancelled and job.arrays is None
    assert len(bpy.data.objects) == before


def test_the_scripts_print_the_estimate_and_refuse_past_the_environment_limit(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    script = root / "scripts" / "export_heightmaps.py"
    argv = [sys.executable, str(script), "--preset", "river_valleys", "--size", "1025", "--output-dir", str(tmp_path)]
    env = {**os.environ, "OROGEN_WORK_LIMIT": "1min"}
    proc = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "more than the limit of 60 seconds set by OROGEN_WORK_LIMIT" in proc.stderr
    assert not any(tmp_path.iterdir())  # refused before anything was computed or written
    # within the limit it says how long it will take (and is stopped here: the estimate comes before any work)
    env["OROGEN_WORK_LIMIT"] = "1h"
    proc = subprocess.Popen(
        argv[:-2] + ["--output-dir", str(tmp_path)], cwd=root, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        for line in proc.stderr:
            if line.startswith("note: a 1025 x 1025 terrain's filters will take about "):
                break
        else:
            raise AssertionError("no estimate printed")
    finally:
        proc.kill()
        proc.wait()
