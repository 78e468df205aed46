"""`pvtui config`: where the configuration file is read from (--path), whether it is good (--check), and the
binding ids a [keymap] may give keys to (--bindings)."""

from __future__ import annotations

import argparse

from pvtui.commands.common import EXIT_BAD_INPUT, add_config_argument, print_line, say


def add_arguments(parser: argparse.ArgumentParser) -> None:
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--path", action="store_true",
                      help="where the configuration is read from, and whether it is there (the default)")
    what.add_argument("--check", action="store_true",
                      help="read the file and say what in it is not usable (exit 2 when something is not)")
    what.add_argument("--bindings", action="store_true", help="the binding ids, their keys and what they do")
    add_config_argument(parser)


def run(args: argparse.Namespace) -> int:
    from pvtui.user.config import load_config

    config = load_config(args.config)
    if args.check:
        return _check(config)
    if args.bindings:
        _print_bindings()
        return 0
    print_line(f"{config.path} ({'read' if config.exists else 'not there: pvtui uses its defaults'})")
    return 0


def _check(config) -> int:
    from pvtui.app import PvtuiApp
    from pvtui.ui.keymap import check_keymap

    PvtuiApp([], config=config)  # its themes, which [defaults] theme must name (a problem of config's if not)
    _kept, keymap_problems = check_keymap(config.keymap, PvtuiApp)
    problems = config.problems + [f"{config.path}: {problem}" for problem in keymap_problems]
    for problem in problems:
        say(f"pvtui: {problem}")
    if problems:
        return EXIT_BAD_INPUT
    if config.exists:
        print_line(f"{config.path}: good ({len(config.keymap)} keys remapped, "
                   f"{len(config.defaults)} defaults set)")
    else:
        print_line(f"{config.path}: not there; pvtui uses its defaults")
    return 0


def _print_bindings() -> None:
    from pvtui.app import PvtuiApp
    from pvtui.ui.keymap import bindings_table

    for binding_id, keys, description, places in bindings_table(PvtuiApp):
        print_line(f"{binding_id:<24} {keys:<22} {description} ({places})")
