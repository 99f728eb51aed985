"""Quantities typed by people: byte sizes such as ``OROGEN_MEMORY_LIMIT=1.5G``."""

from __future__ import annotations

import math
import re

__all__ = ["parse_bytes", "format_bytes"]

_BYTES = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?(?:[eE][+]?[0-9]+)?)\s*([kKmMgGtT]?)(i?[bB])?\s*$")
_POWER = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4}


def parse_bytes(text: str, what: str) -> int:
    """A byte count from text: ``1073741824``, ``1e9``, ``512M``, ``1G``, ``1.5GiB``, ``2GB``.

    A plain number (integer, decimal or exponent) is bytes. ``K``, ``M``,
    ``G``, ``T`` alone or with ``iB`` are powers of 1024 (as ``ulimit``,
    ``free -h`` and container runtimes read them); ``kB``, ``MB``, ``GB``,
    ``TB`` are powers of 1000; a trailing ``B`` alone is bytes. A fractional result is rounded down.

    Parameters
    ----------
    text : str
        The text to read.
    what : str
        Its name for the message (``"OROGEN_MEMORY_LIMIT"``).

    Returns
    -------
    int
        The byte count, at least 1.

    Raises
    ------
    ValueError
        For anything else (negative, zero, NaN, unknown units), naming ``what``
        and the forms accepted.
    """
    match = _BYTES.match(text)
    forms = "bytes as a number (1073741824, 1e9) or with K, M, G, T (powers of 1024) or kB, MB, GB, TB (of 1000)"
    if match is None:
        raise ValueError(f"{what} must be {forms}, got {text[:40]!r}")
    number, prefix, suffix = match.groups()
    if suffix and "i" in suffix and not prefix:  # "5iB"
        raise ValueError(f"{what} must be {forms}, got {text[:40]!r}")
    base = 1000 if suffix in ("B", "b") and prefix else 1024
    value = float(number) * base ** _POWER[prefix.lower()]
    if not math.isfinite(value) or value < 1:
        raise ValueError(f"{what} must be at least 1 byte and finite, got {text[:40]!r}")
    return int(value)


def format_bytes(count: float) -> str:
    """A byte count in the binary unit that fits it: ``"1 B"``, ``"512 B"``, ``"1.5 KiB"``, ``"3.2 GiB"``.

    Bytes below 1024 are whole; larger counts take the largest of KiB, MiB, GiB
    and TiB that keeps the number at least 1, with three significant figures.
    """
    value = float(count)
    if abs(value) < 1024:
        return f"{value:.0f} B"
    for unit in ("KiB", "MiB", "GiB"):
        value /= 1024.0
        if abs(value) < 1024:
            return f"{value:.3g} {unit}"
    return f"{value / 1024.0:.3g} TiB"
