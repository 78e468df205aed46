"""Cold ingest of each source, archive.a against `size -A -d`, debug.cbor against
`cbor2.load`, profile.pop's native reader against its file size and the libpva adapter:
each run in a fresh process, subject and baseline alternating."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench.figures import Results, Row, median, megabytes, ratio, seconds, throughput
from bench.reports import MANY_PROGRAMS, LongProfile, make_many_programs
from bench.runner import run_child, timed_command

SOURCES = (
    ("profile-link", "profile.pvtui (stands in for profile.pop): columns linked"),
    ("profile-native", "profile.pop by the native reader (its SQLite tables)"),
    ("archive", "archive.a"),
    ("debug", "debug.cbor"),
    ("framework", "framework.json"),
    ("app", "app.json"),
    ("all", "whole report, cold open (load_report, empty cache)"),
)

ARCHIVE_LIMIT = 3.0  # archive.a ingest at most 3x `size -A -d`
DEBUG_TIME_LIMIT = 1.2  # debug.cbor ingest at most 1.2x cbor2.load
DEBUG_MEMORY_LIMIT = 0.25  # and at most a quarter of its peak memory
NATIVE_MB_PER_S = 100  # profile.pop's native reader: at least 100 MB/s of the file
NATIVE_MEMORY_SHARE = 0.25  # and a peak memory under a quarter of the file's size
# MANY_PROGRAMS programs of their own step types: read in linear time (a search for each took minutes)
PROGRAM_TYPES_SECONDS = 10


def _ingest(source: str, report: Path, workdir: Path) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix=f"ingest-{source}-", dir=workdir))
    try:
        return run_child("ingest", source=source, report=str(report), tmp=str(tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def source_bytes(report: Path, source: str) -> int:
    names = {
        "archive": ["archive.a"], "debug": ["debug.cbor"], "framework": ["framework.json"], "app": ["app.json"],
        "all": ["archive.a", "debug.cbor", "framework.json", "app.json"], "profile-native": ["profile.pop"],
    }
    if source not in names:
        return 0
    return sum((report / name).stat().st_size for name in names[source])


def measure_ingest(report: Path, workdir: Path, runs: int, results: Results, say: Callable[[str], None],
                   adapter: bool = True, long_profile: LongProfile | None = None) -> None:
    """Every source's cold ingest; the native reader's targets over LONG_PROFILE's profile.pop where
    given (bench.reports.make_long_profile), else over the report's own."""
    section = "cold ingest"
    archive_runs: list[float] = []
    size_runs: list[float] = []
    debug_runs: list[dict] = []
    cbor_runs: list[dict] = []
    native_runs: list[dict] = []
    for source, label in SOURCES:
        say(f"  ingest {source} x{runs}")
        figures = []
        for _ in range(runs):
            figures.append(_ingest(source, report, workdir))
            if source == "archive":
                size_runs.append(timed_command(["size", "-A", "-d", str(report / "archive.a")]))
            if source == "debug":
                cbor_runs.append(run_child("cbor2_load", path=str(report / "debug.cbor")))
        t = median(f["seconds"] for f in figures)
        nbytes = source_bytes(report, source) or figures[0]["bundle_bytes"]
        basis = "read" if source_bytes(report, source) else "written"
        results.add(Row(section, label, f"{seconds(t)}, {throughput(nbytes, t)} of {megabytes(nbytes)} {basis}"))
        if source == "archive":
            archive_runs = [f["seconds"] for f in figures]
        if source == "debug":
            debug_runs = figures
        if source == "profile-native":
            native_runs = figures
    adapter_seconds = None
    if adapter:
        say("  ingest profile via the libpva adapter x1 (the synthetic stand-in object graph)")
        f = _ingest("profile-adapter", report, workdir)
        results.add(Row(
            section, "profile via the libpva adapter over the stand-in (1 run)",
            f"{seconds(f['seconds'])}, {throughput(f['bundle_bytes'], f['seconds'])} of"
            f" {megabytes(f['bundle_bytes'])} written",
            note="what `pvtui export` costs on an IPU host, less libpva's own decoding; the stand-in builds its"
            " objects lazily, so this includes generating them",
        ))
        adapter_seconds = f["seconds"]
    measured, measured_runs, model = report, native_runs, ""
    if long_profile is not None:
        say(f"  ingest profile-native x{runs} over {long_profile.directory.name}")
        measured, model = long_profile.directory, f", the model over {long_profile.runs} runs"
        measured_runs = [_ingest("profile-native", measured, workdir) for _ in range(runs)]
        size, t = source_bytes(measured, "profile-native"), median(f["seconds"] for f in measured_runs)
        results.add(Row(section, f"profile.pop by the native reader, the same model over {long_profile.runs} runs",
                        f"{seconds(t)}, {throughput(size, t)} of {megabytes(size)} read"))
    _native_rows(measured, model, measured_runs, native_runs, adapter_seconds, results)
    say(f"  ingest profile-native x{runs} over {MANY_PROGRAMS:,} programs of their own step types")
    many = make_many_programs(workdir)
    t = median(_ingest("profile-native", many, workdir)["seconds"] for _ in range(runs))
    results.add(Row("profile.pop native reader", f"{MANY_PROGRAMS:,} programs, each of a step type of its own",
                    seconds(t), target=f"<= {PROGRAM_TYPES_SECONDS} s", met=t <= PROGRAM_TYPES_SECONDS))

    a, b = median(archive_runs), median(size_runs)
    results.add(Row(
        "archive.a", "ingest vs `size -A -d`", seconds(a), seconds(b), ratio(a, b), f"<= {ARCHIVE_LIMIT}x",
        met=a <= ARCHIVE_LIMIT * b,
    ))
    a, b = median(f["seconds"] for f in debug_runs), median(f["seconds"] for f in cbor_runs)
    results.add(Row(
        "debug.cbor", "ingest vs cbor2.load: time", seconds(a), seconds(b), ratio(a, b), f"<= {DEBUG_TIME_LIMIT}x",
        met=a <= DEBUG_TIME_LIMIT * b,
    ))
    a, b = median(f["peak_bytes"] for f in debug_runs), median(f["peak_bytes"] for f in cbor_runs)
    results.add(Row(
        "debug.cbor", "ingest vs cbor2.load: peak memory (RSS above start)", megabytes(a), megabytes(b),
        ratio(a, b), f"<= {DEBUG_MEMORY_LIMIT}x", met=a <= DEBUG_MEMORY_LIMIT * b,
    ))


def _native_rows(measured: Path, model: str, runs: list[dict], own_runs: list[dict], adapter_seconds: float | None,
                 results: Results) -> None:
    """profile.pop's native reader against its targets over MEASURED's profile.pop (RUNS; MODEL says which
    model's, where it is not the report's), and over the report's own (OWN_RUNS) beside the libpva adapter
    over the stand-in of that report."""
    size = (measured / "profile.pop").stat().st_size
    t, peak = median(f["seconds"] for f in runs), median(f["peak_bytes"] for f in runs)
    section = "profile.pop native reader"
    of = f" of {megabytes(size)}{model}"
    results.add(Row(section, f"throughput (cold, the file in the OS page cache){of}", throughput(size, t),
                    target=f">= {NATIVE_MB_PER_S} MB/s", met=size / t >= NATIVE_MB_PER_S * 1e6))
    results.add(Row(section, f"peak memory (RSS above start){of}", megabytes(peak),
                    target=f"<= {NATIVE_MEMORY_SHARE}x the file ({megabytes(NATIVE_MEMORY_SHARE * size)})",
                    met=peak <= NATIVE_MEMORY_SHARE * size))
    if adapter_seconds is not None:
        own = median(f["seconds"] for f in own_runs)
        results.add(Row(section, "time vs the libpva adapter over the stand-in (the same report)", seconds(own),
                        seconds(adapter_seconds), ratio(own, adapter_seconds),
                        note="the adapter reads every part libpva gives (liveness, lowered variables' live steps,"
                        " the program tree, per-tile cycles); the native reader what the record's tables hold"))
