"""Routes: the nodes a message crosses between two nodes of a topology, in order.

A SimGrid platform routes as SimGrid does (`Routing`, filled by the platform
reader): zones nest; two nodes of one zone are joined by that zone's routing, and
nodes of different zones by the route between the two zones below their common
ancestor, whose gateways are reached by routing again on each side. Zones route by
their kind:

- Full: the declared `route`s and `zoneRoute`s (a symmetrical one, the default, also
  routes back: links reversed, split-duplex UP and DOWN swapped);
- Floyd: the shortest chain of declared routes (fewest links; SimGrid's order of
  relaxation, so ties resolve alike), gateways of consecutive zone routes joined
  by routing between them;
- Cluster (a flat `<cluster>`, or a zone of `host_link`s): the source's way up
  (limiter, private link UP, backbone) then the destination's way down (backbone,
  DOWN, limiter), each link once; a host to itself through its loopback alone.

A route's elements are its two ends, the links in order, and the routers it passes
(gateways, Floyd's intermediate points). A node to itself with no route declared is
the node alone (SimGrid's implicit loopback is no element of the platform). Routes
through zones of another kind (Dijkstra, Vivaldi, Wifi, None, and torus, fat-tree
and dragonfly clusters) are the fewest hops in the topology's graph, as are all
routes of a topology that declares none (Graphviz files, platform traces).
"""
from array import array

import networkx as nx
import numpy as np

from ..errors import OptionsError, TraceError

#: Zone kinds routed as SimGrid does; other kinds fall back to the fewest hops.
ROUTED = ("Full", "Floyd", "Cluster")
#: Sources whose fewest-hops trees are kept.
TREES = 256
#: A cluster host's way up or down: at most a limiter, its link and the backbone.
WAYS = 3


class _Unsupported(Exception):
    """A route crosses a zone whose kind is not in ROUTED."""


class _Zone:
    __slots__ = ("name", "kind", "parent", "vertices", "routes", "hosts", "up", "down",
                 "loop", "rows", "floyd")

    def __init__(self, name, kind, parent):
        self.name, self.kind, self.parent = name, kind, parent
        self.vertices = {}   # Full, Floyd: vertex -> its position (a node, or ~zone)
        self.routes = {}     # (u, v) -> (gw_src, gw_dst, links): declared routes
        # Cluster, as columns: host nodes, and per host WAYS links up, down and
        # WAYS loopback links (-1: none); `rows`: (sorted hosts, their rows)
        self.hosts, self.up, self.down, self.loop = (array("i") for _ in range(4))
        self.rows = None
        self.floyd = None    # Floyd: the predecessor table, made when first asked

    def ways(self, host):
        """A Cluster host's links up, down and loopback (empty for its router)."""
        if self.rows is None or len(self.rows[0]) != len(self.hosts):
            h = np.frombuffer(self.hosts, np.int32) if len(self.hosts) else np.zeros(0, np.int32)
            order = np.argsort(h, kind="stable")
            self.rows = h[order], order
        keys, order = self.rows
        i = int(np.searchsorted(keys, host))
        if i == len(keys) or keys[i] != host:
            return (), (), ()
        r = int(order[i]) * WAYS
        return tuple(tuple(x for x in col[r:r + WAYS] if x >= 0)
                     for col in (self.up, self.down, self.loop))


class Routing:
    """The zones of a SimGrid platform over a Topology's node indices. A zone is
    a vertex `~z` of its parent (hosts and routers: their node index)."""

    def __init__(self, topo):
        self.source, self.names = topo.source, topo.names
        self.zones, self.by_name = [], {}
        self.home = array("i")  # node -> index of the zone holding it (-1: none)

    # -- building (the platform reader) ------------------------------------------------
    def add_zone(self, name, kind, parent=None):
        z = len(self.zones)
        self.zones.append(_Zone(name, kind, parent))
        self.by_name.setdefault(name, z)
        if parent is not None:
            self._vertex(parent, ~z)
        return z

    def place(self, node, z):
        """Node `node` (a host or router) belongs to zone `z`."""
        if node >= len(self.home):
            self.home.extend([-1] * (node + 1 - len(self.home)))
        self.home[node] = z
        self._vertex(z, node)

    def _vertex(self, z, v):
        if self.zones[z].kind in ("Full", "Floyd"):  # (a cluster's hosts: no dict)
            vs = self.zones[z].vertices
            vs.setdefault(v, len(vs))

    def add_route(self, z, src, dst, links, back=None, gw_src=None, gw_dst=None):
        """A route of zone `z` from vertex `src` to `dst` through `links` (node
        indices); `back`: the links of the way back when symmetrical."""
        routes = self.zones[z].routes
        routes.setdefault((src, dst), (gw_src, gw_dst, tuple(links)))
        if back is not None:
            routes.setdefault((dst, src), (gw_dst, gw_src, tuple(back)))

    def add_host_links(self, z, host, up, down, loop=()):
        """A Cluster zone's host: its links up to the cluster, down from it, and
        its loopback."""
        zone = self.zones[z]
        zone.hosts.append(host)
        for col, links in ((zone.up, up), (zone.down, down), (zone.loop, loop)):
            col.extend(list(links) + [-1] * (WAYS - len(links)))

    # -- routing -----------------------------------------------------------------------
    def route(self, src, dst):
        """The nodes from node `src` to node `dst`, both included; None where a
        zone of a kind not in ROUTED is crossed; TraceError where the platform
        has no route."""
        if min(self._home(src), self._home(dst)) < 0:
            return None  # a link, or a node outside any zone: no netpoint of SimGrid's
        try:
            return self._global(src, dst)
        except _Unsupported:
            return None

    def _global(self, src, dst, walking=()):
        if (src, dst) in walking:  # a gateway outside its zone: the same route again
            raise TraceError(self.source, None, f"the route from {self._name(src)} to "
                             f"{self._name(dst)} comes back to itself (a zoneRoute's "
                             "gateway outside its zone)")
        walking = walking + ((src, dst),)
        common, sa, da = self._ancestors(src, dst)
        if sa == da:
            return self._local(common, src, dst, walking)[0]
        mid, gw_src, gw_dst = self._local(common, ~sa, ~da, walking)
        if gw_src is None or gw_dst is None:
            raise self._no_route(src, dst)
        out = self._global(src, gw_src, walking) if src != gw_src else [src]
        out = _join(out, mid)
        return _join(out, self._global(gw_dst, dst, walking)) if gw_dst != dst else out

    def _home(self, node):
        return self.home[node] if node < len(self.home) else -1

    def _ancestors(self, src, dst):
        """SimGrid's common ancestor of two nodes, and the zones under it that
        hold each."""
        zs, zd = self.home[src], self.home[dst]
        if zs == zd:
            return zs, zs, zs
        ps, pd = self._path(zs), self._path(zd)
        parent = None
        while len(ps) > 1 and len(pd) > 1 and ps[-1] == pd[-1]:
            parent = ps.pop()
            pd.pop()
        sa, da = ps[-1], pd[-1]
        return (sa if sa == da else parent), sa, da

    def _path(self, z):
        out = [z]
        while self.zones[out[-1]].parent is not None:
            out.append(self.zones[out[-1]].parent)
        return out

    def _local(self, z, u, v, walking=()):
        """The route between two vertices of zone `z`: (elements, gw_src, gw_dst);
        `walking`: the (src, dst) of the global routes under way (see _global)."""
        zone = self.zones[z]
        if zone.kind not in ROUTED:
            raise _Unsupported(zone.kind)
        if zone.kind == "Cluster":
            return self._cluster(z, u, v), None, None
        if u not in zone.vertices or v not in zone.vertices:
            raise self._no_route(u, v)
        if u == v and (u, v) not in zone.routes:
            return [u], None, None
        if zone.kind == "Full":
            if (u, v) not in zone.routes:
                raise self._no_route(u, v)
            return _hop(zone.routes[(u, v)], u, v)
        return self._floyd(zone, u, v, walking)

    def _cluster(self, z, u, v):
        if u < 0 or v < 0:
            raise _Unsupported("zones in a cluster")
        if self.home[u] != z or self.home[v] != z:
            raise self._no_route(u, v)
        zone = self.zones[z]
        up, _, loop = zone.ways(u)
        if u == v and loop:
            return [u, *loop, u]
        links = list(dict.fromkeys(up + zone.ways(v)[1]))
        return [u, *links, v]

    def _floyd(self, zone, u, v, walking):
        order = list(zone.vertices)
        if zone.floyd is None:
            zone.floyd = _floyd_table(zone, len(order))
        pred, i, j = zone.floyd, zone.vertices[u], zone.vertices[v]
        hops, cur = [], j
        while True:  # from the destination back, as SimGrid walks it
            p = pred[i, cur]
            if p < 0:
                raise self._no_route(u, v)
            hops.append((order[p], order[cur]))
            cur = p
            if cur == i:
                break
        hops.reverse()
        out, prev_gw = None, None
        for a, b in hops:
            elements, gw_src, gw_dst = _hop(zone.routes[(a, b)], a, b)
            if prev_gw is not None and gw_src is not None and gw_src != prev_gw:
                out = _join(out, self._global(prev_gw, gw_src, walking))
            out = elements if out is None else _join(out, elements)
            prev_gw = gw_dst
        first, last = zone.routes[hops[0]], zone.routes[hops[-1]]
        return out, first[0], last[1]

    def _no_route(self, u, v):
        return TraceError(self.source, None, f"no route from {self._name(u)} to "
                          f"{self._name(v)} in the platform")

    def _name(self, v):
        return f"zone {self.zones[~v].name!r}" if v < 0 else repr(self.names[v])


def _hop(route, u, v):
    """A declared route's elements from u to v: (elements, gw_src, gw_dst)."""
    gw_src, gw_dst, links = route
    return [u if gw_src is None else gw_src, *links, v if gw_dst is None else gw_dst], \
        gw_src, gw_dst


def _join(a, b):
    """Route `a` then `b`, their meeting point once."""
    return a + b[1:] if a and b and a[-1] == b[0] else a + b


def _floyd_table(zone, n):
    """Floyd-Warshall over the declared routes, each costing its number of links,
    relaxed in SimGrid's order: the predecessor table (-1: no route)."""
    cost = np.full((n, n), np.inf)
    pred = np.full((n, n), -1, np.int64)
    for (u, v), (_, _, links) in zone.routes.items():
        i, j = zone.vertices[u], zone.vertices[v]
        cost[i, j], pred[i, j] = len(links), i
    for c in range(n):  # row and column c do not change while c is relaxed
        via = cost[:, c, None] + cost[None, c, :]
        better = np.isfinite(via) & (np.isinf(cost) | (via < cost))
        cost = np.where(better, via, cost)
        pred = np.where(better, pred[None, c, :], pred)
    return pred


def route(topo, src, dst):
    """The node indices from `src` to `dst` (names or indices), both included: the
    platform's route (see Routing) where it declares one, else the fewest hops
    in the graph; OptionsError for an unknown node, TraceError where no route joins
    them."""
    a, b = (_node(topo, x) for x in (src, dst))
    path = topo.routing.route(a, b) if topo.routing is not None else None
    if path is None:
        path = _fewest_hops(topo, a, b)
    if path is None:
        raise TraceError(topo.source, None, f"no path from {topo.names[a]!r} to "
                         f"{topo.names[b]!r} in the graph")
    return path


def _node(topo, x):
    if isinstance(x, (int, np.integer)) and 0 <= x < len(topo):
        return int(x)
    if x in topo.index:
        return topo.index[x]
    raise OptionsError(f"{topo.source}: no node {x!r} in the topology")


def _fewest_hops(topo, a, b):
    if a == b:
        return [a]
    trees = topo.trees  # None: the graph; a source: its BFS predecessors
    if a not in trees:
        if None not in trees:
            g = trees[None] = nx.Graph()
            g.add_nodes_from(range(len(topo)))
            g.add_edges_from(zip(topo.src.tolist(), topo.dst.tolist()))
        if len(trees) > TREES:
            del trees[next(k for k in trees if k is not None)]
        trees[a] = nx.predecessor(trees[None], a)
    pred = trees[a]
    if b not in pred:
        return None
    path = [b]
    while path[-1] != a:
        path.append(pred[path[-1]][0])
    return path[::-1]
