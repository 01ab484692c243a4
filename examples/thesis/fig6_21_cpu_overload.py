"""Thesis Fig. 6.21: CPU overload. 400 processes steal work on 50 two-CPU machines
of Grenoble's edel and Lyon's capricorne clusters (8 processes a machine: each runs
at a quarter of its speed, so the run lasts about four times what 400 CPUs would
take), beside the same run with one CPU a process. The Time-Slice treemap per
machine shows where the time goes; 3D, the run over the platform
(`python examples/thesis/fig6_21_cpu_overload.py [OUT]`)."""

from common import TOPOLOGIES, run, save, shot, treemap
from triva3d.bases.readers import read_topology
from triva3d.generate import workstealing

TOPOLOGY = str(TOPOLOGIES / "g5k.dot")
CLUSTERS = ["AS_edel", "AS_capricorne"]


def main(out):
    topo = read_topology(TOPOLOGY)
    shots = []
    for cpus, name in ((2, "overloaded"), (None, "one_cpu_each")):
        prog = workstealing(topo, processes=400, hosts=50, zones=CLUSTERS, work=10.0,
                            seed=6, cpus=cpus)
        trace, _ = save(prog, out, f"cpu_{name}.trace")
        what = ("2 CPUs a machine, 8 processes: overloaded" if cpus
                else "one CPU a process, for comparison")
        shots.append((shot(trace, out, f"fig6_21_{name}.png", topology=TOPOLOGY,
                           link_opacity=0.3),
                       f"Fig. 6.21: 400 processes on 50 machines, {what}, "
                       f"{trace.end_time:.1f} s"))
        if cpus:
            shots.append((treemap(trace, out, "fig6_21_treemap.png", level="Host"),
                          "Fig. 6.21: the overloaded run per machine (Time-Slice, sum)"))
    return shots


if __name__ == "__main__":
    run(main)
