"""Tasks of asynchronous many-task runs (Traveler): pieces of execution that share a
task id (APEX writes HPX's `GUID` and `Parent GUID` as OTF2 attributes on Enter and
Leave) are one task, suspended and resumed, maybe on another thread; a task depends
on its parent. Plain arrays in, columns out: the OTF2 reader draws the dependencies
as links, and `tasks(trace)` answers the execution-tree queries.
"""
from dataclasses import dataclass

import numpy as np

from ..errors import OptionsError, TraceError
from ..kernels import lazy
from ..trace import Kind

#: The user-defined fields naming a piece's task and its parent (APEX's attributes).
GUID, PARENT = "GUID", "Parent GUID"


def numbers(texts, codes, what):
    """The integers written in the names `codes` as int64 bits (a uint64 above 2^63
    wraps), and a mask of those given (a code -1, an empty name or Pajé's `""` is
    none); a ValueError naming `what` for a name that is no 64-bit integer."""
    codes = np.asarray(codes, np.int64)
    uniq, inv = np.unique(codes, return_inverse=True)
    out = np.zeros(len(uniq), np.int64)
    given = np.zeros(len(uniq), bool)
    for i, c in enumerate(uniq.tolist()):
        text = texts(c).strip() if c >= 0 else ""
        if text in ("", '""'):
            continue
        try:
            v = int(text)
        except ValueError:
            raise ValueError(f"{what} {text!r} is not an integer") from None
        if not -(1 << 63) <= v < 1 << 64:
            raise ValueError(f"{what} {text} does not fit 64 bits")
        out[i], given[i] = (v - (1 << 64) if v >= 1 << 63 else v), True
    inv = inv.reshape(-1)
    return out[inv], given[inv]


@dataclass
class Pieces:
    """Pieces (states) grouped into tasks: `task` of each piece (-1: none); per task
    its id, parent id (`has_parent`: given), the index of its parent task (-1: not in
    the trace), its pieces in time order (`order`, `offsets`)."""
    task: np.ndarray
    ids: np.ndarray
    parent_ids: np.ndarray
    has_parent: np.ndarray
    parent: np.ndarray
    order: np.ndarray
    offsets: np.ndarray


def group(guid, is_piece, parent_guid, has_parent, start):
    """Group the pieces `is_piece` by task id `guid`; a task's parent id is its first
    piece's."""
    piece = np.flatnonzero(is_piece)
    unsigned, task = np.unique(guid[piece].view(np.uint64), return_inverse=True)
    ids, task = unsigned.view(np.int64), task.reshape(-1)  # in the ids' unsigned order
    order = piece[np.lexsort((start[piece], task))]
    offsets = np.searchsorted(np.sort(task), np.arange(len(ids) + 1))
    first = order[offsets[:-1]]
    parent_ids, given = parent_guid[first], has_parent[first]
    at = np.minimum(np.searchsorted(unsigned, parent_ids.view(np.uint64)),
                    max(len(ids) - 1, 0))
    known = given & (ids[at] == parent_ids) if len(ids) else np.zeros(0, bool)
    full = np.full(len(guid), -1, np.int64)
    full[piece] = task
    return Pieces(full, ids, parent_ids, given, np.where(known, at, -1).astype(np.int64),
                  order, offsets)


@lazy(cache=True)
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
    """A trace's tasks: per task its id, parent id (`has_parent`: one given), parent
    task (-1: not in the trace), region (value code), first container, first start,
    last end, time running (the instants its states are the deepest on their
    container), pieces (states of the task not nested in another of its states), and
    depth in the execution tree; `piece_rows` (state rows in task order) and `offsets`
    give each task's pieces."""
    ids: np.ndarray
    parent_ids: np.ndarray
    has_parent: np.ndarray
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

    def running(self, states):
        """The tasks (indices, sorted) that the states of mask `states` belong to."""
        of = self.task_of[states]
        return np.unique(of[of >= 0])

    def id_text(self, i):
        return str(int(self.ids[i]) % (1 << 64))

    COLUMNS = ("guid", "parent", "region", "container", "start", "end", "busy", "pieces",
               "depth", "unit")

    def write_csv(self, path, trace, chosen=None):
        """A row per task (or per task `chosen`): COLUMNS, the parent's GUID as traced
        (its task may be missing; empty where none is given), times in the trace's
        unit."""
        import csv

        from ..output import writing
        rows = range(len(self)) if chosen is None else np.asarray(chosen).tolist()
        name = trace.names.display
        with writing(path, newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(self.COLUMNS)
            for i in rows:
                w.writerow([self.id_text(i), int(self.parent_ids[i]) % (1 << 64)
                            if self.has_parent[i] else "",
                            name(trace.values.name[self.value[i]]),
                            name(trace.containers.name[self.container[i]]),
                            repr(float(self.start[i])), repr(float(self.end[i])),
                            repr(float(self.busy[i])), int(self.pieces[i]), int(self.depth[i]),
                            trace.unit()])


def _field(st, name):
    """The states' field `name`, or its Pajé spelling (paje.writer.field_name: a
    converted trace's "Parent_GUID"), or None."""
    from ..paje.writer import field_name
    for k in (name, field_name(name)):
        if k in st.extra:
            return st.extra[k]
    return None


def tasks(trace, guid=GUID, parent=PARENT):
    """The tasks of `trace`'s states whose user-defined field `guid` names their task
    (and `parent` their parent's); a TraceError where the states carry no such field,
    or the parents form a cycle."""
    from ..trace import depth_of
    from .timeslice import nesting_parents
    st = trace.states
    g_codes, p_codes = _field(st, guid), _field(st, parent)
    if g_codes is None:
        raise TraceError(trace.source, None, f"no state has a {guid!r} field: not a task "
                                             "trace (APEX writes one per task)")
    if p_codes is None:
        raise TraceError(trace.source, None, f"the states have a {guid!r} field but no "
                                             f"{parent!r} field naming their parents")
    texts = trace.names.__getitem__
    try:
        g, has_g = numbers(texts, g_codes, guid)
        p, has_p = numbers(texts, p_codes, parent)
    except ValueError as e:
        raise TraceError(trace.source, None, f"a state's {e}") from None
    nested = len(st) and st.imbrication.max() > 0
    up = nesting_parents(trace) if nested else np.full(len(st), -1, np.int64)
    # a piece: a state of a task not nested in a state of the same task, however deep
    # (APEX names every timer a task runs by the task's GUID)
    inner = _task_depth(up, g, has_g, np.argsort(st.imbrication, kind="stable"))[0] > 0
    pc = group(g, has_g & ~inner, p, has_p, st.start)
    task_of = pc.task.copy()
    if inner.any():  # a task's own timers: its task (a piece of it lies above them)
        at = np.searchsorted(pc.ids.view(np.uint64), g[inner].view(np.uint64))
        task_of[inner] = at
    if nested:  # the task of each state: its own, else that of the state it is in
        for d in range(1, int(st.imbrication.max()) + 1):
            r = np.flatnonzero((st.imbrication == d) & (task_of < 0) & (up >= 0))
            task_of[r] = task_of[up[r]]
    own = st.end - st.start  # each instant to the deepest state's task
    if nested:
        has = np.flatnonzero(up >= 0)
        own = own - np.bincount(up[has], weights=own[has], minlength=len(st))
    mine = task_of >= 0
    busy = np.bincount(task_of[mine], weights=own[mine], minlength=len(pc.ids))
    first = pc.order[pc.offsets[:-1]]
    last_end = np.maximum.reduceat(st.end[pc.order], pc.offsets[:-1]) if len(first) \
        else np.zeros(0)
    try:
        depth = depth_of(pc.parent)
    except ValueError:
        raise TraceError(trace.source, None, "task parents form a cycle (a task its own "
                                             "ancestor)") from None
    return Tasks(pc.ids, pc.parent_ids, pc.has_parent, pc.parent,
                 st.value[first].astype(np.int64), st.container[first].astype(np.int64),
                 st.start[first], last_end, busy, np.diff(pc.offsets), depth, pc.order,
                 pc.offsets, task_of)


def dependency_links(trace, ids):
    """A mask over `trace`'s links: the task dependencies into the tasks `ids` (their
    field `Task`, the child's GUID, as the OTF2 reader writes it)."""
    ln = trace.links
    if "Task" not in ln.extra:
        return np.zeros(len(ln), bool)
    child, given = numbers(trace.names.__getitem__, ln.extra["Task"], "Task")
    return given & np.isin(child, ids)


@dataclass
class Gantt:
    """Traveler's aggregated Gantt (section 4.2, Fig. 3): a bar per subtree instance of
    the execution tree at `depth` (a task there and its descendants), from its first
    start to its last end, packed greedily into rows (each bar in the lowest row free
    at its start); `counts` how many containers run the subtree's tasks over time
    (the deepest state counted: each container once), `chosen` the same for chosen
    states alone (brushed intervals, say: the instants a container's deepest state is
    one of them) and `holds` the bars holding one; None where none is chosen;
    `workers` how many containers run tasks at all."""
    depth: int
    root: np.ndarray
    start: np.ndarray
    end: np.ndarray
    row: np.ndarray
    counts: object
    workers: int = 0
    chosen: object = None
    holds: np.ndarray = None

    def __len__(self):
        return len(self.root)

    def use(self, edges):
        """(bins, bars) mean containers busy in each bar's subtree between `edges`."""
        return self.counts.means(edges)

    def chosen_use(self, edges):
        """(bins, bars) the same for the chosen states alone (None: none chosen)."""
        return None if self.chosen is None else self.chosen.means(edges)


def gantt(tk, trace, depth=1, states=None):
    """The Gantt of Tasks `tk` of `trace` at `depth` of the execution tree (roots whose
    tree is shallower give no bar); `states`, a mask over the trace's states (brushed
    intervals, say), adds their utilization and the bars that hold one (`holds`)."""
    from .overview import Counts
    from .timeslice import nesting_parents
    deepest = int(tk.depth.max(initial=-1))
    if not 0 <= depth <= deepest:
        raise OptionsError(f"no task at depth {depth}: the execution tree's depths are "
                           f"0 to {deepest}")
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
    up = nesting_parents(trace) if len(st) and st.imbrication.max() > 0 else None
    if up is not None:
        pcol[up >= 0] = of[up[up >= 0]]
    workers = len(np.unique(st.container[tk.task_of >= 0]))
    g = Gantt(depth, roots, start, end, row, Counts(of, pcol, st.start, st.end, len(roots)),
              workers)
    if states is not None:  # as analysis.overview: a chosen state's time less that of
        ccol = np.where(states, of, -1).astype(np.int32)  # the states in it
        cpcol = np.full(len(st), -1, np.int32)
        if up is not None:
            keep = (up >= 0) & states[np.maximum(up, 0)]
            cpcol[keep] = of[up[keep]]
        g.chosen = Counts(ccol, cpcol, st.start, st.end, len(roots))
        g.holds = np.bincount(of[states & (of >= 0)], minlength=len(roots)) > 0
    return g


#: The container type of a trace cut by task (task_trace), and its states' field
#: naming the container (thread) that ran each.
TASK_TYPE, WORKER = "Task", "Worker"


def task_trace(trace, tk=None):
    """`trace` cut by task (Traveler's execution tree as a base): one container per
    task (type TASK_TYPE, named by its region and GUID, under the root, parents before
    children: by depth, then start), holding its states (its pieces and what they
    nest that is no other task's, the thread that ran each in field WORKER), and a
    link `Task dependency` from each parent to each child, from the parent's piece
    that ran last before the child began; the other entities are left out (notes)."""
    from ..trace import Trace
    from .timeslice import nesting_parents
    tk = tasks(trace) if tk is None else tk
    if not len(tk):
        raise TraceError(trace.source, None, "no state names a task: nothing to cut by task")
    st, ty, cont, vals = trace.states, trace.types, trace.containers, trace.values
    rows = np.flatnonzero(tk.task_of >= 0)
    order = np.lexsort((tk.start, tk.depth))
    box = np.empty(len(tk), np.int64)
    box[order] = 1 + np.arange(len(tk))
    nested = len(st) and st.imbrication.max() > 0
    up = nesting_parents(trace) if nested else np.full(len(st), -1, np.int64)
    imb, inside = _task_depth(up, tk.task_of, tk.task_of >= 0,
                              np.argsort(st.imbrication, kind="stable"))
    sort = rows[np.lexsort((imb[rows], st.start[rows], box[tk.task_of[rows]]))]
    # types: the root, Task, the states' types, the dependency link type
    stypes = np.unique(st.type[rows])
    new_type = np.full(len(ty), -1, np.int64)
    new_type[stypes] = 2 + np.arange(len(stypes))
    link_type = 2 + len(stypes)
    region = trace.names.displays(vals.name[tk.value])
    names, first = trace.names.extended(
        [TASK_TYPE, "Task dependency", "dependency"] +
        [f"{r} {tk.id_text(i)}" for i, r in enumerate(region)])
    types = {"kind": np.r_[ty.kind[0], Kind.CONTAINER, ty.kind[stypes], Kind.LINK],
             "parent": np.r_[-1, 0, np.ones(len(stypes)), 0],
             "name": np.r_[ty.name[0], first, ty.name[stypes], first + 1],
             "alias": np.r_[ty.alias[0], -1, ty.alias[stypes], -1],
             "start_type": np.r_[-1, -1, np.full(len(stypes), -1), 1],
             "end_type": np.r_[-1, -1, np.full(len(stypes), -1), 1]}
    kept_vals = np.flatnonzero(np.isin(vals.type, stypes))
    new_val = np.full(len(vals), -1, np.int64)
    new_val[kept_vals] = np.arange(len(kept_vals))
    values = {"type": np.r_[new_type[vals.type[kept_vals]], link_type],
              "name": np.r_[vals.name[kept_vals], first + 2],
              "alias": np.r_[vals.alias[kept_vals], -1]}
    containers = {"parent": np.r_[-1, np.zeros(len(tk))], "type": np.r_[0, np.ones(len(tk))],
                  "name": np.r_[cont.name[0], first + 3 + order],
                  "alias": np.full(1 + len(tk), -1),
                  "start": np.r_[cont.start[0], tk.start[order]],
                  "end": np.r_[cont.end[0], tk.end[order]]}
    states = {"container": box[tk.task_of[sort]], "type": new_type[st.type[sort]],
              "value": new_val[st.value[sort]], "start": st.start[sort],
              "end": st.end[sort], "imbrication": imb[sort]}
    _, when = _spawned_from(tk.offsets, tk.piece_rows, st.start, st.end, tk.parent, tk.start)
    child = np.flatnonzero(tk.parent >= 0)
    child = child[np.argsort(when[child], kind="stable")]
    links = {"container": np.zeros(len(child)), "type": np.full(len(child), link_type),
             "value": np.full(len(child), len(kept_vals)),
             "start_container": box[tk.parent[child]], "end_container": box[child],
             "start": when[child], "end": tk.start[child], "key": np.full(len(child), -1)}
    none = {"variables": {c: np.zeros(0) for c in ("container", "type", "start", "end",
                                                   "value")},
            "events": {c: np.zeros(0) for c in ("container", "type", "value", "time")}}
    extra = {"states": {**{f: v[sort] for f, v in st.extra.items()},
                        WORKER: cont.name[st.container[sort]]}}
    if GUID in st.extra:  # the child of each dependency, as the OTF2 reader names it
        extra["links"] = {"Task": st.extra[GUID][tk.piece_rows[tk.offsets[child]]]}
    deps = np.isin(trace.links.type, trace.find("types", "Task dependency"))
    left = [(len(st) - len(rows), "states of no task"),
            (int((~deps).sum()), "messages"),
            (len(trace.variables), "variable pieces"), (len(trace.events), "events")]
    notes = [f"by task: {len(tk)} tasks as containers, {len(child)} dependencies"] + [
        f"by task: {n} {what} left out" for n, what in left if n]
    if inside.any():  # (a task's piece spans what it ran: the thread's nesting)
        notes.append(f"by task: {int(inside.sum())} pieces of tasks ran nested in another "
                     f"task's piece, whose column counts their time too")
    twice = _overlapping(tk.piece_rows, tk.offsets, st.start, st.end)
    if twice:
        notes.append(f"by task: {twice} pieces overlap another piece of their task (run on "
                     "two threads at once), drawn over each other")
    colors = np.full((1, 4), np.nan, np.float32)
    return Trace.from_columns(
        names, {"types": types, "values": values, "containers": containers,
                "states": states, "links": links, **none}, extra=extra,
        type_colors=np.r_[trace.type_colors[[0]], colors, trace.type_colors[stypes], colors],
        value_colors=np.r_[trace.value_colors[kept_vals], colors], source=trace.source,
        time_unit=trace.time_unit, unit_note=trace.unit_note, report=trace.report,
        other_records=trace.other_records,
        notes=trace.notes[bool(trace.unit_note):] + notes)


@lazy(cache=True)
def _task_depth(up, key, has, by_depth):
    """Per state, its depth among the states of its own task (those of the same `key`,
    where `has` one, it is nested in, however many other states lie between), and
    whether it is a state of a task nested in no state of its own but in another
    state; `by_depth`: the states, shallowest first (`up`: the state each is in)."""
    depth = np.zeros(len(up), np.int64)
    inside = np.zeros(len(up), np.bool_)
    for r in by_depth:
        if not has[r]:
            continue
        a = up[r]
        while a >= 0 and not (has[a] and key[a] == key[r]):
            a = up[a]
        if a >= 0:
            depth[r] = depth[a] + 1
        elif up[r] >= 0:
            inside[r] = True
    return depth, inside


@lazy(cache=True)
def _overlapping(piece_rows, offsets, start, end):
    """How many pieces (in time order per task) start before an earlier piece of
    their task has ended."""
    n = 0
    for t in range(len(offsets) - 1):
        last = -np.inf
        for k in range(offsets[t], offsets[t + 1]):
            r = piece_rows[k]
            if start[r] < last:
                n += 1
            last = max(last, end[r])
    return n
