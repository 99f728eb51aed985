#!/usr/bin/env bash
# Orogen's main job: generate the default terrain and render it with Cycles on
# the CPU to out/terrain.png, saving the scene to out/terrain.blend.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python scripts/render_terrain.py --output out/terrain.png --blend out/terrain.blend "$@"
