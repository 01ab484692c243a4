"""What colours the states along a ramp (ViewState.color_by, besides their value):
one number per state, and its range.

- `lateness`: Ravel's (analysis.logical), NaN for what is not a communication event;
- `duration`: seconds, on a log scale;
- `variable:TYPE`: the time-weighted mean of the variable TYPE over the state's
  interval (its value at the state's start for an instant), on the state's
  container or, where that carries no TYPE, its nearest ancestor that does (a
  SimGrid process takes its host's `power_used`);
- `slice:METRIC`: a Time-Slice value of the drawn window (any name of
  analysis.timeslice's `Slice.metric`: `state%:MPI_Wait`, `links:bytes`,
  `variable_mean:power_used`...) of the state's container, or its nearest ancestor
  carrying it: every state of a container gets the container's colour;
- `difference:METRIC`: with a second run B, B - A of that Time-Slice value per
  container (matched by name; a window read from each run's own start, as
  analysis.compare does; none: each run whole), on a diverging scale (`signed`);
  NaN where B has no container of that name.
"""
from typing import NamedTuple

import numpy as np
from numba import njit

from ..errors import OptionsError
from ..trace import Kind
from . import COLOR_BY, COLOR_BY_NAMED


class Metric(NamedTuple):
    """Per state the number (NaN: none), its (low, high), a log scale?, the legend's
    name of the number, whether it is a time (in the trace's unit), what the grey of
    the states without one says, and whether it is signed (a diverging scale
    symmetric about 0)."""
    values: np.ndarray
    span: tuple
    log: bool
    name: str
    is_time: bool
    missing: str
    signed: bool = False
    unit: str = None  # (a time's, where not the trace's: a logical trace's seconds)


def per_state(trace, color_by, window=None, slicer=None, other=None, unit=None):
    """The Metric of `color_by` (see the module) over `trace`'s states; `window`
    (t0, t1) for `slice:` and `difference:` (default: the whole trace), with
    `slicer` (a Slicer of the trace, made here if None); `other` the second run
    (a Trace) of `difference:`, `unit` the unit a person names for both runs' times
    (compare.per_unit; None: each run's own)."""
    kind, _, arg = color_by.partition(":")
    st = trace.states
    physical = getattr(trace, "physical_unit", None)  # (in logical time: not steps)
    if color_by == "duration":
        v = getattr(trace, "durations", None)  # (a box in logical time: as it happened)
        v = (st.end - st.start if v is None else v).astype(np.float64)
        pos = v[v > 0]
        span = (float(pos.min()), float(pos.max())) if len(pos) else (1.0, 1.0)
        return Metric(v, span, True, "duration", True, "no duration", unit=physical)
    if color_by == "lateness":
        from .logical import state_lateness
        v = state_lateness(trace)
        hi = float(np.nanmax(v)) if np.isfinite(v).any() else 0.0
        return Metric(v, (0.0, hi), False, "lateness", True,
                      "no lateness (not a communication event)", unit=physical)
    if kind == "variable" and arg:
        v = variable_means(trace, arg, st.container, st.start, st.end)
        return _linear(v, arg, f"no {arg} on the container or above it")
    if kind == "slice" and arg:
        from .timeslice import Slicer
        slicer = slicer or Slicer(trace)
        per_container, carries = slicer.slice(window).metric(arg)
        carrier = nearest_carrier(trace.containers.parent, carries)
        v = np.where(carrier >= 0, per_container[np.maximum(carrier, 0)], np.nan)[st.container]
        return _linear(v, arg, f"no {arg} on the container or above it")._replace(
            is_time=arg.startswith("state:"))  # (seconds in a state value)
    if kind == "difference" and arg:
        from .compare import difference_span
        if other is None:
            raise OptionsError("colour by difference needs a second run to compare with")
        v, compared = _difference(trace, other, arg, window, slicer, unit)
        v = v[st.container]
        top = difference_span(v, *compared)
        return Metric(v, (-top, top), False, f"B - A {arg}", arg.startswith("state:"),
                      f"no {arg} in B (no container of that name)", True)
    raise OptionsError(f"colour by must be {', '.join(COLOR_BY)}, "
                       f"{', '.join(k + ':NAME' for k in COLOR_BY_NAMED)}, not {color_by!r}")


def per_cell(metric, trace, window, node_of, columns):
    """The time-weighted mean of `metric` per (node, column) cell: over the states
    inside `window` whose container belongs to node `node_of[container]` (-1: none)
    and whose value is column `columns[value]` (-1: none); (nodes, columns) NaN
    where no state weighs."""
    st = trace.states
    t0, t1 = window
    w = np.clip(np.minimum(st.end, t1) - np.maximum(st.start, t0), 0, None)
    w = np.where((st.end >= t0) & (st.start <= t1) & (w == 0), 1e-300, w)  # instants
    node, col = node_of[st.container], columns[st.value]
    ok = (node >= 0) & (col >= 0) & (w > 0) & np.isfinite(metric.values)
    n_nodes, n_cols = int(node_of.max(initial=-1)) + 1, int(columns.max(initial=-1)) + 1
    key = node[ok].astype(np.int64) * max(n_cols, 1) + col[ok]
    size = max(n_nodes * n_cols, 0)
    total = np.bincount(key, weights=w[ok] * metric.values[ok], minlength=size)
    weight = np.bincount(key, weights=w[ok], minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (total / weight).reshape(n_nodes, n_cols)


def _difference(a, b, metric, window, slicer=None, unit=None):
    """Per container of `a`, B's Time-Slice `metric` less A's (the container, or the
    nearest above it carrying the metric, matched by name in `b`; NaN: none), in
    A's unit of time (`unit`: the one a person names for both); and the numbers
    compared (A's, B's)."""
    from . import time_power
    from .compare import moved, per_unit
    from .timeslice import Slicer
    wa, wb = window, moved(window, a, b, unit)  # (no window: each run whole)
    va, ca = (slicer or Slicer(a)).slice(wa).metric(metric)
    vb, cb = Slicer(b, slicer.nested if slicer else "exclusive").slice(wb).metric(metric)
    vb = vb / per_unit(a, b, unit) ** time_power(metric)
    carrier = nearest_carrier(a.containers.parent, ca)
    names_b = {}
    for c in np.flatnonzero(cb).tolist():
        names_b.setdefault(b.display_name("containers", c), c)
    diff = np.full(len(a.containers), np.nan)  # per carrier of A
    for c in np.flatnonzero(ca).tolist():
        mate = names_b.get(a.display_name("containers", c))
        if mate is not None:
            diff[c] = vb[mate] - va[c]
    return np.where(carrier >= 0, diff[np.maximum(carrier, 0)], np.nan), (va[ca], vb[cb])


def _linear(v, name, missing):
    finite = v[np.isfinite(v)]
    span = (float(finite.min()), float(finite.max())) if len(finite) else (0.0, 0.0)
    return Metric(np.where(np.isfinite(v), v, np.nan), span, False, name, False, missing)


def nearest_carrier(parent, carries):
    """Per container, itself if it `carries` (a mask), else its nearest ancestor
    that does (-1: none)."""
    out = np.where(carries, np.arange(len(parent)), -1)
    up = np.asarray(parent, np.int64).copy()
    for _ in range(64):  # pointer doubling, as trace.depth_of
        rows = np.flatnonzero((out < 0) & (up >= 0))
        if not len(rows):
            return out
        target = up[rows]
        out[rows] = out[target]  # the nearest from the target up to where it jumps
        up[rows] = up[target]
    raise ValueError("a parent cycle")


def variable_means(trace, name, container, t0, t1):
    """The time-weighted mean, over each interval [t0, t1] on `container`, of the
    variable type(s) named `name`, read on the container or its nearest ancestor
    that carries them (the value at t0 for an instant; NaN where none covers)."""
    types = [t for t in trace.find("types", name) if trace.types.kind[t] == Kind.VARIABLE]
    if not types:
        raise OptionsError(f"{trace.source}: {name!r} is not a variable type of the trace")
    var = trace.variables
    rows = np.flatnonzero(np.isin(var.type, types))
    rows = rows[np.lexsort((var.start[rows], var.container[rows]))]
    vc = var.container[rows]
    n = len(trace.containers)
    first = np.searchsorted(vc, np.arange(n + 1))
    carries = first[1:] > first[:-1]
    carrier = nearest_carrier(trace.containers.parent, carries)
    start, end, value = var.start[rows], var.end[rows], var.value[rows]
    cum = np.r_[0.0, np.cumsum(value * (end - start))]
    ccum = np.r_[0.0, np.cumsum(end - start)]
    out = np.empty(len(container))
    _means(first, start, end, value, cum, ccum, carrier[container], np.asarray(t0, np.float64),
           np.asarray(t1, np.float64), out)
    return out


@njit(cache=True)
def _upto(a, b, start, end, value, cum, ccum, t):
    """(integral, covered time) of the pieces a..b-1 (sorted by start) before `t`,
    and the piece holding `t` (-1: none)."""
    k = np.searchsorted(start[a:b], t, side="right") - 1 + a
    if k < a:
        return 0.0, 0.0, -1
    part = min(t, end[k]) - start[k]
    if part < 0:
        part = 0.0
    holds = k if start[k] <= t < end[k] or (t == end[k] == start[k]) else -1
    return cum[k] - cum[a] + value[k] * part, ccum[k] - ccum[a] + part, holds


@njit(cache=True)
def _means(first, start, end, value, cum, ccum, carrier, t0, t1, out):
    for i in range(len(carrier)):
        c = carrier[i]
        out[i] = np.nan
        if c < 0:
            continue
        a, b = first[c], first[c + 1]
        i0, c0, k = _upto(a, b, start, end, value, cum, ccum, t0[i])
        i1, c1, _ = _upto(a, b, start, end, value, cum, ccum, t1[i])
        if c1 > c0:
            out[i] = (i1 - i0) / (c1 - c0)
        elif k >= 0:
            out[i] = value[k]
