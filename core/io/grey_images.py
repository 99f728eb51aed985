"""Greyscale images core reads itself (no Blender): the image stamp's and the image mask's files.

One reader for both, so both refuse the same files the same way: ``.npy`` (:func:`.formats.read_npy`), 16-bit
RAW ``.r16``/``.raw`` (:func:`.formats.read_raw`) and single-band (Geo)TIFF (:func:`.geotiff.read_elevation`),
each checked before it is decoded (a regular file, at most :data:`IMAGE_MAX_SIDE` pixels a side: its declared
size is the cap), every value finite. The values are cached per file version, so the windows and tiles of one
terrain read a file once; a version is the file's inode, size, modification and status-change times, so a file
rewritten in place (even with its old modification time put back, as ``cp -p`` or ``os.utime`` do) is read
again: the status-change time cannot be set back.
"""

from __future__ import annotations

import functools
import os
import stat

import numpy as np
import numpy.typing as npt

from .formats import read_npy, read_raw
from .geotiff import read_elevation

__all__ = ["IMAGE_SUFFIXES", "IMAGE_MAX_SIDE", "read_grey_image"]

#: The files :func:`read_grey_image` reads, by suffix (PNG and JPEG need Blender's loader: save as 16-bit TIFF).
IMAGE_SUFFIXES = (".npy", ".r16", ".raw", ".tif", ".tiff")
#: Largest image read, pixels a side.
IMAGE_MAX_SIDE = 16384


def _check_image_size(rows: int, cols: int) -> None:
    if max(rows, cols) > IMAGE_MAX_SIDE:
        raise ValueError(f"is {rows} x {cols} pixels; an image here takes at most {IMAGE_MAX_SIDE} a side")


def read_grey_image(path: str, what: str) -> npt.NDArray[np.float64]:
    """The values of the greyscale image file ``path``, ``float64 (rows, cols)``, row 0 north, read-only.

    Parameters
    ----------
    path : str
        A file of :data:`IMAGE_SUFFIXES`.
    what : str
        The setting that names it, for messages (``"filters[0].mask.image"``).

    Raises
    ------
    ValueError
        Naming ``what``: an empty path, another format, no such file, not a regular file (a folder, a FIFO, a
        device), more than :data:`IMAGE_MAX_SIDE` pixels a side (refused before decoding), a file its reader
        refuses, NaN or infinite values.
    """
    if not path:
        raise ValueError(f"{what}: names no file: choose a {', '.join(IMAGE_SUFFIXES)} image")
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in IMAGE_SUFFIXES:
        raise ValueError(
            f"{what}: {os.path.basename(path)!r} must be one of {', '.join(IMAGE_SUFFIXES)} (PNG and JPEG: "
            "save as 16-bit TIFF)"
        )
    try:
        info = os.stat(path)
    except OSError:
        raise ValueError(f"{what}: no such file {path!r:.200}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{what}: {path!r:.200} is not a regular file (a folder, a FIFO or a device)")
    return _read_cached(path, suffix, what, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


@functools.lru_cache(maxsize=8)
def _read_cached(
    path: str, suffix: str, what: str, _inode: int, _size: int, _mtime: int, _ctime: int
) -> npt.NDArray[np.float64]:
    try:
        if suffix == ".npy":
            values = read_npy(path, _check_image_size)
        elif suffix in (".r16", ".raw"):
            values = read_raw(path, _check_image_size)
        else:
            values = read_elevation(path, _check_image_size).heights
    except (OSError, ValueError) as err:
        raise ValueError(f"{what}: {err}") from None
    out = np.array(values, dtype=np.float64)
    if not np.isfinite(out).all():
        raise ValueError(f"{what}: {os.path.basename(path)!r} holds NaN or infinite values")
    out.setflags(write=False)
    return out
