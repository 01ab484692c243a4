"""Thesis Figs. 6.17 to 6.19: Time-Slice treemaps of the hierarchy generator's runs.
The thesis's example (5 sites x 3 clusters x 100 machines x 4 processors over 20 s,
each leaf splitting its time between State-0 and State-1 along a cosine) at the
processors, then aggregated to the machines and the clusters; and a run of 100 000
processors at the clusters and at the processors
(`python examples/thesis/fig6_17_treemaps.py [OUT]`)."""

from common import run, save, treemap
from triva3d.generate import check_config, hierarchy


def levels(*counts):
    names = [("Site", "S"), ("Cluster", "C"), ("Machine", "M"), ("Processor", "P")]
    return [{"count": c, "name": n, "alias": a} for c, (n, a) in zip(counts, names)]


THESIS = {"levels": levels(5, 3, 100, 4), "duration": 20, "cosine-max-x-axis-value": 7.5}
BIG = {"levels": levels(10, 10, 250, 4), "duration": 20, "cosine-max-x-axis-value": 7.5}


def main(out):
    trace, _ = save(hierarchy(check_config(THESIS)), out, "hierarchy_6000.trace")
    shots = [(treemap(trace, out, "fig6_17_processors.png"),
              "Fig. 6.17: 6000 processors, State-0 and State-1 per processor")]
    for level, fig in (("Machine", "6.18"), ("Cluster", "6.18")):
        shots.append((treemap(trace, out, f"fig6_18_{level.lower()}.png", level=level),
                       f"Fig. {fig}: aggregated (sum) to the {level.lower()}s"))
    trace, _ = save(hierarchy(check_config(BIG)), out, "hierarchy_100000.trace")
    for level in ("Cluster", "Processor"):
        shots.append((treemap(trace, out, f"fig6_19_{level.lower()}.png", level=level),
                       f"Fig. 6.19: 100 000 processors, at the {level.lower()}s"))
    return shots


if __name__ == "__main__":
    run(main)
