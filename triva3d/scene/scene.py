"""The 3D scene of a Trace over a Layout: a few VTK actors built from numpy arrays,
and picking that maps a screen point back to the Trace row under it.

States are drawn exactly (one box each) while the window holds at most
EXACT_LIMIT of them, else as level-of-detail columns (see lod.py). While the
camera moves, `set_moving` swaps in cheap forms: thick lines for exact boxes, a
sample of the links when there are many.
"""
import numpy as np

from ..analysis.metrics import link_bytes
from ..bases.layout import UNIT
from . import annotations, base, colors, entities, geometry, lod, pick
from .entities import Frame

EXACT_LIMIT = 100_000
MOVING_LINKS = 10_000
DETAILS = ("auto", "exact", "lod")


class Scene:
    """Everything drawn for (trace, layout, window, scale).

    `scale` is the height of the time window relative to the base's larger side;
    `detail` is "auto", "exact" or "lod"; `link_opacity` in [0, 1].
    """

    def __init__(self, trace, layout, window=None, scale=1.0, detail="auto",
                 link_opacity=0.7, labels=True, exact_limit=EXACT_LIMIT):
        if detail not in DETAILS:
            raise ValueError(f"detail must be one of {DETAILS}, not {detail!r}")
        t0, t1 = window if window else (trace.start_time, trace.end_time)
        if not t1 >= t0:
            raise ValueError(f"time window {t0}:{t1} ends before it starts")
        self.trace, self.layout = trace, layout
        self.bounds = layout.bounds
        xmin, ymin, xmax, ymax = self.bounds
        self.frame = Frame(float(t0), float(t1), scale * max(xmax - xmin, ymax - ymin, UNIT))
        self.value_rgb = colors.value_rgb(trace)
        self.actors, self.overlays, self.renderers = [], [], []
        self._base()
        rows = entities.state_rows(trace, layout, self.frame)
        self.mode = ("lod" if detail == "lod" or (detail == "auto" and len(rows) > exact_limit)
                     else "exact")
        self.state_rows = rows
        self.cols = entities.Columns(trace, layout, rows)
        self._moving = None  # full actor -> its cheap form, made on first move
        if self.mode == "exact":
            self._bars(rows)
        else:
            self._columns(rows)
        self._links(link_opacity)
        self._events()
        self._variables()
        self.actors += annotations.time_axis(self.frame, self.bounds)
        self.overlays.append(annotations.legend(self.legend_entries()))
        if labels:
            self.overlays.append(base.labels(trace, layout))

    # -- building --------------------------------------------------------------
    def _base(self):
        h = self.frame.height
        for pd in (base.edges(self.layout, h), base.nodes(self.layout, h),
                   base.borders(self.layout, h), base.unplaced(self.layout, h)):
            if pd is not None:
                self.actors.append(geometry.actor(pd, line_width=1))

    def _bars(self, rows):
        b = entities.bar_bounds(self.trace, self.layout, self.frame, rows, self.cols)
        self.bars = b
        rgb = self.value_rgb[self.trace.states.value[rows]]
        self.bar_actor = geometry.actor(geometry.boxes(*b.T, rgb=rgb), lit=True, cull=True)
        self.actors.append(self.bar_actor)

    def _columns(self, rows):
        self.columns = self.cols.bounds(self.layout, self.frame.height)
        self.lod_actor = geometry.actor(geometry.points(np.zeros((0, 3))), lit=True, cull=True)
        self.n_bins = 0
        self.set_bins(512)
        self.actors.append(self.lod_actor)

    def set_bins(self, n_bins):
        """Rebuild the level-of-detail texture with about `n_bins` bins per column
        (within the texture limits); returns the bins used."""
        n_bins = lod.bins_for(len(self.cols), n_bins)
        if n_bins == self.n_bins:
            return n_bins
        st, rows, f = self.trace.states, self.state_rows, self.frame
        dt = (f.t1 - f.t0) / n_bins if f.t1 > f.t0 else 1.0
        self.texels = lod.bin_states(self.cols.of_row, st.start[rows], st.end[rows],
                                     st.imbrication[rows], rows.astype(np.int32), f.t0, dt,
                                     len(self.cols), n_bins)
        img, width = lod.atlas(lod.texel_colors(self.texels, st.value, self.value_rgb))
        c = self.columns
        self.lod_actor.GetMapper().SetInputData(
            lod.columns(c[:, 0], c[:, 1], c[:, 2], c[:, 3], f.height, n_bins, width))
        self.lod_actor.SetTexture(lod.texture(img))
        self.n_bins = n_bins
        return n_bins

    def fit_detail(self, renderer):
        """Match the level-of-detail bins to the pixels the window's height covers
        on screen (rebuilt only when that changes by more than half)."""
        if self.mode != "lod":
            return
        proj = pick.Projection.of(renderer)
        xmin, ymin, xmax, ymax = self.bounds
        c = [(xmin + xmax) / 2, (ymin + ymax) / 2]
        d = proj.to_display([c + [0.0], c + [self.frame.height]])
        pixels = max(16, int(np.hypot(*(d[1, :2] - d[0, :2]))))
        if not (self.n_bins / 1.5 <= pixels <= self.n_bins * 1.5):
            self.set_bins(pixels)

    def set_moving(self, moving):
        """Cheap forms while the camera moves: exact states as thick lines instead of
        boxes, and at most MOVING_LINKS links (an even sample); `False` restores."""
        if moving and self._moving is None:
            self._moving = {}
            if self.mode == "exact" and len(self.state_rows):
                b = self.bars
                cx, cy = (b[:, 0] + b[:, 1]) / 2, (b[:, 2] + b[:, 3]) / 2
                rgb = self.value_rgb[self.trace.states.value[self.state_rows]]
                self._moving[self.bar_actor] = geometry.actor(geometry.segments(
                    np.c_[cx, cy, b[:, 4]], np.c_[cx, cy, b[:, 5]], rgb), line_width=4)
            if len(self.link_rows) > MOVING_LINKS:
                keep = np.linspace(0, len(self.link_rows) - 1, MOVING_LINKS).astype(np.int64)
                rgb = colors.entity_rgb(self.trace, "links")[self.link_rows[keep]]
                self._moving[self.link_actor] = geometry.actor(
                    geometry.segments(self.link_p0[keep], self.link_p1[keep], rgb),
                    opacity=self.link_actor.GetProperty().GetOpacity())
            for cheap in self._moving.values():
                cheap.VisibilityOff()
                self.actors.append(cheap)
                for r in self.renderers:
                    r.AddActor(cheap)
        for full, cheap in (self._moving or {}).items():
            full.SetVisibility(not moving)
            cheap.SetVisibility(moving)

    def _links(self, opacity):
        tr, lay = self.trace, self.layout
        self.link_rows = entities.link_rows(tr, lay, self.frame)
        self.link_p0, self.link_p1 = entities.link_ends(tr, lay, self.frame, self.link_rows)
        if len(self.link_rows):
            rgb = colors.entity_rgb(tr, "links")[self.link_rows]
            self.link_actor = geometry.actor(geometry.segments(self.link_p0, self.link_p1, rgb),
                                     opacity=opacity)
            self.actors.append(self.link_actor)

    def _events(self):
        tr = self.trace
        self.event_rows = entities.event_rows(tr, self.layout, self.frame)
        self.event_p = entities.event_points(tr, self.layout, self.frame, self.event_rows)
        if len(self.event_rows):
            rgb = colors.entity_rgb(tr, "events")[self.event_rows]
            self.actors.append(geometry.actor(geometry.points(self.event_p, rgb), point_size=5))

    def _variables(self):
        tr = self.trace
        self.var_p0, self.var_p1, self.var_rows = entities.variable_segments(
            tr, self.layout, self.frame, entities.variable_range(tr))
        if len(self.var_rows):
            rgb = colors.type_rgb(tr)[tr.variables.type[self.var_rows]]
            self.actors.append(geometry.actor(geometry.segments(self.var_p0, self.var_p1, rgb)))

    # -- composing ---------------------------------------------------------------
    def add_to(self, renderer):
        for a in self.actors:
            renderer.AddActor(a)
        for a in self.overlays:
            renderer.AddViewProp(a)
        self.renderers.append(renderer)

    def world_bounds(self):
        """(xmin, xmax, ymin, ymax, zmin, zmax) of the scene, axis included."""
        xmin, ymin, xmax, ymax = self.bounds
        m = 0.06 * max(xmax - xmin, ymax - ymin, UNIT)
        return (xmin - m, xmax, ymin - m, ymax, 0.0, self.frame.height + m)

    def legend_entries(self):
        """(name, rgb) of the state values in the window, longest total time first,
        then the link values and the variable types drawn."""
        tr, f = self.trace, self.frame
        st, rows = tr.states, self.state_rows
        names = tr.names.display
        out = []
        if len(rows):
            time = np.bincount(st.value[rows], weights=np.minimum(st.end[rows], f.t1)
                               - np.maximum(st.start[rows], f.t0), minlength=len(tr.values))
            shown = np.flatnonzero(np.bincount(st.value[rows], minlength=len(tr.values)))
            shown = shown[np.argsort(-time[shown], kind="stable")]
            out += [(names(tr.values.name[v]), self.value_rgb[v]) for v in shown]
        link_rgb = colors.entity_rgb(tr, "links")
        for v in np.unique(tr.links.value[self.link_rows]):
            row = self.link_rows[np.argmax(tr.links.value[self.link_rows] == v)]
            out.append((names(tr.values.name[v]), link_rgb[row]))
        type_rgb = colors.type_rgb(tr)
        for ty in np.unique(tr.variables.type[self.var_rows]):
            out.append((names(tr.types.name[ty]), type_rgb[ty]))
        seen = set()
        return [e for e in out if not ((e[0], tuple(e[1])) in seen
                                       or seen.add((e[0], tuple(e[1]))))]

    # -- picking -------------------------------------------------------------------
    def pick(self, proj, x, y):
        """What is under display point (x, y) for the projection `proj` (see
        pick.Projection): a dict with `kind` (state, link, event, variable,
        container, node, edge), `row` in its Trace table or Layout, and details;
        None over empty space."""
        origin, direction = proj.ray(x, y)
        best = (np.inf, None, None)

        def consider(depths, kind, rows):
            nonlocal best
            if len(depths):
                i = int(np.argmin(depths))
                if depths[i] < best[0]:
                    best = (float(depths[i]), kind, rows(i))

        def box_depths(b):
            t = pick.ray_boxes(origin, direction, b[:, [0, 2, 4]], b[:, [1, 3, 5]])
            hit = np.isfinite(t)
            d = np.full(len(t), np.inf)
            if hit.any():
                d[hit] = proj.to_display(origin + t[hit, None] * direction)[:, 2]
            return d, t

        if self.mode == "exact" and len(self.state_rows):
            d, _ = box_depths(self.bars)
            consider(d, "state", lambda i: int(self.state_rows[i]))
        elif self.mode == "lod" and len(self.cols):
            d, t = box_depths(self.columns)

            def texel(i):
                z = (origin + t[i] * direction)[2]
                b = min(self.n_bins - 1, max(0, int(z / self.frame.height * self.n_bins)))
                return int(self.texels[i, b])
            consider(d, "state", texel)
        consider(pick.near_segments(proj, x, y, self.link_p0, self.link_p1), "link",
                 lambda i: int(self.link_rows[i]))
        consider(pick.near_points(proj, x, y, self.event_p), "event",
                 lambda i: int(self.event_rows[i]))
        consider(pick.near_segments(proj, x, y, self.var_p0, self.var_p1), "variable",
                 lambda i: int(self.var_rows[i]))
        if best[1] is None or best[2] < 0:
            return self._pick_ground(origin, direction)
        return details(self.trace, self.layout, best[1], best[2])

    def _pick_ground(self, origin, direction):
        """The container footprint, else the base node, else the edge under the ray
        where it meets the ground."""
        if direction[2] == 0:
            return None
        g = origin - origin[2] / direction[2] * direction
        lay = self.layout
        inside = ((np.abs(lay.x - g[0]) <= lay.w / 2) & (np.abs(lay.y - g[1]) <= lay.h / 2)
                  & (lay.w > 0))
        inside[0] = False
        if inside.any():
            c = np.flatnonzero(inside)
            return details(self.trace, lay, "container", int(c[np.argmin(lay.w[c] * lay.h[c])]))
        r = lay.node_rects
        inside = (np.abs(r[:, 0] - g[0]) <= r[:, 2] / 2) & (np.abs(r[:, 1] - g[1]) <= r[:, 3] / 2)
        if inside.any():
            n = np.flatnonzero(inside)
            return details(self.trace, lay, "node", int(n[np.argmin(r[n, 2] * r[n, 3])]))
        if len(lay.edges):
            a, b = r[lay.edges[:, 0], :2], r[lay.edges[:, 1], :2]
            d = b - a
            len2 = np.maximum((d ** 2).sum(axis=1), 1e-12)
            u = np.clip(((g[:2] - a) * d).sum(axis=1) / len2, 0, 1)
            dist = np.hypot(*(a + u[:, None] * d - g[:2]).T)
            e = int(np.argmin(dist))
            if dist[e] <= base.EDGE_WIDTH[1] / 2:
                return details(self.trace, lay, "edge", e)
        return None


def details(trace, layout, kind, row):
    """A dict describing one picked thing, with names for people."""
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
    elif kind == "edge":
        a, b = layout.edges[row]
        out.update(source=layout.node_names[a], target=layout.node_names[b],
                   bandwidth=float(layout.edge_bandwidth[row]),
                   latency=float(layout.edge_latency[row]))
    return out
