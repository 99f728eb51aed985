"""The memory guard's estimate against measured peaks (tracemalloc), and sizes in the unit that fits."""

import tracemalloc

import pytest

from core.erosion import stream_power
from core.spec import TerrainSpec
from core.units import format_bytes, parse_bytes


def _peak(spec):
    tracemalloc.start()
    try:
        spec.heightmap()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("size", [257, 513])
@pytest.mark.parametrize("routing", ["d8", "mfd"])
def test_an_erosion_step_peaks_within_a_quarter_of_the_estimate(size, routing):
    # one multiple-flow step at 4097^2 peaked at 1.51 x the guard's 200 bytes a vertex; the recipe now declares it
    spec = TerrainSpec(size=size).replace(filters=(("erosion", {"steps": 1, "routing": routing, "lake_fill": True}),))
    estimate = spec.recipe().peak_bytes()
    assert estimate >= size * size * (stream_power.MFD_STEP_BYTES if routing == "mfd" else stream_power.STEP_BYTES)
    measured = _peak(spec)
    assert 0.75 * estimate <= measured <= 1.25 * estimate


def test_a_stack_without_heavy_filters_declares_what_it_holds():
    spec = TerrainSpec(size=257).replace(filters=(("flatten", {}),))
    assert spec.recipe().peak_bytes() == 257 * 257 * 16


@pytest.mark.parametrize(
    ("count", "text"),
    [
        (0, "0 B"),
        (1, "1 B"),
        (1023, "1023 B"),
        (1024, "1 KiB"),
        (1536, "1.5 KiB"),
        (5 * 2**20, "5 MiB"),
        (int(1.5 * 2**30), "1.5 GiB"),
        (3 * 2**40, "3 TiB"),
    ],
)
def test_sizes_are_written_in_the_unit_that_fits(count, text):
    assert format_bytes(count) == text
    assert format_bytes(parse_bytes("1b", "OROGEN_MEMORY_LIMIT")) == "1 B"  # was "0.0 GiB"
