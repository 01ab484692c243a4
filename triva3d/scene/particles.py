"""Messages as particles, without VTK.

A message in flight at time `now` is a particle on the plane of `now` (the height
its 3D line has at that time), on its route across the base: from the sender's
footprint through the nodes between the two hosts (the topology's route: a SimGrid
platform's declared routes, through its links (nodes here), else the fewest hops in
the graph: see bases.routing) to the receiver's, at a constant speed along
the route, leaving at the message's start and arriving at its end. On other bases,
and between hosts the graph does not join, the route is the straight line. Each
particle trails the part of its route it covered over the last TRAIL_SPAN of the
window, in TRAIL pieces fading with age (one piece, without a head, above MANY
particles), and the trail shrinks into the receiver after the message arrived (so that messages much
shorter than a frame show). The
heat of an edge is the traffic (bytes where the trace gives sizes, else one per
message) that has crossed it by `now`, a message counting for the part of the edge it has
covered.
"""
import numpy as np
from numba import njit, prange

from .. import colors
from ..errors import TraceError
from ..analysis.metrics import link_bytes, link_sizes

TRAIL, TRAIL_SPAN = 4, 0.02
#: Above this many particles, each is its trail alone, in one piece: no head point
#: and no fading pieces (software OpenGL pays per point and per segment).
MANY = 20_000
#: Particles stand this much of the base's larger side above the plane of `now`.
LIFT = 2e-3


class Routes:
    """The route of every message from container a[i] to b[i] (containers of the
    layout's trace) over `layout`, as flat polylines: route r has points
    `pts[offs[r]:offs[r+1]]` with arc lengths `cum` from its start; `edge[k]` is the
    base edge under the segment starting at point k (-1: none). `of_link[i]` is
    message i's route."""

    def __init__(self, layout, a, b):
        a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
        pair, self.of_link = np.unique(a * len(layout.x) + b, return_inverse=True)
        self.of_link = self.of_link.astype(np.int64)
        src, dst = pair // len(layout.x), pair % len(layout.x)
        paths = _node_paths(layout, layout.node[src], layout.node[dst])
        edge_of = {}
        for i, (u, v) in enumerate(layout.edges):
            edge_of.setdefault((min(u, v), max(u, v)), i)
        pts, edges, offs = [], [], [0]
        for s, d, path in zip(src, dst, paths):
            inner = [(layout.node_rects[n, 0], layout.node_rects[n, 1]) for n in path[1:-1]]
            pts += [(layout.x[s], layout.y[s])] + inner + [(layout.x[d], layout.y[d])]
            hops = [edge_of.get((min(u, v), max(u, v)), -1) for u, v in zip(path, path[1:])]
            edges += (hops or [-1]) + [-1]
            offs.append(offs[-1] + len(inner) + 2)
        self.pts = np.array(pts, np.float64).reshape(-1, 2)
        self.edge = np.array(edges, np.int64)
        self.offs = np.array(offs, np.int64)
        step = np.r_[0.0, np.hypot(*np.diff(self.pts, axis=0).T)]
        step[self.offs[:-1]] = 0.0  # each route starts at 0
        self.cum = _cumsum_by_route(step, self.offs)

    def points(self, rows, t, start, end):
        """(n, 2) ground points of the messages `rows` at times `t` (per row)."""
        return _positions(rows, np.asarray(t, np.float64), self.of_link, self.offs,
                          self.pts, self.cum, start, end)


def _node_paths(layout, src, dst):
    """Per pair: the node path from node src to node dst, the topology's route
    ([s] from a node to itself; [] when not on a topology, unplaced, or no route)."""
    out = [[] for _ in src]
    if layout.route is None:
        return out
    for i, (s, d) in enumerate(zip(src.tolist(), dst.tolist())):
        if s >= 0 and d >= 0:
            try:
                out[i] = [s] if s == d else layout.route(s, d)
            except TraceError:
                pass  # no route: the straight line
    return out


class Particles:
    """Particles and edge heat of the messages of a Geometry at a time `now`."""

    def __init__(self, trace, layout):
        self.trace, self.layout = trace, layout
        ln = trace.links
        self.routes = Routes(layout, ln.start_container, ln.end_container)
        size = link_bytes(trace)
        ok = np.isfinite(size) & (size > 0)
        #: what a message weighs in the heat: its bytes, 1 where its size is unknown
        self.weight = np.where(ok, size, 1.0)
        whole = link_sizes(trace)  # (the whole run's)
        #: what the heat adds up, for people
        self.unit = ("bytes" if whole.positive == whole.links else "messages"
                     if not whole.positive else "bytes, 1 a message of unknown size")
        #: log-scaled sizes in [0, 1] (NaN: unknown) for the "size" colouring
        self.size_level = np.full(len(size), np.nan)
        if ok.any():
            lo = np.log10(whole.smallest)
            span = np.log10(whole.largest) - lo
            self.size_level[ok] = (np.log10(size[ok]) - lo) / span if span > 0 else 1.0
        self._heat_max = {}

    def at(self, geometry, now, how="value"):
        """What is drawn at `now` for the messages of `geometry`: heads (n, 3) of
        those in flight and their rgb, and trail segments ((m, 2, 3) end points,
        (m, 4) rgba) of those in flight or arrived within the trail's span; `how`:
        colour by "value" or "size"."""
        ln, f = self.trace.links, geometry.frame
        span = TRAIL_SPAN * (f.t1 - f.t0)
        rows = geometry.links.messages
        rows = rows[(ln.start[rows] <= now) & (ln.end[rows] >= now - span)]
        rgb = (geometry.value_rgb[ln.value[rows]] if how == "value"
               else colors.ramp(self.size_level[rows]))
        z = f.z(now) + LIFT * geometry.extent
        flying = ln.end[rows] >= now
        r = self.routes
        if len(rows) > MANY:  # the level of detail: the trail alone shows the particle
            flying[:] = False
        head = r.points(rows[flying], np.full(flying.sum(), now), ln.start, ln.end)
        pieces = TRAIL if len(rows) <= MANY else 1
        pairs, rgba = _trails(rows, rgb, now - span, now, z, pieces, r.of_link, r.offs,
                              r.pts, r.cum, ln.start, ln.end)
        return np.c_[head, np.full(len(head), z)], rgb[flying], pairs, rgba

    def heat(self, geometry, now):
        """Per base edge: the traffic that crossed it from the window's start to
        `now`, as a fraction of what crosses the busiest edge over the whole window
        (0..1). A message counts for the part of its route it travelled then: one
        cut by the window, for its part inside (as in the Time-Slice, thesis eq. 4.4)."""
        w, rows = geometry.frame, geometry.links.messages
        key = (w.t0, w.t1, geometry.message_key)
        if key not in self._heat_max:
            self._heat_max = {key: self._heat(rows, w.t0, w.t1).max(initial=0.0)}
        top = self._heat_max[key]
        h = self._heat(rows, w.t0, now)
        return h / top if top > 0 else h

    def _heat(self, rows, t0, t1):
        """Per base edge: the traffic that crossed it between t0 and t1."""
        ln = self.trace.links
        return crossed(self.routes, rows, ln.start, ln.end, self.weight,
                       len(self.layout.edges), t0, t1)


def crossed(routes, rows, start, end, weight, n_edges, t0, t1):
    """Per base edge: the traffic (`weight` a message) of the messages `rows` that
    crossed it between t0 and t1 (a message for the part of its route travelled
    then)."""
    args = (routes.of_link, routes.offs, routes.cum, routes.edge, start, end, weight, n_edges)
    by_t1 = _heat(rows[start[rows] <= t1], t1, *args)
    return np.maximum(by_t1 - _heat(rows[start[rows] < t0], t0, *args), 0.0)


def edge_difference(a, b, layout, window=None, unit=None):
    """Per edge of run `a`'s `layout`: run `b`'s traffic across it less `a`'s (bytes,
    1 a message of unknown size), b's messages placed by their ends' container names
    in `a` (those whose ends `a` lacks left out); over `window` read from each run's
    start (`unit`: see compare.per_unit), else each run whole. Returns (difference,
    its unit, messages of b left out)."""
    from ..analysis.compare import moved
    from ..analysis.roles import platform_link_types
    names = {}
    for c in range(len(a.containers)):
        names.setdefault(a.display_name("containers", c), c)
    mate = np.array([names.get(b.display_name("containers", c), -1)
                     for c in range(len(b.containers))], np.int64)
    runs = []
    for run, ends in ((a, None), (b, mate)):  # the messages (not platform links) placed
        ln = run.links
        src, dst = ln.start_container.astype(np.int64), ln.end_container.astype(np.int64)
        if ends is not None:
            src, dst = ends[src], ends[dst]
        message = ~platform_link_types(run)[ln.type]
        size = link_bytes(run)
        runs.append((run, src, dst, np.flatnonzero(message & (src >= 0) & (dst >= 0)), size,
                     int(message.sum())))
    sized = all((np.isfinite(s[r]) & (s[r] > 0)).all() for _, _, _, r, s, _ in runs)
    out = []
    for run, src, dst, rows, size, _ in runs:  # bytes where every message has a size
        weight = np.nan_to_num(size, nan=1.0) if sized else np.ones(len(size))
        t0, t1 = (run.start_time, run.end_time) if window is None else moved(window, a, run, unit)
        out.append(crossed(Routes(layout, np.maximum(src, 0), np.maximum(dst, 0)), rows,
                           run.links.start, run.links.end, weight, len(layout.edges), t0, t1))
    left_out = runs[1][5] - len(runs[1][3])
    return out[1] - out[0], "B" if sized else "messages", left_out


@njit(cache=True)
def _cumsum_by_route(step, offs):
    out = np.empty_like(step)
    for r in range(len(offs) - 1):
        acc = 0.0
        for k in range(offs[r], offs[r + 1]):
            acc += step[k]
            out[k] = acc
    return out


@njit(cache=True)
def _fraction(t, s, e):
    if e <= s:
        return 1.0 if t >= s else 0.0
    return min(1.0, max(0.0, (t - s) / (e - s)))


@njit(cache=True)
def _positions(rows, t, route_of, offs, pts, cum, start, end):
    out = np.empty((len(rows), 2))
    for i in range(len(rows)):
        m = rows[i]
        r = route_of[m]
        a, b = offs[r], offs[r + 1] - 1
        out[i, 0], out[i, 1] = _point(_fraction(t[i], start[m], end[m]) * cum[b], a, b,
                                      pts, cum)
    return out


@njit(cache=True)
def _point(d, a, b, pts, cum):
    """The point at arc length d of the route whose points are a..b."""
    k = a
    while k < b - 1 and cum[k + 1] < d:
        k += 1
    seg = cum[k + 1] - cum[k]
    u = min(1.0, max(0.0, (d - cum[k]) / seg)) if seg > 0 else 1.0
    return (pts[k, 0] + u * (pts[k + 1, 0] - pts[k, 0]),
            pts[k, 1] + u * (pts[k + 1, 1] - pts[k, 1]))


@njit(cache=True, parallel=True)
def _trails(rows, rgb, t_lo, t_hi, z, pieces, route_of, offs, pts, cum, start, end):
    """Segments at height z along each message's route between where it was at
    t_lo and at t_hi, cut into `pieces` of equal length, the oldest the most
    transparent, and at the route's corners: ((m, 2, 3) float32 end points,
    (m, 4) uint8 rgba of the row's `rgb`)."""
    n = len(rows)
    first = np.zeros(n + 1, np.int64)
    for i in prange(n):  # room per message: its pieces, and the corners between
        r = route_of[rows[i]]
        first[i + 1] = pieces + offs[r + 1] - offs[r] - 2
    first = np.cumsum(first)
    out = np.empty((first[-1], 2, 3), np.float32)
    rgba = np.empty((first[-1], 4), np.uint8)
    used = np.zeros(n, np.int64)
    for i in prange(n):
        m = rows[i]
        r = route_of[m]
        a, b = offs[r], offs[r + 1] - 1
        d_hi = _fraction(t_hi, start[m], end[m]) * cum[b]
        d_lo = _fraction(t_lo, start[m], end[m]) * cum[b]
        k_out = first[i]
        for j in range(pieces):  # from the head backwards
            hi = d_hi - (d_hi - d_lo) * j / pieces
            lo = d_hi - (d_hi - d_lo) * (j + 1) / pieces
            if hi <= lo:
                continue
            alpha = np.uint8(round(220 * (1 - j / pieces)))
            x, y = _point(lo, a, b, pts, cum)
            for k in range(a, b + 1):  # corners strictly between lo and hi, then hi
                if k < b and not (lo < cum[k] < hi):
                    continue
                if k < b:
                    x1, y1 = pts[k, 0], pts[k, 1]
                else:
                    x1, y1 = _point(hi, a, b, pts, cum)
                out[k_out, 0, 0], out[k_out, 0, 1], out[k_out, 0, 2] = x, y, z
                out[k_out, 1, 0], out[k_out, 1, 1], out[k_out, 1, 2] = x1, y1, z
                rgba[k_out, 0], rgba[k_out, 1], rgba[k_out, 2] = rgb[i, 0], rgb[i, 1], rgb[i, 2]
                rgba[k_out, 3] = alpha
                k_out += 1
                x, y = x1, y1
        used[i] = k_out - first[i]
    keep = np.empty(first[-1], np.bool_)
    keep[:] = False
    for i in prange(n):
        keep[first[i]:first[i] + used[i]] = True
    return out[keep], rgba[keep]


@njit(cache=True)
def _heat(rows, now, route_of, offs, cum, edge, start, end, weight, n_edges):
    heat = np.zeros(n_edges)
    for i in range(len(rows)):
        m = rows[i]
        r = route_of[m]
        a, b = offs[r], offs[r + 1] - 1
        d = _fraction(now, start[m], end[m]) * cum[b]
        for k in range(a, b):
            e = edge[k]
            if e < 0 or d < cum[k]:
                continue
            seg = cum[k + 1] - cum[k]
            heat[e] += weight[m] * (min(1.0, (d - cum[k]) / seg) if seg > 0 else 1.0)
    return heat
