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


def _token(raw):
    """A name as a Pajé field: as written when it reads back as one token (a quoted
    name keeps its quotes), else quoted (OTF2 names with spaces; a '"' inside those,
    which Pajé cannot quote, becomes "'")."""
    one = raw and not any(c.isspace() for c in raw) and not raw.startswith('"')
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
    types, cont = trace.types, trace.containers
    lines = header(trace)
    kinds = {Kind.CONTAINER: 0, Kind.VARIABLE: 1, Kind.STATE: 2, Kind.EVENT: 3, Kind.LINK: 4}

    def talias(t):
        return "0" if t == 0 else f"T{t}"

    def calias(c):
        return "0" if c == 0 else f"C{c}"
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
    body = []  # (time, order, tiebreak, text)
    extras = _extra_text(trace, "containers", 6)
    for c in range(1, len(cont)):
        eid, more = extras(c)
        body.append((float(cont.start[c]), CREATE, c, f"{eid} {float(cont.start[c])!r} C{c} "
                     f"T{cont.type[c]} {calias(int(cont.parent[c]))} {name(cont.name[c])}"
                     f"{more}"))
        body.append((float(cont.end[c]), DESTROY, -c, f"7 {float(cont.end[c])!r} "
                     f"T{cont.type[c]} C{c}"))
    body += _states(trace, calias)
    body += _links(trace, calias)
    var = trace.variables
    extras = _extra_text(trace, "variables", 8)
    for i in range(len(var)):
        t, where = float(var.start[i]), f"{calias(int(var.container[i]))} T{var.type[i]}"
        eid, more = extras(i)
        parts = _float32_parts(float(var.value[i]))
        body.append((t, OTHER, 0, f"{eid} {t!r} {where} {parts[0]!r}{more}"))
        body += [(t, OTHER, 0, f"9 {t!r} {where} {x!r}") for x in parts[1:]]
    ev = trace.events
    extras = _extra_text(trace, "events", 17)
    for i in range(len(ev)):
        eid, more = extras(i)
        body.append((float(ev.time[i]), OTHER, 1, f"{eid} {float(ev.time[i])!r} "
                     f"{calias(int(ev.container[i]))} T{ev.type[i]} V{ev.value[i]}{more}"))
    body.sort(key=lambda x: (x[0], x[1], x[2]))
    with writing(path) as f:
        f.write("\n".join(lines) + "\n")
        f.writelines(b[3] + "\n" for b in body)
    return len(body)


def _extra_text(trace, table, eid):
    """For row i of `table`: the event id to write it with and its user-defined
    fields (none, and the id without them, for a row that has none)."""
    names = trace.names
    cols = list(getattr(trace, table).extra.values())

    def text(i):
        codes = [int(c[i]) for c in cols]
        if all(x < 0 for x in codes):
            return (EXTRA_ON[eid][1] if cols else eid), ""
        return eid, "".join(" " + (_token(names[x]) if x >= 0 else '""') for x in codes)
    return text


def _float32_parts(v):
    """Float32 numbers whose sum, in doubles, is `v`: PajeNG reads variable values as
    32-bit floats and adds them in doubles (SetVariable, then AddVariable at the same
    time), so an accumulated value that is no float32 reloads exactly."""
    parts = []
    for _ in range(3):
        x = float(np.float32(v))
        if x == v or not np.isfinite(x):
            break
        parts.append(x)
        v -= x
    return parts + [float(np.float32(v))] if not parts or v else parts


def _states(trace, calias):
    """Push at the start, Pop at the end: at one time, pops (deepest first) before
    pushes (shallowest first). A zero-length state at depth d pops right after its
    push, among the pushes after its parent's when the parent starts then, else
    among the pops, after those at depth d or more (its ancestors still open)."""
    st = trace.states
    extras = _extra_text(trace, "states", 12)
    starts = {(int(c), int(t), int(d), float(s)) for c, t, d, s, e in zip(
        st.container, st.type, st.imbrication, st.start, st.end) if e > s}
    out = []
    for i in range(len(st)):
        s, e, d = float(st.start[i]), float(st.end[i]), int(st.imbrication[i])
        c, t = calias(int(st.container[i])), st.type[i]
        eid, more = extras(i)
        push, pop = f"{eid} {s!r} {c} T{t} V{st.value[i]}{more}", f"13 {e!r} {c} T{t}"
        if e > s:
            out += [(s, PUSH, d, push), (e, POP, -d, pop)]
        elif (int(st.container[i]), int(t), d - 1, s) in starts:
            out += [(s, PUSH, d + 0.4, push), (s, PUSH, d + 0.6, pop)]
        else:
            out += [(s, POP, -d + 0.4, push), (s, POP, -d + 0.6, pop)]
    return out


def _shared_keys(ln):
    """Links whose key another link of its container and type also has (OTF2 tags,
    for one): a Pajé key names one link, so they get a number after it."""
    triples = np.stack([ln.container, ln.type, ln.key], axis=1)
    if not len(triples):
        return np.zeros(0, bool)
    _, inverse, counts = np.unique(triples, axis=0, return_inverse=True, return_counts=True)
    return counts[inverse.reshape(-1)] > 1


def _links(trace, calias):
    ln = trace.links
    extras = _extra_text(trace, "links", 15)
    shared = _shared_keys(ln)
    out = []
    for i in range(len(ln)):
        s, e = float(ln.start[i]), float(ln.end[i])
        c, t, v = calias(int(ln.container[i])), ln.type[i], ln.value[i]
        key = trace.names[ln.key[i]] if ln.key[i] >= 0 else ""
        key = _token(f"{key}#{i}" if shared[i] or not key else key)
        eid, more = extras(i)
        out.append((s, OTHER, 2, f"{eid} {s!r} {c} T{t} {calias(int(ln.start_container[i]))} "
                    f"V{v} {key}{more}"))
        out.append((e, OTHER, 3, f"16 {e!r} {c} T{t} {calias(int(ln.end_container[i]))} "
                    f"V{v} {key}"))
    return out
