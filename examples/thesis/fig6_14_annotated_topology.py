"""Thesis Fig. 6.14: the annotated topology. Two clusters of six hosts on 100 Mb/s
links, whose routers are joined by a 1 Mb/s link; 200 processes steal work, and a
slow link planted on the wide-area link makes the steals that cross it take 40 s:
long slanted lines over the thin edge (Fig. 6.21 is CPU overload, not this: see
fig6_21_cpu_overload.py)
(`python examples/thesis/fig6_14_annotated_topology.py [OUT]`)."""
from pathlib import Path

from common import run, save, shot
from triva3d.bases.readers import read_topology
from triva3d.generate import workstealing

MB = 1e6 / 8  # 1 Mb/s in bytes per second


def topology_dot():
    """Graphviz text: hosts x-1..6 on switch x of site x (100 Mb/s, 0.1 ms), the
    switches joined by a 1 Mb/s, 10 ms link."""
    lines = ['graph "annotated" {']
    for site in "ab":
        lines.append(f'  "{site}" [kind="switch", zone="grid/site{site.upper()}"];')
        for h in range(1, 7):
            lines.append(f'  "{site}-{h}" [kind="host", zone="grid/site{site.upper()}"];')
            lines.append(f'  "{site}-{h}" -- "{site}" [bandwidth="{100 * MB}", '
                         'latency="0.0001"];')
    lines.append(f'  "a" -- "b" [bandwidth="{MB}", latency="0.01"];')
    return "\n".join(lines + ["}"]) + "\n"


def main(out):
    dot = Path(out) / "annotated.dot"
    dot.write_text(topology_dot())
    prog = workstealing(read_topology(str(dot)), processes=200, work=30.0, seed=2,
                        slow_link="a,b", slow_latency=20.0)
    trace, _ = save(prog, out, "annotated.trace")
    return [(shot(trace, out, "fig6_14_top.png", topology=str(dot), view="top", labels=False,
                  link_opacity=0.05),
             "Fig. 6.14: the topology from above; edge width is bandwidth (100 Mb/s in "
             "the sites, 1 Mb/s between them)"),
            (shot(trace, out, "fig6_14_slow.png", topology=str(dot), link_opacity=0.9,
                  view="0,15", labels=False),
             "Fig. 6.14: 200 processes; steals across the 1 Mb/s link take 40 s")]


if __name__ == "__main__":
    run(main)
