"""What a view over the model cannot give, and why: returned in place of the figure it would be."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Unavailable:
    """A figure the reports cannot give (a part one of them lacks), and why, in one sentence."""

    reason: str

    def as_dict(self) -> dict[str, Any]:
        """As the JSON of the commands gives it."""
        return {"available": False, "reason": self.reason}
