"""The headless scripts, run as a pipeline would run them."""

import json
import subprocess
import sys
from pathlib import Path

import bpy
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


#: A spec holds any 64-bit seed, as core does.
TOO_BIG_SEED = f"seed must be in [0, {2**64 - 1}], got {2**64}"


def run(*args, **kw):
    return subprocess.run(
        [sys.executable, *map(str, args)], cwd=ROOT, capture_output=True, text=True, timeout=300, **kw
    )


def test_render_terrain_writes_the_picture_and_the_blend(tmp_path):
    out, blend = tmp_path / "t.png", tmp_path / "t.blend"
    proc = run(
        ROOT / "scripts" / "render_terrain.py",
        "--size",
        "33",
        "--resolution",
        "48",
        "32",
        "--samples",
        "2",
        "--output",
        out,
        "--blend",
        blend,
    )
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


def test_render_terrain_lights_the_terrain_from_the_specs_sun(tmp_path):
    """--set lighting.azimuth is the baked light's and the sun lamp's direction (nothing overrides it)."""
    blend = tmp_path / "t.blend"
    proc = run(
        "-c",
        "import sys, runpy; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')",
        ROOT / "scripts" / "render_terrain.py",
        "--size",
        "17",
        "--resolution",
        "8",
        "8",
        "--samples",
        "1",
        "--set",
        "lighting.azimuth=200",
        "--set",
        "lighting.altitude=25",
        "--output",
        tmp_path / "t.png",
        "--blend",
        blend,
    )
    assert proc.returncode == 0, proc.stderr
    check = (
        "import bpy, math, sys; sys.path.insert(0, sys.argv[2]); from render_terrain import load_orogen; "
        "o = load_orogen(); bpy.ops.wm.open_mainfile(filepath=sys.argv[1]); "
        "t = next(x for x in bpy.data.objects if x.type == 'MESH' and 'orogen_terrain' in x); "
        "sun = next(x for x in bpy.data.objects if x.type == 'LIGHT'); "
        "print(o.addon.specio.read_spec(t.orogen).lighting['azimuth'], "
        "o.addon.terrain.compute.scene_sun(bpy.context.scene))"
    )
    out = run("-c", check, blend, ROOT / "scripts")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "200.0 (200.0, 25.0)"


@pytest.mark.parametrize(
    ("view", "objects"),
    [
        ([], {"Camera", "Haze", "Terrain Surround 1", "Terrain Surround Ground"}),
        (["--view", "diorama"], {"Camera", "Terrain Base"}),
        (["--view", "OBLIQUE"], {"Camera", "Terrain Base"}),
        (["--view", "top"], {"Camera"}),
    ],
)
def test_render_terrain_stages_the_view_it_is_asked_for(view, objects, tmp_path):
    """The landscape by default (camera, haze, the terrain's mirror images and the ground beyond), the block on
    its plinth as DIORAMA or its old name OBLIQUE, in any case; the top view with neither."""
    blend = tmp_path / "t.blend"
    proc = run(
        ROOT / "scripts" / "render_terrain.py",
        *("--size", "9", "--resolution", "8", "8", "--samples", "1", "--output", tmp_path / "t.png"),
        *("--blend", blend, *view),
    )
    assert proc.returncode == 0, proc.stderr
    check = (
        "import bpy, json, sys; bpy.ops.wm.open_mainfile(filepath=sys.argv[1]); "
        "print(json.dumps([o.name for o in bpy.data.objects]))"
    )
    out = run("-c", check, blend)
    assert out.returncode == 0, out.stderr
    names = set(json.loads(out.stdout.strip().splitlines()[-1]))
    assert objects <= names
    assert ("Haze" in names) == ("Haze" in objects) and ("Terrain Base" in names) == ("Terrain Base" in objects)


@pytest.mark.parametrize("flag, kinds", [([], ["Orogen Boulders"]), (["--no-scatter"], [])])
def test_render_terrain_scatters_a_built_in_presets_trees_and_rocks(flag, kinds, tmp_path):
    """A built-in preset renders with the scatter it carries (core.presets), unless asked not to."""
    blend = tmp_path / "t.blend"
    proc = run(
        ROOT / "scripts" / "render_terrain.py",
        *("--preset", "scree_slopes", "--size", "33", "--resolution", "8", "8", "--samples", "1"),
        *("--output", tmp_path / "t.png", "--blend", blend, *flag),
    )
    assert proc.returncode == 0, proc.stderr
    check = (
        "import bpy, json, sys; bpy.ops.wm.open_mainfile(filepath=sys.argv[1]); "
        "print(json.dumps([m.name for o in bpy.data.objects if o.name == 'Terrain' for m in o.modifiers "
        "if m.type == 'NODES']))"
    )
    out = run("-c", check, blend)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == kinds


# What ``blender -b -P SCRIPT -- ARGS`` does to a script, done with the bpy module (no Blender
# binary of 4.2+ is installable here): Blender's own flags in sys.argv before "--", the script run
# as __main__ with __file__ set, and neither the script's folder nor the working folder on sys.path.
AS_BLENDER_P = """
import runpy, sys
script, args = sys.argv[1], sys.argv[2:]
sys.path[:] = [p for p in sys.path if p not in ("", ".") and not p.endswith("scripts")]
import bpy
sys.argv = [bpy.app.binary_path or "blender", "-b", "--factory-startup", "-P", script, "--", *args]
runpy.run_path(script, run_name="__main__")
"""


def test_scripts_run_as_blender_b_p_would_run_them(tmp_path):
    out = tmp_path / "t.png"
    proc = run(
        "-c",
        AS_BLENDER_P,
        ROOT / "scripts" / "render_terrain.py",
        "--size",
        "17",
        "--seed",
        "3",
        "--resolution",
        "24",
        "16",
        "--samples",
        "1",
        "--output",
        out,
        "--blend",
        tmp_path / "t.blend",
    )
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 100
    proc = run(
        "-c",
        AS_BLENDER_P,
        ROOT / "scripts" / "export_heightmaps.py",
        "--preset",
        "island",
        "--size",
        "17",
        "--format",
        "NPY",
        "--maps",
        "none",
        "--output-dir",
        tmp_path / "e",
    )
    assert proc.returncode == 0, proc.stderr
    assert np.load(tmp_path / "e" / "terrain_height.npy").shape == (17, 17)


def test_render_terrain_writes_the_same_pixels_twice_without_stamp_metadata(tmp_path):
    pictures = []
    for name in ("a.png", "b.png"):
        proc = run(
            ROOT / "scripts" / "render_terrain.py",
            "--size",
            "9",
            "--resolution",
            "16",
            "12",
            "--samples",
            "1",
            "--output",
            tmp_path / name,
        )
        assert proc.returncode == 0, proc.stderr
        data = (tmp_path / name).read_bytes()
        for key in (b"Date", b"Time", b"File", b"Frame", b"Camera", b"Scene"):
            assert b"tEXt" + key + b"\x00" not in data
        image = bpy.data.images.load(str(tmp_path / name))
        pixels = np.empty(16 * 12 * 4, dtype=np.float32)
        image.pixels.foreach_get(pixels)
        bpy.data.images.remove(image)
        pictures.append(pixels)
    assert np.array_equal(pictures[0], pictures[1])


def test_render_terrain_reads_a_recipe(tmp_path, orogen):
    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps({"generator": "diamond_square", "seed": 2, "shape": [20, 30]}))
    proc = run(
        ROOT / "scripts" / "render_terrain.py",
        "--recipe",
        recipe,
        "--resolution",
        "16",
        "16",
        "--samples",
        "1",
        "--output",
        tmp_path / "r.png",
        "--blend",
        tmp_path / "r.blend",
    )
    assert proc.returncode == 0, proc.stderr
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "r.blend"))
    terrain = bpy.data.objects["Terrain"]
    assert len(terrain.data.vertices) == 600
    assert terrain.orogen.is_terrain and terrain.orogen.generator == "diamond_square"
    spec = orogen.addon.specio.read_spec(terrain.orogen)
    assert (spec.generator, spec.seed, spec.shape) == ("diamond_square", 2, (20, 30))
    bpy.ops.wm.read_homefile(use_empty=True)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--resolution", "0", "0"], "--resolution must be 4 to 16384 pixels"),
        (["--resolution", "1000000", "1000000"], "--resolution must be 4 to 16384 pixels"),
        (["--samples", "0"], "--samples must be in [1, 65536]"),
        (["--seed", str(2**64)], f"error: {TOO_BIG_SEED}"),
        (["--altitude", "nan"], "--altitude must be in (0, 90] degrees"),
        (["--visibility", "0"], "--visibility must be a positive number of metres"),
        (["--view", "top", "--visibility", "5000"], "--visibility is for --view LANDSCAPE"),
        (["--view", "sideways"], "invalid choice: 'SIDEWAYS'"),
        (["--output", "out/terrain.jpg"], "--output must be a .png file path"),
        # Rolling Hills' hills are 125 to 625 m; assignments apply in order.
        (
            ["--preset", "rolling_hills", "--set", "hills.radius_min=700", "--set", "hills.radius_max=8"],
            "error: hills.radius_min (700) must not exceed hills.radius_max (625)",
        ),
        (
            ["--preset", "rolling_hills", "--set", "hills.radius_max=200", "--set", "hills.radius_min=300"],
            "error: hills.radius_min (300) must not exceed hills.radius_max (200)",
        ),
        # Values Blender would clamp to the property's bounds without a word are refused by the script.
        (["--preset", "rolling_hills", "--set", "count=-3"], "error: hills.count must be in [0, 1000000], got -3"),
        (
            ["--preset", "rolling_hills", "--set", "count=1" + "0" * 400],
            "error: hills.count must be in [0, 1000000], got an integer of 401 digits",
        ),
        (["--width", "0"], "error: width must be in [0.001, "),
        (["--height", "-5"], "error: height must be in [0.0, 100000.0], got -5.0"),
        (["--spec", "/nonexistent.json"], "error: --spec '/nonexistent.json' is not a file"),
        (["--recipe", "README.md"], "error: terrain spec is not valid JSON"),
        (["--set", "faults.faults=3"], "--set faults.faults: a parameter of 'faults', which this spec"),
        (["--blend", "/proc/x.blend"], "error: could not write"),  # and leaves no picture behind
    ],
)
def test_render_terrain_refuses_bad_arguments_with_a_message(args, message, tmp_path):
    proc = run(
        ROOT / "scripts" / "render_terrain.py",
        "--size",
        "9",
        "--resolution",
        "8",
        "8",
        "--samples",
        "1",
        "--output",
        tmp_path / "x.png",
        *args,
    )
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


def test_bench_quick_blender_part_reports_floors_material_and_live_ratios(tmp_path):
    out = tmp_path / "bench.json"
    proc = run(ROOT / "scripts" / "bench.py", "--quick", "--no-generators", "--no-reference", "--json", out)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    import core  # the source tree's registry: every declared generator is timed (the sources need an input)

    timed = [g for g, gen in core.GENERATORS.items() if not gen.metres]
    assert [r["case"] for r in data["blender"]] == [f"terrain_add {g}" for g in timed]
    for r in data["blender"]:
        assert r["floor_seconds"] > 0 and r["bare_seconds"] > 0
        assert r["x_floor"] == pytest.approx(r["seconds"] / r["floor_seconds"])
        assert r["x_bare"] == pytest.approx(r["seconds"] / r["bare_seconds"])
    (mat,) = data["material"]
    assert mat["built_seconds"] > 0 and mat["cached_seconds"] > 0
    assert [r["case"] for r in data["live"]] == [
        "full pass after a 17² preview, as wired",
        "full pass after a 17² preview, one mesh (Live Update off)",
    ]
    assert all(r["x_regenerate"] > 0 for r in data["live"])
    assert data["machine"]["blender"] == bpy.app.version_string and data["machine"]["cpus"] >= 1


def test_export_heightmaps_from_a_preset_and_from_a_recipe(tmp_path):
    out = tmp_path / "preset"
    # Badlands as it was before it eroded (tests/core/golden_presets.json): blurred and terraced, 22 m
    old = json.loads((ROOT / "tests" / "core" / "golden_presets.json").read_text(encoding="utf-8"))["badlands"]
    (tmp_path / "badlands.json").write_text(json.dumps({"version": 4, **old}), encoding="utf-8")
    proc = run(
        ROOT / "scripts" / "export_heightmaps.py",
        "--spec",
        tmp_path / "badlands.json",
        "--size",
        "33",
        "--seed",
        "4",
        "--format",
        "PNG16,R16,png16",
        "--output-dir",
        out,
        "--set",
        "terrace.levels=3",
    )
    assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(
        [
            "terrain_height.png",
            "terrain_height.png.json",
            "terrain_height.r16",
            "terrain_height.r16.json",
            "terrain_lightmap.png",
            "terrain_color.png",
            "terrain_normal.png",
            "terrain_slope.exr",
            "terrain_curvature.exr",
            "terrain_splat0.png",
            "terrain_splat1.png",
        ]
    )  # badlands has five layers: two RGBA splat maps
    raw = np.fromfile(out / "terrain_height.r16", dtype="<u2")
    info = json.loads((out / "terrain_height.r16.json").read_text())
    # Version 3: the blur lowers Badlands' peaks in metres and nothing stretches them back, so the heights stay
    # in units of Height (22 m) below 1; the 16-bit levels span the terrain's metres, 0 m to its top, not 0..22 m.
    import core  # the source tree's, as the script's

    h = core.spec.load_spec(info["spec"]).heightmap()
    assert h.shape == (33, 33) and h.min() == 0.0 and 0.5 < h.max() < 1.0
    z = h * np.float32(22.0)  # the mesh's Z
    assert info["height_range_m"] == [0.0, float(z.max())] and float(z.max()) < 22.0
    assert info["levels"]["level_0_m"] == 0.0 and info["levels"]["level_65535_m"] == float(z.max())
    assert np.array_equal(raw.reshape(33, 33), core.io.formats.quantise(z)[0])
    assert raw.min() == 0 and raw.max() == 65535
    assert f"16-bit levels 0 = 0 m, 65535 = {float(z.max()):.6g} m" in proc.stdout
    assert info["spec"]["seed"] == 4 and info["raw"]["byte_order"] == "little"
    assert [f["levels"] for f in info["spec"]["filters"] if f["type"] == "terrace"] == [3]

    recipe = tmp_path / "r.json"
    recipe.write_text(json.dumps({"generator": "faults", "seed": 1, "shape": [40, 40], "params": {"faults": 50}}))
    seed = 2**63 + 9  # a 64-bit seed, as 0.1's recipes could hold: Blender shows its low 31 bits, keeps it whole
    proc = run(
        ROOT / "scripts" / "export_heightmaps.py",
        "--recipe",
        recipe,
        "--seed",
        str(seed),
        "--set",
        "faults=80",
        "--format",
        "NPY",
        "--metres",
        "--height",
        "30",
        "--maps",
        "none",
        "--output-dir",
        tmp_path / "r",
    )
    assert proc.returncode == 0, proc.stderr
    heights = np.load(tmp_path / "r" / "terrain_height.npy")
    assert heights.shape == (40, 40) and heights.min() == 0.0 and heights.max() == pytest.approx(30.0)
    sidecar = tmp_path / "r" / "terrain_height.npy.json"
    info = json.loads(sidecar.read_text())
    assert info["spec"]["generator"] == "faults" and info["spec"]["faults"]["faults"] == 80
    assert info["spec"]["seed"] == seed and info["spec"]["height"] == 30.0
    # A sidecar is a recipe too: exporting from it again gives the same heights.
    proc = run(
        ROOT / "scripts" / "export_heightmaps.py",
        "--recipe",
        sidecar,
        "--format",
        "NPY",
        "--metres",
        "--height",
        "30",
        "--maps",
        "none",
        "--output-dir",
        tmp_path / "again",
    )
    assert proc.returncode == 0, proc.stderr
    assert np.array_equal(np.load(tmp_path / "again" / "terrain_height.npy"), heights)
    # ... and so does the render script.
    proc = run(
        ROOT / "scripts" / "render_terrain.py",
        "--recipe",
        sidecar,
        "--resolution",
        "8",
        "8",
        "--samples",
        "1",
        "--output",
        tmp_path / "s.png",
    )
    assert proc.returncode == 0, proc.stderr


def test_export_heightmaps_writes_all_or_nothing(tmp_path):
    (tmp_path / "terrain_lightmap.png").mkdir()  # a folder where a file should go
    (tmp_path / "old.txt").write_text("kept")
    proc = run(
        ROOT / "scripts" / "export_heightmaps.py",
        "--preset",
        "island",
        "--size",
        "9",
        "--format",
        "PNG16,R16",
        "--output-dir",
        tmp_path,
    )
    assert proc.returncode == 1 and "terrain_lightmap.png is a folder: nothing was written" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.txt", "terrain_lightmap.png"]


def test_recipes_with_params_that_are_not_an_object_are_refused(tmp_path):
    recipe = tmp_path / "r.json"
    for params in (None, "x", []):
        recipe.write_text(json.dumps({"generator": "hills", "shape": [9, 9], "params": params}))
        for script, output in (
            ("export_heightmaps.py", ["--output-dir", tmp_path / "e"]),
            ("render_terrain.py", ["--output", tmp_path / "r.png"]),
        ):
            proc = run(ROOT / "scripts" / script, "--recipe", recipe, *output)
            assert proc.returncode == 1, proc.stderr
            assert f"hills must be a mapping of names to values, got {type(params).__name__}" in proc.stderr
            assert "Traceback" not in proc.stderr


def test_export_heightmaps_lists_only_heightmap_presets():
    proc = run(ROOT / "scripts" / "export_heightmaps.py", "--list")
    assert proc.returncode == 0 and "alpine_faults" in proc.stdout and "side_view_level" not in proc.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--preset", "nope"], "no preset 'nope'; built-in: rolling_hills, island,"),
        (["--preset", "island", "--format", "GIF"], "--format must list some of"),
        (["--preset", "island", "--set", "colour=red"], "--set colour: no such setting; valid: "),
        (
            ["--preset", "island", "--set", "radius_min=999", "--size", "9"],  # Island's hills: 195 to 781 m
            "hills.radius_min (999) must not exceed hills.radius_max (781)",
        ),
        (["--recipe", "/nonexistent.json"], "is not a file"),
        (["--preset", "island", "--height", "-5"], "height must be in [0.0, 100000.0], got -5.0"),
        (["--preset", "island", "--size", "5000"], "size must be in [2, 4097], got 5000"),
        (["--preset", "island", "--seed", str(2**64)], TOO_BIG_SEED),
        (["--preset", "island", "--set", f"seed={2**64}"], TOO_BIG_SEED),
        (["--preset", "island", "--set", "size=true"], "size must be an integer in [2, 4097], got True"),
        (["--preset", "island", "--output-dir", ""], "--output-dir must name a folder"),
        (
            ["--preset", "island", "--set", "hills.count=1" + "0" * 400],
            "hills.count must be in [0, 1000000], got an integer of 401 digits",
        ),
        (
            ["--preset", "island", "--set", "size=" + "9" * 5000],
            "value of --set size has 5000 bytes, more than the 4096 allowed",
        ),
        (["--preset", "island", "--set", "size=4098", "--size", "17"], "give --size or --set size, not both"),
        (["--recipe", "{recipe}", "--seed", str(2**64)], TOO_BIG_SEED),
        (["--preset", "island", "--set", "hills.count=NaN"], "hills.count must be an integer in [0, 1000000], got nan"),
        (["--preset", "island", "--set", "hills.count=-3"], "hills.count must be in [0, 1000000], got -3"),
        (
            ["--preset", "island", "--set", 'flatten.exponent="steep"'],
            "flatten.exponent must be a real number, got str",
        ),
        (
            ["--preset", "island", "--set", "generator=CAVES"],
            "generator must be one of diamond_square, dunes, faults, file, fractal, hills, noise, object, got 'CAVES'",
        ),
        (["--preset", "island", "--metres", "--format", "PNG16"], "--metres applies to the EXR and NPY formats"),
        (["--recipe", "README.md"], "terrain spec is not valid JSON"),
        (["--recipe", "pyproject.toml"], "terrain spec is not valid JSON"),
        (
            ["--preset", "island", "--set", "roughness=2"],
            "--set roughness: a parameter of 'diamond_square' or 'fractal', which this spec (generator 'hills'",
        ),
    ],
)
def test_export_heightmaps_refuses_bad_arguments(args, message, tmp_path):
    recipe = tmp_path / "recipe.json"  # a valid 0.1 recipe, for the cases that need one
    recipe.write_text(json.dumps({"generator": "hills", "seed": 1, "shape": [9, 9]}))
    args = [str(recipe) if a == "{recipe}" else a for a in args]
    proc = run(ROOT / "scripts" / "export_heightmaps.py", "--output-dir", tmp_path, *args)
    assert proc.returncode != 0 and message in proc.stderr and "Traceback" not in proc.stderr


def test_picture_scripts_check_their_arguments(tmp_path):
    for script, args, message in (
        ("render_lighting.py", ["--tile", "0"], "--tile must be in"),
        ("render_presets.py", ["--resolution", "0", "0"], "--resolution must be"),
    ):
        proc = run(ROOT / "scripts" / script, *args)
        assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


def test_export_from_a_sidecar_keeps_the_terrains_scale(tmp_path):
    first = run(
        ROOT / "scripts" / "export_heightmaps.py",
        "--preset",
        "rolling_hills",
        "--size",
        "33",
        "--width",
        "250",
        "--height",
        "35",
        "--format",
        "R16",
        "--maps",
        "none",
        "--output-dir",
        tmp_path / "a",
    )
    assert first.returncode == 0, first.stderr
    again = run(
        ROOT / "scripts" / "export_heightmaps.py",
        "--spec",
        tmp_path / "a" / "terrain_height.r16.json",
        "--format",
        "NPY",
        "--metres",
        "--maps",
        "none",
        "--output-dir",
        tmp_path / "b",
    )
    assert again.returncode == 0, again.stderr
    info = json.loads((tmp_path / "b" / "terrain_height.npy.json").read_text())
    assert (info["spec"]["width"], info["spec"]["height"], info["width_m"]) == (250.0, 35.0, 250.0)
    heights = np.load(tmp_path / "b" / "terrain_height.npy")
    assert heights.shape == (33, 33) and heights.max() == pytest.approx(35.0)


@pytest.mark.parametrize("script", ["render_terrain.py", "export_heightmaps.py"])
def test_an_operators_refusal_is_said_once_on_standard_error(tmp_path, orogen, script):
    data = orogen.core.TerrainSpec(size=17).to_dict()
    data["layers"][0]["kind"], data["layers"][0]["image"] = "IMAGE", str(tmp_path / "missing.png")
    (tmp_path / "s.json").write_text(json.dumps(data))
    out = ["--output", tmp_path / "t.png"] if script == "render_terrain.py" else ["--output-dir", tmp_path]
    proc = run(ROOT / "scripts" / script, "--spec", tmp_path / "s.json", *out)
    assert proc.returncode == 1
    said = "Terrain not added: layers[0] ('low'): image file not found"
    assert proc.stderr.count(said) == 1 and said not in proc.stdout, (proc.stdout, proc.stderr)
    assert not list(tmp_path.glob("*.png"))


#: Runs scripts/export_heightmaps.py with ``write_raw`` patched to write half its bytes and then fail as a full
#: disk does (``f.write`` raising ENOSPC, an OSError with no file name).
FULL_DISK = """
import errno, runpy, sys
sys.argv = sys.argv[1:]
sys.path.insert(0, sys.argv[0].rsplit("/", 1)[0])
import render_terrain
formats = render_terrain.load_orogen().core.io.formats

def write_raw(path, heightmap):
    with open(path, "wb") as f:
        f.write(b"\\0" * 100)
        raise OSError(errno.ENOSPC, "No space left on device")

formats.write_raw = write_raw
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_export_heightmaps_on_a_full_disk_names_the_file_and_leaves_none(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("kept")
    proc = run(
        "-c",
        FULL_DISK,
        ROOT / "scripts" / "export_heightmaps.py",
        *("--preset", "island", "--size", "33", "--format", "PNG16,R16", "--output-dir", out, "--quiet"),
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == (
        f"error: could not write {out / 'terrain_height.r16'}: No space left on device; no file was written or changed"
    )
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"]  # no partial file, no staging folder


def test_export_heightmaps_replaces_only_orogens_sidecars(tmp_path):
    """The heightmap the user named is replaced; a sidecar in its place that is not Orogen's is not."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "terrain_height.png.json").write_text('{"mine": true}')
    args = ("--preset", "island", "--size", "33", "--maps", "none", "--output-dir", out, "--quiet")
    proc = run(ROOT / "scripts" / "export_heightmaps.py", *args)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        f"error: terrain_height.png.json in {out} is not Orogen's (no sidecar an export wrote) and would be "
        "replaced; nothing was written: move them, or choose another folder or name"
    )
    assert sorted(p.name for p in out.iterdir()) == ["terrain_height.png.json"]
    (out / "terrain_height.png.json").unlink()
    (out / "terrain_height.png").write_bytes(b"the user's own, named by the user")
    assert run(ROOT / "scripts" / "export_heightmaps.py", *args).returncode == 0
    assert (out / "terrain_height.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((out / "terrain_height.png.json").read_text())["file"] == "terrain_height.png"
