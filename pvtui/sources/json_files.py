"""framework.json and app.json: free-form JSON kept whole for the Summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pvtui.model import schema as s
from pvtui.files.regular import read_regular
from pvtui.sources.base import IngestContext

MAX_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 100
DOCUMENTS = {"framework": s.FRAMEWORK_JSON, "app": s.APP_JSON}


class UnusableJson(Exception):
    """Why the file cannot be kept: one line for the report's notes."""


def read_json(path: Path, ctx: IngestContext, part: str) -> None:
    """Keep PATH as the bundle's framework.json or app.json (PART "framework" or "app")."""
    document = DOCUMENTS[part]
    try:
        value = load_json(Path(path))
    except UnusableJson as problem:
        ctx.note(part, f"{path}: {problem}")
        return
    ctx.writer.write_json(document, value)
    ctx.add_part(part)


def load_json(path: Path) -> Any:
    """The JSON value in PATH; raises UnusableJson saying why it cannot be used."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            limit = MAX_BYTES // 2**20
            raise UnusableJson(f"{size:,} bytes, larger than the {limit:,} MB read for a JSON file")
        raw = read_regular(path, MAX_BYTES)
    except OSError as exc:
        raise UnusableJson(f"cannot read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UnusableJson(f"not UTF-8 text (byte {exc.start})") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise UnusableJson(f"not valid JSON ({where}: {exc.msg})") from None
    except (ValueError, RecursionError) as exc:  # integers beyond str() limits, deep nesting
        raise UnusableJson(f"not usable JSON ({_first_line(exc)})") from None
    if _deeper_than(value, MAX_DEPTH):
        raise UnusableJson(f"JSON nested deeper than {MAX_DEPTH} levels")
    return value


def _deeper_than(value: Any, limit: int) -> bool:
    """True when VALUE nests more than LIMIT arrays and objects (walked without recursion)."""
    level = [value]
    for _ in range(limit):
        level = [
            child
            for item in level
            if isinstance(item, (dict, list))
            for child in (item.values() if isinstance(item, dict) else item)
            if isinstance(child, (dict, list))
        ]
        if not level:
            return False
    return bool(level)


def _first_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0]
