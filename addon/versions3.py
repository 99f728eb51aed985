"""Spec-version-3 settings (Orogen 0.3's development builds) in a .blend: version 3's erosion algorithms
named, so they stay.

Version 4 made the erosion filters' version-3 algorithms declared choices (:mod:`core.versions.v3_to_v4`) whose
properties a version-3 group does not hold, so it would read version 4's defaults. A version-3 group (marked 3,
or unmarked with ``fit_height``: :func:`.versions.stored_version`) gets :data:`core.versions.V3_CHOICES` written
into each filter of its stack that holds none of them, on load and on append (:mod:`.versions`' handlers) or when
first read by another route (made local, library-overridden); linked data is read through them, never written.
Regenerate then gives what version 3 gave. The group is marked version 4.
"""

from ..core.spec import TerrainSpec
from ..core.versions import SPEC_VERSION, V3_CHOICES
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


def _missing(item) -> dict:
    """Version 3's choices for filter ``item`` that its group does not store."""
    choices = V3_CHOICES.get(item.type, {})
    raw = _raw(getattr(item, item.type)) if choices else None
    return {k: v for k, v in choices.items() if raw is None or k not in raw}


def migrate_v3(id_data, name: str = "orogen") -> str | None:
    """Write version 3's erosion choices into version-3 group ``name`` of ``id_data`` and mark it version 4;
    returns the Info log line (``None`` when its stack has no such filter). Raises ``AttributeError`` or
    ``RuntimeError`` where Blender does not allow writing (a panel drawing)."""
    data = getattr(id_data, name)
    done = []
    with suspended():
        for i, item in enumerate(getattr(data, "filters", ())):
            for key, value in _missing(item).items():
                setattr(getattr(item, item.type), key, value)
                done.append(f"filters[{i}].{item.type}.{key} = {value}")
        data.spec_version = SPEC_VERSION
    where = f"Orogen: {type(id_data).__name__.lower()} {id_data.name!r}"
    return f"{where}: spec version 3 keeps its erosion algorithms: " + ", ".join(done) if done else None


def read_v3(id_data, name: str) -> tuple[TerrainSpec | None, list[str]]:
    """A version-3 group reached by a route no handler saw: converted in place when it can be written (``None``
    and the Info log lines returned, so the converted values are read), else its spec with version 3's erosion
    choices (linked data, or a panel drawing)."""
    global _busy
    if id_data.library is None:
        try:
            line = migrate_v3(id_data, name)
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
        out["filters"][i] = {**out["filters"][i], **_missing(item)}
    return as_stored(TerrainSpec.from_dict(out)), []
