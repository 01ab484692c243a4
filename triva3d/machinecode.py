"""Compiled code kept in the user cache folder and loaded with llvmlite alone.

A `lazy` kernel (kernels.py) runs through an entry: a C function
`int64 entry(int64 *block)` that numba compiles once per kernel and argument types
(`cfunc`), the kernel and what it calls linked in. Its machine code is kept; later
runs load it here and call it through ctypes without importing numba, which saves
numba's import and its first calls (its type registries, then each kernel's cached
code): 0.5 s of every run that reads a Pajé trace with the compiled kernels.

The block holds each argument in order (an array: its address then its shape; a
number: its value, a float's bits), then the kernel's results (one word each), then
a word the entry sets to 1 once the kernel returned (else it raised: numba printed
why). A kernel that needs more than this process and numba's helpers give (NRT's
allocator: it makes arrays) or returns what a word cannot hold, and a call whose
arguments a block cannot hold (an array not C-contiguous, an object), run through
numba's dispatcher instead.
"""
import ctypes
import hashlib
import importlib.util
import json
import os
import re
import stat
import struct
import sys
from importlib.machinery import EXTENSION_SUFFIXES

import numpy as np

SCHEME = "1"  # the entries' layout: part of every key
#: numba's runtime functions an entry may need without numba's allocator being set up:
#: the release of an array it did not make (never with a NULL meminfo, as here).
NRT_NEEDED = {"NRT_Free", "NRT_MemInfo_call_dtor", "NRT_decref", "NRT_incref"}


class Unsupported(Exception):
    """Arguments or results an entry cannot carry."""


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


_HOST = []


def machine():
    """A new LLVM target machine for this host (an execution engine owns the one it is
    given)."""
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return llvm.Target.from_default_triple().create_target_machine(opt=2)


def host():
    """Text naming this host, LLVM and Python, for the keys of kept code."""
    if not _HOST:
        import llvmlite
        import llvmlite.binding as llvm
        _HOST.append("\n".join([llvmlite.__version__, str(llvm.llvm_version_info),
                                llvm.get_default_triple(), llvm.get_host_cpu_name(),
                                llvm.get_host_cpu_features().flatten(), sys.version]))
    return _HOST[0]


# -- numba's helpers, without numba ------------------------------------------------------
_HELPERS = {}


def _numba_helpers():
    """{symbol: address} of the C helpers numba's code calls (exceptions, the GIL, NRT),
    from numba's extension modules loaded alone (numba's package is not imported)."""
    if not _HELPERS:
        spec = importlib.util.find_spec("numba")
        if spec is None or not spec.submodule_search_locations:
            return _HELPERS
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
                _HELPERS[name if name.startswith("_") else prefix + name] = address
    return _HELPERS


def numba_version():
    """numba's version, read without importing it (part of the keys)."""
    spec = importlib.util.find_spec("numba")
    try:
        with open(os.path.join(spec.submodule_search_locations[0], "_version.py"), "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except (OSError, AttributeError, TypeError):
        return "?"


# -- calling entries ---------------------------------------------------------------------
def _address(a, writeable):
    if not a.size:
        return 0
    if writeable:  # (a fifth of the time of a.ctypes.data)
        return ctypes.addressof(ctypes.c_char.from_buffer(a))
    return a.ctypes.data


_ARRAYS = {}  # (dtype, ndim) -> type code
_PROCESS = ctypes.CDLL(None)  # the symbols this process has (Python's C API, libm)
_FLOAT = struct.Struct("<d")
_INT = struct.Struct("<q")


def flatten(args, codes, words):
    """Append the arguments' type codes to `codes` and their words to `words`."""
    for a in args:
        if isinstance(a, np.ndarray):
            flags = a.flags
            code = _ARRAYS.get((a.dtype, a.ndim))
            if code is None:
                if a.dtype.kind not in "biuf":
                    raise Unsupported
                code = _ARRAYS[a.dtype, a.ndim] = f"A{a.dtype.str}{a.ndim}"
            if not flags.c_contiguous:
                raise Unsupported
            codes.append(code)
            words.append(_address(a, flags.writeable))
            words.extend(a.shape)
        elif isinstance(a, tuple):
            codes.append("(")
            flatten(a, codes, words)
            codes.append(")")
        elif isinstance(a, (bool, np.bool_)):
            codes.append("b")
            words.append(int(a))
        elif isinstance(a, int):
            if not -1 << 63 <= a < 1 << 63:
                raise Unsupported
            codes.append("i")
            words.append(a)
        elif isinstance(a, float):
            codes.append("f")
            words.append(_INT.unpack(_FLOAT.pack(a))[0])
        elif isinstance(a, np.integer) and a.dtype.itemsize < 8 or isinstance(a, np.int64):
            codes.append("s" + a.dtype.str)
            words.append(int(a))
        elif isinstance(a, np.floating) and a.dtype.itemsize <= 8:
            codes.append("s" + a.dtype.str)
            words.append(_INT.unpack(_FLOAT.pack(float(a)))[0])
        else:
            raise Unsupported


class Entry:
    """A kernel's loaded entry for one argument signature: call(words) -> results."""

    def __init__(self, engine, address, returns, single):
        self.engine = engine  # (holds the code)
        self.function = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p)(address)
        self.returns, self.single = returns, single

    def __call__(self, name, words):
        n = len(words)
        block = np.array(words + [0] * (len(self.returns) + 1), np.int64)
        self.function(_address(block, True))  # (ctypes lets the GIL go meanwhile)
        if not block[-1]:
            raise RuntimeError(f"the compiled kernel {name} failed (numba printed why above)")
        out = []
        for i, r in enumerate(self.returns):
            w = int(block[n + i])
            out.append(bool(w) if r == "b" else
                       _FLOAT.unpack(_INT.pack(w))[0] if r == "f" else w)
        return None if not out else out[0] if self.single else tuple(out)


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
                 meta["single"])


# -- building entries (numba imported) ---------------------------------------------------
def _numba_type(codes, i):
    """(numba type of the argument at codes[i], index after it)."""
    import numba
    from numba import types
    c = codes[i]
    if c == "(":
        items = []
        i += 1
        while codes[i] != ")":
            t, i = _numba_type(codes, i)
            items.append(t)
        return types.BaseTuple.from_types(items), i + 1
    if c[0] == "A":
        dtype, ndim = np.dtype(c[1:-1]), int(c[-1])
        return types.Array(numba.from_dtype(dtype), ndim, "C"), i + 1
    if c[0] == "s":
        return numba.from_dtype(np.dtype(c[1:])), i + 1
    return {"b": types.boolean, "i": types.int64, "f": types.float64}[c], i + 1


def _expression(codes, i, w, lines, scope):
    """(source of the argument at codes[i] read from block words from w on, index
    after it, word after it)."""
    c = codes[i]
    if c == "(":
        items = []
        i += 1
        while codes[i] != ")":
            e, i, w = _expression(codes, i, w, lines, scope)
            items.append(e)
        return "(" + "".join(e + ", " for e in items) + ")", i + 1, w
    if c[0] == "A":
        name = f"a{len(lines)}"
        scope[f"T{name}"] = np.dtype(c[1:-1]).type
        ndim = int(c[-1])
        shape = "".join(f"b[{w + 1 + d}], " for d in range(ndim))
        lines.append(f"    {name} = carray(address(b[{w}]), ({shape}), T{name})")
        return name, i + 1, w + 1 + ndim
    if c[0] == "s":
        name = f"S{w}"
        dtype = np.dtype(c[1:])
        scope[name] = dtype.type
        return f"{name}({'f' if dtype.kind == 'f' else 'b'}[{w}])", i + 1, w + 1
    return {"b": f"b[{w}] != 0", "i": f"b[{w}]", "f": f"f[{w}]"}[c], i + 1, w + 1


def _return_codes(t):
    """(codes of the kernel's results, whether it returns one value, not a tuple)."""
    from numba import types
    single = not isinstance(t, types.BaseTuple)
    items = [] if t == types.none else [t] if single else list(t.types)
    codes = []
    for x in items:
        if isinstance(x, types.Boolean):
            codes.append("b")
        elif isinstance(x, types.Integer) and (x.signed or x.bitwidth < 64):
            codes.append("i")
        elif isinstance(x, types.Float):
            codes.append("f")
        else:
            raise Unsupported
    return codes, single


_ADDRESS = []


def _address_intrinsic():
    """numba intrinsic: an int64 word as a pointer (carray's first argument)."""
    if not _ADDRESS:
        from numba import types
        from numba.extending import intrinsic

        @intrinsic
        def address(typingctx, word):
            def codegen(context, builder, signature, args):
                return builder.inttoptr(args[0], context.get_value_type(types.voidptr))
            return types.voidptr(types.int64), codegen
        _ADDRESS.append(address)
    return _ADDRESS[0]


_DECLARED = re.compile(rb'^(?:declare [^@]*@"?([^"(\s]+)"?\(|@"?([^"=\s]+)"? = external )',
                       re.M)


def build(dispatcher, codes, nwords):
    """Compile the entry of numba `dispatcher` for the argument `codes` (numba
    imported): the code to keep, its header line then its object file; UNSUPPORTED
    where an entry cannot run it (the kernel itself failing to compile for them
    raises numba's error, as its dispatcher would)."""
    import numba
    from numba import carray, types
    argtypes = []
    i = 0
    while i < len(codes):
        t, i = _numba_type(codes, i)
        argtypes.append(t)
    dispatcher.compile(tuple(argtypes))
    try:
        returns, single = _return_codes(
            dispatcher.overloads[tuple(argtypes)].signature.return_type)
    except Unsupported:
        return UNSUPPORTED
    scope = {"np": np, "carray": carray, "address": _address_intrinsic(), "kernel": dispatcher}
    lines = [f"    b = carray(block, {nwords + len(returns) + 1}, np.int64)",
             f"    f = carray(block, {nwords + len(returns) + 1}, np.float64)"]
    args = []
    i = w = 0
    while i < len(codes):
        e, i, w = _expression(codes, i, w, lines, scope)
        args.append(e)
    lines.append(f"    r = kernel({', '.join(args)})")
    for j, r in enumerate(returns):
        value = "r" if single else f"r[{j}]"
        lines.append(f"    {'f' if r == 'f' else 'b'}[{nwords + j}] = "
                     f"{'1 if ' + value + ' else 0' if r == 'b' else value}")
    lines += [f"    b[{nwords + len(returns)}] = 1", "    return 0"]
    exec("def entry(block):\n" + "\n".join(lines), scope)
    try:
        cf = numba.cfunc(types.int64(types.voidptr), nopython=True)(scope["entry"])
    except numba.core.errors.NumbaError:
        return UNSUPPORTED
    library = cf._library
    needs = sorted({(a or b).decode() for a, b in _DECLARED.findall(
        library.get_llvm_str().encode())} - {""})
    needs = [n for n in needs if not n.startswith("llvm.")]  # (LLVM's intrinsics)
    if any(n.startswith("NRT_") and n not in NRT_NEEDED for n in needs):
        return UNSUPPORTED  # (it makes arrays: numba's allocator)
    obj = library.serialize_using_object_code()[2][0]
    header = json.dumps({"symbol": cf.native_name, "needs": needs, "returns": returns,
                         "single": single})
    return header.encode() + b"\n" + obj
