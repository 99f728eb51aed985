"""Preset thumbnails: the built-in presets' pictures as icons for the preset menu and gallery.

The PNGs in ``thumbnails/`` are small copies of the manual's preset renders (``docs/presets/``), made by
``scripts/make_thumbnails.py``. They load into one ``bpy.utils.previews`` collection, once, when first drawn,
and are freed on unregister. A preset without a picture (or a file Blender cannot read) draws without an icon.
"""

import os

import bpy.utils.previews

#: The folder of the thumbnails, one ``<preset key>.png`` each.
FOLDER = os.path.join(os.path.dirname(__file__), "thumbnails")
#: A thumbnail file larger than this is not loaded (they are about 20 KB).
MAX_BYTES = 1 << 20

_previews: list = []  # the one collection, made when first asked for


def preview(key: str):
    """Preset ``key``'s thumbnail (a ``bpy.types.ImagePreview``), ``None`` when it has none."""
    if not _previews:
        _previews.append(bpy.utils.previews.new())
    previews = _previews[0]
    if key not in previews:
        path = os.path.join(FOLDER, f"{key}.png")
        if not os.path.isfile(path) or os.path.getsize(path) > MAX_BYTES:
            return None
        previews.load(key, path, "IMAGE")
    return previews[key]


def icon_id(key: str) -> int:
    """The icon id of preset ``key``'s thumbnail; 0 (no icon) when it has none, and in a background session,
    which makes no icons."""
    found = preview(key)
    return 0 if found is None else found.icon_id


def register() -> None:
    """Nothing to load yet: the collection is made when a menu first draws (no file is read at start-up)."""


def unregister() -> None:
    """Free the thumbnails' collection (registering again starts afresh)."""
    while _previews:
        bpy.utils.previews.remove(_previews.pop())
