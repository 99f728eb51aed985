import numpy as np
import pytest

import core
from core import lighting as shading
from core.lighting.bake import bake_maps


@pytest.fixture(scope="module")
def terrain():
    return core.diamond_square((70, 90), 3, roughness=1.0).astype(np.float32) * np.float32(25.0)  # metres


def test_bake_maps_equals_the_public_functions(terrain):
    cell = 0.4
    m = bake_maps(terrain, cell, lighting="hillshade", azimuth=200.0, altitude=30.0, z_factor=1.5, normals=True)
    assert m.slope.dtype == m.curvature.dtype == m.lightmap.dtype == m.normal.dtype == np.float32
    assert np.array_equal(m.slope, shading.slope_degrees(terrain, cell, 1.5))
    assert np.array_equal(m.curvature, shading.curvature(terrain, cell, 1.5))
    assert np.array_equal(m.lightmap, shading.hillshade(terrain, cell, azimuth=200.0, altitude=30.0, z_factor=1.5))
    assert np.array_equal(m.normal, shading.normal_map(terrain, cell, 1.5))
    multi = bake_maps(terrain, cell, lighting="MULTIDIRECTIONAL", altitude=30.0)
    assert np.array_equal(multi.lightmap, shading.multidirectional_hillshade(terrain, cell, altitude=30.0))
    assert bake_maps(terrain, cell, lighting=None).lightmap is None and multi.normal is None


def test_bake_maps_with_shadows_and_ambient_occlusion_is_the_combined_lightmap(terrain):
    m = bake_maps(
        terrain,
        0.5,
        azimuth=100.0,
        altitude=25.0,
        shadows=True,
        shadow_softness=3.0,
        ambient=True,
        ambient_strength=2.0,
        ambient_directions=8,
        ambient_radius=16,
        min_brightness=0.2,
        max_brightness=0.9,
    )
    light = shading.combined_lightmap(
        terrain,
        0.5,
        azimuth=100.0,
        altitude=25.0,
        shadow_softness=3.0,
        ambient_strength=2.0,
        ambient_directions=8,
        ambient_radius=16,
    )
    assert np.allclose(m.lightmap, 0.2 + 0.7 * light.astype(np.float64), atol=1e-6)
    assert 0.2 <= m.lightmap.min() and m.lightmap.max() <= 0.9


@pytest.mark.parametrize("azimuth", [0.0, 90.0, 135.0, 300.0])
def test_bake_maps_slope_lighting_is_the_slope_lightmap(terrain, azimuth):
    m = bake_maps(
        terrain,
        0.3,
        lighting="slope",
        azimuth=azimuth,
        light_softness=2.0,
        min_brightness=0.25,
        max_brightness=0.95,
        shadows=True,
    )  # shadows do not apply to slope lighting
    ref = core.slope_lightmap(
        terrain, azimuth=azimuth, softness=2.0, min_brightness=0.25, max_brightness=0.95, cell_size=0.3
    )
    assert np.abs(m.lightmap - ref).max() <= 1e-5


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"lighting": "phong"}, ValueError, "lighting must be one of"),
        ({"min_brightness": 0.8, "max_brightness": 0.5}, ValueError, "min_brightness"),
        ({"light_softness": 0.0}, ValueError, "light_softness"),
        ({"altitude": 91.0}, ValueError, "altitude"),
        ({"shadows": True, "shadow_softness": 0.0}, ValueError, "softness"),
        ({"ambient": True, "ambient_directions": 2}, ValueError, "directions"),
        ({"ambient_strength": 11.0}, ValueError, "ambient_strength"),
    ],
)
def test_bake_maps_checks_its_parameters(kwargs, error, match):
    with pytest.raises(error, match=match):
        bake_maps(np.zeros((4, 4)), 1.0, **kwargs)


def test_bake_maps_refuses_minutes_of_ambient_occlusion_before_any_work():
    with pytest.raises(ValueError, match="ambient_occlusion: 360 directions"):
        bake_maps(np.zeros((4097, 4097), np.float32), 1.0, ambient=True, ambient_directions=360, ambient_radius=4096)


@pytest.mark.parametrize("lighting", ["slope", "hillshade", "multidirectional"])
def test_bake_maps_on_threads_equals_one_thread(monkeypatch, lighting):
    """Issue #13: runs of blocks of rows on threads give the same bytes as one thread."""
    import sys

    bake_module = sys.modules["core.lighting.bake"]
    h = core.diamond_square((300, 230), 5, roughness=1.0).astype(np.float32) * np.float32(40.0)
    maps = {}
    for workers in (1, 2, 3):
        monkeypatch.setattr(bake_module, "worker_count", lambda cells, w=workers: w)
        m = bake_maps(h, 0.5, lighting=lighting, normals=True, min_brightness=0.2)
        maps[workers] = [m.slope, m.curvature, m.lightmap, m.normal]
    for workers in (2, 3):
        assert all(np.array_equal(a, b) for a, b in zip(maps[1], maps[workers], strict=True))


def test_the_occlusion_factor_is_what_ambient_occlusion_multiplies_into_the_lightmap():
    """``occlusion`` (what a Lit material's cavity term reads) is the AO factor of the lightmap, and only there
    when AO is baked."""
    from core.lighting.settings import bakes_occlusion

    h = (core.normalize(core.diamond_square((65, 65), seed=2, roughness=1.0)) * 30.0).astype(np.float32)
    common = dict(lighting="hillshade", azimuth=300.0, altitude=35.0, min_brightness=0.0, max_brightness=1.0)
    plain = bake_maps(h, 1.0, **common)
    with_ao = bake_maps(h, 1.0, ambient=True, ambient_strength=1.5, ambient_directions=8, ambient_radius=16, **common)
    assert plain.occlusion is None and with_ao.occlusion is not None
    occ = with_ao.occlusion
    assert occ.dtype == np.float32 and occ.shape == h.shape and 0.0 <= occ.min() < 0.95 and occ.max() <= 1.0
    assert np.allclose(with_ao.lightmap, np.clip(plain.lightmap * occ, 0.0, 1.0), atol=1e-6)
    assert bake_maps(h, 1.0, lighting="slope", ambient=True).occlusion is None  # slope lighting bakes no AO
    assert bakes_occlusion({"enabled": True, "ao": True, "mode": "multidirectional"})
    assert not bakes_occlusion({"enabled": True, "ao": True, "mode": "slope"})
    assert not bakes_occlusion({"enabled": False, "ao": True, "mode": "hillshade"})
