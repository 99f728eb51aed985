"""Spec-version-3 and -4 settings (Orogen 0.3 and its development builds) in a .blend: their erosion algorithms
and time counts named, so they stay.

Version 4 made the erosion filters' version-3 algorithms declared choices (:mod:`core.versions.v3_to_v4`), and
version 5 version 4's time counts of the thermal and hydraulic filters (passes and steps,
:mod:`core.versions.v4_to_v5`), whose properties an older group does not hold, so it would read today's defaults.
A version-3 group (marked 3, or unmarked with ``fit_height``: :func:`.versions.stored_version`) gets
:data:`core.versions.V3_CHOICES` and :data:`core.versions.V4_CHOICES`, a version-4 group (marked 4) the latter,
written into each filter of its stack that holds none of them, on load and on append (:mod:`.versions`'
handlers) or when first read by another route (made local, library-overridden); linked data is read through
them, never written. Regenerate then gives what that version gave. The group is marked the current version.
"""

from ..core.spec import TerrainSpec
from ..core.versions import SPEC_VERSION, V3_CHOICES, V4_CHOICES
from .live import suspended
from .specio import as_stored, read_spec

_busy = False  # set while read_v3 reads a group the usual way (read_spec asks its earlier forms first)


def busy() -> bool:
    """Whether :func:`read_v3` is reading a group (its own read must not come back to it)."""
    return _busy


def _raw(struct):
    """The stored (raw) ID properties of a property group (Blender 5.0 keeps an add-on's apart)."""
    getter = getattr(struct, "bl_system_properties_get", None)
    return getter() if getter is not None else struct


def _choices(key: str, version: int) -> dict:
    """What spec ``version`` (3 or 4) did in filter ``key``, as today's parameters."""
    return {**(V3_CHOICES.get(key, {}) if version <= 3 else {}), **V4_CHOICES.get(key, {})}


def _missing(item, version: int = 3) -> dict:
    """Version ``version``'s choices for filter ``item`` that its group does not store."""
    choices = _choices(item.type, version)
    raw = _raw(getattr(item, item.type)) if choices else None
    return {k: v for k, v in choices.items() if raw is None or k not in raw}


def migrate_v3(id_data, name: str = "orogen", version: int = 3) -> str | None:
    """Write version ``version``'s (3 or 4) choices into that version's group ``name`` of ``id_data`` and mark it
    the current version; returns the Info log line (``None`` when its stack has no such filter). Raises
    ``AttributeError`` or ``RuntimeError`` where Blender does not allow writing (a panel drawing)."""
    data = getattr(id_data, name)
    done = []
    with suspended():
        for i, item in enumerate(getattr(data, "filters", ())):
            for key, value in _missing(item, version).items():
                setattr(getattr(item, item.type), key, value)
                done.append(f"filters[{i}].{item.type}.{key} = {value}")
        data.spec_version = SPEC_VERSION
    where = f"Orogen: {type(id_data).__name__.lower()} {id_data.name!r}"
    what = "erosion algorithms" if version <= 3 else "erosion time counts"
    return f"{where}: spec version {version} keeps its {what}: " + ", ".join(done) if done else None


def read_v3(id_data, name: str, version: int = 3) -> tuple[TerrainSpec | None, list[str]]:
    """A version-3 or -4 group reached by a route no handler saw: converted in place when it can be written
    (``None`` and the Info log lines returned, so the converted values are read), else its spec with that
    version's choices (linked data, or a panel drawing)."""
    global _busy
    if id_data.library is None:
        try:
            line = migrate_v3(id_data, name, version)
            return None, [line] if line else []
        except (AttributeError, RuntimeError):
            pass
    data = getattr(id_data, name)
    _busy = True
    try:
        out = read_spec(data).to_dict()
    finally:
        _busy = False
    for i, item in enumerate(data.filters):
        out["filters"][i] = {**out["filters"][i], **_missing(item, version)}
    return as_stored(TerrainSpec.from_dict(out)), []
