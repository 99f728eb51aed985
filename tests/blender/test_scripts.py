"""The headless scripts, run as a pipeline would run them."""

import json
import subprocess
import sys
from pathlib import Path

import bpy
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args, **kw):
    return subprocess.run([sys.executable, *map(str, args)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, **kw)


def test_render_terrain_writes_the_picture_and_the_blend(tmp_path):
    out, blend = tmp_path / "t.png", tmp_path / "t.blend"
    proc = run(ROOT / "scripts" / "render_terrain.py", "--size", "33", "--resolution", "48", "32",
               "--samples", "2", "--output", out, "--blend", blend)
    assert proc.returncode == 0, proc.stderr
    image = bpy.data.images.load(str(out))
    try:
        assert tuple(image.size) == (48, 32)
        pixels = np.empty(48 * 32 * 4, dtype=np.float32)
        image.pixels.foreach_get(pixels)
        assert pixels.reshape(-1, 4)[:, :3].std() > 0.02  # a picture, not a flat colour
    finally:
        bpy.data.images.remove(image)
    assert blend.stat().st_size > 10_000


def test_render_terrain_reads_a_recipe(tmp_path):
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps({"generator": "diamond_square", "seed": 2, "shape": [20, 30]}))
    proc = run(ROOT / "scripts" / "render_terrain.py", "--recipe", recipe, "--resolution", "16", "16",
               "--samples", "1", "--output", tmp_path / "r.png", "--blend", tmp_path / "r.blend")
    assert proc.returncode == 0, proc.stderr
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "r.blend"))
    terrain = bpy.data.objects["Terrain"]
    assert len(terrain.data.vertices) == 600
    assert json.loads(terrain["orogen_recipe"])["generator"] == "diamond_square"
    bpy.ops.wm.read_homefile(use_empty=True)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--resolution", "0", "0"], "--resolution must be at least 4"),
        (["--samples", "0"], "--samples must be at least 1"),
        (["--seed", "2147483648"], "--seed must be in"),
        (["--altitude", "nan"], "--altitude in"),
        (["--output", "out/terrain.jpg"], "--output must be a .png file path"),
        (["--radius", "40", "8"], "Radius Min (40) must not exceed Radius Max (8)"),
    ],
)
def test_render_terrain_refuses_bad_arguments_with_a_message(args, message, tmp_path):
    proc = run(ROOT / "scripts" / "render_terrain.py", "--size", "9", "--resolution", "8", "8",
               "--samples", "1", "--output", tmp_path / "x.png", *args)
    assert proc.returncode != 0
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "x.png").exists()


def test_bench_quick_run_writes_every_case(tmp_path):
    out = tmp_path / "bench.json"
    proc = run(ROOT / "scripts" / "bench.py", "--quick", "--no-blender", "--json", out)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    cases = {r["case"] for r in data["generators"]}
    assert {"hills (defaults)", "faults (defaults)", "diamond_square (defaults)", "noise (defaults)"} <= cases
    assert all(r["seconds"] > 0 and r["peak_bytes"] > 0 for r in data["generators"])
    assert len(data["references"]) == 6 and all(r["speedup"] > 0 for r in data["references"])
