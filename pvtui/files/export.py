"""Writing a table to CSV or JSON and text to a new file, and choosing where: no textual.

Rows are streamed (a trace table may have a million), a file is never replaced unless
asked, and a write that fails or is cancelled leaves no partial file behind.
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
import stat
import tempfile
import unicodedata
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

from pvtui.model.tables import Table


def file_name(report_name: str, what: str, extension: str) -> str:
    """`REPORT-WHAT.EXT`, with anything but letters, digits, `.`, `_` and `-` made a dash."""
    stem = re.sub(r"[^\w.-]+", "-", f"{report_name}-{what}").strip("-.") or "export"
    return f"{stem}.{extension}"


def free_path(directory: Path, name: str) -> Path:
    """DIRECTORY/NAME, or NAME numbered (`a-2.csv`, `a-3.csv`, ...) when that file exists."""
    path = directory / name
    number = 2
    while path.exists():
        path = directory / f"{Path(name).stem}-{number}{Path(name).suffix}"
        number += 1
    return path


def is_inside(path: Path, directories: Iterable[Path]) -> bool:
    """True when PATH is one of DIRECTORIES or lies under one of them."""
    path = path.resolve()
    return any(path.is_relative_to(directory.resolve()) for directory in directories)


def default_directory(avoid: Iterable[Path]) -> Path:
    """The current directory, else home, else the temporary directory: the first outside AVOID."""
    avoid = list(avoid)
    candidates = (Path.cwd(), Path.home(), Path(tempfile.gettempdir()))
    return next((d for d in candidates if not is_inside(d, avoid)), candidates[-1])


def path_problem(text: str, path: Path, forbidden: Iterable[Path]) -> str:
    """Why PATH (resolved from TEXT, as typed) cannot be written to, or the empty string: nothing is
    written inside the FORBIDDEN folders (the reports')."""
    if path.is_dir():
        return f"{text} is a folder: add a file name."
    if is_inside(path, forbidden):
        return "pvtui writes nothing into the report's folder: choose another one."
    if not path.parent.is_dir():
        return f"There is no folder {path.parent}."
    if path.exists() and not path.is_file():
        return f"{text} is not a regular file."
    return ""


def shown_path(path: Path) -> str:
    """PATH relative to the current directory when it lies there, else absolute."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def name_and_folder(path: Path) -> str:
    """`NAME in FOLDER`: a narrow notification then wraps between words, not inside the file name."""
    folder = path.parent
    if folder == Path.cwd():
        return f"{path.name} in the current folder"
    home = Path.home()
    shown = Path("~") / folder.relative_to(home) if folder.is_relative_to(home) else folder
    return f"{path.name} in {shown}"


# A spreadsheet reads a cell that starts with one of these as a formula (a tab or carriage return
# before one too); a name from a report may start so. Disguised too: behind spaces (no-break, figure,
# ideographic), or as a compatibility form (fullwidth ＝＋－＠, small ﹦): judged on the cell folded by
# NFKC, its leading whitespace stripped.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def write_csv(table: Table, path: Path, overwrite: bool = False) -> int:
    """TABLE as CSV with a header row (None as an empty cell); returns the rows written.

    A text cell that a spreadsheet would run as a formula is written with a leading `'`, which
    spreadsheets take as "this is text" and do not show; numbers are written as they are.
    """
    with _new_file(path, overwrite, newline="") as out:
        return csv_to(table, out)


def csv_to(table: Table, out: IO[str]) -> int:
    """TABLE as CSV on OUT (opened with newline=""), as write_csv writes it; returns the rows written."""
    count = 0
    writer = csv.writer(out)
    writer.writerow(map(_as_text_cell, table.columns))
    for row in table.rows:
        writer.writerow(map(_as_text_cell, row))
        count += 1
    return count


def _as_text_cell(value: Any) -> Any:
    if isinstance(value, str) and runs_as_formula(value):
        return "'" + value
    return value


def runs_as_formula(text: str) -> bool:
    """Whether a spreadsheet may run TEXT, a text cell, as a formula (see FORMULA_STARTS)."""
    return text.startswith(FORMULA_STARTS) or unicodedata.normalize("NFKC", text).lstrip().startswith(FORMULA_STARTS)


def write_json(table: Table, path: Path, overwrite: bool = False) -> int:
    """TABLE as a JSON list of objects keyed by column, one per line; returns the rows written."""
    with _new_file(path, overwrite) as out:
        return json_to(table, out)


def json_to(table: Table, out: IO[str]) -> int:
    """TABLE as write_json writes it, on OUT; returns the rows written."""
    count = 0
    columns = table.columns
    out.write("[")
    for row in table.rows:
        out.write(",\n" if count else "\n")
        out.write(_json_object(columns, row))
        count += 1
    out.write("\n]\n" if count else "]\n")
    return count


def write_text(text: str, path: Path, overwrite: bool = False) -> None:
    with _new_file(path, overwrite) as out:
        out.write(text)


def os_problem(path: Path, exc: OSError) -> str:
    """One line naming the file and what the system said, e.g. `out.csv: Permission denied`."""
    if isinstance(exc, FileExistsError):
        return f"{exc.filename or path}: the file exists; nothing was replaced"
    return f"{exc.filename or path}: {exc.strerror or exc}"


@contextmanager
def _new_file(path: Path, overwrite: bool, newline: str | None = None) -> Iterator[IO[str]]:
    """A file that becomes PATH once written: refused when PATH exists unless OVERWRITE.

    A new file is created in place and removed if the write fails; a replacement is
    written beside PATH and renamed over it, so a failed write leaves the old file whole.
    """
    if overwrite:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        out = open(handle, "w", encoding="utf-8", newline=newline)
        target = Path(temporary)
    else:
        out = open(path, "x", encoding="utf-8", newline=newline)
        target = path
    try:
        with out:
            yield out
        if overwrite:
            if path.exists():  # mkstemp's file is private: keep the mode of the file replaced
                os.chmod(target, stat.S_IMODE(path.stat().st_mode))
            os.replace(target, path)
    except BaseException:
        target.unlink(missing_ok=True)
        raise


def _json_object(columns: list[str], row: Iterable[Any]) -> str:
    values = list(row)
    try:
        return json.dumps(dict(zip(columns, values)), ensure_ascii=False, allow_nan=False, default=_plain)
    except ValueError:  # NaN or infinity, which JSON cannot hold: null, as for any missing value
        finite = [None if isinstance(v, float) and not math.isfinite(v) else v for v in values]
        return json.dumps(dict(zip(columns, finite)), ensure_ascii=False, default=_plain)


def _plain(value: Any) -> Any:
    """numpy scalars as the Python values they hold."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not a plain value")
