"""Turn a recipe JSON (or a built-in preset) into heightmap and map files, without the UI.

    .venv/bin/python scripts/export_heightmaps.py --preset alpine_faults --size 1025 --output-dir out/alpine
    .venv/bin/python scripts/export_heightmaps.py --recipe my.json --seed 12 --set faults=900 --format R16
    blender -b -P scripts/export_heightmaps.py -- --preset island --format EXR --metres

Overrides: ``--seed``, ``--size`` (square world) and ``--set KEY=VALUE``
(JSON values). With ``--recipe`` the keys are the recipe's generator
parameters (``--set faults=900``, ``--set hill_radius=[4,12]``); with
``--preset`` they are Terrain panel settings (``--set fault_count=900``,
``--set roughness=0.8``). A recipe file may also be an export's JSON
sidecar (its ``recipe`` is used). Width and height are in metres. Files are
written with Blender's image API (PNG, EXR) and numpy (RAW, .npy); see the
README's export table for their contents and orientation.
"""

import argparse
import json
import math
import sys
from pathlib import Path
from types import SimpleNamespace

import bpy

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from render_terrain import load_orogen, out_of_bounds, read_recipe, report_text, script_argv  # noqa: E402

FORMATS = ('PNG16', 'EXR', 'R16', 'NPY')


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--recipe", type=Path, help="recipe JSON file")
    source.add_argument("--preset", help="built-in preset name (see --list)")
    source.add_argument("--list", action="store_true", help="list the built-in presets and exit")
    parser.add_argument("--seed", type=int, help="override the seed (0 to 2^64 - 1 with --recipe, "
                                                 "0 to 2^31 - 1 with --preset)")
    parser.add_argument("--size", type=int, help="override the size (vertices per side)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a parameter (JSON value; recipe parameters with --recipe, panel settings "
                             "with --preset); repeatable")
    parser.add_argument("--width", type=float, help="terrain width in metres (default: preset's, or 100)")
    parser.add_argument("--height", type=float, help="terrain height range in metres (default: preset's, or 20)")
    parser.add_argument("--format", default="PNG16", help=f"heightmap formats, comma-separated: {','.join(FORMATS)}")
    parser.add_argument("--metres", action="store_true", help="EXR/NPY in absolute metres (with a JSON sidecar)")
    parser.add_argument("--maps", default="lightmap,color,normal,data,splat",
                        help="other maps, comma-separated: lightmap,color,normal,data,splat (or 'none')")
    parser.add_argument("--output-dir", default=str(ROOT / "out" / "export"),
                        help="folder to write into (default out/export)")
    parser.add_argument("--name", default="terrain", help="file name stem (default terrain)")
    args = parser.parse_args(argv)
    formats = [f.strip().upper() for f in args.format.split(",") if f.strip()]
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        parser.error(f"--format must list some of {', '.join(FORMATS)}, got {args.format!r}")
    args.formats = formats
    maps = {m.strip() for m in args.maps.split(",") if m.strip()} - {"none"}
    if maps - {"lightmap", "color", "normal", "data", "splat"}:
        parser.error(f"--maps: unknown {sorted(maps - {'lightmap', 'color', 'normal', 'data', 'splat'})}")
    args.map_set = maps
    overrides = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep or not key:
            parser.error(f"--set needs KEY=VALUE, got {item!r}")
        try:
            overrides[key] = json.loads(value)
        except json.JSONDecodeError:
            overrides[key] = value  # a bare word, e.g. an enum value
        except ValueError as err:  # an integer of thousands of digits
            parser.error(f"--set {key}: {err}")
    args.overrides = overrides
    problems = []
    for option, value in (("--width", args.width), ("--height", args.height)):
        if value is not None and not (math.isfinite(value) and value > 0):
            problems.append(f"{option} must be a positive number of metres, got {value}")
    if args.size is not None and not 2 <= args.size <= 4097:
        problems.append(f"--size must be in [2, 4097], got {args.size}")
    # A recipe's seed is any 64-bit unsigned integer; the panel's Seed setting is a 32-bit int.
    max_seed = 2**64 - 1 if args.recipe is not None else 2**31 - 1
    if args.seed is not None and not 0 <= args.seed <= max_seed:
        problems.append(f"--seed must be in [0, {max_seed}], got {args.seed}")
    for key in ("seed", "size", "width", "height"):
        if key in overrides and getattr(args, key) is not None:
            problems.append(f"give --{key} or --set {key}, not both")
    if not args.output_dir.strip():
        problems.append("--output-dir must name a folder, got an empty string")
    args.output_dir = Path(args.output_dir)
    if args.recipe is not None and not args.recipe.is_file():
        problems.append(f"--recipe {str(args.recipe)!r} is not a file")
    if args.metres and not {"EXR", "NPY"} & set(formats):
        problems.append("--metres applies to the EXR and NPY formats (PNG16 and R16 are always normalised)")
    if problems:
        parser.error("; ".join(problems))
    return args


def main(argv=None):
    args = parse_args(script_argv() if argv is None else argv)
    orogen = load_orogen()
    presets = orogen.addon.presets.BUILTIN_PRESETS
    if args.list:
        for key, preset in presets.items():
            if "profile" not in preset:  # side-view profiles are meshes, not heightmaps
                print(f"{key:22s} {preset['label']}: {preset['description']}")
        return
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    names = orogen.addon.properties.setting_names()
    try:
        if args.recipe:
            data = read_recipe(args.recipe)
            if args.seed is not None:
                data["seed"] = args.seed
            if args.size is not None:
                data["shape"] = [args.size, args.size]
            data.setdefault("params", {}).update(args.overrides)
            recipe = orogen.core.recipe.Recipe.from_dict(data)
            size = dict(width=100.0 if args.width is None else args.width,
                        height=20.0 if args.height is None else args.height)
            problems = out_of_bounds(bpy.ops.orogen.terrain_add.get_rna_type(), size,
                                     {"width": "--width", "height": "--height"})
            if problems:
                sys.exit("error: " + "; ".join(problems))
            bpy.ops.orogen.terrain_add(recipe=recipe.to_json(), **size)
        else:
            if args.preset not in presets or "profile" in presets[args.preset]:
                heightmaps = [k for k, p in presets.items() if "profile" not in p]
                sys.exit(f"error: --preset must be one of {', '.join(heightmaps)}")
            orogen.addon.presets.apply_preset(bpy.context, args.preset)
            settings = scene.orogen
            values = {**args.overrides,
                      **({"seed": args.seed} if args.seed is not None else {}),
                      **({"size": args.size} if args.size is not None else {}),
                      **({"width": args.width} if args.width is not None else {}),
                      **({"height": args.height} if args.height is not None else {})}
            for key in values:
                if key not in names:
                    sys.exit(f"error: --set {key}: not a terrain setting; valid: {', '.join(names)}")
            options = {key: f"--set {key}" for key in args.overrides}
            options.update({key: f"--{key}" for key in ("seed", "size", "width", "height")
                            if getattr(args, key) is not None})
            problems = out_of_bounds(settings.bl_rna, values, options)
            if problems:
                sys.exit("error: " + "; ".join(problems))
            for key, value in values.items():
                try:
                    setattr(settings, key, value)
                except (TypeError, ValueError) as err:  # a wrong kind of value for an enum, bool or string
                    sys.exit(f"error: {options[key]}={value!r} does not fit the setting: {err}")
            bpy.ops.orogen.terrain_add(**{n: getattr(settings, n) for n in names})
    except (RuntimeError, ValueError, TypeError) as err:  # the operator's report, or a bad recipe/override
        sys.exit(f"error: {report_text(err)}")
    terrain = bpy.context.active_object
    options = SimpleNamespace(
        directory=str(args.output_dir), name=args.name, heightmap_format=args.formats[0], absolute=args.metres,
        use_lightmap="lightmap" in args.map_set, use_colormap="color" in args.map_set,
        use_normal_map="normal" in args.map_set, use_data_maps="data" in args.map_set,
        use_splat_maps="splat" in args.map_set,
    )
    try:  # all or nothing: every format and map, or none of them
        written = orogen.addon.operators.export_terrain_maps(terrain, options, args.formats)
    except (ValueError, OSError, RuntimeError) as err:
        sys.exit(f"error: {report_text(err)}")
    for path in written:
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
