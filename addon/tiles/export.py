"""Export Tiles: every tile of a world at full resolution as engine terrain tiles (16-bit PNG, RAW, EXR)."""

import contextlib
import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import bpy
import numpy as np

from ...core import inputs as core_inputs
from ...core.heightmap import normalize
from ...core.io.formats import engine_levels, levels_text, quantise, sidecar_info
from ...core.io.jsonio import load_json
from ...core.progress import Cancelled
from ...core.world import TILE_FILES, tile_file
from ..inputs import gather
from ..io.heightmaps import check_path, commit, spec_look, stage_dir, write_image
from ..jobs import running
from ..poll import poll_with
from ..specio import read_spec
from .world import census, hand_edited, tile_reason, world_cache, world_of

#: The tile formats an export writes: the operator's name of each, and its key in :data:`core.world.TILE_FILES`
#: (the naming rule of ``scripts/build_world.py``, :func:`core.world.tile_file`).
TILE_FORMATS = {"PNG16": "png", "R16": "r16", "EXR": "exr"}


def export_world(world, context, directory: str, name: str, fmts) -> tuple[list[str], list[str]]:
    """Write every tile of ``world`` at full resolution (whatever its level of detail) in ``fmts``; returns the
    paths and notes for the user.

    16-bit PNG (row 0 north) and RAW little-endian uint16 with its first row the tile's south edge (Unity)
    hold levels over the whole world's relief in metres after the filters (level 0 its lowest metre, 65535
    its highest, :func:`core.io.formats.quantise`: one scale for every tile, within half a step of the
    relief); 32-bit float EXR (channel ``Y``) the heights normalised over the world's range after the filters
    (with Fit Height, or heights within [0, 1]: the heights themselves, 0 and 1 standing for 0 m and Height),
    so uplift above Height is not clipped; neighbours share their edge rows and columns byte for byte.
    ``NAME.json`` beside the folders records the metres EXR's 0 and 1 stand for (``metres``) and those of
    the 16-bit levels 0 and 65535 (``levels``, with Unity's and Unreal's settings), the spec and the files written
    with their SHA-256 (the tiles' sidecars among them). Each tile has its own sidecar (``<file>.json``,
    :func:`core.io.formats.sidecar_info`: its size, Height, metres, look and centre in the world's frame,
    ``location_m``), so Import Heightmap puts a tile at its place and size. All files are staged and then
    committed together (verified, atomic).

    Every tile of the world's grid is written from the world's spec, whether its object is there or not (a
    deleted or moved tile, :func:`.world.census`, is noted); a hand edit of a tile's mesh is not exported, and
    noted. After the new set is in place, the tile files the folder's previous ``NAME.json`` lists as written
    by Orogen that this export did not write again (a smaller grid, a format left out) are removed when they
    are still the bytes Orogen wrote (:func:`_drop_stale`): the folder holds one consistent set.

    Orogen replaces only what it owns: before anything is written, a file in the place of one this export
    writes that the previous ``NAME.json`` does not list with the SHA-256 it has now (the user's own file, a
    tile changed since), or a ``NAME.json`` that is no Orogen tile manifest, refuses the export with their
    names (``ValueError``, :func:`_refuse_foreign`).
    """
    folder = check_path(directory)
    inputs = gather(read_spec(world.orogen_world), None, context)
    with running("Exporting tiles", context) as job, core_inputs.using(inputs):
        return _export_world(world, context, folder, name, fmts, job)


def _export_world(world, context, folder: str, name: str, fmts, job) -> tuple[list[str], list[str]]:
    cache = world_cache(world, context, job.part(0.0, 0.4))
    counted = census(world)
    notes = counted.notes()
    edited = [(f"x{tx} y{ty}", o.name) for (ty, tx), o in sorted(counted.tiles.items()) if hand_edited(o)]
    if edited:
        names = ", ".join(f"{place} ({n})" for place, n in edited[:4]) + (" ..." if len(edited) > 4 else "")
        notes.append(
            f"tile {names} edited by hand: the edit is not exported (tiles are written from the world's spec, so "
            "their edges stay seamless)"
        )
    ny, nx = cache.grid.tiles
    targets = [
        rel + sidecar
        for ty in range(ny)
        for tx in range(nx)
        for rel in (tile_file(TILE_FORMATS[fmt], name, ty=ty, tx=tx, tiles_y=ny) for fmt in fmts)
        for sidecar in ("", ".json")
    ]
    _refuse_foreign(folder, name, [*targets, name + ".json"])  # before any file is written
    previous = _previous_files(os.path.join(folder, name + ".json"))
    digests = {}
    stage = stage_dir(folder)
    pairs = []
    low, high = cache.filtered_range
    # 16-bit tiles: levels over the world's relief in metres, one scale for every tile (they stitch exactly)
    relief = (low * cache.spec.height, high * cache.spec.height)
    if low >= 0.0 and high <= 1.0:  # EXR holds the heights themselves: 0 -> 0 m, 1 -> Height
        low, high = 0.0, 1.0
    cell = cache.spec.cell_size
    tile_info = {
        "spec": None,  # a tile is part of its world: NAME.json holds the world's spec
        "world": name + ".json",
        "width_m": cell * (cache.grid.tile - 1),
        "height_m": cache.spec.height,
        "cell_size_m": cell,
        "look": spec_look(cache.spec),
    }
    tick = job.ticker(0.4, 0.95, ny * nx)
    try:
        for ty, tx in ((ty, tx) for ty in range(ny) for tx in range(nx)):
            heights = cache.tile(ty, tx, 0).heights
            levels = quantise(heights * np.float32(cache.spec.height), relief)[0]  # the tile's metres, as Z
            if (low, high) != (0.0, 1.0):  # version 3 raised above Height (or lowered below 0): not clipped
                heights = normalize(heights, (low, high))
            for fmt in fmts:
                rel = tile_file(TILE_FORMATS[fmt], name, ty=ty, tx=tx, tiles_y=ny)
                staged = os.path.join(stage, rel.replace("/", "_"))
                if fmt == "PNG16":
                    write_image(staged, levels.astype(np.float64) / 65535.0, depth="16")
                elif fmt == "EXR":
                    write_image(staged, heights, depth="32", file_format="OPEN_EXR")
                else:
                    with _writing(folder, rel), open(staged, "wb") as f:
                        f.write(np.ascontiguousarray(levels[::-1]).astype("<u2").tobytes())
                pairs.append((staged, os.path.join(folder, rel)))
                digests[rel] = sha256_file(staged)
                # its own sidecar: the tile imports at its place and size, in its metres
                info = sidecar_info(
                    rel,
                    levels.shape,
                    fmt,
                    absolute=False,
                    height_range=relief if fmt != "EXR" else (low * cache.spec.height, high * cache.spec.height),
                    extra={**tile_info, "location_m": [*cache.grid.centre(ty, tx, cell), 0.0], "tile": [ty, tx]},
                    south_first=fmt == "R16",
                )
                with _writing(folder, rel + ".json"), open(staged + ".json", "w", encoding="utf-8") as f:
                    json.dump(info, f, indent=1, sort_keys=True)
                pairs.append((staged + ".json", os.path.join(folder, rel + ".json")))
                digests[rel + ".json"] = sha256_file(staged + ".json")
            tick()  # a cancel (core.Cancelled) leaves the staging folder alone, removed below: no file changed
        metres = {
            "low": low * cache.spec.height,
            "high": high * cache.spec.height,
            "formula": "EXR tiles: metres = low + value * (high - low), value in 0..1",
        }
        staged = os.path.join(stage, name + ".json")
        with _writing(folder, name + ".json"), open(staged, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "format": "orogen-tiles",
                    "spec": cache.spec.to_dict(),
                    "metres": metres,
                    "levels": {
                        **engine_levels(relief),
                        "formula": "PNG16 and R16 tiles: metres = level_0_m + level / 65535 * (level_65535_m - "
                        "level_0_m), over the whole world's relief",
                    },
                    "tiles_y": ny,
                    "tiles_x": cache.grid.tiles[1],
                    "tile": cache.grid.tile,
                    "cell_size_m": cache.spec.cell_size,
                    "files": digests,
                    "hand_edits_not_exported": [place for place, _n in edited],
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
    notes += _drop_stale(folder, name, previous, digests)
    return [target for _, target in pairs], notes


@contextlib.contextmanager
def _writing(folder: str, rel: str):
    """An ``OSError`` raised while the staged copy of ``rel`` is written (a full disk: ``f.write`` names no
    file) names the file in ``folder`` and says that nothing was written or changed (the staging folder goes)."""
    try:
        yield
    except OSError as err:
        new = OSError(
            f"could not write {os.path.join(folder, *rel.split('/'))}: {err.strerror or err}; no file was written "
            "or changed"
        )
        new.errno = err.errno
        raise new from None


def sha256_file(path: str) -> str:
    """SHA-256 of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _manifest(manifest: str) -> dict | None:
    """The contents of ``manifest`` (a ``NAME.json``) when it is an Orogen tile manifest (a regular file, not a
    link, holding a JSON object with ``"format": "orogen-tiles"``); ``None`` otherwise."""
    if not os.path.isfile(manifest) or os.path.islink(manifest):
        return None
    try:
        data = load_json(Path(manifest), os.path.basename(manifest), max_bytes=16 << 20)
    except (ValueError, OSError):
        return None
    return data if isinstance(data, dict) and data.get("format") == "orogen-tiles" else None


def _previous_files(manifest: str) -> dict[str, str]:
    """``{relative path: sha256}`` of the tile files an earlier Export Tiles lists in ``manifest`` (its
    ``NAME.json``); empty when there is none, it is not Orogen's, or it lists no files (before Orogen 0.3)."""
    data = _manifest(manifest)
    files = data.get("files") if data is not None else None
    if not isinstance(files, dict):
        return {}
    return {k: v for k, v in files.items() if isinstance(k, str) and isinstance(v, str)}


def _refuse_foreign(folder: str, name: str, targets: list[str]) -> None:
    """Raise ``ValueError`` naming the files among ``targets`` (paths relative to ``folder``) that exist and are
    not Orogen's, so that the export writes nothing: Orogen replaces only what it owns.

    A file is Orogen's when the folder's ``NAME.json`` is an Orogen tile manifest (:func:`_manifest`) that lists
    it with the SHA-256 it still has (a regular file, not a link); ``NAME.json`` itself when it is such a
    manifest. A manifest of an export made before manifests listed files (``"format": "orogen-tiles"`` and no
    ``files``) vouches for the tile-named files it stands beside: they are taken as that export's. Anything
    else in a target's place (the user's own file, an Orogen file changed since, a folder, a link) refuses
    the export."""
    manifest = os.path.join(folder, name + ".json")
    data = _manifest(manifest)
    files = data.get("files") if data is not None else None
    legacy = data is not None and files is None
    owned = _previous_files(manifest)
    foreign = []
    for rel in targets:
        path = os.path.join(folder, *rel.split("/"))
        if not os.path.lexists(path):
            continue
        if rel == name + ".json":
            if data is None:
                foreign.append(f"{rel} (not an Orogen tile manifest)")
            continue
        if os.path.islink(path) or not os.path.isfile(path):
            foreign.append(rel)
        elif not legacy and (rel not in owned or sha256_file(path) != owned[rel]):
            foreign.append(rel)
    if foreign:
        raise ValueError(
            f"{len(foreign)} files in {folder} are not Orogen's (not written by an earlier Export Tiles as they are "
            f"now, by its {name}.json): {', '.join(foreign[:4])}{' ...' if len(foreign) > 4 else ''}; nothing was "
            "written: move them, or choose another folder or name"
        )


def _drop_stale(folder: str, name: str, previous: dict[str, str], written: dict[str, str]) -> list[str]:
    """Remove the files of the previous set (``previous``, from its manifest) that the new one (``written``) does
    not hold: only a path of the tile naming rule for ``name`` (``unreal/NAME_xX_yY.png``, ...: never one outside
    the format folders, whatever the manifest says), a regular file still holding the bytes Orogen wrote. A file
    changed since is left, and noted; so are files named like the tiles that no manifest lists."""
    rule = re.compile(
        "^(?:"
        + "|".join(f"{re.escape(d)}/{re.escape(name)}_x\\d+_y\\d+{re.escape(e)}" for d, e in TILE_FILES.values())
        + ")(?:\\.json)?$"  # a tile, or its sidecar
    )
    removed, changed = [], []
    for rel, digest in sorted(previous.items()):
        path = os.path.join(folder, *rel.split("/"))
        if rel in written or not rule.match(rel) or not os.path.isfile(path) or os.path.islink(path):
            continue
        try:
            if sha256_file(path) != digest:
                changed.append(rel)
                continue
            os.remove(path)
        except OSError:
            changed.append(rel)
            continue
        removed.append(rel)
    for sub, _ext in TILE_FILES.values():  # a format folder left empty by the removal goes too
        with contextlib.suppress(OSError):
            if any(r.startswith(sub + "/") for r in removed):
                os.rmdir(os.path.join(folder, sub))
    unlisted = sorted(
        f"{sub}/{n}"
        for sub, _ext in TILE_FILES.values()
        if os.path.isdir(os.path.join(folder, sub))
        for n in os.listdir(os.path.join(folder, sub))
        if rule.match(f"{sub}/{n}") and f"{sub}/{n}" not in written and f"{sub}/{n}" not in changed
    )
    notes = []
    if removed:
        notes.append(f"removed {len(removed)} tile files of the previous export that this one does not hold")
    for what, files in (("changed since Orogen wrote them", changed), ("listed by no export manifest", unlisted)):
        if files:
            notes.append(
                f"left {len(files)} files named like these tiles, {what}: {', '.join(files[:3])}"
                + (" ..." if len(files) > 3 else "")
            )
    return notes


class OROGEN_OT_tiles_export(bpy.types.Operator):
    """Export every tile of the selected tile's world as engine terrain tiles (16-bit PNG, RAW .r16, EXR)"""

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
            written, notes = export_world(world, context, self.directory, name, fmts)
        except (ValueError, TypeError, OSError, RuntimeError) as err:  # RuntimeError: Blender's image writer
            self.report({"ERROR"}, f"Tiles not exported: {err}")
            return {"CANCELLED"}
        except Cancelled:
            self.report({"WARNING"}, "Export Tiles cancelled: no file was written or changed")
            return {"CANCELLED"}
        folder = os.path.dirname(written[-1])  # NAME.json, beside the format folders
        said = []
        if {"PNG16", "R16"} & set(fmts):  # the metres of levels 0 and 65535, to type into a game engine
            levels = load_json(Path(written[-1]), name + ".json", max_bytes=16 << 20)["levels"]
            said.append(levels_text((levels["level_0_m"], levels["level_65535_m"])))
        status = "; ".join([f"Exported {len(written)} tile files to {folder}", *said, *notes])
        world.orogen_tiles.status = status  # (not saved, not undone: the panel's last word on the world)
        self.report({"WARNING" if notes else "INFO"}, status)
        return {"FINISHED"}


classes = (OROGEN_OT_tiles_export,)

register, unregister = bpy.utils.register_classes_factory(classes)
