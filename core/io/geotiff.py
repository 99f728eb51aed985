"""Elevation rasters from (Geo)TIFF files, as GIS users have them: heights in metres, nodata filled and counted.

The pixels are decoded by tifffile (Christoph Gohlke's pure-Python TIFF
library, shipped with the extension as a wheel): float32, int16 and other
integer rasters, stripped or tiled, uncompressed, PackBits, DEFLATE or LZW
(:data:`COMPRESSIONS`), with or without GDAL's horizontal differencing
predictor; one band, grey stored as RGB, or either with an alpha band (its
zero cells are nodata, as GDAL reads an alpha band), the bands interleaved
or planar (PlanarConfiguration 1 or 2). Any other compression
(LZMA, Zstandard, JPEG, ...) is refused before a byte is decoded, naming the
file and the compressions that are read. The floating-point predictor
(``PREDICTOR=3``) needs the compiled imagecodecs package and is refused
without it, with a message saying how to re-save.

Decompression is bounded: while Orogen reads a file, tifffile decodes
DEFLATE with the standard library's zlib through :func:`inflate`, LZW with
:func:`lzw_decode` (from the TIFF 6.0 specification, section 13) and
PackBits with :func:`unpack_bits`, each capped at the bytes the header
declares for a strip or tile (RowsPerStrip, capped at the image length, or
the tile size, samples per pixel, sample size) and refusing a strip that
would decode past it, so a small file cannot inflate to gigabytes. A tile
side larger than both the image's rounded up to a multiple of 16 (TIFF 6.0
requires tile sides that are multiples of 16) and 1024 (GDAL's COG driver
writes 512 x 512 tiles for any image) is refused unread: a 64 x 64 image
with 16384 x 16384 tiles would otherwise decode a gigabyte per tile. The
memory guards run before any of this: ``check_size`` on the image's rows
and columns, ``check_bytes`` on what the decoder allocates at most (every
strip or tile whole, padding included, and the image they are copied into).

The page read is the full-resolution raster: reduced-resolution images and
masks (``NewSubfileType`` bits 0 and 2: thumbnails, overviews) are skipped and
the largest other page is read; a file with several of that size, or none, is
refused, and so is one whose directory gives a tag (or a GeoKey) twice, since
readers differ on which one holds.

Georeferencing, from the GeoTIFF 1.1 tags (OGC 19-008r4), as GDAL reads them:

- pixel size from ``ModelPixelScaleTag`` (33550), or from
  ``ModelTransformationTag`` (34264); a rotation or shear, a pixel size of 0,
  NaN or Inf is refused naming the tag; a south-up raster (a positive row
  step: negative ScaleY, as the specification says, or a positive ``e``) is
  flipped so that row 0 is north;
- ``GTModelTypeGeoKey`` (1024) 2 = geographic: the pixel size is in degrees
  (or the ``GeogAngularUnitsGeoKey`` unit) and is converted to metres at the
  raster's centre latitude with the WGS 84 series for the length of a degree
  of latitude and of longitude; latitudes beyond ±90° are refused;
- ``ProjLinearUnitsGeoKey`` (3076), ``VerticalUnitsGeoKey`` (4099), a vertical
  CRS (4096) not in metres up, and the band's unit: any EPSG length unit
  (kilometres, feet, US survey feet, ...) converted to metres;
- the band's scale and offset (``GDAL_METADATA`` 42112, or GeoTIFF 1.1's Z
  scale and tie point with a vertical CRS): ``value * scale + offset``;
- nodata from GDAL's ``GDAL_NODATA`` tag (42113), plus NaN in float rasters.

A terrain's cells are square: :func:`dem_square_grid` resamples a DEM whose
cells are not (a raster in degrees) onto square cells over its true extents.

Nodata cells are filled by a stated rule (:func:`fill_nodata`): each pass
gives every nodata cell next to valid ones the mean of its valid
4-neighbours, inward from the edges of a hole, for up to
:data:`FILL_PASSES` passes; cells still empty after that take the lowest
valid height.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import numpy as np
import numpy.typing as npt

from ..elementary import sincos
from ..heightmap import check_shape
from ..resample import resample_points
from .image_headers import check_file
from .tiff_codecs import COMPRESSIONS, DecodeLimitError, inflate, lzw_decode, segment_grid, unpack_bits

__all__ = [
    "FILL_PASSES",
    "MAX_PAGES",
    "Elevation",
    "dem_extent",
    "dem_record",
    "dem_square_grid",
    "dem_summary",
    "fill_nodata",
    "metres_per_degree",
    "read_elevation",
]

#: Passes of the inward neighbour-mean fill before the remaining nodata cells take the lowest height.
FILL_PASSES = 64


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
    page, pages : int
        The index of the image (page) read, of the ``pages`` the file holds.
    scale, offset : float
        The band's scale and offset applied (``value * scale + offset``, before ``unit``).
    unit : float
        Metres per unit of the file's heights, applied (negative for depths, which are negated).
    flipped : str
        ``"north-south"``, ``"east-west"``, both joined by ``" and "``, or ``""``: the flips that put row 0
        north and column 0 west.
    note : str
        What the file holds that was not read, for the import's report (``""`` when nothing): ground control
        points (tie points without a pixel scale), which leave the raster not georeferenced.
    """

    heights: npt.NDArray[np.float32]
    nodata: int
    nodata_value: float | None
    cell_size: tuple[float, float] | None
    geographic: bool
    latitude: float | None
    page: int = 0
    pages: int = 1
    scale: float = 1.0
    offset: float = 0.0
    unit: float = 1.0
    flipped: str = ""
    note: str = ""


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
    cos = [sincos(k * phi)[1] for k in range(6)]  # core.elementary: the same bits on every CPU
    lat = 111132.954 - 559.822 * cos[2] + 1.175 * cos[4]
    lon = 111412.84 * cos[1] - 93.5 * cos[3] + 0.118 * cos[5]
    return max(lon, 0.0), lat


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


#: EPSG length units (code: metres), as in the EPSG dataset (PROJ's proj.db, ``unit_of_measure``).
_LENGTH_UNITS: dict[int, float] = {
    1025: 0.001,  # millimetre
    1033: 0.01,  # centimetre
    9001: 1.0,  # metre
    9002: 0.3048,  # foot
    9003: 1200.0 / 3937.0,  # US survey foot
    9005: 0.3047972654,  # Clarke's foot
    9014: 1.8288,  # fathom
    9030: 1852.0,  # nautical mile
    9031: 1.0000135965,  # German legal metre
    9033: 20.11684023368047,  # US survey chain
    9034: 0.2011684023368047,  # US survey link
    9035: 1609.3472186944375,  # US survey mile
    9036: 1000.0,  # kilometre
    9037: 0.9143917962,  # Clarke's yard
    9038: 20.1166195164,  # Clarke's chain
    9039: 0.201166195164,  # Clarke's link
    9040: 0.9143984146160287,  # British yard (Sears 1922)
    9041: 0.3047994715386762,  # British foot (Sears 1922)
    9042: 20.116765121552632,  # British chain (Sears 1922)
    9043: 0.2011676512155263,  # British link (Sears 1922)
    9050: 0.9143992,  # British yard (Benoit 1895 A)
    9051: 0.3047997333333333,  # British foot (Benoit 1895 A)
    9052: 20.1167824,  # British chain (Benoit 1895 A)
    9053: 0.201167824,  # British link (Benoit 1895 A)
    9060: 0.9143992042898124,  # British yard (Benoit 1895 B)
    9061: 0.30479973476327077,  # British foot (Benoit 1895 B)
    9062: 20.116782494375872,  # British chain (Benoit 1895 B)
    9063: 0.2011678249437587,  # British link (Benoit 1895 B)
    9070: 0.30480083333333335,  # British foot (1865)
    9080: 0.30479951024814694,  # Indian foot
    9081: 0.30479841,  # Indian foot (1937)
    9082: 0.3047996,  # Indian foot (1962)
    9083: 0.3047995,  # Indian foot (1975)
    9084: 0.9143985307444408,  # Indian yard
    9085: 0.91439523,  # Indian yard (1937)
    9086: 0.9143988,  # Indian yard (1962)
    9087: 0.9143985,  # Indian yard (1975)
    9093: 1609.344,  # statute mile
    9094: 0.3047997101815088,  # Gold Coast foot
    9095: 0.3048007491,  # British foot (1936)
    9096: 0.9144,  # yard
    9097: 20.1168,  # chain
    9098: 0.201168,  # link
    9099: 0.914398,  # British yard (Sears 1922 truncated)
    9300: 0.30479933333333337,  # British foot (Sears 1922 truncated)
    9301: 20.116756,  # British chain (Sears 1922 truncated)
    9302: 0.20116756,  # British link (Sears 1922 truncated)
}

#: EPSG angle units a geographic raster may be in (code: degrees).
_ANGLE_UNITS: dict[int, float] = {
    9101: 180.0 / math.pi,  # radian
    9102: 1.0,  # degree
    9103: 1.0 / 60.0,  # arc-minute
    9104: 1.0 / 3600.0,  # arc-second
    9105: 0.9,  # grad
    9122: 1.0,  # degree (supplier to define representation)
}

#: EPSG vertical CRSs whose axis is not metres up (code: (length unit, axis points down)); every other
#: vertical CRS in the EPSG dataset is metres up. From PROJ's proj.db (``vertical_crs`` and its ``axis``).
_VERTICAL_CRS: dict[int, tuple[int, bool]] = {
    5336: (9001, True), 5612: (9001, True), 5614: (9002, True), 5702: (9003, False), 5706: (9001, True),
    5715: (9001, True), 5734: (9001, True), 5739: (9001, True), 5754: (9095, False), 5789: (9001, True),
    5831: (9001, True), 5861: (9001, True), 5862: (9001, True), 5863: (9001, True), 5864: (9001, True),
    5865: (9001, True), 5866: (9001, True), 5867: (9001, True), 5873: (9001, True), 6130: (9002, False),
    6131: (9002, False), 6132: (9002, False), 6357: (9001, True), 6358: (9003, True), 6359: (9003, True),
    6360: (9003, False), 7976: (9001, True), 8050: (9002, False), 8051: (9002, True), 8052: (9003, False),
    8053: (9003, True), 8228: (9002, False), 8358: (9001, True), 8378: (9001, True), 8897: (9002, True),
    9287: (9001, True), 9288: (9001, True), 9672: (9001, True),
}  # fmt: skip

#: Band unit names GDAL writes (``GDAL_METADATA`` role ``unittype``), lower case: their EPSG length unit.
_UNIT_NAMES: dict[str, int] = {
    **dict.fromkeys(("m", "metre", "meter", "metres", "meters"), 9001),
    **dict.fromkeys(("ft", "foot", "feet", "international foot"), 9002),
    **dict.fromkeys(("us survey foot", "ftus", "us-ft", "us_survey_foot", "foot_us"), 9003),
    **dict.fromkeys(("km", "kilometre", "kilometer", "kilometres", "kilometers"), 9036),
}

_KEY_NAMES = {
    1024: "GTModelTypeGeoKey",
    1025: "GTRasterTypeGeoKey",
    2054: "GeogAngularUnitsGeoKey",
    2055: "GeogAngularUnitSizeGeoKey",
    3076: "ProjLinearUnitsGeoKey",
    3077: "ProjLinearUnitSizeGeoKey",
    4096: "VerticalCSTypeGeoKey",
    4099: "VerticalUnitsGeoKey",
}
_USER_DEFINED = 32767


def _key(code: int) -> str:
    return f"{_KEY_NAMES.get(code, 'GeoKey')} ({code})"


def _geokeys(directory: Any, doubles: Any, name: str) -> tuple[dict[int, float], int]:
    """The SHORT and DOUBLE GeoKeys of a GeoKeyDirectoryTag (34735; DOUBLE ones from GeoDoubleParamsTag 34736),
    and the directory's minor key revision (1 for GeoTIFF 1.1). A key given twice is refused."""
    keys: dict[int, float] = {}
    if directory is None or len(directory) < 4:
        return keys, 0
    for i in range(int(directory[3])):
        entry = directory[4 + 4 * i : 8 + 4 * i]
        if len(entry) != 4:
            break
        code, location, count, value = (int(v) for v in entry)
        if code in keys:
            raise ValueError(
                f"{name}: its GeoKeyDirectoryTag (34735) gives {_key(code)} twice; which one holds is undefined"
            )
        if location == 0:
            keys[code] = value
        elif location == 34736 and count == 1 and doubles is not None and value < len(doubles):
            keys[code] = float(doubles[value])
    return keys, int(directory[2])


def _band_metadata(text: Any, name: str) -> dict[str, str]:
    """The first band's ``scale``, ``offset`` and ``unittype`` items of GDAL's ``GDAL_METADATA`` tag (42112)."""
    if not isinstance(text, str) or not text.strip("\x00 \n"):
        return {}
    if len(text) > 1 << 20 or "<!doctype" in text.lower() or "<!entity" in text.lower():
        raise ValueError(f"{name}: its GDAL_METADATA tag (42112) is not the XML GDAL writes")
    try:
        root = ElementTree.fromstring(text.strip("\x00 \n"))
    except ElementTree.ParseError as err:
        raise ValueError(f"{name}: its GDAL_METADATA tag (42112) is not valid XML ({err})") from None
    items: dict[str, str] = {}
    for item in root.iter("Item"):
        role = (item.get("role") or "").lower()
        if item.get("sample") != "0" or role not in ("scale", "offset", "unittype"):
            continue
        if role in items:
            raise ValueError(f"{name}: its GDAL_METADATA tag (42112) gives band 1 two {role.upper()} items")
        items[role] = (item.text or "").strip()
    return items


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


def _segment_grid(page: Any, name: str) -> tuple[int, int]:
    """The padded grid of pixels the page's strips or tiles decode to (:func:`segment_grid`), checked."""
    try:
        if page.is_tiled:
            tile = (int(page.tilewidth), int(page.tilelength), max(int(page.tiledepth), 1))
            return segment_grid(page.imagelength, page.imagewidth, tile=tile)
        return segment_grid(page.imagelength, page.imagewidth, rows_per_strip=int(page.rowsperstrip or 0))
    except ValueError as err:
        raise ValueError(f"{name} cannot be read: {err}") from None


def _decode_bytes(page: Any, grid: tuple[int, int]) -> int:
    """The most bytes decoding ``page`` allocates: its strips or tiles whole (``grid``, all samples) and the
    image of ``rows x cols`` they are copied into."""
    sample = int(page.samplesperpixel) * int(page.dtype.itemsize)
    return (grid[0] * grid[1] + int(page.imagelength) * int(page.imagewidth)) * sample


def _segment_bytes(page: Any) -> int:
    """The most bytes one strip or tile of ``page`` decodes to, from its header (TIFF 6.0: RowsPerStrip capped at
    ImageLength, or TileWidth x TileLength checked by :func:`segment_grid`, the samples per pixel when they are
    interleaved, the sample size)."""
    samples = page.samplesperpixel if page.planarconfig == 1 else 1
    if page.is_tiled:
        pixels = page.tilewidth * page.tilelength
    else:
        pixels = min(page.rowsperstrip or page.imagelength, page.imagelength) * page.imagewidth
    return max(int(pixels) * int(samples) * int(page.dtype.itemsize), 1)


@contextlib.contextmanager
def _bounded_decoders(tifffile: Any, segment_bytes: int) -> Iterator[None]:
    """Make tifffile decode the compressions of :data:`COMPRESSIONS` with Orogen's capped decoders.

    Each strip or tile stops at the size its header declares (tifffile passes
    it as ``out``, else ``segment_bytes``) and is refused past it, whatever
    decoder tifffile would otherwise use (imagecodecs', or its own, which
    inflate without limit). tifffile's table is restored afterwards.
    """

    def cap(out: Any) -> int:
        return min(out, segment_bytes) if isinstance(out, int) and out > 0 else segment_bytes

    def lzw(data: bytes, out: Any = None) -> bytes:
        return lzw_decode(data, max_length=cap(out))

    def deflate(data: bytes, out: Any = None) -> bytes:
        return inflate(data, max_length=cap(out))

    def packbits(data: bytes, out: Any = None) -> bytes:
        return unpack_bits(data, max_length=cap(out))

    codecs = tifffile.TIFF.DECOMPRESSORS._codecs
    ours = {5: lzw, 8: deflate, 32946: deflate, 32773: packbits}
    saved = {key: codecs[key] for key in ours if key in codecs}
    codecs.update(ours)
    try:
        yield
    finally:
        for key in ours:
            if key in saved:
                codecs[key] = saved[key]
            else:
                codecs.pop(key, None)


def _compression_name(tifffile: Any, code: int) -> str:
    try:
        return f"{tifffile.COMPRESSION(code).name} compression ({code})"
    except ValueError:
        return f"compression {code}"


#: Image file directories (pages) of a TIFF looked at for the full-resolution raster.
MAX_PAGES = 64


def _page_kind(page: Any) -> int:
    """NewSubfileType (254) bits of a page, with the old SubfileType (255) mapped onto them."""
    kind = int(page.subfiletype or 0)
    old = page.tags.valueof(255)
    if old == 2:  # SubfileType 2: a reduced-resolution image
        kind |= 1
    return kind


def _select_page(tif: Any, name: str) -> tuple[Any, int, int]:
    """The page holding the file's full-resolution raster, its index and the count of pages looked at.

    Reduced-resolution images (NewSubfileType bit 0: thumbnails, overviews) and masks (bit 2) are not
    rasters; of the others the largest is the raster. Several full-resolution images of that size, a
    directory that gives a tag twice, or no full-resolution image at all are refused.
    """
    pages = []
    for index in range(MAX_PAGES + 1):
        try:
            page = tif.pages[index]
        except IndexError:
            break
        if index == MAX_PAGES:
            raise ValueError(f"{name} holds more than {MAX_PAGES} images (pages): Orogen reads a DEM of one raster")
        repeated = sorted((code, n) for code, n in Counter(tag.code for tag in page.tags.values()).items() if n > 1)
        if repeated:
            code, n = repeated[0]
            raise ValueError(
                f"{name}: its image file directory {index + 1} gives tag {code} ({_tag_name(code)}) {n} times; "
                "which one holds is undefined (readers differ), so the file is refused"
            )
        pages.append(page)
    full = [(i, p) for i, p in enumerate(pages) if not _page_kind(p) & 5]
    if not full:
        raise ValueError(
            f"{name} holds only reduced-resolution or mask images (NewSubfileType 254 bit 0 or 2 on every page): "
            "it has no full-resolution raster to read"
        )
    largest = max(p.imagelength * p.imagewidth for _, p in full)
    biggest = [(i, p) for i, p in full if p.imagelength * p.imagewidth == largest]
    if len(biggest) > 1:
        listed = ", ".join(str(i + 1) for i, _ in biggest)
        raise ValueError(
            f"{name} holds {len(biggest)} full-resolution images of {biggest[0][1].imagewidth} x "
            f"{biggest[0][1].imagelength} pixels (pages {listed}): Orogen reads a DEM of one raster; extract "
            "one first (gdal_translate GTIFF_DIR:N:file.tif out.tif)"
        )
    index, page = biggest[0]
    return page, index, len(pages)


def _tag_name(code: int) -> str:
    """The TIFF tag's name (tifffile's registry), or ``"unknown"``."""
    name = _tifffile().TIFF.TAGS.get(code)
    return str(name) if name else "unknown"


def _check_chunks(page: Any, size: int, name: str) -> None:
    """Every strip or tile the page needs is listed and lies inside the file (``size`` bytes)."""
    rows, cols = page.imagelength, page.imagewidth
    planes = page.samplesperpixel if page.planarconfig == 2 else 1
    if page.is_tiled:
        tw, tl = page.tilewidth, page.tilelength
        needed = -(-cols // tw) * -(-rows // tl) * planes * max(1, -(-page.imagedepth // max(page.tiledepth, 1)))
        what = "tiles"
    else:
        per_strip = min(page.rowsperstrip or rows, rows)
        needed = -(-rows // per_strip) * planes
        what = "strips"
    offsets, counts = page.dataoffsets, page.databytecounts
    if len(offsets) < needed or len(counts) != len(offsets):
        raise ValueError(f"{name} cannot be read: its raster has {len(offsets)} {what}; its size needs {needed}")
    for offset, length in zip(offsets, counts, strict=True):
        if offset + length > size:
            raise ValueError(
                f"{name} cannot be read: the TIFF file is cut short: its {what} run past the end of the file "
                f"({size} bytes)"
            )


def read_elevation(
    path: str,
    check_size: Callable[[int, int], None] | None = None,
    *,
    check_bytes: Callable[[int], None] | None = None,
) -> Elevation:
    """Read a single-band (Geo)TIFF as an :class:`Elevation`: heights in metres, row 0 north, nodata filled.

    Parameters
    ----------
    path : str
        A TIFF or BigTIFF file holding one band (grey) of integers or floats,
        grey stored as RGB, or either with an alpha band (zero alpha is nodata),
        the bands interleaved or planar.
    check_size : callable, optional
        ``check_size(rows, cols)`` runs on the size from the header, before
        any pixel is decoded (to refuse a raster too large for memory).
    check_bytes : callable, optional
        ``check_bytes(need)`` runs before any pixel is decoded on the bytes
        the decoder allocates at most: every strip or tile decoded whole
        (the grid of :func:`core.io.tiff_codecs.segment_grid`: strips x
        RowsPerStrip rows, or tiles x the tile size; samples per pixel,
        sample size) plus the image it is copied into. Raise ``ValueError``
        to refuse (the message is given after the file's name).

    Returns
    -------
    Elevation
        The file's full-resolution raster (the largest page that is not a
        reduced-resolution image or a mask), its band scale and offset
        applied (``value * scale + offset``, as GDAL), its height unit
        converted to metres, flipped so that row 0 is north and column 0 west.

    Raises
    ------
    ValueError
        If the file is cut short (its strips or tiles run past its end), has
        tiles larger than the image (:func:`core.io.tiff_codecs.segment_grid`), is a
        colour or palette image (RGB whose channels differ), uses a compression other than
        :data:`COMPRESSIONS` or a predictor that cannot be decoded here, has a strip or tile that
        decodes past the size its header declares, holds only nodata, or Inf heights; if it gives a
        tag or GeoKey twice, has no full-resolution page or several, a rotated or sheared
        georeferencing, a pixel size of 0, NaN or Inf, a latitude beyond ±90°, a unit Orogen does not
        know, or a band scale of 0.
    """
    tifffile = _tifffile()
    name = os.path.basename(path)
    check_file(path, formats=("TIFF",))  # a regular file, whole, at most MAX_IMAGE_SIDE a side (ValueError)
    try:
        size = os.path.getsize(path)
    except OSError as err:
        raise ValueError(f"{name} cannot be read: {err.strerror or err}") from None
    try:
        with tifffile.TiffFile(path) as tif:
            page, index, count = _select_page(tif, name)
            _check_chunks(page, size, name)
            grid = _segment_grid(page, name)  # refuses tiles larger than the image, before anything decodes
            if page.photometric == 3:
                raise ValueError(f"{name} is a palette (indexed colour) image: a heightmap must be greyscale")
            if page.compression not in COMPRESSIONS:
                raise ValueError(
                    f"{name} uses {_compression_name(tifffile, page.compression)}: Orogen reads TIFFs that are "
                    "uncompressed or use LZW, DEFLATE or PackBits; re-save it with gdal_translate -co COMPRESS=DEFLATE"
                )
            bands = page.samplesperpixel
            grid_shape = (page.imagelength, page.imagewidth)
            if bands == 1:
                expected: tuple[int, ...] = grid_shape
            elif page.planarconfig == 2:  # planar: each band stored whole, one after the other
                expected = (bands, *grid_shape)
            else:
                expected = (*grid_shape, bands)
            if tuple(page.shape) != expected:
                raise ValueError(
                    f"{name} holds an image of shape {page.shape}: Orogen reads one band (grey), or grey stored "
                    "as RGB, either with an alpha band, interleaved or planar"
                )
            if page.predictor not in (1, 2, 3):
                raise ValueError(
                    f"{name} uses predictor {page.predictor}: Orogen reads none (1) and horizontal differencing (2); "
                    "re-save it with gdal_translate -co PREDICTOR=2"
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
            tags = {tag.code: tag.value for tag in page.tags.values() if tag.code in _GEO_TAGS}
            keys, revision = _geokeys(tags.get(34735), tags.get(34736), name)
            band = _band_metadata(tags.get(42112), name)
            geo = _georeference(tags, keys, (rows, cols), name)
            scale, offset, z_unit = _height_scale(tags, keys, band, revision, name)
            if check_size is not None:
                check_size(rows, cols)
            if check_bytes is not None:
                try:
                    check_bytes(_decode_bytes(page, grid))  # whole strips or tiles, padding included, and the image
                except ValueError as err:
                    raise ValueError(f"{name}: {err}") from None
            with _bounded_decoders(tifffile, _segment_bytes(page)):
                values = page.asarray()
            values, transparent = _grey(values, page, name)
    except DecodeLimitError as err:
        raise ValueError(f"{name} cannot be read: {err} (a damaged file or a decompression bomb)") from None
    except ValueError as err:
        if str(err).startswith(name):  # Orogen's own refusal, naming the file already
            raise
        raise ValueError(f"{name} cannot be read as a TIFF raster: {str(err)[:200]}") from None  # tifffile's
    except Exception as err:  # noqa: BLE001 - tifffile raises many kinds on a foreign or damaged file
        raise ValueError(f"{name} cannot be read as a TIFF raster: {str(err)[:200]}") from None
    values = np.asarray(values)
    if values.dtype.kind == "f" and np.isinf(values).any():
        raise ValueError(f"{name} holds Inf heights")
    mask = np.isnan(values) if values.dtype.kind == "f" else np.zeros(values.shape, bool)
    if transparent is not None:
        mask |= transparent
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
    factor = scale * z_unit
    if factor == 1.0 and offset == 0.0:
        heights = values.astype(np.float32)
    else:  # GDAL's unscaling, value * scale + offset, in float64; then the unit's metres
        with np.errstate(over="ignore", invalid="ignore"):
            heights = ((values.astype(np.float64) * scale + offset) * z_unit).astype(np.float32)
        if not np.isfinite(heights[~mask]).all():
            raise ValueError(
                f"{name}: its band scale {scale:g} and offset {offset:g} take heights beyond float32's range"
            )
    nodata = int(mask.sum())
    if nodata:
        heights = fill_nodata(heights, mask)
    if geo.flip_rows:
        heights = heights[::-1]
    if geo.flip_cols:
        heights = heights[:, ::-1]
    return Elevation(
        np.ascontiguousarray(heights, dtype=np.float32),
        nodata,
        nodata_value,
        geo.cell,
        geo.geographic,
        geo.latitude,
        page=index,
        pages=count,
        scale=scale,
        offset=offset,
        unit=z_unit,
        flipped=("north-south" if geo.flip_rows else "")
        + (" and " if geo.flip_rows and geo.flip_cols else "")
        + ("east-west" if geo.flip_cols else ""),
        note=geo.note,
    )


def _grey(values: npt.NDArray[Any], page: Any, name: str) -> tuple[npt.NDArray[Any], npt.NDArray[np.bool_] | None]:
    """The heights of a decoded page and, when it has an alpha band, the cells it makes transparent.

    One band is the heights. Grey with extra samples (grey + alpha): the
    first band, the others ignored. Planar bands (PlanarConfiguration 2,
    decoded as ``(bands, rows, cols)``) are read as the same bands
    interleaved. RGB(A): grey stored as colour, so red,
    green and blue must be equal (else ``ValueError``), and red is the
    heights. An alpha band (ExtraSamples 1 or 2, TIFF 6.0 section 18) marks
    its zero cells as nodata, as GDAL reads an alpha band as a mask.
    """
    bands = page.samplesperpixel
    if bands == 1:
        return values, None
    if page.planarconfig == 2:  # planar (bands, rows, cols): the same bands as interleaved, a view
        values = np.moveaxis(values, 0, -1)
    colour = 3 if page.photometric == 2 else 1
    if colour == 3:
        rgb = values[..., :3]
        if not (rgb == rgb[..., :1]).all():
            raise ValueError(
                f"{name} is a colour image (its red, green and blue differ): a heightmap "
                "must be greyscale; convert it to grey first"
            )
    extra = tuple(page.extrasamples or ())
    transparent = None
    if extra and extra[0] in (1, 2) and bands > colour:
        transparent = values[..., colour] == 0
    return values[..., 0], transparent


_GEO_TAGS = (33550, 33922, 34264, 34735, 34736, 42112, 42113)


@dataclass(frozen=True)
class _Georeference:
    cell: tuple[float, float] | None
    geographic: bool
    latitude: float | None
    flip_rows: bool
    flip_cols: bool
    note: str = ""


#: What each georeferencing tag must hold, for messages.
_TAG_HOLDS = {
    33550: ("ModelPixelScaleTag (33550)", 3, "three numbers (ScaleX, ScaleY, ScaleZ)"),
    33922: ("ModelTiepointTag (33922)", 6, "six numbers per tie point (I, J, K, X, Y, Z)"),
    34264: ("ModelTransformationTag (34264)", 16, "sixteen numbers (a 4 x 4 matrix)"),
}


def _numbers(value: Any, code: int, name: str) -> tuple[float, ...] | None:
    """A georeferencing tag's values as a tuple of floats (tifffile gives one value as a bare number), at least
    as many as the tag needs (two of ModelPixelScaleTag's three, as GDAL reads it); ``None`` when absent."""
    if value is None:
        return None
    tag, least, holds = _TAG_HOLDS[code]
    items = value if isinstance(value, (tuple, list, np.ndarray)) else (value,)
    try:
        out = tuple(float(v) for v in items)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: its {tag} does not hold numbers; it must hold {holds}") from None
    if len(out) < (2 if code == 33550 else least):
        count = f"{len(out)} value" + ("" if len(out) == 1 else "s")
        raise ValueError(f"{name}: its {tag} holds {count}; it must hold {holds}")
    return out


def _finite(values: Any, indices: tuple[int, ...], tag: str, name: str) -> list[float]:
    out = [float(values[i]) for i in indices]
    bad = [v for v in out if not math.isfinite(v)]
    if bad:
        raise ValueError(f"{name}: its {tag} holds {bad[0]}; every term must be a finite number")
    return out


def _length_unit(keys: dict[int, float], code_key: int, size_key: int | None, name: str) -> float:
    """Metres per unit of a length-unit GeoKey (absent: metres); a user-defined unit takes its size key."""
    code = keys.get(code_key)
    if code is None:
        return 1.0
    if code == _USER_DEFINED and size_key is not None and size_key in keys:
        size = float(keys[size_key])
        if not (math.isfinite(size) and size > 0):
            raise ValueError(f"{name}: its {_key(size_key)} is {size}; it must be a positive number of metres")
        return size
    unit = _LENGTH_UNITS.get(int(code))
    if unit is None:
        raise ValueError(
            f"{name}: its {_key(code_key)} is {int(code)}, not an EPSG length unit Orogen knows (9001 metre, "
            "9002 foot, 9003 US survey foot, 9036 kilometre and the other EPSG lengths 1025 to 9302)"
        )
    return unit


def _georeference(tags: dict[int, Any], keys: dict[int, float], shape: tuple[int, int], name: str) -> _Georeference:
    """Pixel size in metres, whether it came in degrees, the centre latitude, and the flips to north-up.

    Raster (column i, row j) maps onto the model as ``x = x0 + i * step_x``, ``y = y0 + j * step_y``: from
    ModelPixelScaleTag (33550: ``step_x = ScaleX``, ``step_y = -ScaleY``, positive ScaleY north-up) and the
    first ModelTiepointTag (33922) point, or from ModelTransformationTag (34264, without rotation).
    """
    rows, cols = shape
    scale, tie, matrix = (_numbers(tags.get(code), code, name) for code in (33550, 33922, 34264))
    origin: tuple[float, float] | None = None
    if scale is not None:
        sx, sy = (float(v) for v in scale[:2])
        for axis, v in (("X", sx), ("Y", sy)):
            if not (math.isfinite(v) and v != 0.0):
                raise ValueError(
                    f"{name}: its ModelPixelScaleTag (33550) gives a pixel size in {axis} of {v}; it must be a "
                    "finite number other than 0"
                )
        step_x, step_y = sx, -sy
        if tie is not None and len(tie) >= 6:
            i, j, x, y = _finite(tie, (0, 1, 3, 4), "ModelTiepointTag (33922)", name)
            origin = (x - i * step_x, y - j * step_y)
        if matrix is not None and len(matrix) >= 16:
            a, f, d, h = (float(matrix[k]) for k in (0, 5, 3, 7))
            same = a == step_x and f == step_y and (origin is None or (d, h) == origin)
            if not same or matrix[1] != 0 or matrix[4] != 0:
                raise ValueError(
                    f"{name} holds both a ModelPixelScaleTag (33550) and a ModelTransformationTag (34264), "
                    "and they disagree (GeoTIFF allows only one)"
                )
    elif matrix is not None:
        a, b, d, e, f, h = _finite(matrix, (0, 1, 3, 4, 5, 7), "ModelTransformationTag (34264)", name)
        if b != 0.0 or e != 0.0:
            raise ValueError(
                f"{name}: its ModelTransformationTag (34264) rotates or shears the raster (terms b = {b:g}, "
                f"e = {e:g}; both must be 0): Orogen reads north-up or south-up grids; resample it onto one "
                "first (gdalwarp)"
            )
        for axis, v in (("X", a), ("Y", f)):
            if v == 0.0:
                raise ValueError(
                    f"{name}: its ModelTransformationTag (34264) gives a pixel size in {axis} of 0; it must be "
                    "a finite number other than 0"
                )
        step_x, step_y, origin = a, f, (d, h)
    elif tie is not None:  # tie points alone: ground control points, which GDAL reads but does not warp
        points = len(tie) // 6
        return _Georeference(
            None,
            False,
            None,
            False,
            False,
            f"its {points} ground control point{'s' if points > 1 else ''} (ModelTiepointTag 33922 without a "
            "ModelPixelScaleTag) are not read: not georeferenced; warp it onto a grid first (gdalwarp) for its "
            "real scale",
        )
    else:
        return _Georeference(None, False, None, False, False)
    model = keys.get(1024)
    if model not in (None, 1, 2, _USER_DEFINED):
        raise ValueError(
            f"{name}: its GTModelTypeGeoKey (1024) is {model:g}; Orogen reads 1 (projected) or 2 (geographic)"
        )
    flip_rows, flip_cols = step_y > 0, step_x < 0
    if model != 2:
        unit = _length_unit(keys, 3076, 3077, name)
        return _Georeference((abs(step_x) * unit, abs(step_y) * unit), False, None, flip_rows, flip_cols)
    angle = keys.get(2054)
    if angle == _USER_DEFINED and 2055 in keys and math.isfinite(keys[2055]) and keys[2055] > 0:
        degrees = math.degrees(float(keys[2055]))
    elif angle is None:
        degrees = 1.0
    elif int(angle) in _ANGLE_UNITS:
        degrees = _ANGLE_UNITS[int(angle)]
    else:
        raise ValueError(
            f"{name}: its GeogAngularUnitsGeoKey (2054) is {angle:g}, not an angle unit Orogen knows (9102 degree, "
            "9101 radian, 9103 arc-minute, 9104 arc-second, 9105 grad)"
        )
    if origin is None:
        raise ValueError(
            f"{name} gives its pixel size in degrees but no ModelTiepointTag (33922): without its latitude the "
            "size in metres is unknown"
        )
    point = keys.get(1025) == 2  # RasterPixelIsPoint: raster (0, 0) is the first cell's centre
    span = abs(step_x) * degrees * ((cols - 1.0) if point else float(cols))  # cell edges (or centres, for points)
    if span > 360.0 + 1e-7:
        raise ValueError(
            f"{name} spans {span:.9g} degrees of longitude ({cols} columns of {abs(step_x) * degrees:.9g} degrees, "
            "from its pixel size); a raster spans at most 360"
        )
    first, last = (0.0, rows - 1.0) if point else (0.0, float(rows))
    ends = sorted((degrees * (origin[1] + first * step_y), degrees * (origin[1] + last * step_y)))
    if ends[0] < -90.0 - 1e-7 or ends[1] > 90.0 + 1e-7:
        raise ValueError(
            f"{name} spans latitudes {ends[0]:.9g} to {ends[1]:.9g} degrees (from its ModelTiepointTag 33922 and "
            "pixel size); a latitude must be in [-90, 90]"
        )
    latitude = min(max(0.5 * (ends[0] + ends[1]), -90.0), 90.0)
    lon_m, lat_m = metres_per_degree(latitude)
    cell = (abs(step_x) * degrees * lon_m, abs(step_y) * degrees * lat_m)
    return _Georeference(cell, True, latitude, flip_rows, flip_cols)


def _height_scale(
    tags: dict[int, Any], keys: dict[int, float], band: dict[str, str], revision: int, name: str
) -> tuple[float, float, float]:
    """The band's scale and offset (as GDAL reads them) and the metres per unit of its values (negative for a
    depth axis)."""
    scale, offset = 1.0, 0.0
    for role in ("scale", "offset"):
        if role in band:
            try:
                value = float(band[role])
            except ValueError:
                value = math.nan
            if not math.isfinite(value) or (role == "scale" and value == 0.0):
                raise ValueError(
                    f"{name}: its GDAL_METADATA tag (42112) gives band 1 a {role.upper()} of {band[role][:40]!r}; "
                    + ("it must be a finite number other than 0" if role == "scale" else "it must be a finite number")
                )
            scale, offset = (value, offset) if role == "scale" else (scale, value)
    # GeoTIFF 1.1 with a vertical CRS: GDAL reads the band's scale and offset from ScaleZ and the tie point's Z.
    pixel, tie = (_numbers(tags.get(code), code, name) for code in (33550, 33922))
    if revision >= 1 and 4096 in keys and pixel is not None and len(pixel) >= 3 and float(pixel[2]) != 0.0:
        z_scale = float(pixel[2])
        z_offset = float(tie[5]) if tie is not None and len(tie) >= 6 else 0.0
        if not (math.isfinite(z_scale) and math.isfinite(z_offset)):
            raise ValueError(f"{name}: its ModelPixelScaleTag's Z or ModelTiepointTag's Z is not a finite number")
        if ("scale" in band or "offset" in band) and (z_scale, z_offset) != (scale, offset):
            raise ValueError(
                f"{name}: its GDAL_METADATA tag (42112) gives band 1 a scale of {scale:g} and an offset of "
                f"{offset:g}, its ModelPixelScaleTag and ModelTiepointTag Z {z_scale:g} and {z_offset:g}"
            )
        scale, offset = z_scale, z_offset
    unit, down = 1.0, False
    if 4099 in keys:
        unit = _length_unit(keys, 4099, None, name)
    crs = keys.get(4096)
    if crs is not None and int(crs) in _VERTICAL_CRS:
        code, down = _VERTICAL_CRS[int(crs)]
        if 4099 not in keys:
            unit = _LENGTH_UNITS[code]
    named = band.get("unittype", "")
    if named:
        named_code = _UNIT_NAMES.get(named.lower())
        if named_code is None:
            raise ValueError(
                f"{name}: its GDAL_METADATA tag (42112) gives band 1 the unit {named[:40]!r}; Orogen knows "
                "heights in m, ft, US survey foot and km"
            )
        if (4099 in keys or (crs is not None and int(crs) in _VERTICAL_CRS)) and _LENGTH_UNITS[named_code] != unit:
            raise ValueError(
                f"{name}: its GDAL_METADATA tag (42112) gives band 1 the unit {named!r}, its GeoKeys another "
                f"({unit:g} m)"
            )
        unit = _LENGTH_UNITS[named_code]
    return scale, offset, -unit if down else unit


# --- a DEM's real scale on a terrain ------------------------------------------------------------------------------
def _square_shape(shape: tuple[int, int], cell_size: tuple[float, float]) -> tuple[tuple[int, int], float]:
    """Rows and columns of square cells of side ``sqrt(dx * dy)`` over a grid's true extents in Y and X."""
    rows, cols = shape
    dx, dy = cell_size
    side = math.sqrt(dx * dy)
    if not (math.isfinite(side) and side > 0.0):
        raise ValueError(f"the DEM's cells are {dx:.6g} x {dy:.6g} m; a terrain needs cells larger than 0")

    def count(n: int, d: float) -> int:
        return max(math.floor((n - 1) * d / side + 0.5) + 1, min(n, 2))

    return (count(rows, dy), count(cols, dx)), side


def dem_square_grid(
    values: npt.NDArray[np.float32], dem: Elevation, *, check_size: Callable[[int, int], None] | None = None
) -> tuple[npt.NDArray[np.float32], float]:
    """A georeferenced DEM's heights on square cells over its true extents, for a terrain (whose cells are square).

    Parameters
    ----------
    values : ndarray of float32, shape (rows, cols)
        The DEM's heights in metres (``dem.heights``), row 0 north.
    dem : Elevation
        Its georeferencing; ``dem.cell_size`` ``(dx, dy)`` must be set.
    check_size : callable, optional
        ``check_size(rows, cols)`` runs on the new grid's size before it is made.

    Returns
    -------
    (grid, side) : (ndarray of float32, float)
        ``values`` itself when its cells are square to within half a cell over the whole extent; else the
        heights bilinearly resampled (:func:`core.resample.resample_points`, corner on corner) onto
        ``round((rows - 1) * dy / side) + 1`` by ``round((cols - 1) * dx / side) + 1`` points of side
        ``side = sqrt(dx * dy)`` metres (the cell count stays about the same, as gdalwarp's default
        resolution does). The footprint (each extent) is kept to within half a cell, and with it the slopes.

    Raises
    ------
    ValueError
        If the extent is beyond a terrain's bounds (see :func:`dem_extent`), or ``check_size`` refuses the grid.
    """
    assert dem.cell_size is not None
    old = (int(values.shape[0]), int(values.shape[1]))
    shape, side = _square_shape(old, dem.cell_size)
    _check_width(side * (max(shape) - 1))
    if shape == old:
        return values, side
    check_shape(shape, "the DEM on square cells")
    if check_size is not None:
        check_size(*shape)
    grid = resample_points(values.reshape(-1, 1), old, shape, smooth=True)
    return np.ascontiguousarray(grid.reshape(shape), dtype=np.float32), side


def _check_width(width: float, height: float = 0.0) -> None:
    if not 0.001 <= width <= 1.0e6 or height > 1.0e5:
        raise ValueError(
            f"the DEM spans {width:.6g} m with a relief of {height:.6g} m; a terrain is 0.001 m to "
            "1000 km wide with up to 100 km of relief"
        )


def dem_extent(values: npt.NDArray[np.float32], side: float) -> tuple[float, float]:
    """Width and height (metres) of a terrain that keeps a georeferenced DEM's real scale.

    ``values`` are the DEM's heights on square cells of ``side`` metres (``float32 (rows, cols)``, from
    :func:`dem_square_grid`). The height is their relief (highest minus lowest); the width spans
    ``max(rows, cols) - 1`` cells.

    Raises
    ------
    ValueError
        When the extent is beyond a terrain's bounds (0.001 m to 1000 km wide, up to 100 km of relief).
    """
    rows, cols = values.shape
    width = side * (max(rows, cols) - 1)
    height = float(values.max()) - float(values.min())
    _check_width(width, height)
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


def dem_summary(values: npt.NDArray[np.float32], dem: Elevation, side: float | None = None) -> str:
    """One line for an import's report: the DEM's heights (and what was done to read them: the page, the band's
    scale and offset, the unit, a flip), its cells (and the square cells of ``side`` metres they were resampled
    onto, when they are not square), the nodata filled, and what was not read (``dem.note``: ground control
    points)."""
    parts = [
        f"heights {float(values.min()):.6g} to {float(values.max()):.6g}" + (" m" if dem.cell_size is not None else "")
    ]
    if dem.page:  # a thumbnail or a smaller image came first
        parts.append(f"the full-resolution raster, image {dem.page + 1} of {dem.pages}")
    if (dem.scale, dem.offset) != (1.0, 0.0):
        parts.append(f"band scale {dem.scale:g} and offset {dem.offset:g} applied")
    if dem.unit != 1.0:
        parts.append(("depths " if dem.unit < 0 else "heights ") + f"in units of {abs(dem.unit):.9g} m converted")
    if dem.flipped:
        parts.append(
            f"flipped {dem.flipped} (the file's rows run south to north)"
            if "north" in dem.flipped
            else f"flipped {dem.flipped}"
        )
    if dem.cell_size is not None:
        dx, dy = dem.cell_size
        cells = f"cells {dx:.4g} x {dy:.4g} m"
        if dem.geographic:
            cells += f" (from degrees at latitude {dem.latitude:.4g})"
        if side is not None and values.shape != dem.heights.shape:
            rows, cols = values.shape
            cells += f", resampled onto {cols} x {rows} square cells of {side:.4g} m over the same extent"
        parts.append(cells)
    if dem.nodata:
        value = "" if dem.nodata_value is None else f" ({dem.nodata_value:g})"
        parts.append(f"{dem.nodata} nodata cells{value} filled from their neighbours")
    if dem.note:
        parts.append(dem.note)
    return "Imported DEM: " + "; ".join(parts)
