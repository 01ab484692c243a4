"""Thesis Fig. 6.13: a 3D view of two time slices of one run. 100 processes steal
work on two sites; the first and the last tenth of the run are drawn over the
network, each stretched to the same height: RUN fills the first; in the last, the
processes still run until the work runs out, then the steals (white lines, red
RSTEAL) and the idle processes (grey) crowd its top
(`python examples/thesis/fig6_13_time_slices.py [OUT]`)."""

from common import TOPOLOGIES, run, save, shot
from triva3d.bases.readers import read_topology
from triva3d.generate import workstealing

TOPOLOGY = str(TOPOLOGIES / "two_site_grid.dot")


def main(out):
    prog = workstealing(read_topology(TOPOLOGY), processes=100, work=20.0, seed=3)
    trace, _ = save(prog, out, "hundred.trace")
    end = trace.end_time
    return [(shot(trace, out, f"fig6_13_{name}.png", topology=TOPOLOGY, window=window,
                  link_opacity=0.5),
             f"Fig. 6.13: the {name} tenth of the run ({window[0]:.1f}-{window[1]:.1f} s) "
             "in 3D") for name, window in (("first", (0.0, end / 10)),
                                           ("last", (end * 0.9, end)))]


if __name__ == "__main__":
    run(main)
