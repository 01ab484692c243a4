"""Thesis Figs. 6.17 to 6.19: Time-Slice treemaps of the hierarchy generator's runs,
each leaf splitting its time between State-0 and State-1 along a cosine. Figs.
6.17-6.18: 30 machines (2 sites x 3 clusters x 5 machines) at the machines, then
aggregated to the clusters and the sites. Fig. 6.19: 100 000 leaves (10 x 10 x 10 x
100 under one root, levels A to E) at each level from E up to A
(`python examples/thesis/fig6_17_treemaps.py [OUT]`)."""

from common import run, save, treemap
from triva3d.generate import check_config, hierarchy


def levels(names, counts):
    return [{"count": c, "name": n, "alias": n[0]} for n, c in zip(names, counts)]


SMALL = {"levels": levels(("Site", "Cluster", "Machine"), (2, 3, 5)), "duration": 20,
         "cosine-max-x-axis-value": 3.14159}
BIG = {"levels": levels("ABCDE", (1, 10, 10, 10, 100)), "duration": 20,
       "cosine-max-x-axis-value": 7.5}


def main(out):
    trace, _ = save(hierarchy(check_config(SMALL)), out, "hierarchy_30.trace")
    shots = [(treemap(trace, out, "fig6_17_machines.png", level="Machine"),
              "Fig. 6.17: 30 machines (2 x 3 x 5), State-0 and State-1 per machine")]
    for level in ("Cluster", "Site"):
        shots.append((treemap(trace, out, f"fig6_18_{level.lower()}.png", level=level),
                      f"Fig. 6.18: the 30 machines aggregated (sum) to the {level.lower()}s"))
    trace, _ = save(hierarchy(check_config(BIG)), out, "hierarchy_100000.trace")
    for level in "EDCBA":
        shots.append((treemap(trace, out, f"fig6_19_{level}.png", level=level),
                      f"Fig. 6.19: 100 000 leaves (10 x 10 x 10 x 100) at level {level}"))
    return shots


if __name__ == "__main__":
    run(main)
