"""Thesis Fig. 6.16: 2900 processes on 310 machines of four Grid'5000 sites
(Bordeaux, Lyon, Toulouse, Sophia) stealing work, seen in four time slices: each
quarter of the run drawn over the platform; 2900 columns are more than the base
shows, so each machine's column stacks its processes' shares of RUN, RSTEAL and
IDLE per time bin (aggregation in 3D, thesis section 7.2) (`python examples/thesis/fig6_16_2900_processes.py [OUT]`)."""

from common import TOPOLOGIES, quarters, run, save, shot
from triva3d.bases.readers import read_topology
from triva3d.generate import workstealing

TOPOLOGY = str(TOPOLOGIES / "g5k.dot")
CLUSTERS = ["AS_bordereau", "AS_sagittaire", "AS_pastel", "AS_helios", "AS_suno"]


def main(out):
    prog = workstealing(read_topology(TOPOLOGY), processes=2900, hosts=310, zones=CLUSTERS,
                        work=30.0, seed=5)
    trace, _ = save(prog, out, "g5k_2900.trace")
    return [(shot(trace, out, f"fig6_16_slice{q}.png", topology=TOPOLOGY, window=window,
                  link_opacity=0.12),
             f"Fig. 6.16: quarter {q} of the run ({window[0]:.1f}-{window[1]:.1f} s), "
             "2900 processes on 310 machines") for q, window in quarters(trace)]


if __name__ == "__main__":
    run(main)
