"""OTF2 reading benchmark: writes archives of about N events with `otf2.writer`
(once, in /tmp/triva3d-bench): MPI ranks in a ring, and an OpenMP run (teams,
tasks, fork/join, lock records); reads each into the Trace in a fresh process and
prints events per second and memory; the `otf2` package's own Python reader is
timed on the MPI archive, against `triva3d stats` of it as a whole process.

Usage: python benchmarks/bench_otf2.py [--events 1e6]
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

CHILD = r"""
import json, sys, time
def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1]) * 1024
import numpy as np
from triva3d.otf2.reader import _nest, read_otf2
read_otf2(sys.argv[2])                      # the callbacks compiled
_nest(np.zeros((1, 6), np.int64), 0)        # the pairing kernel's machine code (5 MB)
before = rss("VmRSS:")
t = time.perf_counter()
tr = read_otf2(sys.argv[1])
dt = time.perf_counter() - t
print(json.dumps({"seconds": dt, "peak": rss("VmHWM:") - before, "trace": tr.nbytes,
                  "states": len(tr.states), "links": len(tr.links)}))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=float, default=1e6)
    a = ap.parse_args()
    import otf2
    import otf2gen
    root = Path("/tmp/triva3d-bench")
    small = root / "otf2-ring"
    if not (small / "traces.otf2").exists():
        otf2gen.mpi_ring(small)
    for what, write in (("MPI", otf2gen.big), ("OpenMP", otf2gen.openmp_big)):
        big = root / f"otf2-{what}-{int(a.events)}"
        if not (big / "traces.otf2").exists():
            t = time.perf_counter()
            n = write(big, int(a.events))
            print(f"wrote {n} events with otf2.writer in {time.perf_counter() - t:.1f} s")
        with otf2.reader.open(str(big / "traces.otf2")) as tr:
            events = sum(loc.number_of_events for loc in tr.definitions.locations)
        size = sum(f.stat().st_size for f in big.rglob("*") if f.is_file())
        print(f"{what} archive: {events} events, {size / 2**20:.1f} MiB")
        for run in range(3):
            out = subprocess.run([sys.executable, "-c", CHILD, str(big), str(small)],
                                 check=True, capture_output=True, text=True).stdout
            r = json.loads(out)
            print(f"triva3d read {run + 1}: {r['seconds']:.3f} s = "
                  f"{events / r['seconds'] / 1e6:.2f} M events/s; peak memory "
                  f"{r['peak'] / events:.0f} B/event, Trace {r['trace'] / events:.0f} B/event "
                  f"({r['states']} states, {r['links']} links)")
    big = root / f"otf2-MPI-{int(a.events)}"
    t = time.perf_counter()
    with otf2.reader.open(str(big / "traces.otf2")) as tr:
        n = sum(1 for _ in tr.events)
    dt = time.perf_counter() - t
    print(f"otf2 package's Python reader, iterating only: {dt:.2f} s = {n / dt / 1e6:.2f} "
          f"M events/s")
    whole = []
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "triva3d.cli", "stats", "--no-cache",
                        str(big / "traces.otf2")], check=True, capture_output=True)
        whole.append(time.perf_counter() - t)
    print(f"triva3d stats, whole process (start-up, read, summary): best {min(whole):.2f} s, "
          f"{dt / min(whole):.1f}x the otf2 reader's iteration")


if __name__ == "__main__":
    os.environ.setdefault("TRIVA3D_CACHE_DIR", "/tmp/triva3d-bench/cache")
    main()
