"""The scripts show their progress on standard error and stop cleanly on Ctrl+C (exit 130, one line, no file)."""

import json
import os
import pty
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINE = re.compile(r"^(Adding terrain|Exporting maps): (\d+) %, (time left unknown|.+ left)$")


def spec_file(tmp_path, size=65, steps=30):
    path = tmp_path / "spec.json"
    path.write_text(
        json.dumps(
            {
                "version": 2,
                "generator": "fractal",
                "size": size,
                "seed": 3,
                "width": 100.0,
                "height": 20.0,
                "filters": [{"type": "hydraulic", "steps": steps}],
            }
        )
    )
    return path


def export_args(tmp_path, out, **kw):
    return [
        sys.executable,
        str(ROOT / "scripts" / "export_heightmaps.py"),
        "--spec",
        str(spec_file(tmp_path, **kw)),
        "--maps",
        "lightmap",
        "--output-dir",
        str(out),
    ]


def test_a_log_gets_a_plain_progress_line_every_few_percent(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run(export_args(tmp_path, out), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if LINE.match(line)]
    for job in ("Adding terrain", "Exporting maps"):
        percents = [int(LINE.match(line)[2]) for line in lines if line.startswith(job)]
        assert percents == sorted(percents) and percents[-1] == 100, proc.stderr
        assert all(b // 5 > a // 5 or b == 100 for a, b in zip(percents, percents[1:], strict=False)), percents
    adding = [int(LINE.match(line)[2]) for line in lines if line.startswith("Adding terrain")]
    assert len(adding) >= 10  # the erosion's steps move it, 5 % at a time
    assert "\r" not in proc.stderr  # no terminal: no bar redrawn in place
    assert (out / "terrain_height.png").is_file()
    quiet = subprocess.run(
        [*export_args(tmp_path, tmp_path / "quiet"), "--quiet"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert quiet.returncode == 0 and not any(LINE.match(line) for line in quiet.stderr.splitlines()), quiet.stderr


def test_a_terminal_gets_a_bar_redrawn_in_place(tmp_path):
    parent, child = pty.openpty()
    proc = subprocess.Popen(
        export_args(tmp_path, tmp_path / "out"), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=child, close_fds=True
    )
    os.close(child)
    chunks = []
    while True:
        try:
            chunk = os.read(parent, 4096)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(parent)
    assert proc.wait(timeout=300) == 0
    text = b"".join(chunks).decode("utf-8", "replace")
    frames = re.findall(r"\r(Adding terrain \[[#.]{30}\] \d+ %, [^\r\n\x1b]+)\x1b\[K", text)
    assert len(frames) >= 5 and frames[-1].startswith("Adding terrain [" + "#" * 30 + "] 100 %"), text
    assert re.search(r"\r(Exporting maps \[[#.]{30}\] 100 %, 0 s left)\x1b\[K", text), text


def test_ctrl_c_stops_with_130_one_line_and_no_file(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.Popen(
        export_args(tmp_path, out, size=257, steps=1500),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen = []
    deadline = time.monotonic() + 240
    for line in proc.stderr:  # the erosion is under way: Ctrl+C
        seen.append(line)
        match = LINE.match(line.rstrip("\n"))
        if match and match[1] == "Adding terrain" and int(match[2]) >= 5:
            proc.send_signal(signal.SIGINT)
            break
        assert time.monotonic() < deadline, "".join(seen)
    else:
        raise AssertionError("the script ended before it was interrupted: " + "".join(seen))
    rest = proc.stderr.read()
    stdout = proc.stdout.read()
    assert proc.wait(timeout=120) == 130, (rest, stdout)
    said = [line for line in rest.splitlines() if line.strip() and not LINE.match(line)]
    assert said == ["interrupted: stopped, no file was written or changed"], rest
    assert "Traceback" not in rest and "wrote" not in stdout
    assert not out.exists() or not any(out.rglob("*"))
