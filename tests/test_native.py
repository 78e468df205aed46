"""The native reader of profile.pop: the figures of the synthetic profile.pop against the generator's truth
with no libpva importable, tables whose columns differ from the record, files that are not a whole
profile.pop, and the choice of reader."""

from __future__ import annotations

import io
import json
import sqlite3
import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import report_without_bundle

from pvtui.cli import main
from pvtui.model.report import Report
from pvtui.sources.discovery import discover
from pvtui.sources import native_steps, native_tables
from pvtui.sources.ingest import load_report
from pvtui.sources.sqlite import pages
from pvtui.synth.memory import CATEGORIES

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def truth():
    from pvtui.synth import generate

    return generate("tiny", seed=0)


def open_natively(folder: Path, cache: Path, reader: str = "auto") -> Report:
    return load_report(discover(folder)[0], cache=cache, reader=reader)


@pytest.fixture
def native(tiny_dir, tmp_path, no_libpva) -> Report:
    return open_natively(report_without_bundle(tiny_dir, tmp_path / "report"), tmp_path / "cache")


# --- the figures, against the truth --------------------------------------------------------


def test_without_libpva_auto_reads_profile_pop_natively(native):
    assert native.readers == dict.fromkeys(("memory", "programs", "lowered", "execution"), "native")
    assert {"memory", "programs", "lowered", "execution", "archive", "debug"} <= native.parts
    assert not {"liveness", "bsp", "operations"} & native.parts
    assert "libpva" in native.missing("liveness") and "native reader" in native.missing("liveness")


def test_tile_memory_is_memory_by_tile_and_the_categories_vars_info(native, truth):
    m = truth.memory
    np.testing.assert_array_equal(native.memory.including_gaps, m.including_gaps)
    assert native.memory.excluding_gaps is None and native.memory.always_live is None
    tpi = truth.scale.tiles_per_ipu
    np.testing.assert_array_equal(native.memory.ipu, np.arange(truth.num_tiles) // tpi)
    assert native.target.num_tiles == truth.num_tiles and native.target.num_ipus == truth.scale.ipus
    assert native.target.tiles_per_ipu == tpi and native.target.bytes_per_tile is None
    by_category = dict(zip(native.memory.categories, np.asarray(native.memory.by_category).T))
    for c, name in enumerate(CATEGORIES):
        if name != "variable":  # code and data: a piece a program, vertex type or tile, summed
            np.testing.assert_array_equal(by_category[name], m.categories[:, c], err_msg=name)
    low = truth.lowered
    pieces = np.bincount(low.piece_tile, weights=low.piece_bytes, minlength=truth.num_tiles)
    system = np.sum([m.category(name) for name in CATEGORIES[CATEGORIES.index("variable") + 1:]], axis=0)
    np.testing.assert_array_equal(by_category["variable"], pieces - system)  # every piece, live at once or not
    assert any("pieces live at different times share memory" in note for note in native.notes)


def test_programs_and_compute_sets_are_named_as_written(native, truth):
    g = truth.graph
    programs = native.programs
    assert list(programs.names) == g.program_name and not programs.has_tree
    assert programs.code_bytes is None and len(programs.roots) == g.num_programs
    assert list(programs.compute_set_names) == g.compute_set_name
    stepped = np.unique(truth.execution.program)
    types = [programs.type_name(p) for p in stepped.tolist()]
    assert types == [g.program_type_names[g.program_type[p]] for p in stepped.tolist()]
    np.testing.assert_array_equal(np.asarray(programs.compute_set)[stepped], g.program_compute_set[stepped])


def test_steps_have_the_cycles_start_end_and_active_tiles_written(native, truth):
    e, g = truth.execution, truth.graph
    ex = native.execution
    np.testing.assert_array_equal(ex.program, e.program)
    np.testing.assert_array_equal(ex.cycles, e.cycles)
    np.testing.assert_array_equal(ex.cycles_from, e.cycles_from)
    np.testing.assert_array_equal(ex.cycles_to, e.cycles_to)
    assert ex.total_cycles == e.total_cycles and ex.num_runs == 1
    assert ex.tile_balance is None and ex.data_in is None
    tpi = truth.scale.tiles_per_ipu
    lo, hi = g.program_lo[e.program][:, None], g.program_hi[e.program][:, None]
    base = np.arange(truth.scale.ipus) * tpi
    np.testing.assert_array_equal(ex.active_tiles, np.clip(np.minimum(hi, base + tpi) - np.maximum(lo, base), 0, None))


def test_variable_pieces_have_their_names_and_tiles(native, truth):
    lowered, low = native.lowered, truth.lowered
    assert not lowered.has_liveness
    for name in ("embeddings/word/weight", low.class_name[0], "stack"):
        expected = low.bytes_by_tile(name, truth.num_tiles)
        np.testing.assert_array_equal(lowered.bytes_by_tile(lowered.name_id(name)), expected, err_msg=name)
    pieces = lowered.tile_variables(3)
    assert [p.bytes for p in pieces] == sorted((p.bytes for p in pieces), reverse=True)
    assert all(p.always_live is None and p.intervals is None for p in pieces)


def test_the_commands_show_what_profile_pop_holds(tiny_dir, tmp_path, truth, capsys, monkeypatch, no_libpva):
    folder = report_without_bundle(tiny_dir, tmp_path / "report")
    monkeypatch.setenv("PVTUI_CACHE_DIR", str(tmp_path / "cache"))

    def run(*args: str) -> dict:
        assert main([*args, str(folder), "--json"]) == 0
        out = capsys.readouterr()
        assert "Traceback" not in out.err
        return json.loads(out.out)

    summary = run("summary")
    assert summary["readers"]["memory"] == "native" and summary["file_states"]["profile.pop"] == "read"
    assert summary["memory"]["total_including_gaps"] == int(truth.memory.including_gaps.sum())
    assert summary["memory"]["total_excluding_gaps"] is None
    assert summary["execution"]["report_total_cycles"] == truth.execution.total_cycles
    assert summary["execution"]["device_cycles"] is None  # one run of all steps: no device time
    tile = run("memory", "--tile", "5")
    assert tile["including_gaps"] == int(truth.memory.including_gaps[5]) and tile["excluding_gaps"] is None
    assert tile["categories"]["internalExchangeCode"] == int(truth.memory.category("internalExchangeCode")[5])
    assert "variable_liveness" in tile["missing"] and all("always_live" not in v for v in tile["variables"])
    stats = run("trace", "--stats")
    by_ipu = [ipu["cycles"] for run_ in stats["runs"] for ipu in run_["ipus"]]
    assert by_ipu == truth.execution.cycles.sum(axis=0).tolist()


def test_the_synthetic_profile_pop_has_the_records_tables_and_is_deterministic(tiny_dir, tmp_path, truth):
    from pvtui.sources.pop_schema import KNOWN
    from pvtui.synth.profile_pop import write_profile_pop

    db = sqlite3.connect(tiny_dir / "profile.pop")
    for table, known in KNOWN.items():
        columns = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        assert set(known.evidence) <= columns, table
    assert db.execute("SELECT count(*) FROM memory_by_tile").fetchone()[0] == truth.num_tiles
    db.close()
    write_profile_pop(truth, tmp_path / "again.pop")
    assert (tmp_path / "again.pop").read_bytes() == (tiny_dir / "profile.pop").read_bytes()


# --- tables that differ from the record ---------------------------------------------------------


def variant(tiny_dir: Path, where: Path, *statements: str) -> Path:
    """The tiny report without its bundle, its profile.pop changed by STATEMENTS."""
    folder = report_without_bundle(tiny_dir, where)
    db = sqlite3.connect(folder / "profile.pop")
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.execute("VACUUM")
    db.close()
    return folder


def test_without_an_ipu_column_a_steps_rows_are_its_ipus_in_order(tiny_dir, tmp_path, truth, no_libpva):
    folder = variant(tiny_dir, tmp_path / "r", "ALTER TABLE steps_by_ipu DROP COLUMN ipu")
    report = open_natively(folder, tmp_path / "cache")
    np.testing.assert_array_equal(report.execution.cycles, truth.execution.cycles)
    assert any("steps_by_ipu has no column for the IPU" in note for note in report.notes)


@pytest.mark.parametrize("order", ["", "DESC"])
def test_step_ids_with_gaps_in_any_row_order_read_as_ids_that_run_on(tiny_dir, tmp_path, truth, order, no_libpva):
    """Ids that run on from 1 are read without an array of them; others (here every third, the rows
    backwards or not) by a search: the same steps either way."""
    folder = variant(
        tiny_dir, tmp_path / "r",
        f"CREATE TABLE s2 AS SELECT id * 3 + 5 AS id, type, program, compute_set FROM steps ORDER BY id {order}",
        "DROP TABLE steps", "ALTER TABLE s2 RENAME TO steps",
        "UPDATE steps_by_ipu SET step_id = step_id * 3 + 5",
    )
    report = open_natively(folder, tmp_path / "cache")
    for column in ("cycles", "cycles_from", "cycles_to"):
        np.testing.assert_array_equal(getattr(report.execution, column), getattr(truth.execution, column))
    np.testing.assert_array_equal(report.execution.program, truth.execution.program)


@pytest.mark.parametrize("order", ["step_id, ipu", "(step_id * 7919) % 1009, ipu DESC"])
def test_a_step_and_ipu_without_a_row_did_not_run_there_whatever_the_rows_order(tiny_dir, tmp_path, truth, order,
                                                                                monkeypatch, no_libpva):
    """Rows in step order or not, some (step, IPU) with no row (the last step's among them), in batches of a leaf
    page and columns filled a few cells at a time: every cell without a row reads as not run."""
    monkeypatch.setattr(pages, "PAGES_PER_READ", 1)
    monkeypatch.setattr(native_tables, "BYTES_PER_BATCH", 64 * 50)
    monkeypatch.setattr(native_steps, "FILL_SLICE", 37)
    gone = "(step_id % 5 = 2 AND ipu = 1) OR step_id % 23 = 0 OR step_id = (SELECT max(id) FROM steps)"
    folder = variant(tiny_dir, tmp_path / "r",
                     f"CREATE TABLE b2 AS SELECT * FROM steps_by_ipu WHERE NOT ({gone}) ORDER BY {order}",
                     "DROP TABLE steps_by_ipu", "ALTER TABLE b2 RENAME TO steps_by_ipu")
    db = sqlite3.connect(folder / "profile.pop")
    ids = np.array([row[0] for row in db.execute("SELECT id FROM steps ORDER BY id")])
    every_pair = ("SELECT steps.id AS step_id, ipus.ipu AS ipu FROM steps,"
                  " (SELECT DISTINCT ipu FROM steps_by_ipu) AS ipus")
    missing = {(int(np.searchsorted(ids, step)), ipu)
               for step, ipu in db.execute(f"SELECT * FROM ({every_pair}) WHERE {gone}")}
    db.close()
    ex, e = open_natively(folder, tmp_path / "cache").execution, truth.execution
    assert missing and len(missing) < ex.cycles.size
    for column, none in (("cycles_from", -1), ("cycles_to", -1), ("cycles", 0)):
        want = getattr(e, column).copy()
        for cell in missing:
            want[cell] = none
        np.testing.assert_array_equal(getattr(ex, column), want, err_msg=column)


def test_each_program_of_a_step_type_of_its_own_has_its_type(tiny_dir, tmp_path, truth, no_libpva):
    """Program types are found by name, not searched for once a program (200,000 of them: bench/)."""
    folder = variant(tiny_dir, tmp_path / "r", "UPDATE steps SET type = 'type of ' || program")
    programs = open_natively(folder, tmp_path / "cache").programs
    with sqlite3.connect(folder / "profile.pop") as db:
        ids = [row[0] for row in db.execute("SELECT id FROM programs ORDER BY id")]
    stepped = np.unique(truth.execution.program).tolist()
    assert len(stepped) > 100
    assert [programs.type_name(p) for p in stepped] == [f"type of {ids[p]}" for p in stepped]


def test_a_tile_beyond_those_the_file_names_is_left_out_and_said(tiny_dir, tmp_path, truth, no_libpva):
    """One row for tile 4,194,303 sized every tile's array to it (with the categories, 570 MB here)."""
    import tracemalloc

    folder = variant(tiny_dir, tmp_path / "r", "INSERT INTO memory_by_tile (tile, total) VALUES (4194303, 5)",
                     "UPDATE vars_info SET tile = 4194303 WHERE rowid = 7")
    tracemalloc.start()
    try:
        report = open_natively(folder, tmp_path / "cache")
        assert tracemalloc.get_traced_memory()[1] < 64 << 20
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(report.memory.including_gaps, truth.memory.including_gaps)
    said = [note for note in report.notes if "4,194,303" in note]
    assert said == ["[memory] profile.pop: 1 row of memory_by_tile on tiles 4,194,303, beyond the 128 tiles its"
                    " other rows name: left out"]
    assert any("1 rows of vars_info are on no tile" in note for note in report.notes)


def test_an_ipu_beyond_those_the_file_names_is_left_out_and_said(tiny_dir, tmp_path, truth, no_libpva):
    """One row on IPU 4,095 made the steps' columns 4,096 IPUs wide (547 MB of cache on a 0.7 MB file)."""
    folder = variant(tiny_dir, tmp_path / "r",
                     "INSERT INTO steps_by_ipu (step_id, ipu, cycles, active_tiles, cycles_base,"
                     " active_cycles_from_min, active_cycles_to_max)"
                     " SELECT max(step_id), 4095, 1, 1, 0, 0, 1 FROM steps_by_ipu")
    report = open_natively(folder, tmp_path / "cache")
    np.testing.assert_array_equal(report.execution.cycles, truth.execution.cycles)
    assert sum(p.stat().st_size for p in (tmp_path / "cache").rglob("*") if p.is_file()) < 8 << 20
    said = [note for note in report.notes if "4,095" in note]
    assert said == ["[execution] profile.pop: 1 row of steps_by_ipu on IPUs 4,095, beyond the 2 IPUs its other"
                    " rows name: left out"]


EXTREMES = (2**63 - 1, -(2**63) + 1)  # -2**63 itself reads as NULL


@pytest.mark.parametrize("command", [["summary"], ["memory", "--tile", "3"], ["memory", "--json"],
                                     ["trace", "--stats"], ["programs"], ["insights"]])
def test_numbers_of_63_bits_give_no_warning(tiny_dir, tmp_path, command, capsys, monkeypatch, no_libpva):
    big, small = EXTREMES
    folder = variant(
        tiny_dir, tmp_path / "r",
        f"UPDATE memory_by_tile SET total = {big} WHERE tile = 3",
        f"UPDATE memory_by_tile SET total = {small} WHERE tile = 4",
        f"UPDATE vars_info SET size_bytes = {big} WHERE rowid = 5",
        f"UPDATE vars_info SET size_bytes = {small} WHERE rowid = 6",
        f"UPDATE steps_by_ipu SET cycles = {big}, cycles_base = {big}, active_cycles_to_max = {big} WHERE rowid = 3",
        f"UPDATE steps_by_ipu SET cycles = {small}, cycles_base = {small}, active_cycles_from_min = {small}"
        " WHERE rowid = 4",
        f"UPDATE steps_by_ipu SET active_tiles = {big} WHERE rowid = 5",
        f"UPDATE execution_cycle_totals SET total = {big}",
    )
    monkeypatch.setenv("PVTUI_CACHE_DIR", str(tmp_path / "cache"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main([command[0], str(folder), *command[1:]]) == 0
    err = capsys.readouterr().err
    assert all(line.startswith("warning: profile.pop") for line in err.splitlines()), err
    assert "2 rows of vars_info have a size_bytes below 0 or of 4 GiB or more" in err


def test_without_a_tile_column_memory_by_tiles_rows_are_the_tiles(tiny_dir, tmp_path, truth, no_libpva):
    folder = variant(tiny_dir, tmp_path / "r", "ALTER TABLE memory_by_tile DROP COLUMN tile")
    report = open_natively(folder, tmp_path / "cache")
    np.testing.assert_array_equal(report.memory.including_gaps, truth.memory.including_gaps)
    assert any("memory_by_tile has no column for the tile" in note for note in report.notes)


def test_extra_columns_and_other_column_order_change_nothing(tiny_dir, tmp_path, truth, no_libpva):
    folder = variant(
        tiny_dir, tmp_path / "r",
        "ALTER TABLE steps_by_ipu ADD COLUMN comment TEXT DEFAULT 'a long text before nothing'",
        "ALTER TABLE vars_info ADD COLUMN alignment INTEGER",
        "CREATE TABLE m2 (note TEXT, TOTAL INTEGER, Tile INTEGER)",
        "INSERT INTO m2 SELECT 'tile ' || tile, total, tile FROM memory_by_tile ORDER BY tile DESC",
        "DROP TABLE memory_by_tile", "ALTER TABLE m2 RENAME TO memory_by_tile",
    )
    report = open_natively(folder, tmp_path / "cache")
    np.testing.assert_array_equal(report.memory.including_gaps, truth.memory.including_gaps)
    np.testing.assert_array_equal(report.execution.cycles_to, truth.execution.cycles_to)
    assert report.lowered is not None


@pytest.mark.parametrize("statement, part, said", [
    ("ALTER TABLE steps_by_ipu RENAME COLUMN cycles TO cycle_count", "execution",
     "profile.pop: steps_by_ipu not read: it has no column cycles"),
    ("ALTER TABLE memory_by_tile DROP COLUMN total", "memory",
     "profile.pop: memory_by_tile not read: it has no column total"),
    ("ALTER TABLE programs RENAME TO programmes", "programs", "has no programs table the native reader can use"),
])
def test_a_table_without_its_columns_is_named_in_one_line(tiny_dir, tmp_path, statement, part, said, no_libpva):
    report = open_natively(variant(tiny_dir, tmp_path / "r", statement), tmp_path / "cache")
    assert part not in report.parts
    assert said in report.missing(part) and "\n" not in report.missing(part)
    assert report.archive is not None and report.debug is not None  # the rest opens


@pytest.mark.parametrize("statements, said", [
    (("CREATE TABLE m2 (tile INTEGER, total TEXT)", "INSERT INTO m2 SELECT tile, 'about ' || total FROM memory_by_tile",
      "DROP TABLE memory_by_tile", "ALTER TABLE m2 RENAME TO memory_by_tile"),
     "its column total is declared TEXT, not whole numbers"),
    (("UPDATE memory_by_tile SET total = total + 0.5 WHERE tile = 7",),
     "memory_by_tile.total holds values that are not whole numbers"),
    (("UPDATE memory_by_tile SET total = 'many' WHERE tile = 9",),
     "memory_by_tile.total holds values that are not whole numbers"),
])
def test_values_of_another_type_are_named_never_read_as_numbers(tiny_dir, tmp_path, statements, said, no_libpva):
    report = open_natively(variant(tiny_dir, tmp_path / "r", *statements), tmp_path / "cache")
    assert report.memory is None and said in report.missing("memory")
    assert report.execution is not None  # its own tables are read


def test_a_vars_info_of_other_values_leaves_the_tiles_totals_without_categories(tiny_dir, tmp_path, truth,
                                                                                 no_libpva):
    """vars_info is read after the tiles' totals are shown: where it cannot be read, the totals stay, and one
    line says what is missing and why (never "being read")."""
    folder = variant(tiny_dir, tmp_path / "r", "UPDATE vars_info SET size_bytes = 'big' WHERE rowid = 5")
    report = open_natively(folder, tmp_path / "cache")
    np.testing.assert_array_equal(report.memory.including_gaps, truth.memory.including_gaps)
    assert report.memory.categories == [] and not report.categories_being_read
    said = [line for line in report.problems if "vars_info" in line]
    assert len(said) == 1 and "vars_info.size_bytes holds values that are not whole numbers" in said[0]
    assert report.lowered is None and report.execution is not None


def test_empty_tables_say_so(tiny_dir, tmp_path, no_libpva):
    folder = variant(tiny_dir, tmp_path / "r", "DELETE FROM steps", "DELETE FROM steps_by_ipu", "DELETE FROM vars_info")
    report = open_natively(folder, tmp_path / "cache")
    assert report.execution is None and "steps tables are empty" in report.missing("execution")
    assert report.memory is not None and report.memory.categories == []
    assert len(report.lowered) == 0


def test_a_database_that_is_not_a_profile_pop_is_said_not_read(tiny_dir, tmp_path, no_libpva):
    folder = report_without_bundle(tiny_dir, tmp_path / "r")
    (folder / "profile.pop").unlink()
    db = sqlite3.connect(folder / "profile.pop")
    db.execute("CREATE TABLE songs (title TEXT, seconds INTEGER)")
    db.commit()
    db.close()
    report = open_natively(folder, tmp_path / "cache")
    assert report.memory is None and report.archive is not None
    assert "none of its 1 tables is one the native reader knows" in report.missing("memory")


@pytest.mark.parametrize("keep", [0.5, 0.9])
def test_a_truncated_profile_pop_opens_with_what_it_still_holds(tiny_dir, tmp_path, keep, capsys, monkeypatch,
                                                                no_libpva):
    folder = report_without_bundle(tiny_dir, tmp_path / "r")
    data = (folder / "profile.pop").read_bytes()
    (folder / "profile.pop").write_bytes(data[: int(len(data) * keep)])
    monkeypatch.setenv("PVTUI_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["summary", str(folder)]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "profile.pop" in err
    assert all(line.startswith("warning: ") for line in err.splitlines())


# --- which reader ------------------------------------------------------------------------------


def test_under_auto_the_bundle_made_from_this_profile_pop_stands_in(tiny_dir, tmp_path, no_libpva):
    report = load_report(discover(tiny_dir)[0], cache=tmp_path / "cache")
    assert report.path == tiny_dir / "profile.pvtui" and "liveness" in report.parts


def test_reader_native_reads_profile_pop_even_beside_a_bundle(tiny_dir, tmp_path):
    report = load_report(discover(tiny_dir)[0], cache=tmp_path / "cache", reader="native")
    assert report.path != tiny_dir / "profile.pvtui" and set(report.readers.values()) == {"native"}


def test_reader_libpva_without_libpva_says_what_would_read_it(tiny_dir, tmp_path, no_libpva):
    report = load_report(discover(tiny_dir)[0], cache=tmp_path / "cache", reader="libpva")
    assert report.memory is None and report.archive is not None
    assert "--reader libpva needs libpva" in report.missing("memory") and "--reader native" in report.missing("memory")


def test_where_libpva_imports_auto_reads_through_it(tiny_dir, tmp_path, fake_libpva, truth):
    folder = report_without_bundle(tiny_dir, tmp_path / "r")
    report = open_natively(folder, tmp_path / "cache")
    assert set(report.readers.values()) == {"libpva"} and {"liveness", "operations"} <= report.parts
    import pva

    assert pva.opened == [str(folder / "profile.pop")]
    np.testing.assert_array_equal(report.memory.excluding_gaps, truth.memory.excluding_gaps)
    native = open_natively(folder, tmp_path / "cache", reader="native")  # its own cache entry
    assert native.path != report.path and set(native.readers.values()) == {"native"}


@pytest.mark.parametrize("command", ["summary", "memory", "liveness", "programs", "trace", "insights", "operations",
                                     "hotspots", "split", "export", "open", "demo", "serve", "compare"])
def test_every_command_that_opens_a_report_takes_reader(command):
    from pvtui.cli import parser

    args = {"split": ["R", "--ipus", "2"], "export": ["R", "OUT"], "compare": ["A", "B"], "demo": [],
            "serve": ["R"]}.get(command, ["R"])
    parsed = parser(command).parse_args([command, *args, "--reader", "native"])
    assert parsed.reader == "native"


def test_check_lists_every_table_with_its_columns_and_rows(tiny_dir, capsys):
    assert main(["check", str(tiny_dir), "--json"]) == 0
    facts = json.loads(capsys.readouterr().out)["files"]["profile.pop"]["facts"]
    assert facts["tables"]["steps_by_ipu"]["columns"]["ipu"] == "INTEGER"
    assert facts["tables"]["memory_by_tile"]["rows"] == 128
    assert facts["known_tables"] == "all 9 tables the public record shows"
    assert main(["check", str(tiny_dir)]) == 0
    assert "all 9 tables the public record shows" in capsys.readouterr().out


# --- the screens -------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_the_memory_and_trace_screens_show_what_profile_pop_holds(tiny_dir, tmp_path, truth, no_libpva):
    from conftest import open_screen
    from rich.console import Console

    from pvtui.app import PvtuiApp
    from pvtui.screens.memory import MemoryScreen
    from pvtui.screens.summary import SummaryScreen
    from pvtui.screens.trace import TraceScreen
    from pvtui.widgets.heatmap import TileHeatmap

    folder = report_without_bundle(tiny_dir, tmp_path / "report")
    app = PvtuiApp(discover(folder), path=folder, watch=False, cache=tmp_path / "cache", reader="native")
    async with app.run_test(size=(80, 24)) as pilot:
        summary = await open_screen(pilot, "s", SummaryScreen)
        console = Console(width=78, record=True, file=io.StringIO())
        for widget in summary.query(".facts"):
            console.print(widget.content)
        assert "profile.pop (native reader)" in console.export_text()
        screen = await open_screen(pilot, "m", MemoryScreen)
        await pilot.press("w")
        await pilot.pause()
        worst = int(np.argmax(truth.memory.including_gaps))
        assert screen.query_one(TileHeatmap).selected == worst
        details = "\n".join(w.text.plain for w in screen.query("DetailText"))
        assert f"Tile {worst} · IPU {worst // truth.scale.tiles_per_ipu}" in details
        trace = await open_screen(pilot, "t", TraceScreen)
        await pilot.pause()
        text = str(trace.query_one("#details-text").content)
        assert "active tiles" in text and "balance, data: profile.pop read by libpva" in text
