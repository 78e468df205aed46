"""pvtui: a keyboard-driven terminal explorer for Graphcore IPU profiling reports."""

__version__ = "0.1.0"
