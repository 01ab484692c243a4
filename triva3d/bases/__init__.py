"""Bases on the ground plane (topology graphs, the communication graph, treemaps)
and the matcher that puts every container on one of them."""
import contextlib
import sys


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
