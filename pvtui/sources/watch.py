"""Watching a report's files: changes are offered only once the writes have settled."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator

from watchfiles import awatch

from pvtui.model.schema import REPORT_FILES
from pvtui.sources.base import ReportFiles, Settling, changed_files

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


@dataclass(frozen=True)
class Seen:
    """What watch_report saw: report files that changed (their writes settled), or a report directory
    that was removed ("gone") or made again ("back", watched again from then on)."""

    kind: str  # "changed", "gone" or "back"
    paths: list[Path]

    def said(self) -> str:
        """What the app tells the user of a directory gone or back."""
        where = ", ".join(str(path) for path in self.paths)
        if self.kind == "gone":
            return f"{where} was removed: the report shown stays; live reload watches for it to come back"
        return f"{where} is back: live reload watches it again"


async def watch_report(
    files: ReportFiles, read: dict[str, Any], stop: asyncio.Event | None = None, settle: float = SETTLE_SECONDS
) -> AsyncIterator[Seen]:
    """What happens to the report's files and directories, until STOP; first, the files changed since
    they were READ (their file_stamps then: written before the watch began).

    A watch on a directory ends with it: the directories' parents are watched too, so that a report
    directory removed and made again (a rerun into the same place) is said, and watched again.
    """
    dirs = _directories(files)
    if not dirs:
        return
    present = files.present()
    written = [path for name in changed_files(files, read) if (path := present[name]) is not None]
    if written:
        await settled(written, settle)
        yield Seen("changed", written)
    parents = sorted({d.parent for d in dirs} - set(dirs))
    known = _identities(dirs)

    def wanted(_change, path: str) -> bool:
        changed = Path(path)
        return changed in dirs or (changed.name in REPORT_FILES and changed.parent in dirs)

    while True:
        now = _identities(dirs)
        if now != known:  # removed, or made again, since the last watch began
            gone = [d for d in dirs if known[d] is not None and now[d] is None]
            back = [d for d in dirs if now[d] is not None and now[d] != known[d]]
            known = now
            for kind, listed in (("gone", gone), ("back", back)):
                if listed:
                    yield Seen(kind, listed)
            written = [d / name for d in back for name in REPORT_FILES if (d / name).exists()]
            if written:  # written before it was watched again
                await settled(written, settle)
                yield Seen("changed", written)
            continue  # looked at again: it may have changed while the news was taken
        watcher = awatch(*[d for d in dirs + parents if d.is_dir()], watch_filter=wanted, stop_event=stop,
                         recursive=False)
        moved = False
        async for changes in watcher:
            paths = sorted({Path(path) for _, path in changes})
            moved = any(path in dirs for path in paths)
            if moved:
                break
            await settled(paths, settle)
            yield Seen("changed", paths)
        await watcher.aclose()
        if not moved:
            return  # stopped


def _identities(dirs: list[Path]) -> dict[Path, tuple[int, int] | None]:
    """Each directory's device and inode (None where it is gone): a directory made again is another."""
    identities = {}
    for directory in dirs:
        try:
            status = directory.stat()
            identities[directory] = (status.st_dev, status.st_ino)
        except OSError:
            identities[directory] = None
    return identities
