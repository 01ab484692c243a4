"""Thesis Fig. 6.24: an MPI run shaped like NAS EP (embarrassingly parallel) with 32
processes on 8 machines: each computes on its own (5 to 9 s, rank 13 is slow: 13 s),
then all meet in MPI_Allreduce (each sends its partial result to rank 0, which
answers everyone once the last has arrived) and MPI_Finalize. Aggregated with max
per machine, the Time-Slice treemap points at the machine holding the slow rank,
which the sum would spread over its four processes; 3D, the run on its treemap base
(`python examples/thesis/fig6_24_ep.py [OUT]`)."""
import numpy as np

from common import run, save, shot, treemap
from triva3d.generate import Program
from triva3d.generate.program import NS

MACHINES, PER, SLOW = 8, 4, 13


def ep(seed=9):
    """The Program: compute, allreduce (links to rank 0 and back), finalize."""
    rng = np.random.default_rng(seed)
    n = MACHINES * PER
    ranks = 1 + MACHINES + np.arange(n)  # containers: root's machines, then ranks
    compute = rng.uniform(5, 9, n)
    compute[SLOW] = 13.0
    done = compute.max() + 0.05  # rank 0 has everything
    reply = done + rng.uniform(0.01, 0.05, n)
    end = reply + 0.2
    ns = lambda s: np.rint(np.asarray(s) * NS).astype(np.int64)  # noqa: E731
    send = compute + rng.uniform(0.001, 0.01, n)
    return Program(
        levels=[("Machine", "M"), ("Process", "P")],
        parent=np.r_[-1 * np.ones(MACHINES, np.int64), np.arange(n) // PER],
        level=np.r_[np.zeros(MACHINES, np.int64), np.ones(n, np.int64)],
        names=[f"node-{m}" for m in range(MACHINES)] + [f"rank-{r}" for r in range(n)],
        values=["Compute", "MPI_Allreduce", "MPI_Finalize"],
        colors=["0.2 0.6 0.9", "0.9 0.3 0.2", "0.6 0.6 0.6"],
        state_container=np.r_[ranks, ranks, ranks] - 1,
        state_value=np.repeat([0, 1, 2], n),
        state_start=ns(np.r_[np.zeros(n), compute, reply]),
        state_end=ns(np.r_[compute, reply, end]),
        link_src=np.r_[ranks[1:], np.full(n - 1, ranks[0])] - 1,
        link_dst=np.r_[np.full(n - 1, ranks[0]), ranks[1:]] - 1,
        link_start=ns(np.r_[compute[1:], np.full(n - 1, done)]),
        link_end=ns(np.r_[send[1:], reply[1:]]),
        link_size=np.full(2 * (n - 1), 8, np.int64),
        state_type="MPI state", link_type="MPI message", link_value="p2p")


def main(out):
    trace, _ = save(ep(), out, "ep32.trace")
    return [(treemap(trace, out, "fig6_24_max.png", level="Machine", how="max",
                     values=["Compute"]),
             "Fig. 6.24: Compute per machine, max aggregation: node-3 holds rank 13"),
            (treemap(trace, out, "fig6_24_sum.png", level="Machine", how="sum",
                     values=["Compute"]),
             "Fig. 6.24: the same with sum: the slow rank is spread over node-3"),
            (shot(trace, out, "fig6_24_3d.png", base="treemap", link_opacity=0.8),
             "Fig. 6.24: the EP-like run in 3D, 32 processes on 8 machines")]


if __name__ == "__main__":
    run(main)
