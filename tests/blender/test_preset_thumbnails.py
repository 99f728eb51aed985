"""Presets as pictures: the preset menu and its gallery show each built-in preset's render as an icon."""

import sys

import bpy
from recording_layout import RecordingLayout


class IconLayout(RecordingLayout):
    """Records every ``icon_value`` an operator or icon is drawn with."""

    def __init__(self, icons=None):
        super().__init__()
        self.icons = [] if icons is None else icons

    def operator(self, _idname, **kw):
        self.icons.append(kw.get("icon_value", 0))
        return RecordingLayout()

    def template_icon(self, **kw):
        self.icons.append(kw["icon_value"])

    def __getattr__(self, _name):
        return lambda *_a, **_kw: IconLayout(self.icons)


def presets_module(orogen):
    return sys.modules[orogen.__name__ + ".addon.ops.presets"]


def test_every_built_in_preset_has_a_thumbnail_in_the_menu(scene, orogen):
    module = presets_module(orogen)
    layout = IconLayout()
    menu = type("Menu", (), {"layout": layout})()
    module.OROGEN_MT_terrain_presets.draw(menu, bpy.context)
    keys = [*module.PRESETS, *module.PROFILE_PRESETS]
    thumbnails = sys.modules[orogen.__name__ + ".addon.thumbnails"]
    # A background session makes no icons (ids 0); each entry is drawn with its picture's id all the same.
    assert layout.icons[: len(keys)] == [thumbnails.icon_id(key) for key in keys]
    for key in keys:
        width, height = thumbnails.preview(key).image_size
        assert width == 192 and 80 <= height <= 192, (key, width, height)  # the picture, small


def test_the_gallery_draws_a_picture_and_a_button_per_preset(scene, orogen):
    module = presets_module(orogen)
    layout = IconLayout()
    panel = type("Panel", (), {"layout": layout})()
    module.OROGEN_PT_preset_gallery.draw(panel, bpy.context)
    count = len(module.PRESETS) + len(module.PROFILE_PRESETS)
    assert len(layout.icons) == 2 * count  # a picture and a plain button each


def test_a_missing_thumbnail_draws_no_icon_and_unregister_frees_them(scene, orogen):
    thumbnails = sys.modules[orogen.__name__ + ".addon.thumbnails"]
    assert thumbnails.preview("no_such_preset") is None and thumbnails.icon_id("no_such_preset") == 0
    assert thumbnails.preview("island").image_size[0] == 192
    thumbnails.unregister()
    assert thumbnails._previews == []
    assert thumbnails.preview("island").image_size[0] == 192  # made afresh when drawn again
