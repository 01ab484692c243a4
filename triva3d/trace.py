"""The Trace store: one numpy column per field, one table per entity kind.

Names are interned: every string column holds integer codes into `Trace.names`.
Names keep the bytes written in the trace (quotes included), as PajeNG does; use
`Names.display` for a label without the quotes. Time columns are float64, in the
trace's `time_unit` (seconds unless its producer wrote another unit).
"""
from collections import namedtuple
from enum import IntEnum
from typing import Callable, NamedTuple

import numpy as np

from .units import TIME_UNITS


class Kind(IntEnum):
    """Nature of a Pajé type."""
    CONTAINER = 0
    STATE = 1
    EVENT = 2
    VARIABLE = 3
    LINK = 4


def _unquote(s):
    return s[1:-1] if len(s) >= 2 and s[0] == s[-1] == '"' else s


class Names:
    """Interned strings: bytes in one arena, `offsets[i]:offsets[i+1]` is name i."""

    def __init__(self, arena, offsets):
        self.arena = np.asarray(arena, dtype=np.uint8)
        self.offsets = np.asarray(offsets, dtype=np.int64)

    @classmethod
    def of(cls, strings):
        """The name table of `strings` (code i is strings[i])."""
        data = [s.encode("utf-8", "replace") for s in strings]
        offsets = np.cumsum([0] + [len(b) for b in data]).astype(np.int64)
        return cls(np.frombuffer(b"".join(data), np.uint8), offsets)

    def __len__(self):
        return len(self.offsets) - 1

    def extended(self, words):
        """These names with `words` appended: (the new Names, the first new code)."""
        more = Names.of(words)
        return Names(np.r_[self.arena, more.arena], np.r_[self.offsets,
                                                          self.offsets[-1] + more.offsets[1:]]), \
            len(self)

    def raw(self, i):
        return self.arena[self.offsets[i]:self.offsets[i + 1]].tobytes()

    def __getitem__(self, i):
        """Name i as written in the trace (invalid UTF-8 replaced)."""
        return self.raw(i).decode("utf-8", "replace")

    def display(self, i):
        """Name i for people: without the surrounding double quotes."""
        return _unquote(self[i])

    def texts(self, codes):
        """Names `codes` as written (a list; `self[i]` of each)."""
        codes = np.asarray(codes, np.int64)
        starts, ends = self.offsets[codes].tolist(), self.offsets[codes + 1].tolist()
        arena = memoryview(self.arena)
        return [bytes(arena[a:b]).decode("utf-8", "replace") for a, b in zip(starts, ends)]

    def displays(self, codes):
        """`display` of many names at once (a list)."""
        return [_unquote(s) for s in self.texts(codes)]

    def lookup(self, text):
        """All codes whose name is `text` (as written, quotes included)."""
        b = text.encode()
        lens = np.diff(self.offsets)
        return [int(i) for i in np.flatnonzero(lens == len(b)) if self.raw(i) == b]


class Table:
    """Columns of equal length; `table[i]` is a thin row view, `table.col` a column.

    `extra` maps user-defined field names to name-code columns (-1: not given).
    """

    def __init__(self, name, columns, extra=None):
        self._name = name
        self.columns = dict(columns)
        self.extra = dict(extra or {})
        self._row = namedtuple(name.capitalize() + "Row", list(self.columns))
        lengths = {len(c) for c in self.columns.values()} | {len(c) for c in self.extra.values()}
        if len(lengths) > 1:
            raise ValueError(f"{name}: columns of different lengths {lengths}")
        for c in list(self.columns.values()) + list(self.extra.values()):
            c.flags.writeable = False  # a Trace is immutable once simulated

    def __getattr__(self, key):
        try:
            return self.__dict__["columns"][key]
        except KeyError:
            raise AttributeError(key) from None

    def __len__(self):
        return len(next(iter(self.columns.values())))

    def __getitem__(self, i):
        return self._row(*(c[i] for c in self.columns.values()))

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    @property
    def nbytes(self):
        return sum(c.nbytes for c in self.columns.values()) + sum(c.nbytes for c in self.extra.values())


def depth_of(parent):
    """Depth of every node of a tree given by `parent` (-1 for a root): the one
    depth function of the package. Pointer doubling (list ranking): each round
    adds the distance to the node's jump target and doubles the jump, so a tree of
    depth D takes log2(D) passes whatever the nodes' order (one pass per level took
    5e9 steps on a chain of 1e5 containers)."""
    up = np.asarray(parent, np.int64).copy()
    depth = (up >= 0).astype(np.int64)
    for _ in range(64):
        has = np.flatnonzero(up >= 0)
        if not len(has):
            return depth.astype(np.int32)
        target = up[has]
        depth[has] += depth[target]   # fancy indexing reads before it writes: synchronous
        up[has] = up[target]
    raise ValueError("a parent cycle")


#: Column layout of every table: name -> (column -> dtype). Kept in one place so
#: the simulator, the cache and the tests agree.
#: The entity tables, and the kind of their types.
ENTITY_KINDS = {"states": Kind.STATE, "links": Kind.LINK, "variables": Kind.VARIABLE,
                "events": Kind.EVENT}
SCHEMA = {
    "types": {"kind": np.int8, "parent": np.int32, "name": np.int32, "alias": np.int32,
              "start_type": np.int32, "end_type": np.int32},
    "values": {"type": np.int32, "name": np.int32, "alias": np.int32},
    "containers": {"parent": np.int32, "type": np.int32, "name": np.int32, "alias": np.int32,
                   "start": np.float64, "end": np.float64},
    "states": {"container": np.int32, "type": np.int32, "value": np.int32,
               "start": np.float64, "end": np.float64, "imbrication": np.int16},
    "links": {"container": np.int32, "type": np.int32, "value": np.int32,
              "start_container": np.int32, "end_container": np.int32,
              "start": np.float64, "end": np.float64, "key": np.int32},
    "variables": {"container": np.int32, "type": np.int32,
                  "start": np.float64, "end": np.float64, "value": np.float64},
    "events": {"container": np.int32, "type": np.int32, "value": np.int32, "time": np.float64},
}


class Fields:
    """The user-defined fields of entity tables handed over in parts (`extra.NAME`
    columns, spill.py): per table, in the order first met, those given a value."""

    def __init__(self):
        self.order = {name: {} for name in ENTITY_KINDS}  # (dicts: ordered, found at once)
        self.valued = {name: set() for name in ENTITY_KINDS}

    def see(self, name, columns):
        """Note the fields of table `name`'s part `columns`."""
        for c, v in columns.items():
            if c.startswith("extra."):
                field = c[len("extra."):]
                self.order[name].setdefault(field)
                if len(v) and v.max() >= 0:
                    self.valued[name].add(field)

    def of(self):
        """Table -> the fields given a value in it, in the order first met."""
        return {name: [f for f in order if f in self.valued[name]]
                for name, order in self.order.items()}


#: Columns that index another table (-1 allowed where marked), for `check`.
REFERENCES = {
    ("types", "parent"): ("types", True), ("types", "start_type"): ("types", True),
    ("types", "end_type"): ("types", True), ("values", "type"): ("types", False),
    ("containers", "parent"): ("containers", True), ("containers", "type"): ("types", False),
    ("states", "container"): ("containers", False), ("states", "type"): ("types", False),
    ("states", "value"): ("values", False), ("links", "container"): ("containers", False),
    ("links", "type"): ("types", False), ("links", "value"): ("values", False),
    ("links", "start_container"): ("containers", False),
    ("links", "end_container"): ("containers", False),
    ("variables", "container"): ("containers", False), ("variables", "type"): ("types", False),
    ("events", "container"): ("containers", False), ("events", "type"): ("types", False),
    ("events", "value"): ("values", False)}
NAME_COLUMNS = ("name", "alias", "key")
TIME_COLUMNS = ("start", "end", "time")


def type_spans(trace):
    """(n types, 2): per type, the earliest start (an event's time) and the latest
    end of its entities (NaN for both where it has none)."""
    out = np.full((len(trace.types), 2), np.nan)
    for table, first, last in (("states", "start", "end"), ("links", "start", "end"),
                               ("variables", "start", "end"), ("events", "time", "time")):
        t = getattr(trace, table)
        for ty in np.unique(t.type):
            of = t.type == ty  # (a mask a type: no copy of the times)
            out[ty] = (np.min(getattr(t, first), where=of, initial=np.inf),
                       np.max(getattr(t, last), where=of, initial=-np.inf))
    return out


def check(trace):
    """The first broken invariant of `trace` as a sentence, or None: what compiled
    code relies on (column types and lengths, indices in range, the root first,
    parents before children, known kinds) and what every load guarantees (times
    finite, start <= end, imbrication >= 0). A cached Trace is untrusted input."""
    names = trace.names
    off = names.offsets
    if off.ndim != 1 or not len(off) or off[0] != 0 or off[-1] != len(names.arena) or \
            (np.diff(off) < 0).any():
        return "the name table's offsets are not increasing within its bytes"
    sizes = {t: len(getattr(trace, t)) for t in SCHEMA}
    for table, cols in SCHEMA.items():
        t = getattr(trace, table)
        for c, dtype in cols.items():
            col = t.columns.get(c)
            if col is None or col.dtype != dtype or col.ndim != 1:
                return f"{table}.{c} is missing or not {np.dtype(dtype)}"
            ref = REFERENCES.get((table, c))
            if ref is not None or c in NAME_COLUMNS:
                hi = sizes[ref[0]] if ref is not None else len(names)
                lo = -1 if ref is None or ref[1] else 0
                if len(col) and (col.min() < lo or col.max() >= hi):
                    return f"{table}.{c} holds an index outside {lo}..{hi - 1}"
            if c in TIME_COLUMNS and not np.isfinite(col).all():
                return f"{table}.{c} holds a time that is not finite"
        if len(t.columns) != len(cols):
            return f"{table} has unknown columns"
        for name, col in t.extra.items():
            if col.dtype != np.int32 or (len(col) and (col.min() < -1 or col.max() >= len(names))):
                return f"{table}.{name} holds a name outside the name table"
        if "start" in cols and table != "containers" and (t.start > t.end).any():
            return f"{table} has an entity ending before it starts"
    ty, cont = trace.types, trace.containers
    if not sizes["types"] or not sizes["containers"] or cont.parent[0] != -1 or \
            cont.type[0] != 0 or ty.kind[0] != Kind.CONTAINER:
        return "the root container or type is not first"
    if ((ty.kind < 0) | (ty.kind > max(Kind))).any():
        return "a type has an unknown kind"
    rows = np.arange(sizes["containers"])
    if (cont.parent[1:] >= rows[1:]).any() or (cont.parent[1:] < 0).any():
        return "a container comes before its parent"
    trows = np.arange(sizes["types"])
    if (ty.parent[1:] >= trows[1:]).any():
        return "a type comes before its parent"
    for table, kind in ENTITY_KINDS.items():
        t = getattr(trace, table)
        if len(t) and (ty.kind[t.type] != kind).any():
            return f"{table} has an entity whose type is of another kind"
    if len(trace.states) and trace.states.imbrication.min() < 0:
        return "a state has a negative imbrication"
    if len(trace.type_colors) != sizes["types"] or len(trace.value_colors) != sizes["values"]:
        return "the colour tables do not match the types and values"
    if trace.time_unit not in TIME_UNITS:
        return "the time unit is not one of " + ", ".join(TIME_UNITS)
    return None


#: The types' extra field naming the class of a metric variable (OTF2's PAPI,
#: RUSAGE...): such variables are drawn only when chosen (analysis.roles).
METRIC_CLASS = "metric class"
#: Tables that carry user-defined extra fields.
ENTITY_TABLES = ("containers", "states", "links", "variables", "events")


def merged(report):
    """`report` entries (what, count, first) with one per what: counts summed,
    the first place kept."""
    out = {}
    for what, count, first in report:
        _, n, at = out.get(what, (what, 0, first))
        out[what] = (what, n + count, at)
    return list(out.values())


def report_line(what, count, first=None):
    """A report entry in words: 'WHAT: 3 times, the first at line 12' (`first`
    a line) or '..., the first in FILE: ...' (a place)."""
    times = "once" if count == 1 else f"{count} times"
    if first is None:
        return f"{what}: {times}"
    where = f"at line {first}" if isinstance(first, int) else f"in {first}"
    return f"{what}: {times}, {'' if count == 1 else 'the first '}{where}"


class Whole(NamedTuple):
    """What the whole run says that a part of it cannot: a Trace holding only some of
    its entities (a store read for one time window, or none of them: store.py) keeps
    it as `Trace.whole`, and what the scene's colours and columns, the bases' layouts
    and the communication graph count over every entity (colors.usage,
    analysis.roles, analysis.metrics, bases.appgraph) is read from it instead."""
    value_seconds: np.ndarray      # per value: seconds in its states
    value_counts: np.ndarray       # per value: its states, links, events (n, 3)
    type_counts: np.ndarray        # per type: its states, links, pieces or events
    type_deepest: np.ndarray       # per type: its states' deepest imbrication (-1: none)
    entity_containers: np.ndarray  # mask: containers with states, events, message ends
    state_pairs: np.ndarray        # analysis.roles.state_pairs
    variable_pairs: tuple          # analysis.roles.variable_pairs
    link_sizes: tuple              # analysis.metrics.link_sizes
    platform_types: np.ndarray     # mask over types: the platform's link types
    constant_types: np.ndarray     # mask over types: variables of one value a container
    type_spans: np.ndarray         # type_spans: per type, its first start and last end
    pairs: Callable                # pairs(window): bases.appgraph.count_pairs of the
    #                                messages meeting window (None: all)
    overview: np.ndarray           # analysis.overview's means in fine bins (bins, values)
    window: tuple                  # the window whose entities the part holds (): none
    drawn: "Drawn" = None          # a part read for one picture: what it thinned


class Drawn(NamedTuple):
    """What a part read for one picture (drawn.py) says of the entities it holds only
    some of: the ViewState it was read for (to_dict) and the level-of-detail bins;
    the states shown in the window and their values (the states it holds: those a
    texel shows); the values of the messages shown, and where they are bundled
    (None: it holds them all) the bundles, one message each in the part (its first),
    as dict(rows: those messages' rows in the part, a, b: the bundle's ends,
    count, bytes, start, end: its messages' mean times, bundled: (bundles,
    messages) before the busiest were kept)."""
    state: dict
    bins: int
    states: int
    state_values: np.ndarray
    link_values: np.ndarray
    bundles: dict = None


class Trace:
    """An immutable, simulated trace.

    Row 0 of `containers` is the root (name "0", type 0, parent -1); row 0 of
    `types` is the root container type. `type_colors` and `value_colors` are RGBA
    float32 arrays (NaN where the trace gave no colour). `report` lists what a
    lenient load recovered from, as (what, count, first) with `first` the line
    (or, as text, the place) of the first one; one entry per what. `other_records`
    counts the records of the source that the Trace does not hold, by kind.
    `time_unit` is the unit its times are in (units.TIME_UNITS), as the reader
    found it; `unit_note` says why, where it is not seconds. `from_cache`: read
    from a saved Trace, not parsed; `notes`: lines for people about this load
    (`unit_note` first). `whole`: a Whole where the trace holds only part of the
    run's entities, else None. Readers build it with `from_columns`.
    """

    def __init__(self, names, tables, type_colors, value_colors, source="", report=(),
                 files=(), other_records=None, time_unit="s", unit_note=None,
                 from_cache=False, notes=(), whole=None):
        self.names = names
        self.whole = whole
        self.time_unit, self.unit_note = time_unit, unit_note
        self.from_cache = from_cache
        self.notes = [unit_note] * bool(unit_note) + list(notes)
        self.source = source
        self.files = list(files) or [source]
        self.report = merged(report)
        self.other_records = dict(other_records or {})
        for key in SCHEMA:
            setattr(self, key, tables[key])
        self.type_colors = type_colors
        self.value_colors = value_colors
        self._children = None
        self._by_name = {}
        self._depth = None

    @classmethod
    def from_columns(cls, names, columns, extra=None, type_colors=None, value_colors=None,
                     **fields):
        """The Trace of `columns` (table -> column -> array-like, every column of
        SCHEMA), cast to SCHEMA's dtypes; `names` the Names its name codes index;
        `extra` (table -> field -> name codes) the user-defined fields; RGBA colours
        NaN where not given; `fields` the constructor's others (source, report...)."""
        tables = {table: Table(table, {c: np.asarray(columns[table][c], dtype)
                                       for c, dtype in cols.items()},
                               {k: np.asarray(v, np.int32)
                                for k, v in (extra or {}).get(table, {}).items()})
                  for table, cols in SCHEMA.items()}

        def colors(given, n):
            return np.full((n, 4), np.nan, np.float32) if given is None else given
        return cls(names, tables, colors(type_colors, len(tables["types"])),
                   colors(value_colors, len(tables["values"])), **fields)

    # -- hierarchy ---------------------------------------------------------
    @property
    def children_index(self):
        """CSR of the container tree: children of c are `order[offsets[c]:offsets[c+1]]`."""
        if self._children is None:
            parent = self.containers.parent
            n = len(parent)
            order = np.argsort(parent, kind="stable").astype(np.int32)
            order = order[parent[order] >= 0]
            offsets = np.searchsorted(parent[order], np.arange(n + 1)).astype(np.int64)
            self._children = (offsets, order)
        return self._children

    def children(self, c):
        offsets, order = self.children_index
        return order[offsets[c]:offsets[c + 1]]

    def subtree(self, rows):
        """Mask of the containers that are `rows` or below one of them."""
        parent = self.containers.parent
        chosen = np.zeros(len(parent), bool)
        chosen[rows] = True
        out = chosen.copy()
        up = parent.astype(np.int64)
        while (has := up >= 0).any():
            out[has] |= chosen[up[has]]
            up[has] = parent[up[has]]
        return out

    @property
    def depth(self):
        """Depth of every container (the root is 0)."""
        if self._depth is None:
            self._depth = depth_of(self.containers.parent)
        return self._depth

    def level(self, level=None):
        """Rows of the containers at `level`: a container type name, a depth (an int
        or a string of digits; 0 is the root), or None for the leaves. The one
        parser of hierarchy levels; raises OptionsError for a level that names
        nothing."""
        from .errors import OptionsError
        cont = self.containers
        if level is None:
            leaf = np.ones(len(cont), bool)
            leaf[cont.parent[cont.parent >= 0]] = False
            leaf[0] = len(cont) == 1
            return np.flatnonzero(leaf)
        if isinstance(level, (int, np.integer)) or str(level).strip().isdigit():
            rows = np.flatnonzero(self.depth == int(level))
            if not len(rows):
                raise OptionsError(f"{self.source}: no container at depth {int(level)} "
                                   f"(depths 0 to {int(self.depth.max())})")
            return rows
        types = [t for t in self.find("types", level) if self.types.kind[t] == Kind.CONTAINER]
        if not types:
            raise OptionsError(f"{self.source}: no container type named {level!r}")
        return np.flatnonzero(np.isin(cont.type, types))

    # -- names ---------------------------------------------------------------
    def find(self, table, name):
        """Rows of `table` ("containers", "types" or "values") whose display name
        is `name` (quotes as written not needed), in row order: the one name
        look-up of the package."""
        index = self._by_name.get(table)
        if index is None:
            codes = getattr(self, table).name
            uniq, inv = np.unique(codes, return_inverse=True)
            order = np.argsort(inv, kind="stable")
            bounds = np.searchsorted(inv[order], np.arange(len(uniq) + 1))
            index = {}
            for i, code in enumerate(uniq):
                index.setdefault(self.names.display(code), []).append(
                    order[bounds[i]:bounds[i + 1]])
            index = {k: np.sort(np.concatenate(v)) for k, v in index.items()}
            self._by_name[table] = index
        return index.get(name, np.zeros(0, np.int64))

    def search(self, table, text):
        """Rows of `table` whose display name holds `text` (in any case), in row
        order; the containers' root, which has no name of its own, is left out."""
        self.find(table, "")  # (the index of names)
        text = text.lower()
        hits = [rows for name, rows in self._by_name[table].items() if text in name.lower()]
        rows = np.sort(np.concatenate(hits)) if hits else np.zeros(0, np.int64)
        return rows[rows > 0] if table == "containers" else rows

    def display_name(self, table, row):
        """The display name of row `row` of `table` ("containers", "types", "values"):
        the one way to name a row for people (names as written: `names[code]`)."""
        return self.names.display(getattr(self, table).name[row])

    def display_names(self, table, rows=slice(None)):
        """`display_name` of many rows of `table` (default: all), as a list."""
        return self.names.displays(getattr(self, table).name[rows])

    def report_lines(self):
        """One line per kind of recovery of a lenient load (see report_line)."""
        return [f"recovered: {report_line(*r)}" for r in self.report]

    @property
    def name(self):
        """The trace's file name for titles (an OTF2 anchor with its folder's)."""
        import os
        base = os.path.basename(self.source)
        if base.endswith(".otf2"):
            return os.path.join(os.path.basename(os.path.dirname(self.source)), base)
        return base

    def unit(self, override=None):
        """The unit its times read in: `override` (a person's choice) when given,
        else `time_unit`; logical time's steps are no unit of time to rename."""
        return override if override and self.time_unit in TIME_UNITS else self.time_unit

    @property
    def start_time(self):
        return float(self.containers.start[0])

    @property
    def end_time(self):
        return float(self.containers.end[0])

    @property
    def nbytes(self):
        return (self.names.arena.nbytes + self.names.offsets.nbytes + self.type_colors.nbytes
                + self.value_colors.nbytes + sum(getattr(self, k).nbytes for k in SCHEMA))

    def __repr__(self):
        counts = ", ".join(f"{k}={len(getattr(self, k))}" for k in ENTITY_TABLES)
        return f"<Trace {self.source!r} {counts}>"
