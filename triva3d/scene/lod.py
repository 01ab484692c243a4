"""Level of detail for many states: one column per container, textured with its
states per time bin.

Each texel shows the state that covers most of its bin (the deeper one on a tie,
as nested states are drawn in front), so every container stays visible and no
state longer than a bin is lost; texels no state touches are EMPTY grey. The
texture is rebuilt when the number of bins the screen can show changes.
"""
import numpy as np
from numba import njit

from ..colors import EMPTY
from .boxes import BOX_FACES, box_points

#: Largest texture side used (every OpenGL 3.2 implementation reaches 8192).
MAX_SIDE = 8192
#: Most texels in the atlas (3 bytes each).
MAX_TEXELS = 1 << 25


@njit(cache=True)
def _bin_one(best, cover, depth, c, r, s, e, k, t0, dt, n_bins):
    """Let Trace row `r` (start `s`, end `e`, depth `k`) of column `c` take the
    texels of its bins where it covers most (the deeper one on a tie)."""
    b0 = max(0, min(n_bins - 1, int((s - t0) / dt)))
    b1 = max(0, min(n_bins - 1, int((e - t0) / dt)))
    for b in range(b0, b1 + 1):
        lo = t0 + b * dt
        ov = min(e, lo + dt) - max(s, lo)
        if (best[c, b] < 0 or ov > cover[c, b] * (1 + 1e-9)
                or (ov >= cover[c, b] * (1 - 1e-9) and k > depth[c, b])):
            best[c, b] = r
            cover[c, b] = ov
            depth[c, b] = k


@njit(cache=True)
def bin_states(col, rows, start, end, imb, t0, dt, n_cols, n_bins):
    """(n_cols, n_bins) Trace row shown in each texel (-1: none), from the states
    `rows` (of the `start`, `end` and `imb` columns) in columns `col`."""
    best = np.full((n_cols, n_bins), -1, np.int32)
    cover = np.zeros((n_cols, n_bins))
    depth = np.zeros((n_cols, n_bins), np.int16)
    for i in range(len(rows)):
        r = rows[i]
        _bin_one(best, cover, depth, col[i], r, start[r], end[r], imb[r], t0, dt, n_bins)
    return best


@njit(cache=True)
def _column(first, keys, nt, c, t):
    """The column of (container c, type t): keys (sorted container * nt + type) from
    first[c] on hold container c's columns, a few."""
    key = np.int64(c) * nt + t
    j = first[c]
    while keys[j] != key:
        j += 1
    return j


def set_rows(bits):
    """The rows whose bits are set in np.packbits' `bits`."""
    return np.flatnonzero(np.unpackbits(bits))


@njit(cache=True)
def is_set(bits, r):
    """Bit r of np.packbits' `bits` (big-endian bit order)."""
    return (bits[r >> 3] >> (7 - (r & 7))) & 1


@njit(cache=True)
def column_counts(shown, container, typ, first, keys, nt):
    """How many of the states `shown` (np.packbits of a mask over the table) each
    column holds: a state's column is where (its container * nt + its type) is in the
    sorted `keys`, from first[its container] on (see entities.Columns)."""
    count = np.zeros(len(keys), np.int64)
    for r in range(len(container)):
        if is_set(shown, r):
            count[_column(first, keys, nt, container[r], typ[r])] += 1
    return count


@njit(cache=True)
def bin_shown(shown, container, typ, first, keys, nt, drawn, start, end, imb, t0, dt,
              n_cols, n_bins):
    """bin_states over the states `shown` (np.packbits of a mask over the table),
    each in the drawn column `drawn[its column]` (see column_counts): no per-state
    array is made."""
    best = np.full((n_cols, n_bins), -1, np.int32)
    cover = np.zeros((n_cols, n_bins))
    depth = np.zeros((n_cols, n_bins), np.int16)
    for r in range(len(container)):
        if is_set(shown, r):
            c = drawn[_column(first, keys, nt, container[r], typ[r])]
            _bin_one(best, cover, depth, c, r, start[r], end[r], imb[r], t0, dt, n_bins)
    return best


@njit(cache=True)
def column_texels(shown, container, typ, first, keys, nt, drawn, start, end, imb, t0, dt,
                  n_bins, column):
    """The texels (n_bins) of drawn column `column` alone, as bin_shown makes them."""
    best = np.full((1, n_bins), -1, np.int32)
    cover = np.zeros((1, n_bins))
    depth = np.zeros((1, n_bins), np.int16)
    for r in range(len(container)):
        if is_set(shown, r) and drawn[_column(first, keys, nt, container[r], typ[r])] == column:
            _bin_one(best, cover, depth, 0, r, start[r], end[r], imb[r], t0, dt, n_bins)
    return best[0]


@njit(cache=True)
def column_lids(texels, value, start, end, n_values):
    """Per column of `texels` (see bin_states), the value most of its texels show (the
    lower on a tie) and its longest state there (the first on a tie); -1 for both
    where no texel shows a state. No per-texel array is made."""
    n_cols, n_bins = texels.shape
    count = np.zeros(n_values, np.int64)
    lid_value = np.full(n_cols, -1, np.int64)
    lid_row = np.full(n_cols, -1, np.int64)
    for c in range(n_cols):
        best, most = -1, 0
        for b in range(n_bins):
            r = texels[c, b]
            if r >= 0:
                v = value[r]
                count[v] += 1
                if count[v] > most or (count[v] == most and v < best):
                    best, most = v, count[v]
        longest = -1.0
        for b in range(n_bins):
            r = texels[c, b]
            if r >= 0:
                count[value[r]] = 0
                if value[r] == best and end[r] - start[r] > longest:
                    longest, lid_row[c] = end[r] - start[r], r
        lid_value[c] = best
    return lid_value, lid_row


def refit(bins, pixels):
    """Whether `bins` texels a column, drawn over `pixels` on screen, are binned
    again for them: they differ by more than half (else they stay as they are)."""
    return not bins / 1.5 <= pixels <= bins * 1.5


def bins_for(n_cols, screen_bins):
    """Bins per column: what the screen shows, within the texture limits."""
    blocks = max(1, -(-n_cols // MAX_SIDE))
    return int(max(1, min(screen_bins, MAX_SIDE // blocks, MAX_TEXELS // max(n_cols, 1))))


def atlas(best):
    """Pack (n_cols, n_bins) texels into an image at most MAX_SIDE wide, the columns
    spread evenly over as few blocks as that takes: column i at x = i % width, rows
    block (i // width) * n_bins up; -1 pads (no columns: an empty image 1 wide)."""
    n_cols, n_bins = best.shape
    blocks = max(1, -(-n_cols // MAX_SIDE))
    width = max(1, -(-n_cols // blocks))
    padded = np.full((blocks * width, n_bins), -1, np.int32)
    padded[:n_cols] = best
    return padded.reshape(blocks, width, n_bins).transpose(0, 2, 1).reshape(-1, width), width


def columns(x0, x1, y0, y1, height, n_bins, width):
    """Column boxes from 0 to `height` textured from the atlas, open at the top
    (a lid closes them: see Geometry._lod_lids): sides span their texel column's bins.
    Returns (points (8n, 3), quads (5n, 4), texture coordinates (8n, 2))."""
    n = len(x0)
    i = np.arange(n)
    s = (i % width + 0.5) / width
    rows = -(-n // width) * n_bins
    pts = box_points(x0, x1, y0, y1, np.zeros(n), np.full(n, float(height)))
    tc = np.empty((n, 8, 2), np.float32)
    tc[:, :, 0] = s[:, None]
    tc[:, :4, 1] = ((i // width) * n_bins / rows)[:, None]
    tc[:, 4:, 1] = (((i // width) + 1) * n_bins / rows)[:, None]
    conn = (i[:, None, None] * 8 + np.delete(BOX_FACES, 1, axis=0)[None]).reshape(-1, 4)
    return pts, conn, tc.reshape(-1, 2)


def texel_colors(best, value_of_row, value_rgb):
    """Colours (shape of `best` + (3,)) of the texels' states (EMPTY where none)."""
    v = np.where(best >= 0, value_of_row[np.maximum(best, 0)], len(value_rgb))
    return np.vstack([value_rgb, np.array([EMPTY], np.uint8)])[v]
