"""The Orogen panels and menus: drawing a spec's settings, the Terrain panel, the size menu."""
