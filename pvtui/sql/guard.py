"""The read-only guard: an SQLite authorizer that lets a query read and nothing else.

Every action a statement asks for is checked when it is prepared: reading the views,
calling functions, recursive common table expressions and the pragmas that only list
(table_info...). Anything else (writing, creating, attaching a file, a pragma that sets,
a transaction) is refused. VACUUM asks the authorizer nothing, so a statement that asked
for no allowed action at all is refused too.
"""

from __future__ import annotations

import re
import sqlite3

LEADING_COMMENTS = re.compile(r"(\s+|--[^\n]*(\n|$)|/\*.*?(\*/|$))*", re.DOTALL)
UNASKED = {"VACUUM"}  # statements SQLite asks the authorizer nothing about: refused before they are prepared
ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
LISTING_PRAGMAS = {"table_info", "table_xinfo", "table_list", "database_list", "function_list", "pragma_list",
                   "collation_list", "module_list", "compile_options", "index_list", "index_info"}
SCHEMA_TABLES = {"sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"}
ACTION_NAMES = {value: name.removeprefix("SQLITE_") for name, value in vars(sqlite3).items()
                if name.startswith("SQLITE_") and isinstance(value, int) and name not in (
                    "SQLITE_OK", "SQLITE_DENY", "SQLITE_IGNORE") and not name.startswith("SQLITE_LIMIT")
                and 0 < value <= 33}


class Guard:
    """The authorizer of the engine's connection; `trusted` while the engine fills its own tables."""

    def __init__(self) -> None:
        self.trusted = False
        self.refused: str | None = None  # the first action refused, named
        self.allowed_any = False
        self.first_action: int | None = None

    def start(self) -> None:
        self.refused, self.allowed_any, self.first_action = None, False, None

    def __call__(self, action: int, arg1: str | None, arg2: str | None, schema: str | None, _trigger) -> int:
        if self.trusted:
            return sqlite3.SQLITE_OK
        if self.first_action is None:
            self.first_action = action
        if self._allows(action, arg1, arg2):
            self.allowed_any = True
            return sqlite3.SQLITE_OK
        if self.refused is None:
            self.refused = _described(action, arg1, arg2)
        return sqlite3.SQLITE_DENY

    def _allows(self, action: int, arg1: str | None, arg2: str | None) -> bool:
        if action in ALLOWED:
            return True
        if action == sqlite3.SQLITE_PRAGMA:
            return (arg1 or "").lower() in LISTING_PRAGMAS
        # a table-valued pragma (SELECT * FROM pragma_table_info('steps')) reads the schema this way
        return (action == sqlite3.SQLITE_UPDATE and self.first_action == sqlite3.SQLITE_SELECT
                and arg1 in SCHEMA_TABLES)


def _described(action: int, arg1: str | None, arg2: str | None) -> str:
    name = ACTION_NAMES.get(action, str(action)).replace("_", " ")
    if action == sqlite3.SQLITE_PRAGMA:
        return f"PRAGMA {arg1}" + (f" = {arg2}" if arg2 is not None else "")
    return name + (f" {arg1}" if arg1 and action not in (sqlite3.SQLITE_TRANSACTION,) else "")


def first_keyword(sql: str) -> str:
    """The statement's first word, upper case, after any comments."""
    rest = sql[LEADING_COMMENTS.match(sql).end():]
    word = re.match(r"\w*", rest).group()
    return word.upper()
