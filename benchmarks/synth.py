"""Synthetic Traces built straight in memory (no Pajé text) for benchmarks that need
millions of states: hosts holding processes, back-to-back states on every process
(every `nest`-th slot holds a short state at imbrication 1 instead), links
between random processes.
Deterministic for a given seed."""
import numpy as np

from triva3d.trace import SCHEMA, Names, Table, Trace

VALUES = ("Running", "Computing", "Waiting", "I/O", "MPI")


def _names(strings):
    data = [s.encode() for s in strings]
    offsets = np.cumsum([0] + [len(b) for b in data])
    return Names(np.frombuffer(b"".join(data), np.uint8), offsets)


def make_trace(n_states, n_links, n_procs=1000, procs_per_host=4, nest=10, seed=1,
               link_seconds=(0.01, 1)):
    """`link_seconds`: the range of the links' durations."""
    rng = np.random.default_rng(seed)
    n_hosts = -(-n_procs // procs_per_host)
    # names: type names, value names, then host and process names
    words = ["0", "Host", "Process", "State", "Msg", "m"] + list(VALUES)
    words += [f"host-{i}" for i in range(n_hosts)] + [f"rank-{i}" for i in range(n_procs)]
    host0 = 6 + len(VALUES)
    proc0 = host0 + n_hosts
    # types: 0 root, 1 Host, 2 Process, 3 State (on Process), 4 Msg (link)
    types = {"kind": [0, 0, 0, 1, 4], "parent": [-1, 0, 1, 2, 0], "name": [0, 1, 2, 3, 4],
             "alias": [-1] * 5, "start_type": [-1, -1, -1, -1, 2], "end_type": [-1, -1, -1, -1, 2]}
    values = {"type": [3] * len(VALUES) + [4], "name": list(range(6, 6 + len(VALUES))) + [5],
              "alias": [-1] * (len(VALUES) + 1)}
    n_cont = 1 + n_hosts + n_procs
    per = -(-n_states // n_procs)
    end_time = float(per)
    cont = {"parent": np.r_[-1, np.zeros(n_hosts), 1 + np.arange(n_procs) // procs_per_host],
            "type": np.r_[0, np.ones(n_hosts), np.full(n_procs, 2)],
            "name": np.r_[0, host0 + np.arange(n_hosts), proc0 + np.arange(n_procs)],
            "alias": np.full(n_cont, -1), "start": np.zeros(n_cont),
            "end": np.full(n_cont, end_time)}
    # states: `per` back-to-back on each process over [0, per] s
    proc = np.repeat(np.arange(n_procs), per)[:n_states]
    k = np.tile(np.arange(per), n_procs)[:n_states]
    start = k + rng.uniform(0, 0.3, n_states) * (k > 0)
    end = np.minimum(k + 1 + rng.uniform(0, 0.3, n_states), end_time)
    nested = (k % nest == nest - 1)
    start[nested] = k[nested] + 0.4
    end[nested] = k[nested] + 0.6
    order = np.lexsort((start, proc))
    states = {"container": 1 + n_hosts + proc[order], "type": np.full(n_states, 3),
              "value": rng.integers(0, len(VALUES), n_states)[order], "start": start[order],
              "end": end[order], "imbrication": nested[order].astype(np.int16)}
    s, d = rng.integers(0, n_procs, n_links), rng.integers(0, n_procs, n_links)
    t0 = rng.uniform(0, end_time - link_seconds[1], n_links)
    links = {"container": np.zeros(n_links), "type": np.full(n_links, 4),
             "value": np.full(n_links, len(VALUES)), "start_container": 1 + n_hosts + s,
             "end_container": 1 + n_hosts + d, "start": t0,
             "end": t0 + rng.uniform(*link_seconds, n_links), "key": np.zeros(n_links)}
    empty = {"variables": {c: [] for c in SCHEMA["variables"]},
             "events": {c: [] for c in SCHEMA["events"]}}
    cols = {"types": types, "values": values, "containers": cont, "states": states,
            "links": links, **empty}
    tables = {name: Table(name, {c: np.asarray(cols[name][c], dtype=dt)
                                 for c, dt in SCHEMA[name].items()}) for name in SCHEMA}
    nan = np.full((5, 4), np.nan, np.float32)
    return Trace(_names(words), tables, nan, np.full((len(VALUES) + 1, 4), np.nan, np.float32),
                 source=f"synthetic {n_states} states")
