"""The Layout the scene draws, and the three ways to build one: on a topology, on
the application's communication graph, or on a squarified treemap.

Rectangles everywhere are (centre x, centre y, width, height) in base units
(Graphviz points for graphs, the requested size for treemaps).
"""
from dataclasses import dataclass, field

import numpy as np

from . import matcher
from .graphlayout import layout as graph_layout
from .treemap import depth_of, read_hierarchy, treemap

#: Side of a node that holds one container (Graphviz points: a quarter inch).
UNIT = 18.0


@dataclass
class Layout:
    """Where every container stands, and the base geometry under it."""
    base: str                 # "topology", "appgraph" or "treemap"
    x: np.ndarray             # per container: footprint centre and size (w = h = 0: none)
    y: np.ndarray
    w: np.ndarray
    h: np.ndarray
    node: np.ndarray          # per container: base node index, -1 for none
    rule: np.ndarray          # per container: index into matcher.RULES
    node_names: list
    node_kinds: list
    node_rects: np.ndarray    # (n, 4) base nodes (graph nodes or treemap cells)
    node_depth: np.ndarray    # hierarchy depth of each base node (0 for graph nodes)
    edges: np.ndarray         # (m, 2) node indices
    edge_bandwidth: np.ndarray
    edge_latency: np.ndarray
    edge_attrs: list
    unplaced_area: tuple = None
    report: dict = field(default_factory=dict)

    @property
    def bounds(self):
        """(xmin, ymin, xmax, ymax) of everything drawn."""
        r = np.vstack([self.node_rects, np.c_[self.x, self.y, self.w, self.h][self.w > 0]])
        if self.unplaced_area:
            r = np.vstack([r, self.unplaced_area])
        if not len(r):
            return (0.0, 0.0, 0.0, 0.0)
        return (float((r[:, 0] - r[:, 2] / 2).min()), float((r[:, 1] - r[:, 3] / 2).min()),
                float((r[:, 0] + r[:, 2] / 2).max()), float((r[:, 1] + r[:, 3] / 2).max()))


def _report(trace, rule, unused, examples=5):
    counts = {name: int((rule[1:] == i).sum()) for i, name in enumerate(matcher.RULES)}
    lost = np.flatnonzero(rule == matcher.R_UNPLACED)
    lost = lost[lost > 0]
    return {"containers": len(rule) - 1, "by rule": counts,
            "unplaced examples": [trace.names.display(trace.containers.name[c])
                                  for c in lost[:examples]],
            "unused mapping rows": len(unused), "unused mapping examples": unused[:examples]}


def on_graph(trace, topo, base="topology", program=None, mapping=None, pattern=None,
             use_cache=True):
    """Place the trace's containers on the graph `topo`, laid out by Graphviz.

    `mapping` is a path to a `container,node` CSV, `pattern` a regex; a node's square
    side grows with the square root of the containers it holds (as in Triva)."""
    rows = matcher.read_mapping(mapping, topo.index) if mapping else None
    node, rule, unused = matcher.match(trace, topo.index, rows, pattern)
    _, _, count = matcher.cells_per_node(trace, node, len(topo))
    sizes = UNIT * np.sqrt(np.maximum(count, 1))
    centers = graph_layout(topo, program, sizes, use_cache=use_cache)
    x, y, w, h, rule, area = matcher.arrange(trace, node, rule, centers, sizes)
    return Layout(base, x, y, w, h, node, rule, list(topo.names), list(topo.kinds),
                  np.c_[centers, sizes, sizes], np.zeros(len(topo), dtype=np.int32),
                  np.c_[topo.src, topo.dst].astype(np.int32).reshape(-1, 2),
                  topo.bandwidth, topo.latency, topo.edge_attrs, area,
                  _report(trace, rule, unused))


def _rects(parent, sizes, width, height, pad):
    r, _ = treemap(parent, sizes, width, height, pad)
    return np.c_[r[:, 0] + r[:, 2] / 2, r[:, 1] + r[:, 3] / 2, r[:, 2], r[:, 3]]


def on_treemap(trace, metric="containers", width=1000.0, height=1000.0, pad=None):
    """A squarified treemap of the trace's container hierarchy; each container stands
    on its own rectangle, sized by `metric` (see analysis.metrics)."""
    from ..analysis.metrics import container_metric
    cont = trace.containers
    pad = 0.004 * min(width, height) if pad is None else pad
    rects = _rects(cont.parent, container_metric(trace, metric), width, height, pad)
    names = [trace.names.display(c) for c in cont.name]
    kinds = [trace.type_name(t) for t in cont.type]
    n = len(cont)
    rule = np.full(n, matcher.R_NAME, dtype=np.int8)
    return Layout("treemap", rects[:, 0].copy(), rects[:, 1].copy(), rects[:, 2].copy(),
                  rects[:, 3].copy(), np.arange(n, dtype=np.int32), rule, names, kinds, rects,
                  depth_of(cont.parent), np.zeros((0, 2), np.int32), np.zeros(0), np.zeros(0),
                  [], None, {"containers": n - 1, "metric": metric})


def on_hierarchy(trace, path, mapping=None, pattern=None, width=1000.0, height=1000.0,
                 pad=None):
    """A treemap of a resource hierarchy file (JSON: name, type, children, size);
    containers are matched to its nodes by the matcher's rules and share their
    rectangles as they share a graph node's square."""
    names, types, parent, sizes = read_hierarchy(path)
    pad = 0.004 * min(width, height) if pad is None else pad
    rects = _rects(parent, sizes, width, height, pad)
    index = {}
    for i, name in enumerate(names):
        index.setdefault(name, i)
    rows = matcher.read_mapping(mapping, index) if mapping else None
    node, rule, unused = matcher.match(trace, index, rows, pattern)
    side = np.minimum(rects[:, 2], rects[:, 3])
    x, y, w, h, rule, area = matcher.arrange(trace, node, rule, rects[:, :2], side)
    return Layout("treemap", x, y, w, h, node, rule, names, types, rects, depth_of(parent),
                  np.zeros((0, 2), np.int32), np.zeros(0), np.zeros(0), [], area,
                  _report(trace, rule, unused))


def make_layout(trace, topology=None, base=None, program=None, mapping=None, pattern=None,
                level=None, window=None, metric="containers", use_cache=True):
    """The Layout for the command line's base options: a topology file (a graph, or a
    JSON resource hierarchy), or `base` "appgraph" or "treemap"."""
    from ..errors import TraceError
    base = base or ("topology" if topology else "treemap")
    if base == "topology":
        if not topology:
            raise TraceError(trace.source, None, "--base topology needs --topology FILE")
        if topology.lower().endswith(".json"):
            return on_hierarchy(trace, topology, mapping, pattern)
        from .topology import read_topology
        return on_graph(trace, read_topology(topology), "topology", program, mapping, pattern,
                        use_cache)
    if base == "appgraph":
        from .appgraph import comm_graph
        return on_graph(trace, comm_graph(trace, level, window), "appgraph", program, mapping,
                        pattern, use_cache)
    if base == "treemap":
        return on_treemap(trace, metric)
    raise TraceError(trace.source, None, f"unknown base {base!r} (expected topology, "
                     "appgraph or treemap)")
