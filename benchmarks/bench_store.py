"""The store's treemap and places in bounded memory (issue 34.4): a synthetic trace
(`synth.py`, 10 000 processes on 2 500 hosts, back-to-back states, every 10th nested,
a message between random processes for every 10 states) ingested once; then, each
in a fresh process, the whole process's time and peak RSS of `triva3d treemap STORE`
(the states reduced bucket by bucket by the engine, never all in memory) and of the
same treemap made from the whole store read into memory (store.read_store,
TimeSliceTreemap); the same for `triva3d place STORE --base appgraph` of the hosts'
communication graph in a window of 1 % of the run (the messages counted per pair by
engine.comm_pairs; Graphviz's sfdp lays out 2 500 nodes in both), and for `triva3d
render STORE --window` of that window (engine.read_part: the entities meeting it, and
what the whole run says of the palette and the base), and `triva3d render STORE` of the
whole run (drawn.py: the states a texel shows and the bundles drawn, reduced bucket by
bucket). An SVG needs no OpenGL; a PNG is drawn by VTK
(llvmpipe here, whose libraries take about 240 MB). Prints its figures.

Usage: python benchmarks/bench_store.py [--states 1e7]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

INGEST = ("import sys; sys.path.insert(0, sys.argv[1]); from synth import make_trace; "
          "from triva3d.store import ingest; "
          "n = int(sys.argv[2]); "
          "ingest(make_trace(n, n // 10, n_procs=10_000, nest=10), sys.argv[3])")
CLI = ["-m", "triva3d.cli", "treemap"]
#: Above this many states the whole-store comparison is not run (about 16 GB at 1e8).
WHOLE_MAX = 3e7
MEMORY = ["-c", "import sys; from triva3d.store import read_store; "
          "from triva3d.panels.treemap import TimeSliceTreemap, write; "
          "write(TimeSliceTreemap(read_store(sys.argv[1])), sys.argv[2], (1000, 1000))"]
PLACE = ["-m", "triva3d.cli", "place", "--base", "appgraph", "--graph-level", "Host"]
PLACE_WHOLE = ["-c", "import sys; from triva3d import load; "
               "from triva3d.bases.layout import make_layout; "
               "make_layout(load(sys.argv[1], cache=False), base='appgraph', level='Host', "
               "window=(float(sys.argv[2]), float(sys.argv[3])))"]
RENDER_WHOLE = ["-c", "import sys; from triva3d import load; from triva3d.view import View; "
                "from triva3d.viewstate import ViewState; "
                "View(load(sys.argv[1], cache=False), ViewState(window=(float(sys.argv[2]), "
                "float(sys.argv[3])))).save(sys.argv[4])"]

WHOLE_RUN = ["-c", "import sys; from triva3d import load; from triva3d.view import View; "
             "View(load(sys.argv[1], cache=False)).save(sys.argv[2])"]


def run(argv):
    """(seconds, peak RSS in MB) of a fresh Python process running `argv`."""
    t = time.perf_counter()
    p = subprocess.Popen([sys.executable, *argv], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        sys.exit(p.stderr.read().decode())
    return wall, usage.ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--states", type=float, default=1e7)
    n = int(ap.parse_args().states)
    with tempfile.TemporaryDirectory() as tmp:
        # (in a process of its own: a child forked from a big process counts its pages)
        wall, peak = run(["-c", INGEST, str(Path(__file__).parent), str(n), tmp + "/s"])
        print(f"{n:.0e} states made and ingested in {wall:.1f} s (peak RSS {peak:.0f} MB)")
        span = n / 10_000  # (synth.py: a second a state of each process)
        window = (0.5 * span, 0.51 * span)
        runs = [("treemap STORE -o OUT.svg (engine)", CLI + [tmp + "/s", "-o", tmp + "/a.svg"]),
                ("treemap STORE -o OUT.png (engine)", CLI + [tmp + "/s", "-o", tmp + "/a.png"]),
                ("place STORE --base appgraph (engine)",
                 PLACE + [tmp + "/s", "--csv", tmp + "/a.csv", "--graph-window",
                          "%r:%r" % window]),
                ("render STORE --window (1 %) (part)",
                 ["-m", "triva3d.cli", "render", tmp + "/s", "--window", "%r:%r" % window,
                  "-o", tmp + "/a.png"]),
                ("render STORE, the whole run (drawn)",
                 ["-m", "triva3d.cli", "render", tmp + "/s", "-o", tmp + "/w.png"])]
        if n <= WHOLE_MAX:
            runs += [("the same PNG, store read whole", MEMORY + [tmp + "/s", tmp + "/b.png"]),
                     ("the same places, store read whole",
                      PLACE_WHOLE + [tmp + "/s", *map(str, window)]),
                     ("the same render, store read whole",
                      RENDER_WHOLE + [tmp + "/s", *map(str, window), tmp + "/b.png"]),
                     ("the whole run's render, store read whole",
                      WHOLE_RUN + [tmp + "/s", tmp + "/v.png"])]
        else:
            print(f"  (the store read whole: skipped above {WHOLE_MAX:.0e} states, "
                  "its memory grows with them)")
        for what, argv in runs:
            runs = [run(argv) for _ in range(2)]
            print(f"  {what:36s} whole process {min(w for w, _ in runs):.2f} s, "
                  f"peak RSS {max(p for _, p in runs):.0f} MB")


if __name__ == "__main__":
    main()
