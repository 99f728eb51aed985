"""Generators: a heightmap from nothing but a seed, a world shape and a window.

Every generator here is a pure function of ``(world_shape, seed, window,
parameters)``: a window of a world holds exactly the whole world's values
(placements and noise are hashes of the seed and world coordinates,
:mod:`core.rng`), outputs are ``float32`` or ``float64`` ``(rows, cols)``
arrays, row 0 north, and work is bounded up front (each module's ``MAX_*``).

- :mod:`.dunes`: transverse and barchanoid dune fields (slip faces at repose, crest defects);
- :mod:`.hills`: circle hills (paraboloids), placed by hashed uniforms;
- :mod:`.faults`: fault formation, random lines raising one side;
- :mod:`.midpoint_displacement`: midpoint displacement on a ``2**n + 1`` lattice;
- :mod:`.hills_pits`: white noise with hills and pits, for a box blur;
- :mod:`.profiles`: one-dimensional slope walks and sectioned profiles;
- :mod:`.sources`: a heightmap file or a mesh object in metres (the ``file`` and ``object`` sources).

The catalog (:mod:`core.catalog`) declares them as spec generators.
"""

from __future__ import annotations

from .dunes import (
    MAX_DEFECTS,
    dune_field,
)
from .faults import (
    MAX_FAULT_WORK,
    MAX_FAULTS,
    fault_displacements,
    fault_formation,
    fault_lines,
)
from .hills import (
    MAX_HILL_WORK,
    MAX_HILLS,
    MAX_RADIUS,
    HillSet,
    add_hill,
    circle_hills,
    hill_parameters,
    hills_raw,
    raw_hills,
)
from .hills_pits import (
    noise_hills_pits,
)
from .midpoint_displacement import (
    LATTICES,
    diamond_square,
    period,
)
from .profiles import (
    MAX_COLUMNS,
    MAX_PROFILE_WORK,
    section_bounds,
    section_columns,
    sectioned_profile,
    slope_walk,
)
from .sources import (
    DECODED_SUFFIXES,
    FILE_SUFFIXES,
    FILLS,
    SOURCES,
    file_digest,
    file_metres,
    file_source,
    grey_values,
    object_source,
    rasterise_mesh,
    rasterise_values,
    read_values,
    resample_window,
    resolve_path,
    set_guards,
)

__all__ = [
    "MAX_DEFECTS",
    "dune_field",
    "MAX_FAULTS",
    "MAX_FAULT_WORK",
    "fault_lines",
    "fault_displacements",
    "fault_formation",
    "MAX_HILLS",
    "MAX_RADIUS",
    "MAX_HILL_WORK",
    "HillSet",
    "hill_parameters",
    "add_hill",
    "raw_hills",
    "circle_hills",
    "hills_raw",
    "noise_hills_pits",
    "LATTICES",
    "period",
    "diamond_square",
    "MAX_COLUMNS",
    "MAX_PROFILE_WORK",
    "slope_walk",
    "section_bounds",
    "section_columns",
    "sectioned_profile",
    "FILE_SUFFIXES",
    "DECODED_SUFFIXES",
    "FILLS",
    "SOURCES",
    "file_digest",
    "file_metres",
    "file_source",
    "grey_values",
    "object_source",
    "rasterise_mesh",
    "rasterise_values",
    "read_values",
    "resample_window",
    "resolve_path",
    "set_guards",
]
