"""Desktop window benchmarks (run under a display: `xvfb-run -a python
benchmarks/bench_gui.py`): the overview strip of 1e7 states at one bin per pixel
(activity and image), and frames of the window's 3D view while the camera moves,
1e6 states through the level of detail (software OpenGL here). Prints its figures.

Usage: python benchmarks/bench_gui.py [--strip-states 1e7] [--states 1e6]
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from synth import make_trace  # noqa: E402


def best_median(times):
    return min(times) * 1e3, float(np.median(times)) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strip-states", type=float, default=1e7)
    ap.add_argument("--states", type=float, default=1e6)
    a = ap.parse_args()
    from PySide6 import QtWidgets
    app = QtWidgets.QApplication(sys.argv[:1])
    from triva3d import View, ViewState
    from triva3d.analysis.overview import Overview
    from triva3d.gui.strip import Strip

    tr = make_trace(int(a.strip_states), 0, n_procs=10000)
    ov = Overview(tr)
    ov.activity(1280)  # compile
    times = []
    for _ in range(5):
        t = time.perf_counter()
        ov.activity(1280)
        times.append(time.perf_counter() - t)
    print(f"overview activity, {a.strip_states:.0e} states, 1280 bins: "
          "best %.0f ms, median %.0f ms" % best_median(times))
    strip = Strip()
    strip.resize(1280, 80)
    strip.set_trace(ov, np.full((len(tr.values), 3), 200, np.uint8),
                    (tr.start_time, tr.end_time))
    times = []
    for _ in range(5):
        t = time.perf_counter()
        strip.image()
        times.append(time.perf_counter() - t)
    print(f"overview strip image (activity and stacking: on a new trace or width), "
          "1280x80: best %.0f ms, median %.0f ms" % best_median(times))
    strip.show()
    strip.repaint()
    times = []
    for i in range(10):  # the brush moves: the cached image and the brush are drawn
        strip.set_window((tr.end_time * i / 20, tr.end_time * (i + 5) / 20))
        strip.repaint()
        times.append(strip.paint_seconds)
    print(f"overview strip redraw as the brush moves, {a.strip_states:.0e} states: "
          "best %.1f ms, median %.1f ms   [target <= 50 ms]" % best_median(times))
    del tr, ov, strip

    from pyvistaqt import QtInteractor
    tr = make_trace(int(a.states), int(a.states) // 100, n_procs=1000)
    qi = QtInteractor(None, auto_update=False)
    qi.resize(1280, 720)
    qi.show()
    app.processEvents()
    v = View(tr, ViewState(base="treemap"), render_window=qi.ren_win, renderer=qi.renderer,
             legend=False)
    v.draw()
    cam = qi.renderer.GetActiveCamera()
    for moving in (True, False):
        v.scene.set_moving(moving)
        times = []
        for i in range(8):
            cam.Azimuth(4)
            cam.Zoom(1.1 if i % 2 else 1 / 1.1)
            t = time.perf_counter()
            v.draw()
            app.processEvents()
            times.append(time.perf_counter() - t)
        print(f"window frame after a camera step, {a.states:.0e} states (LOD), "
              f"{'moving' if moving else 'still'}: best %.0f ms, median %.0f ms"
              % best_median(times) + ("   [target <= 100 ms]" if moving else ""))


if __name__ == "__main__":
    main()
