"""The extension as installed from its zip."""

import zipfile

import bpy
import pytest


def test_zip_holds_only_what_runs_inside_blender(extension_zip):
    names = zipfile.ZipFile(extension_zip).namelist()
    assert "blender_manifest.toml" in names and "__init__.py" in names
    assert any(n.startswith("core/") for n in names) and any(n.startswith("addon/") for n in names)
    assert not [n for n in names if n.split("/")[0] in {"tests", "scripts", ".ci", ".git", "docs", "out", "dist"}]
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_installed_into_the_isolated_user_folder(orogen, user_dir):
    assert orogen.__name__ == "bl_ext.user_default.orogen"
    assert orogen.__file__.startswith(user_dir)


@pytest.mark.smoke
def test_operator_menu_and_panel_are_registered(orogen):
    assert hasattr(bpy.types, "OROGEN_OT_terrain_add")
    assert bpy.ops.orogen.terrain_add.get_rna_type().name == "Add Terrain"
    panel = bpy.types.VIEW3D_PT_orogen_terrain
    assert (panel.bl_space_type, panel.bl_region_type, panel.bl_category) == ("VIEW_3D", "UI", "Terrain")
    menu_draw_funcs = [f.__name__ for f in bpy.types.VIEW3D_MT_mesh_add._dyn_ui_initialize()]
    assert "menu_func" in menu_draw_funcs
    assert hasattr(bpy.types.Scene, "orogen")


def operator_property(path):
    """The add operator's RNA property at ``path`` (``hills.count``: through its property groups)."""
    rna = bpy.ops.orogen.terrain_add.get_rna_type()
    *groups, name = path.split(".")
    for group in groups:
        rna = rna.properties[group].fixed_type
    return rna.properties[name]


def test_operator_properties_have_bounds_and_descriptions(orogen):
    size = operator_property("size")
    assert (size.hard_min, size.hard_max) == (2, 4097)  # up to the 4097 engine size
    assert operator_property("width").unit == "LENGTH" and operator_property("height").unit == "LENGTH"
    assert operator_property("lighting.azimuth").subtype == "ANGLE"
    # The filter stack is a list: its items hold each filter's settings (flatten's exponent, 0.1's flattening).
    assert operator_property("filters").fixed_type.properties["flatten"].fixed_type.properties["exponent"].description
    for path in (
        "size",
        "seed",
        "hills.count",
        "hills.radius_min",
        "hills.radius_max",
        "hills.island",
        "width",
        "height",
        "lighting.azimuth",
        "lighting.softness",
        "lighting.enabled",
        "material.enabled",
    ):
        assert operator_property(path).description, path


def leftovers():
    """Everything of Orogen's that is registered in Blender right now."""
    found = [name for name in dir(bpy.types) if "OROGEN" in name or name.startswith("VIEW3D_PT_orogen")]
    found += [f"Scene.{a}" for a in ("orogen",) if hasattr(bpy.types.Scene, a)]
    found += [f"Object.{a}" for a in ("orogen",) if hasattr(bpy.types.Object, a)]
    for handlers in (bpy.app.handlers.load_post, bpy.app.handlers.depsgraph_update_post):
        found += [f"handler {h.__module__}" for h in handlers if "orogen" in h.__module__]
    for menu in (bpy.types.VIEW3D_MT_mesh_add, bpy.types.TOPBAR_MT_file_export, bpy.types.TOPBAR_MT_file_import):
        found += [f"menu {f.__module__}" for f in menu._dyn_ui_initialize() if "orogen" in f.__module__]
    return found


@pytest.mark.smoke
def test_register_unregister_three_times_leaves_nothing_behind(orogen):
    import addon_utils

    registered = leftovers()
    assert "OROGEN_OT_terrain_add" in registered and "Object.orogen" in registered
    for _ in range(3):
        addon_utils.disable(orogen.__name__, default_set=True)
        assert leftovers() == []
        addon_utils.enable(orogen.__name__, default_set=True)
        assert sorted(leftovers()) == sorted(registered)
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.orogen.terrain_add(size=8) == {"FINISHED"}
