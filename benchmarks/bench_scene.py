"""Scene and View benchmarks (software OpenGL is fine), 1280x720, on synthetic traces
built in memory: building a View for 1e6 states and 1e5 links; frames after camera
moves in level of detail (1e6 states) and with 1e5 exact boxes (and their moving
form, thick lines); the in-place updates a user waits for (moving the window,
hiding a value, changing the scale), each followed by a frame; aggregated columns
(1e6 states on 1e4 processes, 625 hosts: build, window moves, frames); fast and high
quality; and a warm `triva3d render` of g5k.trace on its platform. Prints its
figures.

Usage: python benchmarks/bench_scene.py [--states 1000000] [--links 100000] [--boxes 100000]
"""
import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from synth import make_trace  # noqa: E402

from triva3d import View, ViewState  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SIZE = (1280, 720)


def frames(view, moves=6):
    """Frames after camera moves (azimuth steps, zoom in and out): (best, median) s."""
    cam = view.renderer.GetActiveCamera()
    times = []
    for i in range(moves):
        cam.Azimuth(7)
        cam.Zoom(1.3 if i % 2 == 0 else 1 / 1.3)
        t = time.perf_counter()
        view.render()
        times.append(time.perf_counter() - t)
    return min(times), float(np.median(times))


def updates(view, change, n=5, frame=True):
    """`change(view.state, i)` then a frame (or the update alone), n times: (best,
    median) seconds."""
    times = []
    for i in range(n):
        t = time.perf_counter()
        change(view.state, i)
        view.render() if frame else view.update()
        times.append(time.perf_counter() - t)
    return min(times), float(np.median(times))


def line(what, best, median):
    print(f"{what:<62} best {best * 1e3:6.0f} ms, median {median * 1e3:6.0f} ms")


def window_steps(trace, width=0.5):
    """Windows of `width` of the trace sliding by a tenth of it."""
    t1 = trace.end_time

    def change(state, i):
        a = (0.1 + 0.08 * i) * t1
        state.window = (a, a + width * t1)
    return change


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=float, default=1e6)
    ap.add_argument("--links", type=float, default=1e5)
    ap.add_argument("--boxes", type=float, default=1e5)
    a = ap.parse_args()
    n, nl, nb = int(a.states), int(a.links), int(a.boxes)

    tr = make_trace(n, nl, n_procs=1000)
    View(tr, ViewState(base="treemap", labels=False), SIZE).render()  # compile numba kernels
    times = []
    for _ in range(3):
        t = time.perf_counter()
        v = View(tr, ViewState(base="treemap"), SIZE)
        times.append(time.perf_counter() - t)
    g = v.scene.geometry
    print(f"View build (layout + scene), {n:.0e} states ({g.states.mode}) + {nl:.0e} links, "
          f"1000 processes: best {min(times):.2f} s, median {np.median(times):.2f} s")
    v.render()
    line(f"frame after a move, {n:.0e} states (LOD) + {nl:.0e} links, still", *frames(v))
    v.scene.set_moving(True)
    line(f"frame after a move, {n:.0e} states (LOD) + {nl:.0e} links, moving", *frames(v))
    v.scene.set_moving(False)

    few = make_trace(n, nl // 10, n_procs=1000)
    v = View(few, ViewState(base="treemap"), SIZE)
    v.render()
    line(f"frame after a move, {n:.0e} states (LOD) + {nl // 10:.0e} links", *frames(v))
    line(f"window moved + frame, {n:.0e} states (LOD) + {nl // 10:.0e} links",
         *updates(v, window_steps(few)))
    line("  the update alone (geometry and actors)", *updates(v, window_steps(few), frame=False))
    v.state.window = None
    v.render()
    hide = lambda s, i: setattr(s, "hidden", (("Running", "MPI")[i % 2],))  # noqa: E731
    line(f"one state value hidden + frame, {n:.0e} states (LOD)", *updates(v, hide))
    line("  the update alone (geometry and actors)",  # starting on the other value
         *updates(v, lambda s, i: hide(s, i + 1), frame=False))
    line(f"time scale changed + frame, {n:.0e} states (LOD)",
         *updates(v, lambda s, i: setattr(s, "scale", 1.5 if i % 2 == 0 else 1.0)))

    tr = make_trace(nb, nl // 10, n_procs=1000)
    v = View(tr, ViewState(base="treemap"), SIZE)
    if v.scene.geometry.states.mode != "exact":
        print(f"{nb:.0e} boxes are drawn in level of detail: exact-box figures skipped")
        return
    v.render()
    line(f"frame after a move, {nb:.0e} exact boxes + {nl // 10:.0e} links, still", *frames(v))
    v.scene.set_moving(True)
    line(f"frame after a move, {nb:.0e} exact boxes + {nl // 10:.0e} links, moving",
         *frames(v))
    v.scene.set_moving(False)
    # a window of 90% of the trace keeps ~1e5 exact boxes in view
    line(f"window moved + frame, {nb:.0e} exact boxes", *updates(v, window_steps(tr, 0.9)))

    # aggregation in 3D (issue 28.5): 1e4 processes, 16 a host: 625 Host columns
    agg = make_trace(n, nl // 10, n_procs=10_000, procs_per_host=16)
    times = []
    for _ in range(3):
        t = time.perf_counter()
        v = View(agg, ViewState(base="treemap", labels=False), SIZE)
        v.render()
        times.append(time.perf_counter() - t)
    s = v.scene.geometry.states
    print(f"View build + frame, {n:.0e} states on 1e4 processes ({s.mode}: "
          f"{len(s.nodes)} columns, {s.bins} bins): best {min(times):.2f} s, "
          f"median {np.median(times):.2f} s")
    line(f"window moved + frame, {n:.0e} states aggregated to 625 hosts",
         *updates(v, window_steps(agg)))
    line("  the update alone (geometry and actors)", *updates(v, window_steps(agg), frame=False))
    line(f"frame after a move, {n:.0e} states aggregated", *frames(v))

    for q in ("fast", "high"):
        v = View(tr, ViewState(base="treemap"), SIZE, quality=q)
        v.render()
        line(f"frame after a move, {nb:.0e} exact boxes, quality {q}", *frames(v, 3))

    if (DATA / "paje/g5k.trace").exists():
        cmd = [sys.executable, "-m", "triva3d.cli", "render", str(DATA / "paje/g5k.trace"),
               "--topology", str(DATA / "platforms/g5k.xml"), "-o", "/tmp/triva3d-g5k.png"]
        runs = []
        for _ in range(3):  # the first run may lay out and cache; the others are warm
            t = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, env=dict(os.environ))
            runs.append(time.perf_counter() - t)
        print(f"triva3d render g5k.trace on g5k.xml, whole process: first {runs[0]:.2f} s, "
              f"warm {min(runs[1:]):.2f}-{max(runs[1:]):.2f} s")
    else:
        print(f"g5k render skipped: {DATA} not found")


if __name__ == "__main__":
    main()
