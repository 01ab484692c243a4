"""The ground under the bars: base nodes, edges, treemap borders and the unplaced
area.

Graph nodes are squares coloured by kind and sized by what they hold (the
Layout's node_rects). An edge is a flat strip whose width follows the log of its
bandwidth (thin, grey-edged when unknown) and whose colour follows the log of its
latency on colors.RAMP (grey when unknown). Treemap cells get lighter with depth,
each level a little higher, with darker borders.
"""
import numpy as np

from .. import colors
from . import polydata
from .entities import EDGE_WIDTH

#: Bases whose nodes nest (shaded by depth, with borders).
NESTED = ("treemap", "timeline")
#: Heights below the base (fractions of its larger side): edges under nodes.
Z_EDGE, Z_NODE = -2e-3, -1e-3


def _log_norm(v):
    """log10 of positive values scaled to [0, 1] over them; NaN elsewhere."""
    out = np.full(len(v), np.nan)
    ok = np.isfinite(v) & (v > 0)
    if ok.any():
        lv = np.log10(v[ok])
        span = lv.max() - lv.min()
        out[ok] = (lv - lv.min()) / span if span > 0 else 0.5
    return out


def edges(layout, extent):
    """Strips of the base's edges (cell i is edge i), or None."""
    if not len(layout.edges):
        return None
    c = layout.node_rects[:, :2]
    a, b = layout.edges[:, 0], layout.edges[:, 1]
    bw = _log_norm(layout.edge_bandwidth)
    width = np.where(np.isnan(bw), EDGE_WIDTH[0], EDGE_WIDTH[0] + np.nan_to_num(bw)
                     * (EDGE_WIDTH[1] - EDGE_WIDTH[0]))
    rgb = colors.ramp(_log_norm(layout.edge_latency))
    return polydata.ribbons(c[a], c[b], width, Z_EDGE * extent, rgb)


def heat(layout, extent, level):
    """Strips over the edges that traffic crossed, `level` (0..1 per edge) wide
    and hot (colors.RAMP), between the edges and the nodes; None if none."""
    k = np.flatnonzero(level > 0)
    if not len(k):
        return None
    c = layout.node_rects[:, :2]
    a, b = layout.edges[k, 0], layout.edges[k, 1]
    v = np.sqrt(np.clip(level[k], 0, 1))
    width = EDGE_WIDTH[0] + v * (1.5 * EDGE_WIDTH[1] - EDGE_WIDTH[0])
    return polydata.ribbons(c[a], c[b], width, (Z_EDGE + Z_NODE) / 2 * extent, colors.ramp(v))


def nodes(layout, extent):
    """Squares (graph) or cells (treemap) of the base nodes (cell i is node i)."""
    r = layout.node_rects
    x0, x1 = r[:, 0] - r[:, 2] / 2, r[:, 0] + r[:, 2] / 2
    y0, y1 = r[:, 1] - r[:, 3] / 2, r[:, 1] + r[:, 3] / 2
    if layout.base in NESTED:
        d = layout.node_depth.astype(np.float64)
        shade = 60 + 130 * d / max(1.0, d.max())
        rgb = np.repeat(shade[:, None], 3, axis=1).astype(np.uint8)
        z = (Z_NODE + 1e-4 * d) * extent
    else:
        rgb, z = colors.kind_rgb(layout.node_kinds), Z_NODE * extent
    return polydata.quads(x0, x1, y0, y1, z, rgb)


def borders(layout, extent):
    """Outlines of treemap cells (4 segments per cell), or None for graphs."""
    if layout.base not in NESTED or not len(layout.node_rects):
        return None
    r = layout.node_rects
    d = layout.node_depth.astype(np.float64)
    z = (Z_NODE + 1e-4 * d + 5e-5) * extent
    return polydata.outlines(r[:, 0] - r[:, 2] / 2, r[:, 0] + r[:, 2] / 2, r[:, 1] - r[:, 3] / 2,
                             r[:, 1] + r[:, 3] / 2, z, np.full((len(r), 3), 25, np.uint8))


def unplaced(layout, extent):
    """The area of containers that matched nothing, or None."""
    if not layout.unplaced_area:
        return None
    x, y, w, h = layout.unplaced_area
    return polydata.quads([x - w / 2], [x + w / 2], [y - h / 2], [y + h / 2], Z_NODE * extent,
                          np.array([colors.UNPLACED], np.uint8))
