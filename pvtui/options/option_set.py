"""A set of engine options checked against the documented table: what is wrong, what it implies,
and which report files it makes Poplar write (the rules of the capture guide)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from pvtui.options.documented import OPTIONS, REPORT_OUTPUTS, nearest

EXEC = "autoReport.outputExecutionProfile"
GRAPH = "autoReport.outputGraphProfile"
INSTRUMENT = "debug.instrument"
LEVEL = "debug.computeInstrumentationLevel"
PER_ENGINE = ("in a subdirectory per named Engine: PopART and PopTorch training/, inference/ or the model's "
              "name; TensorFlow one per executable")


class MalformedOptions(ValueError):
    """Options text that is not a JSON object: the message, and where (line text and caret)."""

    def __init__(self, where: str, message: str, text: str = "", line: int = 0, column: int = 0) -> None:
        super().__init__(f"{where}: {message}")
        self.where, self.message, self.text, self.line, self.column = where, message, text, line, column

    def lines(self) -> list[str]:
        """The one-line error, then the offending line with a caret under the spot."""
        out = [f"pvtui: {self}"]
        if self.line:
            source = self.text.splitlines()[self.line - 1] if self.text.splitlines() else ""
            out += [f"  {source}", "  " + " " * (self.column - 1) + "^"]
        return out


def parse(text: str, where: str) -> tuple[dict, list[str]]:
    """TEXT's options as a dict, and the keys given more than once (the last one counts, as in JSON)."""
    repeated: list[str] = []

    def pairs(items: list) -> dict:
        seen: dict = {}
        for key, value in items:
            if key in seen and key not in repeated:
                repeated.append(key)
            seen[key] = value
        return seen

    try:
        value = json.loads(text, object_pairs_hook=pairs)
    except json.JSONDecodeError as exc:
        raise MalformedOptions(where, f"malformed JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})",
                               text, exc.lineno, exc.colno) from None
    if not isinstance(value, dict):
        raise MalformedOptions(where, f"expected a JSON object of options, got {type(value).__name__}: "
                                      '{"autoReport.all":"true"}')
    return value, repeated


@dataclass
class Analysis:
    options: dict
    entries: list[dict] = field(default_factory=list)  # one per key given; its own problem in "error"
    errors: list[str] = field(default_factory=list)  # of the set as a whole (each option's are in its entry)
    warnings: list[str] = field(default_factory=list)
    implications: list[str] = field(default_factory=list)
    files: list[dict] = field(default_factory=list)  # {file, holds}
    directory: str = "./"

    @property
    def all_errors(self) -> list[str]:
        """Every error, each once: each option's (`KEY: problem`), then the set's."""
        return [f"{e['key']}: {e['error']}" for e in self.entries if e["error"]] + self.errors

    @property
    def valid(self) -> bool:
        return not self.all_errors

    def as_json(self) -> dict:
        return {"valid": self.valid, "options": self.entries, "errors": self.errors, "warnings": self.warnings,
                "implications": self.implications, "directory": self.directory, "files": self.files,
                "per_engine": PER_ENGINE}


def _entry(key: str, value) -> dict:
    """KEY's row, with the error it makes (else None) in "error"."""
    option = OPTIONS.get(key)
    entry = {"key": key, "value": value, "status": "ok", "allowed": None, "default": None, "meaning": None,
             "error": None}
    if option is None:
        guess = nearest(key)
        hint = f"; did you mean {guess!r}?" if guess else ""
        entry.update(status="unknown", nearest=guess, error=f"not a documented engine option{hint}")
        return entry
    entry.update(allowed=option.describe_allowed(), default=option.default, meaning=option.meaning,
                 source=option.source)
    if not isinstance(value, str):
        entry.update(status="not a string", error=f"{json.dumps(value)} is not a string; option values are "
                                                  f"JSON strings: \"{_as_text(value)}\"")
    elif not option.accepts(value):
        entry.update(status="bad value", error=f"{json.dumps(value)} is not allowed; allowed: "
                                               f"{option.describe_allowed()}")
    return entry


def _as_text(value) -> str:
    return json.dumps(value) if not isinstance(value, bool) else str(value).lower()


def analyse(options: dict, repeated: list[str] = ()) -> Analysis:
    """Check OPTIONS against the table and work out what they imply and which files they write."""
    result = Analysis(options)
    for key, value in options.items():
        entry = _entry(key, value)
        result.entries.append(entry)
        option = OPTIONS.get(key)
        if option and entry["status"] == "ok" and ("*" in option.deprecated or value in option.deprecated):
            result.warnings.append(f"{key}: {value!r} is deprecated" if value in option.deprecated
                                   else f"{key} is deprecated")
    result.warnings += [f"{key} is given more than once; the last value counts" for key in repeated]
    _implications(result)
    return result


def _get(options: dict, key: str) -> str | None:
    """KEY's value where it is a valid documented value, else None (as if unset)."""
    value = options.get(key)
    return value if isinstance(value, str) and OPTIONS[key].accepts(value) else None


def _implications(result: Analysis) -> None:
    o = result.options
    say, warn, fail = result.implications.append, result.warnings.append, result.errors.append
    every = _get(o, "autoReport.all") == "true"
    outputs = {name: (_get(o, name) or ("true" if every else "false")) == "true" for name in REPORT_OUTPUTS}
    if every:
        off = [name for name in REPORT_OUTPUTS if not outputs[name]]
        say("autoReport.all \"true\" turns on every autoReport.output* option"
            + (f" but {', '.join(off)}" if off else ""))
    instrument = _get(o, INSTRUMENT)
    execution = outputs[EXEC] and instrument != "false"
    graph = outputs[GRAPH] or outputs[EXEC]
    if outputs[EXEC] and not outputs[GRAPH]:
        say(f"{EXEC} turns on {GRAPH} too: a profile can omit its execution part, never its compilation part")
    if outputs[EXEC] and instrument is None:
        say(f"{EXEC} sets {INSTRUMENT} to \"true\": cycle counters are compiled in (IPU memory, and the host "
            "processes the cycles after each run)")
    if outputs[EXEC] and instrument == "false":
        say(f"{INSTRUMENT} \"false\": no execution profile is captured (only the graph profile)")
    if instrument == "false":
        say(f"{INSTRUMENT} \"false\" also turns off debug.instrumentCompute, debug.instrumentControlFlow and "
            "debug.instrumentExternalExchange, unless they are set")
    compute = _get(o, "debug.instrumentCompute") or ("true" if execution or instrument == "true" else "false")
    level = _get(o, LEVEL)
    if level in ("ipu", "device") and compute == "true":
        say(f"{LEVEL} \"{level}\": only one tile records cycles (debug.profilingTile), so the trace has no "
            "per-tile (BSP) cycles, and the added syncs may disturb the run")
    elif level is not None and compute != "true":
        warn(f"{LEVEL} has no effect: compute sets are not instrumented")
    if "debug.profilingTile" in o and level not in ("ipu", "device"):
        warn(f"debug.profilingTile has no effect unless {LEVEL} is \"ipu\"")
    control = _get(o, "debug.instrumentControlFlow") or ("true" if execution or instrument == "true" else "false")
    if "debug.branchRecordTile" in o and control != "true":
        warn("debug.branchRecordTile has no effect unless debug.instrumentControlFlow is on")
    if "autoReport.executionProfileProgramRunCount" in o and not execution:
        warn("autoReport.executionProfileProgramRunCount has no effect: no execution profile is captured")
    if "debug.traceFile" in o and _get(o, "debug.trace") != "true":
        warn("debug.traceFile has no effect unless debug.trace is \"true\"")
    if execution and _get(o, "autoReport.streamAtEachRun") == "false":
        say("autoReport.streamAtEachRun \"false\": the execution profile is written only when the Engine is "
            "destroyed (some frameworks, like TensorFlow, may not destroy it)")
    if graph and _get(o, "debug.retainDebugInformation") == "false":
        fail("debug.retainDebugInformation must be \"true\" when profiling is enabled")
    if _get(o, "target.extendedMemory") == "true" and _get(o, "opt.enableStreamCopyMerging") != "false":
        fail("target.extendedMemory \"true\" needs opt.enableStreamCopyMerging \"false\"")
    if graph and not outputs["autoReport.outputLoweredVars"] and every:
        say("without lowered variables, the variables memory graph is unavailable")
    if graph and not outputs["autoReport.outputDebugInfo"] and every:
        say("without debug information (debug.cbor), the operations graph is unavailable")
    if graph and not outputs["autoReport.outputArchive"] and every:
        say("without archive.a, some minor functions of the Memory report are unavailable")
    result.directory = _get(o, "autoReport.directory") or "./"
    if "autoReport.directory" in o:
        say("autoReport.directory is ignored for cached PopART executables: give their directory in "
            "popart::SessionOptions")
    _files(result, outputs, graph, execution)


def _files(result: Analysis, outputs: dict[str, bool], graph: bool, execution: bool) -> None:
    o = result.options
    add = result.files.append
    if graph:
        parts = ["graph profile"] + (["lowered variables"] if outputs["autoReport.outputLoweredVars"] else [])
        if execution:
            runs = _get(o, "autoReport.executionProfileProgramRunCount") or "2"
            parts.append(f"execution profile (first {runs} run{'s' if runs != '1' else ''} of each program)")
        add({"file": "profile.pop", "holds": ", ".join(parts)})
    if outputs["autoReport.outputArchive"]:
        add({"file": "archive.a", "holds": "the ELF executable of every tile"})
    if outputs["autoReport.outputDebugInfo"]:
        add({"file": "debug.cbor", "holds": "debug information (where variables and programs come from)"})
    if outputs["autoReport.outputSerializedGraph"]:
        add({"file": "serialized_graph.capnp", "holds": "the serialized graph"})
    for key, holds in (("target.saveArchive", "the binary archive"), ("debug.loweredVarDumpFile",
                                                                      "the lowered variables")):
        if _get(o, key):
            add({"file": o[key], "holds": f"{holds} ({key})"})
    names = {f["file"] for f in result.files}
    if result.files and not names & {"profile.pop", "archive.a"}:
        result.warnings.append("neither profile.pop nor archive.a is written: a report needs one of them")
    if not result.files:
        result.implications.append('no report files are written; {"autoReport.all":"true"} writes them all')
