"""Aggregation in 3D (the thesis's perspective, section 7.2): when the base holds
more columns than it can show, each column stands for a node of one level of the
container hierarchy and shows, per time bin, its subtree's Time-Slice: the share of
each state value in the time its members could hold (stacked across the column's
faces, left to right, most common value first; EMPTY grey for the time no state
covers). A state's time is counted once, in its deepest state (exclusive time, as
the treemap counts it).

`owners` says which container's column draws each container's states: the level's
node above it, or a child of a node the user expanded (mixed levels), or itself
above the level. `auto_level` picks the deepest level whose columns fit (two or more).
"""
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..colors import EMPTY
from ..trace import depth_of
from .boxes import box_points
from .lod import MAX_SIDE, MAX_TEXELS, _column, is_set, set_rows

#: Above this many containers with state columns, "auto" aggregates to the deepest
#: level with at most this many.
AGGREGATE_LIMIT = 1000
#: Texels across a column's face: the shares' resolution (1/32 = 3 %).
SHARES = 32
#: At most this many (column, bin, value) sums at once (float32: 4 bytes each).
MAX_SUMS = 1 << 25
#: The 4 side faces and the bottom of a box, as corners of box_points (x, then y,
#: then z varying fastest), each counter-clockwise seen from outside.
_FACES = np.array([[0, 1, 5, 4], [1, 3, 7, 5], [3, 2, 6, 7], [2, 0, 4, 6], [0, 2, 3, 1]])


def owners(trace, level_rows, expanded=()):
    """Per container, the row whose column draws its states: its ancestor (or
    itself) among the nodes `level_rows`, where the nodes `expanded` hand their
    subtrees to their children (again and again down an expanded path); itself
    where no node is above it."""
    parent = trace.containers.parent
    n = len(parent)
    node = np.zeros(n, bool)
    node[level_rows] = True
    depth = depth_of(parent)
    for e in sorted(expanded, key=lambda c: depth[c]):  # from the top: a path opens down
        if node[e]:
            node[e] = False
            node[np.flatnonzero(parent == e)] = True
    owner = np.where(node, np.arange(n), -1)
    for d in range(1, int(depth.max(initial=0)) + 1):
        rows = np.flatnonzero((depth == d) & ~node)
        owner[rows] = owner[parent[rows]]
    return np.where(owner < 0, np.arange(n), owner)


def expand(trace, expanded, node):
    """`expanded` (container names) with aggregated node `node` opened into its
    children's columns (unchanged for a node without children)."""
    cont = trace.containers
    name = trace.display_name("containers", node)
    if name in expanded or not (cont.parent == node).any():
        return expanded
    return tuple(expanded) + (name,)


def collapse(trace, expanded, node):
    """`expanded` with the parent of column `node` folded back, and every node
    expanded below it (unchanged where the parent was not expanded)."""
    parent = trace.containers.parent
    p = int(parent[node])
    if p < 0 or trace.display_name("containers", p) not in expanded:
        return expanded
    below = trace.subtree([p])
    return tuple(e for e in expanded
                 if not below[trace.find("containers", e)].any())


def auto_level(trace, with_states, limit=AGGREGATE_LIMIT):
    """The depth to aggregate to, or None, for the containers `with_states` (a mask
    of those whose states are drawn): the deepest depth at which two to `limit`
    columns remain; None if they already fit, or if no level but one of a single
    column would (a flat hierarchy, the tasks of an execution tree, one host: one
    column says nothing of where, each container's column in level of detail does)."""
    if np.count_nonzero(with_states) <= limit:
        return None
    parent = trace.containers.parent
    depth = depth_of(parent)
    have = np.flatnonzero(with_states)
    for d in range(int(depth[have].max()) - 1, -1, -1):
        up = have.copy()  # each container's ancestor at depth d (itself above it)
        while True:
            deeper = depth[up] > d
            if not deeper.any():
                break
            up[deeper] = parent[up[deeper]]
        if 2 <= len(np.unique(up)) <= limit:
            return d
    return None


@njit(cache=True)
def _sums(shown, container, typ, owner, first, keys, nt, drawn, start, end, vcol, value,
          parent, t0, dt, n_cols, n_bins, nv):
    """(n_cols, n_bins, nv) seconds of each value in each bin of each drawn column,
    each state's less the states nested in it (their parents drawn)."""
    acc = np.zeros((n_cols, n_bins, nv), np.float32)
    for r in range(len(container)):
        if not is_set(shown, r):
            continue
        c = drawn[_column(first, keys, nt, owner[container[r]], typ[r])]
        v = vcol[value[r]]
        p = parent[r]
        pv = vcol[value[p]] if p >= 0 and is_set(shown, p) else -1
        s, e = start[r], end[r]
        b0 = max(0, min(n_bins - 1, int((s - t0) / dt)))
        b1 = max(0, min(n_bins - 1, int((e - t0) / dt)))
        for b in range(b0, b1 + 1):
            lo = t0 + b * dt
            ov = min(e, lo + dt) - max(s, lo)
            if ov > 0:
                acc[c, b, v] += ov
                if pv >= 0:
                    acc[c, b, pv] -= ov
    return acc


def bins_for(n_cols, screen_bins, n_values):
    """Bins per column: what the screen shows, within the texture's and the sums'
    limits."""
    per_row = max(1, MAX_SIDE // SHARES)
    blocks = max(1, -(-n_cols // per_row))
    return int(max(1, min(screen_bins, MAX_SIDE // blocks,
                          MAX_TEXELS // max(n_cols * SHARES, 1),
                          MAX_SUMS // max(n_cols * max(n_values, 1), 1))))


def shares(sums, members, dt):
    """(n_cols, n_bins, nv) fractions of the time the columns' `members` could
    hold in a bin of `dt` seconds."""
    cap = (members.astype(np.float64) * dt)[:, None, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.clip(sums, 0, None) / np.where(cap > 0, cap, 1)
    return np.clip(out, 0, 1)


@njit(cache=True)
def _paint(frac, rgb, empty, per_row, img):
    """Fill `img` (see atlas) from the shares `frac`: at each texel across a column
    the value whose stacked share covers its centre (`empty` past the columns)."""
    n_cols, n_bins, nv = frac.shape
    for c in range(img.shape[0] // n_bins * per_row):
        x0 = (c % per_row) * SHARES
        y0 = (c // per_row) * n_bins
        for b in range(n_bins):
            v, cum = 0, frac[c, b, 0] if nv and c < n_cols else 0.0
            if c >= n_cols:
                v = nv
            for j in range(SHARES):
                u = (j + 0.5) / SHARES
                while v < nv and cum < u:
                    v += 1
                    if v < nv:
                        cum += frac[c, b, v]
                for k in range(3):
                    img[y0 + b, x0 + j, k] = rgb[v, k] if v < nv else empty[k]


def atlas(frac, value_rgb):
    """The texture image of the shares `frac` (n_cols, n_bins, nv) of values
    coloured `value_rgb` (nv, 3), stacked left to right, EMPTY where none: column
    i at texels x from (i % per_row) * SHARES, rows block (i // per_row) * n_bins
    up; and per_row."""
    n_cols, n_bins, _ = frac.shape
    per_row = max(1, min(n_cols, MAX_SIDE // SHARES))
    blocks = max(1, -(-n_cols // per_row))
    img = np.empty((blocks * n_bins, per_row * SHARES, 3), np.uint8)
    _paint(frac, value_rgb.reshape(-1, 3).astype(np.uint8), np.array(EMPTY, np.uint8),
           per_row, img)
    return img, per_row


def columns(boxes, height, n_bins, per_row):
    """The columns' 4 sides and bottom, each face spanning its column's texels:
    (points (20n, 3), quads (5n, 4), texture coordinates (20n, 2))."""
    n = len(boxes)
    i = np.arange(n)
    blocks = max(1, -(-n // per_row))
    b = boxes
    pts = box_points(b[:, 0], b[:, 1], b[:, 2], b[:, 3], np.zeros(n), np.full(n, float(height)))
    pts = pts.reshape(n, 8, 3)[:, _FACES].reshape(-1, 3)  # 5 faces x 4 corners each
    s0, s1 = (i % per_row) / per_row, (i % per_row + 1) / per_row
    t0, t1 = (i // per_row) / blocks, (i // per_row + 1) / blocks
    tc = np.empty((n, 5, 4, 2), np.float32)
    tc[:, :, 0, 0], tc[:, :, 1, 0] = s0[:, None], s1[:, None]  # bottom corners
    tc[:, :, 2, 0], tc[:, :, 3, 0] = s1[:, None], s0[:, None]  # top corners
    tc[:, :, :2, 1], tc[:, :, 2:, 1] = t0[:, None, None], t1[:, None, None]
    tc[:, 4, :, 1] = t0[:, None]  # the bottom: the first bin
    quads = np.arange(n * 20).reshape(-1, 4)
    return pts, quads, tc.reshape(-1, 2)


@dataclass(frozen=True, eq=False)
class AggregatedStates:
    """States drawn as the aggregated columns of `nodes` (per drawn column, the
    container whose subtree it stands for): `mask` and `n` of the states drawn, as
    in LodStates; `boxes` (m, 6); `members` (m) the (container, state type) pairs
    each column sums; `frac` (m, bins, nv) the shares of the `keys` (values,
    stacked in this order); the `atlas` image, `per_row` columns across; the
    `lids` (each column's value of most time in the window; rows -1 - the column);
    `values` as in ExactStates."""
    mask: np.ndarray
    n: int
    nodes: np.ndarray
    boxes: np.ndarray
    members: np.ndarray
    drawn_of: np.ndarray
    keys: np.ndarray
    bins: int
    frac: np.ndarray
    atlas: np.ndarray
    per_row: int
    lids: tuple
    values: np.ndarray
    mode = "aggregated"

    def shows(self, row):
        """States are not drawn one by one here."""
        return False

    @property
    def rows(self):
        """The Trace rows of the states summed, made on each use from the mask."""
        return set_rows(self.mask)

    def mesh(self, height):
        return columns(self.boxes, height, self.bins, self.per_row)

    def shares_at(self, column, z, height):
        """(bin, {value code: share}) of drawn column `column` at height z (z None:
        the whole window)."""
        if z is None:
            return None, self.frac[column].mean(axis=0)
        b = int(z / height * self.bins) if height > 0 else 0
        b = min(self.bins - 1, max(0, b))
        return b, self.frac[column, b]
