"""Python's cyclic garbage collector, held while the app starts.

Importing Textual and pvtui and building the first frame makes hundreds of thousands of objects
that live as long as the app, and next to no garbage: the collector ran about 80 times before
the first frame and found almost nothing, 20-29 ms of a start that is measured against a bare
Textual app's; numpy's import and the report's body, after that frame, made 40-50 collections
more (10 ms) that found next to nothing too. So the commands that start the app hold it (`hold`)
before they import the app, and the app resumes it (`resume`) once the report is shown, having
frozen what is alive then (never walked again, as pvtui.ui.long_lived does for the model), or
where the start turns to something longer (a read with progress, a picker, a failure);
collections go on as usual.
"""

from __future__ import annotations

import gc

_held = False  # collections were stopped by `hold`, not by anyone else


def hold() -> None:
    """Stop collections until `resume`, where they run."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def resume() -> None:
    """Collect again where `hold` stopped collections. Safe to call twice."""
    global _held
    if _held:
        _held = False
        gc.enable()
