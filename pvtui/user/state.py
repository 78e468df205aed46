"""What pvtui remembers between runs: the reports opened before, newest first, and where each was left.

One JSON file, $XDG_STATE_HOME/pvtui/state.json (else ~/.local/state/pvtui/), in a directory this user
alone can change, 0600 in 0700 as the cache; written whole to a new file then renamed over the old, so a
reader never sees half of it. Never trusted when read back: what is not as pvtui writes it is left out
(a file that is not JSON of the right shape: all of it, with one line saying so). It holds paths, numbers
and the Programs search text; a path and the text are shown through safe_text.visible like any other.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

STATE_FILE = "state.json"
LOCK_FILE = ".state.lock"  # flock'ed while the file is read again, merged and replaced
LOCK_WAIT = 2.0  # seconds another pvtui may hold the lock before the state is written without it
VERSION = 1
MAX_BYTES = 1 << 20
MAX_RECENT = 30  # reports listed as opened before
MAX_PATH = 4096  # PATH_MAX: a longer "path" was not written by pvtui
MAX_SEARCH = 200  # characters of a remembered search
# where a report was left: the screen (an index of pvtui.commands.common.FIRST_SCREENS), Memory's selected
# tile, Liveness's cursor step, Trace's run and cycle window, the Programs search text and open programs
PLACE_FIELDS = ("screen", "tile", "step", "run", "window", "search", "expanded")
MAX_EXPANDED = 2000  # open programs remembered of a report
MAX_NUMBER = 1 << 62


@dataclass(frozen=True)
class Recent:
    """A report opened before: its directory (resolved), its name there, when it was opened and its bytes."""

    path: str
    name: str
    opened: float
    size: int
    place: dict = field(default_factory=dict, compare=False)  # PLACE_FIELDS, each checked (_place)

    @property
    def there(self) -> bool:
        return os.path.exists(self.path)


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "pvtui"


class State:
    """The state file's contents, as far as they can be trusted. With FRESH, nothing in it is offered or
    returned to (the reports opened are still recorded, the others kept)."""

    def __init__(self, directory: Path | None = None, fresh: bool = False) -> None:
        self.directory = directory or state_dir()
        self.fresh = fresh
        self.problems: list[str] = []  # one line each, naming the file
        self._changed: set[tuple[str, str]] = set()  # the reports (path, name) this process recorded
        self.recent: list[Recent] = self._read(say=True)

    @property
    def offered(self) -> list[Recent]:
        """The reports opened before, newest first: none with --fresh."""
        return [] if self.fresh else self.recent

    def place_of(self, directory: Path, name: str) -> dict:
        """Where the report NAME in DIRECTORY was left (checked fields; empty with --fresh or none known)."""
        path = os.path.realpath(directory)
        return next((dict(r.place) for r in self.offered if (r.path, r.name) == (path, name)), {})

    def left(self, directory: Path, name: str, place: dict) -> None:
        """The report NAME in DIRECTORY was left at PLACE (its fields checked again before they are kept)."""
        path = os.path.realpath(directory)
        self.recent = [replace(r, place=_place(place)) if (r.path, r.name) == (path, name) else r
                       for r in self.recent]
        self._changed.add((path, name))
        self._write()

    @property
    def path(self) -> Path:
        return self.directory / STATE_FILE

    def _read(self, say: bool) -> list[Recent]:
        """The entries of the file as far as they can be trusted; where SAY, a line in `problems` where
        none can be."""
        from pvtui.sources.private_fs import open_own, read_small

        problem = None
        try:
            fd = open_own(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return []
        except OSError as exc:
            problem = f"not read ({exc.strerror or exc})"
        else:
            try:
                data = json.loads(read_small(fd, MAX_BYTES))
            except (OSError, ValueError, RecursionError) as exc:  # not UTF-8, not JSON, too large
                problem = f"damaged ({str(exc)[:80]})"
            finally:
                os.close(fd)
        if problem is None and (not isinstance(data, dict) or data.get("version") != VERSION
                                or not isinstance(data.get("recent"), list)):
            problem = f"not pvtui's state (version {VERSION})"
        if problem is not None:
            if say:
                self.problems.append(f"{self.path}: {problem}; nothing remembered is used")
            return []
        return [entry for item in data["recent"][:MAX_RECENT] if (entry := _recent(item)) is not None]

    def opened(self, directory: Path, name: str, size: int) -> None:
        """Remember that the report NAME in DIRECTORY (SIZE bytes) was opened now, first of the recent ones."""
        path = os.path.realpath(directory)
        if len(path) > MAX_PATH:
            return
        before = next((r.place for r in self.recent if (r.path, r.name) == (path, name)), {})
        entry = Recent(path, name, time.time(), size, before)
        self.recent = [entry, *(r for r in self.recent if (r.path, r.name) != (path, name))][:MAX_RECENT]
        self._changed.add((path, name))
        self._write()

    def _merged(self) -> list[Recent]:
        """The file's entries as they are now (another pvtui may have written since), with this process's
        own in place of theirs, newest first."""
        mine = {(r.path, r.name): r for r in self.recent if (r.path, r.name) in self._changed}
        theirs = [r for r in self._read(say=False) if (r.path, r.name) not in mine]
        return sorted([*mine.values(), *theirs], key=lambda r: -r.opened)[:MAX_RECENT]

    def _write(self) -> None:
        """The state, merged with the file's (_merged) and written whole to a new private file renamed over
        the old one, under the lock; nothing where the directory is not this user's alone (another user
        could read or swap it)."""
        from pvtui.sources.private_fs import mkdir_private, replace_whole, resolved_if_trusted

        try:
            mkdir_private(self.directory)
            directory = resolved_if_trusted(self.directory)
            with _locked(directory / LOCK_FILE):
                self.recent = self._merged()
                data = json.dumps({"version": VERSION, "recent": [asdict(r) for r in self.recent]}).encode()
                replace_whole(directory / STATE_FILE, data)
        except OSError as exc:
            self.problems.append(f"{self.directory}: not written ({exc.strerror or exc}); nothing is remembered")


@contextmanager
def _locked(path: Path):
    """PATH flock'ed for the block. The kernel lets go of a lock when its holder ends, so none is left stale
    by a crash; one held longer than LOCK_WAIT (a pvtui stopped with ^Z) is passed by: the rename is whole still."""
    from pvtui.sources.private_fs import open_own

    fd = open_own(path, os.O_RDWR | os.O_CREAT)
    try:
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    break
                time.sleep(0.02)
        yield
    finally:
        os.close(fd)  # lets go of the lock


def _recent(item: object) -> Recent | None:
    """ITEM as a Recent, where it is one as pvtui writes it."""
    if not isinstance(item, dict):
        return None
    path, name, opened, size = (item.get(key) for key in ("path", "name", "opened", "size"))
    if not (isinstance(path, str) and os.path.isabs(path) and 0 < len(path) <= MAX_PATH and "\0" not in path):
        return None
    if not (isinstance(name, str) and len(name) <= MAX_PATH):
        return None
    if isinstance(opened, bool) or not isinstance(opened, (int, float)) or not math.isfinite(opened) or opened < 0:
        return None
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        return None
    return Recent(path, name, float(opened), size, _place(item.get("place")))


def _place(value: object) -> dict:
    """The fields of VALUE that are a place as pvtui writes it: whole numbers, a window [lo, hi), a short text."""
    if not isinstance(value, dict):
        return {}
    place: dict = {}
    for name in PLACE_FIELDS:
        item = value.get(name)
        if name == "search":
            if isinstance(item, str) and 0 < len(item) <= MAX_SEARCH:
                place[name] = item
        elif name == "expanded":
            if isinstance(item, list) and len(item) <= MAX_EXPANDED and all(_number(n) for n in item):
                place[name] = list(item)
        elif name == "window":
            if isinstance(item, (list, tuple)) and len(item) == 2 and all(_number(n) for n in item) \
                    and item[0] < item[1]:
                place[name] = [item[0], item[1]]
        elif _number(item):
            place[name] = item
    return place


def _number(value: object) -> bool:
    return type(value) is int and 0 <= value < MAX_NUMBER
