"""Which bundles had every column of indices checked (model/references.py), kept in the cache directory.

A bundle may come from anyone (an export, a profile.pvtui beside a report): each column a rule covers is
checked as the bundle opens, so that one breaking its rule takes out only its part, as a damaged header
does, and the report opens without it (found later, as a screen reads it, it would end the explorer).
Checking maps every such column: numpy's import, and 50-100 MB read on a large report. A bundle found
whole is remembered by what identifies its columns' files (Bundle.files_identity: each file's inode, size,
and the times it was written and last changed, which no writer can set back), and opens without the
check next time.

The records are empty files in a folder this user alone can change: one planted by another user is never
read. Without a cache directory, or one that refuses writes, every opening checks.
"""

from __future__ import annotations

import os
from pathlib import Path

from pvtui.model.bundle import Bundle
from pvtui.sources.cache import CHECKED_BUNDLES, kept_folder
from pvtui.sources.private_fs import make_private_folder, open_own, remove_oldest, replace_whole, resolved_if_trusted

MAX_RECORDS = 2000  # the oldest are removed beyond it
SUFFIX = ".checked"


def check_unless_recorded(bundle: Bundle, cache: Path | None, lasting: bool = True) -> None:
    """Check BUNDLE's columns of indices (Bundle.check_every_reference) unless this user's cache CACHE (the
    default one where None) records that these very files were found whole. A bundle not LASTING (read into
    a temporary directory, the cache unusable) is checked, not recorded."""
    folder = kept_folder(cache, CHECKED_BUNDLES) if lasting else None
    name = bundle.files_identity + SUFFIX
    if folder is not None and _recorded(folder / name):
        return
    bundle.check_every_reference()
    if folder is not None and not bundle.damaged:
        _record(folder, name)


def _recorded(path: Path) -> bool:
    try:
        resolved_if_trusted(path.parent)
        os.close(open_own(path, os.O_RDONLY))
    except OSError:  # none, or in a folder others can write to, or not this user's plain file
        return False
    return True


def _record(folder: Path, name: str) -> None:
    try:
        folder = make_private_folder(folder)
        replace_whole(folder / name, b"")
        remove_oldest(folder, SUFFIX, MAX_RECORDS)
    except OSError:  # no cache, a full disk, another pvtui writing the same record: checked again next time
        return
