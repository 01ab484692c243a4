"""Compact graph layouts for cluster-like platforms.

Graphviz lays a SimGrid cluster (hosts each behind a private link, all meeting at
one router) out as a ring of spokes thousands of points wide, where each host's
square is a few pixels. Before the layout, links that only pass through (kind
"link", two neighbours, nothing drawn on them) are contracted into edges, and a
hub's many leaves (at least MIN_BLOCK nodes whose only neighbour it is) become one
square block node; Graphviz lays out that reduced graph; then the leaves fill their
block as a grid, in node order, and the contracted links sit evenly along the line
between the two nodes they joined. Positions given in the file are kept as they
are.
"""
import math

import numpy as np

from .graphlayout import layout as graph_layout, undirected_edges
from .topology import Topology

MIN_BLOCK = 6
#: Grid cell of a block, in sides of its largest leaf.
CELL = 1.25


def _neighbours(topo):
    out = [set() for _ in range(len(topo))]
    for a, b in zip(topo.src.tolist(), topo.dst.tolist()):
        if a != b:
            out[a].add(b)
            out[b].add(a)
    return out


def _compactable(topo, drawn):
    """Whether a link could be contracted or a hub has MIN_BLOCK leaves (in numpy:
    a communication graph of a million edges has neither)."""
    lo, hi = undirected_edges(topo)
    degree = np.bincount(np.r_[lo, hi], minlength=len(topo))
    if ((np.array(topo.kinds) == "link") & (degree == 2) & ~drawn).any():
        return True
    leaf_lo, leaf_hi = degree[lo] == 1, degree[hi] == 1
    hub = np.r_[hi[leaf_lo & ~leaf_hi], lo[leaf_hi & ~leaf_lo]]
    return bool(len(hub)) and np.bincount(hub).max() >= MIN_BLOCK


def _chains(nbr, contractible):
    """(end a, [contracted nodes in order], end b) for each path of contractible
    nodes between two others; nodes on a cycle of contractible nodes stay."""
    seen, chains = set(), []
    for c in np.flatnonzero(contractible):
        if c in seen:
            continue
        sides = []
        for start in nbr[c]:
            prev, cur, side = c, start, []
            while contractible[cur] and cur != c:
                side.append(cur)
                (nxt,) = nbr[cur] - {prev}
                prev, cur = cur, nxt
            sides.append((side, cur))
        (left, a), (right, b) = sides
        path = left[::-1] + [int(c)] + right
        seen.update(path)
        if not (contractible[a] or contractible[b]):
            chains.append((int(a), path, int(b)))
    return chains


def compact_layout(topo, program=None, sizes=None, drawn=None, use_cache=True):
    """(n, 2) positions of every node of `topo` (see the module), and the mask of
    the links contracted; `drawn` marks the nodes something is drawn on (never
    contracted)."""
    n = len(topo)
    sizes = np.full(n, 18.0) if sizes is None else np.asarray(sizes, np.float64)
    drawn = np.zeros(n, bool) if drawn is None else drawn
    none = np.zeros(n, bool)
    if n < MIN_BLOCK or np.isfinite(topo.positions()[:, 0]).any() or \
            not _compactable(topo, drawn):
        return graph_layout(topo, program, sizes, use_cache=use_cache), none
    nbr = _neighbours(topo)
    degree = np.array([len(s) for s in nbr])
    contractible = (np.array(topo.kinds) == "link") & (degree == 2) & ~drawn
    chains = _chains(nbr, contractible)
    gone = np.zeros(n, bool)
    for _, path, _ in chains:
        gone[path] = True
    reduced = [set() for _ in range(n)]
    for a in range(n):
        if not gone[a]:
            reduced[a] = {b for b in nbr[a] if not gone[b]}
    for a, _, b in chains:
        if a != b:
            reduced[a].add(b)
            reduced[b].add(a)
    leaves = {}
    for v in range(n):
        if not gone[v] and len(reduced[v]) == 1:
            (hub,) = reduced[v]
            if len(reduced[hub]) > 1:
                leaves.setdefault(hub, []).append(v)
    blocks = {hub: vs for hub, vs in leaves.items() if len(vs) >= MIN_BLOCK}
    if not blocks and not chains:
        return graph_layout(topo, program, sizes, use_cache=use_cache), none
    in_block = np.zeros(n, bool)
    for vs in blocks.values():
        in_block[vs] = True
    # the reduced graph: kept nodes, then one node per block
    kept = np.flatnonzero(~gone & ~in_block)
    small = Topology(topo.name, topo.source)
    for v in kept:
        small.add_node(f"n{v}", topo.kinds[v])
    side = {}
    for hub, vs in blocks.items():
        g = math.ceil(math.sqrt(len(vs)))
        side[hub] = (g, CELL * float(sizes[vs].max()))
        small.add_node(f"b{hub}", "node")
        small.add_edge(f"b{hub}", f"n{hub}")
    for a in kept:
        for b in reduced[a]:
            if a < b and not in_block[b]:
                small.add_edge(f"n{a}", f"n{b}")
    small_sizes = np.r_[sizes[kept], [g * cell for g, cell in side.values()]]
    pos_small = graph_layout(small, program or None, small_sizes, use_cache=use_cache)
    pos = np.zeros((n, 2))
    pos[kept] = pos_small[:len(kept)]
    for (hub, vs), (bx, by) in zip(blocks.items(), pos_small[len(kept):]):
        g, cell = side[hub]
        k = np.arange(len(vs))
        pos[vs, 0] = bx + (k % g + 0.5 - g / 2) * cell
        pos[vs, 1] = by + (g / 2 - k // g - 0.5) * cell
    for a, path, b in chains:
        f = (np.arange(len(path)) + 1) / (len(path) + 1)
        pos[path] = pos[a] + f[:, None] * (pos[b] - pos[a])
    return pos, gone
