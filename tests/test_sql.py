"""`pvtui sql`: each view's figures are the model's and the screens', over one report or several; nothing
is written through it; errors are one line; every format; hostile names; the prompt in a pty."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pvtui.model.layer_outline import layers_data
from pvtui.model.layers import build_tree, program_cycles
from pvtui.model.queries import category_totals, liveness_table, memory_table, programs_table, trace_table
from pvtui.model.step_stats import step_stats
from pvtui.safe_text import is_visible
from pvtui.sources.discovery import discover
from pvtui.sources.ingest import load_report
from pvtui.sql.catalogue import VIEWS
from pvtui.sql.engine import Engine, QueryError, statements


def exact_report(path: Path, reader: str = "auto"):
    return load_report(discover(path)[0], exact_text=True, reader=reader)


@pytest.fixture(scope="module")
def engine(tiny_dir):
    return Engine([(str(tiny_dir), exact_report(tiny_dir))])


@pytest.fixture(scope="module")
def report(engine):
    return engine.views[0].report


def rows(engine: Engine, sql: str) -> list[tuple]:
    return engine.execute(sql).rows


def pvtui(*args, stdin: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "COLUMNS": "100", **(env or {})}
    return subprocess.run([sys.executable, "-m", "pvtui.cli", "sql", *map(str, args)], capture_output=True,
                          text=True, input=stdin, env=environment, timeout=300)


def test_steps_are_the_ipu_steps_with_their_cycles(engine, report):
    per_program, unknown = program_cycles(report)
    got = dict(rows(engine, "select program, sum(cycles) from steps group by program"))
    want = {p: int(c) for p, c in enumerate(per_program.sum(axis=1)) if c}
    assert {p: c for p, c in got.items() if p is not None and c} == want
    assert got.get(None, 0) == int(unknown.sum())
    stats = step_stats(report)
    for run, figures in enumerate(trace_table(report)["runs"]):
        count, cycles = rows(engine, f"select count(*), sum(cycles) from steps where run = {run}")[0]
        assert (count, cycles) == (figures["ipu_steps"], figures["ipu_cycles"])
        by_ipu = dict(rows(engine, f"select ipu, sum(cycles) from steps where run = {run} group by ipu"))
        assert by_ipu == {ipu["ipu"]: ipu["cycles"] for ipu in stats["runs"][run]["ipus"] if ipu["steps"]}
    by_type = dict(rows(engine, "select type, sum(cycles) from steps where type is not null group by type"))
    assert by_type == trace_table(report)["ipu_cycles_by_type"]


def test_runs_are_the_trace_commands(engine, report):
    want = trace_table(report)["runs"]
    got = rows(engine, "select name, steps, ipu_steps, run_span_cycles, ipu_cycles, device_cycles from runs order by run")
    assert got == [(r["name"], r["steps"], r["ipu_steps"], r["run_span_cycles"], r["ipu_cycles"], r["device_cycles"])
                   for r in want]


def test_layers_are_the_operations_commands_layers(engine, report):
    want = layers_data(report)["groups"]
    got = rows(engine, "select name, cycles, memory, code_bytes, variable_bytes, steps, operations from layers")
    assert sorted(got) == sorted((g["name"], g["cycles"], g["memory"], g["code_bytes"], g["variable_bytes"], g["steps"],
                                  g["operations"]) for g in want)
    total = rows(engine, "select sum(cycles) from layers")[0][0]
    assert total == rows(engine, "select sum(cycles) from steps")[0][0]


def test_tiles_and_categories_are_the_memory_commands(engine, report):
    want = memory_table(report)["tiles"]
    got = rows(engine, "select tile, ipu, bytes from tiles order by bytes desc, tile")
    assert got == [(t["tile"], t["ipu"], t["bytes"]) for t in want]
    over = rows(engine, "select count(*) from tiles where over_limit")[0][0]
    assert over == int((np.asarray(report.memory.including_gaps) > report.target.bytes_per_tile).sum())
    categories = dict(rows(engine, "select category, sum(bytes) from tile_categories group by category"))
    assert categories == {k: v for k, v in category_totals(report).items() if k in categories}
    always = rows(engine, "select sum(always_live), sum(not_always_live) from tiles")[0]
    assert always == (int(np.sum(report.memory.always_live)), int(np.sum(report.memory.not_always_live)))


def test_variables_are_the_tiles_variables(engine, report):
    worst = memory_table(report, top=1)["tiles"][0]["tile"]
    got = rows(engine, "select name, bytes from variables where tile = (select tile from tiles order by bytes desc"
                       " limit 1) order by bytes desc, name")
    want = sorted(((v.name, v.bytes) for v in report.lowered.tile_variables(worst)), key=lambda nv: (-nv[1], nv[0]))
    assert got == want and got
    always = rows(engine, f"select count(*) from variables where tile = {worst} and category = 'always-live'")[0][0]
    assert always == sum(bool(v.always_live) for v in report.lowered.tile_variables(worst))


def test_programs_and_compute_sets(engine, report):
    assert dict(rows(engine, "select type, count(*) from programs group by type")) == {
        k: v for k, v in programs_table(report)["by_type"].items() if v}
    tree = build_tree(report)
    program = int(np.flatnonzero(tree.program_node >= 0)[0])
    name, layer = rows(engine, f"select name, layer from programs where id = {program}")[0]
    assert name == report.programs.names[program]
    assert layer == tree.names[int(tree.top[tree.program_node[program]])]
    assert rows(engine, "select count(*) from compute_sets")[0][0] == len(report.programs.compute_set_names)
    first = rows(engine, "select c.id, c.name, c.layer, p.layer from compute_sets c join programs p on p.id ="
                         " (select min(id) from programs where compute_set = c.id)")
    assert first and all(cs_layer == program_layer for _, _, cs_layer, program_layer in first)
    assert all(name == report.programs.compute_set_names[cs] for cs, name, _, _ in first)
    roots = rows(engine, "select id from programs where parent is null order by id")
    assert [r[0] for r in roots] == programs_table(report)["roots"]


def test_liveness_is_the_liveness_commands(engine, report):
    want = liveness_table(report)
    step, program, total = rows(engine, "select step, program, always_live + not_always_live from liveness"
                                        " order by not_always_live desc, step limit 1")[0]
    assert (step, total) == (want["peak_step"], want["peak_total_bytes"])
    assert rows(engine, "select count(*) from liveness")[0][0] == want["steps"]


def test_a_view_is_filled_only_when_a_query_names_it(tiny_dir):
    engine = Engine([(str(tiny_dir), exact_report(tiny_dir))])
    engine.execute("select count(*) from layers")
    assert engine.filled == {("main", "layers")}


def test_the_native_readers_report_answers_from_its_own_model(tiny_dir, tmp_path):
    report = load_report(discover(tiny_dir)[0], exact_text=True, reader="native", cache=tmp_path)
    engine = Engine([(str(tiny_dir), report)])
    per_program, _ = program_cycles(report)
    got = dict(rows(engine, "select program, sum(cycles) from steps where program is not null group by program"))
    assert got == {p: int(c) for p, c in enumerate(per_program.sum(axis=1)) if c}


def test_several_reports_have_a_schema_each_and_reports_holds_all(tiny_dir, other_dir, report):
    other = exact_report(other_dir)
    engine = Engine([("A", report), ("B", other)])
    assert engine.schemas == ["a", "b"]
    a, b = (rows(engine, f"select count(*) from {s}.steps")[0][0] for s in "ab")
    assert (a, b) == tuple(sum(r["ipu_steps"] for r in trace_table(r)["runs"]) for r in (report, other))
    assert dict(rows(engine, "select report, count(*) from reports.steps group by report")) == {"A": a, "B": b}
    grew = rows(engine, "select name from a.layers as old join b.layers as new using (name) where new.cycles > old.cycles")
    a_layers, b_layers = ({g["name"]: g["cycles"] for g in layers_data(r)["groups"]} for r in (report, other))
    assert sorted(n for (n,) in grew) == sorted(n for n in a_layers.keys() & b_layers.keys() if b_layers[n] > a_layers[n])
    assert rows(engine, "select count(*) from steps") == [(a + b,)]  # unqualified: every report's
    both = len(a_layers.keys() & b_layers.keys())  # a join USING a column: SQLite's authorizer sees no read of b
    assert rows(engine, "select count(*) from a.layers join b.layers using (name)") == [(both,)]


def snapshot(*folders: Path) -> dict[str, tuple[int, int]]:
    """Every file under FOLDERS: (size, mtime_ns)."""
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for folder in folders for p in Path(folder).rglob("*")
            if p.is_file()}


REFUSED = {
    "INSERT": "insert into steps values (0, 0, 0, 0, 'x', 0, 1, 1)",
    "UPDATE": "update tiles set bytes = 0",
    "DELETE": "delete from programs",
    "CREATE": "create table mine (x)",
    "CREATE TEMP": "create temp table mine as select * from layers",
    "CREATE VIEW": "create view mine as select * from layers",
    "DROP": "drop table steps",
    "ALTER": "alter table steps rename to gone",
    "ATTACH": "attach database '{out}/attached.db' as mine",
    "PRAGMA": "pragma query_only = 0",
    "PRAGMA writable_schema": "pragma writable_schema = 1",
    "VACUUM INTO": "vacuum into '{out}/copy.db'",
    "VACUUM": "vacuum",
    "VACUUM after a comment": "/* a note */ -- more\n vacuum into '{out}/copy.db'",
    "BEGIN": "begin",
    "REINDEX": "reindex",
    "ANALYZE": "analyze",
}


@pytest.mark.parametrize("kind", REFUSED)
def test_a_statement_that_would_write_is_refused_in_one_line(kind, tiny_dir, cache_root, tmp_path):
    before = snapshot(tiny_dir, cache_root)
    result = pvtui(tiny_dir, REFUSED[kind].format(out=tmp_path))
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("pvtui sql: refused: "), result.stderr
    assert result.stdout == ""
    assert list(tmp_path.iterdir()) == []  # no file attached or vacuumed into
    assert snapshot(tiny_dir, cache_root) == before


def test_queries_write_nothing_to_the_report_or_the_cache(tiny_dir, cache_root):
    pvtui(tiny_dir, "select 1")  # the bundle cached, as any command caches it
    before = snapshot(tiny_dir, cache_root)
    result = pvtui(tiny_dir, "-f", "-", stdin="select count(*) from steps; select * from layers;")
    assert result.returncode == 0, result.stderr
    assert snapshot(tiny_dir, cache_root) == before


@pytest.mark.parametrize("query, problem", [
    ("select * from stepz", "no such table: stepz; did you mean steps?"),
    ("select cycels from steps", "no such column: cycels; did you mean cycles?"),
    ("select * from layers where", "incomplete input"),
])
def test_an_error_is_one_line_naming_the_nearest_name(tiny_dir, query, problem):
    result = pvtui(tiny_dir, query)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"pvtui sql: {problem}\n"


def test_statements_split_at_semicolons_outside_quotes():
    assert list(statements("select ';' as x; select 2 ;\n select 3")) == ["select ';' as x;", "select 2 ;", "select 3"]


def test_formats(tiny_dir, report):
    query = "select name, cycles from layers order by name"
    want = sorted((g["name"], g["cycles"]) for g in layers_data(report)["groups"])
    as_json = json.loads(pvtui(tiny_dir, query, "--format", "json").stdout)
    assert [(r["name"], r["cycles"]) for r in as_json] == want
    as_csv = list(csv.reader(io.StringIO(pvtui(tiny_dir, query, "--format", "csv").stdout)))
    assert as_csv == [["name", "cycles"]] + [[n, str(c)] for n, c in want]
    md = pvtui(tiny_dir, query, "--format", "md").stdout.splitlines()
    assert md[:2] == ["| name | cycles |", "|---|---:|"] and md[2] == f"| {want[0][0]} | {want[0][1]} |"
    table = pvtui(tiny_dir, query).stdout.splitlines()  # piped: plain, one line a row, no box
    assert table[0].split() == ["name", "cycles"] and len(table) == len(want) + 1
    assert table[1].split() == [want[0][0], str(want[0][1])]


def test_csv_is_formula_safe_and_json_keeps_nulls(tiny_dir):
    out = pvtui(tiny_dir, "select '=1+1' as f, null as n", "--format", "csv").stdout
    assert out.splitlines() == ["f,n", "'=1+1,"]
    assert json.loads(pvtui(tiny_dir, "select null as n, 1.5 as x", "--format", "json").stdout) == [{"n": None, "x": 1.5}]


def test_tables_lists_every_view_and_column(tiny_dir):
    listed = json.loads(pvtui("--tables", "--format", "json").stdout)
    assert [v["view"] for v in listed] == list(VIEWS)
    assert all(c["counts"] for v in listed for c in v["columns"])
    text = pvtui("--tables").stdout
    assert all(f"{name}:" in text for name in VIEWS)


def test_hostile_names_are_shown_visible_and_exact_in_json(hostile_dir, hostile_truth):
    query = "select name from programs order by id limit 20"
    for output in ("table", "csv", "md"):
        result = pvtui(hostile_dir, query, "--format", output)
        assert result.returncode == 0, result.stderr
        assert all(is_visible(line) for line in (result.stdout + result.stderr).split("\n")), output
        assert "␛" in result.stdout, output
    names = [r["name"] for r in json.loads(pvtui(hostile_dir, query, "--format", "json").stdout)]
    assert any("\x1b" in name for name in names)
    report = load_report(discover(hostile_dir)[0], exact_text=True)
    assert names == [report.programs.names[i] for i in range(20)]


def read_until(fd: int, text: bytes, seen: bytearray, seconds: float = 60.0) -> None:
    """Read the pty into SEEN until TEXT arrives after what SEEN held (or fail after SECONDS)."""
    import select
    import time

    start, end = len(seen), time.monotonic() + seconds
    while text not in seen[start:]:
        assert time.monotonic() < end, bytes(seen[start:])[-500:]
        if select.select([fd], [], [], 0.5)[0]:
            try:
                seen += os.read(fd, 1 << 16)
            except OSError:
                break
    assert text in seen[start:], bytes(seen[start:])[-500:]


def test_the_prompt_runs_dot_commands_completes_names_and_keeps_a_private_history(tiny_dir, tmp_path):
    import pty

    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "TERM": "xterm", "COLUMNS": "100"}
    pid, fd = pty.fork()
    if pid == 0:  # the child: the pty is its terminal
        os.execve(sys.executable, [sys.executable, "-m", "pvtui.cli", "sql", str(tiny_dir)], env)
    seen = bytearray()
    read_until(fd, b"sql> ", seen)
    os.write(fd, b".tables\r")
    read_until(fd, b"tile_categories", seen)
    os.write(fd, b".schema layers\r")
    read_until(fd, b'"cycles" INTEGER', seen)
    os.write(fd, b"select count(*) from liv\t")  # Tab: `liv` completes to liveness
    read_until(fd, b"liveness", seen)
    os.write(fd, b"\r;\r")  # a statement runs once it ends with ;
    read_until(fd, b"1 row", seen)
    os.write(fd, b"select * from stepz;\r")
    read_until(fd, b"did you mean steps?", seen)
    os.write(fd, b"insert into layers values (1,2,3,4,5,6,7,8);\r")
    read_until(fd, b"refused", seen)
    os.write(fd, b".quit\r")
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0
    history = tmp_path / "state" / "pvtui" / "sql-history"
    assert history.stat().st_mode & 0o777 == 0o600
    assert "select count(*) from liveness" in history.read_text()
    assert f"{liveness_table(exact_report(tiny_dir))['steps']}".encode() in seen


def readme_examples() -> list[str]:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    section = readme.split("## In SQL", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("pvtui sql ")]


def test_the_readmes_examples_run(tiny_dir, other_dir):
    import shlex

    examples = readme_examples()
    assert len(examples) >= 4
    for example in examples:
        words = [{"REPORT": tiny_dir, "A": tiny_dir, "B": other_dir}.get(w, w) for w in shlex.split(example)[2:]]
        result = pvtui(*words)
        assert result.returncode == 0 and result.stderr == "", (example, result.stderr)
        assert len(result.stdout.splitlines()) >= 2, example  # a header and at least one row


def test_a_statement_runs_again_and_is_checked_again(engine):
    first = rows(engine, "select count(*) from programs")
    assert rows(engine, "select count(*) from programs") == first  # prepared anew: the guard sees it again
    with pytest.raises(QueryError, match="refused"):
        engine.execute("delete from programs")
    with pytest.raises(QueryError, match="refused"):
        engine.execute("delete from programs")
    assert rows(engine, "select count(*) from programs") == first


def test_ctrl_c_interrupts_a_query_that_would_run_for_ever(engine):
    import signal

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        with pytest.raises(QueryError, match="^interrupted$"):
            engine.execute("with recursive n(x) as (select 1 union all select x + 1 from n) select count(*) from n")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert rows(engine, "select count(*) from layers")[0][0] > 0  # the engine goes on


def test_a_view_the_report_cannot_fill_is_empty_and_says_what_would_fill_it(tiny_dir, tmp_path):
    import shutil

    shutil.copy(tiny_dir / "archive.a", tmp_path / "archive.a")
    result = pvtui(tmp_path, "select count(*), sum(bytes), count(always_live) from tiles; select count(*) from steps",
                   "--format", "json")
    assert result.returncode == 0
    tiles, steps = result.stdout.split("]\n[")
    report = exact_report(tmp_path)
    assert json.loads(tiles + "]") == [{"count(*)": len(report.archive.total), "sum(bytes)": int(report.archive.total.sum()),
                                        "count(always_live)": 0}]
    assert json.loads("[" + steps) == [{"count(*)": 0}]
    assert result.stderr == f"pvtui sql: steps is empty: {report.missing('execution')}\n"


def test_a_code_no_name_is_of_is_named_none_not_an_error():
    """A damaged column's codes beyond the names (or below 0) are unknown, as codes not KNOWN are."""
    from pvtui.sql.views import named

    codes = np.array([0, 1, 5, -2, 1])
    assert named(["a", "b"], codes, np.array([True, True, True, True, False])) == ["a", "b", None, None, None]
