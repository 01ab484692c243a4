"""The Layout the scene draws, and the three ways to build one: on a topology, on
the application's communication graph, or on a squarified treemap.

Rectangles everywhere are (centre x, centre y, width, height) in base units
(Graphviz points for graphs, the requested size for treemaps).
"""
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np
from numba import njit

from ..analysis.roles import drawn_containers
from . import matcher, routing
from .compact import compact_layout
from .topology import EdgeAttrs
from ..errors import OptionsError
from ..trace import depth_of
from . import BASES, DOT_MAX
from .treemap import read_hierarchy, treemap

#: Side of a node that holds one container (Graphviz points: a quarter inch).
UNIT = 18.0
#: Side of a link contracted out of the layout (a dot on its edge), in UNITs.
CONTRACTED = 0.3


@dataclass(kw_only=True)
class Layout:
    """Where every container stands, and the base geometry under it."""
    base: str                 # one of bases.BASES
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
    node_parent: np.ndarray = None  # a treemap's: each node's parent node (-1: none)
    edges: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int32))
    edge_bandwidth: np.ndarray = field(default_factory=lambda: np.zeros(0))
    edge_latency: np.ndarray = field(default_factory=lambda: np.zeros(0))
    edge_attrs: EdgeAttrs = field(default_factory=EdgeAttrs)  # the edges' other fields
    node_attrs: list = field(default_factory=list)  # per graph node: its fields (dicts)
    unplaced_area: tuple = None
    report: dict = field(default_factory=dict)
    #: on a topology: route(node a, node b) -> the node indices between (routing.route)
    route: object = None

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

    @property
    def unplaced(self):
        """How many containers matched no node (drawn in the unplaced area)."""
        return self.report.get("by rule", {}).get("unplaced", 0)

    @property
    def without_area(self):
        """How many containers holding what is drawn have no area (a treemap whose
        leaves are sized by a metric they have none of): nothing of theirs is drawn."""
        return self.report.get("without area", 0)

    def moved(self, trace, moves):
        """This layout with things moved: `moves` maps "node:NAME" (a base node,
        with the containers on it) or "container:NAME" (a container, with the
        containers drawn on it) to the new centre (x, y)."""
        if not moves:
            return self
        x, y, rects = self.x.copy(), self.y.copy(), self.node_rects.copy()
        for key, (nx, ny) in moves.items():
            kind, _, name = key.partition(":")
            if kind == "node":
                if name not in self.node_names:
                    raise OptionsError(f"no base node named {name!r} to move")
                i = self.node_names.index(name)
                dx, dy = nx - rects[i, 0], ny - rects[i, 1]
                rects[i, :2] = nx, ny
                on = self.node == i
            else:
                rows = trace.find("containers", name)
                if not len(rows) or self.w[rows[0]] <= 0:
                    raise OptionsError(f"no container named {name!r} drawn here to move")
                c = rows[0]
                dx, dy = nx - x[c], ny - y[c]
                on = trace.subtree([c])  # and what stands on it
            x[on] += dx
            y[on] += dy
        return replace(self, x=x, y=y, node_rects=rects)

    def drag_target(self, trace, picked, ground):
        """What a drag from a picked thing (see scene.pick, or None) at `ground`
        (x, y) moves: a container (picked, or the container of a picked state),
        else the base node under `ground`: ("container:NAME" or "node:NAME", its
        centre now), or (None, None)."""
        kind, row = (picked["kind"], picked["row"]) if picked else (None, -1)
        if kind == "state":
            kind, row = "container", int(trace.states.container[row])
        if kind == "container":
            return (f"container:{trace.display_name('containers', row)}",
                    (self.x[row], self.y[row]))
        r = self.node_rects
        under = np.flatnonzero((np.abs(r[:, 0] - ground[0]) <= r[:, 2] / 2)
                               & (np.abs(r[:, 1] - ground[1]) <= r[:, 3] / 2))
        if len(under):
            i = under[np.argmin(r[under, 2] * r[under, 3])]  # the innermost
            return f"node:{self.node_names[i]}", tuple(r[i, :2])
        return None, None

    def centre(self, trace, key):
        """The centre now of "node:NAME" or "container:NAME" (see drag_target)."""
        kind, _, name = key.partition(":")
        if kind == "node":
            return tuple(self.node_rects[self.node_names.index(name), :2])
        row = trace.find("containers", name)[0]
        return (self.x[row], self.y[row])

    def rows(self, trace):
        """One row per container but the root: (container, type, node, rule, x, y,
        w, h), names for people ("" for no node)."""
        for c in range(1, len(self.x)):
            node = self.node_names[self.node[c]] if self.node[c] >= 0 else ""
            rect = (self.x[c], self.y[c], self.w[c], self.h[c])
            if not self.w[c] and self.rule[c] == matcher.R_DESCENDANTS:  # (a timeline's
                rect = self.node_rects[self.node[c]]               # frame: its rows' span)
            yield (trace.display_name("containers", c),
                   trace.display_name("types", trace.containers.type[c]), node,
                   matcher.RULES[self.rule[c]], *(float(v) for v in rect))

    def warnings(self):
        """Lines for a picture that would mislead: no container matched the base."""
        by_rule = self.report.get("by rule")
        if by_rule and by_rule["unplaced"] and not any(
                by_rule[r] for r in ("mapping", "pattern", "name", "ancestor")):
            return [f"no container matched a node of the {self.base}: all "
                    f"{by_rule['unplaced']} stand beside it, unplaced (names differ; a "
                    "mapping file or a pattern places them)"]
        return []

    def summary(self):
        """Lines saying how many containers were placed, by which rule, and what was
        left out."""
        r = self.report
        lines = [f"{r['containers']} containers placed on {len(self.node_names)} "
                 f"{self.base} nodes"]
        if "by rule" in r:
            lines.append("by rule: " + ", ".join(f"{k} {v}" for k, v in r["by rule"].items()
                                                 if v))
            if self.unplaced:
                lines.append(f"unplaced: {self.unplaced} (shown beside the base), e.g. "
                             + ", ".join(r["unplaced examples"]))
            if r.get("on kinds"):
                lines.append("on node kinds: " + ", ".join(f"{k} {v}" for k, v in
                                                           r["on kinds"].items()))
            if r.get("kept off other kinds"):
                lines.append(f"kept off nodes that are not hosts: {r['kept off other kinds']} "
                             "(a pattern or name matched a link, router or switch; a mapping "
                             "can put them there), e.g. " + ", ".join(r["kept off examples"]))
            if r["unused mapping rows"]:
                lines.append(f"mapping rows naming no container: {r['unused mapping rows']}, "
                             "e.g. " + ", ".join(r["unused mapping examples"]))
        return lines


def _report(trace, rule, unused, node=None, node_kinds=None, kept_off=(), examples=5):
    counts = {name: int((rule[1:] == i).sum()) for i, name in enumerate(matcher.RULES)}
    lost = np.flatnonzero(rule == matcher.R_UNPLACED)
    lost = lost[lost > 0]
    out = {"containers": len(rule) - 1, "by rule": counts,
           "unplaced examples": [trace.display_name("containers", c) for c in lost[:examples]],
           "unused mapping rows": len(unused), "unused mapping examples": unused[:examples]}
    if node_kinds is not None:  # where the direct rules put containers, by node kind
        direct = np.flatnonzero(np.isin(rule, (matcher.R_MAPPING, matcher.R_PATTERN,
                                               matcher.R_NAME)) & (node >= 0))
        kinds, count = np.unique(np.array(node_kinds, dtype=object)[node[direct]]
                                 if len(direct) else np.zeros(0, object), return_counts=True)
        out["on kinds"] = {str(k): int(c) for k, c in zip(kinds, count)}
        out["kept off other kinds"] = len(kept_off)
        out["kept off examples"] = [trace.display_name("containers", c)
                                    for c in kept_off[:examples]]
    return out


def on_graph(trace, topo, base="topology", program=None, mapping=None, pattern=None,
             use_cache=True, containers=None):
    """Place the trace's containers on the graph `topo`, laid out by Graphviz.

    `mapping` is a path to a `container,node` CSV, `pattern` a regex; `containers`
    gives the container of each node (the communication graph's: matched by row,
    not by name); a node's square side grows with the square root of the
    containers it holds (as in Triva)."""
    rows = matcher.read_mapping(mapping, topo.index) if mapping else None
    node, rule, unused, kept_off = matcher.match(trace, topo.index, rows, pattern, containers,
                                                 node_kinds=topo.kinds)
    _, _, count = matcher.cells_per_node(trace, node, len(topo))
    sizes = UNIT * np.sqrt(np.maximum(count, 1))
    drawn = np.zeros(len(topo), bool)
    placed = node >= 0
    drawn[node[placed & drawn_containers(trace)]] = True
    centers, contracted = compact_layout(topo, program, sizes, drawn, use_cache=use_cache)
    sizes[contracted] = np.minimum(sizes[contracted], CONTRACTED * UNIT)
    sizes = grow(centers, sizes, (count > 0) & ~contracted)
    x, y, w, h, rule, area = matcher.arrange(trace, node, rule, centers, sizes)
    return Layout(base=base, x=x, y=y, w=w, h=h, node=node, rule=rule,
                  node_names=list(topo.names), node_kinds=list(topo.kinds),
                  node_rects=np.c_[centers, sizes, sizes],
                  node_depth=np.zeros(len(topo), dtype=np.int32),
                  edges=np.c_[topo.src, topo.dst].astype(np.int32).reshape(-1, 2),
                  edge_bandwidth=topo.bandwidth, edge_latency=topo.latency,
                  edge_attrs=topo.edge_attrs, node_attrs=list(topo.node_attrs),
                  unplaced_area=area,
                  report=_report(trace, rule, unused, node, topo.kinds, kept_off),
                  route=(partial(routing.route, topo) if base == "topology"
                         else _direct if base in ("appgraph", "tasktree") else None))


def _direct(a, b):
    """A message's route on the communication graph: straight from its sender's
    node to its receiver's, along the edge of the pair."""
    return [a, b]


def _nearest(p):
    """Distance from each point to its nearest other point (a grid of cells about
    as large as the mean spacing; the ring of cells around grows until a point is
    found and the ring is farther than the best one). The grid is numpy's, the
    search numba's (numba's sort would triple the kernel's first compile)."""
    n = len(p)
    if n < 2:
        return np.full(n, np.inf)
    lo = p.min(axis=0)
    span = max(float((p.max(axis=0) - lo).max()), 1e-9)
    g = max(1, int(np.sqrt(n)))
    cell = span / g + 1e-12
    cx, cy = np.minimum(((p - lo) / cell).astype(np.int64), g - 1).T.copy()
    key = cx * g + cy
    order = np.argsort(key)
    start = np.searchsorted(key[order], np.arange(g * g + 1))
    return _nearest_in_grid(p, cx, cy, g, cell, order, start)


@njit(cache=True)
def _nearest_in_grid(p, cx, cy, g, cell, order, start):
    n = len(p)
    out = np.empty(n)
    for i in range(n):
        best = np.inf
        r = 0
        while r <= g and (best == np.inf or (r - 1) * cell < best):
            for a in range(max(0, cx[i] - r), min(g, cx[i] + r + 1)):
                for b in range(max(0, cy[i] - r), min(g, cy[i] + r + 1)):
                    if max(abs(a - cx[i]), abs(b - cy[i])) != r:
                        continue  # only the ring at distance r
                    k = a * g + b
                    for j in order[start[k]:start[k + 1]]:
                        if j != i:
                            d = np.hypot(p[i, 0] - p[j, 0], p[i, 1] - p[j, 1])
                            best = min(best, d)
            r += 1
        out[i] = best
    return out


#: Node squares grow to this fraction of their median nearest-neighbour distance,
#: and none beyond this fraction of its own (so that none overlaps another).
GROW, NO_OVERLAP = 0.5, 0.8


def grow(centers, sizes, holding):
    """Node sides scaled up together, as far as the layout's spacing allows, so that
    what stands on them is not lost in a spread-out graph: the median holding node
    reaches GROW of its nearest-neighbour distance; no node exceeds NO_OVERLAP of
    its own, nor shrinks."""
    if len(centers) < 2 or not holding.any():
        return sizes
    d = _nearest(np.ascontiguousarray(centers, np.float64))
    f = max(1.0, float(np.median(GROW * d[holding] / sizes[holding])))
    return np.maximum(sizes, np.minimum(sizes * f, NO_OVERLAP * d))


def _rects(parent, sizes, width, height, pad):
    r, _ = treemap(parent, sizes, width, height, pad)
    return np.c_[r[:, 0] + r[:, 2] / 2, r[:, 1] + r[:, 3] / 2, r[:, 2], r[:, 3]]


def on_treemap(trace, metric="containers", width=1000.0, height=1000.0, pad=None):
    """A squarified treemap of the trace's container hierarchy; each container stands
    on its own rectangle, sized by `metric` (see analysis.timeslice)."""
    from ..analysis.timeslice import container_metric
    cont = trace.containers
    pad = 0.004 * min(width, height) if pad is None else pad
    sizes = container_metric(trace, metric)
    bad = np.flatnonzero(np.isinf(sizes) | (sizes < 0))
    if len(bad):
        raise OptionsError(f"treemap size {metric!r} is infinite or negative for "
                           f"{len(bad)} containers, e.g. {trace.display_name('containers', bad[0])}")
    rects = _rects(cont.parent, np.nan_to_num(sizes), width, height, pad)
    names = trace.display_names("containers")
    kinds = trace.names.displays(trace.types.name[cont.type])
    n = len(cont)
    flat = rects[:, 2] * rects[:, 3] <= 0  # (sized 0 by a metric: not drawn; a leaf
    flat[0] = False                        # of `containers` is never 0)
    if flat.any():
        flat &= drawn_containers(trace)
    return Layout(base="treemap", x=rects[:, 0].copy(), y=rects[:, 1].copy(),
                  w=rects[:, 2].copy(), h=rects[:, 3].copy(), node=np.arange(n, dtype=np.int32),
                  rule=np.full(n, matcher.R_NAME, dtype=np.int8), node_names=names,
                  node_kinds=kinds, node_rects=rects, node_depth=trace.depth,
                  node_parent=cont.parent,
                  report={"containers": n - 1, "metric": metric,
                          "without area": int(flat.sum()),
                          "without area examples": [names[c] for c in
                                                    np.flatnonzero(flat)[:5].tolist()]})


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
    node, rule, unused, _ = matcher.match(trace, index, rows, pattern)
    side = np.minimum(rects[:, 2], rects[:, 3])
    x, y, w, h, rule, area = matcher.arrange(trace, node, rule, rects[:, :2], side)
    return Layout(base="treemap", x=x, y=y, w=w, h=h, node=node, rule=rule, node_names=names,
                  node_kinds=types, node_rects=rects, node_depth=depth_of(parent),
                  node_parent=np.asarray(parent),
                  unplaced_area=area, report=_report(trace, rule, unused))


def on_timeline(trace, gap=0.5):
    """The containers in a row, in hierarchy order (depth first, children in trace
    order), as Vampir and ViTE list them: every container with something drawn, and
    every leaf, stands on a slot a UNIT wide; the slots of two parents are `gap`
    UNIT apart; each container's node spans its subtree's slots, deeper ones on
    top (nested like a treemap). The side view of it is a Gantt chart."""
    cont = trace.containers
    n = len(cont)
    offsets, order = trace.children_index
    leaf = np.diff(offsets) == 0
    slot = (drawn_containers(trace) | leaf)
    slot[0] = n == 1 or slot[0] and not leaf[0]  # (the root: where it holds what is drawn)
    x = np.zeros(n)
    w = np.zeros(n)
    cursor, last_parent = 0.0, None
    stack = [0]
    while stack:  # depth first, children in row order
        c = stack.pop()
        if slot[c]:
            p = cont.parent[c]
            if last_parent is not None and p != last_parent:
                cursor += gap * UNIT
            x[c], w[c] = cursor + UNIT / 2, UNIT
            cursor += UNIT
            last_parent = p
        stack.extend(order[offsets[c]:offsets[c + 1]][::-1].tolist())
    lo = np.where(slot, x - w / 2, np.inf)
    hi = np.where(slot, x + w / 2, -np.inf)
    for c in range(n - 1, 0, -1):  # children come after their parents
        p = cont.parent[c]
        lo[p], hi[p] = min(lo[p], lo[c]), max(hi[p], hi[c])
    depth = trace.depth
    below = np.zeros(n, np.int64)
    for c in range(n - 1, 0, -1):  # levels of descendants with slots below each node
        if np.isfinite(lo[c]):
            below[cont.parent[c]] = max(below[cont.parent[c]], below[c] + 1)
    spans = np.isfinite(lo)
    rect_w = np.where(spans, hi - lo, 0.0)
    rect_h = UNIT * (1 + 0.5 * below)
    rects = np.c_[np.where(spans, (lo + hi) / 2, 0.0), np.zeros(n), rect_w, rect_h]
    rects[~spans] = 0.0
    names = trace.display_names("containers")
    kinds = trace.names.displays(trace.types.name[cont.type])
    rule = np.where(slot, matcher.R_NAME, np.where(spans, matcher.R_DESCENDANTS,
                                                   matcher.R_UNPLACED)).astype(np.int8)
    return Layout(base="timeline", x=x, y=np.zeros(n), w=w, h=w.copy(),
                  node=np.where(spans, np.arange(n), -1).astype(np.int32), rule=rule,
                  node_names=names, node_kinds=kinds, node_rects=rects, node_depth=depth,
                  report={"containers": n - 1, "slots": int(slot.sum())})


def make_layout(trace, *, topology=None, base=None, program=None, mapping=None, pattern=None,
                level=None, window=None, metric="containers", use_cache=True):
    """The Layout of `trace` on its base: `topology` (a graph file, or a JSON
    resource hierarchy drawn as a treemap), or `base` "appgraph" (the communication
    graph of the containers at `level`, from the links overlapping `window`) or
    "treemap" (the container hierarchy, leaves sized by `metric`). `program` is the
    Graphviz program, `mapping` a container,node CSV, `pattern` a regex on
    container names (see the matcher). "timeline" puts the containers in a row
    (see on_timeline); "tasktree" the execution tree of a trace cut by task
    (on_task_tree)."""
    base = base or ("topology" if topology else "treemap")
    if base not in BASES:
        raise OptionsError(f"unknown base {base!r} (expected {', '.join(BASES)})")
    if (mapping or pattern) and (base == "tasktree" or not topology and base in ("treemap",
                                                                                 "timeline")):
        raise OptionsError(f"a {'mapping' if mapping else 'pattern'} places containers on the "
                           "nodes of a topology or of the communication graph, and there is "
                           f"no topology to map onto (the {base} base draws the trace's own "
                           "containers)")
    if base == "topology":
        if not topology:
            raise OptionsError("a topology base needs a topology file")
        if str(topology).lower().endswith(".json"):
            return on_hierarchy(trace, topology, mapping, pattern)
        from .readers import read_topology
        return on_graph(trace, read_topology(topology), "topology", program, mapping, pattern,
                        use_cache)
    if base == "timeline":
        return on_timeline(trace)
    if base == "appgraph":
        from .appgraph import comm_graph
        topo, containers = comm_graph(trace, level, window)
        return on_graph(trace, topo, "appgraph", program, mapping, pattern, use_cache,
                        containers)
    if base == "tasktree":
        return on_task_tree(trace, program, use_cache)
    return on_treemap(trace, metric)


def on_task_tree(trace, program=None, use_cache=True):
    """The execution tree of a trace cut by task (analysis.tasks.task_trace): a node
    per task, an edge per dependency, laid out by `program` (default dot up to
    DOT_MAX tasks: parents above children, tasks being in the order of their depth;
    sfdp above)."""
    from ..analysis.tasks import TASK_TYPE
    from .appgraph import comm_graph
    if not np.isin(trace.containers.type, trace.find("types", TASK_TYPE)).any():
        raise OptionsError(f"{trace.source}: the tasktree base stands on a trace cut by task "
                           "(--by-task; in the window, View > By task)")
    topo, containers = comm_graph(trace, TASK_TYPE)
    program = program or ("dot" if len(topo) <= DOT_MAX else "sfdp")
    return on_graph(trace, topo, "tasktree", program, None, None, use_cache, containers)
