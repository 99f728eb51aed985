"""Terrain settings: one set of properties shared by the operator and the panel."""

import math

import bpy
from bpy.props import (
    BoolProperty,
    CollectionProperty,
    EnumProperty,
    FloatProperty,
    FloatVectorProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)

SEED_MAX = 2**31 - 1  # Blender's IntProperty is a signed 32-bit integer.


class TerrainSettings:
    """Mixin holding every terrain setting as a property annotation.

    Blender registers annotations from mixin bases, so the same definitions
    serve the add operator (its redo panel) and the scene settings that the
    N-panel edits.
    """

    size: IntProperty(
        name="Size",
        description="Vertices per side of the grid (the heightmap is size x size cells)",
        min=2, max=4097, soft_max=1025, default=129,
    )
    seed: IntProperty(
        name="Seed",
        description="Random seed: the same seed and settings give the same terrain",
        min=0, max=SEED_MAX, default=0,
    )
    generator: EnumProperty(
        name="Generator",
        description="Algorithm that makes the heightmap",
        items=(
            ('hills', "Hills", "Circle-based hills, optionally clustered into an island"),
            ('faults', "Fault Formation", "Random fault lines, each raising one side; smooth with the erosion filter"),
            ('diamond_square', "Diamond-Square", "Midpoint displacement: fractal mountains with a roughness"),
            ('noise', "Noise, Hills and Pits", "White noise with hills and pits; smooth with the box blur"),
        ),
        default='hills',
    )
    hill_count: IntProperty(
        name="Hills",
        description="Number of circle-based hills raised on the terrain",
        min=0, max=100_000, soft_max=5000, default=150,
    )
    radius_min: FloatProperty(
        name="Radius Min",
        description="Smallest hill radius, in heightmap cells",
        min=0.5, max=4096.0, soft_max=256.0, default=4.0, precision=1,
    )
    radius_max: FloatProperty(
        name="Radius Max",
        description="Largest hill radius, in heightmap cells (at least Radius Min)",
        min=0.5, max=4096.0, soft_max=256.0, default=20.0, precision=1,
    )
    island: BoolProperty(
        name="Island",
        description="Cluster the hills around the centre into one island",
        default=False,
    )
    flattening: FloatProperty(
        name="Flattening",
        description="Exponent applied to the normalised heights: 1 = none, above 1 = broad lowlands and sharp peaks",
        min=0.1, max=8.0, default=1.5,
    )
    fault_count: IntProperty(
        name="Faults",
        description="Number of fault lines",
        min=0, max=100_000, soft_max=5000, default=200,
    )
    displacement_min: FloatProperty(
        name="Last Displacement",
        description="Displacement of the last fault relative to the first (the displacement falls linearly)",
        min=0.0, max=1.0, default=0.05, subtype='FACTOR',
    )
    roughness: FloatProperty(
        name="Roughness",
        description="Offsets shrink by 2^-roughness per level: above 1 smooth, below 1 rough and chaotic",
        min=0.05, max=8.0, soft_max=3.0, default=1.0,
    )
    noise_amplitude: FloatProperty(
        name="Noise",
        description="Amplitude of the white-noise base, relative to hill heights",
        min=0.0, max=100.0, soft_max=2.0, default=0.1,
    )
    noise_hill_count: IntProperty(
        name="Hills",
        description="Number of hills raised on the noise",
        min=0, max=100_000, soft_max=5000, default=300,
    )
    noise_hill_radius_min: FloatProperty(
        name="Hill Radius Min", description="Smallest hill radius, in heightmap cells",
        min=0.5, max=4096.0, soft_max=256.0, default=4.0, precision=1,
    )
    noise_hill_radius_max: FloatProperty(
        name="Hill Radius Max", description="Largest hill radius, in heightmap cells",
        min=0.5, max=4096.0, soft_max=256.0, default=16.0, precision=1,
    )
    noise_hill_height_min: FloatProperty(
        name="Hill Height Min", description="Lowest hill peak, relative to the noise",
        min=0.0, max=100.0, soft_max=5.0, default=0.2,
    )
    noise_hill_height_max: FloatProperty(
        name="Hill Height Max", description="Highest hill peak, relative to the noise",
        min=0.0, max=100.0, soft_max=5.0, default=0.6,
    )
    pit_count: IntProperty(
        name="Pits",
        description="Number of pits dug into the noise",
        min=0, max=100_000, soft_max=5000, default=100,
    )
    pit_radius_min: FloatProperty(
        name="Pit Radius Min", description="Smallest pit radius, in heightmap cells",
        min=0.5, max=4096.0, soft_max=256.0, default=3.0, precision=1,
    )
    pit_radius_max: FloatProperty(
        name="Pit Radius Max", description="Largest pit radius, in heightmap cells",
        min=0.5, max=4096.0, soft_max=256.0, default=8.0, precision=1,
    )
    pit_depth_min: FloatProperty(
        name="Pit Depth Min", description="Shallowest pit, relative to the noise",
        min=0.0, max=100.0, soft_max=5.0, default=0.2,
    )
    pit_depth_max: FloatProperty(
        name="Pit Depth Max", description="Deepest pit, relative to the noise",
        min=0.0, max=100.0, soft_max=5.0, default=0.5,
    )
    use_blur: BoolProperty(name="Box Blur", description="Smooth with a 3 x 3 mean", default=False)
    blur_passes: IntProperty(name="Passes", description="Box blur passes", min=1, max=1000, soft_max=50, default=3)
    use_erosion: BoolProperty(
        name="Erosion Filter",
        description="One-pole low-pass filter run in all four directions (the fault-formation smoothing)",
        default=False,
    )
    erosion_k: FloatProperty(
        name="Filter", description="Filter coefficient k: 0 keeps the map, near 1 smooths strongly",
        min=0.0, max=0.99, default=0.5, subtype='FACTOR',
    )
    erosion_passes: IntProperty(name="Passes", description="Erosion filter passes", min=1, max=1000, soft_max=20,
                                default=1)
    use_terrace: BoolProperty(name="Terrace", description="Quantise heights into smooth steps", default=False)
    terrace_levels: IntProperty(name="Levels", description="Number of terraces", min=1, max=4096, soft_max=64,
                                default=8)
    terrace_smoothness: FloatProperty(
        name="Smoothness", description="Share of each step that rises to the next: 1 rounded, near 0 cliffs",
        min=0.01, max=1.0, default=0.5, subtype='FACTOR',
    )
    use_sea_level: BoolProperty(name="Sea Level", description="Flatten everything below a level", default=False)
    sea_level: FloatProperty(
        name="Level", description="Sea level as a share of the height range",
        min=0.0, max=1.0, default=0.2, subtype='FACTOR',
    )
    width: FloatProperty(
        name="Width",
        description="Length of each side of the terrain",
        min=0.001, max=1.0e6, soft_max=10_000.0, default=100.0,
        subtype='DISTANCE', unit='LENGTH',
    )
    height: FloatProperty(
        name="Height",
        description="Height range of the terrain: lowest point at Z = 0, highest at Z = Height",
        min=0.0, max=1.0e5, soft_max=1000.0, default=20.0,
        subtype='DISTANCE', unit='LENGTH',
    )
    use_lightmap: BoolProperty(
        name="Lightmap",
        description="Bake the slope lightmap into the 'Lightmap' colour attribute",
        default=True,
    )
    light_azimuth: FloatProperty(
        name="Light Azimuth",
        description="Direction the light comes from, clockwise from north (+Y)",
        min=0.0, max=6.283185307179586, default=5.497787143782138,  # 315 degrees
        subtype='ANGLE', unit='ROTATION',
    )
    lighting: EnumProperty(
        name="Lighting",
        description="How the lightmap is computed",
        items=(
            ('SLOPE', "Slope", "Each vertex against the ground one cell toward the light (the classic tutorials)"),
            ('HILLSHADE', "Hillshade", "GIS hillshade (Horn's gradient), sun azimuth and altitude"),
            ('MULTIDIRECTIONAL', "Multidirectional", "GIS hillshade from four lights weighted by aspect (Mark 1992)"),
        ),
        default='SLOPE',
    )
    light_altitude: FloatProperty(
        name="Light Altitude",
        description="Height of the sun above the horizon",
        min=0.0, max=1.5707963267948966, default=0.7853981633974483,  # 45 degrees
        subtype='ANGLE', unit='ROTATION',
    )
    use_scene_sun: BoolProperty(
        name="Use Scene Sun",
        description="Take the light's azimuth and altitude from the first Sun light in the scene",
        default=False,
    )
    use_shadows: BoolProperty(name="Cast Shadows", description="Shadow cells the terrain hides from the sun",
                              default=False)
    shadow_softness: FloatProperty(name="Penumbra", description="Width of the soft shadow edge (angle of the sun disc)",
                                   min=0.0174533, max=0.785398, default=0.0349066, subtype='ANGLE', unit='ROTATION')
    use_ao: BoolProperty(name="Ambient Occlusion", description="Darken cells that see less of the sky",
                         default=False)
    ao_strength: FloatProperty(name="Strength", description="Exponent of the ambient occlusion term",
                               min=0.0, max=10.0, soft_max=3.0, default=1.0)
    ao_directions: IntProperty(name="Directions", description="Horizon directions sampled for ambient occlusion",
                               min=4, max=64, default=16)
    ao_radius: IntProperty(name="Radius", description="Search radius of ambient occlusion, in heightmap cells",
                           min=1, max=4096, soft_max=256, default=32)
    light_softness: FloatProperty(
        name="Softness",
        description="Slope (rise over run) that darkens a slope facing away from the light fully; larger is softer",
        min=0.01, max=100.0, soft_max=10.0, default=1.0,
    )
    min_brightness: FloatProperty(
        name="Min Brightness",
        description="Darkest value of the lightmap",
        min=0.0, max=1.0, default=0.25, subtype='FACTOR',
    )
    max_brightness: FloatProperty(
        name="Max Brightness",
        description="Brightest value of the lightmap (at least Min Brightness)",
        min=0.0, max=1.0, default=1.0, subtype='FACTOR',
    )
    use_material: BoolProperty(
        name="Material",
        description="Give the terrain a height-blended material",
        default=True,
    )
    shading: EnumProperty(
        name="Shading",
        description="How the material turns colour and lightmap into light",
        items=(
            ('LIT', "Lit", "Principled BSDF: scene lights shade the terrain, the lightmap darkens it"),
            ('UNLIT', "Unlit", "Emission of colour x lightmap: the flat look of the classic tutorials"),
        ),
        default='LIT',
    )


#: Settings drawn for each generator (the panel shows the chosen generator's only).
GENERATOR_SETTINGS = {
    'hills': ("hill_count", "radius_min", "radius_max", "island"),
    'faults': ("fault_count", "displacement_min"),
    'diamond_square': ("roughness",),
    'noise': ("noise_amplitude", "noise_hill_count", "noise_hill_radius_min", "noise_hill_radius_max",
              "noise_hill_height_min", "noise_hill_height_max", "pit_count", "pit_radius_min", "pit_radius_max",
              "pit_depth_min", "pit_depth_max"),
}
#: (toggle, settings) of the filter stack, in the order the filters run.
FILTER_SETTINGS = (
    ("use_blur", ("blur_passes",)),
    ("use_erosion", ("erosion_k", "erosion_passes")),
    ("use_terrace", ("terrace_levels", "terrace_smoothness")),
    ("use_sea_level", ("sea_level",)),
)
#: (min, max) pairs that must be ordered, with their UI names for error reports.
RANGE_SETTINGS = (
    ("radius_min", "radius_max"),
    ("noise_hill_radius_min", "noise_hill_radius_max"),
    ("noise_hill_height_min", "noise_hill_height_max"),
    ("pit_radius_min", "pit_radius_max"),
    ("pit_depth_min", "pit_depth_max"),
    ("min_brightness", "max_brightness"),
)


def nonfinite_error(data: bpy.types.bpy_struct) -> str | None:
    """Message naming the first float property of ``data`` that holds NaN or Inf, or ``None``.

    Blender's float properties accept NaN from Python; nothing non-finite may
    reach a mesh.
    """
    props = (data.properties if isinstance(data, bpy.types.Operator) else data).bl_rna.properties
    for prop in props:
        if prop.type != 'FLOAT':
            continue
        value = getattr(data, prop.identifier)
        values = list(value) if prop.is_array else [value]
        if not all(math.isfinite(v) for v in values):
            return f"{prop.name} must be a finite number, got {value if not prop.is_array else tuple(values)}"
    return None


def range_error(data: TerrainSettings) -> str | None:
    """Message for the first min/max pair of ``data`` in the wrong order, or ``None``."""
    props = (data.properties if isinstance(data, bpy.types.Operator) else data).bl_rna.properties
    for low, high in RANGE_SETTINGS:
        lo, hi = getattr(data, low), getattr(data, high)
        if lo > hi:
            return f"{props[low].name} ({lo:g}) must not exceed {props[high].name} ({hi:g})"
    return None


def draw_settings(layout: bpy.types.UILayout, data: TerrainSettings) -> None:
    """Draw the settings of ``data`` (operator or scene settings): the chosen generator's only."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    col = layout.column()
    col.prop(data, "generator")
    if isinstance(data, bpy.types.Operator):
        col.prop(data, "size")
    else:  # scene or object settings: engine sizes (2^n + 1) one click away
        row = col.row(align=True)
        row.prop(data, "size")
        row.menu("OROGEN_MT_size_presets", text="", icon='PRESET')
    col.prop(data, "seed")
    col.prop(data, "width")
    col.prop(data, "height")

    col = layout.column(align=True)
    for name in GENERATOR_SETTINGS[data.generator]:
        col.prop(data, name)
    layout.prop(data, "flattening")

    col = layout.column(heading="Filters")
    for toggle, names in FILTER_SETTINGS:
        col.prop(data, toggle)
        if getattr(data, toggle):
            sub = col.column(align=True)
            for name in names:
                sub.prop(data, name)

    col = layout.column(heading="Bake")
    col.prop(data, "use_lightmap")
    sub = col.column()
    sub.active = data.use_lightmap
    sub.prop(data, "lighting")
    sub.prop(data, "use_scene_sun")
    sun = sub.column()
    sun.active = not data.use_scene_sun
    if data.lighting != 'MULTIDIRECTIONAL':
        sun.prop(data, "light_azimuth")
    if data.lighting != 'SLOPE':
        sun.prop(data, "light_altitude")
        sub.prop(data, "use_shadows")
        if data.use_shadows:
            sub.prop(data, "shadow_softness")
        sub.prop(data, "use_ao")
        if data.use_ao:
            ao = sub.column(align=True)
            ao.prop(data, "ao_strength")
            ao.prop(data, "ao_directions")
            ao.prop(data, "ao_radius")
    else:
        sub.prop(data, "light_softness")
    sub.prop(data, "min_brightness")
    sub.prop(data, "max_brightness")
    col.prop(data, "use_material")
    sub = col.column()
    sub.active = data.use_material
    sub.prop(data, "shading")


def setting_names() -> tuple[str, ...]:
    """Names of all terrain settings, in declaration order."""
    return tuple(TerrainSettings.__annotations__)


class OROGEN_PG_layer(bpy.types.PropertyGroup):
    """One colour layer of the height-blended material (mirrors ``core.colormap.Layer``)."""

    kind: EnumProperty(
        name="Kind",
        description="How the layer is painted",
        items=(
            ('COLOR', "Colour", "A plain colour"),
            ('IMAGE', "Image", "An image texture stretched over the terrain's UVs"),
            ('NOISE', "Noise", "Blender's Noise texture between two colours"),
            ('VORONOI', "Voronoi", "Blender's Voronoi texture between two colours"),
        ),
        default='COLOR',
    )
    color: FloatVectorProperty(name="Colour", description="Layer colour (for textures: the first colour)",
                               subtype='COLOR', size=3, min=0.0, max=1.0, default=(0.5, 0.5, 0.5))
    color2: FloatVectorProperty(name="Colour 2", description="Second colour of a procedural texture",
                                subtype='COLOR', size=3, min=0.0, max=1.0, default=(0.2, 0.2, 0.2))
    image: StringProperty(name="Image", description="Image file of an image layer", subtype='FILE_PATH')
    scale: FloatProperty(name="Scale", description="Scale of a procedural texture", min=0.001, max=10_000.0,
                         soft_max=100.0, default=5.0)
    minimum: FloatProperty(name="Minimum", description="Height (0-1 of the range) where the layer fades in",
                           min=-1000.0, max=1000.0, soft_min=-1.0, soft_max=2.0, default=0.0)
    optimal: FloatProperty(name="Optimal", description="Height where the layer is at 100 %",
                           min=-1000.0, max=1000.0, soft_min=-1.0, soft_max=2.0, default=0.5)
    maximum: FloatProperty(name="Maximum", description="Height where the layer has faded out",
                           min=-1000.0, max=1000.0, soft_min=-1.0, soft_max=2.0, default=1.0)
    slope_min: FloatProperty(name="Slope Min", description="Flattest slope the layer covers, in degrees",
                             min=0.0, max=90.0, default=0.0)
    slope_max: FloatProperty(name="Slope Max", description="Steepest slope the layer covers, in degrees",
                             min=0.0, max=90.0, default=90.0)
    slope_softness: FloatProperty(name="Slope Softness",
                                  description="Degrees over which the layer fades beyond its slope range",
                                  min=0.01, max=90.0, default=5.0)


def _setting_changed(self, context) -> None:
    """Property update of a terrain setting: regenerate the terrain object that owns it (live update).

    Regenerating inside the update keeps the new setting and the new mesh in the same undo step.
    Only registered in sessions with a user interface (see :func:`register`).
    """
    owner = getattr(self, "id_data", None)
    if isinstance(owner, bpy.types.Object) and getattr(self, "is_terrain", False):
        from .edit import on_setting_changed  # late import: edit imports this module

        on_setting_changed(owner, context)


class OROGEN_PG_object(bpy.types.PropertyGroup, TerrainSettings):
    """The settings a terrain object was made with; changing them regenerates it in place."""

    is_terrain: BoolProperty(name="Is Terrain", description="This object is an Orogen terrain", default=False)
    live_update: BoolProperty(
        name="Live Update",
        description="Regenerate as settings change (a preview while dragging, full size when the change settles); "
                    "turn off for heavy terrains and use Regenerate",
        default=True,
    )
    preview_size: IntProperty(
        name="Preview Size",
        description="Vertices per side while settings change during live updates",
        min=17, max=1025, default=257,
    )
    layers_json: StringProperty(name="Layers", description="Colour layers as JSON", default="",
                                options={'HIDDEN'})
    status: StringProperty(name="Status", description="What the last regeneration did", default="",
                           options={'HIDDEN', 'SKIP_SAVE'})


class OROGEN_PG_settings(bpy.types.PropertyGroup, TerrainSettings):
    """Settings the Terrain panel uses for new terrains (stored on the scene)."""

    layers: CollectionProperty(type=OROGEN_PG_layer, name="Layers",
                               description="Colour layers of the material (empty: the three defaults)")
    active_layer: IntProperty(name="Active Layer", min=0, default=0)


classes = (OROGEN_PG_layer, OROGEN_PG_object, OROGEN_PG_settings)


def register() -> None:
    # With a user interface, a setting's own update callback regenerates its terrain, so that one undo step
    # holds both the setting and the mesh. In background sessions (blender -b, the bpy module) there is no
    # one to drag a slider, and the bpy module of Blender 4.2/4.5 crashes or hangs at exit once a property
    # with an update callback was registered: there edits are picked up through the message bus (edit.py).
    for prop in TerrainSettings.__annotations__.values():
        if bpy.app.background:
            prop.keywords.pop("update", None)
        else:
            prop.keywords["update"] = _setting_changed
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.Scene.orogen = PointerProperty(type=OROGEN_PG_settings, name="Orogen Terrain")
    bpy.types.Object.orogen = PointerProperty(type=OROGEN_PG_object, name="Orogen Terrain")


def unregister() -> None:
    del bpy.types.Object.orogen
    del bpy.types.Scene.orogen
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
