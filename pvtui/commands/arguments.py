"""argparse types shared by the commands' options."""

from __future__ import annotations

import argparse
from typing import Callable


def at_least_one(what: str) -> Callable[[str], int]:
    """An argparse type: a whole number of WHAT, 1 or more (0 or less would print nothing, or everything)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of {what} (1 or more)")
        return value

    return parse
