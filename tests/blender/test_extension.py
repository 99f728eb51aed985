"""The extension as installed from its zip."""

import zipfile

import bpy


def test_zip_holds_only_what_runs_inside_blender(extension_zip):
    names = zipfile.ZipFile(extension_zip).namelist()
    assert "blender_manifest.toml" in names and "__init__.py" in names
    assert any(n.startswith("core/") for n in names) and any(n.startswith("addon/") for n in names)
    assert not [n for n in names if n.split("/")[0] in {"tests", "scripts", ".ci", ".git", "docs", "out", "dist"}]
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


def test_installed_into_the_isolated_user_folder(orogen, user_dir):
    assert orogen.__name__ == "bl_ext.user_default.orogen"
    assert orogen.__file__.startswith(user_dir)


def test_operator_menu_and_panel_are_registered(orogen):
    assert hasattr(bpy.types, "OROGEN_OT_terrain_add")
    assert bpy.ops.orogen.terrain_add.get_rna_type().name == "Add Terrain"
    panel = bpy.types.VIEW3D_PT_orogen_terrain
    assert (panel.bl_space_type, panel.bl_region_type, panel.bl_category) == ('VIEW_3D', 'UI', "Terrain")
    menu_draw_funcs = [f.__name__ for f in bpy.types.VIEW3D_MT_mesh_add._dyn_ui_initialize()]
    assert "menu_func" in menu_draw_funcs
    assert hasattr(bpy.types.Scene, "orogen")


def test_operator_properties_have_bounds_and_descriptions(orogen):
    props = bpy.ops.orogen.terrain_add.get_rna_type().properties
    size = props["size"]
    assert (size.hard_min, size.hard_max) == (2, 4096)
    assert props["width"].unit == 'LENGTH' and props["height"].unit == 'LENGTH'
    assert props["light_azimuth"].subtype == 'ANGLE'
    for name in ("size", "seed", "hill_count", "radius_min", "radius_max", "island", "flattening", "width",
                 "height", "light_azimuth", "light_softness", "use_lightmap", "use_material"):
        assert props[name].description, name


def test_disable_and_enable_again(orogen):
    import addon_utils

    addon_utils.disable(orogen.__name__, default_set=True)
    assert not hasattr(bpy.types, "OROGEN_OT_terrain_add")
    assert not hasattr(bpy.types.Scene, "orogen")
    addon_utils.enable(orogen.__name__, default_set=True)
    assert hasattr(bpy.types, "OROGEN_OT_terrain_add")
