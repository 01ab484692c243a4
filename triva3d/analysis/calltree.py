"""Calling-context trees from nested states (CallFlow's input): a trace with nested
regions (OTF2 Enter/Leave, Pajé Push/Pop) holds the call path of every state, the
chain of the values of the states it is nested in, root first (recursion keeps its
depth: main;f;f is not main;f).

`calltree(trace, window, containers)` sums, per container and call path, the calls
(states overlapping the window), the inclusive time (each state clipped to the
window) and the exclusive time (its inclusive time less that of the states nested
in it); `CallTree.merged(how)` aggregates over the containers (sum, mean, min,
max), the per-container rows staying as the distribution. A path is a row of
`paths` (parent path, value); `CallTree.text(path)` folds it as "main;A;B".
"""
import csv
from dataclasses import dataclass

import numpy as np
from numba import njit, types
from numba.typed import Dict

from ..errors import OptionsError
from ..output import writing
from ..trace import Kind
from . import FUNCTIONS
from .timeslice import nesting_parents


def _fold(trace, parent, value, path, sep):
    """Path `path` of a paths table (`parent`, `value`) folded root first."""
    out = []
    while path >= 0:
        out.append(trace.display_name("values", int(value[path])))
        path = int(parent[path])
    return sep.join(reversed(out))


def _find(trace, parent, value, text, sep):
    """The row of a paths table (`parent`, `value`) folded as `text` ("main;A;B");
    OptionsError if there is none."""
    at = -1
    for name in (n.strip() for n in text.split(sep)):
        hit = np.flatnonzero((parent == at) & np.isin(value, trace.find("values", name)))
        if not len(hit):
            raise OptionsError(f"{trace.source}: no call path {text!r}")
        at = int(hit[0])
    return at


@dataclass
class CallTree:
    """Per (container, path): `container`, `path` (rows of the paths table),
    `calls`, `inclusive`, `exclusive` (seconds in the window), sorted by container
    then path; the paths table: `path_parent` (-1: a root), `path_value` (value
    code), `path_depth`; `flat` when no state is nested in another."""
    trace: object
    container: np.ndarray
    path: np.ndarray
    calls: np.ndarray
    inclusive: np.ndarray
    exclusive: np.ndarray
    path_parent: np.ndarray
    path_value: np.ndarray
    path_depth: np.ndarray
    window: tuple
    flat: bool

    def __len__(self):
        return len(self.container)

    def text(self, path, sep=";"):
        """Path `path` folded root first: "main;A;B"."""
        return _fold(self.trace, self.path_parent, self.path_value, path, sep)

    def find(self, text, sep=";"):
        """The path folded as `text` ("main;A;B"); OptionsError if there is none."""
        return _find(self.trace, self.path_parent, self.path_value, text, sep)

    def distribution(self, path, what="inclusive"):
        """(containers, values): each container holding call path `path` and its
        `what` (calls, inclusive or exclusive) there, the spread across the ranks
        (CallFlow section 7.2)."""
        mine = self.path == path
        return self.container[mine], getattr(self, what)[mine].astype(np.float64)

    def merged(self, how="sum"):
        """(paths, calls, inclusive, exclusive) over all containers, aggregated
        with `how` (sum, mean, min, max) over the containers holding each path."""
        if how not in FUNCTIONS:
            raise OptionsError(f"aggregation must be one of {', '.join(FUNCTIONS)}, "
                               f"not {how!r}")
        paths, inv = np.unique(self.path, return_inverse=True)
        out = []
        for col in (self.calls.astype(np.float64), self.inclusive, self.exclusive):
            if how in ("sum", "mean"):
                v = np.bincount(inv, weights=col, minlength=len(paths))
                if how == "mean":
                    v = v / np.bincount(inv, minlength=len(paths))
            else:
                v = np.full(len(paths), -np.inf if how == "max" else np.inf)
                (np.maximum if how == "max" else np.minimum).at(v, inv, col)
            out.append(v)
        return (paths, *out)

    def write_csv(self, path):
        """`container,path,calls,inclusive,exclusive,unit`, a row per (container,
        path), times in the trace's unit."""
        name, unit = self.trace.display_name, self.trace.unit()
        texts = {}
        with writing(path, newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["container", "path", "calls", "inclusive", "exclusive", "unit"])
            for c, p, n, inc, exc in zip(self.container.tolist(), self.path.tolist(),
                                         self.calls.tolist(), self.inclusive.tolist(),
                                         self.exclusive.tolist()):
                if p not in texts:
                    texts[p] = self.text(p)
                w.writerow([name("containers", c), texts[p], n, repr(inc), repr(exc), unit])

    def write_folded(self, path):
        """The folded stacks flame-graph tools and speedscope read: "main;A;B N" per
        path, N its exclusive time summed over the containers in microseconds (in
        cycles where the trace's times are), rounded; paths of none left out."""
        from ..units import SECONDS
        paths, _, _, exc = self.merged("sum")  # (in the trace's unit: ms for StarPU)
        n = np.rint(exc * (SECONDS.get(self.trace.time_unit, 1e-6) / 1e-6)).astype(np.int64)
        with writing(path) as f:
            for p, k in zip(paths.tolist(), n.tolist()):
                if k > 0:
                    f.write(f"{self.text(p)} {k}\n")

    def to_hatchet(self):
        """The tree as a Hatchet GraphFrame (llnl-hatchet, the optional extra
        `triva3d[hatchet]`): a node per call path (its `name`), a row per (node,
        rank), rank the container's row, with its `container` name, `calls`, `time
        (inc)` and `time` (exclusive) in the trace's unit."""
        try:
            import hatchet
            import pandas
            from hatchet.frame import Frame
            from hatchet.graph import Graph
            from hatchet.node import Node
        except ImportError:
            raise OptionsError("a Hatchet GraphFrame needs llnl-hatchet: pip install "
                               "'triva3d[hatchet]'") from None
        used = np.unique(self.path)
        nodes, roots = {}, []
        for p in used[np.argsort(self.path_depth[used], kind="stable")].tolist():
            up = nodes.get(int(self.path_parent[p]))
            name = self.trace.display_name("values", int(self.path_value[p]))
            node = Node(Frame({"name": name, "type": "function"}), up, hnid=p,
                        depth=int(self.path_depth[p]))
            (roots if up is None else up.children).append(node)
            nodes[p] = node
        graph = Graph(roots)
        graph.enumerate_traverse()
        rows = pandas.DataFrame({
            "node": [nodes[p] for p in self.path.tolist()], "rank": self.container,
            "name": [nodes[p].frame["name"] for p in self.path.tolist()],
            "container": [self.trace.display_name("containers", int(c))
                          for c in self.container.tolist()],
            "calls": self.calls, "time (inc)": self.inclusive, "time": self.exclusive})
        return hatchet.GraphFrame(graph, rows.set_index(["node", "rank"]), ["time"],
                                  ["time (inc)"])

    def summary(self):
        used = np.unique(self.path)  # (a window's: those met in it)
        deep = int(self.path_depth[used].max(initial=-1)) + 1
        return (f"{len(used)} call paths, {deep} deep, on "
                f"{len(np.unique(self.container))} containers"
                + (" (no state is nested in another: a flat tree)" if self.flat else ""))


class CallPaths:
    """The call path of every state of `trace`: `path` per state (a row of the paths
    table: `parent_path`, `value`, `depth`, numbered level by level in the order of
    (parent path, value)), `parent` the state each is nested in; `flat` when none
    is nested."""

    def __init__(self, trace):
        st = trace.states
        self.trace = trace
        self.flat = not (len(st) > 0 and st.imbrication.max() > 0)
        self.parent = (np.full(len(st), -1, np.int64) if self.flat
                       else nesting_parents(trace))
        nv = len(trace.values) + 1
        path, up, value, depth = _paths(self.parent, st.value, st.imbrication, nv,
                                        int(st.imbrication.max(initial=0)))
        # number the paths level by level in the order of (parent path, value)
        rank = np.empty(len(value), np.int64)
        n, order = 0, []
        for d in range(int(depth.max(initial=-1)) + 1):
            level = np.flatnonzero(depth == d)
            up_rank = np.where(up[level] >= 0, rank[np.maximum(up[level], 0)], -1)
            level = level[np.lexsort((value[level], up_rank))]
            rank[level] = n + np.arange(len(level))
            n += len(level)
            order.append(level)
        order = np.concatenate(order) if order else np.zeros(0, np.int64)
        self.path = rank[path]
        self.parent_path = np.where(up >= 0, rank[np.maximum(up, 0)], -1)[order]
        self.value, self.depth = value[order], depth[order]

    def find(self, text, sep=";"):
        """The path folded as `text` ("main;A;B"); OptionsError if no state has it."""
        return _find(self.trace, self.parent_path, self.value, text, sep)

    def text(self, path, sep=";"):
        """Path `path` folded root first: "main;A;B"."""
        return _fold(self.trace, self.parent_path, self.value, path, sep)

    def within(self, path):
        """Mask over the states: those on `path` or called from it (its subtree)."""
        inside = np.zeros(len(self.value), bool)
        inside[path] = True
        for d in range(int(self.depth[path]) + 1, int(self.depth.max(initial=0)) + 1):
            at = np.flatnonzero(self.depth == d)
            inside[at] = inside[self.parent_path[at]]
        return inside[self.path]


def calltree(trace, window=None, containers=None, paths=None):
    """The CallTree of `trace` within `window` (t0, t1; None: all of it), over the
    `containers` named (with their subtrees; None: all); `paths`: the trace's
    CallPaths, when made already."""
    st = trace.states
    t0, t1 = window if window is not None else (trace.start_time, trace.end_time)
    if t1 < t0:
        raise OptionsError(f"time window {t0:g}:{t1:g} ends before it starts")
    keep = (st.end >= t0) & (st.start <= t1) & (trace.types.kind[st.type] == Kind.STATE)
    if containers is not None:
        rows = [r for name in containers for r in trace.find("containers", name).tolist()]
        if not rows:
            raise OptionsError(f"{trace.source}: no container named "
                               f"{', '.join(map(repr, containers))}")
        keep &= trace.subtree(rows)[st.container]
    paths = paths if paths is not None else CallPaths(trace)
    n_paths = max(len(paths.value), 1)
    cont, path, calls, inc, exc = _sums(st.container, paths.path, paths.parent, st.start,
                                        st.end, float(t0), float(t1), keep, n_paths)
    order = np.lexsort((path, cont))
    return CallTree(trace, cont[order], path[order], calls[order], inc[order], exc[order],
                    paths.parent_path, paths.value, paths.depth, (float(t0), float(t1)),
                    paths.flat)


@njit(cache=True)
def _paths(parent, value, depth, nv, deepest):
    """Per state its call path, interned level by level: (path per state, and per
    path its parent path, value and depth), paths numbered as first met."""
    n = len(parent)
    path = np.empty(n, np.int64)
    table = Dict.empty(key_type=types.int64, value_type=types.int64)
    up_of, value_of, depth_of = [np.int64(0)][:0], [np.int64(0)][:0], [np.int64(0)][:0]
    for d in range(deepest + 1):
        for i in range(n):
            if depth[i] != d:
                continue
            up = path[parent[i]] if parent[i] >= 0 else -1
            key = (up + 1) * nv + value[i]
            if key in table:
                k = table[key]
            else:
                k = len(table)
                table[key] = k
                up_of.append(up)
                value_of.append(value[i])
                depth_of.append(d)
            path[i] = k
    return (path, np.array(up_of, np.int64), np.array(value_of, np.int64),
            np.array(depth_of, np.int64))


@njit(cache=True)
def _sums(container, path, parent, start, end, t0, t1, keep, n_paths):
    """Per (container, path) of the `keep` states: (container, path, calls,
    inclusive, exclusive), each state clipped to [t0, t1], less its children's."""
    n = len(path)
    sub = np.zeros(n)  # the clipped time of each state's children
    for i in range(n):
        if keep[i] and parent[i] >= 0:
            sub[parent[i]] += min(end[i], t1) - max(start[i], t0)
    table = Dict.empty(key_type=types.int64, value_type=types.int64)
    cont_of, path_of = [np.int64(0)][:0], [np.int64(0)][:0]
    sums = np.zeros((64, 3))
    for i in range(n):
        if not keep[i]:
            continue
        key = container[i] * n_paths + path[i]
        if key in table:
            k = table[key]
        else:
            k = len(table)
            table[key] = k
            cont_of.append(container[i])
            path_of.append(path[i])
            if k >= len(sums):
                grown = np.zeros((2 * len(sums), 3))
                grown[:len(sums)] = sums
                sums = grown
        inc = min(end[i], t1) - max(start[i], t0)
        sums[k, 0] += 1.0
        sums[k, 1] += inc
        sums[k, 2] += max(inc - sub[i], 0.0)
    m = len(table)
    return (np.array(cont_of, np.int64), np.array(path_of, np.int64),
            sums[:m, 0].astype(np.int64), sums[:m, 1].copy(), sums[:m, 2].copy())
