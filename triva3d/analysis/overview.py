"""The activity overview (Traveler's utilization view, Vampir's summary timeline): for
each time bin, how many containers are in each state value on average, each instant
of a container counted once, in its deepest state (a state's time less that of the
states nested in it: an OTF2 run shows its MPI calls and functions, not only `main`).
One pass in numba over the states; the bins are as many as the strip has pixels.
"""
import numba
import numpy as np
from numba import njit, prange

from ..trace import Kind


@njit(cache=True, nogil=True, parallel=True)
def _activity(col, pcol, start, end, t0, dt, out, chunks):
    """Add each state's time in each bin to out[bin, column] and take it from its
    parent's column `pcol` (-1: none), in parallel over `chunks` chunks of states
    (each its own copy of `out`)."""
    n_bins, n_cols = out.shape
    part = np.zeros((chunks, n_bins, n_cols))
    step = (len(start) + chunks - 1) // chunks
    for k in prange(chunks):
        for i in range(k * step, min(len(start), (k + 1) * step)):
            c = col[i]
            if c < 0:
                continue
            s, e = start[i], end[i]
            b0 = max(0, int((s - t0) / dt))
            b1 = min(n_bins - 1, int((e - t0) / dt))
            for b in range(b0, b1 + 1):
                lo = t0 + b * dt
                ov = min(e, lo + dt) - max(s, lo)
                if ov > 0:
                    part[k, b, c] += ov
                    if pcol[i] >= 0:
                        part[k, b, pcol[i]] -= ov
    out += part.sum(axis=0)


class Overview:
    """A trace's states prepared for activity strips: `values` are the state values
    in column order."""

    def __init__(self, trace):
        self.trace = trace
        st = trace.states
        state_values = np.flatnonzero(trace.types.kind[trace.values.type] == Kind.STATE)
        col = np.full(len(trace.values), -1, np.int32)
        col[state_values] = np.arange(len(state_values), dtype=np.int32)
        self.values = state_values
        self._col = col[st.value]
        self._pcol = np.full(len(st), -1, np.int32)
        if len(st) and st.imbrication.max() > 0:
            from .timeslice import nesting_parents
            parent = nesting_parents(trace)
            has = parent >= 0
            self._pcol[has] = self._col[parent[has]]

    def activity(self, n_bins, window=None):
        """(n_bins, n_values) mean number of containers in each value per bin of
        `window` (t0, t1; default the whole trace), and the bin edges."""
        tr, st = self.trace, self.trace.states
        t0, t1 = window if window is not None else (tr.start_time, tr.end_time)
        dt = (t1 - t0) / n_bins if t1 > t0 else 1.0
        out = np.zeros((n_bins, len(self.values)))
        _activity(self._col, self._pcol, st.start, st.end, float(t0), float(dt), out,
                  numba.get_num_threads())
        np.maximum(out, 0.0, out=out)  # (rounding: a parent's time less its children's)
        return out / dt, t0 + dt * np.arange(n_bins + 1)
