"""A vertex group painted on a terrain's source object as a mask (core/masks.py source "weights" given a
core.inputs.MeshInput with values): rasterised from above with the object source's z-buffer, windows exact."""

import numpy as np
import pytest

from core import inputs
from core.generators.sources import rasterise_values
from core.masks import default_mask, mask_weights
from core.spec import TerrainSpec
from core.window import Window


def grid_mesh(n, half, z=0.0, values=None, name="Source"):
    """An n x n vertex grid over [-half, half]² at height ``z`` (plus ``z`` as a function of x, y when callable),
    two triangles a quad; ``values`` a function of (x, y) giving each vertex's weight."""
    s = np.linspace(-half, half, n)
    xx, yy = np.meshgrid(s, s)
    zz = z(xx, yy) if callable(z) else np.full_like(xx, z)
    verts = np.column_stack([xx.ravel(), yy.ravel(), zz.ravel()])
    i = np.arange(n - 1)
    a = (i[:, None] * n + i[None, :]).ravel()
    tris = np.concatenate([np.column_stack([a, a + 1, a + n + 1]), np.column_stack([a, a + n + 1, a + n])])
    vals = None if values is None else values(xx.ravel(), yy.ravel()).astype(np.float64)
    return inputs.MeshInput(verts, tris, values=vals, name=name)


def weights_mask(group="Rock"):
    return {**default_mask(), "source": "weights", "group": group}


def test_a_half_painted_plane_masks_that_half():
    # 5 x 5 vertices over the 9 x 9 grid of 1 m cells: the vertices at x >= 0 painted 1, the others 0
    mesh = grid_mesh(5, 4.0, values=lambda x, y: (x >= 0).astype(float))
    h = np.zeros((9, 9), np.float32)
    with inputs.using({("weights", "Rock"): mesh}):
        w = mask_weights(weights_mask(), h, cell_size=1.0, height=1.0)
    x, _y = inputs.grid_xy((9, 9), 1.0)
    np.testing.assert_allclose(w[:, x >= 0], 1.0, atol=1e-6)
    np.testing.assert_allclose(w[:, x == -1], 0.5, atol=1e-6)  # halfway between a painted and a bare vertex
    assert np.all(w[:, x <= -2] == 0.0)
    # a hard range at 1: exactly the painted half
    with inputs.using({("weights", "Rock"): mesh}):
        hard = mask_weights({**weights_mask(), "low": 0.99, "high": 1.0}, h, cell_size=1.0, height=1.0)
    assert np.array_equal(hard, np.broadcast_to((x >= 0).astype(np.float32), (9, 9)))


def test_uncovered_cells_weigh_0_and_the_topmost_surface_wins():
    x, y = inputs.grid_xy((11, 11), 1.0)
    small = grid_mesh(3, 2.0, values=lambda x, y: np.ones_like(x))  # covers only |x|, |y| <= 2
    v = rasterise_values(small, x, y, cell_size=1.0)
    inside = (np.abs(y)[:, None] <= 2) & (np.abs(x)[None, :] <= 2)
    np.testing.assert_allclose(v[inside], 1.0, atol=1e-12)
    assert np.all(v[~inside] == 0.0)
    # two planes: the lower one painted 1 everywhere, the upper one (5 m above, over x < 0 only) painted 0
    low = grid_mesh(11, 5.0, values=lambda x, y: np.ones_like(x))
    high = grid_mesh(3, 2.0, z=5.0, values=lambda x, y: np.zeros_like(x))
    both = inputs.MeshInput(
        np.vstack([low.vertices, high.vertices]),
        np.vstack([low.triangles, high.triangles + len(low.vertices)]),
        values=np.concatenate([low.values, high.values]),
    )
    v = rasterise_values(both, x, y, cell_size=1.0)
    assert np.all(v[inside] == 0.0)  # under the upper plane: its weight, not the lower's
    np.testing.assert_allclose(v[~inside], 1.0, atol=1e-12)
    with pytest.raises(ValueError, match="no per-vertex values"):
        rasterise_values(inputs.MeshInput(low.vertices, low.triangles), x, y, cell_size=1.0)


def test_windows_equal_the_whole():
    rng = np.random.default_rng(3)
    n = 9
    mesh = grid_mesh(n, 12.3, z=lambda x, y: np.sin(x) + 0.3 * y, values=lambda x, y: rng.random(x.shape))
    world = (23, 19)
    h = np.zeros(world, np.float32)
    m = weights_mask()
    with inputs.using({("weights", "Rock"): mesh}):
        whole = mask_weights(m, h, cell_size=1.1, height=1.0)
        assert 0.0 < whole.max() <= 1.0 and len(np.unique(whole)) > 100
        for win in (Window(0, 0, 7, 5), Window(5, 3, 11, 9), Window(16, 12, 7, 7)):
            cells = (slice(win.row, win.row + win.rows), slice(win.col, win.col + win.cols))
            part = mask_weights(m, h[cells], cell_size=1.1, height=1.0, world_shape=world, window=win)
            assert np.array_equal(part, whole[cells])


def test_a_spec_from_an_object_takes_the_group_painted_on_it():
    world = {"version": 4, "size": 17, "width": 16.0, "height": 4.0}
    source = grid_mesh(9, 8.0, z=lambda x, y: 2.0 * np.sin(x) * np.cos(y / 2.0) + 2.0)
    painted = inputs.MeshInput(
        source.vertices, source.triangles, values=(source.vertices[:, 0] >= 0).astype(float), name="Src"
    )
    gen = {"generator": "object", "object": {"object": "Src"}}
    masked = {"type": "box_blur", "radius": 2.0, "mask": weights_mask()}
    spec = TerrainSpec.from_dict({**world, **gen, "filters": [masked]})
    assert ("box_blur.mask.group", "weights", "Rock") in spec.objects()
    plain = TerrainSpec.from_dict({**world, **gen})
    blurred = TerrainSpec.from_dict({**world, **gen, "filters": [{"type": "box_blur", "radius": 2.0}]})
    given = {("mesh", "Src"): source, ("weights", "Rock"): painted}
    with inputs.using(given):
        h, h0, h1 = spec.heightmap(), plain.heightmap(), blurred.heightmap()
    x, _y = inputs.grid_xy(spec.shape, spec.cell_size)
    assert not np.array_equal(h0, h1)
    np.testing.assert_array_equal(h[:, x < -1.0], h0[:, x < -1.0])  # unpainted (weight 0): unchanged
    np.testing.assert_allclose(h[:, x >= 0], h1[:, x >= 0], atol=1e-6)  # painted: the filter in full
    with pytest.raises(ValueError, match="needs its values"):
        with inputs.using({("weights", "Rock"): source}):
            pass
