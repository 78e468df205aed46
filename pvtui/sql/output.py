"""A query's rows printed as a table (fits the terminal; plain, unwrapped, when piped), CSV (through
pvtui.files.export's writer, formula-safe), JSON (an array of objects, as `sqlite3 -json`) or Markdown.

Text from a report is made visible (pvtui.safe_text) in every format but JSON, which escapes what
needs escaping and keeps the exact text.
"""

from __future__ import annotations

import io
import sys
from typing import Any, Callable

from pvtui.files.export import csv_to, json_to
from pvtui.model.tables import Table
from pvtui.render.gate import markdown_cell
from pvtui.safe_text import visible
from pvtui.sql.engine import Result

FORMATS = ("table", "csv", "json", "md")


def cell_text(value: Any) -> str:
    """VALUE as text cells show it: NULL empty, a blob in hex, text made visible."""
    if value is None:
        return ""
    if isinstance(value, bytes):
        return f"x'{value.hex()}'"
    return visible(str(value))


def exact(value: Any) -> Any:
    """VALUE as JSON holds it: a blob as hex text, everything else as it is."""
    return value.hex() if isinstance(value, bytes) else value


def print_csv(result: Result) -> None:
    rows = ([None if v is None else cell_text(v) if isinstance(v, (str, bytes)) else v for v in row]
            for row in result.rows)
    out = io.TextIOWrapper(sys.stdout.buffer, encoding=sys.stdout.encoding or "utf-8", newline="",
                           errors="backslashreplace", write_through=True) if hasattr(sys.stdout, "buffer") else sys.stdout
    sys.stdout.flush()
    csv_to(Table("sql", [visible(c) for c in result.columns], rows), out)
    out.flush()
    if out is not sys.stdout:
        out.detach()


def print_json(result: Result) -> None:
    json_to(Table("sql", result.columns, ([exact(v) for v in row] for row in result.rows)), sys.stdout)


def print_markdown(result: Result) -> None:
    lines = ["| " + " | ".join(markdown_cell(visible(c)) for c in result.columns) + " |",
             "|" + "|".join("---:" if _numeric(result, i) else "---" for i in range(len(result.columns))) + "|"]
    lines += ["| " + " | ".join(markdown_cell(cell_text(v)) for v in row) + " |" for row in result.rows]
    print("\n".join(lines))


def _numeric(result: Result, column: int) -> bool:
    values = [row[column] for row in result.rows if row[column] is not None]
    return bool(values) and all(isinstance(v, (int, float)) for v in values)


def print_table(result: Result) -> None:
    from rich import box
    from rich.table import Table as RichTable

    from pvtui.render.console import TextConsole

    console = TextConsole()
    table = RichTable(box=box.SQUARE if console.is_terminal else None, show_edge=console.is_terminal,
                      pad_edge=console.is_terminal, header_style="bold" if console.is_terminal else "")
    for i, name in enumerate(result.columns):
        table.add_column(visible(name), justify="right" if _numeric(result, i) else "left",
                         overflow="fold")
    for row in result.rows:
        table.add_row(*(cell_text(v) for v in row))
    console.print(table)
    if console.is_terminal:
        console.print(f"{len(result.rows):,} row{'s' if len(result.rows) != 1 else ''}", style="dim", highlight=False)


PRINTERS: dict[str, Callable[[Result], None]] = {
    "table": print_table, "csv": print_csv, "json": print_json, "md": print_markdown,
}
