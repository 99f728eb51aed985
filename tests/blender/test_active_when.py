"""Settings that do nothing under the current choices: the panel greys them out and says why, ``set=`` and
``--set`` of one say so (a note, not an error)."""

import subprocess
import sys
from pathlib import Path

import bpy
import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_set_of_a_setting_without_effect_is_reported_and_the_terrain_added(scene, orogen, capfd):
    before = len(bpy.data.objects)
    assert bpy.ops.orogen.terrain_add(size=17, set="hills.count=4; lighting.mode=hillshade; lighting.softness=3") == {
        "FINISHED"
    }
    assert len(bpy.data.objects) == before + 1
    out = capfd.readouterr()
    assert "lighting.softness has no effect: acts only when Lightmap is on and Lighting is Slope" in out.out + out.err
    assert "hills.count has no effect" not in out.out + out.err


def test_tiles_add_reports_a_set_without_effect(scene, orogen, capfd):
    assert bpy.ops.orogen.tiles_add(size=9, tiles_x=1, tiles_y=1, set="lighting.enabled=false; lighting.ao=true") == {
        "FINISHED"
    }
    out = capfd.readouterr()
    assert "lighting.ao has no effect: acts only when Lightmap is on" in out.out + out.err


def test_apply_settings_warns_and_still_applies(orogen):
    spec = orogen.core.spec.TerrainSpec(generator="hills", filters=(("erosion", {}),))
    with pytest.warns(orogen.core.spec.InactiveSettingWarning, match="erosion.channel_width has no effect"):
        out = orogen.core.spec.apply_settings(spec, ["channel_width=3"])
    assert out.filters[0].params["channel_width"] == 3.0  # applied all the same


@pytest.mark.parametrize("script", ["render_terrain.py", "export_heightmaps.py"])
def test_scripts_note_a_set_without_effect_and_carry_on(tmp_path, script):
    args = ["--preset", "river_valleys", "--size", "17", "--set", "channel_width=3", "--set", "seed=2"]
    if script == "render_terrain.py":
        args += ["--resolution", "16", "16", "--samples", "1", "--output", str(tmp_path / "t.png")]
    else:
        args += ["--format", "R16", "--output-dir", str(tmp_path / "out")]
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    note = "note: erosion.channel_width has no effect: acts only when Automatic K and D is off"
    assert proc.stderr.count(note) == 1, proc.stderr
    assert "note: " not in proc.stderr.replace(note, "")  # seed acts: no note for it
