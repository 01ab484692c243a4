"""Write a Trace as a Pajé trace that PajeNG (and triva3d) read back.

Names are written as they were read (quotes included), link keys too; names from
elsewhere are quoted where they need it, and a name Pajé cannot hold is refused
(`token`). Types, values and containers get aliases (T*, V*, C*); colours are kept
(through definitions with a Color field, ids 18, 19 and 25-28); states become Push/Pop
pairs (so nesting survives), links StartLink/EndLink, variables one SetVariable per
piece, events NewEvent. User-defined fields (extra columns) ride on CreateContainer,
SetVariable, PushState, StartLink and NewEvent (`field_name`). Times are written with Python's
shortest exact repr, so they reload exactly; variable values reload as PajeNG reads
them (32-bit).
"""
import re
from collections import namedtuple

import numpy as np

from ..errors import TraceError
from ..output import writing
from ..textbuf import HARD, REPR_MAX, jit, put, put_shortest, put_uint, shortest
from ..trace import Kind

# Event ids of the header we write, and the fields of each event.
DEFS = [("PajeDefineContainerType", 0, ["Alias", "Type", "Name"]),
        ("PajeDefineVariableType", 1, ["Alias", "Type", "Name"]),
        ("PajeDefineStateType", 2, ["Alias", "Type", "Name"]),
        ("PajeDefineEventType", 3, ["Alias", "Type", "Name"]),
        ("PajeDefineLinkType", 4, ["Alias", "Type", "StartContainerType", "EndContainerType",
                                   "Name"]),
        ("PajeDefineEntityValue", 5, ["Alias", "Type", "Name"]),
        ("PajeCreateContainer", 6, ["Time", "Alias", "Type", "Container", "Name"]),
        ("PajeDestroyContainer", 7, ["Time", "Type", "Name"]),
        ("PajeSetVariable", 8, ["Time", "Container", "Type", "Value"]),
        ("PajePushState", 12, ["Time", "Container", "Type", "Value"]),
        ("PajePopState", 13, ["Time", "Container", "Type"]),
        ("PajeStartLink", 15, ["Time", "Container", "Type", "StartContainer", "Value", "Key"]),
        ("PajeEndLink", 16, ["Time", "Container", "Type", "EndContainer", "Value", "Key"]),
        ("PajeNewEvent", 17, ["Time", "Container", "Type", "Value"]),
        ("PajeAddVariable", 9, ["Time", "Container", "Type", "Value"])]
#: Definitions of types and values -> the same with a Color field (for those with one).
COLORED = {0: 25, 1: 18, 2: 26, 3: 27, 4: 28, 5: 19}
DEFS += [(name, COLORED[eid], fields + ["Color"]) for name, eid, fields in DEFS
         if eid in COLORED]
#: Event ids that carry the user-defined fields of a table -> the same event without
#: them (for rows that have none: a missing field is not an empty one).
EXTRA_ON = {6: ("containers", 20), 8: ("variables", 21), 12: ("states", 22),
            15: ("links", 23), 17: ("events", 24)}
DEFS += [(name, EXTRA_ON[eid][1], fields) for name, eid, fields in DEFS if eid in EXTRA_ON]
FIELD_TYPE = {"Time": "date", "Value": "string", "Color": "color"}
# order of lines at one timestamp: creations, pops, pushes, the rest, destructions
CREATE, POP, PUSH, OTHER, DESTROY = range(5)


_SEPARATOR = re.compile(rb"[ \t\r]")


def token(raw):
    """A name (bytes) as one Pajé field that reads back as it, or None where there is
    none: as written when it is one token (a quoted name keeps its quotes), else in
    double quotes. Pajé has no escape: a quoted name ends at the next '"' and any
    token at a line break, so a name with a line break, or with a '"' where it needs
    quotes (a space, a tab, a '#' anywhere: a comment out of quotes, a leading '"'),
    cannot be written."""
    if b"\n" in raw:
        return None
    if len(raw) >= 2 and raw[0] == raw[-1] == 34 and b'"' not in raw[1:-1]:
        return raw
    if raw and not _SEPARATOR.search(raw) and raw[0] != 34 and b"#" not in raw:
        return raw
    return None if b'"' in raw else b'"' + raw + b'"'


def fields(names, field):
    """Every name as a field of a line: (arena, start, end), name i being
    arena[start[i]:end[i]]: its own bytes where it is printable ASCII and its own
    token (`_plain`), else `field(raw)` (bytes)."""
    off = names.offsets
    odd = np.flatnonzero(~_plain(names.arena, off))
    data = [field(bytes(names.arena[a:b])) for a, b in zip(off[odd].tolist(),
                                                          off[odd + 1].tolist())]
    arena, start, end = _append(names.arena, off[:-1].copy(), off[1:].copy(), data)
    start[odd], end[odd] = start[len(off) - 1:], end[len(off) - 1:]
    return arena, start[:len(off) - 1], end[:len(off) - 1]


def _append(arena, start, end, data):
    """`data` (bytes) after the strings arena[start:end]: the same, one string more
    per item."""
    lens = np.array([len(d) for d in data], np.int64)
    ends = len(arena) + np.cumsum(lens)
    return (np.concatenate([arena, np.frombuffer(b"".join(data), np.uint8)]),
            np.concatenate([start, ends - lens]), np.concatenate([end, ends]))


def _color(rgba):
    """A colour field, or None where the trace gave none (NaN)."""
    if rgba is None or rgba[0] != rgba[0]:
        return None
    return '"' + " ".join(f"{float(x):.9g}" for x in rgba[:3]) + '"'


def field_name(name):
    """A user-defined field's name as a Pajé header token: blanks become '_' (an OTF2
    attribute "Parent GUID" reads back as "Parent_GUID")."""
    return re.sub(r"\s+", "_", name.strip()) or "_"


def header(trace):
    out = ["# Written by triva3d from " + str(trace.source).replace("\n", " ")]
    for name, eid, fields in DEFS:
        out.append(f"%EventDef {name} {eid}")
        extra = list(getattr(trace, EXTRA_ON[eid][0]).extra) if eid in EXTRA_ON else []
        for f in fields + [field_name(f) for f in extra]:
            t = "double" if (name in ("PajeSetVariable", "PajeAddVariable") and
                             f == "Value") else \
                FIELD_TYPE.get(f, "string")
            out.append(f"% {f} {t}")
        out.append("%EndEventDef")
    return out


def write_paje(trace, path):
    """Write `trace` to `path`; returns the number of event lines. A TraceError
    (naming the trace) where a name cannot be written (`token`)."""
    body = _Body(trace)

    def name(code):
        return body.text(code)
    types = trace.types
    lines = header(trace)
    kinds = {Kind.CONTAINER: 0, Kind.VARIABLE: 1, Kind.STATE: 2, Kind.EVENT: 3, Kind.LINK: 4}

    def talias(t):
        return "0" if t == 0 else f"T{t}"
    for t in range(1, len(types)):
        k = Kind(int(types.kind[t]))
        parent = talias(int(types.parent[t])) if types.parent[t] >= 0 else "0"
        color = _color(trace.type_colors[t])
        eid, color = (COLORED[kinds[k]], " " + color) if color else (kinds[k], "")
        ends = f"{talias(int(types.start_type[t]))} {talias(int(types.end_type[t]))} " \
            if k == Kind.LINK else ""
        lines.append(f"{eid} T{t} {parent} {ends}{name(types.name[t])}{color}")
    for v in range(len(trace.values)):
        color = _color(trace.value_colors[v])
        lines.append(f"{19 if color else 5} V{v} T{trace.values.type[v]} "
                     f"{name(trace.values.name[v])}" + (f" {color}" if color else ""))
    with writing(path, text=False) as f:
        f.write(("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))
        for text in body.chunks():
            f.write(text)
    return body.n


#: Line kinds of the body.
(CREATE_L, DESTROY_L, PUSH_L, POP_L, START_L, END_L, SET_L, ADD1_L, ADD2_L,
 EVENT_L) = range(10)
WINDOW = 1 << 19  # lines sorted at once: those of a time window
CHUNK = 1 << 16   # lines formatted at once
#: Fields of a line, written with a space between them (textbuf): none, a string of
#: the arena, a container's alias (C<i>; 0 for the root), a type's (T<i>), a
#: value's (V<i>), a number (float64 bits, then `shortest`), a number's repr.
SKIP, STR, CALIAS, TALIAS, VALIAS, NUM, REPR = range(7)

#: Lines of one kind from one table: their times, rows (None: all, in order), order
#: and tiebreaks at equal times: tie_src * tie_mul + tie_add (tie_src None: 0), then
#: sub (None: 0); tie_src and sub hold one value per line.
_Part = namedtuple("_Part", "time rows order tie_src tie_mul tie_add sub kind")
#: A state line's tie is its level (depth; negated for pops) * LEVEL + its place
#: in the level; places reach 2 * DEEP, DEEP above any depth (int16).
LEVEL, DEEP = 1 << 18, 1 << 16


class _Body:
    """Every event line as columns, sorted a time window at a time and formatted a
    chunk of lines at a time by compiled code: the memory follows the Trace, not the
    file, and no line is a Python object."""

    def __init__(self, trace):
        self.trace = tr = trace
        names = tr.names
        cont, st, ln, var, ev = tr.containers, tr.states, tr.links, tr.variables, tr.events
        c = np.arange(1, len(cont))
        parts = [_Part(cont.start[c], c, CREATE, None, 0, 0, None, CREATE_L),
                 _Part(cont.end[c], c, DESTROY, c, -1, 0, None, DESTROY_L)]
        parts += self._states(st)
        parts += [_Part(ln.start, None, OTHER, None, 0, 2, None, START_L),
                  _Part(ln.end, None, OTHER, None, 0, 3, None, END_L)]
        split = _float32_split(var.value)
        adds = [np.flatnonzero(split[1] != 0), np.flatnonzero(split[2] != 0)]
        del split
        parts += [_Part(var.start, None, OTHER, None, 0, 0, None, SET_L),
                  _Part(var.start[adds[0]], adds[0], OTHER, None, 0, 0, None, ADD1_L),
                  _Part(var.start[adds[1]], adds[1], OTHER, None, 0, 0, None, ADD2_L),
                  _Part(ev.time, None, OTHER, None, 0, 1, None, EVENT_L)]
        self.parts = parts
        self.n = sum(len(p.time) for p in parts)
        # the strings lines are made of: names as tokens, then '""' (a missing field,
        # -1), event ids, and the keys links share (numbered)
        bad = []

        def field(raw):
            tok = token(raw)
            if tok is None:
                bad.append(raw)
            return tok or b""
        arena, start, end = fields(names, field)
        if bad:
            _refuse(tr, set(bad))
        self.eid = len(names) + 1
        self.key = ln.key.astype(np.int64)
        numbered = np.flatnonzero(_shared_keys(ln, names) | (ln.key < 0))
        codes, which = np.unique(self.key[numbered], return_inverse=True)
        base = [_unquote(names.raw(c)) if c >= 0 else b"" for c in codes.tolist()]
        keys = [token(base[j] + b"#%d" % i) for j, i in zip(which.reshape(-1).tolist(),
                                                            numbered.tolist())]
        self.key[numbered] = self.eid + 29 + np.arange(len(numbered))
        self.arena, self.start, self.end = _append(
            arena, start, end, [b'""'] + [b"%d" % e for e in range(29)] + keys)
        self.width = 7 + max(len(t.extra) for t in (cont, st, ln, var, ev))

    def text(self, code):
        """Name `code` as written (str; bytes that are not UTF-8 as surrogates)."""
        return self.arena[self.start[code]:self.end[code]].tobytes().decode(
            "utf-8", "surrogateescape")

    def _states(self, st):
        """Push at the start, Pop at the end: at one time, pops (deepest first) before
        pushes (shallowest first); zero-length states go where the stack is as deep
        as they are (`_zero_places`)."""
        d = st.imbrication
        zero = np.flatnonzero(st.end <= st.start)
        if not len(zero):
            return [_Part(st.start, None, PUSH, d, LEVEL, 1, None, PUSH_L),
                    _Part(st.end, None, POP, d, -LEVEL, 0, None, POP_L)]
        pos = np.flatnonzero(st.end > st.start)
        t = st.start[zero]
        parts = [_Part(st.start[pos], pos, PUSH, d[pos], LEVEL, 1, None, PUSH_L),
                 _Part(st.end[pos], pos, POP, d[pos], -LEVEL, 0, None, POP_L)]
        for kind, (order, tie, sub) in zip((PUSH_L, POP_L), _zero_places(st, zero)):
            for o in (POP, PUSH):
                m = order == o
                parts.append(_Part(t[m], zero[m], o, tie[m], 1, 0, sub[m], kind))
        return parts

    def _windows(self):
        """(kind, row) of the lines of each time window in their order: by time, then
        order, then the tiebreaks, then as the parts list them (lexsort is stable)."""
        parts = self.parts
        count = -(-self.n // WINDOW)
        step = max(1, self.n // (64 * max(count, 1)))
        sample = np.concatenate([p.time[::step] for p in parts] + [np.zeros(0)])
        sample = sample[np.isfinite(sample)]
        edges = np.unique(np.quantile(sample, np.arange(1, count) / count)) \
            if count > 1 and len(sample) else np.zeros(0)
        for i in range(len(edges) + 1):
            masks = []
            for p in parts:
                t = p.time
                if len(edges) == 0:
                    masks.append(np.ones(len(t), bool))
                elif i == 0:
                    masks.append(t < edges[0])
                elif i == len(edges):            # NaN times last, as lexsort puts them
                    masks.append(~(t < edges[-1]))
                else:
                    masks.append((t >= edges[i - 1]) & (t < edges[i]))
            n = sum(np.count_nonzero(m) for m in masks)
            time, tie, sub = np.empty(n), np.empty(n, np.int64), np.zeros(n, np.int64)
            order, kind, rows = np.empty(n, np.int8), np.empty(n, np.int8), np.empty(n, np.int32)
            at = 0
            for p, m in zip(parts, masks):       # filled in place: no copy of them all
                r = np.flatnonzero(m) if p.rows is None else p.rows[m]
                end = at + len(r)
                time[at:end], order[at:end], kind[at:end], rows[at:end] = \
                    p.time[m], p.order, p.kind, r
                tie[at:end] = p.tie_add
                if p.tie_src is not None:
                    tie[at:end] += p.tie_mul * p.tie_src[m].astype(np.int64)
                if p.sub is not None:
                    sub[at:end] = p.sub[m]
                at = end
            del masks
            perm = np.lexsort((sub, tie, order, time))
            del time, tie, sub, order
            yield kind[perm], rows[perm]

    def chunks(self):
        """The body's text, a chunk of lines at a time (bytes-like)."""
        for kinds, rows in self._windows():
            for lo in range(0, len(kinds), CHUNK):
                yield self._text(kinds[lo:lo + CHUNK], rows[lo:lo + CHUNK])

    def _text(self, kinds, rows):
        n = len(kinds)
        codes = np.zeros((n, self.width), np.int8)
        ints = np.zeros((n, self.width), np.int64)
        for k in np.unique(kinds).tolist():
            at = np.flatnonzero(kinds == k)
            for j, (code, v) in enumerate(self._fields(k, rows[at])):
                codes[at, j] = code
                ints[at, j] = v.view(np.int64) if v.dtype.kind == "f" else v
        hard = np.flatnonzero(_numbers(codes.ravel(), ints.ravel(), ints.ravel().view(np.float64)))
        values = ints.ravel()[hard].view(np.float64)
        uniq, inverse = np.unique(values, return_inverse=True)
        texts = [repr(x).encode() for x in uniq.tolist()]
        hbuf = np.frombuffer(b"".join(texts), np.uint8)
        hoff = np.zeros(len(texts) + 1, np.int64)
        np.cumsum([len(t) for t in texts], out=hoff[1:])
        ints.ravel()[hard] = inverse.reshape(-1)
        out = np.empty(_size(codes, ints, self.start, self.end, hoff), np.uint8)
        return out[:_assemble(codes, ints, self.arena, self.start, self.end, hbuf, hoff, out)]

    def _extras(self, table, eid, rows):
        """The event id and user-defined fields of rows of `table` (see EXTRA_ON):
        (code, values) pairs, fields skipped on rows that have none."""
        cols = list(getattr(self.trace, table).extra.values())
        if not cols:
            return [(STR, np.full(len(rows), self.eid + eid))]
        vals = [np.where(col[rows] >= 0, col[rows], self.eid - 1) for col in cols]
        some = np.zeros(len(rows), bool)
        for col in cols:
            some |= col[rows] >= 0
        ids = np.where(some, self.eid + eid, self.eid + EXTRA_ON[eid][1])
        return [(STR, ids)] + [(np.where(some, STR, SKIP), v) for v in vals]

    def _fields(self, kind, r):
        """The fields of lines of `kind` for rows `r`: (code, values) pairs, the event
        id first and user-defined fields last."""
        tr = self.trace
        if kind in (CREATE_L, DESTROY_L):
            cont = tr.containers
            if kind == DESTROY_L:
                return [(STR, np.full(len(r), self.eid + 7)), (NUM, cont.end[r]),
                        (TALIAS, cont.type[r]), (CALIAS, r)]
            eid, *more = self._extras("containers", 6, r)
            return [eid, (NUM, cont.start[r]), (CALIAS, r), (TALIAS, cont.type[r]),
                    (CALIAS, cont.parent[r]), (STR, cont.name[r])] + more
        if kind in (PUSH_L, POP_L):
            st = tr.states
            where = [(CALIAS, st.container[r]), (TALIAS, st.type[r])]
            if kind == POP_L:
                return [(STR, np.full(len(r), self.eid + 13)), (NUM, st.end[r])] + where
            eid, *more = self._extras("states", 12, r)
            return [eid, (NUM, st.start[r])] + where + [(VALIAS, st.value[r])] + more
        if kind in (START_L, END_L):
            ln = tr.links
            if kind == END_L:
                eid, time, other, more = (STR, np.full(len(r), self.eid + 16)), ln.end, \
                    ln.end_container, []
            else:
                (eid, *more), time, other = self._extras("links", 15, r), ln.start, \
                    ln.start_container
            return [eid, (NUM, time[r]), (CALIAS, ln.container[r]), (TALIAS, ln.type[r]),
                    (CALIAS, other[r]), (VALIAS, ln.value[r]), (STR, self.key[r])] + more
        if kind in (SET_L, ADD1_L, ADD2_L):
            var = tr.variables
            value = _float32_split(var.value[r])[kind - SET_L]
            where = [(NUM, var.start[r]), (CALIAS, var.container[r]), (TALIAS, var.type[r]),
                     (NUM, value)]
            if kind != SET_L:
                return [(STR, np.full(len(r), self.eid + 9))] + where
            eid, *more = self._extras("variables", 8, r)
            return [eid] + where + more
        ev = tr.events
        eid, *more = self._extras("events", 17, r)
        return [eid, (NUM, ev.time[r]), (CALIAS, ev.container[r]), (TALIAS, ev.type[r]),
                (VALIAS, ev.value[r])] + more


def _unquote(raw):
    return raw[1:-1] if len(raw) >= 2 and raw[0] == raw[-1] == 34 else raw


def _refuse(trace, bad):
    """TraceError naming the first container, type, value, link key or field whose
    name is in `bad` (names `token` cannot write); none: the names are unused."""
    names = trace.names
    columns = [("container", trace.containers.name[1:]), ("type", trace.types.name[1:]),
               ("value", trace.values.name), ("link key", trace.links.key)]
    columns += [(f"field {f} of {t}", col) for t in ("containers", "states", "links",
                                                    "variables", "events")
                for f, col in getattr(trace, t).extra.items()]
    for what, col in columns:
        for code in np.unique(col[col >= 0]).tolist():
            raw = names.raw(code)
            if raw in bad:
                why = "a line break" if b"\n" in raw else \
                    "a '\"' and a space, a tab or a leading '\"' or '#'"
                raise TraceError(trace.source, None, f"{what} {_shown(raw)}: a name with "
                                 f"{why} cannot be written in a Pajé trace (Pajé has no "
                                 "escape in names)")


def _shown(raw):
    """A name for a message, in quotes (`printable` escapes what a line cannot hold)."""
    return '"' + raw.decode("utf-8", "replace") + '"'


@jit
def _plain(arena, offsets):
    """Names that are their own token (`token`): printable ASCII, and one word with
    no '#' not starting with '"', or quoted with no '"' inside."""
    plain = np.zeros(offsets.shape[0] - 1, np.bool_)
    for i in range(plain.shape[0]):
        s, e = offsets[i], offsets[i + 1]
        if e == s:
            continue
        ascii, space, inner, hash_ = True, False, False, False
        for j in range(s, e):
            b = arena[j]
            ascii &= 32 <= b <= 126
            space |= b == 32
            hash_ |= b == 35
            inner |= b == 34 and s < j < e - 1
        quoted = e - s >= 2 and arena[s] == 34 and arena[e - 1] == 34 and not inner
        plain[i] = ascii and (quoted or not (space or hash_ or arena[s] == 34))
    return plain


@jit
def _numbers(codes, ints, floats):
    """NUM fields (`floats`: the same memory as `ints`) -> `shortest` packed; those it
    cannot write become REPR fields, flagged (True) for Python to write."""
    hard = np.zeros(codes.shape[0], np.bool_)
    for i in range(codes.shape[0]):
        if codes[i] == NUM:
            packed = shortest(floats[i])
            if packed == HARD:
                codes[i] = REPR
                hard[i] = True
            else:
                ints[i] = packed
    return hard


@jit
def _size(codes, ints, start, end, hoff):
    """Bytes `_assemble` writes at most."""
    n = 0
    for i in range(codes.shape[0]):
        for j in range(codes.shape[1]):
            c, v = codes[i, j], ints[i, j]
            if c == STR:
                n += end[v] - start[v] + 1
            elif c == REPR:
                n += hoff[v + 1] - hoff[v] + 1
            elif c != SKIP:
                n += REPR_MAX + 1
    return n + codes.shape[0]


@jit
def _assemble(codes, ints, arena, start, end, hbuf, hoff, out):
    """Lines of fields (codes, ints) into `out`: returns the bytes written."""
    p = 0
    for i in range(codes.shape[0]):
        first = True
        for j in range(codes.shape[1]):
            c, v = codes[i, j], ints[i, j]
            if c == SKIP:
                continue
            if not first:
                out[p] = 32
                p += 1
            first = False
            if c == STR:
                p = put(out, p, arena, start[v], end[v])
            elif c == NUM:
                p = put_shortest(out, p, v)
            elif c == REPR:
                p = put(out, p, hbuf, hoff[v], hoff[v + 1])
            elif c == CALIAS and v == 0:
                out[p] = 48
                p += 1
            else:
                out[p] = 67 if c == CALIAS else 84 if c == TALIAS else 86
                p = put_uint(out, p + 1, v)
        out[p] = 10
        p += 1
    return p


def _zero_places(st, z):
    """(order, tie, sub) of the Push lines, then of the Pop lines, of the zero-length
    states `z` (rows): each goes where the stack of its container and type is as
    deep as it is, whatever the rows' order (Pajé's, or OTF2's by Leave).

    At its time t the stack goes from h0 states (open before t) down, by the pops
    of those ending at t, then up to h1 (open after t) by the pushes of those
    starting at t, at one depth after another. A state of depth d < max(h0, h1)
    opens and closes where the stack is d deep: on the way down (after the pop at
    depth d) if d <= h0, else on the way up (before the push at depth d). The
    deeper ones nest from max(h0, h1) at the top of that path (before the pops,
    or after the pushes): at each depth all but one open and close in turn, the
    last one holding the deeper ones (a trace that nests them has one at each
    depth between)."""
    every = st.container.astype(np.int64) * (int(st.type.max()) + 1) + st.type
    stream, t, d = every[z], st.start[z], st.imbrication[z].astype(np.int64)
    # h0 = #(start < t) - #(end < t) and h1 = #(start <= t) - #(end <= t) over the
    # states of positive length of the same container and type
    pos = np.flatnonzero((st.end > st.start) & np.isin(every, stream))
    ids, inv = np.unique(np.concatenate([every[pos], stream]), return_inverse=True)
    inv = inv.reshape(-1)
    times = np.unique(np.concatenate([st.start[pos], st.end[pos], t]))
    width = len(times) + 1

    def key(s, x):
        return s * width + np.searchsorted(times, x)
    starts = np.sort(key(inv[:len(pos)], st.start[pos]))
    ends = np.sort(key(inv[:len(pos)], st.end[pos]))
    at = key(inv[len(pos):], t)
    h0 = np.searchsorted(starts, at) - np.searchsorted(ends, at)
    h1 = np.searchsorted(starts, at, "right") - np.searchsorted(ends, at, "right")
    # j: rank among the zero-length states of one (container, type, time, depth)
    order = np.lexsort((d, t, stream))
    new = np.ones(len(z), bool)
    new[1:] = (np.diff(stream[order]) != 0) | (np.diff(t[order]) != 0) | \
        (np.diff(d[order]) != 0)
    first = np.maximum.accumulate(np.where(new, np.arange(len(z)), 0))
    j = np.empty(len(z), np.int64)
    j[order] = np.arange(len(z)) - first
    size = np.diff(np.append(np.flatnonzero(new), len(z)))
    last = np.empty(len(z), bool)
    last[order] = j[order] == np.repeat(size, size) - 1
    top = np.maximum(h0, h1)
    nest = d >= top
    down = np.where(nest, h0 >= h1, d <= h0)
    level = np.where(nest, np.where(down, -h0, h1), np.where(down, -d, d))
    place = np.where(nest, d, down.astype(np.int64))
    cls = np.where(down, POP, PUSH).astype(np.int8)
    push = (cls, level * LEVEL + place, 2 * j)
    held = nest & last
    pop = (cls, level * LEVEL + np.where(held, 2 * DEEP - d, place), np.where(held, 0, 2 * j + 1))
    return push, pop


def _shared_keys(ln, names):
    """Links whose key another link of its container and type also has (OTF2 tags,
    for one; a Pajé key reused, read leniently: each link's key is its own name, so
    keys are told by their text's hash): a Pajé key names one link, so they get a
    number after it (two keys of one hash as well)."""
    from .kernel import name_hashes
    key = np.full(len(ln), -1, np.int64)
    named = np.flatnonzero(ln.key >= 0)
    hashes = np.empty(len(named), np.int64)
    name_hashes(names.arena, names.offsets, ln.key[named].astype(np.int64), hashes)
    key[named] = hashes
    order = np.lexsort((key, ln.type, ln.container))
    same = np.ones(max(len(ln) - 1, 0), bool)
    for col in (ln.container, ln.type, key):
        c = col[order]
        same &= c[1:] == c[:-1]
    shared = np.zeros(len(ln), bool)
    shared[order[1:][same]] = True
    shared[order[:-1][same]] = True
    return shared


def _float32_split(values):
    """Three float32 columns (as doubles) whose sum, in doubles, is each value: PajeNG
    reads variable values as 32-bit floats and adds them in doubles (SetVariable, then
    AddVariable at the same time), so an accumulated value reloads exactly."""
    v = np.asarray(values, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        a = v.astype(np.float32).astype(np.float64)
        b = (v - a).astype(np.float32).astype(np.float64)
        c = (v - a - b).astype(np.float32).astype(np.float64)
    b[~np.isfinite(b)], c[~np.isfinite(c)] = 0.0, 0.0
    return a, b, c
