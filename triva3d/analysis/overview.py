"""The activity overview (Traveler's utilization view, Vampir's summary timeline): for
each time bin, how many containers are in each state value on average, each instant
of a container counted once, in its deepest state (a state's time less that of the
states nested in it: an OTF2 run shows its MPI calls and functions, not only `main`);
their sum is how many are busy (any state).

An interval index answers any window at any number of bins exactly and at once: per
state value, the times where its count changes (a state's start and end, less its
parent's; the rises and the falls each sorted, then merged), the count after each,
and the integral of the count up to each (a summed-area table of the step function). A bin's mean is the difference of the
integral at its edges over its width: a binary search per edge and value.
"""
import numpy as np
from numba import njit, prange

from ..trace import Kind


@njit(cache=True)
def _changes(col, pcol, start, end, n_cols):
    """The times where the states (their column, their parent's, -1: none) change a
    column's count, as segments: 2c the times its count rises (a state of c starts, or
    one nested in a state of c ends), 2c + 1 those it falls; and the segments' offsets."""
    per = np.zeros(2 * n_cols + 1, np.int64)
    for i in range(len(col)):
        for k in (col[i], pcol[i]):
            if k >= 0:
                per[2 * k + 1] += 1
                per[2 * k + 2] += 1
    offsets = np.cumsum(per)
    at = offsets[:-1].copy()
    time = np.empty(offsets[-1])
    for i in range(len(col)):
        c, p = col[i], pcol[i]
        if c >= 0:
            time[at[2 * c]] = start[i]
            at[2 * c] += 1
            time[at[2 * c + 1]] = end[i]
            at[2 * c + 1] += 1
        if p >= 0:
            time[at[2 * p]] = end[i]
            at[2 * p] += 1
            time[at[2 * p + 1]] = start[i]
            at[2 * p + 1] += 1
    return offsets, time


@njit(cache=True)
def _index(offsets, time):
    """Per column, from its rises and falls (each segment sorted): the times its count
    changes (equal ones merged), the count after each and the integral of the count up
    to each; the columns' offsets into them."""
    n_cols = (len(offsets) - 1) // 2
    t_out = np.empty(len(time))
    c_out = np.empty(len(time), np.int32)
    i_out = np.empty(len(time))
    new = np.zeros(n_cols + 1, np.int64)
    m = 0
    for c in range(n_cols):
        a, a_end = offsets[2 * c], offsets[2 * c + 1]
        b, b_end = a_end, offsets[2 * c + 2]
        count = 0
        area = 0.0
        while a < a_end or b < b_end:
            rise = b == b_end or (a < a_end and time[a] <= time[b])
            t = time[a] if rise else time[b]
            if rise:
                a += 1
            else:
                b += 1
            if m > new[c] and t == t_out[m - 1]:  # the same instant: one change
                count += 1 if rise else -1
                c_out[m - 1] = count
                continue
            if m > new[c]:
                area += count * (t - t_out[m - 1])
            count += 1 if rise else -1
            t_out[m] = t
            c_out[m] = count
            i_out[m] = area
            m += 1
        new[c + 1] = m
    return new, t_out[:m], c_out[:m], i_out[:m]


@njit(cache=True)
def _area(t, c, integral, lo, hi, x):
    """The integral of a column's count from its first change to x."""
    k = np.searchsorted(t[lo:hi], x, side="right") - 1
    if k < 0:
        return 0.0
    return integral[lo + k] + c[lo + k] * (x - t[lo + k])


@njit(cache=True, parallel=True)
def _query(offsets, t, c, integral, edges, out):
    """out[b, v]: the integral of column v's count over bin b (`edges`), the edges'
    searches spread over the cores."""
    n_cols = len(offsets) - 1
    at = np.zeros((len(edges), n_cols))
    for e in prange(len(edges)):
        for v in range(n_cols):
            if offsets[v] < offsets[v + 1]:
                at[e, v] = _area(t, c, integral, offsets[v], offsets[v + 1], edges[e])
    out[:] = at[1:] - at[:-1]


class Counts:
    """How many rows are in each of `n_cols` columns over time, each row counting one
    in its column `col` over [start, end) and taking one from the column `pcol` of
    what it is nested in (-1: none), as the interval index (made once)."""

    def __init__(self, col, pcol, start, end, n_cols):
        offsets, time = _changes(col, pcol, start, end, n_cols)
        for lo, hi in zip(offsets[:-1].tolist(), offsets[1:].tolist()):
            time[lo:hi].sort()
        self.index = _index(offsets, time)
        self.n_cols = n_cols

    @property
    def nbytes(self):
        return sum(a.nbytes for a in self.index)

    def means(self, edges):
        """(bins, n_cols) mean counts over the bins between `edges`."""
        out = np.zeros((len(edges) - 1, self.n_cols))
        _query(*self.index, np.asarray(edges, np.float64), out)
        np.maximum(out, 0.0, out=out)  # (rounding: a parent's time less its children's)
        return out / np.diff(edges)[:, None]


#: Bins over the whole run in which a store keeps its run's overview (Trace.whole:
#: a part of the run shows it rebinned, see Rebinned), fewer where its state values
#: are many: at most FINE_CELLS bins times values (32 MB; one bin a value above that).
FINE_BINS, FINE_CELLS = 4096, 1 << 22


def fine_bins(n_values):
    """How many bins a store's overview of `n_values` state values has: a power of
    two, so that a strip of a power of two bins reads it exactly."""
    most = max(1, min(FINE_BINS, FINE_CELLS // max(n_values, 1)))
    return 1 << (int(most).bit_length() - 1)


def fine_edges(t0, t1, n_bins):
    """The edges of `n_bins` even bins over the run from `t0` to `t1` (1 long where
    none)."""
    return t0 + (t1 - t0 if t1 > t0 else 1.0) * np.linspace(0, 1, n_bins + 1)


def state_counts(col, parent, start, end, n_cols):
    """The Counts of states of the value columns `col` (of `n_cols`), each nested in
    the state `parent` (-1: none; of all the states of their containers), each
    instant in its deepest state: as Overview's."""
    has = parent >= 0
    pcol = np.full(len(col), -1, np.int32)
    pcol[has] = col[parent[has]]
    return Counts(col, pcol, start, end, n_cols)


class Rebinned:
    """Counts (its `means`) of a run known only as the mean counts `fine` (bins, n_cols)
    over the bins between `edges` (a store's part: trace.Whole.overview): the integral
    of the counts taken as even inside each fine bin, so that a bin asked for is
    exact where its edges fall on fine ones."""

    def __init__(self, fine, edges):
        self.edges = np.asarray(edges, np.float64)
        fine = fine.reshape(len(self.edges) - 1, fine.shape[1])  # (no state value: (0, 0))
        self.area = np.vstack([np.zeros((1, fine.shape[1])),
                               np.cumsum(fine * np.diff(self.edges)[:, None], axis=0)])
        self.n_cols = fine.shape[1]
        self.nbytes = self.area.nbytes + self.edges.nbytes

    def means(self, edges):
        """(bins, n_cols) mean counts over the bins between `edges`."""
        edges, e = np.asarray(edges, np.float64), self.edges
        i = np.clip(np.searchsorted(e, edges, side="right") - 1, 0, len(e) - 2)
        d = e[i + 1] - e[i]
        frac = np.clip(np.divide(edges - e[i], d, out=np.zeros_like(d), where=d > 0),
                       0.0, 1.0)[:, None]
        at = self.area[i] + frac * (self.area[i + 1] - self.area[i])  # (np.interp's)
        return np.diff(at, axis=0) / np.diff(edges)[:, None]


class Overview:
    """A trace's states prepared for activity strips (or only those of the mask
    `chosen`: the instants where a container's deepest state is one of them, any
    state nested in them, chosen or not, taking its time): `values` are the state
    values in column order; the index is made on first use. Of a part of a run
    (Trace.whole), the whole run's, kept in fine bins (Rebinned; no `chosen`)."""

    def __init__(self, trace, chosen=None):
        self.trace = trace
        st = trace.states
        state_values = np.flatnonzero(trace.types.kind[trace.values.type] == Kind.STATE)
        col = np.full(len(trace.values), -1, np.int32)
        col[state_values] = np.arange(len(state_values), dtype=np.int32)
        self.values = state_values
        self.empty = chosen is not None and not chosen.any()
        self._counts = None
        if trace.whole is not None:
            if chosen is not None:
                raise ValueError("a part of a run has no overview of chosen states")
            return
        self._col = col[st.value]
        self._pcol = np.full(len(st), -1, np.int32)
        if len(st) and st.imbrication.max() > 0:
            from .timeslice import nesting_parents
            parent = nesting_parents(trace)
            has = parent >= 0
            self._pcol[has] = self._col[parent[has]]
            if chosen is not None:
                has &= chosen[np.maximum(parent, 0)]
                self._pcol[~has] = -1
        if chosen is not None:
            self._col = np.where(chosen, self._col, -1).astype(np.int32)

    def counts(self):
        """The Counts per value column, made once."""
        if self._counts is None:
            tr = self.trace
            if tr.whole is not None:
                fine = tr.whole.overview
                self._counts = Rebinned(fine, fine_edges(tr.start_time, tr.end_time,
                                                         len(fine)))
            else:
                st = tr.states
                self._counts = Counts(self._col, self._pcol, st.start, st.end,
                                      len(self.values))
        return self._counts

    @property
    def nbytes(self):
        return self.counts().nbytes

    def activity(self, n_bins, window=None):
        """(n_bins, n_values) mean number of containers in each value per bin of
        `window` (t0, t1; default the whole trace), and the bin edges."""
        tr = self.trace
        t0, t1 = window if window is not None else (tr.start_time, tr.end_time)
        dt = (t1 - t0) / n_bins if t1 > t0 else 1.0
        edges = float(t0) + dt * np.arange(n_bins + 1)
        return self.counts().means(edges), edges
