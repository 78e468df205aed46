"""What the Summary, the CLI and a reload say about each report file: read, stood in, damaged or absent."""

from __future__ import annotations

import os
import shutil

import pytest
from conftest import said, wait_for, wait_until_loaded
from rich.console import Console

from pvtui.app import PvtuiApp
from pvtui.cli import main
from pvtui.model.queries import summary
from pvtui.render.tables import files_row
from pvtui.screens.dialogs import ReloadPrompt
from pvtui.sources.discovery import discover
from pvtui.sources.ingest import load_report

pytestmark = pytest.mark.anyio


def _copy(tiny_dir, tmp_path, name: str, keep: tuple[str, ...] | None = None):
    folder = tmp_path / name
    shutil.copytree(tiny_dir, folder)
    if keep is not None:
        for entry in folder.iterdir():
            if entry.name not in keep:
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    return folder


def _truncate(path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def test_the_bundle_standing_in_for_profile_pop_is_named(tiny_report):
    states = summary(tiny_report)["file_states"]
    assert states["profile.pop"] == "stood in" and states["archive.a"] == "read"
    console = Console(width=200, record=True)
    console.print(files_row(states))
    assert "✓ profile.pvtui (for profile.pop)" in console.export_text()


def test_a_damaged_file_is_never_ticked(tiny_dir, tmp_path, cache_root):
    folder = _copy(tiny_dir, tmp_path, "damaged")
    _truncate(folder / "archive.a")
    (folder / "app.json").write_text('{"arguments": {"lr": 0.1,}}')
    report = load_report(discover(folder)[0], cache=cache_root)
    states = summary(report)["file_states"]
    assert states["archive.a"] in ("partly read", "unreadable")
    assert states["app.json"] == "unreadable" and states["debug.cbor"] == "read"
    console = Console(width=200, record=True)
    console.print(files_row(states))
    text = console.export_text()
    assert "✓ archive.a" not in text and "✓ app.json" not in text and "! app.json (unreadable)" in text


@pytest.mark.parametrize("width", [60, 80, 120])
def test_the_files_row_breaks_between_files_never_inside_one(capsys, tiny_dir, width, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    assert main(["summary", str(tiny_dir)]) == 0
    out = capsys.readouterr().out
    files = out[out.index("Files"):].splitlines()[1:]
    for line in files:
        assert not line.rstrip().endswith(("✓", "✗", "!")), line
    entries = " ".join(files)
    for name in ("debug.cbor", "archive.a", "framework.json", "app.json"):
        assert f"✓ {name}" in entries


def test_archive_alone_says_what_it_gives_not_that_memory_is_missing(tiny_dir, tmp_path, cache_root):
    folder = _copy(tiny_dir, tmp_path, "archive-only", keep=("archive.a",))
    report = load_report(discover(folder)[0], cache=cache_root)
    assert report.memory is None and report.archive is not None
    reason = report.missing("memory")
    assert "no memory data" not in reason and "archive.a" in reason and "profile.pop" in reason


async def test_the_summary_names_the_app_json_parse_error(tiny_dir, tmp_path, cache_root):
    from pvtui.screens.base import UnavailableNotice

    folder = _copy(tiny_dir, tmp_path, "badjson")
    (folder / "app.json").write_text('{\n  "lr": 0.1,\n}\n')
    app = PvtuiApp(discover(folder), path=folder, watch=False, cache=cache_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        notices = [str(n.render()) for n in app.screen.query(UnavailableNotice)]
        assert any("app.json" in n and "line 3 column 1" in n for n in notices), notices


async def test_a_reload_that_reads_less_says_so(tiny_dir, tmp_path, cache_root):
    folder = _copy(tiny_dir, tmp_path, "reload")
    app = PvtuiApp(discover(folder), path=folder, watch=False, cache=cache_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        old = app.report
        _truncate(folder / "archive.a")
        app.reloads.offer([folder / "archive.a"], app.a)
        await pilot.pause()
        assert isinstance(app.screen, ReloadPrompt)
        await pilot.press("r")
        await wait_for(pilot, lambda: app.report is not old)
        await pilot.pause()
        messages = [said(app)]
        assert any("archive.a" in m and "problem" in m for m in messages), messages
        assert not any(m == f"Reloaded {app.report.name}" for m in messages)
