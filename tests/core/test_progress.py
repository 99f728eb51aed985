"""The progress figures every long job shows: time left, the status text, the scripts' bar on standard error."""

import io
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import core
from core.progress import ProgressBar, progress_text, time_left


def test_time_left_is_the_rate_so_far_extrapolated():
    assert time_left(0.25, 10.0) == 30.0
    assert time_left(0.5, 3.0) == 3.0
    assert time_left(1.0, 7.0) == 0.0
    assert time_left(0.0, 5.0) is None  # nothing done: no rate yet
    assert time_left(math.nan, 5.0) is None and time_left(0.5, math.inf) is None


@given(st.floats(0.001, 1.0), st.floats(0.0, 1e6))
def test_time_left_is_never_negative_and_shrinks_as_the_job_goes_on(fraction, elapsed):
    left = time_left(fraction, elapsed)
    assert left is not None and left >= 0.0
    assert left <= elapsed * (1.0 - fraction) / fraction * (1 + 1e-12)
    further = min(1.0, fraction * 1.5)
    assert time_left(further, elapsed) <= left  # at the same rate, more done means less left


def test_the_status_text_names_the_percentage_and_the_time_left():
    assert progress_text(0.0, 3.0) == "0 %, time left unknown"
    assert progress_text(0.25, 10.0) == "25 %, 30 s left"
    assert progress_text(0.999, 1.0) == "99 %, 1 s left"  # floored percentage, time rounded up
    assert progress_text(0.1, 9.0) == "10 %, 1 min 21 s left"
    assert progress_text(0.01, 100.0) == "1 %, 2 h 45 min left"
    assert progress_text(1.0, 4.0) == "100 %, 0 s left"
    assert progress_text(2.0, 4.0) == "100 %, 0 s left" and progress_text(-1.0, 4.0) == "0 %, time left unknown"


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_log_gets_a_plain_line_each_step_percent_never_backwards():
    out = io.StringIO()
    bar = ProgressBar("Eroding", out, step=25)
    for done in (0, 1, 10, 24, 25, 30, 20, 49, 50, 99, 100, 100):
        assert bar(done, 100) is True  # it never cancels
    bar.close()
    lines = out.getvalue().splitlines()
    assert [line.split(": ")[1].split(",")[0] for line in lines] == [
        "0 %",
        "25 %",
        "50 %",
        "99 %",
        "100 %",
    ]  # 99: past 75
    assert all(line.startswith("Eroding: ") for line in lines)
    assert lines[-1].endswith(", 0 s left")
    assert bar.fraction == 1.0


def test_a_terminal_gets_one_line_redrawn_in_place():
    out = Terminal()
    bar = ProgressBar("Tiles", out, width=10)
    bar(3, 10)
    bar(2, 10)  # never backwards
    bar(10, 10)
    bar.close()
    text = out.getvalue()
    assert text.count("\n") == 1 and text.endswith("\n")
    frames = text.rstrip("\n").split("\r")[1:]
    assert frames[0].startswith("Tiles [###.......] 30 %, ")
    assert frames[1].startswith("Tiles [###.......] 30 %, ")
    assert frames[2].startswith("Tiles [##########] 100 %, 0 s left")
    assert all(f.endswith("\x1b[K") for f in frames)


def test_a_zero_total_counts_as_done_and_the_names_are_at_the_top_level():
    out = io.StringIO()
    ProgressBar("x", out)(0, 0)
    assert out.getvalue() == "x: 100 %, 0 s left\n"
    assert core.ProgressBar is ProgressBar and core.time_left is time_left and core.progress_text is progress_text


@pytest.mark.parametrize("step", [0, -3])
def test_a_step_below_one_percent_counts_as_one(step):
    out = io.StringIO()
    bar = ProgressBar("x", out, step=step)
    for done in range(0, 101):
        bar(done, 100)
    assert len(out.getvalue().splitlines()) == 101


def test_a_world_with_erosion_reports_its_whole_evaluation_and_can_be_cancelled():
    from core.world import WorldCache, world_grid

    s = core.TerrainSpec.from_dict(
        {
            "version": 2,
            "generator": "fractal",
            "size": 17,
            "seed": 4,
            "width": 64.0,
            "height": 10.0,
            "filters": [{"type": "thermal", "iterations": 8}],
        }
    )
    grid = world_grid(s, 2, 2)
    seen = []
    reported = WorldCache(s, grid, progress=lambda done, total: seen.append((done, total)))
    plain = WorldCache(s, grid)
    assert plain.whole is not None and np.array_equal(reported.whole, plain.whole)  # the same heights, bit for bit
    assert len(seen) >= 8 and [d for d, _t in seen] == sorted(d for d, _t in seen) and seen[-1][0] == seen[-1][1]
    with pytest.raises(core.Cancelled):
        WorldCache(s, grid, progress=lambda done, total: done < total // 2)
