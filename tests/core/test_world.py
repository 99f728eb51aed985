"""Worlds larger than one terrain: tiles equal the whole, resumable builds, the same bytes on any scheduler.

The builds use ``scripts/build_world.py`` (Dask, Zarr, Pillow, OpenEXR: pipeline
dependencies); the module skips when Dask is missing.
"""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("dask")

import zarr  # noqa: E402
from PIL import Image  # noqa: E402

from core.filters import WINDOW_TOLERANCE  # noqa: E402
from core.heightmap import MAX_WORLD_SIDE  # noqa: E402
from core.io import formats  # noqa: E402
from core.params import FILTERS, GENERATORS  # noqa: E402
from core.spec import TerrainSpec  # noqa: E402
from core.window import Window  # noqa: E402
from core.world import (  # noqa: E402
    COARSE_SIDE,
    TileGrid,
    check_world,
    coarse_plan,
    combine_ranges,
    filtered_range,
    raw_range,
    tile_heights,
    upsample,
    world_recipe,
)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import build_world  # noqa: E402

#: The generators that make a terrain from a seed alone (the sources read a file or an object:
#: tests/core/test_sources.py).
MADE = sorted(key for key, g in GENERATORS.items() if not g.metres)

#: Every local filter; all but the low-pass filter are exact in a window.
EXACT_STACK = [
    {"type": "flatten", "exponent": 1.7},
    {"type": "box_blur", "passes": 3},
    {"type": "terrace", "levels": 6, "smoothness": 0.7},
    {"type": "sea_level", "level": 0.15},
]
LOWPASS = {"type": "lowpass", "k": 0.6, "passes": 2}
LOCAL_FILTERS = sorted(key for key, f in FILTERS.items() if f.margin({}) < 1 << 20)


def spec(generator, filters, **world):
    return TerrainSpec.from_dict(
        {
            "version": 2,
            "size": 65,
            "width": 640.0,
            "height": 50.0,
            "seed": 9,
            "generator": generator,
            "filters": filters,
            **world,
        }
    )


def make_plan(
    out, spec_, size=65, tile=17, size_y=0, formats=("png", "r16", "exr"), sleep=0.0, coarse_side=COARSE_SIDE
):
    grid_shape = (size_y or size, size)
    grid = TileGrid(grid_shape, tile)
    recipe = world_recipe(spec_, grid_shape)
    return build_world.Plan(
        str(out), "w", spec_, recipe, grid, tuple(formats), coarse_plan(recipe, grid, coarse_side), sleep
    )


def files_of(folder):
    """Every output file's bytes by relative path (the resume records under .build excluded)."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and build_world.STATE not in p.relative_to(folder).parts
    }


def assert_tiles_equal(out, plan, whole):
    """Every tile file and the Zarr store hold exactly ``whole``'s cells."""
    import OpenEXR

    assert np.array_equal(zarr.open_array(str(out / "world.zarr" / "height"), mode="r")[:], whole)
    ny, _ = plan.grid.tiles
    manifest = json.loads((out / "manifest.json").read_text())
    relief = (manifest["levels"]["level_0_m"], manifest["levels"]["level_65535_m"])
    every = []
    for ty, tx in plan.grid.indices():
        w = plan.grid.window(ty, tx)
        cells = whole[w.row : w.row + w.rows, w.col : w.col + w.cols]
        # 16-bit: levels of the tile's metres over the whole world's relief, one scale for every tile
        levels = formats.quantise(cells * np.float32(plan.spec.height), relief)[0]
        assert np.array_equal(np.asarray(Image.open(out / f"unreal/w_x{tx}_y{ty}.png")), levels)
        raw = np.fromfile(out / f"unity/w_x{tx}_y{ny - 1 - ty}.r16", dtype="<u2").reshape(w.shape)
        assert np.array_equal(raw[::-1], levels)  # Unity's RAW rows run from the south
        every.append(levels)
        with OpenEXR.File(str(out / f"exr/w_x{tx}_y{ty}.exr")) as f:
            assert np.array_equal(f.channels()["Y"].pixels, cells)
        # each tile file's own sidecar: its place and size, and its metres north first
        for rel in (f"exr/w_x{tx}_y{ty}.exr", f"unity/w_x{tx}_y{ny - 1 - ty}.r16"):
            scale = formats.sidecar_scale(json.loads((out / (rel + ".json")).read_text()), rel)
            assert scale.location == (*plan.grid.centre(ty, tx, plan.recipe.cell_size), 0.0)
            assert scale.width == plan.recipe.cell_size * (plan.grid.tile - 1) and scale.height == plan.spec.height
            assert scale.south_first == rel.endswith(".r16")
        assert scale.height_range == relief
        metres = formats.file_heights(raw.astype(np.float64) / 65535, scale)  # the R16's: flipped north first
        step = (relief[1] - relief[0]) / 65535
        assert np.abs(metres - cells * np.float32(plan.spec.height)).max() <= step / 2 * (1 + 1e-6) + 1e-5
    assert min(v.min() for v in every) == 0 and max(v.max() for v in every) == 65535  # the world's relief
    assert set(manifest["files"]) == set(files_of(out)) - {"manifest.json"}
    for rel, digest in manifest["files"].items():
        assert build_world.sha256_file(out / rel) == digest


# --- the tile grid ----------------------------------------------------------------------------
def test_tile_grid_shares_edges_and_its_owned_windows_partition_the_world():
    grid = TileGrid((49, 65), 17)
    assert grid.tiles == (3, 4) and grid.stride == 16
    assert grid.window(1, 2) == Window(16, 32, 17, 17)
    cover = np.zeros(grid.shape, dtype=int)
    for ty, tx in grid.indices():
        o = grid.owned(ty, tx)
        assert o.row % 16 == 0 and o.col % 16 == 0
        cover[o.row : o.row + o.rows, o.col : o.col + o.cols] += 1
    assert (cover == 1).all()


@pytest.mark.parametrize(
    ("shape", "tile", "match"),
    [
        ((64, 65), 17, r"rows \(64\) must be n x \(tile - 1\) \+ 1 .* e.g. 49 or 65"),
        ((65, 65), 1, r"tile must be in \[2, 8193\]"),
        ((9, 9), 17, "rows"),
        ((MAX_WORLD_SIDE + 1, 3), 2, "rows"),
    ],
)
def test_bad_tile_grids(shape, tile, match):
    with pytest.raises(ValueError, match=match):
        TileGrid(shape, tile)


def test_a_world_keeps_the_spec_cell_size_beyond_the_spec_size_limit():
    s = spec("fractal", [])
    r = world_recipe(s, (16385, 16385))
    assert r.cell_size == s.cell_size == 10.0 and r.shape == (16385, 16385)
    # A window of the big world starts the same landscape as the spec's own terrain (fractal works in metres).
    own = s.recipe()
    assert np.array_equal(r.raw_heights(Window(0, 0, 65, 65)), own.raw_heights())


def test_global_filters_are_refused_beyond_one_heightmap_and_built_whole_below():
    big = world_recipe(spec("hills", [{"type": "thermal", "iterations": 5}]), (16385, 16385))
    with pytest.raises(ValueError, match=r"'thermal' reads the whole world .* at most 8193 x 8193"):
        check_world(big, TileGrid((16385, 16385), 1025))
    small = world_recipe(spec("hills", [{"type": "erosion", "steps": 2}]), (65, 65))
    assert check_world(small, TileGrid((65, 65), 17)) is True
    assert check_world(world_recipe(spec("hills", EXACT_STACK), (65, 65)), TileGrid((65, 65), 17)) is False


# --- tiles equal the whole ---------------------------------------------------------------------
@pytest.mark.parametrize("generator", MADE)
@pytest.mark.parametrize("key", LOCAL_FILTERS)
def test_four_by_four_tiles_equal_the_whole_for_every_generator_and_local_filter(generator, key):
    recipe = world_recipe(spec(generator, [{"type": key}]), (65, 65))
    grid = TileGrid((65, 65), 17)
    whole = recipe.evaluate()
    world_raw = combine_ranges(raw_range(recipe, grid.window(*t)) for t in grid.indices())
    ranges = (world_raw, combine_ranges(filtered_range(recipe, grid.window(*t), world_raw) for t in grid.indices()))
    assert ranges == recipe.world_ranges()
    for ty, tx in grid.indices():
        w = grid.window(ty, tx)
        tile = tile_heights(recipe, w, ranges)
        cells = whole[w.row : w.row + w.rows, w.col : w.col + w.cols]
        if key == "lowpass":  # its reach decays as k**m: within the declared tolerance of the range
            assert np.abs(tile - cells).max() <= 4 * 1 * WINDOW_TOLERANCE
        else:
            assert np.array_equal(tile, cells)


@pytest.mark.parametrize("generator", MADE)
def test_a_built_world_is_the_whole_world_bit_for_bit(tmp_path, generator):
    plan = make_plan(tmp_path, spec(generator, EXACT_STACK))
    manifest = build_world.build_world(plan, "synchronous", progress=False)
    assert_tiles_equal(tmp_path, plan, plan.recipe.evaluate())
    assert manifest["grid"] == {"tile": 17, "stride": 16, "tiles_y": 4, "tiles_x": 4, "shared_edges": True}
    assert manifest["global_filters"] is None
    assert manifest["ranges"] == [list(r) for r in plan.recipe.world_ranges()]
    assert manifest["world"]["size_m"] == [640.0, 640.0] and manifest["spec"] == plan.spec.to_dict()


def test_a_version_3_world_keeps_its_metres_and_says_how_to_read_them(tmp_path):
    """Version 3 does not stretch heights after the filters: the files hold the heights in units of Height (over
    the world's range if they leave [0, 1]) and the manifest says the metres of 0 and 1."""
    from core.heightmap import normalize

    spec3 = TerrainSpec.from_dict(
        {
            "version": 3,
            "size": 65,
            "width": 640.0,
            "height": 50.0,
            "seed": 9,
            "generator": "hills",
            "filters": [{"type": "flatten", "exponent": 1.7}, {"type": "sea_level", "level": 0.15}],
        }
    )
    assert not spec3.fit_height
    plan = make_plan(tmp_path, spec3)
    manifest = build_world.build_world(plan, "synchronous", progress=False)
    whole = plan.recipe.evaluate()  # units of Height: the sea floor at 0.15, not stretched to 0
    low, high = plan.recipe.world_ranges()[1]
    assert low == pytest.approx(0.15) and whole.min() == low and whole.max() == high <= 1.0
    assert_tiles_equal(tmp_path, plan, whole)  # within [0, 1]: the heights themselves, 1 standing for Height
    metres = manifest["metres"]
    assert (metres["low"], metres["high"]) == (0.0, 50.0)
    # A world raised above Height (or below 0) is written over its range, as the add-on's Export Tiles does.
    assert build_world.encoding_range(plan, (None, (-0.1, 1.4))) == (-0.1, 1.4)
    assert normalize(np.array([[-0.1, 1.4]], np.float32), (-0.1, 1.4)).tolist() == [[0.0, 1.0]]
    levels = np.asarray(Image.open(tmp_path / "unreal/w_x1_y2.png")).astype(np.float64) / 65535.0
    w = plan.grid.window(2, 1)
    # the 16-bit tiles span the world's relief, 7.5 m (the sea floor) to its top, not 0..Height
    assert manifest["levels"]["level_0_m"] == pytest.approx(0.15 * 50.0) and manifest["levels"]["bits"] == 16
    bottom, top = manifest["levels"]["level_0_m"], manifest["levels"]["level_65535_m"]
    back = bottom + levels * (top - bottom)  # the manifest's formula
    step = (top - bottom) / 65535
    assert np.abs(back - 50.0 * whole[w.row : w.row + w.rows, w.col : w.col + w.cols]).max() <= step / 2 + 1e-5


@pytest.mark.parametrize("generator", ["fractal", "hills"])
def test_without_filters_the_second_pass_is_skipped_and_the_world_is_the_same(tmp_path, generator):
    plan = make_plan(tmp_path, spec(generator, []), formats=("r16",))
    timings = {}
    manifest = build_world.build_world(plan, "synchronous", progress=False, timings=timings)
    assert manifest["ranges"] == [list(r) for r in plan.recipe.world_ranges()]
    assert set(timings) == {"raw", "filtered", "tiles"}
    assert np.array_equal(zarr.open_array(str(tmp_path / "world.zarr" / "height"), mode="r")[:], plan.recipe.evaluate())


def test_a_non_square_world_with_the_lowpass_filter(tmp_path):
    plan = make_plan(tmp_path, spec("faults", [LOWPASS]), size=65, size_y=33, formats=("png",))
    build_world.build_world(plan, "threads", workers=2, progress=False)
    whole = plan.recipe.evaluate()
    store = zarr.open_array(str(tmp_path / "world.zarr" / "height"), mode="r")[:]
    assert store.shape == (33, 65) and np.abs(store - whole).max() <= 4 * 2 * WINDOW_TOLERANCE
    assert sorted(p.name for p in (tmp_path / "unreal").iterdir()) == sorted(
        f"w_x{x}_y{y}.png{s}"
        for x in range(4)
        for y in range(2)
        for s in ("", ".json")  # each with its sidecar
    )


def test_a_world_with_a_global_filter_that_fits_the_coarse_side_is_the_whole_build(tmp_path):
    """Factor 1: the global filter runs over the whole world at full resolution, the tiles are its cells."""
    s = spec(
        "diamond_square",
        [
            {"type": "flatten", "exponent": 1.3},
            {"type": "thermal", "iterations": 10},
            {"type": "box_blur", "passes": 1},
        ],
    )
    plan = make_plan(tmp_path, s, formats=("png",))
    assert plan.coarse is not None and plan.coarse.factor == 1
    manifest = build_world.build_world(plan, "synchronous", progress=False)
    assert manifest["global_filters"] == {
        "factor": 1,
        "shape": [65, 65],
        "cell_size_m": 10.0,
        "filters": ["thermal"],
        "local_after": ["box_blur"],
    }
    assert np.array_equal(zarr.open_array(str(tmp_path / "world.zarr" / "height"), mode="r")[:], plan.recipe.evaluate())


def test_the_coarse_factor_divides_the_stride_and_fits_the_coarse_side():
    eroded = spec("fractal", [{"type": "erosion", "steps": 2}])
    big = coarse_plan(world_recipe(eroded, (16385, 16385)), TileGrid((16385, 16385), 1025))
    assert big.factor == 4 and big.shape == (4097, 4097) and big.cell_size == 40.0
    huge = coarse_plan(world_recipe(eroded, (65537, 65537)), TileGrid((65537, 65537), 1025))
    assert huge.factor == 16 and huge.shape == (4097, 4097)
    odd = coarse_plan(world_recipe(eroded, (97, 97)), TileGrid((97, 97), 49), max_side=40)
    assert odd.factor == 3 and odd.shape == (33, 33)  # 48 = 3 x 16: the smallest divisor that fits
    with pytest.raises(ValueError, match="use larger tiles"):
        coarse_plan(world_recipe(eroded, (16385, 16385)), TileGrid((16385, 16385), 3))
    assert coarse_plan(world_recipe(spec("hills", EXACT_STACK), (65, 65)), TileGrid((65, 65), 17)) is None
    # The stack is cut at its global filters: local before (full resolution), global (coarse), local after.
    mixed = spec(
        "hills",
        [
            {"type": "flatten"},
            {"type": "thermal", "iterations": 3},
            {"type": "box_blur"},
            {"type": "erosion", "steps": 2},
            {"type": "terrace"},
        ],
    )
    plan = coarse_plan(world_recipe(mixed, (65, 65)), TileGrid((65, 65), 17))
    assert [k for k, _ in plan.prefix.filters] == ["flatten"]
    assert [k for k, _ in plan.middle] == ["thermal", "box_blur", "erosion"]
    assert [k for k, _ in plan.suffix] == ["terrace"]


def test_upsampling_is_bilinear_keeps_coarse_vertices_and_is_the_same_in_any_window():
    coarse = np.random.default_rng(0).random((5, 7)).astype(np.float32)
    full = upsample(coarse, Window(0, 0, 17, 25), 4)
    assert np.array_equal(full[::4, ::4], coarse)
    assert full[2, 0] == np.float32((coarse[0, 0] + coarse[1, 0]) / 2.0)
    assert np.isclose(
        full[1, 3],
        0.75 * (0.25 * coarse[0, 0] + 0.75 * coarse[0, 1]) + 0.25 * (0.25 * coarse[1, 0] + 0.75 * coarse[1, 1]),
    )
    for window in (Window(3, 5, 9, 11), Window(16, 0, 1, 25), Window(0, 23, 17, 2)):
        part = upsample(coarse, window, 4)
        assert np.array_equal(part, full[window.row : window.row + window.rows, window.col : window.col + window.cols])
    with pytest.raises(ValueError, match="beyond the coarse grid"):
        upsample(coarse, Window(0, 0, 18, 25), 4)


#: Stream-power erosion at half the resolution (20 m cells) against the full-resolution build of this small world
#: (129 x 129 at 10 m, 8 steps): measured max 0.198, mean 0.049 of the range, correlation 0.96 (at a quarter of
#: the resolution: max 0.39, mean 0.10, correlation 0.82); bounds with room for numpy versions and machines.
COARSE_MAX_DIFF, COARSE_MEAN_DIFF, COARSE_CORRELATION = 0.3, 0.08, 0.9


@pytest.mark.slow
def test_a_world_with_erosion_built_coarse_first_has_exact_seams_and_stays_near_the_big_build(tmp_path):
    s = spec(
        "fractal",
        [{"type": "flatten", "exponent": 1.2}, {"type": "erosion", "steps": 8}, {"type": "box_blur", "passes": 1}],
    )
    plan = make_plan(tmp_path / "a", s, size=129, tile=33, coarse_side=65)
    assert plan.coarse.factor == 2 and plan.coarse.shape == (65, 65)
    timings = {}
    manifest = build_world.build_world(plan, "threads", workers=2, progress=False, timings=timings)
    assert set(timings) == {"raw", "coarse", "filtered", "tiles"}
    assert manifest["global_filters"]["factor"] == 2
    store = zarr.open_array(str(tmp_path / "a" / "world.zarr" / "height"), mode="r")[:]
    assert store.min() == 0.0 and store.max() == 1.0
    # Seams: every tile file holds exactly the store's cells (so neighbours share their edges byte for byte).
    assert_tiles_equal(tmp_path / "a", plan, store)
    ny, nx = plan.grid.tiles
    for ty in range(ny):
        for tx in range(nx - 1):
            west = np.asarray(Image.open(tmp_path / "a" / f"unreal/w_x{tx}_y{ty}.png"))
            east = np.asarray(Image.open(tmp_path / "a" / f"unreal/w_x{tx + 1}_y{ty}.png"))
            assert np.array_equal(west[:, -1], east[:, 0])
    # What differs from one big build (the erosion ran on every 2nd vertex): bounded, and reported.
    big = plan.recipe.evaluate()
    diff = np.abs(store - big)
    correlation = np.corrcoef(store.ravel(), big.ravel())[0, 1]
    print(
        f"coarse x2 erosion vs the big build: max {diff.max():.4f}, mean {diff.mean():.4f} of the range, "
        f"correlation {correlation:.3f}"
    )
    assert 0.0 < diff.max() <= COARSE_MAX_DIFF and diff.mean() <= COARSE_MEAN_DIFF
    assert correlation >= COARSE_CORRELATION
    # The same bytes on another scheduler, and after losing a tile and the coarse pass's store.
    again = make_plan(tmp_path / "b", s, size=129, tile=33, coarse_side=65)
    build_world.build_world(again, "synchronous", progress=False)
    assert files_of(tmp_path / "a") == files_of(tmp_path / "b")
    (tmp_path / "b" / "unity" / "w_x1_y2.r16").unlink()
    build_world.build_world(again, "processes", workers=2, progress=False)
    assert files_of(tmp_path / "a") == files_of(tmp_path / "b")


# --- resuming, schedulers --------------------------------------------------------------------------
@pytest.mark.slow
def test_a_rerun_rebuilds_only_damaged_or_missing_tiles(tmp_path, capsys):
    plan = make_plan(tmp_path, spec("noise", EXACT_STACK))
    build_world.build_world(plan, "synchronous", progress=False)
    before = files_of(tmp_path)
    (tmp_path / "unreal" / "w_x1_y2.png").write_bytes(b"damaged")
    (tmp_path / "exr" / "w_x3_y0.exr").unlink()
    build_world.build_world(plan, "synchronous", progress=True)
    assert "2 tiles built, 14 already there" in capsys.readouterr().out
    assert files_of(tmp_path) == before


def test_another_build_in_the_same_folder_is_refused(tmp_path):
    build_world.build_world(make_plan(tmp_path, spec("hills", [])), "synchronous", progress=False)
    with pytest.raises(ValueError, match="holds another world build"):
        build_world.build_world(make_plan(tmp_path, spec("faults", [])), "synchronous", progress=False)


@pytest.mark.slow
def test_a_build_killed_midway_finishes_the_missing_tiles_with_the_same_bytes(tmp_path):
    spec_file = tmp_path / "world.json"
    spec_file.write_text(spec("fractal", EXACT_STACK).to_json())
    command = [
        sys.executable,
        str(ROOT / "scripts" / "build_world.py"),
        str(spec_file),
        "--size",
        "129",
        "--tile",
        "17",
        "--scheduler",
        "synchronous",
    ]
    killed, whole = tmp_path / "killed", tmp_path / "whole"
    proc = subprocess.Popen([*command, "--out", str(killed), "--tile-sleep", "0.2", "--quiet"], cwd=ROOT)
    records = killed / build_world.STATE / "tiles"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None and len(list(records.glob("*.json"))) < 5:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = len(list(records.glob("*.json")))
    assert 5 <= done < 64, "the build was not stopped midway"
    assert not (killed / "manifest.json").exists()
    resumed = subprocess.run([*command, "--out", str(killed)], cwd=ROOT, capture_output=True, text=True, check=True)
    assert f"{64 - done} tiles built, {done} already there" in resumed.stdout  # only the missing tiles
    subprocess.run([*command, "--out", str(whole), "--quiet"], cwd=ROOT, check=True)
    assert files_of(killed) == files_of(whole)


@pytest.mark.slow
def test_a_local_cluster_with_two_worker_processes_builds_the_same_bytes(tmp_path):
    distributed = pytest.importorskip("distributed")
    s = spec("hills", [*EXACT_STACK, LOWPASS])
    threaded, clustered = tmp_path / "threads", tmp_path / "cluster"
    build_world.build_world(make_plan(threaded, s), "threads", progress=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    ) as cluster:
        build_world.build_world(make_plan(clustered, s), cluster.scheduler_address, progress=False)
    assert files_of(threaded) == files_of(clustered)


def test_command_line_errors(tmp_path, capsys):
    assert (
        build_world.main(["--preset", "island", "--size", "100", "--tile", "17", "--out", str(tmp_path), "--quiet"])
        == 2
    )
    assert "must be n x (tile - 1) + 1" in capsys.readouterr().err
    assert (
        build_world.main(
            ["--preset", "eroded_mountains", "--size", "16385", "--tile", "3", "--out", str(tmp_path), "--quiet"]
        )
        == 2
    )
    assert "use larger tiles" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        build_world.main(["--preset", "island", "--size", "65", "--format", "tiff", "--out", str(tmp_path)])


def test_build_world_refuses_an_output_it_cannot_or_must_not_write(tmp_path, capsys):
    """A file, a path through a file, or a folder holding other files: a one-line message, exit 2, nothing
    written (a folder of someone else's files is never written over)."""
    (tmp_path / "file").write_text("mine")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "height.png").write_bytes(b"not ours")
    cases = {
        "file": "is a file, not a folder",
        "file/sub": "cannot write the world into --out",
        "full": "is not empty and holds no world build",
    }
    for out, message in cases.items():
        code = build_world.main(
            ["--preset", "rolling_hills", "--size", "65", "--tile", "33", "--quiet", "--out", str(tmp_path / out)]
        )
        err = capsys.readouterr().err
        assert code == 2 and message in err and "Traceback" not in err, (out, err)
    assert (tmp_path / "file").read_text() == "mine"
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["height.png"]
    assert (tmp_path / "full" / "height.png").read_bytes() == b"not ours"


@pytest.mark.parametrize(
    "name", ["../escaped", "..", "sub/tile", "sub\\tile", "C:tile", "/tmp/abs", ".hidden", "", "a\nb", "x" * 201]
)
def test_build_world_refuses_a_name_that_is_not_a_plain_file_stem(tmp_path, capsys, name):
    """``--name ../x`` (or an absolute path, a separator) would write tiles outside ``--out``: refused, naming
    --name and what a name may be, before anything is written anywhere."""
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exit_:
        build_world.main(
            ["--preset", "rolling_hills", "--size", "65", "--tile", "33", "--quiet", "--out", str(out)]
            + ["--name", name]
        )
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "--name must be a plain file stem" in err and "Traceback" not in err, err
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == []


def test_build_world_writes_a_plain_name_inside_out(tmp_path):
    out = tmp_path / "out"
    code = build_world.main(
        [
            "--preset",
            "rolling_hills",
            "--size",
            "65",
            "--tile",
            "33",
            "--quiet",
            "--out",
            str(out),
            "--name",
            "my-land.v2",
        ]
    )
    assert code == 0
    assert sorted(p.name for p in (out / "unreal").iterdir()) == sorted(
        f"my-land.v2_x{x}_y{y}.png{s}" for x in (0, 1) for y in (0, 1) for s in ("", ".json")
    )
    assert all(p.resolve().is_relative_to(out) for p in tmp_path.rglob("*"))
