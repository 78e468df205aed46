"""Two liveness steps compared, in words: one wording for `pvtui liveness --step A --vs B` and the
Liveness screen's marked step (from the marked step A to the cursor's step B)."""

from __future__ import annotations

from typing import Sequence

from pvtui.units import MINUS, Fmt, count_of, sign

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
