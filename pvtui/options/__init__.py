"""Poplar Engine options: the documented table, and a set of options checked against it."""
