#!/usr/bin/env bash
# Set up Orogen's development environment. Idempotent: re-running it only
# installs what changed in the pinned requirements.
#   .venv         Python 3.11 + bpy (Blender as a module), numpy, pytest, ruff, mypy, fake-bpy-module
#   .venv-numpy2  numpy 2.x + pytest, to run the core tests on both numpy lines
#   .venv-blender-X.Y  only when asked (setup.sh 4.2 4.5): bpy X.Y for the add-on tests on that version
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${OROGEN_PYTHON:-python3.11}"
if ! command -v "$PYTHON" >/dev/null 2>&1; then
  echo "error: $PYTHON not found. Orogen's tests run Blender's bpy wheel, which needs Python 3.11." >&2
  echo "       Install Python 3.11 (e.g. 'apt-get install python3.11 python3.11-venv' or pyenv)," >&2
  echo "       or point OROGEN_PYTHON at a Python 3.11 interpreter." >&2
  exit 1
fi
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
  echo "error: $PYTHON is $("$PYTHON" -V 2>&1); the bpy wheel needs Python 3.11 (set OROGEN_PYTHON)." >&2
  exit 1
fi

make_venv() {  # make_venv DIR REQUIREMENTS
  local dir=$1 req=$2 stamp="$1/.orogen-requirements"
  if [ -x "$dir/bin/python" ] && [ -f "$stamp" ] && cmp -s "$req" "$stamp"; then
    return 0
  fi
  echo "setting up $dir from $req"
  [ -x "$dir/bin/python" ] || "$PYTHON" -m venv "$dir"
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
  cp "$req" "$stamp"
}

make_venv .venv scripts/requirements.txt
make_venv .venv-numpy2 scripts/requirements-numpy2.txt
for version in "$@"; do
  req="scripts/requirements-blender-$version.txt"
  if [ ! -f "$req" ]; then
    echo "error: no Blender $version set-up ($req); available: $(ls scripts/requirements-blender-*.txt | sed 's/.*blender-//; s/.txt//' | tr '\n' ' ')" >&2
    exit 1
  fi
  make_venv ".venv-blender-$version" "$req"
done
