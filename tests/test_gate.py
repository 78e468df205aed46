"""The regression gate: conditions parsed and judged, the metrics catalogue, exit codes and formats."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pvtui.cli import main
from pvtui.model.gate import (
    ConditionError,
    GateError,
    Reports,
    failed_first,
    holds,
    judge,
    parse_condition,
)
from pvtui.model.metrics import CATALOGUE, catalogue_markdown, read_metrics
from pvtui.model.unavailable import Unavailable
from pvtui.render.gate import markdown_cell, workflow_data, workflow_property

# Parsing ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, metric, op, value, signed, percent", [
    ("memory.tiles_over_limit > 0", "memory.tiles_over_limit", ">", 0, False, False),
    ("memory.max_tile > 600KiB", "memory.max_tile", ">", 600 * 1024, False, False),
    ("memory.max_tile>+2%", "memory.max_tile", ">", 2, True, True),
    ("cycles.device >= +50,000", "cycles.device", ">=", 50_000, True, False),
    ("memory.total > +4MiB", "memory.total", ">", 4 << 20, True, False),
    ("memory.total <= -1.5 MB", "memory.total", "<=", -1_500_000, True, False),
    ("cycles.layer.* > +5%", "cycles.layer.*", ">", 5, True, True),
    ("cycles.layer.my layer < \u22122.5%", "cycles.layer.my layer", "<", Fraction(-5, 2), True, True),
    ("memory.max_tile > 0.5 kB", "memory.max_tile", ">", 500, False, False),
])
def test_conditions_parse(text, metric, op, value, signed, percent):
    condition = parse_condition(text)
    assert (condition.metric, condition.op, condition.limit.value) == (metric, op, value)
    assert (condition.limit.signed, condition.limit.percent) == (signed, percent)
    assert condition.needs_a is signed


@pytest.mark.parametrize("text, column, words", [
    ("memory.total 5MiB", 13, "expected an operator"),
    ("memory.total == 5", 13, "not an operator"),
    ("> 5", 0, "expected a metric"),
    ("memory.total > ", 15, "expected a limit"),
    ("memory.total > 5%", 15, "a percentage is a change from A"),
    ("memory.total > 5kb", 16, "unknown unit 'kb'"),
    ("memory.total > 5 MiB more", 21, "unexpected text"),
    ("memory.total > 5,5MiB", 16, "unexpected text"),  # not 55 MiB: a comma only groups thousands
    ("memory.total >= > 5", 16, "expected a number"),
    ("memory.total > " + "9" * 40, 15, "more than 30 digits"),
])
def test_malformed_conditions_say_where(text, column, words):
    with pytest.raises(ConditionError) as caught:
        parse_condition(text)
    assert words in caught.value.problem and caught.value.column == column


def parses_or_says_where(text: str) -> None:
    """TEXT is a condition, or a ConditionError points inside it; and a condition is judged or said to be
    unjudgeable (GateError), never a traceback."""
    try:
        condition = parse_condition(text)
    except ConditionError as error:
        assert 0 <= error.column <= len(text) and error.problem
        return
    assert condition.metric and condition.op in (">", ">=", "<", "<=")
    try:
        verdicts = judge([condition], _reports())
    except GateError as error:
        assert error.lines
    else:
        assert verdicts and all(v.condition is condition for v in verdicts)


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_any_string_parses_or_says_where(text):
    parses_or_says_where(text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="memory.tilecyc*_ <>=+-%,.0123456789KMGiBkT\u2212"))
def test_strings_of_condition_characters_parse_or_say_where(text):
    parses_or_says_where(text)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["memory.max_tile", "cycles.layer.*", "cycles.device", "memory.*", "*", "memory.layer.x"]),
       st.sampled_from([">", ">=", "<", "<="]), st.sampled_from(["", "+", "-", "\u2212"]),
       st.decimals(0, 10**9, places=2, allow_nan=False), st.sampled_from(["", "%", "KiB", " MB", "B"]))
def test_conditions_that_parse_are_judged_or_said_unjudgeable(metric, op, sign, number, unit):
    parses_or_says_where(f"{metric} {op} {sign}{number}{unit}")


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**12), st.integers(0, 10**12), st.integers(-200, 200), st.sampled_from([">", ">=", "<", "<="]))
def test_a_percentage_is_judged_exactly(a, b, percent, op):
    condition = parse_condition(f"memory.total {op} {percent:+d}%")
    expected = {">": b * 100 > a * (100 + percent), ">=": b * 100 >= a * (100 + percent),
                "<": b * 100 < a * (100 + percent), "<=": b * 100 <= a * (100 + percent)}[op]
    if a == 0:
        expected = {">": 0 > percent, ">=": 0 >= percent, "<": 0 < percent, "<=": 0 <= percent}[op] if b == 0 \
            else op in (">", ">=")
    assert holds(condition, a, b) is expected


def test_plain_limits_judge_b_and_signed_ones_the_change():
    assert holds(parse_condition("m > 600KiB"), 0, 600 * 1024 + 1)
    assert not holds(parse_condition("m > 600KiB"), 10**9, 600 * 1024)
    assert holds(parse_condition("m > +100"), 1000, 1101) and not holds(parse_condition("m > +100"), 1000, 1100)
    assert holds(parse_condition("m < -100"), 1000, 899)
    assert holds(parse_condition("m > +5%"), 100, 106) and not holds(parse_condition("m > +5%"), 100, 105)
    assert holds(parse_condition("m >= +5%"), 100, 105)
    assert holds(parse_condition("m > +5%"), None, 1)  # absent from A (counted 0), present in B: grew without bound


# Judging over two reports' metrics ------------------------------------------------------------------


def _reports(**changes) -> Reports:
    a = {"memory.max_tile": 1000, "memory.tiles_over_limit": 0, "cycles.device": 100,
         "cycles.layer.encoder": 100, "cycles.layer.head": 50, "memory.layer.NAME": Unavailable("needs libpva")}
    b = {**a, "cycles.layer.head": 60, "cycles.layer.new": 5, **changes}
    return Reports(a, b, "base", "build")


def test_a_wildcard_applies_to_each_match_and_failed_come_first():
    verdicts = failed_first(judge([parse_condition("cycles.layer.* > +5%")], _reports()))
    assert [(v.pair.metric, v.failed) for v in verdicts] == [
        ("cycles.layer.head", True), ("cycles.layer.new", True), ("cycles.layer.encoder", False)]
    head = verdicts[0].pair
    assert (head.a, head.b, head.change, head.share) == (50, 60, 10, Fraction(1, 5))
    assert verdicts[1].pair.a is None  # only in B


def test_a_misspelt_metric_names_the_nearest():
    with pytest.raises(GateError) as caught:
        judge([parse_condition("memory.max_tiles > 0"), parse_condition("cycles.layer.encodr > +1%")], _reports())
    first, second = caught.value.lines
    assert "no metric memory.max_tiles; did you mean memory.max_tile?" in first
    assert "report A or B has no cycles.layer.encodr; did you mean cycles.layer.encoder?" in second
    with pytest.raises(GateError, match="matches no metric of report B"):
        judge([parse_condition("cycles.stage.* > 0")], _reports())


def test_a_metric_a_report_cannot_give_names_the_report_and_why():
    with pytest.raises(GateError) as caught:
        judge([parse_condition("memory.layer.encoder > 1MiB")], _reports())
    assert caught.value.lines == ["--fail-if 'memory.layer.encoder > 1MiB': report B (build) cannot give "
                                  "memory.layer.encoder: needs libpva"]
    reports = _reports(**{"memory.tiles_over_limit": Unavailable("needs profile.pop")})
    with pytest.raises(GateError, match=r"report B \(build\) cannot give memory.tiles_over_limit: needs profile.pop"):
        judge([parse_condition("memory.* > +0")], reports)
    only_a = Reports({**reports.a, "cycles.device": Unavailable("no execution")}, reports.b)
    assert judge([parse_condition("cycles.device > 1000")], only_a)[0].failed is False  # a plain limit reads B alone
    with pytest.raises(GateError, match=r"report A \(A\) cannot give cycles.device: no execution"):
        judge([parse_condition("cycles.device > +1%")], only_a)


def test_a_unit_of_bytes_on_cycles_is_a_caret_error():
    with pytest.raises(GateError) as caught:
        judge([parse_condition("cycles.device > 5KiB")], _reports())
    error = caught.value.lines[0]
    assert isinstance(error, ConditionError) and error.column == len("cycles.device > 5")


def test_every_metric_reads_from_a_report(tiny_report):
    from pvtui.model.queries import category_totals, summary

    values, figures = read_metrics(tiny_report), summary(tiny_report)
    assert values["memory.total"] == figures["memory"]["total_including_gaps"]
    assert values["memory.max_tile"] == figures["memory"]["max_tile_bytes"]
    assert values["memory.tiles_over_limit"] == figures["memory"]["tiles_over_limit"] == 1
    assert values["memory.always_live"] == figures["memory"]["always_live_bytes"]
    assert values["memory.peak_not_always_live"] == figures["memory"]["peak_not_always_live_bytes"]
    assert values["cycles.device"] == figures["execution"]["device_cycles"]
    assert values["cycles.report_total"] == figures["execution"]["report_total_cycles"]
    categories = {name.removeprefix("memory.category."): value for name, value in values.items()
                  if name.startswith("memory.category.")}
    assert categories == category_totals(tiny_report)
    assert "cycles.layer.host waits" not in values and "cycles.layer.layer0" in values
    assert not any(isinstance(value, Unavailable) for value in values.values())
    assert {m.unit for m in CATALOGUE} <= {"bytes", "cycles", "count"}


def test_the_readme_lists_the_catalogue():
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert "## In CI" in readme and catalogue_markdown() in readme


# Formats -----------------------------------------------------------------------------------------


def test_markdown_and_workflow_commands_escape_what_they_read():
    assert markdown_cell("a|b") == "a\\|b" and markdown_cell("<b>*x*</b>") == "\\<b\\>\\*x\\*\\</b\\>"
    assert workflow_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert workflow_property("a::error, b") == "a%3A%3Aerror%2C b"


def _gate(capsys, *argv) -> tuple[int, str, str]:
    code = main(["compare", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_exit_codes_and_json(capsys, tiny_dir, other_dir):
    code, out, _ = _gate(capsys, tiny_dir, other_dir, "--fail-if", "memory.max_tile > +50%", "--json")
    data = json.loads(out)
    assert code == 0 and data["failed"] == 0
    assert list(data["conditions"][0]) == ["condition", "metric", "a", "b", "change", "limit", "failed"]
    code, out, _ = _gate(capsys, tiny_dir, other_dir, "--fail-if", "memory.max_tile > +50%",
                         "--fail-if", "memory.tiles_over_limit > 0", "--format", "json")
    data = json.loads(out)
    assert code == 1 and data["failed"] == 1
    assert data["conditions"][0] == {"condition": "memory.tiles_over_limit > 0", "metric": "memory.tiles_over_limit",
                                     "a": 1, "b": 1, "change": 0, "limit": "> 0", "failed": True}
    code, out, err = _gate(capsys, tiny_dir, other_dir, "--fail-if", "memory.max_tile 5", "--json")
    assert (code, out) == (2, "") and err.splitlines()[1:] == ["  memory.max_tile 5", " " * 18 + "^"]
    code, out, err = _gate(capsys, tiny_dir, other_dir, "--fail-if", "memory.max_tyle > 0")
    assert (code, out) == (2, "") and "did you mean memory.max_tile?" in err and len(err.splitlines()) == 1
    code, out, err = _gate(capsys, tiny_dir, tiny_dir.parent / "nowhere", "--fail-if", "memory.max_tile > 0")
    assert (code, out) == (2, "") and "nowhere" in err


def test_a_report_that_cannot_give_a_metric_exits_2(capsys, tiny_dir):
    code, out, err = _gate(capsys, tiny_dir, tiny_dir, "--fail-if", "memory.always_live > +1%", "--reader", "native")
    assert (code, out) == (2, "")
    assert "report B (tiny) cannot give memory.always_live" in err and "libpva" in err


def test_text_md_and_github(capsys, tiny_dir, other_dir):
    conditions = ["--fail-if", "cycles.layer.* > +5%", "--fail-if", "memory.max_tile > 600KiB"]
    code, out, _ = _gate(capsys, tiny_dir, other_dir, *conditions)
    lines = out.splitlines()
    assert code == 1 and "2 of 7 checks failed" in lines[0]
    rows = [line for line in lines if line.startswith("│")]
    assert [row.split("│")[1].strip() for row in rows][:2] == ["cycles.layer.layer0", "memory.max_tile"]
    assert all("FAILED" in row for row in rows[:2]) and not any("FAILED" in row for row in rows[2:])
    code, out, _ = _gate(capsys, tiny_dir, other_dir, *conditions, "--format", "md")
    assert code == 1 and "| metric | A | B | change | limit | verdict |" in out
    assert "| cycles.layer.layer0 | 526,941 | 610,887 | +83,946 (+15.9%) | \\> +5% | **FAILED** |" in out
    code, out, _ = _gate(capsys, tiny_dir, other_dir, *conditions, "--format", "github")
    errors = [line for line in out.splitlines() if line.lstrip().startswith("::")]
    assert code == 1 and len(errors) == 2
    assert out.startswith("::error title=pvtui gate%3A cycles.layer.layer0 > +5%25::")
    code, out, _ = _gate(capsys, tiny_dir, other_dir, "--metrics", "--json")
    metrics = {row["metric"]: row for row in json.loads(out)["metrics"]}
    assert code == 0 and metrics["cycles.layer.layer0"]["change"] == 610_887 - 526_941
    assert set(metrics["memory.total"]) == {"metric", "unit", "a", "b", "change", "unavailable"}


def test_a_layer_name_breaks_no_table_and_makes_no_workflow_command(capsys):
    import re

    from pvtui.model.gate import Verdict
    from pvtui.model.metrics import Pair
    from pvtui.render.gate import Shown, markdown, print_gate

    name = "cycles.layer.a|b\n::error::pwned 100%"
    verdict = Verdict(parse_condition("cycles.layer.* > +5%"), Pair(name, "cycles", 100, 200), True)
    row = markdown([verdict], "Gate", Shown()).splitlines()[-1]
    assert len(re.findall(r"(?<!\\)\|", row)) == 7 and "a\\|b" in row
    print_gate([verdict], "github", "Gate · A x · B y", Shown())
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if line.lstrip().startswith("::")] == lines[:1]
    title, message = lines[0].removeprefix("::error title=").split("::", 1)
    assert "a|b␊%3A%3Aerror%3A%3Apwned 100%25" in title and "\n" not in message and "100%25" in message


def test_hostile_names_reach_no_terminal_and_json_keeps_them(capsys, hostile_dir):
    from pvtui.synth.hostile import planted_in

    gate = ["--fail-if", "cycles.layer.* >= +0%"]
    for fmt in ("text", "md", "github"):
        code, out, err = _gate(capsys, hostile_dir, hostile_dir, *gate, "--format", fmt)
        assert code == 1 and planted_in((out + err).encode()) == []
    code, out, _ = _gate(capsys, hostile_dir, hostile_dir, *gate, "--json")
    assert code == 1 and any("\x1b" in row["metric"] for row in json.loads(out)["conditions"])


@pytest.mark.parametrize("argv", [
    ["--fail-if", "memory.max_tile > 0", "--json", "--format", "md"],
    ["--format", "md"],
    ["--metrics", "--format", "github"],
    ["--fail-if", "memory.max_tile > 0", "--group", "layer"],
    ["--fail-if", "memory.max_tile > 0", "--metrics"],
])
def test_options_that_do_not_go_together_exit_2_before_reading(capsys, tmp_path, argv):
    code, out, err = _gate(capsys, tmp_path / "a", tmp_path / "b", *argv)  # neither exists: never read
    assert (code, out) == (2, "") and len(err.splitlines()) == 1 and "pvtui compare:" in err


def test_metrics_say_once_why_a_report_cannot_give_one(capsys, tiny_dir, other_dir):
    code, out, _ = _gate(capsys, tiny_dir, other_dir, "--metrics", "--reader", "native")
    assert code == 0 and out.startswith("Metrics · A tiny")
    why = [line for line in out.splitlines() if line.startswith("— memory.always_live")]
    assert why == ["— memory.always_live (A and B): This report has no always-live bytes per tile: they need "
                   "profile.pop read by libpva (--reader libpva, with the Poplar SDK enabled)."]
    code, out, _ = _gate(capsys, tiny_dir, other_dir, "--metrics", "--json", "--reader", "native")
    listed = {row["metric"]: row for row in json.loads(out)["metrics"]}
    assert listed["memory.always_live"]["a"] is None and set(listed["memory.always_live"]["unavailable"]) == {"A", "B"}
    assert listed["memory.max_tile"]["unavailable"] == {} and listed["memory.max_tile"]["a"] > 0


def test_a_family_is_one_entry_of_the_catalogue(monkeypatch, tiny_report):
    from pvtui.model import metrics

    stages = metrics.Metric("cycles.stage.NAME", "cycles", "one pipeline stage's cycles.",
                            lambda figures: {"first": 5, "second": 7})
    monkeypatch.setattr(metrics, "CATALOGUE", (*metrics.CATALOGUE, stages))
    values = read_metrics(tiny_report)
    assert (values["cycles.stage.first"], values["cycles.stage.second"]) == (5, 7)
    verdicts = judge([parse_condition("cycles.stage.* > 6")], Reports(values, values))
    assert [(v.pair.metric, v.pair.unit, v.failed) for v in verdicts] == [
        ("cycles.stage.first", "cycles", False), ("cycles.stage.second", "cycles", True)]
    assert "- `cycles.stage.NAME` (cycles): one pipeline stage's cycles." in catalogue_markdown()


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(st.text(max_size=30), st.sampled_from(["memory.* > +1%", "* >= 0", "cycles.layer.x* < -5%",
                                                          "memory.max_tile > 1 GiB", "memory.category.* > +0"])))
def test_the_command_exits_0_1_or_2_on_any_condition(capsys, tiny_dir, other_dir, text):
    # --fail-if=TEXT: a TEXT that starts with "-" is the condition, not an option argparse refuses
    code = main(["compare", str(tiny_dir), str(other_dir), f"--fail-if={text}", "--json"])
    out, err = capsys.readouterr()
    assert code in (0, 1, 2) and "Traceback" not in err
    assert (json.loads(out)["failed"] > 0) is (code == 1) if code != 2 else out == ""


def test_metrics_list_a_family_one_report_cannot_give_by_the_other_reports_members():
    from pvtui.model.metrics import pairs

    lacking = Unavailable("needs an execution profile")
    listed = pairs({"cycles.device": 5, "cycles.layer.NAME": lacking}, {"cycles.device": 6, "cycles.layer.a": 1})
    assert [(p.metric, p.a, p.b) for p in listed] == [("cycles.device", 5, 6), ("cycles.layer.a", lacking, 1)]
    both = pairs({"cycles.layer.NAME": lacking}, {"cycles.layer.NAME": lacking})
    assert [(p.metric, p.a, p.b) for p in both] == [("cycles.layer.NAME", lacking, lacking)]


def test_a_compute_sets_cycles_are_hotspots_figures(tiny_report):
    from pvtui.model.hotspots import Hotspots
    from pvtui.model.metrics import read_metrics

    values = read_metrics(tiny_report)
    table = Hotspots(tiny_report).table("compute-set")
    costliest = table.names[0]
    assert values[f"cycles.compute_set.{costliest}"] == sum(
        int(c) for name, c in zip(table.names, table.cycles.tolist()) if name == costliest)
    assert sum(v for k, v in values.items() if k.startswith("cycles.compute_set.")) == int(table.cycles.sum())
