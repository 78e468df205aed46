"""Tile memory: categories, always-live variables, vertices on each tile, and how
the tile's bytes split into the code, data and bss of its ELF in archive.a."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pvtui.synth.arrays import csr, range_sum
from pvtui.synth.graph import EXCHANGE_CATEGORY, VERTEX_TYPE_NAMES, Graph
from pvtui.synth.liveness import Liveness
from pvtui.synth.scales import BYTES_PER_TILE, Scale

CODE_CATEGORIES = ("vertexCode", "internalExchangeCode", "globalExchangeCode", "hostExchangeCode", "controlCode")
DATA_CATEGORIES = ("constant", "vertexInstanceState", "vectorListDescriptor", "vertexFieldData")
# always-live variables the runtime places on every tile, with their bytes a tile
SYSTEM_VARIABLES = {
    "stack": 8_192, "controlId": 256, "copyDescriptor": 1_024, "hostExchangePacketHeader": 128,
    "globalExchangePacketHeader": 64, "instrumentationResults": 2_048,
}
CATEGORIES = (*CODE_CATEGORIES, *DATA_CATEGORIES, "variable", *SYSTEM_VARIABLES)
MEAN_WEIGHTS_PER_TILE = 70_000  # parameters and optimiser state
OPTIMISER_STATE = ("weight", "weight/accl1", "weight/accl2")  # Adam: the weight and two moments


@dataclass
class Memory:
    categories: np.ndarray  # int64 [T, C], columns in CATEGORIES order
    including_gaps: np.ndarray  # int64 [T]
    excluding_gaps: np.ndarray  # int64 [T]
    always_live: np.ndarray  # int64 [T]
    not_always_live: np.ndarray  # int64 [T]
    vertex_state_bytes: np.ndarray  # int64 [VT]
    vertex_offsets: np.ndarray  # int64 [T + 1]: the vertex types on each tile (CSR)
    vertex_type: np.ndarray  # int32 [TV]
    vertex_code: np.ndarray  # int64 [TV]
    vertex_state: np.ndarray  # int64 [TV]: the type's instances on the tile x its state bytes
    always_live_name: list[str]  # [A]
    always_live_lo: np.ndarray  # int32 [A]: the tiles [lo, hi) it is spread over
    always_live_hi: np.ndarray
    always_live_per_tile: np.ndarray  # int64 [A]
    archive_code: np.ndarray  # int64 [T]: CODE_CATEGORIES
    archive_data: np.ndarray  # int64 [T]: DATA_CATEGORIES
    archive_bss: np.ndarray  # int64 [T]: the rest

    def category(self, name: str) -> np.ndarray:
        return self.categories[:, CATEGORIES.index(name)]

    @property
    def always_live_size(self) -> np.ndarray:
        return self.always_live_per_tile * (self.always_live_hi - self.always_live_lo)


def _round4(values) -> np.ndarray:
    return (np.round(np.asarray(values) / 4) * 4).astype(np.int64)


def _vertices(g: Graph, num_tiles: int, rng: np.random.Generator):
    """Instances of each vertex type on each tile, and the types' state and code sizes."""
    n_types = len(VERTEX_TYPE_NAMES)
    state = rng.choice(np.arange(8, 68, 4), n_types)
    code = _round4(rng.uniform(800, 4_000, n_types))
    cs = np.repeat(np.arange(len(g.compute_set_name)), np.diff(g.compute_set_vertex_offsets))
    diff = np.zeros((num_tiles + 1, n_types), np.int64)
    np.add.at(diff, (g.compute_set_lo[cs], g.compute_set_vertex_type), g.compute_set_vertex_per_tile)
    np.add.at(diff, (g.compute_set_hi[cs], g.compute_set_vertex_type), -g.compute_set_vertex_per_tile)
    instances = np.cumsum(diff, axis=0)[:num_tiles]
    return instances, state, code


def _always_live(g: Graph, scale: Scale, rng: np.random.Generator):
    """(names, lo, hi, bytes a tile) of the weights, their optimiser state and the system variables."""
    names, lo, hi = [], [], []
    for weight, ipu in g.weights:
        span = max(1, int(scale.tiles_per_ipu * rng.uniform(0.3, 1.0)))
        start = ipu * scale.tiles_per_ipu + int(rng.integers(0, scale.tiles_per_ipu - span + 1))
        for state in OPTIMISER_STATE:
            names.append(f"{weight}/{state}")
            lo.append(start)
            hi.append(start + span)
    lo, hi = np.array(lo, np.int64), np.array(hi, np.int64)
    raw = rng.lognormal(0.0, 0.5, len(lo)) * np.tile([1.0, 2.0, 2.0], len(g.weights))
    num_tiles = scale.ipus * scale.tiles_per_ipu
    per_tile = raw * MEAN_WEIGHTS_PER_TILE / range_sum(lo, hi, raw, num_tiles).mean()
    names += list(SYSTEM_VARIABLES)
    lo = np.concatenate([lo, np.zeros(len(SYSTEM_VARIABLES), np.int64)])
    hi = np.concatenate([hi, np.full(len(SYSTEM_VARIABLES), num_tiles)])
    per_tile = np.concatenate([_round4(per_tile), list(SYSTEM_VARIABLES.values())])
    return names, lo, hi, per_tile


def build_memory(g: Graph, lv: Liveness, scale: Scale, rng: np.random.Generator) -> Memory:
    num_tiles = scale.ipus * scale.tiles_per_ipu
    instances, state, code = _vertices(g, num_tiles, rng)
    present_tile, present_type = np.nonzero(instances)
    vertex_code = _round4(code[present_type] * rng.uniform(0.85, 1.15, len(present_type)))
    total_instances = instances.sum(axis=1)
    names, al_lo, al_hi, al_per_tile = _always_live(g, scale, rng)

    cats = {name: np.zeros(num_tiles, np.int64) for name in CATEGORIES}
    cats["vertexCode"] = np.bincount(present_tile, weights=vertex_code, minlength=num_tiles).astype(np.int64)
    types = np.array(g.program_type_names)[g.program_type]
    for type_name, category in EXCHANGE_CATEGORY.items():
        mask = types == type_name
        cats[category] = range_sum(g.program_lo[mask], g.program_hi[mask], g.exchange_per_tile[mask], num_tiles)
    cats["controlCode"] = range_sum(g.program_lo, g.program_hi, g.control_per_tile, num_tiles)
    cats["vertexInstanceState"] = instances @ state
    cats["vectorListDescriptor"] = _round4(total_instances * rng.uniform(4, 8, num_tiles))
    cats["vertexFieldData"] = _round4(total_instances * rng.uniform(16, 24, num_tiles))
    cats["constant"] = _round4(rng.uniform(1_000, 6_000, num_tiles))
    n_weights = len(names) - len(SYSTEM_VARIABLES)
    cats["variable"] = range_sum(al_lo[:n_weights], al_hi[:n_weights], al_per_tile[:n_weights], num_tiles) + lv.tile_peak
    for name, per_tile in SYSTEM_VARIABLES.items():
        cats[name] = np.full(num_tiles, per_tile, np.int64)
    excluding = sum(cats.values())
    gaps = _round4(excluding * rng.uniform(0.0, 0.04, num_tiles))

    # a few tiles of IPU 0 overflow: a rearranged slice of the word embedding's weight
    candidates = np.flatnonzero(excluding[: scale.tiles_per_ipu] + gaps[: scale.tiles_per_ipu] < BYTES_PER_TILE)
    hot = np.sort(rng.choice(candidates, min(scale.tiles_over_limit, len(candidates)), replace=False))
    extra = BYTES_PER_TILE - (excluding + gaps)[hot] + _round4(rng.uniform(2_000, 40_000, len(hot)))
    names += [f"embeddings/word/weight/rearranged{i}" for i in range(len(hot))]
    al_lo, al_hi = np.concatenate([al_lo, hot]), np.concatenate([al_hi, hot + 1])
    al_per_tile = np.concatenate([al_per_tile, extra])
    cats["variable"][hot] += extra
    excluding[hot] += extra

    table = np.stack([cats[name] for name in CATEGORIES], axis=1)
    archive_code = sum(cats[c] for c in CODE_CATEGORIES)
    archive_data = sum(cats[c] for c in DATA_CATEGORIES)
    return Memory(
        categories=table,
        including_gaps=excluding + gaps,
        excluding_gaps=excluding,
        always_live=excluding - lv.tile_peak,
        not_always_live=lv.tile_peak.copy(),
        vertex_state_bytes=state.astype(np.int64),
        vertex_offsets=csr(np.bincount(present_tile, minlength=num_tiles)),
        vertex_type=present_type.astype(np.int32),
        vertex_code=vertex_code,
        vertex_state=instances[present_tile, present_type] * state[present_type],
        always_live_name=names,
        always_live_lo=al_lo.astype(np.int32),
        always_live_hi=al_hi.astype(np.int32),
        always_live_per_tile=al_per_tile.astype(np.int64),
        archive_code=archive_code,
        archive_data=archive_data,
        archive_bss=excluding - archive_code - archive_data,
    )
