"""pvtui's bindings by id, and a user's keymap checked against them before Textual applies it.

An entry is left out, with one line, when its id names no binding (the nearest id named), or when
one of its keys would be the key of another binding beside it: of the same screen or widget (as
Textual finds a clash), of the app where the binding is a screen's or a widget's, or of a screen
or widget where it is the app's (the app's keys apply on every screen but a dialog).
"""

from __future__ import annotations

import difflib
import importlib
import pkgutil
from functools import lru_cache
from typing import NamedTuple

from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode
from textual.screen import ModalScreen

from pvtui.safe_text import visible
from pvtui.ui.textual_private import class_bindings, normalized_keys

PACKAGES = ("pvtui.screens", "pvtui.widgets")


class Bound(NamedTuple):
    """A binding, and the class (the app, a screen or a widget) whose binding it is."""

    binding: Binding
    owner: type[DOMNode]  # the app's class, a screen's or a widget's

    @property
    def name(self) -> str:
        """Its id, or its action where it has none."""
        return self.binding.id or self.binding.action

    @property
    def place(self) -> str:
        """Where it applies, as help names it."""
        if issubclass(self.owner, App):
            return "every screen"
        return getattr(self.owner, "SCREEN_NAME", None) or self.owner.__name__


def _subclasses(base: type) -> list[type]:
    found, pending = [], list(base.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        found.append(cls)
    return found


@lru_cache(maxsize=1)
def pvtui_bindings(app: type[App]) -> tuple[Bound, ...]:
    """Every binding of the APP class and of pvtui's screens and widgets, the app's first."""
    for package in PACKAGES:
        for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
            importlib.import_module(f"{package}.{info.name}")
    classes = {app} | {cls for cls in _subclasses(DOMNode)
                          if cls.__module__.startswith(PACKAGES) and not issubclass(cls, App)}
    ordered = sorted(classes, key=lambda cls: (cls is not app, cls.__module__, cls.__qualname__))
    return tuple(Bound(binding, cls) for cls in ordered for binding in class_bindings(cls))


def binding_ids(app: type[App]) -> dict[str, list[Bound]]:
    """Each id, and the bindings that have it (several screens may share one, as zoom_in), the app's first."""
    table: dict[str, list[Bound]] = {}
    for bound in pvtui_bindings(app):
        if bound.binding.id:
            table.setdefault(bound.binding.id, []).append(bound)
    return table


def bindings_table(app: type[App]) -> list[tuple[str, str, str, str]]:
    """Each id, its keys, what it does and where it applies (the screens it is bound on), for people."""
    rows = []
    for binding_id, bound in binding_ids(app).items():
        places = ", ".join(dict.fromkeys(each.place for each in bound))
        rows.append((binding_id, bound[0].binding.key, bound[0].binding.description, places))
    return rows


def check_keymap(keymap: dict[str, str], app: type[App]) -> tuple[dict[str, str], list[str]]:
    """KEYMAP without the entries that cannot apply to the APP class, and one line for each of those."""
    ids = binding_ids(app)
    normal = {binding_id: normalized_keys(keys) for binding_id, keys in keymap.items()}
    kept, problems = {}, []
    for binding_id, keys in keymap.items():
        if binding_id not in ids:
            near = difflib.get_close_matches(binding_id, ids, n=1, cutoff=0.5)
            hint = f"did you mean `{near[0]}`?" if near else "`pvtui config --bindings` lists the ids."
            problems.append(visible(f"[keymap] {binding_id}: no binding has this id; {hint} Ignored."))
        elif clash := _clash(binding_id, normal, pvtui_bindings(app)):
            key, other = clash
            what = other.binding.description or other.binding.action
            problems.append(visible(f"[keymap] {binding_id} = {keys!r}: {key} is already `{other.name}` ({what}) "
                                    f"on {other.place}; ignored."))
        else:
            kept[binding_id] = keys
    return kept, problems


def _keys(binding: Binding, keymap: dict[str, str]) -> set[str]:
    """The keys BINDING has once KEYMAP applies."""
    keys = keymap.get(binding.id or "") or binding.key
    return {key.strip() for key in keys.split(",")}


def _beside(owner: type, other: type) -> bool:
    """Whether the bindings of OWNER and OTHER can apply at once: the app's beside any screen's or widget's but
    a dialog's (over a modal screen, Textual leaves the app's keys out)."""
    if owner is other:
        return True
    return (issubclass(owner, App) or issubclass(other, App)) and not any(
        issubclass(cls, ModalScreen) for cls in (owner, other))


def _clash(binding_id: str, keymap: dict[str, str], bindings: tuple[Bound, ...]) -> tuple[str, Bound] | None:
    """A key KEYMAP gives BINDING_ID that another of BINDINGS beside one of its own would have too."""
    mine = [bound for bound in bindings if bound.binding.id == binding_id]
    new_keys = set(keymap[binding_id].split(","))
    for bound in mine:
        for other in bindings:
            if other.binding.id == binding_id or not _beside(bound.owner, other.owner):
                continue
            if other.binding.action == bound.binding.action:  # one action under two keys: `d`'s pair
                continue
            taken = _keys(other.binding, keymap) & new_keys
            if taken:
                return sorted(taken)[0], other
    return None


def check_config(app) -> None:
    """Say in one line what in APP's configuration (or state) is not usable, and apply its keymap without the
    entries that cannot apply. Run in a thread: checking a keymap imports every screen, which the first frame need not
    wait for."""
    config = app.config
    problems = list(config.problems) + ([] if app.state is None else app.state.problems)
    if config.keymap:
        kept, keymap_problems = check_keymap(config.keymap, type(app))
        problems += [f"{config.path}: {problem}" for problem in keymap_problems]
        if kept != config.keymap:
            app.call_from_thread(app.set_keymap, kept)
    if problems:
        more = f" (and {len(problems) - 1} more: see `pvtui config --check`)" if len(problems) > 1 else ""
        app.call_from_thread(app.notify, f"{problems[0]}{more}", severity="warning", timeout=10)
