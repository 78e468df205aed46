"""The SQL engine: SQLite in memory, its tables the views of one report or several, filled from the
model's columns when a query first names them (the bundle stays the store: nothing goes to disk).

One report: its views unqualified (schema main). Several: schemas a, b, c... in the order given
(in-memory databases pvtui attaches), and under `reports.` each view of them all with a `report`
column holding the path as given: what an unqualified name means there.
"""

from __future__ import annotations

import difflib
import itertools
import re
import sqlite3
import string
from typing import Any, Callable, Iterator, NamedTuple

import numpy as np

from pvtui.model.report import Report
from pvtui.model.unavailable import Unavailable
from pvtui.sql.catalogue import VIEWS, create_statement
from pvtui.sql.guard import UNASKED, Guard, first_keyword
from pvtui.sql.views import ReportViews

ALL_REPORTS = "reports"
PROGRESS_INSTRUCTIONS = 100_000  # SQLite VM instructions between two chances to stop a query
INTERRUPTED = "interrupted"
READ_ONLY = "pvtui sql only reads (SELECT, WITH, and PRAGMAs that list)"
MISSPELT = re.compile(r"^no such (table|column|function): (\S+)")


class QueryError(Exception):
    """A query that is refused (it would write) or fails: one line."""

    def __init__(self, message: str, refused: bool = False) -> None:
        super().__init__(message)
        self.refused = refused


class Result(NamedTuple):
    columns: list[str]
    rows: list[tuple[Any, ...]]


def schema_names(count: int) -> list[str]:
    """a, b, ... z, then aa, ab, ...: one schema per report."""
    letters = string.ascii_lowercase
    names = list(letters)
    for size in itertools.count(2):
        if len(names) >= count:
            return names[:count]
        names += ["".join(p) for p in itertools.product(letters, repeat=size)]
    return names  # unreachable: count is finite


def statements(text: str) -> Iterator[str]:
    """The complete SQL statements in TEXT, in order, and what follows the last `;` as it is."""
    current = ""
    pieces = text.split(";")
    for piece in pieces[:-1]:
        current += piece + ";"
        if sqlite3.complete_statement(current):
            if current.strip(" \t\r\n;"):
                yield current.strip()
            current = ""
    current += pieces[-1]
    if current.strip(" \t\r\n;"):
        yield current.strip()


class Engine:
    def __init__(self, reports: list[tuple[str, Report]], warn: Callable[[str], None] = lambda line: None) -> None:
        """REPORTS: (the path as given, its model opened with exact text); WARN says why a view is empty."""
        self.paths = [path for path, _ in reports]
        self.views = [ReportViews(report) for _, report in reports]
        self.warn = warn
        self.schemas = ["main"] if len(reports) == 1 else schema_names(len(reports))
        # no statement cache: the guard sees every statement prepared, the second time too
        self.connection = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False,
                                          cached_statements=0)
        # reports first: SQLite looks for an unqualified name in the order attached, so with several reports
        # `steps` is reports.steps, every report's, never report a's alone
        for schema in ([ALL_REPORTS] if len(reports) > 1 else []) + self.schemas:
            if schema != "main":
                self.connection.execute(f"ATTACH DATABASE ':memory:' AS \"{schema}\"")
            self.connection.execute(f'PRAGMA "{schema}".journal_mode = OFF')  # pvtui's own tables, in memory
            for view in VIEWS.values():
                self.connection.execute(create_statement(schema, view, with_report=schema == ALL_REPORTS))
        self.filled: set[tuple[str, str]] = set()
        databases = {name: index for index, name, _ in self.connection.execute("PRAGMA database_list")}
        self.root_pages = {  # (database index, root page) -> (schema, view)
            (databases[schema], root): (schema, name) for schema in databases if schema != "temp"
            for name, root in self.connection.execute(f'SELECT name, rootpage FROM "{schema}".sqlite_master'
                                                      " WHERE type = 'table'")}
        self.guard = Guard()
        self.connection.set_authorizer(self.guard)

    @property
    def several(self) -> bool:
        return len(self.paths) > 1

    def execute(self, sql: str) -> Result:
        """The rows of one statement; raises QueryError when it is refused or fails."""
        self._check(sql)
        # Python runs signal handlers only in Python code: a handler called as the query runs lets Ctrl-C
        # end it (an exception in the handler interrupts the query: "interrupted")
        self.connection.set_progress_handler(lambda: 0, PROGRESS_INSTRUCTIONS)
        try:
            cursor = self.connection.execute(sql)
            rows = cursor.fetchall()
        except (sqlite3.Error, OverflowError) as exc:
            raise QueryError(self._problem(exc)) from None
        finally:
            self.connection.set_progress_handler(None, 1)
        return Result([d[0] for d in cursor.description or ()], rows)

    def _check(self, sql: str) -> None:
        """Prepare SQL without running it (interrupted at its first step): refuse what the guard refuses,
        then fill the views it reads."""
        if first_keyword(sql) in UNASKED:
            raise QueryError(f"refused: {first_keyword(sql)}: {READ_ONLY}", refused=True)
        self.guard.start()
        self.connection.set_progress_handler(lambda: 1, 1)
        try:
            self.connection.execute(sql)
        except (sqlite3.Error, OverflowError) as exc:
            if str(exc) != INTERRUPTED and self.guard.refused is None:
                raise QueryError(self._problem(exc)) from None
        finally:
            self.connection.set_progress_handler(None, 1)
        if self.guard.refused is not None or not self.guard.allowed_any:
            what = self.guard.refused or first_keyword(sql) or "this statement"
            raise QueryError(f"refused: {what}: {READ_ONLY}", refused=True)
        if first_keyword(sql) != "EXPLAIN":  # what a query plan shows needs no rows
            for schema_view in sorted(self._views_opened(sql) - self.filled):
                self._fill(*schema_view)

    def _views_opened(self, sql: str) -> set[tuple[str, str]]:
        """The (schema, view) tables SQL opens to read: the OpenRead instructions of its program (p2 the
        table's root page, p3 its database). Exact where the authorizer is not: a join USING a column or a
        count(*) may read a table it never reports."""
        try:
            program = self.connection.execute(f"EXPLAIN {sql}").fetchall()
        except sqlite3.Error as exc:
            raise QueryError(self._problem(exc)) from None
        opened = {(row[4], row[3]) for row in program if row[1] == "OpenRead"}
        return {self.root_pages[key] for key in opened if key in self.root_pages}

    def _fill(self, schema: str, view: str) -> None:
        self.filled.add((schema, view))
        if schema == ALL_REPORTS:
            sources = list(zip(self.paths, self.views))
        else:
            index = self.schemas.index(schema)
            sources = [(None, self.views[index])]
        names = VIEWS[view].column_names
        marks = ", ".join("?" * (len(names) + (schema == ALL_REPORTS)))
        insert = f'INSERT INTO "{schema}"."{view}" VALUES ({marks})'
        self.guard.trusted = True
        self.connection.execute("BEGIN")  # one transaction: the rows go in several times faster
        try:
            for path, views in sources:
                columns = views.columns(view)
                if isinstance(columns, Unavailable):
                    where = f" in {path}" if path else ""
                    self.warn(f"{view}{where} is empty: {columns.reason}")
                    continue
                values = [_python(columns[name]) for name in names]
                if path is not None:
                    values.insert(0, itertools.repeat(path))
                self.connection.executemany(insert, zip(*values))
        finally:
            self.connection.execute("COMMIT")
            self.guard.trusted = False

    def _problem(self, exc: Exception) -> str:
        """EXC in one line, with the nearest view or column to a name it does not know."""
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        found = MISSPELT.match(message)
        if found:
            kind, name = found.group(1), found.group(2).rsplit(".", 1)[-1]
            near = difflib.get_close_matches(name.lower(), self.names(kind), n=1, cutoff=0.6)
            if near:
                message += f"; did you mean {near[0]}?"
        return message

    def names(self, kind: str = "table") -> list[str]:
        if kind == "table":
            return list(VIEWS)
        if kind == "column":
            columns = {c.name for view in VIEWS.values() for c in view.columns}
            return sorted(columns | ({"report"} if self.several else set()))
        return []

    def close(self) -> None:
        self.connection.close()


def _python(values: Any) -> Any:
    """VALUES as SQLite takes them: numpy arrays as Python ints and floats."""
    return values.tolist() if isinstance(values, np.ndarray) else values
