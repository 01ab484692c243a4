"""Thesis Fig. 6.23: the VPN site. 120 processes steal work over three Grid'5000
sites, one of which (Sophia) is reached through a VPN that adds 5 s to every message
in or out of it: its steals are long slanted lines and its processes' RSTEAL bars
tall, over the platform (`python examples/thesis/fig6_23_vpn_site.py [OUT]`)."""

from common import TOPOLOGIES, run, save, shot, treemap
from triva3d.bases.readers import read_topology
from triva3d.generate import workstealing

TOPOLOGY = str(TOPOLOGIES / "g5k.dot")


def main(out):
    prog = workstealing(read_topology(TOPOLOGY), processes=120, hosts=60,
                        zones=["AS_bordeplage", "AS_capricorne", "AS_sol"], work=10.0,
                        seed=8, slow_site="AS_sophia", slow_latency=5.0)
    trace, _ = save(prog, out, "vpn.trace")
    return [(shot(trace, out, "fig6_23_vpn.png", topology=TOPOLOGY, link_opacity=0.6),
             "Fig. 6.23: Sophia behind a VPN (5 s more a message): its steals stand out"),
            (treemap(trace, out, "fig6_23_treemap.png", level="Site"),
             "Fig. 6.23: per site (Time-Slice, sum): Sophia's RSTEAL share")]


if __name__ == "__main__":
    run(main)
