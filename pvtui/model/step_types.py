"""Program types grouped by what the IPU does in them: the BSP phases and the rest.

The program tree and the trace colour a type the same way through these groups.
Types this table does not know are "other": kept and shown, never dropped.
"""

from __future__ import annotations

PHASES = ("compute", "exchange", "stream", "sync", "control", "other")

_GROUPS = {
    "compute": ("OnTileExecute",),
    "exchange": ("DoExchange", "GlobalExchange"),
    "stream": ("StreamCopyBegin", "StreamCopyMid", "StreamCopyEnd", "StreamCopy"),
    "sync": ("Sync", "SyncAns", "Sans"),
    "control": (
        "Sequence", "Repeat", "RepeatWhileTrue", "RepeatWhileFalse", "OnEveryTileSwitch",
        "If", "Switch", "Call", "Loop",
    ),
}
_PHASE_OF = {name: phase for phase, names in _GROUPS.items() for name in names}


def phase_of(type_name: str) -> str:
    return _PHASE_OF.get(type_name, "other")


def phase_index(type_name: str) -> int:
    return PHASES.index(phase_of(type_name))
