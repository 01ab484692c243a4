"""Call paths (issue 30): `calltree` of a synthetic Trace built in memory (1e7
states on 1000 processes, every tenth nested in the one before; see synth.py),
best of 3 after compilation, with its peak extra memory against the states table
(resident, numba's arrays included: the peak RSS reset before the call),
then the same states shuffled (the nesting must be sorted out);
and a whole `triva3d calltree` process on the shared OTF2 ping-pong. Prints its
figures.

Usage: python benchmarks/bench_calltree.py [--states 1e7]
"""
import argparse
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from processes import ping_pong  # noqa: E402
from synth import make_trace  # noqa: E402

import numpy as np  # noqa: E402

from triva3d.analysis.calltree import calltree  # noqa: E402
from triva3d.trace import SCHEMA, Table  # noqa: E402

def _status(field):
    """A /proc/self/status field in bytes (VmRSS: resident now, VmHWM: its peak)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=float, default=1e7)
    a = ap.parse_args()
    n = int(a.states)
    tr = make_trace(n, 0, n_procs=1000)
    calltree(make_trace(1000, 0, n_procs=10))  # compile
    st = tr.states
    table = sum(getattr(st, c).nbytes for c in ("container", "type", "value", "start", "end",
                                                "imbrication"))
    times = []
    for _ in range(3):
        t = time.perf_counter()
        tree = calltree(tr)
        times.append(time.perf_counter() - t)
    summary = tree.summary()
    tracemalloc.start()
    calltree(tr)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    before = _status("VmRSS")
    with open("/proc/self/clear_refs", "w") as f:  # the peak RSS starts again from here
        f.write("5")
    del tree
    calltree(tr)
    extra = _status("VmHWM") - before
    print(f"calltree, {n:.0e} states by container and start ({summary}): best "
          f"{min(times):.2f} s, median {sorted(times)[1]:.2f} s; peak memory beyond the "
          f"trace {extra / 2**20:.0f} MiB resident ({peak / 2**20:.0f} MiB of numpy "
          f"arrays outside numba), the states table {table / 2**20:.0f} MiB; process "
          f"max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10:.0f} MiB")
    # the same states in other orders: by container and end (as a reader closes them),
    # and shuffled (the worst case): the nesting is sorted out
    for what, perm in (("by container and end", np.lexsort((st.end, st.container))),
                       ("shuffled", np.random.default_rng(0).permutation(n))):
        tr.states = Table("states", {c: getattr(st, c)[perm] for c in SCHEMA["states"]})
        t = time.perf_counter()
        calltree(tr)
        print(f"calltree, the same {n:.0e} states {what}: {time.perf_counter() - t:.2f} s")
    ping_pong("calltree", "c.csv")


if __name__ == "__main__":
    main()
