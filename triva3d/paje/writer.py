"""Write a Trace as a Pajé trace that PajeNG (and triva3d) read back.

Names are written as they were read (quotes included), link keys too. Types, values
and containers get aliases (T*, V*, C*); colours are kept (through definitions with
a Color field, ids 18, 19 and 25-28); states become Push/Pop
pairs (so nesting survives), links StartLink/EndLink, variables one SetVariable per
piece, events NewEvent. User-defined fields (extra columns) ride on CreateContainer,
SetVariable, PushState, StartLink and NewEvent. Times are written with Python's
shortest exact repr, so they reload exactly; variable values reload as PajeNG reads
them (32-bit).
"""
import re

import numpy as np

from ..output import writing
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


_SPACE = re.compile(r"\s")


def _token(raw):
    """A name as a Pajé field: as written when it reads back as one token (a quoted
    name keeps its quotes), else quoted (OTF2 names with spaces; a '"' inside those,
    which Pajé cannot quote, becomes "'")."""
    one = raw and not _SPACE.search(raw) and not raw.startswith('"')
    quoted = len(raw) >= 2 and raw[0] == raw[-1] == '"' and '"' not in raw[1:-1]
    return raw if one or quoted else '"' + raw.replace('"', "'") + '"'


def _color(rgba):
    """A colour field, or None where the trace gave none (NaN)."""
    if rgba is None or rgba[0] != rgba[0]:
        return None
    return '"' + " ".join(f"{float(x):.9g}" for x in rgba[:3]) + '"'


def header(trace):
    out = ["# Written by triva3d from " + str(trace.source).replace("\n", " ")]
    for name, eid, fields in DEFS:
        out.append(f"%EventDef {name} {eid}")
        extra = list(getattr(trace, EXTRA_ON[eid][0]).extra) if eid in EXTRA_ON else []
        for f in fields + extra:
            t = "double" if (name in ("PajeSetVariable", "PajeAddVariable") and
                             f == "Value") else \
                FIELD_TYPE.get(f, "string")
            out.append(f"% {f} {t}")
        out.append("%EndEventDef")
    return out


def write_paje(trace, path):
    """Write `trace` to `path`; returns the number of event lines."""
    names = trace.names

    def name(code):
        return _token(names[code])
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
    body = _Body(trace)
    with writing(path) as f:
        f.write("\n".join(lines) + "\n")
        for text in body.chunks():
            f.write(text)
    return body.n


#: Line kinds of the body.
(CREATE_L, DESTROY_L, PUSH_L, POP_L, START_L, END_L, SET_L, ADD1_L, ADD2_L,
 EVENT_L) = range(10)
CHUNK = 100_000


def _s(a):
    """Numbers as the shortest text that reads back the same (numpy's repr), each
    distinct number formatted once (times repeat: a state ends where the next starts)."""
    uniq, inv = np.unique(np.asarray(a), return_inverse=True)
    return np.array([repr(x) for x in uniq.tolist()] or [""], object)[inv.reshape(-1)]


def _ids(prefix, n):
    """"PREFIXi" for i < n, as an object array to index."""
    return np.array([f"{prefix}{i}" for i in range(n)], object)


class _Body:
    """Every event line as columns (time, order, tiebreak to sort by; kind and row to
    write it), sorted once and formatted a chunk of lines at a time: the memory
    follows the Trace, not the file."""

    def __init__(self, trace):
        self.trace = tr = trace
        names = tr.names
        self.tok = np.array([_token(n) for n in names.texts(range(len(names)))] + ['""'],
                            object)
        cont, st, ln, var, ev = tr.containers, tr.states, tr.links, tr.variables, tr.events
        c = np.arange(1, len(cont))
        parts = [(cont.start[c], CREATE, c, CREATE_L, c), (cont.end[c], DESTROY, -c,
                                                            DESTROY_L, c)]
        parts += self._states(st)
        rows = np.arange(len(ln))
        parts += [(ln.start, OTHER, 2, START_L, rows), (ln.end, OTHER, 3, END_L, rows)]
        self.var_parts = _float32_split(var.value)
        rows = np.arange(len(var))
        a1, a2 = self.var_parts[1] != 0, self.var_parts[2] != 0
        parts += [(var.start, OTHER, 0, SET_L, rows),
                  (var.start[a1], OTHER, 0, ADD1_L, rows[a1]),
                  (var.start[a2], OTHER, 0, ADD2_L, rows[a2])]
        parts += [(ev.time, OTHER, 1, EVENT_L, np.arange(len(ev)))]
        self.n = n = sum(len(p[0]) for p in parts)
        time, order, tie = np.empty(n), np.empty(n, np.int8), np.empty(n, np.float32)
        kind, row = np.empty(n, np.int8), np.empty(n, np.int32)
        at = 0
        for t, o, b, k, r in parts:  # filled in place: no copy of every column at once
            end = at + len(t)
            time[at:end], order[at:end], tie[at:end], kind[at:end], row[at:end] = \
                t, o, b, k, r
            at = end
        del parts
        perm = np.lexsort((tie, order, time))  # stable: Set before its Adds
        del time, order, tie
        self.kind, self.row = kind[perm], row[perm]
        self.calias = np.array(["0"] + [f"C{i}" for i in range(1, len(cont))], object)
        self.talias, self.valias = _ids(" T", len(tr.types)), _ids(" V", len(tr.values))
        self.key = np.where(ln.key >= 0, self.tok[ln.key], "").astype(object)
        for i in np.flatnonzero(_shared_keys(ln) | (ln.key < 0)).tolist():
            self.key[i] = _token(f"{names[ln.key[i]] if ln.key[i] >= 0 else ''}#{i}")

    def _states(self, st):
        """Push at the start, Pop at the end: at one time, pops (deepest first) before
        pushes (shallowest first). A zero-length state at depth d pops right after its
        push, among the pushes after its parent's when the parent starts then, else
        among the pops, after those at depth d or more (its ancestors still open)."""
        d = st.imbrication.astype(np.float64)
        zero = st.end <= st.start
        rows = np.arange(len(st))
        later = np.flatnonzero(~zero & np.isin(st.start, st.start[zero]))
        starts = set(zip(st.container[later].tolist(), st.type[later].tolist(),
                         st.imbrication[later].tolist(), st.start[later].tolist()))
        inside = np.array([(c, t, k - 1, s) in starts for c, t, k, s in zip(
            st.container[zero].tolist(), st.type[zero].tolist(),
            st.imbrication[zero].tolist(), st.start[zero].tolist())], bool)
        z, zin, zout = rows[zero], rows[zero][inside], rows[zero][~inside]
        pos = rows[~zero]
        return [(st.start[pos], PUSH, d[pos], PUSH_L, pos),
                (st.end[pos], POP, -d[pos], POP_L, pos),
                (st.start[zin], PUSH, d[zin] + 0.4, PUSH_L, zin),
                (st.start[zin], PUSH, d[zin] + 0.6, POP_L, zin),
                (st.start[zout], POP, -d[zout] + 0.4, PUSH_L, zout),
                (st.start[zout], POP, -d[zout] + 0.6, POP_L, zout)] if len(z) else \
            [(st.start, PUSH, d, PUSH_L, rows), (st.end, POP, -d, POP_L, rows)]

    def chunks(self):
        for lo in range(0, self.n, CHUNK):
            kind, row = self.kind[lo:lo + CHUNK], self.row[lo:lo + CHUNK]
            out = np.empty(len(kind), object)
            for k in np.unique(kind).tolist():
                m = kind == k
                out[m] = self._lines(k, row[m])
            yield "\n".join(out.tolist()) + "\n"

    def _extras(self, table, eid, rows):
        """(event ids, " field field..." texts) of rows of `table` (see EXTRA_ON)."""
        cols = list(getattr(self.trace, table).extra.values())
        if not cols:
            return np.full(len(rows), str(eid), object), ""
        codes = np.stack([col[rows] for col in cols], axis=1)
        text = np.full(len(rows), "", object)
        for k in range(codes.shape[1]):
            text = text + " " + self.tok[codes[:, k]]   # -1: the last token, ""
        some = (codes >= 0).any(axis=1)
        return np.where(some, str(eid), str(EXTRA_ON[eid][1])).astype(object), \
            np.where(some, text, "").astype(object)

    def _lines(self, kind, r):
        tr, tok, calias, ta, va = self.trace, self.tok, self.calias, self.talias, self.valias
        cont = tr.containers
        if kind == CREATE_L:
            eid, more = self._extras("containers", 6, r)
            return (eid + " " + _s(cont.start[r]) + " " + calias[r] + ta[cont.type[r]] + " " +
                    calias[cont.parent[r]] + " " + tok[cont.name[r]] + more)
        if kind == DESTROY_L:
            return "7 " + _s(cont.end[r]) + ta[cont.type[r]] + " " + calias[r]
        if kind in (PUSH_L, POP_L):
            st = tr.states
            where = " " + calias[st.container[r]] + ta[st.type[r]]
            if kind == POP_L:
                return "13 " + _s(st.end[r]) + where
            eid, more = self._extras("states", 12, r)
            return eid + " " + _s(st.start[r]) + where + va[st.value[r]] + more
        if kind in (START_L, END_L):
            ln = tr.links
            if kind == END_L:
                return ("16 " + _s(ln.end[r]) + " " + calias[ln.container[r]] +
                        ta[ln.type[r]] + " " + calias[ln.end_container[r]] + va[ln.value[r]] +
                        " " + self.key[r])
            eid, more = self._extras("links", 15, r)
            return (eid + " " + _s(ln.start[r]) + " " + calias[ln.container[r]] +
                    ta[ln.type[r]] + " " + calias[ln.start_container[r]] + va[ln.value[r]] +
                    " " + self.key[r] + more)
        if kind in (SET_L, ADD1_L, ADD2_L):
            var = tr.variables
            where = " " + _s(var.start[r]) + " " + calias[var.container[r]] + \
                ta[var.type[r]] + " "
            if kind != SET_L:
                return "9" + where + _s(self.var_parts[kind - SET_L][r])
            eid, more = self._extras("variables", 8, r)
            return eid + where + _s(self.var_parts[0][r]) + more
        ev = tr.events
        eid, more = self._extras("events", 17, r)
        return (eid + " " + _s(ev.time[r]) + " " + calias[ev.container[r]] + ta[ev.type[r]] +
                va[ev.value[r]] + more)


def _shared_keys(ln):
    """Links whose key another link of its container and type also has (OTF2 tags,
    for one): a Pajé key names one link, so they get a number after it."""
    triples = np.stack([ln.container, ln.type, ln.key], axis=1)
    if not len(triples):
        return np.zeros(0, bool)
    _, inverse, counts = np.unique(triples, axis=0, return_inverse=True, return_counts=True)
    return counts[inverse.reshape(-1)] > 1


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
