"""Start-up, whole process: `triva3d --help`, `triva3d stats` of a 10-line trace
(first run, which parses, and warm, from the cache), `import triva3d` alone and its
resident memory (best and median of 5 runs); then `make demo`'s command as after an
install (numba's kernels and the trace's cache cold: once) and warm (3 runs), with
when the note that kernels compile came. Prints its figures.

Usage: python benchmarks/bench_startup.py
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from conftest import HEADER  # noqa: E402
from triva3d.kernels import MESSAGE  # noqa: E402

DEMO = ["render", "examples/small.trace", "--topology", "topologies/two_site_grid.dot",
        "--mapping", "examples/small_on_two_site_grid.csv"]

TRACE = HEADER + """0 P 0 "Process"
2 S P "State"
6 0 p1 P 0 "P1"
11 1 p1 S run
12 2 p1 S io
13 3 p1 S
7 4 P p1
"""


def timed(cmd, env, runs=5, before=None):
    times = []
    for _ in range(runs):
        if before:
            before()
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - t)
    return min(times), float(np.median(times))


def peak_mb(code, env):
    """Peak resident memory of a Python process running `code` (VmHWM; ru_maxrss
    would count the parent's pages across fork and exec)."""
    code += "\nprint(next(l for l in open('/proc/self/status') if l.startswith('VmHWM')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout
    return int(out.split()[1]) / 1024


def demo(cli, env, out):
    """Seconds of `make demo`'s command, and to its note that kernels compile (None:
    no note)."""
    t, noted = time.perf_counter(), None
    p = subprocess.Popen(cli + DEMO + ["-o", out], cwd=ROOT, env=env, text=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for line in p.stderr:
        if noted is None and MESSAGE in line:
            noted = time.perf_counter() - t
    if p.wait():
        raise SystemExit(f"the demo failed ({p.returncode})")
    return time.perf_counter() - t, noted


def main():
    cli = [sys.executable, "-m", "triva3d.cli"]
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, TRIVA3D_CACHE_DIR=os.path.join(d, "cache"))
        path = Path(d) / "ten.trace"
        path.write_text(TRACE)
        caches = Path(d) / "cache"
        print("triva3d --help                     best %.2f s, median %.2f s"
              % timed(cli + ["--help"], env))
        print("triva3d stats, 10-line trace, warm best %.2f s, median %.2f s"
              % timed(cli + ["stats", str(path)], env))
        print("triva3d stats, first run (parses)  best %.2f s, median %.2f s"
              % timed(cli + ["stats", str(path)], env, before=lambda: shutil.rmtree(caches, True)))
        print("import triva3d                     best %.2f s, median %.2f s, %.0f MB resident"
              % (*timed([sys.executable, "-c", "import triva3d"], env),
                 peak_mb("import triva3d", env)))
        print("import triva3d.colors              %.0f MB resident"
              % peak_mb("import triva3d.colors", env))
        env = dict(env, NUMBA_CACHE_DIR=os.path.join(d, "numba"))
        shutil.rmtree(caches, True)
        out = os.path.join(d, "demo.png")
        seconds, noted = demo(cli, env, out)
        print(f"make demo's command, first run (kernels compile)  {seconds:.1f} s, the note "
              + (f"after {noted:.1f} s" if noted is not None else "missing"))
        warm = [demo(cli, env, out) for _ in range(3)]
        print("make demo's command, warm                        best %.1f s, median %.1f s%s"
              % (min(w[0] for w in warm), float(np.median([w[0] for w in warm])),
                 "" if all(w[1] is None for w in warm) else ", with the note (!)"))


if __name__ == "__main__":
    main()
