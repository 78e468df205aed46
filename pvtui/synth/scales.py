"""The sizes of synthetic report: how many IPUs, tiles, layers, steps and contexts."""

from __future__ import annotations

from dataclasses import dataclass

# Mk2 figures (reference/report-files.md).
MK2_TILES_PER_IPU = 1472
BYTES_PER_TILE = 638_976
CLOCK_HZ = 1.33e9
POPLAR_VERSION = (3, 3, 0, "a1b2c3d4e5")


@dataclass(frozen=True)
class Scale:
    name: str
    ipus: int
    tiles_per_ipu: int
    layers: int
    stages: float  # mean compute sets per operation, beyond the first
    compute_set_share: float  # share of its operation's tiles a compute set uses, at most
    variable_share: float  # share of its operation's tiles a variable is spread over, at most
    repeats: int  # iterations of the main program per run
    runs: int
    bsp_steps: int  # execution steps with per-tile cycles
    debug_per_compute_set: int  # poplibs debug contexts per compute set
    tiles_over_limit: int


SCALES: dict[str, Scale] = {
    "tiny": Scale(
        "tiny", ipus=2, tiles_per_ipu=64, layers=3, stages=0.3, compute_set_share=1.0, variable_share=1.0, repeats=2,
        runs=2, bsp_steps=50, debug_per_compute_set=1, tiles_over_limit=1,
    ),
    "small": Scale(
        "small", ipus=2, tiles_per_ipu=MK2_TILES_PER_IPU, layers=6, stages=7.0, compute_set_share=0.5, variable_share=0.5,
        repeats=5, runs=2, bsp_steps=500, debug_per_compute_set=4, tiles_over_limit=5,
    ),
    "large": Scale(
        "large", ipus=4, tiles_per_ipu=MK2_TILES_PER_IPU, layers=24, stages=20.0, compute_set_share=0.12, variable_share=0.4,
        repeats=24, runs=2, bsp_steps=10_000, debug_per_compute_set=20, tiles_over_limit=8,
    ),
    # a Pod16: four times the large report's tiles; more, shorter layers, fewer steps, every variable
    # spread over its operation's tiles: over 10^7 lowered variable pieces
    "pod16": Scale(
        "pod16", ipus=16, tiles_per_ipu=MK2_TILES_PER_IPU, layers=210, stages=0.3, compute_set_share=0.12,
        variable_share=1.0, repeats=4, runs=2, bsp_steps=2_000, debug_per_compute_set=4, tiles_over_limit=16,
    ),
}
