"""Turn a terrain spec (a file or a preset) into heightmap and map files, without the UI.

    .venv/bin/python scripts/export_heightmaps.py --preset alpine_faults --size 1025 --output-dir out/alpine
    .venv/bin/python scripts/export_heightmaps.py --spec my.json --seed 12 --set faults=900 --format R16
    blender -b -P scripts/export_heightmaps.py -- --preset island --format EXR --metres

Overrides: ``--seed``, ``--size``, ``--width``, ``--height`` and ``--set
NAME=VALUE`` with the names of the spec and the panel (``--set
faults.faults=900``, ``--set faults=900``, ``--set hill_radius=[4,12]``,
``--set lighting.mode=hillshade``), the same for a preset or a spec file;
a setting the terrain does not use is refused, and one without effect under
the resulting spec is noted on standard error. A spec file may be an
export's JSON sidecar (its spec, scale included) or an Orogen 0.1 recipe.
Width and height are in metres. Files are
written with Blender's image API (PNG, EXR) and numpy (RAW, .npy); see the
export table of docs/guide/import-export.md for their contents and orientation.
"""

import argparse
import sys
from pathlib import Path
from types import SimpleNamespace

import bpy

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from render_terrain import (  # noqa: E402
    add_spec_arguments,
    add_terrain,
    load_orogen,
    progress_shown,
    report_text,
    run_main,
    script_argv,
    spec_from_args,
)

FORMATS = ("PNG16", "EXR", "R16", "NPY")


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_spec_arguments(parser)
    parser.add_argument("--list", action="store_true", help="list the presets and exit")
    parser.add_argument("--format", default="PNG16", help=f"heightmap formats, comma-separated: {','.join(FORMATS)}")
    parser.add_argument("--metres", action="store_true", help="EXR/NPY in absolute metres (with a JSON sidecar)")
    parser.add_argument(
        "--maps",
        default="lightmap,color,normal,data,splat,erosion",
        help="other maps, comma-separated: lightmap,color,normal,data,splat,erosion (or 'none'); "
        "erosion: the erosion filters' maps as EXR and 16-bit PNG with a JSON of ranges",
    )
    parser.add_argument(
        "--output-dir", default=str(ROOT / "out" / "export"), help="folder to write into (default out/export)"
    )
    parser.add_argument("--name", default="terrain", help="file name stem (default terrain)")
    args = parser.parse_args(argv)
    formats = [f.strip().upper() for f in args.format.split(",") if f.strip()]
    bad = [f for f in formats if f not in FORMATS]
    if bad or not formats:
        parser.error(f"--format must list some of {', '.join(FORMATS)}, got {args.format!r}")
    args.formats = formats
    maps = {m.strip() for m in args.maps.split(",") if m.strip()} - {"none"}
    known = {"lightmap", "color", "normal", "data", "splat", "erosion"}
    if maps - known:
        parser.error(f"--maps: unknown {sorted(maps - known)}")
    args.map_set = maps
    problems = []
    if not args.output_dir.strip():
        problems.append("--output-dir must name a folder, got an empty string")
    args.output_dir = Path(args.output_dir)
    if args.preset is None and args.spec is None and not args.list:
        problems.append("say which terrain: --preset NAME or --spec FILE (or --list)")
    if args.metres and not {"EXR", "NPY"} & set(formats):
        problems.append("--metres applies to the EXR and NPY formats (PNG16 and R16 are levels over the relief)")
    if problems:
        parser.error("; ".join(problems))
    return args


def main(argv=None):
    args = parse_args(script_argv() if argv is None else argv)
    orogen = load_orogen()
    if args.list:
        for key, preset in orogen.core.presets.PRESETS.items():
            print(f"{key:22s} {preset['label']}: {preset['description']}")
        for name in orogen.addon.ops.presets.user_presets():
            print(f"{name:22s} (yours)")
        return
    bpy.ops.wm.read_homefile(use_empty=True)
    spec = spec_from_args(args, orogen)
    add_terrain(spec, orogen, args.quiet)
    terrain = bpy.context.active_object
    options = SimpleNamespace(
        directory=str(args.output_dir),
        name=args.name,
        heightmap_format=args.formats[0],
        absolute=args.metres,
        use_lightmap="lightmap" in args.map_set,
        use_colormap="color" in args.map_set,
        use_normal_map="normal" in args.map_set,
        use_data_maps="data" in args.map_set,
        use_splat_maps="splat" in args.map_set,
        use_erosion_maps="erosion" in args.map_set,
    )
    notes: list[str] = []
    said: list[str] = []
    try:  # all or nothing: every format and map, or none of them (Ctrl+C too: nothing is written)
        with progress_shown(orogen, "Exporting maps", args.quiet):
            written = orogen.addon.io.export_maps.export_terrain_maps(
                terrain, options, args.formats, notes=notes, said=said
            )
    except (ValueError, OSError, RuntimeError) as err:
        sys.exit(f"error: {report_text(err)}")
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    for path in written:
        print(f"wrote {path}")
    for line in said:  # the metres of the 16-bit levels, to type into a game engine
        print(line)


if __name__ == "__main__":
    run_main(main)
