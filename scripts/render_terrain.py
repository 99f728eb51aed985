"""Generate a terrain and render it with Cycles on the CPU.

Runs both ways:

    blender -b -P scripts/render_terrain.py -- --seed 7 --output out/terrain.png
    python scripts/render_terrain.py --seed 7 --output out/terrain.png   # with the bpy module

It uses the Orogen extension if it is installed and enabled in this Blender;
otherwise it loads it from this source tree.
"""

import argparse
import atexit
import contextlib
import importlib.util
import json
import math
import sys
from pathlib import Path

import bpy

ROOT = Path(__file__).resolve().parent.parent
#: The options that set each operator property, for messages.
OPTIONS = {"size": "--size", "seed": "--seed", "hill_count": "--hills", "radius_min": "--radius MIN",
           "radius_max": "--radius MAX", "flattening": "--flattening", "width": "--width", "height": "--height"}


def load_orogen():
    """Return Orogen's package: the enabled extension, or this source tree registered now."""
    for name, module in sys.modules.items():
        if name.endswith(".orogen") and name.startswith("bl_ext.") and hasattr(bpy.ops.orogen, "terrain_add"):
            importlib.import_module(name + ".addon")
            return module
    if "orogen" in sys.modules and hasattr(bpy.ops.orogen, "terrain_add"):  # loaded by an earlier call
        return sys.modules["orogen"]
    spec = importlib.util.spec_from_file_location("orogen", ROOT / "__init__.py",
                                                  submodule_search_locations=[str(ROOT)])
    module = importlib.util.module_from_spec(spec)
    sys.modules["orogen"] = module
    spec.loader.exec_module(module)
    module.register()
    # Unregister before Python exits: Blender only does this for add-ons it enabled itself, and the bpy
    # module (4.5) hangs at exit while properties with update callbacks are still registered.
    atexit.register(module.unregister)
    importlib.import_module("orogen.addon")
    return module


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipe", type=Path, default=None,
                        help="terrain recipe JSON file (generator, seed, shape, filters); replaces the options below")
    parser.add_argument("--generator", choices=("hills", "faults", "diamond_square", "noise"), default="hills",
                        help="generator (default hills; the hill options apply to hills)")
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
    parser.add_argument("--shading", choices=("LIT", "UNLIT"), default="LIT", help="material look (default LIT)")
    parser.add_argument("--view", choices=("OBLIQUE", "TOP"), default="OBLIQUE", help="camera (default OBLIQUE)")
    parser.add_argument("--samples", type=int, default=32, help="Cycles samples (default 32)")
    parser.add_argument("--resolution", type=int, nargs=2, default=(960, 540), metavar=("X", "Y"),
                        help="image size in pixels (default 960 540)")
    parser.add_argument("--output", type=Path, default=ROOT / "out" / "terrain.png",
                        help="PNG file to write (default out/terrain.png)")
    parser.add_argument("--blend", type=Path, default=None, help="also save the scene to this .blend file")
    args = parser.parse_args(argv)
    problems = []
    if not (4 <= min(args.resolution) and max(args.resolution) <= 16384):
        problems.append("--resolution must be 4 to 16384 pixels each way")
    if not 1 <= args.samples <= 65536:
        problems.append("--samples must be in [1, 65536]")
    if not 0 <= args.seed <= 2**31 - 1:
        problems.append("--seed must be in [0, 2147483647]")
    if not 2 <= args.size <= 4097:
        problems.append("--size must be in [2, 4097]")
    if not (math.isfinite(args.azimuth) and math.isfinite(args.altitude) and 0 < args.altitude <= 90):
        problems.append("--azimuth must be finite and --altitude in (0, 90] degrees")
    if not all(math.isfinite(v) for v in (args.width, args.height, args.flattening, *args.radius)):
        problems.append("--width, --height, --flattening and --radius must be finite numbers")
    for option, path, suffix in (("--output", args.output, ".png"), ("--blend", args.blend, ".blend")):
        if path is None:
            continue
        if path.suffix.lower() != suffix or path.is_dir():
            problems.append(f"{option} must be a {suffix} file path, got {str(path)!r}")
        elif any(p.exists() and not p.is_dir() for p in path.resolve().parents):
            problems.append(f"{option}: a parent of {str(path)!r} is a file, not a folder")
    if problems:
        parser.error("; ".join(problems))
    return args


def read_recipe(path: Path) -> dict:
    """The recipe held by a JSON file: a recipe, or an export's sidecar (its ``recipe``). Exits with a message."""
    if not path.is_file():
        sys.exit(f"error: --recipe {str(path)!r} is not a file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        sys.exit(f"error: cannot read --recipe {str(path)!r}: {err}")
    except ValueError as err:  # JSON syntax, or an integer of thousands of digits
        sys.exit(f"error: --recipe {str(path)!r} is not JSON: {err}")
    except RecursionError:
        sys.exit(f"error: --recipe {str(path)!r} is nested too deeply to be a recipe")
    if isinstance(data, dict) and "recipe" in data:  # an export's sidecar
        data = data["recipe"]
        if not isinstance(data, dict):
            sys.exit(f"error: --recipe {str(path)!r} is a sidecar whose \"recipe\" is not an object "
                     "(an imported heightmap has none)")
    if not isinstance(data, dict):
        sys.exit(f"error: --recipe {str(path)!r} must hold a JSON object (a recipe), got {type(data).__name__}")
    if not isinstance(data.get("params", {}), dict):
        sys.exit(f"error: --recipe {str(path)!r}: \"params\" must be an object, got {data['params']!r}")
    return data


def out_of_bounds(rna, values: dict, options: dict) -> list[str]:
    """Messages for values outside their property's hard bounds, which Blender would clamp without a word.

    ``rna`` is an operator's or property group's RNA type; ``options`` maps a
    property name to the option the user typed (``--hills``); unknown names are
    left to the caller.
    """
    problems = []
    for name, value in values.items():
        prop = rna.properties.get(name)
        if prop is None or prop.type not in {'INT', 'FLOAT'}:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            kind = "an integer" if prop.type == 'INT' else "a number"
            problems.append(f"{options.get(name, name)} must be {kind}, got {value!r}")
            continue
        if prop.type == 'INT' and isinstance(value, float) and not value.is_integer():
            problems.append(f"{options.get(name, name)} must be an integer, got {value!r}")
        elif not ((isinstance(value, int) or math.isfinite(value)) and prop.hard_min <= value <= prop.hard_max):
            low, high = (repr(v) if prop.type == 'INT' else f"{v:g}" for v in (prop.hard_min, prop.hard_max))
            shown = repr(value) if len(repr(value)) <= 24 else f"an integer of {len(str(abs(value)))} digits"
            problems.append(f"{options.get(name, name)} must be in [{low}, {high}], got {shown}")
    return problems


def report_text(err: Exception) -> str:
    """An operator's report as raised by ``bpy.ops`` ("Error: ...\n"), without the prefix."""
    text = str(err).strip()
    return text.removeprefix("Error: ")


def script_argv() -> list[str]:
    """The script's own arguments: after ``--`` under ``blender -b -P``, else all of them."""
    return sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]


def main(argv=None):
    args = parse_args(script_argv() if argv is None else argv)
    bpy.ops.wm.read_homefile(use_empty=True)
    orogen = load_orogen()
    render = orogen.addon.render
    scene = bpy.context.scene
    recipe = json.dumps(read_recipe(args.recipe)) if args.recipe else ""
    values = dict(size=args.size, seed=args.seed, hill_count=args.hills, radius_min=args.radius[0],
                  radius_max=args.radius[1], flattening=args.flattening, width=args.width, height=args.height)
    problems = out_of_bounds(bpy.ops.orogen.terrain_add.get_rna_type(), values, OPTIONS)
    if problems:
        sys.exit("error: " + "; ".join(problems))
    try:
        bpy.ops.orogen.terrain_add(recipe=recipe, generator=args.generator, island=args.island,
                                   light_azimuth=math.radians(args.azimuth % 360.0), shading=args.shading, **values)
    except RuntimeError as err:  # the operator reported an error (bpy.ops raises it)
        sys.exit(f"error: {report_text(err)}")
    terrain = bpy.context.active_object
    aspect = args.resolution[0] / args.resolution[1]
    render.add_camera(scene, terrain, view=args.view, aspect=aspect)
    render.add_sun(scene, math.radians(args.azimuth), math.radians(args.altitude))
    render.set_world(scene)
    render.configure_cycles(scene, tuple(args.resolution), args.samples)
    # Both files or neither: render and save beside their targets under temporary names, then rename.
    targets = [args.output.resolve()] + ([args.blend.resolve()] if args.blend else [])
    for path in targets:
        path.parent.mkdir(parents=True, exist_ok=True)
    staged = [Path(orogen.core.files.staged_path(str(t))) for t in targets]
    try:
        render.render_still(scene, str(staged[0]))
        if args.blend:
            bpy.ops.wm.save_as_mainfile(filepath=str(staged[1]), copy=True)
        # Each file is checked whole (Blender's writer does not report a short write) before it replaces anything.
        orogen.core.files.commit([(str(p), str(t)) for p, t in zip(staged, targets, strict=True)],
                                 {str(targets[0]): (args.resolution[1], args.resolution[0])})
    except (RuntimeError, OSError, ValueError) as err:
        sys.exit(f"error: could not write {' and '.join(map(str, targets))}: {report_text(err)}")
    finally:
        for path in staged:
            with contextlib.suppress(OSError):  # e.g. on a read-only file system nothing was made
                path.unlink(missing_ok=True)
    for target in targets:
        print(f"wrote {target}")


if __name__ == "__main__":
    main()
