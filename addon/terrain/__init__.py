"""A terrain object: its spec computed into arrays, written into its mesh, its preview and full-size pass,
and its place in the live-update engine."""
