"""The `pvtui sql` prompt on a terminal: statements run as they complete (`;`), `.tables`, `.schema NAME`,
`.quit`; history kept between sessions in a private file; Tab completes view and column names."""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path

from pvtui.commands.common import say
from pvtui.safe_text import visible
from pvtui.sql.catalogue import VIEWS, create_statement
from pvtui.sql.engine import ALL_REPORTS, Engine, QueryError
from pvtui.sql.output import PRINTERS

HISTORY_LINES = 1000
HELP = ".tables  .schema NAME  .quit   (end a statement with ;)"


def history_path() -> Path:
    """$XDG_STATE_HOME/pvtui/sql-history, else ~/.local/state/pvtui/sql-history."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "pvtui" / "sql-history"


class Shell:
    def __init__(self, engine: Engine, output: str) -> None:
        self.engine = engine
        self.output = output
        self.words = sorted(set(VIEWS) | set(engine.names("column")) | set(engine.schemas) - {"main"}
                            | ({ALL_REPORTS} if engine.several else set()))

    def loop(self) -> int:
        import readline

        history = history_path()
        self._read_history(readline, history)
        readline.set_completer(self.complete)
        readline.set_completer_delims(" \t\n()*,;=<>+-/|.'\"")
        readline.parse_and_bind("tab: complete")
        print(f"pvtui sql over {', '.join(map(visible, self._described()))}; {HELP}")
        pending = ""
        try:
            while True:
                try:
                    line = input("...> " if pending else "sql> ")
                except KeyboardInterrupt:
                    print()
                    pending = ""
                    continue
                if not pending and line.strip().startswith("."):
                    if self.command(line.strip()) == "quit":
                        break
                    continue
                pending += line + "\n"
                if pending.strip() and self._complete_statement(pending):
                    self.run(pending)
                    pending = ""
        except EOFError:
            print()
        finally:
            self._write_history(readline, history)
        return 0

    def _described(self) -> list[str]:
        if not self.engine.several:
            return self.engine.paths
        return [f"{schema} = {path}" for schema, path in zip(self.engine.schemas, self.engine.paths)]

    @staticmethod
    def _complete_statement(text: str) -> bool:
        import sqlite3

        return sqlite3.complete_statement(text)

    def run(self, text: str) -> None:
        try:
            result = self.engine.execute(text)
        except QueryError as exc:
            say(f"pvtui sql: {exc}")
            return
        PRINTERS[self.output](result)

    def command(self, line: str) -> str | None:
        word, _, rest = line.partition(" ")
        if word in (".quit", ".exit", ".q"):
            return "quit"
        if word == ".tables":
            print("  ".join(VIEWS))
        elif word == ".schema":
            names = [rest.strip()] if rest.strip() else list(VIEWS)
            for name in names:
                view = VIEWS.get(name.rsplit(".", 1)[-1])
                if view is None:
                    say(f"pvtui sql: no view {name!r}; .tables lists them")
                else:
                    several = name.startswith(ALL_REPORTS + ".")
                    print(f"{create_statement(ALL_REPORTS if several else 'main', view, several)};  -- {view.doc}")
        elif word == ".help":
            print(HELP)
        else:
            say(f"pvtui sql: unknown command {word!r}: {HELP}")
        return None

    def complete(self, text: str, state: int) -> str | None:
        matches = [word for word in self.words if word.startswith(text.lower())]
        if not re.fullmatch(r"\w*", text):
            matches = []
        return matches[state] if state < len(matches) else None

    @staticmethod
    def _read_history(readline, path: Path) -> None:
        readline.set_history_length(HISTORY_LINES)
        with contextlib.suppress(OSError):
            readline.read_history_file(path)

    @staticmethod
    def _write_history(readline, path: Path) -> None:
        """The history, in a file only its owner can read or write (it may quote names from reports)."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
            os.close(fd)
            os.chmod(path, 0o600)
            readline.write_history_file(path)
        except OSError as exc:
            say(f"pvtui sql: history not kept: {path}: {exc.strerror or exc}")
