"""Watching a report's files: changes are offered only once the writes have settled."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import AsyncIterator

from watchfiles import awatch

from pvtui.model.schema import REPORT_FILES
from pvtui.sources.base import ReportFiles, Settling

SETTLE_SECONDS = 1.0  # sizes and times must hold still this long
POLL_SECONDS = 0.25


async def settled(paths: list[Path], settle: float = SETTLE_SECONDS, poll: float = POLL_SECONDS) -> None:
    """Return once none of PATHS has changed size or time for SETTLE seconds.

    A profile.pop still being written keeps growing, so it is never offered half done.
    """
    settling = Settling(paths, settle, poll)
    while True:
        await asyncio.sleep(poll)
        if settling.poll():
            return


def _directories(files: ReportFiles) -> list[Path]:
    dirs = {files.directory}
    dirs.update(p.parent for p in files.existing())
    return sorted(d for d in dirs if d.is_dir())


async def watch_report(
    files: ReportFiles, stop: asyncio.Event | None = None, settle: float = SETTLE_SECONDS
) -> AsyncIterator[list[Path]]:
    """Yield the report files that changed, each batch once its writes have settled."""
    dirs = _directories(files)
    if not dirs:
        return

    def is_report_file(_change, path: str) -> bool:
        return Path(path).name in REPORT_FILES

    async for changes in awatch(*dirs, watch_filter=is_report_file, stop_event=stop, recursive=False):
        changed = sorted({Path(path) for _, path in changes})
        await settled(changed, settle)
        yield changed
