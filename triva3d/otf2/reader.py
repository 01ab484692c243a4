"""OTF2 archives (Score-P, APEX, EZTrace...) into the Trace.

Mapping (see the README):
- containers: system tree nodes (types named by their class: machine, node...),
  location groups under their system-tree parent (PROCESS, ACCELERATOR...), and
  locations as leaves (CPU_THREAD, ACCELERATOR_STREAM, METRIC...), named
  `GROUP / NAME` when several share a name (every rank's "Master thread"); other
  names kept, so the matcher finds hosts by name;
- Enter/Leave: nested states of type "Region" valued by region name, with the
  region's `paradigm` and `role` as extra fields;
- MPI point-to-point (Send, Isend, Recv, Irecv): links "MPI message" from the
  sending location (at the send) to the receiving one (at the receive's
  completion), matched per (communicator, sender, receiver, tag) in order, ranks
  resolved through the communicator's group; extra fields `Size` and `Tag`;
- MPI collectives: events "MPI collective" valued by the operation at the end,
  with `root`, `sent`, `received`; inside an MPI region (Score-P's MPI_Allreduce,
  the call itself) that region's state takes the operation as its field
  `collective` (a second state would count its time twice), elsewhere a state
  "MPI collective" from begin to end;
- Metric events: one variable per metric member, piecewise constant from each
  sample to the next (the last to the end); accumulated counters also as "NAME
  rate" (difference over time between samples, 0 after the last one); the types
  carry their member's metric type (PAPI, RUSAGE, USER...) as the extra field
  `METRIC_CLASS`: metrics are drawn when chosen (analysis.roles);
- threads, tasks, I/O operations, RMA and calling-context samples: see `_threads`,
  `_teams`, `_tasks`, `_io`, `_rma` and `_samples`;
- time in seconds from the trace start (clock properties); every other record kind
  is counted (`Trace.other_records`), never an error.

Global definitions are read with the `otf2` package; events with the C reader
through ctypes and compiled callbacks (capi.py), then decoded per location with numpy
and a compiled walk that pairs what nests (`_nest`).
"""
import collections
import ctypes
import functools
import os
import sys
import threading
from collections import Counter

import numpy as np

from ..ahead import ahead
from ..errors import TraceError
from ..kernels import interpreted, lazy
from ..trace import ENTITY_KINDS, METRIC_CLASS, SCHEMA, Fields, Kind, Names, Trace
from ..analysis import tasks
from ..analysis.timeslice import nesting_parents_of
from . import anchor_of, archive_files, capi
from .capi import COLL_BEGIN, COLL_END

#: Links' (type, value) by their `what` code: MPI messages, RMA puts and gets.
LINK_KINDS = [("MPI message", "p2p"), ("RMA put", "put"), ("RMA get", "get"),
              ("Task dependency", "dependency")]
DEPENDENCY = 3
ACCUMULATED = {"ACCUMULATED_START", "ACCUMULATED_POINT", "ACCUMULATED_LAST",
               "ACCUMULATED_NEXT"}
#: OTF2_Type ids of metric and attribute values.
T_UINT64, T_INT64, T_FLOAT, T_DOUBLE, T_LOCATION = 4, 8, 9, 10, 13
_INT_BITS = {1: 8, 2: 16, 3: 32, 4: 64, 5: 8, 6: 16, 7: 32, 8: 64}
#: The fields the reader gives itself, which attributes of the same name leave alone.
_OWN_FIELDS = {"paradigm", "role", "task", "creator", "bytes", "handle", "threads", "root",
               "sent", "received", "Size", "Tag", "Task"} | {c for cols in SCHEMA.values() for c in cols}


def _enum(x):
    return str(x).rsplit(".", 1)[-1]


def _enum_of(cls, value, what):
    """The name of `value` in the otf2 enum `cls`, or "`what` `value`" for a value
    this OTF2 does not know (an archive from a newer writer)."""
    try:
        return _enum(cls(int(value)))
    except (KeyError, ValueError):
        return f"{what} {value}"


class _Interner:
    def __init__(self):
        self.index, self.strings = {}, []
        self.number = {}  # number -> code of its text (`many` is called per location)

    def __call__(self, s):
        i = self.index.get(s)
        if i is None:
            i = self.index[s] = len(self.strings)
            self.strings.append(s)
        return i

    def many(self, values):
        """Codes of str(v) for an array of numbers (interned once per distinct value)."""
        uniq, inv = np.unique(np.asarray(values), return_inverse=True)
        number = self.number
        codes = [number.get(u) for u in uniq.tolist()]
        for i in (i for i, c in enumerate(codes) if c is None):
            u = uniq[i].item()
            codes[i] = number[u] = self(str(u))
        return np.array(codes, np.int32)[inv].reshape(-1)


def _nest(rec, end_time, begin=capi.ENTER, end=capi.LEAVE):
    """States from a location's records `rec` (n, RECORD): Enter/Leave (or the kinds
    `begin` and `end`) paired as they nest, each Leave closing the latest Enter (region,
    start, end, depth, the Enter's and the Leave's record, -1 for a Leave never met),
    the open ones closed at `end_time`, innermost first, after the others (in the order
    of their Leaves); collectives (comm | op << 32, root, sent, received, begin, end,
    the end's record); counts of Leaves that closed nothing, of those that closed
    another region and of states left open."""
    rec = np.ascontiguousarray(rec, np.int64)
    counts = np.bincount(rec[:, 0], minlength=capi.SAMPLE + 1)
    n, nb, nc = (int(counts[k]) for k in (begin, COLL_BEGIN, COLL_END))
    cols = [np.empty(n, np.int64) for _ in range(7)]  # a state a begin, and its stack
    cstack, coll = np.empty(nb, np.int64), np.empty((min(nb, nc), 7), np.int64)
    ns, nc, ignored, other, still = _nest_walk(rec, begin, end, end_time, *cols, cstack,
                                               coll)
    return (*(c[:ns] for c in cols[:6]), coll[:nc], ignored, other, still)


@lazy(cache=True, nogil=True)
def _nest_walk(rec, begin, end, end_time, reg, t0, t1, depth, i0, i1, stack, cstack,
               coll):
    """_nest's walk, its columns written to the arrays given; returns (states,
    collectives, Leaves closing nothing, closing another region, open)."""
    ns = nc = ignored = other = top = ctop = 0
    for i in range(len(rec)):
        k = rec[i, 0]
        if k == begin:
            stack[top] = i
            top += 1
        elif k == end:
            if top == 0:
                ignored += 1
                continue
            top -= 1
            j = stack[top]
            other += rec[j, 2] != rec[i, 2]
            reg[ns], t0[ns], t1[ns], depth[ns], i0[ns], i1[ns] = \
                rec[j, 2], rec[j, 1], rec[i, 1], top, j, i
            ns += 1
        elif k == COLL_BEGIN:
            cstack[ctop] = i
            ctop += 1
        elif k == COLL_END and ctop:
            ctop -= 1
            for f in range(4):  # (a slice assigned would need numba's environment)
                coll[nc, f] = rec[i, 2 + f]
            coll[nc, 4], coll[nc, 5], coll[nc, 6] = rec[cstack[ctop], 1], rec[i, 1], i
            nc += 1
    still = top
    while top:
        top -= 1
        j = stack[top]
        reg[ns], t0[ns], t1[ns], depth[ns], i0[ns], i1[ns] = \
            rec[j, 2], rec[j, 1], max(end_time, rec[j, 1]), top, j, -1
        ns += 1
    return ns, nc, ignored, other, still


def _of(kind, kinds):
    """Whether each record's `kind` is one of `kinds` (np.isin, a quarter of its time)."""
    table = np.zeros(capi.SAMPLE + 1, bool)
    table[list(kinds)] = True
    return table[kind]


def _innermost(t0, t1, depth, b, e):
    """Per span [b, e], the deepest of the nested states [t0, t1] holding it (-1: none):
    those of one depth never overlap, so a search of their starts finds the one."""
    out = np.full(len(b), -1, np.int64)
    for d in np.unique(depth).tolist():  # (shallow first: a deeper holder overrides)
        rows = np.flatnonzero(depth == d)
        rows = rows[np.argsort(t0[rows], kind="stable")]
        k = rows[np.maximum(np.searchsorted(t0[rows], b, side="right") - 1, 0)]
        out = np.where((t0[k] <= b) & (t1[k] >= e), k, out)
    return out


class _Raised:
    """Stands for `sys` in the otf2 package's definition callbacks: what they write on
    stderr (an exception's traceback) is kept, its last line told in one."""

    def __init__(self):
        self.text = []
        self.stderr = self

    def write(self, text):
        self.text.append(text)

    def why(self):
        last = ("".join(self.text).strip().splitlines() or ["an exception"])[-1]
        kind, _, what = last.partition(": ")
        if kind == "KeyError":
            return f"a definition refers to one never defined (reference {what})"
        return f"a definition the otf2 package could not take ({last})"


class _Defs:
    """What we need from the global definitions, as plain Python and numpy."""

    def __init__(self, anchor):
        import importlib

        import otf2
        # the module (its package exports a class of the same name)
        callbacks = importlib.import_module("_otf2.GlobalDefReaderCallbacks")
        strict = callbacks.str_decode
        self.not_utf8 = 0

        def replacing(raw):  # the package's own decoding is strict and prints a traceback
            try:
                return strict(raw)
            except UnicodeDecodeError:
                self.not_utf8 += 1
                return raw.decode("utf-8", "replace")
        callbacks.str_decode = replacing
        # The package prints the traceback of an exception in its callbacks (a
        # duplicate definition, an unknown reference) on stderr: kept for one line.
        raised = _Raised()
        callbacks.sys = raised
        try:
            with capi.filled(), otf2.reader.open(anchor) as tr:
                self._read(tr.definitions)
            if raised.text:
                raise ValueError(raised.why())
        except (TraceError, MemoryError):  # (memory: load says so)
            raise
        except Exception as e:  # the otf2 package raises several kinds
            why = raised.why() if raised.text else capi.errors[0] if capi.errors else str(e)
            capi.errors.clear()
            raise TraceError(anchor, None, f"not a readable OTF2 archive: {why}") from None
        finally:
            callbacks.str_decode = strict
            callbacks.sys = sys

    def _read(self, d):
        cp = d.clock_properties
        self.resolution = float(cp.timer_resolution) if cp else 1.0
        self.offset = int(cp.global_offset) if cp else 0
        self.length = int(cp.trace_length) if cp else 0
        self.stn = [(n._ref, n.name, n.class_name or "system tree node",
                     n.parent._ref if n.parent else None) for n in d.system_tree_nodes]
        self.groups = [(g._ref, g.name, _enum(g.location_group_type),
                        g.system_tree_parent._ref if g.system_tree_parent else None)
                       for g in d.location_groups]
        self.locations = [(l._ref, l.name, _enum(l.type), l.group._ref if l.group else None,
                           int(l.number_of_events)) for l in d.locations]
        self.regions = {r._ref: (r.name, _enum(r.paradigm), _enum(r.region_role))
                        for r in d.regions}
        self.comms = {c._ref: [m._ref for m in c.group.members] if c.group else []
                      for c in d.comms}
        self.comm_names = {c._ref: c.name for c in d.comms}
        self.rma_wins = {w._ref: w.comm._ref if w.comm else None for w in d.rma_wins}
        self.contexts = {c._ref: c.region._ref if c.region else None
                         for c in d.calling_contexts}
        self.io_handles = {h._ref: h.name for h in d.io_handles}
        self.metrics = {}
        for m in d.metrics:
            members = m.members if hasattr(m, "members") else m.metric_class.members
            self.metrics[m._ref] = [(mm.name, _enum(mm.metric_mode), _enum(mm.metric_type))
                                    for mm in members]
        self.max_members = max([len(v) for v in self.metrics.values()] + [1])
        self.attributes = {a._ref: a.name for a in d.attributes}
        # attribute values that are references: OTF2_Type -> {reference: its text}
        self.referred = {}
        if self.attributes:
            for tid, registry in _REFERRED.items():
                self.referred[tid] = {x._ref: _ref_text(x) for x in getattr(d, registry)}


#: OTF2_Type ids of references -> the definitions' registry they refer to.
_REFERRED = {11: "strings", 12: "attributes", 13: "locations", 14: "regions", 15: "groups",
             16: "metrics", 17: "comms", 18: "parameters", 19: "rma_wins",
             20: "source_code_locations", 21: "calling_contexts", 22: "interrupt_generators",
             23: "io_files", 24: "io_handles", 25: "location_groups"}


def _ref_text(x):
    """What an attribute referring to the definition `x` shows: its name (a source
    code location's file:line, a calling context's region)."""
    if hasattr(x, "file"):
        return f"{x.file}:{x.line_number}"
    if hasattr(x, "region"):
        return x.region.name if x.region else f"calling context {x._ref}"
    return getattr(x, "name", None) or f"{type(x).__name__} {x._ref}"


def _read_events(anchor, defs, lenient, report, take, progress=None):
    """Read each location's records and attributes, given to take(ref, records,
    attributes) (None, None where unreadable) in the definitions' order, telling
    `progress` (see read_otf2) the bytes of event files read; the other kinds' counts.
    From AHEAD_ABOVE bytes of event files on, a second thread reads the next location
    while `take` builds one (two locations' records held)."""
    r = capi.Reader_Open(anchor.encode())
    if not r:
        raise TraceError(anchor, None, "OTF2 cannot open this anchor file")
    cb = capi.Callbacks()
    other = Counter()
    idle = threading.Event()  # (cleared while a second thread reads through r and cb)
    idle.set()
    try:
        capi.Reader_SetSerialCollectiveCallbacks(r)
        for ref, *_ in defs.locations:
            capi.Reader_SelectLocation(r, ref)
        base = anchor[:-len(".otf2")]
        local = [os.path.exists(f"{base}/{ref}.def") for ref, *_ in defs.locations]
        if any(local) and not all(local):  # (optional, but never some without others)
            ref = defs.locations[local.index(False)][0]
            _fail(lenient, report, f"{base}/{ref}.def", "local definitions missing, ignored",
                  f"missing ({local.count(False)} of {len(local)} locations' local "
                  "definitions), where other locations have theirs: their mappings of "
                  "communicators and ranks would be lost (messages unmatched)",
                  local.count(False))
        if capi.Reader_OpenDefFiles(r) == 0:
            for ref, *_ in defs.locations:
                with capi.filled():
                    dr, code = capi.Reader_GetDefReader(r, ref), 0
                    if dr:
                        n = ctypes.c_uint64()
                        code = capi.Reader_ReadAllLocalDefinitions(r, dr, ctypes.byref(n))
                        capi.Reader_CloseDefReader(r, dr)
                if code:
                    _fail(lenient, report, f"{base}/{ref}.def",
                          "local definitions unreadable, ignored",
                          f"local definitions: {capi.error_text(code)}")
            capi.Reader_CloseDefFiles(r)
        code = capi.Reader_OpenEvtFiles(r)
        if code:
            raise TraceError(anchor, None, f"cannot open the event files: {capi.error_text(code)}")
        files = [f"{base}/{loc[0]}.evt" for loc in defs.locations]
        sizes = [os.path.getsize(f) if os.path.isfile(f) else 0 for f in files]
        done, total = 0, sum(sizes)

        def located():  # (in the second thread: its reports handed over in order)
            for (ref, name, _, _, n_events), path in zip(defs.locations, files):
                told = []
                yield ref, told, *_read_location(r, cb, ref, name, n_events, defs, path,
                                                 lenient, told, other)
        with ahead(located(), total >= AHEAD_ABOVE, 1, idle) as items:
            for (ref, told, rec, at), size in zip(items, sizes):
                report.extend(told)
                take(ref, rec, at)
                done += size
                if progress:
                    progress(done, total)
        capi.Reader_CloseEvtFiles(r)
    finally:
        if idle.is_set():  # (else a third Ctrl-C left it reading: left open, not freed under it)
            capi.Reader_Close(r)
            cb.close()
    return dict(other)


def _fail(lenient, report, path, what, message, count=1):
    """Strict: refuse (`message` on `path`); lenient: count `what` (`count` times)
    in the report, the first one's file and message kept."""
    if not lenient:
        raise TraceError(path, None, message, lenient_reads=True)
    report.append((what, count, f"{os.path.basename(path)}: {message}"))


def _read_location(r, cb, ref, name, n_events, defs, path, lenient, report, other):
    where = f"location {ref} ({name!r})"
    if not os.path.exists(path):
        _fail(lenient, report, path, "event files missing, their locations drawn empty",
              f"{where}: its event file is missing")
        return None, None
    size = os.path.getsize(path)
    most = size // 2 + 1  # every record takes 2 bytes or more
    whole = _whole(path)
    if n_events > most and not whole:  # before allocating for them: 1e15 was a MemoryError
        _fail(lenient, report, path, "event counts declared beyond what the files hold",
              f"{where}: its definition declares {n_events} "
              f"events, its file holds at most {most}")
    capacity = max(min(n_events, most), 1) * defs.max_members
    if lenient:  # the definition may undercount
        capacity = max(capacity, most * defs.max_members)
    # an attribute list holds each attribute once (one per definition and record), and
    # each takes 3 bytes or more of the file
    buf = capi.new_buffer(capacity, min(capacity * len(defs.attributes), size // 3 + 1))
    with capi.filled():
        er = capi.Reader_GetEvtReader(r, ref)
        if not er:
            _fail(lenient, report, path, "locations without an event reader, drawn empty",
                  f"{where}: OTF2 gives no event reader")
            return None, None
        try:
            capi.Reader_RegisterEvtCallbacks(r, er, cb.handle, buf.ctypes.data)
            n = ctypes.c_uint64()
            code = capi.Reader_ReadAllLocalEvents(r, er, ctypes.byref(n))
        finally:
            capi.Reader_CloseEvtReader(r, er)
    other.update(capi.counts(buf))
    if capi.overflowed(buf):
        _fail(lenient, report, path, "event files holding more events than their "
              "definitions, drawn empty",
              f"{where}: more events (or attributes) in the file than its definition's "
              f"{n_events} events allow")
        return None, None
    if code:
        _fail(lenient, report, path, "event files damaged, read up to the damage",
              f"{where}: {capi.error_text(code)} "
              f"after {n.value} of {n_events} events")
    elif n.value < n_events and whole:  # APEX's definitions count more than it writes
        report.append(("locations whose definition declares more events than their file "
                       "holds (as APEX writes them), read to the file's end record", 1,
                       f"{os.path.basename(path)}: {where}: {n.value} events in the file, its "
                       f"definition says {n_events}"))
    elif n.value != n_events:
        _fail(lenient, report, path, "event counts differing from their definitions, all "
              "read", f"{where}: {n.value} events in the file, "
              f"its definition says {n_events}")
    rec = capi.records(buf)
    if len(rec) and (rec[:, 1].min() < 0 or rec[:, 1].max() == _OPEN):  # (uint64 ticks
        _fail(lenient, report, path, "locations with events at or beyond tick 2^63 - 1, "  # wrap)
              "drawn empty", f"{where}: an event at or beyond tick 2^63 - 1")
        return None, None
    early = np.flatnonzero(rec[:, 1] < defs.offset) if len(rec) else []
    if len(early):  # negative times the span did not cover (down to -14272 s)
        i = int(early[0])
        _fail(lenient, report, path, "events before the clock's start (its global offset), "
              "kept: the trace starts with them",
              f"{where}: event {i} at tick {rec[i, 1]}, before the clock's start at tick "
              f"{defs.offset}")
    back = np.flatnonzero(np.diff(rec[:, 1]) < 0) if len(rec) else []
    if len(back):  # states would end before they start
        i = int(back[0]) + 1
        _fail(lenient, report, path, "events going back in time, moved to the time before",
              f"{where}: event {i} (time {rec[i, 1]}) goes back in time from {rec[i - 1, 1]}")
        rec[:, 1] = np.maximum.accumulate(rec[:, 1])
    return rec, capi.attributes(buf)


#: How an event file that OTF2 closed ends: END_OF_FILE, then the END_OF_CHUNK of
#: its last chunk (OTF2_Buffer.h; earlier chunks are padded to the chunk size).
_FILE_END = b"\x02\x01"
#: The tick of what ends with the trace until its end is known (_mend): no event's.
_OPEN = np.iinfo(np.int64).max
#: The columns of the tasks' states kept for their dependencies (_Builder._dependencies).
_TASKED = ("container", "type", "start", "end", "imbrication", tasks.GUID, tasks.PARENT)
#: The columns of an MPI message's end (_Messages; a send's also its Size and Tag names).
_ENDS = ("sender", "receiver", "comm", "tag", "time", "Size", "Tag")
#: Archives of this many bytes of event files or more are read a location ahead
#: (_read_events).
AHEAD_ABOVE = 1 << 20
#: Archives of fewer events run their kernels (the records' pairing, the tasks'
#: nesting) as Python (kernels.interpreted): sooner done than their machine code
#: loaded (or, the first time, compiled).
INTERPRET_BELOW = 5000


def _whole(path):
    """Whether the event file at `path` ends as OTF2 ends a file it wrote whole: a
    truncated file (whose reading can end without an error, on what lies past it in
    memory) does not, but for a chance of 1 in 65536 or a cut just after such bytes."""
    try:
        with open(path, "rb") as f:
            f.seek(-len(_FILE_END), os.SEEK_END)
            return f.read() == _FILE_END
    except OSError:
        return False


def read_otf2(path, lenient=False, progress=None, spill=None):
    """The Trace of the OTF2 archive at `path` (anchor file or its folder).
    `progress`: None, or a callable f(bytes read, bytes in all) called after each
    location's events (an exception it raises stops the read). `spill`: None, or
    (sink, rows), `sink` a spill.Spill: the entity rows are handed to it a batch of
    locations at a time (about `rows` records), the MPI messages' ends spilled beside
    it by their sender's batch, then matched a batch at a time; the Trace then holds
    no entity. Its tables are the same whatever the batches."""
    anchor = anchor_of(path)
    if anchor is None:
        raise TraceError(str(path), None, "not an OTF2 anchor file (nor a folder with one)")
    anchor = os.path.abspath(anchor)
    for f in archive_files(anchor):  # (the C library would wait on a FIFO for ever)
        if f.endswith((".otf2", ".def", ".evt")) and os.path.exists(f) \
                and not os.path.isfile(f):
            raise TraceError(f, None, "not a regular file (a FIFO, a device or a folder): "
                                      "an archive's files are read as files")
    capi.errors.clear()
    defs = _Defs(anchor)
    report = [("strings of the definitions not in UTF-8, decoded with replacement",
               defs.not_utf8, None)] if defs.not_utf8 else []
    if not defs.offset + defs.length < _OPEN:
        raise TraceError(anchor, None, f"the clock starts at tick {defs.offset} and lasts "
                                       f"{defs.length}: times at or beyond 2^63 - 1 ticks")
    if not defs.resolution > 0:  # times cannot become seconds
        _fail(lenient, report, anchor, "a timer resolution that is not positive, taken as "
              "1 GHz", f"timer resolution {defs.resolution:g}")
        defs.resolution = 1e9
    base = anchor[:-len(".otf2")]
    held = np.array([min(n, os.path.getsize(f) // 2 + 1) if os.path.isfile(f) else 0
                     for f, n in ((f"{base}/{loc[0]}.evt", loc[4]) for loc in defs.locations)],
                    np.int64)  # (what a location's file can hold: 2 bytes a record or more)
    if spill is None:
        sink, batch_of, folder = _Whole(), np.zeros(len(held), np.int64), None
    else:
        sink, rows = spill
        batch_of = (np.cumsum(held) - held) // max(rows, 1)
        folder = os.path.join(sink.folder, "messages")
        os.makedirs(folder)
    with interpreted(held.sum() < INTERPRET_BELOW):
        b = _Builder(defs, anchor, lenient, report, sink, batch_of, folder)
        other = _read_events(anchor, defs, lenient, report, b.take, progress)
        sink.mend = b.finish()
        if spill is None:
            columns, extra = sink.tables()
        else:
            columns = {name: {c: np.zeros(0, d) for c, d in SCHEMA[name].items()}
                       for name in ENTITY_KINDS}
            extra = {}
        return b.trace(columns, extra, other)


class _Builder:
    """Definitions and each location's records to the Trace's tables, handed to
    `sink` (spill.Spill, or _Whole) a batch of locations (`batch_of` each) at a time;
    the MPI messages' ends kept by their sender's batch (_Messages, in `folder`:
    None in memory) and matched at the end. What ends with the trace is given the
    end _OPEN (np.inf in seconds) until its end is known (`mend`)."""

    def __init__(self, defs, anchor, lenient, report, sink, batch_of, folder):
        self.d, self.anchor, self.lenient, self.report = defs, anchor, lenient, report
        self.sink, self.batch_of, self.batch = sink, batch_of, 0
        self.messages = _Messages(folder)
        self.names = _Interner()
        self.names("0")
        self.numbers = {}  # name code -> the integer it writes (integer attributes)
        self.notes = []  # lines for people about the load
        self.types = []   # (kind, parent, name, start_type, end_type)
        self.metric_class = {}  # variable type -> its metric members' class (PAPI...)
        self.type_index = {}
        self.values = {}  # (type, name) -> row
        self.value_rows = []
        self.containers()
        self.index_of = {ref: i for i, (ref, *_) in enumerate(defs.locations)}
        self.loc_rows = np.array([self.row_of_loc[ref] for ref, *_ in defs.locations] + [-1],
                                 np.int64)  # (a location's container row; -1: none)
        self.members = {}  # communicator -> its ranks' location indices, -1 last
        self.first, self.last = defs.offset, defs.offset + defs.length  # ticks met
        self.parts = {name: [] for name in ("states", "events", "variables")}
        self.rows = dict.fromkeys(ENTITY_KINDS, 0)  # rows handed over
        self.rma, self.tasked = [], []  # links of RMA, states of tasks (the GUIDs')
        self.pairs = {}  # a link's (what, start type, end type) -> its provisional code
        self.link_fields = {}  # the attributes of links' records, in the order met
        self.unmatched_leaves = self.unclosed = self.unmatched = self.early = 0

    # -- types and values --------------------------------------------------------
    def type(self, kind, parent, name, start=-1, end=-1):
        key = (kind, parent, name, start, end)
        if key not in self.type_index:
            self.type_index[key] = len(self.types)
            self.types.append((kind, parent, self.names(name), start, end))
        return self.type_index[key]

    def value(self, t, name):
        key = (t, name)
        if key not in self.values:
            self.values[key] = len(self.value_rows)
            self.value_rows.append((t, self.names(name)))
        return self.values[key]

    def seconds(self, ticks):
        """Seconds from the clock's start of `ticks` (_OPEN: np.inf)."""
        ticks = np.asarray(ticks, np.int64)
        return np.where(ticks == _OPEN, np.inf, (ticks - self.d.offset) / self.d.resolution)

    # -- attributes --------------------------------------------------------------
    def attribute_field(self, ref):
        """The user-defined field of attribute `ref`: its name, "NAME (attribute)"
        where the name is one of the reader's own fields."""
        name = self.d.attributes.get(ref, f"attribute {ref}")
        return f"{name} (attribute)" if name in _OWN_FIELDS else name

    def attribute_codes(self, typ, bits):
        """Name codes of attribute values given as OTF2_Type ids and value bits:
        numbers in decimal, references by the name of what they refer to."""
        codes = np.empty(len(typ), np.int32)
        for t in np.unique(typ).tolist():
            m = typ == t
            b = bits[m]
            if t in _INT_BITS:  # unsigned 1..4, signed 5..8: width from the type
                w = _INT_BITS[t]
                v = (b << (64 - w)) >> (64 - w) if t >= 5 else \
                    (b.view(np.uint64) << np.uint64(64 - w)) >> np.uint64(64 - w)
            elif t in (T_FLOAT, T_DOUBLE):
                v = ((b & 0xFFFFFFFF).astype(np.uint32).view(np.float32) if t == T_FLOAT
                     else b.view(np.float64))
            else:  # references are 32 bits but a location's (OTF2's union is copied
                v = b if t == T_LOCATION else b & 0xFFFFFFFF  # whole: the rest is noise)
            uniq, inv = np.unique(v, return_inverse=True)
            if t in _INT_BITS or t in (T_FLOAT, T_DOUBLE):
                texts = [str(u) for u in uniq]  # a float's shortest repr (numpy's str)
            else:  # a reference
                named = self.d.referred.get(t, {})
                kind = _REFERRED.get(t, f"type {t}").rstrip("s").replace("_", " ")
                texts = [named.get(u, f"{kind} {u}") for u in uniq.tolist()]
            uniq_codes = np.array([self.names(x) for x in texts], np.int32)
            codes[m] = uniq_codes[inv.reshape(-1)]
            if t in _INT_BITS:
                self.numbers.update(zip(uniq_codes.tolist(), uniq.astype(np.int64).tolist()))
        return codes

    def integers(self, codes, what):
        """The integers (int64 bits: a uint64 above 2^63 wraps) that the name codes
        write, and a mask of those given: from the integer attributes' decode, else
        read from the text (analysis.tasks.numbers: a ValueError for one that is not
        an integer)."""
        keys = np.fromiter(self.numbers, np.int64, len(self.numbers))
        values = np.fromiter(self.numbers.values(), np.int64, len(self.numbers))
        order = np.argsort(keys)
        keys, values = keys[order], values[order]
        at = np.minimum(np.searchsorted(keys, codes), max(len(keys) - 1, 0))
        hit = (codes >= 0) & (keys[at] == codes) if len(keys) else np.zeros(len(codes), bool)
        out = np.where(hit, values[at] if len(keys) else 0, 0)
        rest = np.flatnonzero((codes >= 0) & ~hit)  # text attributes
        given = hit.copy()
        if len(rest):
            out[rest], given[rest] = tasks.numbers(self.names.strings.__getitem__,
                                                   codes[rest], what)
        return out, given

    # -- containers --------------------------------------------------------------
    def containers(self):
        d = self.d
        self.type(Kind.CONTAINER, -1, "0")
        rows = [(-1, 0, self.names("0"))]  # parent, type, name
        row_of_stn, row_of_group, self.row_of_loc = {}, {}, {}
        pending = list(d.stn)
        while pending:  # parents first
            later = []
            for ref, name, cls, parent in pending:
                if parent is not None and parent not in row_of_stn:
                    later.append((ref, name, cls, parent))
                    continue
                p = row_of_stn.get(parent, 0)
                row_of_stn[ref] = len(rows)
                rows.append((p, self.type(Kind.CONTAINER, rows[p][1], cls), self.names(name)))
            if len(later) == len(pending):
                raise TraceError(self.anchor, None, "system tree nodes form a cycle")
            pending = later
        for ref, name, gtype, parent in d.groups:
            p = row_of_stn.get(parent, 0)
            row_of_group[ref] = len(rows)
            rows.append((p, self.type(Kind.CONTAINER, rows[p][1], gtype), self.names(name)))
        group_name = {ref: name for ref, name, _, _ in d.groups}
        seen = Counter(name for _, name, _, _, _ in d.locations)
        for ref, name, ltype, group, _ in d.locations:
            p = row_of_group.get(group, 0)
            self.row_of_loc[ref] = len(rows)
            if seen[name] > 1 and group in group_name:  # "Master thread" in every rank
                name = f"{group_name[group]} / {name}"
            rows.append((p, self.type(Kind.CONTAINER, rows[p][1], ltype), self.names(name)))
        self.cont = np.array(rows, np.int64).reshape(-1, 3)

    # -- the records of a location -------------------------------------------------
    def take(self, ref, rec, attrs):
        """The records and attributes of location `ref` (None: not read), in order."""
        i = self.index_of[ref]
        if self.batch_of[i] != self.batch:
            self.hand()
            self.batch = int(self.batch_of[i])
        if rec is None or not len(rec):
            return
        self.first = min(self.first, int(rec[:, 1].min()))  # (lenient: before the start)
        self.last = max(self.last, int(rec[:, 1].max()))
        c = self.row_of_loc[ref]
        ctype = int(self.cont[c, 1])
        kind = rec[:, 0]
        self.at = _Attributes(attrs, self.attribute_codes(attrs[:, 2], attrs[:, 3]), self) \
            if attrs is not None and len(attrs) else _NO_ATTRIBUTES
        reg, t0, t1, dep, i0, i1, coll, ignored, other, open_ = _nest(rec, _OPEN)
        self.unmatched_leaves += ignored + other
        self.unclosed += open_
        dep = self._imbrication(dep, f"location {ref}: regions")
        st, ev = self.parts["states"], self.parts["events"]
        first = len(st)
        held = np.zeros(len(coll), bool)
        if len(reg):
            st.append(self._states(c, ctype, reg, t0, t1, dep, i0, i1))
            if len(coll):
                held = self._held(st[-1], t0, t1, dep, coll)
        if not held.all():
            st.append(self._collective_states(c, ctype, coll[~held]))
        if len(coll):
            ev.append(self._collective_events(c, ctype, coll))
        present = np.bincount(kind, minlength=capi.SAMPLE + 1)  # which kinds to decode
        for kinds, side in (((capi.SEND, capi.ISEND), "send"),
                            ((capi.RECV, capi.IRECV), "receive")):
            if present[list(kinds)].any():
                self._message_ends(i, side, rec, np.flatnonzero(_of(kind, kinds)))
        if present[capi.METRIC]:
            self.parts["variables"].extend(self._variables(c, ctype, rec[kind == capi.METRIC]))
        if present[capi.FORK:].any():  # threads, tasks, I/O, RMA, samples
            st.extend(self._teams(c, ctype, rec) + self._io(c, ctype, rec) +
                      self._tasks(c, ctype, rec))
            ev.extend(self._threads(c, ctype, rec) + self._samples(c, ctype, rec))
            m = _of(kind, (capi.RMA_PUT, capi.RMA_GET, capi.RMA_COMPLETE))
            if m.any():
                self.rma.append(self._rma(ref, rec[m], np.flatnonzero(m)))
        self.tasked.extend({k: p[k] for k in _TASKED if k in p}
                           for p in st[first:] if tasks.GUID in p)

    def hand(self):
        """Hand the batch's states, events and variables over (SCHEMA's columns,
        `extra.NAME` and `row`)."""
        tables = {}
        for name, parts in self.parts.items():
            if not parts:
                continue
            fields = dict.fromkeys(k for p in parts for k in p if k not in SCHEMA[name])
            cols = {c: np.concatenate([p[c] for p in parts]).astype(dtype, copy=False)
                    for c, dtype in SCHEMA[name].items()}
            cols.update({f"extra.{k}": np.concatenate([
                np.asarray(p[k], np.int32) if k in p else np.full(len(p["type"]), -1, np.int32)
                for p in parts]) for k in fields})
            tables[name] = self._numbered(name, cols)
            parts.clear()
        if tables:
            self.sink(tables)
        self.messages.flush()

    def _numbered(self, name, cols):
        """`cols` with `row`, their numbers in table `name`."""
        n = len(cols["type"])
        cols["row"] = self.rows[name] + np.arange(n, dtype=np.int64)
        self.rows[name] += n
        return cols

    def finish(self):
        """Hand the last batch, then the links (messages, RMA, task dependencies), over;
        the trace's start and end, the links' types. Returns the sink's `mend` (_mend)."""
        self.hand()
        self.start, self.end = float(self.seconds(self.first)), float(self.seconds(self.last))
        if self.unmatched_leaves:
            self._note("Leave events matching no Enter (or another region)",
                       self.unmatched_leaves)
        if self.unclosed:
            self.report.append(("regions still open at the end, closed there", self.unclosed,
                                None))
        for sends, receives in self.messages.partitions():
            self._hand_links(self._links(sends, receives))
        if self.unmatched:
            self.report.append(("MPI messages without their other end (not drawn)",
                                self.unmatched, None))
        for links in self.rma:
            self._hand_links(links)
        for p in self.tasked:
            p["end"] = np.where(np.isinf(p["end"]), self.end, p["end"])
        self._hand_links(self._dependencies(self.tasked))
        if self.early:  # unsynchronised clocks: drawn as instantaneous, and said
            self.report.append(("messages received before they were sent (clock skew?), "
                                "ending where they start", self.early, None))
        types, values = (np.zeros(len(self.pairs), np.int32) for _ in range(2))
        for (what, a, b), code in sorted(self.pairs.items()):
            name, value = LINK_KINDS[what]
            types[code] = t = self.type(Kind.LINK, 0, name, a, b)
            values[code] = self.value(t, value)
        return functools.partial(_mend, types, values, self.end)

    def _note(self, what, count):
        if not self.lenient:
            raise TraceError(self.anchor, None, f"{what}: {count}", lenient_reads=True)
        self.report.append((what, count, None))

    def _states(self, c, ctype, reg, t0, t1, dep, i0, i1):
        """Region states, with the attributes of their Enter (and of their Leave,
        where the Enter has none)."""
        t = self.type(Kind.STATE, ctype, "Region")
        uniq, inv = _dense(reg)
        vals, par, role = [], [], []
        for u in uniq.tolist():
            name, paradigm, r = self.d.regions.get(u, (f"region {u}", "UNKNOWN", "UNKNOWN"))
            vals.append(self.value(t, name))
            par.append(self.names(paradigm))
            role.append(self.names(r))
        n = len(reg)
        return {"container": np.full(n, c), "type": np.full(n, t),
                "value": np.array(vals)[inv], "start": self.seconds(t0), "end": self.seconds(t1),
                "imbrication": dep, "paradigm": np.array(par)[inv], "role": np.array(role)[inv],
                **self.at.of(i0, i1)}

    def _op_values(self, coll, code):
        """Per collective, `code`(its operation's name)."""
        import otf2
        ops = (coll[:, 0] >> 32).astype(np.int64)
        uniq, inv = np.unique(ops, return_inverse=True)
        vals = [code(_enum_of(otf2.enums.CollectiveOp, o, "operation")) for o in uniq]
        return np.array(vals, np.int64)[inv.reshape(-1)]

    def _held(self, states, t0, t1, dep, coll):
        """Which collectives an MPI region holds (the deepest state over their time:
        the call itself, Score-P's MPI_Allreduce or MPI_Comm_dup, whose state counts
        their time); that state takes the operation as its field `collective`."""
        inner = _innermost(t0, t1, dep, coll[:, 4], coll[:, 5])
        held = inner >= 0
        held[held] = states["paradigm"][inner[held]] == self.names("MPI")
        if held.any():
            field = np.full(len(t0), -1, np.int32)
            field[inner[held]] = self._op_values(coll[held], self.names)
            states["collective"] = field
        return held

    def _collective_states(self, c, ctype, coll):
        t = self.type(Kind.STATE, ctype, "MPI collective")
        n = len(coll)
        return {"container": np.full(n, c), "type": np.full(n, t),
                "value": self._op_values(coll, lambda n: self.value(t, n)),
                "start": self.seconds(coll[:, 4]),
                "end": self.seconds(coll[:, 5]), "imbrication": np.zeros(n, np.int16),
                "paradigm": np.full(n, self.names("MPI")),
                "role": np.full(n, self.names("COLLECTIVE")), **self.at.of(coll[:, 6])}

    def _collective_events(self, c, ctype, coll):
        t = self.type(Kind.EVENT, ctype, "MPI collective")
        n = len(coll)
        return {"container": np.full(n, c), "type": np.full(n, t),
                "value": self._op_values(coll, lambda n: self.value(t, n)),
                "time": self.seconds(coll[:, 5]),
                "root": self.names.many(coll[:, 1]), "sent": self.names.many(coll[:, 2]),
                "received": self.names.many(coll[:, 3]), **self.at.of(coll[:, 6])}

    def _variables(self, c, ctype, rec):
        """Variables of one location's metric records: per (metric, member), pieces
        from each sample to the next (the last to the trace's end), and rates of
        accumulated members."""
        out = []
        time, metric, member, bits, vtype = rec[:, 1], rec[:, 2], rec[:, 3], rec[:, 4], rec[:, 5]
        value = bits.astype(np.float64)
        dbl = vtype == T_DOUBLE
        value[dbl] = bits[dbl].view(np.float64)
        uns = vtype == T_UINT64
        value[uns] = bits[uns].view(np.uint64).astype(np.float64)
        key = metric * 256 + member
        for k in np.unique(key).tolist():
            m = key == k
            members = self.d.metrics.get(k // 256, [])
            name, mode, group = (members[k % 256] if k % 256 < len(members)
                                 else (f"metric {k}", "", "OTHER"))
            t = self.seconds(time[m])
            v = value[m]
            last = np.r_[t[1:] > t[:-1], True]  # samples at one time: the last one holds
            t, v = t[last], v[last]
            ends = np.r_[t[1:], np.inf]  # (the trace's end: mend)
            ty = self.type(Kind.VARIABLE, ctype, name)
            self.metric_class[ty] = group
            out.append({"container": np.full(len(t), c), "type": np.full(len(t), ty),
                        "start": t, "end": ends, "value": v})
            if mode in ACCUMULATED and len(t) > 1:
                rate = np.r_[np.diff(v) / np.diff(t), 0.0]  # 0 after the last sample
                ty = self.type(Kind.VARIABLE, ctype, f"{name} rate")
                self.metric_class[ty] = group
                out.append({"container": np.full(len(t), c), "type": np.full(len(t), ty),
                            "start": t, "end": ends, "value": rate})
        return out

    # -- threads, tasks, I/O, samples, one-sided communication ---------------------------
    def _part(self, c, t, values, start, end=None, depth=None, rows=None, ends=None, **extra):
        """A states (with `end`) or events part of container c, type t, `values` (codes
        of t's values), extra fields as name codes, and the attributes of the
        location's records `rows` (then of the records `ends`, where `rows` have none)."""
        n = len(start)
        part = {"container": np.full(n, c), "type": np.full(n, t), "value": values,
                **extra, **self.at.of(rows, ends)}
        if end is None:
            part["time"] = self.seconds(start)
        else:
            part.update(start=self.seconds(start), end=self.seconds(end),
                        imbrication=np.zeros(n, np.int16) if depth is None else depth)
        return part

    def _named(self, t, names):
        """Value codes of type t for the strings `names`."""
        return np.array([self.value(t, n) for n in names], np.int64).reshape(-1)

    def _threads(self, c, ctype, rec):
        """Fork and join events of thread teams (OpenMP, pthreads...), with the
        number of threads asked."""
        m = _of(rec[:, 0], (capi.FORK, capi.JOIN))
        if not m.any():
            return []
        r = rec[m]
        t = self.type(Kind.EVENT, ctype, "Thread fork/join")
        fork = r[:, 0] == capi.FORK
        values = np.where(fork, self.value(t, "fork"), self.value(t, "join"))
        threads = self.names.many(r[:, 2])
        threads[~fork] = -1
        return [self._part(c, t, values, r[:, 1], rows=np.flatnonzero(m), threads=threads)]

    def _imbrication(self, depth, what):
        """`depth` as the imbrication column (int16); a TraceError where `what` nest
        deeper than it holds (it would wrap around)."""
        if len(depth) and depth.max() > np.iinfo(np.int16).max:
            raise TraceError(self.anchor, None, f"{what} nested more than 32767 deep")
        return depth.astype(np.int16)

    def _io(self, c, ctype, rec):
        """I/O operations: states "I/O" valued by the mode, from issue to completion
        (matched by handle and matching id), with the bytes done and the handle."""
        import otf2
        b, e = np.flatnonzero(rec[:, 0] == capi.IO_BEGIN), np.flatnonzero(rec[:, 0] == capi.IO_END)
        if not len(b):
            return []
        ib, ie = _match(np.c_[rec[b, 2] & 0xFFFFFFFF, rec[b, 4]], np.c_[rec[e, 2], rec[e, 4]])
        if len(ib) < len(b):
            self.report.append(("I/O operations never completed (not drawn)", len(b) - len(ib),
                                None))
        b, e = b[ib], e[ie]
        order = np.argsort(b, kind="stable")  # by issue: each one's depth is how many are open
        b, e = b[order], e[order]
        depth = self._imbrication(np.arange(len(b)) - np.searchsorted(
            np.sort(rec[e, 1]), rec[b, 1], side="right"), "I/O operations")
        t = self.type(Kind.STATE, ctype, "I/O")
        modes = rec[b, 2] >> 32
        uniq, inv = np.unique(modes, return_inverse=True)
        names = [_enum_of(otf2.enums.IoOperationMode, m, "mode").lower() for m in uniq.tolist()]
        handles = rec[b, 2] & 0xFFFFFFFF
        hu, hinv = np.unique(handles, return_inverse=True)
        hcodes = np.array([self.names(self.d.io_handles.get(h, f"handle {h}"))
                           for h in hu.tolist()], np.int64)
        return [self._part(c, t, self._named(t, names)[inv.reshape(-1)], rec[b, 1], rec[e, 1],
                           np.maximum(depth, 0), rows=b, ends=e, bytes=self.names.many(rec[e, 3]),
                           handle=hcodes[hinv.reshape(-1)])]

    def _teams(self, c, ctype, rec):
        """Thread teams: states "Thread team" valued by the team's name, from its
        begin to its end on the thread."""
        if not _of(rec[:, 0], (capi.TEAM_BEGIN, capi.TEAM_END)).any():
            return []
        _, _, _, depth, b, e, _, ignored, _, still = _nest(rec, _OPEN, capi.TEAM_BEGIN,
                                                            capi.TEAM_END)
        b, e, depth = b[:len(b) - still], e[:len(e) - still], depth[:len(depth) - still]
        depth, left = self._imbrication(depth, "thread teams"), ignored + still
        if left:
            self.report.append(("thread teams begun or ended without the other end (not "
                                "drawn)", int(left), None))
        t = self.type(Kind.STATE, ctype, "Thread team")
        uniq, inv = np.unique(rec[b, 2], return_inverse=True)
        names = [self.d.comm_names.get(u, f"team {u}") for u in uniq.tolist()]
        return [self._part(c, t, self._named(t, names)[inv.reshape(-1)], rec[b, 1], rec[e, 1],
                           depth, rows=b, ends=e)]

    def _task_ids(self, rec):
        """Extra fields naming the tasks of records: `task` (an OpenMP task's id, or a
        ThreadTask's generation number) and `creator` (a ThreadTask's creating thread
        in its team)."""
        thread = rec[:, 3] >= 0  # ThreadTask records carry their team
        creator = self.names.many(rec[:, 2] >> 32)
        creator[~thread] = -1
        return {"task": self.names.many(np.where(thread, rec[:, 2] & 0xFFFFFFFF, rec[:, 2])),
                "creator": creator}

    def _tasks(self, c, ctype, rec):
        """Tasks: states "Task" from each switch to a task until the thread's next
        switch, completion or team end (an implicit task ends with its team; the
        trace's end if none), with the task's id."""
        sw = np.flatnonzero(_of(rec[:, 0], (capi.TASK_SWITCH, capi.TASK_COMPLETE,
                                            capi.TEAM_END)))
        run = sw[rec[sw, 0] == capi.TASK_SWITCH]
        if not len(run):
            return []
        after = np.searchsorted(sw, run) + 1
        end = np.where(after < len(sw), rec[sw[np.minimum(after, len(sw) - 1)], 1], _OPEN)
        t = self.type(Kind.STATE, ctype, "Task")
        return [self._part(c, t, np.full(len(run), self.value(t, "task")), rec[run, 1], end,
                           rows=run, **self._task_ids(rec[run]))]

    def _samples(self, c, ctype, rec):
        """Task creations, and calling-context samples valued by their region."""
        out = []
        made = np.flatnonzero(rec[:, 0] == capi.TASK_CREATE)
        if len(made):
            t = self.type(Kind.EVENT, ctype, "Task created")
            out.append(self._part(c, t, np.full(len(made), self.value(t, "create")),
                                  rec[made, 1], rows=made, **self._task_ids(rec[made])))
        smp = np.flatnonzero(rec[:, 0] == capi.SAMPLE)
        if len(smp):
            t = self.type(Kind.EVENT, ctype, "Sample")
            uniq, inv = np.unique(rec[smp, 2], return_inverse=True)
            names = [self.d.regions.get(self.d.contexts.get(u), (f"context {u}",))[0]
                     for u in uniq.tolist()]
            out.append(self._part(c, t, self._named(t, names)[inv.reshape(-1)], rec[smp, 1],
                                  rows=smp))
        return out

    def _rma(self, ref, rec, at):
        """One-sided communication of location `ref` (its records `rec`, numbered `at`):
        links "RMA put" from the origin to the target and "RMA get" from the target to
        the origin, from the operation to its completion on the origin (matched by
        window and matching id; else instantaneous)."""
        ops = np.flatnonzero(rec[:, 0] != capi.RMA_COMPLETE)
        done = np.flatnonzero(rec[:, 0] == capi.RMA_COMPLETE)
        win = rec[ops, 2] & 0xFFFFFFFF
        io, id_ = _match(np.c_[win, rec[ops, 4]], np.c_[rec[done, 2], rec[done, 4]])
        end = rec[ops, 1].copy()
        end[io] = rec[done[id_], 1]
        completion = np.full(len(ops), -1, np.int64)
        completion[io] = at[done[id_]]
        remote = rec[ops, 2] >> 32
        there = np.full(len(ops), -1, np.int64)  # the target's container row
        for w in np.unique(win).tolist():
            rows = self.loc_rows[self._members(self.d.rma_wins.get(w))]
            m = win == w
            r = remote[m]
            there[m] = rows[np.where((r >= 0) & (r < len(rows) - 1), r, -1)]
        ok = there >= 0
        if (~ok).any():
            self.report.append(("RMA operations to a rank outside their window (not drawn)",
                                int((~ok).sum()), None))
        put = rec[ops, 0] == capi.RMA_PUT
        here = self.row_of_loc[ref]
        return {"start_container": np.where(put, here, there)[ok],
                "end_container": np.where(put, there, here)[ok],
                "start": self.seconds(rec[ops, 1][ok]), "end": self.seconds(end[ok]),
                "what": np.where(put, 1, 2)[ok], "Size": self.names.many(rec[ops, 3][ok]),
                "Tag": self.names.many(rec[ops, 4][ok]), "Task": np.full(ok.sum(), -1),
                **self._link_attributes(at[ops][ok], completion[ok])}

    def _link_attributes(self, rows, ends=None):
        """{extra.NAME: name codes} of the attributes of the location's records `rows`
        (then `ends`) that links carry, their fields noted in the order met."""
        found = self.at.of(rows, ends)
        for k in found:
            self.link_fields.setdefault(k)
        return {f"extra.{k}": v for k, v in found.items()}

    def _members(self, comm):
        """The location indices of communicator `comm`'s ranks, then -1 (none)."""
        if comm not in self.members:
            self.members[comm] = np.array([self.index_of.get(m, -1) for m in
                                           self.d.comms.get(comm, [])] + [-1], np.int64)
        return self.members[comm]

    def _message_ends(self, i, side, rec, at):
        """Keep the ends (sends or receives: the records `at` of location i) of MPI
        messages, their peer's location found from its rank through the communicator's
        group, by their sender's batch; those whose peer is outside it are unmatched."""
        r = rec[at]
        comm, rank = r[:, 2] >> 32, r[:, 2] & 0xFFFFFFFF
        peer = np.full(len(r), -1, np.int64)
        uniq, inv = _dense(comm)  # (np.unique(comm) would import numpy.ma: 15 ms)
        for k, u in enumerate(uniq.tolist()):
            members = self._members(u)
            m = inv == k
            q = rank[m]
            peer[m] = members[np.where(q < len(members) - 1, q, -1)]
        known = peer >= 0
        self.unmatched += int(len(r) - known.sum())
        own = np.full(len(r), i, np.int64)
        sender, receiver = (own, peer) if side == "send" else (peer, own)
        ends = {"sender": sender, "receiver": receiver, "comm": comm, "tag": r[:, 3],
                "time": r[:, 1], **self._link_attributes(at)}
        if side == "send":  # (named here, location by location: the same names whatever
            ends["Size"] = self.names.many(r[:, 4])  # the batches)
            ends["Tag"] = self.names.many(r[:, 3])
        self.messages.add(side, self.batch_of[sender[known]],
                          {k: v[known] for k, v in ends.items()})

    def _links(self, s, r):
        """Match a partition's sends and receives per (sender, communicator, receiver,
        tag) in order: both sides of a key come from one location each, in its (time)
        order: the k-th send of a key is the k-th receive's message. Their records'
        attributes: the send's, else the receive's."""
        key = ("sender", "comm", "receiver", "tag")
        si, ri = _match(np.column_stack([s[k] for k in key]),
                        np.column_stack([r[k] for k in key]))
        self.unmatched += len(s["time"]) + len(r["time"]) - 2 * len(si)
        fields = {}
        for k in (f"extra.{k}" for k in self.link_fields):
            if k in s or k in r:
                a = s[k][si] if k in s else np.full(len(si), -1)
                fields[k] = np.where(a >= 0, a, r[k][ri] if k in r else -1)
        return {"start_container": self.loc_rows[s["sender"][si]],
                "end_container": self.loc_rows[r["receiver"][ri]],
                "start": self.seconds(s["time"][si]), "end": self.seconds(r["time"][ri]),
                "what": np.zeros(len(si), np.int64), "Size": s["Size"][si],
                "Tag": s["Tag"][si], "Task": np.full(len(si), -1), **fields}

    def trace(self, columns, extra, other):
        """The Trace of the entities `columns` (table -> SCHEMA's columns) and their
        `extra` fields (table -> field -> name codes), and of what was read."""
        n_cont, nt = len(self.cont), len(self.types)
        columns["containers"] = {"parent": self.cont[:, 0], "type": self.cont[:, 1],
                                 "name": self.cont[:, 2], "alias": np.full(n_cont, -1),
                                 "start": np.full(n_cont, self.start),
                                 "end": np.full(n_cont, self.end)}
        ty = np.array(self.types, np.int64).reshape(-1, 5)
        columns["types"] = {"kind": ty[:, 0], "parent": ty[:, 1], "name": ty[:, 2],
                            "alias": np.full(nt, -1), "start_type": ty[:, 3],
                            "end_type": ty[:, 4]}
        if self.metric_class:
            extra["types"] = {METRIC_CLASS: [self.names(self.metric_class[t])
                                             if t in self.metric_class else -1
                                             for t in range(nt)]}
        columns["values"] = {"type": [v[0] for v in self.value_rows],
                             "name": [v[1] for v in self.value_rows],
                             "alias": np.full(len(self.value_rows), -1)}
        return Trace.from_columns(Names.of(self.names.strings), columns, extra,
                                  source=self.anchor, report=self.report,
                                  files=archive_files(self.anchor), other_records=other,
                                  notes=self.notes)

    def _hand_links(self, links):
        """Hand links over (their containers, times, `what` (LINK_KINDS), the name codes
        Size, Tag and Task, and `extra.NAME` attribute fields), typed and valued by
        the provisional code of their (what, start type, end type) (finish, mend)."""
        if links is None or not len(links["start"]):
            return
        n = len(links["start"])
        nt = len(self.types)  # (one integer a triple: a 1-D unique, ten times faster)
        pair = (np.asarray(links["what"], np.int64) * nt
                + self.cont[links["start_container"], 1]) * nt \
            + self.cont[links["end_container"], 1]
        uniq, inv = _dense(pair)
        code = np.array([self.pairs.setdefault((p // nt // nt, p // nt % nt, p % nt),
                                               len(self.pairs))
                         for p in uniq.tolist()], np.int32)[inv]
        self.early += int(np.count_nonzero(links["end"] < links["start"]))
        cols = {"container": np.zeros(n, np.int32), "type": code, "value": code,
                "start_container": links["start_container"],
                "end_container": links["end_container"], "start": links["start"],
                "end": np.maximum(links["end"], links["start"]),
                "key": np.where(links["Tag"] >= 0, links["Tag"], links["Task"])}
        cols = {c: np.asarray(v, SCHEMA["links"][c]) for c, v in cols.items()}
        cols.update({f"extra.{k}": np.asarray(links[k], np.int32)
                     for k in ("Size", "Tag", "Task")})
        for k in self.link_fields:  # (every part gives every field: one order)
            v = links.get(f"extra.{k}")
            cols[f"extra.{k}"] = np.full(n, -1, np.int32) if v is None else np.asarray(v, np.int32)
        self.sink({"links": self._numbered("links", cols)})

    def _dependencies(self, parts):
        """Links "Task dependency" between the tasks of the states that carry a GUID
        attribute (analysis.tasks): keyed, and with the extra field `Task`, by the
        child's GUID."""
        parts = [p for p in parts if tasks.GUID in p]
        if not parts:
            return None

        def column(k):
            return np.concatenate([np.asarray(p[k]) if k in p else np.full(len(p["type"]), -1)
                                   for p in parts])
        guid_codes = column(tasks.GUID)
        start, end, cont = column("start"), column("end"), column("container")
        try:
            g, has_g = self.integers(guid_codes, tasks.GUID)
            p, has_p = self.integers(column(tasks.PARENT), tasks.PARENT)
        except ValueError as e:
            self.report.append(("task ids that are not integers: no dependencies drawn", 1,
                                str(e)))
            return None
        up = nesting_parents_of(cont, column("type"), start, column("imbrication"))
        inner = (up >= 0) & has_g & has_g[np.maximum(up, 0)] & (g == g[np.maximum(up, 0)])
        pieces = tasks.group(g, has_g & ~inner, p, has_p, start)
        missing = int((pieces.parent < 0).sum())
        if missing:
            self.notes.append(f"{missing} tasks without their parent in the trace (its "
                              "roots, or parents not traced)")
        dep = tasks.dependencies(pieces, cont, start, end)
        n = len(dep["child"])
        none = np.full(n, -1, np.int64)
        child_code = guid_codes[pieces.order[pieces.offsets[dep["child"]]]]
        return {"start_container": dep["start_container"], "end_container": dep["end_container"],
                "start": dep["start"], "end": dep["end"], "Size": none, "Tag": none,
                "Task": child_code, "what": np.full(n, DEPENDENCY)}


class _Attributes:
    """One location's attributes as user-defined fields: per field, the records that
    carry it (ascending) and its values as name codes."""

    def __init__(self, table, codes, builder):
        owner, ref = table[:, 0], table[:, 1]
        parts = {}  # field -> (records, codes) of each attribute of that name
        for r in np.unique(ref).tolist():
            m = ref == r
            parts.setdefault(builder.attribute_field(r), []).append((owner[m], codes[m]))
        self.fields = {}
        for name, p in parts.items():  # (a record with two of a name: the first's)
            o = np.concatenate([x for x, _ in p])
            order = np.argsort(o, kind="stable")
            self.fields[name] = (o[order], np.concatenate([c for _, c in p])[order])

    def of(self, rows, ends=None):
        """{field: name codes (-1: none)} of the records `rows` (-1: none), taking those
        of the records `ends` where `rows` carry none."""
        out = {}
        for name, (owner, codes) in self.fields.items():
            col = np.full(len(rows), -1, np.int32)
            for at in (rows, ends) if ends is not None else (rows,):
                at = np.asarray(at, np.int64)
                pos = np.minimum(np.searchsorted(owner, at), len(owner) - 1)
                hit = (owner[pos] == at) & (col < 0)
                col[hit] = codes[pos[hit]]
            if (col >= 0).any():
                out[name] = col
        return out


class _NoAttributes:
    @staticmethod
    def of(rows, ends=None):
        return {}


_NO_ATTRIBUTES = _NoAttributes()


def _dense(codes):
    """np.unique(codes, return_inverse=True), in linear time for small non-negative
    integers."""
    codes = np.asarray(codes, np.int64)
    if not len(codes) or codes.min() < 0 or codes.max() > 4 * len(codes) + 1_000_000:
        uniq, inv = np.unique(codes, return_inverse=True)
        return uniq, inv.reshape(-1)
    present = np.bincount(codes) > 0
    uniq = np.flatnonzero(present)
    lookup = np.cumsum(present) - 1
    return uniq, lookup[codes]


def _match(kb, ke):
    """(begin, end) indices pairing, per key, the k-th begin with the k-th end, each
    side in its given order. kb, ke: (n, k) integer keys; begins and ends left over
    are not in the result."""
    nb = len(kb)
    if not nb or not len(ke):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    keys = np.vstack([np.asarray(kb, np.int64), np.asarray(ke, np.int64)])
    side = np.r_[np.zeros(nb, np.int64), np.ones(len(ke), np.int64)]
    o = np.lexsort((side,) + tuple(keys.T[::-1]))  # by key, begins first; stable
    sk = keys[o]
    starts = np.flatnonzero(np.r_[True, (sk[1:] != sk[:-1]).any(axis=1)])
    size = np.diff(np.r_[starts, len(o)])
    n_begin = np.add.reduceat(1 - side[o], starts)
    pairs = np.minimum(n_begin, size - n_begin)
    k = np.arange(pairs.sum()) - np.repeat(np.cumsum(pairs) - pairs, pairs)
    first = np.repeat(starts, pairs)
    return o[first + k], o[first + np.repeat(n_begin, pairs) + k] - nb


def _mend(types, values, end, name, columns):
    """A part of table `name` made final: links typed and valued from their provisional
    codes (`types`, `values`), ends at _OPEN (np.inf) at the trace's `end`."""
    if name == "links":
        columns["type"], columns["value"] = types[columns["type"]], values[columns["value"]]
    at = columns.get("end")
    if at is not None and len(at) and np.isinf(at).any():
        columns["end"] = np.where(np.isinf(at), end, at)
    return columns


class _Messages:
    """The ends of MPI messages (columns _ENDS and `extra.NAME` attributes) by
    partition, their sender's batch: in memory, or where `folder` is given in its
    files (a block each batch, side and partition)."""

    def __init__(self, folder):
        self.folder = folder
        self.pending = {"send": [], "receive": []}  # (partitions, ends) of the batch
        self.blocks = collections.defaultdict(list)  # (partition, side) -> blocks

    def add(self, side, partition, ends):
        """Keep `side` ("send" or "receive") `ends`, of the `partition` each."""
        self.pending[side].append((partition, ends))

    def flush(self):
        """Make blocks of the batch's ends."""
        for side, pending in self.pending.items():
            if not pending:
                continue
            partition = np.concatenate([p for p, _ in pending])
            if not len(partition):  # (ends whose peer is outside their communicator)
                pending.clear()
                continue
            order = np.argsort(partition, kind="stable")  # (each partition's in order)
            ends = {k: v[order] for k, v in _joined([e for _, e in pending]).items()}
            pending.clear()
            partition = partition[order]
            cuts = np.flatnonzero(np.diff(partition)) + 1
            for i, j in zip(np.r_[0, cuts].tolist(), np.r_[cuts, len(order)].tolist()):
                p = int(partition[i])
                block = {k: v[i:j] for k, v in ends.items()}
                if self.folder:  # (one array; the names kept here: a field's may hold '/')
                    path = os.path.join(self.folder, f"{side}-{p}-{len(self.blocks[p, side])}.npy")
                    np.save(path, np.vstack([v.astype(np.int64) for v in block.values()]))
                    block = (path, list(block))
                self.blocks[p, side].append(block)

    def partitions(self):
        """(sends, receives) of each partition, in order (every block's columns; -1
        in the blocks without a field); the files removed once read."""
        for p in sorted({p for p, _ in self.blocks}):
            yield tuple(_joined([self._loaded(b) for b in self.blocks.pop((p, side), [])])
                        for side in ("send", "receive"))

    @staticmethod
    def _loaded(block):
        if not isinstance(block, tuple):
            return block
        path, names = block
        block = dict(zip(names, np.load(path)))
        os.remove(path)
        return block


def _joined(blocks):
    """The columns of `blocks` (dicts of columns) end to end: every block's, -1 in those
    without it (_ENDS where there are none)."""
    names = dict.fromkeys(k for b in blocks for k in b) or _ENDS
    return {k: np.concatenate([b[k] if k in b else np.full(len(b["time"]), -1, np.int64)
                               for b in blocks]) if blocks else np.zeros(0, np.int64)
            for k in names}


class _Whole:
    """read_otf2's sink for a Trace read whole: the tables handed over, kept, their
    fields noted as spill.Spill notes them; `mend` (the builder's) applied at the end."""

    def __init__(self):
        self.parts = {name: [] for name in ENTITY_KINDS}
        self.fields = Fields()
        self.mend = None

    def __call__(self, tables, keys=None, dropped=None):
        for name, columns in tables.items():
            self.fields.see(name, columns)
            self.parts[name].append(columns)

    def tables(self):
        """(table -> SCHEMA's columns, table -> field -> name codes) of all the parts
        (let go as they are joined)."""
        columns, extra = {}, {}
        for name, fields in self.fields.of().items():
            parts = [self.mend(name, p) for p in self.parts.pop(name)]
            columns[name] = {c: np.concatenate([p[c] for p in parts]) if parts else
                             np.zeros(0, d) for c, d in SCHEMA[name].items()}
            extra[name] = {f: np.concatenate([p.get(f"extra.{f}", np.full(len(p["row"]), -1,
                                                                           np.int32))
                                              for p in parts]) for f in fields}
        return columns, extra
