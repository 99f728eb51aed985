"""The test tree itself: pytest imports test modules by their base name, so two test files may not share one."""

from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_test_files_have_unique_names():
    names = Counter(p.name for p in (ROOT / "tests").rglob("test_*.py") if "fixtures" not in p.parts)
    assert [name for name, n in names.items() if n > 1] == []
