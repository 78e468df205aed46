"""Two liveness steps compared, in words: one wording for `pvtui liveness --step A --vs B` and the
Liveness screen's marked step (from the marked step A to the cursor's step B)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from pvtui.safe_text import visible
from pvtui.units import MINUS, Fmt, count_of, sign

if TYPE_CHECKING:
    from pvtui.model.navigators.liveness import StepColumn

CLAUSE_GAP = "; "  # between the clauses of a change, on one line


def step_change_words(a: int, b: int, change: int, appeared: int, gone: int, fmt: Fmt,
                      minus: str = MINUS) -> list[str]:
    """`From step A to step B: +4.6 MiB`, `appeared 3 variables`, `gone 1 variable`: the clauses the
    command joins with "; " on one line and the screen on as many lines as its width needs. CHANGE is B's
    not-always-live bytes minus A's."""
    return [f"From step {a:,} to step {b:,}: {sign(change, minus) or '+'}{fmt(abs(change))}",
            f"appeared {count_of(appeared, 'variable')}", f"gone {count_of(gone, 'variable')}"]


def step_change_line(a: int, b: int, change: int, appeared: int, gone: int, fmt: Fmt, minus: str = MINUS) -> str:
    """The clauses of step_change_words as one sentence: `From step A to step B: +4.6 MiB; appeared …; gone …`."""
    return CLAUSE_GAP.join(step_change_words(a, b, change, appeared, gone, fmt, minus))


def changed_variables(appeared: Sequence[tuple[str, int]], gone: Sequence[tuple[str, int]], fmt: Fmt,
                      minus: str = MINUS) -> list[tuple[str, str]]:
    """(signed bytes, name) of each variable that appeared (+) and then of each that went (minus)."""
    return ([(f"+{fmt(size)}", name) for name, size in appeared]
            + [(f"{minus}{fmt(size)}", name) for name, size in gone])


STEP_ROWS = ("program", "not-always-live", "change", "appeared", "gone")  # a row per figure, a column per step
PROGRAM_CELL = 24  # characters of a program's name in a column: its end, where names differ

def step_columns(columns: Sequence["StepColumn"], fmt: Fmt, minus: str = MINUS) -> tuple[list[str], list[list[str]]]:
    """Several steps compared, column by column: the headings (`step N` each) and a row per STEP_ROWS figure,
    each step against the column before it (the first: —). Names made visible."""
    def changed(pair: tuple[int, int] | None) -> str:
        return "—" if pair is None else f"{count_of(pair[0], 'variable')}, {fmt(pair[1])}"

    headings = ["", *(f"step {c.step:,}" for c in columns)]
    rows = [
        ["program", *(_end_of(visible(c.program)) or "—" for c in columns)],
        ["not-always-live", *(fmt(c.not_always_live) for c in columns)],
        ["change", *("—" if c.change is None else f"{sign(c.change, minus) or '+'}{fmt(abs(c.change))}"
                     for c in columns)],
        ["appeared", *(changed(c.appeared) for c in columns)],
        ["gone", *(changed(c.gone) for c in columns)],
    ]
    return headings, rows


def _end_of(name: str) -> str:
    return name if len(name) <= PROGRAM_CELL else "…" + name[-(PROGRAM_CELL - 1):]
