"""Defer a module's import until one of its attributes is first used.

The app paints its first frame before it opens the report, and nothing on that path
uses numpy; importing it costs 50-110 ms, a third of a bare Textual start. So the app
puts a stand-in for numpy in `sys.modules`: `import numpy as np` binds the stand-in,
and the first `np.<name>`, usually in the worker that opens the report, imports numpy
and copies its namespace into the stand-in, so later lookups cost what they did.

`importlib.util.LazyLoader` is not enough: on Python 3.11 the import statement itself
reads the module's `__spec__`, which triggers the load.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types
from pathlib import Path


class DeferredModule(types.ModuleType):
    """Stands in for a module until an attribute it does not hold yet is asked for."""

    def __getattr__(self, name: str):
        real = self._load()
        return getattr(real, name)

    def _load(self) -> types.ModuleType:
        with self.__dict__["_deferred_lock"]:
            real = self.__dict__.get("_deferred_module")
            if real is None:
                del sys.modules[self.__name__]  # the real import puts the real module there
                try:
                    real = importlib.import_module(self.__name__)
                except BaseException:
                    sys.modules.setdefault(self.__name__, self)
                    raise
                spec = self.__spec__
                self.__dict__.update(real.__dict__)
                self.__dict__["__spec__"] = spec if real.__spec__ is None else real.__spec__
                self.__dict__["_deferred_module"] = real
            return real


def defer_import(name: str) -> None:
    """Import NAME only when one of its attributes is first used (no-op once it is imported)."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None:
        return  # let the first use raise the usual ImportError
    stand_in = DeferredModule(name)
    # No __path__: importing a submodule reads it, and must find the real package.
    stand_in.__dict__.update(__spec__=spec, _deferred_lock=threading.RLock())
    sys.modules[name] = stand_in


# numpy's own modules that its import runs and nothing of pvtui uses (numpy 2): two that add docstrings to
# its C functions and scalar types, and numpy._typing, imported by numpy.linalg for NDArray alone, to annotate
# its result types. 96 M instructions, 38% of numpy's import after Textual's (bench.instructions).
NUMPY_DOCSTRINGS = ("_core/_add_newdocs.py", "_core/_add_newdocs_scalars.py")
NUMPY_TYPING = "_typing/__init__.py"


class Annotation:
    """Stands for numpy._typing's NDArray in the annotations numpy.linalg makes with it (NDArray[Any])."""

    def __class_getitem__(cls, item: object) -> type:
        return cls


def defer_numpy_unused() -> None:
    """Put stand-ins in the place of numpy's modules that pvtui does not use (NUMPY_DOCSTRINGS, NUMPY_TYPING),
    while numpy itself is deferred (`defer_import`): the first use of one imports it, as for numpy. Where
    numpy holds other modules (another version), nothing is done."""
    numpy = sys.modules.get("numpy")
    if not isinstance(numpy, DeferredModule) or not numpy.__spec__.submodule_search_locations:
        return
    folder = Path(numpy.__spec__.submodule_search_locations[0])
    for file in NUMPY_DOCSTRINGS:
        if (folder / file).is_file():
            _stand_in(f"numpy.{file[:-3].replace('/', '.')}")
    typing = folder / NUMPY_TYPING
    if typing.is_file():
        # Its __path__, so that the import statement (which reads it) does not import it, and its submodules
        # are found; NDArray, which numpy.linalg imports from it.
        _stand_in("numpy._typing", __path__=[str(typing.parent)], NDArray=Annotation)


def _stand_in(name: str, **held: object) -> None:
    stand_in = DeferredModule(name)
    # __spec__ None: the import statement reads it (to see whether the module is still being imported)
    stand_in.__dict__.update(__spec__=None, _deferred_lock=threading.RLock(), **held)
    sys.modules[name] = stand_in


def load_deferred(name: str) -> None:
    """Import NAME now where a stand-in holds its place (no-op otherwise): in a worker, before its first use
    on the UI thread."""
    module = sys.modules.get(name)
    if isinstance(module, DeferredModule):
        module._load()


def is_deferred(name: str) -> bool:
    """True while NAME is a stand-in that has not imported the real module yet."""
    module = sys.modules.get(name)
    return isinstance(module, DeferredModule) and "_deferred_module" not in module.__dict__
