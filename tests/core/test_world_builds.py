"""World builds that go wrong: leftovers of a killed build, a cut cache, two builds at once,
absurd grids, bad scheduler addresses, Ctrl+C. Small worlds, so each runs in seconds."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("dask")

from core.spec import TerrainSpec  # noqa: E402
from core.world import TileGrid, coarse_plan, world_recipe  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "build_world.py"
sys.path.insert(0, str(ROOT / "scripts"))
import build_world  # noqa: E402

#: A pid no process has (above Linux's pid_max).
DEAD_PID = 2**22 + 1


def plan_of(out, filters=(), size=65, tile=17, formats=("png", "r16")):
    s = TerrainSpec.from_dict(
        {"version": 3, "size": 65, "width": 640.0, "height": 50.0, "seed": 9, "generator": "diamond_square"}
    )
    s = s.replace(filters=tuple(filters))
    grid = TileGrid((size, size), tile)
    recipe = world_recipe(s, (size, size))
    return build_world.Plan(str(out), "w", s, recipe, grid, formats, coarse_plan(recipe, grid))


def files_of(folder):
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and build_world.STATE not in p.relative_to(folder).parts
    }


def test_temporary_files_a_killed_build_left_are_removed_and_no_others(tmp_path):
    plan = plan_of(tmp_path)
    build_world.build_world(plan, "synchronous", progress=False)
    before = files_of(tmp_path)
    stale = [
        tmp_path / "unreal" / f".w_x0_y0.png.{DEAD_PID}.tmp",
        tmp_path / build_world.STATE / "tiles" / f".y0_x0.json.{DEAD_PID}.tmp",
        tmp_path / "exr" / f".w_x1_y1.exr.{DEAD_PID}.tmp.exr",
        tmp_path / "world.zarr" / "height" / "c" / "0" / f"1.{'ab' * 16}.partial",  # Zarr's, inside the store
    ]
    theirs = [
        tmp_path / "notes.tmp",
        tmp_path / ".notes.tmp",
        tmp_path / "unreal" / "w.12.tmp",
        tmp_path / "unreal" / f"w.{'ab' * 16}.partial",  # outside the store: not Zarr's
    ]
    for path in stale + theirs:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"half")
    before.update({str(p.relative_to(tmp_path)): b"half" for p in theirs})
    build_world.build_world(plan, "synchronous", progress=False)
    assert not any(p.exists() for p in stale)
    assert all(p.read_bytes() == b"half" for p in theirs)  # not of Orogen's naming: not Orogen's to remove
    after = files_of(tmp_path)
    assert {k: v for k, v in after.items() if not k.startswith("exr")} == {
        k: v for k, v in before.items() if not k.startswith("exr")
    }


def test_a_cut_coarse_cache_is_named_and_rebuilt(tmp_path, capfd):
    plan = plan_of(tmp_path, filters=(("thermal", {"steps": 10}),))
    assert plan.coarse is not None
    build_world.build_world(plan, "synchronous", progress=False)
    before = files_of(tmp_path)
    coarse = tmp_path / build_world.STATE / build_world.COARSE
    whole = coarse.read_bytes()
    coarse.write_bytes(whole[: len(whole) // 2])  # the disk filled, or the machine stopped
    for record in (tmp_path / build_world.STATE / "tiles").glob("*.json"):
        record.unlink()  # the tiles must be rebuilt from the coarse pass
    build_world.build_world(plan, "synchronous", progress=False)
    err = capfd.readouterr().err
    assert f"note: {coarse} " in err and "cut short" in err and "rebuilding it" in err
    assert coarse.read_bytes() == whole and files_of(tmp_path) == before
    # a damaged byte of the same size: its checksum says so
    coarse.write_bytes(whole[:-1] + bytes([whole[-1] ^ 1]))
    build_world.build_world(plan, "synchronous", progress=False)
    assert "checksum does not match" in capfd.readouterr().err and coarse.read_bytes() == whole


def test_a_second_build_into_the_same_folder_names_the_first_one(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    args = ["--preset", "rolling_hills", "--size", "65", "--tile", "33", "--quiet", "--out", str(out)]
    with build_world.build_lock(out):
        assert (out / build_world.LOCK).read_text() == f"{os.getpid()}\n"
        done = subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2
    assert (
        done.stderr == f"build_world: another build (pid {os.getpid()}) is writing {out}: wait for it to finish, "
        "or use another --out\n"
    )
    assert list(out.iterdir()) == []  # the lock is gone with its holder, nothing else was written
    # a lock left by a build that died (its pid in the file, no one holding it) is taken over
    (out / build_world.LOCK).write_text(f"{DEAD_PID}\n")
    assert build_world.main(args) == 0
    assert (out / "manifest.json").is_file() and not (out / build_world.LOCK).exists()


def test_a_spec_giving_a_key_twice_is_refused_naming_the_file_and_the_key(tmp_path, capsys):
    spec = tmp_path / "twice.json"
    spec.write_text(TerrainSpec().to_json()[:-1] + ', "seed": 5}')  # "seed" again, last
    code = build_world.main([str(spec), "--size", "65", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and f"the spec ({spec}) gives the key 'seed' twice in one object" in err, err
    assert not (tmp_path / "o").exists()


def test_an_absurd_tile_grid_is_refused_before_any_work(tmp_path, capsys):
    code = build_world.main(["--preset", "island", "--size", "1000001", "--tile", "3", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "500000 x 500000 tiles, more than the 100000 a build schedules" in err
    assert "--tile" in err and not (tmp_path / "o").exists()


@pytest.mark.parametrize("address", ["tcp://", "not an address", "tcp://host:port", "http://host:8786"])
def test_a_scheduler_address_of_the_wrong_form_is_refused_by_name(tmp_path, capsys, address):
    with pytest.raises(SystemExit) as stop:
        build_world.main(["--preset", "island", "--size", "65", "--out", str(tmp_path), "--scheduler", address])
    assert stop.value.code == 2
    assert "--scheduler must be threads, processes, synchronous or a dask.distributed" in capsys.readouterr().err


@contextlib.contextmanager
def fake_peer(payload):
    """A server on 127.0.0.1 (never another address) that accepts, sends ``payload`` and closes the connection
    after 0.2 s: something listening at the address that is no Dask scheduler."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.settimeout(30.0)  # bounded: the thread ends when the test closes the socket, or after 30 s idle

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                if payload:
                    conn.sendall(payload)
                time.sleep(0.2)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()


@pytest.mark.parametrize(
    "payload",
    [
        b"\xff" * 64,  # a frame count read as exabytes of dimensions (ValueError)
        b"HTTP/1.0 200 OK\r\n\r\nhello",  # a frame length of 3 EiB (MemoryError)
        b"\x01" + b"\x00" * 7 + b"\x08",  # one frame, its length cut short (struct.error)
        b"",  # accepts and closes (CommClosedError)
    ],
    ids=["frame-count", "http", "cut-header", "closes"],
)
def test_a_peer_that_is_not_dask_is_named_as_such(tmp_path, capsys, monkeypatch, payload):
    # the answer, not the silent-peer limit, is under test: under load distributed's own retries may take
    # longer than the default grace (seen in CI), so the grace is made too long to race
    monkeypatch.setattr(build_world, "HANDSHAKE_GRACE", 120.0)
    with fake_peer(payload) as address:
        code = build_world.main(
            ["--preset", "rolling_hills", "--size", "65", "--tile", "33", "--quiet", "--out", str(tmp_path)]
            + ["--scheduler", address]
        )
    err = capsys.readouterr().err
    assert code == 2
    assert (
        f"--scheduler '{address}' is not a dask.distributed scheduler (it answered but not as one); give the "
        "address of a running dask.distributed scheduler" in err
    )
    assert "Traceback" not in err and "EiB" not in err and len(err.strip().splitlines()) == 1
    assert not any(p.name.endswith((".png", ".r16", ".zarr")) for p in tmp_path.rglob("*"))


def test_a_peer_that_accepts_and_never_answers_is_given_up_in_time(tmp_path, capsys, monkeypatch):
    """distributed's own timeout bounds the connection, not the handshake: a peer on 127.0.0.1 that accepts and
    then says nothing used to hang the build for minutes. It is given up after CONNECT_TIMEOUT and 5 s more."""
    monkeypatch.setattr(build_world, "CONNECT_TIMEOUT", 1.0)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.settimeout(30.0)
    held = []

    def hold():  # accept and keep every connection open, silent, until the test closes the socket
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=hold, daemon=True).start()
    address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    start = time.monotonic()
    try:
        code = build_world.main(
            ["--preset", "rolling_hills", "--size", "65", "--tile", "33", "--quiet", "--out", str(tmp_path)]
            + ["--scheduler", address]
        )
    finally:
        server.close()
        for conn in held:
            conn.close()
    err = capsys.readouterr().err
    assert code == 2 and time.monotonic() - start < 30.0
    assert (
        f"--scheduler '{address}' accepted the connection but no dask.distributed scheduler answered within 6 s" in err
    )
    assert "Traceback" not in err and "cannot connect" not in err and len(err.strip().splitlines()) == 1


def test_nothing_listening_is_a_connection_failure(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(build_world, "CONNECT_TIMEOUT", 1.0)
    monkeypatch.setattr(build_world, "HANDSHAKE_GRACE", 120.0)  # as above: no race with the silent-peer limit
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    address = f"tcp://127.0.0.1:{free.getsockname()[1]}"
    free.close()  # bound, then closed: nothing listens there
    code = build_world.main(
        ["--preset", "rolling_hills", "--size", "65", "--tile", "33", "--quiet", "--out", str(tmp_path)]
        + ["--scheduler", address]
    )
    err = capsys.readouterr().err
    assert code == 2 and f"cannot connect to a dask.distributed scheduler at --scheduler '{address}'" in err
    assert "(is one running there?)" in err and "Traceback" not in err


def test_ctrl_c_exits_130_with_one_line_and_no_partial_file(tmp_path):
    out = tmp_path / "out"
    command = [sys.executable, str(SCRIPT), "--preset", "rolling_hills", "--size", "129", "--tile", "17"]
    command += ["--scheduler", "synchronous", "--format", "png,r16", "--out", str(out)]
    proc = subprocess.Popen([*command, "--tile-sleep", "0.2", "--quiet"], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    records = out / build_world.STATE / "tiles"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None and len(list(records.glob("*.json"))) < 3:
        time.sleep(0.05)
    assert proc.poll() is None, "the build ended before Ctrl+C could be sent"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err == "build_world: interrupted: the tiles built so far are kept; run the same command to finish\n"
    assert not [p for p in out.rglob("*") if build_world.TEMPORARY.match(p.name) or p.name == build_world.LOCK]
    assert not (out / "manifest.json").exists()
    done = len(list(records.glob("*.json")))
    assert 3 <= done < 64
    resumed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    assert f"{64 - done} tiles built, {done} already there" in resumed.stdout


def test_a_full_disk_stops_the_build_with_one_line_and_leaves_no_temporary_file(tmp_path, capsys, monkeypatch):
    import errno

    out = tmp_path / "out"
    args = ["--preset", "rolling_hills", "--size", "65", "--tile", "33", "--quiet", "--out", str(out)]
    args += ["--scheduler", "synchronous", "--format", "png,r16"]
    writes = []

    def fsync(fd):
        writes.append(fd)
        if len(writes) > 3:  # the build's record and a few tiles' files are written, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(build_world.os, "fsync", fsync)
    assert build_world.main(args) == 2
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert "cannot write the world into --out" in err and "No space left on device" in err
    assert len(err.strip().splitlines()) == 1
    assert not [p for p in out.rglob("*") if build_world.TEMPORARY.match(p.name) or p.name == build_world.LOCK]
    assert build_world.main(args) == 0  # room again: the build finishes
