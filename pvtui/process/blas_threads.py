"""One OpenBLAS thread for pvtui, the user's own setting for the programs pvtui runs for them.

pvtui does no linear algebra, yet numpy's OpenBLAS starts a pool of one thread per core (up to 64)
when numpy is imported: CPU spent before every command's first line, and threads on a shared host.
"""

from __future__ import annotations

import os

VARIABLE = "OPENBLAS_NUM_THREADS"
_set_by_pvtui = False


def one_blas_thread() -> None:
    """Start numpy's OpenBLAS with one thread, unless the user asked for more (before numpy is imported)."""
    global _set_by_pvtui
    if VARIABLE not in os.environ:
        os.environ[VARIABLE] = "1"
        _set_by_pvtui = True


def users_environment() -> dict[str, str]:
    """pvtui's environment without what one_blas_thread set: the program `pvtui capture` runs may use BLAS."""
    env = dict(os.environ)
    if _set_by_pvtui:
        env.pop(VARIABLE, None)
    return env
