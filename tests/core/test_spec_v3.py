"""Spec version 3: one landscape at every resolution, and every version-2 spec still gives its heightmap.

The correlation tests compare a 257² terrain with the 1025² terrain of the same spec and width, downsampled
(the mean over the 7 x 7 cells around every fourth vertex, :func:`resolution.block_mean`).
"""

import numpy as np
import pytest
from resolution import block_mean

from core.generators.midpoint_displacement import diamond_square
from core.recipe import Recipe
from core.spec import TerrainSpec, load_spec
from core.versions import part
from core.window import Window


def preview_correlation(spec):
    full = spec.heightmap((1025, 1025)).astype(np.float64)
    preview = spec.heightmap((257, 257)).astype(np.float64)
    return np.corrcoef(block_mean(full, 4).ravel(), preview.ravel())[0, 1]


BASE = dict(size=1025, width=400.0, height=40.0, seed=3, filters=())


@pytest.mark.parametrize("generator", ["hills", "faults", "diamond_square", "noise", "fractal"])
def test_the_257_preview_is_the_1025_terrain_downsampled(generator):
    # measured: hills 0.9997, faults 0.9985, diamond_square 0.9999, noise 0.996, fractal 0.99999
    assert preview_correlation(TerrainSpec(generator=generator, **BASE)) >= 0.98


def test_version_2_terrains_were_different_landscapes_at_each_size():
    """What version 3 fixes: a version-2 recipe (lengths in cells) at 257² and 1025²."""

    def v2(shape, generator):
        return Recipe(generator, 3, shape, version=2).evaluate().astype(np.float64)

    for generator in ("hills", "diamond_square", "noise"):
        r = np.corrcoef(block_mean(v2((1025, 1025), generator), 4).ravel(), v2((257, 257), generator).ravel())[0, 1]
        assert r < 0.5, (generator, r)


# A rough start (40 m features, five octaves) so that each filter's work shows at both resolutions.
ROUGH = dict(BASE, generator="fractal", params={"feature_size": 40.0, "detail": 5.0})


@pytest.mark.parametrize(
    "step",
    [
        ("flatten", {"exponent": 2.0}),
        ("box_blur", {"radius": 3.0}),
        ("box_blur", {"radius": 3.0, "method": "passes"}),
        ("lowpass", {"length": 4.0, "passes": 2}),
        ("terrace", {}),
        ("sea_level", {}),
        ("thermal", {"talus_angle": 30.0, "duration": 3.0}),  # 20 passes at 1025², 2 at 257²
        ("hydraulic", {"duration": 1.0}),  # 21 steps at 1025², 11 at 257²
    ],
    ids=lambda s: f"{s[0]}-{s[1].get('method', '')}",
)
def test_every_filter_keeps_the_preview_the_terrain_downsampled(step):
    spec = TerrainSpec(**{**ROUGH, "filters": (step,)})
    assert preview_correlation(spec) >= 0.98


@pytest.mark.parametrize("step", [("box_blur", {"radius": 3.0}), ("lowpass", {"length": 4.0, "passes": 2})])
def test_the_smoothing_filters_change_the_same_places_at_both_sizes(step):
    """Stronger than the heights: what the filter took away correlates too."""
    spec = TerrainSpec(**ROUGH)
    change = {
        n: spec.replace(filters=(step,)).heightmap((n, n)).astype(np.float64)
        - spec.heightmap((n, n)).astype(np.float64)
        for n in (257, 1025)
    }
    full = block_mean(change[1025], 4)
    assert np.corrcoef(full.ravel(), change[257].ravel())[0, 1] >= 0.9


#: (diffusion scheme, lake_fill): the version-4 scheme, and version 3's with the default lake filling.
SCHEMES = [("implicit", False), ("implicit", True), ("peaceman_rachford", True)]


@pytest.mark.slow
@pytest.mark.parametrize(("scheme", "lake_fill"), SCHEMES)
def test_stream_power_erosion_keeps_the_preview_the_terrain_downsampled(scheme, lake_fill):
    """Measured 0.991 without lake_fill and 0.971 with it (the default); version 3's Peaceman-Rachford diffusion
    0.996 and 0.991; version 2's automatic rates (auto_scale "cell") gave 0.927 and 0.871.

    Why version 4 agrees less: the automatic diffusivity smooths over 1/64 of the width, 16 cells of 1025²
    (``D dt / dx²`` about 26 a step) and 4 of 257². The monotone scheme damps what is narrower than that, the
    one-cell channels of the full size among it, as diffusion does; Peaceman-Rachford's amplification of
    such short waves is close to -1 at that step (undamped, ringing), so version 3 kept the full size's
    one-cell channels, which made the two sizes look more alike than the diffusion they asked for.

    What made the sizes differ: a D8 channel is one cell wide, so a coarse grid's channels removed four times
    the rock per metre (channel_width, automatic: 1/1024 of the map's width, a cell of 1025²; a wider cell is
    lowered by width / cell of the bed's incision), and the automatic diffusivity smoothed one cell, four times
    farther at 257² than at 1025² (now 1/64 of the width at every size).
    """
    stage = {"steps": 10, "lake_fill": lake_fill, "diffusion_scheme": scheme}
    spec = TerrainSpec(**{**BASE, "generator": "fractal", "filters": (("erosion", stage),)})
    assert preview_correlation(spec) >= (0.98 if scheme == "peaceman_rachford" or not lake_fill else 0.96)


@pytest.mark.slow
def test_version_2_automatic_erosion_rates_were_not_resolution_independent():
    """The same with version 2's automatic rates (one cell of diffusion, channels one cell wide)."""
    spec = TerrainSpec(
        **{**BASE, "generator": "fractal", "filters": (("erosion", {"steps": 10, "auto_scale": "cell"}),)}
    )
    assert preview_correlation(spec) < 0.9  # measured 0.871


@pytest.mark.slow
@pytest.mark.parametrize(("scheme", "lake_fill"), SCHEMES)
def test_what_stream_power_erosion_removed_is_the_same_at_both_sizes(scheme, lake_fill):
    """Stronger than the heights (which the uplift dominates): the eroded depth, downsampled, correlates too, and
    nearly as much as the full terrain. Measured 0.933 (lake_fill) and 0.927; mean depths 9.2 m at 257² and
    16.4 m at 1025² (lake_fill), 12.6 and 23.5 m: the full size loses the relief narrower than a preview cell
    that diffusion removes (see the test above). Version 3's Peaceman-Rachford diffusion: 0.961 and 0.946, 9.3
    and 12.3 m, 12.7 and 17.2 m; version 2's automatic rates: 0.86 and 0.65, the preview eroding 2.4 and 2.1
    times as much."""
    eroded = {}
    stage = {"steps": 10, "lake_fill": lake_fill, "diffusion_scheme": scheme}
    for n in (257, 1025):
        spec = TerrainSpec(**{**BASE, "generator": "fractal", "filters": (("erosion", stage),)})
        maps = spec.recipe((n, n)).evaluate_with_maps()[1]
        eroded[n] = maps["removed"].astype(np.float64) - maps["deposited"].astype(np.float64)
    full = block_mean(eroded[1025], 4)
    assert np.corrcoef(full.ravel(), eroded[257].ravel())[0, 1] >= 0.9
    assert (0.6 if scheme == "peaceman_rachford" else 0.5) <= eroded[257].mean() / full.mean() <= 1.0


def test_diamond_square_coarse_levels_are_the_same_numbers():
    fine = diamond_square((1025, 1025), 5, roughness=1.0, lattice="world")
    coarse = diamond_square((257, 257), 5, roughness=1.0, lattice="world")
    # the 1025² terrain adds two finer levels (their offsets and the vertex rule move its coarse points a little)
    assert np.corrcoef(fine[::4, ::4].ravel(), coarse.ravel())[0, 1] > 0.999
    assert np.abs(fine[::4, ::4] - coarse).max() < 0.05 * np.ptp(coarse)


def test_diamond_square_world_lattice_for_any_size_tiles_and_keeps_windows_exact():
    h = diamond_square((151, 200), 2, roughness=1.0, lattice="world")  # 199 cells across: interpolated on a 256 lattice
    assert np.array_equal(h[:, 0], diamond_square((151, 200), 2, roughness=1.0, lattice="world")[:, 0])
    square = diamond_square((200, 200), 2, roughness=1.0, lattice="world")
    assert np.allclose(square[:, 0], square[:, -1], rtol=0, atol=1e-12)  # column 0 and 199 are the period apart
    part = diamond_square((151, 200), 2, roughness=1.0, window=Window(20, 33, 50, 70), lattice="world")
    assert np.array_equal(h[20:70, 33:103], part)
    preview = diamond_square((257, 257), 2, roughness=1.0, lattice="world")
    full = diamond_square((1000, 1000), 2, roughness=1.0, lattice="world")  # same width, 999 cells: not a power of two
    along = np.interp(np.arange(257) * 999 / 256, np.arange(1000), full[0])  # the first row at the preview's x
    assert np.corrcoef(along, preview[0])[0, 1] > 0.99


@pytest.mark.parametrize("stack", [(), (("box_blur", {"radius": 2.0}),), (("lowpass", {"length": 2.0}),)])
@pytest.mark.parametrize("generator", ["hills", "diamond_square", "noise"])
def test_a_version_3_window_equals_the_same_cells_of_the_whole(generator, stack):
    recipe = TerrainSpec(size=120, size_y=90, width=150.0, seed=4, generator=generator, filters=stack).recipe()
    whole = recipe.evaluate()
    part = recipe.evaluate(Window(11, 23, 40, 57), recipe.world_ranges())
    if any(key == "lowpass" for key, _ in stack):
        assert np.abs(whole[11:51, 23:80] - part).max() <= 1e-6
    else:
        assert np.array_equal(whole[11:51, 23:80], part)


# --- version 2 specs give the heightmaps they gave -----------------------------------------------------------------
V2_CASES = [
    ("hills", {"count": 300, "radius_min": 3.0, "radius_max": 17.5, "island": True}, []),
    ("hills", {}, [{"type": "lowpass", "k": 0.6, "passes": 2}, {"type": "sea_level", "level": 0.1}]),
    ("diamond_square", {"roughness": 0.9}, [{"type": "box_blur", "passes": 3}]),
    ("noise", {"hill_radius": [2.0, 9.0]}, [{"type": "box_blur", "passes": 4}, {"type": "terrace", "levels": 5}]),
    ("faults", {"faults": 150}, [{"type": "lowpass", "k": 0.35}, {"type": "flatten", "exponent": 1.7}]),
    ("fractal", {"feature_size": 30.0}, [{"type": "thermal", "iterations": 5}]),
]
SIZES = [(129, 0, 100.0), (200, 0, 173.3), (97, 61, 41.7), (257, 0, 12800.0)]


@pytest.mark.parametrize("size, size_y, width", SIZES)
@pytest.mark.parametrize("generator, params, filters", V2_CASES)
def test_a_version_2_spec_gives_the_heightmap_version_2_gave(generator, params, filters, size, size_y, width):
    data = {
        "version": 2,
        "size": size,
        "size_y": size_y,
        "width": width,
        "height": 30.0,
        "seed": 11,
        "generator": generator,
        generator: params,
        "filters": filters,
    }
    spec = load_spec(data)
    assert spec.fit_height and TerrainSpec.from_json(spec.to_json()) == spec
    shape = (size_y or size, size)
    full = part(generator, 2).check(params)  # what a version-2 spec meant: its declared defaults
    v2 = Recipe(
        generator,
        11,
        shape,
        full,
        tuple((f["type"], {k: v for k, v in f.items() if k != "type"}) for f in filters),
        spec.cell_size,
        30.0,
        version=2,
    ).evaluate()
    v3 = spec.heightmap()
    exact = generator in ("diamond_square", "faults", "fractal") and not any(f["type"] == "lowpass" for f in filters)
    if exact:  # no float round trip: bit for bit
        assert np.array_equal(v2, v3)
    else:  # hill radii (r * cell / cell) and the low-pass length (exp(-cell / (-cell / log k))): a few float32 steps
        assert np.abs(v2 - v3).max() <= 4 * np.finfo(np.float32).eps


def test_new_specs_default_to_the_current_version():
    spec = TerrainSpec()
    assert spec.to_dict()["version"] == 5 and not spec.fit_height
    assert spec.params == {"count": 150, "radius_min": 3.0, "radius_max": 16.0, "island": False}


def test_a_hand_made_version_3_recipe_takes_the_declared_defaults():
    """A Recipe built in Python without ``lattice`` gets the world lattice a spec gets, not the function's own
    version-2 default."""

    recipe = Recipe("diamond_square", 5, (65, 65), {"roughness": 1.2}, (), 2.0, 30.0, version=3, fit_height=False)
    assert recipe.params["lattice"] == "world"
    spec = TerrainSpec(
        size=65, seed=5, width=128.0, height=30.0, generator="diamond_square", params={"roughness": 1.2}, filters=()
    )
    assert np.array_equal(recipe.evaluate(), spec.heightmap())
