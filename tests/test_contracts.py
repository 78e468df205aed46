"""The contracts the layout keeps: a figure the report cannot give is the model's Unavailable, turned into
JSON at the commands' edge only (commands/common.py); text for display lives in render/, not model/."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pvtui.cli import main
from pvtui.commands.common import as_json
from pvtui.model.bundle import BundleWriter
from pvtui.model.report import Report
from pvtui.model.unavailable import Unavailable

PACKAGE = Path(__file__).resolve().parent.parent / "pvtui"
NOT_AVAILABLE = re.compile(r"""["']available["']\s*:\s*False|available\s*=\s*False""")


def sources(under: Path = PACKAGE) -> list[Path]:
    return sorted(under.rglob("*.py"))


def test_only_the_commands_edge_writes_available_false():
    edge = PACKAGE / "commands" / "common.py"
    found = [f"{path.relative_to(PACKAGE)}:{number}" for path in sources() if path != edge
             for number, line in enumerate(path.read_text().splitlines(), 1) if NOT_AVAILABLE.search(line)]
    assert found == []
    assert NOT_AVAILABLE.search(edge.read_text())  # the scan finds what it looks for


@pytest.fixture(scope="module")
def empty_dir(tmp_path_factory) -> Path:
    where = tmp_path_factory.mktemp("contracts") / "empty"
    with BundleWriter(where) as writer:
        writer.meta.update(name="empty", parts=[], target={})
        writer.commit()
    return where


def test_model_answers_without_their_parts_are_unavailable(empty_dir):
    from pvtui.model.hotspots import hotspots_data
    from pvtui.model.insights import insights
    from pvtui.model.layer_outline import layers_data
    from pvtui.model.operations import operations_data
    from pvtui.model.queries import liveness_step_diff, liveness_table, programs_table, trace_table
    from pvtui.model.splits import split_data
    from pvtui.model.step_stats import step_stats

    report = Report(empty_dir)
    answers = {
        "trace": trace_table(report), "stats": step_stats(report), "programs": programs_table(report),
        "liveness": liveness_table(report), "step diff": liveness_step_diff(report, 0, 1),
        "operations": operations_data(report), "layers": layers_data(report), "split": split_data(report, 2),
        "hotspots": hotspots_data(report),
        **{f"insights {key}": value for key, value in insights(report).items() if key not in ("report", "suggestions")},
    }
    answers["insights vertices state"] = answers.pop("insights vertices")["state"]
    for name, answer in answers.items():
        assert isinstance(answer, Unavailable) and answer.reason.endswith("."), name
        assert as_json(answer) == {"available": False, "reason": answer.reason}, name


def test_as_json_turns_each_unavailable_within(empty_dir):
    nested = {"a": [Unavailable("No A.")], "b": ({"c": Unavailable("No C.")}, 1), "d": "text"}
    assert as_json(nested) == {"a": [{"available": False, "reason": "No A."}],
                               "b": [{"c": {"available": False, "reason": "No C."}}, 1], "d": "text"}
    assert json.loads(json.dumps(as_json(nested))) == as_json(nested)


@pytest.mark.parametrize("argv", [["trace"], ["trace", "--stats"], ["programs"], ["liveness"], ["operations"],
                                  ["operations", "--group", "layer"], ["split", "--ipus", "2"], ["hotspots"]])
def test_commands_say_unavailable_the_one_way(capsys, empty_dir, argv):
    assert main([argv[0], str(empty_dir), *argv[1:], "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data.keys() == {"available", "reason"} and data["available"] is False and data["reason"]
    assert main([argv[0], str(empty_dir), *argv[1:]]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.strip() == data["reason"]
