import json

import numpy as np
import pytest

import core
from core.recipe import FILTERS, GENERATORS, Recipe
from core.window import Window

#: The generators that make a terrain from a seed alone (the sources read a file or an object:
#: tests/core/test_sources.py).
MADE = sorted(key for key, g in GENERATORS.items() if not g.metres)

STACK = (("box_blur", {"passes": 2}), ("terrace", {"levels": 6, "smoothness": 0.8}))


def test_hills_recipe_equals_circle_hills():
    params = {"count": 40, "radius_min": 3, "radius_max": 9}
    r = Recipe("hills", 11, (64, 48), params, (("flatten", {"exponent": 1.5}),), version=2)
    assert np.array_equal(
        r.evaluate(), core.circle_hills((64, 48), 11, count=40, radius_min=3, radius_max=9, flattening=1.5)
    )


def test_json_round_trip():
    r = Recipe("noise", 3, (30, 40), {"hill_radius": (2, 5), "pits": 4}, STACK, version=2)
    text = r.to_json()
    assert json.loads(text)["filters"][0] == {"type": "box_blur", "passes": 2}
    back = Recipe.from_json(text)
    assert back == r
    assert np.array_equal(back.evaluate(), r.evaluate())


@pytest.mark.parametrize("generator", MADE)
def test_every_generator_spans_0_to_1_with_the_exact_shape(generator):
    for shape in [(100, 60), (2, 2), (4097, 1)]:
        h = Recipe(generator, 1, shape, {}, STACK, version=2).evaluate()
        assert h.shape == shape and h.dtype == np.float32
        assert np.isfinite(h).all() and h.min() == 0.0 and h.max() in (0.0, 1.0)


@pytest.mark.parametrize("generator", MADE)
def test_windows_are_bit_identical_to_the_whole(generator):
    r = Recipe(generator, 5, (150, 110), {}, STACK, version=2)
    whole, ranges = r.evaluate(), r.world_ranges()
    rng = np.random.default_rng(1)
    for _ in range(12):
        row, col = int(rng.integers(0, 150)), int(rng.integers(0, 110))
        win = Window(row, col, int(rng.integers(1, 151 - row)), int(rng.integers(1, 111 - col)))
        assert np.array_equal(r.evaluate(win, ranges), whole[row : row + win.rows, col : col + win.cols])
    # The raw generator on its own, too.
    raw = GENERATORS[generator].function((150, 110), 5)
    part = GENERATORS[generator].function((150, 110), 5, window=Window(40, 30, 50, 60))
    assert np.array_equal(part, raw[40:90, 30:90])


@pytest.mark.parametrize("generator", MADE)
def test_windows_with_the_erosion_filter_match_within_1e_6(generator):
    r = Recipe(
        generator, 2, (160, 120), {}, (("lowpass", {"k": 0.7, "passes": 2}), ("box_blur", {"passes": 1})), version=2
    )
    whole, ranges = r.evaluate(), r.world_ranges()
    for win in (Window(10, 20, 70, 50), Window(100, 0, 60, 120), Window(0, 60, 1, 60)):
        part = r.evaluate(win, ranges)
        assert np.abs(part - whole[win.row : win.row + win.rows, win.col : win.col + win.cols]).max() <= 1e-6


def test_a_window_needs_the_world_ranges():
    with pytest.raises(ValueError, match="ranges are required"):
        Recipe("hills", 0, (20, 20), version=2).evaluate(Window(0, 0, 5, 5))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"generator": "perlin"}, ValueError, "generator must be one of"),
        ({"params": {"bogus": 1}}, ValueError, r"unknown parameters bogus"),
        ({"filters": (("blur", {}),)}, ValueError, "filters\\[0\\] must be one of"),
        ({"filters": (("lowpass", {"kk": 1}),)}, ValueError, "unknown parameters"),
        ({"seed": -1}, ValueError, "seed must be in"),
        ({"shape": (0, 5)}, ValueError, "rows"),
        ({"shape": (2**21, 5)}, ValueError, r"rows\) must be in \[1, 1048577\]"),
    ],
)
def test_bad_recipes(kwargs, error, match):
    with pytest.raises(error, match=match):
        Recipe(**kwargs, version=2)


def test_a_world_larger_than_one_heightmap_is_evaluated_in_windows_only():
    world = Recipe("fractal", 3, (100_000, 100_000), filters=(("box_blur", {"passes": 2}),), version=2)
    with pytest.raises(ValueError, match="at most"):
        world.evaluate()
    with pytest.raises(ValueError, match="window .* at most"):
        world.raw_heights(Window(0, 0, 10_000, 10_000))
    raw = world.raw_heights(Window(5000, 70_000, 16, 16))
    low, high = float(raw.min()), float(raw.max())
    tile = world.evaluate(Window(5000, 70_000, 16, 16), ((low, high), (0.0, 1.0)))
    assert tile.shape == (16, 16) and tile.dtype == np.float32


def test_bad_parameter_values_fail_when_evaluated_with_named_errors():
    with pytest.raises(ValueError, match="roughness"):
        Recipe("diamond_square", params={"roughness": 0}, version=2).evaluate()
    with pytest.raises(ValueError, match="count"):
        Recipe("hills", params={"count": -3}, version=2).evaluate()


def test_filters_registry_names():
    assert {"flatten", "box_blur", "lowpass", "terrace", "sea_level", "erosion", "thermal", "hydraulic"} <= set(FILTERS)


def test_recipe_json_errors_say_it_is_the_recipe():
    with pytest.raises(ValueError, match="the recipe is not valid JSON: Exceeds the limit"):
        Recipe.from_json('{"seed": ' + "9" * 5000 + "}")
    with pytest.raises(ValueError, match="the recipe is not valid JSON: Expecting"):
        Recipe.from_json("{seed: 1}")
    with pytest.raises(TypeError, match="a recipe's JSON must be text, got dict"):
        Recipe.from_json({"seed": 1})


def test_too_much_work_names_the_setting_and_its_most(monkeypatch):
    # `--set steps=100000` used to be refused as "filters: 4000000 passes ...", naming neither; now only past
    # the limit the user set (OROGEN_WORK_LIMIT), which the message names with the most steps it allows
    from core.erosion.stream_power import stream_power_passes
    from core.filters import filter_work
    from core.spec import TerrainSpec, apply_settings
    from core.work import GROWTH, WORK_PER_SECOND, limit_work

    spec = TerrainSpec(size=65).replace(filters=(("erosion", {}),))
    assert apply_settings(spec, ["steps=100000"]).recipe().work_seconds() > 120  # minutes, but no limit is set
    monkeypatch.setenv("OROGEN_WORK_LIMIT", "1min")
    with pytest.raises(
        ValueError,
        match=r"erosion.steps: 100000 over 65 x 65 cells \(filters\[0\] 'erosion'\): "
        r"about \d+ (minutes|hours) of work .*"
        r"more than the limit of 60 seconds set by OROGEN_WORK_LIMIT: .* must be at most (\d+) ",
    ) as err:
        apply_settings(spec, ["steps=100000"]).recipe().check_work()
    most = int(err.value.args[0].split("at most ")[1].split()[0])
    limit = limit_work(65 * 65)
    assert limit == int(60 * WORK_PER_SECOND / (65**2 / 1025**2) ** GROWTH)  # small maps do more passes a second
    assert (
        filter_work((65, 65), stream_power_passes(most)) <= limit < filter_work((65, 65), stream_power_passes(most + 1))
    )
    apply_settings(spec, [f"steps={most}"]).recipe().check_work()
