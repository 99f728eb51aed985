"""Generate a terrain and render it with Cycles on the CPU.

Runs both ways:

    blender -b -P scripts/render_terrain.py -- --seed 7 --output out/terrain.png
    python scripts/render_terrain.py --seed 7 --output out/terrain.png   # with the bpy module

It uses the Orogen extension if it is installed and enabled in this Blender;
otherwise it loads it from this source tree.
"""

import argparse
import importlib.util
import math
import sys
from pathlib import Path

import bpy

ROOT = Path(__file__).resolve().parent.parent


def load_orogen():
    """Return Orogen's package: the enabled extension, or this source tree registered now."""
    for name, module in sys.modules.items():
        if name.endswith(".orogen") and name.startswith("bl_ext.") and hasattr(bpy.ops.orogen, "terrain_add"):
            importlib.import_module(name + ".addon")
            return module
    spec = importlib.util.spec_from_file_location("orogen", ROOT / "__init__.py",
                                                  submodule_search_locations=[str(ROOT)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["orogen"] = module
    spec.loader.exec_module(module)
    module.register()
    importlib.import_module("orogen.addon")
    return module


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7, help="terrain seed (default 7)")
    parser.add_argument("--size", type=int, default=257, help="vertices per side (default 257)")
    parser.add_argument("--hills", type=int, default=300, help="number of hills (default 300)")
    parser.add_argument("--radius", type=float, nargs=2, default=(8.0, 40.0), metavar=("MIN", "MAX"),
                        help="hill radius range in cells (default 8 40)")
    parser.add_argument("--island", action="store_true", help="cluster the hills into an island")
    parser.add_argument("--flattening", type=float, default=1.6, help="flattening exponent (default 1.6)")
    parser.add_argument("--width", type=float, default=100.0, help="terrain width in metres (default 100)")
    parser.add_argument("--height", type=float, default=22.0, help="terrain height in metres (default 22)")
    parser.add_argument("--azimuth", type=float, default=300.0, help="sun azimuth in degrees from north (default 300)")
    parser.add_argument("--altitude", type=float, default=35.0, help="sun altitude in degrees (default 35)")
    parser.add_argument("--shading", choices=("LIT", "UNLIT"), default="LIT")
    parser.add_argument("--view", choices=("OBLIQUE", "TOP"), default="OBLIQUE")
    parser.add_argument("--samples", type=int, default=32, help="Cycles samples (default 32)")
    parser.add_argument("--resolution", type=int, nargs=2, default=(960, 540), metavar=("X", "Y"))
    parser.add_argument("--output", default=str(ROOT / "out" / "terrain.png"), help="PNG to write")
    parser.add_argument("--blend", default=None, help="also save the scene to this .blend file")
    return parser.parse_args(argv)


def main(argv=None):
    if argv is None:
        argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    args = parse_args(argv)
    bpy.ops.wm.read_homefile(use_empty=True)
    orogen = load_orogen()
    render = orogen.addon.render
    scene = bpy.context.scene
    result = bpy.ops.orogen.terrain_add(
        size=args.size, seed=args.seed, hill_count=args.hills,
        radius_min=args.radius[0], radius_max=args.radius[1], island=args.island,
        flattening=args.flattening, width=args.width, height=args.height,
        light_azimuth=math.radians(args.azimuth % 360.0), shading=args.shading,
    )
    if result != {'FINISHED'}:
        sys.exit(f"terrain_add failed: {result}")
    terrain = bpy.context.active_object
    aspect = args.resolution[0] / args.resolution[1]
    render.add_camera(scene, terrain, view=args.view, aspect=aspect)
    render.add_sun(scene, math.radians(args.azimuth), math.radians(args.altitude))
    render.set_world(scene)
    render.configure_cycles(scene, tuple(args.resolution), args.samples)
    output = Path(args.output).resolve()
    output.parent.mkdir(parents=True, exist_ok=True)
    render.render_still(scene, str(output))
    print(f"wrote {output}")
    if args.blend:
        blend = Path(args.blend).resolve()
        blend.parent.mkdir(parents=True, exist_ok=True)
        bpy.ops.wm.save_as_mainfile(filepath=str(blend))
        print(f"wrote {blend}")


if __name__ == "__main__":
    main()
