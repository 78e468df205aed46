"""Writes a synthetic report's files: archive.a (one real ELF a tile), debug.cbor
(streamed, one context at a time), framework.json and app.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import cbor2

from pvtui.synth.elf import ElfSection, build_elf, write_ar
from pvtui.synth.hostile import hostile_json
from pvtui.synth.model import HIDDEN_SIZE, SyntheticReport
from pvtui.synth.scales import POPLAR_VERSION

CBOR_MAP_OF_ONE = b"\xa1"
CBOR_ARRAY = 4  # major type


def member_name(tile: int) -> str:
    return f"tile{tile:04d}.elf"


def _members(truth: SyntheticReport) -> Iterator[tuple[str, bytes]]:
    """Each tile's ELF: code categories in .text, data categories in .data, the rest in .bss."""
    m = truth.memory
    for t in range(truth.num_tiles):
        sections = [
            ElfSection(".text", "code", int(m.archive_code[t]), fill=0x4C000000 + t),
            ElfSection(".data", "data", int(m.archive_data[t]), fill=t),
            ElfSection(".bss", "bss", int(m.archive_bss[t])),
        ]
        yield member_name(t), build_elf(sections)


def write_archive(truth: SyntheticReport, path: Path) -> None:
    write_ar(path, _members(truth))


def _cbor_head(major: int, length: int) -> bytes:
    if length < 24:
        return bytes([major << 5 | length])
    for extra, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if length < 1 << (8 * size):
            return bytes([major << 5 | extra]) + length.to_bytes(size, "big")
    raise ValueError(f"CBOR length {length} too large")


def write_debug(truth: SyntheticReport, path: Path) -> None:
    """{"contexts": [...]} as CBOR, written one context at a time."""
    with path.open("wb") as f:
        f.write(CBOR_MAP_OF_ONE + cbor2.dumps("contexts") + _cbor_head(CBOR_ARRAY, truth.debug.count))
        encoder = cbor2.CBOREncoder(f)
        for context in truth.debug:
            encoder.encode(context)


def framework_json(truth: SyntheticReport) -> dict:
    major, minor, point, _ = POPLAR_VERSION
    return _names_of(truth, {"framework": "popart", "version": f"{major}.{minor}.{point}", "frontend": "poptorch"})


def app_json(truth: SyntheticReport) -> dict:
    scale = truth.scale
    return _names_of(truth, {
        "arguments": {
            "config": f"bert_{scale.name}_training", "layers": scale.layers, "ipus": scale.ipus,
            "seed": truth.seed, "batch_size": 8, "sequence_length": 128, "synthetic": True,
        },
        "config": {
            "hidden_size": HIDDEN_SIZE[scale.name], "num_attention_heads": HIDDEN_SIZE[scale.name] // 64,
            "optimizer": "Adam", "learning_rate": 1e-4, "device_iterations": scale.repeats,
        },
        "POPLAR_ENGINE_OPTIONS": json.dumps(
            {"autoReport.all": "true", "autoReport.outputLoweredVars": "true", "autoReport.directory": "."}
        ),
    })


def _names_of(truth: SyntheticReport, document: dict) -> dict:
    """DOCUMENT with the report's kind of names: every key and string hostile in a hostile report."""
    return hostile_json(document) if truth.names == "hostile" else document


def write_json(value: dict, path: Path) -> None:
    with path.open("w", encoding="utf-8") as f:
        json.dump(value, f, indent=1)
