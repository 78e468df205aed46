"""FactLines draws a fact table exactly as the Rich grid it replaces, at every width."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st
from rich.columns import Columns
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text

from pvtui.render.fact_lines import FactLines

WORDS = st.sampled_from(["tile", "34:", "659.9", "KiB", "OnTileExecute", "a" * 30, "(a1b2c3d4e5)", "—", "✓",
                         "界面", ""])
TEXTS = st.builds(lambda words, style: Text(" ".join(words), style=style),
                  st.lists(WORDS, max_size=12), st.sampled_from(["", "dim", "bold", "red on blue"]))
FILES = st.builds(lambda words: Columns([Text(w) for w in words], padding=(0, 3)), st.lists(WORDS, min_size=1, max_size=5))
LABELS = st.sampled_from(["Type", "Memory per tile", "Time at the clock", "Present", "x", "界"])
ROWS = st.lists(st.tuples(LABELS, st.one_of(TEXTS, FILES)), max_size=6)
TITLES = st.sampled_from(["Target", "Files", "A long title " * 6])


def rich_grid(title, rows) -> Table:
    """The table the Summary drew before FactLines."""
    table = Table(title=title, title_justify="left", show_header=False, box=None, padding=(0, 1), title_style="bold")
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for label, value in rows:
        table.add_row(label, value)
    return table


def cells(renderable, width: int) -> list[list[tuple[str, Style]]]:
    """Each line's cells, as characters and their styles (a null style and none are one)."""
    console = Console(width=width, force_terminal=True, color_system="truecolor")
    lines = Segment.split_lines(console.render(renderable, console.options.update(highlight=False)))
    return [[(char, segment.style or Style()) for segment in line for char in segment.text] for line in lines]


@settings(max_examples=100)
@given(TITLES, ROWS, st.integers(1, 140))
def test_fact_lines_draw_as_the_rich_grid(title, rows, width):
    assert cells(FactLines(title, rows), width) == cells(rich_grid(title, rows), width)


def test_the_comparison_can_fail():
    rows = [("Type", Text("Ipu")), ("Clock", Text("1.33 GHz"))]
    assert cells(FactLines("Target", rows), 40) != cells(rich_grid("Target", rows[::-1]), 40)
