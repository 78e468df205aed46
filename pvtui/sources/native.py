"""The native reader: profile.pop read straight from its SQLite tables, without libpva.

It opens the file read-only and immutable (as `pvtui check` does), reads sqlite_master and each
table's columns, and fills from each table the public record shows (sources/pop_schema.py) what
its columns allow, a batch of rows at a time into numpy columns. What no such table gives
(liveness, the program tree, runs, tile balance, data moved, per-tile cycles, operations, the
target's memory and clock) is noted part by part, naming libpva; archive.a and the JSON files give
what they can beside it (sources/ingest.py).
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from pvtui.errors import Cancelled
from pvtui.sources import native_memory, native_steps
from pvtui.sources.base import IngestContext
from pvtui.sources.native_tables import LIBPVA, READER, ProfileTables
from pvtui.sources.pop_schema import KNOWN, PROFILE
from pvtui.sources.sqlite.database import NotIntegers, connect, interrupted

# One line for every part the tables leave out or give in part: shown once, and by each view that lacks it.
LIMITS = (f"{PROFILE} read by the native reader: its known tables hold no liveness, program tree, runs, balance,"
          f" per-tile cycles, gaps or target memory and clock; {LIBPVA} reads them")
# the parts, and what views ask for within the parts read (Report.missing), that the tables leave out
LIMITED_PARTS = ("liveness", "liveness_tiles", "bsp", "operations", "tile_split", "program_tree", "step_details",
                 "variable_liveness")


def read_native_profile(path: Path, ctx: IngestContext) -> None:
    """Fill the bundle's profile parts from what profile.pop's known tables give; note the rest."""
    from pvtui.sources import native_memory
    from pvtui.sources import native_steps

    readers = ctx.meta.setdefault("readers", {})
    try:
        with closing(connect(path, ctx.cancel)) as db:
            profile = ProfileTables(db, path, ctx)
            if not any(name in {n.lower() for n in profile.all} for name in KNOWN):
                ctx.note_unread(f"{PROFILE}: not read: none of its {len(profile.all):,} tables is one the"
                                f" native reader knows (an unknown schema); {LIBPVA} is needed")
                return
            for part in LIMITED_PARTS:  # said from the first showing of the parts read
                ctx.note(part, LIMITS)
            # memory first (a few tables, shown at once), the execution profile (most of the file) last;
            # the memory's tiles are split into the IPUs the execution profile's first rows name
            profile.num_ipus = native_steps.ipus_named_first(profile)
            for part, read in (("memory", native_memory.read_memory), ("programs", native_steps.read_programs),
                               ("execution", native_steps.read_execution)):
                try:
                    readers.update(dict.fromkeys(read(profile), READER))
                except NotIntegers as exc:
                    ctx.note(part, f"{PROFILE}: {part} not read: {exc}; an unknown schema, {LIBPVA} is needed")
                except sqlite3.DatabaseError as exc:  # a damaged table: its part left out, the others read
                    if ctx.cancel.cancelled or interrupted(exc):
                        raise
                    ctx.note(part, f"{PROFILE}: {part} not read: {exc}")
                if part == "execution":
                    native_memory.split_into_ipus(profile)  # where all the rows name other IPUs than the first
                ctx.meta["target"] = profile.target()
                ctx.show_parts()
    except sqlite3.Error as exc:
        if ctx.cancel.cancelled or interrupted(exc):
            raise Cancelled() from None
        ctx.note_unread(f"{PROFILE}: not read: SQLite cannot read it ({exc}); {LIBPVA} is needed")
