"""Operations: the adapter's operations part, layers of debug contexts, the command and the screen."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import open_screen, resize, wait_for, wait_until_loaded

from pvtui.cli import main
from pvtui.model.operations import OperationIndex, select_rows, top_program
from pvtui.render.operations import SORT_COLUMN, operation_details
from pvtui.screens.operations import OperationsScreen

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def truth():
    from pvtui.synth import generate

    return generate("tiny", seed=0)


def test_operations_part_holds_what_libpva_gives(tiny_report, truth):
    ops, g, lv = tiny_report.operations, truth.graph, truth.liveness
    assert list(ops.names) == g.op_name
    for op in (0, 7, len(g.op_name) - 1):
        lo, hi = g.op_program_offsets[op], g.op_program_offsets[op + 1]
        assert ops.programs(op).tolist() == g.op_programs[lo:hi].tolist()
        assert int(ops.variable_bytes[op]) == int(lv.var_bytes[truth.op_variables(op)].sum())
        assert int(ops.first_step[op]) == int(g.op_first_step[op])
        assert int(ops.last_step[op]) == int(g.op_end_step[op]) - 1
        assert int(ops.debug_context[op]) == truth.debug.op_context_id(op)


def test_layers_group_operations_under_their_contexts(tiny_report, truth):
    index = OperationIndex(tiny_report)
    assert index.default_layer == "popart"
    assert index.layers == ["poptorch", "onnx", "popart", "poplibs"]
    popart = index.layer("popart")
    assert sorted(r.name for r in popart.rows) == sorted(truth.graph.op_name)
    onnx = {r.name: r for r in index.layer("onnx").rows}
    gelu = onnx["layer0/ffn/Gelu"]  # the forward op and its gradient share the ONNX op
    assert sorted(tiny_report.operations.names[op] for op in gelu.operations) == ["layer0/ffn/Gelu",
                                                                                 "layer0/ffn/GeluGrad"]
    updaters = onnx["(no ONNX context)"]
    assert updaters.operations and all(
        tiny_report.operations.names[op].endswith(("AdamUpdater", "lossScaling/Update")) for op in updaters.operations
    )
    poplibs = index.layer("poplibs")
    assert poplibs.rows == [] and "below the operations" in poplibs.reason.reason


def test_row_cycles_and_memory_from_the_truth(tiny_report, truth):
    rows = {r.name: r for r in OperationIndex(tiny_report).layer("popart").rows}
    row = rows["layer1/attention/qkv/Conv_1"]
    e = truth.execution
    ran = np.isin(e.program, row.programs)
    assert row.cycles == int(e.cycles[ran].sum()) > 0
    assert row.steps == int(ran.sum())
    assert row.first_step == int(np.flatnonzero(ran)[0])
    assert row.memory == row.code_bytes + row.variable_bytes
    assert row.foreign_calls == 0
    # layer0's Softmax owns the shared Poplar function; layer1's only calls it, and its steps count there
    assert rows["layer1/attention/Softmax"].foreign_calls == 1 and rows["layer1/attention/Softmax"].steps == 0
    assert rows["layer0/attention/Softmax"].steps > 0


def test_sort_and_filter(tiny_report):
    rows = OperationIndex(tiny_report).layer("popart").rows
    by_cycles = select_rows(rows, "cycles")
    assert [r.cycles for r in by_cycles] == sorted((r.cycles for r in rows), reverse=True)
    gelu = select_rows(rows, "name", "GELU")
    assert gelu and all("gelu" in r.name.lower() for r in gelu)
    assert [r.name for r in gelu] == sorted(r.name for r in gelu)


def run_json(capsys, *args: str) -> dict:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_command_json(capsys, tiny_dir):
    data = run_json(capsys, "operations", str(tiny_dir), "--layer", "onnx", "--sort", "cycles", "--top", "5")
    assert data["layer"] == "onnx" and data["shown"] == 5 and data["total"] > 5
    cycles = [row["cycles"] for row in data["operations"]]
    assert cycles == sorted(cycles, reverse=True)
    data = run_json(capsys, "operations", str(tiny_dir), "--layer", "poplibs")
    assert data["available"] is False and "PopLibs" in data["reason"]
    assert main(["operations", str(tiny_dir), "--layer", "nope"]) == 2
    assert "nope" in capsys.readouterr().err


def test_command_edge_cases(capsys, tiny_dir):
    with pytest.raises(SystemExit) as exited:
        main(["operations", str(tiny_dir), "--top", "-3"])
    assert exited.value.code == 2 and "--top" in capsys.readouterr().err.splitlines()[-1]
    assert main(["operations", str(tiny_dir), "--filter", "zzz"]) == 0
    out = capsys.readouterr().out
    assert out == "No PopART operation name contains 'zzz' (of 131 operations).\n"
    for name in ("ONNX", "onnx", "Onnx"):
        assert run_json(capsys, "operations", str(tiny_dir), "--layer", name)["layer"] == "onnx"


def test_layers_are_named_by_label_or_name_in_any_case(tiny_report):
    index = OperationIndex(tiny_report)
    index.__dict__["layers"] = ["popart", "xla_op"]  # as a report with XLA contexts would list them
    assert [index.resolve_layer(text) for text in ("xla", "XLA", "xla_op", "PopART")] == ["xla_op"] * 3 + ["popart"]
    with pytest.raises(ValueError, match="XLA \\(xla_op\\)"):
        index.resolve_layer("onnx")


@pytest.mark.parametrize("columns", ["80", "60"])
def test_table_names_break_only_after_slashes(capsys, monkeypatch, tiny_dir, columns):
    monkeypatch.setenv("COLUMNS", columns)
    args = ["operations", str(tiny_dir), "--sort", "name", "--top", "40"]
    names = [row["name"] for row in run_json(capsys, *args)["operations"]]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    width = len(next(line for line in lines if line.startswith("┃")).split("┃")[1]) - 2
    rows: list[list[str]] = []
    for line in lines:
        if line.startswith("│"):
            name, memory = line.split("│")[1:3]
            if memory.strip():
                rows.append([])
            rows[-1].append(name.strip())
    assert ["".join(parts) for parts in rows] == names
    assert any(len(parts) > 1 for parts in rows)
    # a line breaks after a '/', unless one part of the name is wider than the column
    assert all(part.endswith("/") or len(part) == width for parts in rows for part in parts[:-1])
    folded = [parts for parts in rows if any(not part.endswith("/") for part in parts[:-1])]
    assert all(max(len(piece) for piece in "".join(parts).split("/")) > width for parts in folded)


async def open_operations(pilot) -> OperationsScreen:
    """The Operations screen by operation (the tiny report's 131 operations open by model layer)."""
    screen = await open_screen(pilot, "o", OperationsScreen)
    await wait_for(pilot, lambda: screen.nav.outline is not None)
    assert screen.nav.group == "layer"
    await pilot.press("g")
    await wait_for(pilot, lambda: screen.nav.view is not None)
    await pilot.pause()
    return screen


async def test_layer_sort_and_filter_keys(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_operations(pilot)
        assert screen.nav.layer_name == "popart" and len(screen.nav.shown) == len(screen.nav.view.rows)
        await pilot.press("L")
        await wait_for(pilot, lambda: screen.nav.layer_name == "poplibs")
        assert screen.nav.view.reason and screen.nav.shown == []
        await pilot.press("L")
        await wait_for(pilot, lambda: screen.nav.layer_name == "poptorch")
        assert screen.nav.shown
        await pilot.press("S")
        assert screen.nav.sort == "code"
        codes = [r.code_bytes for r in screen.nav.shown]
        assert codes == sorted(codes, reverse=True)
        await pilot.press("slash", *"softmax", "enter")
        await pilot.pause()
        assert screen.nav.shown and all("softmax" in r.name.lower() for r in screen.nav.shown)
        table = screen.export_table()
        assert [row[0] for row in table.rows] == [r.name for r in screen.nav.shown]
        await pilot.press("escape")
        await pilot.pause()
        assert screen.nav.filter_text == "" and len(screen.nav.shown) == len(screen.nav.view.rows)


async def refit(pilot, screen: OperationsScreen, width: int, height: int) -> None:
    """Resize the terminal to WIDTH x HEIGHT and wait for the table to show its rows in its new width."""
    await resize(pilot, width, height)  # laid out: the table has its new width, and has asked to refit
    table = screen.table
    await wait_for(pilot, lambda: table.shown_width == table.size.width)
    await pilot.pause()


async def test_names_first_then_the_figures_that_fit(make_app):
    """Issue 24: at 80 columns the names were cut with room to spare, at 160 they were still 27 cells."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_operations(pilot)
        for width, height in ((80, 24), (160, 48)):
            await refit(pilot, screen, width, height)
            table = screen.table
            keys = table.shown_columns
            longest = max(len(row.name) for row in screen.nav.shown)
            assert table.fit.name_width == longest, width  # every name whole
            assert {"memory bytes", "cycles"} <= set(keys)
            assert table.line_width <= table.scrollable_content_region.width
            if width == 160:
                assert {"first step", "programs"} <= set(keys)


async def test_the_table_refits_when_its_own_width_changes(make_app):
    """The first showing at 80 columns once kept the columns of the pane beside the details (3/5 of the
    width) after the pane moved under them: the table refits on its own width, not the screen's."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_operations(pilot)
        table = screen.table

        def shown() -> list[str]:
            return table.shown_columns

        wide = shown()
        table.styles.width = 40
        await wait_for(pilot, lambda: len(shown()) < len(wide))
        assert table.line_width <= table.scrollable_content_region.width < 40
        table.styles.width = "1fr"
        await wait_for(pilot, lambda: shown() == wide)


async def test_T_steps_through_the_operations_steps(make_app):
    from pvtui.screens.trace import TraceScreen

    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_operations(pilot)
        position = next(i for i, row in enumerate(screen.nav.shown) if row.steps > 2)
        screen.table.move_cursor(row=position)
        row = screen.nav.selected_row()
        steps = screen.nav.index.execution_steps(row).tolist()
        assert len(steps) == row.steps and steps[0] == row.first_step
        await pilot.press("T")
        trace = pilot.app.screen
        assert isinstance(trace, TraceScreen)
        await wait_for(pilot, lambda: trace.nav.selected_step == steps[0])
        await pilot.press("T")
        await wait_for(pilot, lambda: trace.nav.selected_step == steps[1])
        assert trace.nav.selected_step == steps[1]
        await pilot.press("o")
        await pilot.pause()
        await pilot.press("T")  # the same operation: its next step
        await wait_for(pilot, lambda: trace.nav.selected_step == steps[2])
        assert trace.nav.selected_step == steps[2] and pilot.app.screen is trace


async def test_T_shows_on_a_row_whose_programs_ran_and_only_there(make_app):
    from pvtui.widgets.key_bar import KeyBar

    async with make_app().run_test(size=(160, 48)) as pilot:
        screen = await open_operations(pilot)
        bar = screen.query_one(KeyBar)

        async def keys_at(row: int) -> set[str]:
            screen.table.move_cursor(row=row)
            await pilot.pause()
            await pilot.pause()  # the bar repaints after the bindings change
            return {binding.id for _start, _end, binding, _enabled in bar.spans}

        idle = next(i for i, row in enumerate(screen.nav.shown) if row.steps == 0)
        ran = next(i for i, row in enumerate(screen.nav.shown) if row.steps)
        assert "operations.trace" not in await keys_at(idle) and screen.check_action("show_step", ()) is False
        assert "operations.trace" in await keys_at(ran)
        assert "operations.trace" not in await keys_at(idle)


async def test_jump_to_programs_and_trace(make_app):
    from pvtui.screens.programs import ProgramsScreen
    from pvtui.screens.trace import TraceScreen

    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_operations(pilot)
        await pilot.press("down", "down")
        row = screen.nav.selected_row()
        assert row is screen.nav.shown[2]
        await pilot.press("P")
        await pilot.pause()
        programs = pilot.app.screen
        assert isinstance(programs, ProgramsScreen)
        assert programs.selected_program() == top_program(programs.report, row)
        await pilot.press("o")
        await pilot.pause()
        assert pilot.app.screen is screen and screen.nav.selected_row() is row
        await pilot.press("T")
        trace = pilot.app.screen
        assert isinstance(trace, TraceScreen)
        await wait_for(pilot, lambda: trace.nav.selected_step == row.first_step)
        assert trace.nav.selected_step == row.first_step


async def test_without_operations_model_layers_come_from_program_names(make_app, tmp_path):
    from pvtui.synth import write_report

    out = tmp_path / "nodebug"
    write_report(out, scale="tiny", seed=0)
    (out / "debug.cbor").unlink()
    async with make_app(out).run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, "o", OperationsScreen)
        await wait_for(pilot, lambda: screen.nav.outline is not None)
        assert screen.nav.group == "layer" and screen.nav.operations_reason is not None
        header = str(screen.query_one("#operations-header").render())
        assert "programs' names" in header and "debug.cbor" in header
        tree = screen.nav.outline.tree
        assert tree.by_name[tree.program_node >= 0].sum() > 0
        shown = {binding.binding.key for binding in screen.active_bindings.values()}
        assert not shown & {"g", "L"}  # by operation is not to be had: the key bar offers no dead key
        assert {"S", "slash", "P", "T"} <= shown
        await pilot.press("g", "L")  # harmless
        assert screen.nav.group == "layer"


def _has_read(pilot, rows: str) -> bool:
    """The screen in front is Operations, and its navigator holds ROWS ("outline" or "view")."""
    return getattr(getattr(pilot.app.screen, "nav", None), rows, None) is not None


async def _open_operations_sorted(pilot):
    await wait_until_loaded(pilot)
    await pilot.press("o")
    await wait_for(pilot, lambda: _has_read(pilot, "outline"))
    await pilot.press("g")
    await wait_for(pilot, lambda: _has_read(pilot, "view"))
    await pilot.press("S", "S", "S")  # by cycles
    await pilot.pause()


def test_snapshot_operations_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_open_operations_sorted)


async def _open_model_layers(pilot):
    await wait_until_loaded(pilot)
    await pilot.press("o")
    await wait_for(pilot, lambda: _has_read(pilot, "outline"))
    await pilot.press("right", "right", "right", "down")  # layer1 open, its first part open, the cursor in it
    await pilot.pause()


def test_snapshot_model_layers_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_open_model_layers)


async def test_details_give_the_first_step_not_as_a_share_of_the_steps(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_operations(pilot)
        row = next(r for r in screen.nav.shown if r.steps > 1 and r.first_step >= r.steps)
        details = operation_details(screen.report, row, screen.nav.layer_name, screen.bytes).plain
        assert f"{row.first_step:,} of {row.steps:,}" not in details
        assert f"First step    {row.first_step:,}, the first of its {row.steps:,}" in details


async def test_every_layer_and_sort_fits_the_width_beside_the_scrollbar(make_app):
    from pvtui.model.operations import SORT_KEYS

    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_operations(pilot)
        for width in (80, 70, 60):  # every layer and sort, then back to the first: the same rows each width
            await refit(pilot, screen, width, 24)
            for _layer in screen.nav.index.layers:
                for _sort in SORT_KEYS:
                    table = screen.table
                    if screen.nav.shown:
                        used = table.line_width
                        assert used <= table.scrollable_content_region.width, (width, screen.nav.layer_name,
                                                                               screen.nav.sort)
                        assert SORT_COLUMN[screen.nav.sort] in table.shown_columns
                    await pilot.press("S")
                    await pilot.pause()
                layer = screen.nav.layer_name
                await pilot.press("L")
                await wait_for(pilot, lambda: screen.nav.layer_name != layer)
