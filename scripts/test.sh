#!/usr/bin/env bash
# Orogen's test command: set-up if needed, the pre-commit hooks (ruff format and lint), commit subjects, type check,
# build and validate the extension with Blender's own tool, then run every test on Blender 5.0.
# (The manual is built with `mkdocs build --strict` by tests/core/test_docs.py, so a broken link fails here too.)
#   scripts/test.sh [--fast] [--blender 4.2] [--blender 4.5] [pytest args...]
# --blender X.Y also runs the add-on tests on that Blender (its bpy wheel in .venv-blender-X.Y).
# Tests run on two workers (pytest-xdist; CI machines have two cores): OROGEN_TEST_WORKERS=N sets another count,
# 0 runs them in one process. A Blender test file stays on one worker (--dist loadfile): its scene is its own.
# --fast is the tier for while you work: the hooks, the core tests not marked `slow` and the Blender tests marked
# `smoke`, in under a quarter of the full run. CI runs the full one.
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
versions=()
while [ $# -gt 0 ]; do
  case "$1" in
    --fast) fast=1; shift ;;
    --blender) versions+=("$2"); shift 2 ;;
    *) break ;;
  esac
done
bash scripts/setup.sh "${versions[@]}"
workers=(-n "${OROGEN_TEST_WORKERS:-2}")

echo "== pre-commit hooks (ruff format --check, ruff check)"
.venv/bin/pre-commit run --all-files --show-diff-on-failure
echo "== mypy (core)"
.venv/bin/mypy
if [ "$fast" = 1 ]; then
  echo "== fast tier: core tests not marked slow, Blender tests marked smoke"
  OROGEN_REQUIRE_BLENDER=1 .venv/bin/python -m pytest -q -p no:cacheprovider -m "not slow" tests/core "$@"
  OROGEN_REQUIRE_BLENDER=1 .venv/bin/python -m pytest -q -p no:cacheprovider -m smoke tests/blender "$@"
  for version in "${versions[@]}"; do
    OROGEN_REQUIRE_BLENDER=1 ".venv-blender-$version/bin/python" -m pytest -q -p no:cacheprovider -m smoke tests/blender
  done
  exit 0
fi
echo "== commit subjects (at most 72 characters, a blank line before the body)"
.venv/bin/python scripts/check_commits.py --since 275e3de
echo "== build and validate the extension"
.venv/bin/python scripts/build_extension.py --output-dir dist
echo "== core tests under numpy 2"
.venv-numpy2/bin/python -m pytest -q -p no:cacheprovider "${workers[@]}" tests/core
echo "== all tests (numpy 1.26 and real Blender $(.venv/bin/python -c 'import bpy; print(bpy.app.version_string)'))"
OROGEN_REQUIRE_BLENDER=1 .venv/bin/python -m pytest -q "${workers[@]}" --dist loadfile "$@"
for version in "${versions[@]}"; do
  echo "== add-on tests on Blender $(".venv-blender-$version/bin/python" -c 'import bpy; print(bpy.app.version_string)')"
  OROGEN_REQUIRE_BLENDER=1 ".venv-blender-$version/bin/python" -m pytest -q -p no:cacheprovider "${workers[@]}" \
    --dist loadfile tests/blender
done
