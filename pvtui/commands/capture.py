"""`pvtui capture [flags] -- COMMAND [ARGS...]`: run a program with the engine options a report needs,
then list what it wrote and open the explorer on it."""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import signal
import subprocess
import time
from pathlib import Path

from pvtui.commands.common import EXIT_BAD_INPUT, add_app_arguments, print_line, say
from pvtui.safe_text import visible
from pvtui.commands.options import ENV, read_options
from pvtui.process.blas_threads import users_environment
from pvtui.process.streams import on_a_terminal
from pvtui.process.collector import hold as hold_collections

LOG_ENV = "POPLAR_PROFILER_LOG_LEVEL"
LOG_LEVELS = ("TRACE", "DEBUG", "INFO", "WARN", "ERR", "OFF")
LOG_FILE = "capture.log"
INSTRUMENT_LEVELS = ("vertex", "tile", "ipu")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dir", type=Path, help="where the reports go (default: a new directory under ./reports/)")
    parser.add_argument("--memory-only", action="store_true",
                        help="graph profile, archive and debug info; no execution profile (no instrumentation)")
    parser.add_argument("--runs", type=_count, metavar="N",
                        help="runs of each program in the execution profile (autoReport.executionProfileProgramRunCount)")
    parser.add_argument("--replica", type=_count, metavar="R", help="profile this replica only (profiler.replicaToProfile)")
    parser.add_argument("--instrument", choices=INSTRUMENT_LEVELS,
                        help="compute instrumentation level (debug.computeInstrumentationLevel)")
    parser.add_argument("--no-lowered-vars", action="store_true", help="leave lowered variables out of profile.pop")
    parser.add_argument("--no-archive", action="store_true", help="write no archive.a")
    parser.add_argument("--no-debug-info", action="store_true", help="write no debug.cbor")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", type=_key_value,
                        help="any engine option (repeatable)")
    parser.add_argument("--log", type=str.upper, choices=LOG_LEVELS, metavar="LEVEL",
                        help=f"the profiler's log level ({LOG_ENV}): {', '.join(LOG_LEVELS)}")
    parser.add_argument("--force", action="store_true", help="run even with options pvtui does not know")
    parser.add_argument("--no-open", action="store_true", help="only list the reports; do not open the explorer")
    parser.add_argument("--live", action="store_true",
                        help="open the explorer at once; it shows the report once written (output to DIR/capture.log)")
    parser.add_argument("--engine", help="the report to open, where the program writes several")
    add_app_arguments(parser)
    parser.add_argument("program", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARGS...]",
                        help="the program to run, after --")


def _count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(text)


def _key_value(text: str) -> tuple[str, str]:
    key, equals, value = text.partition("=")
    if not equals or not key:
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE")
    return key, value


PYTHON_VALUE_OPTIONS = ("-W", "-X", "-Q")  # python options whose value is the next argument


def program_name(program: list[str]) -> str:
    """The script's name (python x.py, python -u x.py, python -m x), else the command's (python -c ...)."""
    name = Path(program[0]).name
    if not re.fullmatch(r"python[\d.]*", name):
        return name
    rest = iter(program[1:])
    for arg in rest:
        if arg == "-m":
            return next(rest, name)
        if arg == "-c" or arg == "-":  # code on the command line or stdin: no script to name it
            return name
        if arg in PYTHON_VALUE_OPTIONS:
            next(rest, None)
        elif not arg.startswith("-"):
            return Path(arg).stem
    return name


def default_directory(program: list[str], now: float | None = None) -> Path:
    """./reports/NAME-YYYYmmdd-HHMMSS, NAME the program's."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", program_name(program)).strip("._-") or "program"  # never "-x"
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    base = Path("reports") / f"{name}-{stamp}"
    directory, n = base, 1
    while directory.exists():
        n += 1
        directory = base.with_name(f"{base.name}-{n}")
    return directory


def engine_options(args: argparse.Namespace, user: dict) -> tuple[dict, list[str]]:
    """The options to run with: the defaults, then the user's own, then the flags; and what the flags overrode."""
    final = {"autoReport.all": "true", **user}
    origin = {key: ENV for key in user}
    overridden: list[str] = []

    def put(key: str, value: str, flag: str) -> None:
        if key in origin and final[key] != value:
            overridden.append(f"{flag} overrides {key} {json.dumps(final[key])} from {origin[key]}: "
                              f"now {json.dumps(value)}")
        final[key], origin[key] = value, flag

    if args.dir is not None:
        put("autoReport.directory", str(args.dir), "--dir")
    elif "autoReport.directory" not in final:
        final["autoReport.directory"] = str(default_directory(args.program))
    if args.memory_only:
        put("autoReport.outputExecutionProfile", "false", "--memory-only")
        put("debug.instrument", "false", "--memory-only")
    for flag, key, value in (("--runs", "autoReport.executionProfileProgramRunCount", args.runs),
                             ("--replica", "profiler.replicaToProfile", args.replica),
                             ("--instrument", "debug.computeInstrumentationLevel", args.instrument)):
        if value is not None:
            put(key, str(value), flag)
    for flag, key in (("--no-lowered-vars", "autoReport.outputLoweredVars"),
                      ("--no-archive", "autoReport.outputArchive"), ("--no-debug-info", "autoReport.outputDebugInfo")):
        if getattr(args, flag[2:].replace("-", "_")):
            put(key, "false", flag)
    for key, value in args.option:
        put(key, value, f"--option {key}")
    return final, overridden


def run(args: argparse.Namespace) -> int:
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    args.program = program
    if not program:
        say("pvtui capture: name the program to run, after --: pvtui capture -- python train.py")
        return EXIT_BAD_INPUT
    if args.memory_only and (args.runs is not None or args.instrument is not None):
        say("pvtui capture: --runs and --instrument shape the execution profile, which --memory-only leaves out")
        return EXIT_BAD_INPUT
    user = read_options(os.environ.get(ENV) or "{}", ENV)
    if user is None:
        return EXIT_BAD_INPUT
    options, overridden = engine_options(args, user.options)
    analysis = read_options(json.dumps(options), "the capture options")
    for line in overridden:
        say(f"pvtui capture: {line}")
    for line in analysis.all_errors:
        say(f"{'warning' if args.force else 'error'}: {line}")
    for line in analysis.warnings:
        say(f"warning: {line}")
    if not analysis.valid and not args.force:
        say("pvtui capture: not run; fix the options above, or run anyway with --force")
        return EXIT_BAD_INPUT
    directory = Path(str(options["autoReport.directory"]))
    env = dict(users_environment(), **{ENV: json.dumps(options, separators=(",", ":"))})
    if args.log:
        if os.environ.get(LOG_ENV) not in (None, args.log):
            say(f"pvtui capture: --log overrides {LOG_ENV}={os.environ[LOG_ENV]}: now {args.log}")
        env[LOG_ENV] = args.log
    say(f"pvtui capture: {ENV}={shlex.quote(env[ENV])}")
    if args.log:
        say(f"pvtui capture: {LOG_ENV}={args.log}")
    say(f"pvtui capture: running {shlex.join(program)}")
    return run_and_show(program, env, directory, args)


def run_and_show(program: list[str], env: dict[str, str], directory: Path, args: argparse.Namespace) -> int:
    """Run PROGRAM to its end, list what it wrote under DIRECTORY, open the explorer on it; its exit status."""
    from pvtui.process.child import EXIT_CANNOT_RUN, ending, start, wait

    started = time.time()
    live = args.live and on_a_terminal()
    if args.live and not live:
        say("pvtui capture: --live needs a terminal; running without it")
    log = None
    if live:  # the explorer has the terminal: the program's output goes to DIR/capture.log
        directory.mkdir(parents=True, exist_ok=True)
        log = (directory / LOG_FILE).open("ab")
    try:
        child, mask = start(program, env, **({} if log is None else dict(
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)))
    except OSError as exc:
        say(f"pvtui capture: cannot run {program[0]}: {exc.strerror or exc}")
        return EXIT_CANNOT_RUN
    finally:
        if log is not None:
            log.close()
    if live:
        return _run_live(child, mask, program, directory, args, started)
    status = wait(child, mask)
    say(f"pvtui capture: {program_name(program)} {ending(status)}")
    reports = list_written(directory, started)
    stopped = status in (128 + signal.SIGINT, 128 + signal.SIGTERM)
    if not reports or args.no_open or stopped or not on_a_terminal():
        return status
    if args.engine is not None and args.engine not in {r.name for r in reports}:
        say(f"pvtui capture: no report named {args.engine!r}; there are {', '.join(r.name for r in reports)}")
        return status
    hold_collections()  # until the app's first frame (pvtui.process.collector)
    from pvtui.app import run_app

    run_app(directory, engine=args.engine, theme=args.theme, screen=args.screen, reader=args.reader,
            config=args.config, fresh=args.fresh, debug=args.debug)
    return status


def _run_live(child, mask, program: list[str], directory: Path, args: argparse.Namespace, started: float) -> int:
    """The explorer opens at once and waits for the report while a thread passes signals on to the program."""
    import threading

    from pvtui.app import PvtuiApp
    from pvtui.process.child import ending, forward_until_exit, release
    from pvtui.user.config import load_config
    from pvtui.screens.capture_wait import CaptureWait

    name = program_name(program)
    status: list[int] = []
    stop = threading.Event()  # set on SIGTERM: pvtui is asked to end, so the explorer closes too
    app = PvtuiApp([], path=directory, theme=args.theme, first_screen=args.screen or "summary", reader=args.reader,
                   config=load_config(args.config), debug=args.debug,
                   waiting=CaptureWait(name, directory, directory / LOG_FILE, lambda: status[0] if status else None,
                                       ending, stop, args.engine))

    def forward() -> None:
        status.append(forward_until_exit(
            child, shares_terminal=False, on_signal=lambda signum: signum == signal.SIGTERM and stop.set()))

    forwarder = threading.Thread(target=forward, name="capture-signals", daemon=True)
    forwarder.start()
    try:
        app.run()
        if forwarder.is_alive():
            say(f"pvtui capture: the explorer is closed; waiting for {name} (pid {child.pid}) to end; "
                f"Ctrl+C stops it. Its output: {directory / LOG_FILE}")
        forwarder.join()
    finally:
        release(mask)
    say(f"pvtui capture: {name} {ending(status[0])}")
    list_written(directory, started)
    return status[0]


def list_written(directory: Path, since: float) -> list:
    """Print every report under DIRECTORY (each engine's files, sizes and whether they look whole); the reports."""
    from pvtui.sources.written import written
    from pvtui.units import format_bytes

    if not directory.is_dir():
        print_line(f"Nothing was written to {directory}.")
        return []
    reports, loose = written(directory, since)
    print_line(f"Reports under {directory}:" if reports else
               f"No report under {directory} (a report needs profile.pop or archive.a).")
    for report in reports:
        state = "complete" if report.complete else "incomplete"
        print_line(f"{report.name}  ({os.path.relpath(report.directory)}, {state})")
        _print_files(report.files, report.directory, format_bytes)
    if loose:
        print_line(f"Other files under {directory}:")
        _print_files(loose, directory, format_bytes)
    return reports


def _print_files(files: list, base: Path, format_bytes) -> None:
    names = [visible(os.path.relpath(f.path, base)) for f in files]  # as shown: the columns line up
    width = max(map(len, names))
    for f, name in zip(files, names):
        notes = [n for n in (f.problem, "from before this run" if f.before else None) if n]
        print_line(f"  {name:<{width}}  {format_bytes(f.size):>10}  {'; '.join(notes) or 'ok'}")
