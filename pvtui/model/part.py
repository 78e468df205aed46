"""A view over the columns of one part of a bundle, the base of the model's parts."""

from __future__ import annotations

import numpy as np

from pvtui.model.bundle import Bundle


class Part:
    """A view over the columns of one part of the bundle."""

    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self.meta = bundle.meta

    def col(self, name: str) -> np.ndarray:
        return self.bundle.array(name)

    def opt(self, name: str) -> np.ndarray | None:
        return self.bundle.array(name) if self.bundle.has(name) else None
