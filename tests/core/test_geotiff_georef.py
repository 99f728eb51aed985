"""Contradictory and real-world GeoTIFFs: tags given twice, thumbnails and masks before the raster, rotated,
zero or NaN pixel sizes, latitudes past the poles, band scale and offset, units, south-up rasters and cells
that are not square.

The hostile files are written byte by byte (`tests/core/tiffbytes.py`: no TIFF library writes a tag twice);
the real-world ones by GDAL's gdal_translate, and GDAL's own reading of them (``gdal_translate -unscale``,
``gdalinfo -json``) is the reference. Those skip without gdal-bin unless OROGEN_REQUIRE_GDAL=1.
"""

import json
import math
import os
import shutil
import sqlite3
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tiffbytes import DOUBLE, LONG, SHORT, geokeys, write

from core.io import geotiff, image_headers

RASTER = np.arange(30, dtype=np.float32).reshape(5, 6) * 3.0 + 100.0
UTM = geokeys((1024, 1), (1025, 1), (3072, 32616))
WGS84 = geokeys((1024, 2), (1025, 1), (2048, 4326))


def scale(sx=10.0, sy=10.0, sz=0.0):
    return (33550, DOUBLE, [sx, sy, sz])


def tie(x=500000.0, y=4000000.0, z=0.0, i=0.0, j=0.0):
    return (33922, DOUBLE, [i, j, 0.0, x, y, z])


def gdal_tool(name):
    tool = shutil.which(name)
    if tool is None:
        if os.environ.get("OROGEN_REQUIRE_GDAL") == "1":
            raise RuntimeError(f"{name} is required (OROGEN_REQUIRE_GDAL=1): apt-get install gdal-bin")
        pytest.skip(f"{name} (Debian package gdal-bin) is not installed; .ci/run installs it")
    return tool


def ascii_grid(path, values, cell=10.0, west=0.0, south=0.0):
    rows, cols = values.shape
    with open(path, "w") as f:
        f.write(f"ncols {cols}\nnrows {rows}\nxllcorner {west!r}\nyllcorner {south!r}\ncellsize {cell!r}\n")
        np.savetxt(f, values, fmt="%.3f")
    return path


def translate(source, target, *options):
    subprocess.run(
        [gdal_tool("gdal_translate"), "-q", "-of", "GTiff", *map(str, options), str(source), str(target)],
        check=True,
        capture_output=True,
    )
    return str(target)


def gdal_unscaled(path, tmp_path):
    """GDAL's own heights of ``path``: ``gdal_translate -unscale -ot Float64``, read back as raw doubles."""
    out = tmp_path / "unscaled.tif"
    subprocess.run(
        [gdal_tool("gdal_translate"), "-q", "-unscale", "-ot", "Float64", "-of", "ENVI", path, str(out)],
        check=True,
        capture_output=True,
    )
    info = json.loads(
        subprocess.run([gdal_tool("gdalinfo"), "-json", path], check=True, capture_output=True, text=True).stdout
    )
    rows, cols = info["size"][1], info["size"][0]
    return np.fromfile(out, "<f8").reshape(rows, cols), info


# --- item 2: contradictory TIFFs --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tag", "value"),
    [(257, 2), (256, 3), (273, 8), (279, 4)],
    ids=["ImageLength", "ImageWidth", "StripOffsets", "StripByteCounts"],
)
def test_a_tag_given_twice_is_refused_naming_the_file_and_tag(tmp_path, tag, value):
    path = write(tmp_path / "twice.tif", [(RASTER, [(tag, LONG, [value])])])
    names = {256: "ImageWidth", 257: "ImageLength", 273: "StripOffsets", 279: "StripByteCounts"}
    with pytest.raises(ValueError, match=rf"twice.tif cannot be read: .*tag {tag} \({names[tag]}\) twice"):
        geotiff.read_elevation(path)
    with pytest.raises(ValueError, match=rf"tag {tag} \({names[tag]}\) twice"):
        image_headers.check_image(path)  # the size check every other import path runs (Blender decodes after it)


def test_a_tag_twice_on_a_later_page_and_a_geokey_twice_are_refused(tmp_path):
    thumb = np.zeros((2, 3), np.float32)
    path = write(tmp_path / "later.tif", [(thumb, [(254, LONG, [1])]), (RASTER, [(257, LONG, [4])])])
    with pytest.raises(ValueError, match=r"later.tif: its image file directory 2 gives tag 257 \(ImageLength\) 2"):
        geotiff.read_elevation(path)
    keys = geokeys((1024, 1), (4099, 9001), (4099, 9002))
    path = write(tmp_path / "keys.tif", [(RASTER, [scale(), tie(), keys])])
    with pytest.raises(ValueError, match=r"keys.tif: .*VerticalUnitsGeoKey \(4099\) twice"):
        geotiff.read_elevation(path)


def test_the_full_resolution_raster_is_read_not_a_thumbnail_overview_or_mask(tmp_path):
    thumb = np.full((2, 3), 7.0, np.float32)
    overview = RASTER[::2, ::2].copy()
    mask = np.full(RASTER.shape, 255, np.uint8)
    cases = {
        "thumbnail first": [(thumb, [(254, LONG, [1])]), (RASTER, [scale(), tie(), UTM])],
        "smaller page first, unmarked": [(thumb, []), (RASTER, [scale(), tie(), UTM])],
        "old SubfileType 2": [(thumb, [(255, SHORT, [2])]), (RASTER, [scale(), tie(), UTM])],
        "overviews and masks after": [
            (RASTER, [scale(), tie(), UTM]),
            (mask, [(254, LONG, [4])]),
            (overview, [(254, LONG, [1])]),
            (overview.astype(np.uint8), [(254, LONG, [5])]),
        ],
    }
    for label, pages in cases.items():
        elevation = geotiff.read_elevation(write(tmp_path / "p.tif", pages))
        assert np.array_equal(elevation.heights, RASTER), label
        assert elevation.cell_size == (10.0, 10.0), label  # the raster's own georeferencing
        assert elevation.pages == len(pages) and elevation.page == (0 if label.startswith("overviews") else 1)
    text = geotiff.dem_summary(
        elevation.heights, geotiff.read_elevation(write(tmp_path / "p.tif", cases["thumbnail first"]))
    )
    assert "image 2 of 2" in text


def test_gdal_overviews_and_cloud_optimised_geotiffs_read_the_main_raster(tmp_path):
    values = np.arange(64 * 80, dtype=np.float64).reshape(64, 80)
    src = ascii_grid(tmp_path / "b.asc", values)
    cog = translate(src, tmp_path / "cog.tif", "-of", "COG", "-co", "OVERVIEW_COUNT=2", "-a_srs", "EPSG:32616")
    plain = translate(src, tmp_path / "ov.tif", "-a_srs", "EPSG:32616")
    subprocess.run([gdal_tool("gdaladdo"), "-q", plain, "2", "4"], check=True)
    for path in (cog, plain):
        elevation = geotiff.read_elevation(path)
        assert (elevation.page, elevation.pages) == (0, 3)  # the raster, then two overviews
        assert np.array_equal(elevation.heights, values.astype(np.float32)) and elevation.cell_size == (10.0, 10.0)
        assert "image" not in geotiff.dem_summary(elevation.heights, elevation)


def test_files_without_one_full_resolution_raster_are_refused(tmp_path):
    only = write(tmp_path / "only.tif", [(RASTER, [(254, LONG, [1])]), (RASTER[:2], [(254, LONG, [5])])])
    with pytest.raises(ValueError, match="only.tif holds only reduced-resolution or mask images"):
        geotiff.read_elevation(only)
    stack = write(tmp_path / "stack.tif", [(RASTER, []), (RASTER + 1, []), (RASTER[:2], [])])
    with pytest.raises(ValueError, match=r"stack.tif holds 2 full-resolution images of 6 x 5 pixels \(pages 1, 2\)"):
        geotiff.read_elevation(stack)


def test_a_later_page_cut_short_is_refused(tmp_path):
    # The header check reads the first page only; the raster on page 2 gets its own check before decoding.
    path = write(tmp_path / "cut.tif", [(RASTER[:2], [(254, LONG, [1])]), (RASTER, [])])
    with geotiff._tifffile().TiffFile(path) as tif:
        at = tif.pages[1].tags[279].valueoffset
    data = bytearray(open(path, "rb").read())
    data[at : at + 4] = (10**6).to_bytes(4, "little")
    open(path, "wb").write(bytes(data))
    with pytest.raises(ValueError, match=r"cut.tif cannot be read: the TIFF file is cut short: its strips run past"):
        geotiff.read_elevation(path)


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        ([10.0, 2.0, 0, 500000.0, 0.0, -10.0, 0, 4000000.0], r"rotates or shears the raster \(terms b = 2, e = 0"),
        ([10.0, 0.0, 0, 500000.0, -1.5, -10.0, 0, 4000000.0], r"rotates or shears the raster \(terms b = 0, e = -1.5"),
        ([0.0, 0.0, 0, 500000.0, 0.0, -10.0, 0, 4000000.0], r"pixel size in X of 0"),
        ([10.0, 0.0, 0, 500000.0, 0.0, math.nan, 0, 4000000.0], r"ModelTransformationTag \(34264\) holds nan"),
    ],
    ids=["rotation", "shear", "zero", "nan"],
)
def test_a_rotated_sheared_or_degenerate_transformation_is_refused(tmp_path, matrix, message):
    full = (34264, DOUBLE, [*matrix, 0, 0, 0, 0, 0, 0, 0, 1.0])
    path = write(tmp_path / "rot.tif", [(RASTER, [full, UTM])])
    with pytest.raises(
        ValueError, match="rot.tif: its ModelTransformationTag.*" + message.split("ModelTransformationTag")[-1]
    ):
        geotiff.read_elevation(path)


@pytest.mark.parametrize("bad", [0.0, -0.0, math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("axis", ["X", "Y"])
def test_a_pixel_scale_of_zero_nan_or_inf_is_refused_naming_the_tag(tmp_path, bad, axis):
    sx, sy = (bad, 10.0) if axis == "X" else (10.0, bad)
    path = write(tmp_path / "scale.tif", [(RASTER, [scale(sx, sy), tie(), UTM])])
    with pytest.raises(
        ValueError, match=rf"scale.tif: its ModelPixelScaleTag \(33550\) gives a pixel size in {axis} of .*finite"
    ):
        geotiff.read_elevation(path)
    with pytest.raises(ValueError, match=r"ModelTiepointTag \(33922\) holds nan"):
        geotiff.read_elevation(write(tmp_path / "tie.tif", [(RASTER, [scale(), tie(y=math.nan), UTM])]))


def test_latitudes_beyond_the_poles_are_refused_and_the_poles_themselves_read(tmp_path):
    degrees = [scale(0.5, 0.5), WGS84]
    for north, span in ((92.0, "89.5 to 92"), (-88.0, "-90.5 to -88"), (90.000001, "87.500001 to 90.000001")):
        path = write(tmp_path / "lat.tif", [(RASTER, [*degrees, tie(x=10.0, y=north)])])
        with pytest.raises(ValueError, match=rf"lat.tif spans latitudes {span} degrees .* must be in \[-90, 90\]"):
            geotiff.read_elevation(path)
    edge = geotiff.read_elevation(write(tmp_path / "pole.tif", [(RASTER, [*degrees, tie(x=10.0, y=90.0)])]))
    assert edge.latitude == pytest.approx(88.75) and edge.geographic
    # pixel-is-point: the last row's centre sits on the pole; its cell's edge half a cell past it is allowed
    point = [scale(0.5, 0.5), geokeys((1024, 2), (1025, 2)), tie(x=10.0, y=-88.0)]
    assert geotiff.read_elevation(write(tmp_path / "point.tif", [(RASTER, point)])).latitude == pytest.approx(-89.0)
    with pytest.raises(ValueError, match="no ModelTiepointTag"):
        geotiff.read_elevation(write(tmp_path / "notie.tif", [(RASTER, degrees)]))


def test_a_longitude_span_beyond_360_degrees_is_refused_and_360_itself_read(tmp_path):
    # RASTER has 6 columns: 61 degrees each is 366 degrees of longitude (cells of about 3.5e6 m at 50 N)
    for step, span in ((61.0, "366"), (60.000001, "360.000006")):
        path = write(tmp_path / "lon.tif", [(RASTER, [scale(step, 0.5), WGS84, tie(x=-180.0, y=50.0)])])
        with pytest.raises(
            ValueError,
            match=rf"^lon.tif spans {span} degrees of longitude \(6 columns of {step:.9g} degrees, .* at most 360$",
        ):
            geotiff.read_elevation(path)
    whole = geotiff.read_elevation(
        write(tmp_path / "globe.tif", [(RASTER, [scale(60.0, 0.5), WGS84, tie(-180.0, 50.0)])])
    )
    assert whole.geographic and whole.cell_size[0] == pytest.approx(60.0 * geotiff.metres_per_degree(48.75)[0])
    # pixel-is-point: 6 centres 72 degrees apart span 360 (the seam column given twice, as GMT grids do)
    point = [scale(72.0, 0.5), geokeys((1024, 2), (1025, 2)), tie(x=-180.0, y=50.0)]
    assert geotiff.read_elevation(write(tmp_path / "point.tif", [(RASTER, point)])).geographic
    point = [scale(72.1, 0.5), geokeys((1024, 2), (1025, 2)), tie(x=-180.0, y=50.0)]
    with pytest.raises(ValueError, match=r"point.tif spans 360.5 degrees of longitude"):
        geotiff.read_elevation(write(tmp_path / "point.tif", [(RASTER, point)]))
    # in radians (GeogAngularUnitsGeoKey 9101): 6 x 1.1 rad = 378 degrees
    radians = [scale(1.1, 0.001), geokeys((1024, 2), (1025, 1), (2054, 9101)), tie(x=0.0, y=0.5)]
    with pytest.raises(ValueError, match=r"spans 378.15\d* degrees of longitude"):
        geotiff.read_elevation(write(tmp_path / "rad.tif", [(RASTER, radians)]))


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ((33550, DOUBLE, [10.0]), r"ModelPixelScaleTag \(33550\) holds 1 value; it must hold three numbers"),
        ((33550, SHORT, [10]), r"ModelPixelScaleTag \(33550\) holds 1 value; it must hold three numbers"),
        ((33922, DOUBLE, [0.0, 0.0, 0.0]), r"ModelTiepointTag \(33922\) holds 3 values; it must hold six numbers"),
        ((33922, DOUBLE, [7.0]), r"ModelTiepointTag \(33922\) holds 1 value; it must hold six numbers per tie"),
        ((34264, DOUBLE, [1.0] * 4), r"ModelTransformationTag \(34264\) holds 4 values; it must hold sixteen"),
        ((34264, DOUBLE, [1.0]), r"ModelTransformationTag \(34264\) holds 1 value; it must hold sixteen"),
    ],
)
def test_a_georeferencing_tag_holding_too_few_values_is_refused_naming_it(tmp_path, entry, message):
    others = [e for e in (scale(), tie()) if e[0] != entry[0]] if entry[0] != 34264 else []
    path = write(tmp_path / "few.tif", [(RASTER, [entry, *others, UTM])])
    with pytest.raises(ValueError, match=rf"^few.tif: its {message}"):
        geotiff.read_elevation(path)


def test_ground_control_points_import_as_not_georeferenced_with_a_note(tmp_path):
    points = [0.0, 0.0, 0.0, 500000.0, 4000000.0, 0.0, 5.0, 0.0, 0.0, 500050.0, 4000000.0, 0.0]
    points += [0.0, 4.0, 0.0, 500000.0, 3999960.0, 0.0]
    path = write(tmp_path / "gcps.tif", [(RASTER, [(33922, DOUBLE, points), UTM])])
    elevation = geotiff.read_elevation(path)
    assert elevation.cell_size is None and not elevation.geographic
    assert np.array_equal(elevation.heights, RASTER)  # the values as stored, as GDAL reads them (not warped)
    note = (
        "its 3 ground control points (ModelTiepointTag 33922 without a ModelPixelScaleTag) are not read: "
        "not georeferenced; warp it onto a grid first (gdalwarp) for its real scale"
    )
    assert elevation.note == note
    summary = geotiff.dem_summary(elevation.heights, elevation)
    assert summary == f"Imported DEM: heights 100 to 187; {note}"
    one = geotiff.read_elevation(write(tmp_path / "one.tif", [(RASTER, [tie(), UTM])]))
    assert one.note.startswith("its 1 ground control point (ModelTiepointTag") and one.cell_size is None
    # georeferenced files have no note
    assert geotiff.read_elevation(write(tmp_path / "grid.tif", [(RASTER, [scale(), tie(), UTM])])).note == ""


# --- item 10: band scale and offset, units, south-up, non-square cells ----------------------------------------
def test_band_scale_and_offset_are_applied_as_gdal_does(tmp_path):
    raw = (np.arange(48, dtype=np.int16).reshape(6, 8) - 20) * 7
    src = ascii_grid(tmp_path / "raw.asc", raw.astype(np.float64))
    cases = {
        "gdal_metadata": ["-ot", "Int16", "-a_scale", "0.1", "-a_offset", "-25.5", "-a_srs", "EPSG:32616"],
        "geotiff 1.1 z": ["-ot", "Int16", "-a_scale", "10", "-a_offset", "5", "-a_srs", "EPSG:32616+5703"],
    }
    for label, options in cases.items():
        path = translate(src, tmp_path / f"{label.replace(' ', '_')}.tif", *options)
        expected, info = gdal_unscaled(path, tmp_path)
        band = info["bands"][0]
        assert (band["scale"], band["offset"]) == (float(options[3]), float(options[5])), label
        elevation = geotiff.read_elevation(path)
        assert (elevation.scale, elevation.offset) == (band["scale"], band["offset"]), label
        assert np.array_equal(elevation.heights, expected.astype(np.float32)), label
        assert not np.array_equal(elevation.heights, raw.astype(np.float32)), label


def test_band_scale_nodata_and_bad_values(tmp_path):
    meta = '<GDALMetadata><Item name="SCALE" sample="0" role="scale">{}</Item></GDALMetadata>'
    raw = np.array([[1, 2, -9999], [4, 5, 6]], np.int16)
    nodata = (42113, 2, "-9999")
    path = write(tmp_path / "s.tif", [(raw, [(42112, 2, meta.format("2.5")), nodata])])
    elevation = geotiff.read_elevation(path)
    assert elevation.nodata == 1  # the nodata value is the stored one, before scaling (as GDAL)
    assert elevation.heights[0, :2].tolist() == [2.5, 5.0] and elevation.heights[1].tolist() == [10.0, 12.5, 15.0]
    for bad in ("0", "nan", "inf", "ten"):
        with pytest.raises(ValueError, match=r"s.tif: its GDAL_METADATA tag \(42112\) gives band 1 a SCALE of"):
            geotiff.read_elevation(write(tmp_path / "s.tif", [(raw, [(42112, 2, meta.format(bad))])]))
    entity = '<!DOCTYPE x [<!ENTITY a "1">]><GDALMetadata></GDALMetadata>'
    with pytest.raises(ValueError, match="not the XML GDAL writes"):
        geotiff.read_elevation(write(tmp_path / "s.tif", [(raw, [(42112, 2, entity)])]))
    with pytest.raises(ValueError, match="beyond float32"):
        geotiff.read_elevation(write(tmp_path / "s.tif", [(raw, [(42112, 2, meta.format("1e300"))])]))


@pytest.mark.parametrize(
    ("keys", "horizontal", "vertical"),
    [
        ([(1024, 1), (3076, 9036), (4099, 9036)], 1000.0, 1000.0),  # kilometres both ways
        ([(1024, 1), (3076, 9002), (4099, 9003)], 0.3048, 1200.0 / 3937.0),  # feet, US survey feet
        ([(1024, 1), (3076, 32767), (3077, 34736, 0)], 2.5, 1.0),  # a user-defined unit of 2.5 m
        ([(1024, 1), (4096, 6360)], 1.0, 1200.0 / 3937.0),  # NAVD88 height (ftUS): its unit from the EPSG CRS
        ([(1024, 1), (4096, 5715)], 1.0, -1.0),  # MSL depth: depths, negated
        ([(1024, 2), (2054, 9104)], None, 1.0),  # geographic in arc-seconds
    ],
)
def test_units_are_converted_to_metres(tmp_path, keys, horizontal, vertical):
    tags = [scale(10.0, 10.0), tie(x=3600.0 * 10 if horizontal is None else 500000.0, y=3600.0 * 45), geokeys(*keys)]
    tags.append((34736, DOUBLE, [2.5]))
    elevation = geotiff.read_elevation(write(tmp_path / "u.tif", [(RASTER, tags)]))
    assert np.array_equal(elevation.heights, (RASTER.astype(np.float64) * vertical).astype(np.float32))
    assert elevation.unit == vertical
    if horizontal is None:  # 10 arc-seconds at about 45° N
        lon_m, lat_m = geotiff.metres_per_degree(elevation.latitude)
        assert elevation.cell_size == pytest.approx((10 / 3600 * lon_m, 10 / 3600 * lat_m), rel=1e-12)
        assert elevation.latitude == pytest.approx(45.0 - 2.5 * 10 / 3600)
    else:
        assert elevation.cell_size == pytest.approx((10.0 * horizontal, 10.0 * horizontal), rel=1e-15)


def test_unknown_units_are_refused_naming_the_key(tmp_path):
    for keys, message in (
        ([(1024, 1), (3076, 9999)], r"ProjLinearUnitsGeoKey \(3076\) is 9999"),
        ([(1024, 1), (4099, 32767)], r"VerticalUnitsGeoKey \(4099\) is 32767"),
        ([(1024, 2), (2054, 9110)], r"GeogAngularUnitsGeoKey \(2054\) is 9110"),
        ([(1024, 3)], r"GTModelTypeGeoKey \(1024\) is 3"),
    ):
        path = write(tmp_path / "unit.tif", [(RASTER, [scale(), tie(y=45.0), geokeys(*keys)])])
        with pytest.raises(ValueError, match="unit.tif: its " + message):
            geotiff.read_elevation(path)
    meta = '<GDALMetadata><Item name="UNITTYPE" sample="0" role="unittype">{}</Item></GDALMetadata>'
    feet = write(tmp_path / "ft.tif", [(RASTER, [scale(), tie(), UTM, (42112, 2, meta.format("ft"))])])
    assert geotiff.read_elevation(feet).unit == 0.3048
    with pytest.raises(ValueError, match="the unit 'furlong'"):
        geotiff.read_elevation(write(tmp_path / "f.tif", [(RASTER, [(42112, 2, meta.format("furlong"))])]))
    clash = [scale(), tie(), geokeys((1024, 1), (4099, 9001)), (42112, 2, meta.format("ft"))]
    with pytest.raises(ValueError, match="its GeoKeys another"):
        geotiff.read_elevation(write(tmp_path / "c.tif", [(RASTER, clash)]))


def test_the_unit_tables_match_the_epsg_dataset():
    db = "/usr/share/proj/proj.db"
    if not os.path.exists(db):
        if os.environ.get("OROGEN_REQUIRE_GDAL") == "1":
            raise RuntimeError("PROJ's proj.db is required (OROGEN_REQUIRE_GDAL=1): apt-get install proj-data")
        pytest.skip("PROJ's proj.db (Debian package proj-data, with gdal-bin) is not installed")
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        lengths = dict(
            con.execute(
                "select cast(code as int), conv_factor from unit_of_measure where auth_name = 'EPSG' and "
                "type = 'length' and deprecated = 0 and name not like '%per%'"
            ).fetchall()
        )
        vertical = {
            int(code): (int(unit), orientation == "down")
            for code, unit, orientation in con.execute(
                "select v.code, a.uom_code, a.orientation from vertical_crs v join axis a on "
                "a.coordinate_system_auth_name = v.coordinate_system_auth_name and a.coordinate_system_code = "
                "v.coordinate_system_code where v.auth_name = 'EPSG' and (a.uom_code != '9001' or "
                "a.orientation != 'up')"
            ).fetchall()
        }
    assert set(geotiff._LENGTH_UNITS) == set(lengths)
    for code, metres in lengths.items():
        assert geotiff._LENGTH_UNITS[code] == pytest.approx(metres, rel=1e-15), code
    assert geotiff._VERTICAL_CRS == vertical


def test_south_up_rasters_are_flipped_north_up(tmp_path):
    src = ascii_grid(tmp_path / "r.asc", RASTER.astype(np.float64))
    north_up = geotiff.read_elevation(translate(src, tmp_path / "n.tif", "-a_ullr", 0, 50, 60, 0))
    south_up = translate(src, tmp_path / "s.tif", "-a_ullr", 0, 0, 60, 50)  # GDAL writes a transformation, e > 0
    info = json.loads(
        subprocess.run([gdal_tool("gdalinfo"), "-json", south_up], check=True, capture_output=True).stdout
    )
    assert info["geoTransform"][5] > 0  # row 0 is the south row: y grows down the rows
    elevation = geotiff.read_elevation(south_up)
    assert np.array_equal(north_up.heights, RASTER)
    assert np.array_equal(elevation.heights, RASTER[::-1]) and elevation.flipped == "north-south"
    assert elevation.cell_size == north_up.cell_size == (10.0, 10.0)
    # A negative ScaleY: south-up by the GeoTIFF specification (GDAL honours it with GTIFF_HONOUR_NEGATIVE_SCALEY)
    path = write(tmp_path / "neg.tif", [(RASTER, [scale(10.0, -10.0), tie(), UTM])])
    elevation = geotiff.read_elevation(path)
    assert np.array_equal(elevation.heights, RASTER[::-1]) and elevation.flipped == "north-south"
    mirrored = write(tmp_path / "west.tif", [(RASTER, [scale(-10.0, -10.0), tie(), UTM])])
    assert np.array_equal(geotiff.read_elevation(mirrored).heights, RASTER[::-1, ::-1])
    assert "flipped north-south and east-west" in geotiff.dem_summary(RASTER, geotiff.read_elevation(mirrored))


def test_cells_that_are_not_square_keep_the_true_footprint_and_slopes():
    # 1" x 1" at 60° N: about 15.5 m east-west by 30.9 m north-south. A plane rising 0.2 m per metre east and
    # 0.05 m per metre north (south to north, row 0 north) must keep those slopes and its extents.
    lon_m, lat_m = geotiff.metres_per_degree(60.0)
    dx, dy = lon_m / 3600.0, lat_m / 3600.0
    rows, cols = 121, 201
    x = np.arange(cols) * dx
    y = (rows - 1 - np.arange(rows)) * dy  # metres north of the south edge
    plane = (0.2 * x[None, :] + 0.05 * y[:, None]).astype(np.float32)
    dem = geotiff.Elevation(plane, 0, None, (dx, dy), True, 60.0)
    grid, side = geotiff.dem_square_grid(plane, dem)
    assert side == pytest.approx(math.sqrt(dx * dy))
    new_rows, new_cols = grid.shape
    assert abs((new_cols - 1) * side - (cols - 1) * dx) <= side / 2  # the east-west extent, within half a cell
    assert abs((new_rows - 1) * side - (rows - 1) * dy) <= side / 2
    assert (new_rows, new_cols) == (round(120 * dy / side) + 1, round(200 * dx / side) + 1)
    east = np.diff(grid, axis=1) / side
    north = -np.diff(grid, axis=0) / side
    # the resampled grid spans the true extents; its own spacing differs from side by under half a cell overall
    assert east.mean() == pytest.approx(0.2 * (cols - 1) * dx / ((new_cols - 1) * side), rel=1e-5)
    assert north.mean() == pytest.approx(0.05 * (rows - 1) * dy / ((new_rows - 1) * side), rel=1e-5)
    assert abs(east.mean() - 0.2) < 0.2 * 0.5 / (new_cols - 1) + 1e-6
    assert abs(north.mean() - 0.05) < 0.05 * 0.5 / (new_rows - 1) + 1e-6
    assert np.ptp(east) < 1e-3 and np.ptp(north) < 1e-3  # a plane stays a plane
    width, height = geotiff.dem_extent(grid, side)
    assert width == pytest.approx((max(grid.shape) - 1) * side)
    assert height == pytest.approx(float(plane.max() - plane.min()), rel=1e-6)
    text = geotiff.dem_summary(grid, dem, side)
    assert f"resampled onto {new_cols} x {new_rows} square cells" in text
    square = geotiff.Elevation(plane, 0, None, (30.0, 30.0), False, None)
    assert geotiff.dem_square_grid(plane, square)[0] is plane  # square cells: untouched
    calls = []
    geotiff.dem_square_grid(plane, dem, check_size=lambda r, c: calls.append((r, c)))
    assert calls == [grid.shape]


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(2, 40),
    cols=st.integers(2, 40),
    dx=st.floats(1.0, 100.0),
    ratio=st.floats(0.2, 5.0),
    slope=st.tuples(st.floats(-2.0, 2.0), st.floats(-2.0, 2.0)),
)
def test_square_cells_keep_each_extent_within_half_a_cell_and_planes_planar(rows, cols, dx, ratio, slope):
    dy = dx * ratio
    x = np.arange(cols) * dx
    y = (rows - 1 - np.arange(rows)) * dy
    plane = (slope[0] * x[None, :] + slope[1] * y[:, None]).astype(np.float32)
    dem = geotiff.Elevation(plane, 0, None, (dx, dy), True, 45.0)
    grid, side = geotiff.dem_square_grid(plane, dem)
    assert grid.dtype == np.float32 and np.isfinite(grid).all()
    new_rows, new_cols = grid.shape
    for old, new, d in ((rows, new_rows, dy), (cols, new_cols, dx)):
        extent = (old - 1) * d
        assert abs((new - 1) * side - extent) <= side / 2 + 1e-9 * extent or new == 2
    # corners on corners: the four corner heights are the DEM's, and a plane stays a plane
    for r, c in ((0, 0), (0, -1), (-1, 0), (-1, -1)):
        assert float(grid[r, c]) == pytest.approx(float(plane[r, c]), abs=1e-3 + 1e-5 * abs(float(plane[r, c])))
    tolerance = 1e-3 + 1e-5 * float(np.abs(plane).max())
    assert np.ptp(np.diff(grid, axis=1), axis=None) <= 2 * tolerance or new_cols < 3
    assert np.ptp(np.diff(grid, axis=0), axis=None) <= 2 * tolerance or new_rows < 3
