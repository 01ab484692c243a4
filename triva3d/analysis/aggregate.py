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

from ..errors import OptionsError
from . import FUNCTIONS



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
        raise OptionsError(f"aggregation must be one of {', '.join(FUNCTIONS)}, not {how!r}")
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

