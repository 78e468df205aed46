"""The app's own keys, on every screen: a key for each screen, the report shown, units, export, help;
and what each needs (as a screen's KEYS), read from the app's facts."""

from __future__ import annotations

from textual.binding import Binding

from pvtui.screens.base import Needs

APP_BINDINGS = [
    Binding("s", "show('summary')", "Summary", id="summary", show=False),
    Binding("m", "show('memory')", "Memory", id="memory", show=False),
    Binding("l", "show('liveness')", "Liveness", id="liveness", show=False),
    Binding("p", "show('programs')", "Programs", id="programs", show=False),
    Binding("t", "show('trace')", "Trace", id="trace", show=False),
    Binding("i", "show('insights')", "Insights", id="insights", show=False),
    Binding("o", "show('operations')", "Operations", id="operations", show=False),
    Binding("H", "show('hotspots')", "Hotspots", key_display="H", id="hotspots", show=False),
    Binding("d", "show('compare')", "Diff", id="compare", show=False),
    Binding("d", "no_comparison", show=False),  # d without a second report: say how to get one
    Binding("B", "switch_report", "A/B", key_display="B", id="switch_report"),
    Binding("E", "pick_report", "Engine", key_display="E", id="pick_report"),
    Binding("x", "export", "Export", id="export"),
    Binding("u", "cycle_units", "Units", id="units"),
    Binding("question_mark", "help", "Help", key_display="?", id="help"),
    Binding("q", "quit", "Quit", id="quit"),
]
APP_KEYS = {  # what each key needs, as a screen's KEYS: the app's facts; any other key always applies
    "show('compare')": Needs(shown=("comparing",)),  # only with a second report
    "show": Needs(usable=("can_switch",)),
    "pick_report": Needs(shown=("several_found", "picker_closed")),
    "switch_report": Needs(shown=("comparing", "on_single_report_screen")),
    "cycle_units": Needs(usable=("report_shown",)),  # dimmed while the report is opened
    "export": Needs(usable=("report_whole",)),  # dimmed while the rest of the report is read
}
