"""An Image colour layer's file is checked like an import before Blender reads it: cut, bombs, too large.

A cut OpenEXR crashed Blender's loader (terrain_add, and the scripts with
--spec, died with SIGSEGV); a small PNG declaring 30000 x 30000 pixels cost
gigabytes. Both are refused with a report that names the layer and the file,
and the scene is left as it was; the scripts exit 1 with the message.
"""

import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import bpy
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def counts():
    return len(bpy.data.objects), len(bpy.data.meshes), len(bpy.data.materials), len(bpy.data.images)


def image_layer(path):
    return {
        "name": "img",
        "color": [0.5, 0.5, 0.5],
        "minimum": -1.0,
        "optimal": 0.5,
        "maximum": 2.0,
        "kind": "IMAGE",
        "image": str(path),
    }


def spec_with(orogen, path, size=9):
    data = orogen.core.TerrainSpec(size=size).to_dict()
    data["layers"] = [image_layer(path)]
    return data


def cut_exr(orogen, path):
    """A 64 x 64 float OpenEXR written by Blender, cut inside its pixel data."""
    values = np.linspace(0.0, 1.0, 64 * 64, dtype=np.float32).reshape(64, 64)
    orogen.addon.io.heightmaps.write_image(str(path), values, depth="32", file_format="OPEN_EXR")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])
    return path


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bomb(path, side=30000):
    """A whole 8-bit grey PNG of well under a megabyte declaring ``side`` x ``side`` pixels (all zero)."""
    packer = zlib.compressobj(9)
    row = bytes(side + 1)  # filter byte, then the row
    data = b"".join(packer.compress(row * 64) for _ in range(8)) + packer.flush()
    ihdr = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", data) + chunk(b"IEND", b""))
    return path


def test_a_cut_openexr_layer_is_reported_and_leaves_the_scene_as_it_was(scene, orogen, tmp_path):
    path = cut_exr(orogen, tmp_path / "cut.exr")
    before = counts()
    with pytest.raises(RuntimeError, match=r"layers\[0\] \('img'\): cut.exr cannot be read: the OpenEXR file is cut"):
        bpy.ops.orogen.terrain_add(spec=json.dumps(spec_with(orogen, path)))
    assert counts() == before


def test_a_png_declaring_30000_squared_pixels_is_refused_before_decoding(scene, orogen, tmp_path):
    path = png_bomb(tmp_path / "bomb.png")
    assert path.stat().st_size < 1 << 20
    before = counts()
    with pytest.raises(RuntimeError, match="bomb.png cannot be read: its header declares 30000 x 30000 pixels"):
        bpy.ops.orogen.terrain_add(spec=json.dumps(spec_with(orogen, path)))
    assert counts() == before


def test_an_image_beyond_the_memory_available_is_refused(scene, orogen, tmp_path, monkeypatch):
    path = tmp_path / "big.png"
    orogen.addon.io.heightmaps.write_image(str(path), np.zeros((512, 512), np.float32))
    monkeypatch.setenv("OROGEN_MEMORY_LIMIT", "1M")  # 512^2 pixels need 4 MiB in float
    before = counts()
    with pytest.raises(RuntimeError, match=r"big.png cannot be read: its 512 x 512 pixels need about 0.0 GiB"):
        bpy.ops.orogen.terrain_add(spec=json.dumps(spec_with(orogen, path)))
    assert counts() == before
    monkeypatch.delenv("OROGEN_MEMORY_LIMIT")
    assert bpy.ops.orogen.terrain_add(spec=json.dumps(spec_with(orogen, path))) == {"FINISHED"}


def test_a_jpeg_layer_is_read(scene, orogen, tmp_path):
    image = bpy.data.images.new("photo", 24, 16)
    try:
        image.filepath_raw = str(tmp_path / "photo.jpg")
        image.file_format = "JPEG"
        image.save()
    finally:
        bpy.data.images.remove(image)
    assert orogen.core.io.image_headers.check_file(str(tmp_path / "photo.jpg")) == ("JPEG", 16, 24)
    assert bpy.ops.orogen.terrain_add(spec=json.dumps(spec_with(orogen, tmp_path / "photo.jpg"))) == {"FINISHED"}
    tree = bpy.context.active_object.active_material.node_tree
    (node,) = [n for n in tree.nodes if n.bl_idname == "ShaderNodeTexImage"]
    assert tuple(node.image.size) == (24, 16)


def test_rebuild_material_with_a_cut_image_is_reported(scene, orogen, tmp_path):
    path = cut_exr(orogen, tmp_path / "cut.exr")
    bpy.ops.orogen.terrain_add(size=8)
    obj = bpy.context.active_object
    obj.orogen.live_update = False
    obj.orogen.layers[0].kind = "IMAGE"
    obj.orogen.layers[0].image = str(path)
    material = obj.active_material
    before = counts()
    with pytest.raises(RuntimeError, match="cut.exr cannot be read: the OpenEXR file is cut short"):
        bpy.ops.orogen.material_rebuild()
    assert counts() == before and obj.active_material == material


@pytest.mark.parametrize("script", ["render_terrain.py", "export_heightmaps.py"])
@pytest.mark.parametrize("kind", ["cut", "bomb"])
def test_the_scripts_exit_1_with_the_message(tmp_path, orogen, script, kind):
    path = cut_exr(orogen, tmp_path / "cut.exr") if kind == "cut" else png_bomb(tmp_path / "bomb.png")
    (tmp_path / "s.json").write_text(json.dumps(spec_with(orogen, path, size=17)))
    out = ["--output", tmp_path / "t.png"] if script == "render_terrain.py" else ["--output-dir", tmp_path / "out"]
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), "--spec", str(tmp_path / "s.json"), *map(str, out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])  # not -11 (SIGSEGV)
    said = "cut.exr cannot be read: the OpenEXR file is cut short" if kind == "cut" else "declares 30000 x 30000"
    assert said in proc.stderr and "Terrain not added: layers[0] ('img')" in proc.stderr, proc.stderr[-2000:]
    assert not (tmp_path / "t.png").exists() and not (tmp_path / "out").exists()


def test_a_live_layer_edit_to_a_cut_image_says_so_and_keeps_the_material(scene, orogen, tmp_path):
    path = cut_exr(orogen, tmp_path / "cut.exr")
    bpy.ops.orogen.terrain_add(size=8)
    obj = bpy.context.active_object
    assert obj.orogen.live_update
    material = obj.active_material
    obj.orogen.layers[0].image = str(path)
    before = counts()
    obj.orogen.layers[0].kind = "IMAGE"  # a look-only change: the live update rebuilds the material
    orogen.addon.live.on_setting_changed(obj, bpy.context)  # what the property's update does with a window
    assert obj.orogen.status.startswith("Material not rebuilt: layers[0] ('low'): cut.exr cannot be read: ")
    assert counts() == before and obj.active_material == material


def test_regenerate_and_export_after_a_refused_layer_image_say_so(scene, orogen, tmp_path, capfd):
    """Rebuild Material refuses the cut image; Regenerate and Export Terrain Maps still do their work, and each
    says, as a warning, that the layer's image was refused (naming the layer and the file)."""
    path = cut_exr(orogen, tmp_path / "cut.exr")
    bpy.ops.orogen.terrain_add(size=8)
    obj = bpy.context.active_object
    obj.orogen.live_update = False
    obj.orogen.layers[0].kind = "IMAGE"
    obj.orogen.layers[0].image = str(path)
    with pytest.raises(RuntimeError):
        bpy.ops.orogen.material_rebuild()
    material = obj.active_material
    note = f"layers[0] ('low'): its image {path} was refused (cut.exr cannot be read: the OpenEXR file is cut short"
    obj.orogen.seed += 1
    capfd.readouterr()
    assert bpy.ops.orogen.terrain_regenerate() == {"FINISHED"}
    assert obj.orogen.status.startswith("Regenerated terrain 8 x 8 in ") and note in obj.orogen.status
    assert obj.orogen.status.endswith("the material does not show it (Rebuild Material once the file is fixed)")
    assert obj.active_material == material and json.loads(obj.orogen.applied)["seed"] == obj.orogen.seed
    out = capfd.readouterr()
    assert "Warning: Regenerated terrain 8 x 8" in out.out + out.err and note in out.out + out.err
    assert bpy.ops.orogen.export_maps(directory=str(tmp_path / "out"), name="t") == {"FINISHED"}
    out = capfd.readouterr()
    assert "Warning: Wrote 8 files to " in out.out + out.err and note in out.out + out.err
    assert (tmp_path / "out" / "t_color.png").is_file() and (tmp_path / "out" / "t_height.png").is_file()
