"""Trace's lower pane: the cursor's details, the run's step statistics, or the BSP view of an IPU's tiles."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from rich.style import Style
from rich.text import Text
from textual.widgets import ContentSwitcher, Static

from pvtui.model.trace_index import has_bsp
from pvtui.render.trace import cursor_details, merged_details, stats_text
from pvtui.widgets.bsp_view import BspView
from pvtui.widgets.detail_text import PaneText
from pvtui.widgets.palette import phase_text_styles

if TYPE_CHECKING:
    from pvtui.model.navigators.trace import TraceNavigator
    from pvtui.model.report import Report


class TraceLower(ContentSwitcher):
    """The pane under the trace, one of pvtui.model.navigators.trace's PANES, each a child of that id
    (the screen composes them): drawn from the report and the navigator, in the theme's colours."""

    def draw(self, report: Report, nav: TraceNavigator, bytes_text: Callable[[int], str]) -> bool:
        """Show and draw the pane NAV chooses; False where the step statistics are yet to be counted."""
        self.current = nav.pane
        if nav.pane == "stats":
            return self.draw_stats(report, nav)
        if nav.pane == "bsp":
            self.draw_bsp(report, nav)
        else:
            self.draw_details(report, nav, bytes_text)
        return True

    def draw_details(self, report: Report, nav: TraceNavigator, bytes_text: Callable[[int], str]) -> None:
        index = nav.index
        assert index is not None
        styles = phase_text_styles(self.app.theme_variables)
        if nav.merged is not None:
            text = merged_details(nav.merged, nav.selected_node, nav.flame_block is None,
                                  styles.get("muted", Style(dim=True)))
        else:
            cycles = index.run_cycles.get(nav.run, ())
            run_cycles = cycles[nav.cursor_ipu] if nav.cursor_ipu < len(cycles) else 0
            text = cursor_details(report, nav, index.nesting, run_cycles, bytes_text, styles)
        self.query_one("#details-text", PaneText).show(text)

    def draw_stats(self, report: Report, nav: TraceNavigator) -> bool:
        """The run's step statistics; False (and a line saying they are being counted) until they are."""
        styles, index = phase_text_styles(self.app.theme_variables), nav.index
        assert index is not None
        panel = self.query_one("#stats-text", PaneText)
        if not index.counted:
            panel.show(Text("Counting the steps of each type…", style=styles.get("muted", Style(dim=True))))
            return False
        width = max(self.size.width - 2, 40)
        panel.show(stats_text(index.stats, nav.run, styles, nav.cursor_ipu, width, report.execution.total_cycles))
        return True

    def draw_bsp(self, report: Report, nav: TraceNavigator) -> None:
        status, views = self.query_one("#bsp-status", Static), self.query(BspView)
        if not views or not has_bsp(report):  # no per-tile cycles, or a reload is recomposing the screen
            status.update("")
        elif nav.current_lane is None:
            status.update(f"IPU {nav.cursor_ipu} ran no steps in this run.")
        else:
            status.update(views.first().draw(report.execution, report.target.tiles_per_ipu, nav.current_lane,
                                             nav.cursor_ipu, nav.window, (nav.generation, nav.run)))
