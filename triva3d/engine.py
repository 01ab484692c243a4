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
states never in this process's memory).
"""
import glob
import os
from dataclasses import dataclass

import numpy as np

from .errors import OptionsError, TraceError
from .trace import Kind

#: How long to wait for a scheduler before saying it cannot be reached (s).
CONNECT_S = 5


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


def _bucket_states(path, t0, t1, col_of_value):
    """(containers, seconds per container and state column) of one bucket file: the
    exclusive time of its states in [t0, t1]."""
    import pyarrow.parquet as pq

    from .analysis.timeslice import _states, nesting_parents_of
    try:
        t = pq.read_table(path, columns=["container", "type", "value", "start", "end",
                                         "imbrication"],
                          filters=[("start", "<=", t1), ("end", ">=", t0)])
    except Exception as e:  # untrusted: any damage
        raise TraceError(path, None, f"not a readable store partition: "
                                     f"{e or type(e).__name__}") from None
    c = {k: t.column(k).to_numpy() for k in t.column_names}
    order = np.lexsort((c["start"], c["container"]))  # (time slices: one after another)
    c = {k: v[order] for k, v in c.items()}
    cont, local = np.unique(c["container"], return_inverse=True)
    col = col_of_value[c["value"]]
    nested = len(local) and c["imbrication"].max() > 0
    parent = nesting_parents_of(local.astype(np.int32), c["type"], c["start"],
                                c["imbrication"]) if nested else np.zeros(0, np.int64)
    out = np.zeros((len(cont), int(col_of_value.max(initial=-1)) + 1))
    _states(local.astype(np.int64), col, c["start"], c["end"], parent, float(t0), float(t1),
            out)
    np.maximum(out, 0.0, out=out)  # (rounding: a parent's time less its children's)
    return cont, out


def state_slice(store, window=None, address=None):
    """(seconds, state values): per container (rows: the store's containers) and state
    value (columns: their value codes), the exclusive seconds in `window` (default
    the whole trace), reduced bucket by bucket as Dask tasks (on threads here where
    no scheduler is given)."""
    import pyarrow.parquet as pq
    from .store import is_store
    if not is_store(store):
        raise TraceError(str(store), None, "not a triva3d store (triva3d ingest writes one)")
    try:
        values = pq.read_table(os.path.join(store, "values.parquet")).column("type").to_numpy()
        types = pq.read_table(os.path.join(store, "types.parquet")).column("kind").to_numpy()
        containers = pq.read_table(os.path.join(store, "containers.parquet"),
                                   columns=["start", "end"])
    except Exception as e:  # untrusted: any damage
        raise TraceError(str(store), None, f"not a readable triva3d store: "
                                           f"{e or type(e).__name__}") from None
    state_values = np.flatnonzero(types[values] == Kind.STATE)
    col = np.full(len(values), -1, np.int32)
    col[state_values] = np.arange(len(state_values), dtype=np.int32)
    if window is None:
        window = (float(containers.column("start").to_numpy()[0]),
                  float(containers.column("end").to_numpy()[0]))
    t0, t1 = window
    if t1 < t0:
        raise OptionsError(f"time window {t0:g}:{t1:g} ends before it starts")
    files = sorted(glob.glob(os.path.join(store, "states", "bucket=*", "*.parquet")))
    c = client(address)
    if c is None:  # threads here (dask's own local scheduler would import distributed)
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(os.cpu_count()) as pool:
            parts = list(pool.map(lambda f: _bucket_states(f, t0, t1, col), files))
    else:
        import dask
        try:
            parts = c.gather(c.compute([dask.delayed(_bucket_states)(f, t0, t1, col)
                                        for f in files]))
        finally:
            c.close()
    out = np.zeros((len(containers), len(state_values)))
    for cont, seconds in parts:
        out[cont, :seconds.shape[1]] = seconds
    return out, state_values


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
    skeleton (store.read_skeleton)."""
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
