"""Changes and units read alike in the commands and the screens: two liveness steps in words, bytes in
the app's units (`--units`), and one minus sign (U+2212; ASCII on a basic console)."""

from __future__ import annotations

import json
import re

import pytest
from test_compare import compare_app, wait_compared  # noqa: F401 (a fixture)

from pvtui.cli import main
from pvtui.render.differences import format_change, format_delta
from pvtui.render.step_change import changed_variables, step_change_line, step_change_words
from pvtui.units import MINUS, format_bytes

pytestmark = pytest.mark.anyio
ASCII_NEGATIVE = re.compile(r"(?<![\w-])-\d")  # `-1.4 MiB`, `-3`: a change signed with a hyphen


def run_text(capsys, *args: str) -> str:
    assert main(list(args)) == 0
    return capsys.readouterr().out


# Two liveness steps --------------------------------------------------------------------------


def test_step_change_words_go_from_a_to_b():
    words = step_change_words(10, 12, -3 * 1024 * 1024, 2, 1, format_bytes)
    assert words == [f"From step 10 to step 12: {MINUS}3.0 MiB", "appeared 2 variables", "gone 1 variable"]
    assert step_change_line(10, 12, 4096, 1, 0, format_bytes) == \
        "From step 10 to step 12: +4.0 KiB; appeared 1 variable; gone 0 variables"
    rows = changed_variables([("x", 2048)], [("y", 1024)], format_bytes, minus="-")
    assert rows == [("+2.0 KiB", "x"), ("-1.0 KiB", "y")]


def test_liveness_two_steps_in_words(capsys, tiny_dir, tiny_report):
    live = tiny_report.liveness
    a, b = live.peak_step - 1, live.peak_step
    data = json.loads(run_text(capsys, "liveness", str(tiny_dir), "--step", str(a), "--vs", str(b), "--json"))
    assert set(data) >= {"appeared", "gone", "change_bytes"} and "added" not in data
    out = run_text(capsys, "liveness", str(tiny_dir), "--step", str(a), "--vs", str(b))
    first = out.splitlines()[0]
    assert first == step_change_line(a, b, data["change_bytes"], len(data["appeared"]), len(data["gone"]),
                                     format_bytes)
    assert first.startswith(f"From step {a:,} to step {b:,}: ") and "; appeared " in first and "; gone " in first
    assert "Went away" not in out and "Appeared:" in out


def test_a_step_against_itself_says_none_in_its_line(capsys, tiny_dir, tiny_report):
    step = tiny_report.liveness.peak_step
    out = run_text(capsys, "liveness", str(tiny_dir), "--step", str(step), "--vs", str(step))
    assert out.splitlines() == [f"From step {step:,} to step {step:,}: +0 B; appeared 0 variables; gone 0 variables"]


# Units ----------------------------------------------------------------------------------------


def test_the_tile_table_shows_the_apps_units(capsys, tiny_dir):
    data = json.loads(run_text(capsys, "memory", str(tiny_dir), "--tile", "0", "--json"))
    exact = data["including_gaps"]
    default = run_text(capsys, "memory", str(tiny_dir), "--tile", "0")
    assert f"including gaps {format_bytes(exact)}" in default and f"{exact:,}" not in default
    assert f"including gaps {exact:,} B" in run_text(capsys, "memory", str(tiny_dir), "--tile", "0", "--units", "bytes")
    assert f"including gaps {format_bytes(exact, 'si')}" in \
        run_text(capsys, "memory", str(tiny_dir), "--tile", "0", "--units", "kB")
    counts = default.split("compute sets")[1]
    assert " B " not in counts.splitlines()[1][14:28]  # instances stay a count, not bytes


@pytest.mark.parametrize("command", [["summary"], ["memory"], ["liveness"], ["programs"], ["insights"],
                                     ["memory", "--variable", "stack"]])
def test_each_command_that_shows_bytes_takes_units(capsys, tiny_dir, command):
    out = run_text(capsys, command[0], str(tiny_dir), *command[1:], "--units", "bytes")
    assert re.search(r"\d B\b", out) and not re.search(r"\d (KiB|MiB|GiB)\b", out)


# One minus sign -------------------------------------------------------------------------------


def test_changes_take_one_minus_sign():
    assert format_delta(-1536, "bytes") == f"{MINUS}1.5 KiB" and format_delta(-3, "count") == f"{MINUS}3"
    assert format_change(-0.25) == f"{MINUS}25.0%" and format_change(0.5) == "+50.0%"
    assert format_delta(-3, "count", minus="-") == "-3"


def test_compare_prints_one_minus_sign(capsys, tiny_dir, other_dir, monkeypatch):
    out = run_text(capsys, "compare", str(tiny_dir), str(other_dir))
    assert f"B {MINUS} A" in out and f"| {MINUS}" in out.replace("│", "|")
    assert not ASCII_NEGATIVE.search(out), ASCII_NEGATIVE.search(out)
    monkeypatch.setenv("TERM", "linux")
    out = run_text(capsys, "compare", str(tiny_dir), str(other_dir))
    assert MINUS not in out and "B - A" in out


async def test_the_comparison_screen_prints_one_minus_sign(compare_app):  # noqa: F811
    async with compare_app().run_test(size=(80, 24)) as pilot:
        screen = await wait_compared(pilot)
        table = screen.query_one("#deltas-table")
        cells = [str(cell) for i in range(table.row_count) for cell in table.get_row_at(i)[3:]]
        assert any(cell.startswith(MINUS) for cell in cells)
        assert not any(ASCII_NEGATIVE.match(cell) for cell in cells)
        assert [str(column.label) for column in table.ordered_columns][3] == f"B {MINUS} A"
