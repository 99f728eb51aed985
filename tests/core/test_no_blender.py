"""core must stay Blender-independent: numpy only."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLENDER_MODULES = {"bpy", "bmesh", "mathutils", "bpy_extras", "gpu", "bgl", "blf", "aud", "idprop", "addon_utils"}


def test_no_core_module_imports_blender():
    offenders = []
    for path in sorted((ROOT / "core").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in BLENDER_MODULES]
    assert offenders == []


def test_importing_core_loads_no_blender_module():
    code = f"import sys, core; print(sorted(m for m in sys.modules if m.split('.')[0] in {BLENDER_MODULES!r}))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
