"""The one function text from outside passes (pvtui/safe_text.py), its Rich and markup forms, and the
model that hands out only what it made visible."""

from __future__ import annotations

import json
import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table
from textual.content import Content
from textual.markup import MarkupError, escape

from pvtui.render.console import TextConsole
from pvtui.render.visible_text import markup_escape, visible_text
from pvtui.safe_text import _UNSAFE, is_visible, may_be_shown, visible, visible_all, visible_json

NAME = "\x1b[6n[link=mailto:m@pvtui.invalid]x\x9c[@click=app.quit]q"  # what a report may call something
UNSAFE_CATEGORIES = ("Cc", "Cf", "Cs", "Zl", "Zp")  # controls, format (bidi, zero width), surrogates, separators
any_text = st.text(st.characters(codec=None, categories=None), max_size=40)
unsafe_character = st.characters(categories=UNSAFE_CATEGORIES)


def test_the_unsafe_class_is_every_control_format_surrogate_and_separator_character():
    differ = [hex(code) for code in range(sys.maxunicode + 1)
              if (unicodedata.category(chr(code)) in UNSAFE_CATEGORIES) != bool(_UNSAFE.match(chr(code)))]
    assert differ == [], "update _UNSAFE for this Python's Unicode version"


def test_each_kind_of_character_is_shown_so():
    assert visible("a\x1bb\x07\n\t\x00") == "a␛b␇␊␉␀"
    assert visible("\x7f") == "␡"
    assert visible("\x9b6n\x9d0;t\x9c") == "␛[6n␛]0;t␛\\"  # a C1 control as ESC and its 7-bit letter
    assert visible("abc\u202egnp.exe") == "abc<U+202E>gnp.exe"
    assert visible("zero\u200bwidth\ufeff\U000e0041") == "zero<U+200B>width<U+FEFF><U+E0041>"
    assert visible("\ud800") == "<U+D800>"


@given(any_text)
def test_what_it_shows_holds_no_control_format_or_separator_character(text):
    shown = visible(text)
    assert all(unicodedata.category(char) not in UNSAFE_CATEGORIES for char in shown)
    assert is_visible(shown) and visible(shown) == shown  # applied twice, nothing more changes


@given(st.text(st.characters(exclude_categories=UNSAFE_CATEGORIES)))
def test_printable_text_comes_back_as_it_is(text):
    assert visible(text) is text


@given(any_text, unsafe_character, any_text)
def test_no_unsafe_character_is_dropped_and_each_shows(before, char, after):
    shown = visible(before + char + after)
    assert shown != before + after and may_be_shown(shown)


def test_json_documents_keep_their_shape_and_show_their_strings():
    document = {"a\x1b": ["\x9b", 1, None, {"k": "\u202e"}], "n": 2.5}
    assert visible_all(document) == {"a␛": ["␛[", 1, None, {"k": "<U+202E>"}], "n": 2.5}
    assert visible_all(("x\n",)) == ("x␊",)


@given(st.recursive(st.none() | st.booleans() | st.integers() | any_text,
                    lambda children: st.lists(children, max_size=3) | st.dictionaries(any_text, children, max_size=3),
                    max_leaves=8))
def test_json_text_decodes_to_what_visible_shows(value):
    """Escapes (`\\u001b`, `\\n`) and raw characters alike: decoded, the text is safe; still JSON."""
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False)):
        shown = visible_json(text)
        assert is_visible(shown)
        assert json.loads(shown) == visible_all(value)


def test_the_rich_form_dims_what_stands_for_a_control_and_reads_no_markup():
    text = visible_text("[bold]x\x1b[6n", "italic")
    assert text.plain == "[bold]x␛[6n"
    dim = [(text.plain[span.start:span.end], str(span.style)) for span in text.spans]
    assert dim == [("␛[", "dim")] and str(text.style) == "italic"
    assert visible_text("plain").spans == []


def test_the_commands_console_prints_names_as_they_are():
    console = TextConsole(record=True, width=200, force_terminal=True, color_system="truecolor")
    table = Table()
    table.add_column("name")
    table.add_row("[link=https://x.invalid]a:cat:[/link]")
    console.print(table)
    console.print("[bold]b[/bold] :cat:")
    out = console.export_text()
    assert "[link=https://x.invalid]a:cat:[/link]" in out and "[bold]b[/bold] :cat:" in out
    assert "x.invalid" not in Console(record=True, width=200).render_str("[link=https://x.invalid]y[/link]").plain


@given(any_text)
def test_markup_escape_shows_the_text_itself_in_textual_markup(text):
    content = Content.from_markup(f"[b]{markup_escape(text)}[/b] after")
    shown = visible(text)
    assert content.plain in (f"{shown} after", f"{shown}  after")  # a text ending in `\` gets a space
    if shown:  # the style ends where the text does: it did not escape the markup's own closing tag
        assert [(span.start, span.end) for span in content.spans] == [(0, len(content.plain) - len(" after"))]


def test_markup_escape_handles_what_textuals_escape_does_not():
    """Why pvtui has its own: Textual's escape leaves `[` before a digit, and `ESC[6n[link=…]` opens a tag."""
    with pytest.raises(MarkupError):
        Content.from_markup(escape(NAME))
    assert Content.from_markup(markup_escape(NAME)).plain == visible(NAME)


def test_the_model_hands_out_visible_text_unless_asked_for_the_exact(hostile_dir, hostile_truth):
    from pvtui.model.report import Report
    from pvtui.synth.hostile import DIRECTORY

    def texts(report: Report) -> list[str]:
        p, d = report.programs, report.debug
        documents = [report.framework_json, report.app_json, report.instrumentation]
        return [report.name, report.poplar_version, *report.notes, *p.names, *p.compute_set_names,
                *p.vertex_type_names, *p.type_names, *report.liveness.variable_names,
                *report.liveness.always_live_names, *report.execution.run_names, *report.operations.names,
                *d.names, *d.layer_names, *d.category_names, *report.lowered.names, *report.memory.categories,
                *(text for fields in d.fields for text in _strings(json.loads(fields))),
                *(text for document in documents for text in _strings(document))]

    bundle = hostile_dir / "profile.pvtui"
    shown, exact = Report(bundle, DIRECTORY), Report(bundle, DIRECTORY, exact_text=True)
    assert all(is_visible(text) for text in texts(shown))
    assert [visible(text) for text in texts(exact)] == texts(shown)
    assert list(exact.programs.names) == hostile_truth.graph.program_name
    assert shown.programs.names.exact(0) == exact.programs.names[0] != shown.programs.names[0]
    variable = hostile_truth.liveness.var_name[3]  # found by its exact name and by the name shown
    found = {shown.lowered.name_id(variable), shown.lowered.name_id(visible(variable)), exact.lowered.name_id(variable)}
    assert len(found) == 1 and None not in found


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [*value, *(text for item in value.values() for text in _strings(item))]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


@pytest.mark.parametrize("words", [["summary", "{report}", "{name}"], ["summary", "{report}", "--units", "{name}"],
                                   ["{report}", "--screen", "{name}"]])
def test_argparse_messages_quote_what_was_typed_visibly(words, tiny_dir, tmp_path):
    """`pvtui summary reports/*` in a shared folder: a file named with ESC ] 0 ; ... BEL (a new window title)
    is an argument no command takes, or an invalid choice; the real console script says so, visibly."""
    import subprocess
    from pathlib import Path

    name = tmp_path / "\x1b]0;owned\x07\x9b2J.pop"
    name.write_bytes(b"")
    argv = [str(Path(sys.executable).parent / "pvtui"),
            *(w.format(report=tiny_dir, name=name) for w in words)]
    done = subprocess.run(argv, capture_output=True, timeout=60)
    assert done.returncode == 2 and done.stdout == b""
    err = done.stderr.decode()
    assert len(err.splitlines()) == 1, err
    assert is_visible(err.rstrip("\n")) and "\x07" not in err and "\x1b" not in err
    assert "0;owned" in err  # named (argparse's invalid choice quotes it with repr: escapes, visible too)
    if "unrecognized arguments" in err:
        assert visible(str(name)) in err


def test_visible_each_shows_each_as_visible_does():
    from pvtui.safe_text import visible_each

    plain = ["layer0/attention", "", "Mean µs"]
    assert visible_each(plain) is plain  # all printable: one test, the list as it is
    mixed = ["ok", "bad\x1b[2Jname", "tab\there"]
    assert visible_each(mixed) == [visible(text) for text in mixed] and visible_each(mixed)[1] != mixed[1]
