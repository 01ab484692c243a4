"""Write a Trace as a Pajé trace that PajeNG (and triva3d) read back.

Types, values and containers get aliases (T*, V*, C*); states become Push/Pop pairs
(so nesting survives), links StartLink/EndLink with one key each, variables one
SetVariable per piece, events NewEvent. User-defined fields (extra columns) ride on
PushState, StartLink and NewEvent. Times are written with Python's shortest exact
repr, so they reload exactly; variable values reload as PajeNG reads them (32-bit).
"""
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
        ("PajeNewEvent", 17, ["Time", "Container", "Type", "Value"])]
FIELD_TYPE = {"Time": "date", "Value": "string"}
EXTRA_ON = {"PajePushState": "states", "PajeStartLink": "links", "PajeNewEvent": "events"}
# order of lines at one timestamp: creations, pops, pushes, the rest, destructions
CREATE, POP, PUSH, OTHER, DESTROY = range(5)


def _q(s):
    return '"' + s.replace('"', "'") + '"'


def header(trace):
    out = ["# Written by triva3d from " + str(trace.source).replace("\n", " ")]
    for name, eid, fields in DEFS:
        out.append(f"%EventDef {name} {eid}")
        extra = list(getattr(trace, EXTRA_ON[name]).extra) if name in EXTRA_ON else []
        for f in fields + extra:
            t = "double" if (name == "PajeSetVariable" and f == "Value") else \
                FIELD_TYPE.get(f, "string")
            out.append(f"% {f} {t}")
        out.append("%EndEventDef")
    return out


def write_paje(trace, path):
    """Write `trace` to `path`; returns the number of event lines."""
    name = trace.names.display
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
        if k == Kind.LINK:
            lines.append(f"4 T{t} {parent} {talias(int(types.start_type[t]))} "
                         f"{talias(int(types.end_type[t]))} {_q(name(types.name[t]))}")
        else:
            lines.append(f"{kinds[k]} T{t} {parent} {_q(name(types.name[t]))}")
    for v in range(len(trace.values)):
        lines.append(f"5 V{v} T{trace.values.type[v]} {_q(name(trace.values.name[v]))}")
    body = []  # (time, order, tiebreak, text)
    for c in range(1, len(cont)):
        body.append((float(cont.start[c]), CREATE, c, f"6 {float(cont.start[c])!r} C{c} "
                     f"T{cont.type[c]} {calias(int(cont.parent[c]))} {_q(name(cont.name[c]))}"))
        body.append((float(cont.end[c]), DESTROY, -c, f"7 {float(cont.end[c])!r} "
                     f"T{cont.type[c]} C{c}"))
    body += _states(trace, calias)
    body += _links(trace, calias)
    var = trace.variables
    for i in range(len(var)):
        body.append((float(var.start[i]), OTHER, 0, f"8 {float(var.start[i])!r} "
                     f"{calias(int(var.container[i]))} T{var.type[i]} {float(var.value[i])!r}"))
    ev = trace.events
    extras = _extra_text(trace, "events")
    for i in range(len(ev)):
        body.append((float(ev.time[i]), OTHER, 1, f"17 {float(ev.time[i])!r} "
                     f"{calias(int(ev.container[i]))} T{ev.type[i]} V{ev.value[i]}{extras(i)}"))
    body.sort(key=lambda x: (x[0], x[1], x[2]))
    with writing(path) as f:
        f.write("\n".join(lines) + "\n")
        f.writelines(b[3] + "\n" for b in body)
    return len(body)


def _extra_text(trace, table):
    t = getattr(trace, table)
    cols = list(t.extra.values())
    name = trace.names.display
    return lambda i: "".join(" " + (_q(name(c[i])) if c[i] >= 0 else '""') for c in cols)


def _states(trace, calias):
    """Push at the start, Pop at the end: at one time, pops (deepest first) before
    pushes (shallowest first); a zero-length state pops right after its push."""
    st = trace.states
    extras = _extra_text(trace, "states")
    out = []
    for i in range(len(st)):
        s, e, d = float(st.start[i]), float(st.end[i]), int(st.imbrication[i])
        c, t = calias(int(st.container[i])), st.type[i]
        out.append((s, PUSH, d, f"12 {s!r} {c} T{t} V{st.value[i]}{extras(i)}"))
        out.append((e, POP, -d, f"13 {e!r} {c} T{t}") if e > s else
                   (s, PUSH, d + 0.5, f"13 {e!r} {c} T{t}"))
    return out


def _links(trace, calias):
    ln = trace.links
    extras = _extra_text(trace, "links")
    out = []
    for i in range(len(ln)):
        s, e = float(ln.start[i]), float(ln.end[i])
        c, t, v = calias(int(ln.container[i])), ln.type[i], ln.value[i]
        out.append((s, OTHER, 2, f"15 {s!r} {c} T{t} {calias(int(ln.start_container[i]))} "
                    f"V{v} k{i}{extras(i)}"))
        out.append((e, OTHER, 3, f"16 {e!r} {c} T{t} {calias(int(ln.end_container[i]))} "
                    f"V{v} k{i}"))
    return out
