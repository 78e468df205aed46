"""Live reload's watch: report files that change, and a report directory removed and made again."""

from __future__ import annotations

import asyncio
import shutil

import pytest

from pvtui.sources.base import ReportFiles, file_stamp
from pvtui.sources.watch import Seen, watch_report

pytestmark = pytest.mark.anyio


async def _next(events, timeout: float = 10.0) -> Seen:
    return await asyncio.wait_for(events.__anext__(), timeout)


async def _watching(events, timeout: float = 10.0) -> None:
    """Once the watch waits for news: its watches are set (watchfiles sets them before its first wait)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while events.ag_await is None:  # not yet started, or not yet asked for what comes next
        assert asyncio.get_running_loop().time() < deadline, "the watch never began"
        await asyncio.sleep(0)


async def test_a_report_directory_removed_and_made_again_is_said_and_watched_again(tmp_path):
    report = tmp_path / "run"
    report.mkdir()
    (report / "app.json").write_text("{}")
    stop = asyncio.Event()
    files = ReportFiles(report, "run", app=report / "app.json")
    events = watch_report(files, {"app.json": file_stamp(files.app)}, stop, settle=0.2)
    first = asyncio.ensure_future(_next(events))
    await _watching(events)
    (report / "app.json").write_text('{"a": 1}')
    assert await first == Seen("changed", [report / "app.json"])

    shutil.rmtree(report)
    assert await _next(events) == Seen("gone", [report])
    report.mkdir()
    assert await _next(events) == Seen("back", [report])
    later = asyncio.ensure_future(_next(events))  # as the app does: it waits for what comes next
    await _watching(events)  # watched again
    (report / "framework.json").write_text("{}")
    assert await later == Seen("changed", [report / "framework.json"])
    stop.set()
    with pytest.raises(StopAsyncIteration):
        await _next(events)


async def test_a_file_changed_after_the_report_was_read_and_before_the_watch_began_is_offered(tmp_path):
    """The app starts the watch once the report is read (a worker, and watchfiles' import, later): a file
    written in between is told from its version when read, not lost."""
    report = tmp_path / "run"
    report.mkdir()
    (report / "app.json").write_text("{}")
    (report / "framework.json").write_text("{}")
    files = ReportFiles(report, "run", app=report / "app.json", framework=report / "framework.json")
    read = {"app.json": file_stamp(files.app), "framework.json": file_stamp(files.framework)}
    (report / "app.json").write_text('{"a": 1}')
    stop = asyncio.Event()
    events = watch_report(files, read, stop, settle=0.2)
    assert await _next(events) == Seen("changed", [report / "app.json"])
    stop.set()


def test_a_directory_gone_or_back_is_said_by_its_path(tmp_path):
    assert Seen("gone", [tmp_path]).said() == f"{tmp_path} was removed: the report shown stays; live reload" \
        " watches for it to come back"
    assert Seen("back", [tmp_path]).said() == f"{tmp_path} is back: live reload watches it again"
