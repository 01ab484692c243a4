"""Thesis Figs. 6.8 and 6.10: communication patterns in 3D. Sixteen processes on four
machines exchange messages in a ring, all to all, from a centre (star) and down a
tree of three children per node (hierarchical star), four rounds over 10 s, drawn on
their communication graph (`python examples/thesis/fig6_08_patterns.py [OUT]`)."""

from common import run, save, shot
from triva3d.generate import check_config, hierarchy, pattern

CONFIG = {"levels": [{"count": 4, "name": "Machine", "alias": "M"},
                     {"count": 4, "name": "Process", "alias": "P"}],
          "duration": 10, "cosine-max-x-axis-value": 3.14159}


def main(out):
    shots = []
    # Graphviz programs that show each pattern's shape
    for kind, fig, program in (("ring", "6.8", "circo"), ("full", "6.8", "circo"),
                               ("star", "6.8", "twopi"), ("hstar", "6.10", "twopi")):
        prog = pattern(hierarchy(check_config(CONFIG)), kind, count=4, nchildren=3, seed=1)
        trace, _ = save(prog, out, f"pattern_{kind}.trace")
        shots.append((shot(trace, out, f"fig6_08_{kind}.png", base="appgraph", program=program, scale=0.8, view="20,55",
                           link_opacity=1.0), f"Fig. {fig}: {kind} pattern, 16 processes"))
    return shots


if __name__ == "__main__":
    run(main)
