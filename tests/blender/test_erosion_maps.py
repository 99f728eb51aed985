"""Erosion maps in Blender: point attributes equal core's maps, a colour layer masked by drainage area paints
exactly the cells in range (node tree and core agree in a render), the maps export as EXR and 16-bit PNG."""

import json

import bpy
import numpy as np
from PIL import Image
from top_view import plain_top_view

SIZE, WIDTH, HEIGHT = 48, 47.0, 20.0
FILTERS = [{"type": "erosion", "steps": 6}, {"type": "thermal", "iterations": 5}, {"type": "hydraulic", "steps": 5}]


def layers(low, high=1.0e15):
    return [
        {"name": "ground", "color": [0.3, 0.25, 0.1], "minimum": -1.0, "optimal": 0.5, "maximum": 2.0},
        {
            "name": "river",
            "color": [0.05, 0.15, 0.8],
            "minimum": -1.0,
            "optimal": 0.5,
            "maximum": 2.0,
            "mask": "drainage",
            "mask_min": low,
            "mask_max": high,
        },
    ]


def spec_json(filters, low, **extra):
    return json.dumps(
        {
            "version": 2,
            "generator": "fractal",
            "size": SIZE,
            "seed": 7,
            "width": WIDTH,
            "height": HEIGHT,
            "filters": filters,
            "layers": layers(low),
            "lighting": {"enabled": False},
            "material": {"shading": "unlit"},
            **extra,
        }
    )


def point(obj, name):
    attr = obj.data.attributes[name]
    values = np.empty(len(attr.data), dtype=np.float32)
    attr.data.foreach_get("value", values)
    return values.reshape(SIZE, SIZE)


def core_maps(orogen, filters):
    spec = orogen.core.spec.TerrainSpec.from_json(spec_json(filters, 1e-6))
    return spec.recipe().evaluate_with_maps()


def threshold(area):
    """A drainage area between two values the map holds (no cell on the boundary), about the 85th percentile."""
    values = np.unique(area)
    i = int(np.searchsorted(values, np.percentile(area, 85)))
    return float((values[i] + values[i + 1]) / 2)


def test_attributes_equal_cores_maps_and_the_river_layer_paints_the_drainage_range(scene, orogen, tmp_path):
    core = orogen.core
    h, maps = core_maps(orogen, FILTERS)
    # all but the glacial and the rivers filters' maps
    assert set(maps) == set(core.recipe.MAP_NAMES) - {"ice_thickness", "lake_depth", "river_width", "river_depth"}
    low = threshold(maps["drainage_area"])
    bpy.ops.orogen.terrain_add(spec=spec_json(FILTERS, low))
    terrain = bpy.context.active_object
    assert np.array_equal(point(terrain, "height"), h)
    for name, values in maps.items():
        assert np.array_equal(point(terrain, name), values), name

    lays = core.spec.layers_from_data(layers(low))
    weights = core.layer_weights(h, lays, None, maps=maps)
    inside = maps["drainage_area"] >= low
    assert 0.05 < inside.mean() < 0.3
    assert (weights[..., 1][inside] > 0.3).all() and (weights[..., 1][~inside] < 1e-6).all()

    rendered = plain_top_view(orogen, scene, terrain, tmp_path / "river.exr", SIZE, WIDTH)
    expected = core.colormap(h, lays, None, maps=maps)
    inner = (slice(2, -2), slice(2, -2))
    assert np.abs(rendered[inner] - expected[inner]).max() < 2 / 255
    blue = rendered[..., 2] > 0.3  # the river colour shows exactly in the cells whose drainage area is in range
    assert np.array_equal(blue[inner], inside[inner])


def test_without_erosion_the_masked_layer_is_absent(scene, orogen, tmp_path):
    core = orogen.core
    filters = [{"type": "flatten", "exponent": 1.5}]
    h, maps = core_maps(orogen, filters)
    assert maps == {}
    bpy.ops.orogen.terrain_add(spec=spec_json(filters, 1e-6))
    terrain = bpy.context.active_object
    assert not any(terrain.data.attributes.get(n) for n in core.recipe.MAP_NAMES)
    lays = core.spec.layers_from_data(layers(1e-6))
    assert core.layer_weights(h, lays)[..., 1].max() < 1e-6
    rendered = plain_top_view(orogen, scene, terrain, tmp_path / "none.exr", SIZE, WIDTH)
    assert np.abs(rendered[2:-2, 2:-2] - np.float32([0.3, 0.25, 0.1])).max() < 2 / 255


def test_regenerate_drops_maps_the_filters_no_longer_make(scene, orogen):
    bpy.ops.orogen.terrain_add(spec=spec_json(FILTERS, 10.0))
    terrain = bpy.context.active_object
    assert terrain.data.attributes.get("water_depth") is not None
    spec = orogen.core.spec.TerrainSpec.from_json(spec_json(FILTERS[:1], 10.0))
    orogen.addon.specio.write_spec(terrain.orogen, spec)
    orogen.addon.terrain.apply.regenerate(terrain, bpy.context)
    names = {n for n in orogen.core.recipe.MAP_NAMES if terrain.data.attributes.get(n) is not None}
    assert names == {"drainage_area", "flow_direction", "deposited", "removed"}


def test_the_glacial_filter_bakes_its_ice_thickness(scene, orogen):
    filters = [{"type": "glacial", "ela": 10.0, "steps": 2, "dt": 100.0, "max_substeps": 5}]
    h, maps = core_maps(orogen, filters)
    assert set(maps) == {"ice_thickness", "deposited", "removed"} and maps["ice_thickness"].max() > 0.0
    bpy.ops.orogen.terrain_add(spec=spec_json(filters, 1e-6))
    terrain = bpy.context.active_object
    for name, values in maps.items():
        assert np.array_equal(point(terrain, name), values), name


def test_export_writes_exr_values_and_16_bit_masks_with_their_ranges(scene, orogen, tmp_path):
    h, maps = core_maps(orogen, FILTERS)
    bpy.ops.orogen.terrain_add(spec=spec_json(FILTERS, 10.0))
    assert bpy.ops.orogen.export_maps(
        directory=str(tmp_path),
        name="t",
        heightmap_format="NONE",
        use_lightmap=False,
        use_colormap=False,
        use_normal_map=False,
        use_data_maps=False,
        use_splat_maps=False,
        use_erosion_maps=True,
    ) == {"FINISHED"}
    sidecar = json.loads((tmp_path / "t_erosion.json").read_text())
    for name, values in maps.items():
        exr = orogen.addon.io.heightmaps.read_image(str(tmp_path / f"t_{name}.exr"))[..., 0]
        assert np.array_equal(exr, values), name
        low, high = sidecar["maps"][name]["low"], sidecar["maps"][name]["high"]
        assert (low, high) == (float(values.min()), float(values.max()))
        png = np.asarray(Image.open(tmp_path / f"t_{name}.png"))
        assert png.dtype == np.uint16 or png.max() > 255
        expected = np.rint((values.astype(np.float64) - low) / (high - low) * 65535)
        assert np.array_equal(png.astype(np.float64), expected), name


class FakeWindowManager:
    def __init__(self):
        self.updates = []

    def progress_update(self, value):
        self.updates.append(value)


def test_progress_reaches_the_window_manager_as_the_filters_work(scene, orogen):
    terrain = orogen.addon.terrain.compute
    spec = orogen.core.spec.TerrainSpec.from_json(spec_json(FILTERS, 10.0))
    wm = FakeWindowManager()
    terrain.compute_terrain(spec, None, None, orogen.addon.jobs.status_progress(wm))
    assert len(wm.updates) >= 6 + 5 + 5  # every step of every erosion filter
    assert (
        wm.updates == sorted(wm.updates)
        and 0 <= wm.updates[0]
        and wm.updates[-1] == orogen.addon.jobs.PROGRESS_STEPS - 1
    )


def test_a_cancelled_background_run_leaves_the_terrain_as_it_was_and_a_finished_one_applies(scene, orogen):
    bpy.ops.orogen.terrain_add(spec=spec_json(FILTERS[:1], 10.0))
    obj = bpy.context.active_object
    before = point(obj, "height").copy(), point(obj, "drainage_area").copy()
    heavy = orogen.core.spec.TerrainSpec.from_json(spec_json([{"type": "erosion", "steps": 400}], 10.0))
    job = orogen.addon.jobs.BackgroundCompute(heavy, None, heavy.shape)
    job.cancel()  # cancelled before the first step reports (what Esc calls)
    job.start().join(60)
    assert job.done() and job.cancelled and job.arrays is None and job.error is None
    assert np.array_equal(point(obj, "height"), before[0]) and np.array_equal(point(obj, "drainage_area"), before[1])

    other = orogen.core.spec.TerrainSpec.from_json(spec_json(FILTERS, 10.0, seed=8))
    job = orogen.addon.jobs.BackgroundCompute(other, None, other.shape).start()
    job.join(60)
    assert job.done() and not job.cancelled and job.fraction == 1.0
    orogen.addon.terrain.apply.apply_arrays(obj, other, other.shape, job.arrays, 0.0)
    h, maps = other.recipe().evaluate_with_maps()
    assert np.array_equal(point(obj, "height"), h)
    assert np.array_equal(point(obj, "water_depth"), maps["water_depth"])


def test_invoking_regenerate_without_a_window_runs_it_at_once(scene, orogen):
    bpy.ops.orogen.terrain_add(spec=spec_json(FILTERS[:1], 10.0))
    assert bpy.ops.orogen.terrain_regenerate("INVOKE_DEFAULT") == {"FINISHED"}
