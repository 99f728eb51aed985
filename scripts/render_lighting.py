"""Render one terrain under each lighting mode, side by side, for the README and the manual.

    .venv/bin/python scripts/render_lighting.py [--output docs/lighting.png] [--size 257] [--tile 320]

Each tile is a top-down orthographic Cycles render of the unlit material
(height-blended colour x lightmap), so the lightmap is exactly what is seen.
From left to right: slope (the classic tutorials), hillshade, hillshade with
cast shadows, hillshade with shadows and ambient occlusion, multidirectional.
"""

import argparse
import math
import sys
import tempfile
from pathlib import Path

import bpy
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from render_terrain import load_orogen  # noqa: E402

MODES = (
    ("slope", dict(lighting="SLOPE")),
    ("hillshade", dict(lighting="HILLSHADE")),
    ("+ shadows", dict(lighting="HILLSHADE", use_shadows=True)),
    ("+ shadows + AO", dict(lighting="HILLSHADE", use_shadows=True, use_ao=True, ao_strength=1.5)),
    ("multidirectional", dict(lighting="MULTIDIRECTIONAL")),
)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "lighting.png")
    parser.add_argument("--size", type=int, default=257, help="terrain vertices per side")
    parser.add_argument("--tile", type=int, default=320, help="pixels per tile side")
    args = parser.parse_args()
    if args.tile < 16 or args.tile > 4096:
        parser.error(f"--tile must be in [16, 4096] pixels, got {args.tile}")
    if not 2 <= args.size <= 4097:
        parser.error(f"--size must be in [2, 4097], got {args.size}")
    if args.output.suffix.lower() != ".png" or args.output.is_dir():
        parser.error(f"--output must be a .png file path, got {str(args.output)!r}")
    orogen = load_orogen()
    render, export = orogen.addon.render, orogen.addon.io.heightmaps
    tiles = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (_label, options) in enumerate(MODES):
            bpy.ops.wm.read_homefile(use_empty=True)
            scene = bpy.context.scene
            bpy.ops.orogen.terrain_add(
                generator="diamond_square",
                roughness=1.25,
                size=args.size,
                seed=3,
                width=100.0,
                height=30.0,
                shading="UNLIT",
                light_azimuth=math.radians(315.0),
                light_altitude=math.radians(35.0),
                min_brightness=0.15,
                **options,
            )
            terrain = bpy.context.active_object
            render.add_camera(scene, terrain, view="TOP", aspect=1.0)
            render.configure_cycles(scene, (args.tile, args.tile), samples=4)
            scene.view_settings.view_transform = "Standard"
            path = str(Path(tmp) / f"{i}.png")
            render.render_still(scene, path)
            tiles.append(export.read_image(path)[..., :3])
    gap = np.ones((args.tile, 8, 3), dtype=np.float32)
    strip = np.concatenate([part for tile in tiles for part in (tile, gap)][:-1], axis=1)
    export.write_image(str(args.output), strip)  # already display-encoded pixels: written as they are
    print(f"wrote {args.output}: " + ", ".join(label for label, _ in MODES))


if __name__ == "__main__":
    main()
