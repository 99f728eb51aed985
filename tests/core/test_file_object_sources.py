"""Sources: a file in its metres and a mesh seen from above, exact, resampled, windows equal to the whole."""

import json

import numpy as np
import pytest

import core
from core import inputs
from core.generators import sources
from core.io import formats
from core.sources import Source
from core.spec import TerrainSpec
from core.window import Window


def metres_file(tmp_path, rows=21, cols=33, height_m=128.0, name="below.npy"):
    y, x = np.mgrid[0:rows, 0:cols]
    metres = (-37.5 + 118.0 * (0.5 + 0.5 * np.sin(x / 4.0) * np.cos(y / 3.0))).astype(np.float32)
    metres[0, 0], metres[-1, -1] = -37.5, 80.5
    path = str(tmp_path / name)
    formats.write_npy(path, metres)
    info = formats.sidecar_info(
        path,
        metres.shape,
        "NPY",
        absolute=True,
        height_range=(-37.5, 80.5),
        extra={"width_m": 320.0, "height_m": height_m},
    )
    (tmp_path / (name + ".json")).write_text(json.dumps(info))
    return path, metres


def file_spec(path, shape, height=128.0, **params):
    rows, cols = shape
    return TerrainSpec(
        size=cols,
        size_y=rows if rows != cols else 0,
        width=320.0,
        height=height,
        generator="file",
        params={"path": path, **params},
        filters=(),
    )


def test_a_file_in_metres_comes_back_bit_for_bit(tmp_path):
    path, metres = metres_file(tmp_path)
    spec = file_spec(path, metres.shape)
    h = spec.heightmap()
    assert h.dtype == np.float32 and h.shape == metres.shape
    assert np.array_equal(h * np.float32(spec.height), metres)  # the mesh's Z: the file's metres, base and all
    assert h.min() < 0  # not re-normalised


def test_a_height_given_scales_the_files_relief(tmp_path):
    path, metres = metres_file(tmp_path)
    h = file_spec(path, metres.shape, height=64.0).heightmap()
    assert np.allclose(h * 64.0, metres / 2.0, atol=1e-4)


def test_a_file_without_scale_spans_its_height(tmp_path):
    ramp = np.tile(np.linspace(3.0, 7.0, 16, dtype=np.float32), (12, 1))
    path = str(tmp_path / "ramp.npy")
    np.save(path, ramp)
    spec = file_spec(path, ramp.shape, height=20.0)
    z = spec.heightmap() * np.float32(20.0)
    assert np.array_equal(z, core.normalize(ramp) * np.float32(20.0))


def test_a_raw_file_reads_as_its_levels(tmp_path):
    levels = (np.arange(17 * 17).reshape(17, 17) * 200 % 65536).astype(np.float32) / 65535
    path = str(tmp_path / "t.r16")
    formats.write_raw(path, levels)
    z = file_spec(path, (17, 17), height=10.0).heightmap() * np.float32(10.0)
    assert np.array_equal(z, core.normalize(formats.read_raw(path)) * np.float32(10.0))


def test_another_size_is_resampled_bilinearly_and_windows_equal_the_whole(tmp_path):
    path, metres = metres_file(tmp_path)
    spec = file_spec(path, (41, 65))
    recipe = spec.recipe()
    whole = recipe.evaluate()
    z = whole.astype(np.float64) * 128.0
    # corners on corners; a vertex halfway between two file columns is their mean
    assert z[0, 0] == pytest.approx(metres[0, 0], abs=1e-4) and z[-1, -1] == pytest.approx(metres[-1, -1], abs=1e-4)
    assert z[0, 1] == pytest.approx((metres[0, 0] + metres[0, 1]) / 2, abs=1e-4)
    assert z[2, 2] == pytest.approx(metres[1, 1], abs=1e-4)
    ranges = recipe.world_ranges()
    for win in (Window(0, 0, 20, 30), Window(17, 31, 24, 34), Window(40, 64, 1, 1)):
        part = recipe.evaluate(win, ranges)
        assert np.array_equal(part, whole[win.row : win.row + win.shape[0], win.col : win.col + win.shape[1]])


def test_a_filter_works_on_the_files_metres(tmp_path):
    path, metres = metres_file(tmp_path)
    spec = file_spec(path, metres.shape).replace(filters=(("terrace", {}),))
    assert not np.array_equal(spec.heightmap(), file_spec(path, metres.shape).heightmap())


def test_bad_files_are_named(tmp_path):
    with pytest.raises(ValueError, match=r"file\.path: names no file"):
        file_spec("", (9, 9)).heightmap()
    with pytest.raises(ValueError, match=r"file\.path: no such file"):
        file_spec(str(tmp_path / "gone.npy"), (9, 9)).heightmap()
    (tmp_path / "x.txt").write_text("1")
    with pytest.raises(ValueError, match=r"file\.path: cannot read \.txt"):
        file_spec(str(tmp_path / "x.txt"), (9, 9)).heightmap()
    np.save(tmp_path / "bad.npy", np.float32([[0.0, np.nan], [1.0, 2.0]]))
    with pytest.raises(ValueError, match="NaN or Inf"):
        file_spec(str(tmp_path / "bad.npy"), (9, 9)).heightmap()


def test_a_png_needs_its_decoded_pixels(tmp_path):
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\0" + bytes([i * 10 % 256] * 4) for i in range(4))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 0, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    path = str(tmp_path / "h.png")
    (tmp_path / "h.png").write_bytes(png)
    with pytest.raises(ValueError, match="decoded by Blender's image loader"):
        file_spec(path, (4, 4), height=10.0).heightmap()
    values = np.repeat(np.arange(4, dtype=np.float32)[:, None], 4, axis=1) / 255 * 10
    with inputs.using({("file", path): inputs.FileInput(values, name=path)}):
        h = file_spec(path, (4, 4), height=10.0).heightmap()
    assert np.array_equal(h * np.float32(10.0), core.normalize(values) * np.float32(10.0))


def test_grey_values_refuse_colour():
    rgba = np.ones((2, 2, 4), np.float32)
    assert np.array_equal(sources.grey_values(rgba, "g.png"), np.ones((2, 2), np.float32))
    rgba[0, 0, 1] = 0.5
    with pytest.raises(ValueError, match="g.png is a colour image"):
        sources.grey_values(rgba, "g.png")


def test_file_digest_is_the_sha256(tmp_path):
    import hashlib

    (tmp_path / "f").write_bytes(b"orogen")
    assert sources.file_digest(str(tmp_path / "f")) == hashlib.sha256(b"orogen").hexdigest()


# --- object source ------------------------------------------------------------------------------------------


def grid_mesh(n, half, z_of):
    """A grid of n x n vertices over [-half, half]^2 with z = z_of(x, y), two triangles per quad."""
    s = np.linspace(-half, half, n)
    x, y = np.meshgrid(s, s)
    v = np.stack([x.ravel(), y.ravel(), z_of(x, y).ravel()], axis=1)
    i = np.arange(n * n).reshape(n, n)
    a, b, c, d = i[:-1, :-1].ravel(), i[:-1, 1:].ravel(), i[1:, 1:].ravel(), i[1:, :-1].ravel()
    t = np.concatenate([np.stack([a, b, c], 1), np.stack([a, c, d], 1)])
    return inputs.MeshInput(v, t, name="Sculpt")


def object_spec(size=33, width=32.0, height=10.0, **params):
    return TerrainSpec(
        size=size, width=width, height=height, generator="object", params={"object": "Sculpt", **params}, filters=()
    )


def test_a_tilted_plane_gives_the_planes_heights():
    mesh = grid_mesh(5, 20.0, lambda x, y: 3.0 + 0.25 * x - 0.5 * y)
    spec = object_spec()
    with inputs.using({("mesh", "Sculpt"): mesh}):
        h = spec.heightmap()
    x, y = inputs.grid_xy(spec.shape, spec.cell_size)
    plane = (3.0 + 0.25 * x[None, :] - 0.5 * y[:, None]).astype(np.float32)
    assert np.abs(h * np.float32(10.0) - plane).max() <= 2e-5
    assert (h * np.float32(10.0)).min() < 0  # metres, not normalised


def test_a_pyramid_gives_its_apex_and_uncovered_cells_the_fill():
    v = np.array([[-8.0, -8.0, 1.0], [8.0, -8.0, 1.0], [8.0, 8.0, 1.0], [-8.0, 8.0, 1.0], [0.0, 0.0, 9.0]])
    t = np.array([[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]])
    mesh = inputs.MeshInput(v, t, name="Sculpt")
    spec = object_spec()
    with inputs.using({("mesh", "Sculpt"): mesh}):
        low = spec.heightmap() * np.float32(10.0)
        valued = spec.replace(params={"object": "Sculpt", "fill": "value", "fill_height": -2.0}).heightmap() * 10.0
    assert low[16, 16] == pytest.approx(9.0, abs=1e-6)  # the apex: the grid's centre vertex
    assert low[16, 20] == pytest.approx(9.0 - 8.0 * 4 / 8, abs=1e-5)  # halfway down a face
    assert low[0, 0] == 1.0 and low[16, 4] == 1.0  # outside: the lowest vertex
    assert valued[0, 0] == -2.0 and valued[16, 16] == pytest.approx(9.0, abs=1e-6)


def test_the_highest_surface_wins_and_windows_equal_the_whole():
    floor = grid_mesh(3, 20.0, lambda x, y: 0.0 * x)
    roof = grid_mesh(3, 5.0, lambda x, y: 4.0 + 0.0 * x)
    v = np.concatenate([floor.vertices, roof.vertices])
    t = np.concatenate([floor.triangles, roof.triangles + len(floor.vertices)])
    mesh = inputs.MeshInput(v, t, name="Sculpt")
    spec = object_spec(size=41, width=40.0)
    with inputs.using({("mesh", "Sculpt"): mesh}):
        recipe = spec.recipe()
        whole = recipe.evaluate()
        ranges = recipe.world_ranges()
        parts = {w: recipe.evaluate(w, ranges) for w in (Window(0, 0, 13, 29), Window(11, 7, 30, 34))}
    z = whole * np.float32(10.0)
    assert z[20, 20] == 4.0 and z[0, 0] == 0.0
    for w, part in parts.items():
        assert np.array_equal(part, whole[w.row : w.row + w.shape[0], w.col : w.col + w.shape[1]])


def test_an_object_source_needs_its_mesh():
    with pytest.raises(ValueError, match=r"object\.object: no mesh 'Sculpt' was given"):
        object_spec().heightmap()
    with pytest.raises(ValueError, match=r"object\.object: names no object"):
        object_spec(object="").heightmap()
    with pytest.raises(ValueError, match=r"object\.fill"):
        object_spec(fill="middle")


def test_existing_generators_still_normalise():
    assert not core.GENERATORS["hills"].metres and core.GENERATORS["file"].metres and core.GENERATORS["object"].metres
    h = TerrainSpec(size=17, filters=()).heightmap()
    assert h.min() == 0.0 and h.max() == 1.0


def test_a_blend_relative_path_needs_the_blend_folder(tmp_path):
    path, metres = metres_file(tmp_path)
    spec = file_spec("//below.npy", metres.shape)
    with pytest.raises(ValueError, match=r"file\.path: //below\.npy is relative to the \.blend file"):
        spec.heightmap()
    sources.set_guards(blend_folder=str(tmp_path))
    try:
        assert np.array_equal(spec.heightmap(), file_spec(path, metres.shape).heightmap())
    finally:
        sources.set_guards()


def test_the_guards_refuse_before_reading(tmp_path):
    path, metres = metres_file(tmp_path)

    def refuse(rows, cols):
        raise ValueError(f"{rows} x {cols} is too much here")

    sources.set_guards(check_size=refuse)
    try:
        with pytest.raises(ValueError, match=r"file\.path: 21 x 33 is too much here"):
            file_spec(path, metres.shape).heightmap()
    finally:
        sources.set_guards()


def test_a_source_in_metres_keeps_its_metres_in_the_stack():
    mesh = grid_mesh(5, 20.0, lambda x, y: 3.0 + 0.25 * x - 0.5 * y)
    alone = object_spec()
    base = TerrainSpec(size=33, width=32.0, height=10.0, filters=())
    layered = base.replace(sources=(Source("object", {"object": "Sculpt"}, {"blend": "add", "height": 999.0}),))
    with inputs.using({("mesh", "Sculpt"): mesh}):
        plane = alone.heightmap().astype(np.float64) * 10.0
        both = layered.heightmap().astype(np.float64) * 10.0
    hills = base.heightmap().astype(np.float64) * 10.0
    assert np.abs(both - (hills + plane)).max() <= 2e-5  # the mesh's metres added; its "height" does not scale them
    assert plane.min() < 0 < plane.max()
