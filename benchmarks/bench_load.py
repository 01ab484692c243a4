"""Load speed and memory of the Pajé reader, dump speed, cache reload, `convert`, warm
`stats`, definitions alone, and against PajeNG's `pj_dump -q` where it is installed.

    python benchmarks/bench_load.py [--sizes 1e6 1e7] [--dir /tmp/triva3d-bench]

Each figure comes from a fresh process. Peak memory is the process's peak resident
set during the load minus its resident set just before (after imports and compiled
code are loaded), divided by the number of event lines.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = r"""
import os, sys, time
import numpy as np
import triva3d
from triva3d.paje.reader import read_paje
from triva3d.dump import dump
from triva3d import cache
path, small, events = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(os.devnull, 'wb') as f:                  # compiled code in memory (the
    dump(read_paje(small), f)                      # reader's, and numba's for dump)
def status(key):  # kB fields of /proc/self/status; VmHWM is this process's peak
    for line in open('/proc/self/status'):
        if line.startswith(key + ':'):
            return int(line.split()[1]) * 1024
before = status('VmRSS')
t = time.perf_counter()
trace = read_paje(path)
load = time.perf_counter() - t
peak = status('VmHWM')
print(f"load      {events:.3g} events in {load:.2f} s = {events / load / 1e6:.2f} M events/s")
print(f"memory    peak +{(peak - before) / 2**20:.0f} MiB = {(peak - before) / events:.1f} B/event"
      f" (Trace itself {trace.nbytes / events:.1f} B/event)")
t = time.perf_counter()
with open(os.devnull, 'wb') as f:
    lines = dump(trace, f)
d = time.perf_counter() - t
print(f"dump      {lines} lines in {d:.2f} s = {lines / d / 1e6:.2f} M lines/s")
os.environ['TRIVA3D_CACHE_DIR'] = os.path.join(os.path.dirname(path), 'cache')
t = time.perf_counter()
cache.write(trace, 'strict')
w = time.perf_counter() - t
del trace
t = time.perf_counter()
again = cache.read(path, 'strict')
r = time.perf_counter() - t
assert again is not None
print(f"cache     written in {w:.2f} s, reloaded in {r:.2f} s = {load / r:.0f}x faster than parsing")
"""


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", nargs="+", type=float, default=[1e6, 1e7])
    p.add_argument("--dir", default="/tmp/triva3d-bench")
    a = p.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    sys.path.insert(0, HERE)
    from gen_trace import generate
    small = os.path.join(a.dir, "small.trace")
    generate(2e4, small)
    for n in a.sizes:
        path = os.path.join(a.dir, f"synthetic-{n:.0e}.trace")
        countfile = path + ".events"
        if not (os.path.exists(path) and os.path.exists(countfile)):
            t = time.perf_counter()
            events = generate(int(n), path)
            open(countfile, "w").write(str(events))
            print(f"generated {path} ({os.path.getsize(path) / 2**20:.0f} MiB) in "
                  f"{time.perf_counter() - t:.1f} s")
        events = int(open(countfile).read())
        print(f"== {path}: {events} events, {os.path.getsize(path) / 2**20:.0f} MiB")
        subprocess.run([sys.executable, "-c", CHILD, path, small, str(events)], check=True)
        # `triva3d convert` as a whole process, from the cache the child wrote
        env = dict(os.environ, TRIVA3D_CACHE_DIR=os.path.join(a.dir, "cache"))
        out = os.path.join(a.dir, "converted.trace")
        for what, cmd in (("stats", ["stats", path]), ("convert", ["convert", path, "-o", out])):
            t = time.perf_counter()
            r = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-m", "triva3d.cli"]
                               + cmd, env=env, check=True, capture_output=True, text=True)
            seconds, peak = time.perf_counter() - t, int(r.stderr.split()[-1]) / 1024
            if what == "stats":
                floor = peak
                continue
            lines = sum(1 for _ in open(out, "rb"))
            print(f"convert   {lines / 1e6:.2f} M lines in {seconds:.2f} s (whole process, from "
                  f"the cache) = {lines / seconds / 1e6:.2f} M lines/s; peak {peak:.0f} MiB, "
                  f"{peak - floor:.0f} MiB above a `stats` of the same cached Trace")
        os.remove(out)
        _versus_pj_dump(path, env)
    # a warm `triva3d stats` on a small trace: a whole process, compiled code from cache
    env = dict(os.environ, TRIVA3D_CACHE_DIR=os.path.join(a.dir, "cache"))
    cmd = [sys.executable, "-m", "triva3d.cli", "stats", "--no-cache", small]
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    best = min(_timed(cmd, env) for _ in range(3))
    print(f"stats     warm `triva3d stats --no-cache` on a {os.path.getsize(small) // 1024} KiB "
          f"trace: {best:.2f} s (process start to exit)")
    # definitions alone (issue 17: each one rebuilt the kernel's tables, 1e5 did not end)
    sys.path.insert(0, os.path.join(HERE, "..", "tests"))
    from conftest import HEADER
    path = os.path.join(a.dir, "definitions.trace")
    cmd = [sys.executable, "-m", "triva3d.cli", "stats", "--no-cache", path]
    for what, body in (
            ("the header alone (the process's floor)", ""),
            ("1e5 container types", "".join(f'0 T{i} 0 "Type {i}"\n' for i in range(100000))),
            ("1e5 state values", '0 P 0 "P"\n2 S P "S"\n' + "".join(
                f'5 v{i} S "Value {i}" "1 0 0"\n' for i in range(100000))),
            ("1e4 %EventDef ids", "".join(
                f"%EventDef PajeNewEvent {100 + i}\n% Time date\n% Container string\n"
                f"% Type string\n% Value string\n%EndEventDef\n" for i in range(10000)))):
        open(path, "w").write(HEADER + body)
        print(f"defs      {what}: `triva3d stats --no-cache` in "
              f"{min(_timed(cmd, env) for _ in range(2)):.2f} s")


def _versus_pj_dump(path, env, runs=3):
    """`triva3d stats --no-cache` and PajeNG's `pj_dump -q`, whole processes, taken in
    turn (a busy machine slows both alike); medians, when pj_dump is installed."""
    if not shutil.which("pj_dump"):
        print("pj_dump   not installed (apt-get install pajeng): no comparison")
        return
    ours = [sys.executable, "-m", "triva3d.cli", "stats", "--no-cache", path]
    theirs = ["pj_dump", "-q", path]
    _timed(ours, env)  # compiled kernels loaded once
    times = [(_timed(ours, env), _timed(theirs, env)) for _ in range(runs)]
    a, b = (statistics.median(t) for t in zip(*times))
    print(f"pj_dump   `triva3d stats --no-cache` {a:.2f} s, `pj_dump -q` {b:.2f} s (medians of "
          f"{runs}, in turn): pj_dump's time / ours {b / a:.1f}; per run "
          + ", ".join(f"{y / x:.1f}" for x, y in times))


def _timed(cmd, env):
    t = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
