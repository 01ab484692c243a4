"""Tasks of asynchronous many-task runs (Traveler): pieces of execution that share a
task id (APEX writes HPX's `GUID` and `Parent GUID` as OTF2 attributes on Enter and
Leave) are one task, suspended and resumed, maybe on another thread; a task depends
on its parent. Plain arrays in, columns out: the OTF2 reader draws the dependencies
as links, and `tasks(trace)` answers the execution-tree queries.
"""
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..errors import TraceError

#: The user-defined fields naming a piece's task and its parent (APEX's attributes).
GUID, PARENT = "GUID", "Parent GUID"


def numbers(texts, codes, what):
    """The integers written in the names `codes` (-1: none, given as -1), as int64 bits
    (a uint64 above 2^63 wraps); a ValueError naming `what` for a name that is not one."""
    codes = np.asarray(codes, np.int64)
    uniq, inv = np.unique(codes, return_inverse=True)
    out = np.empty(len(uniq), np.int64)
    for i, c in enumerate(uniq.tolist()):
        try:
            v = int(texts(c)) if c >= 0 else -1
        except ValueError:
            raise ValueError(f"{what} {texts(c)!r} is not an integer") from None
        out[i] = v - (1 << 64) if v >= 1 << 63 else v
    return out[inv.reshape(-1)]


@dataclass
class Pieces:
    """Pieces (states) grouped into tasks: `task` of each piece; per task its id,
    parent id, the index of its parent task (-1: not in the trace), its pieces in time
    order (`order`, `offsets`)."""
    task: np.ndarray
    ids: np.ndarray
    parent_ids: np.ndarray
    parent: np.ndarray
    order: np.ndarray
    offsets: np.ndarray

    @property
    def missing_parents(self):
        """Tasks whose parent is not in the trace (the roots among them)."""
        return int((self.parent < 0).sum())


def group(guid, parent_guid, start):
    """Group pieces by task id (`guid` -1: not a task piece, left out); a task's parent
    id is its first piece's."""
    piece = np.flatnonzero(guid != -1)
    ids, task = np.unique(guid[piece], return_inverse=True)
    task = task.reshape(-1)
    order = piece[np.lexsort((start[piece], task))]
    offsets = np.searchsorted(np.sort(task), np.arange(len(ids) + 1))
    parent_ids = parent_guid[order[offsets[:-1]]]
    at = np.minimum(np.searchsorted(ids, parent_ids), max(len(ids) - 1, 0))
    known = (parent_ids != -1) & (ids[at] == parent_ids) if len(ids) else np.zeros(0, bool)
    full = np.full(len(guid), -1, np.int64)
    full[piece] = task
    return Pieces(full, ids, parent_ids, np.where(known, at, -1).astype(np.int64), order,
                  offsets)


@njit(cache=True)
def _spawned_from(offsets, order, start, end, parent, first_start):
    """Per task with a parent: the parent's piece that ran last at or before the task's
    first start (else the parent's first piece), and the time the link leaves it."""
    n = len(parent)
    piece = np.full(n, -1, np.int64)
    when = np.zeros(n)
    for t in range(n):
        p = parent[t]
        if p < 0:
            continue
        best = order[offsets[p]]
        for k in range(offsets[p], offsets[p + 1]):
            if start[order[k]] <= first_start[t]:
                best = order[k]
        piece[t] = best
        when[t] = min(end[best], first_start[t]) if start[best] <= first_start[t] \
            else first_start[t]
    return piece, when


def dependencies(pieces, container, start, end):
    """Links `Task dependency` from each parent to each child in the trace: from the
    parent's piece that ran last before the child began (at its end, or at the child's
    start while it still runs) to the child's first piece. Columns start_container,
    end_container, start, end, and the child and parent task of each."""
    first = pieces.order[pieces.offsets[:-1]]
    spawn, when = _spawned_from(pieces.offsets, pieces.order, start, end, pieces.parent,
                                start[first])
    child = np.flatnonzero(pieces.parent >= 0)
    return {"start_container": container[spawn[child]], "end_container": container[first[child]],
            "start": when[child], "end": start[first[child]], "child": child,
            "parent": pieces.parent[child]}


@dataclass
class Tasks:
    """A trace's tasks: per task its id, parent id, parent task (-1: not in the trace),
    region (value code), first container, first start, last end, time running (its
    pieces' time, less that of other tasks' pieces nested in them), pieces, and depth
    in the execution tree; `piece_rows` (state rows in task order) and
    `offsets` give each task's pieces."""
    ids: np.ndarray
    parent_ids: np.ndarray
    parent: np.ndarray
    value: np.ndarray
    container: np.ndarray
    start: np.ndarray
    end: np.ndarray
    busy: np.ndarray
    pieces: np.ndarray
    depth: np.ndarray
    piece_rows: np.ndarray
    offsets: np.ndarray
    #: per state, the task it is a piece of or nested in (-1: none)
    task_of: np.ndarray

    def __len__(self):
        return len(self.ids)

    @property
    def missing_parents(self):
        return int((self.parent < 0).sum())

    def lineage(self, i):
        """Task i's chain: its ancestors up to the root and all its descendants
        (task indices, i included)."""
        up = [i]
        while self.parent[up[-1]] >= 0:
            up.append(int(self.parent[up[-1]]))
        down, frontier = [], np.array([i])
        while len(frontier):
            frontier = np.flatnonzero(np.isin(self.parent, frontier))
            down.extend(frontier.tolist())
        return np.array(sorted(set(up) | set(down)), np.int64)

    def find(self, task_id):
        """The index of the task whose id is `task_id` (an int), or a ValueError."""
        bits = task_id % (1 << 64)
        hit = np.flatnonzero(self.ids == (bits - (1 << 64) if bits >= 1 << 63 else bits))
        if not len(hit):
            raise ValueError(f"no task {task_id}")
        return int(hit[0])

    def states_of(self, chosen):
        """A mask over the trace's states: those of the tasks `chosen` (their pieces and
        the states nested in them that are not another task's)."""
        return np.isin(self.task_of, np.asarray(chosen)) & (self.task_of >= 0)

    def id_text(self, i):
        return str(int(self.ids[i]) % (1 << 64))

    COLUMNS = ("guid", "parent", "region", "container", "start", "end", "busy", "pieces",
               "depth")

    def write_csv(self, path, trace, chosen=None):
        """A row per task (or per task `chosen`): COLUMNS, the parent's GUID as traced
        (its task may be missing), times in the trace's unit."""
        import csv

        from ..output import writing
        rows = range(len(self)) if chosen is None else np.asarray(chosen).tolist()
        name = trace.names.display
        with writing(path, newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(self.COLUMNS)
            for i in rows:
                w.writerow([self.id_text(i), int(self.parent_ids[i]) % (1 << 64),
                            name(trace.values.name[self.value[i]]),
                            name(trace.containers.name[self.container[i]]),
                            repr(float(self.start[i])), repr(float(self.end[i])),
                            repr(float(self.busy[i])), int(self.pieces[i]), int(self.depth[i])])


def tasks(trace, guid=GUID, parent=PARENT):
    """The tasks of `trace`'s states whose user-defined field `guid` names their task
    (and `parent` their parent's); a TraceError where the states carry no such field."""
    from ..trace import depth_of
    from .timeslice import nesting_parents
    st = trace.states
    if guid not in st.extra:
        raise TraceError(trace.source, None, f"no state has a {guid!r} field: not a task "
                                             "trace (APEX writes one per task)")
    texts = trace.names.__getitem__
    try:
        g = numbers(texts, st.extra[guid], guid)
        p = numbers(texts, st.extra[parent], parent) if parent in st.extra else \
            np.full(len(g), -1)
    except ValueError as e:
        raise TraceError(trace.source, None, f"a state's {e}") from None
    pc = group(g, p, st.start)
    first = pc.order[pc.offsets[:-1]]
    own = st.end - st.start  # a piece's time, less the pieces of other tasks nested in it
    task_of = pc.task.copy()
    if len(st) and st.imbrication.max() > 0:
        up = nesting_parents(trace)
        other = np.flatnonzero((g != -1) & (up >= 0))
        other = other[(g[up[other]] != -1) & (g[up[other]] != g[other])]
        own = own - np.bincount(up[other], weights=own[other], minlength=len(st))
        for d in range(1, int(st.imbrication.max()) + 1):  # a task's own nested work
            r = np.flatnonzero((st.imbrication == d) & (task_of < 0) & (up >= 0))
            task_of[r] = task_of[up[r]]
    busy = np.add.reduceat(own[pc.order], pc.offsets[:-1]) if len(first) else np.zeros(0)
    last_end = np.maximum.reduceat(st.end[pc.order], pc.offsets[:-1]) if len(first) \
        else np.zeros(0)
    return Tasks(pc.ids, pc.parent_ids, pc.parent, st.value[first].astype(np.int64),
                 st.container[first].astype(np.int64), st.start[first], last_end, busy,
                 np.diff(pc.offsets), depth_of(pc.parent), pc.order, pc.offsets, task_of)


def dependency_links(trace, ids):
    """A mask over `trace`'s links: the task dependencies into the tasks `ids` (their
    field `Task`, the child's GUID, as the OTF2 reader writes it)."""
    ln = trace.links
    if "Task" not in ln.extra:
        return np.zeros(len(ln), bool)
    codes = ln.extra["Task"]
    child = numbers(trace.names.__getitem__, codes, "Task")
    return (codes >= 0) & np.isin(child, ids)


@dataclass
class Gantt:
    """Traveler's aggregated Gantt (section 4.2, Fig. 3): a bar per subtree instance of
    the execution tree at `depth` (a task there and its descendants), from its first
    start to its last end, packed greedily into rows (each bar in the lowest row free
    at its start); `counts` how many containers run the subtree's tasks over time
    (the deepest state counted: each container once)."""
    depth: int
    root: np.ndarray
    start: np.ndarray
    end: np.ndarray
    row: np.ndarray
    counts: object

    def __len__(self):
        return len(self.root)

    def use(self, edges):
        """(bins, bars) mean containers busy in each bar's subtree between `edges`."""
        return self.counts.means(edges)


def gantt(tk, trace, depth=1):
    """The Gantt of Tasks `tk` of `trace` at `depth` of the execution tree (roots whose
    tree is shallower give no bar)."""
    from .overview import Counts
    from .timeslice import nesting_parents
    if depth < 0:
        raise ValueError("a depth of the execution tree is 0 or more")
    anc, d = np.arange(len(tk)), tk.depth.copy()
    while (d > depth).any():
        deep = d > depth
        anc[deep] = tk.parent[anc[deep]]
        d[deep] -= 1
    roots = np.flatnonzero(tk.depth == depth)
    bar = np.full(len(tk), -1, np.int64)
    bar[roots] = np.arange(len(roots))
    bar = np.where(tk.depth >= depth, bar[anc], -1)
    inside = bar >= 0
    start = np.full(len(roots), np.inf)
    end = np.full(len(roots), -np.inf)
    np.minimum.at(start, bar[inside], tk.start[inside])
    np.maximum.at(end, bar[inside], tk.end[inside])
    row, ends = np.zeros(len(roots), np.int64), []
    for i in np.argsort(start, kind="stable").tolist():  # first fit: the lowest free row
        r = next((k for k, e in enumerate(ends) if e <= start[i]), len(ends))
        if r == len(ends):
            ends.append(end[i])
        ends[r] = end[i]
        row[i] = r
    st = trace.states
    of = np.where(tk.task_of >= 0, bar[np.maximum(tk.task_of, 0)], -1).astype(np.int32)
    pcol = np.full(len(st), -1, np.int32)
    if len(st) and st.imbrication.max() > 0:
        up = nesting_parents(trace)
        pcol[up >= 0] = of[up[up >= 0]]
    return Gantt(depth, roots, start, end, row,
                 Counts(of, pcol, st.start, st.end, len(roots)))
