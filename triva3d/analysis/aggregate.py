"""Aggregation up the container hierarchy (Schnorr's thesis, section 4.3): each
container gets the sum, max, min or mean of a metric over the containers of its
subtree (itself included) that carry that metric; NaN where none does.

Values may be vectors (one column per state value, say): every column is
aggregated, so a cluster keeps the time of each of its processes' states.
Containers are created after their parents, so a child's row is always after its
parent's and one backward pass suffices.
"""
import numpy as np
from numba import njit

from ..errors import TraceError

FUNCTIONS = ("sum", "max", "min", "mean")


@njit(cache=True)
def _up(parent, acc, count, how):
    for c in range(len(parent) - 1, 0, -1):
        p = parent[c]
        count[p] += count[c]
        for k in range(acc.shape[1]):
            if how == 1:
                acc[p, k] = max(acc[p, k], acc[c, k])
            elif how == 2:
                acc[p, k] = min(acc[p, k], acc[c, k])
            else:
                acc[p, k] += acc[c, k]


def aggregate(trace, values, carriers, how="sum"):
    """Per container: `how` of `values` ((n,) or (n, k)) over the carriers of its subtree."""
    if how not in FUNCTIONS:
        raise ValueError(f"aggregation must be one of {FUNCTIONS}, not {how!r}")
    v = np.asarray(values, np.float64)
    flat = v.ndim == 1
    v = v.reshape(len(v), -1)
    neutral = {"max": -np.inf, "min": np.inf}.get(how, 0.0)
    acc = np.where(carriers[:, None] & ~np.isnan(v), v, neutral)
    count = carriers.astype(np.int64)
    _up(trace.containers.parent, acc, count, FUNCTIONS.index(how) if how != "mean" else 0)
    if how == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            acc = acc / count[:, None]
    acc[count == 0] = np.nan
    return acc[:, 0] if flat else acc


def level_rows(trace, level=None):
    """Containers at `level`: a container type name, a depth (0 is the root), or
    None for the leaves (containers without children)."""
    from ..bases.treemap import depth_of
    cont = trace.containers
    if level is None:
        leaf = np.ones(len(cont), bool)
        leaf[cont.parent[cont.parent >= 0]] = False
        leaf[0] = len(cont) == 1
        return np.flatnonzero(leaf)
    try:
        depth = int(level)
    except ValueError:
        types = [t for t in range(len(trace.types))
                 if trace.names.display(trace.types.name[t]) == level]
        if not types:
            raise TraceError(trace.source, None, f"no container type named {level!r}") from None
        return np.flatnonzero(np.isin(cont.type, types))
    return np.flatnonzero(depth_of(cont.parent) == depth)
