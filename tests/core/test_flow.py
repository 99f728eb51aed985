"""Flow routing: invariants, and fastscapelib's D8 + basin-graph (MSTSinkResolver) routing as the oracle."""

import numpy as np
import oracles
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.erosion import flow
from core.generators.midpoint_displacement import diamond_square


def ds_terrain(n, seed, roughness, relief=500.0):
    z = diamond_square((n, n), seed, roughness=roughness)
    return (z - z.min()) / (z.max() - z.min()) * relief


def check_invariants(r, z):
    rows, cols = r.shape
    size = rows * cols
    cells = np.arange(size)
    # every receiver is the cell itself (outlets) or one of its eight neighbours
    dr = np.abs(r.receivers // cols - cells // cols)
    dc = np.abs(r.receivers % cols - cells % cols)
    assert (np.maximum(dr, dc) <= 1).all()
    outlets = r.receivers == cells
    # with depressions resolved, the outlets are exactly the base-level cells
    assert np.array_equal(outlets, r.base_level.ravel())
    # the stack holds every cell once, each after its receiver
    assert np.array_equal(np.sort(r.order), cells)
    pos = np.empty(size, dtype=np.int64)
    pos[r.order] = np.arange(size)
    assert (pos[r.receivers[~outlets]] < pos[~outlets]).all()
    assert r.level_starts[0] == 0 and r.level_starts[-1] == size and r.level_starts[1] == outlets.sum()
    # distances: 0 at outlets, a cell or a diagonal elsewhere
    d = r.distances / r.cell_size
    assert (d[outlets] == 0).all()
    assert np.isin(np.round(d[~outlets], 12), [1.0, round(np.sqrt(2.0), 12)]).all()
    area = flow.drainage_area(r)
    assert np.isfinite(area).all() and (area >= r.cell_size**2).all()
    assert area[r.base_level].sum() == pytest.approx(size * r.cell_size**2, rel=1e-12)


def test_every_cell_drains_to_an_outlet_on_noise():
    z = np.random.default_rng(3).random((97, 131))
    r = flow.route_flow(z, 30.0)
    assert r.depressions > 500  # white noise is all pits
    check_invariants(r, z)


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 24), st.integers(3, 24), st.integers(0, 2**32 - 1), st.sampled_from(["nesw", "n", "we", "s"]))
def test_invariants_hold_for_any_surface_and_edges(rows, cols, seed, edges):
    rng = np.random.default_rng(seed)
    z = np.round(rng.random((rows, cols)) * 4) / 4  # flats and ties too
    r = flow.route_flow(z, 2.0, open_edges=edges)
    check_invariants(r, z)


def test_sea_level_cells_are_outlets():
    z = ds_terrain(65, 2, 1.2)
    r = flow.route_flow(z, 10.0, open_edges="", sea_level=150.0)
    assert np.array_equal(r.base_level, z < 150.0)
    check_invariants(r, z)


def test_a_tilted_plane_drains_straight_down_and_areas_count_columns():
    rows, cols = 6, 5
    z = np.repeat(np.arange(rows, 0, -1, dtype=np.float64)[:, None], cols, axis=1)  # falls to the south
    r = flow.route_flow(z, 10.0, open_edges="s")
    assert (flow.flow_direction(r)[:-1] == 6).all()  # S
    area = flow.drainage_area(r)
    assert area[-1].tolist() == [rows * 100.0] * cols
    assert flow.flow_length(r)[-1].tolist() == [(rows - 1) * 10.0] * cols


def test_a_pit_drains_over_its_lowest_pass():
    z = np.full((5, 7), 10.0)
    z[1:4, 1:6] = [[5, 6, 7, 8, 9], [4, 1, 3, 6, 9], [5, 6, 7, 8, 9]]
    z[2, 0] = 0.0  # the lowest edge cell
    r = flow.route_flow(z, 1.0)
    assert r.depressions == 1  # the pit at (2, 2)
    rec = r.receivers.reshape(5, 7)
    assert rec[2, 2] == 2 * 7 + 1  # its lowest pass is max(1, 4) = 4, towards (2, 1) ...
    assert rec[2, 1] == 2 * 7 + 0  # ... which drains to the edge
    assert rec[2, 3] == 2 * 7 + 2 and rec[1, 2] == 2 * 7 + 2  # the rest of the basin drains through the pit
    check_invariants(r, z)


def test_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match="cell_size"):
        flow.route_flow(np.zeros((4, 4)), 0.0)
    with pytest.raises(ValueError, match="open_edges"):
        flow.route_flow(np.zeros((4, 4)), 1.0, open_edges="x")
    with pytest.raises(ValueError, match="no base level"):
        flow.route_flow(np.zeros((4, 4)), 1.0, open_edges="")
    with pytest.raises(ValueError, match="NaN"):
        flow.route_flow(np.full((4, 4), np.nan), 1.0)
    with pytest.raises(TypeError, match="routing"):
        flow.drainage_area(np.zeros((4, 4)))


# --- fastscapelib as the oracle ---------------------------------------------------------------
def test_d8_receivers_equal_fastscapelib():
    z = np.random.default_rng(11).random((257, 257))
    r = flow.route_flow(z, 100.0, resolve_depressions=False, flats="first")
    assert np.array_equal(r.receivers, oracles.d8(z, 100.0))


@pytest.mark.parametrize(("seed", "roughness"), [(3, 1.5), (5, 1.5), (8, 2.0)])
def test_depression_routing_and_drainage_area_equal_fastscapelib(seed, roughness):
    z = ds_terrain(257, seed, roughness)
    z[[0, -1], :] = 0.0
    z[:, [0, -1]] = 0.0
    r = flow.route_flow(z, 200.0, flats="first")  # fastscapelib's ties: the first neighbour
    assert r.depressions > 0
    rec, dist, area = oracles.routing(z, 200.0)
    assert np.array_equal(r.receivers, rec)
    assert np.allclose(r.distances, dist, rtol=1e-15, atol=0)
    assert np.allclose(flow.drainage_area(r).ravel(), area.ravel(), rtol=1e-12)


def pass_heights(z, receivers, d8_receivers):
    """Heights of the passes the routing uses: max(z) of each link from one D8 basin into another."""
    ptr = d8_receivers.copy()
    while not np.array_equal(ptr[ptr], ptr):
        ptr = ptr[ptr]
    crossing = ptr[receivers] != ptr
    zf = z.ravel()
    return np.sort(np.maximum(zf[crossing], zf[receivers[crossing]]))


def test_on_white_noise_the_spanning_tree_weights_equal_fastscapelib():
    """With equal pass heights (one high cell next to three basins), the tree is not unique.

    fastscapelib sorts the basin graph's edges with ``std::sort`` (not
    stable), so which of two equally high passes it takes is an accident of
    the sort; Orogen takes the first in fastscapelib's edge-creation order.
    All minimum spanning trees have the same multiset of weights, so the pass
    heights must agree exactly, and the routings in all but a few cells.
    """
    z = np.random.default_rng(1234).random((257, 257))
    r = flow.route_flow(z, 100.0, flats="first")
    rec, _, _ = oracles.routing(z, 100.0)
    d8 = oracles.d8(z, 100.0)
    assert np.array_equal(pass_heights(z, r.receivers, d8), pass_heights(z, rec, d8))
    assert r.depressions > 5000 and (r.receivers != rec).mean() < 0.01


# --- multiple flow direction ------------------------------------------------------------------
def check_mfd_invariants(r):
    size = r.shape[0] * r.shape[1]
    cells = np.arange(size)
    outlets = r.base_level.ravel()
    # outlets send nothing; every other cell sends all its water (weights sum to 1) to lower neighbours
    assert not r.receives[:, outlets].any() and (r.weights[:, outlets] == 0).all()
    assert r.receives[:, ~outlets].any(axis=0).all()
    assert np.allclose(r.weights[:, ~outlets].sum(axis=0), 1.0, rtol=0, atol=1e-12)
    assert ((r.weights > 0) <= r.receives).all()
    # the order holds every cell once, each after all its receivers, and receivers are lower on the filled surface
    assert np.array_equal(np.sort(r.order), cells)
    pos = np.empty(size, dtype=np.int64)
    pos[r.order] = np.arange(size)
    zf = r.filled.ravel()
    for k, off in enumerate(flow._flat_offsets(r.shape[1])):
        i = cells[r.receives[k]]
        assert (pos[i + off] < pos[i]).all() and (zf[i + off] < zf[i]).all()
    area = flow.drainage_area(r)
    assert (area >= r.cell_size**2 * (1 - 1e-12)).all()
    assert area[r.base_level].sum() == pytest.approx(size * r.cell_size**2, rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    st.integers(3, 24),
    st.integers(3, 24),
    st.integers(0, 2**32 - 1),
    st.sampled_from(["nesw", "n", "we", "s"]),
    st.sampled_from([0.0, 1.0, 1.1, 6.0]),
)
def test_mfd_invariants_hold_for_any_surface_edges_and_exponent(rows, cols, seed, edges, p):
    rng = np.random.default_rng(seed)
    z = np.round(rng.random((rows, cols)) * 4) / 4  # flats, ties and closed depressions
    r = flow.route_multiple_flow(z, 2.0, exponent=p, open_edges=edges)
    assert (r.filled >= z).all()
    check_mfd_invariants(r)


@pytest.mark.parametrize("p", [1.0, 1.1, 5.0])
def test_mfd_on_a_plane_is_the_analytic_partition(p):
    """z = 0.03 x + 0.02 y (x east, y south, metres): rising to the east and south.

    An inner cell's lower neighbours are NW, N, W and SW (NE drops -0.1 m: uphill); each share is its slope
    to the power p over the sum of them.
    """
    rows, cols, cs = 9, 11, 10.0
    yy, xx = np.mgrid[0:rows, 0:cols] * cs
    z = 0.03 * xx + 0.02 * yy
    r = flow.route_multiple_flow(z, cs, exponent=p)
    slopes = []
    for dr, dc in flow.NEIGHBOR_OFFSETS:
        drop = -(0.03 * dc * cs + 0.02 * dr * cs)
        slopes.append(max(drop, 0.0) / (cs * np.hypot(dr, dc)))
    slopes = np.array(slopes)
    expected = slopes**p / (slopes**p).sum()
    inner = np.zeros((rows, cols), dtype=bool)
    inner[1:-1, 1:-1] = True
    got = r.weights[:, inner.ravel()]
    assert np.allclose(got, expected[:, None], rtol=1e-12, atol=0)
    assert np.array_equal(r.receives[:, inner.ravel()], np.broadcast_to((slopes > 0)[:, None], got.shape))
    assert (expected[[2, 4, 6, 7]] == 0).all() and (expected[[0, 1, 3, 5]] > 0).all()  # NE, E, S, SE uphill


def test_mfd_area_crossing_each_row_of_a_southward_plane_is_the_area_above_it():
    """A plane falling to the south, closed W and E edges: all water crosses every row (area conservation)."""
    rows, cols, cs = 12, 7, 5.0
    z = np.repeat(np.arange(rows, 0, -1, dtype=np.float64)[:, None], cols, axis=1)
    r = flow.route_multiple_flow(z, cs, open_edges="s")
    area = flow.drainage_area(r)
    # row i receives all of rows 0..i-1 and adds its own: the row sum is (i + 1) x cols cells
    assert np.allclose(area.sum(axis=1), (np.arange(rows) + 1) * cols * cs * cs, rtol=1e-12)
    # an inner cell shares between S (slope 1/cs) and SW, SE (1/(cs sqrt 2)): Quinn's weights
    w = r.weights[:, 3 * cols + 3]
    s, d = 1.0 / cs, 1.0 / (cs * np.sqrt(2.0))
    assert w[6] == pytest.approx(s / (s + 2 * d), rel=1e-12) and w[5] == pytest.approx(d / (s + 2 * d), rel=1e-12)
    assert area[-1].sum() == pytest.approx(rows * cols * cs * cs, rel=1e-12)


def test_mfd_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match="flow_exponent"):
        flow.route_multiple_flow(np.zeros((4, 4)), 1.0, exponent=-1.0)
    with pytest.raises(ValueError, match="no base level"):
        flow.route_multiple_flow(np.zeros((4, 4)), 1.0, open_edges="")


@pytest.mark.parametrize(("seed", "p"), [(3, 1.0), (5, 1.1), (8, 4.0)])
def test_mfd_filled_surface_and_drainage_area_equal_fastscapelib(seed, p):
    """fastscapelib's SingleFlowRouter + MSTSinkResolver(Kruskal, carve) + MultiFlowRouter(p), 257²."""
    z = ds_terrain(257, seed, 1.5 if seed != 8 else 2.0)
    z[[0, -1], :] = 0.0
    z[:, [0, -1]] = 0.0
    r = flow.route_multiple_flow(z, 200.0, exponent=p, flats="first")
    assert r.single.depressions > 0
    check_mfd_invariants(r)
    area, zf = oracles.mfd_area(z, 200.0, p)
    assert np.array_equal(r.filled, zf)  # the same one-ulp steps
    assert np.allclose(flow.drainage_area(r), area, rtol=1e-12, atol=0)
    assert not np.allclose(flow.drainage_area(r), flow.drainage_area(r.single), rtol=0.1)  # not D8 in disguise


@settings(max_examples=40, deadline=None)
@given(
    st.integers(4, 40),
    st.integers(4, 40),
    st.integers(0, 2**32 - 1),
    st.integers(2, 6),
    st.sampled_from(["nesw", "n", "", "ew"]),
    st.sampled_from(["towards_lower", "first"]),
)
def test_tied_passes_are_ordered_as_the_whole_scanning_order_orders_them(rows, cols, seed, levels, edges, flats):
    # a few height levels: many passes of equal height, so the order among tied links decides the routing
    z = np.random.default_rng(seed).integers(0, levels, (rows, cols)).astype(np.float64)
    if not edges:
        z[0, 0] = 0.0  # the sea below 0.5 m is the base level
    kw = {"open_edges": edges, "sea_level": 0.5 if not edges else None, "flats": flats}
    with pytest.MonkeyPatch.context() as mp:  # equally low passes ordered by the whole scanning order
        mp.setattr(flow, "_tie_ranks", lambda *args: None)
        whole = flow.route_flow(z, 10.0, **kw)
    pairwise = flow.route_flow(z, 10.0, **kw)
    assert pairwise.depressions == whole.depressions
    for name in ("receivers", "distances", "order", "level_starts"):
        assert np.array_equal(getattr(pairwise, name), getattr(whole, name)), name


def test_listed_before_agrees_with_the_scanning_ranks_on_a_real_terrain():
    z = diamond_square((129, 129), seed=4, roughness=1.5).astype(np.float64) * 300.0
    rows, cols = z.shape
    base = flow.base_level_mask(z, "nesw", None)
    rec, _, _ = flow._d8(z, base, 10.0, "towards_lower")
    offsets = flow._padded_offsets(cols)
    roots = np.flatnonzero(rec == np.arange(rec.size))
    base_p = np.zeros(rec.size, dtype=bool)
    base_p.reshape(rows + 2, cols + 2)[1:-1, 1:-1] = base
    is_pit = np.zeros(rec.size, dtype=bool)
    is_pit[roots] = ~base_p[roots]
    levels, label = flow._levels(rec, roots, offsets)
    rank = flow._scan_order(rec, levels, label, is_pit, offsets)
    inner = np.flatnonzero((label >= 0) & is_pit[np.maximum(label, 0)])
    u = np.random.default_rng(0).choice(inner, 20000)
    u = u[np.argsort(label[u], kind="stable")]
    v = np.roll(u, 1)
    same = label[u] == label[v]  # pairs within one closed basin
    u, v = u[same], v[same]
    assert u.size > 10000 and (u != v).sum() > 10000
    assert np.array_equal(flow._listed_before(rec, u, v), rank[u] < rank[v])
    assert np.array_equal(flow._listed_before(rec, v, u), rank[v] < rank[u])
