"""Rich output of `pvtui options` (and of the options `pvtui capture` runs with).

The options come from the user's environment or command line: what echoes them is made visible."""

from __future__ import annotations

import json

from rich.console import Console, Group
from rich.padding import Padding
from rich.text import Text

from pvtui.options.option_set import PER_ENGINE, Analysis
from pvtui.render.console import TextConsole
from pvtui.render.visible_text import visible_text

STATUS_STYLE = {"ok": "green", "unknown": "bold red", "bad value": "bold red", "not a string": "bold red"}


def option_rows(analysis: Analysis) -> Group:
    """Each option given: its status, name and value, then (indented) what it may be and what it does."""
    rows = [Text("Engine options", style="bold")]
    for entry in analysis.entries:
        status = entry["status"]
        value = entry["value"]
        rows.append(Text.assemble(("  ok " if status == "ok" else f"  {status} ", STATUS_STYLE[status]),
                                  visible_text(entry["key"], "bold"), " = ", json.dumps(value)))
        if entry["error"]:  # the option's problem, said here only
            detail = visible_text(entry["error"], "red")
            if entry["meaning"]:
                detail.append(f". {entry['meaning']}", style="dim")
        else:
            default = f"; default {entry['default']}" if entry["default"] else ""
            guide = " (named by the capture guide, not by the Engine reference)" if entry.get("source") == "guide" \
                else ""
            detail = Text.assemble((f"{entry['allowed']}{default}. ", "dim"), entry["meaning"] + guide)
        rows.append(Padding(detail, (0, 0, 0, 6)))
    return Group(*rows)


def render_problems(analysis: Analysis, console: Console) -> None:
    for error in analysis.errors:
        console.print(Text("error: ", style="bold red") + visible_text(error))
    for warning in analysis.warnings:
        console.print(Text("warning: ", style="yellow") + visible_text(warning))


def render_analysis(analysis: Analysis, console: Console | None = None) -> None:
    console = console or TextConsole()
    if analysis.entries:
        console.print(option_rows(analysis))
    render_problems(analysis, console)
    if analysis.implications:
        console.print(Text("What this set implies", style="bold"))
        for line in analysis.implications:
            console.print(Padding(visible_text(f"• {line}"), (0, 0, 0, 2)))
    if analysis.files:
        console.print(visible_text(f"Files written to {analysis.directory}", "bold"))
        console.print(Padding(Text(f"or {PER_ENGINE}", style="dim"), (0, 0, 0, 2)))
        for item in analysis.files:
            console.print(Text(f"  {item['file']}", style="bold") + Text(f"  {item['holds']}"))
    console.print(Text("valid" if analysis.valid else "not valid",
                       style="bold green" if analysis.valid else "bold red"))
