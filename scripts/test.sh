#!/usr/bin/env bash
# Orogen's test command: set-up if needed, lint, type check, build and validate
# the extension with Blender's own tool, then run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

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
