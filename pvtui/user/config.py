"""The user's configuration file: a keymap of their own and the explorer's defaults.

TOML, read from --config PATH, else $PVTUI_CONFIG, else $XDG_CONFIG_HOME/pvtui/config.toml (else
~/.config/pvtui/config.toml):

    [keymap]            # binding id -> keys, as Textual's keymaps: "f1" or "ctrl+j,space"
    help = "f1"
    [defaults]          # what --theme, --units and --reader say where they are not given
    theme = "light"

A bad file or entry is one line each in `problems`, naming the file; what is good is still used.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pvtui.files.regular import read_regular

ENV = "PVTUI_CONFIG"
MAX_BYTES = 1 << 20  # a configuration file is a few lines: more than this is not one
DEFAULTS = ("theme", "units", "reader")  # the [defaults] a file may set, as the options of those names
TABLES = ("keymap", "defaults")


class Config:
    """What the configuration file at PATH gives. A plain class, made on every start: a dataclass would cost
    3-4 M instructions more (bench/missed.md)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.keymap: dict[str, str] = {}  # binding id -> keys, not checked against the bindings
        self.defaults: dict[str, str] = {}  # checked: DEFAULTS with values they take
        self.problems: list[str] = []  # one line each, naming the file
        self.exists = False


def config_path(given: Path | str | None = None) -> Path:
    """Where the configuration is read from: GIVEN (--config), $PVTUI_CONFIG, else the XDG place."""
    if given:
        return Path(given)
    if os.environ.get(ENV):
        return Path(os.environ[ENV])
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "pvtui" / "config.toml"


def _toml_parser():
    """TOML's parser, imported where there is a file to parse: not on every app start (4 ms)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    return tomllib


def load_config(given: Path | str | None = None) -> Config:
    """The configuration at config_path(GIVEN); none (and no problem) where no file is there."""
    path = config_path(given)
    config = Config(path)
    try:
        data = read_regular(path, MAX_BYTES)  # never blocking on a FIFO or a device
    except FileNotFoundError:
        if given or os.environ.get(ENV):  # named by the user: its absence is worth a line
            config.problems.append(f"{path}: no such file; using the defaults")
        return config
    except (OSError, ValueError) as exc:
        config.problems.append(f"{path}: {getattr(exc, 'strerror', None) or exc}; using the defaults")
        return config
    config.exists = True
    tomllib = _toml_parser()
    try:
        table = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        config.problems.append(f"{path}: not UTF-8 text (byte {exc.start}); using the defaults")
        return config
    except tomllib.TOMLDecodeError as exc:  # its text ends "(at line L, column C)"
        config.problems.append(f"{path}: not valid TOML: {exc}; using the defaults")
        return config
    _take(config, table)
    return config


def _take(config: Config, table: dict) -> None:
    """CONFIG's keymap and defaults from the parsed TABLE, a problem for each entry that is not usable."""
    where = config.path
    for name in table:
        if name not in TABLES:
            config.problems.append(f"{where}: unknown table [{name}] (pvtui reads {', '.join(TABLES)}); ignored")
        elif not isinstance(table[name], dict):
            config.problems.append(f"{where}: `{name}` is not a table ([{name}]); ignored")
    for binding_id, keys in _table(table, "keymap").items():
        if not isinstance(keys, str) or not _keys_well_formed(keys):
            config.problems.append(f"{where}: [keymap] {binding_id}: keys are a string such as \"f1\" or "
                                   "\"ctrl+j,space\"; ignored")
        else:
            config.keymap[binding_id] = ",".join(key.strip() for key in keys.split(","))
    for name, value in _table(table, "defaults").items():
        problem = default_problem(name, value)
        if problem:
            config.problems.append(f"{where}: [defaults] {problem}; ignored")
        else:
            config.defaults[name] = value


def _table(table: dict, name: str) -> dict:
    value = table.get(name, {})
    return value if isinstance(value, dict) else {}


def _keys_well_formed(keys: str) -> bool:
    """Whether KEYS is a comma-separated list of key names, none empty nor holding a space or a control."""
    return all(key.strip() and key.strip().isprintable() and " " not in key.strip() for key in keys.split(","))


def default_problem(name: str, value: object) -> str | None:
    """Why VALUE cannot be the default of NAME, or None where it can (a theme's name is checked by the app)."""
    from pvtui.sources.readers import READERS
    from pvtui.units import UNIT_NAMES

    choices = {"units": tuple(UNIT_NAMES), "reader": READERS, "theme": None}
    if name not in choices:
        return f"{name}: not one of {', '.join(DEFAULTS)}"
    if not isinstance(value, str) or not value:
        return f"{name}: not a name"
    allowed = choices[name]
    if allowed is not None and value not in allowed:
        return f"{name} = {value!r}: not one of {', '.join(allowed)}"
    return None
