import numpy as np
import pytest

from core.generators.faults import fault_displacements, fault_formation, fault_lines


def side_of_line(shape, line):
    """Reference: cells strictly on the raised side by the cross product, cell by cell."""
    r1, c1, r2, c2 = line
    rr, cc = np.mgrid[0 : shape[0], 0 : shape[1]].astype(np.float64)
    return (c2 - c1) * (rr - r1) - (r2 - r1) * (cc - c1) < 0


def test_one_fault_raises_exactly_one_side_by_its_displacement():
    for seed in range(20):
        h = fault_formation((40, 57), seed=seed, faults=1, displacement_max=2.5)
        assert set(np.unique(h)) <= {0.0, 2.5}
        raised = side_of_line((40, 57), fault_lines((40, 57), seed, 1)[0])
        # Cells exactly on the line may fall either way by rounding; there are few.
        assert (raised == (h == 2.5)).mean() > 0.99
        assert (h == 2.5).any() and (h == 0.0).any()


def test_displacement_falls_linearly_from_max_to_min():
    # The first fault moves by displacement_max and the last by exactly displacement_min (issue #12).
    assert fault_displacements(4, 1.0, 0.0).tolist() == pytest.approx([1.0, 2 / 3, 1 / 3, 0.0])
    d = fault_displacements(4, 1.0, 0.2)
    assert d.tolist() == pytest.approx([1.0, 0.2 + 0.8 * 2 / 3, 0.2 + 0.8 / 3, 0.2])
    assert d[0] == 1.0 and d[-1] == 0.2
    for n in (2, 3, 7, 1000):
        assert fault_displacements(n, 3.0, 0.7)[-1] == 0.7 and fault_displacements(n, 3.0, 0.7)[0] == 3.0
    assert fault_displacements(1, 1.0, 0.5).tolist() == [1.0]
    assert fault_displacements(0, 1.0, 0.5).shape == (0,)


def test_matches_a_per_fault_reference_within_quantisation():
    shape, n = (33, 45), 60
    h = fault_formation(shape, seed=4, faults=n, displacement_max=1.0, displacement_min=0.1)
    ref = np.zeros(shape)
    for line, d in zip(fault_lines(shape, 4, n), fault_displacements(n, 1.0, 0.1), strict=True):
        ref += d * side_of_line(shape, line)
    # Disagreements only where a cell lies on a line to rounding; values otherwise equal to 2**-30.
    close = np.isclose(h, ref, atol=n * 2.0**-30)
    assert close.mean() > 0.99


def test_fault_lines_cover_the_world():
    lines = fault_lines((100, 200), 1, 2000)
    assert lines[:, [0, 2]].min() >= 0 and lines[:, [0, 2]].max() <= 99
    assert lines[:, [1, 3]].min() >= 0 and lines[:, [1, 3]].max() <= 199
    assert lines[:, [1, 3]].max() > 195 and lines[:, [1, 3]].min() < 5


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"faults": -1}, ValueError, r"faults must be in \[0, 100000\]"),
        ({"displacement_max": 0.0}, ValueError, "displacement_max"),
        ({"displacement_min": 2.0}, ValueError, r"displacement_min must be in \[0.0, 1.0\]"),
        ({"faults": 1.5}, TypeError, "faults must be an integer"),
    ],
)
def test_bad_parameters(kwargs, error, match):
    with pytest.raises(error, match=match):
        fault_formation((8, 8), **kwargs)
