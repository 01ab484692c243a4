"""The 3D scene of a Trace over a Layout: a few VTK actors drawn from the numpy
Geometry, updated in place when the ViewState changes.

States are drawn exactly (one box each) while the window holds at most
EXACT_LIMIT of them, else as level-of-detail columns (see lod.py). While the
camera moves, `set_moving` swaps in cheap forms: thick lines for exact boxes, a
sample of the links when there are many. The base (nodes, edges, labels) is built
once; a new window, scale, filter or colour rebuilds only the entities' actors,
the axis and the legend.
"""
import os
import weakref

import numpy as np
from vtkmodules.vtkCommonCore import vtkCommand

from .. import colors
from ..errors import OptionsError
from ..theme import FOCUS_RGB, HOVER_RGB, SELECTION_RGB
from ..viewstate import ViewState
from . import base, entities, lod, pick, polydata
from .geometry import EVENT_PX, EXACT_LIMIT, Geometry, box_edges
from .overlay import Overlay

MOVING_LINKS = 10_000
#: Above this many variable pieces, they are thick lines while the camera moves.
MOVING_PIECES = 10_000
#: With particles, message lines (their history) are drawn at this fraction of
#: the link opacity.
PARTICLE_LINES = 0.3
#: The plane of `now` (movies): colour, opacity, and its border's colour.
NOW_RGB, NOW_OPACITY, NOW_EDGE_RGB = (110, 160, 255), 0.16, (150, 190, 255)


class Scene:
    """The actors of (trace, layout) for a ViewState; `apply(stages, state)`
    applies a change of the state (the stages it triggers). The actors are grouped in named slots; each slot is replaced
    as a whole in every renderer the scene was added to."""

    def __init__(self, trace, layout, state=None, exact_limit=EXACT_LIMIT, legend=True,
                 geometry=None, n_bins=None):
        state = state or ViewState()
        self.legend = legend  # False where the legend is shown beside (a GUI dock)
        self.trace, self.layout = trace, layout
        # `geometry`: made already (by a worker thread) over (trace, layout); else made
        # here, binned in `n_bins` (Geometry's)
        self.geometry = g = geometry or Geometry(trace, layout, state, exact_limit, n_bins)
        self.renderers, self._slots = [], {}
        self._fitted = None  # the camera fit_view fitted for (None: fit again)
        self._moving, self._pixel = False, 1
        self._particles = None  # particles.Particles, made when first needed
        self._keys = (None, None)  # what the legend says of particles and heat
        self._difference = (None, None)  # (its key, the edges' B - A, its legend line)
        edges, image = base.edges(layout, g.extent)
        ground = [polydata.actor(pd, line_width=1) for pd in (
            edges, base.nodes(layout, g.extent), base.borders(layout, g.extent),
            base.unplaced(layout, g.extent)) if pd is not None]
        if image is not None:
            ground[0].SetTexture(polydata.texture(image, smooth=True))
        self._set("base", ground)
        #: the edges' strips (their latency colours give way to grey under the heat)
        self._edges = ground[0] if edges is not None and image is None else None
        self.overlay = Overlay(trace, layout, g.bounds, g.extent, self.renderers)
        self.overlay.name_only(g.named_containers())
        self._entities(_line_opacity(state))
        self.apply({"overlay", "selection", "properties"}, state)

    # -- following the state ---------------------------------------------------------
    def apply(self, stages, state):
        """Apply a change of `state` that triggers `stages` (see viewstate.STAGES;
        the base's are the View's: it makes a new Scene)."""
        self._fitted = None
        g = self.geometry
        if g.unit_named != state.time_unit and (g.color_by != "value" or g.chosen is not None):
            stages = stages | {"geometry"}  # (the legend's times, B - A: in the unit named)
        if "geometry" in stages:
            g.update(state)
            self._entities(_line_opacity(state))
            self.overlay.name_only(g.named_containers())
        if stages & {"geometry", "overlay"}:
            unit = self.trace.unit(state.time_unit)
            self.overlay.set_frame(g.frame, unit, self._title(state, unit))
            self._movie(state)
        if stages & {"geometry", "selection"}:
            self._selection = state.selection
            self._outline(state.selection)
            self._focus(state)
        if stages & {"overlay", "properties"}:
            self._labels = state.labels
            opacity = _line_opacity(state)
            if bool(self._slots.get("links")) != bool(len(g.links.rows) and opacity > 0):
                self._entities(opacity)  # no lines at opacity 0
            self._line_opacity = opacity
            for a in self._slots.get("links", []) + self._slots.get("moving_links", []):
                a.GetProperty().SetOpacity(opacity)

    def _entities(self, link_opacity):
        g = self.geometry
        self._line_opacity = link_opacity
        self._set("states", self._states() if g.states.n else [])
        self._set("links", self._links(link_opacity)
                  if len(g.links.rows) and link_opacity > 0 else [])
        self._set("events", self._events())
        self._set("variables", _boxes(g.profiles.boxes, g.profiles.rgb))
        self.overlay.set_legend(self.legend_entries() if self.legend else [])
        for slot in ("moving_states", "moving_links", "moving_variables"):
            self._set(slot, [])
        if self._moving:
            self.set_moving(True, self._pixel)

    def _outline(self, selection):
        p0, p1 = self.geometry.outline(selection)
        self._set("selection", [polydata.actor(polydata.segments(p0, p1),
                                               color=SELECTION_RGB, line_width=3)]
                  if len(p0) else [])

    def _events(self):
        """The events' dots (their points are the geometry's own: shared)."""
        e = self.geometry.events
        return [polydata.actor(polydata.points(e.points[s], e.rgb[s], share=True),
                               point_size=EVENT_PX)
                for s in polydata.chunks(len(e.rows), polydata.POINT_CHUNK)]

    def _links(self, opacity):
        """Message lines; bundles carry their own opacity (by count) times `opacity`,
        or between aggregated columns a width by traffic."""
        ln = self.geometry.links
        if ln.count is None:
            return [polydata.actor(polydata.segments(ln.p0, ln.p1, ln.rgb), opacity=opacity)]
        if ln.width is not None:  # between aggregated columns: widths, opaque
            return [polydata.actor(polydata.segments(ln.p0[k], ln.p1[k], ln.rgb[k]),
                                   opacity=opacity, line_width=float(w))
                    for w in np.unique(ln.width) for k in [ln.width == w]]
        rgba = np.c_[ln.rgb, np.round(255 * ln.alpha)].astype(np.uint8)
        a = polydata.actor(polydata.segments(ln.p0, ln.p1, rgba), opacity=opacity,
                           line_width=2)
        a.ForceTranslucentOn()
        return [a]

    def _states(self):
        """The actors of the states: exact boxes, or the level-of-detail columns."""
        g = self.geometry
        s = g.states
        if s.mode == "exact":
            out = _boxes(s.boxes, s.rgb)
        else:
            pts, quads, tc = s.mesh(g.cut.height)
            out = [polydata.actor(polydata.polydata(pts, quads, 4, "polys", tcoords=tc),
                                  lit=True, cull=True)]
            out[0].SetTexture(polydata.texture(s.atlas))
        lids, rgb, _ = s.lids
        return out + [polydata.actor(polydata.quads(*lids.T, rgb), lit=True, cull=True)]

    def _movie(self, state):
        """The plane of `now`, the particles in flight and the edges' heat: the
        traffic so far, or with `routes` (and no heat) the whole window's."""
        g, now = self.geometry, state.now
        on = now is not None
        # the communication graph's edges always show the traffic of the window (its
        # nodes stay where the whole run's graph put them)
        window = state.routes or (self.layout.base == "appgraph"
                                  and 0 < len(self.layout.edges) <= entities.EDGE_LIMIT)
        hot = now if on and state.heat else g.frame.t1 if window else None
        diff = self._edge_difference(state) if hot is None else None
        keys = (state.particles if on else None,
                diff[1] if diff is not None else None if hot is None else
                f"{'so far' if on and state.heat else 'of the window'} "
                f"({self._particles_of().unit})")
        if keys != self._keys:
            self._keys = keys
            self.overlay.set_legend(self.legend_entries() if self.legend else [])
            if self._edges is not None:
                self._edges.GetMapper().SetScalarVisibility(not keys[1])
                self._edges.GetProperty().SetColor(*(c / 255 for c in colors.NO_LATENCY))
        plane = []
        if on:
            xmin, xmax, ymin, ymax, _, _ = g.world_bounds()
            z = g.frame.z(now)
            plane = [polydata.actor(polydata.quads([xmin], [xmax], [ymin], [ymax], z),
                                    color=NOW_RGB, opacity=NOW_OPACITY),
                     polydata.actor(polydata.outlines([xmin], [xmax], [ymin], [ymax], z),
                                    color=NOW_EDGE_RGB, line_width=1)]
        self._set("now", plane)
        flying = []
        if on and state.particles:
            heads, rgb, pairs, rgba = self._particles_of().at(g, now, state.particles)
            if len(pairs):
                trail = polydata.actor(polydata.lines(pairs, rgba), line_width=4)
                trail.ForceTranslucentOn()
                flying.append(trail)
            if len(heads):
                flying.append(polydata.actor(polydata.points(heads, rgb), point_size=9))
        self._set("particles", flying)
        strips = None
        if hot is not None and len(self.layout.edges):
            strips = base.heat(self.layout, g.extent, self._particles_of().heat(g, hot))
        elif diff is not None:
            strips = base.difference(self.layout, g.extent, diff[0])
        self._set("heat", [] if strips is None else [polydata.actor(strips)])

    def _edge_difference(self, state):
        """With a second run coloured by a difference: per base edge, B's traffic
        across it less A's (particles.edge_difference), and the legend's line; None
        otherwise (made once a window)."""
        g = self.geometry
        if g.other is None or not g.color_by.startswith("difference") \
                or not len(self.layout.edges) or self.layout.route is None:
            return None
        key = (state.compare, state.window, state.time_unit)
        if self._difference[0] != key:
            from .particles import edge_difference
            d, unit, left = edge_difference(self.trace, g.other, self.layout, state.window,
                                            state.time_unit)
            top = float(np.abs(d).max(initial=0.0))
            text = ((f"edges: B - A traffic, blue less, red more (widest {top:.3g} {unit})"
                     if top > 0 else "edges: the same traffic in B as in A")
                    + (f"; {left} of B's messages unplaced" if left else ""))
            self._difference = (key, (d / top if top > 0 else d, text))
        return self._difference[1]

    def legend_entries(self):
        """The keys of the picture (see Geometry.legend_entries), with what the
        particles and the base's edges show now."""
        return self.geometry.legend_entries(*self._keys)

    def _focus(self, state):
        """Outline the columns of the focus container's partners within its radius
        in the window's messages (analysis.commgraph.partners); none without."""
        if state.focus is None:
            self._set("focus", [])
            return
        from ..analysis.commgraph import partners
        tr, g = self.trace, self.geometry
        rows = tr.find("containers", state.focus)
        if not len(rows):
            raise OptionsError(f"{tr.source}: no container named {state.focus!r} to focus on")
        near = partners(tr, rows, state.focus_radius, (g.frame.t0, g.frame.t1))
        self._set("focus", self._column_outlines(near, FOCUS_RGB, 2))

    def _column_outlines(self, containers, rgb, width):
        """Actors outlining the columns of `containers` (rows or a mask) over the
        window's height."""
        g, lay = self.geometry, self.layout
        mask = np.zeros(len(lay.x), bool)
        mask[containers] = True
        c = np.flatnonzero(mask & (lay.w > 0))
        boxes = np.c_[lay.x[c] - lay.w[c] / 2, lay.x[c] + lay.w[c] / 2, lay.y[c] - lay.h[c] / 2,
                      lay.y[c] + lay.h[c] / 2, np.zeros(len(c)), np.full(len(c), g.frame.height)]
        p0, p1 = box_edges(boxes)
        return [polydata.actor(polydata.segments(p0, p1), color=rgb, line_width=width)] \
            if len(c) else []

    def highlight(self, containers):
        """Outline the columns of `containers` (rows, or a mask) over the whole
        window's height (a panel's hover); empty: none."""
        self._set("highlight", self._column_outlines(containers, HOVER_RGB, 2))

    def _particles_of(self):
        if self._particles is None:
            from .particles import Particles
            self._particles = Particles(self.trace, self.layout)
        return self._particles

    def _set(self, slot, props):
        """Replace the props of `slot` in every renderer. When a slot has several
        (chunks of big geometry, see polydata.BOX_CHUNK), the pipeline is drained
        before each is drawn."""
        for ren in self.renderers:
            for p in self._slots.get(slot, []):
                ren.RemoveViewProp(p)
            for p in props:
                ren.AddViewProp(p)
        if len(props) > 1:
            me = weakref.ref(self)  # (a mapper's observer must not keep the scene alive)
            for p in props:
                p.GetMapper().AddObserver(vtkCommand.StartEvent,
                                          lambda *_: me() is not None and me()._drain())
        self._slots[slot] = list(props)

    def _drain(self):
        """Wait until what is drawn so far is drawn (see _set)."""
        rw = self.renderers[0].GetRenderWindow() if self.renderers else None
        if rw is not None:
            rw.WaitForCompletion()  # glFinish: the context drawing is the current one

    @property
    def props(self):
        return [p for props in self._slots.values() for p in props] + self.overlay.props

    def _title(self, state, unit):
        g = self.geometry
        on_file = state.topology and state.base in (None, "topology")
        base = (os.path.basename(state.topology) if on_file else
                {"appgraph": "communication graph", "tasktree": "execution tree"}
                .get(g.layout.base, g.layout.base))
        now = "" if state.now is None else f"   now {state.now:.6g}"
        morph = "" if state.logical is None else \
            f"   {state.logical:.0%} of the way to logical steps"
        return (f"{self.trace.name}   {g.frame.t0:.6g} .. {g.frame.t1:.6g} "
                f"{unit}{now}{morph}   on {base}")

    # -- camera-dependent forms ----------------------------------------------------------
    def fit_view(self, renderer):
        """Fit what depends on the camera: the level-of-detail bins and what is
        written over the scene."""
        proj = pick.Projection.of(renderer)
        key = (proj.m.tobytes(), tuple(proj.size))
        if key == self._fitted:
            return  # the camera and the contents are as they were last time
        if not self._moving:  # while the camera moves: the bins it had, no labels
            self._fit_detail(proj)
        self.overlay.place(proj, self._labels and not self._moving)
        self._fitted = key

    def _fit_detail(self, proj):
        """Match the level-of-detail bins to the pixels the window's height covers
        on screen (rebinned only when that changes by more than half)."""
        g = self.geometry
        if g.states.mode == "exact" or not len(g.states.boxes):
            return
        pixels = self.detail_pixels(proj)
        if not lod.refit(g.states.bins, pixels):
            return
        changed = g.set_bins(pixels)
        if "states" in changed:
            self._set("states", self._states())
        if "variables" in changed:
            self._set("variables", _boxes(g.profiles.boxes, g.profiles.rgb))
            self._set("moving_variables", [])
        if "events" in changed:
            self._set("events", self._events())
        if changed & {"variables", "events"} and self._selection:
            self._outline(self._selection)  # a piece or a dot may be gone
        if changed and self._moving:
            self.set_moving(True, self._pixel)

    def detail_pixels(self, proj):
        """The pixels the window's height covers on screen (pick.Projection `proj`)
        at the base's centre: the level-of-detail bins that follow the screen."""
        g = self.geometry
        xmin, ymin, xmax, ymax = g.bounds
        c = [(xmin + xmax) / 2, (ymin + ymax) / 2]
        d = proj.to_display([c + [0.0], c + [g.cut.height]])
        return max(16, int(np.hypot(*(d[1, :2] - d[0, :2]))))

    def set_moving(self, moving, pixel=1):
        """Cheap forms while the camera moves: exact states, and variable pieces when
        there are more than MOVING_PIECES, as thick lines instead of boxes, at most
        MOVING_LINKS links (an even sample), events' dots as big on screen as still;
        `False` restores.
        `pixel`: screen pixels per pixel drawn (a window drawing fewer while moving)."""
        g = self.geometry
        self._moving, self._pixel = moving, pixel
        self._fitted = None  # labels and bins follow the camera differently
        cheap_states = moving and g.states.mode == "exact" and g.states.n > 0
        cheap_links = moving and len(g.links.rows) > MOVING_LINKS
        cheap_variables = moving and len(g.profiles.rows) > MOVING_PIECES
        for slot, cheap, part in (("states", cheap_states, g.states),
                                  ("variables", cheap_variables, g.profiles)):
            if cheap and not self._slots.get("moving_" + slot):
                b, c = part.boxes, part.rgb
                self._set("moving_" + slot, [
                    polydata.actor(_axes(b[s], c[s]))
                    for s in polydata.chunks(len(b), polydata.POINT_CHUNK)])
            for a in self._slots.get("moving_" + slot, []):
                a.GetProperty().SetLineWidth(max(1, 4 // pixel))
        if cheap_links and not self._slots.get("moving_links"):
            ln = g.links
            keep = np.linspace(0, len(ln.rows) - 1, MOVING_LINKS).astype(np.int64)
            opacity = self._line_opacity
            self._set("moving_links", [polydata.actor(
                polydata.segments(ln.p0[keep], ln.p1[keep], ln.rgb[keep]),
                opacity=opacity)])
        for a in self._slots.get("events", []):
            a.GetProperty().SetPointSize(max(1, EVENT_PX // pixel) if moving else EVENT_PX)
        for slot, cheap in (("states", cheap_states), ("links", cheap_links),
                            ("variables", cheap_variables)):
            for a in self._slots.get(slot, []):
                a.SetVisibility(not cheap)
            for a in self._slots.get("moving_" + slot, []):
                a.SetVisibility(cheap)

    # -- composing ----------------------------------------------------------------------
    def add_to(self, renderer):
        for p in self.props:
            renderer.AddViewProp(p)
        self.renderers.append(renderer)

    def remove_from(self, renderer):
        for p in self.props:
            renderer.RemoveViewProp(p)
        self.renderers.remove(renderer)

    def pick(self, proj, x, y):
        """What is under display point (x, y) (see pick.pick), with the unit its
        times are in."""
        out = pick.pick(self.geometry, proj, x, y)
        if out is not None and out["kind"] not in ("node", "edge"):
            out["time_unit"] = self.overlay.unit
        return out


def _boxes(boxes, rgb):
    """Lit actors of boxes (n, 6: x0 x1 y0 y1 z0 z1) coloured `rgb`, BOX_CHUNK a piece."""
    return [polydata.actor(polydata.boxes(*boxes[s].T, rgb=rgb[s]), lit=True, cull=True)
            for s in polydata.chunks(len(boxes), polydata.BOX_CHUNK)]


def _axes(boxes, rgb):
    """Segments up the middle of boxes (n, 6: x0 x1 y0 y1 z0 z1), coloured `rgb`."""
    cx, cy = (boxes[:, 0] + boxes[:, 1]) / 2, (boxes[:, 2] + boxes[:, 3]) / 2
    return polydata.segments(np.c_[cx, cy, boxes[:, 4]], np.c_[cx, cy, boxes[:, 5]], rgb)


def _line_opacity(state):
    """The message lines' opacity for a ViewState."""
    return state.link_opacity * (PARTICLE_LINES if state.particles else 1.0)
