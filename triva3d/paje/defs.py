"""Pajé event kinds, field names and the `%EventDef` header state machine."""
import numpy as np

# Event kinds (the order is internal; ids in a trace are free).
(DEF_CONTAINER_TYPE, DEF_STATE_TYPE, DEF_EVENT_TYPE, DEF_VARIABLE_TYPE, DEF_LINK_TYPE,
 DEF_ENTITY_VALUE, CREATE_CONTAINER, DESTROY_CONTAINER, NEW_EVENT, SET_STATE, PUSH_STATE,
 POP_STATE, RESET_STATE, SET_VARIABLE, ADD_VARIABLE, SUB_VARIABLE, START_LINK, END_LINK,
 TRACE_FILE) = range(19)

EVENT_NAMES = ["PajeDefineContainerType", "PajeDefineStateType", "PajeDefineEventType",
               "PajeDefineVariableType", "PajeDefineLinkType", "PajeDefineEntityValue",
               "PajeCreateContainer", "PajeDestroyContainer", "PajeNewEvent", "PajeSetState",
               "PajePushState", "PajePopState", "PajeResetState", "PajeSetVariable",
               "PajeAddVariable", "PajeSubVariable", "PajeStartLink", "PajeEndLink",
               "PajeTraceFile"]
EVENT_KIND = {name: k for k, name in enumerate(EVENT_NAMES)}

# Fields: index into a definition's position table.
(F_TIME, F_NAME, F_TYPE, F_CONTAINER, F_START_CONTAINER_TYPE, F_END_CONTAINER_TYPE,
 F_START_CONTAINER, F_END_CONTAINER, F_VALUE, F_KEY, F_ALIAS, F_COLOR, F_LINE, F_FILE,
 F_FILENAME) = range(15)
NFIELDS = 15
FIELD_NAMES = ["Time", "Name", "Type", "Container", "StartContainerType", "EndContainerType",
               "StartContainer", "EndContainer", "Value", "Key", "Alias", "Color", "Line",
               "File", "Filename"]
FIELD = {name: f for f, name in enumerate(FIELD_NAMES)}
#: Old field names that PajeNG accepts only with `pj_dump -n` (our --lenient).
LEGACY_FIELDS = {"ContainerType": F_TYPE, "EntityType": F_TYPE,
                 "SourceContainerType": F_START_CONTAINER_TYPE,
                 "DestContainerType": F_END_CONTAINER_TYPE,
                 "SourceContainer": F_START_CONTAINER, "DestContainer": F_END_CONTAINER}
FIELD_TYPES = {"string", "float", "double", "int", "hex", "date", "color"}

_T, _N, _Y, _C, _V = F_TIME, F_NAME, F_TYPE, F_CONTAINER, F_VALUE
OBLIGATORY = {
    DEF_CONTAINER_TYPE: {_N, _Y}, DEF_STATE_TYPE: {_N, _Y}, DEF_EVENT_TYPE: {_N, _Y},
    DEF_VARIABLE_TYPE: {_N, _Y}, DEF_ENTITY_VALUE: {_N, _Y},
    DEF_LINK_TYPE: {_N, _Y, F_START_CONTAINER_TYPE, F_END_CONTAINER_TYPE},
    CREATE_CONTAINER: {_T, _N, _Y, _C}, DESTROY_CONTAINER: {_T, _N, _Y},
    NEW_EVENT: {_T, _Y, _C, _V}, SET_STATE: {_T, _Y, _C, _V}, PUSH_STATE: {_T, _Y, _C, _V},
    POP_STATE: {_T, _Y, _C}, RESET_STATE: {_T, _Y, _C},
    SET_VARIABLE: {_T, _Y, _C, _V}, ADD_VARIABLE: {_T, _Y, _C, _V}, SUB_VARIABLE: {_T, _Y, _C, _V},
    START_LINK: {_T, _Y, _C, _V, F_START_CONTAINER, F_KEY},
    END_LINK: {_T, _Y, _C, _V, F_END_CONTAINER, F_KEY},
    TRACE_FILE: {_C, _Y, F_FILENAME},
}

#: The ids and fields triva3d writes (those of PajeNG's Poti library).
STANDARD = [
    (DEF_CONTAINER_TYPE, ["Alias", "Type", "Name"]),
    (DEF_VARIABLE_TYPE, ["Alias", "Type", "Name", "Color"]),
    (DEF_STATE_TYPE, ["Alias", "Type", "Name"]),
    (DEF_EVENT_TYPE, ["Alias", "Type", "Name"]),
    (DEF_LINK_TYPE, ["Alias", "Type", "StartContainerType", "EndContainerType", "Name"]),
    (DEF_ENTITY_VALUE, ["Alias", "Type", "Name", "Color"]),
    (CREATE_CONTAINER, ["Time", "Alias", "Type", "Container", "Name"]),
    (DESTROY_CONTAINER, ["Time", "Type", "Name"]),
    (SET_VARIABLE, ["Time", "Container", "Type", "Value"]),
    (ADD_VARIABLE, ["Time", "Container", "Type", "Value"]),
    (SUB_VARIABLE, ["Time", "Container", "Type", "Value"]),
    (SET_STATE, ["Time", "Container", "Type", "Value"]),
    (PUSH_STATE, ["Time", "Container", "Type", "Value"]),
    (POP_STATE, ["Time", "Container", "Type"]),
    (RESET_STATE, ["Time", "Container", "Type"]),
    (START_LINK, ["Time", "Container", "Type", "StartContainer", "Value", "Key"]),
    (END_LINK, ["Time", "Container", "Type", "EndContainer", "Value", "Key"]),
    (NEW_EVENT, ["Time", "Container", "Type", "Value"]),
]
#: Event kind -> its id in `standard_header()`.
STANDARD_ID = {kind: i for i, (kind, _) in enumerate(STANDARD)}


def standard_header(extra=None):
    """`%EventDef` definitions of every event kind, ids 0-17 as listed in STANDARD;
    `extra` maps event kinds to user-defined (string) fields appended to theirs."""
    out = []
    for i, (kind, fields) in enumerate(STANDARD):
        out.append(f"%EventDef {EVENT_NAMES[kind]} {i}")
        for f in fields + (extra or {}).get(kind, []):
            ftype = {"Time": "date", "Color": "color"}.get(f, "string")
            if f == "Value" and SET_VARIABLE <= kind <= SUB_VARIABLE:
                ftype = "double"
            out.append(f"% {f} {ftype}")
        out.append("%EndEventDef")
    return "\n".join(out) + "\n"


MAX_FIELDS = 255  # tokens a line may hold; the kernel's token buffers have one more
#: Distinct user-defined field names in a trace (each is a column of every table).
MAX_EXTRA_NAMES = 256


class EventDef:
    """One `%EventDef`: its kind, field positions and user-defined (extra) fields."""

    def __init__(self, kind, ident, line):
        self.kind, self.ident, self.line = kind, ident, line
        self.pos = [-1] * NFIELDS      # field -> token position in an event line
        self.extra = []                # (user field name, token position)
        self.nfields = 1               # the event id is token 0
        self.complete = False


class LenientReads(ValueError):
    """A refusal that the lenient mode reads past (legacy field names)."""


class HeaderParser:
    """Feeds `%` lines; raises ValueError with the reason on a bad definition."""

    def __init__(self, legacy_names):
        self.defs = {}                 # id token (bytes) -> EventDef
        self.current = None
        self.legacy = legacy_names
        self.legacy_used = 0
        self.legacy_line = 0

    def feed(self, words, line):
        first = words[0][1:]
        words = ([first] if first else []) + words[1:]
        if self.current is None:
            if len(words) != 3 or words[0] != b"EventDef":
                raise ValueError("'%EventDef <event name> <event id>' expected")
            name, ident = words[1].decode("utf-8", "replace"), words[2]
            if ident in self.defs:
                raise ValueError(f"redefinition of event id '{ident.decode('utf-8', 'replace')}'")
            if name not in EVENT_KIND:
                raise ValueError(f"unknown event name '{name}'")
            self.current = self.defs[ident] = EventDef(EVENT_KIND[name], ident, line)
            return
        d = self.current
        if not words:
            raise ValueError("missing field name")
        if words[0] == b"EndEventDef":
            missing = OBLIGATORY[d.kind] - {f for f in range(NFIELDS) if d.pos[f] >= 0}
            if missing:
                names = ", ".join(sorted(FIELD_NAMES[f] for f in missing))
                message = f"definition of {EVENT_NAMES[d.kind]} (line {d.line}) lacks {names}"
                legacy = {n: LEGACY_FIELDS[n] for n, _ in d.extra if n in LEGACY_FIELDS}
                if missing <= set(legacy.values()):  # (strict: they are extra fields)
                    given = sorted(n for n, f in legacy.items() if f in missing)
                    raise LenientReads(f"{message}, given by the legacy name"
                                       f"{'s' if len(given) > 1 else ''} {', '.join(given)}")
                raise ValueError(message)
            d.complete, self.current = True, None
            return
        if words[0] == b"EventDef":
            raise ValueError(f"%EventDef inside the definition that starts at line {d.line}")
        if len(words) != 2:
            raise ValueError("'% <field name> <field type>' expected")
        fname, ftype = (w.decode("utf-8", "replace") for w in words)
        if ftype not in FIELD_TYPES:
            raise ValueError(f"unknown field type '{ftype}' for field '{fname}'")
        if d.nfields >= MAX_FIELDS:
            raise ValueError(f"more than {MAX_FIELDS} fields")
        field = FIELD.get(fname)
        if field is None and self.legacy and fname in LEGACY_FIELDS:
            field = LEGACY_FIELDS[fname]
            self.legacy_used += 1
            self.legacy_line = self.legacy_line or line
        if field is None:
            if fname in (n for n, _ in d.extra) or fname == "Event":
                raise ValueError(f"field '{fname}' defined twice")
            d.extra.append((fname, d.nfields))
        else:
            if d.pos[field] >= 0:
                raise ValueError(f"field '{fname}' defined twice")
            d.pos[field] = d.nfields
        d.nfields += 1


class DefTable:
    """The kernel's view of the definitions, grown one definition at a time: kind,
    field count, field positions, extra field positions (a column per extra field
    name), and which tokens are names (everything but times and numbers)."""

    def __init__(self):
        self.n = 0
        self.kind = np.full(8, -1, np.int8)
        self.nfields = np.zeros(8, np.int32)
        self.pos = np.full((8, NFIELDS), -1, np.int32)
        self.extra = np.full((8, 0), -1, np.int32)
        self.isname = np.zeros((8, MAX_FIELDS + 1), np.int8)

    def add(self, d, extra_col):
        """Row `d.index` for the complete EventDef `d`; `extra_col`: column of each
        extra field name (new names get new columns)."""
        i = d.index
        if i >= len(self.kind):
            grow = max(2 * len(self.kind), i + 1)
            self.kind = np.concatenate([self.kind, np.full(grow - len(self.kind), -1, np.int8)])
            for name in ("nfields", "pos", "extra", "isname"):
                a = getattr(self, name)
                fill = -1 if name in ("pos", "extra") else 0
                setattr(self, name, np.concatenate(
                    [a, np.full((grow - len(a),) + a.shape[1:], fill, a.dtype)]))
        need = max([extra_col[name] + 1 for name, _ in d.extra] + [self.extra.shape[1]])
        if need > self.extra.shape[1]:  # exactly: the kernel takes contiguous arrays
            grown = np.full((len(self.extra), need), -1, np.int32)
            grown[:, :self.extra.shape[1]] = self.extra
            self.extra = grown
        self.kind[i], self.nfields[i], self.pos[i] = d.kind, d.nfields, d.pos
        for name, p in d.extra:
            self.extra[i, extra_col[name]] = p
        if d.kind < CREATE_CONTAINER or d.kind == TRACE_FILE:  # read in Python: what it
            for f in (F_NAME, F_ALIAS, F_TYPE, F_START_CONTAINER_TYPE,  # looks up by code
                      F_END_CONTAINER_TYPE):
                if d.pos[f] >= 0:
                    self.isname[i, d.pos[f]] = 1
        else:
            self.isname[i, 1:d.nfields] = 1
            numbers = [F_TIME] + ([F_VALUE] if SET_VARIABLE <= d.kind <= SUB_VARIABLE else [])
            for f in numbers + [F_KEY]:  # (a link's key: kept by the link, not a name)
                if d.pos[f] >= 0:
                    self.isname[i, d.pos[f]] = 0
        self.n = max(self.n, i + 1)

    def arrays(self):
        n = max(self.n, 1)
        return self.kind[:n], self.nfields[:n], self.pos[:n], self.extra[:n], self.isname[:n]