"""What the model cannot give, and why: returned in place of the figure it would be.

Every model function that may lack a figure returns `Unavailable` in its place (never None with a
reason elsewhere, nor a dict saying so); the commands turn it into JSON at their edge
(`pvtui.commands.common.as_json`), the screens show its reason.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Unavailable:
    """A figure the report cannot give, and why in one sentence, naming the file or option that would add it
    (`Report.missing(part)` words it so)."""

    reason: str
