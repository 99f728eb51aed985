"""Elevation rasters from (Geo)TIFF files, as GIS users have them: heights in metres, nodata filled and counted.

The pixels are decoded by tifffile (Christoph Gohlke's pure-Python TIFF
library, shipped with the extension as a wheel): float32, int16 and other
integer rasters, stripped or tiled, uncompressed, PackBits, DEFLATE (the
standard library's zlib) or LZW, with or without GDAL's horizontal
differencing predictor. tifffile decodes LZW with the compiled imagecodecs
package, which is platform-specific and not shipped; without it Orogen
registers its own decoder (:func:`lzw_decode`, from the TIFF 6.0
specification, section 13). The floating-point predictor (``PREDICTOR=3``)
needs imagecodecs and is refused with a message saying how to re-save.

Georeferencing, from the GeoTIFF 1.1 tags (OGC 19-008r4):

- pixel size from ``ModelPixelScaleTag`` (33550), or from the columns of
  ``ModelTransformationTag`` (34264);
- ``GTModelTypeGeoKey`` (1024) 2 = geographic: the pixel size is in degrees
  and is converted to metres at the raster's centre latitude with the WGS 84
  series for the length of a degree of latitude and of longitude;
- ``ProjLinearUnitsGeoKey`` (3076) and ``VerticalUnitsGeoKey`` (4099): metres
  (9001), feet (9002) or US survey feet (9003), converted to metres;
- nodata from GDAL's ``GDAL_NODATA`` tag (42113), plus NaN in float rasters.

Nodata cells are filled by a stated rule (:func:`fill_nodata`): each pass
gives every nodata cell next to valid ones the mean of its valid
4-neighbours, inward from the edges of a hole, for up to
:data:`FILL_PASSES` passes; cells still empty after that take the lowest
valid height.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .image_headers import check_image

__all__ = [
    "FILL_PASSES",
    "Elevation",
    "dem_extent",
    "dem_record",
    "dem_summary",
    "fill_nodata",
    "lzw_decode",
    "metres_per_degree",
    "read_elevation",
]

#: Passes of the inward neighbour-mean fill before the remaining nodata cells take the lowest height.
FILL_PASSES = 64

_UNITS = {9001: 1.0, 9002: 0.3048, 9003: 1200.0 / 3937.0}


@dataclass(frozen=True)
class Elevation:
    """An elevation raster read from a file.

    Attributes
    ----------
    heights : ndarray of float32, shape (rows, cols)
        Heights in metres when the file is georeferenced (else its values
        as stored), row 0 north; nodata cells filled.
    nodata : int
        Cells that were nodata (the ``GDAL_NODATA`` value or NaN) and were filled.
    nodata_value : float or None
        The file's nodata value, if it has one.
    cell_size : (float, float) or None
        Pixel size ``(x, y)`` in metres, from the georeferencing; ``None`` without it.
    geographic : bool
        Whether the pixel size was given in degrees (and converted at ``latitude``).
    latitude : float or None
        The raster's centre latitude in degrees, for a geographic raster.
    """

    heights: npt.NDArray[np.float32]
    nodata: int
    nodata_value: float | None
    cell_size: tuple[float, float] | None
    geographic: bool
    latitude: float | None


def metres_per_degree(latitude: float) -> tuple[float, float]:
    """Length in metres of one degree of longitude and of latitude at ``latitude`` (degrees) on WGS 84.

    The standard series expansions of the ellipsoid's radii of curvature
    (e.g. the NGA's "Length of a degree" formulas): latitude
    ``111132.954 - 559.822 cos 2φ + 1.175 cos 4φ``, longitude
    ``111412.84 cos φ - 93.5 cos 3φ + 0.118 cos 5φ``. Accurate to about a centimetre.
    Raises ``ValueError`` for a latitude outside [-90, 90].
    """
    if not (math.isfinite(latitude) and -90.0 <= latitude <= 90.0):
        raise ValueError(f"latitude must be in [-90, 90] degrees, got {latitude}")
    phi = math.radians(latitude)
    lat = 111132.954 - 559.822 * math.cos(2 * phi) + 1.175 * math.cos(4 * phi)
    lon = 111412.84 * math.cos(phi) - 93.5 * math.cos(3 * phi) + 0.118 * math.cos(5 * phi)
    return max(lon, 0.0), lat


def lzw_decode(data: bytes, out: Any = None) -> bytes:
    """Decode one TIFF LZW strip or tile (TIFF 6.0, section 13: MSB-first codes of 9 to 12 bits).

    Codes widen one code early, as TIFF writers do (at 511, 1023, 2047);
    256 clears the table and 257 ends the data (a missing end code is
    tolerated, as libtiff does). ``out`` is accepted for tifffile's decoder
    interface and ignored. This is a sequential decoder (a loop over codes,
    not over grid cells); imagecodecs' compiled one is used when present.
    Raises ``ValueError`` for old-style (pre-6.0) LZW or a corrupt stream.
    """
    if data[:2] == b"\x00\x01":
        raise ValueError("old-style (pre-TIFF 6.0) LZW is not supported")
    table: list[bytes] = [bytes((i,)) for i in range(256)] + [b"", b""]
    result = bytearray()
    buf = nbits = pos = 0
    width = 9
    prev = b""
    size = len(data)
    while True:
        while nbits < width:
            if pos >= size:
                return bytes(result)
            buf = (buf << 8) | data[pos]
            pos += 1
            nbits += 8
        nbits -= width
        code = buf >> nbits
        buf &= (1 << nbits) - 1
        if code == 256:
            del table[258:]
            width = 9
            prev = b""
            continue
        if code == 257:
            return bytes(result)
        if not prev:
            if code > 255:
                raise ValueError("corrupt LZW data: the first code after a clear is not a literal")
            prev = table[code]
            result += prev
            continue
        if code < len(table):
            entry = table[code]
            table.append(prev + entry[:1])
        elif code == len(table):
            entry = prev + prev[:1]
            table.append(entry)
        else:
            raise ValueError("corrupt LZW data: a code beyond the table")
        result += entry
        prev = entry
        if len(table) >= (1 << width) - 1 and width < 12:
            width += 1


def fill_nodata(
    heights: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_], passes: int = FILL_PASSES
) -> npt.NDArray[np.float32]:
    """Fill the cells where ``mask`` is true: inward neighbour means, then the lowest valid height.

    Parameters
    ----------
    heights : ndarray of float32, shape (rows, cols)
        Heights; the values under ``mask`` are ignored.
    mask : ndarray of bool, shape (rows, cols)
        Nodata cells.
    passes : int
        Passes of the neighbour-mean fill (each pass fills the cells that
        touch a valid or already-filled cell with the mean of those 4-neighbours).

    Returns
    -------
    ndarray of float32, shape (rows, cols)
        A copy with every masked cell filled; unmasked cells unchanged.

    Raises
    ------
    ValueError
        If every cell is masked.
    """
    if mask.all():
        raise ValueError("every cell is nodata: the file holds no heights")
    h = np.where(mask, np.float32(0.0), heights).astype(np.float32)
    known = ~mask
    lowest = np.float32(h[known].min())
    for _ in range(passes):
        if known.all():
            break
        total = np.zeros(h.shape, np.float64)
        count = np.zeros(h.shape, np.int32)
        weights = known.astype(np.int32)
        values = np.where(known, h, 0.0)
        total[1:, :] += values[:-1, :]
        count[1:, :] += weights[:-1, :]
        total[:-1, :] += values[1:, :]
        count[:-1, :] += weights[1:, :]
        total[:, 1:] += values[:, :-1]
        count[:, 1:] += weights[:, :-1]
        total[:, :-1] += values[:, 1:]
        count[:, :-1] += weights[:, 1:]
        edge = ~known & (count > 0)
        if not edge.any():
            break
        h[edge] = (total[edge] / count[edge]).astype(np.float32)
        known = known | edge
    h[~known] = lowest
    return h


def _geokeys(directory: tuple[int, ...] | None) -> dict[int, int]:
    """The SHORT-valued GeoKeys held in the GeoKeyDirectoryTag itself (TIFFTagLocation 0)."""
    keys: dict[int, int] = {}
    if not directory or len(directory) < 4:
        return keys
    count = directory[3]
    for i in range(count):
        entry = directory[4 + 4 * i : 8 + 4 * i]
        if len(entry) == 4 and entry[1] == 0:
            keys[entry[0]] = entry[3]
    return keys


def _tifffile() -> Any:
    """The tifffile module: installed (the extension's wheel in Blender), or else the wheel in this source tree."""
    try:
        import tifffile
    except ImportError:
        wheels = sorted((Path(__file__).resolve().parents[2] / "wheels").glob("tifffile-*.whl"))
        if not wheels:
            raise ImportError("reading TIFF needs the tifffile package (the extension ships it in wheels/)") from None
        sys.path.append(str(wheels[-1]))  # a pure-Python wheel is importable as a zip
        import tifffile
    return tifffile


def _register_lzw(tifffile: Any) -> None:
    """Give tifffile an LZW decoder when the compiled imagecodecs package is missing."""
    try:
        import imagecodecs  # noqa: F401  (tifffile uses it directly when present)
    except ImportError:
        tifffile.TIFF.DECOMPRESSORS._codecs.setdefault(5, lzw_decode)


def read_elevation(path: str, check_size: Callable[[int, int], None] | None = None) -> Elevation:
    """Read a single-band (Geo)TIFF as an :class:`Elevation`: heights in metres, nodata filled.

    Parameters
    ----------
    path : str
        A TIFF or BigTIFF file holding one band (grey) of integers or floats.
    check_size : callable, optional
        ``check_size(rows, cols)`` runs on the size from the header, before
        any pixel is decoded (to refuse a raster too large for memory).

    Returns
    -------
    Elevation

    Raises
    ------
    ValueError
        If the file is cut short (its strips or tiles run past its end), is a
        colour or palette image (RGB whose channels differ), uses a compression or predictor that
        cannot be decoded here, holds only nodata, or Inf heights.
    """
    tifffile = _tifffile()
    name = os.path.basename(path)
    try:
        check_image(path)
    except (ValueError, OSError) as err:
        raise ValueError(f"{name} cannot be read: {err}") from None
    _register_lzw(tifffile)
    try:
        with tifffile.TiffFile(path) as tif:
            page = tif.pages.first
            if page.photometric == 3:
                raise ValueError(f"{name} is a palette (indexed colour) image: a heightmap must be greyscale")
            bands = page.samplesperpixel
            if page.shape[:2] != (page.imagelength, page.imagewidth) or len(page.shape) != (2 if bands == 1 else 3):
                raise ValueError(
                    f"{name} holds an image of shape {page.shape}: Orogen reads one band, or grey stored as RGB"
                )
            if page.predictor == 3:
                try:
                    import imagecodecs  # noqa: F401
                except ImportError:
                    raise ValueError(
                        f"{name} uses the floating-point predictor, which needs the imagecodecs "
                        "package: re-save it with gdal_translate -co PREDICTOR=1 (or 2)"
                    ) from None
            if page.dtype is None or page.dtype.kind not in "iuf":
                raise ValueError(f"{name} holds {page.dtype} samples, not integers or floats")
            rows, cols = page.imagelength, page.imagewidth
            if check_size is not None:
                check_size(rows, cols)
            values = page.asarray()
            if bands > 1:  # RGB(A): grey only, and then its first channel
                colour = values[..., :3]
                if not (colour == colour[..., :1]).all():
                    raise ValueError(
                        f"{name} is a colour image (its red, green and blue differ): a heightmap "
                        "must be greyscale; convert it to grey first"
                    )
                values = values[..., 0]
            tags = {
                tag.code: tag.value for tag in page.tags.values() if tag.code in (33550, 33922, 34264, 34735, 42113)
            }
    except ValueError:
        raise
    except Exception as err:  # noqa: BLE001 - tifffile raises many kinds on a foreign or damaged file
        raise ValueError(f"{name} cannot be read as a TIFF raster: {str(err)[:200]}") from None
    values = np.asarray(values)
    if values.dtype.kind == "f" and np.isinf(values).any():
        raise ValueError(f"{name} holds Inf heights")
    heights = values.astype(np.float32)
    mask = np.isnan(heights)
    nodata_value = None
    text = tags.get(42113)
    if isinstance(text, str) and text.strip().strip("\x00"):
        try:
            nodata_value = float(text.strip().strip("\x00"))
        except ValueError:
            raise ValueError(f"{name}: its GDAL_NODATA tag {text[:40]!r} is not a number") from None
        if math.isnan(nodata_value):
            nodata_value = None  # NaN cells are masked already
        elif values.dtype.kind == "f":
            mask |= values == values.dtype.type(nodata_value)  # compared in the file's own precision
        elif nodata_value.is_integer() and np.iinfo(values.dtype).min <= nodata_value <= np.iinfo(values.dtype).max:
            mask |= values == int(nodata_value)
    nodata = int(mask.sum())
    if nodata:
        heights = fill_nodata(heights, mask)
    keys = _geokeys(tags.get(34735))
    z_unit = _UNITS.get(keys.get(4099, 9001), 1.0)
    if z_unit != 1.0:
        heights = heights * np.float32(z_unit)
    cell, geographic, latitude = _pixel_size(tags, keys, rows)
    return Elevation(heights.astype(np.float32), nodata, nodata_value, cell, geographic, latitude)


def _pixel_size(
    tags: dict[int, Any], keys: dict[int, int], rows: int
) -> tuple[tuple[float, float] | None, bool, float | None]:
    """Pixel size in metres, whether it came in degrees, and the centre latitude used."""
    scale = tags.get(33550)
    transform = tags.get(34264)
    if scale is not None and len(scale) >= 2:
        sx, sy = abs(float(scale[0])), abs(float(scale[1]))
        tie = tags.get(33922)  # (i, j, k, x, y, z): raster point (i, j) is model point (x, y)
        centre_y = float(tie[4]) - (rows / 2.0 - float(tie[1])) * sy if tie is not None and len(tie) >= 6 else None
    elif transform is not None and len(transform) >= 16:
        sx, sy = math.hypot(transform[0], transform[4]), math.hypot(transform[1], transform[5])
        centre_y = float(transform[7]) + transform[5] * rows / 2.0
    else:
        return None, False, None
    if not (math.isfinite(sx) and math.isfinite(sy) and sx > 0 and sy > 0):
        return None, False, None
    if keys.get(1024) == 2:  # geographic: degrees
        if centre_y is None or not -90.0 <= centre_y <= 90.0:
            return None, True, None
        lon_m, lat_m = metres_per_degree(centre_y)
        return (sx * lon_m, sy * lat_m), True, centre_y
    unit = _UNITS.get(keys.get(3076, 9001), 1.0)
    return (sx * unit, sy * unit), False, None


# --- a DEM's real scale on a terrain ------------------------------------------------------------------------------
def dem_extent(values: npt.NDArray[np.float32], dem: Elevation) -> tuple[float, float]:
    """Width and height (metres) of a terrain that keeps a georeferenced DEM's real scale.

    ``values`` are the DEM's heights (``float32 (rows, cols)``, metres). The
    height is their relief (highest minus lowest); the width spans
    ``max(rows, cols) - 1`` cells of the DEM's pixel size. A terrain's cells
    are square: where the DEM's are not (a raster in degrees away from the
    equator), the side is their geometric mean, which keeps the area.

    Raises
    ------
    ValueError
        When the extent is beyond a terrain's bounds (0.001 m to 1000 km wide, up to 100 km of relief).
    """
    assert dem.cell_size is not None
    dx, dy = dem.cell_size
    rows, cols = values.shape
    width = math.sqrt(dx * dy) * (max(rows, cols) - 1)
    height = float(values.max()) - float(values.min())
    if not 0.001 <= width <= 1.0e6 or height > 1.0e5:
        raise ValueError(
            f"the DEM spans {width:.6g} m with a relief of {height:.6g} m; a terrain is 0.001 m to "
            "1000 km wide with up to 100 km of relief"
        )
    return width, height


def dem_record(values: npt.NDArray[np.float32], dem: Elevation | None) -> dict[str, Any]:
    """What a terrain records of the DEM it was imported from: its heights' range in metres
    (``elevation_range_m``), the nodata cells filled and, when georeferenced, its cell size in metres
    (``dem_cell_size_m``); ``{}`` without a DEM."""
    if dem is None:
        return {}
    record: dict[str, Any] = {
        "elevation_range_m": [float(values.min()), float(values.max())],
        "nodata_cells": dem.nodata,
    }
    if dem.cell_size is not None:
        record["dem_cell_size_m"] = list(dem.cell_size)
    return record


def dem_summary(values: npt.NDArray[np.float32], dem: Elevation) -> str:
    """One line for an import's report: the DEM's heights, its cells (made square at their geometric mean when
    they are not) and the nodata filled."""
    parts = [
        f"heights {float(values.min()):.6g} to {float(values.max()):.6g}" + (" m" if dem.cell_size is not None else "")
    ]
    if dem.cell_size is not None:
        dx, dy = dem.cell_size
        cells = f"cells {dx:.4g} x {dy:.4g} m"
        if dem.geographic:
            cells += f" (from degrees at latitude {dem.latitude:.4g})"
        if abs(dx - dy) > 0.01 * max(dx, dy):
            cells += f", made square at {math.sqrt(dx * dy):.4g} m"
        parts.append(cells)
    if dem.nodata:
        value = "" if dem.nodata_value is None else f" ({dem.nodata_value:g})"
        parts.append(f"{dem.nodata} nodata cells{value} filled from their neighbours")
    return "Imported DEM: " + "; ".join(parts)
