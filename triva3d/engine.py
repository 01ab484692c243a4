"""Reductions over a store's partitions as Dask tasks (issue 34.2): each task reads
one container bucket of the store (store.py), only the row groups that can overlap
the window (predicate pushdown on start and end), reduces it, and the reductions
combine; buckets hold disjoint containers and a state's nesting stays within its
container, so a bucket's Time-Slice is its containers' whole answer. The tasks run
on a Dask scheduler (`address`, or the environment's TRIVA3D_DASK), else on threads
in this process.

Built so far: the Time-Slice of the states (seconds per container and state value,
nested time exclusive), equal to analysis.timeslice's on the same trace, and a
StoreSlicer that hands it to the treemap as a Slicer would (`treemap STORE`: the
states never in this process's memory); the utilization per bin (the overview's
counts, analysis.overview), the buckets' counts summed; the messages and bytes per
pair of containers (the communication graph's edges). And the exact geometry of a
window: read_part, the entities meeting it (a pyarrow filter over the time slices),
with what the whole run says (trace.Whole), its messages per pair from here.
"""
import os
import threading
from dataclasses import dataclass

import numpy as np

from .errors import OptionsError, TraceError
from .trace import Kind

#: How long to wait for a scheduler before saying it cannot be reached (s).
CONNECT_S = 5
#: Held while a parallel numba kernel runs: tasks on threads must not enter them at
#: once (numba's workqueue threading layer aborts).
_PARALLEL = threading.Lock()


def client(address=None):
    """A distributed Client of the scheduler at `address` (default TRIVA3D_DASK), or
    None to run in this process; an OptionsError in one line where it cannot be
    reached."""
    address = address or os.environ.get("TRIVA3D_DASK")
    if not address:
        return None
    from distributed import Client
    try:
        return Client(address, timeout=CONNECT_S)
    except (OSError, TimeoutError, ValueError) as e:
        raise OptionsError(f"Dask scheduler {address}: cannot be reached "
                           f"({type(e).__name__})") from None


def _read_overlapping(path, table, columns, t0, t1, codes):
    """The `columns` (name -> array) of the entities of one bucket file of `table`
    whose [start, end] meets [t0, t1]; the row groups' statistics skip the other time
    slices. A TraceError where the file cannot be read, or a column named in `codes`
    holds a code outside 0 to codes[column] - 1, or an entity ends before it starts."""
    from .store import read_meeting
    try:
        c = read_meeting(path, table, columns, (t0, t1))
    except Exception as e:  # untrusted: any damage
        raise TraceError(path, None, f"not a readable store partition: "
                                     f"{e or type(e).__name__}") from None
    for k, v in c.items():
        if k in codes and len(v) and not 0 <= v.min() <= v.max() < codes[k]:
            raise TraceError(path, None, f"not a readable store partition: its {k} codes "
                                         f"run from {v.min()} to {v.max()}, the store has "
                                         f"{codes[k]}")
    if "end" in c and len(c["end"]) and not (c["end"] >= c["start"]).all():
        raise TraceError(path, None, "not a readable store partition: an entity ends "
                                     "before it starts")
    return c


def _read_states(path, t0, t1, codes):
    """The states of one bucket file that can overlap [t0, t1] (the row groups'
    statistics skip the other time slices), sorted by container then start: their
    columns, their containers (`cont`) with each state's index into it (`local`), and
    the state each is nested in (-1: none)."""
    from .analysis.timeslice import nesting_parents_of
    c = _read_overlapping(path, "states", ["container", "type", "value", "start", "end",
                                           "imbrication"], t0, t1, codes)
    order = np.lexsort((c["start"], c["container"]))  # (time slices: one after another)
    c = {k: v[order] for k, v in c.items()}
    c["cont"], local = np.unique(c["container"], return_inverse=True)
    c["local"] = local.astype(np.int32)
    nested = len(local) and c["imbrication"].max() > 0
    c["parent"] = nesting_parents_of(c["local"], c["type"], c["start"], c["imbrication"]) \
        if nested else np.full(len(local), -1, np.int64)
    return c


def _bucket_slice(path, t0, t1, col_of_value, codes):
    """(containers, seconds per container and state column) of one bucket file: the
    exclusive time of its states in [t0, t1] (`codes`: see _read_overlapping)."""
    from .analysis.timeslice import _states
    c = _read_states(path, t0, t1, codes)
    parent = c["parent"] if (c["parent"] >= 0).any() else np.zeros(0, np.int64)
    out = np.zeros((len(c["cont"]), int(col_of_value.max(initial=-1)) + 1))
    _states(c["local"].astype(np.int64), col_of_value[c["value"]], c["start"], c["end"],
            parent, float(t0), float(t1), out)
    np.maximum(out, 0.0, out=out)  # (rounding: a parent's time less its children's)
    return c["cont"], out


def _bucket_use(path, edges, col_of_value, codes):
    """(bins, state columns) of one bucket file: the mean number of its containers in
    each state value over each bin, each instant counted in the deepest state (as
    analysis.overview)."""
    from .analysis.overview import state_counts
    c = _read_states(path, float(edges[0]), float(edges[-1]), codes)
    counts = state_counts(col_of_value[c["value"]], c["parent"], c["start"], c["end"],
                          int(col_of_value.max(initial=-1)) + 1)
    with _PARALLEL:
        return counts.means(edges)


def _skeleton(store):
    """(state value codes, column of each value code, the trace's (start, end), the
    codes of its partitions' columns: column -> how many) of the store at `store`,
    from its small tables; a TraceError where it is none."""
    from .store import is_store, numbers, read_table
    if not is_store(store):
        raise TraceError(str(store), None, "not a triva3d store (triva3d ingest writes one)")
    try:
        values = numbers(read_table(os.path.join(store, "values.parquet")).column("type"))
        types = numbers(read_table(os.path.join(store, "types.parquet")).column("kind"))
        span = read_table(os.path.join(store, "containers.parquet"), ["start", "end"])
        n_cont, span = span.num_rows, span.slice(0, 1).to_pylist()[0]
    except Exception as e:  # untrusted: any damage
        raise TraceError(str(store), None, f"not a readable triva3d store: "
                                           f"{e or type(e).__name__}") from None
    state_values = np.flatnonzero(types[values] == Kind.STATE)
    col = np.full(len(values), -1, np.int32)
    col[state_values] = np.arange(len(state_values), dtype=np.int32)
    codes = {"container": n_cont, "start_container": n_cont, "end_container": n_cont,
             "type": len(types), "value": len(values)}
    return state_values, col, (float(span["start"]), float(span["end"])), codes


def _window(window, span):
    """`window` (default the trace's `span`) as two floats; an OptionsError where it
    ends before it starts."""
    t0, t1 = (float(t) for t in (window if window is not None else span))
    if t1 < t0:
        raise OptionsError(f"time window {t0:g}:{t1:g} ends before it starts")
    return t0, t1


def _over_buckets(store, task, args, address, table="states", threads=None):
    """`task(file, *args)` for each bucket file of the store's `table`: as Dask tasks
    on the scheduler at `address` (default TRIVA3D_DASK), else on `threads` threads
    here (default: a core each; dask's own local scheduler would import distributed
    and pandas, 100 MB)."""
    from .store import entity_files
    files = entity_files(store, table)
    c = client(address)
    if c is None:
        from concurrent.futures import ThreadPoolExecutor

        from .memory import give_back

        def run(f):
            try:
                return task(f, *args)
            finally:
                give_back()  # (the bucket's columns: else kept by the thread's arena)
        with ThreadPoolExecutor(threads or os.cpu_count()) as pool:
            return list(pool.map(run, files))
    import dask
    try:
        return c.gather(c.compute([dask.delayed(task)(f, *args) for f in files]))
    finally:
        c.close()


def state_slice(store, window=None, address=None, threads=None):
    """(seconds, state values): per container (rows: the store's containers) and state
    value (columns: their value codes), the exclusive seconds in `window` (default
    the whole trace), reduced bucket by bucket as Dask tasks (on threads here where
    no scheduler is given: `threads` of them, default a core each)."""
    state_values, col, span, codes = _skeleton(store)
    t0, t1 = _window(window, span)
    out = np.zeros((codes["container"], len(state_values)))
    for cont, seconds in _over_buckets(store, _bucket_slice, (t0, t1, col, codes), address,
                                       threads=threads):
        out[cont, :seconds.shape[1]] = seconds
    return out, state_values


def utilization(store, edges, address=None, threads=None):
    """(means, state values): per bin between the increasing `edges` and state value,
    how many containers are in it on average (each instant in the deepest state, as
    analysis.overview.Overview(trace).counts().means(edges)), the buckets' sums."""
    state_values, col, _, codes = _skeleton(store)
    edges = np.asarray(edges, np.float64)
    if len(edges) < 2 or (np.diff(edges) <= 0).any():
        raise OptionsError("utilization bins need two or more increasing edges")
    out = np.zeros((len(edges) - 1, len(state_values)))
    for means in _over_buckets(store, _bucket_use, (edges, col, codes), address,
                               threads=threads):
        out[:, :means.shape[1]] += means
    return out, state_values


def _bucket_pairs(path, t0, t1, platform, codes):
    """(sender, receiver, messages, bytes) per pair of one links bucket file: the
    messages (links of no `platform` type) overlapping [t0, t1]."""
    c = _read_overlapping(path, "links", ["start_container", "end_container", "type",
                                          "bytes"], t0, t1, codes)
    from .bases.appgraph import count_pairs
    keep = ~np.isin(c["type"], platform)
    return count_pairs(c["start_container"][keep], c["end_container"][keep],
                       np.nan_to_num(c["bytes"][keep]))


def comm_pairs(store, window=None, address=None):
    """(sender, receiver, messages, bytes): per pair of containers that exchanged
    messages overlapping `window` (default all, whenever they are), how many and their Size
    summed (0 where none is given): the communication graph's edges before they are
    lifted to a level. A links bucket holds its senders' links, so each pair comes
    from one task: the results are concatenated, never combined."""
    from .store import numbers, read_table
    _, _, span, codes = _skeleton(store)
    t0, t1 = (-np.inf, np.inf) if window is None else _window(window, span)
    platform = np.flatnonzero(numbers(read_table(os.path.join(store, "types.parquet"),
                                                 ["platform"]).column(0)))
    parts = _over_buckets(store, _bucket_pairs, (t0, t1, platform, codes), address, "links")
    return tuple(np.concatenate([p[k] for p in parts]) if parts else np.zeros(0)
                 for k in range(4))


def read_part(store, window, address=None, progress=None):
    """The Trace of the store at `store` holding only the entities that meet `window`
    = (t0, t1) (store.read_window, with its `progress`), its messages per pair
    (trace.Whole.pairs) reduced by comm_pairs on the scheduler at `address`."""
    from functools import partial

    from .store import read_window
    return read_window(store, window, partial(comm_pairs, str(store), address=address),
                       progress)


def read_for_view(store, window=None, address=None, progress=None):
    """The Trace of the store at `store` that a window opens: all of it where that
    takes at most store.OPEN_BYTES and they are free, else the part of `window`,
    default its first entities' (store.first_window): memory bounded by the screen;
    `progress` as store.read_store's."""
    from . import store as st
    if st.fits(store, st.OPEN_BYTES):
        return st.read_store(store, progress=progress)
    return read_part(store, window or st.first_window(str(store)), address, progress)


def read_skeleton(store, address=None):
    """read_part of no entity: the store's names, types, values and containers, for
    the reductions to be drawn with."""
    return read_part(store, (), address)


@dataclass
class StoreSlice:
    """What the treemap reads of a Slice (analysis.timeslice) for state cells."""
    t0: float
    t1: float
    states: np.ndarray


class StoreSlicer:
    """A Slicer of the states of the store at `store` (exclusive nested time; no
    links, events or variables): each slice reduced by state_slice, on the
    scheduler at `address` (default TRIVA3D_DASK) or on threads here. `trace`: its
    skeleton (read_skeleton)."""
    nested = "exclusive"
    has_sizes = False

    def __init__(self, store, trace, address=None):
        from .analysis.timeslice import _columns
        self.store, self.trace, self.address = str(store), trace, address
        self.state_col, self.state_values = _columns(trace, Kind.STATE)

    def slice(self, window=None):
        tr = self.trace
        t0, t1 = window if window is not None else (tr.start_time, tr.end_time)
        seconds, _ = state_slice(self.store, (float(t0), float(t1)), self.address)
        return StoreSlice(float(t0), float(t1), seconds)


# -- what one picture draws (drawn.py) ------------------------------------------------
def _bucket_texels(path, fields, t0, t1, bins, shown, codes):
    """Of one bucket file's states meeting [t0, t1] of the values and containers
    `shown` (two masks), those a level-of-detail texel shows over `bins` bins
    (lod.bin_states in the trace's order: the very rows Geometry's texels show),
    their columns; with how many are shown, a mask of their values, their
    columns' keys (container * types + type)."""
    from .scene import lod
    from .store import entity_columns
    values, cont = shown
    c = _read_overlapping(path, "states", entity_columns("states", fields), t0, t1, codes)
    rows = np.flatnonzero(values[c["value"]] & cont[c["container"]])
    rows = rows[np.argsort(c["row"][rows], kind="stable")]  # (indices: no column copied)
    nt = codes["type"]
    first = int(c["container"].min(initial=0))
    key = (c["container"][rows] - first).astype(np.int64) * nt + c["type"][rows]
    present = np.bincount(key, minlength=1) > 0  # (a bucket's containers: a dense range)
    col = (np.cumsum(present) - 1)[key]
    del key
    best = lod.bin_states(col, rows, c["start"], c["end"], c["imbrication"], t0,
                          (t1 - t0) / bins if t1 > t0 else 1.0, int(present.sum()), bins)
    win = np.unique(best[best >= 0])
    used = np.zeros(codes["value"], bool)
    used[c["value"][rows]] = True
    keys = np.flatnonzero(present) + first * nt
    return {k: v[win] for k, v in c.items()}, len(rows), used, keys


def _shown_links(path, columns, t0, t1, shown, codes):
    """The `columns` of one links bucket file's messages meeting [t0, t1] (links of
    no platform type, their value and both ends shown: `shown` = (values,
    containers, platform types) masks), in the trace's order."""
    values, cont, platform = shown
    c = _read_overlapping(path, "links", list(dict.fromkeys(
        columns + ["value", "start_container", "end_container", "type", "row"])), t0, t1, codes)
    rows = np.flatnonzero(values[c["value"]] & cont[c["start_container"]]
                          & cont[c["end_container"]] & ~platform[c["type"]])
    rows = rows[np.argsort(c["row"][rows], kind="stable")]
    return {k: c[k][rows] for k in columns}


def _bucket_links(path, fields, t0, t1, shown, codes, rows=None):
    """The columns of one links bucket's messages shown in [t0, t1] (those of the
    trace `rows` alone: sorted)."""
    from .store import entity_columns
    c = _shown_links(path, entity_columns("links", fields), t0, t1, shown, codes)
    if rows is not None:
        c = {k: v[np.isin(c["row"], rows)] for k, v in c.items()}
    return c


def _bucket_messages(path, t0, t1, shown, up, codes):
    """Of one links bucket's messages shown in [t0, t1]: how many, a mask of their
    values, and per level of the bundles' ends (up: see Geometry.bundle_up) until
    all are at the top: (per scene.geometry.BUNDLE_TRIES, its bundles' keys, None
    where they are more than BUNDLE_TARGET, then how many they are where counted;
    whether all are at the top)."""
    from .scene.geometry import BUNDLE_TARGET, BUNDLE_TRIES, bundle_keys, bundle_time
    c = _shown_links(path, ["start_container", "end_container", "start", "value"], t0, t1,
                     shown, codes)
    used = np.zeros(codes["value"], bool)
    used[c["value"]] = True
    a, b, rel = c["start_container"], c["end_container"], bundle_time(c["start"], t0, t1)
    out = []
    while True:
        keys = []
        for bins in sorted(BUNDLE_TRIES):  # fewest first: more than the target there,
            k = np.unique(bundle_keys(a, b, len(up), rel, bins))  # more at every other
            keys.append(len(k) if len(k) > BUNDLE_TARGET else k)  # (each a multiple of it)
            if not isinstance(keys[0], np.ndarray):
                keys += [None] * (len(BUNDLE_TRIES) - 1)
                break
        keys = dict(zip(sorted(BUNDLE_TRIES), keys))
        top = bool((up[a] == a).all() and (up[b] == b).all())
        out.append(([keys[bins] for bins in BUNDLE_TRIES], top))
        if top:
            return len(rel), used, out
        a, b = up[a], up[b]


def _bucket_bundles(path, t0, t1, shown, up, level, bins, part, parts, codes, top=None):
    """The bundles (scene.geometry.bundle_keys at `level` and `bins`) of one links
    bucket's messages whose sender's end is `part` modulo `parts`: their keys,
    first message's row, ends, messages, and their bytes, starts and ends summed;
    and how many they are. `top`: only the `top` busiest by bytes and by messages
    (each bundle in this bucket alone: see _bundles_local)."""
    from .scene.entities import Frame
    from .scene.geometry import bundle_keys, bundle_sums, bundle_ticks, bundle_time
    c = _shown_links(path, ["start_container", "end_container", "start", "end", "bytes",
                            "row"], t0, t1, shown, codes)
    a, b = c["start_container"], c["end_container"]
    for _ in range(level):
        a, b = up[a], up[b]
    mine = a % parts == part
    key = bundle_keys(a[mine], b[mine], len(up), bundle_time(c["start"][mine], t0, t1), bins)
    key, first, inv, count = np.unique(key, return_index=True, return_inverse=True,
                                       return_counts=True)
    frame = Frame(t0, t1, 1.0)
    out = (key, c["row"][mine][first], a[mine][first], b[mine][first], count,
           np.bincount(inv, weights=np.nan_to_num(c["bytes"][mine]), minlength=len(key)),
           *(bundle_sums(inv, bundle_ticks(c[k][mine], frame), len(key))
             for k in ("start", "end")))
    if top is not None:
        out = tuple(x[_busiest(out[1], out[5], out[4], top)] for x in out)
    return out + (len(key),)


def _busiest(first, size, count, top):
    """The `top` bundles of most bytes `size`, and the `top` of most messages `count`,
    earliest `first` message first among equals (what is kept is among them)."""
    return np.union1d(*(np.lexsort((first, -x))[:top] for x in (size, count)))


def _bundles_local(store, up, level):
    """Whether every bundle at `level` (ends moved up by `up`) holds messages of one
    links bucket only (links are bucketed by their sender, a bundle by its sender's
    end): then each bucket's busiest are found alone, in one read."""
    from .store import bucket_of, meta_of
    a = np.arange(len(up))
    for _ in range(level):
        a = up[a]
    bucket = bucket_of(np.asarray(meta_of(store)["bucket_starts"]), np.arange(len(up)))
    lo, hi = np.full(len(up), len(up)), np.zeros(len(up), np.int64)
    np.minimum.at(lo, a, bucket)
    np.maximum.at(hi, a, bucket)
    return bool((lo[a] == hi[a]).all())


def _joined(parts, table, fields):
    """Per-bucket columns of `table` end to end, in the trace's order (their row)."""
    from .store import entity_columns, in_trace_order
    return in_trace_order({k: [p[k] for p in parts] for k in entity_columns(table, fields)},
                          table)


def texel_states(store, window, bins, shown, address=None):
    """(columns, shown, values, keys) of the states of the store meeting `window` =
    (t0, t1), of the values and containers `shown` (masks): the columns of those a
    level-of-detail texel shows over `bins` bins (lod.bin_states), in the trace's
    order; how many are shown; a mask of their values; their columns' keys
    (container * types + type), each bucket a task."""
    from .store import meta_of
    _, _, _, codes = _skeleton(store)
    fields = meta_of(store)["extra"]["states"]
    t0, t1 = (float(t) for t in window)
    parts = _over_buckets(store, _bucket_texels, (fields, t0, t1, bins, shown, codes),
                          address)
    used = np.zeros(codes["value"], bool)
    for p in parts:
        used |= p[2]
    return (_joined([p[0] for p in parts], "states", fields), sum(p[1] for p in parts),
            used, np.concatenate([p[3] for p in parts]) if parts else np.zeros(0, np.int64))


#: Bundles grouped over a store take about this many bytes at once (BUNDLE_BYTES a
#: bundle of a bucket at the peak of a round's combine): more are grouped in rounds,
#: by their sender's end, the messages read again.
GROUP_BYTES, BUNDLE_BYTES = 192 << 20, 160


def messages(store, window, shown, up, address=None):
    """(columns, bundles, shown, values) of the messages of the store meeting
    `window` = (t0, t1) of the values, containers and link types `shown` (masks:
    values, containers, platform types), as scene.Geometry draws them: where they
    are at most BUNDLE_LIMIT, all of them (bundles None); else their bundles over
    every bucket (the level and time bins as Geometry.bundle_level chooses them,
    ends moving up by `up`: Geometry.bundle_up), the BUNDLE_TARGET busiest kept, a
    dict as trace.Drawn holds them, and `columns` those bundles' first messages.
    With how many are shown and a mask of their values."""
    from .scene import geometry as G
    from .scene.entities import Frame
    from .store import meta_of
    _, _, _, codes = _skeleton(store)
    fields = meta_of(store)["extra"]["links"]
    t0, t1 = (float(t) for t in window)
    over = lambda task, *args: _over_buckets(  # noqa: E731
        store, task, (t0, t1, shown, *args), address, "links")
    counted = over(_bucket_messages, up, codes)
    n = sum(c for c, _, _ in counted)
    used = np.zeros(codes["value"], bool)
    for _, u, _ in counted:
        used |= u
    if n <= G.BUNDLE_LIMIT:
        parts = _over_buckets(store, _bucket_links, (fields, t0, t1, shown, codes), address,
                              "links")
        return _joined(parts, "links", fields), None, n, used
    tries = [t for _, _, t in counted]
    at = lambda r, level: r[min(level, len(r) - 1)]  # noqa: E731  (at its top: the same)

    def count(level, bins):
        keys = [at(r, level)[0][G.BUNDLE_TRIES.index(bins)] for r in tries]
        return G.BUNDLE_TARGET + 1 if not all(isinstance(k, np.ndarray) for k in keys) \
            else len(np.unique(np.concatenate(keys)))
    level, bins = G.bundle_level(count, lambda level: all(at(r, level)[1] for r in tries))
    most = sum(len(k) if isinstance(k, np.ndarray) else k  # (the buckets' bundles: their
               for r in tries for k in [at(r, level)[0][G.BUNDLE_TRIES.index(bins)]])  # sum)
    local = _bundles_local(store, up, level)  # (one read: each bucket's busiest)
    rounds = 1 if local else max(1, -(-most * BUNDLE_BYTES // GROUP_BYTES))
    kept, any_bytes, total = [], False, 0
    for part in range(rounds):  # each round: its bundles whole, the busiest kept
        got = over(_bucket_bundles, up, level, bins, part, rounds, codes,
                   G.BUNDLE_TARGET if local else None)
        cols = [np.concatenate([g[i] for g in got]) for i in range(8)]
        total += sum(g[8] for g in got) if local else 0
        del got
        key, inv = np.unique(cols.pop(0), return_inverse=True)
        first = np.full(len(key), np.iinfo(np.int64).max)
        np.minimum.at(first, inv, cols[0])
        ends = np.zeros((len(key), 2), np.int64)
        ends[inv] = np.c_[cols[1], cols[2]]
        rnd = dict(key=key, first=first, a=ends[:, 0], b=ends[:, 1],
                   **{k: G.bundle_sums(inv, v, len(key)) for k, v in (
                       ("count", cols[3]), ("start", cols[5]), ("end", cols[6]))},
                   bytes=np.bincount(inv, weights=cols[4], minlength=len(key)))
        del cols, inv
        any_bytes |= bool(rnd["bytes"].any())
        total += 0 if local else len(key)
        busiest = _busiest(first, rnd["bytes"], rnd["count"], G.BUNDLE_TARGET)
        kept.append({k: v[busiest] for k, v in rnd.items()})  # (by bytes, if any has)
    b = {k: np.concatenate([r[k] for r in kept]) for k in kept[0]}
    traffic = b["bytes"] if any_bytes else b["count"]
    top = np.lexsort((b["first"], -traffic))[:G.BUNDLE_TARGET]
    top = top[np.argsort(b["key"][top])]  # (in key order, as Geometry's)
    b = {k: v[top] for k, v in b.items()}
    firsts = _joined(_over_buckets(store, _bucket_links, (fields, t0, t1, shown, codes,
                                                          np.sort(b["first"])),
                                   address, "links"), "links", fields)
    frame = Frame(t0, t1, 1.0)
    return firsts, dict(rows=np.searchsorted(firsts["row"], b["first"]), a=b["a"], b=b["b"],
                        count=b["count"], bytes=b["bytes"],
                        start=G.bundle_mean(b["start"], b["count"], frame),
                        end=G.bundle_mean(b["end"], b["count"], frame),
                        bundled=(total, n)), n, used


def _bucket_part(path, table, fields, t0, t1, codes):
    """The columns of one bucket file's entities of `table` meeting [t0, t1]."""
    from .store import entity_columns
    return _read_overlapping(path, table, entity_columns(table, fields), t0, t1, codes)


def read_table_part(store, table, fields, window, address=None):
    """The columns of the entities of the store's `table` (with the user-defined
    `fields`) meeting `window` = (t0, t1), in the trace's order, each bucket a task."""
    _, _, _, codes = _skeleton(store)
    if table == "variables":
        del codes["value"]  # (a number)
    t0, t1 = (float(t) for t in window)
    return _joined(_over_buckets(store, _bucket_part, (table, fields, t0, t1, codes),
                                 address, table), table, fields)
