"""Horn's gradient block by block: the shared machinery of every lighting and data map.

Gradients use Horn's 3 x 3 operator (Horn, "Hill shading and the reflectance
map", Proc. IEEE 69(1), 1981), the one ``gdaldem`` and most GIS tools use.
**Edges:** as ``gdaldem -compute_edges``, the neighbours a border cell lacks
are extrapolated linearly from the two cells beside them (``2 * h[0] - h[1]``),
so a plane's gradient, slope, hillshade and normal are exact on every cell and
its curvature is 0 everywhere. At the four corners gdaldem repeats the
missing column instead of extrapolating it (which halves the gradient across
it); Orogen extrapolates there too, so planes stay exact in the corners.

The kernels of :mod:`.hillshading` and :mod:`.derivatives` work in ``float32``
on blocks of rows small enough to stay in the processor's cache
(:func:`block_rows`), differencing neighbours before summing them (a
difference of nearby float32 heights is exact), so one pass over the map
computes each output; :func:`.bake.bake_maps` computes everything a terrain
bake needs from one :class:`HornGradient` pass. Heights and the cell size are
in metres (a ``z_factor`` scales heights, as GIS tools do).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from ..heightmap import as_heightmap, check_number, float_heightmap

__all__ = [
    "MAX_HEIGHT",
    "MAX_LIGHT_WORK",
    "BLOCK_CELLS",
    "prepare_heights",
    "rows_per_block",
    "fill_extension",
    "HornGradient",
    "horn_gradient",
    "gradient_norm2",
    "per_block",
    "check_light_work",
    "worker_count",
]


#: Largest height (metres, after the z-factor) the shading functions accept: far beyond any terrain,
#: and small enough that gradients and curvature stay finite at the smallest cell size.
MAX_HEIGHT = 1e12


#: Upper bound on the work of one cast-shadow or ambient-occlusion call, in cell samples
#: (see :func:`ambient_work` and :func:`shadow_work`): about a minute on two cores. Requests
#: above it are refused up front instead of freezing the caller.
MAX_LIGHT_WORK = 100_000_000_000


F64 = npt.NDArray[np.float64]


F32 = npt.NDArray[np.float32]


#: Cells per block of rows: four float32 blocks of this size fit the 1-2 MiB second-level cache.
BLOCK_CELLS = 1 << 16


# --- input checks (once per call) ------------------------------------------------------------
def prepare_heights(heightmap: npt.ArrayLike, cell_size: float, z_factor: float) -> tuple[F32, float, float]:
    """Checked ``(heights as float32, cell_size, z_factor)``; heights are not yet scaled by ``z_factor``."""
    source = float_heightmap(heightmap)
    cell = check_number(cell_size, "cell_size", low=1e-9, high=1e9)
    z = check_number(z_factor, "z_factor", low=1e-9, high=1e9)
    low, high = float(source.min()), float(source.max())
    if not (math.isfinite(low) and math.isfinite(high)):  # NaN propagates to both, Inf to one: one pass each
        raise ValueError("heightmap contains NaN or Inf")
    if max(abs(low), abs(high)) * z > MAX_HEIGHT:
        raise ValueError(f"heights x z_factor must stay within +-{MAX_HEIGHT:g} metres")
    h: F32 = source.astype(np.float32, copy=False)
    return h, cell, z


def rows_per_block(cols: int) -> int:
    """Rows per block for a map ``cols`` wide: :data:`BLOCK_CELLS` cells, at least one row."""
    return max(1, BLOCK_CELLS // max(cols, 1))


# --- Horn's gradient with linearly extrapolated edges ----------------------------------------
def fill_extension(ext: npt.NDArray[Any], h: npt.NDArray[Any], r0: int, *, r1: int) -> None:
    """Fill ``ext`` (``(r1 - r0 + 2, cols + 2)``) with rows ``r0 - 1 .. r1`` of ``h`` and a column each side.

    Rows and columns beyond the map are extrapolated linearly, ``a + (a - b)``
    from the border cell ``a`` and its inner neighbour ``b`` (repeated when the
    map is a single row or column), corners from the extrapolated rows.
    """
    rows, cols = h.shape
    inner = ext[:, 1:-1]
    inner[1:-1] = h[r0:r1]
    for halo, edge, inside, beyond in ((0, 0, 1, r0 > 0), (-1, rows - 1, rows - 2, r1 < rows)):
        if beyond:
            inner[halo] = h[r0 - 1] if halo == 0 else h[r1]
        elif rows > 1:
            np.subtract(h[edge], h[inside], out=inner[halo])
            inner[halo] += h[edge]
        else:
            inner[halo] = h[edge]
    for halo, edge, inside in ((0, 1, 2), (-1, -2, -3)):
        if cols > 1:
            np.subtract(ext[:, edge], ext[:, inside], out=ext[:, halo])
            ext[:, halo] += ext[:, edge]
        else:
            ext[:, halo] = ext[:, edge]


class HornGradient:
    """Horn's gradient of ``h`` block by block: reusable float32 buffers, one Horn pass per cell."""

    def __init__(self, h: F32, cell: float, z: float, block_rows: int | None = None) -> None:
        self.h = h
        rows, cols = h.shape
        self.block = block_rows or rows_per_block(cols)
        b = min(self.block, rows)
        self.ext = np.empty((b + 2, cols + 2), np.float32)
        self._across = np.empty((b + 2, cols), np.float32)
        self._along = np.empty((b, cols + 2), np.float32)
        self.dx_buf = np.empty((b, cols), np.float32)
        self.dy_buf = np.empty((b, cols), np.float32)
        self.scale = np.float32(z / (8.0 * cell))

    def blocks(self, start: int = 0, stop: int | None = None) -> Iterator[tuple[int, int, F32, F32, F32]]:
        """``(r0, r1, ext, dx, dy)`` for each block of rows from ``start`` to ``stop``; the arrays are reused.

        ``dx`` is dz/d(east) and ``dy`` dz/d(north), dimensionless, scaled by
        the z-factor; ``ext`` holds the block's heights with a cell of
        (extrapolated) border all round, unscaled.
        """
        rows = self.h.shape[0] if stop is None else stop
        for r0 in range(start, rows, self.block):
            r1 = min(rows, r0 + self.block)
            b = r1 - r0
            ext, across, along = self.ext[: b + 2], self._across[: b + 2], self._along[:b]
            dx, dy = self.dx_buf[:b], self.dy_buf[:b]
            fill_extension(ext, self.h, r0, r1=r1)
            # Horn: (c + 2f + i) - (a + 2d + g), summed as differences of neighbours (exact in float32).
            np.subtract(ext[:, 2:], ext[:, :-2], out=across)
            np.add(across[:-2], across[2:], out=dx)
            dx += across[1:-1]
            dx += across[1:-1]
            dx *= self.scale
            np.subtract(ext[:-2], ext[2:], out=along)  # north minus south: row 0 is north
            np.add(along[:, :-2], along[:, 2:], out=dy)
            dy += along[:, 1:-1]
            dy += along[:, 1:-1]
            dy *= self.scale
            yield r0, r1, ext, dx, dy


def horn_gradient(heightmap: npt.ArrayLike, cell_size: float = 1.0, z_factor: float = 1.0) -> tuple[F64, F64]:
    """Horn's gradient ``(dz/d east, dz/d north)``, ``float64 (rows, cols)`` each, dimensionless.

    ``dz/dx = ((c + 2f + i) - (a + 2d + g)) / (8 * cell)`` over the 3 x 3
    window ``a b c / d e f / g h i`` (row 0 north), likewise north minus
    south for ``dz/dy``. Border cells extrapolate their missing neighbours
    linearly (see the module docstring): a plane's gradient is exact on every
    cell. Computed in ``float64`` from the heights as given.
    """
    arr = heightmap if isinstance(heightmap, np.ndarray) else np.asarray(heightmap)
    h: F64 = as_heightmap(arr, dtype=np.float64)
    cell = check_number(cell_size, "cell_size", low=1e-9, high=1e9)
    z = check_number(z_factor, "z_factor", low=1e-9, high=1e9)
    if float(np.abs(h).max()) * z > MAX_HEIGHT:
        raise ValueError(f"heights x z_factor must stay within +-{MAX_HEIGHT:g} metres")
    rows, cols = h.shape
    p = np.empty((rows + 2, cols + 2))
    fill_extension(p, h, 0, r1=rows)
    scale = z / (8.0 * cell)
    across = p[:, 2:] - p[:, :-2]
    dx = (across[:-2] + 2.0 * across[1:-1] + across[2:]) * scale
    along = p[:-2] - p[2:]
    dy = (along[:, :-2] + 2.0 * along[:, 1:-1] + along[:, 2:]) * scale
    return dx, dy


# --- per-block kernels (shared with core.lighting.bake) -------------------------------------------------
def gradient_norm2(dx: F32, dy: F32, out: F32) -> F32:
    """``dx**2 + dy**2`` into ``out``."""
    np.multiply(dx, dx, out=out)
    out += dy * dy
    return out


def per_block(
    heightmap: npt.ArrayLike,
    cell_size: float,
    z_factor: float,
    *,
    shape_tail: tuple[int, ...],
    kernel: Callable[[F32, F32, F32, F32, F32, F32, F32], None],
) -> F32:
    """Run ``kernel(ext, dx, dy, g2, out_block, tmp, tmp2)`` over the blocks of one Horn pass."""
    h, cell, z = prepare_heights(heightmap, cell_size, z_factor)
    grad = HornGradient(h, cell, z)
    out = np.empty(h.shape + shape_tail, np.float32)
    g2_buf, tmp_buf, tmp2_buf = (np.empty_like(grad.dx_buf) for _ in range(3))
    for r0, r1, ext, dx, dy in grad.blocks():
        b = r1 - r0
        g2 = gradient_norm2(dx, dy, g2_buf[:b])
        kernel(ext, dx, dy, g2, out[r0:r1], tmp_buf[:b], tmp2_buf[:b])
    return out


def check_light_work(work: int, what: str) -> None:
    """Refuse a shadow or ambient-occlusion request above :data:`MAX_LIGHT_WORK` cell samples,
    naming the parameters in ``what``."""
    if work > MAX_LIGHT_WORK:
        raise ValueError(
            f"{what}: {work:.3g} cell samples, more than {MAX_LIGHT_WORK:.2g} (about a minute): "
            "use fewer directions, a smaller radius or a smaller map"
        )


def worker_count(cells: int) -> int:
    """Threads for a kernel over ``cells`` cells: numpy releases the GIL inside each block's operations."""
    return 1 if cells < (1 << 18) else max(1, min(4, os.cpu_count() or 1))
