"""Resampling a grid mesh's data onto another grid size (core.resample): what a terrain's size change does to the
user's data."""

import numpy as np

from core.resample import resample, resample_points


def test_points_are_bilinear_corner_on_corner_or_nearest():
    values = np.arange(9, dtype=np.float32).reshape(9, 1)  # a 3 x 3 grid: 0 1 2 / 3 4 5 / 6 7 8
    out = resample_points(values, (3, 3), (5, 5), smooth=True).reshape(5, 5)
    assert out[0, 0] == 0 and out[0, 4] == 2 and out[4, 0] == 6 and out[4, 4] == 8 and out[2, 2] == 4
    assert out[0, 1] == 0.5 and out[1, 1] == 2.0 and out.dtype == np.float32
    nearest = resample_points(values.astype(np.int32), (3, 3), (2, 2), smooth=False).reshape(2, 2)
    assert nearest.tolist() == [[0, 2], [6, 8]] and nearest.dtype == np.int32
    assert np.array_equal(resample(values, "POINT", smooth=True, old=(3, 3), new=(3, 3)), values)


def test_faces_edges_and_corners_take_the_face_under_each_new_face():
    faces = np.arange(4, dtype=np.int32).reshape(4, 1)  # 2 x 2 faces of a 3 x 3 grid
    assert resample(faces, "FACE", smooth=False, old=(3, 3), new=(5, 5)).reshape(4, 4).tolist() == [
        [0, 0, 1, 1],
        [0, 0, 1, 1],
        [2, 2, 3, 3],
        [2, 2, 3, 3],
    ]
    edges = np.arange(12, dtype=np.int32).reshape(12, 1)  # 3 x 2 east-west, then 2 x 3 north-south
    out = resample(edges, "EDGE", smooth=False, old=(3, 3), new=(3, 3))
    assert np.array_equal(out, edges)
    corners = np.tile(
        np.array([[0.0], [1.0], [1.0], [0.0]], np.float32), (4, 1)
    )  # top-left, bottom-left, bottom-right, top-right
    same = resample(corners, "CORNER", smooth=True, old=(3, 3), new=(3, 3))
    assert same.shape == (16, 1) and np.allclose(same, corners)
