"""Print the realism report of a heightmap file as JSON (core.geomorph.report).

    .venv/bin/python scripts/terrain_report.py out/export/terrain.npy
    .venv/bin/python scripts/terrain_report.py dem.tif --sea-level 0
    blender -b -P scripts/terrain_report.py -- terrain.png --cell 50 --height 1500

Reads every format Orogen imports (PNG, OpenEXR, TIFF/GeoTIFF, RAW ``.r16``/``.raw``, ``.npy``) with the
add-on's reader and its checks. Heights in metres and the cell size come from the JSON sidecar an Orogen
export writes beside the file (``FILE.json``) or a GeoTIFF's georeferencing; ``--cell`` and ``--height``
(metres per unit of the file's values) give or override them. Each measure: its value, the range real
landscapes show, a verdict; see docs/guide/realism-report.md.
"""

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from render_terrain import load_orogen, run_main, script_argv  # noqa: E402


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", help="a heightmap file Orogen imports")
    parser.add_argument("--cell", type=float, default=None, help="cell size in metres (default: from the file)")
    parser.add_argument(
        "--height", type=float, default=None, help="metres per unit of the file's values (default: from the file)"
    )
    parser.add_argument("--sea-level", type=float, default=None, help="sea level in metres (default: no sea)")
    parser.add_argument("--radius", type=int, default=10, help="geomorphon lookup radius in cells (default 10)")
    parser.add_argument("--flat", type=float, default=1.0, help="geomorphon flatness threshold, degrees (default 1)")
    return parser.parse_args(argv)


def heights_and_cell(orogen, args):
    """The file's heights in metres (float64, row 0 north) and its cell size in metres; ValueError otherwise."""
    import numpy as np

    heightmaps = sys.modules[orogen.__name__ + ".addon.io.heightmaps"]
    importer = sys.modules[orogen.__name__ + ".addon.io.import_heightmap"]
    formats = sys.modules[orogen.__name__ + ".core.io.formats"]
    settings = sys.modules[orogen.__name__ + ".core.lighting.settings"]
    values, elevation = heightmaps.read_elevation(args.file)
    sidecar = importer.read_sidecar(args.file)
    metres = None
    width = None
    if sidecar is not None:
        metres = formats.file_heights(values, sidecar.scale)
        if metres is not None and not sidecar.scale.metres and sidecar.scale.height_range is None:
            metres = None
        width = sidecar.width
    if args.height is not None:
        metres = np.asarray(values, dtype=np.float64) * args.height
    elif metres is None and elevation is not None and elevation.cell_size is not None:
        metres = elevation.heights  # georeferenced: metres
    if metres is None:
        raise ValueError(f"{os.path.basename(args.file)}: no sidecar or georeferencing says its metres: give --height")
    cell = args.cell
    if cell is None and elevation is not None and elevation.cell_size is not None:
        cell = float(np.sqrt(elevation.cell_size[0] * elevation.cell_size[1]))
    if cell is None and width is not None:
        cell = settings.cell_size(np.shape(metres), width)
    if cell is None:
        raise ValueError(f"{os.path.basename(args.file)}: no sidecar or georeferencing says its cell size: give --cell")
    return np.asarray(metres, dtype=np.float64), cell


def main(argv=None):
    args = parse_args(script_argv() if argv is None else argv)
    orogen = load_orogen()
    geomorph = sys.modules[orogen.__name__ + ".core.geomorph"]
    try:
        z, cell = heights_and_cell(orogen, args)
        result = geomorph.report(z, cell, sea_level=args.sea_level, radius=args.radius, flat_deg=args.flat)
    except (OSError, ValueError, TypeError) as err:
        sys.stderr.write(f"terrain_report: error: {err}\n")
        sys.exit(1)
    data = {"file": os.path.abspath(args.file), **result.to_dict()}
    print(json.dumps(data, indent=2, allow_nan=False))
    return 0


if __name__ == "__main__":
    run_main(main)
