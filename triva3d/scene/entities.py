"""Geometry of the trace's entities over a Layout, as numpy arrays.

Time is the vertical axis: z = (t - t0) * zscale, the base at z = 0. Every function
takes the rows that intersect the window and clips them to it.

- States: a bar segment per state on its container's footprint (BAR of it). A
  container with states of several types splits its bar into side-by-side lanes
  (columns), one per type, in type order. A state nested at depth k is thinner
  (1 - NEST k of its lane's width, at least MIN_NEST) and stands FRONT min(k,
  MAX_FRONT) footprints further to the front (-y), so that it shows in front of
  its parent; it keeps the lane's depth, so from above it covers the lane's centre.
  A container whose footprint holds its children's (a host with its processes, a
  treemap cell with its sub-cells) draws its lanes as a thin wall along the back
  edge of its footprint (WALL of it, at most MAX_WALL), behind them: seen from the
  front, its children stand before it.
- Links: a line from (sender, start) to (receiver, end), centre to centre.
- Tops: a column's states stand on one another, so seen from above only the top
  of the last one shows, as large as the footprint however short that state (a
  59 us MPI_Finalize roofing a whole run). Each stack of states (a lane, or one
  depth of nesting in it) is closed instead by a lid in the colour of the value
  that takes most of its time in the window (`dominant`): from above, a column
  shows what it did most.
- Events: a point at (container, time) on the front edge of its footprint.
- Variables: usage profiles in lanes of their own (see profiles.py).
"""
from dataclasses import dataclass

import numpy as np

from ..bases.layout import UNIT

#: Thinnest and widest base edge strip.
EDGE_WIDTH = (0.06 * UNIT, 0.35 * UNIT)
#: Most base edges drawn one strip each; beyond, their density (scene.base.density).
EDGE_LIMIT = 100_000
BAR = 0.8
NEST = 0.25
MIN_NEST = 0.25
FRONT = 0.04
MAX_FRONT = 5
WALL, MAX_WALL = 0.05, 4.0
#: Nested tops are raised by this fraction of the height per level so that a
#: nested state ending with its parent shows on top (it is in front).
LIFT = 1e-4


@dataclass
class Frame:
    """The time window and its vertical scale."""
    t0: float
    t1: float
    height: float

    @property
    def zscale(self):
        return self.height / (self.t1 - self.t0) if self.t1 > self.t0 else 0.0

    def z(self, t):
        return (np.minimum(np.maximum(t, self.t0), self.t1) - self.t0) * self.zscale


def _placed(layout, c):
    return layout.w[c] > 0


def holders(trace, layout, among=None):
    """Per container: does its footprint hold a child's (its centre inside)? Only
    the children `among` (a mask) count, if given."""
    parent = trace.containers.parent
    kids = (parent >= 0) & (layout.w > 0)
    kids = np.flatnonzero(kids if among is None else kids & among)
    p = parent[kids]
    inside = ((np.abs(layout.x[kids] - layout.x[p]) < layout.w[p] / 2)
              & (np.abs(layout.y[kids] - layout.y[p]) < layout.h[p] / 2))
    out = np.zeros(len(parent), bool)
    out[p[inside]] = True
    return out


class Columns:
    """The lanes of the placed containers, over the whole trace so that they stay
    put when the window moves: one per (container, state type) of its states, and
    one per (container, lane type) of its usage profiles (`extra`). `of_rows(rows)`
    gives states' columns (-1 on unplaced containers), `of_state` every state's
    (made on first use: the scene itself keeps no per-state array), `index` any
    pair's; `container`, `type`, `lane` and `lanes` describe each column, `wall`
    says it stands on its container's back edge. With `owner` (per container, the
    container whose lanes draw its states: see aggregated.owners) a state stands in
    its owner's lane."""

    def __init__(self, trace, layout, extra=(np.zeros(0, np.int64), np.zeros(0, np.int64)),
                 owner=None):
        from ..analysis.roles import state_pairs
        self._states = trace.states
        self.owner = owner
        self._placed = layout.w > 0  # per container
        self.nt = nt = len(trace.types)
        pairs = state_pairs(trace)  # (the whole run's: the columns stay put)
        of = pairs // nt if owner is None else owner[pairs // nt]
        placed = self._placed[of]
        key = of[placed].astype(np.int64) * nt + pairs[placed] % nt
        self.keys = uniq = np.unique(np.r_[key, extra[0].astype(np.int64) * nt + extra[1]])
        self._of_state = None
        #: The first column of each container (its columns follow, sorted by type).
        self.first = np.searchsorted(uniq, np.arange(len(layout.w) + 1, dtype=np.int64) * nt)
        self.container = (uniq // nt).astype(np.int32)
        self.type = (uniq % nt).astype(np.int32)
        first = np.searchsorted(self.container, self.container, "left")
        self.lane = np.arange(len(uniq)) - first
        self.lanes = np.searchsorted(self.container, self.container, "right") - first
        among = None
        if owner is not None:  # an owner holds only the owners standing on it
            among = np.zeros(len(layout.w), bool)
            among[self.container] = True
        self.wall = holders(trace, layout, among)[self.container]

    def of_rows(self, rows):
        """The columns (int32) of the states `rows` (-1 on unplaced containers)."""
        st = self._states
        c = st.container[rows] if self.owner is None else self.owner[st.container[rows]]
        col = np.searchsorted(self.keys, c.astype(np.int64) * self.nt + st.type[rows])
        return np.where(self._placed[c], col, -1).astype(np.int32)

    @property
    def of_state(self):
        """Every state's column (-1 on unplaced containers)."""
        if self._of_state is None:
            self._of_state = self.of_rows(slice(None))
        return self._of_state

    def __len__(self):
        return len(self.container)

    def index(self, containers, types):
        """The columns of (container, type) pairs that have one."""
        return np.searchsorted(self.keys, np.asarray(containers, np.int64) * self.nt + types)

    def has(self, containers, types):
        """Whether each (container, type) pair has a column."""
        key = np.asarray(containers, np.int64) * self.nt + types
        i = np.minimum(np.searchsorted(self.keys, key), max(len(self.keys) - 1, 0))
        return (self.keys[i] == key) if len(self.keys) else np.zeros(len(key), bool)

    def footprint(self, layout, cols=slice(None)):
        """Centre x, y and half sizes of the columns' lanes."""
        c, lane, lanes = self.container[cols], self.lane[cols], self.lanes[cols]
        w, h, y = BAR * layout.w[c], BAR * layout.h[c], layout.y[c]
        wall = self.wall[cols]
        if wall.any():
            h = np.where(wall, np.minimum(WALL * layout.h[c], MAX_WALL), h)
            y = np.where(wall, y + layout.h[c] / 2 - h / 2, y)
        x = layout.x[c] - w / 2 + (lane + 0.5) * w / lanes
        return x, y, w / lanes / 2, h / 2

    def bounds(self, layout, height, cols=slice(None)):
        """(n, 6) full-height boxes x0, x1, y0, y1, z0, z1 of the columns."""
        x, y, hw, hh = self.footprint(layout, cols)
        return np.c_[x - hw, x + hw, y - hh, y + hh, np.zeros(len(x)), np.full(len(x), height)]


def bar_bounds(trace, layout, frame, rows, columns):
    """(n, 6) boxes x0, x1, y0, y1, z0, z1 of the states `rows`."""
    st = trace.states
    k = st.imbrication[rows].astype(np.float64)
    x, y, hw, hh = columns.footprint(layout, columns.of_rows(rows))
    f = np.maximum(MIN_NEST, 1.0 - NEST * k)
    shift = FRONT * np.minimum(k, MAX_FRONT) * 2 * hh / BAR
    out = np.empty((len(rows), 6))
    out[:, 0], out[:, 1] = x - hw * f, x + hw * f
    out[:, 2], out[:, 3] = y - hh - shift, y + hh - shift
    out[:, 4] = frame.z(st.start[rows])
    out[:, 5] = frame.z(st.end[rows]) + LIFT * frame.height * k
    return out


def link_ends(trace, layout, frame, rows):
    """(n, 3) start and end points of the links `rows`, clipped to the window."""
    ln = trace.links
    s, e = ln.start_container[rows], ln.end_container[rows]
    t_s, t_e = ln.start[rows], ln.end[rows]
    p0 = np.c_[layout.x[s], layout.y[s], (t_s - frame.t0) * frame.zscale]
    p1 = np.c_[layout.x[e], layout.y[e], (t_e - frame.t0) * frame.zscale]
    dur = t_e - t_s
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(dur > 0, np.clip((frame.t0 - t_s) / dur, 0, 1), 0.0)[:, None]
        b = np.where(dur > 0, np.clip((frame.t1 - t_s) / dur, 0, 1), 1.0)[:, None]
    return p0 + a * (p1 - p0), p0 + b * (p1 - p0)


def front(layout, c, k=0.5):
    """y of the plane `k` footprint heights in front of the containers' centres."""
    return layout.y[c] - k * layout.h[c]


def event_points(trace, layout, frame, rows):
    """(n, 3) float32 points (as VTK draws them) of the events `rows`."""
    ev = trace.events
    c = ev.container[rows]
    out = np.empty((len(c), 3), np.float32)
    out[:, 0], out[:, 1], out[:, 2] = layout.x[c], front(layout, c, 0.52), frame.z(ev.time[rows])
    return out


def dominant(group, value, weight, size=None):
    """For the groups of items (`group`: their ids, any integers): the groups
    (sorted), the value of the most total `weight` in each (the lower on a tie) and
    the index of that value's largest item there (by `size`, else `weight`). One
    sort of the items."""
    size = weight if size is None else size
    nv = int(value.max()) + 1
    key = group.astype(np.int64) * nv + value
    order = np.argsort(key)
    key = key[order]
    start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])  # runs of (group, value)
    g, v = np.divmod(key[start], nv)
    del key
    best = np.lexsort((-np.add.reduceat(weight[order], start), g))
    best = best[np.r_[True, g[best][1:] != g[best][:-1]]]  # one run a group, in order
    s = size[order]
    most = np.repeat(np.maximum.reduceat(s, start), np.diff(np.r_[start, len(s)]))
    hit = np.flatnonzero(s == most)  # the first in each run is its largest item
    return g[best], v[best], order[hit[np.searchsorted(hit, start[best])]]
