"""The manual in Blender: its bpy examples run, its script examples are accepted, its operator page is current.

The numpy-only examples and the scripts that parse without bpy are checked in ``tests/core/test_docs.py``.
"""

import argparse
import importlib
import os
import sys
from pathlib import Path

import bpy
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import write_docs  # noqa: E402

OPERATORS = ROOT / "docs" / "reference" / "operators.md"
#: The Blender the committed operator page was written with (`scripts/write_docs.py --operators`).
PAGE_BLENDER = (5, 0)
BLENDER_SCRIPTS = {
    "render_terrain.py",
    "export_heightmaps.py",
    "render_presets.py",
    "render_lighting.py",
    "build_extension.py",
}


def blender_examples():
    return [
        block
        for path in write_docs.example_files()
        for block in write_docs.code_blocks(path, "python")
        if write_docs.uses_blender(block[1])
    ]


@pytest.mark.smoke
def test_every_registered_operator_is_documented_with_its_arguments(orogen):
    text = OPERATORS.read_text(encoding="utf-8")
    for name in dir(bpy.ops.orogen):
        assert f"\n## {name}\n" in text, f"bpy.ops.orogen.{name} is not in {OPERATORS.name}"
        section = text.split(f"\n## {name}\n")[1].split("\n## ")[0]
        for prop in getattr(bpy.ops.orogen, name).get_rna_type().properties:
            if prop.identifier != "rna_type":
                assert f"| `{prop.identifier}` |" in section, f"{name}({prop.identifier}=...) is not documented"


@pytest.mark.skipif(bpy.app.version[:2] != PAGE_BLENDER, reason="the page is written with Blender 5.0")
def test_the_operator_page_is_current(orogen):
    assert OPERATORS.read_text(encoding="utf-8") == write_docs.operators_page(), "run scripts/write_docs.py --operators"


@pytest.fixture
def example_folder(tmp_path, orogen):
    """A folder to run examples in, with the files they name: ``my_spec.json`` (a faults terrain)."""
    (tmp_path / "my_spec.json").write_text(orogen.core.preset_spec("alpine_faults").to_json(), encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    yield tmp_path
    os.chdir(cwd)


@pytest.mark.parametrize(("where", "code", "reason"), blender_examples(), ids=lambda v: str(v)[:40])
def test_the_blender_examples_run(where, code, reason, scene, orogen, example_folder):
    if reason:
        pytest.skip(f"{where}: {reason}")
    code = code.replace("path/to/orogen", str(ROOT)).replace("/tmp/maps", str(example_folder / "maps"))
    presets = importlib.import_module(orogen.__name__ + ".addon.ops.presets")
    before = set(presets.user_presets())
    try:
        exec(compile(code, where, "exec"), {"__name__": "__example__", "bpy": bpy})  # as Blender's console has it
    finally:
        for name in set(presets.user_presets()) - before:  # the user presets folder is shared by the session
            bpy.ops.orogen.preset_remove(name=name)


class Parsed(Exception):
    """Raised by the patched parser: the options were accepted, nothing else runs."""


@pytest.mark.parametrize(
    ("where", "script", "args"),
    [c for c in write_docs.script_commands() if c[1] in BLENDER_SCRIPTS],
    ids=lambda v: str(v)[:50],
)
def test_the_shell_examples_are_accepted(where, script, args, orogen, example_folder, monkeypatch):
    args = [str(example_folder / "my_spec.json") if a.endswith(".json") else a for a in args]
    module = importlib.import_module(script.removesuffix(".py"))
    importlib.import_module(orogen.__name__ + ".addon")
    if hasattr(module, "parse_args") and hasattr(module, "spec_from_args"):  # render and export: the terrain too
        try:
            parsed = module.parse_args(args)
        except SystemExit as done:
            assert done.code == 0 and "--help" in args, f"{where}: {script} {args} refused"
            return
        if not getattr(parsed, "list", False):
            spec = module.spec_from_args(parsed, orogen)
            assert spec.size >= 2
        return
    original = argparse.ArgumentParser.parse_args

    def parse_then_stop(self, argv=None, namespace=None):
        raise Parsed(original(self, argv, namespace))

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
    monkeypatch.setattr(sys, "argv", [script, *args])
    with pytest.raises(Parsed):
        module.main()
