"""Graph layout with Graphviz (dot, neato, fdp, sfdp, twopi, circo), repeatable and cached.

Positions are in points (1/72 inch), Graphviz's unit. Nodes keep the room their
footprint needs (`sizes`, the side of each node's square). Positions given in the
file are kept: when every node has one no layout runs; otherwise neato and fdp
start from them and pin them (the other programs ignore them).
"""
import hashlib
import os
import subprocess
import sys

import numpy as np

from .. import cache
from ..errors import OptionsError, TraceError
from ..output import atomic
from . import NEATO_MAX, PROGRAMS
FORMAT = 2
#: neato removes overlaps by scaling; the bundled Graphviz cannot remove them in
#: fdp and sfdp (no triangulation library), so `_spread` makes room afterwards.
OVERLAP = {"neato": "scale", "fdp": "true", "sfdp": "true"}
#: fdp and sfdp layouts are enlarged until their box is this many times the nodes' area.
ROOM = 4.0
#: Edges written to the DOT text at a time (its lines are not all held at once).
CHUNK = 1 << 16


def default_program(n_nodes):
    """neato for small graphs (best looking), sfdp beyond NEATO_MAX nodes (fast)."""
    return "neato" if n_nodes <= NEATO_MAX else "sfdp"


def _dot_text(topo, program, sizes, given):
    """The DOT that Graphviz lays out: nodes n0..n{N-1}, no labels, square footprints."""
    lines = ["graph G {",
             "  graph [overlap=" + OVERLAP.get(program, "false")
             + ", start=1, splines=false, outputorder=edgesfirst];",
             '  node [shape=box, fixedsize=true, label=""];']
    for i in range(len(topo)):
        side = float(sizes[i]) / 72.0
        pos = ""
        if np.isfinite(given[i, 0]):
            # neato and fdp read pos in inches (and write points)
            pos = f', pos="{float(given[i, 0]) / 72!r},{float(given[i, 1]) / 72!r}!", pin=true'
        lines.append(f"  n{i} [width={side!r}, height={side!r}{pos}];")
    parts = ["\n".join(lines) + "\n"]
    lo, hi = undirected_edges(topo)
    for i in range(0, len(lo), CHUNK):  # a communication graph has a million edges
        parts.append("".join(f"  n{a} -- n{b};\n" for a, b in
                             zip(lo[i:i + CHUNK].tolist(), hi[i:i + CHUNK].tolist())))
    parts.append("}\n")
    return "".join(parts)


def undirected_edges(topo):
    """(lower, higher) node of each edge once, self-loops left out, in the order of
    their first appearance."""
    src, dst = topo.src.astype(np.int64), topo.dst.astype(np.int64)
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    del src, dst
    keep = lo != hi
    if not keep.all():
        lo, hi = lo[keep], hi[keep]
    key = lo * max(len(topo), 1) + hi
    if (key[1:] > key[:-1]).all():  # already once each, in order (a communication graph)
        return lo, hi
    _, first = np.unique(key, return_index=True)
    first.sort()
    return lo[first], hi[first]


def _cache_path(text, program):
    from importlib.metadata import version  # not the module: its C library is 8 MB
    h = hashlib.sha256(f"{FORMAT} {program} {version('pygraphviz')}\n".encode())
    h.update(text.encode())
    h = h.hexdigest()
    return os.path.join(cache.user_dir(), "layouts", h[:32] + ".npy")


def layout(topo, program=None, sizes=None, use_cache=True, timeout=None):
    """(n, 2) node positions in points; `program` defaults to `default_program`.

    The same graph, sizes and program always give the same positions (each layout
    runs in a fresh process) and are read back from the layout cache.
    """
    n = len(topo)
    given = topo.positions()
    if n and np.isfinite(given[:, 0]).all() and program is None:
        return given
    program = program or default_program(n)
    if program not in PROGRAMS:
        raise OptionsError(f"unknown layout program {program!r} (expected one of "
                           f"{', '.join(PROGRAMS)})")
    if n == 0:
        return np.zeros((0, 2))
    sizes = np.full(n, 18.0) if sizes is None else np.asarray(sizes, dtype=np.float64)
    text = _dot_text(topo, program, sizes, given)
    path = _cache_path(text, program)
    if use_cache and os.path.isfile(path):
        try:
            pos = np.load(path, allow_pickle=False)
            if pos.shape == (n, 2):
                return pos
        except (OSError, ValueError):
            pass
    pos = _run(text, program, topo.source, timeout)
    pinned = np.isfinite(given[:, 0])
    if pinned.any() and program in ("neato", "fdp"):
        pos += (given[pinned] - pos[pinned]).mean(axis=0)   # Graphviz moves the origin
    elif program in ("fdp", "sfdp"):
        pos = _spread(pos, sizes)
    if use_cache:
        _save(path, pos)
    return pos


def _spread(pos, sizes):
    """Scale a layout about its centre until its box holds ROOM times the nodes' area
    (never shrinks it), so that nodes overlap little where Graphviz left them packed."""
    extent = np.ptp(pos, axis=0) if len(pos) > 1 else np.zeros(2)
    need = ROOM * float((sizes ** 2).sum())
    have = float(max(extent[0], 1e-9) * max(extent[1], 1e-9))
    if len(pos) < 2 or have >= need:
        return pos
    centre = pos.mean(axis=0)
    return centre + (pos - centre) * np.sqrt(need / have)


def _run(text, program, source, timeout):
    try:
        r = subprocess.run([sys.executable, "-m", "triva3d.bases.graphviz_worker", program],
                           input=text.encode(), capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise TraceError(source, None, f"{program} layout took more than {timeout} s; "
                         "try the sfdp layout program") from None
    if r.returncode != 0:
        err = [ln for ln in r.stderr.decode(errors="replace").splitlines()
               if ln.strip() and not ln.startswith(("Fontconfig", "Warning", "Error: remove_overlap"))]
        raise TraceError(source, None, f"{program} layout failed: {err[-1] if err else r.returncode}")
    import json
    return np.array(json.loads(r.stdout), dtype=np.float64).reshape(-1, 2)


def _save(path, pos):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with atomic(path) as f:
            np.save(f, pos)
    except OSError:
        pass  # a cache we cannot write only costs time
