"""Writing files so that nothing is lost: verify, then replace atomically, with a journal for sets of files.

What this module promises (POSIX file systems: Linux, macOS; see the notes for Windows):

- **Every target is whole.** A file is written under a staging name in its
  target's folder, checked (:func:`verify_file`: a PNG's chunks and CRCs, an
  OpenEXR's offset table and chunks, a TIFF's strips, a RAW's or ``.npy``'s
  exact size, a JSON file that parses), flushed to disk (``fsync``), and only
  then renamed onto its target with one ``os.replace``. A reader sees the
  complete old file or the complete new one, never a missing or partial
  target, whatever happens to the writer. A short write (full disk,
  ``ulimit -f``) fails the check and replaces nothing.
- **A set of files is all or nothing, after recovery.** :func:`commit`
  first links each existing target to a backup name (a hard link, or a copy
  where the file system has none: the target stays in place), then writes a
  journal listing the set, then renames the new files in, and removes the
  journal: that removal is the commit point. If the process dies before it,
  the next :func:`commit` or :func:`recover` in that folder rolls the set
  back to the old files (the dead writer never reported success). While a
  set is being renamed in, or after a crash until recovery, a reader can see
  some targets new and others old, each of them whole.
- **Concurrent writers do not fail.** Staging, backup and journal names carry
  the host, the process id and a random token; commits into a folder are
  serialised by an exclusive ``flock`` on the folder itself (no lock file),
  so two exporters writing the same names both succeed and the folder ends
  with one complete set.
- **Leftovers are cleaned.** Staging files, backups and journals of processes
  that no longer run on this host (or older than :data:`STALE_SECONDS`, for
  other hosts) are recovered or removed by the next commit in that folder;
  so are the ``.NAME.PID-I.old`` backups of Orogen 0.1's exporter (restored
  if their target is missing).

On Windows there is no ``flock`` and no directory ``fsync``: replacement is
still atomic per file, but concurrent commits are not serialised.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np

from .image_headers import check_image
from .jsonio import JSONError, load_json

__all__ = ["STALE_SECONDS", "commit", "recover", "stage_dir", "staged_path", "verify_file", "write_text"]

#: Leftovers of other hosts' processes are removed once they are this old (seconds).
STALE_SECONDS = 24 * 3600
_PREFIX = ".orogen-"
_NAME = re.compile(r"^\.orogen-(stage|old|journal)-([0-9a-f]{8})-(\d+)-([0-9a-z]+)")
_LEGACY_OLD = re.compile(r"^\.(.+)\.(\d+)-\d+\.old$")


def _host() -> str:
    return hashlib.sha1(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]


def _tag(kind: str) -> str:
    return f"{_PREFIX}{kind}-{_host()}-{os.getpid()}-{secrets.token_hex(4)}"


def stage_dir(folder: str) -> str:
    """A new, private staging folder inside ``folder`` (same file system as the targets)."""
    path = os.path.join(folder, _tag("stage"))
    os.mkdir(path, 0o700)
    return path


def staged_path(target: str) -> str:
    """A unique staging name beside ``target`` (same folder, so the final rename is atomic)."""
    folder, name = os.path.split(os.path.abspath(target))
    return os.path.join(folder, f"{_tag('stage')}-{name}")


def write_text(target: str, text: str, check: Callable[[str], object] | None = None) -> None:
    """Write ``text`` (UTF-8) to ``target`` whole or not at all.

    The text goes to a :func:`staged_path` beside ``target``, is flushed to
    disk, checked by ``check(staged)`` when given (raising to refuse it), and
    only then renamed onto ``target``. On any failure (a full disk's
    ``OSError``, the check's error, an interrupt) the staged file is removed
    and the error raised again: ``target`` is as it was and nothing is left
    beside it.
    """
    staged = staged_path(target)
    try:
        with open(staged, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if check is not None:
            check(staged)
        os.replace(staged, target)
    except BaseException:
        _remove(staged)
        raise


def _npy_check(path: str, shape: tuple[int, ...] | None) -> None:
    with open(path, "rb") as f:
        try:
            version = np.lib.format.read_magic(f)  # type: ignore[no-untyped-call]
            read_header = (
                np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            )
            header = read_header(f)  # type: ignore[no-untyped-call]
        except ValueError as err:
            raise ValueError(f"not a .npy file: {err}") from None
        array_shape, _, dtype = header
        expected = f.tell() + int(np.prod(array_shape, dtype=np.int64)) * dtype.itemsize
        size = f.seek(0, 2)
    if size != expected:
        raise ValueError(f"the .npy file has {size} bytes, its header needs {expected}")
    if shape is not None and tuple(array_shape) != tuple(shape):
        raise ValueError(f"the .npy file holds shape {array_shape}, not {tuple(shape)}")


def verify_file(path: str, shape: tuple[int, int] | None = None, suffix: str | None = None) -> None:
    """Check that a file just written is complete, by its format (``suffix``, default the path's).

    ``.png``, ``.exr``, ``.tif``/``.tiff``: :func:`core.io.image_headers.check_image`
    (and the image must be ``shape`` when given). ``.r16``/``.raw``: exactly
    ``rows * cols * 2`` bytes (``shape`` required). ``.npy``: the header parses
    and the file has exactly the bytes it announces. ``.json``: parses
    (:func:`core.io.jsonio.load_json`, up to 64 MiB). ``.blend``: starts with
    Blender's, gzip's or Zstandard's magic. Anything else: not empty.

    Raises
    ------
    ValueError
        Naming what is wrong (cut short, damaged, another size).
    OSError
        If the file cannot be read.
    """
    kind = (suffix or os.path.splitext(path)[1]).lower()
    size = os.path.getsize(path)
    if size == 0:
        raise ValueError("the file is empty")
    if kind in (".png", ".exr", ".tif", ".tiff"):
        check_image(path, shape)
    elif kind in (".r16", ".raw"):
        if shape is None:
            raise ValueError("a RAW file is checked against its shape, and none was given")
        if size != shape[0] * shape[1] * 2:
            raise ValueError(f"the RAW file has {size} bytes, not {shape[0] * shape[1] * 2}")
    elif kind == ".npy":
        _npy_check(path, shape)
    elif kind == ".json":
        try:
            load_json(Path(path), "the JSON file", max_bytes=64 << 20, max_depth=256)
        except JSONError as err:
            raise ValueError(str(err)) from None
    elif kind == ".blend":
        with open(path, "rb") as f:
            magic = f.read(7)
        if not (magic.startswith(b"BLENDER") or magic[:2] == b"\x1f\x8b" or magic[:4] == b"\x28\xb5\x2f\xfd"):
            raise ValueError("not a .blend file (by its first bytes)")


def _fsync_path(path: str, directory: bool = False) -> None:
    if directory and os.name == "nt":
        return
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        os.fsync(fd)
    except OSError:
        if not directory:  # some file systems cannot sync a folder; a file must be synced
            raise
    finally:
        os.close(fd)


@contextlib.contextmanager
def _locked(folders: Sequence[str]) -> Iterator[None]:
    """Exclusive ``flock`` on each folder (sorted, so two writers never deadlock); nothing on Windows."""
    try:
        import fcntl
    except ImportError:  # Windows
        yield
        return
    fds = []
    try:
        for folder in sorted(set(folders)):
            fd = os.open(folder, os.O_RDONLY)
            fds.append(fd)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        for fd in reversed(fds):
            os.close(fd)  # closing releases the lock


def _alive(host: str, pid: int, path: str) -> bool:
    """Whether the process that made ``path`` may still be running (so its files must be left alone)."""
    if host == _host() and os.name != "nt":
        if pid == os.getpid():
            return True
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # another user's live process
            return True
        return True
    try:
        return time.time() - os.lstat(path).st_mtime < STALE_SECONDS
    except OSError:
        return False


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.remove(path)


def _roll_back(entries: Sequence[Mapping[str, str | None]], from_journal: bool) -> None:
    """Put back every target of a set as it was: its backup, or no file where there was none.

    From a dead writer's journal, a target was replaced when its staged file
    is gone (staged files exist, verified, before the journal is written);
    its leftover staged files are removed. In the writer itself, ``placed``
    says it, and the new files go back to their staged names (hard links).
    """
    for entry in reversed(entries):
        target, backup, staged = entry["target"], entry.get("backup"), entry.get("staged")
        assert target is not None and staged is not None
        placed = not os.path.lexists(staged) if from_journal else entry.get("placed") is not None
        if placed and not from_journal:  # give the caller its staged file back (a second name, no gap)
            with contextlib.suppress(OSError):
                os.link(target, staged)
        if backup is not None and os.path.lexists(backup):
            os.replace(backup, target)
        elif backup is None and placed and os.path.lexists(target):
            os.remove(target)  # a new file where there was none
        if from_journal:
            _remove(staged)


def recover(folder: str) -> list[str]:
    """Roll back or clean what dead writers left in ``folder``; returns what was done, one line each.

    Takes the folder's lock itself; :func:`commit` calls it (holding the lock)
    before it writes. Journals of dead processes are rolled back (their
    targets get their old files again), then their staging files, staging
    folders and backups are removed, and Orogen 0.1's ``.NAME.PID-I.old``
    backups are restored when their target is missing (else removed once
    their process is gone).
    """
    with _locked([folder]):
        return _recover_locked(folder)


def _recover_locked(folder: str) -> list[str]:
    done: list[str] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return done
    journals = sorted(n for n in names if (m := _NAME.match(n)) and m.group(1) == "journal")
    for name in journals:
        match = _NAME.match(name)
        assert match is not None
        path = os.path.join(folder, name)
        if _alive(match.group(2), int(match.group(3)), path):
            continue
        try:
            entries = load_json(Path(path), name, max_bytes=16 << 20)["entries"]
            _roll_back(entries, from_journal=True)
        except (JSONError, KeyError, TypeError, OSError) as err:
            done.append(f"could not roll back {name}: {err}")
            continue
        _remove(path)
        done.append(f"rolled back an interrupted write of {len(entries)} files ({name})")
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        match = _NAME.match(name)
        if match and match.group(1) in ("stage", "old") and not _alive(match.group(2), int(match.group(3)), path):
            _remove(path)
            done.append(f"removed {name}")
            continue
        legacy = _LEGACY_OLD.match(name)
        if legacy and os.name != "nt":
            target = os.path.join(folder, legacy.group(1))
            if not os.path.lexists(target):
                os.replace(path, target)
                done.append(f"restored {legacy.group(1)} from {name}")
            elif not _alive(_host(), int(legacy.group(2)), path):
                _remove(path)
                done.append(f"removed {name}")
    return done


def _backup(target: str) -> str | None:
    """A second name for the current ``target`` (hard link, else a copy); ``None`` if there is no target."""
    if not os.path.lexists(target):
        return None
    folder, name = os.path.split(target)
    backup = os.path.join(folder, f"{_tag('old')}-{name}")
    try:
        os.link(target, backup, follow_symlinks=False)
    except OSError:  # no hard links here (FAT, some network shares): a copy, synced
        shutil.copy2(target, backup, follow_symlinks=False)
        if not os.path.islink(backup):
            _fsync_path(backup)
    return backup


def commit(pairs: Sequence[tuple[str, str]], shapes: Mapping[str, tuple[int, int]] | None = None) -> None:
    """Move each staged file onto its target: verified, atomically, and all or nothing.

    Parameters
    ----------
    pairs : sequence of (staged, target)
        Staged files (from :func:`staged_path` or a :func:`stage_dir` folder,
        on the target's file system) and their targets. Each staged file's
        format is its target's suffix.
    shapes : mapping of target to (rows, cols), optional
        The size each image, RAW or ``.npy`` target must have.

    Raises
    ------
    ValueError
        If a staged file fails :func:`verify_file` (nothing is replaced; the
        message names the target and says what is wrong) or a target is a folder.
    OSError
        If a rename fails: the targets already replaced get their old files
        back before it propagates. The staged files stay with the caller.
    """
    shapes = shapes or {}
    pairs = [(os.path.abspath(s), os.path.abspath(t)) for s, t in pairs]
    for staged, target in pairs:
        if os.path.isdir(target) and not os.path.islink(target):
            raise ValueError(f"{target} is a folder: nothing was written")
        try:
            verify_file(staged, shapes.get(target), os.path.splitext(target)[1])
        except (ValueError, OSError) as err:
            raise ValueError(
                f"{os.path.basename(target)} was not written completely ({err}; the disk may be "
                "full or a file-size limit reached): nothing was replaced"
            ) from None
        _fsync_path(staged)
    if not pairs:
        return
    folders = [os.path.dirname(t) for _, t in pairs]
    with _locked(folders):
        for folder in dict.fromkeys(folders):
            _recover_locked(folder)
        entries: list[dict[str, str | None]] = []
        journal = os.path.join(folders[0], _tag("journal") + ".json")
        try:
            for staged, target in pairs:
                entries.append({"staged": staged, "target": target, "backup": _backup(target), "placed": None})
            _write_journal(journal, entries)
            for entry in entries:
                assert entry["staged"] is not None and entry["target"] is not None
                os.replace(entry["staged"], entry["target"])
                entry["placed"] = entry["target"]
            for folder in dict.fromkeys(folders):
                _fsync_path(folder, directory=True)
        except BaseException:
            try:
                _roll_back(entries, from_journal=False)
            except OSError:  # leave the journal: the next commit or recover() in this folder finishes it
                raise
            for entry in entries:
                if entry["backup"] is not None:
                    _remove(entry["backup"])
            _remove(journal)
            raise
        _remove(journal)  # the commit point
        _fsync_path(folders[0], directory=True)
        for entry in entries:
            if entry["backup"] is not None:
                _remove(entry["backup"])


def _write_journal(path: str, entries: Sequence[Mapping[str, str | None]]) -> None:
    """Write the journal under a staging name, sync it, rename it into place, sync the folder."""
    temp = staged_path(path)
    with open(temp, "w", encoding="utf-8") as f:
        json.dump({"host": socket.gethostname(), "pid": os.getpid(), "entries": list(entries)}, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temp, path)
    _fsync_path(os.path.dirname(path), directory=True)
