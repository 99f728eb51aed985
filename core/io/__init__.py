"""Files: reading and writing heightmaps, images and JSON safely.

- :mod:`.files`: atomic, verified commits of staged files and recovery;
- :mod:`.formats`: RAW (``.r16``/``.raw``) with its JSON sidecar, and ``.npy``;
- :mod:`.geotiff`: (Geo)TIFF elevation models read with tifffile;
- :mod:`.tiff_codecs`: LZW, DEFLATE and PackBits decoders capped at the size a TIFF header declares;
- :mod:`.image_headers`: PNG, JPEG, OpenEXR and TIFF headers checked before a read (:func:`check_file`);
- :mod:`.jsonio`: bounded JSON reading (size and depth limits, regular files).

Invariants: no file is read before its size and header are checked, and no
file is replaced until its new content is verified; errors are
``ValueError``/``OSError`` naming the file.
"""

from __future__ import annotations

from .files import (
    STALE_SECONDS,
    commit,
    recover,
    stage_dir,
    staged_path,
    verify_file,
    write_text,
)
from .formats import (
    ORIENTATION,
    RAW_SUFFIXES,
    SIDECAR_MAX_BYTES,
    SIDECAR_VERSION,
    SidecarScale,
    dequantise,
    engine_levels,
    file_heights,
    levels_text,
    quantise,
    raw_layout,
    read_npy,
    read_raw,
    read_sidecar,
    sidecar_info,
    sidecar_scale,
    units_of_metres,
    value_range,
    write_npy,
    write_raw,
)
from .geotiff import (
    FILL_PASSES,
    MAX_PAGES,
    Elevation,
    dem_extent,
    dem_record,
    dem_square_grid,
    dem_summary,
    fill_nodata,
    metres_per_degree,
    read_elevation,
)
from .grey_images import IMAGE_MAX_SIDE, IMAGE_SUFFIXES, read_grey_image
from .image_headers import (
    FORMATS,
    MAX_IMAGE_SIDE,
    check_file,
    check_image,
    image_size,
)
from .jsonio import (
    MAX_BYTES,
    MAX_DEPTH,
    JSONDuplicateKeyError,
    JSONError,
    JSONFileError,
    JSONSyntaxError,
    JSONTooDeepError,
    JSONTooLargeError,
    load_json,
    read_regular_file,
    shorten,
)
from .tiff_codecs import (
    COMPRESSIONS,
    FREE_TILE_SIDE,
    DecodeLimitError,
    inflate,
    lzw_decode,
    segment_grid,
    unpack_bits,
)

__all__ = [
    "IMAGE_MAX_SIDE",
    "IMAGE_SUFFIXES",
    "read_grey_image",
    "STALE_SECONDS",
    "commit",
    "recover",
    "stage_dir",
    "staged_path",
    "verify_file",
    "write_text",
    "ORIENTATION",
    "RAW_SUFFIXES",
    "SIDECAR_MAX_BYTES",
    "SIDECAR_VERSION",
    "SidecarScale",
    "dequantise",
    "engine_levels",
    "file_heights",
    "levels_text",
    "quantise",
    "raw_layout",
    "read_npy",
    "read_raw",
    "read_sidecar",
    "sidecar_info",
    "sidecar_scale",
    "units_of_metres",
    "value_range",
    "write_npy",
    "write_raw",
    "COMPRESSIONS",
    "FILL_PASSES",
    "MAX_PAGES",
    "DecodeLimitError",
    "Elevation",
    "dem_extent",
    "dem_record",
    "dem_square_grid",
    "dem_summary",
    "fill_nodata",
    "inflate",
    "lzw_decode",
    "metres_per_degree",
    "read_elevation",
    "unpack_bits",
    "FREE_TILE_SIDE",
    "segment_grid",
    "FORMATS",
    "MAX_IMAGE_SIDE",
    "check_file",
    "check_image",
    "image_size",
    "MAX_BYTES",
    "MAX_DEPTH",
    "JSONDuplicateKeyError",
    "JSONError",
    "JSONFileError",
    "JSONSyntaxError",
    "JSONTooDeepError",
    "JSONTooLargeError",
    "load_json",
    "read_regular_file",
    "shorten",
]
