"""Erosion maps carried out of a recipe evaluation, progress and cancel, and colour layers masked by them."""

import numpy as np
import pytest

from core import colormap, layer_weights
from core.colormap import DEFAULT_LAYERS, Layer, check_layers
from core.erosion.stream_power import stream_power_erosion
from core.erosion.thermal import thermal_erosion
from core.progress import Cancelled
from core.recipe import MAP_NAMES, Recipe
from core.spec import layers_from_data
from core.window import Window

STACK = (("erosion", {"steps": 4}), ("thermal", {"iterations": 4}), ("hydraulic", {"steps": 4, "time": "steps"}))


def recipe(stack=STACK, shape=(33, 40)):
    return Recipe("fractal", 5, shape, {}, stack, cell_size=50.0, height=800.0, version=2)


def test_heights_equal_evaluate_and_every_map_is_made():
    r = recipe()
    h, maps = r.evaluate_with_maps()
    assert np.array_equal(h, r.evaluate())
    # every map but the glacial and the rivers filters'
    assert set(maps) == set(MAP_NAMES) - {"ice_thickness", "lake_depth", "river_width", "river_depth"}
    for values in maps.values():
        assert values.dtype == np.float32 and values.shape == (33, 40) and np.isfinite(values).all()
    assert maps["drainage_area"].min() >= 50.0**2
    assert set(np.unique(maps["flow_direction"])) <= set(range(-1, 8))
    assert min(maps[n].min() for n in ("water_depth", "deposited", "removed")) >= 0.0


def test_stream_power_maps_are_the_filters_own():
    r = recipe(STACK[:1])
    h, maps = r.evaluate_with_maps()
    start = (
        Recipe("fractal", 5, (33, 40), {}, (), cell_size=50.0, height=800.0, version=2).evaluate().astype(np.float64)
    )
    v3 = {"diffusion_scheme": "peaceman_rachford", "flats": "first"}  # a version-2 recipe runs version 3's schemes
    result = stream_power_erosion(start * 800.0, 50.0, uplift=1e-3 * start, steps=4, dt=2e4, **v3)
    assert np.array_equal(maps["drainage_area"], result.drainage_area)
    assert np.array_equal(maps["flow_direction"], result.direction.astype(np.float32))
    assert np.array_equal(maps["removed"], np.maximum(result.eroded, 0.0).astype(np.float32))
    assert np.array_equal(maps["deposited"], np.maximum(-result.eroded, 0.0).astype(np.float32))
    assert "water_depth" not in maps


def test_deposited_and_removed_sum_over_the_erosion_filters():
    start = Recipe("fractal", 5, (33, 40), {}, (), cell_size=50.0, height=800.0, version=2).evaluate()
    first = thermal_erosion(
        start * np.float32(800.0), talus_angle=30.0, cell_size=50.0, steps=3, rate=0.5, edges="closed"
    )
    second = thermal_erosion(first.heights, talus_angle=30.0, cell_size=50.0, steps=2, rate=0.5, edges="closed")
    stack = (("thermal", {"talus_angle": 30.0, "iterations": 3}), ("thermal", {"talus_angle": 30.0, "iterations": 2}))
    _, maps = recipe(stack).evaluate_with_maps()
    assert set(maps) == {"deposited", "removed"}
    assert np.allclose(maps["deposited"], first.deposited + second.deposited, atol=1e-4)
    assert np.allclose(maps["removed"], first.removed + second.removed, atol=1e-4)


def test_no_erosion_no_maps_and_windows_unchanged():
    r = recipe((("box_blur", {"passes": 2}),))
    h, maps = r.evaluate_with_maps()
    assert maps == {} and np.array_equal(h, r.evaluate())
    eroding = recipe()
    ranges = eroding.world_ranges()
    whole = eroding.evaluate()
    assert np.array_equal(eroding.evaluate(Window(0, 0, 33, 20), ranges), whole[:, :20])


def test_progress_counts_up_to_the_total_and_false_cancels():
    r = recipe()
    calls = []
    r.evaluate_with_maps(lambda done, total: calls.append((done, total)))
    totals = {t for _, t in calls}
    done = [d for d, _ in calls]
    assert done == sorted(done) and done[0] == 1 and done[-1] == max(totals)
    assert len(calls) >= 1 + 4 + 4 + 4
    assert totals == {1 + 4 * 40 + 4 * 5 + 4 * 6}
    for stop_at in (1, 2, 170, 190):  # in the generator, stream power, thermal and hydraulic
        with pytest.raises(Cancelled):
            r.evaluate_with_maps(lambda d, _t, s=stop_at: d < s)
    with pytest.raises(TypeError, match="progress"):
        r.evaluate_with_maps(progress=3)


RIVER = Layer("river", (0.0, 0.1, 0.7), -1.0, 0.5, 2.0, mask="drainage", mask_min=1e5, mask_max=1e15)


def test_a_masked_layer_is_present_exactly_where_its_map_is_in_range():
    h, maps = recipe().evaluate_with_maps()
    w = layer_weights(h, (*DEFAULT_LAYERS, RIVER), None, maps=maps)
    inside = maps["drainage_area"] >= 1e5
    assert 0 < inside.sum() < inside.size
    assert (w[..., 3][inside] > 0.2).all() and (w[..., 3][~inside] < 1e-6).all()
    assert np.allclose(w.sum(axis=-1), 1.0, atol=1e-6)
    # outside the mask the other layers' weights are those without the river layer
    plain = layer_weights(h, DEFAULT_LAYERS)
    assert np.allclose(w[..., :3][~inside], plain[~inside], atol=1e-6)
    rgb = colormap(h, (*DEFAULT_LAYERS, RIVER), None, maps=maps)
    assert np.allclose(rgb[~inside], colormap(h, DEFAULT_LAYERS)[~inside], atol=1e-6)


def test_without_its_map_a_masked_layer_is_absent():
    h = recipe(()).evaluate()
    assert layer_weights(h, (*DEFAULT_LAYERS, RIVER))[..., 3].max() < 1e-6
    assert layer_weights(h, (*DEFAULT_LAYERS, RIVER), None, maps={})[..., 3].max() < 1e-6


def test_mask_parameters_are_checked_and_declared():
    with pytest.raises(ValueError, match="mask must be one of"):
        check_layers([Layer("x", (0, 0, 0), 0.0, 0.5, 1.0, mask="rivers")])
    with pytest.raises(ValueError, match="mask_min"):
        check_layers([Layer("x", (0, 0, 0), 0.0, 0.5, 1.0, mask="water", mask_min=0.0)])
    with pytest.raises(ValueError, match="mask_min <= mask_max"):
        check_layers([Layer("x", (0, 0, 0), 0.0, 0.5, 1.0, mask="water", mask_min=2.0, mask_max=1.0)])
    (lay,) = layers_from_data(
        [
            {
                "name": "sediment",
                "color": [0.5, 0.4, 0.3],
                "minimum": -1,
                "optimal": 0.5,
                "maximum": 2,
                "mask": "deposited",
                "mask_min": 0.5,
            }
        ]
    )
    assert (lay.mask, lay.mask_map, lay.mask_min, lay.mask_max) == ("deposited", "deposited", 0.5, 1e15)
    h = np.zeros((4, 4), np.float32)
    with pytest.raises(ValueError, match="shape"):
        layer_weights(h, (lay,), None, maps={"deposited": np.zeros((3, 3))})
