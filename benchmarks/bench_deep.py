"""A hierarchy as deep as it can be (issue 26.2): a chain of N nested containers,
each of its own type, a state and a variable on the deepest. Whole processes, each
timed and its peak resident memory read (GNU time's %M): `stats --no-cache` (parse,
simulate, write the cache, summarize), then from the cache `stats`, `treemap` (PNG)
and `render`. Before the fix, stats passed 24 GB and the treemap asked for 74.5 GiB.

Usage: python benchmarks/bench_deep.py [--depth 100000]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from test_deep import chain  # noqa: E402


def run(args, env):
    """Seconds and peak resident MB of `triva3d ARGS` as a whole process."""
    cmd = ["/usr/bin/time", "-f", "%M", sys.executable, "-m", "triva3d.cli", *args]
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - t
    if r.returncode:
        sys.exit(f"{' '.join(args)} failed: {r.stderr.strip()}")
    return seconds, int(r.stderr.strip().splitlines()[-1]) / 1024


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--depth", type=int, default=100_000)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, TRIVA3D_CACHE_DIR=d)
        trace = Path(d) / "chain.trace"
        trace.write_text(chain(a.depth))
        print(f"a chain of {a.depth} nested containers ({trace.stat().st_size / 1e6:.1f} MB)")
        for label, args in (("stats --no-cache", ["stats", str(trace), "--no-cache"]),
                            ("stats (cache)", ["stats", str(trace)]),
                            ("treemap (cache)", ["treemap", str(trace), "-o", f"{d}/t.png"]),
                            ("render (cache)", ["render", str(trace), "-o", f"{d}/r.png"])):
            seconds, mb = run(args, env)
            print(f"  {label:18s} {seconds:6.2f} s  peak {mb:6.0f} MB")


if __name__ == "__main__":
    main()
