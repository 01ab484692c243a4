"""numba compiles triva3d's kernels on their first use and caches them (`cache=True`:
beside the modules, or under $NUMBA_CACHE_DIR). After an install, or when a kernel
changes, the first picture waits for them; `on_first_compile` lets a view say so."""
from numba.core import event

MESSAGE = "compiling numba kernels once (up to a minute; cached for later runs)..."
PACKAGE = __name__.partition(".")[0] + "."


class _FirstCompile(event.Listener):
    """Calls `callback(MESSAGE)` when the first of triva3d's kernels starts compiling
    (numba compiles one function at a time, under its lock)."""

    def __init__(self, callback):
        self.callback = callback
        self.told = False

    def on_start(self, ev):
        func = getattr(ev.data["dispatcher"], "py_func", None)
        if not self.told and getattr(func, "__module__", "").startswith(PACKAGE):
            self.told = True
            self.callback(MESSAGE)

    def on_end(self, ev):
        pass


def on_first_compile(callback):
    """Call `callback(MESSAGE)` once in this process, when numba starts compiling one of
    triva3d's kernels (its cache is cold); never while every kernel loads from the
    cache. Other code's numba functions are ignored."""
    event.register("numba:compile", _FirstCompile(callback))
