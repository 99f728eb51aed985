"""The tiles' own settings: a world collection's tile grid and live switch, a tile object's place and level."""

import bpy

from ..properties import Groups


class OROGEN_PG_tiles_world(bpy.types.PropertyGroup):
    """A collection holding a world of terrain tiles."""

    is_world: bpy.props.BoolProperty(name="Is Tile World", default=False, options={"HIDDEN"})
    tiles_x: bpy.props.IntProperty(name="Tiles X", min=1, max=64, default=3, description="Tiles west to east")
    tiles_y: bpy.props.IntProperty(name="Tiles Y", min=1, max=64, default=3, description="Tiles north to south")
    lod_levels: bpy.props.IntProperty(
        name="LOD Levels",
        min=0,
        max=12,
        default=2,
        description="Coarsest level of detail set from the 3D cursor: each level halves a tile's vertices per side",
    )
    live_update: bpy.props.BoolProperty(
        name="Live Update", default=True, description="Regenerate every tile when the world's settings change"
    )
    applied: bpy.props.StringProperty(name="Applied Spec", default="", options={"HIDDEN"})
    status: bpy.props.StringProperty(name="Status", default="", options={"HIDDEN", "SKIP_SAVE"})
    record: bpy.props.StringProperty(
        name="Tiles Record",
        default="",
        options={"HIDDEN"},
        description="JSON: the world's own tiles, by place, with each tile's name and mark (see tiles.world.census)",
    )


class OROGEN_PG_tile(bpy.types.PropertyGroup):
    """A terrain tile: its place in the world and its level of detail."""

    is_tile: bpy.props.BoolProperty(name="Is Tile", default=False, options={"HIDDEN"})
    world: bpy.props.PointerProperty(
        type=bpy.types.Collection, name="World", description="The collection holding the world's spec"
    )
    ty: bpy.props.IntProperty(name="Tile Row", min=0, default=0, description="Tile row, north first")
    tx: bpy.props.IntProperty(name="Tile Column", min=0, default=0, description="Tile column, west first")
    level: bpy.props.IntProperty(
        name="Level of Detail",
        min=0,
        max=12,
        default=0,
        description="0 = full resolution; each level halves the vertices per side",
    )
    applied: bpy.props.StringProperty(name="Applied", default="", options={"HIDDEN"})
    mark: bpy.props.StringProperty(
        name="Tile Mark", default="", options={"HIDDEN"}, description="The token its world's record knows it by"
    )


classes = (OROGEN_PG_tiles_world, OROGEN_PG_tile)


def register() -> None:
    for cls in classes:
        bpy.utils.register_class(cls)
    bpy.types.Collection.orogen_world = bpy.props.PointerProperty(type=Groups.terrain, name="Orogen World")
    bpy.types.Collection.orogen_tiles = bpy.props.PointerProperty(type=OROGEN_PG_tiles_world, name="Orogen Tiles")
    bpy.types.Object.orogen_tile = bpy.props.PointerProperty(type=OROGEN_PG_tile, name="Orogen Tile")


def unregister() -> None:
    del bpy.types.Object.orogen_tile
    del bpy.types.Collection.orogen_tiles
    del bpy.types.Collection.orogen_world
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
