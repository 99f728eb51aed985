#!/usr/bin/env bash
# Orogen's test command: set-up if needed, lint, type check, build and validate
# the extension with Blender's own tool, then run every test on Blender 5.0.
#   scripts/test.sh [--blender 4.2] [--blender 4.5] [pytest args...]
# also runs the add-on tests on those Blender versions (bpy wheels in .venv-blender-X.Y).
set -euo pipefail
cd "$(dirname "$0")/.."
versions=()
while [ $# -gt 0 ] && [ "$1" = "--blender" ]; do
  versions+=("$2")
  shift 2
done
bash scripts/setup.sh "${versions[@]}"

echo "== ruff"
.venv/bin/ruff check .
echo "== mypy (core)"
.venv/bin/mypy
echo "== build and validate the extension"
.venv/bin/python scripts/build_extension.py --output-dir dist
echo "== core tests under numpy 2"
.venv-numpy2/bin/python -m pytest -q -p no:cacheprovider tests/core
echo "== all tests (numpy 1.26 and real Blender $(.venv/bin/python -c 'import bpy; print(bpy.app.version_string)'))"
OROGEN_REQUIRE_BLENDER=1 .venv/bin/python -m pytest -q "$@"
for version in "${versions[@]}"; do
  echo "== add-on tests on Blender $(".venv-blender-$version/bin/python" -c 'import bpy; print(bpy.app.version_string)')"
  OROGEN_REQUIRE_BLENDER=1 ".venv-blender-$version/bin/python" -m pytest -q -p no:cacheprovider tests/blender
done
