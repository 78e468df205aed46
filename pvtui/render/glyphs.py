"""Glyphs that the charts of the screens and of the commands share."""

BLOCKS = " ▁▂▃▄▅▆▇█"  # eighths of a cell, from empty to full
