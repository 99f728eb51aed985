"""Issue #19: the scatter reads as a forest — groves and clearings, scale following the site, varied models."""

import json

import bpy
import numpy as np
import pytest
from test_scatter_in_blender import add_scatter, instances, scatter_module

SIZE, WIDTH = 65, 512.0  # 8 m cells


def flat_terrain():
    """A flat 512 m square (hills flattened to Z = 0): only the grove noise varies the density."""
    bpy.ops.orogen.terrain_add(
        spec=json.dumps(
            {
                "version": 2,
                "size": SIZE,
                "seed": 1,
                "width": WIDTH,
                "height": 10.0,
                "generator": "hills",
                "hills": {"count": 5, "radius_min": 10, "radius_max": 40},
                "filters": [],
            }
        )
    )
    obj = bpy.context.active_object
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    co[2::3] = 0.0
    obj.data.vertices.foreach_set("co", co)
    obj.data.update()
    return obj


def cell_counts(xy, cells=8):
    """Instance counts in a ``cells`` x ``cells`` grid over the terrain."""
    edges = np.linspace(-WIDTH / 2, WIDTH / 2, cells + 1)
    counts, _, _ = np.histogram2d(xy[:, 0], xy[:, 1], bins=(edges, edges))
    return counts.ravel()


def dispersion(xy):
    """Variance over mean of the grid counts: about 1 for an even (Poisson or sparser) spread, well above 1 when
    the instances stand in clumps."""
    counts = cell_counts(xy)
    return counts.var() / counts.mean()


def test_clumping_gathers_the_trees_into_groves_with_clearings(scene, orogen):
    obj = flat_terrain()
    common = {"kind": "CONIFERS", "seed": 2, "density": 150.0, "spacing": 4.0, "clump_size": 60.0}
    assert add_scatter(**common, clumping=0.0) == {"FINISHED"}
    even = instances(obj)[:, :2, 3]
    assert add_scatter(**common, clumping=1.0) == {"FINISHED"}
    clumped = instances(obj)[:, :2, 3]
    assert len(even) > 2000
    assert len(clumped) < 0.8 * len(even)  # the clearings hold nothing
    assert dispersion(even) < 2.0
    assert dispersion(clumped) > 3.0 * max(dispersion(even), 1.0)


def test_same_seed_same_groves_and_scales(scene, orogen):
    obj = flat_terrain()
    add_scatter(kind="BROADLEAF", seed=5, clumping=0.9, site_scale=0.7)
    first = instances(obj)
    module = scatter_module(orogen)
    modifier = obj.modifiers["Orogen Broadleaf Trees"]
    module.set_inputs(modifier, {"Seed": 6})
    assert not np.array_equal(instances(obj), first)
    module.set_inputs(modifier, {"Seed": 5})
    assert len(first) > 100 and np.array_equal(instances(obj), first)


def test_clump_size_zero_takes_the_terrains_extent(scene, orogen):
    obj = flat_terrain()
    add_scatter(kind="CONIFERS", clump_size=0.0)
    modifier = obj.modifiers["Orogen Conifers"]
    expected = orogen.core.scatter.auto_clump_size(WIDTH)
    assert scatter_module(orogen).get_input(modifier, "Clump Size") == pytest.approx(expected)
    add_scatter(kind="CONIFERS", clump_size=75.0)
    assert scatter_module(orogen).get_input(modifier, "Clump Size") == pytest.approx(75.0)


def test_instances_are_wider_or_narrower_than_tall(scene, orogen):
    obj = flat_terrain()
    add_scatter(kind="CONIFERS", seed=1, clumping=0.0)
    mats = instances(obj)
    sx, sz = np.linalg.norm(mats[:, :3, 0], axis=1), np.linalg.norm(mats[:, :3, 2], axis=1)
    ratio = sx / sz
    jitter = scatter_module(orogen).WIDTH_JITTER
    assert ratio.min() >= 1 - jitter - 1e-5 and ratio.max() <= 1 + jitter + 1e-5
    assert ratio.std() > 0.05  # not a constant: the widths vary apart from the heights
    assert np.allclose(sx, np.linalg.norm(mats[:, :3, 1], axis=1))  # X and Y alike: a round crown


def test_site_scale_makes_trees_bigger_inside_the_groves(scene, orogen):
    obj = flat_terrain()
    add_scatter(kind="CONIFERS", seed=3, clumping=0.0, site_scale=1.0, clump_size=60.0)
    mats = instances(obj)
    xy, scale = mats[:, :2, 3], np.linalg.norm(mats[:, :3, 2], axis=1)
    # With Site Scale 1 and Clumping 0 the density is even but the scale follows the grove noise alone: the
    # scales of neighbours agree far more than chance (a random field would give a correlation about 0).
    d = np.linalg.norm(xy[:, None] - xy[None], axis=2)
    np.fill_diagonal(d, np.inf)
    nearest = d.argmin(axis=1)
    assert np.corrcoef(scale, scale[nearest])[0, 1] > 0.6


@pytest.mark.parametrize("kind", ["conifers", "broadleaf", "boulders"])
def test_the_placeholder_variants_differ(scene, orogen, kind):
    spec = orogen.core.scatter.SCATTER_KINDS[kind]
    collection, made = orogen.addon.placeholders.placeholder_collection(kind)
    assert made and len(collection.objects) == spec.variants == 6
    boxes, counts = [], []
    for obj in collection.objects:
        co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
        obj.data.vertices.foreach_get("co", co)
        co = co.reshape(-1, 3)
        boxes.append(np.round(co.max(axis=0) - co.min(axis=0), 2))
        counts.append(len(co))
        assert len(co) < 1000  # light: a forest holds tens of thousands of instances
    # Every variant has a bounding box of its own proportions, not one shape rescaled.
    shapes = {tuple(np.round(b / b.max(), 2)) for b in boxes}
    assert len(shapes) == spec.variants
    if kind != "boulders":  # trees differ in their parts too (tiers of cones, lobes of the crown)
        assert len(set(counts)) >= 4
    # Built again in a new file: the same vertices (fixed seeds).
    first = [np.array([v.co[:] for v in o.data.vertices]) for o in collection.objects]
    bpy.ops.wm.read_homefile(use_empty=True)
    again, _ = orogen.addon.placeholders.placeholder_collection(kind)
    for a, o in zip(first, again.objects, strict=True):
        assert np.array_equal(a, np.array([v.co[:] for v in o.data.vertices]))


def test_bad_grove_settings_are_refused_by_name(scene, orogen):
    options = {o.name: o for o in orogen.core.scatter.CLUMP_OPTIONS}
    for name, bad in (("clumping", 1.5), ("site_scale", -0.1), ("clump_size", -1.0), ("clump_size", float("nan"))):
        with pytest.raises(ValueError, match=name):
            options[name].check(bad)
    # The operator's properties take core's bounds (Blender clamps what is set beyond them).
    props = bpy.ops.orogen.scatter_add.get_rna_type().properties
    for name, option in options.items():
        assert (props[name].hard_min, props[name].hard_max) == pytest.approx((option.low, option.high))
        assert props[name].description == option.description


def test_an_older_scatter_group_is_rebuilt_with_the_grove_inputs(scene, orogen):
    module = scatter_module(orogen)
    old = bpy.data.node_groups.new(module.GROUP_NAME, "GeometryNodeTree")
    old[module.GROUP_PROPERTY] = module.GROUP_VERSION - 1
    group, made = module.scatter_group()
    assert made and group is not old and old.name.endswith("(old)")
    names = module.identifiers(group)
    assert {"Clump Size", "Clumping", "Site Scale"} <= set(names)
