"""GeoTIFF DEMs as GIS users have them, written by GDAL from the Jacksboro fault DEM, read by core.io.geotiff.

gdal_translate comes from Debian's gdal-bin (CI installs it); these tests skip
without it unless OROGEN_REQUIRE_GDAL=1. The TIFF decoder is the tifffile
wheel the extension ships (core.io.geotiff puts it on the path when it is not
installed), so this tests the shipped code on numpy 1.26 and 2.x.
"""

import os
import shutil
import subprocess

import numpy as np
import pytest

from core.io import geotiff

GDAL_TRANSLATE = shutil.which("gdal_translate")
if GDAL_TRANSLATE is None:
    if os.environ.get("OROGEN_REQUIRE_GDAL") == "1":
        raise RuntimeError("gdal_translate is required (OROGEN_REQUIRE_GDAL=1): apt-get install gdal-bin")
    pytest.skip(
        "gdal_translate (Debian package gdal-bin) is not installed; .ci/run installs it", allow_module_level=True
    )

HOLE = (slice(100, 110), slice(200, 215))  # 150 nodata cells inside the DEM
EDGE = (slice(0, 3), slice(0, 4))  # 12 more at its north-west corner


@pytest.fixture(scope="module")
def dem():
    cbook = pytest.importorskip("matplotlib.cbook", reason="matplotlib provides the Jacksboro sample DEM")
    data = cbook.get_sample_data("jacksboro_fault_dem.npz")
    heights = data["elevation"].astype(np.float32)  # metres, 344 x 403, 3 arc-second cells
    heights[HOLE] = -9999.0
    heights[EDGE] = -9999.0
    return heights, float(data["dx"]), float(data["xmin"]), float(data["ymax"])  # ymax is the south edge


@pytest.fixture(scope="module")
def ascii_grid(dem, tmp_path_factory):
    """The DEM as an Esri ASCII grid in degrees, nodata -9999, for gdal_translate to convert."""
    heights, cell, west, south = dem
    path = tmp_path_factory.mktemp("dem") / "dem.asc"
    rows, cols = heights.shape
    with open(path, "w") as f:
        f.write(
            f"ncols {cols}\nnrows {rows}\nxllcorner {west!r}\nyllcorner {south!r}\ncellsize {cell!r}\n"
            "NODATA_value -9999\n"
        )
        np.savetxt(f, heights, fmt="%.1f")
    return path


def translate(source, target, *options):
    subprocess.run([GDAL_TRANSLATE, "-q", "-of", "GTiff", *options, str(source), str(target)], check=True)
    return str(target)


CREATION = [
    [],
    ["-co", "COMPRESS=DEFLATE"],
    ["-co", "COMPRESS=LZW"],
    ["-co", "COMPRESS=DEFLATE", "-co", "TILED=YES"],
    ["-co", "COMPRESS=LZW", "-co", "TILED=YES", "-co", "BLOCKXSIZE=64", "-co", "BLOCKYSIZE=32"],
    ["-co", "COMPRESS=LZW", "-co", "PREDICTOR=2"],
    ["-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=2"],
    ["-co", "COMPRESS=PACKBITS"],
]


@pytest.mark.parametrize("kind", ["Float32", "Int16"])
@pytest.mark.parametrize("creation", CREATION, ids=lambda c: "-".join(o for o in c if o != "-co") or "none")
def test_geographic_dems_keep_real_heights_and_report_nodata(dem, ascii_grid, tmp_path, kind, creation):
    heights, cell, west, south = dem
    path = translate(ascii_grid, tmp_path / "dem.tif", "-ot", kind, "-a_srs", "EPSG:4326", *creation)
    calls, needs = [], []
    elevation = geotiff.read_elevation(path, lambda r, c: calls.append((r, c)), check_bytes=needs.append)
    assert calls == [heights.shape]
    with geotiff._tifffile().TiffFile(path) as tif:  # what the decoder allocates: whole strips or tiles, the image
        page = tif.pages[0]
        down, across = (page.tilelength, page.tilewidth) if page.is_tiled else (page.rowsperstrip, heights.shape[1])
    padded = (-(-heights.shape[0] // down) * down) * (-(-heights.shape[1] // across) * across)
    assert needs == [(padded + heights.size) * (4 if kind == "Float32" else 2)]
    valid = heights != -9999.0
    assert np.array_equal(elevation.heights[valid], heights[valid])  # metres, untouched
    assert elevation.nodata == 162 and elevation.nodata_value == -9999.0
    filled = elevation.heights[~valid]
    assert heights[valid].min() <= filled.min() and filled.max() <= heights[valid].max()
    ring = heights[99:111, 199:216][np.pad(np.zeros((10, 15), bool), 1, constant_values=True)]
    assert ring.min() <= elevation.heights[HOLE].min() and elevation.heights[HOLE].max() <= ring.max()
    assert elevation.geographic
    rows = heights.shape[0]
    latitude = south + rows * cell / 2.0
    assert elevation.latitude == pytest.approx(latitude, abs=1e-9)
    lon_m, lat_m = geotiff.metres_per_degree(latitude)
    assert elevation.cell_size == pytest.approx((cell * lon_m, cell * lat_m), rel=1e-9)
    assert elevation.cell_size == pytest.approx((74.57, 92.47), abs=0.01)  # 3″ at 36.6° N


def test_projected_dems_in_metres_and_feet(dem, ascii_grid, tmp_path):
    heights = dem[0]
    path = translate(
        ascii_grid,
        tmp_path / "utm.tif",
        "-ot",
        "Float32",
        "-a_srs",
        "EPSG:32616",
        "-a_ullr",
        "700000",
        "4070000",
        str(700000 + 30 * 403),
        str(4070000 - 30 * 344),
    )
    elevation = geotiff.read_elevation(path)
    assert not elevation.geographic and elevation.cell_size == pytest.approx((30.0, 30.0))
    assert np.array_equal(elevation.heights[heights != -9999], heights[heights != -9999])
    path = translate(
        ascii_grid,
        tmp_path / "ft.tif",
        "-ot",
        "Float32",
        "-a_srs",
        "EPSG:2264",  # NC, US feet
        "-a_ullr",
        "0",
        "10000",
        str(100 * 403),
        str(10000 - 100 * 344),
    )
    assert geotiff.read_elevation(path).cell_size == pytest.approx((30.48006, 30.48006), rel=1e-5)


def test_without_georeferencing_or_nodata(tmp_path):
    values = np.arange(30, dtype=np.uint16).reshape(5, 6)
    src = tmp_path / "plain.tif"
    tifffile = geotiff._tifffile()
    tifffile.imwrite(src, values)
    elevation = geotiff.read_elevation(str(src))
    assert elevation.cell_size is None and elevation.nodata == 0 and elevation.nodata_value is None
    assert np.array_equal(elevation.heights, values.astype(np.float32))


def test_cut_colour_and_empty_dems_are_refused(dem, ascii_grid, tmp_path):
    path = translate(ascii_grid, tmp_path / "dem.tif", "-ot", "Int16", "-co", "COMPRESS=DEFLATE")
    data = open(path, "rb").read()
    open(path, "wb").write(data[: len(data) // 2])
    with pytest.raises(ValueError, match="dem.tif cannot be read: .*run past the end"):
        geotiff.read_elevation(path)
    tifffile = geotiff._tifffile()
    tifffile.imwrite(
        tmp_path / "rgb.tif",
        np.dstack([np.zeros((4, 4), np.uint8), np.ones((4, 4), np.uint8), np.zeros((4, 4), np.uint8)]),
        photometric="rgb",
    )
    with pytest.raises(ValueError, match="is a colour image"):
        geotiff.read_elevation(str(tmp_path / "rgb.tif"))
    tifffile.imwrite(tmp_path / "nan.tif", np.full((4, 4), np.nan, np.float32))
    with pytest.raises(ValueError, match="every cell is nodata"):
        geotiff.read_elevation(str(tmp_path / "nan.tif"))
    floatpred = translate(
        ascii_grid, tmp_path / "fp.tif", "-ot", "Float32", "-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=3"
    )
    with pytest.raises(ValueError, match="floating-point predictor"):
        geotiff.read_elevation(floatpred)


def test_lzw_decoder_against_a_known_stream():
    # "TOBEORNOTTOBEORTOBEORNOT" LZW-coded with TIFF's 9-bit codes, clear first, end last (packed MSB first)
    text = b"TOBEORNOTTOBEORTOBEORNOT"
    codes = [256, 84, 79, 66, 69, 79, 82, 78, 79, 84, 258, 260, 262, 267, 261, 263, 265, 257]
    bits = "".join(format(c, "09b") for c in codes)
    bits += "0" * (-len(bits) % 8)
    stream = int(bits, 2).to_bytes(len(bits) // 8, "big")
    assert geotiff.lzw_decode(stream) == text
    with pytest.raises(ValueError, match="old-style"):
        geotiff.lzw_decode(b"\x00\x01\x02")


def test_fill_and_metres_per_degree():
    h = np.array([[1, 2, 3], [4, 0, 6], [7, 8, 9]], np.float32)
    mask = np.zeros((3, 3), bool)
    mask[1, 1] = True
    assert geotiff.fill_nodata(h, mask)[1, 1] == 5.0  # mean of 2, 4, 6, 8
    assert geotiff.metres_per_degree(0.0) == pytest.approx((111319.5, 110574.3), abs=0.5)
    assert geotiff.metres_per_degree(60.0) == pytest.approx((55799.98, 111412.3), abs=0.5)
    with pytest.raises(ValueError, match="latitude must be in"):
        geotiff.metres_per_degree(91.0)


def test_dem_extent_keeps_the_real_scale_with_square_cells_and_refuses_the_impossible():
    values = np.array([[10.0, 30.0, 20.0], [15.0, 12.0, 11.0]], np.float32)
    dem = geotiff.Elevation(values, 2, -9999.0, (30.0, 30.0), False, None)
    grid, side = geotiff.dem_square_grid(values, dem)
    assert grid is values and side == 30.0
    assert geotiff.dem_extent(grid, side) == (60.0, 20.0)
    oblong = geotiff.Elevation(values, 0, None, (40.0, 10.0), True, 60.0)
    grid, side = geotiff.dem_square_grid(values, oblong)  # 80 m east-west, 10 m north-south, on 20 m cells
    assert side == pytest.approx(20.0) and grid.shape == (2, 5)
    assert grid[0].tolist() == [10.0, 20.0, 30.0, 25.0, 20.0] and grid[1].tolist() == [15.0, 13.5, 12.0, 11.5, 11.0]
    assert geotiff.dem_extent(grid, side) == (pytest.approx(80.0), 20.0)  # the true east-west extent
    assert geotiff.dem_record(values, dem) == {
        "elevation_range_m": [10.0, 30.0],
        "nodata_cells": 2,
        "dem_cell_size_m": [30.0, 30.0],
    }
    assert geotiff.dem_record(values, None) == {}
    text = geotiff.dem_summary(grid, oblong, side)
    assert text.startswith("Imported DEM: heights 10 to 30 m") and "latitude 60" in text
    assert "resampled onto 5 x 2 square cells of 20 m" in text
    assert "2 nodata cells (-9999) filled" in geotiff.dem_summary(values, dem)
    with pytest.raises(ValueError, match="a terrain is 0.001 m to 1000 km wide"):
        geotiff.dem_square_grid(values, geotiff.Elevation(values, 0, None, (1.0e6, 1.0e6), False, None))
    with pytest.raises(ValueError, match="a terrain is 0.001 m to 1000 km wide"):
        geotiff.dem_extent(values, 1.0e6)
