"""Bases on the ground plane (topology graphs, the communication graph, treemaps)
and the matcher that puts every container on one of them. The names of the bases
and of the Graphviz programs are here, numpy-free, for the settings that choose them."""
import contextlib
import sys

#: The bases a trace can stand on (bases.layout.make_layout).
BASES = ("topology", "appgraph", "treemap", "timeline", "tasktree")
#: Graphviz layout programs (bases.graphlayout).
PROGRAMS = ("dot", "neato", "fdp", "sfdp", "twopi", "circo")
#: The largest coordinate a base node may be given (a pos, a move): VTK draws in
#: float32, and a node at 1e300 blanked the picture.
MAX_POSITION = 1e9
#: Above this many nodes the default is sfdp: neato and circo become very slow.
NEATO_MAX = 500
#: The execution tree (tasktree base) is laid out by dot up to this many tasks,
#: by sfdp above (dot's crossing minimisation grows too slow).
DOT_MAX = 5000


def by_task(base, asked=False):
    """Whether a trace is drawn cut by task (analysis.tasks.task_trace): `asked`
    (--by-task, View > By task), or its base is the execution tree, which stands on
    tasks."""
    return bool(asked) or base == "tasktree"


@contextlib.contextmanager
def recursion_room(frames):
    """Python's recursion limit raised to at least `frames` meanwhile (readers of
    nested files whose depth they bound themselves)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, frames))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)
