"""Files in and out: the heightmap importer, the maps exporter, heightmap files and Blender's image API."""
