"""Golden hashes of every baked map, and the same bytes whichever vector path numpy takes.

numpy picks its transcendental loops at run time for the processor (SVML on
AVX-512, its own AVX2 code, the C library), and their last bits differ; the
maps are therefore computed with :mod:`core.elementary`. The child process
below bakes every map a terrain has (the erosion filters' maps, the bake's
slope, curvature, lightmap, normal map and ambient-occlusion factor in each
lighting mode, the colour layers' weights, colour map and splat maps) for a
few specs, including eroded presets at a small size (the presets as they were when the hashes were
taken, ``golden_presets.json``, so retuning a preset does not move them), and prints their
hashes: the same under numpy 1.26 (``.venv``) and 2.x (``.venv-numpy2``), and
with numpy's AVX-512 and AVX2 paths switched off (``NPY_DISABLE_CPU_FEATURES``).
It also hashes float64 working values of the height paths (multiple-flow
shares, stream power with exponents numpy has no exact path for, and
:mod:`core.elementary` itself), whose last bits rarely survive the final
rounding to float32 at these sizes but changed with the vector path before.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import hashlib, json, random
import numpy as np
random.seed(12345); np.random.seed(54321); np.random.default_rng(1).random(10); random.random()
import core
from core.spec import TerrainSpec
GOLDEN_PRESETS = json.load(open("tests/core/golden_presets.json", encoding="utf-8"))

def preset_spec(name):  # the preset as it was when GOLDEN was taken (version 4), so the hashes guard the algorithms
    return TerrainSpec.from_dict({"version": 4, **GOLDEN_PRESETS[name]})
try:
    from numpy._core._multiarray_umath import __cpu_features__
except ImportError:
    from numpy.core._multiarray_umath import __cpu_features__

def digest(a):
    a = np.ascontiguousarray(a)
    return f"{a.dtype}{a.shape}:" + hashlib.sha256(a.tobytes()).hexdigest()[:24]

from core.versions.v3_to_v4 import V3_CHOICES

def v3(spec):  # the spec with version 3's erosion algorithms named: GOLDEN was taken on them
    return spec.replace(filters=tuple(
        (f.key, {**f.params, **V3_CHOICES.get(f.key, {})}) if f.enabled else f for f in spec.filters))

# version 4's time counts named (spec version 5 counts years and seconds): GOLDEN was taken on them
island = preset_spec("island").replace(size=57, filters=(
    ("erosion", {"steps": 4, "routing": "mfd", "flow_exponent": 1.1, "n": 1.5, "m": 0.4}),
    ("hydraulic", {"time": "steps", "steps": 30}), ("thermal", {"talus_angle": 30.0, "time": "passes", "steps": 20})))
specs = {
    "eroded_mountains": v3(preset_spec("eroded_mountains").replace(size=65)),
    "scree_slopes": v3(preset_spec("scree_slopes").replace(size=49)),
    "rolling_hills": v3(preset_spec("rolling_hills").replace(size=61, size_y=47)),
    "island_mfd_hydraulic": v3(island),
    "eroded_mountains_v4": preset_spec("eroded_mountains").replace(size=65),
    "island_mfd_hydraulic_v4": island,
}
out = {}
for name, spec in specs.items():
    h, maps = spec.recipe().evaluate_with_maps()
    out[f"{name}/heights"] = digest(h)
    for key, m in sorted(maps.items()):
        out[f"{name}/{key}"] = digest(m)
    baked = spec.bake(h)
    for key in ("slope", "curvature", "lightmap", "normal", "occlusion"):
        if getattr(baked, key) is not None:
            out[f"{name}/{key}"] = digest(getattr(baked, key))
    metres, cell = h * np.float32(spec.height), spec.cell_size
    for mode in ("slope", "hillshade", "multidirectional"):
        b = core.bake_maps(metres, cell, lighting=mode, azimuth=200.0, altitude=30.0, z_factor=1.5,
                           shadows=True, ambient=True, ambient_strength=1.7, ambient_radius=16, normals=True,
                           origin=(5, 9), min_brightness=0.1, max_brightness=0.9)
        for key in ("lightmap", "normal", "occlusion"):
            if getattr(b, key) is not None:
                out[f"{name}/{mode}/{key}"] = digest(getattr(b, key))
    out[f"{name}/combined"] = digest(core.combined_lightmap(metres, cell, ambient_strength=0.6, ambient_radius=12))
    scale = {"height": spec.height, "cell_size": cell, "seed": spec.seed}
    weights = core.layer_weights(h, spec.layers, baked.slope, maps=maps, **scale)
    out[f"{name}/weights"] = digest(weights)
    out[f"{name}/colormap"] = digest(core.colormap(h, spec.layers, baked.slope, maps=maps, **scale))
    out[f"{name}/splat"] = digest(np.stack(core.splat_maps(weights)))
# float64 working values of the height paths (rounded to float32 at the end, their last bits rarely show)
from core import elementary
from core.erosion.flow import route_multiple_flow
x = np.linspace(-30.0, 30.0, 200001)
inner = {f"elementary/{f}": digest(getattr(elementary, f)(x)) for f in ("atan", "exp", "sin", "cos")}
inner["elementary/log"] = digest(elementary.log(np.abs(x) * 1e3))
inner["elementary/power"] = digest(elementary.power(np.abs(x) * 1e3, 1.37))
z = specs["rolling_hills"].heightmap().astype(np.float64) * 300.0
inner["mfd_weights"] = digest(route_multiple_flow(z, 10.0, exponent=1.1, flats="first").weights)
sp = core.stream_power_erosion(z, 10.0, k=2e-5, m=0.4, n=1.5, steps=3, routing="mfd", flow_exponent=1.3,
                              diffusion_scheme="peaceman_rachford", flats="first")
inner["stream_power_mfd"] = digest(np.concatenate([sp.heights.ravel(), sp.eroded.ravel(), sp.incision.ravel()]))
sp = core.stream_power_erosion(z, 10.0, k=2e-5, m=0.4, n=0.7, steps=3, diffusion_scheme="peaceman_rachford",
                              flats="first")
inner["stream_power_d8"] = digest(np.concatenate([sp.heights.ravel(), sp.eroded.ravel(), sp.incision.ravel()]))
print(json.dumps({"features": sorted(k for k, v in __cpu_features__.items() if v), "hashes": out, "inner": inner}))
"""

GOLDEN = {
    "eroded_mountains/heights": "float32(65, 65):4388c0fbc8321dde3ee6bdb0",
    "eroded_mountains/deposited": "float32(65, 65):903c221a3101d131cbe081ed",
    "eroded_mountains/drainage_area": "float32(65, 65):4b3ad0e9101bde5f73c44ba8",
    "eroded_mountains/flow_direction": "float32(65, 65):7a09e0a4316e010ed4580450",
    "eroded_mountains/removed": "float32(65, 65):4351db0addeff23c4ed2fb59",
    "eroded_mountains/slope": "float32(65, 65):31b0fd9df20ea1962b39335e",
    "eroded_mountains/curvature": "float32(65, 65):72bfb750647ec4cb324d1aac",
    "eroded_mountains/lightmap": "float32(65, 65):8986359cf18fff741cd42851",
    "eroded_mountains/slope/lightmap": "float32(65, 65):b4e9b7d8f33759540c360fbb",
    "eroded_mountains/slope/normal": "float32(65, 65, 3):c83af98dc04cf0cfff7513c5",
    "eroded_mountains/hillshade/lightmap": "float32(65, 65):aa578345eb18b87cb9e66822",
    "eroded_mountains/hillshade/normal": "float32(65, 65, 3):c83af98dc04cf0cfff7513c5",
    "eroded_mountains/hillshade/occlusion": "float32(65, 65):5c335bc26c5ebf7731255f2b",
    "eroded_mountains/multidirectional/lightmap": "float32(65, 65):136be938047bf8689f8f3c81",
    "eroded_mountains/multidirectional/normal": "float32(65, 65, 3):c83af98dc04cf0cfff7513c5",
    "eroded_mountains/multidirectional/occlusion": "float32(65, 65):5c335bc26c5ebf7731255f2b",
    "eroded_mountains/combined": "float32(65, 65):ade41a9be8a7f8227f6b5db0",
    "eroded_mountains/weights": "float32(65, 65, 6):65a69741241e3eecf70a4ca0",
    "eroded_mountains/colormap": "float32(65, 65, 3):91510099f195189fa9a483b7",
    "eroded_mountains/splat": "uint8(2, 65, 65, 4):9dd796b4e5566c2fe5b4c212",
    "scree_slopes/heights": "float32(49, 49):021f81186aab02a96ff77a67",
    "scree_slopes/deposited": "float32(49, 49):7f2b2feb4242e63c949fd381",
    "scree_slopes/removed": "float32(49, 49):e4481e7bc517b79ed604c1d4",
    "scree_slopes/slope": "float32(49, 49):db7cbc9425fc5a78a55ac92c",
    "scree_slopes/curvature": "float32(49, 49):d6f979d9d1dfe1cfaa4217df",
    "scree_slopes/lightmap": "float32(49, 49):32ac5e95e3a6bcdc9408bd12",
    "scree_slopes/slope/lightmap": "float32(49, 49):4211bbe4b74ac223c3848251",
    "scree_slopes/slope/normal": "float32(49, 49, 3):4e2780045fe165c1f79cac15",
    "scree_slopes/hillshade/lightmap": "float32(49, 49):c96d751bff228632652db89f",
    "scree_slopes/hillshade/normal": "float32(49, 49, 3):4e2780045fe165c1f79cac15",
    "scree_slopes/hillshade/occlusion": "float32(49, 49):f276293104dae683d24ff1cb",
    "scree_slopes/multidirectional/lightmap": "float32(49, 49):553f643754e6cbd494e97de3",
    "scree_slopes/multidirectional/normal": "float32(49, 49, 3):4e2780045fe165c1f79cac15",
    "scree_slopes/multidirectional/occlusion": "float32(49, 49):f276293104dae683d24ff1cb",
    "scree_slopes/combined": "float32(49, 49):2d8a9608d8b72bc52d16ade1",
    "scree_slopes/weights": "float32(49, 49, 3):89cec8f1e879aa4db25e5b58",
    "scree_slopes/colormap": "float32(49, 49, 3):b29700acfd2be1d1eff2a1e7",
    "scree_slopes/splat": "uint8(1, 49, 49, 4):305df6334e9c3e0fab5604ac",
    "rolling_hills/heights": "float32(47, 61):e7addc947ac4f8075b3d1282",
    "rolling_hills/slope": "float32(47, 61):d4fb04f04900fbeb9ac85c12",
    "rolling_hills/curvature": "float32(47, 61):8fcdaa315cfeb883291d78e7",
    "rolling_hills/lightmap": "float32(47, 61):c7cba98f5bd356c53ee3861c",
    "rolling_hills/slope/lightmap": "float32(47, 61):f702d8ede4f45dc965f3882d",
    "rolling_hills/slope/normal": "float32(47, 61, 3):b4ab2a029454d3ee2d25749e",
    "rolling_hills/hillshade/lightmap": "float32(47, 61):20037eb706560181412008cd",
    "rolling_hills/hillshade/normal": "float32(47, 61, 3):b4ab2a029454d3ee2d25749e",
    "rolling_hills/hillshade/occlusion": "float32(47, 61):3c2a562c36180ffa1bd074fc",
    "rolling_hills/multidirectional/lightmap": "float32(47, 61):38ab0e00ff2163b9d9e2f0b8",
    "rolling_hills/multidirectional/normal": "float32(47, 61, 3):b4ab2a029454d3ee2d25749e",
    "rolling_hills/multidirectional/occlusion": "float32(47, 61):3c2a562c36180ffa1bd074fc",
    "rolling_hills/combined": "float32(47, 61):8b43209d97194ac35e9892b5",
    "rolling_hills/weights": "float32(47, 61, 4):16c4b3145c90fa3316f696f0",
    "rolling_hills/colormap": "float32(47, 61, 3):40cb0ab835c3ed1872866eb7",
    "rolling_hills/splat": "uint8(1, 47, 61, 4):cc13dc76f4f195437347d383",
    "island_mfd_hydraulic/heights": "float32(57, 57):57de4151047fe98f9aafbd92",
    "island_mfd_hydraulic/deposited": "float32(57, 57):05f51b962d76e1b462e81021",
    "island_mfd_hydraulic/drainage_area": "float32(57, 57):f995523ab45d4840a5cdd8c6",
    "island_mfd_hydraulic/flow_direction": "float32(57, 57):fb4b39c141cfacacd977ef04",
    "island_mfd_hydraulic/removed": "float32(57, 57):4414673f0e90cdc7b65fe01e",
    "island_mfd_hydraulic/water_depth": "float32(57, 57):584355e996022604ff4c2417",
    "island_mfd_hydraulic/slope": "float32(57, 57):dae6f867111817201753dafc",
    "island_mfd_hydraulic/curvature": "float32(57, 57):be3978ef6282a78eaf4e00ae",
    "island_mfd_hydraulic/lightmap": "float32(57, 57):c72b9e217520cb7791247abe",
    "island_mfd_hydraulic/occlusion": "float32(57, 57):ba277eb7efb9561fd2dfbc4a",
    "island_mfd_hydraulic/slope/lightmap": "float32(57, 57):04c245575a12dc0b194bbc47",
    "island_mfd_hydraulic/slope/normal": "float32(57, 57, 3):d1d655b9e03a64f3d7e20702",
    "island_mfd_hydraulic/hillshade/lightmap": "float32(57, 57):13faf5b6b50908adcbed2571",
    "island_mfd_hydraulic/hillshade/normal": "float32(57, 57, 3):d1d655b9e03a64f3d7e20702",
    "island_mfd_hydraulic/hillshade/occlusion": "float32(57, 57):29b86f43c66f3c72c6316fc3",
    "island_mfd_hydraulic/multidirectional/lightmap": "float32(57, 57):d69cf66872368ef6b0d86043",
    "island_mfd_hydraulic/multidirectional/normal": "float32(57, 57, 3):d1d655b9e03a64f3d7e20702",
    "island_mfd_hydraulic/multidirectional/occlusion": "float32(57, 57):29b86f43c66f3c72c6316fc3",
    "island_mfd_hydraulic/combined": "float32(57, 57):129ebcd3c681df31dcc4344a",
    "island_mfd_hydraulic/weights": "float32(57, 57, 4):3655bba69f1f97c4491e6199",
    "island_mfd_hydraulic/colormap": "float32(57, 57, 3):8d5af492690fbd915bc9f8f9",
    "island_mfd_hydraulic/splat": "uint8(1, 57, 57, 4):a8b1da4310d8c9ba09700d3b",
    # version 4 (the spec as built today: monotone diffusion, drained flats, bounded hydraulic, extended edges)
    "eroded_mountains_v4/heights": "float32(65, 65):f4b1c17a62c224fcc818e687",
    "eroded_mountains_v4/deposited": "float32(65, 65):967e9d593ff3cae002389826",
    "eroded_mountains_v4/drainage_area": "float32(65, 65):e498392323df5e84217f650c",
    "eroded_mountains_v4/flow_direction": "float32(65, 65):8547f1b828edc6cd04260500",
    "eroded_mountains_v4/removed": "float32(65, 65):42ff5e2927fd1809ea9e2e32",
    "eroded_mountains_v4/slope": "float32(65, 65):5a5dba3141761c8a173871fb",
    "eroded_mountains_v4/curvature": "float32(65, 65):8b1519157a8bdc7af40788f6",
    "eroded_mountains_v4/lightmap": "float32(65, 65):275aeff35b8da9a93cfecd21",
    "eroded_mountains_v4/slope/lightmap": "float32(65, 65):d4f6dcd071c036875fa6e750",
    "eroded_mountains_v4/slope/normal": "float32(65, 65, 3):2f0a5e9c4aad2821068d99d1",
    "eroded_mountains_v4/hillshade/lightmap": "float32(65, 65):26d20d39a8dfbe73c1c80f81",
    "eroded_mountains_v4/hillshade/normal": "float32(65, 65, 3):2f0a5e9c4aad2821068d99d1",
    "eroded_mountains_v4/hillshade/occlusion": "float32(65, 65):93e4aec0359ef7996e38cab4",
    "eroded_mountains_v4/multidirectional/lightmap": "float32(65, 65):27f7b282aaf53085061d464c",
    "eroded_mountains_v4/multidirectional/normal": "float32(65, 65, 3):2f0a5e9c4aad2821068d99d1",
    "eroded_mountains_v4/multidirectional/occlusion": "float32(65, 65):93e4aec0359ef7996e38cab4",
    "eroded_mountains_v4/combined": "float32(65, 65):cee9c915d230981702a44d82",
    "eroded_mountains_v4/weights": "float32(65, 65, 6):a5ab3b6b48cafaa28243ea3d",
    "eroded_mountains_v4/colormap": "float32(65, 65, 3):1585fb1b43b96eb4493b08aa",
    "eroded_mountains_v4/splat": "uint8(2, 65, 65, 4):31cd676e05c6b7b1746c6a40",
    "island_mfd_hydraulic_v4/heights": "float32(57, 57):0d265fcf0bbd7f8906f7d929",
    "island_mfd_hydraulic_v4/deposited": "float32(57, 57):d55f16913ea23574da48277f",
    "island_mfd_hydraulic_v4/drainage_area": "float32(57, 57):dadc339cf2fa3968fc717d0b",
    "island_mfd_hydraulic_v4/flow_direction": "float32(57, 57):f5e51c038ba2bf307fe3ba69",
    "island_mfd_hydraulic_v4/removed": "float32(57, 57):ffb880fabb592c29297a1819",
    "island_mfd_hydraulic_v4/water_depth": "float32(57, 57):b4cca40bc2be4751bf998092",
    "island_mfd_hydraulic_v4/slope": "float32(57, 57):174b230bb25265e091dc7b1d",
    "island_mfd_hydraulic_v4/curvature": "float32(57, 57):2498bcfd9944dcc4e95a5cf2",
    "island_mfd_hydraulic_v4/lightmap": "float32(57, 57):df4cb198c3073e245aa99b87",
    "island_mfd_hydraulic_v4/occlusion": "float32(57, 57):0c0256108e4410e36d9867a9",
    "island_mfd_hydraulic_v4/slope/lightmap": "float32(57, 57):270ece052894056a3e31155c",
    "island_mfd_hydraulic_v4/slope/normal": "float32(57, 57, 3):dc0ab66b92b6efb3a0744a06",
    "island_mfd_hydraulic_v4/hillshade/lightmap": "float32(57, 57):1e2079bcf0cd9c38f0b91850",
    "island_mfd_hydraulic_v4/hillshade/normal": "float32(57, 57, 3):dc0ab66b92b6efb3a0744a06",
    "island_mfd_hydraulic_v4/hillshade/occlusion": "float32(57, 57):597b5b78cea1bfc59155878b",
    "island_mfd_hydraulic_v4/multidirectional/lightmap": "float32(57, 57):3dd3ea325bb6aa9ca3452969",
    "island_mfd_hydraulic_v4/multidirectional/normal": "float32(57, 57, 3):dc0ab66b92b6efb3a0744a06",
    "island_mfd_hydraulic_v4/multidirectional/occlusion": "float32(57, 57):597b5b78cea1bfc59155878b",
    "island_mfd_hydraulic_v4/combined": "float32(57, 57):2f5d80335a51f5af4389360d",
    "island_mfd_hydraulic_v4/weights": "float32(57, 57, 4):fe7bee8a714a93f057c5b71e",
    "island_mfd_hydraulic_v4/colormap": "float32(57, 57, 3):7d4406c0e26fdb77d13b8c94",
    "island_mfd_hydraulic_v4/splat": "uint8(1, 57, 57, 4):fd861ed512240b75112918e1",
}

GOLDEN_INNER = {
    "elementary/atan": "float64(200001,):ca2fa96f9592e2b69f72c30f",
    "elementary/exp": "float64(200001,):7df97a783f77b83447eea2fe",
    "elementary/sin": "float64(200001,):365949eb8f6291ae29dedb51",
    "elementary/cos": "float64(200001,):6fe4f8dce71a52dc0d8b1bab",
    "elementary/log": "float64(200001,):2a7679ef7426b5872a198b6f",
    "elementary/power": "float64(200001,):eb67d5ea88789e71657c6810",
    "mfd_weights": "float64(8, 2867):3170b9e54e8c41c9dd4b8e40",
    "stream_power_mfd": "float32(8601,):afa433b8b6ac4a0ad06e2d3c",
    "stream_power_d8": "float32(8601,):65ac31207e467d97e23b205f",
}


def cpu_features():
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # numpy 1.26
        from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    return {k for k, v in __cpu_features__.items() if v}, set(__cpu_dispatch__)


def bake_in_child(disable=()):
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": " ".join(disable)}
    out = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_baked_map_hashes_in_a_fresh_process():
    got = bake_in_child()
    assert got["hashes"] == GOLDEN
    assert got["inner"] == GOLDEN_INNER


def vector_paths():
    """Dispatched features to switch off, widest first: AVX-512, then AVX2 and FMA as well."""
    avx512 = ["AVX512F", "AVX512CD", "AVX512_KNL", "AVX512_KNM", "AVX512_SKX", "AVX512_CLX", "AVX512_CNL"]
    avx512 += ["AVX512_ICL", "AVX512_SPR"]
    return {"no-avx512": avx512, "no-avx2": avx512 + ["AVX2", "FMA3", "F16C", "AVX"]}


@pytest.mark.parametrize("path", sorted(vector_paths()))
def test_maps_are_the_same_bytes_without_numpys_wider_vector_paths(path):
    have, dispatch = cpu_features()
    disable = [f for f in vector_paths()[path] if f in have and f in dispatch]
    if not disable or ("AVX2" in vector_paths()[path] and "AVX2" not in disable):
        pytest.skip(f"this CPU has none of the vector features that {path} switches off: nothing to compare")
    child = bake_in_child(disable)
    assert not set(disable) & set(child["features"]), "numpy did not honour NPY_DISABLE_CPU_FEATURES"
    assert child["hashes"] == GOLDEN
    assert child["inner"] == GOLDEN_INNER


def test_the_child_sees_the_transcendental_paths_differ():
    # The comparison above means something: on this CPU numpy's own arctan does change with the vector path.
    have, dispatch = cpu_features()
    disable = [f for f in vector_paths()["no-avx512"] if f in have and f in dispatch]
    if not disable:
        pytest.skip("this CPU has no AVX-512: numpy's arctan takes one path here")
    probe = "import numpy as np, hashlib; x = np.linspace(0, 50, 100001, dtype=np.float32); "
    probe += "print(hashlib.sha256(np.arctan(x).tobytes()).hexdigest())"
    runs = [
        subprocess.run(
            [sys.executable, "-c", probe],
            env={**os.environ, "NPY_DISABLE_CPU_FEATURES": flags},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for flags in ("", " ".join(disable))
    ]
    assert runs[0] != runs[1], "numpy's arctan no longer differs between its vector paths here"
