"""Export Tiles: every tile of a world at full resolution as engine terrain tiles (16-bit PNG, RAW, EXR)."""

import contextlib
import json
import os
import shutil

import bpy
import numpy as np

from ...core.heightmap import normalize
from ...core.world import tile_file, to_uint16
from ..io.heightmaps import check_path, commit, stage_dir, write_image
from ..poll import poll_with
from .world import tile_reason, tiles_of, world_cache, world_of

#: The tile formats an export writes: the operator's name of each, and its key in :data:`core.world.TILE_FILES`
#: (the naming rule of ``scripts/build_world.py``, :func:`core.world.tile_file`).
TILE_FORMATS = {"PNG16": "png", "R16": "r16", "EXR": "exr"}


def export_world(world, context, directory: str, name: str, fmts) -> list[str]:
    """Write every tile of ``world`` at full resolution (whatever its level of detail) in ``fmts``; the paths.

    As ``scripts/build_world.py`` writes them: 16-bit PNG (``0 -> 0``, ``1 -> 65535``, row 0 north), RAW
    little-endian uint16 with its first row the tile's south edge (Unity), 32-bit float EXR (channel ``Y``,
    normalised); neighbours share their edge rows and columns byte for byte. The values are the heights
    normalised over the world's range after the filters (with Fit Height, or heights within [0, 1]: the
    heights themselves, 0 and 1 standing for 0 m and Height), so uplift above Height is not clipped;
    ``NAME.json`` beside the folders records the metres 0 and 1 stand for and the spec. All files are staged
    and then committed together (verified, atomic).
    """
    folder = check_path(directory)
    cache = world_cache(world, context)
    tiles = tiles_of(world)
    ny = cache.grid.tiles[0]
    stage = stage_dir(folder)
    pairs = []
    low, high = cache.filtered_range
    if low >= 0.0 and high <= 1.0:  # the files hold the heights themselves: 0 -> 0 m, 1 -> Height
        low, high = 0.0, 1.0
    try:
        for ty, tx in sorted(tiles):
            heights = cache.tile(ty, tx, 0).heights
            if (low, high) != (0.0, 1.0):  # version 3 raised above Height (or lowered below 0): not clipped
                heights = normalize(heights, (low, high))
            levels = to_uint16(heights)
            for fmt in fmts:
                rel = tile_file(TILE_FORMATS[fmt], name, ty=ty, tx=tx, tiles_y=ny)
                staged = os.path.join(stage, rel.replace("/", "_"))
                if fmt == "PNG16":
                    write_image(staged, levels.astype(np.float64) / 65535.0, depth="16")
                elif fmt == "EXR":
                    write_image(staged, heights, depth="32", file_format="OPEN_EXR")
                else:
                    with open(staged, "wb") as f:
                        f.write(np.ascontiguousarray(levels[::-1]).astype("<u2").tobytes())
                pairs.append((staged, os.path.join(folder, rel)))
        metres = {
            "low": low * cache.spec.height,
            "high": high * cache.spec.height,
            "formula": "metres = low + value * (high - low), value in 0..1 (16-bit levels / 65535)",
        }
        staged = os.path.join(stage, name + ".json")
        with open(staged, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "format": "orogen-tiles",
                    "spec": cache.spec.to_dict(),
                    "metres": metres,
                    "tiles_y": ny,
                    "tiles_x": cache.grid.tiles[1],
                    "tile": cache.grid.tile,
                    "cell_size_m": cache.spec.cell_size,
                },
                f,
                indent=1,
                sort_keys=True,
            )
        pairs.append((staged, os.path.join(folder, name + ".json")))
        made = []  # the folders, once every file is staged; removed again if the export fails
        try:
            for target in sorted({os.path.dirname(t) for _, t in pairs}):
                if not os.path.isdir(target):
                    os.makedirs(target)
                    made.append(target)
            commit(pairs, (cache.grid.tile, cache.grid.tile))
        except BaseException:
            for target in reversed(made):
                with contextlib.suppress(OSError):
                    os.rmdir(target)  # only if still empty
            raise
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return [target for _, target in pairs]


class OROGEN_OT_tiles_export(bpy.types.Operator):
    """Export every tile of the active tile's world as engine terrain tiles (16-bit PNG, RAW .r16, EXR)"""

    bl_idname = "orogen.tiles_export"
    bl_label = "Export Tiles"
    bl_options = {"REGISTER"}

    directory: bpy.props.StringProperty(name="Folder", subtype="DIR_PATH", default="//tiles/")
    name: bpy.props.StringProperty(name="Name", default="terrain", description="File name stem of every tile")
    png16: bpy.props.BoolProperty(
        name="16-bit PNG (Unreal)",
        default=True,
        description="Grey 16-bit PNG per tile in unreal/ (Unreal World Partition names)",
    )
    r16: bpy.props.BoolProperty(
        name="RAW .r16 (Unity)",
        default=True,
        description="Little-endian 16-bit RAW per tile in unity/ (Unity terrain tiles)",
    )
    exr: bpy.props.BoolProperty(
        name="OpenEXR",
        default=True,
        description="32-bit float OpenEXR per tile in exr/ (the same 0..1 values, unquantised)",
    )

    @classmethod
    def poll(cls, context):
        return poll_with(cls, tile_reason(context))

    def invoke(self, context, _event):
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        world = world_of(context.active_object)
        fmts = [f for f, on in (("PNG16", self.png16), ("R16", self.r16), ("EXR", self.exr)) if on]
        name = self.name.strip()
        if not fmts or not name or any(c in name for c in "/\\:") or len(name.encode("utf-8")) > 200:
            self.report(
                {"ERROR"}, "Tiles not exported: choose a format and a file name without slashes, at most 200 bytes long"
            )
            return {"CANCELLED"}
        try:
            written = export_world(world, context, self.directory, name, fmts)
        except (ValueError, TypeError, OSError, RuntimeError) as err:  # RuntimeError: Blender's image writer
            self.report({"ERROR"}, f"Tiles not exported: {err}")
            return {"CANCELLED"}
        self.report({"INFO"}, f"Exported {len(written)} tile files to {os.path.dirname(os.path.dirname(written[0]))}")
        return {"FINISHED"}


classes = (OROGEN_OT_tiles_export,)

register, unregister = bpy.utils.register_classes_factory(classes)
