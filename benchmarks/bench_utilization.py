"""Utilization queries (Traveler's fast summaries, issue 31.6): the activity of any
window at any pixel width from the overview's interval index (analysis.overview),
in-process, on synthetic Traces built in memory (`synth.py`: 10 000 processes,
back-to-back states, every 10th nested). Prints, per size: the index's build time
(after compilation) and bytes, and query times (best and median of 21) for the whole
trace at 1280 and 4000 bins, a 1 % window, a window of one state's length, and
random windows at random widths.

Usage: python benchmarks/bench_utilization.py [--sizes 1e6 1e7 1e8]
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from synth import make_trace  # noqa: E402

from triva3d.analysis.overview import Overview  # noqa: E402


def best_median(f, repeat=21):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times) * 1e3, float(np.median(times)) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e6, 1e7])
    args = ap.parse_args()
    Overview(make_trace(1000, 0, n_procs=10)).activity(10)  # compile
    for n in (int(s) for s in args.sizes):
        t = time.perf_counter()
        tr = make_trace(n, 0, n_procs=10_000)
        made = time.perf_counter() - t
        t = time.perf_counter()
        ov = Overview(tr)
        ov.index()
        built = time.perf_counter() - t
        t0, t1 = tr.start_time, tr.end_time
        span = t1 - t0
        print(f"{n:.0e} states ({made:.1f} s to make): index built in {built:.2f} s, "
              f"{ov.nbytes / 2**20:.0f} MiB ({ov.nbytes / n:.0f} B a state)")
        rng = np.random.default_rng(0)
        windows = [(a, a + w) for a, w in zip(rng.uniform(t0, t1, 21),
                                              span * 10 ** rng.uniform(-6, 0, 21))]
        widths = rng.integers(100, 4000, 21)
        it = iter(range(10 ** 9))
        for what, f in (
                ("whole trace, 1280 bins", lambda: ov.activity(1280)),
                ("whole trace, 4000 bins", lambda: ov.activity(4000)),
                ("1 % window, 1280 bins", lambda: ov.activity(1280, (t0 + span / 2,
                                                                     t0 + span * 0.51))),
                ("one state's length, 1280 bins", lambda: ov.activity(1280, (t0 + span / 3,
                                                                           t0 + span / 3 + 1))),
                ("random windows and widths",
                 lambda: (lambda k: ov.activity(int(widths[k]), windows[k]))(next(it) % 21))):
            b, m = best_median(f)
            print(f"  {what:32s} best {b:6.2f} ms  median {m:6.2f} ms")


if __name__ == "__main__":
    main()
