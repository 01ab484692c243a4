"""Time-Slice (Schnorr's thesis, equations 4.1 to 4.5): what each container did in
an interval [t0, t1], everything clipped to it.

- states: seconds spent in each state value, or that time over the slice's
  duration. Exclusive by default: a state's time less the time of the states nested
  in it (PajeNG's imbrication, per container and state type), so that the values of
  one state type never sum past the slice; inclusive (each state's whole time, its
  nested states' counted again for their own values) on demand;
- variables: integral of the piecewise-constant value over the slice, and its
  time-weighted mean over the time the variable covers in the slice;
- links (messages: SimGrid's platform links are none), as origin and as
  destination (eqs. 4.4-4.5): each link weighs its value by the part of its duration
  inside the slice, f = overlap / duration (a zero-length link inside counts whole):
  count (links that overlap the slice, each whole), bytes (f x Size: a link's Size
  spread evenly over its duration), time (seconds of overlap), throughput (f x
  Size / duration: Table 4.2's "sum of bytes over duration per link", A = 10/2 +
  40/2 = 25 B/s for two links inside the slice; zero-length links have none), rate
  (bytes over the slice's duration), and destinations per origin (sources per
  destination) among the links that overlap the slice (section 4.2.3);
- events: counts per value in [t0, t1].

`Slicer(trace)` prepares the columns once; `slicer.slice((t0, t1))` is then one pass
over each table (numba), fast enough for a slider.

Metric names (`Slice.metric`): `containers`; `state:VALUE`, `state%:VALUE`;
`variable:TYPE`, `variable_mean:TYPE`; `links:M` (as origin) and `links_in:M` with M
in count, bytes, time, throughput, rate, peers (destinations, or sources);
`events:VALUE`; and `ratio:A/B` for two of those, e.g.
`ratio:state:Executing/state:Blocked` (computation versus communication) or
`ratio:state:Blocked/links:count` (time blocked per link).
"""
import numpy as np

from ..errors import OptionsError
from ..kernels import lazy
from . import LINK_MEASURES, NESTED, metric_parts
from ..trace import Kind
from .metrics import link_bytes, link_sizes
from .roles import platform_link_types

#: The measures that need the links' Size.
SIZED = ("bytes", "throughput", "rate")


@lazy(cache=True)
def _nesting_parents(order, container, stype, imbrication):
    """The state each state is nested in (-1: none), from `order`, the states by
    container, type, start and imbrication: a stack per (container, type)."""
    parent = np.full(len(order), -1, np.int64)
    depth = imbrication.max() + 1 if len(order) else 1
    stack = np.full(depth, -1, np.int64)  # never cleared: an entry of another group is none
    for i in order:
        k = imbrication[i]
        if k > 0:
            p = stack[k - 1]
            if p >= 0 and container[p] == container[i] and stype[p] == stype[i]:
                parent[i] = p
        stack[k] = i
    return parent


def nesting_parents(trace):
    """Per state, the row of the state it is nested in (-1 for a top-level state)."""
    st = trace.states
    return nesting_parents_of(st.container, st.type, st.start, st.imbrication)


@lazy(cache=True)
def _counting(order, key, n_keys):
    """`order` stably sorted by `key` (aligned with it: key[j] is order[j]'s;
    integers in [0, n_keys)): a counting sort reading both in sequence."""
    count = np.zeros(n_keys + 1, np.int64)
    for j in range(len(key)):
        count[key[j] + 1] += 1
    for k in range(n_keys):
        count[k + 1] += count[k]
    out = np.empty_like(order)
    for j in range(len(key)):
        out[count[key[j]]] = order[j]
        count[key[j]] += 1
    return out


def sort_by(order, key, n_keys):
    """`order` stably sorted by key[order]: counting where the keys are few."""
    k = key[order]
    if n_keys <= 4 * len(order) + 1024:
        return _counting(order, k, n_keys)
    return order[np.argsort(k, kind="stable")]


@lazy(cache=True)
def in_order(container, start, imbrication):
    """Are the states by container, then start, then depth (as readers write them)?"""
    for i in range(1, len(start)):
        c0, c1 = container[i - 1], container[i]
        if c1 < c0 or (c1 == c0 and (start[i] < start[i - 1] or (
                start[i] == start[i - 1] and imbrication[i] < imbrication[i - 1]))):
            return False
    return True


@lazy(cache=True)
def _nesting_in_order(container, stype, imbrication, nt, depth):
    """_nesting_parents for states in order (see in_order): a stack per type."""
    parent = np.full(len(container), -1, np.int64)
    stack = np.full((nt, depth), -1, np.int64)
    for i in range(len(container)):
        k, t = imbrication[i], stype[i]
        if k > 0:
            p = stack[t, k - 1]
            if p >= 0 and container[p] == container[i]:
                parent[i] = p
        stack[t, k] = i
    return parent


def by_container(container, time, n_containers, stable=True):
    """Rows by container, then time, then row: np.lexsort((time, container)) as one
    sort of the times and a counting sort of the containers; not `stable`: rows of
    one container and time in any order (a sort twice as fast)."""
    return sort_by(np.argsort(time, kind="stable" if stable else "quicksort"), container,
                   n_containers)


def nesting_parents_of(container, stype, start, imbrication):
    """The same for states given by their columns (a subset: positions in it)."""
    n = len(start)
    nt = int(stype.max()) + 1 if len(stype) else 1
    deepest = int(imbrication.max()) + 1 if n else 1
    if nt * deepest <= 1 << 22 and in_order(container, start, imbrication):
        return _nesting_in_order(container, stype, imbrication, nt, deepest)  # no sort
    # by container and type, start, then depth: one sort of the starts, two counting
    # sorts (three argsorts took 2.6 s for 1e7 states)
    depth = imbrication.astype(np.int64)
    order = sort_by(np.arange(n, dtype=np.int64), depth, int(depth.max(initial=0)) + 1)
    order = order[np.argsort(start[order], kind="stable")]
    key = container.astype(np.int64) * nt + stype
    order = sort_by(order, key, int(key.max(initial=0)) + 1)
    del key
    return _nesting_parents(order, container, stype, depth)


@lazy(cache=True)
def _states(container, col, start, end, parent, t0, t1, out):
    """Each state's overlap with [t0, t1] to its value, less to its parent's (none
    when `parent` is empty: inclusive time)."""
    exclusive = len(parent) > 0
    for i in range(len(start)):
        s = max(start[i], t0)
        e = min(end[i], t1)
        if e > s:
            out[container[i], col[i]] += e - s
            if exclusive and parent[i] >= 0:
                out[container[i], col[parent[i]]] -= e - s


@lazy(cache=True)
def _variables(container, col, start, end, value, t0, t1, integral, covered):
    for i in range(len(start)):
        s = max(start[i], t0)
        e = min(end[i], t1)
        if e > s:
            integral[container[i], col[i]] += value[i] * (e - s)
            covered[container[i], col[i]] += e - s


@lazy(cache=True)
def _links(src, dst, start, end, size, t0, t1, out, into, hit):
    """count, bytes, time and throughput of the links in [t0, t1] to their ends;
    `hit`: the links that overlap it."""
    for i in range(len(start)):
        s, e = start[i], end[i]
        d = e - s
        if d > 0:
            ov = min(e, t1) - max(s, t0)
            if ov <= 0:
                continue
            frac = ov / d
            rate = size[i] / d
        elif t0 <= s <= t1:
            ov, frac, rate = 0.0, 1.0, 0.0
        else:
            continue
        hit[i] = True
        for c, acc in ((src[i], out), (dst[i], into)):
            acc[c, 0] += 1.0
            acc[c, 1] += size[i] * frac
            acc[c, 2] += ov
            acc[c, 3] += rate * frac


def _peers(ends, others, n):
    """Per container, how many different containers its links in `ends` join."""
    pairs = np.unique(ends.astype(np.int64) * n + others)
    return np.bincount(pairs // n, minlength=n).astype(np.float64)


@lazy(cache=True)
def _events(container, col, time, t0, t1, out):
    for i in range(len(time)):
        if t0 <= time[i] <= t1:
            out[container[i], col[i]] += 1.0


def _columns(trace, kind):
    """Entity values of the types of `kind` as dense columns: (col per value code,
    value codes per column)."""
    vals = np.flatnonzero(trace.types.kind[trace.values.type] == kind)
    col = np.full(len(trace.values), -1, np.int32)
    col[vals] = np.arange(len(vals), dtype=np.int32)
    return col, vals


class Slicer:
    """A trace's columns prepared for repeated slices; `nested` "exclusive" (default)
    or "inclusive" says how a state's time counts the states nested in it."""

    def __init__(self, trace, nested="exclusive"):
        if nested not in NESTED:
            raise OptionsError(f"nested time must be one of {', '.join(NESTED)}, "
                               f"not {nested!r}")
        self.trace, self.nested = trace, nested
        self.state_col, self.state_values = _columns(trace, Kind.STATE)
        self.event_col, self.event_values = _columns(trace, Kind.EVENT)
        st, ev = trace.states, trace.events
        self._st_col = self.state_col[st.value]
        self._parent = None  # the nesting, sorted out at the first slice (see _parents)
        self._ev_col = self.event_col[ev.value]
        #: variable types as columns (a column per type of the trace would make a
        #: deep hierarchy's containers x types quadratic)
        self.variable_types = np.flatnonzero(trace.types.kind == Kind.VARIABLE)
        self.var_col = np.full(len(trace.types), -1, np.int32)
        self.var_col[self.variable_types] = np.arange(len(self.variable_types), dtype=np.int32)
        self._var_col = self.var_col[trace.variables.type]
        ln = trace.links
        msg = np.flatnonzero(~platform_link_types(trace)[ln.type])  # messages only
        self._ln = (ln.start_container[msg], ln.end_container[msg], ln.start[msg], ln.end[msg])
        size = link_bytes(trace, msg)
        #: whether the run's messages have sizes (the whole run's: link_sizes)
        self.has_sizes = link_sizes(trace).sized_messages > 0
        self._size = np.nan_to_num(size)

    def _parents(self):
        """The state each state is nested in, for exclusive time (empty: inclusive,
        or nothing nested)."""
        if self._parent is None:
            st = self.trace.states
            nests = self.nested == "exclusive" and len(st) and st.imbrication.max() > 0
            self._parent = nesting_parents(self.trace) if nests else np.zeros(0, np.int64)
        return self._parent

    def slice(self, window=None):
        """The Slice of `window` (t0, t1); None: the whole trace."""
        tr = self.trace
        t0, t1 = window if window is not None else (tr.start_time, tr.end_time)
        t0, t1 = float(t0), float(t1)
        if t1 < t0:
            raise OptionsError(f"time window {t0:g}:{t1:g} ends before it starts")
        n, nt = len(tr.containers), len(self.variable_types)
        st, var, ev = tr.states, tr.variables, tr.events
        states = np.zeros((n, len(self.state_values)))
        _states(st.container, self._st_col, st.start, st.end, self._parents(), t0, t1, states)
        np.maximum(states, 0.0, out=states)  # rounding: a parent's time less its children's
        integral, covered = np.zeros((n, nt)), np.zeros((n, nt))
        _variables(var.container, self._var_col, var.start, var.end, var.value, t0, t1,
                   integral, covered)
        src, dst = self._ln[:2]
        out, into = np.zeros((n, len(LINK_MEASURES))), np.zeros((n, len(LINK_MEASURES)))
        hit = np.zeros(len(src), np.bool_)
        _links(*self._ln, self._size, t0, t1, out, into, hit)
        dur = t1 - t0
        out[:, 4], into[:, 4] = (out[:, 1] / dur, into[:, 1] / dur) if dur > 0 else (0, 0)
        out[:, 5] = _peers(src[hit], dst[hit], n)
        into[:, 5] = _peers(dst[hit], src[hit], n)
        events = np.zeros((n, len(self.event_values)))
        _events(ev.container, self._ev_col, ev.time, t0, t1, events)
        return Slice(self, t0, t1, states, integral, covered, out, into, events)


class Slice:
    """Per-container numbers of one interval (see the module's docstring)."""

    def __init__(self, slicer, t0, t1, states, integral, covered, links_out, links_in, events):
        self.slicer, self.trace = slicer, slicer.trace
        self.t0, self.t1 = t0, t1
        self.states, self.integral, self.covered = states, integral, covered
        self.links_out, self.links_in, self.events = links_out, links_in, events

    @property
    def duration(self):
        return self.t1 - self.t0

    def _named(self, what, name):
        tr = self.trace
        hits = tr.find("types" if what == "type" else "values", name).tolist()
        if not hits:
            raise OptionsError(f"{tr.source}: no {what} named {name!r} in the trace")
        return hits

    def _value_columns(self, col_of, name, kind):
        cols = [col_of[v] for v in self._named("value", name) if col_of[v] >= 0]
        if not cols:
            raise OptionsError(f"{self.trace.source}: {name!r} is not a {kind} value")
        return cols

    def metric(self, name):
        """(values per container, containers that carry the metric) for `name`."""
        tr = self.trace
        kind, arg = metric_parts(name)
        n = len(tr.containers)
        if kind == "ratio":
            a, _, b = arg.rpartition("/")
            (va, ea), (vb, eb) = self.metric(a), self.metric(b)
            with np.errstate(divide="ignore", invalid="ignore"):
                return va / vb, ea | eb
        if name == "containers":
            v = np.ones(n)
            v[tr.containers.parent[tr.containers.parent >= 0]] = 0.0
            return v, v > 0
        if kind in ("state", "state%"):
            cols = self._value_columns(self.slicer.state_col, arg, "state")
            v = self.states[:, cols].sum(axis=1)
            if kind == "state%":
                v = v / self.duration if self.duration > 0 else np.zeros(n)
            types = tr.values.type[self.slicer.state_values[cols]]
            return v, self._carriers(types)
        if kind in ("variable", "variable_mean"):
            types = [t for t in self._named("type", arg) if tr.types.kind[t] == Kind.VARIABLE]
            if not types:
                raise OptionsError(f"{tr.source}: {arg!r} is not a variable type")
            cols = self.slicer.var_col[types]
            v = self.integral[:, cols].sum(axis=1)
            if kind == "variable_mean":
                with np.errstate(divide="ignore", invalid="ignore"):
                    v = v / self.covered[:, cols].sum(axis=1)
            return v, self._carriers(types)
        if kind in ("links", "links_in"):
            acc = self.links_out if kind == "links" else self.links_in
            if arg in SIZED and not self.slicer.has_sizes and len(tr.links):
                raise OptionsError(f"{tr.source}: the trace's links carry no Size field")
            v = acc[:, LINK_MEASURES.index(arg)]
            lt = np.flatnonzero(tr.types.kind == Kind.LINK)
            ends = tr.types.start_type[lt] if kind == "links" else tr.types.end_type[lt]
            return v.copy(), np.isin(tr.containers.type, ends)
        cols = self._value_columns(self.slicer.event_col, arg, "event")  # events:VALUE
        types = tr.values.type[self.slicer.event_values[cols]]
        return self.events[:, cols].sum(axis=1), self._carriers(types)

    def _carriers(self, entity_types):
        """Containers of the container types that hold these entity types."""
        tr = self.trace
        return np.isin(tr.containers.type, tr.types.parent[np.asarray(entity_types)])


def container_metric(trace, metric="containers"):
    """One float per container over the whole trace, for its own entities only (no
    descendants): any metric name of `Slice.metric`, e.g. `containers` (1 per leaf),
    `state:VALUE` seconds, `links:count`, `links:bytes` (as origin), `variable:TYPE`
    time integral."""
    nested = "exclusive" if "state" in metric else "inclusive"  # (no nesting to sort)
    return Slicer(trace, nested).slice().metric(metric)[0]
