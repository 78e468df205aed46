"""What the commands share: finding and loading a report, printing tables or JSON, one-line errors."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path
from typing import Any, Callable

from pvtui.errors import ReportError
from pvtui.safe_text import visible, visible_all

EXIT_BAD_INPUT = 2
EXIT_CANCELLED = 130
# the app's screens that can come first (pvtui.app.SCREENS but compare, which needs two reports)
LISTED_REPORTS = 10  # reports named when PATH holds several and none was picked
FIRST_SCREENS = ("summary", "memory", "liveness", "programs", "trace", "insights", "operations", "hotspots")


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    """PATH, --engine and --reader, as every command that reads one report takes them."""
    parser.add_argument("path", type=Path, help="report directory, file or bundle")
    parser.add_argument("--engine", help="which report, where PATH holds several")
    add_reader_argument(parser)


def add_reader_argument(parser: argparse.ArgumentParser, default: str | None = "auto") -> None:
    """--reader, as every command that opens a report takes it (None: the configuration's default, else auto)."""
    from pvtui.sources.readers import READERS

    parser.add_argument(
        "--reader", choices=READERS, default=default,
        help="how profile.pop is read: libpva (module pva, from the Poplar SDK: every part), native (its SQLite "
             "tables, without the SDK: memory, programs, steps, variables), or auto (default): libpva where it "
             "imports, else native",
    )


def add_app_arguments(parser: argparse.ArgumentParser) -> None:
    """--theme, --screen, --reader, --config and --fresh, as every command that opens the explorer takes them."""
    parser.add_argument("--theme", help="theme name (dark, light, high-contrast or your own)")
    parser.add_argument("--screen", choices=FIRST_SCREENS,
                        help="the screen to open on (default: the one the report was left on, else summary)")
    add_reader_argument(parser, default=None)
    add_config_argument(parser)
    add_debug_argument(parser)
    parser.add_argument("--fresh", action="store_true",
                        help="use nothing pvtui remembers from earlier runs (the reports opened before, where each "
                             "was left)")


def add_config_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, metavar="PATH",
                        help="the configuration file (default: $PVTUI_CONFIG, else "
                             "$XDG_CONFIG_HOME/pvtui/config.toml); see `pvtui config`")


def add_debug_argument(parser: argparse.ArgumentParser) -> None:
    """--debug, as every command that opens the explorer takes it."""
    parser.add_argument("--debug", action="store_true",
                        help="where a report does not open because of a bug in pvtui (the explorer says so in one "
                             "line), print its Python traceback on stderr once the explorer ends, to report it")


def add_units_argument(parser: argparse.ArgumentParser) -> None:
    """--units, as the explorer's `u` cycles them, for a command whose tables show bytes."""
    from pvtui.units import UNIT_NAMES

    parser.add_argument("--units", choices=tuple(UNIT_NAMES), default="KiB",
                        help="memory units of the tables, as the explorer's u: KiB (default), kB or bytes;"
                             " --json always gives exact bytes")


def bytes_format(args: argparse.Namespace) -> Callable[[int | None], str]:
    """How the command's text shows bytes, in the units --units names."""
    from functools import partial

    from pvtui.units import UNIT_NAMES, format_bytes

    return partial(format_bytes, mode=UNIT_NAMES[args.units])


def at_least_one(what: str) -> Callable[[str], int]:
    """An argparse type: a whole number of WHAT, 1 or more (0 or less would print nothing, or everything)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of {what} (1 or more)")
        return value

    return parse


def say(line: str) -> None:
    """One unwrapped line on stderr: errors and warnings stay greppable.

    It is made visible (pvtui.safe_text): a path or name quoted in it drives no terminal, and a line
    break inside it (a path may hold one) shows as ␊, so one message stays one line. Where stderr is
    closed or cannot be written (full), the line is lost: there is nowhere else to say it.
    """
    with contextlib.suppress(OSError):
        print(visible(line), file=sys.stderr, flush=True)


def print_line(line: str) -> None:
    """One line on stdout, made visible as `say` makes its lines: it may quote paths and names."""
    print(visible(line))


def progress_bar():
    """A Rich progress bar on stderr, and the progress callback that drives it."""
    from pvtui.render.console import TextConsole
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

    console = TextConsole(stderr=True)
    bar = Progress(
        TextColumn("{task.description}", markup=False), BarColumn(), TaskProgressColumn(),
        console=console, transient=True, disable=not console.is_terminal,  # piped: no stray blank line
    )
    tasks: dict[str, Any] = {}

    def update(stage: str, done: float, total: float) -> None:
        if stage not in tasks:
            for task in bar.tasks:  # a new stage means the earlier ones are done
                bar.update(task.id, completed=task.total)
            tasks[stage] = bar.add_task(visible(stage), total=max(total, 1))
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
        names = ", ".join(f.name for f in found[:LISTED_REPORTS])
        more = f" and {len(found) - LISTED_REPORTS:,} more" if len(found) > LISTED_REPORTS else ""
        raise ReportError(path, f"holds {len(found):,} reports ({names}{more}): "
                                "pick one with --engine NAME, or give a narrower PATH")
    return found[0]


def load(path: Path, engine: str | None = None, reader: str = "auto", exact_text: bool = False):
    """Discover and open the report at PATH (profile.pop read by READER), with a progress bar while it is
    read; its names exactly as the files hold them where EXACT_TEXT (for JSON), else made visible
    (pvtui.safe_text)."""
    from pvtui.sources.ingest import load_report

    files = find_report(path, engine)
    bar, update = progress_bar()
    with bar:
        report = load_report(files, progress=update, reader=reader, exact_text=exact_text)
    for problem in report.problems:
        say(f"warning: {problem}")
    return report


def as_json(value: Any) -> Any:
    """VALUE (JSON-like: dicts, lists, tuples, strings, numbers) with each Unavailable in it as the
    commands' JSON gives a figure the report cannot give: `{"available": false, "reason": ...}`."""
    from pvtui.model.unavailable import Unavailable

    if isinstance(value, Unavailable):
        return {"available": False, "reason": value.reason}
    if isinstance(value, dict):
        return {key: as_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_json(item) for item in value]
    return value


def emit(args: argparse.Namespace, data: Any, render: Callable[[Any], None]) -> None:
    """DATA as JSON with --json (its strings exact: JSON escapes what needs it), else drawn by RENDER
    with every string in it (an Unavailable's reason too) made visible."""
    if args.json:
        print(json.dumps(as_json(data), indent=2))
    else:
        render(visible_all(data))


def emit_available(args: argparse.Namespace, data: Any, render: Callable[[Any], None]) -> int:
    """Print DATA, or only the reason when the report cannot give it (Unavailable)."""
    from pvtui.model.unavailable import Unavailable

    if isinstance(data, Unavailable) and not args.json:
        say(data.reason)
    else:
        emit(args, data, render)
    return 0


def run_part(args: argparse.Namespace, query: Callable, render: Callable[[Any], None]) -> int:
    """A command that shows one part of the report: QUERY's answer, or why the report cannot give it."""
    report = load(args.path, args.engine, args.reader, exact_text=args.json)
    return emit_available(args, query(report), render)
