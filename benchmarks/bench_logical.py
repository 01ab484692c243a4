"""Logical time (issue 29): `steps` of a synthetic Trace built in memory (2e6 states,
1e6 messages between 1000 processes; see synth.py), without and with clustering
(best of 3, after compilation), its peak memory (tracemalloc: numpy's arrays)
against the links table, and a whole `triva3d steps` process on the shared OTF2
ping-pong. Prints its figures.

Usage: python benchmarks/bench_logical.py [--states 2e6] [--links 1e6]
"""
import argparse
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from processes import ping_pong  # noqa: E402
from synth import make_trace  # noqa: E402

from triva3d import steps  # noqa: E402

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=float, default=2e6)
    ap.add_argument("--links", type=float, default=1e6)
    a = ap.parse_args()
    tr = make_trace(int(a.states), int(a.links), n_procs=1000)
    steps(make_trace(1000, 100, n_procs=10), n_clusters=2)  # compile
    for k in (None, 8):
        times = []
        for _ in range(3):
            t = time.perf_counter()
            s = steps(tr, n_clusters=k)
            times.append(time.perf_counter() - t)
        print(f"steps, {a.states:.0e} states + {a.links:.0e} messages, clusters {k}: "
              f"best {min(times):.2f} s ({s.summary()})")
    tracemalloc.start()
    steps(tr)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"steps' peak memory {peak / 2**20:.0f} MiB, the links table "
          f"{tr.links.nbytes / 2**20:.0f} MiB ({peak / tr.links.nbytes:.2f}x)")
    ping_pong("steps", "s.csv")


if __name__ == "__main__":
    main()
