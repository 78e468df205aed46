"""Private temporary directories ($TMPDIR/pvtui-private-XXXX): where a report is read when the
cache cannot be used. Each holds a lock file, locked for as long as its process lives: what a
killed process left is swept by a later one (and by `pvtui cache clear`). $TMPDIR must keep
what is in it from other users (`private_fs.check_parents`: a sticky /tmp does), or no private
directory is made there; a sweep removes only this user's directories, never through a link.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import shutil
import tempfile
from pathlib import Path

from pvtui.sources.private_fs import check_parents, is_own, open_own, tree_size

PRIVATE_PREFIX = "pvtui-private-"
PRIVATE_LOCK = ".pvtui-private.lock"


def private_parent(tmp: Path | None = None) -> Path:
    """TMP ($TMPDIR) resolved, once seen to keep what is in it from other users; else OSError saying why."""
    real = Path(os.path.realpath(tmp or tempfile.gettempdir()))
    check_parents(real, real)
    return real


class PrivateDir:
    """A new directory under $TMPDIR, removed on exit, its lock file held exclusively until then."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix=PRIVATE_PREFIX, dir=private_parent()))
        pending = self.path / f"{PRIVATE_LOCK}.new"
        try:
            self._fd: int | None = open_own(pending, os.O_RDONLY | os.O_CREAT | os.O_EXCL)
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            os.rename(pending, self.path / PRIVATE_LOCK)  # named once held: a sweep never finds it free while we live
        except BaseException:
            self.remove()
            raise
        atexit.register(self.remove)

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        if getattr(self, "_fd", None) is not None:
            os.close(self._fd)
            self._fd = None


def sweep_private_leftovers(tmp: Path | None = None) -> list[tuple[Path, int]]:
    """Remove the private directories killed pvtui processes left under TMP ($TMPDIR): named as
    ours, holding our lock file, this user's, and locked by no live process; (path, bytes) of each."""
    try:
        root = private_parent(tmp)
        candidates = [Path(entry.path) for entry in os.scandir(root) if entry.name.startswith(PRIVATE_PREFIX)]
    except OSError:
        return []  # no $TMPDIR, or one other users can change: nothing of ours to sweep there
    removed = []
    for path in candidates:
        if not is_own(path):
            continue  # another user's, or a symbolic link
        try:
            fd = open_own(path / PRIVATE_LOCK, os.O_RDONLY)
        except OSError:
            continue  # no lock file: not pvtui's, or one still being made
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # its process is alive
        try:
            size = tree_size(path)
            shutil.rmtree(path, ignore_errors=True)
        finally:
            os.close(fd)
        removed.append((path, size))
    return removed
