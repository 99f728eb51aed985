"""The README's core example runs as written and gives what its comments say."""

import re
import sys
from pathlib import Path

import numpy as np

import core

ROOT = Path(__file__).resolve().parents[2]


def core_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    (block,) = [b for b in blocks if "import core\n" in b]
    return block.replace('sys.path.insert(0, "path/to/orogen")', f"sys.path.insert(0, {str(ROOT)!r})")


def test_the_readme_core_example_runs_and_its_comments_hold():
    names: dict = {}
    exec(compile(core_example(), "README.md", "exec"), names)
    assert names["rgb"].dtype == np.float32 and names["rgb"].shape == (513, 513, 3)
    assert names["shade"].shape == (513, 513) and 0.0 <= names["shade"].min() <= names["shade"].max() <= 1.0
    assert names["peaks"].shape == (257, 257) and (names["peaks"].min(), names["peaks"].max()) == (0.0, 1.0)
    whole, tile = names["whole"], names["tile"]
    assert whole.dtype == np.float32 and whole.shape == (1025, 1025)
    assert np.abs(tile - whole[512:1025, 0:513]).max() <= 1e-6  # seamless: the tile is the whole's cells
    assert core.Recipe.from_json(names["text"]) == names["alpine"]


def test_every_public_name_is_at_the_top_level():
    assert len(set(core.__all__)) == len(core.__all__)
    for name in core.__all__:
        obj = getattr(core, name)
        home = getattr(obj, "__module__", None)
        if home is not None and home.startswith("core."):
            assert getattr(sys.modules[home], name) is obj, name  # the module's own object, re-exported
        assert callable(obj) or name.isupper(), name  # functions and classes, or declared constants
    assert callable(core.diamond_square) and callable(core.fault_formation) and callable(core.hillshade)
