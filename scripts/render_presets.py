"""Render every built-in preset to a small picture for the README and the manual.

    .venv/bin/python scripts/render_presets.py [--output-dir docs/presets] [--size 257] [--only NAME ...]
    .venv/bin/python scripts/render_presets.py --erosion-pair docs   # docs/erosion_before.png, erosion_after.png

Each preset is loaded as a user would (``orogen.preset_load``), generated
with the panel's settings (``orogen.terrain_generate``, the Generate button),
and rendered with Cycles at 960 × 540 as ``render_terrain.py`` renders: a sun
lamp where the preset's baked light comes from, Blender's physical sky, AgX, the
landscape camera (``--view``, as ``render_terrain.py``'s), denoised (the side-view profile
from the front). ``--erosion-pair`` renders the Eroded Mountains
preset's diamond-square start without its filters and then with them (the
stream-power erosion and its sea), same seed, world and camera: the diorama view,
so that both show the whole block from the same place.
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
    parser.add_argument("--resolution", type=int, nargs=2, default=(960, 540), metavar=("X", "Y"))
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument(
        "--scatter",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="each preset with its trees and rocks (default on)",
    )
    parser.add_argument("--only", nargs="+", metavar="NAME", help="render only these presets (keys)")
    parser.add_argument(
        "--view",
        choices=("LANDSCAPE", "DIORAMA", "OBLIQUE", "TOP"),
        type=str.upper,
        default="LANDSCAPE",
        help="camera, as render_terrain.py's (default LANDSCAPE)",
    )
    parser.add_argument(
        "--erosion-pair",
        type=Path,
        metavar="DIR",
        help="render erosion_before.png and erosion_after.png into DIR instead of the presets",
    )
    args = parser.parse_args()
    if min(args.resolution) < 4 or max(args.resolution) > 8192 or args.samples < 1:
        parser.error("--resolution must be 4 to 8192 pixels a side and --samples at least 1")
    if not 2 <= args.size <= 4097:
        parser.error(f"--size must be in [2, 4097], got {args.size}")
    if args.output_dir.exists() and not args.output_dir.is_dir():
        parser.error(f"--output-dir {str(args.output_dir)!r} is a file, not a folder")
    orogen = load_orogen()
    presets, render = orogen.addon.ops.presets, orogen.addon.render
    if args.erosion_pair is not None:
        render_erosion_pair(args, orogen)
        return
    everything = {**presets.PRESETS, **presets.PROFILE_PRESETS}
    unknown = sorted(set(args.only or ()) - set(everything))
    if unknown:
        parser.error(f"--only: no preset {', '.join(unknown)}; built-in: {', '.join(everything)}")
    args.output_dir.mkdir(parents=True, exist_ok=True)
    for key, preset in everything.items():
        if args.only and key not in args.only:
            continue
        bpy.ops.wm.read_homefile(use_empty=True)
        scene = bpy.context.scene
        bpy.ops.orogen.preset_load(name=key)
        if "profile" in preset:
            terrain = bpy.context.active_object
            terrain.rotation_euler = (0.0, 0.0, 0.0)
            cam = render.add_camera(scene, terrain, view="TOP", aspect=args.resolution[0] / args.resolution[1])
            cam.rotation_euler = (math.radians(90.0), 0.0, 0.0)  # look north at the XZ plane
            cam.location = (0.0, -300.0, (preset["profile"]["max_height"]) / 2)
            cam.data.ortho_scale = preset["profile"]["length"] * 1.05
            light = {"azimuth": 300.0, "altitude": 35.0}
        else:
            scene.orogen.size = args.size
            if bpy.ops.orogen.terrain_generate() != {"FINISHED"}:
                raise RuntimeError(f"preset {key} was not generated")
            terrain = bpy.context.active_object
            if args.scatter:
                _, failed = presets.add_preset_scatter(terrain, key)
                if failed:
                    raise RuntimeError(f"preset {key}: {'; '.join(failed)}")
            light = orogen.core.preset_spec(key).lighting
            orogen.addon.landscape.stage_view(
                scene,
                terrain,
                args.view,
                aspect=args.resolution[0] / args.resolution[1],
                sun_azimuth=light["azimuth"],
                sun_altitude=max(light["altitude"], 1.0),
            )
        shoot(scene, render, args, args.output_dir / f"{key}.png", light)


def shoot(scene, render, args, out, light):
    """The sun of ``light`` (the spec's lighting: azimuth and altitude in degrees), the physical sky and Cycles,
    as ``render_terrain.py`` sets them; render to ``out``."""
    render.light_scene(scene, math.radians(light["azimuth"]), math.radians(max(light["altitude"], 1.0)))
    render.configure_cycles(scene, tuple(args.resolution), args.samples)
    scene.cycles.use_denoising = True
    render.render_still(scene, str(out))
    print(f"wrote {out}")


def render_erosion_pair(args, orogen):
    """Eroded Mountains' start without its filters, then the preset itself: the same seed, world and camera."""
    spec = orogen.core.preset_spec("eroded_mountains").replace(size=args.size)
    args.erosion_pair.mkdir(parents=True, exist_ok=True)
    for name, pair_spec in (("erosion_before", spec.replace(filters=())), ("erosion_after", spec)):
        bpy.ops.wm.read_homefile(use_empty=True)
        scene = bpy.context.scene
        if bpy.ops.orogen.terrain_add(spec=pair_spec.to_json()) != {"FINISHED"}:
            raise RuntimeError(f"{name} was not generated")
        terrain = bpy.context.active_object
        orogen.addon.landscape.stage_view(
            scene, terrain, "DIORAMA", aspect=args.resolution[0] / args.resolution[1], sun_azimuth=0.0
        )
        shoot(scene, orogen.addon.render, args, args.erosion_pair / f"{name}.png", spec.lighting)


if __name__ == "__main__":
    main()
