"""Render displacement: Cycles dices a terrain finer than its grid at render time and lays the new vertices on
the smooth surface through the heightmap, for close-ups (the spec's ``material.displacement``).

Three parts, all Orogen's and rebuilt by :func:`sync_displacement` whenever the terrain's heights or material
change:

- a **height texture**: a 32-bit float image of the mesh's own heights (metres, read from its vertices), stored
  as the cubic B-spline coefficients that make Cycles' cubic texture interpolation pass through every vertex
  exactly (:func:`core.spline.bspline_coefficients`); packed into the .blend as 32-bit OpenEXR so a saved
  file keeps it (:data:`IMAGE_PROPERTY` marks it as Orogen's);
- **nodes in the terrain's material** (named ``Orogen Displacement ...``): the texture sampled at each point's
  object-space X and Y (one texel centre on each vertex), minus the point's undisplaced Z, as an object-space
  vector displacement into every Material Output's Displacement; the material's displacement method becomes
  Displacement and Bump, so the ground detail's bump still shades;
- a **Simple subdivision modifier** (:data:`MODIFIER_NAME`), last in the stack, with Cycles adaptive
  subdivision at ``material.dicing_rate`` pixels per micropolygon edge (on Blender 5.0 the modifier's own
  setting; on 4.2–4.5 the object's, which Cycles uses only with its Experimental feature set: the render
  scripts set it, and without it the modifier's one render level applies). The viewport shows the grid.

Simple subdivision keeps the undisplaced surface bilinear in each quad, so the rendered surface is exactly
the bicubic spline of the heightmap: peaks stay at their heights, shorelines and silhouettes are smooth curves
instead of the grid's straight segments. Exports, the scatter and every map keep the grid.
"""

import bpy
import numpy as np

from ..core.spec import TerrainSpec
from ..core.spline import bspline_coefficients
from .mesh import grid_shape_of

#: The subdivision modifier Orogen adds to a displaced terrain (and removes when displacement is off).
MODIFIER_NAME = "Orogen Displacement"
#: Prefix of the material nodes :func:`sync_displacement` adds (and removes when displacement is off).
NODE_PREFIX = "Orogen Displacement"
#: Name of the height texture's image node.
HEIGHT_NODE = f"{NODE_PREFIX} Height"
#: Name of the mapping node from object space to the texture's UVs.
MAPPING_NODE = f"{NODE_PREFIX} Mapping"
#: Custom property marking Orogen's height textures (its value: the name of the mesh they were baked from).
IMAGE_PROPERTY = "orogen_displacement_of"
#: Render levels of the modifier where adaptive subdivision is off (Blender 4.x without Experimental).
FALLBACK_LEVELS = 1


def is_displaced(obj: bpy.types.Object) -> bool:
    """Whether ``obj`` carries Orogen's displacement modifier."""
    modifier = obj.modifiers.get(MODIFIER_NAME)
    return modifier is not None and modifier.type == "SUBSURF"


def height_texture(coefficients: np.ndarray, name: str, image: bpy.types.Image | None = None) -> bpy.types.Image:
    """A packed 32-bit float image of ``coefficients`` ``float32 (rows, cols)`` (row 0 north; the image's row 0
    is its bottom, so the rows are flipped), its RGB each the value and alpha 1; ``image`` (Orogen's, from an
    earlier bake) is reused when it has the same size, else a new one is made (the old one is left to the
    caller). Non-colour data, so no colour transform touches the heights."""
    rows, cols = coefficients.shape
    if image is None or tuple(image.size) != (cols, rows) or not image.is_float:
        image = bpy.data.images.new(name, cols, rows, alpha=True, float_buffer=True, is_data=True)
    image.colorspace_settings.is_data = True
    pixels = np.empty((rows, cols, 4), dtype=np.float32)
    pixels[..., :3] = coefficients[::-1, :, None]
    pixels[..., 3] = 1.0
    image.pixels.foreach_set(pixels.ravel())
    image.file_format = "OPEN_EXR"
    image.use_half_precision = False
    image.pack()
    return image


def _nodes(material: bpy.types.Material) -> dict[str, bpy.types.Node]:
    """The displacement nodes of ``material`` (made when missing), by name."""
    tree = material.node_tree
    nodes = {n.name: n for n in tree.nodes if n.name.startswith(NODE_PREFIX)}
    if HEIGHT_NODE in nodes and MAPPING_NODE in nodes and len(nodes) == 7:
        return nodes
    for node in nodes.values():
        tree.nodes.remove(node)
    outputs = [n for n in tree.nodes if n.bl_idname == "ShaderNodeOutputMaterial"]
    x = max((n.location.x for n in outputs), default=0.0)
    y = min((n.location.y for n in outputs), default=0.0) - 400.0

    def add(kind: str, suffix: str, dx: float, dy: float = 0.0) -> bpy.types.Node:
        node = tree.nodes.new(kind)
        node.name = node.label = f"{NODE_PREFIX} {suffix}"
        node.location = (x - 1200.0 + dx, y + dy)
        return node

    coords = add("ShaderNodeTexCoord", "Coordinates", 0)
    mapping = add("ShaderNodeMapping", "Mapping", 200)
    mapping.vector_type = "POINT"
    texture = add("ShaderNodeTexImage", "Height", 400)
    texture.interpolation = "Cubic"
    texture.extension = "EXTEND"
    split = add("ShaderNodeSeparateXYZ", "Position", 400, -300)
    rise = add("ShaderNodeMath", "Rise", 700)
    rise.operation = "SUBTRACT"
    combine = add("ShaderNodeCombineXYZ", "Vector", 900)
    displace = add("ShaderNodeVectorDisplacement", "Output", 1100)
    displace.space = "OBJECT"
    displace.inputs["Midlevel"].default_value = 0.0
    displace.inputs["Scale"].default_value = 1.0
    links = tree.links
    links.new(coords.outputs["Object"], mapping.inputs["Vector"])
    links.new(mapping.outputs["Vector"], texture.inputs["Vector"])
    links.new(coords.outputs["Object"], split.inputs["Vector"])
    links.new(texture.outputs["Color"], rise.inputs[0])
    links.new(split.outputs["Z"], rise.inputs[1])
    links.new(rise.outputs["Value"], combine.inputs["Z"])
    links.new(combine.outputs["Vector"], displace.inputs["Vector"])
    for output in outputs:
        links.new(displace.outputs["Displacement"], output.inputs["Displacement"])
    return {n.name: n for n in tree.nodes if n.name.startswith(NODE_PREFIX)}


def _remove_nodes(material: bpy.types.Material | None) -> bpy.types.Image | None:
    """Remove Orogen's displacement nodes from ``material``; returns the height texture they used."""
    if material is None or material.node_tree is None:
        return None
    tree = material.node_tree
    image = None
    for node in [n for n in tree.nodes if n.name.startswith(NODE_PREFIX)]:
        if node.name == HEIGHT_NODE:
            image = node.image
        tree.nodes.remove(node)
    if image is not None:
        material.displacement_method = "BUMP"
    return image


def _drop_image(image: bpy.types.Image | None) -> None:
    """Remove ``image`` if it is Orogen's height texture and nothing uses it any more."""
    if image is not None and image.get(IMAGE_PROPERTY) is not None and image.users == 0:
        bpy.data.images.remove(image)


def _textures_of(mesh: bpy.types.Mesh) -> list[bpy.types.Image]:
    """Orogen's height textures baked from ``mesh`` (local ones)."""
    return [i for i in bpy.data.images if i.library is None and i.get(IMAGE_PROPERTY) == mesh.name]


def _modifier(obj: bpy.types.Object, dicing_rate: float) -> bpy.types.Modifier:
    """Orogen's subdivision modifier on ``obj``, made when missing, last in the stack, adaptive at ``dicing_rate``."""
    modifier = obj.modifiers.get(MODIFIER_NAME)
    if modifier is None:
        modifier = obj.modifiers.new(MODIFIER_NAME, "SUBSURF")
    modifier.subdivision_type = "SIMPLE"
    modifier.levels = 0
    modifier.render_levels = FALLBACK_LEVELS
    modifier.show_only_control_edges = True
    if hasattr(modifier, "use_adaptive_subdivision"):  # Blender 5.0 and later
        modifier.use_adaptive_subdivision = True
        modifier.adaptive_space = "PIXEL"
        modifier.adaptive_pixel_size = dicing_rate
    else:  # Blender 4.x: the object's Cycles settings (Experimental feature set)
        obj.cycles.use_adaptive_subdivision = True
        obj.cycles.dicing_rate = dicing_rate
    last = len(obj.modifiers) - 1
    index = obj.modifiers.find(MODIFIER_NAME)
    if index != last:
        obj.modifiers.move(index, last)
    return modifier


def remove_displacement(obj: bpy.types.Object) -> None:
    """Take Orogen's displacement off ``obj``: its modifier, its material's nodes and (unused) height texture."""
    modifier = obj.modifiers.get(MODIFIER_NAME)
    if modifier is not None and modifier.type == "SUBSURF":
        legacy = not hasattr(modifier, "use_adaptive_subdivision")  # Blender 4.x: the object's setting
        obj.modifiers.remove(modifier)
        if legacy and hasattr(obj, "cycles"):
            obj.cycles.use_adaptive_subdivision = False
    for slot in obj.material_slots:
        _drop_image(_remove_nodes(slot.material))
    for image in _textures_of(obj.data):  # left by a material that was replaced
        _drop_image(image)


def sync_displacement(obj: bpy.types.Object, spec: TerrainSpec) -> list[str]:
    """Bake, update or remove ``obj``'s render displacement as ``spec.material`` says; returns notes for the user.

    With ``displacement`` on (and the material on), the height texture is baked from the mesh's vertices,
    the first material gets the nodes and the object the modifier; off, all three go. A terrain that is not
    an Orogen grid (see :func:`.mesh.grid_shape_of`) or has no material of its own gets none, with a note; so
    does one with a modifier of another kind named :data:`MODIFIER_NAME` (a user's: nothing is changed).
    """
    m = spec.material
    material = obj.material_slots[0].material if obj.material_slots else None
    if not (m["enabled"] and m["displacement"]):
        remove_displacement(obj)
        return []
    shape = grid_shape_of(obj.data)
    if shape is None or material is None or material.node_tree is None:
        remove_displacement(obj)
        return [f"{obj.name}: Render Displacement needs an Orogen grid with its material; left off"]
    existing = obj.modifiers.get(MODIFIER_NAME)
    if existing is not None and existing.type != "SUBSURF":
        return [f"{obj.name} has a modifier {MODIFIER_NAME!r} of its own: rename it for Render Displacement"]
    rows, cols = shape
    co = np.empty(rows * cols * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    co = co.reshape(rows, cols, 3)
    cell_x = float(co[0, 1, 0] - co[0, 0, 0])
    cell_y = float(co[0, 0, 1] - co[1, 0, 1])
    origin_x = float(co[0, 0, 0]) - 0.5 * cell_x  # the west edge of the first texel
    origin_y = float(co[-1, 0, 1]) - 0.5 * cell_y  # the south edge of the bottom texel
    nodes = _nodes(material)
    texture = nodes[HEIGHT_NODE]
    old = texture.image if texture.image is not None and texture.image.get(IMAGE_PROPERTY) is not None else None
    if old is None:  # the material was rebuilt: its predecessor's texture of this mesh serves again
        old = next(iter(_textures_of(obj.data)), None)
    image = height_texture(bspline_coefficients(co[..., 2]), f"Orogen Height {obj.data.name}", old)
    image[IMAGE_PROPERTY] = obj.data.name
    texture.image = image
    if old is not None and old is not image:
        _drop_image(old)
    mapping = nodes[MAPPING_NODE]
    mapping.inputs["Scale"].default_value = (1.0 / (cell_x * cols), 1.0 / (cell_y * rows), 1.0)
    mapping.inputs["Location"].default_value = (-origin_x / (cell_x * cols), -origin_y / (cell_y * rows), 0.0)
    material.displacement_method = "BOTH"
    _modifier(obj, float(m["dicing_rate"]))
    return []


def use_experimental_cycles(scene: bpy.types.Scene) -> bool:
    """On Blender 4.x, switch ``scene``'s Cycles to its Experimental feature set when an object in it carries
    Orogen's displacement (adaptive subdivision needs it there; 5.0 does not); returns whether it changed."""
    if bpy.app.version >= (5, 0, 0) or not any(is_displaced(o) for o in scene.objects):
        return False
    if scene.cycles.feature_set == "EXPERIMENTAL":
        return False
    scene.cycles.feature_set = "EXPERIMENTAL"
    return True
