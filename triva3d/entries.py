"""Entries of kernels, compiled by numba (imported) for machinecode.py to keep.

An entry is a numba `cfunc` `int64 entry(int64 *block)` generated for one kernel and
one signature of argument type codes (machinecode.flatten): it makes its arrays from
the block's words (`carray`), calls the kernel, writes its results after the
arguments and DONE in the last word.
"""
import functools
import json

import numpy as np

from .machinecode import DONE, UNSUPPORTED

#: numba's runtime functions an entry may need without numba's allocator set up: the
#: release of an array it did not make (never, with the NULL meminfo of its arrays;
#: NRT_incref and NRT_decref are in the object itself).
NRT_NEEDED = {"NRT_Free", "NRT_MemInfo_call_dtor"}


def _arguments(codes, nwords, scope):
    """(numba types of the arguments, the source lines making them from the block,
    their expressions)."""
    import numba
    from numba import types
    lines, w = [], 0

    def walk(i):
        nonlocal w
        c = codes[i]
        if c == "(":
            items, i = [], i + 1
            while codes[i] != ")":
                t, e, i = walk(i)
                items.append((t, e))
            return (types.BaseTuple.from_types([t for t, _ in items]),
                    "(" + "".join(e + ", " for _, e in items) + ")", i + 1)
        if c[0] in "AR":
            dtype, ndim = np.dtype(c[1:].partition(":")[0]), int(c.partition(":")[2])
            name = f"a{len(lines)}"
            scope[f"T{name}"] = dtype.type
            shape = "".join(f"b[{w + 1 + d}], " for d in range(ndim))
            made = f"carray(address(b[{w}]), ({shape}), T{name})"
            lines.append(f"    {name} = {made if c[0] == 'A' else f'readonly({made})'}")
            w += 1 + ndim
            return types.Array(numba.from_dtype(dtype), ndim, "C", readonly=c[0] == "R"), \
                name, i + 1
        w += 1
        if c[0] == "s":
            dtype = np.dtype(c[1:])
            scope[f"S{w}"] = dtype.type
            return numba.from_dtype(dtype), f"S{w}({'f' if dtype.kind == 'f' else 'b'}[{w - 1}])", \
                i + 1
        t = {"b": types.boolean, "i": types.int64, "f": types.float64}[c]
        return t, {"b": f"b[{w - 1}] != 0", "i": f"b[{w - 1}]", "f": f"f[{w - 1}]"}[c], i + 1
    argtypes, exprs, i = [], [], 0
    while i < len(codes):
        t, e, i = walk(i)
        argtypes.append(t)
        exprs.append(e)
    assert w == nwords
    return argtypes, lines, exprs


def _results(t):
    """(codes of the kernel's results, their shape: none, single or tuple), or None
    where words cannot hold them."""
    from numba import types
    if t == types.none:
        return [], "none"
    items, shape = (list(t.types), "tuple") if isinstance(t, types.BaseTuple) else ([t], "single")
    codes = []
    for x in items:
        if isinstance(x, types.Boolean):
            codes.append("b")
        elif isinstance(x, types.Integer) and (x.signed or x.bitwidth < 64):
            codes.append("i")
        elif isinstance(x, types.Float):
            codes.append("f")
        else:
            return None
    return codes, shape


@functools.cache
def _intrinsics():
    """numba intrinsics: `address` (an int64 word as carray's pointer) and `readonly`
    (an array as read-only, as the dispatcher types a read-only array: a kernel that
    writes to it does not compile)."""
    from numba import types
    from numba.core.imputils import impl_ret_borrowed
    from numba.extending import intrinsic

    @intrinsic
    def address(typingctx, word):
        def codegen(context, builder, signature, args):
            return builder.inttoptr(args[0], context.get_value_type(types.voidptr))
        return types.voidptr(types.int64), codegen

    @intrinsic
    def readonly(typingctx, array):
        def codegen(context, builder, signature, args):
            return impl_ret_borrowed(context, builder, signature.return_type, args[0])
        return array.copy(readonly=True)(array), codegen
    return {"address": address, "readonly": readonly}


_SYMBOL = np.dtype([("name", "<u4"), ("info", "u1"), ("other", "u1"), ("shndx", "<u2"),
                    ("value", "<u8"), ("size", "<u8")])  # an ELF64 symbol


def _undefined(obj):
    """The symbols an ELF object file needs from outside."""
    import llvmlite.binding as llvm
    sections = {s.name(): s.data() for s in llvm.ObjectFileRef.from_data(obj).sections()}
    symbols = np.frombuffer(sections[b".symtab"], _SYMBOL)
    names = sections[b".strtab"]
    return sorted({names[n:names.index(b"\0", n)].decode()
                   for n, section in zip(symbols["name"].tolist(), symbols["shndx"].tolist())
                   if section == 0 and n})


def build(dispatcher, codes, nwords):
    """Compile the entry of numba `dispatcher` (numba imported) for the argument
    `codes`: the code to keep, its header line then its object file; UNSUPPORTED where
    an entry cannot run the kernel. The kernel failing to compile for these types
    raises numba's error, as its dispatcher would."""
    import numba
    from numba import carray, types
    scope = {"np": np, "carray": carray, "kernel": dispatcher, **_intrinsics()}
    argtypes, lines, exprs = _arguments(codes, nwords, scope)
    dispatcher.compile(tuple(argtypes))
    results = _results(dispatcher.overloads[tuple(argtypes)].signature.return_type)
    if results is None:
        return UNSUPPORTED
    returns, shape = results
    size = nwords + len(returns) + 1
    lines = [f"    b = carray(block, {size}, np.int64)",
             f"    f = carray(block, {size}, np.float64)"] + lines + [
        f"    r = kernel({', '.join(exprs)})"]  # (numba's try/except here changes results)
    for j, r in enumerate(returns):
        value = "r" if shape == "single" else f"r[{j}]"
        lines.append(f"    {'f' if r == 'f' else 'b'}[{nwords + j}] = "
                     f"{f'1 if {value} else 0' if r == 'b' else value}")
    lines += [f"    b[{size - 1}] = {DONE}", "    return 0"]
    exec("def entry(block):\n" + "\n".join(lines), scope)
    try:
        cf = numba.cfunc(types.int64(types.voidptr), nopython=True)(scope["entry"])
    except numba.core.errors.NumbaError:
        return UNSUPPORTED
    if "missing Environment" in cf._library.get_llvm_str():  # (it prints: hangs here)
        return UNSUPPORTED
    obj = cf._library.serialize_using_object_code()[2][0]
    needs = _undefined(obj)
    if any(n.startswith("NRT_") and n not in NRT_NEEDED for n in needs):
        return UNSUPPORTED  # (it makes arrays: numba's allocator)
    header = json.dumps({"symbol": cf.native_name, "needs": needs, "returns": returns,
                         "shape": shape})
    return header.encode() + b"\n" + obj
