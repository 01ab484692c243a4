"""Screen points to scene geometry, in numpy: the camera's projection matrix gives
the ray under a pixel; boxes are hit by the slab test, lines and points within a
few pixels on screen. The nearest hit wins.
"""
import numpy as np

from ..analysis.metrics import link_bytes
from ..viewstate import PICKED
from .entities import EDGE_WIDTH

#: How close (pixels) a line or point must pass to the pick point.
TOLERANCE = 4.0


class Projection:
    """World <-> display for one camera and window size (display origin bottom left,
    as VTK's)."""

    def __init__(self, matrix, width, height):
        self.m = np.asarray(matrix, np.float64).reshape(4, 4)
        self.inv = np.linalg.inv(self.m)
        self.size = np.array([width, height], np.float64)

    @classmethod
    def of(cls, renderer):
        w, h = renderer.GetSize()
        cam = renderer.GetActiveCamera()
        m = cam.GetCompositeProjectionTransformMatrix(w / max(h, 1), -1, 1)
        return cls([[m.GetElement(i, j) for j in range(4)] for i in range(4)], w, h)

    def to_display(self, p):
        """(n, 3) world points to (n, 3): display x, y and depth in [-1, 1]."""
        p = np.atleast_2d(np.asarray(p, np.float64))
        q = np.c_[p, np.ones(len(p))] @ self.m.T
        q = q[:, :3] / q[:, 3:4]
        return np.c_[(q[:, :2] + 1) / 2 * self.size, q[:, 2]]

    def ray(self, x, y):
        """Origin and unit direction of the ray under display point (x, y)."""
        ndc = np.array([x, y]) / self.size * 2 - 1
        ends = np.array([[ndc[0], ndc[1], -1.0, 1.0], [ndc[0], ndc[1], 1.0, 1.0]]) @ self.inv.T
        ends = ends[:, :3] / ends[:, 3:4]
        d = ends[1] - ends[0]
        return ends[0], d / np.linalg.norm(d)

    def on_plane(self, x, y, z=0.0):
        """The (x, y) where the ray under display point (x, y) meets the plane at
        height `z` (the ground: 0), or None where it runs along or away from it."""
        origin, d = self.ray(x, y)
        t = (z - origin[2]) / d[2] if abs(d[2]) > 1e-12 else -1.0
        return (origin + t * d)[:2] if t > 0 else None


def ray_boxes(origin, direction, lo, hi):
    """Distance along the ray to each box (n, 3 corners lo, hi); inf where missed."""
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / direction
        a = (lo - origin) * inv
        b = (hi - origin) * inv
    # a ray parallel to a slab gives -inf..inf inside it and an empty range outside
    near = np.nanmax(np.minimum(a, b), axis=1)
    far = np.nanmin(np.maximum(a, b), axis=1)
    hit = (far >= near) & (far >= 0)
    return np.where(hit, np.maximum(near, 0), np.inf)


def near_segments(proj, x, y, p0, p1, tol=TOLERANCE):
    """Depth (display z) of the segments passing within `tol` pixels of (x, y), inf
    for the others."""
    if not len(p0):
        return np.zeros(0)
    a, b = proj.to_display(p0), proj.to_display(p1)
    d = b[:, :2] - a[:, :2]
    len2 = (d ** 2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.clip(((x - a[:, 0]) * d[:, 0] + (y - a[:, 1]) * d[:, 1]) / len2, 0, 1)
    u[len2 == 0] = 0
    px, py = a[:, 0] + u * d[:, 0], a[:, 1] + u * d[:, 1]
    depth = a[:, 2] + u * (b[:, 2] - a[:, 2])
    ok = (np.hypot(px - x, py - y) <= tol) & (np.abs(depth) <= 1)
    return np.where(ok, depth, np.inf)


def near_points(proj, x, y, p, tol=TOLERANCE):
    """Depth of the points within `tol` pixels of (x, y), inf for the others."""
    if not len(p):
        return np.zeros(0)
    q = proj.to_display(p)
    ok = (np.hypot(q[:, 0] - x, q[:, 1] - y) <= tol) & (np.abs(q[:, 2]) <= 1)
    return np.where(ok, q[:, 2], np.inf)


def pick(g, proj, x, y):
    """What Geometry `g` draws under display point (x, y) for the projection
    `proj`: a dict with `kind` (state, link, event, variable, container, node,
    edge), `row` in its Trace table or Layout, and details; None over empty space."""
    origin, direction = proj.ray(x, y)
    best = (np.inf, None, None)

    def consider(depths, kind, rows):
        nonlocal best
        if len(depths):
            i = int(np.argmin(depths))
            if depths[i] < best[0]:
                best = (float(depths[i]), kind, rows(i))

    def box_depths(b):
        t = ray_boxes(origin, direction, b[:, [0, 2, 4]], b[:, [1, 3, 5]])
        hit = np.isfinite(t)
        d = np.full(len(t), np.inf)
        if hit.any():
            d[hit] = proj.to_display(origin + t[hit, None] * direction)[:, 2]
        return d, t

    s, ln, pr = g.states, g.links, g.profiles
    if s.n:  # a lid first: it lies on the top it closes
        lids, _, rows = s.lids
        d, _ = box_depths(lids[:, [0, 1, 2, 3, 4, 4]])
        if s.mode == "aggregated":  # (rows: -1 - the column)
            consider(d, "aggregate", lambda i: (-1 - int(rows[i]), None))
        else:
            consider(d, "state", lambda i: int(rows[i]))
    if len(s.boxes):  # exact boxes, level-of-detail or aggregated columns
        d, t = box_depths(s.boxes)
        if s.mode == "exact":
            consider(d, "state", lambda i: int(s.rows[i]))
        elif s.mode == "aggregated":
            consider(d, "aggregate", lambda i: (i, (origin + t[i] * direction)[2]))
        else:
            consider(d, "state", lambda i: g.texel_row(i, (origin + t[i] * direction)[2]))
    consider(near_segments(proj, x, y, ln.p0, ln.p1),
             "link" if ln.count is None else "bundle", lambda i: int(i))
    consider(near_points(proj, x, y, g.events.points), "event",
             lambda i: int(g.events.rows[i]))
    if len(pr.rows):
        d, _ = box_depths(pr.boxes)
        consider(d, "variable", lambda i: int(pr.rows[i]))
    if best[1] == "aggregate":
        return aggregate_details(g, *best[2])
    if best[1] is None or best[2] < 0:
        return _ground(g, proj.on_plane(x, y))
    kind, row = best[1], best[2]
    if kind == "bundle":
        out = details(g.trace, g.layout, "link", int(ln.rows[row]))
        out.update(kind="bundle", count=int(ln.count[row]), bytes=float(ln.bytes[row]))
        return out
    if kind == "link":
        row = int(ln.rows[row])
    out = details(g.trace, g.layout, kind, row)
    if kind == "state":
        out["call path"] = g.call_path_of(row)
    return out


def aggregate_details(g, column, z=None):
    """The details of aggregated column `column` of Geometry `g` at height z (None:
    over the whole window): its node, the time bin, and each value's share of the
    time its members could hold there (percent, most first)."""
    s, tr, f = g.states, g.trace, g.cut
    node = int(s.nodes[column])
    b, frac = s.shares_at(column, z, f.height)
    if b is None:
        t0, t1 = f.t0, f.t1
    else:
        dt = (f.t1 - f.t0) / s.bins
        t0, t1 = f.t0 + b * dt, f.t0 + (b + 1) * dt
    out = details(tr, g.layout, "container", node)
    out.update(kind="aggregate", row=node, start=float(t0), end=float(t1),
               members=int(s.members[column]))
    share = {tr.display_name("values", int(v)): round(100 * float(x), 2)
             for v, x in zip(s.keys, frac) if x > 0}
    share = dict(sorted(share.items(), key=lambda kv: -kv[1]))
    out["shares (%)"] = share
    out["none (%)"] = round(max(0.0, 100 - sum(share.values())), 2)
    return out


def _ground(g, p):
    """The container footprint, else the base node, else the edge at point `p` of
    the ground (None: none)."""
    if p is None:
        return None
    lay = g.layout
    inside = ((np.abs(lay.x - p[0]) <= lay.w / 2) & (np.abs(lay.y - p[1]) <= lay.h / 2)
              & (lay.w > 0))
    inside[0] = False
    if inside.any():
        c = np.flatnonzero(inside)
        return details(g.trace, lay, "container", int(c[np.argmin(lay.w[c] * lay.h[c])]))
    r = lay.node_rects
    inside = (np.abs(r[:, 0] - p[0]) <= r[:, 2] / 2) & (np.abs(r[:, 1] - p[1]) <= r[:, 3] / 2)
    if inside.any():
        n = np.flatnonzero(inside)
        return details(g.trace, lay, "node", int(n[np.argmin(r[n, 2] * r[n, 3])]))
    if len(lay.edges):
        a, b = r[lay.edges[:, 0], :2], r[lay.edges[:, 1], :2]
        d = b - a
        len2 = np.maximum((d ** 2).sum(axis=1), 1e-12)
        u = np.clip(((p[:2] - a) * d).sum(axis=1) / len2, 0, 1)
        dist = np.hypot(*(a + u[:, None] * d - p[:2]).T)
        e = int(np.argmin(dist))
        if dist[e] <= EDGE_WIDTH[1] / 2:
            return details(g.trace, lay, "edge", e)
    return None


def details(trace, layout, kind, row):
    """A dict describing one picked thing, with names for people: its fields, then
    those a trace's user-defined extra fields or a topology's attributes give it."""
    name = trace.names.display
    cont = trace.containers

    def cname(c):
        return name(cont.name[c])

    out = {"kind": kind, "row": row}
    if kind == "state":
        st = trace.states
        out.update(container=cname(st.container[row]), type=name(trace.types.name[st.type[row]]),
                   value=name(trace.values.name[st.value[row]]), start=float(st.start[row]),
                   end=float(st.end[row]), duration=float(st.end[row] - st.start[row]),
                   imbrication=int(st.imbrication[row]))
    elif kind == "link":
        ln = trace.links
        size = link_bytes(trace, [row])[0]  # one row: picking stays cheap
        out.update(type=name(trace.types.name[ln.type[row]]),
                   value=name(trace.values.name[ln.value[row]]),
                   sender=cname(ln.start_container[row]), receiver=cname(ln.end_container[row]),
                   start=float(ln.start[row]), end=float(ln.end[row]),
                   duration=float(ln.end[row] - ln.start[row]),
                   size=None if np.isnan(size) else float(size), key=name(ln.key[row]))
    elif kind == "event":
        ev = trace.events
        out.update(container=cname(ev.container[row]), type=name(trace.types.name[ev.type[row]]),
                   value=name(trace.values.name[ev.value[row]]), time=float(ev.time[row]))
    elif kind == "variable":
        var = trace.variables
        out.update(container=cname(var.container[row]),
                   type=name(trace.types.name[var.type[row]]), value=float(var.value[row]),
                   start=float(var.start[row]), end=float(var.end[row]))
    elif kind == "container":
        node = layout.node[row]
        out.update(name=cname(row), type=name(trace.types.name[cont.type[row]]),
                   start=float(cont.start[row]), end=float(cont.end[row]),
                   node=layout.node_names[node] if node >= 0 else None)
    elif kind == "node":
        out.update(name=layout.node_names[row], node_kind=layout.node_kinds[row])
        _more(out, layout.node_attrs, row)
    elif kind == "edge":
        a, b = layout.edges[row]
        out.update(source=layout.node_names[a], target=layout.node_names[b],
                   bandwidth=float(layout.edge_bandwidth[row]),
                   latency=float(layout.edge_latency[row]))
        _more(out, layout.edge_attrs, row)
    if PICKED[kind]:
        for field, codes in getattr(trace, PICKED[kind]).extra.items():
            if codes[row] >= 0 and field not in out:
                out[field] = name(codes[row])
    return out


def _more(out, attrs, row):
    """The other fields a topology gave node or edge `row` (those not told already)."""
    if row < len(attrs):
        out.update({k: v for k, v in attrs[row].items() if k not in out})
