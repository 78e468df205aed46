"""The configuration file: where it is read from, what a bad one or a bad entry says, and the keymap applied."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from pvtui.app import PvtuiApp
from pvtui.cli import main
from pvtui.user.config import MAX_BYTES, config_path, load_config
from pvtui.ui.keymap import binding_ids, check_keymap
from pvtui.screens.dialogs import HelpScreen
from pvtui.widgets.key_bar import KeyBar
from tests.conftest import wait_for

pytestmark = pytest.mark.anyio


def write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "config.toml"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def test_the_path_is_the_option_else_the_environment_else_xdg(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("PVTUI_CONFIG", raising=False)
    assert config_path() == tmp_path / "xdg" / "pvtui" / "config.toml"
    monkeypatch.setenv("PVTUI_CONFIG", str(tmp_path / "env.toml"))
    assert config_path() == tmp_path / "env.toml"
    assert config_path(tmp_path / "given.toml") == tmp_path / "given.toml"


def test_keymap_and_defaults_are_read_and_bad_entries_named(tmp_path):
    config = load_config(write(tmp_path, '[keymap]\nhelp = "f1"\nquit = 3\n[defaults]\nunits = "kB"\n'
                                         'reader = "magic"\ncolour = "red"\n'))
    assert config.keymap == {"help": "f1"} and config.defaults == {"units": "kB"}
    assert len(config.problems) == 3 and all(line.startswith(f"{config.path}: ") for line in config.problems)
    assert any("quit" in line for line in config.problems) and any("magic" in line for line in config.problems)


def test_malformed_toml_is_one_line_with_the_file_and_line(tmp_path):
    config = load_config(write(tmp_path, '[keymap]\nhelp = "f1"\nquit = \n'))
    assert config.keymap == {} and len(config.problems) == 1
    assert str(config.path) in config.problems[0] and "line 3" in config.problems[0]


@pytest.mark.parametrize("make", ["fifo", "directory", "huge"])
def test_what_is_not_a_small_regular_file_is_refused_without_blocking(tmp_path, make):
    path = tmp_path / "config.toml"
    if make == "fifo":
        os.mkfifo(path)
    elif make == "directory":
        path.mkdir()
    else:
        path.write_bytes(b"#" * (MAX_BYTES + 1))
    config = load_config(path)
    assert config.keymap == {} and len(config.problems) == 1 and str(path) in config.problems[0]


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.binary(max_size=200), st.text(alphabet='[]="\n\\ .,#keymapdefaults\x00\x1b', max_size=80)
                 .map(str.encode)))
def test_any_bytes_give_a_config_or_lines_never_a_traceback(tmp_path_factory, data):
    config = load_config(write(tmp_path_factory.mktemp("c"), data))
    assert all("\n" not in line for line in config.problems)
    kept, problems = check_keymap(config.keymap, PvtuiApp)
    assert set(kept) <= set(config.keymap) and all("\n" not in line and "\x1b" not in line for line in problems)


def test_an_unknown_id_names_the_nearest_and_a_clash_the_binding_it_clashes_with():
    kept, problems = check_keymap({"hlep": "f1", "summary": "m", "units": "U"}, PvtuiApp)
    assert kept == {"units": "U"} and len(problems) == 2
    assert "hlep" in problems[0] and "`help`" in problems[0]
    assert "summary" in problems[1] and "`memory`" in problems[1]


def test_config_path_check_and_bindings_commands(tmp_path, capsys):
    path = write(tmp_path, '[keymap]\nhelp = "f1"\n')
    assert main(["config", "--path", "--config", str(path)]) == 0
    assert f"{path} (read)" in capsys.readouterr().out
    assert main(["config", "--check", "--config", str(path)]) == 0
    assert "good (1 keys remapped" in capsys.readouterr().out
    write(tmp_path, '[defaults]\ntheme = "nosuch"\n')
    assert main(["config", "--check", "--config", str(path)]) == 2
    assert "no theme named 'nosuch'" in capsys.readouterr().err
    write(tmp_path, '[keymap]\nhepl = "f1"\n')
    assert main(["config", "--check", "--config", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "hepl" in err[0] and "`help`" in err[0]
    assert main(["config", "--bindings"]) == 0
    listed = capsys.readouterr().out
    assert all(binding_id in listed for binding_id in binding_ids(PvtuiApp))


async def test_a_remapped_key_works_and_shows_in_help_and_the_key_bar(make_app, tmp_path, monkeypatch):
    monkeypatch.setenv("PVTUI_CONFIG", str(write(tmp_path, '[keymap]\nhelp = "f1"\nmemory = "f2"\n')))
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: pilot.app.report is not None)
        await pilot.pause(0.3)  # the keymap checked after the first frame: nothing to say
        bar = pilot.app.screen.query_one(KeyBar).line_text().plain
        assert "f1 Help" in bar and pilot.app.status.said is None
        await pilot.press("f2")
        await wait_for(pilot, lambda: pilot.app.screen.SCREEN_NAME == "Memory")
        await pilot.press("question_mark")  # no longer help
        await pilot.pause()
        assert not isinstance(pilot.app.screen, HelpScreen)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, HelpScreen))
        listing = str(pilot.app.screen.query_one("#help-keys Static").render())
        assert "f1  Help" in listing and "f2  Memory" in listing


async def test_a_bad_entry_is_one_line_and_the_app_starts_with_the_rest(make_app, tmp_path, monkeypatch):
    monkeypatch.setenv("PVTUI_CONFIG", str(write(tmp_path, '[keymap]\nhlep = "f1"\nmemory = "f2"\n'
                                                           '[defaults]\nunits = "bytes"\n')))
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: pilot.app.status.said is not None)
        said = pilot.app.status.said.text
        assert "hlep" in said and "`help`" in said and "\n" not in said
        assert pilot.app.units == "bytes"
        await wait_for(pilot, lambda: pilot.app.report is not None)
        await pilot.press("f2")
        await wait_for(pilot, lambda: pilot.app.screen.SCREEN_NAME == "Memory")


def test_the_readme_lists_every_binding_id_and_no_other():
    from pvtui.ui.keymap import bindings_table

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    section = readme[readme.index("## Configuration and state"):readme.index("## The cache")]
    listed = [line.split("|")[1].strip().strip("`") for line in section.splitlines() if line.startswith("| `")]
    assert listed == [binding_id for binding_id, *_ in bindings_table(PvtuiApp)]
