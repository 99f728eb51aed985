"""Sources and stamps (core.sources): blend values, placement, windows equal to the whole, specs and --set."""

import hashlib
import json

import numpy as np
import pytest

from core.recipe import Recipe
from core.sources import BLENDS, SOURCE_PARAMS, STAMPS, blend, cos_sin_degrees, crater, ridge, source_seed
from core.spec import TerrainSpec, apply_settings, json_schema, load_spec, setting_paths
from core.window import Window

B = np.array([[0.0, 2.0], [5.0, -1.0]])
S = np.array([[1.0, 3.0], [-2.0, 4.0]])


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("add", [[1.0, 5.0], [3.0, 3.0]]),
        ("subtract", [[-1.0, -1.0], [7.0, -5.0]]),
        ("multiply", [[0.0, 3.0], [-5.0, -2.0]]),  # b * s / height, height 2
        ("max", [[1.0, 3.0], [5.0, 4.0]]),
        ("min", [[0.0, 2.0], [-2.0, -1.0]]),
        ("replace", [[1.0, 3.0], [-2.0, 4.0]]),
    ],
)
def test_blend_modes_exact(mode, expected):
    out = blend(B, S, mode, height=2.0)
    assert out.dtype == np.float64
    assert np.array_equal(out, np.array(expected))
    assert np.array_equal(blend(B, S, mode, weight=0.0, height=2.0), B)  # opacity 0: no change
    half = blend(B, S, mode, weight=0.5, height=2.0)
    assert np.array_equal(half, B * 0.5 + np.array(expected) * 0.5)


def test_blend_modes_declared_once():
    assert [k for k, _, _ in BLENDS] == ["add", "subtract", "multiply", "max", "min", "replace"]
    assert next(p for p in SOURCE_PARAMS if p.name == "blend").choices == tuple(k for k, _, _ in BLENDS)
    with pytest.raises(ValueError, match="blend must be one of"):
        blend(B, S, "screen")


def test_exact_quarter_turns():
    assert cos_sin_degrees(90.0) == (0.0, 1.0)
    assert cos_sin_degrees(-90.0) == (0.0, -1.0)
    assert cos_sin_degrees(720.0) == (1.0, 0.0)
    c, s = cos_sin_degrees(30.0)
    assert abs(c - np.sqrt(3) / 2) < 1e-15 and abs(s - 0.5) < 1e-15


def _recipe(sources, shape=(41, 41), generator="hills", filters=(), cell=2.0, height=20.0):
    return Recipe(generator, 5, shape, {}, filters, cell, height, fit_height=False, sources=sources)


def test_opacity_zero_and_no_sources_change_nothing():
    base = _recipe(())
    h = base.evaluate()
    for mode, _, _ in BLENDS:
        r = _recipe((("crater", {"opacity": 0.0, "blend": mode}), ("fractal", {"opacity": 0.0, "blend": mode})))
        assert np.array_equal(r.evaluate(), h), mode
    off = _recipe((("cone", {"enabled": False}),))
    assert np.array_equal(off.evaluate(), h)
    assert base.to_dict().get("sources") is None  # a recipe without sources keeps its JSON


def test_stamp_lands_at_offset():
    # 41 x 41 cells of 2 m: cell (r, c) is at x = (c - 20) * 2 east, y = (20 - r) * 2 north
    r = _recipe((("cone", {"offset_x": 10.0, "offset_y": -6.0, "radius": 8.0, "crater": 0.0, "height": 5.0}),))
    base = _recipe(()).evaluate().astype(np.float64) * 20.0
    added = r.evaluate().astype(np.float64) * 20.0 - base
    peak = np.unravel_index(np.argmax(added), added.shape)
    assert peak == (23, 25)  # y = -6 -> row 23, x = 10 -> col 25
    assert abs(added[peak] - 5.0) < 1e-4
    assert np.all(np.abs(added[:, :20]) < 1e-5)  # more than 8 m west of it nothing changed


def test_max_blend_is_numpy_maximum_of_its_sources():
    entry = {"blend": "max", "height": 20.0, "radius": 12.0, "length": 20.0}
    both = _recipe((("ridge", entry),)).evaluate()
    base = _recipe(()).evaluate().astype(np.float64) * 20.0
    stamp, _ = ridge(*_uv(41, 2.0, 0.0), radius=12.0, length=20.0)
    assert stamp.max() == 1.0
    assert np.array_equal(both, (np.maximum(base, stamp * 20.0) / 20.0).astype(np.float32))


def test_ridge_quarter_turn_is_the_transpose():
    sa, _ = ridge(*_uv(41, 2.0, 0.0), radius=9.0, length=30.0)
    sb, _ = ridge(*_uv(41, 2.0, 90.0), radius=9.0, length=30.0)
    assert sa.max() == 1.0 and not np.array_equal(sa, sa.T)
    assert np.array_equal(sb, sa.T)
    # through a recipe: a ridge wide enough to cover the grid replaces the terrain, turned a quarter
    entry = {"blend": "replace", "radius": 100.0, "length": 30.0, "height": 20.0}
    a = _recipe((("ridge", {**entry, "rotation": 0.0}),)).evaluate()
    b = _recipe((("ridge", {**entry, "rotation": 90.0}),)).evaluate()
    assert not np.array_equal(a, a.T)
    assert np.array_equal(b, a.T)


def _uv(n, cell, rotation):
    c, s = cos_sin_degrees(rotation)
    m = (n - 1) / 2.0
    dx = (np.arange(n) - m)[None, :] * np.ones((n, 1))
    dy = (m - np.arange(n))[:, None] * np.ones((1, n))
    return (c * dx + s * dy) * cell, (-s * dx + c * dy) * cell


def test_crater_proportions():
    r = np.array([0.0, 0.5, 1.0, 2.0, 3.0, 4.0]) * 50.0
    shape, coverage = crater(r, np.zeros_like(r), radius=50.0, rim=0.225)
    assert shape[0] == -1.0 and shape[2] == pytest.approx(0.225) and shape[4] == pytest.approx(0.0, abs=1e-15)
    assert shape[5] == 0.0 and list(coverage) == [1, 1, 1, 1, 1, 0]
    assert 0 < shape[3] < 0.225


@pytest.mark.parametrize("key", ["crater", "cone", "mesa", "ridge"])
def test_stamps_are_bounded(key):
    u, v = np.meshgrid(np.linspace(-200, 200, 81), np.linspace(-200, 200, 81))
    shape, coverage = STAMPS[key].function(u, v, **{p.name: p.default for p in STAMPS[key].params})
    assert np.isfinite(shape).all()
    low = -1.0 if key == "crater" else 0.0
    assert shape.min() >= low and shape.max() <= 1.0 and set(np.unique(coverage)) <= {0.0, 1.0}
    assert np.all(shape[coverage == 0] == 0)


SOURCES = (
    ("crater", {"offset_x": 9.5, "offset_y": 3.0, "radius": 14.0, "height": 6.0, "rotation": 17.0}),
    ("fractal", {"blend": "max", "scale": 0.7, "rotation": 33.0, "offset_x": 5.0, "opacity": 0.6}),
    ("ridge", {"rotation": 30.0, "blend": "replace", "opacity": 0.5, "scale": 1.3, "offset_y": -7.0}),
    ("hills", {"blend": "subtract", "scale": 2.5, "rotation": -61.0, "offset_x": -30.0, "height": 3.0}),
    ("mesa", {"blend": "min", "offset_x": -12.0, "radius": 10.0, "height": 15.0}),
)


@pytest.mark.parametrize("fit", [False, True])
def test_windows_equal_the_whole(fit):
    r = Recipe("noise", 11, (57, 70), {}, (("box_blur", {"radius": 3.0}),), 1.5, 20.0, fit_height=fit, sources=SOURCES)
    whole = r.evaluate()
    ranges = r.world_ranges()
    assert len(ranges) == 3 and ranges[2][0] is None and ranges[2][1] is not None
    for w in (Window(0, 0, 20, 23), Window(13, 31, 30, 39), Window(40, 5, 17, 65)):
        part = whole[w.row : w.row + w.rows, w.col : w.col + w.cols]
        assert np.array_equal(r.evaluate(w, ranges), part)
        assert np.array_equal(r.evaluate(w, ranges[:2]), part)  # the sources' ranges computed when left out


def test_sources_are_deterministic_and_seeded_apart():
    r = _recipe(SOURCES)
    a, b = r.evaluate(), _recipe(SOURCES).evaluate()
    assert np.array_equal(a, b)
    assert source_seed(5, 1) != source_seed(5, 3) != 5
    digest = hashlib.sha256(a.tobytes()).hexdigest()
    assert digest == hashlib.sha256(Recipe.from_json(r.to_json()).evaluate().tobytes()).hexdigest()
    same_type = _recipe((("fractal", {"blend": "replace"}), ("fractal", {"blend": "replace"})))
    first_only = _recipe((("fractal", {"blend": "replace"}),))
    assert not np.array_equal(same_type.evaluate(), first_only.evaluate())  # the second has its own seed


def test_image_stamp_reads_npy(tmp_path):
    img = np.zeros((5, 9), dtype=np.float32)
    img[2, 4] = 4.0
    path = tmp_path / "bump.npy"
    np.save(path, img)
    r = _recipe((("image", {"image": str(path), "radius": 8.0, "height": 4.0, "offset_x": 4.0}),))
    added = r.evaluate().astype(np.float64) * 20.0 - _recipe(()).evaluate().astype(np.float64) * 20.0
    assert np.unravel_index(np.argmax(added), added.shape) == (20, 22)
    assert abs(added.max() - 4.0) < 1e-4
    with pytest.raises(ValueError, match=r"image\.image: .*must be one of"):
        _recipe((("image", {"image": str(tmp_path / "a.png")}),)).evaluate()
    with pytest.raises(ValueError, match=r"image\.image: no such file"):
        _recipe((("image", {"image": str(tmp_path / "missing.npy")}),)).evaluate()


def test_spec_sources_json_schema_and_set():
    spec = TerrainSpec(size=33)
    assert "sources" not in spec.to_dict()
    spec = apply_settings(spec, ["sources[0].type=crater", "sources[0].opacity=0.5", "sources[1].type=fractal"])
    spec = apply_settings(spec, ["sources[1].blend=max", "sources[1].feature_size=40", "sources[0].radius=9"])
    data = spec.to_dict()
    assert data["sources"][0]["type"] == "crater" and data["sources"][0]["opacity"] == 0.5
    assert data["sources"][1]["feature_size"] == 40.0 and data["sources"][1]["blend"] == "max"
    assert load_spec(json.loads(spec.to_json())) == spec
    assert "sources[1].rotation" in setting_paths(spec)
    assert not np.array_equal(spec.heightmap(), TerrainSpec(size=33).heightmap())
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(json_schema()).validate(data)
    # the type changes, the entry's own settings stay
    changed = apply_settings(spec, ["sources[0].type=cone"])
    assert changed.sources[0].key == "cone" and changed.sources[0].settings["opacity"] == 0.5


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"type": "crater", "opacity": 1.5}, r"sources\[0\]\.opacity must be in \[0\.0, 1\.0\]"),
        ({"type": "crater", "blend": "screen"}, r"sources\[0\]\.blend"),
        ({"type": "cone", "radius": 0.0}, r"sources\[0\]\.radius must be in"),
        ({"type": "volcano"}, r"sources\[0\]\.type must be one of"),
        ({"type": "ridge", "count": 3}, r"sources\[0\]: unknown settings count"),
        ({"type": "fractal", "feature_size": -1}, r"sources\[0\]\.feature_size"),
    ],
)
def test_bad_sources_named_by_path(entry, message):
    data = {**TerrainSpec(size=17).to_dict(), "sources": [entry]}
    with pytest.raises((TypeError, ValueError), match=message):
        load_spec(data)


def test_set_errors_name_the_path():
    spec = apply_settings(TerrainSpec(size=17), ["sources[0].type=mesa"])
    with pytest.raises(ValueError, match=r"sources\[0\]\.scale must be in"):
        apply_settings(spec, ["sources[0].scale=0"])
    with pytest.raises(ValueError, match=r"sources\[1\] adds one"):
        apply_settings(spec, ["sources[2].type=cone"])


def test_version_4_spec_without_sources_loads_unchanged():
    data = TerrainSpec(size=33, seed=3).to_dict()
    assert "sources" not in data
    spec = load_spec(data)
    assert spec.sources == () and np.array_equal(spec.heightmap(), TerrainSpec(size=33, seed=3).heightmap())


def test_a_world_of_tiles_with_sources_equals_the_whole():
    """core.world's two passes (ranges of two elements, the sources' computed and cached) give tiles equal to the
    whole, and the world's recipe keeps the spec's sources."""
    from core import world

    spec = TerrainSpec(size=33, width=64.0, height=10.0, generator="noise", filters=(("box_blur", {"radius": 2.0}),))
    spec = spec.replace(sources=tuple((k, v) for k, v in SOURCES[:3]))
    grid = world.TileGrid((49, 65), 17)
    recipe = world.world_recipe(spec, grid.shape)
    assert [k for k, _ in recipe.sources] == ["crater", "fractal", "ridge"]
    ranges = world.world_ranges(recipe, grid)
    raw = world.combine_ranges(world.raw_range(recipe, grid.window(ty, tx)) for ty, tx in grid.indices())
    filtered = world.combine_ranges(world.filtered_range(recipe, grid.window(*t), raw) for t in grid.indices())
    assert (raw, filtered) == ranges[:2] and ranges[2] == recipe.source_ranges()  # the tile passes' form, and whole
    whole = recipe.evaluate()
    for ty, tx in grid.indices():
        w = grid.window(ty, tx)
        for given in (ranges, (raw, filtered)):
            tile = world.tile_heights(recipe, w, given)
            assert np.array_equal(tile, whole[w.row : w.row + w.rows, w.col : w.col + w.cols])


def test_the_coarse_pass_of_a_global_filter_keeps_the_sources():
    from core import world

    spec = TerrainSpec(size=33, width=64.0, filters=(("thermal", {}),)).replace(sources=(("crater", {}),))
    grid = world.TileGrid((33, 33), 17)
    recipe = world.world_recipe(spec, grid.shape)
    plan = world.coarse_plan(recipe, grid)
    assert plan is not None and plan.prefix.sources == recipe.sources and plan.prefix.filters == ()
