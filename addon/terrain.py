"""From terrain settings to arrays: the only place the add-on calls the generators."""

import math
import os
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from mathutils import Vector

from ..core import shading, slope_lightmap
from ..core.recipe import Recipe

_UP = Vector((0.0, 0.0, 1.0))


@dataclass(frozen=True)
class TerrainArrays:
    """What a terrain object is built from.

    ``heightmap`` is ``float32 (rows, cols)`` normalised to ``[0, 1]``;
    ``lightmap`` is ``float32 (rows, cols)`` in ``[0, 1]`` or ``None`` when the
    lightmap is off; ``width`` and ``height`` are in metres; ``recipe`` is
    what made the heightmap (``None`` for an imported one); ``slope`` (degrees) and ``curvature`` (1/m) are
    the data maps baked as attributes.
    """

    heightmap: npt.NDArray[np.float32]
    lightmap: npt.NDArray[np.float32] | None
    width: float
    height: float
    recipe: Recipe | None
    slope: npt.NDArray[np.float32]
    curvature: npt.NDArray[np.float32]


def azimuth_degrees(radians: float) -> float:
    """An angle property (radians, stored as float32) in degrees, rounded to 1e-4 degree.

    The rounding removes float32 residue, so 90 degrees typed in the UI is
    exactly 90 for ``core`` (an exact east light, no diagonal blend).
    """
    return round(math.degrees(radians), 4)


class _Decimal:
    """Settings read with float properties' values as typed: 0.6, not float32's 0.6000000238418579."""

    def __init__(self, settings):
        self._settings = settings

    def __getattr__(self, name):
        value = getattr(self._settings, name)
        # Blender stores float properties as float32; the shortest decimal that is the same float32
        # is what the user typed, and what a recipe written by hand would say.
        return float(str(np.float32(value))) if isinstance(value, float) else value


def recipe_from_settings(settings) -> Recipe:
    """The :class:`core.recipe.Recipe` that ``settings`` (operator or scene settings) describe.

    Filters run in this order: flatten, box blur, erosion filter, terrace, sea level. Float
    settings enter the recipe as the shortest decimal of their float32 value (0.6, not
    0.6000000238418579), so a recipe typed by hand with the panel's numbers gives the same terrain.
    """
    s = _Decimal(settings)
    params = {
        'hills': lambda: {"count": s.hill_count, "radius_min": s.radius_min, "radius_max": s.radius_max,
                          "island": s.island},
        'faults': lambda: {"faults": s.fault_count, "displacement_max": 1.0, "displacement_min": s.displacement_min},
        'diamond_square': lambda: {"roughness": s.roughness},
        'noise': lambda: {
            "noise": s.noise_amplitude,
            "hills": s.noise_hill_count,
            "hill_radius": (s.noise_hill_radius_min, s.noise_hill_radius_max),
            "hill_height": (s.noise_hill_height_min, s.noise_hill_height_max),
            "pits": s.pit_count,
            "pit_radius": (s.pit_radius_min, s.pit_radius_max),
            "pit_height": (s.pit_depth_min, s.pit_depth_max),
        },
    }[s.generator]()
    stack = []
    if s.flattening != 1.0:
        stack.append(("flatten", {"exponent": s.flattening}))
    if s.use_blur:
        stack.append(("box_blur", {"passes": s.blur_passes}))
    if s.use_erosion:
        stack.append(("erosion", {"k": s.erosion_k, "passes": s.erosion_passes}))
    if s.use_terrace:
        stack.append(("terrace", {"levels": s.terrace_levels, "smoothness": s.terrace_smoothness}))
    if s.use_sea_level:
        stack.append(("sea_level", {"level": s.sea_level}))
    return Recipe(s.generator, s.seed, (s.size, s.size), params, tuple(stack))


#: Bytes a terrain needs per vertex: the Blender mesh (positions, four corners with vertex, edge and UV
#: data, edges, faces, five attributes) plus numpy's working arrays. The peak measured for a 2049^2
#: terrain with hillshade and ambient occlusion was about 175 bytes; this leaves room for the undo copy.
BYTES_PER_VERTEX = 420


#: Where Linux says how much memory can be had without swapping (``MemAvailable``, page cache
#: included) and, inside a container, the control group's limit and use (cgroup v2).
MEMINFO = "/proc/meminfo"
CGROUP_MAX = "/sys/fs/cgroup/memory.max"
CGROUP_CURRENT = "/sys/fs/cgroup/memory.current"


def _read_int(path: str, key: str | None = None) -> int | None:
    """The integer in ``path`` (or on its ``key:`` line, in kB as /proc/meminfo writes it); ``None`` if absent."""
    try:
        with open(path, encoding="ascii") as f:
            text = f.read()
    except OSError:
        return None
    if key is None:
        text = text.strip()
        return int(text) if text.isdigit() else None  # "max" means no limit
    for line in text.splitlines():
        name, _, value = line.partition(":")
        fields = value.split()
        if name == key and fields and fields[0].isdigit():
            return int(fields[0]) * 1024
    return None


def available_memory() -> int | None:
    """Bytes of memory available now; ``None`` if this platform does not say.

    On Linux this is ``MemAvailable`` (free memory plus the page cache the kernel
    can drop, not the much smaller ``MemFree``), capped by the cgroup v2 limit
    minus its use when the process runs in a container. Elsewhere it is the free
    physical pages where ``sysconf`` knows them. ``OROGEN_MEMORY_LIMIT`` (bytes,
    or with a unit: ``1G``, ``512MiB``, ``1e9``) caps the answer further; a
    value that is not a size raises ``ValueError`` rather than being ignored.
    """
    candidates = []
    text = os.environ.get("OROGEN_MEMORY_LIMIT", "")
    if text.strip():  # 1073741824, 1e9, 1G, 512MiB, 2GB (core.units.parse_bytes); anything else is refused
        from ..core.units import parse_bytes

        candidates.append(parse_bytes(text, "OROGEN_MEMORY_LIMIT"))
    available = _read_int(MEMINFO, "MemAvailable")
    if available is None:
        try:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (AttributeError, ValueError, OSError):  # not on this platform (Windows, macOS)
            available = None
    if available is not None:
        candidates.append(available)
    cgroup_max, cgroup_current = _read_int(CGROUP_MAX), _read_int(CGROUP_CURRENT)
    if cgroup_max is not None and cgroup_current is not None:
        candidates.append(max(cgroup_max - cgroup_current, 0))
    return min(candidates) if candidates else None


#: Vertices per side of a terrain grid: the Size setting's bounds, for recipes too (4097: the largest engine size).
MIN_SIDE, MAX_SIDE = 2, 4097


def check_grid(rows: int, cols: int) -> None:
    """Refuse a grid a terrain mesh cannot be or the Size setting could not ask for (``ValueError``)."""
    if not (MIN_SIDE <= rows <= MAX_SIDE and MIN_SIDE <= cols <= MAX_SIDE):
        raise ValueError(f"a terrain grid must have {MIN_SIDE} to {MAX_SIDE} vertices per side, "
                         f"got {rows} x {cols}")


def check_memory(rows: int, cols: int) -> None:
    """Refuse, before anything is allocated, a terrain that would not fit in memory (``ValueError``)."""
    need = rows * cols * BYTES_PER_VERTEX
    free = available_memory()
    if free is not None and need > free:
        raise ValueError(f"a {rows} x {cols} terrain needs about {need / 2**30:.1f} GiB of memory and "
                         f"{free / 2**30:.1f} GiB are available: choose a smaller Size")


def check_size(rows: int, cols: int) -> None:
    """:func:`check_grid` and :func:`check_memory`: a terrain of this size can be made (else ``ValueError``)."""
    check_grid(rows, cols)
    check_memory(rows, cols)


def compute_terrain(settings, recipe: Recipe | None = None,
                    sun: tuple[float, float] | None = None) -> TerrainArrays:
    """Run the generators and bakes for ``settings`` (or ``recipe``, which then replaces the generator settings).

    ``sun`` is ``(azimuth, altitude)`` in degrees, overriding the settings'
    light direction (the scene's Sun light). Raises ``ValueError``/``TypeError``
    from ``core`` with a message naming the bad setting; nothing in Blender
    is touched, so a caller can report the error and leave the scene as it
    was.
    """
    recipe = recipe or recipe_from_settings(settings)
    check_size(*recipe.shape)
    return bake_terrain(settings, recipe.evaluate(), recipe, sun)


def bake_terrain(settings, heightmap: npt.NDArray[np.float32], recipe: Recipe | None,
                 sun: tuple[float, float] | None = None) -> TerrainArrays:
    """Lightmap and data maps of a normalised ``heightmap`` (generated, or imported) for ``settings``."""
    rows, cols = heightmap.shape
    metres = heightmap * np.float32(settings.height)
    cell = settings.width / max(rows - 1, cols - 1, 1)
    azimuth, altitude = sun or (azimuth_degrees(settings.light_azimuth), azimuth_degrees(settings.light_altitude))
    lightmap = None
    if settings.use_lightmap:
        if settings.lighting == 'SLOPE':
            lightmap = slope_lightmap(metres, azimuth=azimuth, softness=settings.light_softness,
                                      min_brightness=settings.min_brightness,
                                      max_brightness=settings.max_brightness, cell_size=cell)
        else:
            light = shading.combined_lightmap(
                metres, cell, azimuth, altitude,
                multidirectional=settings.lighting == 'MULTIDIRECTIONAL',
                shadows=settings.use_shadows, shadow_softness=math.degrees(settings.shadow_softness),
                ambient=settings.use_ao, ambient_strength=settings.ao_strength,
                ambient_directions=settings.ao_directions, ambient_radius=settings.ao_radius,
            )
            lo, hi = settings.min_brightness, settings.max_brightness
            lightmap = (np.float32(lo) + np.float32(hi - lo) * light).astype(np.float32)
    slope = shading.slope_degrees(metres, cell)
    curvature = shading.curvature(metres, cell)
    return TerrainArrays(heightmap, lightmap, float(settings.width), float(settings.height), recipe, slope,
                         curvature)


def scene_sun(scene) -> tuple[float, float] | None:
    """``(azimuth, altitude)`` in degrees of the first Sun light in ``scene`` (by name), or ``None``."""
    suns = sorted((o for o in scene.objects if o.type == 'LIGHT' and o.data.type == 'SUN'), key=lambda o: o.name)
    if not suns:
        return None
    x, y, z = (suns[0].matrix_world.to_3x3() @ _UP).normalized()  # the light shines along its -Z
    azimuth = math.degrees(math.atan2(x, y)) % 360.0
    altitude = min(max(math.degrees(math.asin(max(-1.0, min(1.0, z)))), 0.0), 90.0)
    return round(azimuth, 4), round(altitude, 4)
