"""The app's stylesheets as Textual parsed them, kept between runs in the cache directory.

Textual's CSS parser reads about 6,000 instructions a character: the sources of a start on the Memory
screen took 53 M instructions to parse, 6% of all it runs to the report shown; read back from here, a
fraction of that. Each source's parse has a file of its own, named by what it depends on: Textual's
version, the CSS variables (the theme), the source and where it was read from.

The files are pickles, which run code as they are read (as Python's own bytecode caches do): the folder
is kept to this user alone, as the cache's entries are, and a file is read only where it is this user's
plain file in it. A file that cannot be read, or holds something else, is left aside: the sources are
parsed as without one, and written again.
"""

from __future__ import annotations

import os
import pickle
import sys
import threading
from pathlib import Path
from typing import Any

from pvtui.process.digest import digest
from pvtui.sources.private_fs import (make_private_folder, open_own, read_small, remove_oldest, replace_whole,
                                     resolved_if_trusted)

MAX_BYTES = 1 << 20  # of one source's parse
MAX_FILES = 2000  # the oldest are removed beyond it: 40-60 sources a theme tried, for each Textual installed


def parsed_css_folder(cache: Path | None) -> Path | None:
    """Where the parses are kept for the cache directory CACHE (the default one where None); None where
    there is no cache directory."""
    from pvtui.sources.cache import PARSED_CSS, kept_folder

    return kept_folder(cache, PARSED_CSS)


class ParsedCss:
    """The parses kept in FOLDER (none where None), and those made since, written by `save`: a file each, named
    by what the parse depends on (VERSION, the variables, the source and where it was read from)."""

    def __init__(self, folder: Path | None, version: str) -> None:
        self.folder = folder
        self.version = version  # Textual's (textual_installed): the classes pickled are its own
        self._trusted: Path | None = None  # the folder resolved, once seen to be this user's alone
        self._checked = False  # whether it was looked at (once: a folder made by `save` is read from next run)
        self._variables: tuple[dict[str, str], str] | None = None  # the last variables, and their digest
        self._new: dict[str, list[Any]] = {}  # by file name
        self._lock = threading.Lock()  # `keep` runs as the app parses, `save` in a worker

    def file_name(self, variables: dict[str, str], key: tuple) -> str:
        # The digest of the variables is worked out once for each dict Textual holds (it sets a new one, never
        # changes one in place); holding it here, its id cannot be another's.
        if self._variables is None or self._variables[0] is not variables:
            text = "\0".join(f"{name}={value}" for name, value in sorted(variables.items()))
            self._variables = (variables, _digest(text))
        return _digest("\0".join([self.version, self._variables[1], repr(key)])) + ".pickle"

    def parsed(self, variables: dict[str, str], key: tuple) -> list[Any] | None:
        """The rules of the source KEY as parsed with VARIABLES before, else None."""
        folder = self._folder()
        if folder is None:
            return None
        try:
            fd = open_own(folder / self.file_name(variables, key), os.O_RDONLY)
        except OSError:
            return None
        try:
            rules = pickle.loads(read_small(fd, MAX_BYTES))
        except Exception:  # damaged, or pickled by another Textual: whatever unpickling raises
            return None
        finally:
            os.close(fd)
        return rules if isinstance(rules, list) else None

    def keep(self, variables: dict[str, str], key: tuple, rules: list[Any]) -> None:
        """The source KEY, parsed with VARIABLES into RULES: to be written by the next `save`."""
        with self._lock:
            self._new[self.file_name(variables, key)] = rules

    def save(self) -> None:
        """Write the parses made since the last save; nothing where the folder cannot be made this user's
        alone, or the disk refuses."""
        with self._lock:
            new, self._new = self._new, {}
        if not new or self.folder is None:
            return
        try:
            folder = make_private_folder(self.folder)
            for name, rules in new.items():
                replace_whole(folder / name, pickle.dumps(rules, protocol=pickle.HIGHEST_PROTOCOL))
            remove_oldest(folder, ".pickle", MAX_FILES)
        except Exception:  # housekeeping, as the app starts or ends: a parse not written is parsed again next run
            return

    def _folder(self) -> Path | None:
        if not self._checked and self.folder is not None:
            try:
                self._trusted = resolved_if_trusted(self.folder)
            except OSError:
                pass  # missing, or others could write to it: nothing in it is read
        self._checked = True
        return self._trusted


def _digest(text: str) -> str:
    return digest(text)[:32]


def textual_installed() -> str:
    """Textual as installed here: where its CSS model is and when that file was written (an upgrade writes it
    anew; asking importlib.metadata for the version costs 1-3 ms), and Python's version."""
    import textual.css.model

    st = os.stat(textual.css.model.__file__)
    return f"{textual.css.model.__file__} {st.st_mtime_ns} {st.st_size} {st.st_ino}, python {sys.version}"
