"""The Insights screen's navigator: the insights shown, the section the last n or N went to, and the
pipeline split: over how many IPUs, and the one shown. Pure: the screen computes them in workers."""

from __future__ import annotations

from typing import Any

from pvtui.model.unavailable import Unavailable

MAX_IPUS = 16


class InsightsNavigator:
    def __init__(self) -> None:
        self.data: dict[str, Any] | None = None  # the insights shown, unit-free; None while computed
        self.section = 0  # the section the last n or N went to
        self.ipus = 2  # how many IPUs the pipeline split is over
        self.split: dict[str, Any] | Unavailable | None = None  # the split shown, None until the report's first is in

    def forget(self) -> None:
        """A reload: its insights and split are computed anew."""
        self.data = None
        self.split = None

    def go(self, step: int, sections: int) -> int | None:
        """The section STEP after (before, negative) the last one gone to, of SECTIONS; None until the
        insights are in."""
        if self.data is None:
            return None
        self.section = (self.section + step) % sections
        return self.section

    def split_in(self, split: dict[str, Any] | Unavailable) -> int | None:
        """SPLIT is in: the IPUs to split over again where a reload left fewer layers than IPUs, else None."""
        self.split = split
        if self.ipus > self.most_ipus():
            self.ipus = self.most_ipus()
            return self.ipus
        return None

    def most_ipus(self) -> int:
        """16, or fewer where the report has fewer layers to split."""
        layers = self.split["layers"] if self.split_shown else ()
        return min(MAX_IPUS, len(layers)) if layers else MAX_IPUS

    @property
    def split_shown(self) -> bool:
        """A split is shown: not while the first is computed, nor where there is nothing to split."""
        return self.split is not None and not isinstance(self.split, Unavailable)

    @property
    def more_ipus_fit(self) -> bool:
        return self.ipus + 1 <= self.most_ipus()

    @property
    def fewer_ipus_fit(self) -> bool:
        return self.ipus > 1

    def split_over(self, step: int) -> bool:
        """Split over one more (STEP 1) or one fewer (-1) IPU, within 1 and `most_ipus`; whether that
        changed the IPUs. The split shown stays until the new one is in, so the page does not jump."""
        ipus = min(max(self.ipus + step, 1), self.most_ipus())
        if self.split is None or ipus == self.ipus:
            return False
        self.ipus = ipus
        return True
