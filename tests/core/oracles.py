"""fastscapelib (GPL-3, a test and benchmark dependency only) as the oracle of core.erosion's flow and stream_power.

Every helper calls :func:`fastscapelib`, which skips the calling test when
fastscapelib is missing, unless OROGEN_REQUIRE_ORACLES=1 makes that a failure.
"""

import os

import numpy as np
import pytest


def fastscapelib():
    """The fastscapelib module, or skip (fail with OROGEN_REQUIRE_ORACLES=1) when it is not installed."""
    try:
        import fastscapelib as fs
    except ImportError:  # pragma: no cover - depends on the environment
        if os.environ.get("OROGEN_REQUIRE_ORACLES") == "1":
            raise RuntimeError(
                "fastscapelib is required (OROGEN_REQUIRE_ORACLES=1): pip install -r scripts/requirements.txt"
            ) from None
        pytest.skip("fastscapelib (pip: fastscapelib==0.3.0) is not installed: the oracle tests need it")
    return fs


def grid(shape, cell, base=None):
    """A raster grid with all four edges fixed (base level), as Orogen's default open_edges="nesw".

    ``base``: an optional boolean map of more fixed (base-level) cells, such as the sea.
    """
    fs = fastscapelib()
    nodes = None
    if base is not None:
        nodes = {(int(r), int(c)): fs.NodeStatus.FIXED_VALUE for r, c in np.argwhere(base)}
    return fs.RasterGrid(list(shape), [cell, cell], fs.NodeStatus.FIXED_VALUE, nodes)


def mst_graph(g):
    """D8 with closed depressions resolved by the basin graph (Kruskal MST, carved routes), Orogen's method."""
    fs = fastscapelib()
    return fs.FlowGraph(g, [fs.SingleFlowRouter(), fs.MSTSinkResolver(fs.MSTMethod.KRUSKAL, fs.MSTRouteMethod.CARVE)])


def mfd_graph(g, exponent):
    """Multiple flow (MultiFlowRouter) on the D8 + basin-graph routing, depressions filled along it (+1 ulp a cell)."""
    fs = fastscapelib()
    return fs.FlowGraph(
        g,
        [
            fs.SingleFlowRouter(),
            fs.MSTSinkResolver(fs.MSTMethod.KRUSKAL, fs.MSTRouteMethod.CARVE),
            fs.MultiFlowRouter(exponent),
        ],
    )


def run(z0, cell, *, k, m, n, uplift, diffusion, dt, steps, mfd_exponent=None):
    """fastscapelib's "mountain" loop: uplift, route, accumulate, SPL erode, ADI diffuse. Returns float64 heights.

    ``mfd_exponent``: route with ``MultiFlowRouter(mfd_exponent)`` instead of D8.
    """
    fs = fastscapelib()
    g = grid(z0.shape, cell)
    graph = mst_graph(g) if mfd_exponent is None else mfd_graph(g, mfd_exponent)
    spl = fs.SPLEroder(graph, k_coef=k, area_exp=m, slope_exp=n, tolerance=1e-9)
    dif = fs.DiffusionADIEroder(g, diffusion)
    up = np.full(z0.shape, uplift)
    up[[0, -1], :] = 0.0
    up[:, [0, -1]] = 0.0
    z = np.array(z0, dtype=np.float64)
    area = np.empty_like(z)
    for _ in range(steps):
        lifted = z + dt * up
        graph.update_routes(lifted)
        graph.accumulate(area, 1.0)
        incised = lifted - spl.erode(lifted, area, dt)
        z = incised - dif.erode(incised, dt)
    return z


def routing(z, cell, base=None):
    """fastscapelib's receivers, receiver distances and drainage area (m²) of a surface (``base``: see grid)."""
    g = grid(z.shape, cell, base)  # kept alive while the graph is used: the graph does not own it
    graph = mst_graph(g)
    graph.update_routes(np.asarray(z, dtype=np.float64))
    impl = graph.impl()
    out = impl.receivers[:, 0].astype(np.int64), impl.receivers_distance[:, 0].copy(), graph.accumulate(1.0).copy()
    del impl, graph, g
    return out


def mfd_area(z, cell, exponent, base=None):
    """fastscapelib's multiple-flow drainage area (m²) and its filled surface (``base``: see grid)."""
    g = grid(z.shape, cell, base)
    graph = mfd_graph(g, exponent)
    zf = graph.update_routes(np.asarray(z, dtype=np.float64)).copy()
    area = graph.accumulate(1.0).copy()
    del graph, g
    return area, zf


def filled(z, cell, base=None):
    """fastscapelib's priority-flood filled surface (Barnes et al. 2014, +epsilon; ``base``: see grid)."""
    fs = fastscapelib()
    g = grid(z.shape, cell, base)
    graph = fs.FlowGraph(g, [fs.SingleFlowRouter(), fs.PFloodSinkResolver()])
    out = graph.update_routes(np.asarray(z, dtype=np.float64)).copy()
    del graph, g
    return out


def d8(z, cell):
    """fastscapelib's D8 receivers without depression handling."""
    fs = fastscapelib()
    g = grid(z.shape, cell)
    graph = fs.FlowGraph(g, [fs.SingleFlowRouter()])
    graph.update_routes(np.asarray(z, dtype=np.float64))
    out = graph.impl().receivers[:, 0].astype(np.int64)
    del graph, g
    return out
