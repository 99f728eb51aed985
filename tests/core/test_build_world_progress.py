"""``scripts/build_world.py`` shows its tasks' progress on standard error, with the time left."""

import re

import pytest

pytest.importorskip("dask")

from test_world import EXACT_STACK, build_world, make_plan, spec  # noqa: E402  (it puts scripts/ on the path)

LINE = re.compile(r"^build_world: (\d+) %, (time left unknown|.+ left)$")


def test_a_build_shows_each_pass_from_0_to_100_percent_on_stderr(tmp_path, capsys):
    plan = make_plan(tmp_path, spec("fractal", EXACT_STACK))
    build_world.build_world(plan, "synchronous", progress=True)
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert lines and all(LINE.match(line) for line in lines), captured.err
    percents = [int(LINE.match(line)[1]) for line in lines]
    runs, run = [], []
    for p in percents:  # one run per pass: each goes forward only, and ends at 100 %
        if run and p < run[-1]:
            runs.append(run)
            run = []
        run.append(p)
    runs.append(run)
    assert len(runs) >= 3 and all(r == sorted(r) and r[-1] == 100 for r in runs), percents
    assert "build_world:" not in captured.out  # the pass lines stay on standard output, the bar goes to stderr
    assert "pass 1/" in captured.out


def test_a_quiet_build_shows_nothing(tmp_path, capsys):
    build_world.build_world(make_plan(tmp_path, spec("fractal", EXACT_STACK)), "synchronous", progress=False)
    assert capsys.readouterr().err == ""
