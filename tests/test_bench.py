"""The benchmark's own logic, from made-up figures: no timing here (the benchmark is the gate)."""

from __future__ import annotations

import math
from pathlib import Path

from bench.figures import Results, Row, markdown, median, missed_sections, percentile, ratio, text_table
from bench.reports import make_wide_programs


def _results() -> Results:
    results = Results(machine={"cpu": "test cpu", "cpus": "2"})
    results.add(Row("report", "IPUs x tiles", "4 x 1,472"))
    results.add(Row("archive.a", "ingest vs `size -A -d`", "0.90 s", "0.40 s", ratio(0.9, 0.4), "<= 3.0x", met=True))
    results.add(Row("debug.cbor", "ingest vs cbor2.load: time", "6.00 s", "3.00 s", ratio(6, 3), "<= 1.2x",
                    met=False, note="decoding | encoding dominate"))
    results.add(Row("warm open", "summary", "0.50 s", "0.40 s", ratio(0.5, 0.4), "<= 1.5x", met=True))
    return results


def test_the_last_line_counts_only_rows_with_a_target():
    results = _results()
    assert results.score() == (2, 3)
    assert results.summary_line() == "targets met: 2/3"


def test_the_text_table_lines_up_and_marks_misses():
    table = text_table(_results().rows).splitlines()
    assert table[0].split() == ["measure", "pvtui", "baseline", "ratio", "target", "met"]
    assert set(table[1].replace(" ", "")) == {"-"}
    assert len(table) == 2 + 4
    miss = next(line for line in table if "cbor2.load" in line)
    assert miss.endswith("NO") and "2.00x" in miss
    assert next(line for line in table if "IPUs" in line).endswith("4 x 1,472")


def test_the_markdown_has_the_machine_the_table_notes_and_the_score():
    text = markdown(_results(), "pvtui benchmarks (large report)", "- how it was measured")
    assert text.startswith("# pvtui benchmarks (large report)")
    assert "- cpu: test cpu" in text
    assert "| debug.cbor: ingest vs cbor2.load: time | 6.00 s | 3.00 s | 2.00x | <= 1.2x | NO |" in text
    assert "decoding \\| encoding" not in text and "decoding | encoding dominate" in text  # notes are prose
    assert "- how it was measured" in text
    assert text.rstrip().endswith("targets met: 2/3")


def test_each_missed_section_says_why_from_missed_md():
    why = missed_sections("### debug.cbor\nThe decoder dominates.\n\n### warm open\nImports.\n")
    assert why == {"debug.cbor": "The decoder dominates.", "warm open": "Imports."}
    text = markdown(_results(), "t", "- method", why)
    missed = text.split("## Missed targets", 1)[1].split("## Method", 1)[0]
    assert "### debug.cbor\n\nThe decoder dominates." in missed
    assert "warm open" not in missed  # its target was met
    assert "Not diagnosed yet." in markdown(_results(), "t", "- method", {})
    with open(Path(__file__).parent.parent / "bench" / "missed.md") as f:
        assert "warm open" in missed_sections(f.read())


def test_medians_and_percentiles():
    assert median([3, 1, 2]) == 2
    assert math.isnan(median([]))
    values = list(range(1, 101))
    assert percentile(values, 50) == 50.5
    assert percentile(values, 95) == 95.05
    assert percentile([7], 95) == 7
    assert ratio(1, 0) == "—"


def test_the_wide_program_bundle_has_nodes_of_the_width_asked(tmp_path):
    from pvtui.model import schema as s
    from pvtui.model.report import Report

    path = make_wide_programs(tmp_path / "wide", roots=3, width=40)
    programs = Report(path).programs
    roots = programs.col(s.PROGRAM_ROOTS)
    assert len(roots) == 4
    assert programs.num_children(int(roots[0])) == 1
    assert [programs.num_children(int(r)) for r in roots[1:]] == [40, 40, 40]
    assert len(programs) == 2 + 3 * 41


def test_an_interrupted_ingest_may_leave_nothing_or_a_whole_bundle_never_half_of_one(tmp_path, tiny_dir):
    import shutil

    from bench.cancel import left_whole
    from pvtui.sources.cache import LOCK_SUFFIX, TMP_MARK

    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / f".key{LOCK_SUFFIX}").write_text("")
    assert left_whole(cache)  # nothing but a lock
    shutil.copytree(tiny_dir / "profile.pvtui", cache / "key")
    assert left_whole(cache)  # committed whole: the ingest won the race
    (cache / f".other{TMP_MARK}1234").mkdir()
    assert not left_whole(cache)  # a build under way
    shutil.rmtree(cache / f".other{TMP_MARK}1234")
    (cache / "half").mkdir()
    assert not left_whole(cache)  # an entry without its meta.json


def test_the_counted_child_leaves_at_the_report_shown(tiny_dir, tmp_path):
    """bench.instructions counts a child that stops at the first frame with the report shown: it exits there
    (status 0) and never reaches the end of its run (which raises)."""
    import json
    import subprocess
    import sys

    from bench.runner import ROOT, child_env

    for job in ({"kind": "bare"}, {"kind": "pvtui", "report": str(tiny_dir), "cache": str(tmp_path), "screen": "memory"}):
        done = subprocess.run([sys.executable, "-m", "bench.child", json.dumps({"job": "until_shown", **job})],
                              cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]


def test_the_instruction_count_says_what_it_lacks_in_one_line(tmp_path, capsys):
    from bench.instructions import main

    assert main(["--workdir", str(tmp_path)]) == 2
    said = capsys.readouterr().err.strip()
    assert len(said.splitlines()) == 1 and ("valgrind" in said or str(tmp_path) in said)
