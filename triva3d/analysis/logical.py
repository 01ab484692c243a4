"""Logical time, as Ravel derives it (Isaacs et al., "Combing the Communication
Hairball: Visualizing Parallel Execution Traces using Logical Time", 2014).

- Communication events (section 3.1): each message's send is the deepest state on
  its sender that holds its start, its receive the deepest state on its receiver
  that holds its end (for OTF2, the MPI_Send, MPI_Recv, ... regions; with no state
  there, an instant of its own). One state holding several message ends is one
  event (an MPI_Waitall). Collective calls are events too (regions named as in
  `COLLECTIVES`, OTF2's MPI calls holding a collective and its collectives no call
  holds); the k-th call of one operation (by name) on each process is one
  collective, whose events share a step.
- Steps: each process keeps its events' order, a receive comes at least one step
  after its send, and every event takes the earliest step this allows (the longest
  path in that graph). The time between two events of a process is one aggregated
  event (`kind` aggregate), given the step of the event that ends it.
- Phases (Ravel's partitions): events joined by messages or collectives, then
  groups that follow one another on a process (their steps there overlap or touch)
  merged, as the exchanges of one halo or one ping-pong are; connected components
  numbered by their first start. Or, given region names, the k-th occurrence of
  such a region on each process is one phase (an iteration).
- Lateness (section 3.2): an event's end less the earliest end among the events of
  its phase at its step.
- Clusters (section 3.3): processes grouped by their lateness per step (see
  `clusters`).

`steps(trace)` returns a `Steps` of columns, one row per event.
"""
import csv
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..errors import OptionsError
from ..output import writing
from ..trace import Kind
from .roles import platform_link_types
from .timeslice import by_container, in_order

#: MPI's collective operations: one call on each process of a communicator.
COLLECTIVES = frozenset(
    f"MPI_{p}{name}" for p in ("", "I") for name in (
        "Barrier", "Bcast", "Reduce", "Allreduce", "Gather", "Gatherv", "Allgather",
        "Allgatherv", "Scatter", "Scatterv", "Alltoall", "Alltoallv", "Alltoallw",
        "Reduce_scatter", "Reduce_scatter_block", "Scan", "Exscan"))
#: Event kinds (`Steps.kind`).
KINDS = ("send", "recv", "sendrecv", "collective", "aggregate")
SEND, RECV, SENDRECV, COLLECTIVE, AGGREGATE = range(5)
#: The columns of `triva3d steps`' CSV.
COLUMNS = ("container", "type", "value", "start", "end", "step", "phase", "lateness",
           "cluster", "unit")


@njit(cache=True)
def _holding(s_cont, s_start, s_end, s_order, q_cont, q_time, q_order):
    """Per query (container, time), the deepest state of that container holding the
    time (-1: none): one sweep over the states and the queries, both sorted by
    container then time, with a stack of the states open."""
    out = np.full(len(q_cont), -1, np.int64)
    stack = np.empty(len(s_order) + 1, np.int64)
    top, i = 0, 0
    cur = -1
    for j in range(len(q_order)):
        q = q_order[j]
        c, t = q_cont[q], q_time[q]
        if c != cur:
            top, cur = 0, c
            while i < len(s_order) and s_cont[s_order[i]] < c:
                i += 1
        while i < len(s_order) and s_cont[s_order[i]] == c and s_start[s_order[i]] <= t:
            r = s_order[i]
            while top > 0 and s_end[stack[top - 1]] <= s_start[r]:
                top -= 1  # ended before this one starts: not its parent
            stack[top] = r
            top += 1
            i += 1
        while top > 0 and s_end[stack[top - 1]] < t:
            top -= 1
        if top > 0:
            out[q] = stack[top - 1]
    return out


@njit(cache=True)
def _longest(n, src, dst):
    """Earliest step of each of `n` nodes, edges src -> dst each a step later (Kahn's
    order, the longest path); -1 where a cycle leaves a node unordered."""
    indeg = np.zeros(n, np.int64)
    for e in range(len(dst)):
        indeg[dst[e]] += 1
    first = np.zeros(n + 1, np.int64)
    for e in range(len(src)):
        first[src[e] + 1] += 1
    for k in range(n):
        first[k + 1] += first[k]
    adj = np.empty(len(src), np.int64)
    fill = first[:-1].copy()
    for e in range(len(src)):
        adj[fill[src[e]]] = dst[e]
        fill[src[e]] += 1
    step = np.zeros(n, np.int64)
    queue = np.empty(n, np.int64)
    head, tail = 0, 0
    for k in range(n):
        if indeg[k] == 0:
            queue[tail] = k
            tail += 1
    while head < tail:
        u = queue[head]
        head += 1
        for e in range(first[u], first[u + 1]):
            v = adj[e]
            step[v] = max(step[v], step[u] + 1)
            indeg[v] -= 1
            if indeg[v] == 0:
                queue[tail] = v
                tail += 1
    for k in range(n):
        if indeg[k] > 0:
            step[k] = -1
    return step


@njit(cache=True)
def _components(n, a, b):
    """Connected components of n nodes joined by the pairs (a, b): per node, the
    smallest node of its component (union-find)."""
    parent = np.arange(n)
    for e in range(len(a)):
        x, y = a[e], b[e]
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        while parent[y] != y:
            parent[y] = parent[parent[y]]
            y = parent[y]
        if x != y:
            parent[max(x, y)] = min(x, y)
    for x in range(n):
        r = x
        while parent[r] != r:
            r = parent[r]
        parent[x] = r
    return parent


@dataclass
class Steps:
    """The events of a trace in logical time, one row each, sorted by container
    then start: `container`, `kind` (KINDS), `state` (Trace row of its state, -1:
    none), `value` (its value code, -1), `start`, `end`, `step`, `phase` (-1: in no
    phase), `lateness` (NaN for aggregated events), `cluster` (-1 until
    clustered, see `medoids`); `sends` and `recvs`, per message (link row in
    `messages`), its two events; `notes` on what could not be ordered."""
    trace: object
    container: np.ndarray
    kind: np.ndarray
    state: np.ndarray
    value: np.ndarray
    start: np.ndarray
    end: np.ndarray
    step: np.ndarray
    phase: np.ndarray
    lateness: np.ndarray
    cluster: np.ndarray
    messages: np.ndarray
    sends: np.ndarray
    recvs: np.ndarray
    notes: list
    #: per cluster, the container that represents it (its medoid)
    medoids: np.ndarray = None

    def __len__(self):
        return len(self.container)

    @property
    def duration(self):
        return self.end - self.start

    def summary(self):
        """One line: how many events, steps, phases and clusters."""
        comm = int((self.kind != AGGREGATE).sum())
        out = (f"{comm} communication events and {len(self) - comm} aggregated ones over "
               f"{int(self.step.max(initial=-1)) + 1} steps, "
               f"{len(set(self.phase.tolist()) - {-1})} phases")
        clusters = len(set(self.cluster.tolist()) - {-1})
        return out + (f", {clusters} clusters" if clusters else "")

    def write_csv(self, path):
        """The events as CSV, one row each (see rows), with a header."""
        with writing(path, newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(COLUMNS)
            w.writerows(self.rows())

    def rows(self):
        """CSV rows: container, type, value, start, end, step, phase, lateness, cluster,
        unit (of the times, the trace's)."""
        tr = self.trace
        unit = tr.unit()
        cname = [tr.display_name("containers", int(c)) for c in range(len(tr.containers))]
        for i in range(len(self)):
            v = self.value[i]
            yield (cname[self.container[i]], KINDS[self.kind[i]],
                   tr.display_name("values", int(v)) if v >= 0 else "",
                   f"{self.start[i]:.9g}", f"{self.end[i]:.9g}", int(self.step[i]),
                   int(self.phase[i]),
                   "" if np.isnan(self.lateness[i]) else f"{self.lateness[i]:.9g}",
                   int(self.cluster[i]), unit)


def steps(trace, phases=None, n_clusters=None):
    """The Steps of `trace`: phases connected by communication, or the occurrences
    of the regions named in `phases`; with `n_clusters`, processes clustered by
    lateness (see clusters)."""
    st, ln = trace.states, trace.links
    msg = np.flatnonzero(~platform_link_types(trace)[ln.type])
    m = len(msg)
    # the states holding each message's two ends, then the events they make
    q_cont = np.r_[ln.start_container[msg], ln.end_container[msg]].astype(np.int64)
    q_time = np.r_[ln.start[msg], ln.end[msg]]
    n_c = len(trace.containers)
    s_order = (np.arange(len(st)) if in_order(st.container, st.start, st.imbrication)
               else by_container(st.container, st.start, n_c))
    q_order = by_container(q_cont, q_time, n_c, stable=False)  # (ties: the same answer)
    held = _holding(st.container.astype(np.int64), st.start, st.end, s_order, q_cont,
                    q_time, q_order)
    names = np.array([trace.names.display(int(n)) for n in trace.values.name], dtype=object)
    coll = _collectives(trace, names)
    n_st = len(st)
    key = np.r_[np.where(held >= 0, held, n_st + np.arange(2 * m)), coll]
    mark = np.zeros(n_st + 2 * m, bool)  # the distinct keys, in order: no sort
    mark[key] = True
    keys = np.flatnonzero(mark)
    inv = (np.cumsum(mark) - 1)[key]
    del mark, key
    ev_of_query, ev_of_coll = inv[:2 * m], inv[2 * m:]
    n = len(keys)
    is_state = keys < n_st
    row = np.where(is_state, keys, -1)
    instant = keys[~is_state] - n_st  # (an instant's query)

    def take(col, other):  # a state's field, else the instant's (`other`: per query)
        out = np.empty(n, np.result_type(col, other))
        out[is_state] = col[keys[is_state]]
        out[~is_state] = other[instant]
        return out
    container = take(st.container, q_cont).astype(np.int64)
    start, end = take(st.start, q_time), take(st.end, q_time)
    value = take(st.value, np.full(2 * m, -1)).astype(np.int64)
    sends = np.zeros(n, bool)
    recvs = np.zeros(n, bool)
    sends[ev_of_query[:m]] = True
    recvs[ev_of_query[m:]] = True
    kind = np.where(sends & recvs, SENDRECV, np.where(sends, SEND, RECV))
    is_coll = np.zeros(n, bool)
    is_coll[ev_of_coll] = True
    kind = np.where(is_coll & ~sends & ~recvs, COLLECTIVE, kind)
    # collectives: the k-th call of a name on a container joins the k-th on the others
    group = np.arange(n)
    if len(coll):
        cv, cc = st.value[coll], st.container[coll]
        order = np.lexsort((st.start[coll], cc, cv))
        k = np.zeros(len(coll), np.int64)
        run = np.r_[True, (cv[order][1:] != cv[order][:-1]) | (cc[order][1:] != cc[order][:-1])]
        starts = np.flatnonzero(run)
        k[order] = np.arange(len(coll)) - np.repeat(starts, np.diff(np.r_[starts, len(coll)]))
        _, first, g = np.unique(cv.astype(np.int64) * len(coll) + k, return_index=True,
                                return_inverse=True)
        group[ev_of_coll] = ev_of_coll[first][g]
    # the graph: each container's events in order, each message send -> receive
    order = by_container(container, start, n_c)
    order = order[_ties_by_end(order, container, start, end)]
    same = container[order][1:] == container[order][:-1]
    a = np.r_[order[:-1][same], ev_of_query[:m]]
    b = np.r_[order[1:][same], ev_of_query[m:]]
    a, b = group[a], group[b]
    keep = a != b
    step_of = _longest(n, a[keep], b[keep])
    notes = []
    bad = step_of[group] < 0
    if bad.any():
        notes.append(f"{int(bad.sum())} events in a cycle of the happened-before order "
                     "(clocks out of step?): given their order on their process")
        step_of = _fallback(step_of, group, container, order)
    step = step_of[group]
    # phases
    if phases:
        phase = _named_phases(trace, phases, container, start)
    else:
        link_a, link_b = ev_of_query[:m], ev_of_query[m:]
        comp = _components(n, np.r_[link_a, group], np.r_[link_b, np.arange(n)])
        a, b = _touching(order, container, comp, step)
        comp = _components(n, np.r_[np.arange(n), a], np.r_[comp, b])
        first_start = np.full(n, np.inf)
        np.minimum.at(first_start, comp, start)
        labels = np.unique(comp)
        rank = np.argsort(np.argsort(first_start[labels], kind="stable"), kind="stable")
        phase = rank[np.searchsorted(labels, comp)]
    lateness = _lateness(phase, step, end)
    # aggregated events: the time between two events of a container, each after
    # the event before it (that is the order by container, start and end)
    o = order
    gap = same & (start[o][1:] > end[o][:-1])
    nxt = o[1:][gap]
    where = np.empty(n, np.int64)  # the final row of each event
    where[o] = np.arange(n) + np.r_[0, np.cumsum(gap)]
    at = where[o[:-1][gap]] + 1  # and of each aggregated event
    total = n + len(nxt)

    def rows(events, aggregated, dtype):
        out = np.empty(total, dtype)
        out[where] = events
        out[at] = aggregated
        return out
    out = Steps(trace, container=rows(container, container[nxt], np.int64),
                kind=rows(kind, AGGREGATE, np.int64), state=rows(row, -1, np.int64),
                value=rows(value, -1, np.int64), start=rows(start, end[o][:-1][gap], float),
                end=rows(end, start[nxt], float), step=rows(step, step[nxt], np.int64),
                phase=rows(phase, phase[nxt], np.int64),
                lateness=rows(lateness, np.nan, float),
                cluster=np.full(total, -1, np.int64), messages=msg,
                sends=where[ev_of_query[:m]], recvs=where[ev_of_query[m:]], notes=notes)
    if n_clusters:
        clusters(out, n_clusters)
    return out


def _collectives(trace, names):
    """Rows of the states that are collective calls: the regions named in COLLECTIVES
    (MPI_Allreduce, ...) and, from the OTF2 reader, the MPI calls holding a collective
    (their field `collective`) and the collectives no MPI call holds (type "MPI
    collective", from CollectiveBegin to CollectiveEnd): one event a call."""
    st = trace.states
    typed = [t for t in trace.find("types", "MPI collective").tolist()
             if trace.types.kind[t] == Kind.STATE]
    codes = [v for v, name in enumerate(names) if name in COLLECTIVES]
    calls = st.extra.get("collective")
    return np.flatnonzero(np.isin(st.type, typed) | np.isin(st.value, codes)
                          | (calls >= 0 if calls is not None else False))


@njit(cache=True)
def _touching(order, container, comp, step):
    """Pairs of events (one of each group) whose groups `comp` follow one another on
    a container: their step ranges there overlap or touch. `order`: the events by
    container."""
    n = len(comp)
    seen = np.full(n, -1, np.int64)  # the container a group was last seen on
    lo, hi = np.empty(n, np.int64), np.empty(n, np.int64)
    rep, groups = np.empty(n, np.int64), np.empty(n, np.int64)
    a, b = np.empty(n, np.int64), np.empty(n, np.int64)
    pairs, i = 0, 0
    while i < len(order):
        c, g, j = container[order[i]], 0, i
        while j < len(order) and container[order[j]] == c:
            e = order[j]
            k = comp[e]
            if seen[k] != c:
                seen[k], lo[k], hi[k], rep[k] = c, step[e], step[e], e
                groups[g] = k
                g += 1
            else:
                lo[k], hi[k] = min(lo[k], step[e]), max(hi[k], step[e])
            j += 1
        mine = groups[:g]
        reach, holder = -2, -1
        for k in mine[np.argsort(lo[mine], kind="mergesort")]:
            if lo[k] <= reach + 1:
                a[pairs], b[pairs] = rep[holder], rep[k]
                pairs += 1
            if hi[k] > reach:
                reach, holder = hi[k], k
        i = j
    return a[:pairs], b[:pairs]


@njit(cache=True)
def _ties_by_end(order, container, start, end):
    """Positions in `order` (by container, then start) that put the events of one
    container and start by their end too (stable: then by row)."""
    out = np.arange(len(order))
    i = 0
    while i < len(order):
        j = i + 1
        while j < len(order) and container[order[j]] == container[order[i]] \
                and start[order[j]] == start[order[i]]:
            j += 1
        if j - i > 1:
            out[i:j] = i + np.argsort(end[order[i:j]], kind="mergesort")
        i = j
    return out


def _fallback(step_of, group, container, order):
    """Steps for nodes left in a cycle: one more than the event before them on
    their container."""
    step = _after_previous(step_of[group], container, order)
    out = step_of.copy()
    out[group] = np.maximum(out[group], step)
    return np.maximum(out, 0)


@njit(cache=True)
def _after_previous(step, container, order):
    step = step.copy()
    prev, last_c = -1, -1
    for e in order:
        if container[e] != last_c:
            last_c, prev = container[e], -1
        if step[e] < 0:
            step[e] = prev + 1
        prev = step[e]
    return step


def _named_phases(trace, names, container, start):
    """Phase per event: the k-th region named in `names` on its container that holds
    its start (numbered by name in the order given, then k); -1 outside them."""
    st = trace.states
    codes = [v for name in names for v in trace.find("values", name).tolist()
             if trace.types.kind[trace.values.type[v]] == Kind.STATE]
    if not codes:
        raise OptionsError(f"{trace.source}: no state value named "
                           f"{', '.join(map(repr, names))} for phases")
    regions = np.flatnonzero(np.isin(st.value, codes))
    rc, rs, rv = st.container[regions], st.start[regions], st.value[regions]
    order = np.lexsort((rs, rc, rv))  # the k-th of a name on a container
    run = np.r_[True, (rv[order][1:] != rv[order][:-1]) | (rc[order][1:] != rc[order][:-1])]
    heads = np.flatnonzero(run)
    k = np.empty(len(order), np.int64)
    k[order] = np.arange(len(order)) - np.repeat(heads, np.diff(np.r_[heads, len(order)]))
    rank = np.array([codes.index(v) for v in rv.tolist()], np.int64)
    _, label = np.unique(rank * (len(regions) + 1) + k, return_inverse=True)
    s_order = np.lexsort((rs, rc))
    q_order = np.lexsort((start, container))
    held = _holding(rc.astype(np.int64), rs, st.end[regions], s_order,
                    container.astype(np.int64), start, q_order)
    return np.where(held >= 0, label[np.maximum(held, 0)], -1) if len(regions) else \
        np.full(len(container), -1, np.int64)


def _lateness(phase, step, end):
    """Each event's end less the earliest end at its (phase, step)."""
    key = phase.astype(np.int64) * (int(step.max(initial=0)) + 1) + step
    _, g = np.unique(key, return_inverse=True)
    earliest = np.full(g.max(initial=-1) + 1, np.inf)
    np.minimum.at(earliest, g, end)
    return end - earliest[g]


def clusters(steps, k):
    """Cluster the processes (containers with events) into at most `k` groups by
    their lateness per step (Ravel section 3.3): a process's lateness at steps it has
    no event at takes its value at its last step before (gap filling); the distance
    of two processes is the mean absolute difference over the steps both reach;
    k-medoids, started from the processes farthest apart (fewer clusters where
    processes do not differ). Sets steps.cluster (per event, its process's cluster,
    0..) and steps.medoids (per cluster, its representative container); returns the
    cluster of each container (-1: none)."""
    if k < 1:
        raise OptionsError(f"the number of clusters must be at least 1, not {k}")
    comm = steps.kind != AGGREGATE
    procs = np.unique(steps.container[comm])
    of = np.full(len(steps.trace.containers), -1, np.int64)
    if not len(procs):
        return of
    n_steps = int(steps.step[comm].max()) + 1
    lat = np.full((len(procs), n_steps), np.nan)
    p = np.searchsorted(procs, steps.container[comm])
    np.fmax.at(lat, (p, steps.step[comm]), steps.lateness[comm])
    reach = np.zeros(len(procs), np.int64)
    for i in range(len(procs)):  # gap filling: carry the last value forward
        row = lat[i]
        seen = np.flatnonzero(~np.isnan(row))
        reach[i] = seen[-1] if len(seen) else -1
        if len(seen):
            idx = np.maximum.accumulate(np.where(np.isnan(row), 0, np.arange(n_steps)))
            filled = row[idx]
            filled[:seen[0]] = np.nan
            lat[i] = filled
    d = _distances(lat)
    medoids = _kmedoids(d, min(k, len(procs)))
    label = np.argmin(d[:, medoids], axis=1)
    steps.medoids = procs[medoids]
    of[procs] = label
    steps.cluster = of[steps.container]
    return of


def _distances(lat):
    """Mean absolute difference over the steps both rows have (inf: none, then
    twice the largest finite distance and one)."""
    d = _mean_differences(lat)
    finite = d[np.isfinite(d)]
    return np.where(np.isinf(d), finite.max(initial=0.0) * 2 + 1, d)


@njit(cache=True)
def _mean_differences(lat):
    n, m = lat.shape
    d = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            total, count = 0.0, 0
            for s in range(m):
                x, y = lat[i, s], lat[j, s]
                if not (np.isnan(x) or np.isnan(y)):
                    total += abs(x - y)
                    count += 1
            d[i, j] = d[j, i] = total / count if count else np.inf
    return d


def _kmedoids(d, k, rounds=100):
    """k medoids of the distance matrix d: the farthest-first start, then swaps of
    each cluster's medoid for the member nearest all others, until none changes."""
    med = [int(np.argmax(d.sum(axis=1)))]
    while len(med) < k:
        far = d[:, med].min(axis=1)
        if far.max() <= 0:  # the others are copies of a medoid: fewer clusters
            break
        med.append(int(np.argmax(far)))
    k = len(med)
    med = np.array(med)
    for _ in range(rounds):
        label = np.argmin(d[:, med], axis=1)
        new = med.copy()
        for j in range(k):
            members = np.flatnonzero(label == j)
            if len(members):
                new[j] = members[np.argmin(d[np.ix_(members, members)].sum(axis=1))]
        if (new == med).all():
            break
        med = new
    return med


def state_lateness(trace):
    """Per state of `trace`, the lateness of the communication event it is (NaN for
    the others): a logical trace's own (see logical_trace), else from steps(trace)."""
    own = getattr(trace, "lateness", None)
    if own is not None:
        return own
    s = steps(trace)
    out = np.full(len(trace.states), np.nan)
    ev = s.state >= 0
    out[s.state[ev]] = s.lateness[ev]
    return out


#: Where a communication event's box stands within its step, and the names given
#: to what the logical trace adds: the type of instants and aggregated events,
#: and their values.
BOX = 0.8
LOGICAL_TYPE, INSTANT, BETWEEN = "Logical time", "message end", "between events"
#: The colour of aggregated events: a quiet grey, what lies between the events.
BETWEEN_RGBA = (0.42, 0.42, 0.45, 1.0)


def logical_trace(trace, s=None):
    """`trace` in logical time (Ravel's logical timeline): its containers; each
    communication event of the Steps `s` (default: steps(trace)) a state of equal
    length at its step, [step, step + BOX], its own type and value (an instant: the
    value "message end" of a type "Logical time"); each aggregated event the state
    "between events" from the box before it to its own; each message a link from
    its send's box end to its receive's start. Time reads in steps; events and
    variables have no step and are left out (said in the notes). `lateness` keeps
    each state's lateness (NaN where none), `durations` how long it lasted, both in
    `physical_unit`, the trace's."""
    from ..trace import Trace
    s = steps(trace) if s is None else s
    tr = trace
    ty, val = tr.types, tr.values
    n_types, n_values = len(ty), len(val)
    names, base = tr.names.extended([LOGICAL_TYPE, INSTANT, BETWEEN])
    agg = s.kind == AGGREGATE
    instant = ~agg & (s.state < 0)
    st = tr.states
    # instants: the value "message end" of a type "Logical time" under their
    # container's type; aggregated events: "between events" in the type of the
    # event after them (rows are by container then start: that is the next row)
    ctypes = np.unique(tr.containers.type[s.container[instant]])
    logical = n_types + np.searchsorted(ctypes, tr.containers.type[s.container])
    own = np.where(s.state >= 0, st.type[np.maximum(s.state, 0)] if len(st) else 0, logical)
    nxt = np.minimum(np.arange(len(s)) + 1, max(len(s) - 1, 0))
    state_type = np.where(agg, own[nxt] if len(s) else own, own)
    between = np.unique(state_type[agg])
    types = {"kind": np.r_[ty.kind, np.full(len(ctypes), Kind.STATE)],
             "parent": np.r_[ty.parent, ctypes], "name": np.r_[ty.name, np.full(len(ctypes), base)],
             "alias": np.r_[ty.alias, np.full(len(ctypes), -1)],
             "start_type": np.r_[ty.start_type, np.full(len(ctypes), -1)],
             "end_type": np.r_[ty.end_type, np.full(len(ctypes), -1)]}
    values = {"type": np.r_[val.type, n_types + np.arange(len(ctypes)), between],
              "name": np.r_[val.name, np.full(len(ctypes), base + 1),
                            np.full(len(between), base + 2)],
              "alias": np.r_[val.alias, np.full(len(ctypes) + len(between), -1)]}
    value = np.where(agg, n_values + len(ctypes) + np.searchsorted(between, state_type),
                     np.where(instant, n_values + (logical - n_types), s.value))
    # rows are by container then start: an aggregated event follows the row before it
    prev = np.maximum(np.arange(len(s)) - 1, 0)
    start = np.where(agg, s.step[prev] + BOX, s.step).astype(np.float64)
    end = np.where(agg, s.step, s.step + BOX).astype(np.float64)
    keep = end > start
    n_steps = float(s.step.max(initial=-1) + 1)
    cont = tr.containers
    containers = {"parent": cont.parent, "type": cont.type, "name": cont.name,
                  "alias": cont.alias, "start": np.zeros(len(cont)),
                  "end": np.full(len(cont), n_steps)}
    ln = tr.links
    msg = s.messages
    links = {"container": ln.container[msg], "type": ln.type[msg], "value": ln.value[msg],
             "start_container": ln.start_container[msg], "end_container": ln.end_container[msg],
             "start": s.step[s.sends] + BOX, "end": s.step[s.recvs].astype(np.float64),
             "key": ln.key[msg]}
    empty = {c: np.zeros(0) for c in ("container", "type", "value", "start", "end", "time")}
    columns = {"types": types, "values": values, "containers": containers,
               "states": {"container": s.container[keep], "type": state_type[keep],
                          "value": value[keep], "start": start[keep], "end": end[keep],
                          "imbrication": np.zeros(int(keep.sum()))},
               "links": links, "variables": empty, "events": empty}
    left = [f"{n} {what}" for n, what in ((len(tr.events), "events"),
                                           (len(tr.variables), "variable pieces")) if n]
    notes = list(s.notes) + ([f"logical time leaves out {' and '.join(left)} (no step)"]
                             if left else [])
    added = np.full((len(ctypes) + len(between), 4), np.nan, np.float32)
    added[len(ctypes):] = BETWEEN_RGBA
    out = Trace.from_columns(
        names, columns, extra={"links": {k: v[msg] for k, v in ln.extra.items()}},
        type_colors=np.r_[tr.type_colors, np.full((len(ctypes), 4), np.nan, np.float32)],
        value_colors=np.r_[tr.value_colors, added], source=tr.source, time_unit="steps",
        notes=notes)
    out.lateness = s.lateness[keep]
    out.durations = (s.end - s.start)[keep]  # (as they happened: a box is BOX steps)
    out.physical_unit = trace.time_unit  # (of the two: steps are not seconds)
    out.step_rows = np.flatnonzero(keep)  # the Steps row of each state
    return out


class Morph:
    """`trace` between physical time and logical steps (a movie's morph): `at(f)`
    is its logical trace (see logical_trace) with every state and message a
    fraction `f` of the way from where it happened to its step's box. Both ends
    are in `trace`'s unit and span the same times [T0, T1], those of the events
    and the time between them: step k stands at T0 + k x tick, the last box ends
    at T1; `f` 0 is the run's communication events and the time between them as
    they happened."""

    def __init__(self, trace, s=None):
        s = steps(trace) if s is None else s
        self.source = trace
        self.logical = lt = logical_trace(trace, s)
        rows, ln = lt.step_rows, trace.links
        t0 = float(s.start.min()) if len(s) else trace.start_time
        self.span = (t0, float(s.end.max()) if len(s) else trace.end_time)
        last = float(lt.states.end.max(initial=0))
        #: How tall a step is drawn, in the trace's unit.
        self.tick = (self.span[1] - t0) / last if last > 0 and self.span[1] > t0 else 1.0
        self._times = {
            "states": ((s.start[rows], s.end[rows]),
                       (t0 + lt.states.start * self.tick, t0 + lt.states.end * self.tick)),
            "links": ((ln.start[s.messages], ln.end[s.messages]),
                      (t0 + lt.links.start * self.tick, t0 + lt.links.end * self.tick))}

    def at(self, f):
        """The Trace a fraction `f` (0..1) of the way to logical time."""
        from ..trace import SCHEMA, Trace
        lt, f = self.logical, min(1.0, max(0.0, float(f)))
        columns = {t: dict(getattr(lt, t).columns) for t in SCHEMA}
        for table, ((p0, p1), (l0, l1)) in self._times.items():
            columns[table]["start"] = p0 + (l0 - p0) * f
            columns[table]["end"] = p1 + (l1 - p1) * f
        n = len(lt.containers)
        columns["containers"]["start"], columns["containers"]["end"] = (
            np.full(n, t) for t in self.span)
        out = Trace.from_columns(
            lt.names, columns, extra={"links": lt.links.extra}, type_colors=lt.type_colors,
            value_colors=lt.value_colors, source=lt.source, time_unit=self.source.time_unit,
            notes=lt.notes + [f"{f:.0%} of the way from physical time to logical steps, "
                              f"a step {self.tick:.6g} {self.source.unit()} tall"])
        out.lateness, out.durations = lt.lateness, lt.durations
        return out


#: The container type of the clusters in a clustered trace.
CLUSTER_TYPE = "Cluster"


def clustered_trace(trace, k, s=None):
    """`trace` with its processes (the containers with communication events) under
    `k` clusters of processes alike in lateness (see clusters), as a hierarchy level
    named "Cluster" under the root: "Cluster 0 (NAME)" ... named by the process that
    represents each (its medoid), for the treemap, the communication graph and 3D to
    aggregate to (Ravel section 3.3). Entities of the other containers are left out
    (said in the notes)."""
    from ..trace import Trace
    s = steps(trace) if s is None else s
    cluster_of = clusters(s, k)
    procs = np.flatnonzero(cluster_of >= 0)
    tr, cont, ty = trace, trace.containers, trace.types
    n_cl = len(s.medoids) if s.medoids is not None else 0
    words = [CLUSTER_TYPE] + [f"Cluster {c} ({tr.display_name('containers', int(m))})"
                              for c, m in enumerate(s.medoids if n_cl else [])]
    names, first = tr.names.extended(words)
    cl_type = len(ty)
    # new containers: the root, the clusters, the processes (parents before children)
    new_of = np.full(len(cont), -1, np.int64)
    new_of[0] = 0
    new_of[procs] = 1 + n_cl + np.arange(len(procs))
    containers = {
        "parent": np.r_[-1, np.zeros(n_cl), 1 + cluster_of[procs]],
        "type": np.r_[cont.type[0], np.full(n_cl, cl_type), cont.type[procs]],
        "name": np.r_[cont.name[0], first + 1 + np.arange(n_cl), cont.name[procs]],
        "alias": np.r_[cont.alias[0], np.full(n_cl, -1), cont.alias[procs]],
        "start": np.r_[cont.start[0], np.full(n_cl, cont.start[0]), cont.start[procs]],
        "end": np.r_[cont.end[0], np.full(n_cl, cont.end[0]), cont.end[procs]]}
    # the processes' types hang under the cluster type, the cluster type under the root's
    ptypes = np.unique(cont.type[procs])
    types = {"kind": np.r_[ty.kind, Kind.CONTAINER], "parent": np.r_[ty.parent, cont.type[0]],
             "name": np.r_[ty.name, first], "alias": np.r_[ty.alias, -1],
             "start_type": np.r_[ty.start_type, -1], "end_type": np.r_[ty.end_type, -1]}
    types["parent"][ptypes] = cl_type
    columns, extra, dropped = {"types": types, "containers": containers}, {}, 0
    for table, who in (("states", ("container",)), ("variables", ("container",)),
                       ("events", ("container",)),
                       ("links", ("container", "start_container", "end_container"))):
        t = getattr(tr, table)
        keep = np.ones(len(t), bool)
        for col in who[-2:] if table == "links" else who:
            keep &= new_of[getattr(t, col)] >= 0
        dropped += int((~keep).sum())
        cols = {c: getattr(t, c)[keep] for c in t.columns}
        for col in who:
            cols[col] = new_of[cols[col]]
            if table == "links" and col == "container":  # a link's own container: the root
                cols[col] = np.where(cols[col] < 0, 0, cols[col])
        columns[table] = cols
        extra[table] = {f: v[keep] for f, v in t.extra.items()}
    vals = tr.values
    columns["values"] = {"type": vals.type, "name": vals.name, "alias": vals.alias}
    notes = [f"{dropped} entities of containers without communication left out"] if dropped \
        else []
    return Trace.from_columns(
        names, columns, extra=extra,
        type_colors=np.r_[tr.type_colors, np.full((1, 4), np.nan, np.float32)],
        value_colors=tr.value_colors, source=tr.source, time_unit=tr.time_unit, notes=notes)
