"""A many-task run shaped like the HPX runs APEX traces (Traveler's data): a
divide-and-conquer tree of tasks (each inner task spawns two or three children, then
suspends until they are done and resumes, maybe on another worker, to combine their
results), scheduled greedily on the workers of a few localities. Every piece of a
task carries the task's `GUID` and its parent's `Parent GUID`; the root's parent is
0, a task that is not in the trace, as in APEX.

Regions: "hpx_main" (the root), "fib" (inner tasks: a short split before their
children, a combine after), "fib_leaf" (leaves, the bulk of the work).
"""
import heapq
from collections import deque

import numpy as np

from ..errors import OptionsError
from .program import MAX_CONTAINERS, NS, Program

VALUES = ("hpx_main", "fib", "fib_leaf")
COLORS = ("0.35 0.35 0.8", "0.9 0.55 0.2", "0.3 0.7 0.4")
SPLIT, COMBINE, LEAF = 4e-6, 2e-6, 40e-6  # median seconds of a piece


def tree(n, rng):
    """Parent of each of n tasks (0 the root, -1): breadth first, two or three
    children a task."""
    parent = np.full(n, -1, np.int64)
    at, p = 1, 0
    while at < n:
        k = min(int(rng.integers(2, 4)), n - at)
        parent[at:at + k] = p
        at, p = at + k, p + 1
    return parent


def tasks(n_tasks=2000, localities=2, workers=4, seed=0):
    """The Program of `n_tasks` tasks on `localities` x `workers` workers."""
    if n_tasks < 1 or localities < 1 or workers < 1:
        raise OptionsError("a task run needs 1 task, 1 locality and 1 worker at least")
    if n_tasks > MAX_CONTAINERS or localities * workers > MAX_CONTAINERS:
        raise OptionsError(f"a task run of {n_tasks} tasks on {localities} x {workers} "
                           f"workers: {MAX_CONTAINERS:,} of each at most")
    rng = np.random.default_rng(seed)
    parent = tree(n_tasks, rng)
    children = np.bincount(parent[1:], minlength=n_tasks)
    leaf = children == 0
    split = rng.lognormal(np.log(np.where(leaf, LEAF, SPLIT)), 0.5)
    combine = rng.lognormal(np.log(COMBINE), 0.5, n_tasks)
    first_child = np.searchsorted(parent[1:], np.arange(n_tasks)) + 1
    n_workers = localities * workers
    # discrete events: a worker takes the next ready piece (newest first, as a
    # work-first scheduler) when free; a piece's end readies the next ones
    ready, idle = deque([(0, 0)]), list(range(n_workers))  # (task, 0 split | 1 combine)
    running, seq = [], 0
    left = children.copy()
    out = []  # (worker, task, piece, start, end)
    now = 0.0
    while ready or running:
        while ready and idle:
            task, piece = ready.pop()
            w = heapq.heappop(idle)
            end = now + (combine[task] if piece else split[task])
            out.append((w, task, piece, now, end))
            heapq.heappush(running, (end, seq, w, task, piece))
            seq += 1
        now, _, w, task, piece = heapq.heappop(running)
        heapq.heappush(idle, w)
        if piece == 0 and children[task]:
            ready.extend((c, 0) for c in range(first_child[task],
                                                first_child[task] + children[task]))
            continue
        if task > 0:  # done: its parent resumes once its last child is done
            left[parent[task]] -= 1
            if not left[parent[task]]:
                ready.append((parent[task], 1))
    w, task, piece, start, end = (np.array(c) for c in zip(*out))
    nodes = localities
    names = [f"locality {i}" for i in range(nodes)] + \
        [f"worker {i % workers} on locality {i // workers}" for i in range(n_workers)]
    value = np.where(task == 0, 0, np.where(leaf[task], 2, 1))
    return Program(levels=[("Locality", "L"), ("Worker", "W")],
                   parent=np.r_[np.full(nodes, -1), np.arange(n_workers) // workers],
                   level=np.r_[np.zeros(nodes, np.int64), np.ones(n_workers, np.int64)],
                   names=names, values=list(VALUES), colors=list(COLORS),
                   state_container=nodes + w, state_value=value,
                   state_start=np.round(start * NS).astype(np.int64),
                   state_end=np.round(end * NS).astype(np.int64),
                   state_guid=task + 1, state_parent_guid=np.where(task == 0, 0, parent[task] + 1),
                   state_type="Task", link_type="Task dependency")
