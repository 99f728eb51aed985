"""Make the preset menu's thumbnails from the manual's preset pictures.

Each ``docs/presets/<key>.png`` is scaled to 192 pixels wide (its aspect kept) and written as
``addon/thumbnails/<key>.png``, which the extension ships. Run after ``scripts/render_presets.py``:

    .venv/bin/python scripts/make_thumbnails.py
"""

import sys
from pathlib import Path

import bpy

ROOT = Path(__file__).resolve().parent.parent
SOURCE, TARGET = ROOT / "docs" / "presets", ROOT / "addon" / "thumbnails"
WIDTH = 192


def make(source: Path, target: Path) -> None:
    """Scale ``source`` to :data:`WIDTH` pixels wide into ``target`` (PNG, RGB), checked once written."""
    image = bpy.data.images.load(str(source), check_existing=False)
    try:
        w, h = image.size
        if w <= 0 or h <= 0:
            raise ValueError(f"{source}: not an image Blender can read")
        image.scale(WIDTH, max(1, round(h * WIDTH / w)))
        staging = target.with_name("." + target.name)
        image.filepath_raw = str(staging)
        image.file_format = "PNG"
        image.save()
    finally:
        bpy.data.images.remove(image)
    check = bpy.data.images.load(str(staging), check_existing=False)
    try:
        if check.size[0] != WIDTH:
            raise ValueError(f"{staging}: written {check.size[0]} pixels wide, not {WIDTH}")
    finally:
        bpy.data.images.remove(check)
    staging.replace(target)


def main() -> int:
    TARGET.mkdir(exist_ok=True)
    sources = sorted(SOURCE.glob("*.png"))
    if not sources:
        print(f"error: no preset pictures in {SOURCE}", file=sys.stderr)
        return 1
    for source in sources:
        make(source, TARGET / source.name)
        print(f"wrote {TARGET / source.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
