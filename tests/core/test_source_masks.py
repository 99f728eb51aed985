"""Source masks (core.sources with core.masks): a source blended only where its mask is, windows equal to the
whole, JSON, --set, the objects a spec reads and errors named by path."""

import json

import numpy as np
import pytest

from core import inputs
from core.masks import mask_weights
from core.recipe import Recipe
from core.rng import sub_seed
from core.spec import TerrainSpec, apply_settings, json_schema, load_spec, setting_paths
from core.window import Window

HEIGHT = 20.0
CONE = {"radius": 30.0, "crater": 0.0, "height": 6.0}


def _recipe(sources, shape=(41, 41), filters=(), masks=(), generator="hills"):
    return Recipe(generator, 5, shape, {}, filters, 2.0, HEIGHT, fit_height=False, sources=sources, masks=masks)


def test_a_source_masked_by_height_applies_only_above_the_threshold():
    base = _recipe(()).evaluate()
    unmasked = _recipe((("cone", CONE),)).evaluate()
    low = float(np.median(base.astype(np.float64) * HEIGHT))
    masked = _recipe((("cone", {**CONE, "mask": {"source": "height", "low": low}}),)).evaluate()
    above = base.astype(np.float64) * HEIGHT >= low  # the mask reads the heights so far: the base, in metres
    covered = unmasked != base
    assert (above & covered).sum() > 50 and (~above & covered).sum() > 50  # both sides of the threshold are stamped
    assert np.array_equal(masked[above], unmasked[above])  # weight 1: the unmasked blend, bit for bit
    assert np.array_equal(masked[~above], base[~above])  # weight 0: the terrain as without the source
    inverted = _recipe((("cone", {**CONE, "mask": {"source": "height", "low": low, "invert": True}}),)).evaluate()
    assert np.array_equal(inverted[~above], unmasked[~above]) and np.array_equal(inverted[above], base[above])


def test_strength_zero_changes_nothing_and_a_full_mask_is_unmasked():
    off = _recipe((("cone", {**CONE, "enabled": False}),)).evaluate()
    zero = _recipe((("cone", {**CONE, "mask": {"source": "slope", "strength": 0.0}}),)).evaluate()
    assert zero.tobytes() == off.tobytes()
    unmasked = _recipe((("cone", CONE),)).evaluate()
    full = _recipe((("cone", {**CONE, "mask": {"source": "height", "low": -1.0e15, "high": 1.0e15}}),)).evaluate()
    assert full.tobytes() == unmasked.tobytes()
    none = _recipe((("cone", {**CONE, "mask": {"source": "none", "low": 3.0}}),))
    assert "mask" not in none.sources[0][1] and none.to_dict() == _recipe((("cone", CONE),)).to_dict()


def test_a_later_source_is_masked_by_the_earlier_ones():
    """The mask reads the base plus the earlier sources: a mesa raises the ground above the threshold, and only
    there does the crater after it act."""
    mesa = {"radius": 10.0, "height": 30.0}
    first = _recipe((("mesa", mesa),)).evaluate()
    both = _recipe(
        (("mesa", mesa), ("crater", {"radius": 40.0, "height": 4.0, "mask": {"source": "height", "low": 25.0}}))
    )
    h = both.evaluate()
    above = first.astype(np.float64) * HEIGHT >= 25.0
    assert above.sum() > 20
    assert np.array_equal(h[~above], first[~above])
    assert not np.array_equal(h[above], first[above])


SLOPE_BLUR = {"source": "slope", "low": 10.0, "high": 90.0, "feather": 5.0, "blur": 4.0}
MASKED = (
    ("cone", {**CONE, "mask": SLOPE_BLUR}),
    ("fractal", {"blend": "add", "height": 3.0, "mask": {"source": "curvature", "low": 0.0, "blur": 2.0}}),
    ("crater", {"radius": 20.0, "height": 3.0, "offset_x": 15.0, "mask": {"source": "noise", "noise_size": 20.0}}),
)


@pytest.mark.parametrize("filters", [(), (("box_blur", {"radius": 3.0}),)])
def test_windows_equal_the_whole_with_slope_and_blur_masks(filters):
    r = Recipe("noise", 11, (57, 70), {}, filters, 1.5, HEIGHT, fit_height=False, sources=MASKED)
    assert r.sources_margin() > 3  # the blurs' reach and the stencils' cells
    whole = r.evaluate()
    ranges = r.world_ranges()
    for w in (Window(0, 0, 20, 23), Window(13, 31, 30, 39), Window(40, 5, 17, 65), Window(25, 30, 1, 1)):
        part = whole[w.row : w.row + w.rows, w.col : w.col + w.cols]
        assert np.array_equal(r.evaluate(w, ranges), part)
        assert np.array_equal(r.evaluate(w, ranges[:2]), part)


def test_windows_equal_the_whole_with_a_drainage_mask():
    sources = (("cone", {**CONE, "mask": {"source": "drainage", "low": 40.0, "feather": 20.0}}),)
    masks = ({"source": "slope", "low": 5.0, "blur": 2.0},)
    r = _recipe(sources, (45, 38), filters=(("box_blur", {"radius": 2.0}),), masks=masks)
    assert r.sources_margin() >= max(r.shape)
    whole = r.evaluate()
    assert not np.array_equal(
        whole, _recipe((("cone", CONE),), (45, 38), (("box_blur", {"radius": 2.0}),), masks).evaluate()
    )
    ranges = r.world_ranges()
    for w in (Window(0, 0, 11, 13), Window(20, 17, 25, 21)):
        assert np.array_equal(r.evaluate(w, ranges), whole[w.row : w.row + w.rows, w.col : w.col + w.cols])


def test_a_noise_mask_is_seeded_as_a_filter_mask():
    mask = {"source": "noise", "noise_size": 15.0, "noise_seed": 3}
    base = _recipe(()).evaluate()
    unmasked = _recipe((("cone", {**CONE, "opacity": 1.0}),)).evaluate().astype(np.float64)
    masked = _recipe((("cone", {**CONE, "mask": mask}),)).evaluate().astype(np.float64)
    w = mask_weights(mask, base, cell_size=2.0, height=HEIGHT, seed=sub_seed(5, "mask", 3)).astype(np.float64)
    expected = base.astype(np.float64) * (1.0 - w) + unmasked * w  # add: base + w * shape, in units of Height
    assert np.max(np.abs(masked - expected)) < 1e-5
    other = _recipe((("cone", {**CONE, "mask": {**mask, "noise_seed": 4}}),)).evaluate()
    assert not np.array_equal(other, masked.astype(np.float32))


def test_a_vertex_group_mask_and_the_objects_a_spec_reads():
    spec = TerrainSpec(size=33, width=64.0, height=HEIGHT, sources=(("cone", {**CONE, "height": 5.0}),))
    spec = apply_settings(spec, ["sources[0].mask.source=weights", "sources[0].mask.group=Rim"])
    assert spec.objects() == [("sources[0].mask.group", "weights", "Rim")]
    painted = np.zeros(spec.shape, np.float32)
    painted[:, :16] = 1.0  # the west half
    with inputs.using({("weights", "Rim"): inputs.WeightsInput(painted, "Rim")}):
        h = spec.heightmap()
    unmasked = spec.replace(sources=(("cone", {**CONE, "height": 5.0}),)).heightmap()
    bare = spec.replace(sources=()).heightmap()
    assert np.array_equal(h[:, :16], unmasked[:, :16]) and np.array_equal(h[:, 16:], bare[:, 16:])
    assert not np.array_equal(h[:, :16], bare[:, :16])
    hidden = apply_settings(spec, ["sources[0].enabled=false"])
    assert hidden.objects() == []  # a hidden source's group is not read
    with pytest.raises(ValueError, match="Rim"):
        spec.heightmap()  # the group not given


def test_json_round_trip_schema_and_unchanged_json():
    plain = TerrainSpec(size=33, sources=(("crater", {"height": 5.0}),))
    assert "mask" not in plain.to_dict()["sources"][0]  # an unmasked source's JSON is as before masks
    spec = apply_settings(plain, ["sources[0].mask.source=slope", "sources[0].mask.low=12", "sources[0].mask.blur=3"])
    data = spec.to_dict()
    assert data["sources"][0]["mask"]["source"] == "slope" and data["sources"][0]["mask"]["low"] == 12.0
    assert load_spec(json.loads(spec.to_json())) == spec
    assert TerrainSpec.from_json(spec.to_json()).to_json() == spec.to_json()
    recipe = spec.recipe()
    assert recipe.sources[0][1]["mask"]["blur"] == 3.0
    again = Recipe.from_json(recipe.to_json())
    assert again == recipe and np.array_equal(again.evaluate(), recipe.evaluate())
    assert not np.array_equal(spec.heightmap(), plain.heightmap())
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.Draft202012Validator(json_schema()).validate(data)
    bad = json.loads(json.dumps(data))
    bad["sources"][0]["mask"]["colour"] = 1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(json_schema()).validate(bad)


def test_set_paths_keep_the_mask_and_name_it():
    spec = apply_settings(TerrainSpec(size=17), ["sources[0].type=crater", "sources[0].mask.source=height"])
    assert "sources[0].mask.noise_seed" in setting_paths(spec)
    assert spec.sources[0].mask["source"] == "height"
    changed = apply_settings(spec, ["sources[0].type=cone"])  # a new type keeps the entry's mask
    assert changed.sources[0].key == "cone" and changed.sources[0].mask == spec.sources[0].mask
    spec = apply_settings(spec, ["sources[0].mask.high=50"])
    assert spec.sources[0].mask["high"] == 50.0 and spec.sources[0].mask["source"] == "height"
    with pytest.raises(ValueError, match=r"sources\[0\]\.mask\.low \(60\) must not exceed sources\[0\]\.mask\.high"):
        apply_settings(spec, ["sources[0].mask.low=60"])
    with pytest.raises(ValueError, match=r"sources\[0\]\.mask\.strength must be in \[0\.0, 1\.0\]"):
        apply_settings(spec, ["sources[0].mask.strength=2"])
    with pytest.raises(ValueError, match="no such setting"):
        apply_settings(spec, ["sources[0].mask.colour=1"])
    with pytest.warns(UserWarning, match=r"sources\[0\]\.mask\.noise_size has no effect"):
        apply_settings(spec, ["sources[0].mask.noise_size=10"])
    masked_filter = apply_settings(spec, ["flatten.mask.source=slope"])
    with pytest.raises(ValueError, match="ambiguous"):
        apply_settings(masked_filter, ["mask.low=1"])  # a filter's and a source's: say which


@pytest.mark.parametrize(
    ("mask", "message"),
    [
        ({"source": "height", "low": -1.0e16}, r"sources\[0\]\.mask\.low must be in"),
        ({"source": "height", "low": 5.0, "high": 1.0}, r"sources\[0\]\.mask\.low \(5\) must not exceed"),
        ({"source": "bedrock"}, r"sources\[0\]\.mask\.source must be one of"),
        ({"source": "slope", "blur": -1.0}, r"sources\[0\]\.mask\.blur must be in"),
        ({"source": "slope", "glow": 1.0}, r"sources\[0\]\.mask.*glow"),
        ("slope", r"sources\[0\]\.mask"),
    ],
)
def test_bad_masks_named_by_path(mask, message):
    data = {**TerrainSpec(size=17).to_dict(), "sources": [{"type": "crater", "mask": mask}]}
    with pytest.raises((TypeError, ValueError), match=message):
        load_spec(data)
    with pytest.raises((TypeError, ValueError), match=message):
        Recipe("hills", 1, (17, 17), sources=(("crater", {"mask": mask}),))


def test_a_world_of_tiles_with_masked_sources_equals_the_whole():
    from core import world

    spec = TerrainSpec(size=33, width=64.0, height=10.0, generator="noise", filters=(("box_blur", {"radius": 2.0}),))
    spec = spec.replace(sources=MASKED[:2])
    grid = world.TileGrid((49, 65), 17)
    recipe = world.world_recipe(spec, grid.shape)
    assert not world.check_world(recipe, grid)  # local masks: built tile by tile
    whole = recipe.evaluate()
    ranges = world.world_ranges(recipe, grid)
    for ty, tx in grid.indices():
        w = grid.window(ty, tx)
        assert np.array_equal(
            world.tile_heights(recipe, w, ranges), whole[w.row : w.row + w.rows, w.col : w.col + w.cols]
        )
    drained = world.world_recipe(
        spec.replace(sources=(("cone", {**CONE, "mask": {"source": "drainage"}}),)), grid.shape
    )
    assert world.check_world(drained, grid)  # a drainage mask reads the whole world: built whole once


def test_golden_bytes_of_masked_sources():
    """Same seed and spec, same bytes: slope with blur, seeded noise and drainage masks (numpy 1 and 2 alike)."""
    import hashlib

    sources = (
        ("cone", {**CONE, "mask": {"source": "slope", "low": 10.0, "feather": 5.0, "blur": 4.0}}),
        ("fractal", {"height": 3.0, "mask": {"source": "noise", "noise_size": 20.0, "noise_seed": 2}}),
        ("crater", {"radius": 15.0, "height": 4.0, "mask": {"source": "drainage", "low": 30.0, "feather": 30.0}}),
    )
    r = _recipe(sources, (41, 47), filters=(("box_blur", {"radius": 2.0}),))
    digest = hashlib.sha256(r.evaluate().tobytes()).hexdigest()
    assert digest == "f2efa954723e71a705098746d9238570943a3035a65612812a453c5246a1c3f1"


def test_a_masked_mesh_source_in_metres():
    """A mesh source (its metres, not scaled by its height) masked by slope: windows equal the whole, and where
    the mask is 0 the terrain is the base."""
    from core.sources import Source

    s = np.linspace(-20.0, 20.0, 5)
    x, y = np.meshgrid(s, s)
    v = np.stack([x.ravel(), y.ravel(), (3.0 + 0.25 * x - 0.5 * y).ravel()], axis=1)
    i = np.arange(25).reshape(5, 5)
    a, b, c, d = i[:-1, :-1].ravel(), i[:-1, 1:].ravel(), i[1:, 1:].ravel(), i[1:, :-1].ravel()
    mesh = inputs.MeshInput(v, np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)]), name="Sculpt")
    base = TerrainSpec(size=33, width=32.0, height=10.0, filters=(("box_blur", {"radius": 2.0}),))
    mask = {"source": "slope", "low": 12.0, "blur": 1.0}
    spec = base.replace(sources=(Source("object", {"object": "Sculpt"}, {"blend": "add"}, mask),))
    assert spec.objects() == [("sources[0].object", "mesh", "Sculpt")]
    with inputs.using({("mesh", "Sculpt"): mesh}):
        r = spec.recipe()
        whole = r.evaluate()
        ranges = r.world_ranges()
        for w in (Window(0, 0, 12, 17), Window(9, 14, 20, 19)):
            assert np.array_equal(r.evaluate(w, ranges), whole[w.row : w.row + w.rows, w.col : w.col + w.cols])
        zero = spec.replace(
            sources=(Source("object", {"object": "Sculpt"}, {"blend": "add"}, {**mask, "strength": 0}),)
        )
        assert zero.heightmap().tobytes() == base.heightmap().tobytes()
        assert not np.array_equal(whole, base.heightmap())
