"""The cache of bundles: immutable entries shared safely by any number of this user's pvtui processes.

The cache directory must be this user's alone (`private_fs.resolved_if_trusted`); in it:
  KEY/                   an entry (a report's bundle, or the demo report): built in a temporary
                         directory, marked by the file KEY/.pvtui-entry, made 0700/0600 and
                         renamed into place whole, never changed afterwards
  .KEY.pvtui-lock        its lock (fcntl.flock): held exclusively by the one process that builds
                         or removes KEY, shared by every process that uses KEY, so an entry in
                         use is never removed and a build is waited for, then shared
  .KEY.pvtui-tmp-XXXX    a build under way, or one a killed process left: removed by the next
                         process that holds the lock exclusively (the kernel frees a dead
                         process's locks, so holding it proves no live process owns the directory)
Anything else there is not pvtui's: it is never used, listed as an entry, or removed, and no
symbolic link there is followed; `Cache.scan` names it as skipped. Entries of a pvtui before the
marker have none: they are skipped too, and their keys (ENTRY_FORMAT) are never this pvtui's.
The cache is an optimisation, never a requirement: where it cannot be used, `cached_or_private`
builds into a private temporary directory (`private_tmp`), removed on exit, and says why.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import shutil
import stat
import tempfile
import time
import weakref
from pathlib import Path
from typing import Callable, NamedTuple, TypeVar

from pvtui.errors import BundleWriteError, ReportError
from pvtui.files.regular import BUNDLE_JSON_LIMIT, read_regular
from pvtui.sources.private_fs import (
    is_own, make_private, mkdir_private, open_own, remove_own_dir, resolved_if_trusted, tree_size,
    write_new,
)
from pvtui.sources.private_tmp import PrivateDir, sweep_private_leftovers

T = TypeVar("T")
DEFAULT_MAX_BYTES = 10 * 2**30
SIZE_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
LOCK_SUFFIX = ".pvtui-lock"
TMP_MARK = ".pvtui-tmp-"
ENTRY_MARKER = ".pvtui-entry"
MARKER_TEXT = b"A pvtui cache entry: `pvtui cache` lists it, `pvtui cache clear` removes it.\n"
PARSED_CSS = ".parsed-css"  # the stylesheets Textual parsed (pvtui.ui.parsed_css)
CHECKED_BUNDLES = ".checked-bundles"  # the bundles whose columns were checked whole (sources/checked_bundles.py)
KEPT_FOLDERS = (PARSED_CSS, CHECKED_BUNDLES)  # pvtui's folders beside the entries: not entries, nor another's
ENTRY_FORMAT = 2  # part of every key: 2, marked entries (the unmarked of format 1 are never taken for ours)
BUILD_ATTEMPTS = 3  # an entry evicted between its build and its use is built again, not forever
# Polls of a lock that others hold shared while the entry is missing or damaged: they hold it
# for a moment (checking it), unless a process still uses a damaged entry (then give up).
BUSY_POLLS = 100
POLL_SECONDS = 0.05
_HELD_FOR_LIFE: list["EntryLock"] = []  # locks of entries whose users cannot be weakly referenced


class CacheUnusable(Exception):
    """The cache cannot be used here; the text says why, in one line."""


def cache_dir() -> Path:
    """$PVTUI_CACHE_DIR, else $XDG_CACHE_HOME/pvtui, else ~/.cache/pvtui."""
    override = os.environ.get("PVTUI_CACHE_DIR")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pvtui"


def kept_folder(cache: Path | None, name: str) -> Path | None:
    """The folder NAME (one of KEPT_FOLDERS) in the cache directory CACHE (the default one where None); None
    where there is no cache directory."""
    try:
        return (cache if cache is not None else cache_dir()) / name
    except RuntimeError:  # no $HOME and no passwd entry
        return None


def parse_size(text: str) -> int:
    """Bytes from `500M`, `10G`, `1.5GiB`, `2T` or a plain number of bytes (binary multiples)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*([KMGT]?)(?:i?B)?\s*", text, re.IGNORECASE)
    if match is None:
        raise ValueError(f"{text!r} is not a size such as 500M or 10G")
    return int(float(match.group(1)) * SIZE_UNITS[match.group(2).upper()])


def max_bytes() -> int:
    """The cache's size cap: $PVTUI_CACHE_MAX, else 10 GiB."""
    text = os.environ.get("PVTUI_CACHE_MAX")
    if not text:
        return DEFAULT_MAX_BYTES
    try:
        return parse_size(text)
    except ValueError as exc:
        raise CacheUnusable(f"PVTUI_CACHE_MAX: {exc}") from None


def _why(path: Path, exc: OSError) -> str:
    where = exc.filename or path
    if isinstance(exc, (FileExistsError, NotADirectoryError)):
        return f"{where}: a file is in the way"
    if exc.errno == errno.ELOOP:
        return f"{where}: a symbolic link is in the way (never followed)"
    return f"{where}: {exc.strerror or exc}"


class EntryLock:
    """An flock on a lock file, as that file is now: one removed and created again while we
    waited is opened again, so two processes never believe they hold different locks of a key."""

    def __init__(self, fd: int) -> None:
        self.fd: int | None = fd

    @classmethod
    def take(cls, path: Path, mode: int, wait: Callable[[], None] | None = None) -> "EntryLock | None":
        """The lock (LOCK_SH or LOCK_EX); None when others hold it and WAIT is None, else WAIT()
        is called between polls (it may raise, e.g. Cancelled). The lock file is opened or
        created as this user's plain file, never through a symbolic link planted in its place."""
        delay = 0.01
        while True:
            fd = open_own(path, os.O_RDONLY | os.O_CREAT)  # shared by every process: O_EXCL cannot be
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                if wait is None:
                    return None
                wait()
                time.sleep(delay)
                delay = min(delay * 2, 0.1)
                continue
            except BaseException:
                os.close(fd)
                raise
            if _same_file(fd, path):
                return cls(fd)
            os.close(fd)

    def touch(self) -> None:
        """Mark the entry used now (its lock's mtime)."""
        try:
            os.utime(self.fd)
        except OSError:
            pass

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def keep_while(self, user: object) -> None:
        """Hold the lock as long as USER lives (for the whole process if it cannot be weakly referenced)."""
        try:
            weakref.finalize(user, self.release)
        except TypeError:
            _HELD_FOR_LIFE.append(self)


def _same_file(fd: int, path: Path) -> bool:
    try:
        now = os.lstat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino)


def is_entry(path: Path) -> bool:
    """True when PATH is a cache entry: a directory of this user's holding pvtui's marker."""
    if not is_own(path):
        return False
    try:
        fd = open_own(path / ENTRY_MARKER, os.O_RDONLY)
    except OSError:
        return False
    try:
        return os.read(fd, len(MARKER_TEXT) + 1) == MARKER_TEXT
    finally:
        os.close(fd)


def _why_not_an_entry(path: Path) -> str:
    """Why PATH, in the cache directory, is not pvtui's to list, use or remove."""
    try:
        st = os.lstat(path)
    except OSError as exc:
        return exc.strerror or str(exc)
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link (never followed)"
    if st.st_uid != os.geteuid():
        return f"owned by uid {st.st_uid}"
    if not stat.S_ISDIR(st.st_mode) or path.name.startswith("."):
        return "not pvtui's"
    return f"no {ENTRY_MARKER} marker"


class Entry(NamedTuple):
    """One cached entry, as `pvtui cache` lists it. (NamedTuples here: imported at every open, the two frozen
    dataclasses took 3 ms to make.)"""

    key: str
    path: Path
    report: str  # the report it was read from, or its own path for a report directory (the demo)
    size: int
    last_used: float  # seconds since the epoch
    in_use: bool


class Skipped(NamedTuple):
    """Something in the cache directory that is not pvtui's, left as it is."""

    path: Path
    reason: str


class Cache:
    """The cache directory ROOT (default: `cache_dir()`)."""

    def __init__(self, root: Path | None = None) -> None:
        if root is None:
            try:
                root = cache_dir()
            except RuntimeError as exc:  # no $HOME and no passwd entry
                raise CacheUnusable(f"no cache directory ({exc}): set PVTUI_CACHE_DIR") from None
        self.root = Path(root)

    def _trust(self, create: bool = False) -> None:
        """Make ROOT the directory resolved, once it is seen to be this user's alone (created
        0700 where missing, with CREATE); CacheUnusable says why not."""
        try:
            if create:
                mkdir_private(self.root)
            self.root = resolved_if_trusted(self.root)
        except OSError as exc:
            raise CacheUnusable(_why(self.root, exc)) from None

    def _lock(self, key: str) -> Path:
        return self.root / f".{key}{LOCK_SUFFIX}"

    # Using entries ------------------------------------------------------------------

    def held(self, key: str, open_entry: Callable[[Path], T | None]) -> T | None:
        """The entry KEY opened by OPEN_ENTRY and held while its result lives; None when it is
        missing, being built, unusable, or the cache cannot be used. Never waits, never builds."""
        try:
            self._trust()
            lock = EntryLock.take(self._lock(key), fcntl.LOCK_SH) if is_entry(self.root / key) else None
        except (OSError, CacheUnusable):
            return None
        return None if lock is None else self._use(lock, key, open_entry)

    def hold(
        self,
        key: str,
        build: Callable[[Path], None],
        open_entry: Callable[[Path], T | None],
        wait: Callable[[], None] = lambda: None,
    ) -> T:
        """The entry KEY opened by OPEN_ENTRY (None: missing or damaged), built by BUILD(dest)
        first where needed; held while the result lives.

        One process builds a key while the others wait (calling WAIT between polls) and then
        share it. Raises CacheUnusable when the cache cannot be created, trusted or written;
        what BUILD raises otherwise (a report that cannot be read, Cancelled) leaves nothing behind.
        """
        self._trust(create=True)
        cap = max_bytes()
        builds = busy = 0
        while True:
            try:
                reader = EntryLock.take(self._lock(key), fcntl.LOCK_SH, wait)  # waits out a build
            except OSError as exc:
                raise CacheUnusable(_why(self.root, exc)) from None
            found = self._use(reader, key, open_entry)
            if found is not None:
                if builds:
                    self.evict(cap)
                return found
            if builds == BUILD_ATTEMPTS:
                raise ReportError(self.root / key, "cannot be opened right after it was written")
            builder = EntryLock.take(self._lock(key), fcntl.LOCK_EX)
            if builder is None:
                busy += 1
                if busy == BUSY_POLLS:
                    raise CacheUnusable(f"{self.root / key}: damaged, and still used by another process")
                wait()
                time.sleep(POLL_SECONDS)
                continue
            try:
                builds += self._build(key, build, open_entry)
            finally:
                builder.release()

    def _use(self, lock: EntryLock, key: str, open_entry: Callable[[Path], T | None]) -> T | None:
        """OPEN_ENTRY's result with LOCK kept while it lives, or None (lock released)."""
        try:
            found = open_entry(self.root / key) if is_entry(self.root / key) else None
        except BaseException:
            lock.release()
            raise
        if found is None:
            lock.release()
            return None
        lock.touch()
        lock.keep_while(found)
        return found

    def _build(self, key: str, build: Callable[[Path], None], open_entry: Callable[[Path], object]) -> int:
        """With KEY's lock held exclusively: build it unless a racing process just did; 1 if built."""
        entry = self.root / key
        try:
            self._remove_temporaries(key)
            if is_entry(entry):
                if open_entry(entry) is not None:  # built while we waited for the lock
                    return 0
                self._discard(entry)  # damaged, and no process holds it
            elif os.path.lexists(entry):
                raise CacheUnusable(f"{entry}: in the way of a cache entry, left as it is ({_why_not_an_entry(entry)})")
            tmp = Path(tempfile.mkdtemp(prefix=f".{key}{TMP_MARK}", dir=self.root))
            try:
                build(tmp / key)  # named as it will be: a report directory (the demo) takes its name
                _seal(tmp / key)
                _commit(tmp / key, entry)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        except BundleWriteError as exc:
            raise CacheUnusable(_why(self.root, exc.error)) from None
        except OSError as exc:
            raise CacheUnusable(_why(self.root, exc)) from None
        finally:
            if not is_entry(entry):
                _unlink(self._lock(key))  # nothing to lock: leave no trace of a failed build
        return 1

    def _discard(self, entry: Path) -> None:
        """Rename ENTRY out of the way (so it never looks whole half-deleted), then delete it."""
        doomed = Path(tempfile.mkdtemp(prefix=f".{entry.name}{TMP_MARK}", dir=self.root))
        os.rename(entry, doomed / "entry")
        shutil.rmtree(doomed, ignore_errors=True)

    def _remove_temporaries(self, key: str) -> None:
        """KEY's temporary directories: with its lock held exclusively, no live process owns them."""
        for path in self.root.glob(f".{glob_escape(key)}{TMP_MARK}*"):
            remove_own_dir(path)

    # Growth -------------------------------------------------------------------------

    def scan(self) -> tuple[list[Entry], list[Skipped]]:
        """Every entry, least recently used first, and what else is in the directory (never touched).
        Raises CacheUnusable when the directory is not this user's alone."""
        if not os.path.lexists(self.root):
            return [], []
        self._trust()
        try:
            names = sorted(os.listdir(self.root))
        except OSError as exc:
            raise ReportError(self.root, exc.strerror or str(exc)) from None
        entries, skipped = [], []
        for name in names:
            path = self.root / name
            if is_entry(path):
                entries.append(Entry(name, path, _report_of(path), tree_size(path), self._last_used(path),
                                     self._in_use(name)))
            elif self._key_of_own(path) is None and not (name in KEPT_FOLDERS and is_own(path)):
                skipped.append(Skipped(path, _why_not_an_entry(path)))
        return sorted(entries, key=lambda e: e.last_used), skipped

    def _key_of_own(self, path: Path) -> str | None:
        """The key of PATH when it is one of pvtui's lock files or temporary directories."""
        name = path.name[1:]
        if not path.name.startswith("."):
            return None
        if TMP_MARK in name and is_own(path):
            return name.rsplit(TMP_MARK, 1)[0]
        if name.endswith(LOCK_SUFFIX) and is_own(path, stat.S_IFREG):
            return name[: -len(LOCK_SUFFIX)]
        return None

    def _exclusive(self, key: str) -> EntryLock | None:
        """KEY's lock held exclusively; None when a process holds it, or it cannot be created."""
        try:
            return EntryLock.take(self._lock(key), fcntl.LOCK_EX)
        except OSError:
            return None

    def _in_use(self, key: str) -> bool:
        lock = self._exclusive(key)
        if lock is None:
            return os.path.lexists(self._lock(key))
        lock.release()
        return False

    def _last_used(self, entry: Path) -> float:
        for path in (self._lock(entry.name), entry):
            try:
                return os.lstat(path).st_mtime
            except OSError:
                continue
        return 0.0

    def remove(self, key: str) -> bool:
        """Remove entry KEY unless a process holds it; True when it is gone."""
        lock = self._exclusive(key)
        if lock is None:
            return False
        try:
            entry = self.root / key
            if is_entry(entry):
                self._discard(entry)
            self._remove_temporaries(key)
            _unlink(self._lock(key))  # under the lock: a process that opened it will open it again
        except OSError:
            return False
        finally:
            lock.release()
        return True

    def clear(self, older_than: float | None = None) -> tuple[list[Entry], list[Entry], list[Skipped]]:
        """Remove the entries not used for OLDER_THAN seconds (all by default) that no process
        holds, and what killed builds left; the entries (removed, kept because in use), and
        what is not pvtui's (left as it is)."""
        removed, kept = [], []
        now = time.time()
        entries, skipped = self.scan()
        for entry in entries:
            if older_than is not None and now - entry.last_used < older_than:
                continue
            (removed if self.remove(entry.key) else kept).append(entry)
        self.remove_leftovers()
        return removed, kept, skipped

    def evict(self, cap: int) -> None:
        """Remove least recently used entries that no process holds until the cache fits in CAP bytes."""
        try:
            entries, _skipped = self.scan()
            total = sum(e.size for e in entries)
            for entry in entries:
                if total <= cap:
                    break
                if not entry.in_use and self.remove(entry.key):
                    total -= entry.size
            self.remove_leftovers()
        except (OSError, ReportError, CacheUnusable):
            pass  # eviction is housekeeping: the entry in hand is open either way

    def remove_leftovers(self) -> None:
        """Temporary directories that no live process owns, and locks of entries that are gone."""
        keys = {self._key_of_own(path) for path in self.root.glob(".*")} - {None}
        for key in keys:
            if not is_entry(self.root / key):
                self.remove(key)
            else:
                lock = self._exclusive(key)
                if lock is not None:
                    self._remove_temporaries(key)
                    lock.release()


def _seal(built: Path) -> None:
    """Mark BUILT as an entry of the cache, and make it the user's alone."""
    write_new(built / ENTRY_MARKER, MARKER_TEXT)
    make_private(built)


def _commit(built: Path, entry: Path) -> None:
    """Rename BUILT into place, whole; where a racing twin did first (a file system flock does
    not reach, as some NFS), theirs stays and ours is dropped."""
    try:
        os.rename(built, entry)
    except OSError as exc:
        if exc.errno not in (errno.EEXIST, errno.ENOTEMPTY):
            raise


def glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def _unlink(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _report_of(entry: Path) -> str:
    """The report directory a bundle entry was read from (its files' folder), else the entry itself."""
    try:
        meta = json.loads(read_regular(entry / "meta.json", BUNDLE_JSON_LIMIT).decode("utf-8"))
        paths = [stamp["path"] for stamp in meta.get("files", {}).values() if stamp]
        return str(Path(paths[0]).parent) if paths else str(meta.get("name") or entry)
    except (OSError, ValueError, AttributeError, KeyError, TypeError):  # damaged: a path that is no text too
        return str(entry)


# Without the cache ---------------------------------------------------------------------


def cached_or_private(
    root: Path | None,
    key: str,
    build: Callable[[Path], None],
    open_entry: Callable[[Path], T | None],
    wait: Callable[[], None] = lambda: None,
) -> tuple[T, str | None]:
    """The entry KEY from the cache (see `Cache.hold`), and None; or, where the cache cannot be
    used, one built in a private temporary directory removed on exit, and why the cache was not used."""
    sweep_private_leftovers()
    try:
        return Cache(root).hold(key, build, open_entry, wait), None
    except CacheUnusable as exc:
        unused = f"cache not used ({exc})"
    try:
        private = PrivateDir()
    except OSError as exc:
        raise ReportError(exc.filename or tempfile.gettempdir(), f"{exc.strerror or exc}, and {unused}") from None
    try:
        build(private.path / key)
        _made_private(private.path / key)
        found = open_entry(private.path / key)
    except BaseException as exc:
        private.remove()
        if isinstance(exc, BundleWriteError):
            raise ReportError(private.path, f"{exc.error.strerror or exc.error}, and {unused}") from None
        raise
    if found is None:
        private.remove()
        raise ReportError(private.path / key, "cannot be opened right after it was written")
    return found, f"{unused}; read into a temporary directory, removed on exit"


def _made_private(built: Path) -> None:
    try:
        make_private(built)
    except OSError as exc:
        raise BundleWriteError(built, exc) from None
