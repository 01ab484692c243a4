"""The application's communication graph: one node per container at a chosen level
of the hierarchy, edges weighted by the links exchanged in a time window."""
from functools import partial

import numpy as np
from numba import njit

from ..analysis.metrics import link_bytes
from ..analysis.roles import platform_link_types
from ..errors import OptionsError, TraceError
from .topology import Topology


@njit(cache=True)
def _ancestor_at(parent, at_level):
    """For each container, itself or its nearest ancestor at the level (-1: none)."""
    out = np.full(len(parent), -1, dtype=np.int64)
    for c in range(len(parent)):
        if at_level[c]:
            out[c] = c
        elif parent[c] >= 0:
            out[c] = out[parent[c]]
    return out


def level_mask(trace, level=None, pairs=None):
    """Containers at `level`: a container type name, or a depth (0 is the root).
    The default is the type of most message ends, of the `pairs` (count_pairs)."""
    cont = trace.containers
    if level is None:
        a, b, count, _ = pairs
        if not len(a):
            raise TraceError(trace.source, None, "the trace has no messages to draw a "
                             "communication graph from")
        ends = np.bincount(np.concatenate([cont.type[a], cont.type[b]]),
                           weights=np.concatenate([count, count]))
        return cont.type == ends.argmax()
    rows = trace.level(level)
    if not len(rows):
        raise OptionsError(f"{trace.source}: no container at level {level!r}")
    at = np.zeros(len(cont), bool)
    at[rows] = True
    return at


def count_pairs(a, b, size):
    """(sender, receiver, messages, bytes) per distinct pair of the messages from
    containers `a` to `b` of `size` bytes each."""
    a, b = a.astype(np.int64), b.astype(np.int64)
    pair, inv, count = np.unique(a * (1 << 31) + b, return_inverse=True, return_counts=True)
    return (pair >> 31, pair & ((1 << 31) - 1), count,
            np.bincount(inv.reshape(-1), weights=size, minlength=len(pair)))


def message_pairs(trace, window=None):
    """count_pairs of the trace's messages (links of no platform type, see
    analysis.roles) overlapping `window` = (t0, t1) (default: all), their Size in
    bytes, 0 where none is given: what engine.comm_pairs reduces over a store (and
    Trace.whole.pairs answers, where the trace holds part of the run)."""
    if trace.whole is not None:
        return trace.whole.pairs(window)
    links = trace.links
    keep = ~platform_link_types(trace)[links.type]
    if window is not None:
        keep &= (links.start <= window[1]) & (links.end >= window[0])
    return count_pairs(links.start_container[keep], links.end_container[keep],
                       np.nan_to_num(link_bytes(trace)[keep]))


def comm_graph(trace, level=None, window=None):
    """A Topology with one node per container at `level` (named as the container,
    `#row` added where names repeat; default: the type of most message ends) and one
    edge per pair that exchanged messages overlapping `window` = (t0, t1), with the
    numeric columns `count` and `bytes` (from the links' Size; 0 when they have
    none), built in numpy; messages inside one node are counted in its `internal`
    attribute (the messages per pair: message_pairs). Returns the topology and the
    container of each node."""
    pairs = partial(message_pairs, trace)
    cont = trace.containers
    every = pairs(None) if level is None or window is None else None
    at = level_mask(trace, level, every)
    anc = _ancestor_at(cont.parent, at)
    a, b, count, size = every if window is None else pairs(window)
    a, b = anc[a], anc[b]
    ok = (a >= 0) & (b >= 0)
    a, b, count, size = a[ok], b[ok], count[ok], size[ok]
    topo = Topology(f"communication graph of {trace.source}", trace.source)
    rows = np.flatnonzero(at)
    names = trace.display_names("containers", rows)
    dup = len(set(names)) != len(names)
    node_of = np.full(len(cont), -1, np.int64)
    for c, name in zip(rows, names):
        node_of[c] = topo.add_node(f"{name}#{c}" if dup else name, "node",
                                   type=trace.display_name("types", cont.type[c]))
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    uniq, inv = np.unique(lo * len(cont) + hi, return_inverse=True)
    nbytes = np.bincount(inv, weights=size, minlength=len(uniq))
    count = np.bincount(inv, weights=count, minlength=len(uniq)).astype(np.int64)
    p, q = np.divmod(uniq, len(cont))
    pair = p != q
    topo.add_edges(node_of[p[pair]], node_of[q[pair]],
                   attrs={"count": count[pair], "bytes": nbytes[pair]})
    for c, n in zip(p[~pair].tolist(), count[~pair].tolist()):
        topo.node_attrs[node_of[c]]["internal"] = str(n)
    return topo, rows
