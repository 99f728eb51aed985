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
import math
import os
import signal
import sys
import tempfile
import warnings
from pathlib import Path

import bpy

ROOT = Path(__file__).resolve().parent.parent
#: What the script renders without --preset or --spec: the demo terrain of the README and the manual.
#: The terrain the demo (and this script without --preset or --spec) renders: the preset that looks most like a
#: real place (stream-power erosion to a sea, water, snow above its snow line in metres).
DEMO_PRESET = "eroded_mountains"


def load_orogen():
    """Return Orogen's package: the enabled extension, or this source tree registered now."""
    for name, module in sys.modules.items():
        if name.endswith(".orogen") and name.startswith("bl_ext.") and hasattr(bpy.ops.orogen, "terrain_add"):
            importlib.import_module(name + ".addon")
            return module
    if "orogen" in sys.modules and hasattr(bpy.ops.orogen, "terrain_add"):  # loaded by an earlier call
        return sys.modules["orogen"]
    spec = importlib.util.spec_from_file_location(
        "orogen", ROOT / "__init__.py", submodule_search_locations=[str(ROOT)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["orogen"] = module
    spec.loader.exec_module(module)
    module.register()
    # Unregister before Python exits: Blender only does this for add-ons it enabled itself, and the bpy
    # module (4.5) hangs at exit while properties with update callbacks are still registered.
    atexit.register(module.unregister)
    importlib.import_module("orogen.addon")
    return module


def add_spec_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that say which terrain: --preset or --spec, and --set NAME=VALUE (shared by the scripts)."""
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--preset", help="a built-in preset (see export_heightmaps.py --list) or one of yours")
    source.add_argument(
        "--spec",
        "--recipe",
        dest="spec",
        type=Path,
        default=None,
        help="terrain spec JSON file: a spec, an export's sidecar, or an Orogen 0.1 recipe",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change one setting by its name, as in the spec and the panel: --set hills.count=400, "
        "--set lighting.azimuth=300, --set generator=faults; a bare name (--set count=400) "
        "when only one part of the spec has it; a setting the terrain does not use is refused, one without "
        "effect under the result noted",
    )
    parser.add_argument("--seed", type=int, help="terrain seed (--set seed=N)")
    parser.add_argument("--size", type=int, help="vertices per side (--set size=N)")
    parser.add_argument("--width", type=float, help="width in metres (--set width=X)")
    parser.add_argument("--height", type=float, help="height range in metres (--set height=X)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar on standard error")


def apply_noted(orogen, spec, assignments):
    """``core.spec.apply_settings``, printing its notes on settings without effect to stderr (not an error)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", orogen.core.spec.InactiveSettingWarning)
        spec = orogen.core.spec.apply_settings(spec, assignments)
    for w in caught:
        if issubclass(w.category, orogen.core.spec.InactiveSettingWarning):
            print(f"note: {w.message}", file=sys.stderr)
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return spec


def spec_from_args(args, orogen, default: dict | None = None):
    """The terrain spec the options ask for; exits with a message naming the problem."""
    core = orogen.core
    try:
        if args.spec is not None:
            path = args.spec
            if not path.is_file():
                sys.exit(f"error: --spec {str(path)!r} is not a file")
            spec = core.spec.load_spec(core.io.jsonio.load_json(path, "terrain spec"))  # regular files, bounded
        elif args.preset is not None:
            spec = orogen.addon.ops.presets.find_preset(args.preset)
            if spec is None:
                sys.exit(f"error: --preset {args.preset} adds a side-view profile, not a terrain")
        else:
            spec = core.spec.load_spec(default) if default else core.preset_spec(DEMO_PRESET)
        shortcuts = [
            f"{key}={getattr(args, key)!r}"
            for key in ("seed", "size", "width", "height")
            if getattr(args, key) is not None
        ]
        named = {item.partition("=")[0].strip() for item in args.set}
        both = [key for key in ("seed", "size", "width", "height") if getattr(args, key) is not None and key in named]
        if both:
            sys.exit(f"error: give --{both[0]} or --set {both[0]}, not both")
        spec = apply_noted(orogen, spec, shortcuts + list(args.set))
        spec.recipe().check_work()  # refused here past OROGEN_WORK_LIMIT, naming it
        note = spec.recipe().work_warning()
        if note is not None:
            print(f"note: {note}", file=sys.stderr)
        return spec
    except (OSError, ValueError, TypeError) as err:
        sys.exit(f"error: {err}")


def builtin_preset(args, orogen) -> str | None:
    """The key of the built-in preset the terrain is (``--preset``, or the demo's without ``--spec``), else None."""
    if args.spec is not None:
        return None
    if args.preset is None:
        return DEMO_PRESET
    return orogen.addon.ops.presets.builtin_key(args.preset)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_spec_arguments(parser)
    parser.add_argument(
        "--azimuth",
        type=float,
        default=None,
        help="sun azimuth in degrees from north (--set lighting.azimuth=X): the sun lamp and the "
        "lightmap follow the spec's lighting (default: the spec's)",
    )
    parser.add_argument(
        "--altitude",
        type=float,
        default=None,
        help="sun altitude in degrees (--set lighting.altitude=X; default: the spec's)",
    )
    parser.add_argument(
        "--shading",
        choices=("lit", "unlit"),
        type=str.lower,
        default=None,
        help="material look (default: the spec's, lit)",
    )
    parser.add_argument(
        "--view",
        choices=("LANDSCAPE", "DIORAMA", "OBLIQUE", "TOP"),
        type=str.upper,
        default="LANDSCAPE",
        help="camera: LANDSCAPE (default) from inside the terrain at drone height, the sun to the side, the land "
        "continued to a hazy horizon; DIORAMA (or OBLIQUE) the block on its plinth from above; TOP straight down",
    )
    parser.add_argument(
        "--visibility",
        type=float,
        default=None,
        metavar="METRES",
        help="LANDSCAPE: the visual range of the haze in metres (Koschmieder: extinction 3.912 / visibility; "
        "default five times the distance to the terrain's far edge)",
    )
    parser.add_argument(
        "--scatter",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="a built-in preset (and the demo) with its trees and rocks (default on; --no-scatter: bare ground)",
    )
    parser.add_argument("--samples", type=int, default=32, help="Cycles samples (default 32)")
    parser.add_argument(
        "--denoise",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="denoise with OpenImageDenoise (default on; --no-denoise for the raw samples)",
    )
    parser.add_argument(
        "--resolution",
        type=int,
        nargs=2,
        default=(960, 540),
        metavar=("X", "Y"),
        help="image size in pixels (default 960 540)",
    )
    parser.add_argument(
        "--output", type=Path, default=ROOT / "out" / "terrain.png", help="PNG file to write (default out/terrain.png)"
    )
    parser.add_argument("--blend", type=Path, default=None, help="also save the scene to this .blend file")
    args = parser.parse_args(argv)
    problems = []
    if not (4 <= min(args.resolution) and max(args.resolution) <= 16384):
        problems.append("--resolution must be 4 to 16384 pixels each way")
    if not 1 <= args.samples <= 65536:
        problems.append("--samples must be in [1, 65536]")
    if args.altitude is not None and not (math.isfinite(args.altitude) and 0 < args.altitude <= 90):
        problems.append("--altitude must be in (0, 90] degrees")
    if args.visibility is not None and not (math.isfinite(args.visibility) and args.visibility > 0):
        problems.append("--visibility must be a positive number of metres")
    if args.visibility is not None and args.view != "LANDSCAPE":
        problems.append("--visibility is for --view LANDSCAPE (there is no haze in the others)")
    if args.azimuth is not None and not math.isfinite(args.azimuth):
        problems.append("--azimuth must be a finite number of degrees")
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


def report_text(err: Exception) -> str:
    """An operator's report as raised by ``bpy.ops`` ("Error: ...\n"), without the prefix."""
    text = str(err).strip()
    return text.removeprefix("Error: ")


#: The exit status of a script stopped by Ctrl+C (128 + SIGINT, as a shell reports it).
INTERRUPTED = 130


@contextlib.contextmanager
def progress_shown(orogen, label: str, quiet: bool = False):
    """Show Orogen's jobs run inside as a progress bar on standard error (:class:`core.progress.ProgressBar`:
    redrawn in place on a terminal, a plain line per 5 % otherwise; nothing with ``quiet``), fed by the add-on's
    jobs (``addon.jobs.WATCHERS``). Ctrl+C meanwhile cancels the job, as Esc does in Blender (the operator
    then leaves the scene and the files as they were), and raises ``KeyboardInterrupt`` once it has stopped."""
    jobs = orogen.addon.jobs
    bar = None if quiet else orogen.core.progress.ProgressBar(label)
    interrupted = []

    def watch(job, _text):
        if interrupted:
            job.cancel()
        if bar is not None:
            bar(round(1000 * job.fraction), 1000)

    def on_interrupt(_signum, _frame):
        interrupted.append(True)
        for job in jobs.RUNNING:
            job.cancel()

    previous = signal.signal(signal.SIGINT, on_interrupt)
    jobs.WATCHERS.append(watch)
    try:
        yield
    except orogen.core.Cancelled:  # a job called directly (not through its operator) stopped
        if interrupted:
            raise KeyboardInterrupt from None
        raise
    finally:
        jobs.WATCHERS.remove(watch)
        signal.signal(signal.SIGINT, previous)
        if bar is not None:
            bar.close()
    if interrupted:
        raise KeyboardInterrupt


def run_main(main) -> None:
    """Run a script's ``main``; Ctrl+C ends it with one line on standard error and exit status 130 (no
    traceback; every file is written through staging, so none is left half-written)."""
    try:
        main()
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted: stopped, no file was written or changed\n")
        sys.stderr.flush()
        sys.exit(INTERRUPTED)


def add_terrain(spec, orogen=None, quiet: bool = False) -> None:
    """Add ``spec``'s terrain with Orogen's operator, as a user would; exit with its report if it refuses.

    In background mode Blender prints an operator's reports to standard output itself and ``bpy.ops`` raises
    the same text: that printed copy is held back so the error is said once, on standard error.
    """
    sys.stdout.flush()
    saved = os.dup(1)
    error: RuntimeError | None = None
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 1)
        try:
            with progress_shown(orogen or load_orogen(), "Adding terrain", quiet):
                bpy.ops.orogen.terrain_add(spec=spec.to_json())
        except RuntimeError as err:
            error = err
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
        held.seek(0)
        printed = held.read().decode("utf-8", errors="replace").splitlines(keepends=True)
    report = set(str(error).splitlines()) if error else set()
    sys.stdout.write("".join(line for line in printed if line.rstrip("\n") not in report))
    sys.stdout.flush()
    if error is not None:
        sys.exit(f"error: {report_text(error)}")


def script_argv() -> list[str]:
    """The script's own arguments: after ``--`` under ``blender -b -P``, else all of them."""
    return sys.argv[sys.argv.index("--") + 1 :] if "--" in sys.argv else sys.argv[1:]


def main(argv=None):
    args = parse_args(script_argv() if argv is None else argv)
    bpy.ops.wm.read_homefile(use_empty=True)
    orogen = load_orogen()
    render = orogen.addon.render
    scene = bpy.context.scene
    spec = spec_from_args(args, orogen)
    settings = (
        ([f"lighting.azimuth={args.azimuth % 360.0!r}"] if args.azimuth is not None else [])
        + ([f"lighting.altitude={args.altitude!r}"] if args.altitude is not None else [])
        + ([f"material.shading={args.shading}"] if args.shading else [])
    )
    try:
        spec = apply_noted(orogen, spec, settings)
    except ValueError as err:
        sys.exit(f"error: {err}")
    add_terrain(spec, orogen, args.quiet)
    terrain = bpy.context.active_object
    preset = builtin_preset(args, orogen)
    if args.scatter and preset is not None:
        _, failed = orogen.addon.ops.presets.add_preset_scatter(terrain, preset)
        for message in failed:
            print(f"note: {message}", file=sys.stderr)
    aspect = args.resolution[0] / args.resolution[1]
    light = spec.lighting  # the sun stands where the baked light comes from; a landscape camera puts it aside
    try:
        orogen.addon.landscape.stage_view(
            scene,
            terrain,
            args.view,
            aspect=aspect,
            sun_azimuth=light["azimuth"],
            sun_altitude=max(light["altitude"], 1.0),
            visibility=args.visibility,
        )
    except ValueError as err:  # a mesh that is not an Orogen grid (a mesh source's own) has no landscape view
        sys.exit(f"error: --view {args.view}: {err}")
    render.light_scene(scene, math.radians(light["azimuth"]), math.radians(max(light["altitude"], 1.0)))
    if spec.material["shading"] == "unlit":  # the baked colour x lightmap, shown as it is (no tone mapping)
        scene.view_settings.view_transform = "Standard"
        scene.view_settings.exposure = 0.0
    render.configure_cycles(scene, tuple(args.resolution), args.samples)
    scene.cycles.use_denoising = args.denoise
    # Both files or neither: render and save beside their targets under temporary names, then rename.
    targets = [args.output.resolve()] + ([args.blend.resolve()] if args.blend else [])
    for path in targets:
        path.parent.mkdir(parents=True, exist_ok=True)
    staged = [Path(orogen.core.io.files.staged_path(str(t))) for t in targets]
    try:
        render.render_still(scene, str(staged[0]))
        if args.blend:
            bpy.ops.wm.save_as_mainfile(filepath=str(staged[1]), copy=True)
        # Each file is checked whole (Blender's writer does not report a short write) before it replaces anything.
        orogen.core.io.files.commit(
            [(str(p), str(t)) for p, t in zip(staged, targets, strict=True)],
            {str(targets[0]): (args.resolution[1], args.resolution[0])},
        )
    except (RuntimeError, OSError, ValueError) as err:
        sys.exit(f"error: could not write {' and '.join(map(str, targets))}: {report_text(err)}")
    finally:
        for path in staged:
            with contextlib.suppress(OSError):  # e.g. on a read-only file system nothing was made
                path.unlink(missing_ok=True)
    for target in targets:
        print(f"wrote {target}")


if __name__ == "__main__":
    run_main(main)
