"""Thesis Fig. 6.13: a 3D view of two time slices of one run. 100 processes steal
work on two sites; the first and the last quarter of the run are drawn over the
network, each stretched to the same height: RUN fills the first, the last is
crowded with steals (RSTEAL) and idle processes
(`python examples/thesis/fig6_13_time_slices.py [OUT]`)."""

from common import TOPOLOGIES, quarters, run, save, shot
from triva3d.bases.readers import read_topology
from triva3d.generate import workstealing

TOPOLOGY = str(TOPOLOGIES / "two_site_grid.dot")


def main(out):
    prog = workstealing(read_topology(TOPOLOGY), processes=100, work=20.0, seed=3)
    trace, _ = save(prog, out, "hundred.trace")
    slices = quarters(trace)
    return [(shot(trace, out, f"fig6_13_slice{q}.png", topology=TOPOLOGY, window=window,
                  link_opacity=0.5),
             f"Fig. 6.13: quarter {q} of the run ({window[0]:.1f}-{window[1]:.1f} s) in 3D")
            for q, window in (slices[0], slices[-1])]


if __name__ == "__main__":
    run(main)
