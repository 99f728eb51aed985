"""A stand-in for ``bpy.types.UILayout`` that records every setting a draw function shows, for the panel tests."""


class RecordingLayout:
    """Records ``(data, property name)`` of each ``prop`` and ``prop_search`` into ``shown``; every other layout
    call (rows, columns, labels, operators) returns another recorder on the same list."""

    active = True

    def __init__(self, shown: list | None = None) -> None:
        self.shown = [] if shown is None else shown

    def prop(self, data, name, **_kw):
        self.shown.append((data, name))

    def prop_search(self, data, name, *_a, **_kw):
        self.shown.append((data, name))

    def panel_prop(self, *_a, **_kw):
        return RecordingLayout(self.shown), RecordingLayout(self.shown)

    def __getattr__(self, _name):
        return lambda *_a, **_kw: RecordingLayout(self.shown)
