"""The contracts the layout keeps: a figure the report cannot give is the model's Unavailable, turned into
JSON at the commands' edge only (commands/common.py); text for display lives in render/, not model/."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pvtui.cli import main
from pvtui.commands.common import as_json
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


def test_model_answers_without_their_parts_are_unavailable(empty_bundle):
    from pvtui.model.hotspots import hotspots_data
    from pvtui.model.insights import insights
    from pvtui.model.layer_outline import layers_data
    from pvtui.model.operations import operations_data
    from pvtui.model.queries import liveness_step_diff, liveness_table, programs_table, trace_table
    from pvtui.model.splits import split_data
    from pvtui.model.step_stats import step_stats

    report = Report(empty_bundle)
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


def test_as_json_turns_each_unavailable_within(empty_bundle):
    nested = {"a": [Unavailable("No A.")], "b": ({"c": Unavailable("No C.")}, 1), "d": "text"}
    assert as_json(nested) == {"a": [{"available": False, "reason": "No A."}],
                               "b": [{"c": {"available": False, "reason": "No C."}}, 1], "d": "text"}
    assert json.loads(json.dumps(as_json(nested))) == as_json(nested)


@pytest.mark.parametrize("argv", [["trace"], ["trace", "--stats"], ["programs"], ["liveness"], ["operations"],
                                  ["operations", "--group", "layer"], ["split", "--ipus", "2"], ["hotspots"]])
def test_commands_say_unavailable_the_one_way(capsys, empty_bundle, argv):
    assert main([argv[0], str(empty_bundle), *argv[1:], "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data.keys() == {"available", "reason"} and data["available"] is False and data["reason"]
    assert main([argv[0], str(empty_bundle), *argv[1:]]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.strip() == data["reason"]


# Text lives in render/ ---------------------------------------------------------------------------------

# model/ modules that still word some figures for display, each with how many such texts it holds: the
# closing note of issue 30 lists them. A module not named here words nothing; these may only shrink.
WORDED = {
    "model/compare.py": 2,  # LIVENESS_X (a column name of the curves' table); the largest tile's row label
    "model/gate.py": 3,  # the errors of a condition the reports cannot judge (GateError's messages)
    "model/hotspots.py": 1,  # the name of the row of steps of no known program
    "model/insights.py": 16,  # the suggestions' texts and assumptions, and two section notes, in the JSON
    "model/layer_outline.py": 5,  # source_note and the cycles note of the model layers, in the JSON
    "model/layers.py": 1,  # the name of the row of steps of no known program
    "model/metrics.py": 13,  # the metric catalogue's descriptions (`pvtui compare A B --metrics`)
    "model/navigators/hotspots.py": 2,  # the progress of reading the hotspots
    "model/navigators/memory.py": 3,  # parse_tiles: why a typed list of tiles to compare is refused; NOT_SPLIT_YET
    "model/navigators/trace.py": 1,  # the progress of merging the steps by model layer
    "model/operations.py": 3,  # cycles_note, and why a debug layer has no rows (its Unavailable's reason)
    "model/queries.py": 2,  # unknown_program: why a step's program is not in the table
    "model/references.py": 2,  # length_damage, kind_damage: a column's rows and numbers (the error its bundle keeps)
    "model/report.py": 13,  # Report.missing: the reasons every Unavailable quotes (and a part, or the categories, not read yet)
    "model/splits.py": 9,  # the split's notes and the layer memory's description, in the JSON
    "model/step_stats.py": 2,  # device_note: why a run has no device time, in the JSON
    "model/tile_detail.py": 1,  # why a tile's table is missing, in `pvtui memory --tile`'s JSON
}


def worded_texts(path: Path) -> list[str]:
    """PATH's strings of three words or more, but docstrings, an Unavailable's reason and an error's message."""
    import ast

    tree = ast.parse(path.read_text())
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}

    def exempt(node: ast.AST) -> bool:
        if isinstance(parents.get(node), (ast.Expr, ast.JoinedStr)):
            return True  # a docstring, or a part of an f-string counted whole
        while node in parents and not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            node = parents[node]
            called = getattr(node, "func", None)
            if isinstance(node, ast.Raise) or getattr(called, "id", None) == "Unavailable":
                return True
        return False

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if len(re.findall(r"[A-Za-z']+(?=\s)", text)) >= 3 and not exempt(node):
            found.append(text)
    return found


def test_model_modules_word_no_figures_but_those_listed():
    counts = {str(path.relative_to(PACKAGE)): len(worded_texts(path)) for path in sources(PACKAGE / "model")}
    assert {name: n for name, n in counts.items() if n} == WORDED
    assert worded_texts(PACKAGE / "render" / "compare.py")  # the scan finds sentences where they are
