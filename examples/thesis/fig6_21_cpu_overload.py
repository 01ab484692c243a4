"""Thesis Fig. 6.21: CPU overload. 400 processes steal work on 50 two-CPU machines
of Grenoble's edel and Lyon's capricorne clusters (8 processes a machine: each runs
at a quarter of its speed, so the run lasts about four times what 400 CPUs would
take), beside the same run with one CPU a process, both on the overloaded run's
time scale: the second ends a quarter of the way up

(`python examples/thesis/fig6_21_cpu_overload.py [OUT]`)."""

from common import TOPOLOGIES, run, save, shot
from triva3d.bases.readers import read_topology
from triva3d.generate import workstealing

TOPOLOGY = str(TOPOLOGIES / "g5k.dot")
CLUSTERS = ["AS_edel", "AS_capricorne"]


def main(out):
    topo = read_topology(TOPOLOGY)
    shots, window = [], None
    for cpus, name in ((2, "overloaded"), (None, "one_cpu_each")):
        prog = workstealing(topo, processes=400, hosts=50, zones=CLUSTERS, work=10.0,
                            seed=6, cpus=cpus)
        trace, _ = save(prog, out, f"cpu_{name}.trace")
        window = window or (0.0, trace.end_time)  # the overloaded run's
        what = ("2 CPUs a machine, 8 processes: overloaded" if cpus
                else "one CPU a process, on the same time scale")
        shots.append((shot(trace, out, f"fig6_21_{name}.png", topology=TOPOLOGY,
                           link_opacity=0.3, window=window),
                       f"Fig. 6.21: 400 processes on 50 machines, {what}: the run lasts "
                       f"{trace.end_time:.1f} s"))
    return shots


if __name__ == "__main__":
    run(main)
