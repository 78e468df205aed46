"""`pvtui sql PATH... [QUERY]`: ask one report, or several, in SQL, read-only, over views of pvtui's model.

QUERY, or the statements of -f FILE, or of standard input when it is not a terminal; on a terminal
with no QUERY, a prompt (pvtui.sql.shell). `--tables` lists the views and what each column counts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from pvtui.commands.common import EXIT_BAD_INPUT, add_reader_argument, load, say
from pvtui.files.regular import read_regular

QUERY_FILE_LIMIT = 1 << 20  # bytes of a -f FILE of SQL read at most
SEVERAL = ("Several reports: each view under schemas a, b, c... in the order given (a.steps), and under reports."
           " every report's rows with a `report` column, the path as given; an unqualified name is reports.'s.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pvtui.sql.output import FORMATS

    parser.add_argument("words", nargs="*", metavar="PATH... [QUERY]",
                        help="the reports (several: schemas a, b, c... in order, and every row under reports."
                             " with its report's path), then the query unless -f gives it")
    parser.add_argument("-f", "--file", type=Path,
                        help="read the SQL statements from FILE (a regular file), or from standard input for -")
    parser.add_argument("--format", choices=FORMATS, default="table",
                        help="table (default: fits the terminal, plain when piped), csv, json (an array of objects)"
                             " or md")
    parser.add_argument("--tables", action="store_true", help="list the views and their columns, with what each counts")
    add_reader_argument(parser)


def run(args: argparse.Namespace) -> int:
    from pvtui.sql.catalogue import catalogue_data

    if args.tables:
        print_catalogue(catalogue_data(), args.format)
        return 0
    paths, query = split_words(args.words)
    if not paths:
        say("pvtui sql: name a report: pvtui sql PATH... [QUERY]; see `pvtui sql --help`")
        return EXIT_BAD_INPUT
    if query is not None and args.file is not None:
        say("pvtui sql: give the query or -f FILE, not both")
        return EXIT_BAD_INPUT
    if args.file is not None:
        try:
            query = (sys.stdin.read() if str(args.file) == "-" else
                     read_regular(args.file, QUERY_FILE_LIMIT).decode("utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            say(f"pvtui sql: {args.file}: {getattr(exc, 'strerror', None) or exc}")
            return EXIT_BAD_INPUT
    interactive = query is None and sys.stdin.isatty() and sys.stdout.isatty()
    if query is None and not interactive:
        query = sys.stdin.read()
    from pvtui.sql.engine import Engine

    reports = [(str(path), load(path, reader=args.reader, exact_text=True)) for path in paths]
    engine = Engine(reports, warn=lambda line: say(f"pvtui sql: {line}"))
    if interactive:
        from pvtui.sql.shell import Shell

        return Shell(engine, args.format).loop()
    return run_statements(engine, query, args.format)


def split_words(words: list[str]) -> tuple[list[Path], str | None]:
    """The report paths and the query: the last word is the query when there are several and it names no
    file or directory."""
    if len(words) > 1 and not os.path.lexists(words[-1]):
        return [Path(w) for w in words[:-1]], words[-1]
    return [Path(w) for w in words], None


def run_statements(engine, text: str, output: str) -> int:
    """Run each statement of TEXT, printing its rows; stop at the first error (exit 2)."""
    from pvtui.sql.engine import INTERRUPTED, QueryError, statements
    from pvtui.sql.output import PRINTERS

    ran = False
    for statement in statements(text):
        try:
            result = engine.execute(statement)
        except QueryError as exc:
            if str(exc) == INTERRUPTED:  # Ctrl-C: cancelled, as any command
                raise KeyboardInterrupt from None
            say(f"pvtui sql: {exc}")
            return EXIT_BAD_INPUT
        PRINTERS[output](result)
        ran = True
    if not ran:
        say("pvtui sql: no SQL statement given")
        return EXIT_BAD_INPUT
    return 0


def print_catalogue(data: list[dict], output: str) -> None:
    if output == "json":
        print(json.dumps(data, indent=2))
        return
    from pvtui.sql.engine import Result
    from pvtui.sql.output import PRINTERS

    rows = [(view["view"], column["name"], column["type"], column["counts"])
            for view in data for column in view["columns"]]
    if output == "table":
        for view in data:
            print(f"{view['view']}: {view['counts']}")
            for column in view["columns"]:
                print(f"  {column['name']:<22} {column['type']:<8} {column['counts']}")
        print(SEVERAL)
        return
    PRINTERS[output](Result(["view", "column", "type", "counts"], rows))
