"""Build and validate the extension zip with Blender's own extension tool.

    .venv/bin/python scripts/build_extension.py [--output-dir dist]

Uses ``blender_ext.py`` shipped inside the bpy wheel (the same code as
``blender --command extension build``) and prints the zip's path.
"""

import argparse
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def blender_ext_tool() -> Path:
    """Path of ``blender_ext.py`` inside the installed bpy wheel."""
    import bpy

    tool = Path(bpy.utils.system_resource("SCRIPTS")) / "addons_core" / "bl_pkg" / "cli" / "blender_ext.py"
    if not tool.is_file():
        sys.exit(f"error: Blender's extension tool not found at {tool}")
    return tool


def build(output_dir: Path) -> Path:
    """Build the zip into ``output_dir``, validate it, return its path (exits on failure)."""
    manifest = tomllib.loads((ROOT / "blender_manifest.toml").read_text(encoding="utf-8"))
    output_dir.mkdir(parents=True, exist_ok=True)
    zip_path = output_dir / f"{manifest['id']}-{manifest['version']}.zip"
    zip_path.unlink(missing_ok=True)
    tool = str(blender_ext_tool())
    for args in (["build", "--source-dir", str(ROOT), "--output-filepath", str(zip_path)], ["validate", str(zip_path)]):
        proc = subprocess.run([sys.executable, tool, *args], capture_output=True, text=True)
        print(proc.stdout, end="")
        print(proc.stderr, end="", file=sys.stderr)
        if proc.returncode != 0:
            sys.exit(f"error: blender_ext {args[0]} failed ({proc.returncode})")
        if "warn" in (proc.stdout + proc.stderr).lower():  # the extension must validate without warnings
            sys.exit(f"error: blender_ext {args[0]} reported a warning")
    return zip_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", type=Path, default=ROOT / "dist")
    print(build(parser.parse_args().output_dir))


if __name__ == "__main__":
    main()
