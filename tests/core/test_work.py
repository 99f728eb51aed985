"""Work estimates and the user's work limit: every built-in preset at every size the panel
offers is accepted, with a time estimate where it is long; only a limit the user set refuses, naming it."""

import ast
import re
from pathlib import Path

import pytest

from core import work
from core.presets import PRESETS, preset_spec
from core.recipe import Recipe

ROOT = Path(__file__).resolve().parents[2]


def engine_sizes():
    """``ENGINE_SIZES`` of the panel's size menu (addon/ui/sizes.py imports bpy, so it is read, not imported)."""
    tree = ast.parse((ROOT / "addon" / "ui" / "sizes.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "ENGINE_SIZES" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError("no ENGINE_SIZES in addon/ui/sizes.py")


@pytest.fixture(autouse=True)
def no_limit(monkeypatch):
    monkeypatch.delenv(work.WORK_LIMIT_ENV, raising=False)
    yield
    work.set_preference_limit(None)


def test_the_panel_offers_sizes_up_to_4097():
    assert engine_sizes() == (129, 257, 513, 1025, 2049, 4097)


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_at_every_panel_size_passes_the_checks_with_an_estimate(name):
    for size in engine_sizes():
        recipe = preset_spec(name).replace(size=size).recipe()
        seconds = recipe.check_work()  # every work check, before any work
        assert recipe.shape == (size, size)
        assert seconds == work.work_seconds(recipe.work(), size * size)
        assert seconds == recipe.work() / work.WORK_PER_SECOND * (size * size / 1025**2) ** work.GROWTH
        warning = recipe.work_warning()
        if seconds < work.WARN_SECONDS:
            assert warning is None
        else:
            assert warning == (
                f"a {size} x {size} terrain's filters will take {work.describe_seconds(seconds)} "
                f"({recipe.work():.3g} cell passes)"
            )


@pytest.mark.parametrize("name", ["eroded_mountains", "river_valleys"])
def test_the_eroding_presets_at_4097_warn_in_minutes(name):
    # these were refused by the old bound (Eroded Mountains from 2049, the others from 1025)
    warning = preset_spec(name).replace(size=4097).recipe().work_warning()
    assert warning is not None and re.search(r" will take about \d+ minutes \(", warning)
    assert preset_spec(name).replace(size=129).recipe().work_seconds() < preset_spec(name).recipe().work_seconds()


def test_scree_slopes_at_4097_warns_in_hours():
    """Its thermal time is in years since spec version 5: the passes grow with 1 / cell², 16 times 1025²'s."""
    warning = preset_spec("scree_slopes").replace(size=4097).recipe().work_warning()
    assert warning is not None and re.search(r" will take about \d+ hours \(", warning)


def test_the_environment_limit_refuses_past_it_naming_the_setting_and_the_limit(monkeypatch):
    spec = preset_spec("river_valleys").replace(size=1025)
    seconds = spec.recipe().work_seconds()
    monkeypatch.setenv("OROGEN_WORK_LIMIT", f"{seconds * 1.01:.6g}s")
    assert spec.recipe().check_work() == seconds  # just within
    monkeypatch.setenv("OROGEN_WORK_LIMIT", "15min")
    assert spec.replace(size=2049).recipe().check_work() > 60
    with pytest.raises(
        ValueError,
        match=r"^erosion.steps: \d+ over 4097 x 4097 cells \(filters\[0\] 'erosion'\): about \d+ minutes of work "
        r"\(.* cell passes\), more than the limit of 15 minutes set by OROGEN_WORK_LIMIT: at this size "
        r"erosion.steps must be at most \d+ with the rest of the stack as it is: use fewer or a smaller "
        r"heightmap, or raise the limit$",
    ):
        spec.replace(size=4097).recipe().check_work()
    assert spec.replace(size=4097).recipe().shape == (4097, 4097)  # a spec over the limit can still be read
    monkeypatch.setenv("OROGEN_WORK_LIMIT", "2 hours")
    with pytest.raises(ValueError, match=r"^OROGEN_WORK_LIMIT must be seconds as a number .*, got '2 hours'"):
        spec.recipe().check_work()


def test_the_preference_limit_refuses_and_the_smaller_limit_wins(monkeypatch):
    spec = preset_spec("scree_slopes").replace(size=2049)
    work.set_preference_limit(60.0)
    with pytest.raises(ValueError, match=r"more than the limit of 60 seconds set by the Work Limit preference \("):
        spec.recipe().check_work()
    monkeypatch.setenv("OROGEN_WORK_LIMIT", "30")
    with pytest.raises(ValueError, match=r"the limit of 30 seconds set by OROGEN_WORK_LIMIT"):
        spec.recipe().check_work()
    monkeypatch.delenv("OROGEN_WORK_LIMIT")
    work.set_preference_limit(0.0)  # 0: no limit
    assert work.work_limit() is None and spec.recipe().check_work() > 60
    with pytest.raises(ValueError, match="the work limit must be 0"):
        work.set_preference_limit(-1.0)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("600", 600.0), ("1e3", 1000.0), ("90s", 90.0), ("30m", 1800.0), ("30 min", 1800.0), ("1.5h", 5400.0),
     ("2d", 172800.0), (" 45 SEC ", 45.0)],
)  # fmt: skip
def test_the_limit_takes_the_forms_of_a_duration(text, seconds):
    assert work.parse_seconds(text, "OROGEN_WORK_LIMIT") == seconds


@pytest.mark.parametrize("text", ["", "0", "-5", "nan", "inf", "5 parsecs", "1e999", "m"])
def test_a_limit_that_is_not_a_duration_is_refused(text):
    with pytest.raises(ValueError, match="^OROGEN_WORK_LIMIT must be"):
        work.parse_seconds(text, "OROGEN_WORK_LIMIT")


def test_durations_read_as_people_say_them():
    assert [work.describe_seconds(s) for s in (0.2, 1.0, 40.0, 119.4, 180.0, 7199.0, 9000.0)] == [
        "about 1 second",
        "about 1 second",
        "about 40 seconds",
        "about 119 seconds",
        "about 3 minutes",
        "about 120 minutes",
        "about 2.5 hours",
    ]
    assert work.work_warning(work.WARN_SECONDS * work.WORK_PER_SECOND - 1, "x") is None
    ten = work.WARN_SECONDS * work.WORK_PER_SECOND
    assert work.work_warning(ten, "x") == f"x will take about 10 seconds ({ten:.3g} cell passes)"


def test_a_hand_made_stack_past_the_limit_names_its_costliest_setting(monkeypatch):
    monkeypatch.setenv("OROGEN_WORK_LIMIT", "1min")
    with pytest.raises(ValueError, match=r"^thermal.steps: 100000 over 1025 x 1025 cells \(filters\[1\] 'thermal'\)"):
        Recipe(
            shape=(1025, 1025), filters=(("box_blur", {"radius": 3}), ("thermal", {"time": "passes", "steps": 100_000}))
        ).check_work()
    # evaluating checks it too, before any work
    with pytest.raises(ValueError, match=r"^thermal.steps: 100000 over 1025 x 1025 cells"):
        Recipe(shape=(1025, 1025), filters=(("thermal", {"time": "passes", "steps": 100_000}),)).evaluate()
