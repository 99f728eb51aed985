"""The Realism Report: the operator on a preset terrain, and scripts/terrain_report.py on exported files."""

import json
import subprocess
import sys
from pathlib import Path

import bpy
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_operator_stores_core_geomorph_report_of_the_terrain(scene, orogen):
    assert bpy.ops.orogen.preset_load(name="eroded_mountains") == {"FINISHED"}
    scene.orogen.size = 65
    assert bpy.ops.orogen.terrain_generate() == {"FINISHED"}
    obj = bpy.context.active_object
    ops = orogen.addon.ops.report
    assert ops.stored_report(obj) is None
    assert bpy.ops.orogen.realism_report() == {"FINISHED"}
    stored = ops.stored_report(obj)
    metres, cell, sea = ops.terrain_metres(obj)
    assert metres.shape == (65, 65) and sea is not None  # the preset's water is its sea
    info = json.loads(obj["orogen_terrain"])
    expected = orogen.core.geomorph.report(metres, cell, sea_level=sea).to_dict()
    assert stored == expected
    assert cell == pytest.approx(info["width"] / 64)
    assert set(stored["measures"]) == set(orogen.core.geomorph.REAL_RANGES)
    # The panel draws it; the numbers go stale once the heights change.
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    co[2::3] += np.linspace(0, 5, len(obj.data.vertices), dtype=np.float32)
    obj.data.vertices.foreach_set("co", co)
    obj.data.update()
    assert ops.stored_report(obj) is None


def test_the_operator_needs_a_selected_terrain(scene):
    bpy.ops.object.select_all(action="DESELECT")
    with pytest.raises(RuntimeError, match="Select a terrain"):
        bpy.ops.orogen.realism_report()


def run(*args):
    return subprocess.run([sys.executable, *map(str, args)], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_terrain_report_reads_exported_npy_exr_and_png(tmp_path):
    proc = run(
        ROOT / "scripts" / "export_heightmaps.py",
        "--preset",
        "eroded_mountains",
        "--size",
        "65",
        "--format",
        "NPY,EXR,PNG16",
        "--maps",
        "none",
        "--output-dir",
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    sys.path.insert(0, str(ROOT))
    from core import geomorph
    from core.presets import preset_spec

    spec = preset_spec("eroded_mountains").replace(size=65)
    z = spec.heightmap().astype(np.float64) * np.float32(spec.height)
    expected = geomorph.report(z, spec.cell_size)
    reports = {}
    for suffix in ("npy", "exr", "png"):
        proc = run(ROOT / "scripts" / "terrain_report.py", tmp_path / f"terrain_height.{suffix}")
        assert proc.returncode == 0, proc.stderr
        reports[suffix] = json.loads(proc.stdout)
        assert reports[suffix]["shape"] == [65, 65]
        assert reports[suffix]["cell_size_m"] == pytest.approx(spec.cell_size)
    for name in ("hypsometric_integral", "median_slope_deg", "closed_depression_share"):
        for suffix in ("npy", "exr"):
            assert reports[suffix]["measures"][name]["value"] == pytest.approx(
                expected.measure(name).value, rel=1e-6, abs=1e-9
            )
        # 16-bit levels: within a level's step (1500 m / 65535) of the metres
        assert reports["png"]["measures"][name]["value"] == pytest.approx(expected.measure(name).value, rel=1e-2)
    proc = run(ROOT / "scripts" / "terrain_report.py", tmp_path / "terrain_height.npy", "--cell", "0")
    assert proc.returncode == 1 and "cell_size" in proc.stderr
