"""Thesis Fig. 6.13: Time-Slice treemaps of a 100-process work-stealing run on two
sites, one per quarter of the run, aggregated to the hosts: RUN fills them until the
end, where RSTEAL and IDLE take over
(`python examples/thesis/fig6_13_time_slices.py [OUT]`)."""

from common import TOPOLOGIES, quarters, run, save, treemap
from triva3d.bases.readers import read_topology
from triva3d.generate import workstealing


def main(out):
    prog = workstealing(read_topology(str(TOPOLOGIES / "two_site_grid.dot")),
                        processes=100, work=20.0, seed=3)
    trace, _ = save(prog, out, "hundred.trace")
    return [(treemap(trace, out, f"fig6_13_slice{q}.png", window=window, level="Host"),
             f"Fig. 6.13: quarter {q} ({window[0]:.1f}-{window[1]:.1f} s), per host")
            for q, window in quarters(trace)]


if __name__ == "__main__":
    run(main)
