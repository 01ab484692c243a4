"""Usage profiles: variables drawn as filled boxes whose width follows their value
relative to a capacity (see analysis.roles), the members of one lane stacked side
by side from the lane's left edge, in numpy and numba.
"""
import numpy as np
from numba import njit


@njit(cache=True)
def _stack(block, member, start, end, frac, t0, t1, out_row, out_t, out_x, fill):
    """Sweep each block's elementary time intervals, stacking the active members'
    fractions; rows are sorted by (block, member, start) and one member's pieces do
    not overlap. With `fill` False only counts the boxes."""
    n = len(block)
    k = 0
    b0 = 0
    while b0 < n:
        b1 = b0
        while b1 < n and block[b1] == block[b0]:
            b1 += 1
        times = np.empty(2 * (b1 - b0))
        for i in range(b0, b1):
            times[2 * (i - b0)] = min(max(start[i], t0), t1)
            times[2 * (i - b0) + 1] = min(max(end[i], t0), t1)
        times = np.unique(times)
        n_members = 1
        for i in range(b0 + 1, b1):
            if member[i] != member[i - 1]:
                n_members += 1
        seg = np.empty(n_members + 1, np.int64)  # first row of each member, then b1
        seg[0], seg[n_members] = b0, b1
        m = 1
        for i in range(b0 + 1, b1):
            if member[i] != member[i - 1]:
                seg[m] = i
                m += 1
        ptr = seg[:n_members].copy()
        for j in range(len(times) - 1):
            lo, hi = times[j], times[j + 1]
            acc = 0.0
            for m in range(len(ptr)):
                p, stop = ptr[m], seg[m + 1]
                while p < stop and end[p] <= lo:
                    p += 1
                ptr[m] = p
                if p < stop and start[p] <= lo and frac[p] > 0 and acc < 1.0:
                    if fill:
                        out_row[k] = p
                        out_t[k, 0], out_t[k, 1] = lo, hi
                        out_x[k, 0], out_x[k, 1] = acc, min(1.0, acc + frac[p])
                    acc += frac[p]
                    k += 1
        b0 = b1
    return k


def stack(block, member, start, end, frac, t0, t1):
    """Boxes of the stacked profiles: (index of the piece, (n, 2) times, (n, 2)
    left and right as fractions of the lane's width)."""
    args = (block, member, start, end, frac, float(t0), float(t1))
    n = _stack(*args, np.zeros(0, np.int64), np.zeros((0, 2)), np.zeros((0, 2)), False)
    row, t, x = np.zeros(n, np.int64), np.zeros((n, 2)), np.zeros((n, 2))
    _stack(*args, row, t, x, True)
    return row, t, x


@njit(cache=True)
def _binned(series, start, end, frac, t0, dt, n_bins, out_src, out_t, out_frac, fill):
    """Each series' pieces (rows sorted by series and start) averaged over time bins:
    runs of bins with one mean become one piece; the piece covering most of a run's
    first bin stands for it. With `fill` False only counts the pieces."""
    n = len(series)
    acc, cov = np.zeros(n_bins), np.zeros(n_bins)
    most, best = np.zeros(n_bins), np.full(n_bins, -1, np.int64)
    k = 0
    i = 0
    while i < n:
        j = i
        while j < n and series[j] == series[i]:
            j += 1
        first, last = n_bins, -1
        for p in range(i, j):
            s, e = max(start[p], t0), min(end[p], t0 + n_bins * dt)
            if e <= s:
                continue
            b0 = min(n_bins - 1, int((s - t0) / dt))
            b1 = min(n_bins - 1, int((e - t0) / dt))
            for b in range(b0, b1 + 1):
                ov = min(e, t0 + (b + 1) * dt) - max(s, t0 + b * dt)
                if ov > 0:
                    acc[b] += ov * frac[p]
                    cov[b] += ov
                    if ov > most[b]:
                        most[b], best[b] = ov, p
                    first, last = min(first, b), max(last, b)
        b = first
        while b <= last:
            if cov[b] <= 0:
                b += 1
                continue
            mean = acc[b] / cov[b]
            c = b + 1  # the run of covered bins with this mean
            while c <= last and cov[c] > 0 and acc[c] / cov[c] == mean:
                c += 1
            if fill:
                out_src[k] = best[b]
                out_t[k, 0], out_t[k, 1] = t0 + b * dt, t0 + c * dt
                out_frac[k] = mean
            k += 1
            b = c
        acc[:] = 0.0
        cov[:] = 0.0
        most[:] = 0.0
        i = j
    return k


def binned(series, start, end, frac, t0, t1, n_bins):
    """A level of detail of profile pieces (rows sorted by series, then start): each
    series' time-weighted mean value over `n_bins` bins of [t0, t1], as (index of the
    piece standing for each new piece, (n, 2) times, fractions)."""
    dt = (t1 - t0) / n_bins if t1 > t0 else 1.0
    args = (series, start, end, frac, float(t0), dt, int(n_bins))
    n = _binned(*args, np.zeros(0, np.int64), np.zeros((0, 2)), np.zeros(0), False)
    src, t, f = np.zeros(n, np.int64), np.zeros((n, 2)), np.zeros(n)
    _binned(*args, src, t, f, True)
    return src, t, f


def capacity_table(trace, roles):
    """The capacity each variable's values are relative to, per (container, type):
    (sorted keys container * len(types) + type of the variables' pairs, capacity of
    each). It is the capacity its type is relative to on its container (its value
    there: its first piece's), else the type's maximum over the trace; 0 where
    neither is known. One number per pair, not per variable row."""
    from ..analysis.roles import variable_pairs
    var = trace.variables
    nt = len(trace.types)
    pairs, first, largest = variable_pairs(trace)  # (the whole run's)
    top = np.zeros(nt)
    np.maximum.at(top, pairs % nt, largest)
    keys = np.unique(var.container.astype(np.int64) * nt + var.type)
    cont, typ = keys // nt, keys % nt
    out = top[typ]
    rel = roles.relative_to[typ]  # (always a capacity type: analysis.roles)
    has = np.flatnonzero(rel >= 0)
    if len(has) and len(pairs):
        want = cont[has] * nt + rel[has]
        i = np.minimum(np.searchsorted(pairs, want), len(pairs) - 1)
        out[has] = np.where(pairs[i] == want, first[i], top[typ[has]])
    return keys, out


def capacity_values(trace, roles):
    """Per variable row: its capacity (see capacity_table)."""
    var = trace.variables
    keys, cap = capacity_table(trace, roles)
    return cap[np.searchsorted(keys, var.container.astype(np.int64) * len(trace.types)
                               + var.type)]


def lane_keys(trace, roles, placed):
    """(container, lane type) of every drawn profile on a placed container (over the
    whole run: the lanes stay put)."""
    from ..analysis.roles import variable_pairs
    nt = len(trace.types)
    pairs = variable_pairs(trace)[0]
    cont, typ = pairs // nt, pairs % nt
    rows = roles.drawn[typ] & placed[cont]
    return cont[rows], roles.lane[typ[rows]]
