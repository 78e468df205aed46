"""The documented Poplar Engine options: name, allowed values or kind, default, one-line meaning.

Written from the Poplar Engine options reference (poplar::Engine, "Engine creation options"), plus
the few options that only the Graph Analyser's capture guide names (source "guide") or that the
reference names inside another option's text (source "mentioned"). Values are JSON strings, as
POPLAR_ENGINE_OPTIONS takes them.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

BOOL = ("true", "false")
INTEGER = "integer"
STRING = "string"
INTEGER_OR_AUTO = "integer or \"auto\""


@dataclass(frozen=True)
class EngineOption:
    name: str
    allowed: tuple[str, ...] | str  # the values allowed, or a kind: INTEGER, STRING, INTEGER_OR_AUTO
    default: str | None  # None: the reference gives none
    meaning: str
    source: str = "reference"  # reference, guide (the capture guide only) or mentioned (in another's text)
    deprecated: tuple[str, ...] = ()  # values (or "*" for the option) the reference calls deprecated

    def describe_allowed(self) -> str:
        return ", ".join(self.allowed) if isinstance(self.allowed, tuple) else self.allowed

    def accepts(self, value: str) -> bool:
        if isinstance(self.allowed, tuple):
            return value in self.allowed
        if self.allowed == INTEGER:
            return re.fullmatch(r"-?\d+", value) is not None
        if self.allowed == INTEGER_OR_AUTO:
            return value == "auto" or re.fullmatch(r"-?\d+", value) is not None
        return True  # STRING


_O = EngineOption
OPTIONS: dict[str, EngineOption] = {o.name: o for o in (
    # Debug
    _O("debug.allowOutOfMemory", BOOL, "false",
       "Allow out-of-memory while compiling and linking; set automatically when the graph profile is output."),
    _O("debug.computeInstrumentationLevel", ("vertex", "tile", "ipu", "device"), "tile",
       "Granularity of compute instrumentation: each vertex, each compute set per tile, or one tile per IPU.",
       deprecated=("device",)),
    _O("debug.retainDebugInformation", BOOL, "true",
       "Retain compilation information for debugging; must be true if profiling is enabled."),
    _O("debug.cpuMultiThreadExecution", BOOL, "true",
       "Execute with several host threads on a CPU or IPU Model target."),
    _O("debug.instrument", BOOL, "false",
       "Enable every instrument option: cycle counters that make the execution profile (IPU targets only)."),
    _O("debug.instrumentCompute", BOOL, "false", "Instrument compute sets."),
    _O("debug.instrumentExternalExchange", BOOL, "false", "Instrument external exchanges."),
    _O("debug.instrumentControlFlow", BOOL, "false", "Instrument loops and conditionals."),
    _O("debug.outputAllSymbols", BOOL, "false", "Output extra symbols to the ELF files, to aid debugging."),
    _O("debug.profilingTile", INTEGER, "tiles per IPU - 1",
       "The tile that stores the compute-set cycle counters (only with computeInstrumentationLevel ipu)."),
    _O("debug.branchRecordTile", INTEGER, "NTILES - 1",
       "The tile that stores the branch record (only with debug.instrumentControlFlow)."),
    _O("debug.runtimeVerify", BOOL, "false", "Enable expensive verification steps at run time."),
    _O("debug.trace", BOOL, "false",
       "Print the state of every edge before and after each compute set or exchange to the error stream."),
    _O("debug.traceFile", STRING, None, "Write the debug.trace output to this file instead of the error stream."),
    _O("debug.verify", BOOL, "false",
       "Enable expensive verification steps at compile time (exchange code, alignment, memory constraints)."),
    _O("debug.supervisorStackSizeInBytes", INTEGER, None,
       "Override the computed supervisor thread stack size (bytes) on all tiles."),
    _O("debug.workerStackSizeInBytes", INTEGER, None,
       "Override the computed worker thread stack size (bytes) on all tiles."),
    _O("debug.loweredVarDumpFile", STRING, None,
       "Write the lowered variables to this file (profile.pop, or vars.capnp for the old format).",
       source="mentioned"),
    # Optimisations
    _O("opt.maxCompilationThreads", INTEGER, "0", "Most threads used to compile; 0 uses the whole machine."),
    _O("opt.maxLinkerThreads", INTEGER, "0", "Most threads used to link; 0 uses as many as compilation."),
    _O("opt.internalExchangeOptimisationTarget", ("balanced", "cycles", "memory"), "cycles",
       "Exchange code heuristics: speed (cycles), always-live memory (memory), or between (balanced)."),
    _O("opt.enableMultiAccessCopies", BOOL, "true",
       "Make some copies faster at the cost of more constraints on the variables copied."),
    _O("opt.limitVertexStateToLower256K", BOOL, "false",
       "Allocate all vertex state in the first 256KB of memory (shared with code) to optimise control code."),
    _O("opt.useAutoloader", BOOL, "true on Mk2 IPU, false otherwise",
       "Load the executable with the secondary loading mechanism (IPU targets only)."),
    _O("opt.enableStreamCopyMerging", BOOL, None,
       "Merge stream copies; must be false for target.extendedMemory.", source="mentioned"),
    # Target
    _O("target.deterministicWorkers", ("true", "false", "portable"), "true",
       "Same mapping of vertices to worker threads on repeated runs: on the same IPU (true) or on every IPU."),
    _O("target.saveArchive", STRING, None,
       "Save the binary archive (one ELF per tile) to this file during compilation."),
    _O("target.gatewayWriteCombining", BOOL, "target option gatewayMode",
       "Use IPU-Machine gateway write combining in write-to-host code."),
    _O("target.maxStreamCallbackThreadsPerNumaNode", INTEGER_OR_AUTO, "0",
       "Most threads per NUMA node running stream callbacks; 0 the main thread only, auto the whole machine.",
       deprecated=("*",)),
    _O("target.extendedMemory", BOOL, "false",
       "Support more than 16GiB of remote buffers (M2000 only); needs opt.enableStreamCopyMerging false."),
    # Report generation
    _O("autoReport.all", BOOL, "false", "Output every report below, except those set to false."),
    _O("autoReport.outputGraphProfile", BOOL, "false", "Output the graph (memory) profile to profile.pop."),
    _O("autoReport.outputLoweredVars", BOOL, "false",
       "Put the lowered variables (each variable's tile and place) in profile.pop."),
    _O("autoReport.outputArchive", BOOL, "false", "Output archive.a, the ELF executable of every tile."),
    _O("autoReport.outputSerializedGraph", BOOL, "false", "Output the serialized graph: serialized_graph.capnp."),
    _O("autoReport.outputExecutionProfile", BOOL, "false",
       "Output the execution profile to profile.pop; sets debug.instrument to true unless it is set."),
    _O("autoReport.streamAtEachRun", BOOL, "true",
       "Write the execution profile to disk at each run; false writes it all when the Engine is destroyed."),
    _O("autoReport.outputDebugInfo", BOOL, "false", "Output the debug information of every DebugInfo object."),
    _O("autoReport.executionProfileProgramRunCount", INTEGER, "2",
       "How many runs of each program the execution profile captures."),
    _O("autoReport.directory", STRING, "./", "The directory the reports are written to."),
    _O("profiler.replicaToProfile", INTEGER, None,
       "Profile this replica only, to shrink the report of a multi-replica run.", source="guide"),
    # Other
    _O("prng.enableStochasticRounding", BOOL, "false", "Enable stochastic rounding."),
    _O("prng.seed", INTEGER, "0", "Base seed for PRNG initialisation."),
)}

# What autoReport.all turns on: every autoReport.output* option
REPORT_OUTPUTS = tuple(name for name in OPTIONS if name.startswith("autoReport.output"))


def nearest(name: str) -> str | None:
    """The documented option whose name is closest to NAME (a typo's likely meaning), if any is close."""
    names = list(OPTIONS)
    match = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    if not match:  # a case slip (autoreport.all) is as likely as a typo
        match = difflib.get_close_matches(name.lower(), [n.lower() for n in names], n=1, cutoff=0.6)
        match = [n for n in names if n.lower() == match[0]] if match else []
    return match[0] if match else None
