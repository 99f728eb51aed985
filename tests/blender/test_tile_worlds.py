"""A world of tiles counted by its own record: tiles moved, deleted or duplicated, hand edits, the memory guard
of the whole world, and export folders that hold one consistent set."""

import json
import os
import sys

import bpy
import numpy as np
import pytest

TILE, CELL, HEIGHT = 17, 2.0, 12.0
SETTINGS = "hills.count=40; hills.radius_min=2; hills.radius_max=9; lighting.shadows=false"


def add_world(tiles_x=2, tiles_y=2, **kw):
    args = {"tiles_x": tiles_x, "tiles_y": tiles_y, "size": TILE, "width": CELL * (TILE - 1), "height": HEIGHT}
    args.update({"seed": 5, "set": SETTINGS, **kw})
    assert bpy.ops.orogen.tiles_add(**args) == {"FINISHED"}
    return bpy.context.active_object.orogen_tile.world


def in_collection(world):
    return {(o.orogen_tile.ty, o.orogen_tile.tx): o for o in world.objects if o.orogen_tile.is_tile}


def z_of(obj):
    co = np.empty(len(obj.data.vertices) * 3, np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co[2::3].copy()


def pick(obj):
    bpy.context.view_layer.update()  # (an object removed through bpy.data leaves a gap until the update)
    for other in bpy.context.view_layer.objects:
        other.select_set(other == obj)
    bpy.context.view_layer.objects.active = obj


def export(world, folder, **kw):
    pick(next(o for o in world.all_objects if o.orogen_tile.is_tile))
    assert bpy.ops.orogen.tiles_export(directory=str(folder), **{"name": "land", **kw}) == {"FINISHED"}
    return world.orogen_tiles.status


def files(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def regenerate(world, seed):
    world.orogen_world.seed = seed  # (live update off in the background: regenerate by hand)
    pick(next(o for o in bpy.data.objects if o.orogen_tile.is_tile and o.orogen_tile.world == world))
    assert bpy.ops.orogen.tiles_regenerate() == {"FINISHED"}
    return world.orogen_tiles.status


def test_a_tile_moved_to_another_collection_is_still_the_worlds(scene, tmp_path):
    world = add_world()
    moved = in_collection(world)[(1, 0)]
    other = bpy.data.collections.new("Elsewhere")
    scene.collection.children.link(other)
    other.objects.link(moved)
    world.objects.unlink(moved)
    before = z_of(moved)
    status = regenerate(world, 9)
    assert status.startswith("Rebuilt 4 of 4 tiles"), status
    assert "x0 y1 (Tile_x0_y1) is outside the world's collection" in status, status
    assert not np.array_equal(z_of(moved), before)  # rebuilt with the new seed like the others
    status = export(world, tmp_path, r16=False, exr=False)
    assert "outside the world's collection" in status
    assert files(tmp_path) == sorted(
        ["land.json", *(f"unreal/land_x{x}_y{y}.png{s}" for x in (0, 1) for y in (0, 1) for s in ("", ".json"))]
    )


def test_a_deleted_tile_is_missing_from_the_status_and_still_exported(scene, tmp_path):
    world = add_world()
    export(world, tmp_path / "whole", r16=False, exr=False)
    bpy.data.objects.remove(in_collection(world)[(0, 1)])
    status = regenerate(world, 5)
    assert status.startswith("Rebuilt 3 of 4 tiles") and "tile x1 y0 missing (deleted)" in status, status
    status = export(world, tmp_path / "cut", r16=False, exr=False)
    assert "tile x1 y0 missing (deleted): Export Tiles still writes it" in status, status
    assert files(tmp_path / "cut") == files(tmp_path / "whole")
    for rel in files(tmp_path / "whole"):
        if rel.endswith(".png"):
            assert (tmp_path / "cut" / rel).read_bytes() == (tmp_path / "whole" / rel).read_bytes(), rel


def test_a_duplicated_tile_is_not_a_tile_of_the_world_and_the_status_says_so(scene, tmp_path):
    world = add_world()
    original = in_collection(world)[(0, 0)]
    pick(original)
    assert bpy.ops.object.duplicate() == {"FINISHED"}  # Shift+D (without the move)
    copy = bpy.context.active_object
    assert copy != original and copy.orogen_tile.is_tile and copy.orogen_tile.world == world
    assert copy.data != original.data and copy.name in world.objects
    stale = z_of(copy)
    status = regenerate(world, 11)
    assert status.startswith("Rebuilt 4 of 4 tiles"), status
    assert f"{copy.name} (of x0 y0): a copy, not a tile of the world: not rebuilt or exported" in status, status
    assert np.array_equal(z_of(copy), stale) and not np.array_equal(z_of(original), stale)
    # The copy made active, the world is still the world: its rebuild targets the real tile.
    assert export(world, tmp_path, r16=False, exr=False).count("a copy, not a tile of the world") == 1
    assert len(list((tmp_path / "unreal").glob("*.png"))) == 4  # (each with its sidecar)
    original.name = "My Corner"  # a renamed tile stays the world's (the record follows it)
    assert "a copy" in regenerate(world, 12) and "My Corner" not in regenerate(world, 13)


def test_a_hand_edit_of_a_tile_is_not_exported_and_the_export_says_so(scene, tmp_path):
    world = add_world()
    export(world, tmp_path / "clean", r16=False, exr=False)
    assert "edited by hand" not in world.orogen_tiles.status
    tile = in_collection(world)[(1, 1)]
    tile.data.vertices[40].co.z += 5.0  # a hand edit in the tile's mesh
    status = export(world, tmp_path / "edited", r16=False, exr=False)
    assert "tile x1 y1 (Tile_x1_y1) edited by hand: the edit is not exported" in status, status
    manifest = json.loads((tmp_path / "edited" / "land.json").read_text())
    assert manifest["hand_edits_not_exported"] == ["x1 y1"]
    for rel in files(tmp_path / "clean"):
        if rel.endswith(".png"):  # the files are the world's spec, seamless, not the edited mesh
            assert (tmp_path / "edited" / rel).read_bytes() == (tmp_path / "clean" / rel).read_bytes(), rel
    regenerate(world, 5)  # rebuilt: no longer edited
    assert "edited by hand" not in export(world, tmp_path / "again", r16=False, exr=False)


def test_the_memory_guard_checks_the_whole_world_not_one_tile(scene, orogen, monkeypatch):
    compute = sys.modules[orogen.__name__ + ".addon.terrain.compute"]
    one_tile = TILE * TILE * compute.BYTES_PER_VERTEX
    monkeypatch.setenv("OROGEN_MEMORY_LIMIT", str(4 * one_tile))  # one tile fits; a 3 x 3 world (49 x 49) not
    objects, collections = len(bpy.data.objects), len(bpy.data.collections)
    with pytest.raises(RuntimeError, match=r"a world of 3 x 3 tiles of 17 vertices: a 49 x 49 terrain needs"):
        bpy.ops.orogen.tiles_add(tiles_x=3, tiles_y=3, size=TILE, width=CELL * (TILE - 1), set=SETTINGS)
    assert (len(bpy.data.objects), len(bpy.data.collections)) == (objects, collections)
    world = add_world(tiles_x=1, tiles_y=2)  # 33 x 17 fits
    world.orogen_tiles.tiles_x = 3  # then grown past the limit: the rebuild is refused, the tiles stay
    before = {k: z_of(o) for k, o in in_collection(world).items()}
    pick(in_collection(world)[(0, 0)])
    with pytest.raises(RuntimeError, match=r"a world of 2 x 3 tiles"):
        bpy.ops.orogen.tiles_regenerate()
    assert all(np.array_equal(z_of(o), before[k]) for k, o in in_collection(world).items())


def test_an_export_folder_holds_one_consistent_set(scene, tmp_path):
    """Export a 3 x 2 world, then a 2 x 2 one into the same folder: the tiles of the old set the new one does not
    write are removed (after the new set is in place), NAME.json describes what is there, and nothing Orogen did
    not write is touched: a file of the user's named like a tile, a tile file changed since, another name's set."""
    world = add_world(tiles_x=3, tiles_y=2)
    export(world, tmp_path, exr=False)
    export(world, tmp_path, name="other", exr=False)
    assert len(files(tmp_path)) == 2 * (1 + 2 * 6 * 2)  # each tile with its sidecar
    (tmp_path / "unreal" / "land_x7_y7.png").write_bytes(b"mine")  # a user's file named like a tile
    (tmp_path / "notes.txt").write_text("mine")
    changed = tmp_path / "unity" / "land_x2_y1.r16"
    changed.write_bytes(changed.read_bytes()[::-1])  # a tile of the old set edited since it was written
    bpy.data.collections.remove(world)
    for obj in [o for o in bpy.data.objects if o.orogen_tile.is_tile]:
        bpy.data.objects.remove(obj)
    world = add_world(tiles_x=2, tiles_y=2, seed=8)
    status = export(world, tmp_path, exr=False)
    assert "removed 7 tile files of the previous export" in status, status  # 3 tiles and 4 sidecars
    assert "left 1 files named like these tiles, changed since Orogen wrote them: unity/land_x2_y1.r16" in status
    assert "listed by no export manifest: unreal/land_x7_y7.png" in status, status
    land = [f for f in files(tmp_path) if "land" in f]
    new = [f"unreal/land_x{x}_y{y}.png" for x in (0, 1) for y in (0, 1)]
    new += [f"unity/land_x{x}_y{y}.r16" for x in (0, 1) for y in (0, 1)]
    new += [f + ".json" for f in new]
    assert sorted(land) == sorted(["land.json", *new, "unity/land_x2_y1.r16", "unreal/land_x7_y7.png"])
    manifest = json.loads((tmp_path / "land.json").read_text())
    assert manifest["spec"]["seed"] == 8 and (manifest["tiles_x"], manifest["tiles_y"]) == (2, 2)
    assert sorted(manifest["files"]) == sorted(new)
    assert (tmp_path / "unreal" / "land_x7_y7.png").read_bytes() == b"mine"
    assert (tmp_path / "notes.txt").read_text() == "mine"
    assert len([f for f in files(tmp_path) if "other" in f]) == 25  # another set, untouched
    # A format left out: its old files go, and its folder when nothing else is in it.
    (tmp_path / "unreal" / "land_x7_y7.png").unlink()
    status = export(world, tmp_path, png16=False, exr=False)
    assert not any(f.startswith("unreal/land") for f in files(tmp_path)) and (tmp_path / "unreal").is_dir()
    assert "removed 8 tile files" in status


def test_a_manifest_cannot_make_the_export_delete_other_files(scene, tmp_path):
    """NAME.json is a file anyone can edit: only paths of the tile naming rule for NAME, inside the format
    folders, are ever removed, and only when they hold the bytes the manifest says."""
    world = add_world(tiles_x=1, tiles_y=1)
    victim = tmp_path / "keep.txt"
    victim.write_text("precious")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.png"
    outside.write_bytes(b"outside")
    (tmp_path / "unreal").mkdir()
    (tmp_path / "unreal" / "keep.png").write_bytes(b"kept")
    import hashlib

    def sha(p):
        return hashlib.sha256(p.read_bytes()).hexdigest()

    forged = {
        "keep.txt": sha(victim),
        f"../{outside.name}": sha(outside),
        "unreal/keep.png": sha(tmp_path / "unreal" / "keep.png"),
        os.path.abspath(victim): sha(victim),
    }
    (tmp_path / "land.json").write_text(json.dumps({"format": "orogen-tiles", "files": forged}))
    export(world, tmp_path, r16=False, exr=False)
    assert victim.read_text() == "precious" and outside.read_bytes() == b"outside"
    assert (tmp_path / "unreal" / "keep.png").read_bytes() == b"kept"


def test_tile_bounds_follow_a_rebuild_with_a_new_width(scene):
    """Frame Selected reads ``dimensions``: after the world's Width changes, each tile's are the new tile's."""
    world = add_world(tiles_x=2, tiles_y=1)
    tile = in_collection(world)[(0, 1)]
    assert tile.dimensions.x == pytest.approx(CELL * (TILE - 1))
    world.orogen_world.width = 3 * CELL * (TILE - 1)
    regenerate(world, 5)
    co = np.empty(len(tile.data.vertices) * 3, np.float32)
    tile.data.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    assert tuple(tile.dimensions) == pytest.approx(tuple(co.max(axis=0) - co.min(axis=0)), rel=1e-6)
    assert tile.dimensions.x == pytest.approx(96.0)
    corners = np.array([tuple(c) for c in tile.bound_box])  # in the world's frame: the east tile's own place
    assert corners.min(axis=0) == pytest.approx(co.min(axis=0), abs=1e-4)
    assert corners.max(axis=0) == pytest.approx(co.max(axis=0), abs=1e-4)


def test_export_tiles_never_replaces_the_users_own_files(scene, tmp_path):
    """Files in the place of the tiles, or a NAME.json, that no earlier Export Tiles wrote are the user's: the
    export is refused before anything is written, naming them; once they are moved, it goes ahead."""
    world = add_world(tiles_x=1, tiles_y=1)
    (tmp_path / "unreal").mkdir()
    mine = tmp_path / "unreal" / "land_x0_y0.png"
    mine.write_text("MY OWN FILE")
    (tmp_path / "land.json").write_text('{"mine": true}')
    pick(next(o for o in world.all_objects if o.orogen_tile.is_tile))
    with pytest.raises(RuntimeError) as refused:
        bpy.ops.orogen.tiles_export(directory=str(tmp_path), name="land", r16=False, exr=False)
    assert (
        f"Tiles not exported: 2 files in {tmp_path} are not Orogen's (not written by an earlier Export Tiles as "
        "they are now, by its land.json): unreal/land_x0_y0.png, land.json (not an Orogen tile manifest); nothing "
        "was written: move them, or choose another folder or name" in str(refused.value)
    )
    assert mine.read_text() == "MY OWN FILE" and (tmp_path / "land.json").read_text() == '{"mine": true}'
    assert files(tmp_path) == ["land.json", "unreal/land_x0_y0.png"]  # no sidecar, no staging folder
    # The manifest alone in the way: refused too, the PNG moved away.
    mine.unlink()
    with pytest.raises(RuntimeError, match=r"1 files .* land.json \(not an Orogen tile manifest\)"):
        bpy.ops.orogen.tiles_export(directory=str(tmp_path), name="land", r16=False, exr=False)
    assert files(tmp_path) == ["land.json"]
    (tmp_path / "land.json").unlink()
    export(world, tmp_path, r16=False, exr=False)  # nothing in the way: written, and again over itself
    export(world, tmp_path, r16=False, exr=False)
    assert files(tmp_path) == ["land.json", "unreal/land_x0_y0.png", "unreal/land_x0_y0.png.json"]


def test_export_tiles_refuses_to_replace_a_tile_changed_since_it_was_written(scene, tmp_path):
    """A tile Orogen wrote and the user changed since (its SHA-256 is no longer the manifest's) is theirs now;
    so is a sidecar, and a tile's place taken by a link."""
    world = add_world(tiles_x=1, tiles_y=1)
    export(world, tmp_path, r16=False, exr=False)
    tile = tmp_path / "unreal" / "land_x0_y0.png"
    tile.write_bytes(tile.read_bytes() + b"edited")
    edited = tile.read_bytes()
    pick(next(o for o in world.all_objects if o.orogen_tile.is_tile))
    with pytest.raises(RuntimeError, match=r"1 files .* not Orogen's .*: unreal/land_x0_y0.png; nothing was"):
        bpy.ops.orogen.tiles_export(directory=str(tmp_path), name="land", r16=False, exr=False)
    assert tile.read_bytes() == edited
    sidecar = tmp_path / "unreal" / "land_x0_y0.png.json"
    sidecar.write_text("{}")
    target = tmp_path / "elsewhere.bin"
    target.write_bytes(b"x")
    os.symlink(target, tmp_path / "unreal" / "land_x0_y0.png.json.link")  # (not a target: ignored)
    with pytest.raises(RuntimeError, match=r"2 files .*: unreal/land_x0_y0.png, unreal/land_x0_y0.png.json;"):
        bpy.ops.orogen.tiles_export(directory=str(tmp_path), name="land", r16=False, exr=False)
    tile.unlink()
    os.symlink(target, tile)
    sidecar.unlink()
    with pytest.raises(RuntimeError, match=r"1 files .*: unreal/land_x0_y0.png;"):
        bpy.ops.orogen.tiles_export(directory=str(tmp_path), name="land", r16=False, exr=False)
    assert os.path.islink(tile) and target.read_bytes() == b"x"


def test_an_export_from_before_manifests_listed_files_is_taken_as_orogens(scene, tmp_path):
    """A NAME.json of an Orogen tile manifest without ``files`` (an export made before manifests listed them)
    vouches for the tile files beside it: the export replaces them, and its new manifest lists them."""
    world = add_world(tiles_x=1, tiles_y=1)
    export(world, tmp_path, r16=False, exr=False)
    manifest = json.loads((tmp_path / "land.json").read_text())
    del manifest["files"]
    (tmp_path / "land.json").write_text(json.dumps(manifest))
    (tmp_path / "unreal" / "land_x0_y0.png").write_bytes(b"an older tile")
    export(world, tmp_path, r16=False, exr=False)
    assert sorted(json.loads((tmp_path / "land.json").read_text())["files"]) == [
        "unreal/land_x0_y0.png",
        "unreal/land_x0_y0.png.json",
    ]
    assert (tmp_path / "unreal" / "land_x0_y0.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_export_tiles_on_a_full_disk_names_the_file_and_writes_nothing(scene, orogen, tmp_path, monkeypatch):
    """``f.write`` on a full disk raises ENOSPC naming no file: the report names the file in the folder."""
    import errno
    import types

    module = sys.modules[orogen.__name__ + ".addon.tiles.export"]

    def dump(_data, f, **_kw):
        f.write("{")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(module, "json", types.SimpleNamespace(dump=dump))
    world = add_world(tiles_x=1, tiles_y=1)
    pick(next(o for o in world.all_objects if o.orogen_tile.is_tile))
    with pytest.raises(RuntimeError) as failed:
        bpy.ops.orogen.tiles_export(directory=str(tmp_path), name="land", png16=False, exr=False)
    assert (
        f"Tiles not exported: could not write {tmp_path / 'unity' / 'land_x0_y0.r16.json'}: No space left on "
        "device; no file was written or changed" in str(failed.value)
    )
    assert list(tmp_path.iterdir()) == []
