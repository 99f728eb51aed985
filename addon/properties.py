"""Terrain settings: one set of properties shared by the operator and the panel."""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, PointerProperty

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
        min=2, max=4096, soft_max=1025, default=129,
    )
    seed: IntProperty(
        name="Seed",
        description="Random seed: the same seed and settings give the same terrain",
        min=0, max=SEED_MAX, default=0,
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


def draw_settings(layout: bpy.types.UILayout, data: TerrainSettings) -> None:
    """Draw the settings of ``data`` (operator or scene settings) in compact groups."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    col = layout.column()
    col.prop(data, "size")
    col.prop(data, "seed")
    col.prop(data, "width")
    col.prop(data, "height")

    col = layout.column(heading="Hills")
    col.prop(data, "hill_count")
    sub = col.column(align=True)
    sub.prop(data, "radius_min")
    sub.prop(data, "radius_max")
    col.prop(data, "island")
    col.prop(data, "flattening")

    col = layout.column(heading="Bake")
    col.prop(data, "use_lightmap")
    sub = col.column()
    sub.active = data.use_lightmap
    sub.prop(data, "light_azimuth")
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


class OROGEN_PG_settings(bpy.types.PropertyGroup, TerrainSettings):
    """Settings the Terrain panel uses for new terrains (stored on the scene)."""


classes = (OROGEN_PG_settings,)


def register() -> None:
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.Scene.orogen = PointerProperty(type=OROGEN_PG_settings, name="Orogen Terrain")


def unregister() -> None:
    del bpy.types.Scene.orogen
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
