"""Export: the CSV and JSON writers, and the `x` dialog and palette commands over the app."""

from __future__ import annotations

import csv
import errno
import html
import json
import unicodedata
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from conftest import open_screen, said, wait_for, wait_until_loaded
from textual.widgets import Input, OptionList

import pvtui.files.export
from pvtui.files.export import (
    default_directory,
    file_name,
    free_path,
    name_and_folder,
    path_problem,
    write_csv,
    write_json,
    write_text,
)
from pvtui.model.tables import Table
from pvtui.screens.export import ExportDialog
from pvtui.screens.liveness import LivenessScreen
from pvtui.screens.memory import MemoryScreen
from pvtui.screens.programs import ProgramsScreen
from pvtui.screens.summary import SummaryScreen
from pvtui.screens.trace import TraceScreen

AWKWARD = [
    [1, "plain", 2.5],
    [2, 'a "quoted", comma', None],
    [3, "ünïcode · 名前\nsecond line", -7],
]


def awkward_table() -> Table:
    return Table("awkward", ["id", "text", "value"], (list(row) for row in AWKWARD))


# The writers ---------------------------------------------------------------------------


def test_csv_round_trip(tmp_path):
    path = tmp_path / "t.csv"
    assert write_csv(awkward_table(), path) == 3
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["id", "text", "value"]
    expected = [[str(i), text, "" if value is None else str(value)] for i, text, value in AWKWARD]
    assert rows[1:] == expected


def test_a_csv_text_cell_that_a_spreadsheet_would_run_is_written_as_text(tmp_path):
    """A name from a report that starts like a formula gets a leading ' (a spreadsheet shows it as text);
    numbers, negative ones too, stay numbers; JSON keeps the exact strings."""
    cells = ["=HYPERLINK(\"http://x\")", "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1", "a=b", "layer-1", ""]
    table = Table("formulas", ["name", "bytes", "delta"], ([cell, 7, -3.5] for cell in cells))
    path = tmp_path / "f.csv"
    write_csv(table, path)
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))[1:]
    assert [row[0] for row in rows] == ["'" + cell for cell in cells[:6]] + cells[6:]
    assert all(row[1:] == ["7", "-3.5"] for row in rows)
    write_json(Table("formulas", ["name"], ([cell] for cell in cells)), tmp_path / "f.json")
    assert [row["name"] for row in json.loads((tmp_path / "f.json").read_text())] == cells


# Every character NFKC folds to a formula's first character (fullwidth, small forms), and every space.
DISGUISED_STARTS = [chr(c) for c in range(0x110000) if unicodedata.normalize("NFKC", chr(c)) in "=+-@"]
LEADING_SPACE = st.text(st.sampled_from([chr(c) for c in range(0x110000) if chr(c).isspace()]), max_size=4)


def _written_csv(tmp_path, cells: list, name: str = "h.csv") -> list[list[str]]:
    path = tmp_path / name
    path.unlink(missing_ok=True)
    write_csv(Table("cells", ["cell"], ([cell] for cell in cells)), path)
    with open(path, newline="", encoding="utf-8") as f:
        return [row for row in csv.reader(f)][1:]


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(space=LEADING_SPACE, start=st.sampled_from(DISGUISED_STARTS), rest=st.text(max_size=12))
def test_a_formula_behind_spaces_or_compatibility_forms_is_written_as_text(tmp_path, space, start, rest):
    """`  =1`, `\u00a0+1`, `\u3000＝HYPERLINK(...)`, `\u2007＠SUM`: a spreadsheet may strip or fold these
    to a formula, so each gets the leading ' too, and is otherwise written as it is."""
    cell = space + start + rest
    assert _written_csv(tmp_path, [cell]) == [["'" + cell]]


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(number=st.one_of(st.integers(), st.floats(allow_nan=False)),
       text=st.text(max_size=12).filter(lambda t: unicodedata.normalize("NFKC", t).lstrip()[:1] not in
                                        ("=", "+", "-", "@") and not t.startswith(("\t", "\r"))))
def test_numbers_stay_numbers_and_other_text_is_unchanged(tmp_path, number, text):
    assert _written_csv(tmp_path, [number, text]) == [[str(number)], [text]]


def test_write_csv_is_the_only_csv_writer():
    """Every `x` export of a table (each screen and tab) goes through write_csv: no module writes CSV another way."""
    package = Path(pvtui.__file__).parent
    writers = sorted(str(p.relative_to(package)) for p in package.rglob("*.py") if "csv.writer" in p.read_text())
    assert writers == ["files/export.py"]
    from pvtui.screens.export import KINDS

    assert [kind.write for kind in KINDS if kind.extension == "csv"] == [write_csv]


def test_json_round_trip_is_a_list_of_objects(tmp_path):
    path = tmp_path / "t.json"
    assert write_json(awkward_table(), path) == 3
    assert json.loads(path.read_text(encoding="utf-8")) == [
        {"id": i, "text": text, "value": value} for i, text, value in AWKWARD
    ]
    empty = tmp_path / "empty.json"
    assert write_json(Table("none", ["a"], iter(())), empty) == 0
    assert json.loads(empty.read_text()) == []


def test_json_takes_numpy_scalars_and_writes_nan_as_null(tmp_path):
    path = tmp_path / "n.json"
    write_json(Table("n", ["a", "b"], [[np.int64(5), float("nan")]]), path)
    assert json.loads(path.read_text()) == [{"a": 5, "b": None}]


def test_an_existing_file_is_never_replaced_unless_asked(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("keep me")
    with pytest.raises(FileExistsError):
        write_csv(awkward_table(), path)
    with pytest.raises(FileExistsError):
        write_text("<svg/>", path)
    assert path.read_text() == "keep me"
    write_json(awkward_table(), path, overwrite=True)
    assert len(json.loads(path.read_text())) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]  # no temporary file left


def test_a_failed_write_leaves_no_file_and_keeps_the_old_one(tmp_path):
    def broken_rows():
        yield [1, "one", 1.0]
        raise OSError(errno.EIO, "Input/output error")

    new = tmp_path / "new.csv"
    with pytest.raises(OSError):
        write_csv(Table("t", ["id", "text", "value"], broken_rows()), new)
    assert not new.exists()
    old = tmp_path / "old.json"
    old.write_text("old")
    with pytest.raises(OSError):
        write_json(Table("t", ["id", "text", "value"], broken_rows()), old, overwrite=True)
    assert old.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.json"]


def test_file_names_are_sanitized_and_never_taken(tmp_path):
    assert file_name("bert/run 1", "memory-tiles", "csv") == "bert-run-1-memory-tiles.csv"
    assert file_name("../..", "", "svg") == "export.svg"
    assert free_path(tmp_path, "a.csv") == tmp_path / "a.csv"
    (tmp_path / "a.csv").touch()
    (tmp_path / "a-2.csv").touch()
    assert free_path(tmp_path, "a.csv") == tmp_path / "a-3.csv"


def test_a_path_that_cannot_be_written_says_why(tmp_path, monkeypatch):
    reports = tmp_path / "reports"
    (reports / "sub").mkdir(parents=True)
    assert path_problem("reports", reports, [reports]) == "reports is a folder: add a file name."
    assert "nothing into the report's folder" in path_problem("x.csv", reports / "sub" / "x.csv", [reports])
    assert path_problem("y/x.csv", tmp_path / "y" / "x.csv", [reports]) == f"There is no folder {tmp_path / 'y'}."
    assert path_problem("x.csv", tmp_path / "x.csv", [reports]) == ""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert name_and_folder(tmp_path / "x.csv") == "x.csv in the current folder"
    assert name_and_folder(reports / "x.csv") == "x.csv in ~/reports"


def test_the_default_folder_is_never_the_report_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert default_directory([tmp_path / "elsewhere"]) == tmp_path
    chosen = default_directory([tmp_path])
    assert not chosen.resolve().is_relative_to(tmp_path.resolve())


# The dialog over the app -----------------------------------------------------------------

pilot_test = pytest.mark.anyio


async def export(pilot, *keys: str) -> ExportDialog:
    """Press x, then KEYS in the dialog; return the dialog."""
    await pilot.press("x")
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, ExportDialog)
    if keys:
        await pilot.press(*keys)
        await pilot.pause()
    return dialog


async def finish(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()


def messages(app) -> list[str]:
    return [said(app)]


def svg_text(path: Path) -> str:
    return html.unescape(path.read_text(encoding="utf-8")).replace("\xa0", " ")


@pilot_test
async def test_memory_as_csv_has_a_row_per_tile_under_the_ipu_filter(make_app, tiny_report, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    memory = tiny_report.memory
    async with make_app().run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "m", MemoryScreen)
        await export(pilot, "enter")
        await finish(pilot)
        assert not isinstance(pilot.app.screen, ExportDialog)
        with open(tmp_path / "tiny-memory-tiles.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        assert [int(r["tile"]) for r in rows] == list(range(memory.num_tiles))
        assert [int(r["bytes_including_gaps"]) for r in rows] == np.asarray(memory.including_gaps).tolist()
        assert set(memory.categories) <= set(rows[0])
        assert any("tiny-memory-tiles.csv" in m for m in messages(pilot.app))

        await pilot.press("I", "g")  # the first IPU only, excluding gaps
        await export(pilot, "enter")
        await finish(pilot)
        first_ipu = int(np.min(memory.ipu))
        with open(tmp_path / f"tiny-memory-tiles-ipu{first_ipu}.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        tiles = np.flatnonzero(np.asarray(memory.ipu) == first_ipu)
        assert [int(r["tile"]) for r in rows] == tiles.tolist()
        assert [int(r["bytes_excluding_gaps"]) for r in rows] == np.asarray(memory.excluding_gaps)[tiles].tolist()


@pilot_test
async def test_liveness_as_json_has_every_step(make_app, tiny_report, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    live = tiny_report.liveness
    async with make_app().run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "l", LivenessScreen)
        dialog = await export(pilot, "down")
        assert dialog.query_one(Input).value == "tiny-liveness-steps.json"
        await pilot.press("enter")
        await finish(pilot)
    steps = json.loads((tmp_path / "tiny-liveness-steps.json").read_text())
    assert [s["step"] for s in steps] == list(range(len(live)))
    peak = steps[live.peak_step]
    assert peak["not_always_live_bytes"] == int(live.not_always_live[live.peak_step])
    assert peak["total_bytes"] == live.always_live_bytes + peak["not_always_live_bytes"]
    assert peak["program_name"] == tiny_report.programs.names[int(live.program[live.peak_step])]


@pilot_test
async def test_the_screen_as_svg_shows_the_report_screen_not_the_dialog(make_app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with make_app().run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "m", MemoryScreen)
        await export(pilot, "down", "down", "enter")
        await finish(pilot)
    text = svg_text(tmp_path / "tiny-memory.svg")
    assert text.lstrip().startswith("<svg")
    assert "Memory · tiny" in text and "Worst tile" in text
    assert "Enter writes" not in text and "Screen as SVG" not in text


@pilot_test
async def test_the_palette_exports_the_table(make_app, tmp_path, monkeypatch, tiny_report):
    monkeypatch.chdir(tmp_path)
    async with make_app().run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "p", ProgramsScreen)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*("space" if c == " " else c for c in "Export table as CSV"))
        await wait_for(pilot, lambda: "Export table as CSV" in str(
            pilot.app.screen.query_one(OptionList).get_option_at_index(0).prompt))
        await pilot.press("enter")
        await pilot.pause()
        dialog = pilot.app.screen
        assert isinstance(dialog, ExportDialog) and dialog.kind.key == "csv"
        await pilot.press("enter")
        await finish(pilot)
    with open(tmp_path / "tiny-programs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    programs = tiny_report.programs
    assert len(rows) == len(programs)
    assert rows[1]["name"] == programs.names[1] and rows[1]["type"] == programs.type_name(1)


@pilot_test
async def test_programs_export_only_the_search_matches(make_app, tmp_path, monkeypatch, tiny_report):
    monkeypatch.chdir(tmp_path)
    programs = tiny_report.programs
    matching = [i for i, name in enumerate(programs.names) if "attention" in name.lower()]
    assert 0 < len(matching) < len(programs)
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, "p", ProgramsScreen)
        await pilot.press("slash", *"attention", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        table = screen.export_table()
        assert table.name == "programs-matching-attention"
        exported = [row[0] for row in table.rows]
        assert sorted(exported) == matching and exported[0] == screen.selected_program()  # in the tree's order


@pilot_test
async def test_trace_exports_the_steps_of_the_run(make_app, tiny_report):
    execution = tiny_report.execution
    lo, hi = execution.run_range(0)
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, "t", TraceScreen)
        table = screen.export_table()
        rows = list(table.rows)
    assert [row[0] for row in rows] == list(range(lo, hi))
    columns = table.columns
    for row in rows[:50]:
        step = row[0]
        for ipu in range(execution.num_ipus):
            start = int(execution.cycles_from[step, ipu])
            cycles = row[columns.index(f"ipu{ipu}_cycles")]
            assert row[columns.index(f"ipu{ipu}_from")] == (start if start >= 0 else None)
            assert cycles == (int(execution.cycles[step, ipu]) if start >= 0 else None)


@pilot_test
async def test_summary_exports_its_facts(make_app, tiny_report):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        table = pilot.app.screen.export_table()
    facts = {(section, fact): value for section, fact, value in table.rows}
    assert facts[("target", "num_ipus")] == tiny_report.target.num_ipus
    assert facts[("memory", "total_including_gaps")] == int(np.sum(tiny_report.memory.including_gaps))
    assert facts[("files", "profile.pop")] == "stood in"


def test_the_summary_warns_first_of_tiles_over_the_limit(tiny_report):
    from pvtui.render.facts import over_limit_warning
    from pvtui.model.queries import summary

    data = summary(tiny_report)
    assert over_limit_warning(data, "{:,} B".format) == \
        "Out of memory: 1 tile over the 638,976 B limit (press m, then w for the worst)"
    assert over_limit_warning({**data, "memory": {**data["memory"], "tiles_over_limit": 0}}, str) is None


DISPLAY_FIGURE = r"^-?[\d,.]+ ?(%|[KMGT]i?B|B|kB|ms|GHz)?$"


@pilot_test
@pytest.mark.parametrize("key", ["s", "m", "l", "p", "t", "i", "o"])
async def test_every_table_exports_snake_case_columns_and_plain_numbers(make_app, key):
    import re

    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press(key)
        await wait_for(pilot, lambda: pilot.app.screen.export_table() is not None)
        table = pilot.app.screen.export_table()
        # snake_case, but for the memory categories, kept as Poplar names them (vertexCode)
        assert all(re.fullmatch(r"[a-z][A-Za-z0-9_.]*", column) for column in table.columns), table.columns
        for row in list(table.rows)[:50]:
            figures = [v for v in row if isinstance(v, str) and re.fullmatch(DISPLAY_FIGURE, v) and any(
                c.isdigit() for c in v)]
            assert not figures, row


@pilot_test
async def test_the_memory_table_has_both_totals_whichever_is_shown(make_app, tiny_report):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, "m", MemoryScreen)
        for _ in range(2):
            table = screen.export_table()
            assert {"bytes_including_gaps", "bytes_excluding_gaps"} <= set(table.columns)
            await pilot.press("g")


@pilot_test
async def test_the_file_name_and_the_format_always_agree(make_app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with make_app().run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "m", MemoryScreen)
        dialog = await export(pilot, "tab")  # Table as CSV, the file name
        dialog.query_one(Input).value = "tiles.json"
        await pilot.pause()
        assert dialog.kind.key == "json" and dialog.query_one(OptionList).highlighted == 1
        await pilot.press("shift+tab", "up")  # back to CSV: the name follows
        await pilot.pause()
        assert dialog.kind.key == "csv" and dialog.query_one(Input).value == "tiles.csv"
        dialog.query_one(Input).value = "tiles.json"
        await pilot.pause()
        await pilot.press("enter")
        await finish(pilot)
    assert json.loads((tmp_path / "tiles.json").read_text())[0]["tile"] == 0


@pilot_test
async def test_an_existing_file_needs_a_second_enter_and_the_report_folder_is_refused(
    make_app, tiny_dir, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.csv").write_text("mine")
    async with make_app().run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "m", MemoryScreen)
        dialog = await export(pilot, "tab")
        path_input = dialog.query_one(Input)
        status = dialog.query_one("#export-status")

        path_input.value = str(tiny_dir / "memory.csv")
        await pilot.press("enter")
        assert "report's folder" in str(status.render())
        assert not (tiny_dir / "memory.csv").exists()

        path_input.value = "x" * 300 + ".csv"
        await pilot.press("enter")
        assert "too long" in str(status.render())

        path_input.value = "mine.csv"
        await pilot.press("enter")
        assert "exists" in str(status.render())
        assert pilot.app.screen is dialog and (tmp_path / "mine.csv").read_text() == "mine"
        await pilot.press("enter")
        await finish(pilot)
    assert (tmp_path / "mine.csv").read_text().startswith("tile,ipu,")


@pilot_test
async def test_choosing_another_kind_takes_back_the_replace_warning(make_app, tiny_report, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.csv").write_text("mine")
    async with make_app().run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "m", MemoryScreen)
        dialog = await export(pilot, "tab")
        dialog.query_one(Input).value = "mine.csv"
        await pilot.press("enter")
        status = dialog.query_one("#export-status")
        assert "exists" in str(status.render())
        await pilot.press("shift+tab", "down")  # Table as JSON: the warning is gone, so is the consent
        await pilot.pause()
        assert dialog.kind.key == "json" and "exists" not in str(status.render())
        dialog.query_one(Input).value = "mine.csv"  # the name says CSV again
        await pilot.pause()
        assert dialog.kind.key == "csv"
        await pilot.press("enter")
        await pilot.pause()
        assert pilot.app.screen is dialog and "exists" in str(status.render())
        await pilot.press("enter")
        await finish(pilot)
        tiles = tiny_report.memory.num_tiles
        assert f"Wrote {tiles:,} rows to mine.csv in the current folder" in messages(pilot.app)
    assert (tmp_path / "mine.csv").read_text().startswith("tile,ipu,")


@pilot_test
async def test_a_write_error_is_one_line_and_escape_cancels(make_app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def full_disk(path, overwrite, newline=None):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(pvtui.files.export, "_new_file", full_disk)
    async with make_app().run_test(size=(80, 24)) as pilot:
        await open_screen(pilot, "m", MemoryScreen)
        await export(pilot, "enter")
        await finish(pilot)
        assert f"Export failed: {tmp_path / 'tiny-memory-tiles.csv'}: No space left on device" in messages(pilot.app)
        await export(pilot, "escape")
        assert isinstance(pilot.app.screen, MemoryScreen)
    assert list(tmp_path.iterdir()) == []


@pilot_test
async def test_a_screen_without_a_table_offers_svg_only(make_app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(SummaryScreen, "export_table", lambda self: None)
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        dialog = await export(pilot)
        assert "No table here" in str(dialog.query_one("#export-table").render())
        options = dialog.query_one(OptionList)
        assert [options.get_option_at_index(i).disabled for i in range(3)] == [True, True, False]
        assert dialog.kind.key == "svg" and dialog.query_one(Input).value == "tiny-summary.svg"
        await pilot.press("enter")
        await finish(pilot)
    assert "Summary · tiny" in svg_text(tmp_path / "tiny-summary.svg")


async def _memory_export_dialog(pilot) -> None:
    await open_screen(pilot, "m", MemoryScreen)
    await pilot.press("x")
    await pilot.pause()


def test_snapshot_export_dialog_80x24(snap_compare, make_app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_memory_export_dialog)
