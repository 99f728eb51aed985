"""Masks of filters (core/masks.py): each source's values on hand-made heightmaps, the ramps, the blend, windows,
the spec's JSON and --set paths, and bad values named by their path."""

import json
import math
import warnings

import numpy as np
import pytest

import core
import core.world
from core import inputs
from core.masks import (
    MASK_PARAMS,
    aspect_degrees,
    blend_masked,
    default_mask,
    feather_ramp,
    mask_margin,
    mask_weights,
    sample_grid,
)
from core.recipe import Recipe
from core.spec import SPEC_VERSION, TerrainSpec, apply_settings
from core.window import Window


def mask(**values):
    return {**default_mask(), **values}


def plane(rows, cols, rise_per_row, cell=1.0):
    """Heights in metres rising southwards by ``rise_per_row`` per row (faces north, downhill to row 0)."""
    return np.repeat((np.arange(rows, dtype=np.float64) * rise_per_row)[:, None], cols, axis=1).astype(np.float32)


# --- sources ------------------------------------------------------------------------------------------------
def test_a_plane_of_known_slope_is_in_or_out_of_the_slope_range():
    h = plane(9, 7, math.tan(math.radians(30.0)) * 2.0, cell=2.0)  # 30 degrees at 2 m cells
    inside = mask_weights(mask(source="slope", low=29.0, high=31.0), h, cell_size=2.0, height=1.0)
    outside = mask_weights(mask(source="slope", low=0.0, high=25.0), h, cell_size=2.0, height=1.0)
    assert inside.dtype == np.float32 and inside.shape == (9, 7)
    assert np.all(inside == 1.0) and np.all(outside == 0.0)
    # feathered: 5 degrees beyond the range over a 10-degree ramp is smoothstep's midpoint
    ramp = mask_weights(mask(source="slope", low=0.0, high=25.0, feather=10.0), h, cell_size=2.0, height=1.0)
    np.testing.assert_allclose(ramp, 0.5, atol=1e-5)


def test_height_is_in_metres_of_the_heights_times_height():
    h = np.array([[0.0, 0.25, 0.5, 0.75, 1.0]], np.float32)  # x 40 m = 0, 10, 20, 30, 40 m
    w = mask_weights(mask(source="height", low=15.0, high=25.0, feather=10.0), h, cell_size=1.0, height=40.0)
    # distances outside 15..25 m: 15, 5, 0, 5, 15 -> ramp 0, 0.5, 1, 0.5, 0
    np.testing.assert_array_equal(w, np.array([[0.0, 0.5, 1.0, 0.5, 0.0]], np.float32))


def test_a_cones_aspect_faces_away_from_its_peak():
    n = 21
    y, x = np.mgrid[0:n, 0:n].astype(np.float64) - 10.0
    cone = (20.0 - np.hypot(x, y)).astype(np.float32)
    aspect = aspect_degrees(cone, 1.0)
    # north of the peak (smaller rows) faces north, east faces east, south 180, west 270
    assert aspect[3, 10] == pytest.approx(0.0, abs=1e-9)
    assert aspect[10, 17] == pytest.approx(90.0, abs=1e-9)
    assert aspect[17, 10] == pytest.approx(180.0, abs=1e-9)
    assert aspect[10, 3] == pytest.approx(270.0, abs=1e-9)
    assert aspect[3, 17] == pytest.approx(45.0, abs=1e-9)
    north = mask_weights(mask(source="aspect", low=-45.0, high=45.0), cone, cell_size=1.0, height=1.0)
    assert north[3, 10] == 1.0 and north[3, 17] == 1.0 and north[3, 3] == 1.0  # 0, 45 and 315 degrees
    assert north[17, 10] == 0.0 and north[10, 17] == 0.0 and north[10, 3] == 0.0
    # the arc wraps through north: 315..405 is the same arc
    wrapped = mask_weights(mask(source="aspect", low=315.0, high=405.0), cone, cell_size=1.0, height=1.0)
    np.testing.assert_array_equal(wrapped, north)
    # a flat map has no aspect: weight 0 even for the whole circle
    flat = mask_weights(
        mask(source="aspect", low=0.0, high=360.0), np.zeros((4, 4), np.float32), cell_size=1.0, height=1.0
    )
    assert np.all(flat == 0.0)


def test_the_drainage_of_a_v_valley_grows_down_its_floor():
    rows, cols, c = 12, 9, 4
    col = np.abs(np.arange(cols) - c)[None, :].astype(np.float64)
    row = (rows - 1 - np.arange(rows))[:, None].astype(np.float64)
    h = (col * 1.0 + row * 0.1).astype(np.float32)  # sides steeper than the floor: lateral flow, then south
    # every border cell is an outlet; interior row r's cells reach the floor, which carries rows 1..r south
    area_of_floor = {r: r * (cols - 2) for r in range(1, rows - 1)}
    for r, cells in area_of_floor.items():
        w = mask_weights(mask(source="drainage", low=cells - 0.5, high=cells + 0.5), h, cell_size=1.0, height=1.0)
        assert w[r, c] == 1.0, r
        assert np.count_nonzero(w) == 1, r
    w = mask_weights(mask(source="drainage", low=(rows - 2) * (cols - 2) + 1.0, high=1e9), h, cell_size=1.0, height=1.0)
    assert np.flatnonzero(w).tolist() == [(rows - 1) * cols + c]  # the outlet at the south edge
    # cells are 2 m: areas are 4 m² per cell
    w2 = mask_weights(
        mask(source="drainage", low=4.0 * 10 * 7 - 1, high=4.0 * 10 * 7 + 1), h, cell_size=2.0, height=2.0
    )
    assert np.flatnonzero(w2).tolist() == [10 * cols + c]


def test_noise_is_seeded_within_0_1_and_windows_equal_the_whole():
    h = np.zeros((40, 30), np.float32)
    m = mask(source="noise", low=0.0, high=0.5, feather=0.2, noise_size=8.0)
    a = mask_weights(m, h, cell_size=1.0, height=1.0, seed=3)
    b = mask_weights(m, h, cell_size=1.0, height=1.0, seed=4)
    assert np.array_equal(a, mask_weights(m, h, cell_size=1.0, height=1.0, seed=3))
    assert not np.array_equal(a, b)
    assert 0.0 <= a.min() and a.max() <= 1.0 and 0.0 < a.mean() < 1.0
    win = Window(5, 7, 20, 11)
    part = mask_weights(m, h[5:25, 7:18], cell_size=1.0, height=1.0, world_shape=(40, 30), window=win, seed=3)
    assert np.array_equal(part, a[5:25, 7:18])


def test_an_image_is_scaled_by_its_own_range_and_stretched_over_the_world(tmp_path):
    path = str(tmp_path / "mask.npy")
    np.save(path, np.array([[0.0, 10.0], [20.0, 40.0]], np.float32))
    h = np.zeros((3, 3), np.float32)
    w = mask_weights(mask(source="image", image=path, low=0.0, high=0.25, feather=0.5), h, cell_size=1.0, height=1.0)
    # image values 0, .25, .5, 1 at the corners; bilinear between: centre (0+.25+.5+1)/4 = .4375
    values = np.array([[0.0, 0.125, 0.25], [0.25, 0.4375, 0.625], [0.5, 0.75, 1.0]])
    np.testing.assert_allclose(w, values * feather_ramp(np.maximum(values - 0.25, 0.0), 0.5), atol=1e-6)
    # the default range takes every value: the image is the weight
    direct = mask_weights(mask(source="image", image=path), h, cell_size=1.0, height=1.0)
    np.testing.assert_allclose(direct, values, atol=1e-7)
    with pytest.raises(ValueError, match=r"mask\.image: .*\.png.* must be one of .*save as 16-bit TIFF"):
        mask_weights(mask(source="image", image=str(tmp_path / "a.png")), h, cell_size=1.0, height=1.0)
    with pytest.raises(ValueError, match=r"mask\.image"):
        mask_weights(mask(source="image", image=str(tmp_path / "missing.npy")), h, cell_size=1.0, height=1.0)


def test_weights_are_read_from_the_inputs_and_resampled():
    painted = np.zeros((5, 5), np.float32)
    painted[:, 3:] = 1.0
    h = np.zeros((5, 5), np.float32)
    m = mask(source="weights", group="Rock", low=0.5, high=1.0)
    with inputs.using({("weights", "Rock"): inputs.WeightsInput(painted, "Rock")}):
        w = mask_weights(m, h, cell_size=1.0, height=1.0)
        fine = mask_weights(m, np.zeros((9, 9), np.float32), cell_size=0.5, height=1.0)
    np.testing.assert_array_equal(w, (painted >= 0.5).astype(np.float32))
    assert np.all(fine[:, 6:] == 1.0) and np.all(fine[:, :5] == 0.0)  # 9 columns over 5: 0.5 at column 5
    assert fine[0, 5] == 0.5  # the interpolated 0.5 is in the inclusive range: its weight is itself
    with pytest.raises(ValueError, match=r"mask\.group: no weights 'Rock' was given"):
        mask_weights(m, h, cell_size=1.0, height=1.0)


def test_sample_grid_matches_the_resampler_and_windows():
    rng = np.random.default_rng(1)
    grid = rng.random((6, 5)).astype(np.float32)
    whole = sample_grid(grid, (11, 9), Window(0, 0, 11, 9))
    expected = core.resample.resample_points(grid.astype(np.float64).reshape(-1, 1), (6, 5), (11, 9), smooth=True)
    np.testing.assert_allclose(whole, expected.reshape(11, 9), atol=1e-7)
    assert np.array_equal(sample_grid(grid, (11, 9), Window(3, 2, 5, 6)), whole[3:8, 2:8])


# --- ramps, blur, invert, strength --------------------------------------------------------------------------
def test_feather_ramp_values():
    np.testing.assert_array_equal(feather_ramp([0.0, 0.25, 0.5, 1.0, 3.0], 1.0), [1.0, 0.84375, 0.5, 0.0, 0.0])
    np.testing.assert_array_equal(feather_ramp([0.0, 1e-9, 2.0], 0.0), [1.0, 0.0, 0.0])


def test_invert_strength_and_blur():
    h = np.array([[0.0, 1.0]], np.float32).repeat(4, axis=0)
    base = mask(source="height", low=0.5, high=2.0)
    np.testing.assert_array_equal(mask_weights(base, h, cell_size=1.0, height=1.0)[0], [0.0, 1.0])
    np.testing.assert_array_equal(mask_weights({**base, "invert": True}, h, cell_size=1.0, height=1.0)[0], [1.0, 0.0])
    np.testing.assert_array_equal(
        mask_weights({**base, "strength": 0.25}, h, cell_size=1.0, height=1.0)[0], [0.0, 0.25]
    )
    big = np.zeros((1, 41), np.float32)
    big[0, 21:] = 1.0
    blurred = mask_weights({**base, "blur": 3.0}, big, cell_size=1.0, height=1.0)[0]
    assert np.all(np.diff(blurred) >= 0) and 0.0 < blurred[20] < 0.5 < blurred[21] < 1.0
    assert blurred[0] == pytest.approx(0.0, abs=1e-6) and blurred[-1] == pytest.approx(1.0, abs=1e-6)
    assert np.array_equal(mask_weights(default_mask(), h, cell_size=1.0, height=1.0), np.ones((4, 2), np.float32))


def test_margins():
    assert mask_margin(None, 1.0) == 0 and mask_margin(default_mask(), 1.0) == 0
    assert mask_margin(mask(source="height"), 1.0) == 0 and mask_margin(mask(source="noise"), 1.0) == 0
    assert mask_margin(mask(source="slope"), 1.0) == 1
    assert mask_margin(mask(source="drainage"), 1.0) >= 1 << 30
    assert mask_margin(mask(source="height", blur=4.0), 2.0) == core.filters.gaussian_margin(2.0)


def test_blend_is_exact_at_both_ends_and_weights_the_maps():
    before = np.array([0.3, 0.7, 0.1], np.float32)
    after = np.array([0.1, 0.2, 0.9], np.float32)
    w = np.array([0.0, 1.0, 0.5], np.float32)
    out = blend_masked(before, after, w)
    assert out[0] == before[0] and out[1] == after[1] and out[2] == pytest.approx(0.5)
    maps = {"deposited": np.ones(3, np.float32)}
    own = {"deposited": np.full(3, 2.0, np.float32), "drainage_area": np.full(3, 5.0, np.float32)}
    blend_masked(before, after, w, maps=maps, own=own)
    np.testing.assert_array_equal(maps["deposited"], [1.0, 3.0, 2.0])
    np.testing.assert_array_equal(maps["drainage_area"], [5.0, 5.0, 5.0])


# --- in a spec ---------------------------------------------------------------------------------------------
def spec_with(filters, **world):
    return TerrainSpec(
        size=world.pop("size", 49), seed=world.pop("seed", 5), generator="noise", filters=filters, **world
    )


def test_a_masked_filter_changes_nothing_outside_its_mask():
    plain = spec_with(())
    blurred = spec_with((("box_blur", {"radius": 3.0}),))
    m = mask(source="height", low=10.0, high=1e9)  # the upper half of 0..20 m
    masked = spec_with((core.spec.Step("box_blur", {"radius": 3.0}, True, m),))
    h0, h1, hm = plain.heightmap(), blurred.heightmap(), masked.heightmap()
    w = mask_weights(m, h0, cell_size=plain.cell_size, height=plain.height)
    assert 0 < np.count_nonzero(w) < w.size
    assert np.array_equal(hm[w == 0], h0[w == 0])
    assert np.array_equal(hm[w == 1], h1[w == 1])


def test_strength_0_and_source_none_change_nothing():
    blurred = spec_with((("box_blur", {"radius": 3.0}),))
    off = spec_with((core.spec.Step("box_blur", {"radius": 3.0}, True, mask(source="slope", strength=0.0)),))
    none = spec_with((core.spec.Step("box_blur", {"radius": 3.0}, True, mask(low=3.0, strength=0.5)),))
    assert np.array_equal(off.heightmap(), spec_with(()).heightmap())
    assert np.array_equal(none.heightmap(), blurred.heightmap())
    assert none.recipe().masks == () and none.recipe() == blurred.recipe()


@pytest.mark.parametrize(
    "m",
    [
        mask(source="slope", low=5.0, high=40.0, feather=5.0, blur=2.0),
        mask(source="curvature", low=0.0, high=1.0, feather=0.01),
        mask(source="aspect", low=90.0, high=270.0, feather=30.0),
        mask(source="noise", low=0.4, high=1.0, feather=0.2, noise_size=10.0, noise_seed=3),
        mask(source="drainage", low=50.0, high=1e12, feather=50.0, invert=True),
    ],
    ids=lambda m: m["source"],
)
def test_windows_equal_the_whole_with_masks(m):
    spec = spec_with(
        (
            core.spec.Step("box_blur", {"radius": 2.0}, True, m),
            core.spec.Step(
                "terrace", {"levels": 5, "smoothness": 0.5}, True, mask(source="height", low=8.0, high=15.0)
            ),
        ),
        size=61,
    )
    r = spec.recipe()
    own = r.filter_margins(r.filters)  # the filters' own margins; the stack's adds each mask's
    assert r.filter_margins() == [own[0] + mask_margin(m, r.cell_size), own[1]]
    whole = r.evaluate()
    ranges = r.world_ranges()
    for win in (Window(0, 0, 20, 25), Window(17, 30, 30, 31), Window(40, 5, 21, 20)):
        part = r.evaluate(win, ranges)
        assert np.array_equal(part, whole[win.row : win.row + win.rows, win.col : win.col + win.cols]), win


def test_the_json_holds_a_mask_only_when_set_and_round_trips():
    spec = spec_with((("box_blur", {"radius": 2.0}),))
    assert "mask" not in spec.to_dict()["filters"][0]
    text = spec.to_json()
    assert TerrainSpec.from_json(text) == spec
    data = json.loads(text)
    data["filters"][0]["mask"] = {"source": "slope", "low": 10, "high": 50}
    back = TerrainSpec.from_dict(data)
    assert back.filters[0].mask == mask(source="slope", low=10.0, high=50.0)
    assert back.to_dict()["filters"][0]["mask"] == {**mask(source="slope", low=10.0, high=50.0)}
    assert TerrainSpec.from_json(back.to_json()) == back
    assert back.to_dict()["version"] == SPEC_VERSION
    recipe = back.recipe()
    assert Recipe.from_json(recipe.to_json()) == recipe
    assert json.loads(recipe.to_json())["filters"][0]["mask"]["source"] == "slope"
    schema = core.json_schema()
    entry = schema["properties"]["filters"]["items"]["oneOf"][0]["allOf"][1]["properties"]
    assert set(entry["mask"]["properties"]) == {p.name for p in MASK_PARAMS}


def test_set_paths_reach_every_filters_mask():
    spec = spec_with((("box_blur", {"radius": 2.0}), ("terrace", {}), ("box_blur", {"radius": 1.0})))
    with pytest.warns(core.spec.InactiveSettingWarning, match="terrace.mask.invert has no effect"):
        out = apply_settings(spec, ["box_blur.mask.source=slope", "box_blur.mask.low=12", "terrace.mask.invert=true"])
    assert [s.mask["source"] for s in out.filters] == ["slope", "none", "slope"]
    assert [s.mask["low"] for s in out.filters] == [12.0, 0.0, 12.0]
    assert out.filters[1].mask["invert"] is True
    with pytest.raises(ValueError, match="ambiguous"):
        apply_settings(spec, ["mask.low=3"])  # every filter has a mask
    one = spec_with((("terrace", {}),))
    assert apply_settings(one, ["mask.source=noise", "noise_size=20"]).filters[0].mask["noise_size"] == 20.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        apply_settings(one, ["terrace.mask.noise_size=20"])
    assert any("terrace.mask.noise_size has no effect" in str(c.message) for c in caught)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            {"source": "slope", "low": 50, "high": 10},
            r"box_blur\.mask\.low \(50\) must not exceed box_blur\.mask\.high",
        ),
        ({"strength": 2}, r"box_blur\.mask\.strength must be in \[0\.0, 1\.0\], got 2"),
        ({"source": "clouds"}, r"box_blur\.mask\.source must be one of none, height"),
        ({"colour": 1}, r"box_blur\.mask: unknown parameters colour"),
        ({"feather": -1}, r"box_blur\.mask\.feather must be in"),
        ("slope", r"box_blur\.mask must be a mapping"),
    ],
)
def test_bad_mask_values_are_named_by_path(entry, message):
    data = spec_with((("box_blur", {"radius": 2.0}),)).to_dict()
    data["filters"][0]["mask"] = entry
    with pytest.raises((TypeError, ValueError), match=message):
        TerrainSpec.from_dict(data)


def test_a_missing_vertex_group_is_named_and_listed_as_an_object():
    spec = spec_with(
        (core.spec.Step("box_blur", {"radius": 2.0}, True, mask(source="weights", group="Rock", low=0.5)),)
    )
    assert spec.objects() == [("box_blur.mask.group", "weights", "Rock")]
    assert spec_with((core.spec.Step("box_blur", {}, True, mask(group="Rock")),)).objects() == []
    with pytest.raises(ValueError, match=r"filters\[0\]\.mask\.group: no weights 'Rock' was given"):
        spec.heightmap()
    painted = np.zeros(spec.shape, np.float32)
    painted[:, 30:] = 1.0
    with inputs.using({("weights", "Rock"): inputs.WeightsInput(painted, "Rock")}):
        h = spec.heightmap()
    h0 = spec_with(()).heightmap()
    h1 = spec_with((("box_blur", {"radius": 2.0}),)).heightmap()
    assert np.array_equal(h[:, :30], h0[:, :30]) and np.array_equal(h[:, 30:], h1[:, 30:])


def test_erosion_maps_of_a_masked_filter_are_weighted():
    m = mask(source="height", low=10.0, high=1e9)
    plain = spec_with((("thermal", {"steps": 5}),), size=33)
    masked = spec_with((core.spec.Step("thermal", {"steps": 5}, True, m),), size=33)
    _, maps = plain.recipe().evaluate_with_maps()
    h, mmaps = masked.recipe().evaluate_with_maps()
    assert np.array_equal(h, masked.heightmap())
    w = mask_weights(m, spec_with((), size=33).heightmap(), cell_size=plain.cell_size, height=plain.height)
    for name in ("deposited", "removed"):
        np.testing.assert_array_equal(mmaps[name], (maps[name] * w).astype(np.float32))


def test_a_tiled_world_with_global_filters_refuses_masks():
    spec = spec_with((core.spec.Step("thermal", {"steps": 2}, True, mask(source="slope")),), size=33)
    recipe = core.world.world_recipe(spec, (65, 65))
    with pytest.raises(ValueError, match="masks"):
        core.world.coarse_plan(recipe, core.world.TileGrid((65, 65), 33))


# --- parameter maps: erodibility, precipitation, talus angle ------------------------------------------------
def pmap(**values):
    return {**default_mask(), "map_min": 1.0, "map_max": 1.0, **values}


EROSION = {"steps": 4, "auto_rates": False, "k": 2e-4, "uplift": 0.0, "uplift_from_terrain": False, "diffusion": 0.0}
EROSION |= {"lake_fill": False}


def erosion_spec(maps=None, size=33):
    return spec_with((core.spec.Step("erosion", EROSION, True, default_mask(), maps or {}),), size=size, height=40.0)


def test_an_all_ones_erodibility_or_precipitation_map_is_no_map_bit_for_bit():
    plain = erosion_spec()
    every = {"source": "height", "low": -1e9, "high": 1e9}
    ones = erosion_spec({"erodibility_map": pmap(**every)})
    wet = erosion_spec({"precipitation_map": pmap(**every)})
    assert ones.recipe().param_maps and plain.recipe().param_maps == ()
    h0, m0 = plain.recipe().evaluate_with_maps()
    for spec in (ones, wet):
        h, m = spec.recipe().evaluate_with_maps()
        assert np.array_equal(h, h0)
        assert all(np.array_equal(m[k], m0[k]) for k in m0)
    # the automatic K too
    auto = spec_with((("erosion", {"steps": 3}),), size=33)
    auto_ones = spec_with(
        (core.spec.Step("erosion", {"steps": 3}, True, default_mask(), {"erodibility_map": pmap(**every)}),), size=33
    )
    assert np.array_equal(auto.heightmap(), auto_ones.heightmap())


def test_a_zero_k_half_does_not_erode_and_precipitation_weights_the_area():
    spec = erosion_spec()
    painted = np.zeros(spec.shape, np.float32)
    painted[:, 17:] = 1.0
    hard = erosion_spec({"erodibility_map": pmap(source="weights", group="Hard", map_min=1.0, map_max=0.0)})
    with inputs.using({("weights", "Hard"): inputs.WeightsInput(painted, "Hard")}):
        h, maps = hard.recipe().evaluate_with_maps()
    start = spec_with((), size=33, height=40.0).heightmap()
    # K = 0: not a cell of the hard half moved (to the float32 rounding of metres and back)
    np.testing.assert_allclose(h[:, 17:], start[:, 17:], rtol=0, atol=1e-6)
    assert np.all(maps["removed"][:, 17:] == 0.0)
    assert not np.array_equal(h[:, :17], start[:, :17])
    double = erosion_spec({"precipitation_map": pmap(source="height", low=-1e9, high=1e9, map_min=2.0, map_max=2.0)})
    _, m2 = double.recipe().evaluate_with_maps()
    _, m1 = spec.recipe().evaluate_with_maps()
    assert not np.array_equal(m2["drainage_area"], m1["drainage_area"])
    one_step = {**EROSION, "steps": 1}
    a = spec_with((core.spec.Step("erosion", one_step, True),), size=33, height=40.0)
    b = spec_with(
        (
            core.spec.Step(
                "erosion",
                one_step,
                True,
                default_mask(),
                {"precipitation_map": pmap(source="height", low=-1e9, high=1e9, map_min=2.0, map_max=2.0)},
            ),
        ),
        size=33,
        height=40.0,
    )
    # one step routes the same surface: the discharge is exactly twice the area
    np.testing.assert_array_equal(
        b.recipe().evaluate_with_maps()[1]["drainage_area"], 2 * a.recipe().evaluate_with_maps()[1]["drainage_area"]
    )


def test_a_talus_map_gives_each_cell_its_angle():
    thermal = {"steps": 6, "talus_angle": 30.0}
    plain = spec_with((("thermal", thermal),), size=33)
    same = spec_with(
        (
            core.spec.Step(
                "thermal",
                thermal,
                True,
                default_mask(),
                {"talus_map": pmap(source="height", low=-1e9, high=1e9, map_min=30.0, map_max=30.0)},
            ),
        ),
        size=33,
    )
    assert np.array_equal(plain.heightmap(), same.heightmap())
    painted = np.zeros(plain.shape, np.float32)
    painted[:, 17:] = 1.0
    steep = spec_with(
        (
            core.spec.Step(
                "thermal",
                {**thermal, "talus_angle": 5.0},
                True,
                default_mask(),
                {"talus_map": pmap(source="weights", group="Cliff", map_min=5.0, map_max=89.0)},
            ),
        ),
        size=33,
    )
    with inputs.using({("weights", "Cliff"): inputs.WeightsInput(painted, "Cliff")}):
        _, maps = steep.recipe().evaluate_with_maps()
    assert np.all(maps["removed"][:, 17:] == 0.0)  # 89 degrees: nothing leaves the cliff half
    assert maps["removed"][:, :16].max() > 0.0


def test_parameter_maps_in_json_set_paths_and_errors():
    spec = erosion_spec()
    assert not any(k.endswith("_map") for k in spec.to_dict()["filters"][0])
    out = apply_settings(spec, ["erosion.erodibility_map.source=slope", "erosion.erodibility_map.map_max=0.25"])
    entry = out.to_dict()["filters"][0]
    assert entry["erodibility_map"]["source"] == "slope" and entry["erodibility_map"]["map_max"] == 0.25
    assert "precipitation_map" not in entry
    assert TerrainSpec.from_json(out.to_json()) == out
    assert Recipe.from_json(out.recipe().to_json()) == out.recipe()
    data = out.to_dict()
    data["filters"][0]["erodibility_map"]["map_max"] = 200
    with pytest.raises(ValueError, match=r"erosion\.erodibility_map\.map_max must be in \[0\.0, 100\.0\]"):
        TerrainSpec.from_dict(data)
    data["filters"][0]["talus_map"] = {}
    with pytest.raises(ValueError, match="unknown parameters talus_map"):
        TerrainSpec.from_dict(data)
    schema = core.json_schema()["properties"]["filters"]["items"]["oneOf"]
    erosion = next(s for s in schema if s["allOf"][0]["properties"]["type"]["const"] == "erosion")
    assert {"mask", "erodibility_map", "precipitation_map"} <= set(erosion["allOf"][1]["properties"])
    with pytest.warns(core.spec.InactiveSettingWarning, match="erosion.precipitation_map.map_max has no effect"):
        apply_settings(spec, ["erosion.precipitation_map.map_max=3"])


def test_a_masked_windowed_filter_equals_the_whole():
    """The carve filter reads its window's world coordinates: masked, it still gets them, and tiles equal the
    whole."""
    curve = inputs.CurveInput(
        (np.array([[-30.0, -20.0, 8.0], [-5.0, 0.0, 9.0], [10.0, 5.0, 10.0], [31.0, 25.0, 12.0]]),), name="Path"
    )
    m = mask(source="noise", low=0.5, high=1.0, feather=0.2, noise_size=12.0)
    step = core.spec.Step("carve", {"curve": "Path", "mode": "road"}, True, m)
    spec = core.TerrainSpec(size=65, seed=3, width=64.0, height=20.0, filters=(step,))
    recipe = spec.recipe()
    with inputs.using({("curve", "Path"): curve}):
        whole, ranges = recipe.evaluate(), recipe.world_ranges()
        carved = spec.replace(filters=(("carve", {"curve": "Path", "mode": "road"}),)).heightmap()
        plain = spec.replace(filters=()).heightmap()
        w = mask_weights(m, plain, cell_size=spec.cell_size, height=spec.height, seed=core.sub_seed(3, "mask", 0))
        assert np.array_equal(whole[w == 0], plain[w == 0]) and np.array_equal(whole[w == 1], carved[w == 1])
        assert not np.array_equal(whole, plain)
        for win in (Window(0, 0, 20, 65), Window(30, 10, 35, 40), Window(5, 50, 7, 15)):
            part = recipe.evaluate(win, ranges)
            assert np.array_equal(part, whole[win.row : win.row + win.rows, win.col : win.col + win.cols])
