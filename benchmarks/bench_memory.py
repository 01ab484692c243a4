"""Peak memory of whole `render` and `place` processes against the Trace's own size.

    python benchmarks/bench_memory.py [--events 1e7] [--dir /tmp/triva3d-bench]

The synthetic trace (gen_trace.py) is written once into --dir and reused; every run
uses the cache folder --dir/cache (TRIVA3D_CACHE_DIR). Each figure comes from a fresh
process: a first load (which writes the cache if there is none), then a load from the
cache: the Trace's size (`trace.nbytes`) and the load's peak resident memory above
the interpreter's baseline (VmRSS after `import triva3d.cli`). Then, each as a whole
`triva3d` command run in a child that reads its own VmHWM at exit: `render` on the
treemap (level of detail, the default at this size), the same `--detail exact`,
`render --base appgraph`, `place --base appgraph --csv`, and `convert` to Pajé; first,
`render` of a 2e4-event trace: the floor (VTK, OpenGL) that any render pays. The ratio
is (peak minus baseline) / Trace size; the targets are <= 3x (<= 2x for `convert`). A run that fails or passes the time
limit (15 minutes) prints its last line, and the next one goes on.
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT = 15 * 60

# Runs `triva3d ARGS...` in this process and prints "MEM baseline peak nbytes" (bytes)
# on the last line of stdout; `load` instead only loads the trace and reports its size.
CHILD = r"""
import sys
def status(key):  # kB fields of /proc/self/status; VmHWM is this process's peak
    for line in open('/proc/self/status'):
        if line.startswith(key + ':'):
            return int(line.split()[1]) * 1024
import numpy, triva3d, triva3d.cli
base, nbytes, rc = status('VmRSS'), 0, 0
if sys.argv[1] == 'load':
    trace = triva3d.load(sys.argv[2])
    nbytes = trace.nbytes
    print('from cache' if trace.from_cache else 'parsed, cache written')
else:
    rc = triva3d.cli.main(sys.argv[1:])
print(f"MEM {base} {status('VmHWM')} {nbytes}", flush=True)
sys.exit(rc)
"""


def run(args, env):
    """((baseline, peak, nbytes) in bytes, the line before them), or (None, why it failed)."""
    try:
        p = subprocess.run([sys.executable, "-c", CHILD, *args], env=env, cwd=env["OUT"],
                           capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {TIMEOUT} s"
    lines = p.stdout.splitlines()
    if p.returncode != 0 or not lines or not lines[-1].startswith("MEM "):
        why = (p.stderr.strip().splitlines() or ["(no output)"])[-1]
        return None, f"failed (exit {p.returncode}): {why}"
    base, peak, nbytes = map(int, lines[-1].split()[1:])
    return (base, peak, nbytes), (lines[-2] if len(lines) > 1 else "")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--events", type=float, default=1e7)
    p.add_argument("--dir", default="/tmp/triva3d-bench")
    a = p.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    sys.path.insert(0, HERE)
    path = os.path.join(a.dir, f"synthetic-{a.events:.0e}.trace")
    countfile = path + ".events"
    if not (os.path.exists(path) and os.path.exists(countfile)):
        from gen_trace import generate
        t = time.perf_counter()
        open(countfile, "w").write(str(generate(int(a.events), path)))
        print(f"generated {path} in {time.perf_counter() - t:.1f} s")
    events = int(open(countfile).read())
    print(f"== {path}: {events} events, {os.path.getsize(path) / 2**20:.0f} MiB")
    out = os.path.join(a.dir, "memory-out")
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ, TRIVA3D_CACHE_DIR=os.path.join(a.dir, "cache"), OUT=out)
    MB = 2**20

    first, how = run(["load", path], env)
    if first is None:
        print(f"first load      {how}")
        return
    print(f"first load      {how}: peak {first[1] / MB:.0f} MB, "
          f"+{(first[1] - first[0]) / MB:.0f} MB above the baseline")
    cached, how = run(["load", path], env)
    if cached is None:
        print(f"cached load     {how}")
        return
    base, peak, size = cached
    print(f"Trace           {size / MB:.0f} MB (target: runs <= 3x this above the baseline)"
          f" = {size / events:.1f} B/event; interpreter baseline {base / MB:.0f} MB")
    print(f"cached load     {how}: peak {peak / MB:.0f} MB, +{(peak - base) / MB:.0f} MB "
          f"= {(peak - base) / size:.2f}x the Trace")
    small = os.path.join(a.dir, "small.trace")
    if not os.path.exists(small):
        from gen_trace import generate
        generate(2e4, small)
    cases = [("render 2e4 (the floor)", ["render", small, "-o", "out.png"]),
             ("render treemap, lod", ["render", path, "-o", "out.png", "--base", "treemap"]),
             ("render treemap, exact", ["render", path, "-o", "out.png", "--base", "treemap",
                                        "--detail", "exact"]),
             ("render appgraph", ["render", path, "-o", "out.png", "--base", "appgraph"]),
             ("place appgraph", ["place", path, "--base", "appgraph", "--csv", "out.csv"]),
             ("convert", ["convert", path, "-o", "out.trace"])]
    for name, args in cases:
        t = time.perf_counter()
        r, how = run(args, env)
        if r is None:
            print(f"{name:22s}  {how}")
            continue
        ratio = "" if args[1] == small else f" = {(r[1] - r[0]) / size:.2f}x the Trace"
        print(f"{name:22s}  peak {r[1] / MB:5.0f} MB, +{(r[1] - r[0]) / MB:5.0f} MB above "
              f"its baseline ({r[0] / MB:.0f} MB){ratio}; {time.perf_counter() - t:.0f} s")
    for name in ("out.png", "out.csv", "out.trace"):
        if os.path.exists(os.path.join(out, name)):
            os.remove(os.path.join(out, name))


if __name__ == "__main__":
    main()
