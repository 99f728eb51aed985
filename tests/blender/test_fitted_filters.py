"""Add Filter fills in values fitted to the terrain's scale; an operator whose filter changes the scale says so."""

import bpy
import pytest


def _relief(obj):
    z = [v.co.z for v in obj.data.vertices]
    return max(z) - min(z)


def test_add_filter_fits_the_stream_power_uplift_and_the_relief_stays_within_height(scene, orogen):
    assert bpy.ops.orogen.terrain_add(size=33) == {"FINISHED"}
    obj = bpy.context.active_object
    height = obj.orogen.height
    assert bpy.ops.orogen.filter_add(type="erosion") == {"FINISHED"}
    spec = orogen.addon.specio.read_spec(obj.orogen)
    step = spec.filters[-1]
    assert step.key == "erosion"
    fitted = orogen.core.fitted_defaults("erosion", width=spec.width, height=spec.height, cell_size=spec.cell_size)
    assert step.params["uplift"] == pytest.approx(fitted["uplift"])  # what the panel shows
    assert step.params["uplift"] * step.params["dt"] * step.params["steps"] == pytest.approx(0.1 * height)
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    assert 0.5 * height <= _relief(obj) <= height * 1.001
    assert "changes the relief" not in obj.orogen.status


def test_a_filter_that_triples_the_relief_is_reported_as_a_warning(scene, orogen, capfd):
    assert bpy.ops.orogen.terrain_add(size=33) == {"FINISHED"}
    obj = bpy.context.active_object
    obj.orogen.live_update = False
    assert bpy.ops.orogen.filter_add(type="erosion") == {"FINISHED"}
    obj.orogen.filters[-1].erosion.uplift = 1.0e-4  # 60 m of uplift on a 20 m terrain
    capfd.readouterr()
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    out = capfd.readouterr()
    assert _relief(obj) > 2.0 * obj.orogen.height
    assert "filter 2 (Stream-Power Erosion) changes the relief from 20 m to" in obj.orogen.status
    text = out.out + out.err
    assert "WARNING" in text.upper() and "Stream-Power Erosion" in text and "60 m of uplift" in text


def test_adding_a_terrain_whose_stack_changes_the_scale_is_reported(scene, orogen, capfd):
    spec = orogen.core.spec.TerrainSpec(size=33).with_filter("erosion", {"uplift": 1.0e-3})
    capfd.readouterr()
    assert bpy.ops.orogen.terrain_add(spec=spec.to_json()) == {"FINISHED"}
    out = capfd.readouterr()
    assert "changes the relief" in bpy.context.active_object.orogen.status
    assert "Stream-Power Erosion" in out.out + out.err
