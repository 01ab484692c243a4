"""The one graph model of a machine: named nodes (host, router, switch, link...) and
undirected edges, read from Graphviz, SimGrid platform XML or a platform trace.

Bandwidths are in bytes per second and latencies in seconds (NaN when unknown).
Nodes are few next to a trace (thousands), so node attributes are plain dicts of
strings. Edges can be many (a communication graph has up to millions), so they are
columns: numpy arrays of the two ends, bandwidth and latency, and `EdgeAttrs`, one
column per other field. Readers of files add edges one by one (`add_edge`, kept in
lists until something reads the columns); the communication graph adds its arrays
at once (`add_edges`).
"""
import math
import os
from collections import Counter

import numpy as np

from ..errors import TraceError
from . import MAX_POSITION

#: Node kinds; "node" is anything else (an application process, a cluster...).
KINDS = ("host", "router", "switch", "link", "node")
#: The largest topology read (a 150-byte SimGrid cluster can ask for 1e7 hosts).
MAX_NODES, MAX_EDGES = 500_000, 2_000_000


class EdgeAttrs:
    """The fields of edges other than their ends, bandwidth and latency, by column:
    `columns` maps a name to a numpy array (numbers, one per edge, kept in the
    narrowest type that holds each value exactly: see `narrow`) or to a list
    (strings, as files give them; None where an edge has no such field). It reads
    as a sequence of dicts, one edge's fields each (numbers as Python numbers)."""

    def __init__(self, columns=None, n=0):
        self.columns, self.n = {}, n
        for k, col in (columns or {}).items():
            if not (isinstance(col, list) or isinstance(col, np.ndarray) and col.dtype != object):
                col = list(col)   # strings (or numbers mixed with absent values)
            self.columns[k] = narrow(col) if isinstance(col, np.ndarray) else col
            if len(col) != n:
                raise ValueError(f"edge column {k!r} has {len(col)} values for {n} edges")

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        i = int(i)
        if not -self.n <= i < self.n:
            raise IndexError(f"edge {i} of {self.n}")
        out = {}
        for k, col in self.columns.items():
            v = col[i]
            if v is not None:
                out[k] = v.item() if isinstance(v, np.generic) else v
        return out

    def __iter__(self):
        return (self[i] for i in range(self.n))

    def counts(self):
        """How many edges have each field."""
        return {k: self.n if isinstance(col, np.ndarray) else self.n - col.count(None)
                for k, col in self.columns.items()}

    def take(self, rows):
        """The fields of the edges `rows` (a mask or indices), in that order."""
        rows = np.arange(self.n)[rows]
        picked = rows.tolist()
        return EdgeAttrs({k: col[rows] if isinstance(col, np.ndarray)
                          else [col[i] for i in picked] for k, col in self.columns.items()},
                         len(rows))

    def concat(self, other):
        """These edges' fields, then `other`'s: a column both give as numbers stays
        an array; any other becomes a list (None where an edge lacks it)."""
        if not other.n:
            return self
        if not self.n:
            return other
        cols = {}
        for k in {**self.columns, **other.columns}:
            a, b = self.columns.get(k), other.columns.get(k)
            if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
                cols[k] = np.concatenate([a, b])
            else:
                cols[k] = _as_list(a, self.n) + _as_list(b, other.n)
        return EdgeAttrs(cols, self.n + other.n)


def _as_list(col, n):
    if col is None:
        return [None] * n
    return col.tolist() if isinstance(col, np.ndarray) else list(col)


class Topology:
    """Nodes and edges; build with `add_node` / `add_edge` (or `add_edges`), then
    read the arrays (`src`, `dst`, `bandwidth`, `latency`, `edge_attrs`)."""

    def __init__(self, name="topology", source=""):
        self.name, self.source = name, source
        self.names, self.kinds, self.node_attrs = [], [], []
        self.index = {}
        self._src = np.zeros(0, np.int32)
        self._dst = np.zeros(0, np.int32)
        self._bw = np.zeros(0)
        self._lat = np.zeros(0)
        self._attrs = EdgeAttrs()
        self._new = _NewEdges()   # add_edge's edges, until something reads the columns
        self.notes = []           # what the reader skipped or assumed, for `info`
        self.routing = None       # a platform's declared routes (routing.Routing)
        self.trees = {}           # fewest-hops trees by source (routing.route)

    def __len__(self):
        return len(self.names)

    def add_node(self, name, kind="node", **attrs):
        """Index of the node `name`, created if new; a known kind replaces "node"."""
        i = self.index.get(name)
        if i is None:
            if len(self.names) >= MAX_NODES:
                raise TraceError(self.source, None, f"more than {MAX_NODES} nodes: too large "
                                 "a topology to draw")
            i = self.index[name] = len(self.names)
            self.names.append(name)
            self.kinds.append(kind)
            self.node_attrs.append({})
        elif self.kinds[i] == "node":
            self.kinds[i] = kind
        self.node_attrs[i].update({k: str(v) for k, v in attrs.items()})
        return i

    def _room(self, more):
        if self.n_edges + more > MAX_EDGES:
            raise TraceError(self.source, None, f"more than {MAX_EDGES} edges: too large a "
                             "topology to draw")

    def add_edge(self, a, b, bandwidth=math.nan, latency=math.nan, **attrs):
        """An undirected edge between node names (created if new) or indices; its
        other fields are kept as strings."""
        self._room(1)
        a = int(a) if isinstance(a, (int, np.integer)) else self.add_node(a)
        b = int(b) if isinstance(b, (int, np.integer)) else self.add_node(b)
        self._new.add(a, b, float(bandwidth), float(latency),
                      {k: str(v) for k, v in attrs.items()})

    def add_edges(self, src, dst, bandwidth=None, latency=None, attrs=None):
        """Edges between the node indices `src` and `dst` (arrays), after those
        already there: `bandwidth` and `latency` arrays (NaN when omitted), and
        `attrs` their other fields, {name: column} (a numpy array of numbers, or a
        list of strings with None where an edge has none)."""
        src = np.asarray(src, np.int32).ravel()
        dst = np.asarray(dst, np.int32).ravel()
        n = len(src)
        if len(dst) != n:
            raise ValueError(f"{n} edge sources for {len(dst)} targets")
        if n and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= len(self)):
            raise ValueError(f"edge ends outside the {len(self)} nodes")
        self._room(n)

        def values(v):  # unknown: one NaN seen n times (no memory), read-only as all are
            return np.broadcast_to(np.nan, n) if v is None else \
                np.asarray(v, np.float64).ravel()
        self._append(src, dst, values(bandwidth), values(latency), EdgeAttrs(attrs, n))

    def _append(self, src, dst, bw, lat, attrs):
        self._flush()
        if not len(self._src):
            self._src, self._dst, self._bw, self._lat = src, dst, bw, lat
        else:
            self._src, self._dst = np.r_[self._src, src], np.r_[self._dst, dst]
            self._bw, self._lat = np.r_[self._bw, bw], np.r_[self._lat, lat]
        self._attrs = self._attrs.concat(attrs)

    def _flush(self):
        """Turn add_edge's lists into columns after those already there."""
        new, self._new = self._new, _NewEdges()
        if new.src:
            self._append(*new.columns())

    def _columns(self):
        self._flush()
        return self._src, self._dst, self._bw, self._lat, self._attrs

    # -- arrays (shared, not copied: do not write into them) -------------------
    src = property(lambda self: self._columns()[0])
    dst = property(lambda self: self._columns()[1])
    bandwidth = property(lambda self: self._columns()[2])
    latency = property(lambda self: self._columns()[3])
    edge_attrs = property(lambda self: self._columns()[4], doc="EdgeAttrs: the other "
                          "fields of each edge")

    @property
    def n_edges(self):
        return len(self._src) + len(self._new.src)

    def edge_set(self):
        """Edges as a set of frozensets of node names (for comparisons)."""
        return {frozenset((self.names[a], self.names[b]))
                for a, b in zip(self.src.tolist(), self.dst.tolist())}

    def positions(self):
        """(n, 2) float array of the `pos` attributes in points, NaN where absent."""
        out = np.full((len(self), 2), np.nan)
        for i, attrs in enumerate(self.node_attrs):
            if "pos" in attrs:
                out[i] = parse_pos(attrs["pos"], self.source)
        return out

    def dedup_edges(self):
        """Merge repeated edges between the same two nodes, keeping the first's values;
        their `links` attributes (names of folded links) are joined."""
        src, dst, bw, lat, attrs = self._columns()
        if not len(src):
            return self
        lo, hi = np.minimum(src, dst).astype(np.int64), np.maximum(src, dst).astype(np.int64)
        _, first, group = np.unique(lo * len(self) + hi, return_index=True,
                                    return_inverse=True)
        if len(first) == len(src):
            return self
        keep = np.sort(first)
        links = attrs.columns.get("links")
        if isinstance(links, list):
            # the links of repeated edges, joined on the first of each pair of nodes
            later = np.flatnonzero(np.arange(len(src)) != first[group])
            joined = {}
            for r in later.tolist():
                if links[r] is not None:
                    g = int(group[r])
                    joined.setdefault(g, links[first[g]].split() if links[first[g]] else [])
                    joined[g] += links[r].split()
            if joined:
                links = list(links)
                for g, names in joined.items():
                    links[first[g]] = " ".join(sorted(names))
                attrs = EdgeAttrs({**attrs.columns, "links": links}, attrs.n)
        self._src, self._dst, self._bw, self._lat = src[keep], dst[keep], bw[keep], lat[keep]
        self._attrs = attrs.take(keep)
        return self


def narrow(col):
    """`col` in the narrowest integer type holding its values, or as float32 where
    every value is one (a communication graph's counts and byte sums: 16 bytes an
    edge become 8 or fewer); the same Python numbers come out of it."""
    if not len(col):
        return col
    if col.dtype.kind in "iu":
        lo, hi = col.min(), col.max()
        for t in (np.uint8, np.uint16, np.uint32) if lo >= 0 else (np.int8, np.int16, np.int32):
            if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max:
                return col.astype(t)
    elif col.dtype == np.float64:
        with np.errstate(over="ignore"):  # (beyond float32: inf, which differs)
            f = col.astype(np.float32)
        if np.array_equal(f, col, equal_nan=True):
            return f
    return col


class _NewEdges:
    """Edges added one by one, as lists (a file's few thousand), and each field as
    {edge: value}."""

    def __init__(self):
        self.src, self.dst, self.bw, self.lat, self.attrs = [], [], [], [], {}

    def add(self, a, b, bw, lat, attrs):
        i = len(self.src)
        self.src.append(a)
        self.dst.append(b)
        self.bw.append(bw)
        self.lat.append(lat)
        for k, v in attrs.items():
            self.attrs.setdefault(k, {})[i] = v

    def columns(self):
        n = len(self.src)
        cols = {}
        for k, values in self.attrs.items():
            col = cols[k] = [None] * n
            for i, v in values.items():
                col[i] = v
        return (np.array(self.src, np.int32), np.array(self.dst, np.int32),
                np.array(self.bw, np.float64), np.array(self.lat, np.float64),
                EdgeAttrs(cols, n))


def parse_pos(text, source=""):
    """Graphviz `pos` "x,y" (optionally ending with "!") as two floats."""
    try:
        x, y = (float(v) for v in str(text).rstrip("!").split(",")[:2])
    except ValueError:
        x = y = math.nan
    if not (abs(x) <= MAX_POSITION and abs(y) <= MAX_POSITION):  # "inf,nan": blank
        raise TraceError(source, None, f"bad pos {text!r} (expected \"x,y\", two numbers "
                         f"within -{MAX_POSITION:g}..{MAX_POSITION:g})")
    return x, y


def collapse_links(topo):
    """A copy where every link node joining exactly two other nodes becomes an edge
    carrying the link's bandwidth and latency (split-duplex _UP/_DOWN pairs and
    parallel cables merge into one edge whose `links` attribute names them); link nodes with one
    neighbour (loopbacks) are dropped; shared links (backbones) and chained links
    stay nodes."""
    src, dst, bw, lat, attrs = topo.src, topo.dst, topo.bandwidth, topo.latency, topo.edge_attrs
    neighbours = [set() for _ in topo.names]
    for a, b in zip(src.tolist(), dst.tolist()):
        if a != b:
            neighbours[a].add(b)
            neighbours[b].add(a)
    candidate = [k == "link" and len(nb) <= 2 for k, nb in zip(topo.kinds, neighbours)]
    fold = [c and not any(candidate[j] for j in nb) for c, nb in zip(candidate, neighbours)]
    out = Topology(topo.name, topo.source)
    out.notes = list(topo.notes)
    for i, name in enumerate(topo.names):
        if not fold[i]:
            out.add_node(name, topo.kinds[i], **topo.node_attrs[i])
    dropped = 0
    for i, nb in enumerate(neighbours):
        if not fold[i]:
            continue
        if len(nb) < 2:
            dropped += 1
            continue
        a, b = sorted(topo.names[j] for j in nb)
        node = topo.node_attrs[i]
        out.add_edge(a, b, _attr_float(node, "bandwidth"), _attr_float(node, "latency"),
                     links=topo.names[i])
    fold = np.array(fold, bool)
    new_index = np.cumsum(~fold) - 1      # the nodes kept, in order
    keep = ~(fold[src] | fold[dst])
    out.add_edges(new_index[src[keep]], new_index[dst[keep]], bw[keep], lat[keep],
                  attrs.take(keep).columns)
    out.dedup_edges()
    if dropped:
        out.notes.append(f"{dropped} link nodes with a single neighbour (loopbacks) dropped")
    return out


def _attr_float(attrs, key):
    return float(attrs[key]) if key in attrs else math.nan


# -- a platform described by a trace ------------------------------------------
#: Container type names of the platform in SimGrid traces, and the kinds they become.
PLATFORM_TYPES = {"HOST": "host", "ROUTER": "router", "LINK": "link"}


def from_trace(trace, source=None):
    """The platform described by a trace, as Viva draws it: every HOST, ROUTER and
    LINK container is a node, and every trace link joining two of them is an edge.
    A LINK's `bandwidth` and `latency` variables (first value) become attributes."""
    source = source or trace.source
    cont = trace.containers
    type_kind = {}
    for t in range(len(trace.types)):
        kind = PLATFORM_TYPES.get(trace.display_name("types", t).upper())
        if kind:
            type_kind[t] = kind
    topo = Topology(os.path.basename(source), source)
    is_platform = np.isin(cont.type, list(type_kind))
    rows = np.flatnonzero(is_platform)
    for c in rows:
        topo.add_node(trace.display_name("containers", c), type_kind[int(cont.type[c])])
    if not len(topo):
        raise TraceError(source, None, "the trace describes no platform "
                         "(no HOST, ROUTER or LINK containers)")
    _platform_variables(trace, topo, is_platform)
    links = trace.links
    both = is_platform[links.start_container] & is_platform[links.end_container]
    for a, b in zip(links.start_container[both], links.end_container[both]):
        if a != b:
            topo.add_edge(trace.display_name("containers", a), trace.display_name("containers", b))
    topo.dedup_edges()
    edges_from_link_nodes(topo)
    return topo


def _platform_variables(trace, topo, is_platform):
    """First value of each platform container's bandwidth / latency / power variable."""
    var = trace.variables
    if not len(var):
        return
    wanted = {}
    for t in range(len(trace.types)):
        name = trace.display_name("types", t).lower()
        if name in ("bandwidth", "latency", "power", "speed"):
            wanted[t] = "speed" if name == "power" else name
    order = np.lexsort((var.start, var.type, var.container))
    first = np.ones(len(order), dtype=bool)
    key = var.container[order].astype(np.int64) * (len(trace.types) + 1) + var.type[order]
    first[1:] = key[1:] != key[:-1]
    for r in order[first]:
        t, c = int(var.type[r]), int(var.container[r])
        if t in wanted and is_platform[c]:
            topo.node_attrs[topo.index[trace.display_name("containers", c)]][
                wanted[t]] = repr(float(var.value[r]))


def edges_from_link_nodes(topo):
    """Give every edge that touches a link node that link's bandwidth and latency."""
    src, dst, bw, lat, _ = topo._columns()
    if not len(src):
        return
    node_bw = np.array([_attr_float(a, "bandwidth") if k == "link" else math.nan
                        for k, a in zip(topo.kinds, topo.node_attrs)])
    node_lat = np.array([_attr_float(a, "latency") if k == "link" else math.nan
                         for k, a in zip(topo.kinds, topo.node_attrs)])

    def fill(e, v):  # the edge's own value, else its first end's, else its second's
        return np.where(np.isnan(e), np.where(np.isnan(v[src]), v[dst], v[src]), e)
    topo._bw, topo._lat = fill(bw, node_bw), fill(lat, node_lat)


# -- describing ---------------------------------------------------------------
def info(topo):
    """Counts, degrees and attributes found, as a dict (for `triva3d topology info`)."""
    degree = np.bincount(np.concatenate([topo.src, topo.dst]), minlength=len(topo))
    node_keys = Counter(k for a in topo.node_attrs for k in a)
    edge_keys = {k: n for k, n in topo.edge_attrs.counts().items() if n}
    bw, lat = topo.bandwidth, topo.latency
    return {
        "source": topo.source,
        "nodes": len(topo),
        "edges": topo.n_edges,
        "kinds": dict(sorted(Counter(topo.kinds).items())),
        "degree": {"min": int(degree.min()) if len(degree) else 0,
                   "max": int(degree.max()) if len(degree) else 0,
                   "mean": round(float(degree.mean()), 3) if len(degree) else 0.0,
                   "isolated": int((degree == 0).sum())},
        "node attributes": dict(sorted(node_keys.items())),
        "edge attributes": dict(sorted(edge_keys.items())),
        "edges with bandwidth": int(np.isfinite(bw).sum()),
        "edges with latency": int(np.isfinite(lat).sum()),
        "positions given": int(np.isfinite(topo.positions()[:, 0]).sum()),
        "notes": list(topo.notes),
    }


def render_info(d):
    lines = [f"topology   {d['source']}",
             f"nodes      {d['nodes']} ({', '.join(f'{k} {v}' for k, v in d['kinds'].items())})",
             f"edges      {d['edges']} ({d['edges with bandwidth']} with bandwidth, "
             f"{d['edges with latency']} with latency)",
             "degree     min {min}, max {max}, mean {mean}, isolated {isolated}".format(**d["degree"]),
             f"positions  {d['positions given']} nodes have a pos"]
    for key in ("node attributes", "edge attributes"):
        found = ", ".join(f"{k} ({v})" for k, v in d[key].items()) or "none"
        lines.append(f"{key.split()[0]} attributes: {found}")
    lines += [f"note: {n}" for n in d["notes"]]
    return "\n".join(lines) + "\n"
