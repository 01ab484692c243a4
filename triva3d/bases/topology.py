"""The one graph model of a machine: named nodes (host, router, switch, link...) and
undirected edges, read from Graphviz, SimGrid platform XML or a platform trace.

Bandwidths are in bytes per second and latencies in seconds (NaN when unknown).
A topology is small next to a trace (thousands of nodes), so node attributes are
plain dicts of strings; the arrays the layout and the scene use are numpy.
"""
import math
import os
from collections import Counter

import numpy as np

from ..errors import TraceError

#: Node kinds; "node" is anything else (an application process, a cluster...).
KINDS = ("host", "router", "switch", "link", "node")
#: The largest topology read (a 150-byte SimGrid cluster can ask for 1e7 hosts).
MAX_NODES, MAX_EDGES = 500_000, 2_000_000


class Topology:
    """Nodes and edges; build with `add_node` / `add_edge`, then read the arrays."""

    def __init__(self, name="topology", source=""):
        self.name, self.source = name, source
        self.names, self.kinds, self.node_attrs = [], [], []
        self.index = {}
        self._edges = []          # (a, b, bandwidth, latency, attrs)
        self.notes = []           # what the reader skipped or assumed, for `info`

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

    def add_edge(self, a, b, bandwidth=math.nan, latency=math.nan, **attrs):
        """An undirected edge between node names (created if new) or indices."""
        if len(self._edges) >= MAX_EDGES:
            raise TraceError(self.source, None, f"more than {MAX_EDGES} edges: too large a "
                             "topology to draw")
        a = a if isinstance(a, int) else self.add_node(a)
        b = b if isinstance(b, int) else self.add_node(b)
        self._edges.append((a, b, float(bandwidth), float(latency),
                            {k: str(v) for k, v in attrs.items()}))

    # -- arrays --------------------------------------------------------------
    def _column(self, k, dtype):
        return np.array([e[k] for e in self._edges], dtype=dtype)

    src = property(lambda self: self._column(0, np.int32))
    dst = property(lambda self: self._column(1, np.int32))
    bandwidth = property(lambda self: self._column(2, np.float64))
    latency = property(lambda self: self._column(3, np.float64))

    @property
    def edge_attrs(self):
        return [e[4] for e in self._edges]

    @property
    def n_edges(self):
        return len(self._edges)

    def edge_set(self):
        """Edges as a set of frozensets of node names (for comparisons)."""
        return {frozenset((self.names[a], self.names[b])) for a, b, *_ in self._edges}

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
        seen, kept = {}, []
        for e in self._edges:
            key = (min(e[0], e[1]), max(e[0], e[1]))
            if key not in seen:
                seen[key] = len(kept)
                kept.append(e)
            elif "links" in e[4]:
                attrs = kept[seen[key]][4]
                attrs["links"] = " ".join(sorted(attrs["links"].split() + e[4]["links"].split()))
        self._edges = kept
        return self


def parse_pos(text, source=""):
    """Graphviz `pos` "x,y" (optionally ending with "!") as two floats."""
    try:
        x, y = (float(v) for v in str(text).rstrip("!").split(",")[:2])
    except ValueError:
        x = y = math.nan
    if not (math.isfinite(x) and math.isfinite(y)):  # "inf,nan" drew a blank scene
        raise TraceError(source, None, f"bad pos {text!r} (expected \"x,y\", two finite "
                         "numbers)")
    return x, y


def collapse_links(topo):
    """A copy where every link node joining exactly two other nodes becomes an edge
    carrying the link's bandwidth and latency (split-duplex _UP/_DOWN pairs and
    parallel cables merge into one edge whose `links` attribute names them); link nodes with one
    neighbour (loopbacks) are dropped; shared links (backbones) and chained links
    stay nodes."""
    neighbours = [set() for _ in topo.names]
    for a, b, *_ in topo._edges:
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
        attrs = topo.node_attrs[i]
        out.add_edge(a, b, _attr_float(attrs, "bandwidth"), _attr_float(attrs, "latency"),
                     links=topo.names[i])
    for a, b, bw, lat, attrs in topo._edges:
        if not (fold[a] or fold[b]):
            out.add_edge(topo.names[a], topo.names[b], bw, lat, **attrs)
    out.dedup_edges()
    if dropped:
        out.notes.append(f"{dropped} link nodes with a single neighbour (loopbacks) dropped")
    return out


def _attr_float(attrs, key):
    return float(attrs[key]) if key in attrs else math.nan


# -- reading -------------------------------------------------------------------
def read_topology(path, trace_lenient=False):
    """Read a topology from `path`: Graphviz (.dot/.gv), SimGrid platform XML, or a
    Pajé trace that describes its platform (SimGrid platform traces)."""
    if not os.path.isfile(path):
        raise TraceError(path, None, "no such topology file")
    ext = os.path.splitext(path)[1].lower()
    with open(path, "rb") as f:
        head = f.read(4096).lstrip()
    if ext in (".dot", ".gv") or head[:5].lower() in (b"graph", b"digra", b"stric"):
        from .dotfile import read_dot
        return read_dot(path)
    if ext == ".xml" or head.startswith(b"<?xml") or head.startswith(b"<platform"):
        from .simgrid import read_platform
        return read_platform(path)
    from ..load import load
    return from_trace(load(path, lenient=trace_lenient), path)


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
        kind = PLATFORM_TYPES.get(trace.type_name(t).strip('"').upper())
        if kind:
            type_kind[t] = kind
    topo = Topology(os.path.basename(source), source)
    is_platform = np.isin(cont.type, list(type_kind))
    rows = np.flatnonzero(is_platform)
    for c in rows:
        topo.add_node(trace.names.display(cont.name[c]), type_kind[int(cont.type[c])])
    if not len(topo):
        raise TraceError(source, None, "the trace describes no platform "
                         "(no HOST, ROUTER or LINK containers)")
    _platform_variables(trace, topo, is_platform)
    links = trace.links
    both = is_platform[links.start_container] & is_platform[links.end_container]
    for a, b in zip(links.start_container[both], links.end_container[both]):
        if a != b:
            topo.add_edge(trace.names.display(cont.name[a]), trace.names.display(cont.name[b]))
    topo.dedup_edges()
    _edges_from_link_nodes(topo)
    return topo


def _platform_variables(trace, topo, is_platform):
    """First value of each platform container's bandwidth / latency / power variable."""
    var = trace.variables
    if not len(var):
        return
    wanted = {}
    for t in range(len(trace.types)):
        name = trace.type_name(t).strip('"').lower()
        if name in ("bandwidth", "latency", "power", "speed"):
            wanted[t] = "speed" if name == "power" else name
    order = np.lexsort((var.start, var.type, var.container))
    first = np.ones(len(order), dtype=bool)
    key = var.container[order].astype(np.int64) * (len(trace.types) + 1) + var.type[order]
    first[1:] = key[1:] != key[:-1]
    for r in order[first]:
        t, c = int(var.type[r]), int(var.container[r])
        if t in wanted and is_platform[c]:
            topo.node_attrs[topo.index[trace.names.display(trace.containers.name[c])]][
                wanted[t]] = repr(float(var.value[r]))


def _edges_from_link_nodes(topo):
    """Give every edge that touches a link node that link's bandwidth and latency."""
    bw = [_attr_float(a, "bandwidth") if k == "link" else math.nan
          for k, a in zip(topo.kinds, topo.node_attrs)]
    lat = [_attr_float(a, "latency") if k == "link" else math.nan
           for k, a in zip(topo.kinds, topo.node_attrs)]
    edges = []
    for a, b, e_bw, e_lat, attrs in topo._edges:
        if math.isnan(e_bw):
            e_bw = bw[a] if not math.isnan(bw[a]) else bw[b]
        if math.isnan(e_lat):
            e_lat = lat[a] if not math.isnan(lat[a]) else lat[b]
        edges.append((a, b, e_bw, e_lat, attrs))
    topo._edges = edges


# -- describing ---------------------------------------------------------------
def info(topo):
    """Counts, degrees and attributes found, as a dict (for `triva3d topology info`)."""
    degree = np.bincount(np.concatenate([topo.src, topo.dst]), minlength=len(topo))
    node_keys = Counter(k for a in topo.node_attrs for k in a)
    edge_keys = Counter(k for a in topo.edge_attrs for k in a)
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
