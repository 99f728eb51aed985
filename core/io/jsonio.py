"""One bounded JSON reader for everything Orogen reads as JSON: recipes, sidecars, ``--set`` values.

Python's :func:`json.loads` has no size or depth limit: 5000 nested brackets
raise ``RecursionError`` from deep inside the parser, a 100 MB file is read
whole, and a path that is a FIFO or ``/dev/zero`` blocks or reads until memory
runs out. :func:`load_json` bounds the size before reading and the nesting
depth before parsing, reads only regular files, refuses an object that
gives a key twice (:func:`json.loads` keeps the last silently, other
readers the first, so which one holds is undefined; RFC 8259 section 4 says
names SHOULD be unique), and raises one family of named errors (all
``ValueError``) with short messages.
"""

from __future__ import annotations

import json
import os
import re
import stat
from typing import Any

import numpy as np

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "JSONDuplicateKeyError",
    "JSONError",
    "JSONFileError",
    "JSONSyntaxError",
    "JSONTooDeepError",
    "JSONTooLargeError",
    "load_json",
    "read_regular_file",
    "shorten",
]

#: Default bound on the bytes of a JSON document (a recipe is about 1 kB, a sidecar 2 kB).
MAX_BYTES = 1 << 20
#: Default bound on nesting depth (a recipe nests 4 levels).
MAX_DEPTH = 32


class JSONError(ValueError):
    """A JSON document Orogen cannot take; the message names it (``what``) and says why."""


class JSONFileError(JSONError):
    """The file cannot be read: missing, not a regular file (a FIFO, a device, a folder), unreadable."""


class JSONTooLargeError(JSONError):
    """The document has more bytes than allowed."""


class JSONTooDeepError(JSONError):
    """The document nests arrays and objects deeper than allowed."""


class JSONSyntaxError(JSONError):
    """Not valid JSON (or not UTF-8, or an integer of thousands of digits)."""


class JSONDuplicateKeyError(JSONError):
    """An object gives the same key twice (which one holds is undefined: readers differ)."""


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)


def shorten(text: str, limit: int = 200) -> str:
    """``text`` cut to at most ``limit`` characters, with an ellipsis and the full length when cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} characters)"


def read_regular_file(path: str | os.PathLike[str], what: str, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` bytes.

    Opens without blocking (a FIFO would wait for a writer forever), refuses
    anything but a regular file after ``fstat`` (``/dev/zero`` never ends), and
    reads at most ``max_bytes + 1`` bytes.

    Raises
    ------
    JSONFileError
        If the file is missing, unreadable or not a regular file.
    JSONTooLargeError
        If it holds more than ``max_bytes`` bytes.
    """
    name = os.fspath(path)
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as err:
        raise JSONFileError(f"cannot read {what} ({name}): {err.strerror or err}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise JSONFileError(f"{what} ({name}) is not a regular file")
        if info.st_size > max_bytes:
            raise JSONTooLargeError(f"{what} ({name}) has {info.st_size} bytes, more than the {max_bytes} allowed")
        chunks = []
        left = max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as err:
        raise JSONFileError(f"cannot read {what} ({name}): {err.strerror or err}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_bytes:
        raise JSONTooLargeError(f"{what} ({name}) has more than the {max_bytes} bytes allowed")
    return data


def _depth(data: bytes) -> int:
    """Greatest nesting depth of ``[``/``{`` outside strings (vectorised; no parsing)."""
    bare = np.frombuffer(_STRING.sub(b'""', data), dtype=np.uint8)
    steps = np.isin(bare, (ord("["), ord("{"))).astype(np.int64) - np.isin(bare, (ord("]"), ord("}"))).astype(np.int64)
    return int(np.cumsum(steps).max(initial=0))


def load_json(
    source: str | bytes | os.PathLike[str], what: str, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH
) -> Any:
    """Parse JSON text (``str``/``bytes``) or a file (a path-like object), within bounds.

    Parameters
    ----------
    source : str, bytes or os.PathLike
        JSON text, or the path of a JSON file (``pathlib.Path``). A ``str`` is
        always text, never a path.
    what : str
        What the document is, for messages (``"--recipe my.json"``, ``"--set faults"``).
    max_bytes : int
        Largest document accepted, in bytes (UTF-8), checked before reading or parsing.
    max_depth : int
        Deepest nesting of arrays and objects accepted, checked before parsing.

    Returns
    -------
    object
        The parsed value (dict, list, str, int, float, bool or None).

    Raises
    ------
    JSONFileError, JSONTooLargeError, JSONTooDeepError, JSONSyntaxError, JSONDuplicateKeyError
        All subclasses of :class:`JSONError` (a ``ValueError``), with messages
        of at most a few hundred characters; a key given twice in one object
        raises :class:`JSONDuplicateKeyError` naming the key (and the file,
        when ``source`` is a path).
    """
    if isinstance(source, os.PathLike):
        data = read_regular_file(source, what, max_bytes)
    elif isinstance(source, str):
        data = source.encode("utf-8", "surrogatepass")
    elif isinstance(source, (bytes, bytearray)):
        data = bytes(source)
    else:
        raise TypeError(f"{what}: JSON must be text or a path, got {type(source).__name__}")
    if len(data) > max_bytes:
        raise JSONTooLargeError(f"{what} has {len(data)} bytes, more than the {max_bytes} allowed")
    depth = _depth(data)
    if depth > max_depth:
        raise JSONTooDeepError(f"{what} nests {depth} levels deep, more than the {max_depth} allowed")
    label = f"{what} ({os.fspath(source)})" if isinstance(source, os.PathLike) else what

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise JSONDuplicateKeyError(
                    f"{label} gives the key {shorten(key, 60)!r} twice in one object; which one holds is "
                    "undefined (readers differ), so it is refused: keep one"
                )
            out[key] = value
        return out

    try:
        return json.loads(data.decode("utf-8"), object_pairs_hook=unique)
    except JSONDuplicateKeyError:
        raise
    except UnicodeDecodeError:
        raise JSONSyntaxError(f"{what} is not UTF-8 text") from None
    except RecursionError:  # not reached within max_depth, but never let it escape
        raise JSONTooDeepError(f"{what} nests too deeply") from None
    except ValueError as err:  # syntax, or an integer of thousands of digits
        raise JSONSyntaxError(f"{what} is not valid JSON: {shorten(str(err))}") from None
