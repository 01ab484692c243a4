"""Runs shaped like the five patterns of Sigovan, Muelder and Ma's Fig. 5 (EuroVis
2013), for their event particles (panels.events): every rank, in each iteration,
computes, posts an MPI_Isend and an MPI_Irecv (10 us each), then waits in
MPI_Waitall for a time the shape sets from its rank (0..R-1) and iteration:

- horizontal: 1 ms for everyone (2 % noise): the particles stop in a line;
- noisy: 1 ms times a log-normal factor (sigma 1.2): scattered heights;
- slanted: 0.1 ms x 100^(r / (R - 1)): a straight slope across the ranks (log axis);
- logarithmic: 0.1 ms x (1 + 99 r / (R - 1)): a curve that flattens (log axis);
- disparate: 0.2 ms, but 20 ms on every fourth node: two bands far apart.

Ranks sit 16 to a node; iterations start together (the slowest wait ends each).
"""
import numpy as np

from ..errors import OptionsError
from .program import MAX_CONTAINERS, MAX_LINKS, NS, Program

SHAPES = ("horizontal", "noisy", "slanted", "logarithmic", "disparate")
VALUES = ("compute", "MPI_Isend", "MPI_Irecv", "MPI_Waitall")
COLORS = ("0.55 0.55 0.6", "0.9 0.3 0.3", "0.95 0.6 0.2", "0.95 0.85 0.3")
PER_NODE, COMPUTE, POST = 16, 5e-3, 10e-6


def waits(shape, ranks, iterations, seed=0):
    """(iterations, ranks) seconds in MPI_Waitall for `shape`."""
    if shape not in SHAPES:
        raise OptionsError(f"shape must be one of {', '.join(SHAPES)}, not {shape!r}")
    rng = np.random.default_rng(seed)
    r = np.arange(ranks) / max(ranks - 1, 1)
    ones = np.ones((iterations, 1))
    if shape == "horizontal":
        return 1e-3 * (1 + 0.02 * rng.standard_normal((iterations, ranks))).clip(0.9, 1.1)
    if shape == "noisy":
        return 1e-3 * rng.lognormal(0.0, 1.2, (iterations, ranks))
    if shape == "slanted":
        return ones * 1e-4 * 100.0 ** r
    if shape == "logarithmic":
        return ones * 1e-4 * (1 + 99 * r)
    node = np.arange(ranks) // PER_NODE
    return ones * np.where(node % 4 == 3, 20e-3, 0.2e-3)


def sigovan(shape, ranks=64, iterations=20, seed=0):
    """The Program of `ranks` ranks (16 a node) running `iterations` of `shape`."""
    if ranks < 2 or iterations < 1:
        raise OptionsError("a Sigovan pattern needs 2 ranks and 1 iteration at least")
    if ranks > MAX_CONTAINERS or ranks * iterations > MAX_LINKS:
        raise OptionsError(f"a Sigovan pattern of {ranks} ranks x {iterations} iterations: "
                           f"{MAX_LINKS:,} rank-iterations at most")
    if shape == "disparate" and ranks <= 3 * PER_NODE:  # (no fourth node: one band)
        raise OptionsError(f"disparate waits are slow on every fourth node of {PER_NODE} "
                           f"ranks: {3 * PER_NODE + 1} ranks at least, not {ranks}")
    w = waits(shape, ranks, iterations, seed)
    nodes = -(-ranks // PER_NODE)
    parent = np.r_[np.full(nodes, -1), np.arange(ranks) // PER_NODE]
    level = np.r_[np.zeros(nodes, np.int64), np.ones(ranks, np.int64)]
    names = [f"node-{i}" for i in range(nodes)] + [f"rank-{i}" for i in range(ranks)]
    leaf = nodes + np.arange(ranks)
    length = COMPUTE + 2 * POST + w.max(axis=1) + 1e-3  # each iteration's
    begin = np.r_[0.0, np.cumsum(length)[:-1]]
    cont, val, start, end = [], [], [], []
    for i in range(iterations):
        t = np.full(ranks, begin[i])
        for v, d in enumerate((np.full(ranks, COMPUTE), np.full(ranks, POST),
                               np.full(ranks, POST), w[i])):
            cont.append(leaf)
            val.append(np.full(ranks, v))
            start.append(t)
            t = t + d
            end.append(t)
    ticks = lambda x: np.round(np.concatenate(x) * NS).astype(np.int64)  # noqa: E731
    return Program(levels=[("Node", "N"), ("Rank", "R")], parent=parent, level=level,
                   names=names, values=list(VALUES), colors=list(COLORS),
                   state_container=np.concatenate(cont), state_value=np.concatenate(val),
                   state_start=ticks(start), state_end=ticks(end),
                   end=int(round(begin[-1] * NS + length[-1] * NS)))
