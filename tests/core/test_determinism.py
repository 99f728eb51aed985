"""Golden hashes: the same seed and parameters give the same bytes in a fresh process.

The child process first disturbs every global random state, so any hidden use
of ``random`` or ``numpy.random`` would change the hashes. The same hashes are
checked under numpy 1.26 (bundled with Blender) and numpy 2.x (scripts/test.sh
runs the core tests in both environments).
"""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import hashlib, json, random
import numpy as np
random.seed(12345); np.random.seed(54321); np.random.default_rng(1).random(10); random.random()
import core
from core.generators import midpoint_displacement as midpoint
from core.generators import faults, profiles
from core.generators import hills_pits as noise
from core.recipe import Recipe

EROSION = {  # the erosion filters whose algorithms version 4 changed, with open edges and flats (terraces)
    "thermal_open": [{"type": "thermal", "talus_angle": 30.0, "steps": 20, "rate": 1.0, "edges": "open"}],
    "erosion": [{"type": "erosion", "steps": 6, "dt": 5e4}],
    "erosion_mfd": [{"type": "erosion", "steps": 4, "dt": 5e4, "routing": "mfd", "lake_fill": False}],
    "hydraulic": [{"type": "hydraulic", "steps": 30, "edges": "open"}],
    "terrace_erosion": [{"type": "terrace", "levels": 4}, {"type": "erosion", "steps": 3, "dt": 5e4}],
}

def digest(a):
    a = np.ascontiguousarray(a)
    return f"{a.dtype}{a.shape}:" + hashlib.sha256(a.tobytes()).hexdigest()[:24]

hills = core.circle_hills((97, 131), seed=2024, count=120, radius_min=3, radius_max=18, flattening=1.7)
island = core.circle_hills((64, 64), seed=7, count=80, radius_min=2, radius_max=10, island=True, flattening=2.0)
print(json.dumps({
    "hills": digest(hills),
    "island": digest(island),
    "lightmap": digest(core.slope_lightmap(hills * 30, azimuth=315, softness=0.8, cell_size=0.5)),
    "colormap": digest(core.colormap(hills)),
    "faults": digest(faults.fault_formation((77, 65), 3, faults=150, displacement_max=1.0,
                                           displacement_min=0.1)),
    "diamond_square": digest(midpoint.diamond_square((100, 60), 4, roughness=0.9)),
    "noise": digest(noise.noise_hills_pits((70, 90), 5)),
    "recipe": digest(Recipe("faults", 6, (64, 80), {"faults": 90},
                            (("lowpass", {"k": 0.6, "passes": 2}), ("box_blur", {"passes": 2}),
                             ("terrace", {"levels": 5}), ("sea_level", {"level": 0.1})), version=2).evaluate()),
    "slope_walk": digest(profiles.slope_walk(500, 9, min_height=0, max_height=80, max_slope=2.0,
                                              slope_change=0.7)),
    "sectioned": digest(profiles.sectioned_profile(600, 10, sections=12, sub_points=5, shift=0.3,
                                                     smoothing_steps=300, min_height=0, max_height=50)),
    **{f"v3_{g}": digest(core.TerrainSpec(size=90, size_y=70, width=150.0, seed=8, generator=g,
                                          filters=(("box_blur", {"radius": 2.5}), ("lowpass", {"length": 1.5}),
                                                   ("sea_level", {"level": 0.1}))).heightmap())
       for g in ("hills", "diamond_square", "noise")},
    "v3_ds_pow2": digest(core.TerrainSpec(size=65, width=64.0, seed=8, generator="diamond_square",
                                          filters=()).heightmap()),
    **{f"v{v}_{k}": digest(core.TerrainSpec.from_dict({"version": v, "size": 33, "size_y": 29, "width": 320.0,
                                                        "height": 60.0, "seed": 5, "generator": "hills",
                                                        "filters": f}).heightmap())
       for v in (3, 4) for k, f in EROSION.items()},
}))
"""

GOLDEN = {
    "hills": "float32(97, 131):436d722785f03176bf290894",
    "island": "float32(64, 64):7f9dd77c4a3e1c7224d2cfe2",
    "lightmap": "float32(97, 131):a90ea4969d92706ae8bf4b82",
    "colormap": "float32(97, 131, 3):958c4e8740d27d5c6b414802",
    "faults": "float64(77, 65):e48c416e52fc369cabcfd858",
    "diamond_square": "float64(100, 60):3f3a451052200fa440bcce09",
    "noise": "float64(70, 90):045ac5020f8501007f02ac68",
    "recipe": "float32(64, 80):49836a0c6376c9e3e548cf63",
    "slope_walk": "float32(500,):ab8fcdaa49ab9bd87f5cccec",
    "sectioned": "float32(600,):fb54ec009c953b9961963a8f",
    # spec version 3 (lengths in metres, world lattice, Gaussian blur, no final normalisation)
    "v3_hills": "float32(70, 90):01ea5b21f1f8db3c19dda41e",
    "v3_diamond_square": "float32(70, 90):d3132c4fcdc4cd1317786f47",
    "v3_noise": "float32(70, 90):80094fef38e6bf3a733df263",
    "v3_ds_pow2": "float32(65, 65):59d0c0387529c1b4d6d61969",
    # spec version 3's erosion filters (hashed before version 4 existed: version 3 gives what it gave)
    "v3_thermal_open": "float32(29, 33):cda58e4f74e3c4d65f0858c5",
    "v3_erosion": "float32(29, 33):48c4dda709d6c0f2c26f98b8",
    "v3_erosion_mfd": "float32(29, 33):62d6608b9310d15d987e32b5",
    "v3_hydraulic": "float32(29, 33):74e169b1772981f116fcdf66",
    "v3_terrace_erosion": "float32(29, 33):604146f9c0982aa7c9655f6b",
    # spec version 4: thermal open edges continue the edge's slope, monotone diffusion, flats drained,
    # ties unbiased, uplift from the highest point, bounded hydraulic exchange
    "v4_thermal_open": "float32(29, 33):1f2906983eb9e48c3bf07070",
    "v4_erosion": "float32(29, 33):b2d7c6c25e8894b7ce065ba3",
    "v4_erosion_mfd": "float32(29, 33):fdee1f05ffba8fc4e2a7fde8",
    "v4_hydraulic": "float32(29, 33):22eb0787ebae1d73163003fe",
    "v4_terrace_erosion": "float32(29, 33):a3315676acff82d857c5569e",
}


def test_golden_hashes_in_a_fresh_process():
    out = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == GOLDEN
