"""Text from outside made safe to show: the one function every name, path and string from a report,
a file name or the environment passes before Rich or Textual sees it.

A report is data someone else may have written. A program name holding `ESC ] 52 ; c ; …` sets the
user's clipboard when written to a terminal, `ESC ] 0 ; …` the window title, `ESC [ 6 n` makes the
terminal type a reply into pvtui's input; bidi overrides reorder what is shown and zero-width
characters hide what is there. `visible` turns every such character into visible text:

- C0 controls (tab and newline too: a name is one line) as their Control Pictures (`\\x1b` as `␛`),
  DEL as `␡`, a C1 control as `␛` and its 7-bit form (`\\x9b`, the one-byte CSI, as `␛[`);
- format characters (bidi embeddings, overrides, isolates and marks, zero-width spaces and joiners,
  the byte order mark, tags), line and paragraph separators and lone surrogates as `<U+202E>`.

Each is shown, never dropped, so two names that differ only there still look different; text
without them comes back unchanged (the same object), which costs one `str.isprintable`.

Where it is applied, and why there: so that a new view cannot forget it.
- In the model. Every view, text command and insight is computed from a `Report`, and every name
  and string a Report hands out passes here first: its string tables (programs, compute sets, vertex
  types, variables, runs, operations, debug contexts and their fields, lowered variables), the names
  in its metadata (layers, categories, program types, target, Poplar version), framework.json and
  app.json (keys and values), its name and its notes. A view written tomorrow reads the same
  accessors and shows visible names without a call of its own. Only a report opened with
  `exact_text=True` hands out the exact text, for `--json` (JSON escapes control characters itself,
  and a program reading it wants the true names); `Report.bundle` and `Report.meta` stay as stored
  for the code that copies or finds files.
- For text that is not the model's, at the few doors it reaches the terminal by: `ReportError` (its
  message quotes paths), `commands.common.say`, `print_line` and `emit` (which makes every string of
  a command's answer visible before it is drawn), the status line (widgets/status.py: what the app
  and its screens say), the title bar, and the dialogs and the capture screen that name files and paths.
The model was chosen over the renderers because text reaches the screen through far more places
(Static, DataTable cells, Tree labels, Strips of the Line-API views, notifications, Rich tables of
the commands) than it leaves the model by, and because widths must be measured on what is shown:
a Strip filter at the last moment would draw lines longer than Textual laid out.

Markup is the renderers' business (pvtui.render.visible_text): report text is never given to Rich or
Textual as markup, the commands print through a console that reads none (render.console.TextConsole),
and where a screen builds markup around a name it escapes it with `markup_escape`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

# Unicode categories Cc (controls), Cf (format), Cs (surrogates), Zl and Zp (line and paragraph
# separators), as of Unicode 14; tests/test_safe_text.py checks this class against unicodedata.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u2028-\u202e\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
ESCAPE_GLYPH = "␛"
# What `visible` writes for one character: a Control Picture, ␛ and a C1's 7-bit letter, or <U+XXXX>.
SHOWN_CHARACTER = re.compile(r"␛[\x40-\x5f]|[\u2400-\u2421]|<U\+[0-9A-F]{4,6}>")


def glyph(char: str) -> str:
    """How one unsafe character is shown."""
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # Control Pictures: ␀ … ␟
    if code == 0x7F:
        return "␡"
    if code <= 0x9F:
        return ESCAPE_GLYPH + chr(code - 0x40)  # a C1 control is ESC and a letter in 7 bits
    return f"<U+{code:04X}>"


_GLYPHS: dict[str, str] = {}


def _glyph_of(match: re.Match[str]) -> str:
    char = match.group()
    shown = _GLYPHS.get(char)
    if shown is None:
        shown = _GLYPHS[char] = glyph(char)
    return shown


def visible(text: str) -> str:
    """TEXT with every control, format and separator character shown as visible text (see above)."""
    if is_visible(text):
        return text
    return _UNSAFE.sub(_glyph_of, text)


def visible_each(texts: list[str]) -> list[str]:
    """`visible` of each of TEXTS; where they are all printable (almost always), one test of them joined."""
    return texts if "".join(texts).isprintable() else [visible(text) for text in texts]


def is_visible(text: str) -> bool:
    """Whether TEXT holds nothing `visible` would change."""
    # isprintable, in C, answers for almost every name; what it refuses besides (spaces other than
    # U+0020, private use, unassigned) the class looks at
    return text.isprintable() or _UNSAFE.search(text) is None


def may_be_shown(text: str) -> bool:
    """Whether TEXT may be what `visible` made of another text (it holds what `visible` writes)."""
    return SHOWN_CHARACTER.search(text) is not None


def visible_all(value: Any) -> Any:
    """VALUE (JSON-like: dicts, lists, tuples, strings, numbers, dataclasses) with every string in it, keys too, made
    visible; what holds no string is returned as it is."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, dict):
        return {visible_all(key): visible_all(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(visible_all(item) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # such as model.unavailable's Unavailable
        return dataclasses.replace(value, **{f.name: visible_all(getattr(value, f.name))
                                             for f in dataclasses.fields(value) if f.init})
    return value


# An escape in a JSON string: a surrogate pair (one character), \uXXXX, or one of \" \\ \/ \b \f \n \r \t.
_JSON_ESCAPE = re.compile(r"\\(?:u(d[89ab][0-9a-f]{2}\\ud[c-f][0-9a-f]{2})|u([0-9a-f]{4})|(.))",
                          re.IGNORECASE | re.DOTALL)
_JSON_SHORT = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _json_glyph(char: str) -> str:
    """How CHAR is shown, as it is written inside a JSON string."""
    return json.dumps(visible(char), ensure_ascii=False)[1:-1]  # `␛\`, ESC's 7-bit ST, needs its `\` escaped


def _visible_escape(match: re.Match[str]) -> str:
    if match.group(1) is not None:  # a surrogate pair: one character beyond the first plane
        high, low = int(match.group(1)[:4], 16), int(match.group(1)[-4:], 16)
        char = chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    elif match.group(2) is not None:
        char = chr(int(match.group(2), 16))
    else:
        char = _JSON_SHORT.get(match.group(3))
    if char is None or is_visible(char):
        return match.group()
    return _json_glyph(char)


def visible_json(text: str) -> str:
    """JSON TEXT that decodes to visible strings: unsafe characters written as they are, and escapes
    that would decode to one (`\\u001b`, `\\u202e`, `\\n`), replaced by what `visible` shows for them.
    Text that is not valid JSON stays text that `visible` made safe."""
    if not is_visible(text):
        text = _UNSAFE.sub(lambda match: _json_glyph(match.group()), text)
    if "\\" not in text:
        return text
    return _JSON_ESCAPE.sub(_visible_escape, text)
