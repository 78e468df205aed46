"""The `pvtui` command: the app, and headless commands that answer without the UI."""

from __future__ import annotations

import argparse
import importlib
import io
import json
import sys
from pathlib import Path
from typing import Any, Callable

from pvtui import __version__
from pvtui.errors import Cancelled, ReportError

EXIT_BAD_INPUT = 2
EXIT_CANCELLED = 130
# the app's screens that can come first (pvtui.app.SCREENS but compare, which needs two reports)
FIRST_SCREENS = ("summary", "memory", "liveness", "programs", "trace", "insights", "operations")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pvtui",
        description="Explore Graphcore IPU profiling reports in the terminal.",
        epilog="Run `pvtui PATH` to open the explorer, or `pvtui demo` to try it.",
    )
    parser.add_argument("--version", action="version", version=f"pvtui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, help: str, json_flag: bool = True) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help)
        if json_flag:
            p.add_argument("--json", action="store_true", help="print JSON instead of tables")
        return p

    def report_command(name: str, help: str) -> argparse.ArgumentParser:
        p = command(name, help)
        p.add_argument("path", type=Path, help="report directory, file or bundle")
        p.add_argument("--engine", help="which report, where PATH holds several")
        return p

    p = sub.add_parser("open", help="open the explorer (the default command)")
    p.add_argument("path", type=Path, nargs="?", default=Path("."))
    p.add_argument("--engine", help="which report, where PATH holds several")
    p.add_argument("--theme", help="theme name (dark, light, high-contrast or your own)")
    p.add_argument("--screen", choices=FIRST_SCREENS, default="summary", help="the screen to open on")
    report_command("summary", "target, memory, programs and execution facts")
    p = report_command("memory", "memory per tile, largest first; or one tile, or one variable across tiles")
    p.add_argument("--top", type=int, default=None, help="keep the N largest tiles")
    memory_detail().add_arguments(p)
    report_command("liveness", "always-live and not-always-live memory over program steps")
    report_command("programs", "the program tree: counts by type")
    report_command("trace", "execution runs, steps and cycles")
    p = report_command("export", "write the report's bundle to OUT, to browse it anywhere")
    p.add_argument("out", type=Path)
    p = command("synth", "write a synthetic report directory", json_flag=False)
    p.add_argument("out", type=Path)
    p.add_argument("--scale", choices=("tiny", "small", "large"), default="small")
    p.add_argument("--ipus", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p = command("demo", "open a synthetic demo report", json_flag=False)
    p.add_argument("--theme", help="theme name")
    p.add_argument("--screen", choices=FIRST_SCREENS, default="summary", help="the screen to open on")
    for name, module in FEATURE_COMMANDS.items():
        _feature(module).add_arguments(command(name, _feature(module).HELP))
    return parser


# Commands that each live in their own module of pvtui.commands:
# HELP, add_arguments(parser) and run(args) -> exit code.
FEATURE_COMMANDS = {
    "insights": "pvtui.commands.insights",
    "operations": "pvtui.commands.operations",
    "compare": "pvtui.commands.compare",
    "split": "pvtui.commands.split",
}


def memory_detail():
    return importlib.import_module("pvtui.commands.memory_detail")


def _feature(module: str):
    return importlib.import_module(module)


def say(line: str) -> None:
    """One unwrapped line on stderr: errors and warnings stay greppable.

    Line breaks inside it (a path may hold one) are escaped, so one message stays one line.
    """
    print(line.replace("\r", "\\r").replace("\n", "\\n"), file=sys.stderr)


def _progress_bar():
    """A Rich progress bar on stderr, and the progress callback that drives it."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

    console = Console(stderr=True)
    bar = Progress(
        TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
        console=console, transient=True, disable=not console.is_terminal,  # piped: no stray blank line
    )
    tasks: dict[str, Any] = {}

    def update(stage: str, done: float, total: float) -> None:
        if stage not in tasks:
            for task in bar.tasks:  # a new stage means the earlier ones are done
                bar.update(task.id, completed=task.total)
            tasks[stage] = bar.add_task(stage, total=max(total, 1))
        bar.update(tasks[stage], completed=done, total=max(total, 1))

    return bar, update


def find_report(path: Path, engine: str | None = None):
    """The one report's files at PATH (named ENGINE where PATH holds several)."""
    from pvtui.sources.discovery import discover

    found = discover(path)
    if engine is not None:
        found = [f for f in found if f.name == engine]
        if not found:
            raise ReportError(path, f"no report named {engine!r} here")
    if len(found) > 1:
        names = ", ".join(f.name for f in found)
        raise ReportError(path, f"holds {len(found)} reports ({names}): pick one with --engine NAME")
    return found[0]


def load(path: Path, engine: str | None = None):
    """Discover and open the report at PATH, with a progress bar while it is read."""
    from pvtui.sources.ingest import load_report

    files = find_report(path, engine)
    bar, update = _progress_bar()
    with bar:
        report = load_report(files, progress=update)
    for problem in report.problems:
        say(f"warning: {problem}")
    return report


def _emit(args: argparse.Namespace, data: Any, render: Callable[[Any], None]) -> None:
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        render(data)


def cmd_summary(args: argparse.Namespace) -> int:
    from pvtui.model.queries import summary
    from pvtui.render_text import render_summary

    report = load(args.path, args.engine)
    _emit(args, summary(report), render_summary)
    return 0


def cmd_memory(args: argparse.Namespace) -> int:
    from pvtui.model.queries import memory_table
    from pvtui.render_text import render_memory

    report = load(args.path, args.engine)
    if memory_detail().wanted(args):
        return memory_detail().run(args, report)
    top = args.top if args.top is not None else (None if args.json else 20)
    _emit(args, memory_table(report, top), render_memory)
    return 0


def emit_available(args: argparse.Namespace, data: Any, render: Callable[[Any], None]) -> int:
    """Print DATA, or only the reason when it says the report cannot answer (`available` false)."""
    if isinstance(data, dict) and data.get("available") is False:
        if args.json:
            print(json.dumps(data, indent=2))
        else:
            say(data["reason"])
        return 0
    _emit(args, data, render)
    return 0


def _part_command(query_name: str, render_name: str, part: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        from pvtui import render_text
        from pvtui.model import queries

        report = load(args.path, args.engine)
        data = getattr(queries, query_name)(report)
        if data is None:
            data = {"available": False, "reason": report.missing(part)}
        return emit_available(args, data, getattr(render_text, render_name))

    return run


def cmd_export(args: argparse.Namespace) -> int:
    from pvtui.model.bundle import BundleWriter

    report = load(args.path, args.engine)
    out: Path = args.out
    if out.exists() and any(out.iterdir()):
        raise ReportError(out, "already exists and is not empty; choose a new directory")
    with BundleWriter(out) as writer:
        writer.link_from(report.bundle, report.meta.get("columns", []))
        for name in ("framework.json", "app.json"):
            value = report.bundle.json(name)
            if value is not None:
                writer.write_json(name, value)
        writer.meta.update({k: v for k, v in report.meta.items() if k not in ("columns",)})
        writer.commit()
    size = sum(p.stat().st_size for p in out.iterdir())
    print(f"exported {report.name} to {out} ({size:,} bytes); open it with `pvtui {out}`")
    return 0


def cmd_synth(args: argparse.Namespace) -> int:
    from pvtui.synth import write_report

    bar, update = _progress_bar()
    with bar:
        out = write_report(args.out, scale=args.scale, ipus=args.ipus, seed=args.seed, progress=update)
    print(f"wrote a {args.scale} synthetic report to {out}")
    return 0


def demo_report_dir() -> Path:
    """The demo report, written once into the cache and reused."""
    from pvtui.sources.ingest import cache_dir
    from pvtui.synth import is_current, write_report

    out = cache_dir() / "demo-small-seed0"
    if not is_current(out):  # absent, or written by a pvtui of another bundle schema
        bar, update = _progress_bar()
        with bar:
            write_report(out, scale="small", ipus=None, seed=0, progress=update)
    return out


def cmd_demo(args: argparse.Namespace) -> int:
    return _open_app(demo_report_dir(), None, args.theme, args.screen)


def cmd_open(args: argparse.Namespace) -> int:
    return _open_app(args.path, args.engine, args.theme, args.screen)


def _open_app(path: Path, engine: str | None, theme: str | None, screen: str) -> int:
    from pvtui.app import run_app

    return run_app(path, engine=engine, theme=theme, screen=screen)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "open": cmd_open,
    "summary": cmd_summary,
    "memory": cmd_memory,
    "liveness": _part_command("liveness_table", "render_liveness", "liveness"),
    "programs": _part_command("programs_table", "render_programs", "programs"),
    "trace": _part_command("trace_table", "render_trace", "execution"),
    "export": cmd_export,
    "synth": cmd_synth,
    "demo": cmd_demo,
} | {name: (lambda args, module=module: _feature(module).run(args)) for name, module in FEATURE_COMMANDS.items()}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # `pvtui PATH` opens the explorer: `open` is the command when none is named.
    if not argv or (argv[0] not in COMMANDS and not argv[0].startswith("-")):
        argv.insert(0, "open")
    elif argv[0].startswith(("--theme", "--screen")) or argv[0] == "--engine":
        argv.insert(0, "open")
    args = _parser().parse_args(argv)
    for stream in (sys.stdout, sys.stderr):  # a name the terminal cannot encode must not stop a command
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        return COMMANDS[args.command](args)
    except ReportError as exc:
        say(f"pvtui: {exc}")
        return EXIT_BAD_INPUT
    except (Cancelled, KeyboardInterrupt):
        say("pvtui: cancelled; nothing was written")
        return EXIT_CANCELLED


if __name__ == "__main__":
    sys.exit(main())
