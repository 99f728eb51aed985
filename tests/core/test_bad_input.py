"""Bad input gets a clear error naming the parameter, and never NaN/Inf out."""

import re

import numpy as np
import pytest

import core
from core import rng
from core.generators.hills import MAX_HILL_WORK, HillSet, add_hill, hill_parameters, raw_hills


def test_normalize_survives_spans_beyond_float64():
    out = core.normalize(np.array([[-1.7e308, 0.0, 1.7e308]]))
    assert np.isfinite(out).all() and out[0].tolist() == pytest.approx([0.0, 0.5, 1.0])


def test_normalize_with_a_range_clips_into_0_1():
    out = core.normalize(np.array([[1e300, 0.0, 5.0, -3.0]]), (0.0, 1.0))
    assert out[0].tolist() == [1.0, 0.0, 1.0, 0.0]


@pytest.mark.parametrize(
    ("value_range", "error"),
    [(5, TypeError), ((1,), TypeError), ({0, 1}, TypeError), ((0, 1, 2), TypeError), ((2, 1), ValueError)],
)
def test_normalize_value_range_must_be_a_pair(value_range, error):
    with pytest.raises(error, match="value_range"):
        core.normalize(np.zeros((2, 2)), value_range)


def test_masked_and_ragged_arrays_are_refused_by_name():
    with pytest.raises(TypeError, match="heightmap must not be a masked array"):
        core.normalize(np.ma.masked_array(np.zeros((2, 2)), mask=[[1, 0], [0, 0]]))
    with pytest.raises(ValueError, match="heightmap must be a rectangular"):
        core.normalize([[1.0, 2.0], [3.0]])


def test_huge_integers_are_value_errors():
    with pytest.raises(ValueError, match="exponent must be in .* too large"):
        core.flatten(np.zeros((2, 2)), 10**400)
    with pytest.raises(ValueError, match="azimuth"):
        core.light_direction(10**400)


def test_azimuth_is_taken_modulo_360_even_when_huge():
    assert core.light_direction(1e300) == core.light_direction(1e300 % 360.0)


def test_colormap_stays_finite_for_extreme_heights():
    layers = (core.Layer("a", (0.5, 0.5, 0.5), 0.1, 0.5, 0.9),)
    out = core.colormap(np.array([[-1.7e308, 0.0, 1e17]]), layers)
    assert np.isfinite(out).all()
    snow = core.colormap(np.array([[1e17]]))[0, 0]
    assert snow.tolist() == pytest.approx(core.DEFAULT_LAYERS[2].color, abs=1e-4)
    with pytest.raises(ValueError, match=r"layers\[0\].maximum must be in \[-1000000.0, 1000000.0\]"):
        core.colormap(np.zeros((1, 1)), (core.Layer("a", (0, 0, 0), 0.0, 1.0, 1e308),))
    with pytest.raises(TypeError, match=r"layers\[0\].color must be an \(r, g, b\) tuple"):
        core.colormap(np.zeros((1, 1)), (core.Layer("a", None, 0.0, 0.5, 1.0),))


@pytest.mark.parametrize(
    ("index", "error"),
    [(1.5, TypeError), (True, TypeError), ("3", TypeError), ([1, 2], TypeError), (2**63, ValueError)],
)
def test_sub_seed_indices_must_be_integers(index, error):
    with pytest.raises(error, match=r"indices\[0\]"):
        rng.sub_seed(1, "s", index)


def test_stream_must_encode():
    with pytest.raises(ValueError, match="stream"):
        rng.uniform(1, "\ud800", 0)


def test_add_hill_checks_its_arguments():
    with pytest.raises(TypeError, match="heightmap must be a 2-D float64"):
        add_hill(np.zeros((4, 4), dtype=np.int64), 1, 1, radius=1)
    with pytest.raises(ValueError, match="row must be finite"):
        add_hill(np.zeros((4, 4)), float("nan"), 1, radius=1)
    with pytest.raises(ValueError, match="radius must be in"):
        add_hill(np.zeros((4, 4)), 1, 1, radius=1e200)


def test_raw_hills_checks_the_hill_set_and_refuses_hours_of_work():
    with pytest.raises(TypeError, match="hills must be a HillSet"):
        raw_hills((8, 8), None)
    with pytest.raises(ValueError, match="same length"):
        raw_hills((8, 8), HillSet(np.zeros(3), np.zeros(2), np.ones(3)))
    big = hill_parameters((8193, 8193), 0, 1_000_000, radius_min=8193, radius_max=8193)
    with pytest.raises(ValueError, match=re.escape(f"more than {MAX_HILL_WORK:.0e}")):
        raw_hills((8193, 8193), big)


def test_fault_and_profile_work_is_bounded():
    from core.generators.faults import fault_formation
    from core.generators.profiles import sectioned_profile

    with pytest.raises(ValueError, match="faults x rows"):
        fault_formation((4097, 4097), 0, faults=100_000)
    with pytest.raises(ValueError, match="displacement_max"):
        fault_formation((4, 4), 0, faults=5, displacement_max=5e-324)
    with pytest.raises(ValueError, match=r"sections x \(smoothing_steps \+ sub_points\)"):
        sectioned_profile(65536, 0, sections=65536, sub_points=2, shift=0.2, smoothing_steps=10**7)


def test_recipe_filter_parameters_are_checked_before_margins():
    from core.recipe import Recipe
    from core.window import Window

    for filters, match in (
        ((("lowpass", {"k": 1.0}),), "k must be in"),
        ((("box_blur", {"passes": float("inf")}),), "passes must be an integer"),
        ((("box_blur", {"passes": -100}),), "passes must be in"),
    ):
        with pytest.raises((ValueError, TypeError), match=match):
            Recipe("hills", 0, (16, 16), {}, filters, version=2).evaluate()
    r = Recipe("hills", 0, (16, 16), version=2)
    for ranges in ({}, (), ((0, 1),), 5):
        with pytest.raises(TypeError, match="ranges must be"):
            r.evaluate(Window(0, 0, 4, 4), ranges)
    for data, error in (
        ({"filters": 5}, TypeError),
        ({"generator": ["hills"]}, ValueError),
        ({"filters": [{"type": ["x"]}]}, ValueError),
    ):
        with pytest.raises(error):
            Recipe.from_dict(data)
    with pytest.raises(ValueError, match="nests 100000 levels deep"):
        Recipe.from_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match=r"window.rows must be in \[1, 33\]"):
        Recipe("hills", 0, (33, 33), version=2).evaluate(Window(0, 0, 34, 33), r.world_ranges())


def test_huge_heights_are_refused_instead_of_overflowing():
    from core import filters
    from core import lighting as shading
    from core.colormap import splat_maps

    with pytest.raises(ValueError, match="z_factor must stay within"):
        shading.hillshade(np.eye(3) * 1e308)
    with pytest.raises(ValueError, match="beyond float32's range"):
        filters.box_blur(np.full((2, 2), 1e39))
    levels = np.concatenate(splat_maps(np.full((1, 1, 3), 1e308)), axis=-1).astype(int)
    assert levels.sum() == 255


def test_an_unbounded_number_says_only_that_it_must_be_finite():
    with pytest.raises(ValueError, match=r"^azimuth must be finite, got nan$"):
        core.slope_lightmap(np.zeros((3, 3)), azimuth=float("nan"))
    with pytest.raises(ValueError, match=r"^softness must be finite and in \[1e-09, "):
        core.slope_lightmap(np.zeros((3, 3)), softness=float("inf"))


def test_filter_work_past_the_users_limit_is_refused_up_front(monkeypatch):
    from core import filters
    from core.recipe import Recipe

    stack = [{"type": "erosion", "k": 0.5, "passes": 1000}] * 3  # 3000 passes over 1025^2: 4.7e9 cell passes
    assert Recipe.from_dict({"shape": [1025, 1025], "filters": stack}).work() == 4_726_275_000  # no limit: accepted
    monkeypatch.setenv("OROGEN_WORK_LIMIT", "60")
    with pytest.raises(
        ValueError,
        match=r"^lowpass.passes: 1000 over 1025 x 1025 cells \(filters\[0\] 'lowpass'\): "
        r"about \d+ (seconds|minutes) of work \(4.73e\+09 cell passes\), "
        r"more than the limit of 60 seconds set by OROGEN_WORK_LIMIT: at this size lowpass.passes must be at most "
        r"\d+ with the rest of the stack as it is: use fewer or a smaller heightmap, or raise the limit$",
    ):
        Recipe.from_dict({"shape": [1025, 1025], "filters": stack}).check_work()
    assert Recipe.from_dict({"shape": [1025, 1025], "filters": stack[:1]}).check_work() > 0  # 1.6e9 is fine
    # On a thin strip the per-line cost dominates: 5000 passes over 2 x 4097 take seconds, not milliseconds.
    monkeypatch.setenv("OROGEN_WORK_LIMIT", "5")
    with pytest.raises(
        ValueError, match=r"^filters: 5000 passes over 2 x 4097 cells: about \d+ (seconds|minutes) of work"
    ):
        Recipe.from_dict({"shape": [2, 4097], "filters": [{"type": "erosion", "passes": 1000}] * 5}).check_work()
    big = np.zeros((2049, 2049), np.float32)
    for function in (filters.box_blur, filters.erosion_filter):
        with pytest.raises(ValueError, match=r"^passes: 1000 passes over 2049 x 2049 cells"):
            function(big, passes=1000)


def test_a_filter_without_its_required_parameter_names_it():
    from core.recipe import Recipe

    with pytest.raises(ValueError, match=r"filters\[0\] \('flatten'\): missing parameters \['exponent'\]"):
        Recipe.from_dict({"filters": [{"type": "flatten"}]})
    with pytest.raises(ValueError, match=r"filters\[1\]: lowpass.passes must be"):
        Recipe.from_dict({"filters": [{"type": "box_blur"}, {"type": "erosion", "passes": -1}]})


@pytest.mark.parametrize("name, message", [("rock\ud800", "lone surrogate"), ("ro\x00ck", "NUL")])
def test_a_layer_name_no_file_or_blender_can_hold_is_refused_by_name(name, message):
    from core.spec import TerrainSpec

    data = TerrainSpec().to_dict()
    data["layers"][1]["name"] = name
    with pytest.raises(ValueError, match=r"layers\[1\]\.name must .*") as err:
        TerrainSpec.from_dict(data)
    assert message.split()[-1] in str(err.value)


@pytest.mark.parametrize("value", ["false", "True", 2, 0.5, None])
def test_a_0_1_boolean_setting_that_is_not_true_or_false_is_refused(value):
    from core.spec import from_v1_settings

    with pytest.raises(ValueError, match="island must be True or False"):
        from_v1_settings({"generator": "hills", "island": value})
    assert from_v1_settings({"generator": "hills", "island": 0}).params["island"] is False
    assert from_v1_settings({"generator": "hills", "island": True}).params["island"] is True
