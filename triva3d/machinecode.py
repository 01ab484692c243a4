"""Compiled code kept in the user cache folder and loaded with llvmlite alone.

A cached `lazy` kernel (kernels.py) runs through an entry: a C function
`int64 entry(int64 *block)` that numba compiles once per kernel and argument types
(entries.py), the kernel and what it calls linked in. Its machine code is kept; later
runs load it here and call it through ctypes without importing numba, which saves
numba's import and its first calls (its type registries, then each kernel's cached
code): 0.5 s of every run that reads a Pajé trace with the compiled kernels. A call
costs more than through numba's dispatcher (0.1 ms with 83 arrays, against 0.02), and
lets the GIL go whether or not the kernel is `nogil`.

The block holds each argument in order (an array: its address then its shape; a
number: its value, a float's bits), then the kernel's results (one word each), then
a word the entry sets to DONE once the kernel returned; where it raised, numba hands
the error to sys.unraisablehook, whence the call raises it. A kernel that needs more
than this process and numba's helpers give (NRT's allocator: it makes arrays; numba's
environment: it prints) or returns what words cannot hold, and a call whose arguments
a block cannot hold (an array not C-contiguous, misaligned or not native, an object
but a tuple, a number, a numpy scalar), run through numba's dispatcher instead; so do
all with NUMBA_DISABLE_JIT set.
"""
import ctypes
import functools
import hashlib
import importlib.util
import json
import os
import stat
import struct
import sys
import threading
from importlib.machinery import EXTENSION_SUFFIXES

import numpy as np

DONE = 1  # the entry's last word, once the kernel returned


class Unsupported(Exception):
    """Arguments an entry cannot carry."""


# -- keeping machine code ---------------------------------------------------------------
def kept(path):
    """The bytes kept at `path`, where it is a regular file of this user (the folder is
    as trusted as numba's cache: it holds code) and its checksum holds (damaged code
    could crash LLVM's loader), else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO would block
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid():
                return None
            data = f.read(1 << 24)
    except OSError:
        return None
    code = data[32:]
    return code if data[:32] == hashlib.sha256(code).digest() else None


def keep(path, code):
    """Keep `code` at `path` with its checksum (a cache: a folder that cannot be
    written only means compiling next time)."""
    from .output import atomic
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with atomic(path) as f:
            f.write(hashlib.sha256(code).digest() + code)
    except OSError:
        pass


def can_keep(path):
    """Whether code can be kept at `path` (its folder made, writable)."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    except OSError:
        return False
    return os.access(os.path.dirname(path), os.W_OK)


def cache_path(kind, key):
    from .cache import user_dir
    return os.path.join(user_dir(), kind, hashlib.sha256(key.encode()).hexdigest()[:32] + ".o")


def machine():
    """A new LLVM target machine for this host (an execution engine owns the one it is
    given)."""
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm.Target.from_default_triple().create_target_machine(opt=2)


@functools.cache
def host():
    """Text naming this host, LLVM and Python, for the keys of kept code."""
    import llvmlite
    import llvmlite.binding as llvm
    return "\n".join([llvmlite.__version__, str(llvm.llvm_version_info),
                      llvm.get_default_triple(), llvm.get_host_cpu_name(),
                      llvm.get_host_cpu_features().flatten(), sys.version])


# -- numba's helpers, without numba ------------------------------------------------------
@functools.cache
def _numba_helpers():
    """{symbol: address} of the C helpers numba's code calls (exceptions, the GIL, NRT),
    from numba's extension modules loaded alone (numba's package is not imported)."""
    helpers = {}
    spec = importlib.util.find_spec("numba")
    if spec is None or not spec.submodule_search_locations:
        return helpers
    root = spec.submodule_search_locations[0]
    for module, where, prefix in (("numba._helperlib", "_helperlib", "numba_"),
                                  ("numba.core.runtime._nrt_python",
                                   "core/runtime/_nrt_python", "NRT_")):
        found = [p for p in (os.path.join(root, where + x) for x in EXTENSION_SUFFIXES)
                 if os.path.exists(p)]
        if not found:
            continue
        loaded = sys.modules.get(module)
        if loaded is None:  # (initialised once: numba's import reuses it, its helpers)
            s = importlib.util.spec_from_file_location(module, found[0])
            loaded = importlib.util.module_from_spec(s)
            s.loader.exec_module(loaded)
        for name, address in loaded.c_helpers.items():
            helpers[name if name.startswith("_") else prefix + name] = address
    return helpers


def numba_key():
    """numba's version and settings (NUMBA_* variables), read without importing it,
    numpy's version, and how entries are made and called (entries.py, this module):
    part of their keys. None where numba's JIT is
    off (NUMBA_DISABLE_JIT): no entry then."""
    if os.environ.get("NUMBA_DISABLE_JIT", "0").strip() not in ("", "0"):
        return None
    h = hashlib.sha256()
    spec = importlib.util.find_spec("numba")
    for path in (os.path.join(spec.submodule_search_locations[0], "_version.py"), __file__,
                 os.path.join(os.path.dirname(__file__), "entries.py")):
        try:
            with open(path, "rb") as f:
                h.update(f.read())
        except OSError:
            h.update(b"?")
    h.update(repr([np.__version__] + sorted((k, v) for k, v in os.environ.items()
                   if k.startswith("NUMBA_") and k != "NUMBA_CACHE_DIR")).encode())
    return h.hexdigest()


# -- calling entries ---------------------------------------------------------------------
def _address(a, writeable):
    if not a.size:
        return 0
    if writeable:  # (a fifth of the time of a.ctypes.data)
        return ctypes.addressof(ctypes.c_char.from_buffer(a))
    return a.ctypes.data


_ARRAYS = {}  # (dtype, ndim, writeable) -> type code
#: numpy scalars an entry takes (numba types them as their own dtype)
_SCALARS = {t: "s" + np.dtype(t).str for t in (np.int8, np.int16, np.int32, np.int64, np.uint8,
                                                np.uint16, np.uint32, np.float32, np.float64)}
_PROCESS = ctypes.CDLL(None)  # the symbols this process has (Python's C API, libm)
_FLOAT = struct.Struct("<d")
_INT = struct.Struct("<q")


def flatten(args, codes, words):
    """Append the arguments' type codes to `codes` and their words to `words` (as numba
    types them: an array `A` or, read-only, `R`, dtype and rank; `(` `)` around a
    tuple's; `b` bool, `i` int, `f` float, `s` and dtype a numpy scalar)."""
    for a in args:
        t = type(a)
        if t is np.ndarray:
            flags = a.flags
            key = (a.dtype, a.ndim, flags.writeable)
            code = _ARRAYS.get(key)
            if code is None:
                if a.dtype.kind not in "biuf" or not a.dtype.isnative:
                    raise Unsupported
                code = _ARRAYS[key] = f"{'A' if flags.writeable else 'R'}{a.dtype.str}:{a.ndim}"
            if not (flags.c_contiguous and flags.aligned):
                raise Unsupported
            codes.append(code)
            words.append(_address(a, flags.writeable))
            words.extend(a.shape)
        elif t is tuple:
            codes.append("(")
            flatten(a, codes, words)
            codes.append(")")
        elif t is bool or t is np.bool_:
            codes.append("b")
            words.append(int(a))
        elif t is int:
            if not -1 << 63 <= a < 1 << 63:
                raise Unsupported
            codes.append("i")
            words.append(a)
        elif t is float:
            codes.append("f")
            words.append(_INT.unpack(_FLOAT.pack(a))[0])
        elif t in _SCALARS:
            codes.append(_SCALARS[t])
            words.append(int(a) if a.dtype.kind != "f" else _INT.unpack(_FLOAT.pack(a))[0])
        else:
            raise Unsupported


_RAISED = threading.local()  # the error of the kernel this thread runs, if it raised


def _unraisable(hook):
    """sys.unraisablehook that keeps an entry's error for its call to raise."""
    def kept(unraisable):
        if getattr(_RAISED, "calling", False):
            _RAISED.error = unraisable.exc_value
        else:
            hook(unraisable)
    kept.entries = True
    return kept


class Entry:
    """A kernel's loaded entry for one argument signature: call(name, words) -> its
    results; the kernel's error where it raised."""

    def __init__(self, engine, address, returns, shape):
        self.engine = engine  # (holds the code)
        self.function = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p)(address)
        self.returns, self.shape = returns, shape

    def __call__(self, name, words):
        n = len(words)
        block = np.array(words + [0] * (len(self.returns) + 1), np.int64)
        if not getattr(sys.unraisablehook, "entries", False):  # (replaced since: again)
            sys.unraisablehook = _unraisable(sys.unraisablehook)
        _RAISED.calling, _RAISED.error = True, None
        try:
            self.function(_address(block, True))  # (ctypes lets the GIL go meanwhile)
        finally:
            _RAISED.calling = False
        if block[-1] != DONE:
            error, _RAISED.error = _RAISED.error, None
            raise error or RuntimeError(f"the compiled kernel {name} raised an error")
        out = []
        for i, r in enumerate(self.returns):
            w = int(block[n + i])
            out.append(bool(w) if r == "b" else
                       _FLOAT.unpack(_INT.pack(w))[0] if r == "f" else w)
        return out[0] if self.shape == "single" else None if self.shape == "none" else \
            tuple(out)


UNSUPPORTED = b'{"unsupported": true}\n'  # kept where no entry can run the kernel


def load(code):
    """The Entry of kept `code` (a JSON header line, then the object file); False for
    UNSUPPORTED; None where a symbol it needs is not in this process."""
    import llvmlite.binding as llvm
    header, _, obj = code.partition(b"\n")
    meta = json.loads(header)
    if meta.get("unsupported"):
        return False
    helpers = _numba_helpers()
    for name in meta["needs"]:
        if name in helpers:
            llvm.add_symbol(name, helpers[name])
        elif not (llvm.address_of_symbol(name) or hasattr(_PROCESS, name)):
            return None  # (LLVM would abort the process)
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), machine())
    engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
    engine.finalize_object()
    return Entry(engine, engine.get_function_address(meta["symbol"]), meta["returns"],
                 meta["shape"])
