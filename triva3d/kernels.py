"""numba compiles triva3d's kernels on their first use and caches them (`cache=True`:
beside the modules, or under $NUMBA_CACHE_DIR). After an install, or when a kernel
changes, the first picture waits for them; `on_first_compile` lets a view say so.
numba's import (0.3 s) and its first kernel (0.5 s more, even from the cache) are
the start-up of every run that computes; a run that does not (`--help`, a trace read
from triva3d's cache) never imports it."""
import importlib.abc
import importlib.util
import sys
import threading

MESSAGE = "compiling numba kernels once (up to a minute; cached for later runs)..."
PACKAGE = __name__.partition(".")[0] + "."
#: Who is told, once, when the first kernel compiles; whether numba was told to tell.
_CALLBACKS, _LISTENING = [], []
_LOCK = threading.Lock()


def on_first_compile(callback):
    """Call `callback(MESSAGE)` once in this process (a callback given again is
    still called once), when numba starts compiling one of triva3d's kernels (its
    cache is cold); never while every kernel loads from the cache. Other code's
    numba functions are ignored. Does not import numba: until it is imported, a
    finder waits for its import to end."""
    with _LOCK:
        if callback not in _CALLBACKS:
            _CALLBACKS.append(callback)
        imported = "numba" in sys.modules
        if not imported and not any(isinstance(f, _AfterNumba) for f in sys.meta_path):
            sys.meta_path.insert(0, _AfterNumba())
    if imported:
        _listen()


def _listen():
    """Register the one listener (numba imported; nothing imported under _LOCK)."""
    from numba.core import event

    class FirstCompile(event.Listener):
        told = False

        def on_start(self, ev):
            func = getattr(ev.data["dispatcher"], "py_func", None)
            if not self.told and getattr(func, "__module__", "").startswith(PACKAGE):
                self.told = True
                for callback in list(_CALLBACKS):
                    callback(MESSAGE)

        def on_end(self, ev):
            pass
    with _LOCK:
        if not _LISTENING:
            event.register("numba:compile", FirstCompile())
            _LISTENING.append(True)


class _AfterNumba(importlib.abc.MetaPathFinder):
    """Registers the listener as numba's import ends. It stays in sys.meta_path
    (removing it could make another thread's import skip a finder), answering None
    to everything else and, once numba is imported, to everything."""

    def find_spec(self, name, path=None, target=None):
        if name != "numba" or "numba" in sys.modules or _LISTENING:
            return None
        meta = [f for f in sys.meta_path if f is not self]
        spec = next((s for s in (f.find_spec(name, path, target) for f in meta
                                 if hasattr(f, "find_spec")) if s is not None), None)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _listen()
        spec.loader.exec_module = exec_module
        return spec
