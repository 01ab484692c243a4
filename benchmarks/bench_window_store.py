"""The desktop window on a store too big to open whole (issue 34.4; run under a
display: `xvfb-run -a python benchmarks/bench_window_store.py STORE`): the window
opens the part of its first entities (engine.read_for_view, store.PART_ROWS), the
overview strip showing the whole run's activity kept by ingest; then a window of 1 %
in the middle of the run is read as another part. Prints the time from start-up to
the first picture and to the second one, and the peak RSS after each (this whole
process: Qt, VTK and llvmpipe included). Make STORE with bench_store.py's synthetic
trace and `triva3d ingest`.

Usage: python benchmarks/bench_window_store.py STORE
"""
import os
import resource
import sys
import time

START = time.perf_counter()
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")  # (as `triva3d view` has it)


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    from PySide6 import QtWidgets

    from triva3d.gui.window import MainWindow
    from triva3d.viewstate import ViewState
    app = QtWidgets.QApplication([])
    QtWidgets.QMessageBox.information = lambda *a, **k: None  # (the keys' help)
    QtWidgets.QMessageBox.warning = lambda parent, title, text: sys.exit(text)
    w = MainWindow(ViewState())
    w.resize(1400, 900)
    w.show()

    def shown(done):
        while not done():
            app.processEvents()
            time.sleep(0.01)
        app.processEvents()
        w.grab()
    w.open_any(sys.argv[1])
    shown(lambda: w.trace is not None)
    tr = w.trace
    held = tr.whole.window if tr.whole is not None else (tr.start_time, tr.end_time)
    print(f"first picture: {time.perf_counter() - START:.1f} s from start-up, peak RSS "
          f"{peak_mb():.0f} MB ({len(tr.states)} states read, {held[0]:g} to {held[1]:g} "
          f"of {tr.start_time:g} to {tr.end_time:g})")
    a, b = tr.start_time, tr.end_time
    window = (a + 0.5 * (b - a), a + 0.51 * (b - a))
    t = time.perf_counter()
    w.state.window = window
    shown(lambda: w.trace.whole is None or w.trace.whole.window == window)
    print(f"a 1 % window in the middle: {time.perf_counter() - t:.1f} s, peak RSS "
          f"{peak_mb():.0f} MB ({len(w.trace.states)} states read)")
    w.close()


if __name__ == "__main__":
    main()
