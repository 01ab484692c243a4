"""numba compiles triva3d's kernels on their first use and caches them (`cache=True`:
beside the modules, or under $NUMBA_CACHE_DIR). After an install, or when a kernel
changes, the first picture waits for them; `on_first_compile` lets a view say so.
numba's import (0.3 s) and its first kernel (0.5 s more, even from the cache) are
the start-up of every run that computes; a run that does not (`--help`, a trace read
from triva3d's cache) never imports it."""
import importlib.abc
import importlib.util
import sys

MESSAGE = "compiling numba kernels once (up to a minute; cached for later runs)..."
PACKAGE = __name__.partition(".")[0] + "."


def on_first_compile(callback):
    """Call `callback(MESSAGE)` once in this process, when numba starts compiling one of
    triva3d's kernels (its cache is cold); never while every kernel loads from the
    cache. Other code's numba functions are ignored. Does not import numba: where it
    is not imported yet, the listener is registered as its import ends."""
    if "numba" in sys.modules:
        _listen(callback)
    else:
        sys.meta_path.insert(0, _AfterImport("numba", lambda: _listen(callback)))


def _listen(callback):
    from numba.core import event

    class FirstCompile(event.Listener):
        told = False

        def on_start(self, ev):
            func = getattr(ev.data["dispatcher"], "py_func", None)
            if not self.told and getattr(func, "__module__", "").startswith(PACKAGE):
                self.told = True
                callback(MESSAGE)

        def on_end(self, ev):
            pass
    event.register("numba:compile", FirstCompile())


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs `then()` once the module `name` has been imported (and leaves the import
    system as it was)."""

    def __init__(self, name, then):
        self.name, self.then = name, then

    def find_spec(self, name, path=None, target=None):
        if name != self.name:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        run, then = spec.loader.exec_module, self.then

        def exec_module(module):
            run(module)
            then()
        spec.loader.exec_module = exec_module
        return spec
