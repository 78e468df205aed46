"""Hostile names: a synthetic report whose every name tries to drive the terminal that shows it.

Each name starts with LEAD and ends with TAIL, which between them hold what a report written by
someone else could: OSC 52 (sets the clipboard), OSC 0 (the window title), CSI 6n (the terminal
types a reply into the input), the one-byte C1 CSI, an SGR, BEL, DEL, a right-to-left override, a
zero-width space, and Rich and Textual markup (a link, blinking, a click action). The start of a name
is what a narrow column keeps, so LEAD alone shows a leak (an escape sequence) and markup read as
markup (a hyperlink, OSC 8, to MARKUP_LINK; a blinking style, which pvtui never uses): `planted_in`
finds them in what a terminal was sent. Neither holds `/` nor NUL: DIRECTORY, a report directory's own
name, carries them too.

The numbers of a hostile report are those of the plain one of the same scale and seed: names are
changed after the truth is generated.
"""

from __future__ import annotations

import re
from typing import Any

MARKUP_LINK = "pvtui.invalid"  # the host of the planted link: in an OSC 8, markup was read as markup
LEAD = f"[blink]\x1b[6n[link=mailto:markup@{MARKUP_LINK}]"  # markup first: a name cut short keeps it
TAIL = (
    "\x1b]52;c;cHZ0dWk=\x07"  # OSC 52: the clipboard becomes "pvtui"
    "\x1b]0;pvtui-title\x1b\\"  # OSC 0: the window title, ended by ST
    "\x9b7m"  # C1 CSI: reverse video
    "\x1b[5;31mRED\x07"  # SGR blink and red, then BEL
    "\u202eevil\u200b\x7f"  # right-to-left override, zero-width space, DEL
    "[@click=app.quit]Q[blink]B"  # Textual's action markup; style markup at the end too (columns keep ends)
)
# Each as it reaches a terminal (UTF-8), if nothing made it visible: what a test looks for.
PLANTED = {
    "OSC 52": b"\x1b]52",
    "OSC 0": b"\x1b]0;",
    "CSI 6n": b"\x1b[6n",
    "C1 CSI": "\x9b".encode(),
    "SGR": b"\x1b[5;31m",
    "BEL": b"RED\x07",
    "RLO": "\u202e".encode(),
    "ZWSP": "\u200b".encode(),
    "DEL": b"\x7f",
}
DIRECTORY = f"{LEAD}report{TAIL}"
_HYPERLINK = re.compile(rb"\x1b\]8;[^\x07\x1b]*" + re.escape(MARKUP_LINK.encode()))
_SGR = re.compile(rb"\x1b\[([0-9;:]*)m")
BLINK = {5, 6}  # SGR slow and rapid blink
KEPT_LAYERS = ("popart",)  # its name stays: the operations of the report keep their default layer


def planted_in(output: bytes) -> list[str]:
    """What OUTPUT, bytes sent to a terminal, holds of the names' sequences (PLANTED, by name), and
    "markup" where it shows their markup was read: a hyperlink to MARKUP_LINK or a blinking style."""
    found = [name for name, sequence in PLANTED.items() if sequence in output]
    if _HYPERLINK.search(output) or any(_blinks(match.group(1)) for match in _SGR.finditer(output)):
        found.append("markup")
    return found


def _blinks(parameters: bytes) -> bool:
    """Whether an SGR of PARAMETERS turns blinking on (not a 5 within a 256-colour or RGB colour)."""
    codes = [int(code or 0) for code in re.split(rb"[;:]", parameters)]
    i = 0
    while i < len(codes):
        if codes[i] in (38, 48, 58):  # a colour: 5;N or 2;R;G;B follows
            i += 3 if i + 1 < len(codes) and codes[i + 1] == 5 else 5
            continue
        if codes[i] in BLINK:
            return True
        i += 1
    return False


def hostile(name: str) -> str:
    """NAME between LEAD and TAIL."""
    return f"{LEAD}{name}{TAIL}"


def hostile_json(value: Any) -> Any:
    """VALUE (a JSON document) with every key and string made hostile."""
    if isinstance(value, str):
        return hostile(value)
    if isinstance(value, dict):
        return {hostile(key): hostile_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [hostile_json(item) for item in value]
    return value
