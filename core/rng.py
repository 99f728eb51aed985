"""Counter-based random numbers: every value is a pure function of its inputs.

Orogen never draws from a stateful generator. A random value is a hash of
``(seed, stream, counter, ...)``: the seed the user chose, a stream name that
separates independent uses (``"hills/x"`` must not correlate with
``"hills/radius"``) and integer counters (a hill's index, a cell's world
coordinates, a fault's number). Because nothing depends on the order of
draws, the same inputs give bit-identical values in any process, on any
platform, with numpy 1.26 (bundled with Blender) or numpy 2.x, and a tile or
chunk of a world can be computed alone.

The mixing function is the SplitMix64 finaliser (Steele, Lea and Flood,
"Fast splittable pseudorandom number generators", OOPSLA 2014), applied as a
hash in the manner of counter-based generators (Salmon et al., "Parallel
random numbers: as easy as 1, 2, 3", SC 2011). Only unsigned 64-bit integer
arithmetic is used, which wraps identically everywhere; floats are made from
the top 53 bits, an exact conversion.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = ["SEED_MAX", "check_seed", "stream_key", "hash_u64", "uniform", "sub_seed"]

#: Largest accepted seed (seeds are unsigned 64-bit integers).
SEED_MAX = 2**64 - 1

_U64 = np.uint64
_GOLDEN = _U64(0x9E3779B97F4A7C15)
_M1 = _U64(0xBF58476D1CE4E5B9)
_M2 = _U64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = _U64(30), _U64(27), _U64(31), _U64(11)
_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_INV_2_53 = 1.0 / 9007199254740992.0


def check_seed(seed: object, name: str = "seed") -> int:
    """Validate a seed and return it as a Python ``int``.

    Parameters
    ----------
    seed : int
        Any integer in ``[0, 2**64 - 1]`` (numpy integers are accepted).
    name : str
        Parameter name used in error messages.

    Raises
    ------
    TypeError
        If ``seed`` is not an integer (``bool`` and floats are refused).
    ValueError
        If ``seed`` is outside ``[0, 2**64 - 1]``.
    """
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{name} must be an integer in [0, {SEED_MAX}], got {type(seed).__name__}")
    value = int(seed)
    if not 0 <= value <= SEED_MAX:
        raise ValueError(f"{name} must be in [0, {SEED_MAX}], got {value}")
    return value


def stream_key(stream: str) -> int:
    """Return the 64-bit key of a stream name (FNV-1a over its UTF-8 bytes).

    Python's built-in ``hash`` is salted per process and therefore unusable
    here; FNV-1a is fixed and documented (Fowler, Noll, Vo).
    """
    if not isinstance(stream, str):
        raise TypeError(f"stream must be a str, got {type(stream).__name__}")
    try:
        data = stream.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(f"stream must be encodable as UTF-8: {err}") from None
    key = _FNV_OFFSET
    for byte in data:
        key = ((key ^ byte) * _FNV_PRIME) & SEED_MAX
    return key


def _mix(x: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """SplitMix64 finaliser on a uint64 array (wrapping arithmetic, in place)."""
    x ^= x >> _S30
    x *= _M1
    x ^= x >> _S27
    x *= _M2
    x ^= x >> _S31
    return x


def _as_u64(counter: npt.ArrayLike) -> npt.NDArray[np.uint64]:
    """Integers (possibly negative, e.g. world coordinates) as two's-complement uint64."""
    arr = np.asarray(counter)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"counters must be integer arrays, got dtype {arr.dtype}")
    if arr.dtype.kind == "i":
        return np.atleast_1d(arr.astype(np.int64)).view(np.uint64)
    return np.atleast_1d(arr.astype(np.uint64))


def hash_u64(seed: int, stream: str, *counters: npt.ArrayLike) -> npt.NDArray[np.uint64]:
    """Hash ``(seed, stream, *counters)`` to uniformly distributed 64-bit integers.

    Parameters
    ----------
    seed : int
        In ``[0, 2**64 - 1]``.
    stream : str
        Name of the independent stream.
    *counters : array_like of int
        Integer arrays that broadcast together (negative values allowed).

    Returns
    -------
    ndarray of uint64
        Broadcast shape of the counters (at least 1-D).
    """
    seed = check_seed(seed)
    with np.errstate(over="ignore"):
        h = _mix(np.array([seed ^ stream_key(stream)], dtype=np.uint64))
        arrays = np.broadcast_arrays(*[_as_u64(c) for c in counters]) if counters else []
        shape = arrays[0].shape if arrays else (1,)
        h = np.broadcast_to(h, shape).copy()
        for c in arrays:
            h += _GOLDEN
            h ^= c
            h = _mix(h)
        return _mix(h + _GOLDEN)


def uniform(seed: int, stream: str, *counters: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Uniform floats in ``[0, 1)`` that depend only on the arguments.

    Parameters and shape as :func:`hash_u64`; returns ``float64`` with 53
    random bits. Bit-identical across processes, platforms and numpy versions.
    """
    return (hash_u64(seed, stream, *counters) >> _S11).astype(np.float64) * _INV_2_53


def sub_seed(seed: int, stream: str, *indices: int) -> int:
    """Derive an independent seed for a part of a whole (a chunk, a tile, a section).

    ``sub_seed(level_seed, "section", 4)`` is the seed of section 4; sub-seeds
    can be nested as deep as needed. ``indices`` are integers in
    ``[-2**63, 2**63)`` (``TypeError``/``ValueError`` otherwise). Returns an
    ``int`` in ``[0, 2**64 - 1]``.
    """
    for k, index in enumerate(indices):
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
            raise TypeError(f"indices[{k}] must be an integer, got {type(index).__name__}")
        if not -(2**63) <= int(index) < 2**63:
            raise ValueError(f"indices[{k}] must be in [-2**63, 2**63), got {int(index)}")
    return int(hash_u64(seed, stream, *[np.int64(int(i)) for i in indices])[0])
