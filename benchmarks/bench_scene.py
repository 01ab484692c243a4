"""Scene benchmarks (software OpenGL is fine): building the scene for 1e6 states and
1e5 links, frames after camera moves at 1280x720 in level of detail (1e6 states)
and with 1e5 exact boxes (and their moving form, thick lines), and a warm
`triva3d render` of g5k.trace on its platform. Prints its figures.

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

from triva3d.bases.layout import on_treemap  # noqa: E402
from triva3d.scene import view  # noqa: E402
from triva3d.scene.scene import Scene  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SIZE = (1280, 720)


def frames(scene, moves=6):
    """First frame, then frames after camera moves (azimuth steps, zoom in and out):
    (first, best, median) seconds."""
    rw, ren = view.offscreen_window(*SIZE)
    scene.add_to(ren)
    view.set_view(ren, scene.world_bounds(), *view.VIEWS["iso"])
    t = time.perf_counter()
    scene.fit_detail(ren)
    rw.Render()
    first = time.perf_counter() - t
    cam = ren.GetActiveCamera()
    times = []
    for i in range(moves):
        cam.Azimuth(7)
        cam.Zoom(1.3 if i % 2 == 0 else 1 / 1.3)
        ren.ResetCameraClippingRange()
        t = time.perf_counter()
        scene.fit_detail(ren)
        rw.Render()
        times.append(time.perf_counter() - t)
    return first, min(times), float(np.median(times))


def line(what, first, best_, median):
    print(f"frame, {what:<42} first {first * 1e3:7.0f} ms   after a move: best {best_ * 1e3:6.0f} ms,"
          f" median {median * 1e3:6.0f} ms")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=float, default=1e6)
    ap.add_argument("--links", type=float, default=1e5)
    ap.add_argument("--boxes", type=float, default=1e5)
    a = ap.parse_args()
    n, nl, nb = int(a.states), int(a.links), int(a.boxes)

    tr = make_trace(n, nl, n_procs=1000)
    lay = on_treemap(tr)
    Scene(tr, lay, labels=False)  # compile the numba kernels
    times = []
    for _ in range(3):
        t = time.perf_counter()
        sc = Scene(tr, lay)
        times.append(time.perf_counter() - t)
    print(f"scene build, {n:.0e} states ({sc.mode}, {sc.n_bins} bins) + {nl:.0e} links, "
          f"1000 processes: best {min(times):.2f} s, median {np.median(times):.2f} s")
    line(f"{n:.0e} states (LOD) + {nl:.0e} links, still", *frames(sc))
    sc.set_moving(True)
    line(f"{n:.0e} states (LOD) + {nl:.0e} links, moving", *frames(sc))
    small = make_trace(n, nl // 10, n_procs=1000)
    line(f"{n:.0e} states (LOD) + {nl // 10:.0e} links, still",
         *frames(Scene(small, on_treemap(small))))

    tr = make_trace(nb, nl // 10, n_procs=1000)
    lay = on_treemap(tr)
    sc = Scene(tr, lay)
    assert sc.mode == "exact"
    line(f"{nb:.0e} exact boxes + {nl // 10:.0e} links, still", *frames(sc))
    sc.set_moving(True)
    line(f"{nb:.0e} exact boxes + {nl // 10:.0e} links, moving", *frames(sc))

    for q in ("fast", "high"):
        rw, ren = view.offscreen_window(*SIZE, quality=q)
        sc = Scene(tr, lay)
        sc.add_to(ren)
        view.set_view(ren, sc.world_bounds(), *view.VIEWS["iso"])
        rw.Render()
        t = time.perf_counter()
        for _ in range(3):
            ren.GetActiveCamera().Azimuth(5)
            rw.Render()
        print(f"frame, {nb:.0e} exact boxes, --quality {q:<5}"
              f"                       {(time.perf_counter() - t) / 3 * 1e3:6.0f} ms")

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
