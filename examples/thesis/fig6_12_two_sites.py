"""Thesis Fig. 6.12: a work-stealing run on two Grid'5000-like sites (two clusters of
eight hosts joined by a 10 ms wide-area link), 60 processes, drawn over the network
at two time scales: the whole run, then its last tenth where the steals crowd
(`python examples/thesis/fig6_12_two_sites.py [OUT]`)."""

from common import TOPOLOGIES, run, save, shot
from triva3d.bases.readers import read_topology
from triva3d.generate import workstealing

TOPOLOGY = str(TOPOLOGIES / "two_site_grid.dot")


def main(out):
    prog = workstealing(read_topology(TOPOLOGY), processes=60, work=30.0, seed=1)
    trace, _ = save(prog, out, "two_sites.trace")
    end = trace.end_time
    return [(shot(trace, out, "fig6_12_whole.png", topology=TOPOLOGY),
             "Fig. 6.12: 60 processes stealing work on two sites, the whole run"),
            (shot(trace, out, "fig6_12_end.png", topology=TOPOLOGY,
                  window=(end * 0.9, end), link_opacity=0.9),
             "Fig. 6.12: the last tenth of the run, time stretched ten times: the steals")]


if __name__ == "__main__":
    run(main)
