"""The execution figures each say what they count: report total, run span, IPU-cycles, steps, IPU-steps."""

from __future__ import annotations

import json
import re

import pytest
from conftest import ROOT, wait_until_loaded
from pvtui.cli import main
from pvtui.render.figures import FIGURE_WORDS, FIGURES_HEADING

pytestmark = pytest.mark.anyio


def run_json(capsys, *args: str) -> dict:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_each_run_gives_its_span_ipu_cycles_steps_and_ipu_steps(tiny_report, capsys, tiny_dir):
    execution = tiny_report.execution
    trace = run_json(capsys, "trace", str(tiny_dir))
    stats = run_json(capsys, "trace", str(tiny_dir), "--stats")
    assert trace["report_total_cycles"] == execution.total_cycles
    assert "total_cycles" not in trace and "cycles_by_type" not in trace
    for r, (run, counted) in enumerate(zip(trace["runs"], stats["runs"])):
        lo, hi = execution.run_range(r)
        ran = execution.cycles_from[lo:hi] >= 0
        assert run["steps"] == counted["steps"] == hi - lo
        assert run["ipu_steps"] == counted["ipu_steps"] == int(ran.sum()) == sum(i["steps"] for i in counted["ipus"])
        assert run["ipu_cycles"] == counted["ipu_cycles"] == sum(i["cycles"] for i in counted["ipus"])
        starts, ends = execution.cycles_from[lo:hi][ran], execution.cycles_to[lo:hi][ran]
        assert run["run_span_cycles"] == counted["run_span_cycles"] == int(ends.max() - starts.min())
    assert sum(trace["ipu_cycles_by_type"].values()) == sum(run["ipu_cycles"] for run in trace["runs"])


def test_the_text_names_each_figure_and_never_a_bare_total(capsys, tiny_dir):
    assert main(["trace", str(tiny_dir)]) == 0
    assert main(["trace", str(tiny_dir), "--stats"]) == 0
    assert main(["summary", str(tiny_dir)]) == 0
    out = capsys.readouterr().out
    for words in ("Report total", "IPU-steps", "run span", "IPU-cycles by step type", "(report total at"):
        assert words in out
    assert "Total cycles" not in out and "Execution steps" not in out and "Cycles by step type" not in out


def test_the_readme_and_trace_help_say_what_the_figures_mean(capsys):
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert f"## {FIGURES_HEADING}" in readme
    for name, meaning in FIGURE_WORDS:
        assert f"**{name}**: {meaning}" in readme
    try:
        main(["trace", "--help"])
    except SystemExit:
        pass
    help_text = " ".join(capsys.readouterr().out.split())
    for name, meaning in FIGURE_WORDS:
        assert f"{name}: {' '.join(meaning.split())}" in help_text


async def test_help_says_what_the_figures_mean(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("t", "question_mark")
        await pilot.pause()
        listing = re.sub(r"\s+", " ", str(pilot.app.screen.query_one("#help-keys Static").render()))
        assert FIGURES_HEADING in listing
        for name, meaning in FIGURE_WORDS:
            assert f"{name}: {meaning}" in listing
