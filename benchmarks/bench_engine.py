"""The store's Time-Slice as Dask tasks (engine.py, issue 34.2/34.6): a synthetic
trace (`synth.py`, 10 000 processes, back-to-back states, every 10th nested) is
ingested once, then its states' Time-Slice (whole trace, and a 1 % window: the
pushdown skips the other time slices) is reduced in-process on threads, and on a
local cluster of 1 and of 2 worker processes (one thread each); against the
in-memory Slicer of the loaded trace; and the utilization at 1280 bins (the
overview's counts) over the store, against the in-memory interval index. Best of 3, after a first run. Prints its figures.

Usage: python benchmarks/bench_engine.py [--states 1e7] [--threads 1,2,4,8,16]
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from synth import make_trace  # noqa: E402

from triva3d.analysis.timeslice import Slicer  # noqa: E402
from triva3d.analysis.overview import Overview  # noqa: E402
from triva3d.engine import state_slice, utilization  # noqa: E402
from triva3d.store import ingest  # noqa: E402


def best(f, repeat=3):
    f()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--states", type=float, default=1e7)
    ap.add_argument("--threads", metavar="N,M,...",
                    help="instead: the store's slice and a 1 %% window on N, M... threads "
                         "here (how the engine scales over a machine's cores; no Dask)")
    a = ap.parse_args()
    n = int(a.states)
    if a.threads:
        return threads(n, [int(k) for k in a.threads.split(",")])
    tr = make_trace(n, 0, n_procs=10_000, nest=10)
    span = tr.end_time - tr.start_time
    windows = {"whole": None, "1 % window": (span / 2, span / 2 + span / 100)}
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        ingest(tr, tmp + "/s")
        print(f"{n:.0e} states ingested in {time.perf_counter() - t:.1f} s")
        sl = Slicer(tr)
        for what, w in windows.items():
            print(f"  in memory (Slicer), {what:11s} {best(lambda: sl.slice(w)):.3f} s")
        for what, w in windows.items():
            print(f"  store, threads here, {what:11s} "
                  f"{best(lambda: state_slice(tmp + '/s', w)):.3f} s")
        edges = np.linspace(tr.start_time, tr.end_time, 1281)
        counts = Overview(tr).counts()
        print(f"  utilization at 1280 bins: in memory (index made) "
              f"{best(lambda: counts.means(edges)):.4f} s, store on threads here "
              f"{best(lambda: utilization(tmp + '/s', edges)):.3f} s")
        import dask
        from distributed import LocalCluster
        for workers in (1, 2):
            with dask.config.set({"temporary-directory": tmp}), \
                    LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                 host="127.0.0.1", dashboard_address=None,
                                 local_directory=tmp) as c:
                for what, w in windows.items():
                    s = best(lambda: state_slice(tmp + "/s", w, address=c.scheduler_address))
                    print(f"  store, {workers} worker(s),   {what:11s} {s:.3f} s")


def threads(n, counts):
    tr = make_trace(n, 0, n_procs=10_000, nest=10)
    span = tr.end_time - tr.start_time
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        ingest(tr, tmp + "/s")
        print(f"{n:.0e} states ingested in {time.perf_counter() - t:.1f} s")
        edges = np.linspace(tr.start_time, tr.end_time, 1281)
        for k in counts:
            whole = best(lambda: state_slice(tmp + "/s", threads=k))
            part = best(lambda: state_slice(tmp + "/s", (span / 2, span / 2 + span / 100),
                                            threads=k))
            use = best(lambda: utilization(tmp + "/s", edges, threads=k))
            print(f"  {k:2d} threads: whole slice {whole:.3f} s, 1 % window {part:.3f} s, "
                  f"utilization at 1280 bins {use:.3f} s")


if __name__ == "__main__":
    main()
