"""Orogen's hillshade, slope, normals and colour map against GDAL's gdaldem on a real DEM.

Edge cells are compared too: gdaldem runs with ``-compute_edges``, which
extrapolates a border cell's missing neighbours linearly, as Orogen does.
The four corner cells are left out: there gdaldem repeats the missing column
instead of extrapolating it (halving the gradient across it), where Orogen
extrapolates both ways so that planes stay exact.

The DEM is the Jacksboro fault elevation model shipped with matplotlib's
sample data (344 x 403 cells, metres). gdaldem comes from Debian's gdal-bin,
which .ci/run installs; elsewhere these tests skip with that reason unless
OROGEN_REQUIRE_GDAL=1 makes a missing gdaldem a failure.
"""

import os
import shutil
import subprocess

import numpy as np
import pytest

import core
from core.lighting.derivatives import normal_map, slope_degrees
from core.lighting.hillshading import hillshade, multidirectional_hillshade

CELL = 90.0  # metres: the DEM's 3 arc-second spacing, written as a projected grid for both tools

GDALDEM = shutil.which("gdaldem")
if GDALDEM is None:
    if os.environ.get("OROGEN_REQUIRE_GDAL") == "1":
        raise RuntimeError("gdaldem is required (OROGEN_REQUIRE_GDAL=1) but not installed: apt-get install gdal-bin")
    pytest.skip("gdaldem (Debian package gdal-bin) is not installed; .ci/run installs it", allow_module_level=True)


@pytest.fixture(scope="module")
def dem():
    cbook = pytest.importorskip("matplotlib.cbook", reason="matplotlib provides the Jacksboro sample DEM")
    return cbook.get_sample_data("jacksboro_fault_dem.npz")["elevation"].astype(np.float64)


def write_ascii_grid(path, values, cell):
    """Esri ASCII grid: row 0 is the north row, as in Orogen."""
    rows, cols = values.shape
    header = f"ncols {cols}\nnrows {rows}\nxllcorner 0\nyllcorner 0\ncellsize {cell}\n"
    with open(path, "w") as f:
        f.write(header)
        np.savetxt(f, values, fmt="%.6f")


def read_ascii_grid(path):
    with open(path) as f:
        lines = f.read().splitlines()
    body = [line for line in lines if line.strip() and not line.split()[0][0].isalpha()]
    return np.array([[float(v) for v in line.split()] for line in body])


def gdaldem(tmp_path, mode, values, *options, cell=CELL, extra_files=()):
    src, dst = tmp_path / "in.asc", tmp_path / "out.asc"
    write_ascii_grid(src, values, cell)
    subprocess.run(
        [GDALDEM, mode, str(src), *map(str, extra_files), str(dst), "-of", "AAIGrid", *map(str, options)],
        check=True,
        capture_output=True,
    )
    return read_ascii_grid(dst)


SUNS = [(0.0, 20.0), (90.0, 35.0), (225.0, 45.0), (315.0, 60.0)]


def all_but_corners(shape):
    """Every cell, edges included, except the four corners (see the module docstring)."""
    keep = np.ones(shape, bool)
    keep[[0, 0, -1, -1], [0, -1, 0, -1]] = False
    return keep


def edges(shape):
    """The border cells without the corners."""
    ring = all_but_corners(shape)
    ring[1:-1, 1:-1] = False
    return ring


@pytest.mark.parametrize(("azimuth", "altitude"), SUNS)
@pytest.mark.parametrize("z_factor", [1.0, 2.5])
def test_hillshade_matches_gdaldem_within_one_level(dem, tmp_path, azimuth, altitude, z_factor):
    reference = gdaldem(tmp_path, "hillshade", dem, "-az", azimuth, "-alt", altitude, "-z", z_factor, "-compute_edges")
    ours = np.rint(
        1.0 + 254.0 * hillshade(dem, CELL, azimuth=azimuth, altitude=altitude, z_factor=z_factor).astype(np.float64)
    )
    keep = all_but_corners(dem.shape)
    diff = np.abs(ours[keep] - reference[keep])
    assert diff.max() <= 1.0, (diff.max(), (diff > 1).sum())
    assert reference[keep].std() > 10 and reference[edges(dem.shape)].std() > 10  # real relief, edges too


@pytest.mark.parametrize("altitude", [20.0, 45.0, 60.0])
@pytest.mark.parametrize("z_factor", [1.0, 3.0])
def test_multidirectional_hillshade_matches_gdaldem(dem, tmp_path, altitude, z_factor):
    reference = gdaldem(
        tmp_path, "hillshade", dem, "-multidirectional", "-alt", altitude, "-z", z_factor, "-compute_edges"
    )
    ours = np.rint(
        1.0 + 254.0 * multidirectional_hillshade(dem, CELL, altitude=altitude, z_factor=z_factor).astype(np.float64)
    )
    keep = all_but_corners(dem.shape)
    assert np.abs(ours[keep] - reference[keep]).max() <= 1.0


@pytest.mark.parametrize("z_factor", [1.0, 4.0])
def test_slope_matches_gdaldem_edges_included(dem, tmp_path, z_factor):
    # gdaldem slope has no z-factor; its scale divides the heights instead.
    reference = gdaldem(tmp_path, "slope", dem, "-s", 1.0 / z_factor, "-compute_edges")
    ours = slope_degrees(dem, CELL, z_factor).astype(np.float64)
    keep = all_but_corners(dem.shape)
    assert np.abs(ours[keep] - reference[keep]).max() <= 2e-3
    assert reference[edges(dem.shape)].max() > 5.0  # the edges are real slopes, not a flat comparison


def test_normal_map_matches_gdaldem_slope_and_aspect_edges_included(dem, tmp_path):
    """The unit normal from gdaldem's slope and aspect (the downslope azimuth): (sin s sin a, sin s cos a, cos s)."""
    slope = np.radians(gdaldem(tmp_path, "slope", dem, "-compute_edges"))
    aspect = np.radians(gdaldem(tmp_path, "aspect", dem, "-compute_edges", "-zero_for_flat"))
    reference = np.stack([np.sin(slope) * np.sin(aspect), np.sin(slope) * np.cos(aspect), np.cos(slope)], axis=-1)
    ours = normal_map(dem, CELL).astype(np.float64) * 2.0 - 1.0
    keep = all_but_corners(dem.shape)
    assert np.abs(ours[keep] - reference[keep]).max() <= 1e-4


def test_colormap_matches_gdaldem_color_relief_on_a_height_ramp(tmp_path):
    """Layers that partition the range (each from the previous optimum to the next) blend linearly,
    which is what a colour-relief table with an entry at each optimum does."""
    optima = [0.0, 0.3, 0.55, 0.8, 1.0]
    colors = [(0.1, 0.3, 0.05), (0.45, 0.6, 0.2), (0.5, 0.4, 0.3), (0.6, 0.6, 0.62), (1.0, 1.0, 1.0)]
    layers = tuple(
        core.Layer(
            f"l{i}", colors[i], optima[i - 1] if i else -1.0, optima[i], optima[i + 1] if i + 1 < len(optima) else 2.0
        )
        for i in range(len(optima))
    )
    ramp = np.tile(np.linspace(0.0, 1.0, 1001), (2, 1))
    table = tmp_path / "colors.txt"
    table.write_text(
        "".join(
            f"{o * 1000:.3f} {' '.join(str(round(c * 255)) for c in col)}\n"
            for o, col in zip(optima, colors, strict=True)
        )
    )
    # color-relief writes three bands; an ASCII grid holds one, so split them with gdal_translate.
    src, relief = tmp_path / "ramp.asc", tmp_path / "relief.tif"
    write_ascii_grid(src, ramp * 1000.0, 1.0)
    subprocess.run(
        [GDALDEM, "color-relief", str(src), str(table), str(relief), "-of", "GTiff"], check=True, capture_output=True
    )
    channels = []
    for band in (1, 2, 3):
        band_grid = tmp_path / f"band{band}.asc"
        subprocess.run(
            [shutil.which("gdal_translate"), "-b", str(band), "-of", "AAIGrid", str(relief), str(band_grid)],
            check=True,
            capture_output=True,
        )
        channels.append(read_ascii_grid(band_grid))
    reference = np.stack(channels, axis=-1)
    ours = np.rint(255.0 * core.colormap(ramp, layers).astype(np.float64))
    assert np.abs(ours - reference).max() <= 1.0
