"""From a terrain spec to arrays, and the memory guard: the only place the add-on calls core's generators."""

import os
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from mathutils import Vector

from ...core import inputs as core_inputs
from ...core.lighting import BakedMaps, sun_angles
from ...core.scale import scale_notes
from ...core.spec import MAX_SIDE, MIN_SIDE, TerrainSpec
from ..preferences import sync as sync_preferences

_UP = Vector((0.0, 0.0, 1.0))


@dataclass(frozen=True)
class TerrainArrays:
    """What a terrain object is built from.

    ``heightmap`` is ``float32 (rows, cols)`` in units of ``height`` (``[0, 1]`` when fitted; Z is
    ``heightmap * height``); ``maps`` the lightmap (or ``None``), slope (degrees) and curvature (1/m) baked
    from it; ``spec`` what made it (``None`` for an imported heightmap); ``width`` and ``height`` in metres;
    ``erosion`` the erosion maps the filters made (names of :data:`core.recipe.MAP_NAMES`, see
    :meth:`core.recipe.Recipe.evaluate_with_maps`), baked as point
    attributes of the same names.
    """

    heightmap: npt.NDArray[np.float32]
    maps: BakedMaps
    width: float
    height: float
    spec: TerrainSpec | None
    erosion: dict[str, npt.NDArray[np.float32]] = field(default_factory=dict)
    #: The fingerprint of the inputs it was made from (:func:`inputs_digest`; "" for none).
    inputs: str = ""
    #: Notes of the filter stack for the user: a filter that changed the relief by more than a factor of two
    #: (:class:`core.scale.ScaleChangeWarning`), reported by the operators and put in the status line.
    notes: tuple[str, ...] = ()

    def data_maps(self) -> dict[str, npt.NDArray[np.float32]]:
        """The float point attributes to bake: slope, curvature, the ambient-occlusion factor (with AO on) and
        the erosion maps."""
        occlusion = {} if self.maps.occlusion is None else {"occlusion": self.maps.occlusion}
        return {"slope": self.maps.slope, "curvature": self.maps.curvature, **occlusion, **self.erosion}


#: Bytes a terrain needs per vertex at its peak: the Blender mesh (positions, two edges, four corners
#: with vertex, edge and UV data, a face, the height, slope, curvature and Lightmap attributes: about
#: 130 bytes) plus the arrays being written from. Measured peak growth of the process while adding a
#: terrain (tests/blender/test_memory.py, Blender 4.2 to 5.0): 188 bytes at 1025^2, 176 at 2049^2, any
#: generator, filters and lighting; this is within 25 % of both. An interactive session's undo step
#: later stores another copy of the mesh, which is not counted here.
BYTES_PER_VERTEX = 200


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
        from ...core.units import parse_bytes

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


def check_grid(rows: int, cols: int) -> None:
    """Refuse a grid a terrain mesh cannot be or the Size setting could not ask for (``ValueError``)."""
    if not (MIN_SIDE <= rows <= MAX_SIDE and MIN_SIDE <= cols <= MAX_SIDE):
        raise ValueError(f"a terrain grid must have {MIN_SIDE} to {MAX_SIDE} vertices per side, got {rows} x {cols}")


def memory_need(rows: int, cols: int, spec: TerrainSpec | None = None) -> int:
    """Bytes a ``rows x cols`` terrain of ``spec`` needs at its peak: the mesh's (:data:`BYTES_PER_VERTEX`), or
    its filters' while they run when more (:meth:`core.recipe.Recipe.peak_bytes`: multiple-flow erosion holds
    about 300 bytes a cell)."""
    need = rows * cols * BYTES_PER_VERTEX
    if spec is not None:
        need = max(need, spec.recipe((rows, cols)).peak_bytes())
    return need


def check_memory(rows: int, cols: int, spec: TerrainSpec | None = None) -> None:
    """Refuse, before anything is allocated, a terrain that would not fit in memory (``ValueError``)."""
    from ...core.units import format_bytes

    need = memory_need(rows, cols, spec)
    free = available_memory()
    if free is not None and need > free:
        raise ValueError(
            f"a {rows} x {cols} terrain needs about {format_bytes(need)} of memory and "
            f"{format_bytes(free)} are available: choose a smaller Size"
        )


def check_decode_memory(need: int) -> None:
    """Refuse, before a file is decoded, a decoder that would allocate ``need`` bytes the machine does not have
    (``ValueError``): a TIFF's whole strips or tiles (:func:`core.io.geotiff.read_elevation`'s ``check_bytes``)."""
    from ...core.units import format_bytes

    free = available_memory()
    if free is not None and need > free:
        raise ValueError(
            f"decoding it needs about {format_bytes(need)} of memory (its strips or tiles, whole) and "
            f"{format_bytes(free)} are available"
        )


def check_size(rows: int, cols: int, spec: TerrainSpec | None = None) -> None:
    """:func:`check_grid`, :func:`check_memory` and the Work Limit: a terrain of this size can be made (else
    ``ValueError``; the recipe refuses work estimated past ``OROGEN_WORK_LIMIT`` or the preference, naming it)."""
    sync_preferences()
    check_grid(rows, cols)
    check_memory(rows, cols, spec)
    if spec is not None:
        spec.recipe((rows, cols)).check_work()


def work_note(spec: TerrainSpec, shape: tuple[int, int] | None = None) -> str | None:
    """The estimated time of computing ``spec`` at ``shape`` when it is long ("a 4097 x 4097 terrain's filters
    will take about 25 minutes (...)", :meth:`core.recipe.Recipe.work_warning`), else ``None``."""
    return spec.recipe(shape or spec.shape).work_warning()


def announce_work(operator, spec: TerrainSpec, shape: tuple[int, int] | None = None) -> None:
    """Before a long job: report its estimated time as a warning and put it in the operator's status text
    (``_doing``, what :class:`..jobs.BackgroundOperator` shows with the progress)."""
    note = work_note(spec, shape)
    if note is None:
        return
    operator.report({"WARNING"}, note[0].upper() + note[1:])
    if hasattr(operator, "_doing"):
        operator._doing = f"{type(operator)._doing} ({note.partition(' will take ')[2].partition(' (')[0]})"


#: The fewest vertices a preview keeps across (or the terrain's own count, when it has fewer): a grid every filter
#: takes (stream-power erosion needs 3 x 3), so a terrain of an extreme aspect ratio (1025 x 3) previews too.
PREVIEW_MIN_SIDE = 3


def preview_shape(shape: tuple[int, int], side: int) -> tuple[int, int]:
    """``shape`` scaled so its longer side is at most ``side`` vertices (the live-update preview); a shorter side
    keeps at least :data:`PREVIEW_MIN_SIDE` vertices (its own count, when it has fewer)."""
    rows, cols = shape
    if max(rows, cols) <= side:
        return shape
    f = side / max(rows, cols)

    def scaled(n: int) -> int:
        return max(MIN_SIDE, min(n, PREVIEW_MIN_SIDE), round(n * f))

    return scaled(rows), scaled(cols)


def compute_terrain(
    spec: TerrainSpec,
    sun: tuple[float, float] | None = None,
    shape: tuple[int, int] | None = None,
    progress=None,
    inputs=None,
) -> TerrainArrays:
    """Run the generator, the filters and the bake of ``spec`` (at ``shape``, default the spec's own).

    ``sun`` is ``(azimuth, altitude)`` in degrees overriding the lighting's (the scene's Sun light).
    ``progress(done, total)`` is called as the filters work (:meth:`core.recipe.Recipe.evaluate_with_maps`);
    returning ``False`` cancels (``core.recipe.Cancelled``). A filter that changes the relief by more than a
    factor of two is noted in the result's ``notes`` (:func:`core.scale.scale_notes`). ``inputs`` are the
    objects the spec reads (:func:`..inputs.gather`, read on the main thread; :mod:`core.inputs`).
    Raises ``ValueError``/``TypeError`` from ``core`` naming the bad setting; nothing in Blender is
    touched, so a caller can report the error and leave the scene as it was.
    """
    shape = shape or spec.shape
    check_size(*shape, spec)
    with core_inputs.using(inputs or {}), scale_notes() as notes:
        heightmap, erosion = spec.recipe(shape).evaluate_with_maps(progress)
    maps = spec.bake(heightmap, sun)
    said = tuple(str(n) for n in notes)
    return TerrainArrays(heightmap, maps, spec.width, spec.height, spec, erosion, inputs_digest(inputs), said)


def inputs_digest(inputs) -> str:
    """One fingerprint of every input of an evaluation (``""`` for none): sorted ``kind:name:digest`` lines
    (:attr:`core.inputs.MeshInput.digest` and friends), what a terrain records as ``orogen_inputs``."""
    if not inputs:
        return ""
    return "\n".join(f"{kind}:{name}:{value.digest}" for (kind, name), value in sorted(inputs.items()))


def scene_sun(scene) -> tuple[float, float] | None:
    """``(azimuth, altitude)`` in degrees of the first Sun light in ``scene`` (by name), or ``None``."""
    suns = sorted((o for o in scene.objects if o.type == "LIGHT" and o.data.type == "SUN"), key=lambda o: o.name)
    if not suns:
        return None
    return sun_angles(*(suns[0].matrix_world.to_3x3() @ _UP))  # the light shines along its -Z
