"""Trees and rocks on a terrain: the "Orogen Scatter" Geometry Nodes group, its modifiers and the maps it reads.

The group scatters points over the terrain's faces with Distribute Points on Faces in Poisson Disk mode (no two
points closer than the Spacing, in metres) at a density (instances per hectare) times a *density factor* made
in the group from the terrain's maps, and puts an instance of a collection's objects on each point (one picked
at random per point), with random scale and turn and a lean towards the ground's normal. The factor is the
product of

- **slope**: from the surface normal, ``acos(n.z)`` in degrees; 1 between Slope Min and Slope Max, falling
  smoothly to 0 over Slope Softness beyond either end;
- **altitude**: the position's Z in metres (the terrain's lowest point is 0), the same band;
- **wetness**: the topographic wetness index (:func:`core.scatter.wetness_index`) baked by the add-on as the
  point attribute :data:`WETNESS_ATTRIBUTE`; the same band (1 when the attribute is missing);
- a **colour layer**'s weight (:func:`core.colormap.layer_weights`), baked as the point attribute the Layer
  Attribute input names (:func:`layer_attribute`); 1 when that input is empty or the attribute missing.
- **dry ground**: 0 in a lake (the :data:`LAKE_ATTRIBUTE` map of the Rivers and Lakes filter, at least a
  millimetre deep), 1 elsewhere and when the attribute is missing;
- **groves** (:data:`core.scatter.CLUMP_OPTIONS`): a Noise Texture of the position in metres divided by Clump
  Size (offset by the Seed), its value ``g`` turned into 1 inside a grove and ``1 - Clumping`` in a clearing by
  a smooth step over ``[GROVE_EDGE - GROVE_WIDTH, GROVE_EDGE + GROVE_WIDTH]``: stands and clearings instead of
  an even spread.

Each instance's scale is ``Scale Min + (Scale Max - Scale Min) * u`` with ``u`` a random number in ``[0, 1]``
moved Site Scale of the way to the point's *site* value in ``[0, 1]``: how deep inside its grove it stands (the
same noise, a smooth step from the grove's edge to ``GROVE_EDGE + GROVE_CORE``), averaged with the wetness's
rank on the terrain (``(w - mean) / (2 std) + 1/2``, clamped) where the wetness is baked. Its width (X and Y)
is further scaled by a random factor in ``1 +- WIDTH_JITTER``, so no two instances of a variant are clones.

Instances are not realised: each is a reference to a placeholder (or the user's) object. With Viewport Points
on the viewport shows only the points (far lighter to draw than the instances' meshes); a render shows the
instances ("Is Viewport" is false there). The points' radius is a metre times the instance's scale.

Everything random draws from Blender's hash of the points' stable ``id`` and the Seed: the same terrain and
settings give the same instances. The group is marked (:data:`GROUP_PROPERTY`, its version) and rebuilt when a
newer add-on changes it; a modifier is Orogen's scatter when it is a Geometry Nodes modifier with that group.
"""

import json
import math

import bpy
import numpy as np

from ..core.colormap import check_layers, layer_weights
from ..core.lighting import cell_size
from ..core.scatter import CLUMP_OPTIONS, wetness_index
from .mesh import EROSION_ATTRIBUTES, HEIGHT_ATTRIBUTE, SLOPE_ATTRIBUTE, TERRAIN_PROPERTY

GROUP_NAME = "Orogen Scatter"
#: Node group custom property marking Orogen's scatter group; its value is :data:`GROUP_VERSION`.
GROUP_PROPERTY = "orogen_scatter_group"
GROUP_VERSION = 3
#: The point attribute of a terrain's lake depth (the Rivers and Lakes filter's map): nothing grows in a lake.
LAKE_ATTRIBUTE = "lake_depth"
#: The point attribute holding the topographic wetness index.
WETNESS_ATTRIBUTE = "orogen_wetness"
#: The wetness inputs' range: a scatter whose Wetness Min and Max are these reads no wetness.
WETNESS_BOUNDS = (-100.0, 100.0)
#: Without a drainage map the wetness is routed on a grid at most this many vertices across (see
#: :func:`core.scatter.wetness_index`): about a second (2049² takes about eight).
WETNESS_MAX_SIDE = 1025
#: A colour layer's baked weight is the point attribute of this prefix and the layer's name.
LAYER_PREFIX = "orogen_weight_"
#: The grove noise (Blender's Noise Texture value, about 0.5 +- 0.1): groves where it is above GROVE_EDGE (about
#: 60 % of the ground), the density's smooth step GROVE_WIDTH either side of it, the site's GROVE_CORE above it.
GROVE_EDGE, GROVE_WIDTH, GROVE_CORE = 0.47, 0.025, 0.12
#: The grove noise's Detail (octaves beyond the first: ragged edges) and Roughness.
GROVE_DETAIL, GROVE_ROUGHNESS = 2.0, 0.55
#: Each instance's width is its scale times a random factor within 1 +- this.
WIDTH_JITTER = 0.15
_CLUMP = {option.label: option for option in CLUMP_OPTIONS}
_CLUMP_DEFAULTS = {"Clump Size": 100.0, "Clumping": 0.8, "Site Scale": 0.5}


def _clump_input(label: str) -> tuple:
    """The group input of the grove setting ``label``: core's bounds and description. Clump Size's 0 means
    "from the terrain's size" to Add Scatter only, which passes the size it computes: the group's least is 1 m."""
    option = _CLUMP[label]
    low = max(option.low, 1.0) if option.unit == "m" else option.low
    return (label, "NodeSocketFloat", _CLUMP_DEFAULTS[label], low, option.high, option.description)


#: The group's inputs after Geometry: (name, socket type, default, min, max, description).
INPUTS = (
    ("Collection", "NodeSocketCollection", None, None, None, "The objects to place (one picked per point)"),
    ("Seed", "NodeSocketInt", 0, 0, 2**31 - 1, "Seed of the points and of their random scale, turn and pick"),
    ("Density", "NodeSocketFloat", 100.0, 0.0, 1.0e5, "Instances per hectare where every factor is 1"),
    ("Spacing", "NodeSocketFloat", 4.0, 0.0, 1.0e4, "Least distance between two instances, metres"),
    ("Slope Min", "NodeSocketFloat", 0.0, 0.0, 90.0, "Degrees: fewer instances below (over the softness)"),
    ("Slope Max", "NodeSocketFloat", 35.0, 0.0, 90.0, "Degrees: fewer instances above (over the softness)"),
    ("Slope Softness", "NodeSocketFloat", 5.0, 0.0, 90.0, "Degrees over which the slope factor falls to 0"),
    ("Altitude Min", "NodeSocketFloat", -1.0e6, -1.0e6, 1.0e6, "Metres (Z, the lowest point is 0)"),
    ("Altitude Max", "NodeSocketFloat", 1.0e6, -1.0e6, 1.0e6, "Metres (Z, the lowest point is 0)"),
    ("Altitude Softness", "NodeSocketFloat", 20.0, 0.0, 1.0e5, "Metres over which the altitude factor falls"),
    ("Wetness Min", "NodeSocketFloat", -100.0, -100.0, 100.0, "Topographic wetness index (dry ridges ~2)"),
    ("Wetness Max", "NodeSocketFloat", 100.0, -100.0, 100.0, "Topographic wetness index (valley floors 10+)"),
    ("Wetness Softness", "NodeSocketFloat", 1.0, 0.0, 100.0, "Index units over which the wetness factor falls"),
    ("Layer Attribute", "NodeSocketString", "", None, None, "A colour layer's weight attribute (empty: none)"),
    _clump_input("Clump Size"),
    _clump_input("Clumping"),
    ("Scale Min", "NodeSocketFloat", 0.5, 0.0, 1.0e3, "Smallest scale of an instance"),
    ("Scale Max", "NodeSocketFloat", 1.5, 0.0, 1.0e3, "Largest scale of an instance"),
    _clump_input("Site Scale"),
    ("Rotation", "NodeSocketFloat", 180.0, 0.0, 180.0, "Random turn about the vertical, degrees either way"),
    ("Align", "NodeSocketFloat", 0.0, 0.0, 1.0, "Lean to the ground's normal: 0 upright (trees), 1 normal"),
    ("Sink", "NodeSocketFloat", 0.0, -1.0e3, 1.0e3, "Metres each instance is lowered into the ground"),
    ("Viewport Points", "NodeSocketBool", True, None, None, "Show points in the viewport, instances in renders"),
)


def is_scatter_group(group) -> bool:
    """Whether ``group`` is Orogen's scatter node group (marked, any version)."""
    return group is not None and group.get(GROUP_PROPERTY) is not None


def scatter_modifiers(obj: bpy.types.Object) -> list[bpy.types.Modifier]:
    """``obj``'s Geometry Nodes modifiers that run Orogen's scatter group, in stack order."""
    return [m for m in obj.modifiers if m.type == "NODES" and is_scatter_group(m.node_group)]


def identifiers(group: bpy.types.NodeTree) -> dict[str, str]:
    """The group's input names to their identifiers (the keys of a modifier's values)."""
    return {item.name: item.identifier for item in group.interface.items_tree if item.item_type == "SOCKET"}


def get_input(modifier: bpy.types.Modifier, name: str):
    """The value of the scatter input ``name`` on ``modifier``."""
    return modifier[identifiers(modifier.node_group)[name]]


def set_inputs(modifier: bpy.types.Modifier, values: dict) -> None:
    """Set scatter inputs by name on ``modifier`` (a dict of name to value) and tag the object for update."""
    ids = identifiers(modifier.node_group)
    for name, value in values.items():
        modifier[ids[name]] = value
    modifier.id_data.update_tag()


def scatter_group() -> tuple[bpy.types.NodeTree, bool]:
    """``(group, made)``: Orogen's scatter node group of the current version, built when this file has none
    (``made`` True). An older version's group is renamed out of the way and left to the modifiers that use it."""
    for group in bpy.data.node_groups:
        if group.get(GROUP_PROPERTY) == GROUP_VERSION and group.library is None:
            return group, False
    old = bpy.data.node_groups.get(GROUP_NAME)
    if old is not None and old.library is None:
        old.name = f"{GROUP_NAME} (old)"
    group = bpy.data.node_groups.new(GROUP_NAME, "GeometryNodeTree")
    group[GROUP_PROPERTY] = GROUP_VERSION
    try:
        _build(group)
    except Exception:
        bpy.data.node_groups.remove(group)
        raise
    return group, True


class _Tree:
    """Adds nodes in a grid and links them; sockets by name, the n-th enabled one of a name when several."""

    def __init__(self, tree: bpy.types.NodeTree) -> None:
        self.tree = tree

    def node(self, kind: str, x: float, y: float, **attrs) -> bpy.types.Node:
        node = self.tree.nodes.new(kind)
        node.location = (x * 200.0, -y * 160.0)
        for key, value in attrs.items():
            setattr(node, key, value)
        return node

    @staticmethod
    def pick(sockets, name: str, nth: int = 0):
        found = [s for s in sockets if s.name == name and s.enabled]
        return found[nth]

    def feed(self, node: bpy.types.Node, name: str, value, nth: int = 0) -> None:
        """Link ``value`` (an output socket) into ``node``'s input ``name``, or set it (a constant)."""
        target = self.pick(node.inputs, name, nth)
        if isinstance(value, bpy.types.NodeSocket):
            self.tree.links.new(value, target)
        else:
            target.default_value = value

    def math(self, op: str, a, b=None, x=0.0, y=0.0) -> bpy.types.NodeSocket:
        """A Math node's result; ``b`` ``None`` for a one-argument operation."""
        node = self.node("ShaderNodeMath", x, y, operation=op)
        self.feed(node, "Value", a, 0)
        if b is not None:
            self.feed(node, "Value", b, 1)
        return node.outputs[0]

    def ramp(self, value, start, end, to: tuple[float, float], x: float, y: float) -> bpy.types.NodeSocket:
        """A clamped smooth-step Map Range of ``value`` from ``[start, end]`` to ``to``."""
        node = self.node("ShaderNodeMapRange", x, y, interpolation_type="SMOOTHSTEP", clamp=True)
        for name, given in (("Value", value), ("From Min", start), ("From Max", end), ("To Min", to[0])):
            self.feed(node, name, given)
        self.feed(node, "To Max", to[1])
        return node.outputs[0]

    def band(self, value, low, high, soft, x: float, y: float) -> bpy.types.NodeSocket:
        """1 in ``[low, high]``, falling smoothly to 0 over ``soft`` beyond either end (softness at least 1e-4)."""
        soft = self.math("MAXIMUM", soft, 1.0e-4, x, y)
        rise = self.ramp(value, self.math("SUBTRACT", low, soft, x + 1, y), low, (0.0, 1.0), x + 2, y)
        fall = self.ramp(value, high, self.math("ADD", high, soft, x + 1, y + 1), (1.0, 0.0), x + 2, y + 1)
        return self.math("MULTIPLY", rise, fall, x + 3, y)

    def unless_missing(self, name, factor_of, x: float, y: float) -> bpy.types.NodeSocket:
        """``factor_of(attribute)`` where the point attribute ``name`` exists, else 1."""
        attribute = self.node("GeometryNodeInputNamedAttribute", x, y, data_type="FLOAT")
        self.feed(attribute, "Name", name)
        switch = self.node("GeometryNodeSwitch", x + 4, y, input_type="FLOAT")
        self.feed(switch, "Switch", self.pick(attribute.outputs, "Exists"))
        self.feed(switch, "False", 1.0)
        self.feed(switch, "True", factor_of(self.pick(attribute.outputs, "Attribute")))
        return switch.outputs[0]

    def random(self, kind: str, low, high, seed, offset: int, x: float, y: float) -> bpy.types.NodeSocket:
        node = self.node("FunctionNodeRandomValue", x, y, data_type=kind)
        self.feed(node, "Min", low)
        self.feed(node, "Max", high)
        self.feed(node, "Seed", self.math("ADD", seed, float(offset), x - 1, y))
        return self.pick(node.outputs, "Value")


def _build(group: bpy.types.NodeTree) -> None:
    """The scatter's interface and nodes (see the module docstring)."""
    group.is_modifier = True
    face = group.interface
    face.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    face.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    for name, socket_type, default, low, high, description in INPUTS:
        socket = face.new_socket(name, in_out="INPUT", socket_type=socket_type)
        socket.description = description
        if default is not None:
            socket.default_value = default
        if low is not None:
            socket.min_value, socket.max_value = low, high
    t = _Tree(group)
    given = t.node("NodeGroupInput", 0, 0)
    inp = {s.name: s for s in given.outputs if s.name}
    # The density factor: slope, altitude, wetness and a colour layer.
    normal = t.node("GeometryNodeInputNormal", 1, 0)
    axes = t.node("ShaderNodeSeparateXYZ", 2, 0)
    t.feed(axes, "Vector", t.pick(normal.outputs, "Normal"))
    slope = t.math("MULTIPLY", t.math("ARCCOSINE", t.pick(axes.outputs, "Z"), None, 3, 0), 180.0 / math.pi, 4, 0)
    slope_factor = t.band(slope, inp["Slope Min"], inp["Slope Max"], inp["Slope Softness"], 5, 0)
    position = t.node("GeometryNodeInputPosition", 1, 4)
    height = t.node("ShaderNodeSeparateXYZ", 2, 4)
    t.feed(height, "Vector", t.pick(position.outputs, "Position"))
    z = t.pick(height.outputs, "Z")
    altitude_factor = t.band(z, inp["Altitude Min"], inp["Altitude Max"], inp["Altitude Softness"], 5, 4)
    wet = (inp["Wetness Min"], inp["Wetness Max"], inp["Wetness Softness"])
    wetness_factor = t.unless_missing(WETNESS_ATTRIBUTE, lambda w: t.band(w, *wet, 5, 8), 1, 8)
    layer_factor = t.unless_missing(inp["Layer Attribute"], lambda w: w, 1, 12)
    dry_factor = t.unless_missing(LAKE_ATTRIBUTE, lambda d: t.ramp(d, 0.0, 1.0e-3, (1.0, 0.0), 5, 16), 1, 16)
    # Groves: a noise of the position in metres over the Clump Size, offset by a vector drawn from the Seed.
    offset = t.node("FunctionNodeRandomValue", 2, 20, data_type="FLOAT_VECTOR")
    t.feed(offset, "Min", (-1000.0, -1000.0, -1000.0))
    t.feed(offset, "Max", (1000.0, 1000.0, 1000.0))
    zero = t.node("FunctionNodeInputInt", 1, 20, integer=0)  # (an unlinked ID is the index: one offset per point)
    t.feed(offset, "ID", zero.outputs[0])
    t.feed(offset, "Seed", t.math("ADD", inp["Seed"], 4.0, 1, 21))
    where = t.node("ShaderNodeVectorMath", 2, 22, operation="DIVIDE")
    t.feed(where, "Vector", t.pick(position.outputs, "Position"), 0)
    size = t.math("MAXIMUM", inp["Clump Size"], 1.0e-3, 1, 23)
    spread_by = t.node("ShaderNodeCombineXYZ", 1, 24)
    for axis in "XYZ":
        t.feed(spread_by, axis, size)
    t.feed(where, "Vector", spread_by.outputs[0], 1)
    shifted = t.node("ShaderNodeVectorMath", 3, 22, operation="ADD")
    t.feed(shifted, "Vector", where.outputs[0], 0)
    t.feed(shifted, "Vector", t.pick(offset.outputs, "Value"), 1)
    noise = t.node("ShaderNodeTexNoise", 4, 22, noise_dimensions="3D")
    t.feed(noise, "Vector", shifted.outputs[0])
    t.feed(noise, "Scale", 1.0)
    t.feed(noise, "Detail", GROVE_DETAIL)
    t.feed(noise, "Roughness", GROVE_ROUGHNESS)
    g = noise.outputs[0]  # (its Fac, called Factor from Blender 5.0)
    grove = t.ramp(g, GROVE_EDGE - GROVE_WIDTH, GROVE_EDGE + GROVE_WIDTH, (0.0, 1.0), 5, 22)
    clearing = t.math("MULTIPLY", inp["Clumping"], t.math("SUBTRACT", 1.0, grove, 6, 23), 7, 22)
    grove_factor = t.math("SUBTRACT", 1.0, clearing, 8, 22)
    factor = t.math(
        "MULTIPLY",
        t.math("MULTIPLY", t.math("MULTIPLY", slope_factor, altitude_factor, 10, 2), grove_factor, 10, 3),
        t.math("MULTIPLY", t.math("MULTIPLY", wetness_factor, layer_factor, 9, 10), dry_factor, 10, 10),
        11,
        6,
    )
    # The site: deep inside a grove, averaged with the wetness's rank on the terrain where it is baked.
    core = t.ramp(g, GROVE_EDGE - GROVE_WIDTH, GROVE_EDGE + GROVE_CORE, (0.0, 1.0), 5, 26)
    wet_field = t.node("GeometryNodeInputNamedAttribute", 1, 28, data_type="FLOAT")
    t.feed(wet_field, "Name", WETNESS_ATTRIBUTE)
    stats = t.node("GeometryNodeAttributeStatistic", 2, 29, data_type="FLOAT", domain="POINT")
    t.feed(stats, "Geometry", inp["Geometry"])
    t.feed(stats, "Attribute", t.pick(wet_field.outputs, "Attribute"))
    spread_wet = t.math("MAXIMUM", t.math("MULTIPLY", t.pick(stats.outputs, "Standard Deviation"), 2.0, 3, 29), 1e-3)
    rank = t.math(
        "DIVIDE", t.math("SUBTRACT", t.pick(wet_field.outputs, "Attribute"), t.pick(stats.outputs, "Mean")), spread_wet
    )
    rank = t.math("MINIMUM", t.math("MAXIMUM", t.math("ADD", rank, 0.5, 5, 28), 0.0, 6, 28), 1.0, 7, 28)
    site_switch = t.node("GeometryNodeSwitch", 8, 27, input_type="FLOAT")
    t.feed(site_switch, "Switch", t.pick(wet_field.outputs, "Exists"))
    t.feed(site_switch, "False", core)
    t.feed(site_switch, "True", t.math("MULTIPLY", t.math("ADD", core, rank, 8, 28), 0.5, 9, 28))
    site = site_switch.outputs[0]
    # Points, Poisson disc.
    spread = t.node("GeometryNodeDistributePointsOnFaces", 12, 0, distribute_method="POISSON")
    t.feed(spread, "Mesh", inp["Geometry"])
    t.feed(spread, "Distance Min", inp["Spacing"])
    t.feed(spread, "Density Max", t.math("DIVIDE", inp["Density"], 10000.0, 11, 0))
    t.feed(spread, "Density Factor", factor)
    t.feed(spread, "Seed", inp["Seed"])
    sunk = t.node("GeometryNodeSetPosition", 13, 0)
    t.feed(sunk, "Geometry", t.pick(spread.outputs, "Points"))
    down = t.node("ShaderNodeCombineXYZ", 12, -1)
    t.feed(down, "Z", t.math("MULTIPLY", inp["Sink"], -1.0, 11, -1))
    t.feed(sunk, "Offset", down.outputs[0])
    # Each point's turn, lean, scale and pick.
    spin = t.node("ShaderNodeCombineXYZ", 13, 3)
    turn = t.math("MULTIPLY", inp["Rotation"], math.pi / 180.0, 11, 3)
    t.feed(spin, "Z", t.random("FLOAT", t.math("MULTIPLY", turn, -1.0, 12, 4), turn, inp["Seed"], 1, 12, 3))
    euler = t.node("FunctionNodeEulerToRotation", 14, 3)
    t.feed(euler, "Euler", spin.outputs[0])
    lean = t.node("FunctionNodeAlignRotationToVector", 15, 3, axis="Z", pivot_axis="AUTO")
    t.feed(lean, "Rotation", euler.outputs[0])
    t.feed(lean, "Factor", inp["Align"])
    t.feed(lean, "Vector", t.pick(spread.outputs, "Normal"))
    chance = t.random("FLOAT", 0.0, 1.0, inp["Seed"], 2, 12, 6)
    share = t.math(
        "ADD", chance, t.math("MULTIPLY", inp["Site Scale"], t.math("SUBTRACT", site, chance, 10, 27), 11, 27), 12, 27
    )
    width = t.math("SUBTRACT", inp["Scale Max"], inp["Scale Min"], 11, 25)
    scale = t.math("ADD", inp["Scale Min"], t.math("MULTIPLY", width, share, 12, 25), 13, 25)
    wide = t.math(
        "MULTIPLY", scale, t.random("FLOAT", 1.0 - WIDTH_JITTER, 1.0 + WIDTH_JITTER, inp["Seed"], 5, 12, 24), 13, 24
    )
    stretch = t.node("ShaderNodeCombineXYZ", 14, 24)
    t.feed(stretch, "X", wide)
    t.feed(stretch, "Y", wide)
    t.feed(stretch, "Z", scale)
    pick = t.random("INT", 0, 1 << 20, inp["Seed"], 3, 12, 8)
    objects = t.node("GeometryNodeCollectionInfo", 13, 10, transform_space="ORIGINAL")
    t.feed(objects, "Collection", inp["Collection"])
    t.feed(objects, "Separate Children", True)
    t.feed(objects, "Reset Children", True)
    place = t.node("GeometryNodeInstanceOnPoints", 16, 0)
    t.feed(place, "Points", sunk.outputs[0])
    t.feed(place, "Instance", objects.outputs[0])
    t.feed(place, "Pick Instance", True)
    t.feed(place, "Instance Index", pick)
    t.feed(place, "Rotation", lean.outputs[0])
    t.feed(place, "Scale", stretch.outputs[0])
    # The viewport's points: a metre times the instance's scale.
    dots = t.node("GeometryNodeSetPointRadius", 16, 5)
    t.feed(dots, "Points", sunk.outputs[0])
    t.feed(dots, "Radius", scale)
    viewport = t.node("GeometryNodeIsViewport", 16, 7)
    light = t.node("FunctionNodeBooleanMath", 17, 7, operation="AND")
    t.feed(light, "Boolean", viewport.outputs[0], 0)
    t.feed(light, "Boolean", inp["Viewport Points"], 1)
    shown = t.node("GeometryNodeSwitch", 18, 2, input_type="GEOMETRY")
    t.feed(shown, "Switch", light.outputs[0])
    t.feed(shown, "False", place.outputs[0])
    t.feed(shown, "True", dots.outputs[0])
    both = t.node("GeometryNodeJoinGeometry", 19, 0)
    t.feed(both, "Geometry", inp["Geometry"])
    t.tree.links.new(shown.outputs[0], both.inputs[0])
    out = t.node("NodeGroupOutput", 20, 0)
    t.feed(out, "Geometry", both.outputs[0])


def layer_attribute(name: str) -> str:
    """The point attribute holding the weight of the colour layer called ``name``."""
    return LAYER_PREFIX + "".join(c if c.isalnum() else "_" for c in name.strip().lower())


def _terrain_grid(obj: bpy.types.Object) -> tuple[int, int, float, float] | None:
    """``(rows, cols, width, height)`` from the terrain's record when its mesh is that grid, else ``None``."""
    try:
        info = json.loads(obj.get(TERRAIN_PROPERTY, "{}"))
        rows, cols = (int(n) for n in info["shape"])
        width, height = float(info["width"]), float(info["height"])
    except (TypeError, ValueError, KeyError):
        return None
    return (rows, cols, width, height) if len(obj.data.vertices) == rows * cols else None


def footprint(obj: bpy.types.Object, *, scaled: bool = True) -> tuple[float, float]:
    """``(x, y)`` extent in metres of the terrain's grid (its record's width, times the object's scale unless
    ``scaled`` is False: the extent in the object's own space, where the node group reads positions); the
    object's dimensions (its bounding box's, unscaled) when it has no record."""
    grid = _terrain_grid(obj)
    sx, sy = (abs(obj.scale.x), abs(obj.scale.y)) if scaled else (1.0, 1.0)
    if grid is None:
        corners = np.array(obj.bound_box, dtype=np.float64)
        extent = corners.max(axis=0) - corners.min(axis=0)
        return float(extent[0]) * sx, float(extent[1]) * sy
    rows, cols, width, _ = grid
    cell = cell_size((rows, cols), width)
    return (cols - 1) * cell * sx, (rows - 1) * cell * sy


def _read(mesh: bpy.types.Mesh, name: str, shape: tuple[int, int]) -> np.ndarray | None:
    attribute = mesh.attributes.get(name)
    if attribute is None or attribute.domain != "POINT" or attribute.data_type != "FLOAT":
        return None
    values = np.empty(shape[0] * shape[1], dtype=np.float32)
    attribute.data.foreach_get("value", values)
    return values.reshape(shape)


def _write(mesh: bpy.types.Mesh, name: str, values: np.ndarray) -> None:
    attribute = mesh.attributes.get(name)
    if attribute is not None and (attribute.domain != "POINT" or attribute.data_type != "FLOAT"):
        mesh.attributes.remove(attribute)
        attribute = None
    attribute = attribute or mesh.attributes.new(name, "FLOAT", "POINT")
    attribute.data.foreach_set("value", np.ascontiguousarray(values, dtype=np.float32).ravel())


def bake_maps(obj: bpy.types.Object, layers: tuple, seed: int, wanted: set[str], *, wetness: bool) -> list[str]:
    """Write the point attributes ``obj``'s scatters read: the wetness index, and the weight of each colour
    layer (of ``layers``, the spec's, checked) named in ``wanted`` (layer names). Returns notes for the user
    (the mesh is no longer the terrain's grid; a layer that does not exist).

    Heights come from the ``height`` attribute times the terrain's Height, the drainage area from the
    ``drainage_area`` erosion map when the terrain has one, the slope from the ``slope`` attribute. The wetness
    is baked when ``wetness`` is true or the terrain has that map (then it costs a few array operations);
    otherwise it would need a D8 routing of the heights (:func:`core.scatter.wetness_index`, on at most
    :data:`WETNESS_MAX_SIDE` vertices across: about a second, see ``scripts/bench.py --scatter``), so an
    attribute left from before is removed instead (the scatter then reads no wetness, factor 1, rather than
    a stale one).
    """
    grid = _terrain_grid(obj)
    mesh = obj.data
    if grid is None or mesh.attributes.get(HEIGHT_ATTRIBUTE) is None:
        return [f"{obj.name}'s mesh is not its terrain grid: the scatter's wetness and layer maps were not baked"]
    rows, cols, width, height = grid
    cell = cell_size((rows, cols), width)
    drainage = _read(mesh, "drainage_area", (rows, cols))
    names = [lay.name for lay in layers]
    wanted = {w for w in wanted if w}
    missing = sorted(w for w in wanted if w not in names)
    notes = [f"no colour layer called {w!r}: its weight was not baked" for w in missing]
    wetness = wetness or drainage is not None
    if not wetness and mesh.attributes.get(WETNESS_ATTRIBUTE) is not None:
        mesh.attributes.remove(mesh.attributes[WETNESS_ATTRIBUTE])
        mesh.update_tag()
    if not wetness and not wanted - set(missing):
        return notes  # nothing to read or write (a scatter of conifers, boulders: slope and altitude only)
    units = _read(mesh, HEIGHT_ATTRIBUTE, (rows, cols))
    if wetness:
        metres = units.astype(np.float64) * height
        index = wetness_index(metres, cell, drainage=drainage, max_side=WETNESS_MAX_SIDE)
        _write(mesh, WETNESS_ATTRIBUTE, index)
    if wanted - set(missing):
        layers = check_layers(layers)
        slope = _read(mesh, SLOPE_ATTRIBUTE, (rows, cols))
        maps = {m: v for m in EROSION_ATTRIBUTES if (v := _read(mesh, m, (rows, cols))) is not None}
        weights = layer_weights(units, layers, slope, maps=maps, height=height, cell_size=cell, seed=seed)
        for i, name in enumerate(names):
            if name in wanted:
                _write(mesh, layer_attribute(name), weights[..., i])
    mesh.update_tag()  # (the attributes changed: the scatter evaluates again)
    return notes


def uses_wetness(modifier: bpy.types.Modifier) -> bool:
    """Whether the scatter ``modifier`` narrows the wetness range (else its wetness factor is 1 anyway)."""
    low, high = (float(get_input(modifier, name)) for name in ("Wetness Min", "Wetness Max"))
    return low > WETNESS_BOUNDS[0] or high < WETNESS_BOUNDS[1]


def wanted_layers(obj: bpy.types.Object, layers: tuple) -> set[str]:
    """The names of the colour layers (of ``layers``) whose weight ``obj``'s scatters read."""
    asked = {str(get_input(m, "Layer Attribute")) for m in scatter_modifiers(obj)}
    return {lay.name for lay in layers if layer_attribute(lay.name) in asked}


def sync_scatter(obj: bpy.types.Object, spec) -> list[str]:
    """Bake again the maps ``obj``'s scatters read (after its terrain changed: regenerate, a live update); nothing
    when it has no scatter. Returns notes for the user (see :func:`bake_maps`)."""
    if not scatter_modifiers(obj):
        return []
    wetness = any(uses_wetness(m) for m in scatter_modifiers(obj))
    return bake_maps(obj, spec.layers, spec.seed, wanted_layers(obj, spec.layers), wetness=wetness)
