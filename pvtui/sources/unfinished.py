"""SQLite's files beside a profile.pop it is writing: what is read from it now may be incomplete.

The one place that finds them, for `pvtui check`, the capture listing and every opening of a report
(commands and the explorer's Summary, a cached bundle's too: the file may appear after it was read).
"""

from __future__ import annotations

from pathlib import Path

from pvtui.sources.base import ReportFiles

WRITER_SUFFIXES = ("-journal", "-wal")  # SQLite's files beside a database it is writing
NOTE_PART = "writing"  # the notes' label (model/report.py: `[part] problem`)


def writers_beside(profile: Path | None) -> list[Path]:
    """The -journal and -wal files beside PROFILE (a profile.pop): a program is still writing it, or
    stopped before it finished (then its last writes are lost)."""
    if profile is None:
        return []
    found = []
    for suffix in WRITER_SUFFIXES:
        writer = profile.with_name(profile.name + suffix)
        try:
            if writer.exists():
                found.append(writer)
        except OSError:  # a name too long to be there, a folder not searchable: none seen
            continue
    return found


def unfinished_notes(files: ReportFiles) -> list[str]:
    """A note (`[writing] ...`) for each writer's file beside the report's profile.pop."""
    return [f"[{NOTE_PART}] {writer}: a program is still writing profile.pop beside it, or stopped "
            "before it finished: this report may be incomplete" for writer in writers_beside(files.profile)]
