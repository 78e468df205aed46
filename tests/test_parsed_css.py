"""The stylesheets Textual parsed, kept between runs (pvtui.ui.parsed_css): read back where they can be trusted,
parsed again where not, never in the way of a start."""

from __future__ import annotations

import os
import stat

import pytest
from conftest import wait_for, wait_until_loaded
from textual.css.stylesheet import Stylesheet

from pvtui.sources.cache import PARSED_CSS, Cache
from pvtui.ui.parsed_css import ParsedCss, parsed_css_folder, textual_installed
from pvtui.widgets.key_bar import KeyBar

pytestmark = pytest.mark.anyio


@pytest.fixture
def parses(monkeypatch):
    """The sources Textual's own parser parsed (by where they were read from), from here on."""
    seen: list[tuple[str, str]] = []
    parse = Stylesheet._parse_rules

    def counted(self, css, read_from, *args, **kwargs):
        if (css, read_from, *args) not in self._parse_cache:
            seen.append(read_from)
        return parse(self, css, read_from, *args, **kwargs)

    monkeypatch.setattr(Stylesheet, "_parse_rules", counted)
    return seen


async def run_once(tiny_dir, cache, theme=None, screen="memory", sources: dict | None = None) -> dict[str, str]:
    """Open the tiny report on SCREEN with CACHE until what it parsed is kept; some of what it looks like. SOURCES,
    where given, gets the keys of the sources it parsed or read back ("keys", as Textual keys them) and the
    variables it parsed them with ("variables")."""
    from pvtui.app import PvtuiApp
    from pvtui.sources.discovery import discover

    app = PvtuiApp(discover(tiny_dir), path=tiny_dir, watch=False, cache=cache, theme=theme, first_screen=screen)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until_loaded(pilot)

        def saved() -> bool:
            """what was parsed for the report shown is written"""
            return any((cache / PARSED_CSS).glob("*.pickle"))

        await wait_for(pilot, saved)
        await app.workers.wait_for_complete()
        app.stylesheet.kept.save()  # as PvtuiApp.run does at the end: what the screen built after its first frame
        if sources is not None:
            sources["keys"] = [key for key in app.stylesheet._parse_cache.keys() if key[1][0]]  # read from a file
            sources["variables"] = dict(app.stylesheet._variables)
        bar = app.screen.query_one(KeyBar)
        return {"key bar": bar.styles.background.hex, "primary": app.get_css_variables()["primary"],
                "header height": str(app.screen.query_one("#memory-header").styles.height)}


async def test_a_start_reads_back_what_the_last_parsed_and_looks_the_same(tiny_dir, tmp_path, parses):
    first = await run_once(tiny_dir, tmp_path / "cache")
    assert any("memory.py" in path for path, _name in parses) and ("", "") not in parses
    parsed_first = len(parses)
    parses.clear()
    second = await run_once(tiny_dir, tmp_path / "cache")
    assert parsed_first > 10 and parses == []  # nothing parsed: every source was read back
    assert second == first


async def test_each_theme_has_its_own_parses(tiny_dir, tmp_path, parses):
    """The variables are part of what a parse depends on: another theme's are parsed with its own colours."""
    cache = tmp_path / "cache"
    dark = await run_once(tiny_dir, cache, theme="textual-dark")
    light = await run_once(tiny_dir, cache, theme="textual-light")
    assert dark["primary"] != light["primary"] and dark["key bar"] != light["key bar"]
    parses.clear()
    assert await run_once(tiny_dir, cache, theme="textual-light") == light and parses == []


async def test_damaged_files_are_parsed_around_and_written_again(tiny_dir, tmp_path, parses):
    cache = tmp_path / "cache"
    looks = await run_once(tiny_dir, cache)
    files = sorted((cache / PARSED_CSS).glob("*.pickle"))
    for number, path in enumerate(files):
        path.write_bytes([b"", b"\x80\x05garbage", b"not a pickle", b"\x80\x05K\x01."][number % 4])  # the last: 1
    parses.clear()
    assert await run_once(tiny_dir, cache) == looks
    assert len(parses) >= len(files) - 1  # the app's CSS path may be read once
    parses.clear()
    assert await run_once(tiny_dir, cache) == looks and parses == []


def test_only_this_users_plain_files_in_a_folder_of_theirs_alone_are_read(tmp_path):
    kept = ParsedCss(tmp_path / PARSED_CSS, "v1")
    variables, key = {"primary": "#123456"}, ("A { color: $primary; }", ("here", "A.DEFAULT_CSS"), True, 0, "")
    kept.keep(variables, key, ["rules"])
    kept.save()
    assert ParsedCss(tmp_path / PARSED_CSS, "v1").parsed(variables, key) == ["rules"]
    assert ParsedCss(tmp_path / PARSED_CSS, "v2").parsed(variables, key) is None  # another Textual
    assert ParsedCss(tmp_path / PARSED_CSS, "v1").parsed({"primary": "#654321"}, key) is None  # another theme
    path = next((tmp_path / PARSED_CSS).glob("*.pickle"))
    os.chmod(tmp_path / PARSED_CSS, 0o777)  # others could plant a file
    assert ParsedCss(tmp_path / PARSED_CSS, "v1").parsed(variables, key) is None
    os.chmod(tmp_path / PARSED_CSS, 0o700)
    path.rename(path.with_suffix(".real"))
    path.symlink_to(path.with_suffix(".real"))  # never through a link
    assert ParsedCss(tmp_path / PARSED_CSS, "v1").parsed(variables, key) is None
    if os.geteuid() == 0:  # only root can give a file away
        path.unlink()
        path.with_suffix(".real").rename(path)
        os.chown(path, 1, 1)
        assert ParsedCss(tmp_path / PARSED_CSS, "v1").parsed(variables, key) is None


def test_no_cache_directory_or_one_that_refuses_writes_keeps_nothing_and_raises_nothing(tmp_path):
    variables, key = {}, ("A {}", ("", ""), False, 0, "")
    for folder in (None, tmp_path / "a file" / PARSED_CSS):
        (tmp_path / "a file").write_text("")
        kept = ParsedCss(folder, "v1")
        kept.keep(variables, key, ["rules"])
        kept.save()
        assert kept.parsed(variables, key) is None
    assert stat.S_ISREG(os.stat(tmp_path / "a file").st_mode)


def test_the_folder_is_the_cache_directorys_and_not_listed_among_what_is_not_pvtuis(tmp_path, monkeypatch):
    monkeypatch.setenv("PVTUI_CACHE_DIR", str(tmp_path / "cache"))
    assert parsed_css_folder(None) == tmp_path / "cache" / PARSED_CSS
    assert parsed_css_folder(tmp_path / "other") == tmp_path / "other" / PARSED_CSS
    kept = ParsedCss(parsed_css_folder(None), textual_installed())
    kept.keep({}, ("A {}", ("", ""), False, 0, ""), [])
    kept.save()
    (tmp_path / "cache" / "someone's").mkdir()
    entries, skipped = Cache(tmp_path / "cache").scan()
    assert entries == [] and [item.path.name for item in skipped] == ["someone's"]


def rules_text(rules: list) -> str:
    """What styling reads of parsed RULES, as text (a layout is an object compared by identity)."""
    return repr([([(selectors.css, selectors.specificity) for selectors in rule.selector_set], rule.styles.get_rules(),
                  rule.is_default_rules, rule.tie_breaker, sorted(rule.selector_names), sorted(rule.pseudo_classes))
                 for rule in rules])


async def test_a_parse_read_back_is_the_parse_textual_makes(tiny_dir, tmp_path):
    """Every source kept, read back, holds the rules of a fresh parse: the same selectors and specificity, the same
    declarations, defaults and order."""
    cache, sources = tmp_path / "cache", {}
    await run_once(tiny_dir, cache, sources=sources)
    variables = sources["variables"]
    fresh, kept = Stylesheet(variables=dict(variables)), ParsedCss(cache / PARSED_CSS, textual_installed())
    for key in sources["keys"]:
        read_back = kept.parsed(variables, key)
        assert read_back is not None and rules_text(read_back) == rules_text(fresh._parse_rules(*key)), key[1]
    assert len(sources["keys"]) > 10
