"""Operators on terrains: add, generate, regenerate, rebuild the material; profiles; presets; the filter and
layer stacks."""
