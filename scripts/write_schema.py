"""Write docs/terrain-spec.schema.json, the JSON Schema of a terrain spec, from core's declarations.

    .venv/bin/python scripts/write_schema.py

A test checks that the published file is the one the declarations make.
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # scripts may import the source tree; the extension itself never does this

from core.spec import json_schema  # noqa: E402

if __name__ == "__main__":
    out = ROOT / "docs" / "terrain-spec.schema.json"
    out.write_text(json.dumps(json_schema(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {out}")
