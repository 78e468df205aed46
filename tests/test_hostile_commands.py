"""Every headless command, run in a process of its own or, most, in one process each with its own output
(`pvtuis`), over a report whose every name tries to drive the terminal (pvtui/synth/hostile.py): the
text output shows the names with their control characters made visible and reads none of them as
markup; `--json` carries the exact names."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from pvtui.safe_text import is_visible, may_be_shown, visible
from pvtui.synth.hostile import DIRECTORY, LEAD, TAIL, hostile, planted_in

FAKE_POPLAR = str(Path(__file__).with_name("fake_poplar.py"))
LEAD_SHOWN = visible(LEAD)[:16]  # `[blink]␛[6n[link`: a name's start, its markup as text, as a column keeps it


def environment(colour: bool = False, env: dict | None = None) -> dict[str, str]:
    """The environment of `pvtui`: its output piped, or, with COLOUR, styled as for a terminal."""
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE")}
    environment.update(COLUMNS="100", **(env or {}))
    if colour:
        environment.update(FORCE_COLOR="1", TTY_COMPATIBLE="1")
    return environment


def pvtui(*args, colour: bool = False, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`pvtui ARGS` as a process of its own (see `pvtuis` for many commands in one)."""
    return subprocess.run([sys.executable, "-m", "pvtui.cli", *map(str, args)], capture_output=True,
                          env=environment(colour, env), cwd=cwd, timeout=300)


# Each command's standard output and error are files of its own (fds 1 and 2 moved onto them), so what
# any code writes there (Rich, print, a warning, a traceback) is kept as a process of its own would write it.
COMMANDS_IN_ONE_PROCESS = r"""
import json, os, sys, traceback
from pvtui.cli import main

commands, place = json.loads(sys.argv[1]), sys.argv[2]
base = dict(os.environ)
statuses = []
for number, (args, env) in enumerate(commands):
    os.environ.clear()
    os.environ.update(env)
    kept = {fd: os.dup(fd) for fd in (1, 2)}
    for fd in kept:
        target = os.open(os.path.join(place, f"{number}.{fd}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(target, fd)
        os.close(target)
    try:
        status = main(args)
    except SystemExit as exc:
        status = 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    for fd, copy in kept.items():
        os.dup2(copy, fd)
        os.close(copy)
    statuses.append(status)
os.environ.clear()
os.environ.update(base)
print(json.dumps(statuses))
"""


def pvtuis(*commands: tuple, colour: bool = False, env: dict | None = None) -> list[subprocess.CompletedProcess]:
    """Each of COMMANDS (`pvtui`'s arguments) run by `pvtui.cli.main` in one process, one after another
    (the import is paid once, not once a command); each with its own exit status and output."""
    environ = environment(colour, env)
    with tempfile.TemporaryDirectory() as place:
        done = subprocess.run([sys.executable, "-c", COMMANDS_IN_ONE_PROCESS,
                               json.dumps([([str(a) for a in args], environ) for args in commands]), place],
                              capture_output=True, env=environ, timeout=300)
        assert done.returncode == 0, done.stderr.decode()
        statuses = json.loads(done.stdout)
        return [subprocess.CompletedProcess(args, status, Path(place, f"{n}.1").read_bytes(),
                                            Path(place, f"{n}.2").read_bytes())
                for n, (args, status) in enumerate(zip(commands, statuses))]


def assert_safe(result: subprocess.CompletedProcess, shows_names: bool = True) -> None:
    """Piped output: not one control or format character but line breaks, in stdout or stderr; the names
    shown, made visible, their markup as text."""
    for stream in (result.stdout, result.stderr):
        text = stream.decode("utf-8")
        assert all(is_visible(line) for line in text.split("\n")), [line for line in text.split("\n")
                                                                    if not is_visible(line)][:3]
    if shows_names:
        shown = (result.stdout + result.stderr).decode()
        assert LEAD_SHOWN in shown, shown[:2000]  # its markup shown as text


def exact_strings(value) -> set[str]:
    """Every string in a JSON document, keys too."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set(value).union(*map(exact_strings, value.values()))
    if isinstance(value, list):
        return set().union(*map(exact_strings, value))
    return set()


def report_commands(truth) -> dict[str, tuple]:
    """The commands over one report, by what they show."""
    layer = hostile("poptorch")
    variable = truth.liveness.var_name[0]
    return {
        "summary": ("summary",), "memory": ("memory",), "tile": ("memory", "--tile", "3"),
        "variable": ("memory", "--variable", variable), "liveness": ("liveness",),
        "steps": ("liveness", "--step", "10", "--vs", "180"), "programs": ("programs",), "trace": ("trace",),
        "stats": ("trace", "--stats"), "insights": ("insights",), "operations": ("operations",),
        "layer": ("operations", "--layer", layer), "model layers": ("operations", "--group", "layer"),
        "split": ("split", "--ipus", "2"), "check": ("check",), "hotspots": ("hotspots",),
        "exchanges": ("hotspots", "--by", "exchange"), "single steps": ("hotspots", "--by", "step", "--top", "20"),
    }


NAMELESS = {"memory", "programs", "stats"}  # tiles and counts by category or program type: no names


@pytest.mark.parametrize("colour", [False, True], ids=["piped", "terminal"])
def test_no_report_command_lets_a_name_drive_the_terminal(hostile_dir, hostile_truth, colour):
    commands = report_commands(hostile_truth)
    results = pvtuis(*((*command, hostile_dir) for command in commands.values()), colour=colour)
    for label, result in zip(commands, results):
        assert result.returncode == 0, (label, result.stderr.decode())
        assert planted_in(result.stdout + result.stderr) == [], label
        if not colour:
            assert_safe(result, shows_names=label not in NAMELESS)


def test_json_carries_the_exact_names(hostile_dir, hostile_truth):
    variables = set(hostile_truth.liveness.var_name) | set(hostile_truth.memory.always_live_name)
    expected = {  # label: (where in the JSON, the exact names it must hold)
        "summary": (lambda d: {d["name"]}, {DIRECTORY}),
        "trace": (lambda d: {run["name"] for run in d["runs"]}, {hostile(f"main#{run}") for run in range(2)}),
        "liveness": (lambda d: {v["name"] for v in d["peak_variables"]}, variables),
        "operations": (lambda d: {row["name"] for row in d["operations"]}, set(hostile_truth.graph.op_name)),
        "layer": (lambda d: {d["layer"]}, {hostile("poptorch")}),
        "hotspots": (lambda d: {row["name"] for row in d["rows"]}, set(hostile_truth.graph.compute_set_name)),
        "single steps": (lambda d: {row["name"] for row in d["rows"]}, set(hostile_truth.graph.program_name)),
        "variable": (lambda d: {d["variable"]}, {hostile_truth.liveness.var_name[0]}),
        "tile": (lambda d: {v["name"] for v in d["variables"]}, variables),
        "check": (lambda d: set(next(f for n, f in d["files"].items() if n.endswith("app.json"))["facts"]["keys"]),
                  {hostile(key) for key in ("arguments", "config", "POPLAR_ENGINE_OPTIONS")}),
    }
    commands = report_commands(hostile_truth)
    for label, result in zip(commands, pvtuis(*((*command, "--json", hostile_dir) for command in commands.values()))):
        assert result.returncode == 0, (label, result.stderr.decode())
        assert re.search(rb"[\x00-\x09\x0b-\x1f\x7f-\xff]", result.stdout) is None, label  # JSON escapes them
        data = json.loads(result.stdout)
        assert not any(may_be_shown(s) for s in exact_strings(data)), label  # nothing was made visible
        if label in expected:
            where, names = expected[label]
            assert where(data) and where(data) <= names, label


def test_compare_shows_both_reports_names_made_visible(hostile_dir, tiny_dir):
    extras = ((), ("--group", "layer"), ("--json",))
    *shown, exact = pvtuis(*(("compare", hostile_dir, tiny_dir, *extra) for extra in extras))
    for result in shown:
        assert result.returncode == 0, result.stderr.decode()
        assert planted_in(result.stdout + result.stderr) == []
        assert_safe(result)
    exact = json.loads(exact.stdout)
    assert exact["a"]["name"] == DIRECTORY
    assert any(row["name"].startswith(LEAD) for row in exact["programs"]["shrunk"])


def test_errors_that_quote_a_path_show_it_made_visible(hostile_dir):
    missing = hostile_dir / "missing"
    commands = (("summary", missing), ("check", missing), (missing,), ("--engine", "nothing", hostile_dir),
                ("memory", "--tile", "100000", hostile_dir), ("memory", "--variable", hostile("none"), hostile_dir))
    for command, result in zip(commands, pvtuis(*commands)):
        assert result.returncode == 2, (command, result.stderr.decode())
        assert planted_in(result.stdout + result.stderr) == [], command
        assert_safe(result)


def test_synth_export_and_cache_show_paths_made_visible(tmp_path, hostile_dir):
    """What they write goes to a directory of a hostile name; the cache lives under one too."""
    place = tmp_path / DIRECTORY
    place.mkdir()
    result = pvtui("synth", place, "--scale", "tiny", "--hostile-names")
    assert result.returncode == 0 and LEAD_SHOWN in result.stdout.decode()
    assert_safe(result)
    result = pvtui("export", hostile_dir, place / "export")
    assert result.returncode == 0, result.stderr.decode()
    assert_safe(result)
    unbundled = place / "report"  # without its own bundle, opening it fills the cache
    shutil.copytree(hostile_dir, unbundled, ignore=shutil.ignore_patterns("profile.pvtui"))
    env = {"PVTUI_CACHE_DIR": str(place / "cache")}
    assert pvtui("summary", unbundled, env=env).returncode == 0
    for command in (("cache", "--verbose"), ("cache", "clear")):
        result = pvtui(*command, env=env)
        assert result.returncode == 0, result.stderr.decode()
        assert planted_in(result.stdout + result.stderr) == [], command
        assert_safe(result)


def test_options_and_capture_echo_their_input_made_visible(tmp_path, hostile_dir):
    options = json.dumps({hostile("autoReport.all"): hostile("true"), "autoReport.directory": hostile("dir")})
    for colour in (False, True):
        result = pvtui("options", options, colour=colour)
        assert result.returncode == 2  # an option pvtui does not know
        assert planted_in(result.stdout + result.stderr) == []
        if not colour:
            assert_safe(result)
    engine = hostile("engine")
    result = pvtui("capture", "--no-open", "--dir", tmp_path / DIRECTORY, "--", sys.executable, FAKE_POPLAR,
                   "--engines", engine, "--source", hostile_dir, cwd=tmp_path)
    assert result.returncode == 0, result.stderr.decode()
    # the program's own lines are its business: it writes to the terminal itself
    pvtuis = [b"\n".join(line for line in stream.split(b"\n") if not line.startswith(b"fake_poplar"))
              for stream in (result.stdout, result.stderr)]
    result = subprocess.CompletedProcess(result.args, 0, *pvtuis)
    assert planted_in(result.stdout + result.stderr) == []
    assert_safe(result)
    assert "engine␛]52" in result.stdout.decode()  # the listing names the engine


def test_hostile_names_hold_every_kind_and_no_slash():
    assert "/" not in LEAD + TAIL and "\x00" not in LEAD + TAIL
    name = hostile("x")
    for needle in ("\x1b]52;", "\x1b]0;", "\x1b[6n", "\x9b", "\x07", "\u202e", "\u200b", "\x7f", "[link=", "[@click"):
        assert needle in name
    assert DIRECTORY == hostile("report")
