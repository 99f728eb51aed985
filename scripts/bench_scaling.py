"""The scaling table of ``scripts/bench.py --scaling``: time and peak memory of each eroding preset and each filter
by size, with the exponent of growth.

Every case runs in a fresh Python (so its peak resident memory is its own): an eroding preset is its spec at the
size, evaluated whole (generator and filter stack, the heightmap the add-on meshes); a filter is that filter alone
with its declared defaults on the Eroded Mountains preset's generator at the size, timed as the evaluation with the
filter less the generator's alone in the same process. Sizes run smallest first; a case whose predicted time
(its last measured time grown by the cells, or the work estimate of :mod:`core.work` before any) does not fit in
what is left of ``--budget`` is recorded as not measured, never guessed. The exponent is the least-squares slope of
log time (and log memory) against log cells over the sizes measured: 1 is linear in the cells.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SIZES = (257, 1025, 2049, 4097)
#: The filters that erode the whole map over time: a preset with one of them is an eroding preset.
EROSION_FILTERS = ("erosion", "thermal", "hydraulic", "glacial", "coast")

_CHILD = """
import dataclasses, json, resource, sys, time
sys.path.insert(0, {root!r})
from core.presets import preset_spec
kind, name, size = {kind!r}, {name!r}, {size}
spec = preset_spec(name if kind == "preset" else "eroded_mountains").replace(size=size)
recipe = spec.recipe()
def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
generator = generator_cpu = 0.0
if kind == "filter":
    base = dataclasses.replace(recipe, filters=())
    start, start_cpu = time.perf_counter(), cpu()
    base.evaluate()
    generator, generator_cpu = time.perf_counter() - start, cpu() - start_cpu
    recipe = dataclasses.replace(recipe, filters=(({filter!r}, {{}}),))
estimate = recipe.work_seconds()
start, start_cpu = time.perf_counter(), cpu()
recipe.evaluate()
seconds = time.perf_counter() - start - generator
cpu_seconds = cpu() - start_cpu - generator_cpu
print("RESULT " + json.dumps({{"seconds": max(seconds, 0.0), "cpu_seconds": max(cpu_seconds, 0.0), "estimate": estimate,
      "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}}))
"""


def eroding_presets() -> list[str]:
    """Built-in presets with an eroding filter (:data:`EROSION_FILTERS`) in their stack, in catalogue order."""
    sys.path.insert(0, str(ROOT))
    from core.presets import PRESETS, preset_spec

    return [n for n in PRESETS if any(k in EROSION_FILTERS for k, _ in preset_spec(n).recipe().filters)]


def cases() -> list[tuple[str, str]]:
    """``(kind, name)``: every eroding preset, then every filter of the catalogue."""
    from core.params import FILTERS

    return [("preset", n) for n in eroding_presets()] + [("filter", k) for k in FILTERS]


def estimate(kind: str, name: str, size: int) -> float:
    """The work estimate of a case in seconds (:meth:`core.recipe.Recipe.work_seconds`), before anything runs."""
    import dataclasses

    from core.presets import preset_spec

    recipe = preset_spec(name if kind == "preset" else "eroded_mountains").replace(size=size).recipe()
    if kind == "filter":
        recipe = dataclasses.replace(recipe, filters=((name, {}),))
    return recipe.work_seconds()


def run_case(kind: str, name: str, size: int, timeout: float) -> dict | None:
    """One case in a fresh Python: ``{"seconds", "estimate", "peak_rss"}``, or ``None`` past ``timeout``."""
    code = _CHILD.format(root=str(ROOT), kind=kind, name=name, size=size, filter=name)
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True, check=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return None
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{kind} {name} at {size}: the child printed no RESULT line")


def exponent(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of ``log y`` against ``log x`` (``None`` with fewer than two points)."""
    pts = [(math.log(x), math.log(y)) for x, y in points if x > 0 and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx


def bench_scaling(sizes=SIZES, budget: float = 3600.0, json_path: Path | None = None, log=print) -> dict:
    """Measure every case at every size within ``budget`` seconds; ``json_path`` is rewritten after each case."""
    sys.path.insert(0, str(ROOT))
    start = time.perf_counter()
    rows = {f"{kind} {name}": {"kind": kind, "name": name, "sizes": {}} for kind, name in cases()}
    data = {"budget_s": budget, "sizes": list(sizes), "rows": list(rows.values())}

    def predict(row: dict, size: int) -> float:
        measured = [(int(s), r["seconds"]) for s, r in row["sizes"].items() if r.get("seconds") is not None]
        if measured:
            last_size, last_s = measured[-1]
            return float(last_s * (size / last_size) ** 2)
        return estimate(row["kind"], row["name"], size)

    for size in sizes:
        for row in sorted(rows.values(), key=lambda row: predict(row, size)):  # the quickest first
            kind, name = row["kind"], row["name"]
            predicted = predict(row, size)
            left = budget - (time.perf_counter() - start)
            result = None
            if predicted < left:
                log(f"{kind} {name} at {size}² (predicted {predicted:.0f} s, {left:.0f} s left) ...")
                result = run_case(kind, name, size, max(left, 1.0))
            if result is None:
                log(f"{kind} {name} at {size}²: not measured (predicted {predicted:.0f} s, {left:.0f} s left)")
                row["sizes"][str(size)] = {"seconds": None, "predicted": predicted}
            else:
                log(f"  {result['seconds']:.2f} s, peak {result['peak_rss'] / 2**20:.0f} MiB")
                row["sizes"][str(size)] = result
            if json_path is not None:
                json_path.parent.mkdir(parents=True, exist_ok=True)
                json_path.write_text(json.dumps(data, indent=2))
    return data


def report_scaling(data: dict) -> str:
    """The Markdown of a ``--scaling`` run: seconds and peak MiB at each size, and the exponents in the cells."""
    sizes = data["sizes"]
    head = ["case"] + [f"{n}² s / MiB" for n in sizes] + ["CPU time exp.", "memory exp."]
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for row in data["rows"]:
        cells, times, mems = [], [], []
        for n in sizes:
            r = row["sizes"].get(str(n))
            if r is None or r.get("seconds") is None:
                cells.append("not measured")
                continue
            cpu = f" (cpu {r['cpu_seconds']:.3g})" if "cpu_seconds" in r else ""
            cells.append(f"{r['seconds']:.3g}{cpu} / {r['peak_rss'] / 2**20:.0f}")
            times.append((n * n, r.get("cpu_seconds", r["seconds"])))
            mems.append((n * n, r["peak_rss"]))
        te, me = exponent(times), exponent(mems)
        label = f"{row['kind']} {row['name']}"
        lines.append(
            " | ".join([label, *cells, "—" if te is None else f"{te:.2f}", "—" if me is None else f"{me:.2f}"])
        )
    return (
        "\n## Scaling by size\n\n"
        "Seconds (wall clock; the process's CPU seconds in brackets where recorded) and peak resident memory (MiB, "
        "the whole process) of each eroding preset (its whole heightmap) "
        "and each filter alone (defaults, on the Eroded Mountains generator; the generator's time taken off), "
        "each in a fresh process; the exponents are the log-log slopes against the cells (1 = linear), of the CPU "
        "seconds where recorded (on a shared machine the wall clock follows the load more than the size) and of the "
        "peak memory (a fresh Python with numpy holds about 45 MiB of it). A filter's time under about 10 ms is "
        "within the noise of that difference (0 where the second generator run was the quicker). "
        f'"not measured": the case did not fit in the run\'s budget of {data["budget_s"]:.0f} s.\n\n' + "\n".join(lines)
    )
