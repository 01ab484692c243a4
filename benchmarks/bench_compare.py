"""Comparing two runs (issue 32): `compare` of two synthetic Traces built in memory
(1e6 states, 1e5 messages, 1000 processes; see synth.py; different seeds) at the
processes and at the hosts, against building and rendering a View of one of them
(1280x720, treemap base). Best of 3 after compilation. Prints its figures.

Usage: python benchmarks/bench_compare.py [--states 1e6]
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from synth import make_trace  # noqa: E402

from triva3d import View, ViewState  # noqa: E402
from triva3d.analysis.compare import compare  # noqa: E402


def best(f, n=3):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=float, default=1e6)
    n = int(ap.parse_args().states)
    a, b = make_trace(n, n // 10, seed=1), make_trace(n, n // 10, seed=2)
    compare(make_trace(1000, 100), make_trace(1000, 100))  # compile
    View(a, ViewState(base="treemap", labels=False)).render()
    leaves = best(lambda: compare(a, b))
    hosts = best(lambda: compare(a, b, level="Host"))
    render = best(lambda: View(a, ViewState(base="treemap", labels=False)).render())
    print(f"compare two {n:.0e}-state runs: {leaves:.2f} s at the processes, {hosts:.2f} s "
          f"at the hosts; building and rendering a View of one: {render:.2f} s "
          f"(ratio {leaves / render:.2f})")


if __name__ == "__main__":
    main()
