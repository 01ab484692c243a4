"""Interval histograms and counters across resources (Traveler section 4.3): the
durations of one primitive's intervals (a state value) binned on a log scale, the
intervals within a brushed range of durations, the outliers (Tukey's far fences on
the log of the durations), and a counter's functional box plot: per time bin, its
minimum, maximum, mean and standard deviation across the containers that have it.
"""
from dataclasses import dataclass

import numpy as np

from ..errors import OptionsError
from ..trace import Kind

#: Log-spaced bins of a histogram; far outliers lie beyond FENCE interquartile
#: ranges of the log durations.
BINS, FENCE = 40, 3.0
#: Durations within this relative difference are the same (end - start rounds: 320
#: intervals of 0.2 ms, quartiles equal, had 64 "far outliers" of 1e-16 s more or less).
SAME = 1e-6


@dataclass
class Durations:
    """The intervals (state rows) of one state value (`code`: the first's value code),
    their durations, the histogram of those that last (log-spaced `edges`, `counts`;
    `zeros` last no time) and the outliers (rows, longest first)."""
    value: str
    code: int
    rows: np.ndarray
    seconds: np.ndarray
    edges: np.ndarray
    counts: np.ndarray
    zeros: int
    outliers: np.ndarray

    def within(self, lo, hi):
        """The rows whose duration lies in [lo, hi]."""
        return self.rows[(self.seconds >= lo) & (self.seconds <= hi)]

    def mask(self, lo, hi, n_states):
        """A mask over the trace's `n_states` states: those `within(lo, hi)`."""
        out = np.zeros(n_states, bool)
        out[self.within(lo, hi)] = True
        return out

    def write_csv(self, path, trace, rows):
        """container,value,start,end,duration,unit of the state `rows` as CSV."""
        import csv

        from ..output import writing
        st, name = trace.states, trace.display_name
        with writing(path, newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["container", "value", "start", "end", "duration", "unit"])
            for r in np.asarray(rows).tolist():
                w.writerow([name("containers", st.container[r]), name("values", st.value[r]),
                            repr(float(st.start[r])), repr(float(st.end[r])),
                            repr(float(st.end[r] - st.start[r])), trace.unit()])


def durations(trace, value, bins=BINS):
    """The Durations of the states whose value's name is `value`; an OptionsError
    where none has it."""
    codes = [v for v in trace.find("values", value)
             if trace.types.kind[trace.values.type[v]] == Kind.STATE]
    st = trace.states
    rows = np.flatnonzero(np.isin(st.value, codes)) if codes else np.zeros(0, np.int64)
    if not len(rows):
        raise OptionsError(f"{trace.source}: no state valued {value!r}")
    sec = st.end[rows] - st.start[rows]
    positive = sec[sec > 0]
    lo = float(positive.min()) if len(positive) else 1e-9
    hi = max(float(sec.max()), lo * 1.000001)
    edges = np.geomspace(lo, hi, bins + 1)
    counts = np.histogram(np.clip(positive, lo, hi), edges)[0]
    out = np.zeros(0, np.int64)
    if len(positive) >= 4:
        q1, q3 = np.percentile(np.log(positive), [25, 75])
        spread = FENCE * max(q3 - q1, SAME)
        far = (sec > 0) & ((np.log(np.maximum(sec, lo)) > q3 + spread) |
                           (np.log(np.maximum(sec, lo)) < q1 - spread))
        out = rows[far][np.argsort(-sec[far], kind="stable")]
    return Durations(value, int(st.value[rows[0]]), rows, sec, edges, counts,
                     int((sec <= 0).sum()), out)


@dataclass
class BoxPlot:
    """A counter's functional box plot: per bin (`edges`), the minimum, maximum,
    mean and standard deviation of its time-averaged value across those of its
    `containers` that have a value in the bin (`having` of them)."""
    name: str
    edges: np.ndarray
    low: np.ndarray
    high: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    containers: int
    having: np.ndarray


def box_plot(trace, variable, bins=200, window=None):
    """The BoxPlot of the variable type named `variable` over `bins` bins of
    `window` (default the whole trace): a container's value in a bin is its time
    average over the part of the bin its pieces cover."""
    types = [t for t in trace.find("types", variable) if trace.types.kind[t] == Kind.VARIABLE]
    var = trace.variables
    keep = np.isin(var.type, types) if types else np.zeros(len(var), bool)
    if not keep.any():
        raise OptionsError(f"{trace.source}: no variable named {variable!r}")
    t0, t1 = window if window is not None else (trace.start_time, trace.end_time)
    edges = np.linspace(float(t0), float(t1), bins + 1)
    cont, inv = np.unique(var.container[keep], return_inverse=True)
    integral, covered = np.zeros((len(cont), bins)), np.zeros((len(cont), bins))
    start, end, value = var.start[keep], var.end[keep], var.value[keep]
    for b in range(bins):  # bins x pieces as arrays: a counter has few pieces a container
        ov = np.clip(np.minimum(end, edges[b + 1]) - np.maximum(start, edges[b]), 0, None)
        np.add.at(integral[:, b], inv, ov * value)
        np.add.at(covered[:, b], inv, ov)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_of = np.where(covered > 0, integral / covered, np.nan)
    has = covered > 0
    low = np.where(has.any(axis=0), np.nanmin(np.where(has, mean_of, np.inf), axis=0), np.nan)
    high = np.where(has.any(axis=0), np.nanmax(np.where(has, mean_of, -np.inf), axis=0),
                    np.nan)
    n = has.sum(axis=0)
    total = np.where(has, mean_of, 0).sum(axis=0)
    mean = np.where(n > 0, total / np.maximum(n, 1), np.nan)
    sq = np.where(has, (mean_of - mean) ** 2, 0).sum(axis=0)
    std = np.where(n > 0, np.sqrt(sq / np.maximum(n, 1)), np.nan)
    return BoxPlot(variable, edges, low, high, mean, std, len(cont), n)
