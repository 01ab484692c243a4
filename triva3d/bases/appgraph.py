"""The application's communication graph: one node per container at a chosen level
of the hierarchy, edges weighted by the links exchanged in a time window."""
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


def level_mask(trace, level=None, messages=None):
    """Containers at `level`: a container type name, or a depth (0 is the root).
    The default is the type of most message ends."""
    cont = trace.containers
    if level is None:
        ln = trace.links
        keep = slice(None) if messages is None else messages
        ends = np.concatenate([ln.start_container[keep], ln.end_container[keep]])
        if not len(ends):
            raise TraceError(trace.source, None, "the trace has no messages to draw a "
                             "communication graph from")
        types = cont.type[ends]
        return cont.type == np.bincount(types).argmax()
    rows = trace.level(level)
    if not len(rows):
        raise OptionsError(f"{trace.source}: no container at level {level!r}")
    at = np.zeros(len(cont), bool)
    at[rows] = True
    return at


def comm_graph(trace, level=None, window=None):
    """A Topology with one node per container at `level` (named as the container,
    `#row` added where names repeat) and one edge per pair that exchanged messages
    overlapping `window` = (t0, t1), with the numeric columns `count` and `bytes`
    (from the links' Size; 0 when they have none), built in numpy; messages inside
    one node are counted in its `internal` attribute. Platform links (see
    analysis.roles) are no messages.
    Returns the topology and the container of each node."""
    cont = trace.containers
    links = trace.links
    keep = ~platform_link_types(trace)[links.type]
    at = level_mask(trace, level, keep)
    anc = _ancestor_at(cont.parent, at)
    if window is not None:
        keep &= (links.start <= window[1]) & (links.end >= window[0])
    a, b = anc[links.start_container[keep]], anc[links.end_container[keep]]
    size = np.nan_to_num(link_bytes(trace)[keep])
    ok = (a >= 0) & (b >= 0)
    a, b, size = a[ok], b[ok], size[ok]
    topo = Topology(f"communication graph of {trace.source}", trace.source)
    rows = np.flatnonzero(at)
    names = trace.display_names("containers", rows)
    dup = len(set(names)) != len(names)
    node_of = np.full(len(cont), -1, np.int64)
    for c, name in zip(rows, names):
        node_of[c] = topo.add_node(f"{name}#{c}" if dup else name, "node",
                                   type=trace.display_name("types", cont.type[c]))
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    uniq, inv, count = np.unique(lo * len(cont) + hi, return_inverse=True, return_counts=True)
    nbytes = np.bincount(inv, weights=size, minlength=len(uniq))
    p, q = np.divmod(uniq, len(cont))
    pair = p != q
    topo.add_edges(node_of[p[pair]], node_of[q[pair]],
                   attrs={"count": count[pair], "bytes": nbytes[pair]})
    for c, n in zip(p[~pair].tolist(), count[~pair].tolist()):
        topo.node_attrs[node_of[c]]["internal"] = str(n)
    return topo, rows
