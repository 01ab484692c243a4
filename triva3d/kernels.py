"""numba compiles triva3d's kernels on their first use and caches them (`cache=True`:
beside the modules, or under $NUMBA_CACHE_DIR). After an install, or when a kernel
changes, the first picture waits for them; `on_first_compile` lets a view say so.
numba's import (0.3 s) and its first kernel (0.5 s more, even from the cache) are
the start-up of every run that computes; a run that does not (`--help`, a trace read
from triva3d's cache) never imports it.

`lazy` kernels go further: numba is imported when one is first called outside
`interpreted()`, within which they run as plain Python; a reader runs a small input
that way, faster than numba could start (a 10-line trace: 0.3 s instead of 1.1 s).
And once compiled, a cached one is kept as machine code that later runs load without
numba (machinecode.py): a Pajé read of 1e6 events takes 0.5 s instead of 1.0 s."""
import contextlib
import functools
import hashlib
import importlib.abc
import importlib.util
import sys
import threading
import types

import numpy as np

from . import machinecode

MESSAGE = "compiling numba kernels once (up to a minute; cached for later runs)..."
PACKAGE = __name__.partition(".")[0] + "."
#: Who is told, once, when the first kernel compiles; whether numba was told to tell;
#: whether they were told.
_CALLBACKS, _LISTENING, _TOLD = [], [], []
_LOCK = threading.Lock()
#: Held by LLVM work outside numba while numba is not imported, and by numba's import.
_LLVM = threading.RLock()


def on_first_compile(callback):
    """Call `callback(MESSAGE)` once in this process (a callback given again is
    still called once), when numba starts compiling one of triva3d's kernels (its
    cache is cold), in the thread that compiles (a reader's second thread, maybe);
    never while every kernel loads from the cache. Other code's
    numba functions are ignored. Does not import numba: until it is imported, a
    finder waits for its import to end."""
    with _LOCK:
        if callback not in _CALLBACKS:
            _CALLBACKS.append(callback)
    if _watch_numba():
        _listen()


def _watch_numba():
    """Whether numba is imported (or being imported); if not, a finder will see to its
    import (once)."""
    with _LOCK:
        imported = "numba" in sys.modules
        if not imported and not any(isinstance(f, _AfterNumba) for f in sys.meta_path):
            sys.meta_path.insert(0, _AfterNumba())
    return imported


@contextlib.contextmanager
def llvm_lock():
    """Held around LLVM work that is not numba's (llvmlite shares LLVM's global
    state): numba's compiler lock where numba is imported; else, without importing
    it (0.3 s), a lock that numba's import, in any thread, waits for."""
    if not _watch_numba():
        with _LLVM:
            if "numba" not in sys.modules:  # (its import waits for _LLVM)
                yield
                return
    importlib.import_module("numba")  # (another thread importing it: once it is whole)
    from numba.core.compiler_lock import global_compiler_lock
    with global_compiler_lock:
        yield


def _tell():
    """Call the callbacks, the first time one of triva3d's kernels compiles."""
    with _LOCK:
        if _TOLD:
            return
        _TOLD.append(True)
    for callback in list(_CALLBACKS):
        callback(MESSAGE)


def _listen():
    """Register the one listener (numba imported; nothing imported under _LOCK)."""
    from numba.core import event

    class FirstCompile(event.Listener):
        def on_start(self, ev):
            func = getattr(ev.data["dispatcher"], "py_func", None)
            if getattr(func, "__module__", "").startswith(PACKAGE):
                _tell()

        def on_end(self, ev):
            pass
    with _LOCK:
        if not _LISTENING:
            event.register("numba:compile", FirstCompile())
            _LISTENING.append(True)


class _AfterNumba(importlib.abc.MetaPathFinder):
    """Runs numba's import under _LLVM (see llvm_lock), then registers the listener
    where a callback waits for it. It stays in sys.meta_path (removing it could make
    another thread's import skip a finder), answering None to everything else and,
    once numba is imported, to everything."""

    def find_spec(self, name, path=None, target=None):
        if name != "numba" or "numba" in sys.modules:
            return None
        meta = [f for f in sys.meta_path if f is not self]
        spec = next((s for s in (f.find_spec(name, path, target) for f in meta
                                 if hasattr(f, "find_spec")) if s is not None), None)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            with _LLVM:
                run(module)
            if _CALLBACKS:
                _listen()
        spec.loader.exec_module = exec_module
        return spec


_MODE = threading.local()
_COMPILE = threading.RLock()


class interpreted:
    """Context in which this thread runs `lazy` kernels as Python, when `on` (numpy
    scalar overflow wraps, as in numba, silently)."""

    def __init__(self, on=True):
        self.on = on

    def __enter__(self):
        self.saved = getattr(_MODE, "on", False)
        _MODE.on = self.on
        if self.on:
            self.errstate = np.errstate(over="ignore")
            self.errstate.__enter__()

    def __exit__(self, *exc):
        if self.on:
            self.errstate.__exit__(*exc)
        _MODE.on = self.saved


def lazy(**options):
    """Decorator: a kernel `numba.njit(**options)` compiles at its first call outside
    `interpreted()`. Its calls to other lazy kernels of its module are compiled calls."""
    return lambda func: Lazy(func, options)


@functools.cache
def _fingerprint(module):
    """What a module's compiled kernels depend on: its source and the values of its
    numbers and arrays (constants imported from elsewhere included)."""
    m = sys.modules[module]
    h = hashlib.sha256()
    with open(m.__file__, "rb") as f:
        h.update(f.read())
    for name, value in sorted(vars(m).items()):
        if isinstance(value, (int, float, str, bytes, tuple)) and not name.startswith("__"):
            h.update(f"{name}={value!r}".encode())
        elif isinstance(value, np.ndarray):
            h.update(f"{name}:{value.dtype.str}{value.shape}".encode() + value.tobytes())
    return h.hexdigest()


class Lazy:
    """A kernel as Python (`py_func`) and, once asked for, compiled: where numba's
    `cache` option is on, as machine code kept per argument types (an entry,
    machinecode.py), else as numba's dispatcher (also for arguments no entry takes)."""

    def __init__(self, func, options):
        self.py_func, self.options = func, options
        self.compiled = self.fresh = None  # numba's dispatchers, cached and not
        self.entries = {}  # argument type codes -> machinecode.Entry, or False
        self.__name__, self.__doc__ = func.__name__, func.__doc__
        self.__module__, self.__qualname__ = func.__module__, func.__qualname__

    def __reduce__(self):  # pickled by name, as functions are
        return self.__qualname__

    def __call__(self, *args):
        if getattr(_MODE, "on", False):  # bytes read as Python ints, widened as numba does
            return self.py_func(*(memoryview(a) if getattr(a, "dtype", None) == "uint8"
                                  and a.ndim == 1 else a for a in args))
        if self.options.get("cache"):  # kept: run by its entry where one can
            codes, words = [], []
            try:
                machinecode.flatten(args, codes, words)
            except machinecode.Unsupported:
                codes = None
            if codes is not None:
                codes = tuple(codes)
                entry = self.entries.get(codes)
                if entry is None:
                    entry = self.entry(codes, len(words))
                if entry:
                    return entry(self.__name__, words)
        return (self.compiled or self.compile())(*args)

    def entry(self, codes, nwords):
        """The machine code of this kernel for arguments of type `codes`: kept from an
        earlier run, else compiled by numba and kept (entries.py); False where an
        entry cannot run it or could not be kept, or numba's JIT is off."""
        with _COMPILE:
            numba_key = None if codes in self.entries else machinecode.numba_key()
            if numba_key is not None:
                path = machinecode.cache_path("kernels", "\n".join([
                    _fingerprint(self.py_func.__module__), self.__qualname__,
                    repr(sorted(self.options.items())), " ".join(codes), numba_key,
                    machinecode.host()]))
                code = machinecode.kept(path)
                entry = None
                if code:
                    with llvm_lock():
                        entry = machinecode.load(code)
                if entry is None and machinecode.can_keep(path):  # (else built each run)
                    _tell()
                    from . import entries
                    code = entries.build(self.compile(cache=False), codes, nwords)
                    machinecode.keep(path, code)
                    with llvm_lock():
                        entry = machinecode.load(code)
                self.entries[codes] = entry or False
            self.entries.setdefault(codes, False)  # (numba's JIT off)
        return self.entries[codes]

    def compile(self, cache=True):
        """numba's dispatcher of this kernel, made with every lazy kernel of its module
        (their functions see one another's dispatchers, as numba needs); without
        numba's cache where `cache` is False (an entry's code, kept under its module's
        fingerprint, must see the constants it imports, which numba's cache does not)."""
        attr = "compiled" if cache else "fresh"
        with _COMPILE:
            if getattr(self, attr) is None:
                import numba
                names = vars(sys.modules[self.py_func.__module__])
                scope = dict(names)
                kernels = [k for k in names.values() if isinstance(k, Lazy)
                           and k.py_func.__module__ == self.py_func.__module__]
                if self not in kernels:  # (not one of its module's names)
                    kernels.append(self)
                for k in kernels:
                    f = k.py_func
                    options = k.options if cache else dict(k.options, cache=False)
                    scope[f.__name__] = numba.njit(**options)(types.FunctionType(
                        f.__code__, scope, f.__name__, f.__defaults__, f.__closure__))
                for k in kernels:  # callable once the scope is whole (another thread)
                    setattr(k, attr, scope[k.py_func.__name__])
        return getattr(self, attr)
