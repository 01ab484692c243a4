"""Time-Slice benchmarks: a new slice with aggregation for 1e7 states on 1e5
containers (a slider must stay live), the treemap layout of 1e5 leaves, and the
thesis's 100 000-processor synthetic hierarchy loaded and drawn as a treemap image
by `triva3d treemap` (a whole process, parsing the trace, then from its cache).
Prints its figures.

Usage: python benchmarks/bench_timeslice.py [--states 1e7] [--procs 100000]
(BENCH_OUT=DIR keeps the treemap images there.)
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from synth import make_trace  # noqa: E402

from triva3d.analysis.aggregate import aggregate  # noqa: E402
from triva3d.analysis.timeslice import Slicer  # noqa: E402
from triva3d.panels.treemap import TimeSliceTreemap  # noqa: E402
from triva3d.paje.defs import standard_header  # noqa: E402


def timed(f, repeat=7):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return out, min(times), float(np.median(times))


def hierarchy_trace(path, clusters=20, machines=50, procs=100, states=4):
    """Grid > cluster > machine > processor (100 000 processors by default), each
    processor Executing and Blocked in turn, `states` states over 0..states s."""
    lines = [standard_header(), '0 G 0 "Grid"\n0 C G "Cluster"\n0 M C "Machine"\n'
             '0 P M "Processor"\n2 S P "State"\n5 x S "Executing" "0 0.6 0"\n'
             '5 b S "Blocked" "0.8 0 0"\n6 0 g G 0 "grid"\n']
    rng = np.random.default_rng(1)
    for c in range(clusters):
        lines.append(f'6 0 c{c} C g "cluster-{c}"\n')
        for m in range(machines):
            lines.append(f'6 0 m{c}.{m} M c{c} "machine-{c}-{m}"\n')
            lines.extend(f'6 0 p{c}.{m}.{p} P m{c}.{m} "proc-{c}-{m}-{p}"\n'
                         for p in range(procs))
    n = clusters * machines * procs
    jitter = rng.uniform(0, 0.5, (states, n))
    k = 0
    for s in range(states):
        value = "x" if s % 2 == 0 else "b"
        t = s + jitter[s]
        for c in range(clusters):
            for m in range(machines):
                lines.extend(f"11 {t[k + p]:.6f} p{c}.{m}.{p} S {value}\n" for p in range(procs))
                k += procs
        k = 0
    lines.append(f"7 {states + 1} G g\n")
    Path(path).write_text("".join(lines))
    return n * states


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=float, default=1e7)
    ap.add_argument("--procs", type=int, default=100_000)
    a = ap.parse_args()

    tr = make_trace(int(a.states), 0, n_procs=a.procs)
    n_cont = len(tr.containers)
    t = time.perf_counter()
    slicer = Slicer(tr)
    prep = time.perf_counter() - t
    hosts = tr.level("Host")
    mid = tr.end_time / 2

    def new_slice():
        sl = slicer.slice((mid - 0.1 * mid, mid + 0.1 * mid))
        _, carriers = sl.metric("state:Running")
        return aggregate(tr, sl.states, carriers, "sum")[hosts]
    new_slice()
    _, best, med = timed(new_slice)
    print(f"slice + aggregation of every state value to {len(hosts)} hosts, "
          f"{len(tr.states):.0e} states on {n_cont} containers: best {best * 1e3:.0f} ms, "
          f"median {med * 1e3:.0f} ms (prepared once in {prep * 1e3:.0f} ms)")

    tm = TimeSliceTreemap(tr, (0, mid), values=["Running"], slicer=slicer)
    _, best, med = timed(lambda: tm._layout(tm.level, 1000.0, 1000.0, None))
    print(f"treemap layout of {len(tm.cell_rects)} leaf cells: best {best * 1e3:.0f} ms, "
          f"median {med * 1e3:.0f} ms")

    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / "processors.trace"
        t = time.perf_counter()
        n = hierarchy_trace(trace, procs=a.procs // 1000)
        print(f"wrote {n} states of {a.procs} processors in {time.perf_counter() - t:.1f} s "
              f"({trace.stat().st_size / 2**20:.0f} MiB)")
        env = dict(os.environ, TRIVA3D_CACHE_DIR=tmp)
        for level, run in ((None, "parsing the trace"), (None, "from the cache"),
                           ("Machine", "from the cache")):
            t = time.perf_counter()
            out = Path(os.environ.get("BENCH_OUT", tmp)) / f"processors-{level or 'leaves'}.png"
            subprocess.run([sys.executable, "-m", "triva3d.cli", "treemap", str(trace),
                            "-o", str(out)] + (["--level", level] if level else []),
                           check=True, env=env, capture_output=True)
            print(f"triva3d treemap of {a.procs} processors to PNG, cells at the "
                  f"{(level or 'processor').lower()} level ({run}): "
                  f"{time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    main()
