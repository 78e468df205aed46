"""`pvtui check`'s findings as Rich renderables: the command's output and the app's open-failure dialog."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from pvtui.render.console import TextConsole
from pvtui.safe_text import visible_all
from pvtui.units import count_of, format_bytes

MOST_TABLES = 4  # largest tables of profile.pop named


def check_renderables(data: dict[str, Any]) -> Group:
    """The verdict, a row per file (✓ or ✗, size, facts and problems), and what would shrink large files.

    DATA's strings (file names, JSON keys, debug layers, problems quoting paths) are made visible here:
    the explorer's dialog shows them as the command does."""
    data = visible_all(data)
    parts: list[Any] = [_verdict(data)]
    for problem in data["problems"]:
        parts.append(Text(f"  {problem}", style="red"))
    if data["files"]:
        parts.append(_files_table(data["files"]))
    advice = _advice(data["files"])
    if advice is not None:
        parts.append(advice)
    return Group(*parts)


def render_check(data: dict[str, Any]) -> None:
    TextConsole().print(check_renderables(data))


def _verdict(data: dict[str, Any]) -> Text:
    text = Text()
    bad = [name for name, check in data["files"].items() if not check["usable"]]
    if data["usable"]:
        text.append("✓ usable", style="bold green")
    else:
        text.append("✗ not usable", style="bold red")
        if bad:
            text.append(f" ({len(bad)} of {count_of(len(data['files']), 'file')})")
    text.append(f"  {data['path']}")
    if bad and not data["problems"] and all(_kind(name) in SUPPLEMENTARY for name in bad):
        # Not a contradiction with the explorer, which opens such a report and warns.
        files = "that file is" if len(bad) == 1 else "those files are"
        text.append(f"\n  {files} optional: the explorer still opens the report, with a warning", style="yellow")
    return text


SUPPLEMENTARY = ("debug.cbor", "framework.json", "app.json")  # a report opens without them


def _kind(name: str) -> str:
    """The report file NAME is (names are relative to the path checked: training/app.json)."""
    return name.rsplit("/", 1)[-1]


def _files_table(files: dict[str, Any]) -> Table:
    table = Table(box=None, show_header=False, padding=(0, 1), expand=False)
    table.add_column(no_wrap=True)
    table.add_column(style="bold", no_wrap=True)
    table.add_column(justify="right", no_wrap=True)
    table.add_column(ratio=1)
    for name, check in files.items():
        mark = Text("✓", style="green") if check["usable"] else Text("✗", style="bold red")
        findings = Text(describe(name, check["facts"]), style="dim")
        for problem in check["problems"]:
            findings.append(f"\n{problem}" if findings else problem, style="red")
        table.add_row(mark, Text(name), format_bytes(check["facts"].get("bytes")), findings)
    return table


def describe(name: str, facts: dict[str, Any]) -> str:
    """One line of what the check read in a file."""
    kind = name.rsplit("/", 1)[-1]
    if kind == "profile.pop":
        return _describe_profile(facts)
    if kind == "archive.a":
        if "members" not in facts:
            return ""
        members, valid = facts["members"], facts["valid_elf"]
        if not members:
            return "no members (tiles) read"
        elf = "all valid ELF" if members == valid else f"{valid:,} valid ELF"
        return f"{members:,} members (tiles), {elf}, {format_bytes(facts['memory_bytes'])} of tile memory"
    if kind == "debug.cbor":
        if "contexts" not in facts:
            return ""
        layers = ", ".join(facts["layers"]) or "none"
        return f"{facts['contexts']:,} debug contexts; layers: {layers}"
    if kind.endswith(".json"):
        if "keys" in facts:
            return f"JSON object: {', '.join(facts['keys'][:8])}{' …' if len(facts['keys']) > 8 else ''}"
        return f"JSON {facts['type']}" if "type" in facts else ""
    if "parts" not in facts:
        return "pvtui bundle"
    tiles = f"{count_of(facts['tiles'], 'tile')}; " if "tiles" in facts else ""
    return f"pvtui bundle: {tiles}{', '.join(facts['parts']) or 'no parts'}"


def _describe_profile(facts: dict[str, Any]) -> str:
    words = []
    if "pages" in facts:
        words.append(f"SQLite, {facts['pages']:,} pages of {facts['page_size']:,} bytes")
    if "quick_check" in facts:
        words.append(f"quick_check {facts['quick_check']}")
    tables = facts.get("tables")
    if tables is not None:
        largest = sorted(((table["rows"] or 0, name) for name, table in tables.items()), reverse=True)[:MOST_TABLES]
        listed = ", ".join(f"{name} {rows:,}" for rows, name in largest)
        more = " …" if len(tables) > MOST_TABLES else ""
        words.append(f"{count_of(len(tables), 'table')} ({listed}{more} rows)" if tables else "no tables")
    if "known_tables" in facts:
        words.append(facts["known_tables"])
    return "; ".join(words)


def _advice(files: dict[str, Any]) -> Group | None:
    """Per large file, the options that would shrink it, each above what it costs."""
    lines: list[Any] = []
    for name, check in files.items():
        if not check["advice"]:
            continue
        lines.append(Text.assemble((f" {name}", "bold"), f" {format_bytes(check['facts'].get('bytes'))}"))
        for advice in check["advice"]:
            option = f'"{advice["option"]}": "{advice["value"]}"' if advice["option"] else "in the program"
            lines.append(Padding(Text(option), (0, 0, 0, 3)))
            lines.append(Padding(Text(advice["effect"], style="dim"), (0, 0, 0, 7)))
    if not lines:
        return None
    heading = Text("To make the large files smaller, when capturing (POPLAR_ENGINE_OPTIONS):", style="bold")
    return Group(heading, *lines)
