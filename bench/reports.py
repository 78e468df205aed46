"""The reports the benchmark runs on: a synthetic report of the chosen scale, the
facts that show it is as big as the issue asks, and a bundle whose program tree
has nodes of 10,000 children."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

WIDE_CHILDREN = 10_000  # children of each wide program-tree node
WIDE_NODES = 24  # wide roots: one first expansion to time per root
# Runs of the large model whose profile.pop passes 1 GB, the size issue 25 holds the native reader to:
# a longer profiled session, in which only the steps tables grow (about 60 MB a run beside 190 MB of
# variables). Other scales hold their native reader to their own report's profile.pop.
LONG_RUNS = {"large": 16}
MANY_PROGRAMS = 200_000  # programs of a profile.pop in which each has a step type of its own (issue 29)


def dir_bytes(path: Path) -> int:
    """Bytes of the files under PATH (hard links counted once per path, like `du -b --count-links`)."""
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def make_report(scale: str, workdir: Path, say: Callable[[str], None] = print) -> Path:
    """The synthetic report of SCALE under WORKDIR, written unless a complete one is there."""
    from pvtui.synth import BUNDLE_NAME, write_report

    out = Path(workdir) / f"report-{scale}"
    meta = out / BUNDLE_NAME / "meta.json"
    if meta.is_file() and all((out / name).is_file() for name in ("debug.cbor", "archive.a", "profile.pop")):
        synthetic = json.loads(meta.read_text()).get("synthetic", {})
        if synthetic.get("scale") == scale and _same_scale(out, scale):
            say(f"reusing the {scale} report at {out}")
            return out
    say(f"synthesizing the {scale} report at {out} ...")
    t0 = time.perf_counter()
    write_report(out, scale=scale, seed=0)
    age_bundle(out)
    (out / "bench-scale.json").write_text(json.dumps(_scale_fields(scale)))
    say(f"  done in {time.perf_counter() - t0:.0f} s")
    return out


class LongProfile(NamedTuple):
    """A directory holding only a profile.pop: a scale's model over RUNS runs."""

    directory: Path
    runs: int


def make_long_profile(scale: str, workdir: Path, say: Callable[[str], None] = print) -> LongProfile | None:
    """A directory under WORKDIR holding only the profile.pop of SCALE's model over LONG_RUNS[scale] runs,
    written unless it is there; None for a scale without one."""
    from bench.runner import run_child

    runs = LONG_RUNS.get(scale)
    if runs is None:
        return None
    out = Path(workdir) / f"profile-{scale}-over-{runs}-runs"
    stamp, fields = out / "bench-scale.json", {**_scale_fields(scale), "runs": runs}
    if (out / "profile.pop").is_file() and stamp.is_file() and json.loads(stamp.read_text()) == fields:
        say(f"reusing the {scale} model's profile.pop over {runs} runs at {out}")
        return LongProfile(out, runs)
    say(f"writing the {scale} model's profile.pop over {runs} runs at {out} ...")
    t0 = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    run_child("long_profile", scale=scale, runs=runs, path=str(out / "profile.pop"))
    stamp.write_text(json.dumps(fields))
    say(f"  done in {time.perf_counter() - t0:.0f} s")
    return LongProfile(out, runs)


def make_many_programs(workdir: Path) -> Path:
    """A directory under WORKDIR holding only a profile.pop of MANY_PROGRAMS programs, each run by one step
    of a type of its own: the program types the native reader finds without a search per program."""
    import sqlite3

    out = Path(workdir) / f"profile-{MANY_PROGRAMS}-program-types"
    path = out / "profile.pop"
    if path.is_file():
        return out
    out.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    with sqlite3.connect(partial) as db:
        db.execute("CREATE TABLE programs (id INTEGER PRIMARY KEY, name TEXT)")
        db.execute("CREATE TABLE steps (id INTEGER PRIMARY KEY, type TEXT, program INTEGER, compute_set INTEGER)")
        db.executemany("INSERT INTO programs VALUES (?, ?)", ((i, f"program {i}") for i in range(MANY_PROGRAMS)))
        db.executemany("INSERT INTO steps VALUES (?, ?, ?, NULL)",
                       ((i + 1, f"type {i}", i) for i in range(MANY_PROGRAMS)))
    partial.rename(path)
    return out


def age_bundle(out: Path) -> None:
    """Make the report open like a real one: its files newer than its bundle.

    `write_report` records the files' sizes and mtimes in profile.pvtui, which then
    is the whole report's bundle and opens with no ingest at all. With the files'
    mtimes moved on, profile.pvtui only stands in for profile.pop (its columns are
    linked), and archive.a, debug.cbor and the JSON files are read into a bundle in
    the cache, as for a report from an IPU host.
    """
    for name in ("archive.a", "debug.cbor", "framework.json", "app.json"):
        path = out / name
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def _scale_fields(scale: str) -> dict[str, Any]:
    from dataclasses import asdict

    from pvtui.synth.scales import SCALES

    return asdict(SCALES[scale])


def _same_scale(out: Path, scale: str) -> bool:
    """A report is reused only when it was written with today's figures for its scale."""
    stamp = out / "bench-scale.json"
    return stamp.is_file() and json.loads(stamp.read_text()) == _scale_fields(scale)


def report_facts(report_dir: Path) -> dict[str, Any]:
    """What the report holds, from its bundle: the sizes the issue asks for."""
    from pvtui.model.report import Report
    from pvtui.synth import BUNDLE_NAME

    report = Report(Path(report_dir) / BUNDLE_NAME)
    facts: dict[str, Any] = {
        "ipus": report.target.num_ipus if hasattr(report.target, "num_ipus") else None,
        "tiles": report.target.num_tiles if hasattr(report.target, "num_tiles") else None,
    }
    live = report.liveness
    facts["liveness_steps"] = len(live) if live is not None else 0
    facts["per_tile_liveness"] = bool(live is not None and live.by_tile is not None)
    execution = report.execution
    if execution is not None:
        active = np.zeros(execution.num_ipus, np.int64)
        step = 1 << 18
        for lo in range(0, execution.num_steps, step):
            active += (np.asarray(execution.cycles_from[lo : lo + step]) >= 0).sum(axis=0)
        facts["steps"] = execution.num_steps
        facts["steps_per_ipu"] = active.tolist()
        facts["bsp_steps"] = 0 if execution.bsp_steps is None else len(execution.bsp_steps)
    lowered = report.lowered
    facts["lowered_pieces"] = 0 if lowered is None else len(lowered.tile)
    facts["archive_members"] = _archive_members(Path(report_dir) / "archive.a")
    facts["archive_bytes"] = (Path(report_dir) / "archive.a").stat().st_size
    facts["debug_bytes"] = (Path(report_dir) / "debug.cbor").stat().st_size
    facts["profile_bundle_bytes"] = dir_bytes(Path(report_dir) / BUNDLE_NAME)
    facts["profile_pop_bytes"] = (Path(report_dir) / "profile.pop").stat().st_size
    return facts


def _archive_members(path: Path) -> int:
    import mmap

    from pvtui.sources.archive import iter_members

    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
        return sum(1 for _ in iter_members(path, view))


def make_wide_programs(path: Path, roots: int = WIDE_NODES, width: int = WIDE_CHILDREN) -> Path:
    """A bundle of programs only: root 0 holds one leaf (it opens on its own), then
    ROOTS Sequences of WIDTH leaves each, collapsed until expanded."""
    from pvtui.model import schema as s
    from pvtui.model.bundle import BundleWriter, is_bundle

    path = Path(path)
    if is_bundle(path):
        return path
    types = ["Sequence", "OnTileExecute", "DoExchange"]
    wide_ids = 2 + np.arange(roots) * (width + 1)  # each wide root, then its children
    n = 2 + roots * (width + 1)
    type_ = np.ones(n, np.int16)
    type_[0] = 0
    type_[wide_ids] = 0
    type_[wide_ids + 2] = 2  # one exchange among the children, for a mix of colours
    parent = np.full(n, -1, np.int32)
    parent[1] = 0
    counts = np.zeros(n, np.int64)
    counts[0] = 1
    counts[wide_ids] = width
    children = [np.array([1], np.int32)]
    names = ["main", "main/leaf"]
    for r, w in enumerate(wide_ids.tolist()):
        kids = np.arange(w + 1, w + 1 + width, dtype=np.int32)
        parent[kids] = w
        children.append(kids)
        names.append(f"block{r}")
        names.extend(f"block{r}/layer{i // 100}/op{i}" for i in range(width))
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    with BundleWriter(path) as w:
        w.meta.update(parts=["programs"], programs={"types": types}, target={})
        w.array(s.PROGRAM_TYPE, type_)
        w.strings(s.PROGRAM_NAME, names)
        w.array(s.PROGRAM_PARENT, parent)
        w.array(s.PROGRAM_CHILD_OFFSETS, offsets)
        w.array(s.PROGRAM_CHILDREN, np.concatenate(children))
        w.array(s.PROGRAM_ROOTS, np.concatenate([[0], wide_ids]).astype(np.int32))
        w.array(s.PROGRAM_COMPUTE_SET, np.full(n, -1, np.int32))
        w.array(s.PROGRAM_CODE_BYTES, np.full(n, 2048, np.int64))
        w.array(s.PROGRAM_DEBUG_CONTEXT, np.full(n, -1, np.int64))
        w.strings(s.COMPUTE_SET_NAME, [])
        w.array(s.COMPUTE_SET_VERTEX_OFFSETS, np.array([0], np.int64))
        w.array(s.COMPUTE_SET_VERTEX_TYPE, np.array([], np.int32))
        w.array(s.COMPUTE_SET_VERTEX_COUNT, np.array([], np.int64))
        w.strings(s.VERTEX_TYPE_NAME, [])
        w.array(s.VERTEX_TYPE_STATE_BYTES, np.array([], np.int64))
        w.commit()
    return path
