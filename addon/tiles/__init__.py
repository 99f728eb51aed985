"""Terrain Tiles: a world of terrain objects, each a window of one world spec, seamless at their edges."""
