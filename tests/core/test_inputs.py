"""core.inputs: the objects a spec reads, given per evaluation and checked when made."""

import threading

import numpy as np
import pytest

from core import inputs
from core.params import Param
from core.window import Window

TRI = np.array([[0, 1, 2]])
VERTS = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])


def test_get_inside_and_outside_using():
    mesh = inputs.MeshInput(VERTS, TRI, name="Sculpt")
    with inputs.using({("mesh", "Sculpt"): mesh}):
        assert inputs.get("mesh", "Sculpt", "object.object") is mesh
        with pytest.raises(ValueError, match=r"object\.object: no curve 'Sculpt' was given"):
            inputs.get("curve", "Sculpt", "object.object")
    with pytest.raises(ValueError, match="no mesh 'Sculpt' was given"):
        inputs.get("mesh", "Sculpt", "object.object")
    with pytest.raises(ValueError, match="names no object"):
        inputs.get("mesh", "", "object.object")


def test_inputs_are_per_thread():
    seen = []
    mesh = inputs.MeshInput(VERTS, TRI)
    with inputs.using({("mesh", "a"): mesh}):
        t = threading.Thread(target=lambda: seen.append(dict(inputs.current())))
        t.start()
        t.join()
    assert seen == [{}]


@pytest.mark.parametrize(
    ("verts", "tri", "match"),
    [
        (VERTS[:, :2], TRI, r"vertices must be \(n, 3\)"),
        (VERTS, np.array([[0, 1, 3]]), "indices must be 0..2"),
        (VERTS, np.array([[0.0, 1.0, 2.0]]), "triangles must be integer"),
        (np.where(VERTS == 1.0, np.nan, VERTS), TRI, "5 coordinates are NaN"),
    ],
)
def test_bad_meshes_are_refused(verts, tri, match):
    with pytest.raises(ValueError, match=match):
        inputs.MeshInput(verts, tri)


def test_bad_curves_and_weights_are_refused():
    with pytest.raises(ValueError, match="has no splines"):
        inputs.CurveInput(())
    with pytest.raises(ValueError, match="spline 0 must be"):
        inputs.CurveInput((np.zeros((1, 3)),))
    with pytest.raises(ValueError, match="0..1"):
        inputs.WeightsInput(np.full((3, 3), 1.5))
    with pytest.raises(TypeError, match="must be a MeshInput"):
        with inputs.using({("mesh", "a"): inputs.WeightsInput(np.zeros((2, 2)))}):
            pass


def test_digest_follows_the_data():
    a = inputs.MeshInput(VERTS, TRI)
    b = inputs.MeshInput(VERTS.copy(), TRI.copy())
    c = inputs.MeshInput(VERTS + [0, 0, 0.5], TRI)
    assert a.digest == b.digest != c.digest
    with inputs.using({("mesh", "a"): a}):
        assert inputs.digest("mesh", "a") == a.digest
        assert inputs.digest("mesh", "b") is None


def test_grid_xy_matches_the_mesh_layout_and_windows():
    x, y = inputs.grid_xy((3, 5), 2.0)
    assert x.tolist() == [-4.0, -2.0, 0.0, 2.0, 4.0]
    assert y.tolist() == [2.0, 0.0, -2.0]  # row 0 north
    wx, wy = inputs.grid_xy((3, 5), 2.0, Window(1, 2, 2, 3))
    assert wx.tolist() == x[2:5].tolist() and wy.tolist() == y[1:3].tolist()


def test_object_params_need_their_input_kind():
    assert Param("curve", "object", "", object_kind="curve").check("River") == "River"
    with pytest.raises(ValueError, match="object_kind"):
        Param("curve", "object", "")
    with pytest.raises(ValueError, match="object_kind"):
        Param("count", "int", 1, hard=(0, 2), object_kind="mesh")


def test_coordinates_beyond_the_cap_are_refused_naming_the_input():
    far = VERTS.copy()
    far[0, 2] = 3e38
    with pytest.raises(ValueError, match=r"mesh 'Sculpt': reaches 3e\+38 m from the terrain's centre"):
        inputs.MeshInput(far, TRI, name="Sculpt")
    with pytest.raises(ValueError, match=r"curve 'River' spline 0: reaches"):
        inputs.CurveInput((np.array([[0.0, 0.0, 0.0], [2e12, 0.0, 0.0]]),), name="River")
