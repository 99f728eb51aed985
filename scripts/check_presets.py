"""Measure every built-in preset as a landform: scale, drainage and the same landscape at every size.

For each preset (or those named): its width, relief and cell size, the time to build it at each size, the share
of its channel cells (drainage area >= 50 cells) in closed depressions at each size, measured with fastscapelib's
D8 routing and priority-flood filler (an implementation independent of Orogen's; a sea counts as base level), and
the correlation of its 257² preview with each larger size brought down to the preview's grid (the mean over the
cells around each preview vertex), and for the presets that erode, the share of the volume their filters remove
that stays in the map on slopes under 5° at 257² (fans, floodplains, silted-up floors). Prints a Markdown table
and, with ``--json``, writes the figures; ``--docs`` rewrites the table on the manual's *Presets* page between
its markers. The tests check the same at 513² (``tests/core/test_preset_landforms.py``); this is the 1025² (and
larger) measurement they leave out.

    .venv/bin/python scripts/check_presets.py [--sizes 513,1025] [--only NAME,...] [--json F] [--docs]
    .venv/bin/python scripts/check_presets.py --from-json A.json,B.json --docs   (the table of earlier runs)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "core"))

import numpy as np  # noqa: E402
import oracles  # noqa: E402
from resolution import block_mean  # noqa: E402

from core.erosion import river_network as geomorph  # noqa: E402
from core.presets import PRESETS, preset_spec  # noqa: E402

PAGE = ROOT / "docs" / "presets.md"
START, END = "<!-- check_presets: landforms -->", "<!-- /check_presets: landforms -->"


def base_level(spec, z):
    """The sea: under the material's water level, else the flat floor a sea-level filter leaves (or none)."""
    material = spec.material or {}
    if material.get("water") and material.get("water_level") is not None:
        return z < material["water_level"]
    if any(s.key == "sea_level" for s in spec.filters):
        return z <= z.min() + 1e-6 * spec.height
    return None


def closed_share(spec, z):
    """Share of the channel cells (>= 50 cells of drainage area) in closed depressions (fastscapelib's routing)."""
    base = base_level(spec, z)
    _, _, area = oracles.routing(z, spec.cell_size, base)
    threshold = 50 * spec.cell_size**2
    return geomorph.depression_share(z, oracles.filled(z, spec.cell_size, base), area, min_area=threshold)


def kept_share(spec) -> float | None:
    """The share of the volume the filters remove (the ``removed`` map) deposited on slopes under 5°
    (``deposited``), or None for a preset without a stream-power filter."""
    from core.lighting.derivatives import slope_degrees

    if not any(f.key == "erosion" for f in spec.filters):
        return None
    h, maps = spec.recipe().evaluate_with_maps()
    gentle = slope_degrees(h, spec.cell_size, spec.height) < 5.0
    return float(maps["deposited"][gentle].sum() / maps["removed"].sum())


def measure(name: str, sizes: list[int]) -> dict:
    spec = preset_spec(name)
    row: dict = {"name": name, "label": PRESETS[name]["label"], "width_m": spec.width, "sizes": {}}
    preview = None
    for size in [257, *[s for s in sizes if s != 257]]:
        s = spec.replace(size=size)
        start = time.perf_counter()
        h = s.heightmap()
        seconds = time.perf_counter() - start
        z = h.astype(np.float64) * s.height
        entry = {"seconds": round(seconds, 2), "relief_m": round(float(np.ptp(z)), 1), "cell_m": s.cell_size}
        entry["closed_share"] = round(closed_share(s, z), 4)
        if preview is None:
            preview = h
        else:
            entry["corr_257"] = round(
                float(np.corrcoef(preview.ravel(), block_mean(h, (size - 1) // 256).ravel())[0, 1]), 4
            )
        if size == 257:
            kept = kept_share(s)
            entry["kept_share"] = None if kept is None else round(kept, 4)
        row["sizes"][size] = entry
        print(f"{name} {size}: {entry}", file=sys.stderr, flush=True)
    return row


def table(rows: list[dict], sizes: list[int]) -> str:
    head = ["preset", "width", "relief", "cell at 257²", "kept on < 5°"]
    for size in sizes:
        head += [f"closed at {size}²", f"257² vs {size}²", f"time at {size}²"]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    for r in rows:
        p = r["sizes"][257]
        kept = p.get("kept_share")
        cells = [r["label"], f"{r['width_m']:g} m", f"{p['relief_m']:g} m", f"{p['cell_m']:.3g} m"]
        cells.append("—" if kept is None else f"{100 * kept:.1f} %")
        for size in sizes:
            e = r["sizes"][size]
            cells += [f"{100 * e['closed_share']:.1f} %", f"{e.get('corr_257', 1.0):.3f}", f"{e['seconds']:.1f} s"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The options, checked: sizes of the form 256·k + 1 from 257 on, known preset keys."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="513,1025", help="sizes to measure besides 257 (comma-separated)")
    parser.add_argument("--only", default="", help="preset keys (comma-separated; default every one)")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--docs", action="store_true", help="rewrite the table on docs/presets.md")
    parser.add_argument(
        "--from-json",
        default="",
        help="make the table from earlier runs' --json files (comma-separated), measuring nothing",
    )
    args = parser.parse_args(argv)
    try:
        args.sizes = [int(s) for s in args.sizes.split(",") if s]
    except ValueError:
        parser.error(f"--sizes: comma-separated whole numbers, got {args.sizes!r}")
    if any(s < 257 or (s - 1) % 256 for s in args.sizes):
        parser.error("--sizes: each size must be 256·k + 1 and at least 257 (257, 513, 1025, 2049, ...)")
    args.names = [n for n in args.only.split(",") if n] or list(PRESETS)
    unknown = [n for n in args.names if n not in PRESETS]
    if unknown:
        parser.error(f"--only: no built-in preset {', '.join(unknown)}; built-in: {', '.join(PRESETS)}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sizes, names = args.sizes, args.names
    if args.from_json:
        found = {r["name"]: r for f in args.from_json.split(",") for r in json.loads(Path(f).read_text())}
        rows = [found[n] for n in names if n in found]
        for r in rows:
            r["sizes"] = {int(k): v for k, v in r["sizes"].items()}
    else:
        rows = [measure(n, sizes) for n in names]
    text = table(rows, sizes)
    print(text)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    if args.docs:
        page = PAGE.read_text(encoding="utf-8")
        if START not in page or END not in page:
            raise SystemExit(f"{PAGE}: no {START} … {END} markers")
        before, rest = page.split(START, 1)
        after = rest.split(END, 1)[1]
        PAGE.write_text(before + START + "\n" + text + "\n" + END + after, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
