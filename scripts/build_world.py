"""Build a world larger than one terrain, tile by tile, with Dask: engine tiles, a Zarr store and a manifest.

    .venv/bin/python scripts/build_world.py my_spec.json --size 16385 --tile 1025 --out out/world
    .venv/bin/python scripts/build_world.py --preset rolling_farmland --size 4097 --tile 513 --out out/farm
    .venv/bin/python scripts/build_world.py --preset alpine_ridges --size 65537 --tile 1025 --out /shared/world \\
        --scheduler tcp://scheduler:8786          # on a dask.distributed cluster

SPEC is any file ``core.spec.load_spec`` reads (a spec, an export sidecar, a
0.1 recipe), or ``--preset NAME``; ``--set NAME=VALUE`` overrides settings
with the spec's names. The world keeps the spec's cell size (``width /
(size - 1)`` of the spec's own grid): ``--size`` vertices per side (``--size-y``
for rows) make a world ``(size - 1) x cell size`` metres wide. The spec's size
limit (4097, Blender terrains) does not apply to worlds.

Tiles are ``--tile`` vertices square and share their edge rows and columns
(``size = n x (tile - 1) + 1``). Passes over the tiles, each a Dask array
of one task per tile (``--scheduler``: ``threads``, the default, ``processes``,
``synchronous``, or a ``dask.distributed`` scheduler address; ``--workers``
tasks at once on the local schedulers):

1. the generator's raw range per tile, combined into the world's;
2. the range after the filters per tile, combined;
3. each tile's final heights, written as files and into the Zarr store.

A world with a global filter (stream-power, thermal or hydraulic erosion)
runs those filters once over the whole world at a coarse resolution (every
n-th vertex, n dividing ``tile - 1``, at most ``--coarse-side`` vertices per
side, 4097 by default; n = 1 when the world fits, and the tiles are then the
whole build's cells bit for bit): after pass 1 a coarse pass samples each
tile's heights before the first global filter, runs the global filters (and
any filters between them) on the coarse world, and stores the change they
made (``.build/coarse.npy``); each tile then adds that change, upsampled
bilinearly at its world coordinates, to its own full-resolution heights, and
runs the local filters after the last global one. Shared edges stay
bit-identical; what differs from one big build is the filters' resolution.

Output in ``--out``:

- ``unreal/NAME_x{X}_y{Y}.png``: 16-bit grey PNG, levels over the whole world's relief in metres (level 0 its
  lowest metre, 65535 its highest, as the manifest's ``levels`` says), image row 0 = north, X = tile column
  from the west, Y = tile row from the north (Unreal's tiled landscape import: columns along +X, rows along +Y).
- ``unity/NAME_x{X}_y{Y}.r16``: RAW little-endian uint16, no header, the same levels, rows
  from the SOUTH (Unity reads a RAW file's first row at Z = 0), X = tile
  column from the west (+X), Y = tile row from the south (+Z).
- ``exr/NAME_x{X}_y{Y}.exr``: 32-bit float normalised heights (channel
  ``Y``), laid out and named as the PNG tiles.
- ``world.zarr``: the whole world once (array ``height``, float32 in [0, 1],
  row 0 north, chunks of ``tile - 1`` cells), with the spec and the scale in
  its attributes.
- ``manifest.json``: the spec, the world's shape and scale, the tile grid,
  the ranges, and the sha256 of every file.

Resumable: after each tile a record of its files' checksums is written
atomically under ``.build/``; a rerun skips the tiles whose files match their
record and builds the rest, giving the same bytes as an uninterrupted build.
The coarse pass's cache (``.build/coarse.npy``) is checked against its size,
header and checksum and rebuilt with a note when damaged; the temporary files
a killed build or a full disk left (``.NAME.PID.tmp``, Zarr's ``.partial``) are removed. One build
at a time writes a folder (``.orogen-build.lock``, holding its pid); Ctrl+C
stops with exit status 130, keeping the tiles built so far.
Peak memory is set by the tile size and ``--workers``, not the world size.

On a ``dask.distributed`` cluster the scheduler and the workers must import
Orogen and this script (``PYTHONPATH=/path/to/orogen:/path/to/orogen/scripts``),
with Dask, Zarr, Pillow and OpenEXR installed, and write to ``--out`` (a
shared file system).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import re
import signal
import struct
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # scripts import the source tree

from core.heightmap import normalize  # noqa: E402
from core.io.formats import engine_levels, quantise, sidecar_info  # noqa: E402
from core.io.jsonio import load_json  # noqa: E402
from core.presets import PRESETS, preset_spec  # noqa: E402
from core.progress import ProgressBar  # noqa: E402
from core.recipe import Recipe  # noqa: E402
from core.spec import InactiveSettingWarning, TerrainSpec, apply_settings, load_spec  # noqa: E402
from core.world import (  # noqa: E402
    COARSE_SIDE,
    CoarsePlan,
    TileGrid,
    coarse_block,
    coarse_filters,
    coarse_plan,
    combine_ranges,
    filtered_range,
    global_heights,
    raw_range,
    tile_file,
    tile_heights,
    world_recipe,
)

FORMATS = ("png", "r16", "exr")
MANIFEST_VERSION = 2
STATE = ".build"
#: The global filters' change on the coarse world (under STATE).
COARSE = "coarse.npy"
STORE = "world.zarr"
ARRAY = "height"
#: The lock a build holds on its --out (an exclusive ``flock``; the file says the holder's pid).
LOCK = ".orogen-build.lock"
#: The temporary files of this script's atomic writes: ``.NAME.PID.tmp`` (``.tmp.exr`` for OpenEXR).
TEMPORARY = re.compile(r"^\.(.+)\.(\d+)\.tmp(\.exr)?$")
#: Zarr's temporary files inside the store (``NAME.<32 hex digits>.partial``, removed by Zarr on an error but not
#: when the process is killed).
PARTIAL = re.compile(r"^.+\.[0-9a-f]{32}\.partial$")
#: Most tiles one build schedules: a Dask task per tile and pass, each about a kilobyte of graph.
MAX_TILES = 100_000
#: A dask.distributed scheduler address: ``tcp://host:8786`` (or tls, ucx, ws, wss), ``host:8786``, or inproc.
ADDRESS = re.compile(
    r"^(((tcp|tls|ucx|ws|wss)://)?([A-Za-z0-9_.\-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?/?|inproc://[0-9.]+/\d+/\d+)$"
)
#: Seconds to wait for a dask.distributed scheduler to answer.
CONNECT_TIMEOUT = 10.0
# seconds past CONNECT_TIMEOUT before a peer that accepted and never answered is given up on
HANDSHAKE_GRACE = 5.0


def have_exr() -> bool:
    """Whether the OpenEXR package (the EXR writer) imports."""
    try:
        import OpenEXR  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass(frozen=True)
class Plan:
    """Everything a tile task needs: what to build and where."""

    out: str
    name: str
    spec: TerrainSpec
    recipe: Recipe
    grid: TileGrid
    formats: tuple[str, ...]
    coarse: CoarsePlan | None  # global filters: their coarse pass (None: every filter is local)
    tile_sleep: float = 0.0  # seconds after each tile (tests stop a build midway)

    def config(self) -> dict[str, Any]:
        """What identifies the build (a rerun must match it to resume)."""
        return {
            "name": self.name,
            "recipe": self.recipe.to_dict(),
            "spec": self.spec.to_dict(),
            "shape": list(self.grid.shape),
            "tile": self.grid.tile,
            "formats": list(self.formats),
            "coarse": None if self.coarse is None else self.coarse.describe(),
        }

    def path(self, *parts: str) -> Path:
        return Path(self.out, *parts)

    def tile_files(self, ty: int, tx: int) -> dict[str, str]:
        """Relative path of each format's file of tile ``(ty, tx)`` (:func:`core.world.tile_file`)."""
        return {fmt: tile_file(fmt, self.name, ty=ty, tx=tx, tiles_y=self.grid.tiles[0]) for fmt in self.formats}


# --- small file helpers -----------------------------------------------------------------------
def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename: the file is whole or absent (the
    temporary file is removed on any failure: a full disk, an interrupt)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


def remove_temporary(out: Path, pid: int | None = None) -> list[Path]:
    """Remove the temporary files of this script's writes under ``out`` (``pid``'s only, when given), and
    Zarr's inside the build's store: what a build killed or stopped by a full disk left. Only names of
    :data:`TEMPORARY`'s form, and of :data:`PARTIAL`'s under ``OUT/world.zarr``, are touched; the caller holds
    the folder's lock (:func:`build_lock`), so no other build is writing them."""
    removed = []
    store = out / STORE
    for folder, _dirs, names in os.walk(out):
        in_store = Path(folder) == store or store in Path(folder).parents
        for name in names:
            match = TEMPORARY.match(name)
            if (match and (pid is None or int(match.group(2)) == pid)) or (in_store and PARTIAL.match(name)):
                path = Path(folder, name)
                with contextlib.suppress(OSError):
                    path.unlink()
                    removed.append(path)
    return removed


@contextmanager
def build_lock(out: Path) -> Iterator[None]:
    """Hold ``OUT/.orogen-build.lock`` for a build: an exclusive ``flock`` (the kernel drops it when the holder
    dies, so a killed build's lock is taken over), the holder's pid written in it for the message of a second
    build. Raises ``ValueError`` naming that pid while another build holds it."""
    try:
        import fcntl
    except ImportError:  # Windows: no flock, builds are not serialised
        yield
        return
    path = out / LOCK
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip()
            os.close(fd)
            who = f"pid {holder}" if holder.isdigit() else "another process"
            raise ValueError(
                f"another build ({who}) is writing {out}: wait for it to finish, or use another --out"
            ) from None
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino  # not a lock file its last holder just removed
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        yield
    finally:
        with contextlib.suppress(OSError):
            os.remove(path)
        os.close(fd)


def write_json_atomic(path: Path, data: Any) -> None:
    write_atomic(path, (json.dumps(data, sort_keys=True, indent=1) + "\n").encode())


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


# --- encoders -----------------------------------------------------------------------------------
def png16(levels: np.ndarray) -> bytes:
    """A 16-bit grey PNG of ``uint16`` levels (Pillow), row 0 the image's top row."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(levels, dtype=np.uint16)).save(buffer, format="PNG", compress_level=6)
    return buffer.getvalue()


def write_exr(path: Path, heights: np.ndarray) -> None:
    """A 32-bit float EXR of ``heights`` (one channel ``Y``, ZIP compression), written atomically."""
    import OpenEXR

    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.exr")
    path.parent.mkdir(parents=True, exist_ok=True)
    header = {"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.scanlineimage}
    try:
        with OpenEXR.File(header, {"Y": np.ascontiguousarray(heights, dtype=np.float32)}) as f:
            f.write(str(tmp))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


# --- the passes ----------------------------------------------------------------------------------
def _range_record(plan: Plan, stage: str, ty: int, tx: int) -> Path:
    return plan.path(STATE, stage, f"y{ty}_x{tx}.json")


def tile_range(plan: Plan, stage: str, ty: int, tx: int, world_raw: tuple[float, float] | None) -> tuple[float, float]:
    """Pass 1 (``raw``) or 2 (``filtered``) for one tile, read back from its record when a build resumes."""
    record = _range_record(plan, stage, ty, tx)
    known = read_json(record)
    if isinstance(known, list) and len(known) == 2:
        return float(known[0]), float(known[1])
    window = plan.grid.window(ty, tx)
    if stage == "raw":
        result = raw_range(plan.recipe, window)
    elif plan.coarse is not None:
        assert world_raw is not None
        h = global_heights(plan.coarse, window, world_raw, detail=_coarse(str(plan.path(STATE, COARSE))))
        result = float(h.min()), float(h.max())
    else:
        assert world_raw is not None
        result = filtered_range(plan.recipe, window, world_raw)
    write_json_atomic(record, list(result))  # JSON floats round-trip exactly
    return result


@lru_cache(maxsize=4)
def _coarse(path: str) -> np.ndarray:
    try:
        return np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as err:
        raise ValueError(f"{path} is damaged ({err}): run the build again to rebuild it") from None


def coarse_problem(plan: Plan, path: Path) -> str | None:
    """Why the cached coarse pass at ``path`` cannot be used (cut, another shape, not its checksum), or ``None``."""
    assert plan.coarse is not None
    record = read_json(path.with_suffix(".json"))
    try:
        with open(path, "rb") as f:
            version = np.lib.format.read_magic(f)
            read_header = (
                np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            )
            shape, _fortran, dtype = read_header(f)
            offset = f.tell()
        size = path.stat().st_size
    except (OSError, ValueError) as err:
        return f"not a .npy file ({err})"
    want = tuple(plan.coarse.shape)
    if tuple(shape) != want or dtype != np.float32:
        return f"holds {dtype} {shape}, not float32 {want}"
    if size != offset + 4 * want[0] * want[1]:
        return f"{size} bytes, not {offset + 4 * want[0] * want[1]} (cut short)"
    if not isinstance(record, dict) or record.get("sha256") != sha256_file(path):
        return "its checksum does not match its record"
    return None


def _zarr_array(plan: Plan) -> Any:
    import zarr

    return zarr.open_array(str(plan.path(STORE, ARRAY)), mode="r+")


def _chunk_files(plan: Plan, ty: int, tx: int) -> list[str]:
    """Relative paths of the Zarr chunk files tile ``(ty, tx)`` owns (default v3 chunk keys ``c/i/j``)."""
    own, s = plan.grid.owned(ty, tx), plan.grid.stride
    rows = range(own.row // s, -(-(own.row + own.rows) // s))
    cols = range(own.col // s, -(-(own.col + own.cols) // s))
    return [f"{STORE}/{ARRAY}/c/{i}/{j}" for i in rows for j in cols]


def verify(plan: Plan, record: Any) -> bool:
    """Whether every file of a tile record exists with its recorded checksum."""
    if not isinstance(record, dict) or not isinstance(record.get("files"), dict):
        return False
    for rel, digest in record["files"].items():
        path = plan.path(rel)
        if not path.is_file() or sha256_file(path) != digest:
            return False
    return True


#: Set by Ctrl+C (SIGINT) in the command line: tiles check it before and after they are built, so a stop that a
#: library swallowed (a KeyboardInterrupt caught inside a write) still stops the build at the next tile.
STOP = threading.Event()


def build_tile(plan: Plan, ranges: Any, ty: int, tx: int) -> int:
    """Pass 3 for one tile: its files, its Zarr chunks and its record. Returns 1 if built, 0 if already there.
    Raises ``KeyboardInterrupt`` before or after the tile when Ctrl+C was pressed (:data:`STOP`)."""
    if STOP.is_set():
        raise KeyboardInterrupt
    record_path = plan.path(STATE, "tiles", f"y{ty}_x{tx}.json")
    if verify(plan, read_json(record_path)):
        return 0
    window = plan.grid.window(ty, tx)
    if plan.coarse is not None:
        world_raw, world_range = ranges
        filtered = global_heights(plan.coarse, window, tuple(world_raw), detail=_coarse(str(plan.path(STATE, COARSE))))
        # Fit Height: normalised by the world's range after the filters (that is the terrain); else the heights
        # in units of Height themselves, or over the world's range when they leave [0, 1] (as Export Tiles does)
        units = normalize(filtered, tuple(world_range)) if plan.recipe.fit_height else filtered
        heights = units if plan.recipe.fit_height else normalize(filtered, encoding_range(plan, ranges))
    else:
        heights = units = tile_heights(plan.recipe, window, ranges)
        encoding = encoding_range(plan, ranges)
        if encoding != (0.0, 1.0):  # raised above Height or below 0: over the world's range
            heights = normalize(heights, encoding)
    # 16-bit tiles: levels over the world's relief in metres (one scale for every tile), from the tile's metres
    levels = quantise(np.asarray(units, np.float32) * np.float32(plan.spec.height), levels_range(plan, ranges))[0]
    files: dict[str, str] = {}
    for fmt, rel in plan.tile_files(ty, tx).items():
        path = plan.path(rel)
        if fmt == "exr":
            write_exr(path, heights)
            files[rel] = sha256_file(path)
            continue
        data = png16(levels) if fmt == "png" else np.ascontiguousarray(levels[::-1]).astype("<u2").tobytes()
        write_atomic(path, data)
        files[rel] = hashlib.sha256(data).hexdigest()
    for fmt, rel in plan.tile_files(ty, tx).items():  # each tile's own sidecar: its place, size and metres
        data = (json.dumps(tile_sidecar(plan, ranges, ty, tx, fmt, rel), sort_keys=True, indent=1) + "\n").encode()
        write_atomic(plan.path(rel + ".json"), data)
        files[rel + ".json"] = hashlib.sha256(data).hexdigest()
    own = plan.grid.owned(ty, tx)
    _zarr_array(plan)[own.row : own.row + own.rows, own.col : own.col + own.cols] = heights[: own.rows, : own.cols]
    for rel in _chunk_files(plan, ty, tx):
        files[rel] = sha256_file(plan.path(rel))
    write_json_atomic(record_path, {"tile": [ty, tx], "files": files})
    if plan.tile_sleep:
        time.sleep(plan.tile_sleep)
    if STOP.is_set():
        raise KeyboardInterrupt
    return 1


def _range_block(
    block: np.ndarray, plan: Plan, stage: str, world_raw: tuple[float, float] | None, block_info: Any = None
) -> np.ndarray:
    ty, tx = block_info[0]["chunk-location"]
    return np.array(tile_range(plan, stage, ty, tx, world_raw), dtype=np.float64).reshape(1, 1, 2)


def _coarse_block(block: np.ndarray, plan: Plan, world_raw: tuple[float, float], block_info: Any = None) -> np.ndarray:
    """The coarse vertices of tile ``(ty, tx)``'s owned window (its share of the coarse world)."""
    ty, tx = block_info[0]["chunk-location"]
    assert plan.coarse is not None
    return coarse_block(plan.coarse, plan.grid.owned(ty, tx), world_raw)


def _coarse_chunks(plan: Plan) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Rows and columns of coarse vertices each tile owns: ``stride / n``, one more on the south/east border."""
    assert plan.coarse is not None
    step = plan.grid.stride // plan.coarse.factor
    ny, nx = plan.grid.tiles
    return (step,) * (ny - 1) + (step + 1,), (step,) * (nx - 1) + (step + 1,)


def _tile_block(block: np.ndarray, plan: Plan, ranges: Any, block_info: Any = None) -> np.ndarray:
    ty, tx = block_info[0]["chunk-location"]
    return np.full((1, 1), build_tile(plan, ranges, ty, tx), dtype=np.int8)


# --- scheduling ------------------------------------------------------------------------------------
LOCAL_SCHEDULERS = ("threads", "processes", "synchronous")


def _task_progress_class() -> type:
    from dask.callbacks import Callback

    class TaskProgress(Callback):  # type: ignore[misc]
        """A local scheduler's tasks done, as :class:`core.progress.ProgressBar` shows them on standard error
        (a bar redrawn in place on a terminal, a plain line per 5 % otherwise, with the time left)."""

        def __init__(self, label: str = "build_world") -> None:
            super().__init__()
            self.bar = ProgressBar(label)

        def _posttask(self, key: Any, result: Any, dsk: Any, state: dict, worker_id: Any) -> None:
            done = len(state["finished"])
            self.bar(done, done + sum(len(state[k]) for k in ("ready", "waiting", "running")))

        def _finish(self, dsk: Any, state: dict, errored: bool) -> None:
            self.bar.close()

        def __exit__(self, *args: Any) -> None:  # also when interrupted (Ctrl+C): the line is ended
            self.bar.close()
            super().__exit__(*args)

    return TaskProgress


def task_progress() -> Any:
    """A Dask callback (``with task_progress(): collection.compute()``) showing the tasks done on standard error
    (its class is made once Dask is imported)."""
    return _task_progress_class()()


@contextmanager
def scheduler(address: str, workers: int | None, progress: bool) -> Iterator[Callable[[Any], Any]]:
    """A function computing a Dask collection on the chosen scheduler, with a progress bar."""
    import dask

    if address in LOCAL_SCHEDULERS:

        def compute_local(collection: Any) -> Any:
            with dask.config.set(scheduler=address, num_workers=workers):
                if not progress:
                    return collection.compute()
                with task_progress():
                    return collection.compute()

        yield compute_local
        return
    from distributed import Client
    from distributed import progress as distributed_progress

    try:
        client = _connect(Client, address)
    except _SilentPeer as err:
        raise ConnectionError(str(err)) from None
    except Exception as err:  # refused, timed out, or not a Dask scheduler at all (garbage for a frame length)
        if _answered_but_not_dask(err):
            raise ConnectionError(
                f"--scheduler {address!r} is not a dask.distributed scheduler (it answered but not as one); "
                "give the address of a running dask.distributed scheduler"
            ) from None
        raise ConnectionError(
            f"cannot connect to a dask.distributed scheduler at --scheduler {address!r}: "
            f"{str(err).splitlines()[0][:160] if str(err) else type(err).__name__} (is one running there?)"
        ) from None
    with client:

        def compute_distributed(collection: Any) -> Any:
            future = client.compute(collection)
            if progress:
                distributed_progress(future)
                print()
            return future.result()

        yield compute_distributed


class _SilentPeer(ConnectionError):
    """A peer accepted the connection and never answered."""


def _connect(client_type: Any, address: str) -> Any:
    """``client_type(address)`` within a hard time limit: distributed's own ``timeout`` bounds the connection but
    not the handshake, so a peer that accepts and then says nothing would hang the build. The attempt runs in a
    daemon thread; past ``CONNECT_TIMEOUT`` and ``HANDSHAKE_GRACE`` more it is given up (the thread dies with the
    process) with a :class:`_SilentPeer` naming the address."""
    import threading

    done: dict[str, Any] = {}

    def attempt() -> None:
        try:
            done["client"] = client_type(address, timeout=CONNECT_TIMEOUT)
        except BaseException as err:  # noqa: BLE001 - handed to the caller's thread as it is
            done["error"] = err

    thread = threading.Thread(target=attempt, name="orogen-scheduler-connect", daemon=True)
    thread.start()
    thread.join(CONNECT_TIMEOUT + HANDSHAKE_GRACE)
    if thread.is_alive():
        raise _SilentPeer(
            f"--scheduler {address!r} accepted the connection but no dask.distributed scheduler answered within "
            f"{CONNECT_TIMEOUT + HANDSHAKE_GRACE:g} s; give the address of a running dask.distributed scheduler"
        )
    if "error" in done:
        raise done["error"]
    return done["client"]


def _answered_but_not_dask(err: BaseException) -> bool:
    """Whether ``Client(address)`` failed because a peer accepted the connection and answered as no Dask
    scheduler does: its bytes read as a frame length (MemoryError: exabytes; ValueError: too many dimensions;
    struct.error: a cut header; msgpack's errors, all ValueError or TypeError) or it closed the connection
    during the handshake (distributed's CommClosedError, or its assertion on the reply). Nothing there
    (refused, unreachable, no answer in time) is distributed's "Timed out trying to connect", a plain OSError."""
    from distributed.comm.core import CommClosedError

    if isinstance(err, CommClosedError):
        return True
    if isinstance(err, OSError):  # TimeoutError among them: refused, unreachable, or silent until the timeout
        return "handshake" in str(err).lower()
    # AssertionError: distributed's own check of the handshake's reply, when a peer that closes at once is read
    # under load (seen in CI: the "closes" peer of tests/core/test_world_builds.py)
    return isinstance(
        err, (MemoryError, ValueError, TypeError, KeyError, IndexError, EOFError, AssertionError, struct.error)
    )


def _grid_array(grid: TileGrid) -> Any:
    import dask.array as da

    return da.zeros(grid.tiles, chunks=1, dtype=np.int8)


def _log(progress: bool, text: str) -> None:
    if progress:
        print(text, flush=True)


def build_world(
    plan: Plan,
    address: str = "threads",
    workers: int | None = None,
    progress: bool = True,
    timings: dict[str, float] | None = None,
) -> dict:
    """Build (or finish) the world of ``plan``; returns the manifest written to ``OUT/manifest.json``.

    ``address`` is a local Dask scheduler (``threads``, ``processes``,
    ``synchronous``) or a ``dask.distributed`` scheduler's address; ``workers``
    the tasks at once on a local one. ``timings``, if given, receives the
    seconds each pass took (``whole``, ``raw``, ``filtered``, ``tiles``).

    Raises
    ------
    ValueError
        If ``OUT`` holds another build (different spec, size, tiles or formats), or another build is writing
        it now (naming its pid).
    """
    out = Path(plan.out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(out)!r} is a file, not a folder")
    out.mkdir(parents=True, exist_ok=True)
    with build_lock(out):
        try:
            return _build_locked(plan, out, address, workers, progress, {} if timings is None else timings)
        except KeyboardInterrupt:  # Ctrl+C: no half-written file of this process stays (Zarr's included)
            remove_temporary(out, os.getpid())
            raise


def _build_locked(
    plan: Plan, out: Path, address: str, workers: int | None, progress: bool, timings: dict[str, float]
) -> dict:
    """:func:`build_world` once it holds the folder's lock."""
    import dask.array as da

    config_path = plan.path(STATE, "build.json")
    existing = read_json(config_path)
    if existing is not None:  # what a killed build or a full disk left: no other build writes here now
        stale = remove_temporary(out)
        if stale:
            _log(progress, f"removed {len(stale)} temporary files a stopped build left")
    if existing is None and any(p.name != LOCK for p in out.iterdir()):  # never write over others' files
        raise ValueError(f"--out {str(out)!r} is not empty and holds no world build: use a new or empty folder")
    if existing is not None and existing != json.loads(json.dumps(plan.config())):
        raise ValueError(
            f"{out} holds another world build (different spec, size, tiles or formats): "
            "use a new --out, or delete that folder to start over"
        )
    if existing is None:
        write_json_atomic(config_path, plan.config())
    ny, nx = plan.grid.tiles
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[name] = now - clock
        clock = now

    with scheduler(address, workers, progress) as compute:
        grid = _grid_array(plan.grid)
        ranges: Any = None
        passes = 4 if plan.coarse is not None else 3
        _log(progress, f"pass 1/{passes}: raw range of {ny} x {nx} tiles")
        per_tile = compute(
            da.map_blocks(_range_block, grid, plan, "raw", None, dtype=np.float64, new_axis=2, chunks=(1, 1, 2))
        )
        world_raw = combine_ranges(per_tile.reshape(-1, 2).tolist())
        lap("raw")
        if plan.coarse is not None:
            coarse_path = plan.path(STATE, COARSE)
            problem = coarse_problem(plan, coarse_path) if coarse_path.is_file() else None
            if problem is not None:
                print(f"build_world: note: {coarse_path} {problem}: rebuilding it", file=sys.stderr)
                coarse_path.unlink()
                _coarse.cache_clear()
            if not coarse_path.is_file():
                c = plan.coarse
                sampled = "every vertex" if c.factor == 1 else f"one vertex in {c.factor} per side"
                _log(
                    progress,
                    f"pass 2/{passes}: global filters ({', '.join(k for k, _ in c.middle)}) over the "
                    f"{c.shape[0]} x {c.shape[1]} coarse world ({sampled})",
                )
                coarse = compute(
                    da.map_blocks(_coarse_block, grid, plan, world_raw, dtype=np.float32, chunks=_coarse_chunks(plan))
                )
                buffer = io.BytesIO()
                np.save(buffer, coarse_filters(c, coarse))
                data = buffer.getvalue()
                write_atomic(coarse_path, data)
                write_json_atomic(coarse_path.with_suffix(".json"), {"sha256": hashlib.sha256(data).hexdigest()})
            lap("coarse")
        if plan.recipe.filters:
            _log(progress, f"pass {passes - 1}/{passes}: range after the filters of {ny} x {nx} tiles")
            per_tile = compute(
                da.map_blocks(
                    _range_block, grid, plan, "filtered", world_raw, dtype=np.float64, new_axis=2, chunks=(1, 1, 2)
                )
            )
            ranges = (world_raw, combine_ranges(per_tile.reshape(-1, 2).tolist()))
        else:  # no filters: normalising by the raw range maps the world's minimum to 0 and maximum to 1 exactly
            ranges = (world_raw, (0.0, 1.0 if world_raw[1] > world_raw[0] else 0.0))
        lap("filtered")
        _create_store(plan)
        size = plan.grid.tile
        _log(progress, f"pass {passes}/{passes}: {ny} x {nx} tiles of {size} x {size} ({', '.join(plan.formats)})")
        built = compute(da.map_blocks(_tile_block, grid, plan, ranges, dtype=np.int8, chunks=(1, 1)))
        lap("tiles")
    _log(progress, f"{int(built.sum())} tiles built, {int(built.size - built.sum())} already there")
    manifest = _manifest(plan, ranges)
    write_json_atomic(plan.path("manifest.json"), manifest)
    return manifest


def _create_store(plan: Plan) -> None:
    import zarr

    root = zarr.open_group(str(plan.path(STORE)), mode="a", zarr_format=3)
    s = plan.grid.stride
    if ARRAY in root:
        array = root[ARRAY]
        if tuple(array.shape) != plan.grid.shape or tuple(array.chunks) != (s, s):
            raise ValueError(f"{plan.path(STORE)} holds an array of another shape: delete it to start over")
        return
    # Fill NaN: a cell no tile has written reads as NaN, and every written chunk is stored (heights are finite,
    # never the fill value), so each tile's chunk files exist and are checksummed.
    root.create_array(
        ARRAY,
        shape=plan.grid.shape,
        chunks=(s, s),
        dtype="float32",
        fill_value=float("nan"),
        attributes=_attributes(plan),
    )


def _attributes(plan: Plan) -> dict[str, Any]:
    rows, cols = plan.grid.shape
    cell = plan.recipe.cell_size
    return {
        "orogen": {
            "spec": plan.spec.to_dict(),
            "recipe": plan.recipe.to_dict(),
            "cell_size_m": cell,
            "size_m": [(rows - 1) * cell, (cols - 1) * cell],
            "height_m": plan.spec.height,
            "encoding": "normalised 0..1: metres = low + value * (high - low), low and high in "
            "the build's manifest.json ('metres')",
            "orientation": "row 0 = north, column 0 = west",
        }
    }


def encoding_range(plan: Plan, ranges: Any) -> tuple[float, float]:
    """The heights (in units of Height) the files' 0 and 1 stand for: ``(0, 1)`` with ``fit_height`` or when the
    world's range after the filters lies within it, else that range (version 3's uplift can raise a world above
    Height); the same rule as the add-on's Export Tiles."""
    low, high = (float(v) for v in ranges[1])
    if plan.recipe.fit_height or (low >= 0.0 and high <= 1.0):
        return (0.0, 1.0)
    return (low, high)


def tile_sidecar(plan: Plan, ranges: Any, ty: int, tx: int, fmt: str, rel: str) -> dict[str, Any]:
    """The sidecar of tile ``(ty, tx)``'s file ``rel`` in ``fmt`` (:func:`core.io.formats.sidecar_info`, as the
    add-on's Export Tiles writes it): its size, Height, metres, look and centre in the world's frame, so that
    Import Heightmap puts the tile at its place."""
    cell = plan.recipe.cell_size
    made = plan.spec.to_dict()
    extra = {
        "spec": None,  # a tile is part of its world: manifest.json holds the world's spec
        "world": "manifest.json",
        "width_m": cell * (plan.grid.tile - 1),
        "height_m": plan.spec.height,
        "cell_size_m": cell,
        "look": {key: made[key] for key in ("version", "lighting", "material", "layers")},
        "location_m": [*plan.grid.centre(ty, tx, cell), 0.0],
        "tile": [ty, tx],
    }
    low, high = metres_range(plan, ranges) if fmt == "exr" else levels_range(plan, ranges)
    name = {"png": "PNG16", "r16": "R16", "exr": "EXR"}[fmt]
    return sidecar_info(
        rel,
        (plan.grid.tile, plan.grid.tile),
        name,
        absolute=False,
        height_range=(low, high),
        extra=extra,
        south_first=fmt == "r16",
    )


def levels_range(plan: Plan, ranges: Any) -> tuple[float, float]:
    """Metres of the 16-bit tiles' levels 0 and 65535: the world's relief after the filters (``(0, Height)``
    with Fit Height, whose terrain spans 0 to Height), the same rule as the add-on's Export Tiles."""
    if plan.recipe.fit_height:
        return (0.0, float(plan.spec.height))
    low, high = (float(v) for v in ranges[1])
    return (low * plan.spec.height, high * plan.spec.height)


def metres_range(plan: Plan, ranges: Any) -> list[float]:
    """Metres of the files' 0 and 1 (:func:`encoding_range` times Height)."""
    low, high = encoding_range(plan, ranges)
    return [low * plan.spec.height, high * plan.spec.height]


def _manifest(plan: Plan, ranges: Any) -> dict[str, Any]:
    files: dict[str, str] = {}
    tiles = []
    for ty, tx in plan.grid.indices():
        record = read_json(plan.path(STATE, "tiles", f"y{ty}_x{tx}.json"))
        if not verify(plan, record):
            raise RuntimeError(f"tile ({ty}, {tx}) is missing or damaged after the build: run it again")
        files.update(record["files"])
        window = plan.grid.window(ty, tx)
        tiles.append({"tile": [ty, tx], "row": window.row, "col": window.col, "files": plan.tile_files(ty, tx)})
    for rel in (f"{STORE}/zarr.json", f"{STORE}/{ARRAY}/zarr.json"):
        files[rel] = sha256_file(plan.path(rel))
    rows, cols = plan.grid.shape
    ny, nx = plan.grid.tiles
    cell = plan.recipe.cell_size
    metres = metres_range(plan, ranges)
    return {
        "format": "orogen-world",
        "version": MANIFEST_VERSION,
        "name": plan.name,
        "spec": plan.spec.to_dict(),
        "recipe": plan.recipe.to_dict(),
        "world": {
            "rows": rows,
            "cols": cols,
            "cell_size_m": cell,
            "size_m": [(rows - 1) * cell, (cols - 1) * cell],
            "height_m": plan.spec.height,
            "orientation": "row 0 = north, column 0 = west",
        },
        "grid": {
            "tile": plan.grid.tile,
            "stride": plan.grid.stride,
            "tiles_y": ny,
            "tiles_x": nx,
            "shared_edges": True,
        },
        "global_filters": None if plan.coarse is None else plan.coarse.describe(),
        "ranges": None if ranges is None else [list(ranges[0]), list(ranges[1])],
        "metres": {
            "low": metres[0],
            "high": metres[1],
            "formula": "EXR tiles and the Zarr store: metres = low + value * (high - low), value in 0..1",
        },
        "levels": {
            **engine_levels(levels_range(plan, ranges)),
            "formula": "PNG16 and R16 tiles: metres = level_0_m + level / 65535 * (level_65535_m - level_0_m), "
            "over the whole world's relief",
        },
        "encoding": {
            "png": "16-bit grey, levels 0..65535 over the world's relief (levels), row 0 north; x = tile column "
            "from west, y = tile row from north",
            "r16": "little-endian uint16, no header, levels 0..65535 over the world's relief (levels), row 0 SOUTH; "
            "x = tile column from west, y = tile row from south",
            "exr": "float32 channel Y, normalised 0..1, row 0 north; named as the PNG tiles",
            "zarr": f"{STORE}/{ARRAY}: float32 normalised 0..1, the whole world once, row 0 north",
        },
        "tiles": tiles,
        "files": dict(sorted(files.items())),
    }


# --- command line ---------------------------------------------------------------------------------
def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.splitlines()[1:]),
    )
    parser.add_argument("spec", nargs="?", help="a spec file (spec JSON, export sidecar or 0.1 recipe)")
    parser.add_argument("--preset", choices=sorted(PRESETS), help="a built-in preset instead of a spec file")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a setting by its spec name (repeatable)",
    )
    parser.add_argument("--size", type=int, required=True, help="world vertices per side (columns), n x (tile-1) + 1")
    parser.add_argument(
        "--size-y", type=int, default=0, help="world rows when they differ from --size (default: a square world)"
    )
    parser.add_argument("--tile", type=int, default=1025, help="tile vertices per side (default 1025)")
    parser.add_argument("--out", required=True, help="output folder (a rerun resumes a build there)")
    parser.add_argument("--name", default=None, help="file name stem (default: the spec's or preset's name)")
    parser.add_argument("--format", default="png,r16,exr", help="tile formats, comma-separated: png,r16,exr")
    parser.add_argument(
        "--scheduler",
        default="threads",
        help="threads (default), processes, synchronous, or a dask.distributed address",
    )
    parser.add_argument("--workers", type=int, default=None, help="tasks at once on a local scheduler")
    parser.add_argument(
        "--coarse-side",
        type=int,
        default=COARSE_SIDE,
        help=f"largest side of the coarse world global filters run on (default {COARSE_SIDE})",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress output")
    parser.add_argument("--tile-sleep", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if (args.spec is None) == (args.preset is None):
        parser.error("give a spec file or --preset NAME (one of them)")
    formats = tuple(f.strip().lower() for f in args.format.split(",") if f.strip())
    if not formats or set(formats) - set(FORMATS):
        parser.error(f"--format must list some of {','.join(FORMATS)}, got {args.format!r}")
    if args.workers is not None and args.workers < 1:
        parser.error(f"--workers must be at least 1, got {args.workers}")
    if args.scheduler not in LOCAL_SCHEDULERS and not ADDRESS.match(args.scheduler):
        parser.error(
            f"--scheduler must be {', '.join(LOCAL_SCHEDULERS)} or a dask.distributed scheduler address such as "
            f"tcp://host:8786, got {args.scheduler!r:.80}"
        )
    if not 3 <= args.coarse_side <= 8193:
        parser.error(f"--coarse-side must be in [3, 8193], got {args.coarse_side}")
    if args.name is not None and (reason := stem_problem(args.name)):
        parser.error(
            f"--name must be a plain file stem, such as 'my_world-2' (no path: no '/', '\\', ':', '..', leading "
            f"'.' or control character, at most 200 bytes), got {args.name!r:.80}: {reason}"
        )
    args.formats = tuple(f for f in FORMATS if f in formats)
    return args


def stem_problem(name: str) -> str | None:
    """Why ``name`` is not a plain file stem that stays inside ``--out`` as ``FOLDER/NAME_xX_yY.EXT``, or
    ``None``: no path separator or drive, not absolute, no ``..``, not hidden, no control character."""
    if not name.strip():
        return "it is empty"
    if os.path.isabs(name) or any(sep in name for sep in {"/", "\\", ":", os.sep, os.altsep or "/"}):
        return "it is a path"
    if ".." in name or name.startswith("."):
        return "it would name a file outside its folder or a hidden one"
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        return "it holds a control character"
    if len(name.encode("utf-8", "surrogateescape")) > 200:
        return "it is longer than 200 bytes"
    return None


def plan_from_args(args: argparse.Namespace) -> Plan:
    """The build plan of parsed arguments; ``ValueError``/``TypeError`` for a bad spec or world."""
    if args.preset is not None:
        spec, name = preset_spec(args.preset), args.preset
    else:
        path = Path(args.spec)
        spec, name = load_spec(load_json(path, "the spec")), path.stem  # a regular file; a key given twice refused
    if args.set:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", InactiveSettingWarning)
            spec = apply_settings(spec, args.set)
        for w in caught:  # a setting without effect: a note, the world is still built
            if issubclass(w.category, InactiveSettingWarning):
                print(f"note: {w.message}", file=sys.stderr)
            else:
                warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    formats = args.formats
    if "exr" in formats and not have_exr():
        print("EXR tiles skipped: the OpenEXR package is not installed (pip install OpenEXR)", file=sys.stderr)
        formats = tuple(f for f in formats if f != "exr")
    shape = (args.size_y or args.size, args.size)
    grid = TileGrid(shape, args.tile)
    if grid.tiles[0] * grid.tiles[1] > MAX_TILES:  # before Dask plans a task per tile (a MemoryError after minutes)
        raise ValueError(
            f"--size {args.size}{f' --size-y {args.size_y}' if args.size_y else ''} with --tile {args.tile} makes "
            f"{grid.tiles[0]} x {grid.tiles[1]} tiles, more than the {MAX_TILES} a build schedules: use larger "
            "tiles (--tile) or a smaller world"
        )
    recipe = world_recipe(spec, shape)
    coarse = coarse_plan(recipe, grid, args.coarse_side)
    return Plan(str(Path(args.out)), args.name or name, spec, recipe, grid, formats, coarse, args.tile_sleep)


#: The --out of the build running in this process (main removes its temporary files on Ctrl+C).
_interrupted_out: list[str] = []


def main(argv: list[str] | None = None) -> int:
    """The command line; returns the exit status (0, 2 for an error, 130 when interrupted by Ctrl+C)."""
    STOP.clear()

    def interrupt(signum: int, frame: Any) -> None:
        STOP.set()  # seen at the next tile even if the KeyboardInterrupt below is swallowed on its way
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGINT, interrupt)
    except ValueError:  # not the main thread (a test calling main from a thread): Python's own handler stays
        previous = None
    try:
        return _main(argv)
    except KeyboardInterrupt:
        if _interrupted_out and Path(_interrupted_out[-1]).is_dir():
            remove_temporary(Path(_interrupted_out[-1]), os.getpid())  # this process's half-written files
        print(
            "build_world: interrupted: the tiles built so far are kept; run the same command to finish", file=sys.stderr
        )
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _main(argv: list[str] | None) -> int:
    args = parse_args(argv)
    _interrupted_out.append(args.out)  # for main's clean-up on Ctrl+C
    try:
        plan = plan_from_args(args)
    except (OSError, TypeError, ValueError) as err:
        print(f"build_world: {err}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    try:
        manifest = build_world(plan, args.scheduler, args.workers, progress=not args.quiet)
    except (ValueError, ConnectionError) as err:
        print(f"build_world: {err}", file=sys.stderr)
        return 2
    except OSError as err:  # the output folder: not writable, not a folder, a full disk...
        print(
            f"build_world: cannot write the world into --out {args.out!r}: {err.strerror or err}"
            f"{': ' + err.filename if isinstance(err.filename, str) else ''}",
            file=sys.stderr,
        )
        return 2
    rows, cols = plan.grid.shape
    if not args.quiet:
        print(
            f"{rows} x {cols} world, {len(manifest['tiles'])} tiles in {time.perf_counter() - start:.1f} s: "
            f"{Path(plan.out) / 'manifest.json'}"
        )
    return 0


if __name__ == "__main__":
    # Run from the module, not __main__: the tasks then pickle by reference (``build_world.build_tile``), which a
    # dask.distributed scheduler and workers import with this folder and the repository on their PYTHONPATH.
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import build_world

    sys.exit(build_world.main())
