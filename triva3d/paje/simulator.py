"""The Pajé simulator's state and its Python half: growth, definitions, errors.

`SimState` owns every column the kernel writes. Columns grow with `ndarray.resize`
(realloc, so big columns are remapped rather than copied) and are trimmed when the
Trace is built, so memory follows the Trace, not the file.
"""
import functools

import numpy as np

from . import defs as D
from . import kernel as K
from ..errors import TraceError
from ..trace import ENTITY_KINDS, SCHEMA, Kind, Names

I4, I8, F8, U8 = np.int32, np.int64, np.float64, np.uint8

# group -> (count slot in istate, {array: dtype}, hash index or None, extra columns or None)
GROUPS = {
    "tokens": (K.I_NTOK, {"tk_start": I8, "tk_len": I4, "tk_hash": I8, "tok2cont_id": I4,
                          "tok2cont_name": I4, "tok2type_id": I4, "tok2type_name": I4,
                          "tok2def": I4}, ("tok_slots", "tk_hash"), None),
    "arena": (K.I_NARENA, {"arena": U8}, None, None),
    "values": (K.I_NVAL, {"val_type": I4, "val_name": I4, "val_alias": I4, "val_hash": I8},
               ("val_slots", "val_hash"), None),
    "containers": (K.I_NCONT, {"cont_parent": I4, "cont_type": I4, "cont_name": I4,
                               "cont_alias": I4, "cont_start": F8, "cont_end": F8,
                               "cont_destroyed": np.int8, "cont_first_slot": I4,
                               "cont_first_child": I4, "cont_next_sibling": I4, "work": I4},
                   None, "cont_extra"),
    "slots": (K.I_NSLOT, {"slot_cont": I4, "slot_type": I4, "slot_last": I4, "slot_top": I4,
                          "slot_next": I4, "slot_pending": I4, "slot_hash": I8},
              ("slot_slots", "slot_hash"), None),
    "states": (K.I_NSTATE, {"st_cont": I4, "st_type": I4, "st_value": I4, "st_start": F8,
                            "st_end": F8, "st_imbr": np.int16, "st_below": I4}, None, "st_extra"),
    "links": (K.I_NLINK, {"ln_cont": I4, "ln_type": I4, "ln_value": I4, "ln_sc": I4,
                          "ln_ec": I4, "ln_start": F8, "ln_end": F8, "ln_kstart": I8,
                          "ln_klen": I4, "ln_done": np.int8, "ln_hash": I8, "ln_line": I8},
              ("link_slots", "ln_hash"), "ln_extra"),
    "karena": (K.I_NKARENA, {"karena": U8}, None, None),  # the links' keys, end to end
    "variables": (K.I_NVAR, {"vr_cont": I4, "vr_type": I4, "vr_start": F8, "vr_end": F8,
                             "vr_value": F8}, None, "vr_extra"),
    "events": (K.I_NEVENT, {"ev_cont": I4, "ev_type": I4, "ev_value": I4, "ev_time": F8},
               None, "ev_extra"),
}
NAMES = ("tokens", "arena")
#: Trace table -> (group, kernel arrays in SCHEMA's column order, extra-field array).
TRACE_COLUMNS = {
    "containers": ("containers", ["cont_parent", "cont_type", "cont_name", "cont_alias",
                                  "cont_start", "cont_end"], "cont_extra"),
    "states": ("states", ["st_cont", "st_type", "st_value", "st_start", "st_end", "st_imbr"],
               "st_extra"),
    "links": ("links", ["ln_cont", "ln_type", "ln_value", "ln_sc", "ln_ec", "ln_start",
                        "ln_end"], "ln_extra"),  # (and the key: its bytes, link_keys)
    "variables": ("variables", ["vr_cont", "vr_type", "vr_start", "vr_end", "vr_value"],
                  "vr_extra"),
    "events": ("events", ["ev_cont", "ev_type", "ev_value", "ev_time"], "ev_extra"),
}
GROWTH = 1.5
INITIAL = 4096
TYPE_KIND = {D.DEF_CONTAINER_TYPE: Kind.CONTAINER, D.DEF_STATE_TYPE: Kind.STATE,
             D.DEF_EVENT_TYPE: Kind.EVENT, D.DEF_VARIABLE_TYPE: Kind.VARIABLE,
             D.DEF_LINK_TYPE: Kind.LINK}
BATCH, BATCH_TOKENS = 4096, 1 << 16  # lines and tokens of a run handed to Python

# Kernel error code -> message; {tok} is the offending field as written.
MESSAGES = {
    K.E_UNTERMINATED: "unterminated quoted string",
    K.E_UNKNOWN_EVENT: "event id '{tok}' has no complete %EventDef",
    K.E_FIELD_COUNT: "{ntok} fields where the definition of {event} (line {defline}) has {nfields}",
    K.E_BAD_NUMBER: "'{tok}' is not a number in range (times are doubles, variable values "
                    "32-bit floats as PajeNG reads them)",
    K.E_UNKNOWN_CONTAINER: "unknown container '{tok}'",
    K.E_AMBIGUOUS_CONTAINER: "several containers are named '{tok}'; refer to it by its alias",
    K.E_UNKNOWN_TYPE: "unknown type '{tok}'",
    K.E_WRONG_KIND: "type '{tok}' is not a {want} type",
    K.E_NOT_CHILD_TYPE: "type '{tok}' is not a child of the container's type",
    K.E_RESERVED_NAME: "the container name '0' is reserved for the root",
    K.E_DUPLICATE_CONTAINER: "container '{tok}' already exists",
    K.E_WRONG_CONTAINER_TYPE: "the container is not of type '{tok}'",
    K.E_CONTAINER_TIME_ORDER: "container events are not time-ordered: {event} at {time} "
                              "after an event at {limit}",
    K.E_TIME_ORDER: "trace is not time-ordered: {event} at {time} after an entity of the "
                    "same type and container at {limit}",
    K.E_POP_EMPTY: "PajePopState with no state pushed for this type and container",
    K.E_VARIABLE_NO_VALUE: "{event} on a variable that has no value yet",
    K.E_KEY_REUSED: "link key already used for another link of this type and container",
    K.E_LINK_VALUE: "link value '{tok}' differs from the value given at its other end",
    K.E_LINK_START_TYPE: "container '{tok}' is not of the start container type of the link type",
    K.E_LINK_END_TYPE: "container '{tok}' is not of the end container type of the link type",
    K.E_INCOMPLETE_LINKS: "{pending} incomplete link(s) at the end of container {container} "
                          "(first key {key})",
    K.E_EXTRA_CONFLICT: "a user-defined field differs between the two ends of a link",
    K.E_TOO_DEEP: "states nested more than 32767 deep",
}
#: Recoveries that move entities in time: their report line gives the span they
#: made (a mutated time of 4e9 moves every later event of its container there, and
#: the picture of the run is a sliver).
MOVED_IN_TIME = (K.E_CONTAINER_TIME_ORDER, K.E_TIME_ORDER)
#: What --lenient did for each kernel error code (report wording).
RECOVERY = {
    K.E_FIELD_COUNT: "lines with a wrong field count skipped",
    K.E_BAD_NUMBER: "lines with a malformed number skipped",
    K.E_UNKNOWN_CONTAINER: "events naming an unknown container skipped",
    K.E_AMBIGUOUS_CONTAINER: "events naming an ambiguous container skipped",
    K.E_UNKNOWN_TYPE: "events naming an unknown type skipped",
    K.E_WRONG_KIND: "events with a type of the wrong nature skipped",
    K.E_NOT_CHILD_TYPE: "events with a type foreign to their container skipped",
    K.E_RESERVED_NAME: "containers named '0' skipped",
    K.E_DUPLICATE_CONTAINER: "duplicate containers skipped",
    K.E_WRONG_CONTAINER_TYPE: "container destructions with a wrong type skipped",
    K.E_CONTAINER_TIME_ORDER: "late container destructions moved to the container's last time",
    K.E_TIME_ORDER: "out-of-order events moved to the time of the previous entity",
    K.E_POP_EMPTY: "PajePopState with nothing pushed ignored",
    K.E_VARIABLE_NO_VALUE: "Add/SubVariable on a variable with no value applied to 0",
    K.E_KEY_REUSED: "reused link keys started new links",
    K.E_LINK_VALUE: "link ends with different values skipped",
    K.E_LINK_START_TYPE: "links from a container of the wrong type skipped",
    K.E_LINK_END_TYPE: "links to a container of the wrong type skipped",
    K.E_INCOMPLETE_LINKS: "incomplete links dropped (as pj_dump -z)",
    K.E_EXTRA_CONFLICT: "links whose two ends disagree on a user field kept the first value",
}
KIND_WORD = {Kind.CONTAINER: "container", Kind.STATE: "state", Kind.EVENT: "event",
             Kind.VARIABLE: "variable", Kind.LINK: "link"}
WANT = {D.NEW_EVENT: Kind.EVENT, D.SET_VARIABLE: Kind.VARIABLE, D.ADD_VARIABLE: Kind.VARIABLE,
        D.SUB_VARIABLE: Kind.VARIABLE, D.START_LINK: Kind.LINK, D.END_LINK: Kind.LINK,
        D.CREATE_CONTAINER: Kind.CONTAINER}


def _reuse_error(first, source):
    """The TraceError of a reused link key at `first` (Spill.reused_keys's)."""
    return ReusedKey(first[0] or source, first[1], MESSAGES[K.E_KEY_REUSED],
                     lenient_reads=True)


class ReusedKey(TraceError):
    """A link key used again (the streamed read's check: found once)."""


def _pow2(n):
    return 1 << max(int(n) - 1, 1).bit_length()


@functools.lru_cache(maxsize=4096)  # traces repeat a few colours on many values
def parse_color(text):
    """'r g b [a]' or 'r,g,b[,a]' (quotes allowed) -> RGBA tuple in [0, 1]."""
    parts = text.strip('"').replace(",", " ").split()
    try:
        rgba = [float(p) for p in parts]
    except ValueError:
        rgba = []
    if len(rgba) not in (3, 4):
        raise ValueError(f"could not understand the color '{text}'")
    return tuple(rgba) + (1.0,) * (4 - len(rgba))


class SimState:
    """All arrays of a simulation in progress, plus the Python-side tables."""

    def __init__(self, lenient=False):
        self.lenient = lenient
        self.a = {}
        self.istate = np.zeros(K.N_ISTATE, I8)
        self.istate[K.I_LENIENT] = int(lenient)
        self.fstate = np.zeros(3, F8)  # last event time, time-order limit, latest time
        self.recov = np.zeros(K.N_ERRORS, I8)
        self.recov_line = np.zeros(K.N_ERRORS, I8)
        self.toks_s = np.zeros(K.MAXTOK, I8)
        self.toks_e = np.zeros(K.MAXTOK, I8)
        self.tokid = np.zeros(K.MAXTOK, I4)
        self.tcache = np.ones((K.TCACHE, 2), I8)  # (K.process: names seen lately)
        self.extra_names = []
        # a run of lines for Python, tokenized and interned by K.scan_python
        self.b_line, self.b_first = np.zeros(BATCH, I8), np.zeros(BATCH + 1, I8)
        self.b_s, self.b_e = np.zeros(BATCH_TOKENS, I8), np.zeros(BATCH_TOKENS, I8)
        self.b_code = np.zeros(BATCH_TOKENS, I4)
        for name, (_, arrays, index, extra) in GROUPS.items():
            for arr, dt in arrays.items():
                self.a[arr] = np.empty(INITIAL, dt)
            if index:
                self.a[index[0]] = np.full(_pow2(4 * INITIAL), K.EMPTY, I4)
            if extra:
                self.a[extra] = np.empty((INITIAL, 0), I4)
        # Python-side tables: types and definitions
        self.type_kind, self.type_parent, self.type_name, self.type_alias = [], [], [], []
        self.type_start, self.type_end, self.type_color = [], [], []
        self.type_arrays = {"kind": np.empty(0, np.int8), "parent": np.empty(0, I4),
                            "start": np.empty(0, I4), "end": np.empty(0, I4)}
        self.types_synced = 0                # types copied into type_arrays
        self.def_table = D.DefTable()
        self.value_color = {}
        self.header = D.HeaderParser(legacy_names=lenient)
        self.defs = []                       # index -> EventDef
        self.notes = []                      # recoveries and remarks made in Python
        self.files = []                      # every file read (PajeTraceFile included)
        self.ids = {}                        # group -> (numbers of the rows kept by
        #                                      hand_over, the next number)
        self.spill = None                    # (a spill.Spill, rows) or None
        self.held_after = 0                  # rows held after the last hand-over
        self._root()

    # -- set-up --------------------------------------------------------------
    def _root(self):
        zero = self.intern(b"0")
        self._add_type(Kind.CONTAINER, -1, zero, zero)
        a = self.a
        a["cont_parent"][0], a["cont_type"][0], a["cont_name"][0] = -1, 0, zero
        a["cont_alias"][0], a["cont_start"][0], a["cont_end"][0] = zero, 0.0, np.nan
        a["cont_destroyed"][0], a["cont_first_slot"][0] = 0, -1
        a["cont_first_child"][0], a["cont_next_sibling"][0] = -1, -1
        a["tok2cont_id"][zero] = a["tok2cont_name"][zero] = 0
        self.istate[K.I_NCONT] = 1

    def kernel_args(self):
        """The groups of arrays K.process takes (tuples, in K.ARGS's order)."""
        kind, nfields, pos, extra, isname = self.def_table.arrays()
        n = self._sync_types()
        ty = self.type_arrays
        arrays = dict(self.a, def_kind=kind, def_nfields=nfields, def_pos=pos, def_extra=extra,
                      def_isname=isname, tokid=self.tokid, tcache=self.tcache,
                      ty_kind=ty["kind"][:n], ty_parent=ty["parent"][:n],
                      ty_start=ty["start"][:n], ty_end=ty["end"][:n], istate=self.istate,
                      fstate=self.fstate, recov=self.recov, recov_line=self.recov_line)
        return [tuple(arrays[name] for name in names) for names in K.ARGS.values()]

    def _sync_types(self):
        """Copy the types defined since the last call into the kernel's columns (grown by
        doubling, so a run of definitions costs what it adds); returns the type count."""
        ty, m, n = self.type_arrays, self.types_synced, len(self.type_kind)
        if n > len(ty["kind"]):
            for k, col in ty.items():
                ty[k] = np.empty(max(n, 2 * len(col)), col.dtype)
                ty[k][:m] = col[:m]
        for k, col in (("kind", self.type_kind), ("parent", self.type_parent),
                       ("start", self.type_start), ("end", self.type_end)):
            ty[k][m:n] = col[m:n]
        self.types_synced = n
        return n

    # -- growth ----------------------------------------------------------------
    def reserve(self, line_bytes, groups=GROUPS):
        """Grow every group (of `groups`) that could overflow while handling one line."""
        margin = {"tokens": D.MAX_FIELDS + 1, "arena": line_bytes, "karena": line_bytes}
        for name in groups:
            count_slot, arrays, index, extra = GROUPS[name]
            n = int(self.istate[count_slot])
            need = n + margin.get(name, 1)
            first = next(iter(arrays))
            cap = len(self.a[first])
            if need > cap:
                new = max(need, int(cap * GROWTH))
                for arr in list(arrays) + ([extra] if extra else []):
                    x = self.a[arr]
                    x.resize((new,) + x.shape[1:], refcheck=False)
            if index and 2 * need > len(self.a[index[0]]):
                slots = np.full(_pow2(4 * need), K.EMPTY, I4)
                rows = np.arange(n)
                if name == "links":  # links superseded by a reused key stay out
                    rows = np.flatnonzero(self.a["ln_done"][:n] != 2)
                K.rehash(slots, self.a[index[1]], rows)
                self.a[index[0]] = slots

    def add_extra_names(self, names):
        new = [n for n in names if n not in self.extra_names]
        if not new:
            return
        if len(self.extra_names) + len(new) > D.MAX_EXTRA_NAMES:
            raise ValueError(f"more than {D.MAX_EXTRA_NAMES} user-defined field names")
        self.extra_names += new
        for _, _, _, extra in GROUPS.values():
            if extra:
                x = self.a[extra]
                grown = np.full((x.shape[0], len(self.extra_names)), -1, I4)
                grown[:, :x.shape[1]] = x
                self.a[extra] = grown

    # -- names -----------------------------------------------------------------
    def intern(self, b):
        a, ist = self.a, self.istate
        n = int(ist[K.I_NTOK])
        if 2 * (n + 1) > len(a["tok_slots"]) or n + 1 > len(a["tk_start"]) or \
                int(ist[K.I_NARENA]) + len(b) > len(a["arena"]):
            self.reserve(len(b), NAMES)  # room for one token and its bytes
        return int(K.intern(
            np.frombuffer(b, U8), 0, len(b), self.istate, a["arena"], a["tk_start"],
            a["tk_len"], a["tk_hash"], a["tok_slots"], a["tok2cont_id"], a["tok2cont_name"],
            a["tok2type_id"], a["tok2type_name"], a["tok2def"]))

    def token_text(self, t):
        s = self.a["tk_start"][t]
        return self.a["arena"][s:s + self.a["tk_len"][t]].tobytes().decode("utf-8", "replace")

    # -- types and values (Python-side events) --------------------------------
    def _add_type(self, kind, parent, name, alias, start=-1, end=-1, color=None):
        t = len(self.type_kind)
        self.type_kind.append(int(kind))
        self.type_parent.append(parent)
        self.type_name.append(name)
        self.type_alias.append(alias)
        self.type_start.append(start)
        self.type_end.append(end)
        self.type_color.append(color)
        ident = alias if alias >= 0 else name
        self.a["tok2type_id"][ident] = t
        prev = self.a["tok2type_name"][name]
        self.a["tok2type_name"][name] = t if prev == K.EMPTY else K.AMBIGUOUS
        return t

    def _type_ref(self, d, words, codes, f, what):
        t = codes[d.pos[f]]
        x = self.a["tok2type_id"][t]
        if x == K.EMPTY:
            x = self.a["tok2type_name"][t]
        if x < 0:
            raise ValueError(f"unknown {what} '{words[d.pos[f]].decode('utf-8', 'replace')}'")
        return int(x)

    def define(self, d, words, codes):
        """Apply a PajeDefine* event (fields as bytes and their name codes, by
        definition position)."""
        def field(f):
            p = d.pos[f]
            return words[p] if p >= 0 else None
        name, alias = field(D.F_NAME), field(D.F_ALIAS)
        name_t = codes[d.pos[D.F_NAME]]
        alias_t = codes[d.pos[D.F_ALIAS]] if alias else -1
        ident = alias if alias else name
        if d.kind == D.DEF_ENTITY_VALUE:
            ty = self._type_ref(d, words, codes, D.F_TYPE, "type")
            if self.type_kind[ty] in (Kind.CONTAINER, Kind.VARIABLE):
                raise ValueError(f"values cannot be defined for the "
                                 f"{KIND_WORD[self.type_kind[ty]]} type "
                                 f"'{field(D.F_TYPE).decode('utf-8', 'replace')}'")
            a = self.a
            look = (a["val_type"], a["val_name"], a["val_alias"], a["val_hash"], a["val_slots"])
            v = int(K.define_value(ty, name_t, alias_t, self.istate, *look))
            if v < 0:
                t = alias_t if alias_t >= 0 and \
                    K.find_value(ty, alias_t, False, self.istate, *look) >= 0 else name_t
                raise ValueError(f"value '{self.token_text(t)}' is already defined "
                                 "for this type")
            color = field(D.F_COLOR)
            if color:
                self.value_color[v] = parse_color(color.decode("utf-8", "replace"))
            return
        if d.kind == D.DEF_CONTAINER_TYPE and name == b"0":
            raise ValueError("the type name '0' is reserved")
        parent = self._type_ref(d, words, codes, D.F_TYPE, "container type")
        if self.type_kind[parent] != Kind.CONTAINER:
            raise ValueError(f"'{field(D.F_TYPE).decode('utf-8', 'replace')}' is not a "
                             "container type")
        if self.a["tok2type_id"][alias_t if alias else name_t] >= 0:
            raise ValueError(f"type '{ident.decode('utf-8', 'replace')}' is already defined")
        kind = TYPE_KIND[d.kind]
        start = end = -1
        if kind == Kind.LINK:
            start = self._type_ref(d, words, codes, D.F_START_CONTAINER_TYPE,
                                   "start container type")
            end = self._type_ref(d, words, codes, D.F_END_CONTAINER_TYPE, "end container type")
        color = field(D.F_COLOR)
        color = parse_color(color.decode("utf-8", "replace")) if color else None
        self._add_type(kind, parent, name_t, alias_t, start, end, color)

    def header_line(self, words, line):
        d = self.header.current
        self.header.feed(words, line)
        if d is not None and d.complete:  # its %EndEventDef
            d.index = len(self.defs)
            self.defs.append(d)
            self.add_extra_names([n for n, _ in d.extra])
            self.def_table.add(d, {n: i for i, n in enumerate(self.extra_names)})
            self.a["tok2def"][self.intern(d.ident)] = d.index

    # -- errors ------------------------------------------------------------------
    def lenient_reads(self):
        """Does the lenient mode read past the error the kernel stopped on?"""
        return int(self.istate[K.I_ERR]) in RECOVERY

    def error_message(self, buf):
        ist = self.istate
        code = int(ist[K.I_ERR])
        s, e = int(ist[K.I_ERR_S]), int(ist[K.I_ERR_E])
        tok = bytes(buf[s:e]).decode("utf-8", "replace") if 0 <= s < e else ""
        pos = int(ist[K.I_POS])
        words = self.line_words(buf, pos)
        d = None
        if words and code != K.E_UNKNOWN_EVENT:
            t = self.a["tok2def"][self.intern(words[0])]
            d = self.defs[t] if t >= 0 else None
        info = dict(tok=tok, ntok=len(words), time="?", limit=f"{self.fstate[1]:.9g}",
                    event=D.EVENT_NAMES[d.kind] if d else "event",
                    defline=d.line if d else "?", nfields=d.nfields if d else "?",
                    want=KIND_WORD.get(WANT.get(d.kind, Kind.STATE)) if d else "")
        if d and d.pos[D.F_TIME] >= 0 and len(words) == d.nfields:
            info["time"] = words[d.pos[D.F_TIME]].decode("utf-8", "replace")
        if code == K.E_INCOMPLETE_LINKS:
            info.update(self.pending_links(int(self.a["work"][0])))
        return MESSAGES[code].format(**info)

    def pending_links(self, c):
        a = self.a
        n = int(self.istate[K.I_NLINK])
        rows = np.flatnonzero((a["ln_cont"][:n] == c) & (a["ln_done"][:n] == 0))
        key = self.link_keys(rows[:1])[1].tobytes().decode("utf-8", "replace") \
            if len(rows) else "?"
        return dict(pending=len(rows), container=self.token_text(a["cont_name"][c]), key=key)

    def scan(self, buf, pos, end):
        """The run of lines for Python from `pos` (K.scan_python): (lines, position
        after them, whether to grow first, line numbers, token bounds and codes)."""
        a, nval = self.a, int(self.istate[K.I_NVAL])
        kind, _, _, _, isname = self.def_table.arrays()
        n, after, grow = K.scan_python(
            buf, pos, end, self.toks_s, self.toks_e, self.istate, kind, isname, a["arena"], a["tk_start"], a["tk_len"], a["tk_hash"],
            a["tok_slots"], a["tok2cont_id"], a["tok2cont_name"], a["tok2type_id"],
            a["tok2type_name"], a["tok2def"], min(len(a["val_type"]), len(a["val_slots"]) // 2) - nval,
            self.b_line, self.b_first, self.b_s, self.b_e, self.b_code)
        m = int(self.b_first[n])
        return (n, int(after), grow, self.b_line[:n].tolist(), self.b_first[:n + 1].tolist(),
                self.b_s[:m].tolist(), self.b_e[:m].tolist(), self.b_code[:m].tolist())

    def line_words(self, buf, pos):
        n, _, _ = K.tokenize(buf, pos, len(buf), self.toks_s, self.toks_e)
        return self.words(buf, n)

    def words(self, buf, n):
        """The fields of the line just tokenized (its first `n` tokens)."""
        n = min(n, len(self.toks_s))
        return [bytes(buf[s:e]) for s, e in zip(self.toks_s[:n].tolist(),
                                                self.toks_e[:n].tolist())]

    # -- bounded memory (spill.py) ------------------------------------------------
    def held(self):
        """Entity rows held."""
        return sum(int(self.istate[GROUPS[TRACE_COLUMNS[t][0]][0]]) for t in ENTITY_KINDS)

    def hand_over(self, final=False):
        """Take out the entity rows that can no longer change, keeping (renumbered)
        the open states, the pending links and each living (container, type)'s last
        row, which the time-order checks read (`final`, after `finish`'s destroy: keep
        none).
        Returns (table -> its columns: SCHEMA's but a link's key, `extra.NAME` of every
        field known and `row`, the rows' numbers in the order of the Trace `build`
        would make, a link's counting the links dropped before it, and a link's
        `key_length`; the links' keys end to end; the numbers of the links dropped,
        never completed; `leaving`, every link taken out, handed or dropped: its
        `row`, `container`, `type`, `hash` (of those and its key), `line` (of its
        first event), `superseded` (by a later link of its key, lenient),
        `key_length` and `keys` end to end). A link key is checked for reuse among the
        links held: the spill checks the others (spill.Spill.reused_keys)."""
        a, ist = self.a, self.istate
        ns = int(ist[K.I_NSLOT])
        kinds = np.array(self.type_kind, np.int8)[a["slot_type"][:ns]]
        live = a["cont_destroyed"][a["slot_cont"][:ns]] == 0  # (a destroyed one's: unread)
        out, dropped, keys, leaving = {}, np.empty(0, I8), None, None
        for table in ENTITY_KINDS:
            group, arrays, extra = TRACE_COLUMNS[table]
            count = GROUPS[group][0]
            n = int(ist[count])
            rows = self.row_ids(group, n)
            last = a["slot_last"][:ns][(kinds == ENTITY_KINDS[table]) & live]
            keep = np.zeros(n, bool)
            if not final:
                keep[last[last >= 0]] = True
                if table == "states":
                    keep |= np.isnan(a["st_end"][:n])
            if table == "links":
                done = a["ln_done"][:n]
                gone = (done == 0) & (final | (a["cont_destroyed"][a["ln_cont"][:n]] == 1))
                keep |= (done == 0) & ~gone
                dropped = rows[gone]
                handed = ~keep & ~gone
                gone_or_handed = np.flatnonzero(~keep)
                leaving = {"row": rows[gone_or_handed], **{
                    c: a[x][:n][gone_or_handed] for c, x in (
                        ("container", "ln_cont"), ("type", "ln_type"), ("hash", "ln_hash"),
                        ("line", "ln_line"))},
                    "superseded": done[gone_or_handed] == 2}
                leaving["key_length"], leaving["keys"] = self.link_keys(gone_or_handed)
            else:
                handed = ~keep
            at = np.flatnonzero(handed)
            cols = dict(zip(SCHEMA[table], (a[x][:n][at] for x in arrays)))
            if table == "links":
                cols["key_length"], keys = self.link_keys(at)
            cols.update({f"extra.{f}": a[extra][at, i] for i, f in enumerate(self.extra_names)})
            cols["row"] = rows[at]
            out[table] = cols
            self._compact(table, np.flatnonzero(keep), rows, kinds)
        return out, keys, dropped, leaving

    def spill_if_full(self):
        """Hand over (to self.spill's hand) when the rows held reach its rows, or twice
        what the last hand-over kept."""
        hand, rows = self.spill
        if self.held() >= max(rows, 2 * self.held_after):
            hand(*self.hand_over())
            self.held_after = self.held()

    def enter_file(self, path):
        """Tell the spill that the links from here on are `path`'s (its lines)."""
        if self.spill:
            ids, base = self.ids.get("links", ((), 0))
            self.spill[0].files.append((base + int(self.istate[K.I_NLINK]) - len(ids), path))

    def row_ids(self, group, n):
        """The numbers of the `n` rows held of `group`."""
        ids, base = self.ids.get(group, (np.empty(0, I8), 0))
        return np.concatenate([ids, np.arange(base, base + n - len(ids), dtype=I8)])

    def _compact(self, table, keep, rows, kinds):
        """Keep only the rows `keep` (increasing; `rows` their numbers) of `table`'s
        group, renumbering what points at them (states below, stacks' tops, the last
        rows of the slots, whose types' `kinds` are given, the link index)."""
        a, ist = self.a, self.istate
        group, _, _ = TRACE_COLUMNS[table]
        count, arrays, _, extra = GROUPS[group]
        n, k = int(ist[count]), len(keep)
        for arr in list(arrays) + [extra]:
            a[arr][:k] = a[arr][keep]
        ist[count] = k
        ids, base = self.ids.get(group, (rows[:0], 0))
        self.ids[group] = rows[keep], base + n - len(ids)
        new = np.full(n + 1, -1, I4)  # (new[-1]: none)
        new[keep] = np.arange(k, dtype=I4)
        ns = len(kinds)
        mine = kinds == ENTITY_KINDS[table]
        a["slot_last"][:ns][mine] = new[a["slot_last"][:ns][mine]]
        if table == "states":
            a["st_below"][:k] = new[a["st_below"][:k]]
            a["slot_top"][:ns][mine] = new[a["slot_top"][:ns][mine]]
        if table == "links":
            K.rehash(a["link_slots"], a["ln_hash"], np.flatnonzero(a["ln_done"][:k] != 2))
            lengths, keys = self.link_keys(np.arange(k))  # (their keys, end to end)
            a["karena"][:len(keys)] = keys
            a["ln_kstart"][:k] = np.cumsum(lengths) - lengths
            ist[K.I_NKARENA] = len(keys)

    # -- the end ---------------------------------------------------------------
    def finish(self, source):
        """Close everything; the arguments of Trace.from_columns (`build`). Strict:
        at the time of the last event, as PajeNG does; lenient: at the latest time seen."""
        a = self.a
        end = max(self.fstate[0], self.fstate[2]) if self.lenient else self.fstate[0]
        K.destroy(0, end, self.lenient, a["work"], self.istate, self.recov,
                  self.recov_line, np.array(self.type_kind, np.int8), a["cont_destroyed"],
                  a["cont_end"], a["cont_first_slot"], a["cont_first_child"],
                  a["cont_next_sibling"], a["slot_type"], a["slot_last"], a["slot_top"],
                  a["slot_next"], a["slot_pending"], a["st_end"], a["st_below"], a["vr_end"])
        if self.istate[K.I_ERR] == K.E_INCOMPLETE_LINKS:
            raise TraceError(source, "end", MESSAGES[K.E_INCOMPLETE_LINKS].format(
                **self.pending_links(int(a["work"][0]))), lenient_reads=True)
        if self.spill:
            self.spill[0](*self.hand_over(final=True))
            self._unseen_reuse(source)
        return self.build(source)

    def _unseen_reuse(self, source):
        """The link keys reused after their link was handed over (spill.Spill.
        reused_keys), as the whole read finds them: strict, its error at the first;
        lenient, counted (the first place: the earlier line, of one file)."""
        count, first = self.spill[0].reused_keys()
        if not count:
            return
        if not self.lenient:
            raise _reuse_error(first, source)
        line, c = first[1], K.E_KEY_REUSED
        self.recov_line[c] = min(int(self.recov_line[c]), line) if self.recov[c] else line
        self.recov[c] += count

    def earlier_reuse(self, error, source):
        """The error a strict read stops on: `error`, or where the read streams, the
        first reuse of a link key that the simulation did not see (made before
        `error`, it comes first, as in the whole read)."""
        if self.lenient or not self.spill or not self.spill[0].keys or \
                isinstance(error, ReusedKey):
            return error  # (none handed over yet: none reused unseen; or found already)
        try:
            self.spill[0](*self.hand_over(final=True))
            count, first = self.spill[0].reused_keys()
        except (MemoryError, OSError):
            return error
        return _reuse_error(first, source) if count else error

    def _take(self, group, arrays, keep=None):
        """A group's arrays trimmed to its row count (and to the rows `keep`)."""
        n = int(self.istate[GROUPS[group][0]])
        out = []
        for arr in arrays:
            x = self.a.pop(arr)
            x.resize((n,) + x.shape[1:], refcheck=False)
            out.append(x if keep is None else x[keep])
        return out

    def link_keys(self, rows):
        """(lengths, bytes end to end) of the keys of the held links `rows`."""
        a = self.a
        lengths = a["ln_klen"][rows]
        out = np.empty(int(lengths.sum()), U8)
        K.gather_bytes(a["karena"], a["ln_kstart"][rows], lengths, out)
        return lengths, out

    def build(self, source):
        """The arguments of Trace.from_columns for what was simulated: the names are
        the tokens', then each link's key (a link's key column: its own)."""
        a = self.a
        nl = int(self.istate[K.I_NLINK])
        done = a["ln_done"][:nl] > 0
        keep = None if done.all() else np.flatnonzero(done)  # lenient: incomplete links go
        if keep is None:  # (the keys of the links held, in their order)
            key_lengths, keys = a["ln_klen"][:nl].copy(), a.pop("karena")
            keys.resize(int(self.istate[K.I_NKARENA]), refcheck=False)
        else:
            key_lengths, keys = self.link_keys(keep)
        columns, extra = {}, {}
        for table, (group, arrays, extra_arr) in TRACE_COLUMNS.items():
            cols = self._take(group, arrays + [extra_arr], keep if table == "links" else None)
            extra_cols = cols.pop()
            extra[table] = {name: np.ascontiguousarray(extra_cols[:, i])
                            for i, name in enumerate(self.extra_names)
                            if (extra_cols[:, i] >= 0).any()}
            columns[table] = dict(zip(SCHEMA[table], cols))
        nt = int(self.istate[K.I_NTOK])
        columns["links"]["key"] = np.arange(nt, nt + len(key_lengths), dtype=I4)
        nv = int(self.istate[K.I_NVAL])
        columns["values"] = {"type": a["val_type"][:nv].copy(), "name": a["val_name"][:nv].copy(),
                             "alias": a["val_alias"][:nv].copy()}
        columns["types"] = {"kind": self.type_kind, "parent": self.type_parent,
                            "name": self.type_name, "alias": self.type_alias,
                            "start_type": self.type_start, "end_type": self.type_end}
        type_colors = np.full((len(self.type_kind), 4), np.nan, np.float32)
        for t, c in enumerate(self.type_color):
            if c:
                type_colors[t] = c
        value_colors = np.full((nv, 4), np.nan, np.float32)
        for v, c in self.value_color.items():
            value_colors[v] = c
        na = int(self.istate[K.I_NARENA])
        offsets = np.empty(nt + len(key_lengths) + 1, I8)
        offsets[:nt] = a["tk_start"][:nt]
        offsets[nt] = na
        np.cumsum(key_lengths, out=offsets[nt + 1:])
        offsets[nt + 1:] += na
        arena = a.pop("arena")
        arena.resize(na + len(keys), refcheck=False)
        arena[na:] = keys
        del keys
        cont = columns["containers"]
        span = f" (the trace spans {cont['start'][0]:.9g} .. {cont['end'][0]:.9g})"
        report = [(RECOVERY[c] + (span if c in MOVED_IN_TIME else ""), int(self.recov[c]),
                   int(self.recov_line[c]))
                  for c in range(K.N_ERRORS) if self.recov[c]] + self.notes
        if self.header.legacy_used:
            report.insert(0, ("legacy field names accepted (as pj_dump -n)",
                              self.header.legacy_used, self.header.legacy_line))
        self.a = {}
        return {"names": Names(arena, offsets), "columns": columns, "extra": extra,
                "type_colors": type_colors, "value_colors": value_colors, "source": source,
                "report": report, "files": self.files}
