"""Thesis Figs. 6.8 and 6.10: communication patterns in 3D, on the processes'
communication graph. Fig. 6.8: five processes in a ring that forwards only after it
receives (each message leaves when the one before has arrived: a staircase of
lines round the graph), all to all, and from a centre (star). Fig. 6.10: seven
processes down a hierarchical star (a tree, two children a node). Four rounds over
10 s (`python examples/thesis/fig6_08_patterns.py [OUT]`).

The thesis's captions are not quoted here: its text was not available when these
were written; the sizes and patterns are those the figures are described with."""

from common import run, save, shot
from triva3d.generate import check_config, hierarchy, pattern


def processes(n):
    return {"levels": [{"count": n, "name": "Process", "alias": "P"}], "duration": 10,
            "cosine-max-x-axis-value": 3.14159}


def main(out):
    shots = []
    for kind, fig, n, program, sequential in (
            ("ring", "6.8", 5, "circo", True), ("full", "6.8", 5, "circo", False),
            ("star", "6.8", 5, "twopi", False), ("hstar", "6.10", 7, "dot", False)):
        prog = pattern(hierarchy(check_config(processes(n))), kind, count=4, nchildren=2,
                       seed=1, sequential=sequential)
        trace, _ = save(prog, out, f"pattern_{kind}.trace")
        what = "a ring forwarding what it receives" if sequential else f"{kind} pattern"
        shots.append((shot(trace, out, f"fig6_{int(fig[2:]):02d}_{kind}.png",
                           base="appgraph", program=program, scale=0.8, view="20,55",
                           link_opacity=1.0), f"Fig. {fig}: {what}, {n} processes"))
    return shots


if __name__ == "__main__":
    run(main)
