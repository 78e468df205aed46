"""framework.json and app.json: kept whole, or a note saying why not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pvtui.model.bundle import BundleWriter
from pvtui.model.report import Report
from pvtui.sources import json_files
from pvtui.sources.base import IngestContext
from pvtui.sources.json_files import read_json

FRAMEWORK = {"framework": "popart", "version": "3.1.0", "cluster": "cluster_1"}
APP = {"arguments": {"batch_size": 8, "epochs": 2}, "config": {"seq": [1, 2.5, None, True]},
       "POPLAR_ENGINE_OPTIONS": "{\"autoReport.all\":\"true\"}"}  # fmt: skip


def ingest(tmp_path: Path, part: str, content: str | bytes) -> Report:
    path = tmp_path / f"{part}.json"
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    out = tmp_path / "bundle"
    with BundleWriter(out) as writer:
        read_json(path, IngestContext(writer), part)
        writer.commit()
    return Report(out)


@pytest.mark.parametrize("part, value", [("framework", FRAMEWORK), ("app", APP), ("app", [1, "x"])])
def test_documents_round_trip(tmp_path: Path, part: str, value) -> None:
    report = ingest(tmp_path, part, json.dumps(value, indent=2))
    assert part in report.parts and report.notes == []
    assert (report.framework_json if part == "framework" else report.app_json) == value


def test_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    report = ingest(tmp_path, "framework", b"\xef\xbb\xbf" + json.dumps(FRAMEWORK).encode())
    assert report.framework_json == FRAMEWORK


@pytest.mark.parametrize(
    "content, problem",
    [('{"framework": "popart",\n  "version": }',
      "not valid JSON (line 2 column 14: Expecting value)"),
     ("", "not valid JSON (line 1 column 1: Expecting value)"),
     (b"{\"a\": \"\xff\"}", "not UTF-8 text (byte 7)"),
     ("[" * 150 + "]" * 150, "JSON nested deeper than 100 levels"),
     ("[" * 100_000 + "]" * 100_000, "not usable JSON"),
     ("1" * 5000, "not usable JSON")],
)  # fmt: skip
def test_unusable_json_is_a_note(tmp_path: Path, content, problem: str) -> None:
    report = ingest(tmp_path, "app", content)
    assert "app" not in report.parts and report.app_json is None
    [note] = report.notes
    assert note.startswith(f"[app] {tmp_path / 'app.json'}: ") and problem in note
    assert "\n" not in note


def test_depth_limit_is_exact(tmp_path: Path) -> None:
    depth = json_files.MAX_DEPTH
    assert ingest(tmp_path, "app", "[" * depth + "]" * depth).app_json is not None


def test_size_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_files, "MAX_BYTES", 10)
    report = ingest(tmp_path, "framework", json.dumps(FRAMEWORK))
    assert "framework" not in report.parts and "larger than" in report.notes[0]


def test_unreadable_file_is_a_note(tmp_path: Path) -> None:
    out = tmp_path / "bundle"
    with BundleWriter(out) as writer:
        read_json(tmp_path / "missing.json", IngestContext(writer), "framework")
        writer.commit()
    assert "cannot read" in Report(out).notes[0]
