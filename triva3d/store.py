"""A trace as a partitioned Parquet dataset (issue 34.1): `triva3d ingest TRACE -o DIR`
writes it, and DIR then opens as a trace of its own (an entry of load.READERS).

DIR holds `store.json` (the format, the source, the time unit, the reader's report,
which user-defined fields each table has, each entity table's files with their rows
counted by the time slices of their start and of their end),
`names.parquet` (the interned names),
`types.parquet`, `values.parquet`, `containers.parquet`, `state_pairs.parquet`,
`variable_pairs.parquet` and `overview.parquet` (small: each one file; beside the
types, values and containers their colours and what the whole run says of them,
trace.Whole, for a reader of part of the store, its link sizes in store.json; the
overview: analysis.overview's means in its fine_bins, bins by state values flattened
in one column),
and a dataset per entity table (`states/`,
`links/`, `variables/`, `events/`) partitioned by container bucket
(`bucket=K`: containers bucket_starts[K] to bucket_starts[K + 1] - 1, ranges of about
equal rows; a link by its sender, with
its Size parsed in a column `bytes`, NaN where none) and, inside each bucket's file,
by time: TIME_SLICES equal slices of the trace's span, an entity in the slice of its
start (or time), each slice its own row groups (of at most ROW_GROUP rows) sorted by
container then start, with min/max statistics, zstd compressed. A window's reader
(engine.py) thus skips the slices that start after it or end before it. A `row`
column keeps the Trace's own order, so that reading the store back gives the very
Trace (dump for dump).
"""
import collections
import functools
import itertools
import json
import os
import stat

import numpy as np

from .errors import OptionsError, TraceError, out_of_memory
from .output import writing
from .trace import ENTITY_KINDS, SCHEMA, Kind, Names, Table, Trace, Whole, check

FORMAT = 10  # (10: what reading OTF2 gives changed: collectives a region holds)
MARK = "triva3d-store"
#: Rows per row group at most, at most this many container buckets, time slices.
ROW_GROUP, BUCKETS, TIME_SLICES = 1 << 20, 64, 16
#: Names in a row group of names.parquet.
NAME_GROUP = 1 << 20
#: Buckets written at once by ingest (each its own file; threads).
WRITERS = min(4, os.cpu_count() or 1)
ENTITIES = tuple(ENTITY_KINDS)
#: The column of each entity table that buckets it: its container (a link's sender).
OWNER = {"states": "container", "links": "start_container", "variables": "container",
         "events": "container"}
RGBA = ("r", "g", "b", "a")
#: The columns of trace.Whole beside the values (its value_counts: three) and types.
VALUE_USAGE = ("seconds", "states", "links", "events")
TYPE_USAGE = ("count", "platform", "constant", "deepest", "first", "last")
#: The small tables, each a file.
SMALL = ("names", "types", "values", "containers", "state_pairs", "variable_pairs",
         "overview")
#: The folder of an ingest's spilled rows (spill.py), inside the store's while it is made.
SPILL = ".spill"
#: The columns of variable_pairs.parquet (analysis.roles.variable_pairs).
PAIRS = ("key", "first", "largest")


def store_folder(path):
    """The store's folder that `path` (the folder, or its store.json) names, or None;
    also what an ingest that did not finish left (reading it is an error)."""
    folder = os.path.dirname(path) if os.path.basename(path) == "store.json" else path
    unfinished = os.path.isfile(os.path.join(folder, "names.parquet")) and \
        not os.path.exists(os.path.join(folder, "store.json"))
    return folder if unfinished or is_store(folder) else None


def is_store(path):
    """Whether `path` is a store's folder."""
    meta = os.path.join(str(path), "store.json")
    if not os.path.isfile(meta):
        return False
    try:
        with open(meta, encoding="utf-8") as f:
            return json.load(f).get("mark") == MARK
    except (OSError, ValueError, AttributeError, RecursionError):
        return False


def check_out(out):
    """Refuse (OptionsError) to ingest into `out` where it holds anything but a store
    (or what an interrupted ingest left)."""
    ours = {"store.json", SPILL, *ENTITIES, *(f"{t}.parquet" for t in SMALL)}
    if os.path.isdir(out) and not is_store(out) and set(os.listdir(out)) - ours:
        raise OptionsError(f"{out}: a folder holding other files than a store: give a new "
                           "or an empty folder")


def ingest(trace, out, progress=None):
    """Write `trace` (in memory) as a store in the folder `out` (write_store, its
    `progress`; checked whole first: a store there stays where it is refused)."""
    check_out(out)
    why = check(trace)
    if why:
        raise TraceError(str(trace.source), None, f"cannot be stored: {why}")
    n = len(trace.containers)
    starts = bucket_starts(sum(np.bincount(owner_of(name, getattr(trace, name).columns),
                                           minlength=n) for name in ENTITIES))
    extra = {name: list(getattr(trace, name).extra) for name in ENTITIES}
    return write_store(trace, starts, _buckets_of(trace, starts), out, extra,
                       {name: len(getattr(trace, name)) for name in ENTITIES},
                       progress=progress)


def bucket_starts(rows):
    """The first container of each bucket, then the containers' count: ranges of
    containers of about equal entity rows (`rows`: each container's), BUCKETS at
    most (a container's rows in one bucket, so it may hold more)."""
    cum = np.concatenate([[0], np.cumsum(rows, dtype=np.int64)])
    cuts = np.searchsorted(cum, np.arange(1, BUCKETS) * (cum[-1] / BUCKETS))
    return np.unique(np.concatenate([[0], np.minimum(cuts, len(rows)), [len(rows)]]))


def bucket_of(starts, containers):
    """The bucket of each of `containers` (bucket_starts' `starts`)."""
    return np.searchsorted(starts, containers, side="right") - 1


def owner_of(name, columns):
    """The container column that buckets table `name` (a link: its sender)."""
    return columns[OWNER[name]]


def time_of(name, columns):
    """The start (an event's time) and end columns of table `name`."""
    return (columns["time"], columns["time"]) if name == "events" else \
        (columns["start"], columns["end"])


def _buckets_of(trace, starts):
    """(bucket, table -> its columns and `row`: the bucket's rows in the trace's
    order) of every bucket (of `starts`) holding entities, and of bucket 0."""
    tables = {}
    for name in ENTITIES:
        t = getattr(trace, name)
        columns = {**t.columns, **_extra(t)}
        bucket = bucket_of(starts, owner_of(name, columns))
        by_bucket = np.argsort(bucket, kind="stable")
        tables[name] = columns, by_bucket, np.searchsorted(bucket[by_bucket],
                                                          np.arange(len(starts)))
    for b in range(len(starts) - 1):
        if b and not any(cuts[b + 1] > cuts[b] for _, _, cuts in tables.values()):
            continue
        yield b, {name: {**{c: v[rows] for c, v in columns.items()},
                         "row": rows.astype(np.int64)}
                  for name, (columns, by_bucket, cuts) in tables.items()
                  for rows in [by_bucket[cuts[b]:cuts[b + 1]]]}


def write_store(frame, starts, buckets, out, extra, counts, keys=None, progress=None):
    """Write a store in the folder `out` (made if needed; a store there, or what an
    interrupted ingest left, is replaced; check_out refuses anything else): the
    names, types, values and containers of the Trace `frame` (its entities unused),
    and the entities of `buckets` (of the containers from `starts`, bucket_starts),
    (bucket, table -> columns: SCHEMA's, `extra.NAME`
    for the fields `extra` (table -> names) lists and `row`, in the trace's order) in
    increasing bucket order; `counts`: each table's rows in all; `keys`: None (the
    frame's names are all, the links' key columns given), or blocks (lengths, bytes
    end to end) of every link's key in the trace's order, appended to the names (the
    links' key column: their number there); `progress`: None, or f(buckets written,
    buckets), called after each.
    A TraceError where a part breaks what a read checks (trace.check). What the
    whole run says is summed over the buckets (summary.Summary); store.json, written
    last, makes it a store. Returns the number of files written."""
    import shutil
    from concurrent.futures import ThreadPoolExecutor

    import pyarrow as pa
    import pyarrow.parquet as pq

    from .analysis.metrics import link_bytes
    from .analysis.overview import fine_bins, fine_edges, state_counts
    from .analysis.timeslice import nesting_parents_of
    from .memory import give_back
    from .summary import Summary
    check_out(out)
    empty = {name: {c: np.zeros(0, d) for c, d in SCHEMA[name].items()} for name in ENTITIES}
    skeleton = _with_entities(frame, empty, {})
    why = check(skeleton)  # (a store is read back checked: never write one it refuses)
    if why:
        raise TraceError(str(frame.source), None, f"cannot be stored: {why}")
    os.makedirs(out, exist_ok=True)
    for name in ("store.json",) + ENTITIES:  # (first no store; a bucket the new store
        path = os.path.join(out, name)        # has not would stay)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.remove(path)
    files = 0

    def write_small(name, columns):
        nonlocal files
        pq.write_table(pa.table({k: np.ascontiguousarray(v) for k, v in columns.items()}),
                       os.path.join(out, f"{name}.parquet"), compression="zstd")
        files += 1
    names = frame.names
    _write_names(os.path.join(out, "names.parquet"), itertools.chain(
        [(names.offsets, names.arena)],
        ((np.concatenate([[0], np.cumsum(lengths)]), data) for lengths, data in keys or ())))
    files += 1
    n_types, n_values = len(frame.types), len(frame.values)
    summary = Summary(n_types, n_values, len(frame.containers))
    t0, t1 = frame.start_time, frame.end_time
    state_values = np.flatnonzero(frame.types.kind[frame.values.type] == Kind.STATE)
    col_of_value = np.full(n_values, -1, np.int32)
    col_of_value[state_values] = np.arange(len(state_values), dtype=np.int32)
    edges = fine_edges(t0, t1, fine_bins(len(state_values)))
    overview = np.zeros((len(edges) - 1, len(state_values)))  # (bucket by bucket: summed)
    queued = collections.deque()  # the buckets on their way (pyarrow frees the GIL)
    written = {name: [] for name in ENTITIES}  # (file, rows, slices) of each table
    with ThreadPoolExecutor(WRITERS) as pool:
        for b, part in buckets:
            trace = _with_entities(frame, {name: {c: part[name][c] for c in SCHEMA[name]}
                                           for name in ENTITIES},
                                   {name: {k: part[name][f"extra.{k}"] for k in extra[name]}
                                    for name in ENTITIES})
            why = check(trace)
            if why:
                raise TraceError(str(frame.source), None, f"cannot be stored: {why}")
            links = part["links"]
            row = links.pop("row")
            links.update(bytes=link_bytes(trace), row=row)  # (before row, as ever)
            summary.add(trace, links["bytes"])  # (rows in the trace's order)
            del trace
            if keys is not None:
                links["key"] = (len(names) + links["row"]).astype(np.int32)
            for name in ENTITIES:
                columns = part.pop(name)
                if not len(columns["row"]) and (b or counts[name]):
                    continue  # (an empty table: its schema in bucket 0)
                start, _ = time_of(name, columns)
                order = np.lexsort((start, owner_of(name, columns), _slots(start, t0, t1)))
                for c in columns:  # (sorted a column at a time: no second copy)
                    columns[c] = columns[c][order]
                start, end = time_of(name, columns)
                slot = _slots(start, t0, t1)
                if name == "states" and len(order) and len(state_values):
                    parent = nesting_parents_of(columns["container"], columns["type"], start,
                                                columns["imbrication"]) \
                        if columns["imbrication"].max() > 0 else np.full(len(order), -1)
                    overview += state_counts(col_of_value[columns["value"]], parent, start,
                                             end, len(state_values)).means(edges)
                part_file = os.path.join(name, f"bucket={b}", "part-0.parquet")
                os.makedirs(os.path.join(out, os.path.dirname(part_file)), exist_ok=True)
                queued.append(pool.submit(_write_bucket, os.path.join(out, part_file),
                                          columns, slot))
                spread = np.bincount(slot * TIME_SLICES + _slots(end, t0, t1),
                                     minlength=TIME_SLICES ** 2)
                written[name].append((part_file, len(order),
                                      [(int(k) // TIME_SLICES, int(k) % TIME_SLICES,
                                        int(spread[k])) for k in np.flatnonzero(spread)]))
                del columns, order, start, end, slot
                while len(queued) > WRITERS:  # (as many tables' files as writers)
                    queued.popleft().result()
                files += 1
            give_back()  # (the threads' arenas keep what a bucket freed otherwise)
            if progress:
                progress(b + 1, len(starts) - 1)
        while queued:
            queued.popleft().result()
    if progress:
        progress(len(starts) - 1, len(starts) - 1)
    whole = summary.result()
    for name, colors, cols, values in (
            ("types", frame.type_colors, TYPE_USAGE,
             [whole["per_type"], whole["platform"], whole["constant"], whole["deepest"],
              *whole["spans"].T]),
            ("values", frame.value_colors, VALUE_USAGE, [whole["seconds"], *whole["counts"].T])):
        write_small(name, {**getattr(frame, name).columns, **_extra(getattr(frame, name)),
                           **{c: colors[:, k] for k, c in enumerate(RGBA)},
                           **dict(zip(cols, values))})
    write_small("containers", {**frame.containers.columns, **_extra(frame.containers),
                               "entities": whole["entities"]})
    write_small("state_pairs", {"key": whole["state_pairs"]})
    write_small("variable_pairs", dict(zip(PAIRS, whole["variable_pairs"])))
    write_small("overview", {"means": overview.ravel()})  # (a column each: 1e6 values
    #                                                     made a footer Parquet refuses)
    meta = {"mark": MARK, "format": FORMAT, "source": str(frame.source),
            "time_unit": frame.time_unit, "unit_note": frame.unit_note,
            "report": [list(r) for r in frame.report], "other_records": frame.other_records,
            "bucket_starts": np.asarray(starts).tolist(), "time_slices": TIME_SLICES,
            "span": [t0, t1], "link_sizes": list(whole["link_sizes"]),
            "overview": state_values.tolist(),
            "extra": {t: list(getattr(frame, t).extra) if t not in ENTITIES else extra[t]
                      for t in SCHEMA},
            "files": written}
    with writing(os.path.join(out, "store.json")) as f:
        json.dump(meta, f, indent=1, default=_plain)
    return files + 1


def _write_names(path, pieces):
    """Write the names of `pieces` (each (n + 1 offsets, from any base, into its
    bytes)), end to end, as the Parquet file `path`: row groups of NAME_GROUP names
    wherever the pieces break."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    held, count = [], 0  # (names not written yet: (offsets, bytes) each)

    def flush():
        ends = [np.zeros(1, np.int64)]
        for offsets, data in held:
            ends.append(offsets[1:] - offsets[0] + ends[-1][-1])
        data = np.concatenate([d[o[0]:o[-1]] for o, d in held])
        w.write_table(pa.table({"name": pa.LargeBinaryArray.from_buffers(
            pa.large_binary(), count, [None, pa.py_buffer(np.concatenate(ends)),
                                       pa.py_buffer(data)])}), row_group_size=NAME_GROUP)
    with pq.ParquetWriter(path, pa.schema([("name", pa.large_binary())]),
                          compression="zstd") as w:
        for offsets, data in pieces:
            at, n = 0, len(offsets) - 1
            while at < n:
                take = min(NAME_GROUP - count, n - at)
                held.append((np.asarray(offsets[at:at + take + 1], np.int64), data))
                count, at = count + take, at + take
                if count == NAME_GROUP:
                    flush()
                    held, count = [], 0
        if count:
            flush()


def _with_entities(frame, columns, extra):
    """A Trace of `frame`'s names, types, values and containers with the entity
    `columns` (table -> SCHEMA's columns) and `extra` (table -> field -> codes)."""
    small = ("containers", "types", "values")
    return Trace(frame.names, {**{t: getattr(frame, t) for t in small},
                               **{t: Table(t, columns[t], extra.get(t)) for t in ENTITIES}},
                 frame.type_colors, frame.value_colors, source=frame.source,
                 time_unit=frame.time_unit)


def _slots(time, t0, t1):
    """The time slice of each of `time` in the run from `t0` to `t1`."""
    return np.clip((time - t0) * (TIME_SLICES / max(t1 - t0, 1e-300)), 0,
                   TIME_SLICES - 1).astype(np.int32)


def _write_bucket(path, columns, slot):
    """Write the table of `columns` (its rows sorted by time slice `slot`, then
    container and time) to the Parquet file `path`: a row group or more each time
    slice, zstd, with statistics."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    tb = pa.table({c: np.ascontiguousarray(v) for c, v in columns.items()})
    at = np.searchsorted(slot, np.arange(TIME_SLICES + 1))
    with pq.ParquetWriter(path, tb.schema, compression="zstd", write_statistics=True) as w:
        if not len(slot):  # an empty table: its schema
            w.write_table(tb)
        for a, z in zip(at[:-1].tolist(), at[1:].tolist()):
            if z > a:
                w.write_table(tb.slice(a, z - a), row_group_size=ROW_GROUP)


def _extra(table):
    """The user-defined fields of `table` as the store's columns: `extra.NAME`."""
    return {f"extra.{k}": v for k, v in table.extra.items()}


def _plain(v):
    """JSON for what json does not write itself: numpy numbers, paths."""
    return v.item() if isinstance(v, np.generic) else str(v)


#: Peak bytes of a whole read per byte of the entities' columns (Arrow's table, its
#: numpy copy and the copy in the trace's order: 1.2 GB for 1e7 states and 1e6 links).
READ_PEAK = 4


def read_store(path, *, lenient=False, progress=None):
    """The Trace of the store at `path` (`lenient`: unused; `progress(files read,
    files)` after each partition file, as a reader's; what it raises stops the read);
    TraceError when it is not a store of this version, or a damaged one, or when
    reading it whole would take more memory than is free."""
    path = str(path)
    _check_memory(path, None)
    return _read(path, progress=progress)


def _amount(n):
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.1f} MB"


def _check_memory(path, window):
    """A TraceError where reading the store at `path` whole (window None) or the
    entities meeting `window` would take more memory than is free (nothing where
    it is no store of this version: the read says what is wrong)."""
    if meta_of(path) is None:
        return
    need, free = read_bytes(path, window), _free_bytes()
    if free is None or need <= free:
        return
    if window is None:
        raise TraceError(path, None, f"reading it whole needs about {_amount(need)}, "
                                     f"{_amount(free)} are free: draw a time window of it, "
                                     "its treemap or its places, which read it in parts")
    raise TraceError(path, None, f"reading the window {window[0]:g}:{window[1]:g} needs "
                                 f"about {_amount(need)}, {_amount(free)} are free: "
                                 "choose a shorter one")


def fits(path, most=None):
    """Whether reading the store at `path` whole fits in the memory free (where that
    is known) and in `most` bytes (where given)."""
    room = [n for n in (_free_bytes(), most) if n is not None]
    return not room or read_bytes(str(path)) <= min(room)


@functools.lru_cache(maxsize=4)
def _meta(path, stamp):
    """The store.json of the store at `path` as it is at `stamp` (its time), None
    where it cannot be read (the read says what is wrong)."""
    try:
        with open(os.path.join(path, "store.json"), encoding="utf-8") as f:
            meta = json.load(f)
        return meta if meta.get("format") == FORMAT else None
    except (OSError, ValueError, AttributeError, RecursionError):
        return None


def meta_of(path):
    """_meta of the store at `path` now."""
    try:
        return _meta(str(path), os.stat(os.path.join(path, "store.json")).st_mtime_ns)
    except OSError:
        return None


def entity_files(path, name, readable=False):
    """The files of the store at `path` holding its table `name`, in bucket order, as its
    store.json lists them; a TraceError naming one that is missing or is not the one
    written there (its rows, its containers: another bucket's, a stale copy), and
    with `readable` one whose footer cannot be read (else the read says so)."""
    meta = meta_of(path)
    try:
        listed = sorted(((os.path.join(path, part), rows) for part, rows, _ in
                         meta["files"][name]), key=lambda f: _bucket_number(f[0]))
        starts = [int(x) for x in meta["bucket_starts"]]
    except (KeyError, TypeError, ValueError):
        raise TraceError(path, None, "not a readable triva3d store of this version: "
                                     "ingest again") from None
    column = OWNER[name]
    for f, rows in listed:
        try:
            st = os.stat(f)
        except OSError:
            raise TraceError(f, None, "missing: the store is incomplete, ingest again") \
                from None
        bucket = _bucket_number(f)
        if not stat.S_ISREG(st.st_mode):  # (a named pipe would never end)
            raise TraceError(f, None, "not a readable store partition: not a regular file")
        if not 0 <= bucket < len(starts) - 1:
            raise TraceError(f, None, "not a partition of this store: no such bucket")
        _check_file(f, st.st_size, st.st_mtime_ns, rows, starts[bucket], starts[bucket + 1],
                    column, readable)
    return [f for f, _ in listed]


@functools.lru_cache(maxsize=1024)
def _bucket_number(f):
    """The bucket of the partition file `f` (.../bucket=K/part-0.parquet): K."""
    return int(os.path.basename(os.path.dirname(f)).partition("=")[2])


def _check_file(f, size, stamp, rows, lo, hi, column, readable=False):
    """A TraceError where the partition file `f` (of `size` bytes at `stamp`) does not
    hold `rows` rows of the containers lo to hi - 1 in `column` (its footer's
    statistics; a file that cannot be read is left to the read unless `readable`)."""
    import pyarrow.parquet as pq
    try:
        meta = pq.read_metadata(f)
        k = meta.schema.names.index(column)
    except Exception as e:  # untrusted: the read says what is wrong
        if readable:
            raise TraceError(f, None, f"not a readable store partition: "
                                      f"{e or type(e).__name__}") from None
        return
    if meta.num_rows != rows:
        raise TraceError(f, None, f"not the partition its store wrote: {meta.num_rows} rows, "
                                  f"{rows} written (ingest again)")
    for g in range(meta.num_row_groups):
        st = meta.row_group(g).column(k).statistics
        if st is not None and st.has_min_max and not lo <= st.min <= st.max < hi:
            raise TraceError(f, None, f"not the partition its store wrote: containers "
                                      f"{st.min} to {st.max}, its bucket holds {lo} to "
                                      f"{hi - 1} (ingest again)")


def _meeting(window, t0, t1):
    """(TIME_SLICES, TIME_SLICES): the share of the entities starting in each time
    slice of the run from `t0` to `t1` and ending in each that meets `window` (see
    read_bytes)."""
    a, b = (float(t) for t in window)
    d = (t1 - t0) / TIME_SLICES
    if d <= 0:
        return np.full((TIME_SLICES, TIME_SLICES), float(b >= t0 and a <= t1))
    lo = t0 + d * np.arange(TIME_SLICES)
    hi = lo + d
    lo[0], hi[-1] = -np.inf, np.inf
    share = np.outer(b >= lo, a <= hi).astype(np.float64)
    np.fill_diagonal(share, np.clip((np.minimum(b, hi) - np.maximum(a, lo)) / d, 0, 1))
    return share


def _spread(path):
    """(table, extra columns, rows starting in each time slice (TIME_SLICES, ending
    in each), the run's (start, end)) of each entity file of the store at `path`,
    from its store.json (nothing where it cannot say: the read says what is wrong)."""
    meta = meta_of(path)
    try:
        t0, t1 = meta["span"]
        for name in ENTITIES:
            extra = len(meta["extra"][name])
            for _, _, cells in meta["files"][name]:
                counts = np.zeros((TIME_SLICES, TIME_SLICES))
                for s, e, n in cells:
                    counts[s, e] = n
                yield name, extra, counts, (float(t0), float(t1))
    except (KeyError, TypeError, ValueError, IndexError):
        return


def meeting_counts(path, window):
    """About how many entities of each table of the store at `path` meet `window`
    (as read_bytes guesses them: too many rather than too few)."""
    out = dict.fromkeys(ENTITIES, 0.0)
    for name, _, counts, (t0, t1) in _spread(path):
        out[name] += float((counts * _meeting(window, t0, t1)).sum())
    return out


def read_bytes(path, window=None):
    """About the peak bytes of reading the store at `path` whole (window None) or
    the entities meeting `window`, from its entities counted by the time slices of
    their start and of their end (the first slice reaching back for ever, the last
    on for ever: entities outside the run's span): of those starting and ending in
    one slice, the share of it the window covers (short ones, spread evenly); of the
    others, all where the window ends after their start slice begins and starts
    before their end slice ends (a guess too high rather than too low). 0 where the
    store cannot say: the read then says what is wrong."""
    total = 0.0
    for name, extra, counts, (t0, t1) in _spread(path):
        if window is not None:
            counts = counts * _meeting(window, t0, t1)
        width = sum(np.dtype(d).itemsize for d in SCHEMA[name].values()) + 8 + \
            8 * (name == "links") + 8 * extra  # (the row, the links' bytes)
        total += counts.sum() * width
    return int(total * READ_PEAK)


#: A window opens a store whole where reading it takes at most this many bytes (a
#: few million entities), else its first PART_ROWS entities (engine.read_for_view).
OPEN_BYTES = 1 << 30
#: Entities of the part a store opens with: about as many states as the View draws
#: one by one (scene.geometry.EXACT_LIMIT); the window, its Qt, VTK and llvmpipe then
#: stay under 1 GB on a 1e8-state store of 10 000 processes.
PART_ROWS = 1 << 17
#: The fewest entities first_window halves them to where memory is short.
MIN_PART_ROWS = 1 << 10


def first_window(path, rows=None):
    """The window from the start of the store at `path` whose entities are about
    `rows` (default PART_ROWS; entities spread evenly inside each time slice), or
    the whole run where it holds fewer; `rows` halved, down to MIN_PART_ROWS, while
    reading them would take more memory than is free."""
    rows = PART_ROWS if rows is None else rows
    meta = meta_of(path)
    if meta is None:
        raise TraceError(path, None, "not a readable triva3d store of this version: "
                                     "ingest again")
    t0, t1 = meta["span"]
    d = (t1 - t0) / TIME_SLICES
    per_slice = np.zeros(TIME_SLICES)
    for _, _, counts, _ in _spread(path):
        per_slice += counts.sum(axis=1)
    before = np.concatenate([[0], np.cumsum(per_slice)])

    def window(rows):
        k = int(np.searchsorted(before, rows, side="right")) - 1
        if d <= 0 or k >= TIME_SLICES:
            return t0, t1
        return t0, float(t0 + d * (k + (rows - before[k]) / per_slice[k]))
    free = _free_bytes()
    while (free is not None and rows > MIN_PART_ROWS
           and read_bytes(path, window(rows)) > free):
        rows = max(rows // 2, MIN_PART_ROWS)
    return window(rows)


def _free_bytes():
    """The memory this machine has free for a new task (Linux's MemAvailable), or
    None where unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            return next(int(line.split()[1]) * 1024 for line in f
                        if line.startswith("MemAvailable:"))
    except (OSError, StopIteration, ValueError, IndexError):
        return None


def read_window(path, window, pairs, progress=None):
    """The Trace of the store at `path` holding only the entities that meet `window`
    = (t0, t1) (states, links and variable pieces overlapping it, events in it; none
    for ()), all the containers, types and values, and what the whole run says in
    its `whole` (trace.Whole, whose `pairs` is given: engine.read_part);
    `progress` and TraceError as read_store's, also where the window's entities
    would not fit in the memory free."""
    path = str(path)
    if window != ():
        _check_memory(path, window)
    return _read(path, window, pairs, progress)


def _entities(files, name, fields, window, step):
    """The columns (SCHEMA's and the user-defined fields') of table `name` in the
    partition `files`, in the trace's order (their `row`): every row (window None)
    or those meeting `window` = (t0, t1) (states, links and variable pieces
    overlapping it, events in it); `step()` after each file."""
    wanted = entity_columns(name, fields)
    pieces = {c: [] for c in wanted}
    for f in files:
        for c, x in read_meeting(f, name, wanted, window).items():
            pieces[c].append(x)
        step()
    return in_trace_order(pieces, name)


def entity_columns(name, fields):
    """The columns of table `name` a store holds: SCHEMA's, the user-defined `fields`
    (`extra.K`), the trace's row."""
    return list(SCHEMA[name]) + [f"extra.{k}" for k in fields] + ["row"]


def in_trace_order(pieces, name):
    """The columns of table `name` from `pieces` (column -> its arrays, a file's or
    a task's each) end to end, in the trace's order (their row); `pieces` emptied."""
    order = np.argsort(_join(pieces["row"], np.int64), kind="stable")
    return {c: _join(pieces.pop(c), _stored_dtype(name, c))[order] for c in list(pieces)}


def _join(arrays, dtype):
    """`arrays` end to end (none: an empty one of `dtype`)."""
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype)


def read_meeting(path, table, columns, window=None):
    """The `columns` (name -> array) of the rows of the Parquet file `path` of the
    entity table `table` that meet `window` = (t0, t1) (every row for None; see
    _entities), in the file's order; the row groups whose statistics say none meets
    the window are not read (a store's time slices). A ValueError where a column is
    not of the type the store writes."""
    import pyarrow.parquet as pq
    pf = pq.ParquetFile(path)
    meta, names = pf.metadata, pf.metadata.schema.names
    for c in columns:
        kind = pf.schema_arrow.field(c).type
        if np.dtype(kind.to_pandas_dtype()) != _stored_dtype(table, c):
            raise ValueError(f"its column {c} holds {kind}, a store writes "
                             f"{np.dtype(_stored_dtype(table, c))}")
    first, last = ("time", "time") if table == "events" else ("start", "end")
    groups, every = list(range(meta.num_row_groups)), window is None
    if window is not None:
        groups, every = [], True
        for g in range(meta.num_row_groups):
            lo = meta.row_group(g).column(names.index(first)).statistics
            hi = meta.row_group(g).column(names.index(last)).statistics
            known = all(x is not None and x.has_min_max for x in (lo, hi))
            if known and (lo.min > window[1] or hi.max < window[0]):
                continue
            groups.append(g)
            every &= known and lo.max <= window[1] and hi.min >= window[0]
    t = pf.read_row_groups(groups, columns=list(dict.fromkeys(
        columns + ([] if every else [first, last]))))
    keep = None if every else np.flatnonzero(
        (numbers(t.column(first)) <= window[1]) & (numbers(t.column(last)) >= window[0]))
    return {c: numbers(t.column(c)) if keep is None else numbers(t.column(c))[keep]
            for c in columns}


def _stored_dtype(table, column):
    """The dtype of `column` of the entity table `table` in a store (SCHEMA's, a row
    number, a link's bytes, a user-defined field's name code)."""
    extra = np.int32 if column.startswith("extra.") else None
    return SCHEMA[table].get(column) or {"row": np.int64, "bytes": np.float64}.get(column, extra)


def numbers(column):
    """A pyarrow column of numbers or booleans without nulls as a numpy array, read
    from its buffers (pyarrow's to_numpy imports pandas where installed: 50 MB more);
    a ValueError for any other column."""
    import pyarrow as pa
    kind = column.type
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind) or
            pa.types.is_boolean(kind)) or column.null_count:
        raise ValueError(f"a column of {kind} with {column.null_count} nulls where numbers "
                         "were written")
    dtype = np.dtype(kind.to_pandas_dtype())
    out = []
    for a in getattr(column, "chunks", [column]):
        data = a.buffers()[1]
        if dtype == bool:
            bits = np.unpackbits(np.frombuffer(data, np.uint8), bitorder="little")
            out.append(bits[a.offset:a.offset + len(a)].astype(bool))
        else:
            out.append(np.frombuffer(data, dtype, len(a), a.offset * dtype.itemsize))
    return out[0] if len(out) == 1 else np.concatenate(out) if out else np.zeros(0, dtype)


def read_table(path, columns=None):
    """A whole Parquet file as a pyarrow Table (not pyarrow.parquet.read_table: it goes
    through pyarrow.dataset, which imports pandas where installed, 50 MB more)."""
    import pyarrow.parquet as pq
    return pq.ParquetFile(path).read(columns=columns)


def _read(path, window=None, pairs=None, progress=None):
    """The store's Trace: every entity (window None), none (window ()), or those
    meeting the window, then with its Whole; `progress` as read_store's."""
    done, stopped = [0], [False]  # (files read; whether progress raised: no damage)

    def step():
        done[0] += 1
        try:
            progress(done[0], total)
        except BaseException:
            stopped[0] = True
            raise
    if not os.path.exists(os.path.join(path, "store.json")):
        raise TraceError(path, None, "not a triva3d store: its ingest did not finish (no "
                                     "store.json): ingest again")
    try:
        with open(os.path.join(path, "store.json"), encoding="utf-8") as f:
            meta = json.load(f)
        if meta.get("mark") != MARK or meta.get("format") != FORMAT:
            raise TraceError(path, None, "a store of another triva3d version: ingest again")
        names_col = read_table(os.path.join(path, "names.parquet")).column("name")
        chunk = names_col.combine_chunks()
        _, offsets, data = chunk.buffers()
        offsets = np.frombuffer(offsets, np.int64, len(chunk) + 1, chunk.offset * 8)
        arena = np.frombuffer(data, np.uint8, int(offsets[-1])) if data else \
            np.zeros(0, np.uint8)
        files = {name: entity_files(path, name, readable=window == ()) for name in ENTITIES}
        if window == ():  # (every file checked all the same: stats, place say the store's)
            files = {}
        total = sum(len(f) for f in files.values())
        columns, extra, colors, small = {}, {}, {}, {}
        # (the names: above; the overview: a part's alone)
        for name in SMALL[1:-1] + (("overview",) if window is not None else ()):
            t = read_table(os.path.join(path, f"{name}.parquet"))
            small[name] = {c: numbers(t.column(c))
                           for c in t.column_names}
            columns[name] = {c: small[name][c] for c in SCHEMA.get(name, ())}
            for c, dtype in SCHEMA.get(name, {}).items():
                if columns[name][c].dtype != dtype:
                    raise ValueError(f"{name}.parquet's column {c} holds "
                                     f"{columns[name][c].dtype}, a store writes {np.dtype(dtype)}")
            extra[name] = {k: small[name][f"extra.{k}"] for k in meta["extra"].get(name, [])}
            if name in ("types", "values"):
                colors[name] = np.stack([small[name][c] for c in RGBA],
                                        axis=1).astype(np.float32)
        for name in ENTITIES:
            fields = meta["extra"].get(name, [])
            if window == ():
                columns[name] = {c: np.zeros(0, d) for c, d in SCHEMA[name].items()}
                extra[name] = {k: np.zeros(0, np.int32) for k in fields}
                continue
            got = _entities(files[name], name, fields,
                            None if window is None else tuple(float(t) for t in window),
                            step if progress else lambda: None)
            columns[name] = {c: got[c] for c in SCHEMA[name]}
            extra[name] = {k: got[f"extra.{k}"] for k in fields}
        trace = Trace.from_columns(
            Names(arena, offsets - offsets[0]), columns, extra, colors["types"],
            colors["values"], source=path, report=[tuple(r) for r in meta["report"]],
            files=[path], other_records=meta.get("other_records"),
            time_unit=meta["time_unit"], unit_note=meta.get("unit_note"),
            whole=None if window is None else _whole(meta, small, window, pairs))
    except TraceError:
        raise
    except MemoryError:
        trace = None
    except Exception as e:  # untrusted: any damage
        if stopped[0]:
            raise
        raise TraceError(path, None, f"not a readable triva3d store: {e or type(e).__name__}") \
            from None
    if trace is None:
        raise out_of_memory(path)
    why = check(trace)
    if why:
        raise TraceError(path, None, f"not a readable triva3d store: {why}")
    return trace


def _whole(meta, small, window, pairs):
    """The store's trace.Whole of a part holding `window`, from its store.json `meta`
    and its small tables' columns `small`, with `pairs`."""
    values, types = small["values"], small["types"]
    return Whole(
        value_seconds=values["seconds"],
        value_counts=np.stack([values[c] for c in VALUE_USAGE[1:]], axis=1),
        type_counts=types["count"], type_deepest=types["deepest"],
        entity_containers=small["containers"]["entities"],
        state_pairs=small["state_pairs"]["key"],
        variable_pairs=tuple(small["variable_pairs"][c] for c in PAIRS),
        link_sizes=tuple(meta["link_sizes"]),
        platform_types=types["platform"], constant_types=types["constant"],
        type_spans=np.c_[types["first"], types["last"]],
        overview=small["overview"]["means"].reshape(-1, len(meta["overview"]))
        if meta["overview"] else np.zeros((0, 0)),
        pairs=pairs, window=tuple(window))
