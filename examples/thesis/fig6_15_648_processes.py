"""Thesis Fig. 6.15: 648 processes stealing work across five clusters of Grid'5000
(Bordeaux's bordeplage, Lyon's capricorne, Grenoble's edel, Sophia's sol and
Rennes' paradent: 293 hosts), drawn over the whole platform
(`python examples/thesis/fig6_15_648_processes.py [OUT]`)."""

from common import TOPOLOGIES, run, save, shot
from triva3d.bases.readers import read_topology
from triva3d.generate import workstealing

TOPOLOGY = str(TOPOLOGIES / "g5k.dot")
CLUSTERS = ["AS_bordeplage", "AS_capricorne", "AS_edel", "AS_sol", "AS_paradent"]


def main(out):
    prog = workstealing(read_topology(TOPOLOGY), processes=648, zones=CLUSTERS, work=30.0,
                        seed=4)
    trace, _ = save(prog, out, "g5k_648.trace")
    return [(shot(trace, out, "fig6_15_648.png", topology=TOPOLOGY, link_opacity=0.12),
             "Fig. 6.15: 648 processes on five Grid'5000 clusters")]


if __name__ == "__main__":
    run(main)
