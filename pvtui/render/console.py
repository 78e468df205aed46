"""The console the commands print to: Rich's, reading no markup, in ASCII on a basic console (TERM=linux),
as the screens are.

Strings print as they are: a name like `[bold]x` or `:cat:` is itself, never markup or an emoji code
(what a command prints quotes the report's names; pvtui.safe_text made them visible). On a basic
console every glyph of render/glyphs.py's table (box lines, blocks, marks, the typography of the text)
is written as its ASCII; letters from a report's names are left as they are.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO

from rich.console import Console

from pvtui.render.glyphs import ascii_glyphs, basic_console


class AsciiWriter:
    """STREAM, written to in ASCII glyphs; everything else (isatty, fileno, flush) is STREAM's."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(ascii_glyphs(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


PIPED_WIDTH = 1000  # a pipe or file has no width: a table row or a sentence stays on one line for grep and cut


class TextConsole(Console):
    def __init__(self, **options: Any) -> None:
        options.setdefault("markup", False)
        options.setdefault("emoji", False)
        if basic_console() and options.get("file") is None:
            options["file"] = AsciiWriter(sys.stderr if options.get("stderr") else sys.stdout)
        super().__init__(**options)
        if options.get("width") is None and not self.is_terminal and not os.environ.get("COLUMNS"):
            self.width = PIPED_WIDTH
