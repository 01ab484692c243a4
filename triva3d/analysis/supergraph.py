"""CallFlow's super graph (Nguyen et al., section 6): the calling-context tree of a
CallTree seen by module. Each region belongs to a module: a CSV `region,module`,
else its OTF2 paradigm (MPI, OPENMP, COMPILER...), else its state type (Pajé). A
module's run along a call path (the regions of one module called one from
another) is one visit of its super node; the region that starts a run is an
entry function of the module.

- a node's inclusive time is that of its visits that no outer visit of the same
  node holds (recursion through other modules is not counted twice), its
  exclusive time that of all its regions, its calls those of its entry regions;
- an edge A -> B weighs the inclusive time of B's visits called from A that its
  inclusive time counts (so no edge into a node is wider than the node);
- `split` "entry" makes a node per (module, entry function), "callers" a node per
  (module, calling module);
- nodes under `threshold` of the total inclusive time are left out, and
  summarized (how many, their exclusive time), not lost: their edges go to a node
  "(left out)" whose inclusive time is what flows into it.
"""
import csv
from dataclasses import dataclass

import numpy as np

from ..errors import OptionsError, TraceError, read_text
from ..output import writing
from . import SPLITS
LEFT_OUT = "(left out)"


def read_modules(path):
    """{region: module} from a CSV `region,module` (a header line of those words is
    skipped)."""
    out = {}
    for i, row in enumerate(csv.reader(read_text(path, "the modules").splitlines()), 1):
        if not row or (i == 1 and [c.strip().lower() for c in row] == ["region", "module"]):
            continue
        if len(row) != 2 or not row[0].strip() or not row[1].strip():
            raise TraceError(path, i, "a module line is REGION,MODULE")
        out[row[0].strip()] = row[1].strip()
    return out


def module_of_values(trace, mapping=None):
    """Per value code of `trace`, its module's name: `mapping` {region: module}
    (regions not in it keep their own name), else the OTF2 paradigm of its states,
    else its type's name."""
    name = lambda v: trace.display_name("values", int(v))  # noqa: E731
    if mapping is not None:
        return [mapping.get(name(v), name(v)) for v in range(len(trace.values))]
    st = trace.states
    out = [trace.display_name("types", int(t)) for t in trace.values.type]
    paradigm = st.extra.get("paradigm")
    if paradigm is not None and len(st):
        first = np.unique(st.value, return_index=True)
        for v, row in zip(*first):
            code = int(paradigm[row])
            if code >= 0:
                out[int(v)] = trace.names.display(code)
    return out


@dataclass
class SuperGraph:
    """Nodes (`names`, `module`, `entries` (entry functions), `calls`,
    `inclusive`, `exclusive`, summed over the containers) and edges (`source`,
    `target` as node indices, `weight` their inclusive time); `left_out` nodes
    under the threshold and their exclusive time; `total` inclusive time."""
    names: list
    module: list
    entries: list
    calls: np.ndarray
    inclusive: np.ndarray
    exclusive: np.ndarray
    source: np.ndarray
    target: np.ndarray
    weight: np.ndarray
    left_out: int
    left_out_time: float
    total: float

    def write_csv(self, path, unit):
        """`kind,source,target,module,entries,calls,inclusive,exclusive,unit`: a row
        per node (target empty), then per edge (inclusive its weight); times in
        `unit`, the trace's."""
        with writing(path, newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["kind", "source", "target", "module", "entries", "calls",
                        "inclusive", "exclusive", "unit"])
            for i, n in enumerate(self.names):
                w.writerow(["node", n, "", self.module[i], ";".join(self.entries[i]),
                            int(self.calls[i]), repr(float(self.inclusive[i])),
                            repr(float(self.exclusive[i])), unit])
            for a, b, x in zip(self.source.tolist(), self.target.tolist(),
                               self.weight.tolist()):
                w.writerow(["edge", self.names[a], self.names[b], "", "", "", repr(x), "", unit])

    def summary(self, unit="s"):
        n = len(self.names) - bool(self.left_out)
        out = f"super graph of {n} nodes and {len(self.source)} edges"
        if self.left_out:
            out += (f" ({self.left_out} nodes under the threshold left out: "
                    f"{self.left_out_time:.6g} {unit} of exclusive time)")
        return out


def super_graph(tree, mapping=None, split=None, threshold=0.0):
    """The SuperGraph of CallTree `tree` (see the module)."""
    if split not in (None,) + SPLITS:
        raise OptionsError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    tr = tree.trace
    module_of = module_of_values(tr, mapping)
    paths, calls, inc, exc = tree.merged("sum")
    at = {int(p): i for i, p in enumerate(paths.tolist())}
    parent, value = tree.path_parent, tree.path_value
    n_paths = len(value)
    # per path (callers first: depth order): its node and whether it starts a visit
    node_of, starts, entry_of = [None] * n_paths, np.zeros(n_paths, bool), [None] * n_paths
    caller_module = [None] * n_paths
    for p in np.argsort(tree.path_depth, kind="stable").tolist():
        m = module_of[int(value[p])]
        up = int(parent[p])
        up_m = module_of[int(value[up])] if up >= 0 else None
        if up >= 0 and up_m == m:  # the module's run goes on
            node_of[p], entry_of[p], caller_module[p] = node_of[up], entry_of[up], \
                caller_module[up]
            continue
        starts[p] = True
        entry_of[p] = tr.display_name("values", int(value[p]))
        caller_module[p] = up_m
        node_of[p] = (m if split is None else f"{m}:{entry_of[p]}" if split == "entry"
                      else f"{m}<-{up_m or 'root'}")
    names = sorted({n for n in node_of if n is not None})
    index = {n: i for i, n in enumerate(names)}
    k = len(names)
    n_calls, n_inc, n_exc = np.zeros(k), np.zeros(k), np.zeros(k)
    entries = [set() for _ in range(k)]
    modules = [""] * k
    edges = {}
    for p in range(n_paths):
        i = at.get(p)
        if i is None:
            continue
        node = index[node_of[p]]
        modules[node] = module_of[int(value[p])]
        n_exc[node] += exc[i]
        if not starts[p]:
            continue
        n_calls[node] += calls[i]
        entries[node].add(entry_of[p])
        outer, up = False, int(parent[p])
        while up >= 0:  # an outer visit of the same node holds this one
            if node_of[up] == node_of[p]:
                outer = True
                break
            up = int(parent[up])
        if outer:  # its time is in the outer visit's, and so is the edge to it
            continue
        n_inc[node] += inc[i]
        up = int(parent[p])
        if up >= 0:
            key = (index[node_of[up]], node)
            edges[key] = edges.get(key, 0.0) + inc[i]
    roots = [p for p in range(n_paths) if parent[p] < 0 and p in at]
    total = float(sum(inc[at[p]] for p in roots))
    keep = n_inc >= threshold * total if total > 0 else np.ones(k, bool)
    left, left_time = int((~keep).sum()), float(n_exc[~keep].sum())
    new = np.cumsum(keep) - 1
    out_names = [n for n, kp in zip(names, keep) if kp]
    out_module = [m for m, kp in zip(modules, keep) if kp]
    out_entries = [sorted(e) for e, kp in zip(entries, keep) if kp]
    sink = None
    if left:
        sink = len(out_names)
        out_names.append(LEFT_OUT)
        out_module.append("")
        out_entries.append([])
    merged_edges = {}
    for (a, b), x in edges.items():
        if not keep[a]:
            continue
        key = (int(new[a]), int(new[b]) if keep[b] else sink)
        merged_edges[key] = merged_edges.get(key, 0.0) + x
    into_sink = sum(x for (_, b), x in merged_edges.items() if b == sink)
    src = np.array([a for a, _ in merged_edges], np.int64)
    dst = np.array([b for _, b in merged_edges], np.int64)
    return SuperGraph(out_names, out_module, out_entries,
                      np.r_[n_calls[keep], [0.0] if left else []],
                      np.r_[n_inc[keep], [into_sink] if left else []],
                      np.r_[n_exc[keep], [left_time] if left else []], src, dst,
                      np.array(list(merged_edges.values()), np.float64), left, left_time,
                      total)
