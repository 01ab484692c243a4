"""Thesis Fig. 6.22: one state at a time, per machine. The Time-Slice treemap of a
work-stealing run of 200 processes on 50 machines of two Grid'5000 clusters,
aggregated to the machines, with RUN only, then RSTEAL only: where the work ran,
and where the processes waited for work to steal. Each picture fills its box with
the one value kept: compare machines within a picture; the captions give totals
(`python examples/thesis/fig6_22_run_rsteal.py [OUT]`)."""

from common import TOPOLOGIES, run, save, treemap
from triva3d.bases.readers import read_topology
from triva3d.generate import workstealing

TOPOLOGY = str(TOPOLOGIES / "g5k.dot")


def main(out):
    prog = workstealing(read_topology(TOPOLOGY), processes=200, hosts=50,
                        zones=["AS_bordeplage", "AS_sol"], work=10.0, seed=7)
    trace, _ = save(prog, out, "run_rsteal.trace")
    st = trace.states
    total = {v: float(sum((st.end - st.start)[st.value == c]
                          for c in trace.find("values", v).tolist()).sum())
             for v in ("RUN", "RSTEAL")}
    return [(treemap(trace, out, f"fig6_22_{value.lower()}.png", level="Host",
                     values=[value]),
             f"Fig. 6.22: {value} only, per machine (sum: {total[value]:.1f} s in all)")
            for value in ("RUN", "RSTEAL")]


if __name__ == "__main__":
    run(main)
