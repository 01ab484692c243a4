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
        with ThreadPoolExecutor(threads or os.cpu_count()) as pool:
            return list(pool.map(lambda f: task(f, *args), files))
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
