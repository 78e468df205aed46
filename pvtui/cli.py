"""The `pvtui` command: parses the command line and runs the one command it names.

Each command is a module of `pvtui.commands` with add_arguments(parser) and run(args) -> exit
code; only the module of the command that runs is imported.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import io
import os
import sys
from types import ModuleType

from pvtui import __version__
from pvtui.commands.common import EXIT_BAD_INPUT, EXIT_CANCELLED, say
from pvtui.errors import Cancelled, ReportError
from pvtui.safe_text import visible
from pvtui.process.blas_threads import one_blas_thread
from pvtui.process.streams import OutputLost, discard_output, guard_standard_streams

# name: (one line of help, whether it takes --json); the module is pvtui.commands.<name>
COMMANDS: dict[str, tuple[str, bool]] = {
    "open": ("open the explorer (the default command)", False),
    "summary": ("target, memory, programs and execution facts", True),
    "memory": ("memory per tile, largest first; or one tile (--tile N), or one variable across tiles (--variable NAME)",
               True),
    "liveness": ("always-live and not-always-live memory over program steps", True),
    "programs": ("the program tree: counts by type", True),
    "trace": ("execution runs, steps and cycles", True),
    "insights": ("in capacity or out of memory, the fullest tiles, the liveness peak, and what would free memory",
                 True),
    "operations": ("what operations cost (programs, memory, cycles): those of one debug layer (PopART, ONNX, "
                   "PopTorch...), or summed by model layer with --group layer", True),
    "hotspots": ("which compute sets, exchanges, programs or single steps take the IPU-cycles, costliest first",
                 True),
    "compare": ("compare two reports (B - A): summary, per-tile memory, liveness, programs and operations; opens "
                "the explorer in a terminal, prints tables when the output is piped or redirected; --fail-if makes "
                "it a regression gate for CI (exit 1 when a condition holds)", True),
    "split": ("suggest pipeline split points that balance a single-IPU report's memory across N IPUs", True),
    "export": ("write the report's bundle to OUT, to browse it anywhere", True),
    "options": ("explain and check Poplar engine options (default: $POPLAR_ENGINE_OPTIONS)", True),
    "capture": ("run a program with the engine options that capture a report, then list and open it", False),
    "check": ("file by file, whether a report is usable and why not (exit 0 usable, 2 not); only reads", True),
    "synth": ("write a synthetic report directory", False),
    "demo": ("open a synthetic demo report", False),
    "sql": ("ask one report or several in SQL, read-only, over views of pvtui's figures (steps, tiles, variables,"
            " programs, layers, liveness...); a prompt on a terminal with no QUERY; --tables lists the views", False),
    "cache": ("list the cached bundles (report, size, last used); `clear [--older-than DAYS]` removes them", True),
    "config": ("where the configuration file (keymap, defaults) is read from; --check validates it, --bindings "
               "lists the binding ids", False),
    "serve": ("serve the explorer to a web browser (on 127.0.0.1 unless --host says otherwise, behind a token in "
              "the URL)", False),
}
APP_OPTIONS = ("--theme", "--screen", "--engine", "--debug", "--config")  # `pvtui --theme light PATH` means `pvtui open ...`
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a tool the signal ended


class OneLineErrors(argparse.ArgumentParser):
    """Bad arguments get one line, as bad input does, and the way to the help."""

    chosen: argparse.ArgumentParser | None = None  # the parser of the command named, on the top parser

    def error(self, message: str):
        self.exit(EXIT_BAD_INPUT, visible(f"{self.prog}: {message}; see `{self.prog} --help`") + "\n")

    def _print_message(self, message: str, file=None) -> None:
        """Every message argparse prints, made visible line by line (pvtui.safe_text): its errors quote
        what was typed, and `pvtui summary reports/*` types the names of files anyone may have made."""
        super()._print_message("\n".join(map(visible, message.split("\n"))) if message else message, file)

    def parse_args(self, args=None, namespace=None):
        """As argparse's, but an argument no command takes is the command's error, with its help."""
        parsed, unknown = self.parse_known_args(args, namespace)
        if unknown:
            (self.chosen or self).error(f"unrecognized arguments: {' '.join(unknown)}")
        return parsed


def command_module(name: str) -> ModuleType:
    return importlib.import_module(f"pvtui.commands.{name}")


def parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command's name and help, with the arguments of CHOSEN alone."""
    top = OneLineErrors(
        prog="pvtui",
        description="Explore Graphcore IPU profiling reports in the terminal.",
        epilog="Run `pvtui PATH` to open the explorer, or `pvtui demo` to try it.",
    )
    top.add_argument("--version", action="version", version=f"pvtui {__version__}")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help, takes_json) in COMMANDS.items():
        command = sub.add_parser(name, help=help, description=help)
        if name != chosen:
            continue
        top.chosen = command
        if takes_json:
            command.add_argument("--json", action="store_true", help="print JSON instead of tables")
        command_module(name).add_arguments(command)
    return top


def _with_command(argv: list[str]) -> list[str]:
    """ARGV with `open` put first where no command is named: `pvtui PATH` opens the explorer."""
    if not argv or (argv[0] not in COMMANDS and not argv[0].startswith("-")):
        return ["open", *argv]
    if argv[0].split("=")[0] in APP_OPTIONS:
        return ["open", *argv]
    return argv


def not_a_command(word: str) -> str | None:
    """What to say when WORD, first on the command line, is neither a command nor a path that exists."""
    if word in COMMANDS or word.startswith("-") or os.path.lexists(word):
        return None
    if os.sep in word:  # a path, plainly
        return f"pvtui: {word}: no such file or directory"
    near = difflib.get_close_matches(word, COMMANDS, n=1, cutoff=0.6)
    if near:
        return f"pvtui: unknown command `{word}`; did you mean `{near[0]}`? (see `pvtui --help`)"
    return f"pvtui: {word}: not a command, and no such file or directory here (see `pvtui --help`)"


def _reader_gone(console) -> None:
    """Rich's hook for a closed pipe, which would exit 1: raise, so main ends every command alike."""
    raise BrokenPipeError


def main(argv: list[str] | None = None) -> int:
    guard_standard_streams()
    try:
        try:
            return _run(argv)
        finally:
            sys.stdout.flush()  # here, not at exit: a reader gone, or an output that fails, must be handled too
    except BrokenPipeError:
        # The reader closed the pipe (`| head -1`): stop quietly, as other Unix tools do.
        discard_output()
        return EXIT_BROKEN_PIPE
    except OutputLost as exc:  # `>&-`, `>/dev/full`
        discard_output()
        say(f"pvtui: cannot write to standard output: {exc}")
        return EXIT_BAD_INPUT


def _run(argv: list[str] | None) -> int:
    one_blas_thread()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and (problem := not_a_command(argv[0])):
        say(problem)
        return EXIT_BAD_INPUT
    argv = _with_command(argv)
    chosen = argv[0] if argv[0] in COMMANDS else None
    args = parser(chosen).parse_args(argv)
    for stream in (sys.stdout, sys.stderr):  # a name the terminal cannot encode must not stop a command
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    from rich.console import Console

    Console.on_broken_pipe = _reader_gone
    try:
        return command_module(args.command).run(args)
    except ReportError as exc:
        say(f"pvtui: {exc}")
        return EXIT_BAD_INPUT
    except (Cancelled, KeyboardInterrupt):
        say("pvtui: cancelled; nothing was written")
        return EXIT_CANCELLED


if __name__ == "__main__":
    sys.exit(main())
