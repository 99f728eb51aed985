"""Render every built-in preset to a small picture for the README.

    .venv/bin/python scripts/render_presets.py [--output-dir docs/presets] [--size 257]

Each preset is loaded as a user would (``orogen.preset_load``), generated
with the panel's settings, and rendered with Cycles (lit, oblique camera;
the side-view profile from the front).
"""

import argparse
import math
import sys
from pathlib import Path

import bpy

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from render_terrain import load_orogen  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", type=Path, default=ROOT / "docs" / "presets")
    parser.add_argument("--size", type=int, default=257, help="vertices per side (default 257)")
    parser.add_argument("--resolution", type=int, nargs=2, default=(400, 225), metavar=("X", "Y"))
    parser.add_argument("--samples", type=int, default=16)
    args = parser.parse_args()
    if min(args.resolution) < 4 or max(args.resolution) > 8192 or args.samples < 1:
        parser.error("--resolution must be 4 to 8192 pixels a side and --samples at least 1")
    if not 2 <= args.size <= 4097:
        parser.error(f"--size must be in [2, 4097], got {args.size}")
    if args.output_dir.exists() and not args.output_dir.is_dir():
        parser.error(f"--output-dir {str(args.output_dir)!r} is a file, not a folder")
    orogen = load_orogen()
    presets, render = orogen.addon.presets, orogen.addon.render
    names = orogen.addon.properties.setting_names()
    args.output_dir.mkdir(parents=True, exist_ok=True)
    for key, preset in presets.BUILTIN_PRESETS.items():
        bpy.ops.wm.read_homefile(use_empty=True)
        scene = bpy.context.scene
        bpy.ops.orogen.preset_load(name=key)
        if "profile" in preset:
            terrain = bpy.context.active_object
            terrain.rotation_euler = (0.0, 0.0, 0.0)
            cam = render.add_camera(scene, terrain, view='TOP', aspect=args.resolution[0] / args.resolution[1])
            cam.rotation_euler = (math.radians(90.0), 0.0, 0.0)  # look north at the XZ plane
            cam.location = (0.0, -300.0, (preset["profile"]["max_height"]) / 2)
            cam.data.ortho_scale = preset["profile"]["length"] * 1.05
        else:
            scene.orogen.size = args.size
            bpy.ops.orogen.terrain_add(**{n: getattr(scene.orogen, n) for n in names})
            terrain = bpy.context.active_object
            render.add_camera(scene, terrain, view='OBLIQUE', aspect=args.resolution[0] / args.resolution[1])
        render.add_sun(scene, math.radians(300.0), math.radians(35.0))
        render.set_world(scene)
        render.configure_cycles(scene, tuple(args.resolution), args.samples)
        out = args.output_dir / f"{key}.png"
        render.render_still(scene, str(out))
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
