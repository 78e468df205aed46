"""`pvtui compare A B --fail-if COND` (a regression gate: exit 0 when no condition holds, 1 when one does, 2 when
it cannot judge) and `pvtui compare A B --metrics` (every metric of the catalogue with A, B and the change).

Conditions are parsed before either report is read; each report is read once (progress on stderr, stdout
kept for the table or JSON) and never written to.
"""

from __future__ import annotations

import argparse
import json

from pvtui.commands.common import EXIT_BAD_INPUT, load, say

EXIT_PASSED, EXIT_FAILED = 0, 1
FORMATS = ("text", "json", "md", "github")  # render.gate.print_gate's (not imported to parse: it brings rich)


def add_gate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fail-if", action="append", default=[], metavar="COND",
        help="a regression gate (repeatable): exit 1 when COND holds of the reports, 0 when none does, 2 when one "
             "cannot be judged. COND is `METRIC OP LIMIT`, OP one of > >= < <=; a plain LIMIT applies to B "
             "(`memory.tiles_over_limit > 0`, `memory.max_tile > 600KiB`), a signed one to B's change from A "
             "(`cycles.device > +2%%`, `memory.total > +4MiB`); bytes in B, KiB, MiB, GiB, kB, MB, GB, cycles and "
             "counts bare; `*` in METRIC applies it to each metric it matches (`cycles.layer.* > +5%%`)")
    parser.add_argument("--format", choices=FORMATS,
                        help="how --fail-if reports: text (default), json, md (a job summary table) or github "
                             "(an ::error line per failed condition, then the table)")
    parser.add_argument("--metrics", action="store_true",
                        help="list every metric the gate knows, with its value in A and B and the change")


def gate_format(args: argparse.Namespace) -> str | None:
    """The format asked for (--json is --format json); None when --json and --format disagree."""
    if args.json:
        return "json" if args.format in (None, "json") else None
    return args.format or "text"


def run_gate(args: argparse.Namespace) -> int:
    from pvtui.model.gate import ConditionError, GateError, Reports, failed_first, judge, parse_condition
    from pvtui.model.metrics import read_metrics
    from pvtui.render.gate import print_gate

    fmt = gate_format(args)
    problem = _conflict(args, fmt)
    if problem:
        say(f"pvtui compare: {problem}")
        return EXIT_BAD_INPUT
    conditions, malformed = [], []
    for text in args.fail_if:
        try:
            conditions.append(parse_condition(text))
        except ConditionError as error:
            malformed.append(error)
    if malformed:
        return _cannot_judge(malformed)
    (a, b), heading = _load(args, "Gate", exact_text=fmt == "json")
    try:
        verdicts = judge(conditions, Reports(read_metrics(a), read_metrics(b), a.name, b.name))
    except GateError as error:
        return _cannot_judge(error.lines)
    verdicts = failed_first(verdicts)
    print_gate(verdicts, fmt, heading, _shown(args))
    return EXIT_FAILED if any(v.failed for v in verdicts) else EXIT_PASSED


def run_metrics(args: argparse.Namespace) -> int:
    from pvtui.model.metrics import pairs, read_metrics
    from pvtui.render.gate import metrics_json, print_metrics

    fmt = gate_format(args)
    problem = _conflict(args, fmt) or (None if fmt in ("text", "json") else "--metrics prints text or --json")
    if problem:
        say(f"pvtui compare: {problem}")
        return EXIT_BAD_INPUT
    (a, b), heading = _load(args, "Metrics", exact_text=fmt == "json")
    listed = pairs(read_metrics(a), read_metrics(b))
    if fmt == "json":
        print(json.dumps(metrics_json(listed), indent=2))
    else:
        print_metrics(listed, heading, _shown(args))
    return EXIT_PASSED


def _conflict(args: argparse.Namespace, fmt: str | None) -> str | None:
    if fmt is None:
        return f"--json and --format {args.format} disagree: give one"
    if args.group:
        return "--group goes with neither --fail-if nor --metrics: they judge and list the metrics"
    if args.metrics and args.fail_if:
        return "--metrics lists the metrics, --fail-if judges them: give one"
    return None


def _cannot_judge(problems: list) -> int:
    """Say each problem (a ConditionError with a caret under its spot); exit 2."""
    from pvtui.model.gate import ConditionError
    from pvtui.render.gate import caret_lines

    for problem in problems:
        for line in caret_lines(problem) if isinstance(problem, ConditionError) else [f"pvtui: {problem}"]:
            say(line)
    return EXIT_BAD_INPUT


def _load(args: argparse.Namespace, what: str, exact_text: bool):
    """Reports A and B, each read once, and the heading that names WHAT is shown of them (visible)."""
    from pvtui.safe_text import visible

    a = load(args.a, args.engine_a, args.reader, exact_text=exact_text)
    b = load(args.b, args.engine_b, args.reader, exact_text=exact_text)
    heading = visible(f"{what} · A {a.name} ({args.a}) · B {b.name} ({args.b})")
    return (a, b), heading


def _shown(args: argparse.Namespace):
    from pvtui.render.gate import Shown
    from pvtui.render.glyphs import text_minus
    from pvtui.units import UNIT_NAMES

    return Shown(UNIT_NAMES[args.units], text_minus())
