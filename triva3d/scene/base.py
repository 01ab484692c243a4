"""The ground under the bars: base nodes, edges, treemap borders and the unplaced
area.

Graph nodes are squares coloured by kind and sized by what they hold (the
Layout's node_rects). An edge is a flat strip whose width follows the log of its
bandwidth (thin, grey-edged when unknown) and whose colour follows the log of its
latency on colors.RAMP (grey when unknown). Beyond EDGE_LIMIT edges (a communication
graph of a million pairs), the edges are one image on the ground instead: the log of
how many edges cross each pixel, as the opacity of their mean colour. Treemap cells
get lighter with depth, each level a little higher, with darker borders.
"""
import numba as nb
import numpy as np

from .. import colors
from . import polydata
from . import entities
from .entities import EDGE_WIDTH

#: Bases whose nodes nest (shaded by depth, with borders).
NESTED = ("treemap", "timeline")
#: Heights below the base (fractions of its larger side): edges under nodes.
Z_EDGE, Z_NODE = -2e-3, -1e-3
#: Pixels of the edges' density image (beyond EDGE_LIMIT edges) on its larger side.
DENSITY_PX = 1024


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
    """The base's edges as (strips (cell i is edge i), None), or beyond EDGE_LIMIT
    edges as (a quad, its `density` image); (None, None) without edges."""
    if not len(layout.edges):
        return None, None
    c = layout.node_rects[:, :2]
    a, b = layout.edges[:, 0], layout.edges[:, 1]
    rgb = colors.ramp(_log_norm(layout.edge_latency))
    if len(a) > entities.EDGE_LIMIT:
        return density(c[a], c[b], rgb, Z_EDGE * extent)
    bw = _log_norm(layout.edge_bandwidth)
    width = np.where(np.isnan(bw), EDGE_WIDTH[0], EDGE_WIDTH[0] + np.nan_to_num(bw)
                     * (EDGE_WIDTH[1] - EDGE_WIDTH[0]))
    return polydata.ribbons(c[a], c[b], width, Z_EDGE * extent, rgb), None


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


def difference(layout, extent, signed):
    """Strips over the edges whose traffic differs between two runs, `signed` (-1..1
    per edge: B - A over the largest) wide by its size and coloured on the diverging
    map (blue: B less, red: more); None if none differs."""
    k = np.flatnonzero(signed != 0)
    if not len(k):
        return None
    c = layout.node_rects[:, :2]
    a, b = layout.edges[k, 0], layout.edges[k, 1]
    v = np.clip(signed[k], -1, 1)
    width = EDGE_WIDTH[0] + np.sqrt(np.abs(v)) * (1.5 * EDGE_WIDTH[1] - EDGE_WIDTH[0])
    return polydata.ribbons(c[a], c[b], width, (Z_EDGE + Z_NODE) / 2 * extent,
                            colors.diverging(v))


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


def density(p0, p1, rgb, z, side=None):
    """Segments p0 -> p1 ((n, 2) each, colours rgb) as one quad on the plane z and its
    RGBA image: each pixel the mean colour of the segments crossing it, opaque as
    the log of their number (one: a quarter; the most: fully); `side` pixels
    (DENSITY_PX) along the larger side of their bounds."""
    side = side or DENSITY_PX
    ok = np.isfinite(p0).all(axis=1) & np.isfinite(p1).all(axis=1)
    p0, p1, rgb = p0[ok], p1[ok], rgb[ok]
    if not len(p0):
        return None, None
    lo = np.minimum(p0.min(axis=0), p1.min(axis=0))
    hi = np.maximum(p0.max(axis=0), p1.max(axis=0))
    scale = (side - 1) / max(float((hi - lo).max()), 1e-12)
    w, h = np.ceil((hi - lo) * scale).astype(np.int64) + 1
    one = bool((rgb == rgb[0]).all())        # one colour (unknown latencies): count only
    count = np.zeros((h, w), np.float32)
    sums = np.zeros((h, w, 3) if not one else (0, 0, 3), np.float32)
    _rasterize((p0 - lo) * scale, (p1 - lo) * scale, rgb.astype(np.float32), count, sums)
    img = np.zeros((h, w, 4), np.uint8)
    some = count > 0
    img[some, :3] = rgb[0] if one else np.round(sums[some] / count[some, None])
    img[some, 3] = np.round(255 * (0.25 + 0.75 * np.log(count[some]) /
                                   max(np.log(count.max()), 1e-12)))
    x0, y0 = lo - 0.5 / scale
    x1, y1 = x0 + w / scale, y0 + h / scale
    quad = polydata.polydata([[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]],
                             [0, 1, 2, 3], 4, "polys",
                             tcoords=np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32))
    return quad, img


@nb.njit(cache=True, nogil=True)
def _rasterize(p0, p1, rgb, count, sums):
    """Add 1 to `count` and each segment's colour to `sums` (unless empty) at the
    pixels it crosses: one in each column or row along its longer axis (pixel (x, y)
    is count[y, x])."""
    colours = sums.shape[0] > 0
    for i in range(p0.shape[0]):
        x, y = np.floor(p0[i, 0] + 0.5), np.floor(p0[i, 1] + 0.5)
        dx, dy = np.floor(p1[i, 0] + 0.5) - x, np.floor(p1[i, 1] + 0.5) - y
        n = int(max(abs(dx), abs(dy)))
        sx, sy = dx / max(n, 1), dy / max(n, 1)
        fx, fy = x + 0.5, y + 0.5
        for _ in range(n + 1):
            px, py = int(fx), int(fy)
            count[py, px] += 1.0
            if colours:
                for k in range(3):
                    sums[py, px, k] += rgb[i, k]
            fx += sx
            fy += sy
