"""Nothing lost: files are checked whole before they replace anything, and sets survive kills and races.

The kill tests SIGKILL a writer at many points of its commits; the race test
runs two writers on the same names; the size-limit test writes under
``RLIMIT_FSIZE``. Each checks what a reader of the folder can see.
"""

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

from core.io import files, formats

ROOT = Path(__file__).resolve().parents[2]
NAMES = ("t_height.r16", "t_height.r16.json", "t_height.npy", "t_meta.json")
SHAPE = (33, 17)


def write_set(folder: Path, generation: int, stage) -> list[tuple[str, str]]:
    """One export's worth of files, every one saying its generation; returns (staged, target) pairs."""
    values = np.full(SHAPE, generation / 65535.0, np.float32)  # one RAW level per generation
    pairs = []
    for name in NAMES:
        target = str(folder / name)
        staged = stage(target)
        if name.endswith(".r16"):
            formats.write_raw(staged, values)
        elif name.endswith(".npy"):
            formats.write_npy(staged, values)
        else:
            Path(staged).write_text(json.dumps({"generation": generation, "pad": "x" * 3000}))
        pairs.append((staged, target))
    return pairs


def generation_of(path: Path) -> int:
    """The generation a whole file holds (raises if it is not whole)."""
    if path.suffix == ".json":
        return json.loads(path.read_text())["generation"]
    files.verify_file(str(path), SHAPE)
    if path.suffix == ".r16":
        return int(np.fromfile(path, "<u2")[0])
    return round(float(np.load(path)[0, 0]) * 65535.0)


def folder_state(folder: Path) -> dict[str, int]:
    return {name: generation_of(folder / name) for name in NAMES if (folder / name).exists()}


def commit_set(folder: Path, generation: int) -> None:
    pairs = write_set(folder, generation, files.staged_path)
    files.commit(pairs, {t: SHAPE for _, t in pairs if not t.endswith(".json")})


def test_verify_file_accepts_whole_files_and_refuses_cut_ones(tmp_path):
    pairs = write_set(tmp_path, 5, lambda t: t)
    for _, path in pairs:
        files.verify_file(path, SHAPE)
        data = Path(path).read_bytes()
        for cut in (0, 1, len(data) // 2, len(data) - 1):
            Path(path).write_bytes(data[:cut])
            with pytest.raises(ValueError):
                files.verify_file(path, SHAPE)
        Path(path).write_bytes(data)
    with pytest.raises(ValueError, match="holds shape"):
        files.verify_file(pairs[2][1], (17, 33))
    with pytest.raises(ValueError, match="the RAW file has 1122 bytes, not 2244"):
        files.verify_file(pairs[0][1], (33, 34))


def png_bytes(rows, cols):
    raw = b"".join(b"\x00" + bytes(cols) for _ in range(rows))

    def chunk(kind, data):
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")

    ihdr = cols.to_bytes(4, "big") + rows.to_bytes(4, "big") + bytes((8, 0, 0, 0, 0))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def test_a_png_cut_short_or_damaged_never_replaces_the_old_file(tmp_path):
    target = tmp_path / "t_color.png"
    target.write_bytes(png_bytes(33, 17))
    good = png_bytes(33, 17)
    for bad, message in (
        (good[:-12], "no IEND"),
        (good[:40], "cut short"),
        (b"", "empty"),
        (good[:30] + bytes([good[30] ^ 1]) + good[31:], "CRC mismatch"),
        (png_bytes(17, 33), "17 x 33"),
    ):
        staged = files.staged_path(str(target))
        Path(staged).write_bytes(bad)
        with pytest.raises(ValueError, match="t_color.png was not written completely") as caught:
            files.commit([(staged, str(target))], {str(target): SHAPE})
        assert message in str(caught.value) or message == "17 x 33"
        assert target.read_bytes() == good
        os.remove(staged)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t_color.png"]


def test_commit_replaces_the_set_and_leaves_nothing_behind(tmp_path):
    commit_set(tmp_path, 1)
    commit_set(tmp_path, 2)
    assert folder_state(tmp_path) == dict.fromkeys(NAMES, 2)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(NAMES)


@pytest.mark.parametrize("fail_at", range(len(NAMES)))
def test_a_rename_failing_midway_puts_the_old_set_back(tmp_path, monkeypatch, fail_at):
    commit_set(tmp_path, 1)
    real = os.replace
    calls = []

    def replace(src, dst):
        if os.path.basename(str(dst)) in NAMES:
            calls.append(dst)
            if len(calls) == fail_at + 1:
                raise OSError(5, "Input/output error")
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError, match="Input/output error"):
        commit_set(tmp_path, 2)
    monkeypatch.setattr(os, "replace", real)
    assert folder_state(tmp_path) == dict.fromkeys(NAMES, 1)
    leftovers = sorted(p.name for p in tmp_path.iterdir() if p.name not in NAMES)
    assert all(name.startswith(".orogen-stage-") for name in leftovers)  # the caller's staged files, nothing else


WRITER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r}); sys.path.insert(0, {tests!r})
    from pathlib import Path
    from test_files import commit_set
    folder, start, count = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    for generation in range(start, start + count):
        commit_set(folder, generation)
        if generation == start + 1:  # two sets are in: whatever a kill interrupts, one committed after start
            print("ready", flush=True)
""")


def writer(folder: Path, start: int, count: int) -> subprocess.Popen:
    code = WRITER.format(root=str(ROOT), tests=str(ROOT / "tests" / "core"))
    return subprocess.Popen(
        [sys.executable, "-c", code, str(folder), str(start), str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.mark.slow
def test_a_writer_killed_at_any_moment_never_leaves_a_target_missing_or_cut(tmp_path):
    commit_set(tmp_path, 1)
    rng = random.Random(7)
    seen_mixed = progressed = 0
    for attempt in range(15):
        start = 100 + 1000 * attempt
        proc = writer(tmp_path, start, 1000)
        assert proc.stdout.readline() == b"ready\n"  # its first two sets are in
        time.sleep(rng.random() * 0.2)
        state = folder_state(tmp_path)  # a reader while it writes: every target present and whole
        assert set(state) == set(NAMES)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        state = folder_state(tmp_path)  # after the kill: present and whole, perhaps a mix of two sets
        assert set(state) == set(NAMES)
        seen_mixed += len(set(state.values())) > 1
        files.recover(str(tmp_path))
        after = folder_state(tmp_path)
        assert len(set(after.values())) == 1, after  # all or nothing once recovered
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(NAMES)  # leftovers cleaned
        progressed += next(iter(after.values())) > start
    assert progressed == 15
    print(f"{seen_mixed} of 15 kills landed inside a set's renames; {progressed} after some commits")


KILLER = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, {root!r}); sys.path.insert(0, {tests!r})
    from pathlib import Path
    from test_files import commit_set
    kind, when = sys.argv[2], int(sys.argv[3])
    real = getattr(os, kind)
    calls = []
    def hooked(*args, **kwargs):
        calls.append(args)
        if len(calls) == when:
            os.kill(os.getpid(), signal.SIGKILL)  # dies before this call does anything
        return real(*args, **kwargs)
    setattr(os, kind, hooked)
    commit_set(Path(sys.argv[1]), 2)
""")


# A commit's os.replace calls: the journal, then the four targets; its os.remove calls: the journal (the commit
# point), then the backups. Killing before each of them covers every state a reader or the next run can meet.
@pytest.mark.parametrize(
    ("kind", "when", "expected"),
    [
        ("replace", 1, 1),
        ("replace", 2, 1),
        ("replace", 3, 1),
        ("replace", 4, 1),
        ("replace", 5, 1),
        ("remove", 1, 1),
        ("remove", 2, 2),
        ("remove", 4, 2),
        ("link", 1, 1),
        ("link", 3, 1),
        ("fsync", 6, 1),
    ],
)
def test_a_writer_killed_at_each_step_of_a_commit_is_rolled_back_or_complete(tmp_path, kind, when, expected):
    commit_set(tmp_path, 1)
    code = KILLER.format(root=str(ROOT), tests=str(ROOT / "tests" / "core"))
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path), kind, str(when)], capture_output=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    state = folder_state(tmp_path)
    assert set(state) == set(NAMES)  # no target missing, every one whole
    done = files.recover(str(tmp_path))
    assert folder_state(tmp_path) == dict.fromkeys(NAMES, expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(NAMES), done
    if kind == "replace" and when > 2:
        assert any(line.startswith("rolled back an interrupted write of 4 files") for line in done)


def test_two_writers_on_the_same_names_both_succeed(tmp_path):
    commit_set(tmp_path, 1)
    procs = [writer(tmp_path, 1000, 30), writer(tmp_path, 2000, 30)]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err.decode()
    state = folder_state(tmp_path)
    assert len(set(state.values())) == 1 and set(state.values()) <= {1029, 2029}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(NAMES)


def test_a_file_size_limit_leaves_the_old_files_and_says_so(tmp_path):
    commit_set(tmp_path, 1)
    code = textwrap.dedent(f"""
        import resource, sys
        sys.path.insert(0, {str(ROOT)!r})
        import numpy as np
        from core.io import files, formats
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))  # ulimit -f: the RAW needs 1122 bytes
        target = {str(tmp_path / "t_height.r16")!r}
        staged = files.staged_path(target)
        try:
            formats.write_raw(staged, np.ones(({SHAPE[0]}, {SHAPE[1]})))
        except OSError as err:  # Python sees EFBIG (it ignores SIGXFSZ); a C writer may not say anything
            print("write failed:", err.strerror)
        try:
            files.commit([(staged, target)], {{target: {SHAPE!r}}})
        except ValueError as err:
            sys.exit(f"error: {{err}}")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "File too large" in proc.stdout
    assert (
        "error: t_height.r16 was not written completely (the RAW file has 1000 bytes, not 1122; "
        "the disk may be full or a file-size limit reached): nothing was replaced"
    ) in proc.stderr
    assert folder_state(tmp_path) == dict.fromkeys(NAMES, 1)
    files.recover(str(tmp_path))  # the staged file of the dead process is cleaned
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(NAMES)


def test_leftovers_of_dead_processes_are_cleaned_and_old_backups_restored(tmp_path):
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    ).stdout.strip()
    host = files._host()
    (tmp_path / f".orogen-stage-{host}-{dead}-abcd1234-t.png").write_bytes(b"partial")
    (tmp_path / f".orogen-stage-{host}-{dead}-abcd1235").mkdir()
    (tmp_path / f".orogen-old-{host}-{dead}-abcd1236-t.png").write_bytes(b"old")
    (tmp_path / f".t.png.{dead}-0.old").write_bytes(b"the user's file")  # Orogen 0.1 moved it aside, then died
    alive = tmp_path / f".orogen-stage-{host}-{os.getpid()}-abcd1237-u.png"
    alive.write_bytes(b"mine")
    done = files.recover(str(tmp_path))
    assert len(done) == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["t.png", alive.name])
    assert (tmp_path / "t.png").read_bytes() == b"the user's file"


# --- one text file, whole or not at all (a preset saved on a full disk left a .tmp) ----------
def test_write_text_on_a_full_disk_leaves_the_old_file_and_nothing_beside_it(tmp_path, monkeypatch):
    import builtins
    import errno
    import io

    target = tmp_path / "My_Preset.json"
    target.write_text('{"old": 1}')
    real_open = builtins.open

    class Full(io.TextIOWrapper):
        def write(self, _text):
            raise OSError(errno.ENOSPC, "No space left on device")

    def full_open(path, mode="r", *args, **kwargs):
        f = real_open(path, mode, *args, **kwargs)
        if "w" in mode and str(path).startswith(str(tmp_path)):
            f.close()
            return Full(real_open(path, "wb"), encoding="utf-8")
        return f

    monkeypatch.setattr(builtins, "open", full_open)
    with pytest.raises(OSError) as err:
        files.write_text(str(target), '{"new": 2}')
    monkeypatch.undo()
    assert err.value.errno == errno.ENOSPC
    assert sorted(p.name for p in tmp_path.iterdir()) == ["My_Preset.json"]
    assert target.read_text() == '{"old": 1}'


def test_write_text_refused_by_its_check_replaces_nothing(tmp_path):
    target = tmp_path / "a.json"

    def refuse(staged):
        assert Path(staged).read_text() == "text" and Path(staged).parent == tmp_path
        raise ValueError("not a spec")

    with pytest.raises(ValueError, match="not a spec"):
        files.write_text(str(target), "text", check=refuse)
    assert list(tmp_path.iterdir()) == []
    files.write_text(str(target), "text", check=lambda staged: None)
    assert target.read_text() == "text" and [p.name for p in tmp_path.iterdir()] == ["a.json"]
