"""Export: the current screen's table as CSV or JSON, or the screen itself as SVG.

`x` (or a palette command) opens the dialog over a report screen; the table is taken
as the screen shows it at that moment. Tables are written in a thread worker; the SVG
is taken once the dialog has closed, so it shows the report screen, not the dialog.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from pvtui.errors import Cancelled, ReportError
from pvtui.files.export import (
    default_directory,
    file_name,
    free_path,
    name_and_folder,
    os_problem,
    path_problem,
    shown_path,
    write_csv,
    write_json,
    write_text,
)
from pvtui.model.tables import Table
from pvtui.render.visible_text import markup_escape as escape
from pvtui.screens.base import ReportScreen, ReportsShown
from pvtui.units import count_of

CANCEL_CHECK_ROWS = 4096  # rows written between looks at whether the worker was cancelled


@dataclass(frozen=True)
class Kind:
    key: str
    label: str
    extension: str
    table: bool  # writes the screen's table (else a picture of the screen)
    write: Callable[[Table, Path, bool], int] | None = None

    @property
    def command(self) -> str:
        """The palette's name for it: "Export table as CSV"."""
        return f"Export {self.label[0].lower()}{self.label[1:]}"


KINDS = (
    Kind("csv", "Table as CSV", "csv", True, write_csv),
    Kind("json", "Table as JSON", "json", True, write_json),
    Kind("svg", "Screen as SVG", "svg", False),
)
KIND = {kind.key: kind for kind in KINDS}


@dataclass(frozen=True)
class ExportRequest:
    kind: Kind
    path: Path
    overwrite: bool  # the user confirmed replacing an existing file


class ExportDialog(ModalScreen[ExportRequest | None]):
    """Choose what to export and the file; Enter writes, Escape cancels."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    DEFAULT_CSS = """
    ExportDialog #export-table { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    ExportDialog #export-kind { height: auto; margin: 1 0; border: none; padding: 0; }
    ExportDialog #export-file { height: 1; }
    ExportDialog #export-file Label { width: auto; padding-right: 1; }
    ExportDialog #export-path { width: 1fr; }
    ExportDialog #export-status { color: $warning; height: auto; }
    ExportDialog .dim { color: $text-muted; }
    """

    def __init__(
        self, title: str, table: Table | None, defaults: dict[str, Path], forbidden: list[Path], kind: str | None
    ) -> None:
        super().__init__()
        self.title_text = title
        self.table = table
        self.defaults = defaults
        self.forbidden = forbidden  # the report's folders: nothing is written there
        available = [k for k in KINDS if table is not None or not k.table]
        self.kind = KIND[kind] if kind in KIND and KIND[kind] in available else available[0]
        self.confirmed: Path | None = None  # an existing file the user was warned about

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"[b]Export[/b] · {escape(self.title_text)}")
            yield Static(self._table_text(), id="export-table", classes="dim", markup=False)
            yield OptionList(
                *(Option(kind.label, id=kind.key, disabled=kind.table and self.table is None) for kind in KINDS),
                id="export-kind", compact=True,
            )
            with Horizontal(id="export-file"):
                yield Label("File")
                yield Input(shown_path(self.defaults[self.kind.key]), id="export-path", compact=True)
            yield Label("", id="export-status")
            yield Label("↑↓ choose · Tab the file · Enter writes · Escape cancels", classes="dim")

    def _table_text(self) -> str:
        if self.table is None:
            return "No table here: this screen exports as an SVG picture only."
        columns = self.table.columns
        return f"Table {self.table.name}, {count_of(len(columns), 'column')}: {', '.join(columns)}"

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = KINDS.index(self.kind)
        options.focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        kind = KIND[event.option.id or "svg"]
        if kind == self.kind:
            return
        path_input = self.query_one(Input)
        if path_input.value == shown_path(self.defaults[self.kind.key]):  # untouched: follow the choice
            path_input.value = shown_path(self.defaults[kind.key])
        elif self._kind_named(path_input.value) is not None:  # the name's extension follows the choice
            path_input.value = str(Path(path_input.value).with_suffix(f".{kind.extension}"))
        self.kind = kind
        self.confirmed = None  # the warning goes with the message: replacing needs a new one
        self._say("")

    def _kind_named(self, text: str) -> Kind | None:
        """The kind whose extension TEXT ends in, where this screen offers it."""
        suffix = Path(text.strip()).suffix.lower().lstrip(".")
        kind = next((k for k in KINDS if k.extension == suffix), None)
        return kind if kind is not None and (self.table is not None or not kind.table) else None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self._submit()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._submit()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.confirmed = None
        self._say("")
        named = self._kind_named(event.value)
        if named is not None and named != self.kind:  # a name ending .json writes JSON, whatever was chosen
            self.kind = named
            self.query_one(OptionList).highlighted = KINDS.index(named)

    def _say(self, problem: str) -> None:
        self.query_one("#export-status", Label).update(escape(problem))

    def _submit(self) -> None:
        text = self.query_one(Input).value.strip()
        if not text:
            self._say("Type a file name.")
            return
        path = Path(text).expanduser()
        try:
            path = path.resolve()
            problem = path_problem(text, path, self.forbidden)
        except OSError as exc:  # a name too long, a folder that cannot be read
            problem = os_problem(path, exc)
        if problem:
            self._say(problem)
        elif path.exists() and path != self.confirmed:
            self.confirmed = path
            self._say(f"{path.name} exists: Enter again replaces it.")
        else:
            self.dismiss(ExportRequest(self.kind, path, overwrite=path == self.confirmed))


def report_folders(app: ReportsShown) -> list[Path]:
    folders = []
    for slot in app.slots:  # nothing is written beside either report compared
        if (files := slot.files) is not None:
            folders += [files.directory, *(path.parent for path in files.existing())]
    return folders


def open_export(app: App, kind: str | None = None) -> None:
    """Open the export dialog over the current report screen, KIND chosen (csv, json or svg)."""
    screen = app.screen
    if not isinstance(screen, ReportScreen) or not screen.pv_app.report_whole:
        return
    table = screen.export_table()
    forbidden = report_folders(screen.pv_app)
    directory = default_directory(forbidden)
    report_name = screen.report.name
    defaults = {k.key: free_path(directory, file_name(report_name, table.name if k.table and table else
                                                      screen.SCREEN_NAME.lower(), k.extension)) for k in KINDS}
    title = f"{screen.SCREEN_NAME} · {report_name}"

    def chosen(request: ExportRequest | None) -> None:
        if request is None:
            return
        if request.kind.table:
            assert table is not None
            app.run_worker(partial(write_table, app, table, request), thread=True, group="export",
                           description=f"export {request.path.name}")
        else:
            app.call_after_refresh(save_screen, app, request, f"pvtui · {title}")

    app.push_screen(ExportDialog(title, table, defaults, forbidden, kind), chosen)


def write_table(app: App, table: Table, request: ExportRequest) -> None:
    """Write TABLE as REQUEST asks, in a thread worker; a notification says how it went."""
    worker = get_current_worker()

    def rows():
        for number, row in enumerate(table.rows):
            if number % CANCEL_CHECK_ROWS == 0 and worker.is_cancelled:
                raise Cancelled()
            yield row

    assert request.kind.write is not None
    try:
        count = request.kind.write(Table(table.name, table.columns, rows()), request.path, request.overwrite)
    except Cancelled:
        app.call_from_thread(app.notify, f"Export cancelled: {request.path.name} was not written.")
    except OSError as exc:
        app.call_from_thread(app.notify, f"Export failed: {os_problem(request.path, exc)}", severity="error")
    except ReportError as exc:
        app.call_from_thread(app.notify, f"Export failed: {exc}", severity="error")
    else:
        app.call_from_thread(app.notify, f"Wrote {count_of(count, 'row')} to {name_and_folder(request.path)}",
                             timeout=6)


def save_screen(app: App, request: ExportRequest, title: str) -> None:
    try:
        write_text(app.export_screenshot(title=title), request.path, request.overwrite)
    except OSError as exc:
        app.notify(f"Export failed: {os_problem(request.path, exc)}", severity="error")
    else:
        app.notify(f"Wrote the screen to {name_and_folder(request.path)}", timeout=6)


class ExportCommands(Provider):
    """The palette's export commands: the table ones only where the screen has a table."""

    def _commands(self):
        screen = self.screen
        if not isinstance(screen, ReportScreen) or not screen.pv_app.report_whole:
            return
        has_table = screen.export_table() is not None
        for kind in KINDS:
            if has_table or not kind.table:
                yield kind.command, partial(open_export, self.app, kind.key)

    async def discover(self) -> Hits:
        for text, run in self._commands():
            yield DiscoveryHit(text, run, help="opens the export dialog (key: x)")

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, run in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), run, help="opens the export dialog (key: x)")

