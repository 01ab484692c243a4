"""`triva3d dump`: the Trace in PajeNG's pj_dump text format.

Five line kinds, `, ` separators, names as Pajé tokens (as written in a Pajé trace,
quoted where they need it; see `_field`), entity times and values as C's `%f`,
container times as C's `%g` (as pj_dump prints them). Containers come first (depth
first), then states, variables, links and events, each ordered by container and
type; compare with pj_dump's output as a multiset of lines. Entity lines are written
by a compiled formatter, in blocks.
"""
import math
import sys

import numpy as np

from .errors import printable
from .paje.writer import fields, token
from .textbuf import jit, put, put_uint

BLOCK = 8 << 20  # output buffer bytes
NUM_MAX = 330    # longest %f of a double


def _lit(b):
    return np.frombuffer(b, np.uint8).copy()


NAN, INF = _lit(b"nan"), _lit(b"inf")
STATE, VARIABLE, LINK, EVENT = _lit(b"State, "), _lit(b"Variable, "), _lit(b"Link, "), _lit(b"Event, ")


@jit
def _put_lit(out, p, lit):
    n = lit.shape[0]
    out[p:p + n] = lit
    return p + n


@jit
def _put_big(out, p, ax):
    """Exact decimal digits of an integral double >= 2**63 (base-1e9 limbs)."""
    m, ex = math.frexp(ax)
    mant = np.int64(m * 9007199254740992.0)  # 2**53
    ex -= 53
    limbs = np.zeros(40, np.int64)
    limbs[0] = mant % 1000000000
    limbs[1] = mant // 1000000000
    n = 2
    while ex > 0:
        k = min(ex, 29)
        ex -= k
        carry = 0
        for i in range(n):
            v = (limbs[i] << k) + carry
            limbs[i] = v % 1000000000
            carry = v // 1000000000
        while carry:
            limbs[n] = carry % 1000000000
            carry //= 1000000000
            n += 1
    while n > 1 and limbs[n - 1] == 0:
        n -= 1
    p = put_uint(out, p, limbs[n - 1])
    for i in range(n - 2, -1, -1):
        v = limbs[i]
        for j in range(8, -1, -1):
            out[p + j] = 48 + v % 10
            v //= 10
        p += 9
    return p


@jit
def _round_e6(frac):
    """round(frac * 1e6) to nearest, ties to even, on the exact product (as printf)."""
    y = frac * 1e6
    f = np.floor(y)
    if y - f != 0.5:
        return np.int64(np.rint(y))
    # y is a tie only after rounding: the exact error of the product decides (Dekker)
    c = 134217729.0 * frac
    hi = c - (c - frac)
    lo = frac - hi
    err = ((hi * 1e6 - y) + lo * 1e6)
    if err > 0:
        return np.int64(f) + 1
    if err < 0:
        return np.int64(f)
    return np.int64(f) + (np.int64(f) & 1)


@jit
def _put_f6(out, p, x):
    """C's printf("%f", x)."""
    if np.isnan(x):
        if math.copysign(1.0, x) < 0:
            out[p] = 45
            p += 1
        out[p:p + 3] = NAN
        return p + 3
    if math.copysign(1.0, x) < 0:
        out[p] = 45
        p += 1
        x = -x
    if np.isinf(x):
        out[p:p + 3] = INF
        return p + 3
    if x >= 9.2e18:
        p = _put_big(out, p, x)
        frac = 0
    else:
        ip = np.int64(math.floor(x))
        frac = _round_e6(x - ip)
        if frac >= 1000000:
            ip += 1
            frac -= 1000000
        p = put_uint(out, p, ip)
    out[p] = 46
    for j in range(6, 0, -1):
        out[p + j] = 48 + frac % 10
        frac //= 10
    return p + 7


@jit
def _put_name(out, p, arena, span, n):
    """Name n: arena[span[0, n]:span[1, n]]."""
    return put(out, p, arena, span[0, n], span[1, n])


@jit
def _put_head(out, p, lit, arena, span, cname, tname):
    """'<Kind>, <container>, <type>, '"""
    p = _put_lit(out, p, lit)
    p = _put_name(out, p, arena, span, cname)
    out[p] = 44
    out[p + 1] = 32
    p = _put_name(out, p + 2, arena, span, tname)
    out[p] = 44
    out[p + 1] = 32
    return p + 2


@jit
def _put_sep(out, p):
    out[p] = 44
    out[p + 1] = 32
    return p + 2


@jit
def _put_tail(out, p, arena, span, extra, r):
    """User-defined fields (pj_dump -u), then the end of line."""
    for k in range(extra.shape[1]):
        n = extra[r, k]
        if n >= 0:
            p = _put_sep(out, p)
            p = _put_name(out, p, arena, span, n)
    out[p] = 10
    return p + 1


@jit
def _room(arena, span, names, nnum, extra, r):
    need = 64 + nnum * (NUM_MAX + 2)
    for n in names:
        need += span[1, n] - span[0, n] + 2
    for k in range(extra.shape[1]):
        if extra[r, k] >= 0:
            need += span[1, extra[r, k]] - span[0, extra[r, k]] + 2
    return need


@jit
def write_states(out, i, perm, arena, span, cname, tname, vname, cont, typ, val, start, end,
                 imbr, extra):
    lit = STATE
    p = 0
    while i < perm.shape[0]:
        r = perm[i]
        c, t, v = cont[r], typ[r], val[r]
        if p + _room(arena, span, (cname[c], tname[t], vname[v]), 4, extra, r) > out.shape[0]:
            break
        p = _put_head(out, p, lit, arena, span, cname[c], tname[t])
        p = _put_sep(out, _put_f6(out, p, start[r]))
        p = _put_sep(out, _put_f6(out, p, end[r]))
        p = _put_sep(out, _put_f6(out, p, end[r] - start[r]))
        p = _put_sep(out, _put_f6(out, p, float(imbr[r])))
        p = _put_name(out, p, arena, span, vname[v])
        p = _put_tail(out, p, arena, span, extra, r)
        i += 1
    return i, p


@jit
def write_variables(out, i, perm, arena, span, cname, tname, cont, typ, start, end, value, extra):
    lit = VARIABLE
    p = 0
    while i < perm.shape[0]:
        r = perm[i]
        c, t = cont[r], typ[r]
        if p + _room(arena, span, (cname[c], tname[t]), 4, extra, r) > out.shape[0]:
            break
        p = _put_head(out, p, lit, arena, span, cname[c], tname[t])
        p = _put_sep(out, _put_f6(out, p, start[r]))
        p = _put_sep(out, _put_f6(out, p, end[r]))
        p = _put_sep(out, _put_f6(out, p, end[r] - start[r]))
        p = _put_f6(out, p, value[r])
        p = _put_tail(out, p, arena, span, extra, r)
        i += 1
    return i, p


@jit
def write_links(out, i, perm, arena, span, cname, tname, vname, cont, typ, val, sc, ec, start,
                end, key, extra):
    lit = LINK
    p = 0
    while i < perm.shape[0]:
        r = perm[i]
        c, t, v = cont[r], typ[r], val[r]
        names = (cname[c], tname[t], vname[v], cname[sc[r]], cname[ec[r]], key[r])
        if p + _room(arena, span, names, 3, extra, r) > out.shape[0]:
            break
        p = _put_head(out, p, lit, arena, span, cname[c], tname[t])
        p = _put_sep(out, _put_f6(out, p, start[r]))
        p = _put_sep(out, _put_f6(out, p, end[r]))
        p = _put_sep(out, _put_f6(out, p, end[r] - start[r]))
        p = _put_sep(out, _put_name(out, p, arena, span, vname[v]))
        p = _put_sep(out, _put_name(out, p, arena, span, cname[sc[r]]))
        p = _put_sep(out, _put_name(out, p, arena, span, cname[ec[r]]))
        p = _put_name(out, p, arena, span, key[r])
        p = _put_tail(out, p, arena, span, extra, r)
        i += 1
    return i, p


@jit
def write_events(out, i, perm, arena, span, cname, tname, vname, cont, typ, val, time, extra):
    lit = EVENT
    p = 0
    while i < perm.shape[0]:
        r = perm[i]
        c, t, v = cont[r], typ[r], val[r]
        if p + _room(arena, span, (cname[c], tname[t], vname[v]), 1, extra, r) > out.shape[0]:
            break
        p = _put_head(out, p, lit, arena, span, cname[c], tname[t])
        p = _put_sep(out, _put_f6(out, p, time[r]))
        p = _put_name(out, p, arena, span, vname[v])
        p = _put_tail(out, p, arena, span, extra, r)
        i += 1
    return i, p


def _extra(table, user_defined):
    """User fields as a (rows, fields) name-code matrix, fields sorted by name (as pj_dump)."""
    names = sorted(table.extra) if user_defined else []
    m = np.full((len(table), len(names)), -1, np.int32)
    for k, name in enumerate(names):
        m[:, k] = table.extra[name]
    return m


def _container_lines(trace, order, user_defined, arena, span):
    c = trace.containers
    ex = _extra(c, user_defined)

    def name(n):
        return arena[span[0, n]:span[1, n]].tobytes()
    lines = []
    for i in order:
        parent = b"0" if c.parent[i] < 0 else name(c.name[c.parent[i]])
        s, e = c.start[i], c.end[i]
        line = b", ".join([b"Container", parent, name(trace.types.name[c.type[i]]),
                           f"{s:g}, {e:g}, {e - s:g}".encode(), name(c.name[i])] +
                          [name(n) for n in ex[i] if n >= 0])
        lines.append(line + b"\n")
    return b"".join(lines)


def _field(raw):
    """A name as dump prints it: as a Pajé token (`token`: what convert writes, so a
    converted trace dumps the same), and where there is none or it holds a line
    break, with what a line cannot hold escaped (`printable`)."""
    tok = token(raw)
    text = (raw if tok is None else tok).decode("utf-8", "surrogateescape")
    if tok is None or text.splitlines() != [text]:
        return printable(text, sys.maxsize).encode("utf-8", "surrogateescape")
    return tok


def dfs_order(trace):
    """Containers depth first from the root, children in creation order."""
    order, stack = [], [0]
    while stack:
        c = stack.pop()
        order.append(c)
        stack.extend(reversed(trace.children(c).tolist()))
    return np.array(order, np.int64)


def dump(trace, out=None, user_defined=False):
    """Write `trace` as pj_dump would; returns the number of lines written."""
    out = out or sys.stdout.buffer
    order = dfs_order(trace)
    arena, start, end = fields(trace.names, _field)
    span = np.stack([start, end])
    out.write(_container_lines(trace, order, user_defined, arena, span))
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    cname, tname, vname = trace.containers.name, trace.types.name, trace.values.name
    buf = np.empty(BLOCK, np.uint8)
    lines = len(order)
    jobs = [
        (trace.states, write_states, lambda t: (cname, tname, vname, t.container, t.type,
                                                t.value, t.start, t.end, t.imbrication)),
        (trace.variables, write_variables, lambda t: (cname, tname, t.container, t.type,
                                                      t.start, t.end, t.value)),
        (trace.links, write_links, lambda t: (cname, tname, vname, t.container, t.type, t.value,
                                              t.start_container, t.end_container, t.start,
                                              t.end, t.key)),
        (trace.events, write_events, lambda t: (cname, tname, vname, t.container, t.type,
                                                t.value, t.time)),
    ]
    for table, writer, columns in jobs:
        if not len(table):
            continue
        perm = np.lexsort((table.type, rank[table.container]))
        extra = _extra(table, user_defined)
        i = 0
        while i < len(perm):
            i, p = writer(buf, i, perm, arena, span, *columns(table), extra)
            if p == 0:  # a line longer than the buffer
                buf = np.empty(2 * len(buf), np.uint8)
            out.write(memoryview(buf)[:p])
        lines += len(perm)
    return lines
