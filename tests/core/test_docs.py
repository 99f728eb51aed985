"""The manual: its generated pages are current, its examples run, its shell examples are accepted.

Examples that need Blender (they name ``bpy``) run in ``tests/blender/test_docs_examples.py``; here run the
numpy-only ones, and the shell examples of the scripts that parse their options without ``bpy``.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import core

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import write_docs  # noqa: E402

#: Scripts whose shell examples are checked here (their options parse without bpy); the rest in Blender.
CORE_SCRIPTS = {"build_world.py", "bench.py", "check_presets.py", "write_docs.py", "write_schema.py"}
BLENDER_SCRIPTS = {
    "render_terrain.py",
    "export_heightmaps.py",
    "render_presets.py",
    "render_lighting.py",
    "build_extension.py",
}


def python_examples(blender: bool) -> list[tuple[str, str, str]]:
    return [
        block
        for path in write_docs.example_files()
        for block in write_docs.code_blocks(path, "python")
        if write_docs.uses_blender(block[1]) == blender
    ]


def run_example(code: str, folder: Path) -> dict:
    """Run a documented example as written, in ``folder``, with the source tree for ``path/to/orogen``."""
    code = code.replace("path/to/orogen", str(ROOT))
    names: dict = {"__name__": "__example__"}
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        exec(compile(code, "example", "exec"), names)
    finally:
        os.chdir(cwd)
    return names


def test_the_generated_pages_are_current():
    stale = [
        str(path.relative_to(ROOT))
        for path, text in write_docs.pages().items()
        if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]
    assert not stale, f"run scripts/write_docs.py: {stale} not current"


def test_the_preset_table_has_every_preset_with_its_scale():
    text = (ROOT / "docs" / "presets.md").read_text(encoding="utf-8")
    for key in core.PRESETS:
        spec = core.preset_spec(key)
        row = next(line for line in text.splitlines() if f"(`{key}`)" in line)
        assert f"| {write_docs.number(spec.width)} m | {write_docs.number(spec.height)} m | {spec.size}² |" in row


def test_the_parameter_reference_has_every_declared_setting():
    text = (ROOT / "docs" / "reference" / "parameters.md").read_text(encoding="utf-8")
    for key, g in core.GENERATORS.items():
        assert all(f"| `{key}.{p.name}` |" in text for p in g.params), key
    for key, f in core.FILTERS.items():
        assert f"### {f.label} (`{key}`)" in text and all(f"| `{p.name}` |" in text for p in f.params), key


def test_the_readme_is_short_and_keeps_the_two_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    assert "## The two commands" in text and "bash scripts/test.sh" in text and "bash scripts/demo.sh" in text


def test_every_python_block_is_run_or_says_why_not():
    for path in write_docs.example_files():
        text = path.read_text(encoding="utf-8")
        assert text.count("```python\n") == len(write_docs.code_blocks(path, "python")), path
        for where, _, reason in write_docs.code_blocks(path, "python"):
            assert reason or "<!-- not run" not in text.split("```python")[0][-40:], where


@pytest.mark.parametrize(("where", "code", "reason"), python_examples(blender=False), ids=lambda v: str(v)[:40])
def test_the_core_examples_run(where, code, reason, tmp_path):
    if reason:
        pytest.skip(f"{where}: {reason}")
    run_example(code, tmp_path)


def test_every_shell_example_of_a_script_is_checked_somewhere():
    scripts = {script for _, script, _ in write_docs.script_commands()}
    assert scripts <= CORE_SCRIPTS | BLENDER_SCRIPTS, scripts - CORE_SCRIPTS - BLENDER_SCRIPTS
    assert all((ROOT / "scripts" / s).is_file() for s in scripts)


def placeholders(args: list[str], folder: Path) -> list[str]:
    """The example's arguments, with its placeholder spec file made (a faults terrain, as the examples use)."""
    spec = folder / "my_spec.json"
    spec.write_text(core.preset_spec("alpine_faults").to_json(), encoding="utf-8")
    return [str(spec) if a.endswith(".json") and a != "out/bench-quick.json" else a for a in args]


@pytest.mark.parametrize(
    ("where", "script", "args"),
    [c for c in write_docs.script_commands() if c[1] in CORE_SCRIPTS],
    ids=lambda v: str(v)[:50],
)
def test_the_shell_examples_are_accepted(where, script, args, tmp_path):
    args = placeholders(args, tmp_path)
    if script == "build_world.py":
        build_world = pytest.importorskip("build_world", reason="needs the world-build dependencies (dask)")
        plan = build_world.plan_from_args(build_world.parse_args(args))
        assert plan.grid.shape[0] >= 2
    elif script == "bench.py":
        import bench

        parsed = bench.parse_args(args)
        assert not parsed.from_json or parsed.docs
    elif script == "write_docs.py":
        write_docs.parse_args(args)
    elif script == "check_presets.py":
        import check_presets

        parsed = check_presets.parse_args(args)
        assert parsed.names and all(size >= 257 for size in parsed.sizes)
    else:
        assert args == [], f"{where}: {script} takes no options"


@pytest.mark.slow
def test_bench_writes_the_performance_page_between_its_markers(tmp_path):
    """A seconds-long ``--quick`` run writes a page; ``--from-json`` writes the same page without measuring."""
    page, again, data = tmp_path / "performance.md", tmp_path / "again.md", tmp_path / "bench.json"
    script = ROOT / "scripts" / "bench.py"
    args = ["--quick", "--no-blender", "--no-reference", "--no-generators", "--json", data, "--docs", page]
    proc = subprocess.run([sys.executable, script, *map(str, args)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Performance") and "<!-- bench.py: measured -->" in text
    assert "A `--quick` run" in text and "### Lighting kernels" in text and "\n## Lighting" not in text
    assert json.loads(data.read_text())["machine"]["quick"] is True
    again.write_text(text.replace("### Lighting kernels", "stale"), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, script, "--from-json", str(data), "--docs", str(again)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert again.read_text(encoding="utf-8") == text


def test_the_committed_performance_page_can_be_rewritten_by_bench():
    text = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    for part in ("measured", "world", "stream-power"):
        assert text.count(f"<!-- bench.py: {part} -->") == 1 and text.count(f"<!-- /bench.py: {part} -->") == 1


def test_bench_writes_the_stream_power_part_from_its_json(tmp_path):
    """``--stream-power``'s JSON becomes its own part of the page; the other parts are kept as they were."""
    committed = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    page, data = tmp_path / "performance.md", tmp_path / "bench_stream_power.json"
    page.write_text(committed, encoding="utf-8")
    row = {"size": 257, "seconds": 0.05, "fastscapelib_seconds": 0.1, "x_fastscapelib": 0.5, "agreement": 1.3e-4}
    rows = [{**row, "routing": "d8"}, {**row, "routing": "mfd", "seconds": 0.09, "x_fastscapelib": 0.9}]
    machine = {"date": "2026-12-02", "cpus": 2, "runs": 3}
    data.write_text(json.dumps({"machine": machine, "stream_power_only": rows}), encoding="utf-8")
    script = ROOT / "scripts" / "bench.py"
    proc = subprocess.run(
        [sys.executable, script, "--from-json", str(data), "--docs", str(page)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    text = page.read_text(encoding="utf-8")
    part = text.split("<!-- bench.py: stream-power -->")[1].split("<!-- /bench.py: stream-power -->")[0]
    assert "D8 | 257² | 0.050 | 0.100 | 0.50 | 1.3e-04 | yes" in part
    assert "multiple flow | 257² | 0.090 | 0.100 | 0.90 | 1.3e-04 | no" in part
    assert "minimum of 3 runs" in part and "Measured on 2026-12-02" in part
    head = committed.split("<!-- bench.py: stream-power -->")[0]
    assert text.startswith(head)


def test_the_json_examples_are_specs_that_load():
    blocks = [b for path in write_docs.example_files() for b in write_docs.code_blocks(path, "json")]
    assert blocks
    for where, body, _ in blocks:
        spec = core.load_spec(json.loads(body))
        assert spec.to_dict()["version"] == json.loads(body)["version"], where


def test_every_path_the_manual_names_exists():
    """Modules, scripts and tests move: a page naming a path that is gone must be fixed with the move."""
    blender_paths = {"scripts/presets/orogen/terrain"}  # in Blender's user folder, not in the repository
    missing = []
    for path in write_docs.example_files():
        text = path.read_text(encoding="utf-8")
        for name in re.findall(r"`((?:core|addon|scripts|tests|docs)/[A-Za-z0-9_./-]*)`", text):
            if not (ROOT / name).exists() and name not in blender_paths:
                missing.append(f"{path.relative_to(ROOT)}: {name}")
    assert not missing, missing


def test_the_manual_builds_with_no_warning(tmp_path):
    """``mkdocs build --strict``: a broken link, a missing anchor or a page left out of the nav fails."""
    pytest.importorskip("mkdocs", reason="MkDocs is pinned in scripts/requirements.txt (.venv)")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "site" / "reference" / "parameters.html").is_file()
