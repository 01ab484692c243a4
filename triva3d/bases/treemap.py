"""Squarified treemaps (Bruls, Huizing and van Wijk, 2000), compiled with numba.

A hierarchy is a `parent` array in topological order (parent[i] < i, -1 for the
root). A node's value is its own size plus its descendants'. Every node gets a
rectangle (x, y, w, h): the root the whole area; a node's children share its area
minus `pad` on each side, in proportion to their values, its own size keeping the
rest (without padding, every area is exactly value / total x the whole area).
"""
import math

import numpy as np
from numba import njit

from ..errors import TraceError, read_json
from . import recursion_room


@njit(cache=True)
def _squarify(values, x, y, w, h, out):
    """Lay `values` (sorted decreasing, summing to w*h) into rows of the rectangle."""
    n = len(values)
    i = 0
    while i < n:
        side = min(w, h)
        j = i
        row = 0.0
        worst = np.inf
        while j < n and values[j] > 0.0 and side > 0.0:
            s = row + values[j]
            if s * s <= 0.0 or side * side * values[j] <= 0.0:
                break  # below what floats resolve (hierarchies 1000s deep)
            new = max(side * side * values[i] / (s * s), s * s / (side * side * values[j]))
            if j > i and new > worst:
                break
            worst = new
            row = s
            j += 1
        if j == i:  # nothing more that can be drawn
            for k in range(i, n):
                out[k, 0] = x
                out[k, 1] = y
                out[k, 2] = 0.0
                out[k, 3] = 0.0
            return
        thick = row / side
        if j == n or values[j] <= 0.0:
            thick = w if w >= h else h  # the last row fills what is left exactly
        pos = 0.0
        for k in range(i, j):
            length = values[k] / thick if thick > 0 else 0.0
            if w >= h:   # vertical strip on the left
                out[k, 0] = x
                out[k, 1] = y + pos
                out[k, 2] = thick
                out[k, 3] = length
            else:        # horizontal strip at the bottom
                out[k, 0] = x + pos
                out[k, 1] = y
                out[k, 2] = length
                out[k, 3] = thick
            pos += length
        if w >= h:
            x += thick
            w -= thick
        else:
            y += thick
            h -= thick
        i = j


@njit(cache=True)
def _layout(value, offsets, order, rects, pad):
    tmp = np.empty((len(order) + 1, 4))
    for p in range(len(offsets) - 1):
        a, b = offsets[p], offsets[p + 1]
        if a == b:
            continue
        x, y, w, h = rects[p, 0], rects[p, 1], rects[p, 2], rects[p, 3]
        q = min(pad, 0.125 * min(w, h))
        x += q
        y += q
        w = max(w - 2 * q, 0.0)
        h = max(h - 2 * q, 0.0)
        scale = (w * h) / value[p] if value[p] > 0 else 0.0
        vals = np.empty(b - a + 1)
        kids = 0.0
        for k in range(a, b):
            vals[k - a] = value[order[k]] * scale
            kids += value[order[k]]
        # the node's own size, if any, keeps the last share of its area
        vals[b - a] = max(value[p] - kids, 0.0) * scale
        _squarify(vals, x, y, w, h, tmp[a:b + 1])
        for k in range(a, b):
            c = order[k]
            rects[c, 0] = tmp[k, 0]
            rects[c, 1] = tmp[k, 1]
            rects[c, 2] = tmp[k, 2]
            rects[c, 3] = tmp[k, 3]


@njit(cache=True)
def _subtree_sums(parent, size):
    value = size.copy()
    for i in range(len(parent) - 1, 0, -1):
        value[parent[i]] += value[i]
    return value


def treemap(parent, leaf_size, width=1.0, height=1.0, pad=0.0):
    """Rectangles (n, 4) as x, y, w, h for every node, and the node values (n,).
    `leaf_size` is every node's own size (usually zero for inner nodes)."""
    parent = np.asarray(parent, dtype=np.int64)
    n = len(parent)
    if n and (parent[0] != -1 or (parent[1:] >= np.arange(1, n)).any() or (parent[1:] < 0).any()):
        raise ValueError("hierarchy must be in topological order with one root at 0")
    size = np.asarray(leaf_size, dtype=np.float64)
    if (size < 0).any() or not np.isfinite(size).all():
        raise ValueError("treemap sizes must be finite and non-negative")
    scale = size.max() if n and size.max() > 0 else 1.0
    value = _subtree_sums(parent, size / scale)  # in units of the largest: sums stay finite
    offsets, order = _children_by_value(parent, value)
    rects = np.zeros((n, 4))
    if n:
        rects[0] = (0.0, 0.0, width, height)
    _layout(value, offsets, order, rects, float(pad))
    with np.errstate(over="ignore"):
        return rects, value * scale


@njit(cache=True)
def _children_by_value(parent, value):
    """Children of every node as CSR (offsets, order), each node's children by
    decreasing value, ties in index order: a counting sort by parent, then a
    stable sort inside each group."""
    n = len(parent)
    offsets = np.zeros(n + 1, np.int64)
    for i in range(1, n):
        offsets[parent[i] + 1] += 1
    for i in range(n):
        offsets[i + 1] += offsets[i]
    fill = offsets[:-1].copy()
    order = np.empty(max(n - 1, 0), np.int64)
    for i in range(1, n):
        order[fill[parent[i]]] = i
        fill[parent[i]] += 1
    for p in range(n):
        a, b = offsets[p], offsets[p + 1]
        if b - a > 1:
            group = order[a:b].copy()
            order[a:b] = group[np.argsort(-value[group], kind="mergesort")]
    return offsets, order


#: Deepest resource hierarchy read (each level is an object and a list in JSON).
MAX_JSON_DEPTH = 5000


def read_hierarchy(path):
    """A resource hierarchy file (JSON objects with name, type, children and an
    optional size: 1 for a leaf, 0 for an inner node unless given) as
    (names, types, parent, sizes) in topological order."""
    with recursion_room(2 * MAX_JSON_DEPTH + 100):  # json's parser recurses
        root = read_json(path, "the hierarchy", deepest=MAX_JSON_DEPTH)
    names, types, parent, sizes = [], [], [], []
    stack = [(root, -1, "root")]
    while stack:
        node, p, where = stack.pop()
        if not isinstance(node, dict) or "name" not in node:
            raise TraceError(path, None, f"{where}: expected an object with a \"name\"")
        i = len(names)
        names.append(str(node["name"]))
        types.append(str(node.get("type", "")))
        parent.append(p)
        kids = node.get("children", [])
        size = node.get("size", 0.0 if kids else 1.0)
        if not isinstance(size, (int, float)) or isinstance(size, bool) \
                or not 0 <= size < math.inf:  # NaN, Infinity, 1e400 fail here
            raise TraceError(path, None, f"{names[-1]}: size must be a finite non-negative "
                             f"number, not {size!r}")
        sizes.append(float(size))
        if not isinstance(kids, list):
            raise TraceError(path, None, f"{names[-1]}: children must be a list")
        for k, child in reversed(list(enumerate(kids))):
            stack.append((child, i, f"{names[-1]}/children[{k}]"))
    return names, types, np.array(parent, dtype=np.int64), np.array(sizes)
