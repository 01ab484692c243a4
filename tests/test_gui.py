"""The desktop window, for real: PySide6 and pyvistaqt under Xvfb (pytest-xvfb starts
it), driven with pytest-qt's mouse and keys, its 3D frames read back from VTK."""
import html
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pytestqt")
if not os.environ.get("DISPLAY"):
    pytest.skip("no display: Xvfb is not installed (see .ci/run)", allow_module_level=True)

from PySide6 import QtCore, QtGui, QtWidgets  # noqa: E402

from triva3d import ViewState  # noqa: E402
from triva3d.gui.window import Loader, MainWindow  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "examples/small.trace"
#: A wait ends as soon as what it waits for happens; its bound only turns a hang into a
#: failure, far beyond what a loaded machine takes (durations: benchmarks/bench_gui.py).
PATIENCE_MS = 300_000
BASE = {"topology": str(ROOT / "topologies/two_site_grid.dot"),
        "mapping": str(ROOT / "examples/small_on_two_site_grid.csv")}


#: Error dialogs no test expected (a test that expects one records it instead).
UNEXPECTED = []


@pytest.fixture(autouse=True)
def no_modal_dialog(monkeypatch):
    """An error dialog no test expects fails the test with its message, where a modal
    dialog waited for a click forever."""
    UNEXPECTED.clear()
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning",
                        lambda parent, title, text: UNEXPECTED.append(text))
    yield
    assert not UNEXPECTED, f"error dialog: {UNEXPECTED[0]}"


@pytest.fixture(autouse=True)
def collected():
    """Each test's windows are freed here, in the GUI thread, not by a garbage
    collection that happens to run in a later test's loader thread."""
    yield
    import gc
    gc.collect()


def opened(qtbot, path=SMALL, **fields):
    """A main window showing `path` on `fields` (ViewState), once loaded."""
    w = MainWindow(ViewState(**fields))
    qtbot.addWidget(w)
    w.resize(1300, 850)
    w.show()
    qtbot.waitExposed(w)
    w.open_trace(str(path))
    qtbot.waitUntil(lambda: w.trace is not None or bool(UNEXPECTED), timeout=PATIENCE_MS)
    assert not UNEXPECTED, f"error dialog: {UNEXPECTED[0]}"
    w.redraw()
    return w


def near(img, rgb, tol=3):
    return int((np.abs(img.astype(int) - np.asarray(rgb, int)).max(axis=2) <= tol).sum())


def test_open_a_real_trace_with_its_platform(qtbot, data):
    w = opened(qtbot, data / "paje/ms.trace",
               topology=str(data / "platforms/small_platform.xml"))
    assert w.windowTitle() == "triva3d: ms.trace"
    g = w.geometry
    assert len(g.profiles.rows) > 0 and w.view.layout.base == "topology"
    img = w.view.render()  # the window's own frame
    assert img.shape[:2] == tuple(reversed(w.interactor.ren_win.GetSize()))
    # the legend dock lists the values, the overview strip is drawn
    names = [w.legend_dock.tree.topLevelItem(i).text(0)
             for i in range(w.legend_dock.tree.topLevelItemCount())]
    assert {"pcompute", "start_send_tasks"} <= set(names)
    # ...and the picture's keys that are no swatch of the list (the 3D view of the
    # window draws no legend): what the profiles are relative to, what edges show
    keys = [html.unescape(re.sub("<[^>]+>", "", k)).lstrip("\u25a0 ")
            for k in w.legend_dock.keys.text().split("<br>")]
    assert "bcompute (of bandwidth), pcompute (of power)" in keys
    assert "task_creation (of its max 19)" in keys
    assert keys[-1] == "edges: width bandwidth, colour latency"
    assert not any(k.startswith("start_send_tasks") for k in keys)
    assert w.treemap_dock.treemap is not None


def test_the_brush_sets_the_window(qtbot):
    w = opened(qtbot, **BASE)
    strip = w.time_dock.strip
    before = w.view.render()
    width = strip.width()
    y = strip.height() // 2
    qtbot.mousePress(strip, QtCore.Qt.LeftButton, pos=QtCore.QPoint(width // 4, y))
    qtbot.mouseMove(strip, pos=QtCore.QPoint(width // 2, y))
    qtbot.mouseRelease(strip, QtCore.Qt.LeftButton, pos=QtCore.QPoint(width // 2, y))
    t0, t1 = w.state.window
    tr = w.trace
    span = tr.end_time - tr.start_time
    assert t0 == pytest.approx(tr.start_time + span / 4, rel=0.02)
    assert t1 == pytest.approx(tr.start_time + span / 2, rel=0.02)
    qtbot.waitUntil(lambda: w.geometry.frame.t0 == t0, timeout=PATIENCE_MS)
    after = w.view.render()
    assert (np.abs(after.astype(int) - before.astype(int)).sum(axis=2) > 30).mean() > 0.02
    qtbot.waitUntil(lambda: w.treemap_dock.treemap.t0 == pytest.approx(t0), timeout=PATIENCE_MS)
    assert w.time_dock.t0.value() == pytest.approx(t0)
    # typing exact times works too
    w.time_dock.t0.setValue(0.1)
    w.time_dock.t1.setValue(0.2)
    w.time_dock.t1.editingFinished.emit()
    assert w.state.window == (0.1, 0.2)


def test_a_click_picks_the_state_drawn_there(qtbot):
    """From above, a column's top shows the value that takes most of the time of
    its highest stack of states; a click there shows that value's longest state in
    the stack (worked out from the Trace) in the details dock and outlines it."""
    w = opened(qtbot, view="top", labels=False, **BASE)
    g, lay, st = w.geometry, w.view.layout, w.trace.states
    proj = w.view.projection
    w.view.render()
    c = int(w.trace.find("containers", "rank-5")[0])
    rows = g.states.rows[st.container[g.states.rows] == c]
    end = np.minimum(st.end[rows], g.frame.t1)
    time = end - np.maximum(st.start[rows], g.frame.t0)
    last = rows[np.lexsort((st.imbrication[rows], end))[-1]]
    lane = g.cols.of_state[last]
    stack = (g.cols.of_state[rows] == lane) & (st.imbrication[rows] == st.imbrication[last])
    total = np.bincount(st.value[rows[stack]], weights=time[stack])
    mine = stack & (st.value[rows] == np.argmax(total))
    top = rows[mine][np.argmax(time[mine])]
    x, y, _, _ = g.cols.footprint(lay, [lane])
    px, py, _ = proj.to_display([[x[0], y[0], g.frame.height]])[0]
    h = w.interactor.height()
    ratio = w.interactor.ren_win.GetSize()[1] / h
    qtbot.mouseClick(w.interactor, QtCore.Qt.LeftButton,
                     pos=QtCore.QPoint(round(px / ratio), round(h - py / ratio)))
    qtbot.waitUntil(lambda: w.state.selection is not None, timeout=PATIENCE_MS)
    assert w.state.selection == {"kind": "state", "row": int(top)}
    text = w.details_dock.text.toPlainText()
    assert f"value: {w.trace.display_name('values', st.value[top])}" in text
    assert "container: rank-5" in text
    qtbot.waitUntil(lambda: len(w.view.scene._slots["selection"]) == 1)  # the outline
    # Focus (Ravel section 4.2): rank-5's partners outlined; again: none
    w.details_dock.focus.click()
    assert w.state.focus == "rank-5"
    qtbot.waitUntil(lambda: len(w.view.scene._slots.get("focus", [])) == 1, timeout=PATIENCE_MS)
    w.details_dock.focus.click()
    assert w.state.focus is None
    # Call path (issue 30.6): the picked state's, the others dimmed; again: none
    assert "call path: " in w.details_dock.text.toPlainText()
    w.details_dock.path.click()
    assert w.state.call_path == w.geometry.call_path_of(int(top))
    qtbot.waitUntil(lambda: w.geometry.chosen is not None, timeout=PATIENCE_MS)
    w.details_dock.path.click()
    assert w.state.call_path is None


def test_ctrl_drag_moves_a_node_and_the_move_is_saved(qtbot, tmp_path):
    """From above, Ctrl-dragging routerA 60 pixels right moves it on the ground by
    what 60 pixels are there; a plain drag would rotate the camera instead."""
    w = opened(qtbot, view="top", labels=False, **BASE)
    w.view.render()
    lay = w.view.layout
    i = lay.node_names.index("routerA")
    centre = lay.node_rects[i, :2].copy()
    proj = w.view.projection
    px, py, _ = proj.to_display([[*centre, 0.0]])[0]
    h = w.interactor.height()
    ratio = w.interactor.ren_win.GetSize()[1] / h

    def at(x, y):
        return QtCore.QPoint(round(x / ratio), round(h - y / ratio))
    camera = w.view.camera
    ctrl = QtCore.Qt.ControlModifier
    qtbot.mousePress(w.interactor, QtCore.Qt.LeftButton, ctrl, at(px, py))
    qtbot.mouseMove(w.interactor, at(px + 30, py))
    qtbot.mouseRelease(w.interactor, QtCore.Qt.LeftButton, ctrl, at(px + 60, py))
    qtbot.waitUntil(lambda: "node:routerA" in w.state.moved, timeout=PATIENCE_MS)
    # where 60 pixels to the right land on the ground, by the same projection
    o0, d0 = proj.ray(*[round(v / ratio) * ratio for v in (px, py)])
    o1, d1 = proj.ray(round((px + 60) / ratio) * ratio, round(py / ratio) * ratio)
    g0, g1 = (o - o[2] / d[2] * d for o, d in ((o0, d0), (o1, d1)))
    assert w.state.moved["node:routerA"] == pytest.approx(tuple(centre + (g1 - g0)[:2]))
    w.redraw()
    assert w.view.layout.node_rects[i, :2] == pytest.approx(w.state.moved["node:routerA"])
    assert w.view.camera.position == pytest.approx(camera.position)  # no rotation
    w.save_view(str(tmp_path / "v.json"))
    assert ViewState.load(tmp_path / "v.json").moved == w.state.moved


def test_ctrl_shift_clicks_gather_nodes_that_move_together(qtbot):
    """Thesis section 6.2: several objects moved at once. Ctrl-Shift-clicking routerA
    and routerB groups them; Ctrl-dragging routerA moves both by the same offset, a
    node outside the group stays; a second Ctrl-Shift-click takes one out."""
    w = opened(qtbot, view="top", labels=False, **BASE)
    w.view.render()
    lay, proj = w.view.layout, w.view.projection
    h = w.interactor.height()
    ratio = w.interactor.ren_win.GetSize()[1] / h
    names = ("routerA", "routerB")
    before = {n: lay.node_rects[lay.node_names.index(n), :2].copy() for n in lay.node_names}

    def at(name, dx=0):
        px, py, _ = proj.to_display([[*before[name], 0.0]])[0]
        return QtCore.QPoint(round((px + dx) / ratio), round(h - py / ratio))
    both = QtCore.Qt.ControlModifier | QtCore.Qt.ShiftModifier
    for n in names:
        qtbot.mouseClick(w.interactor, QtCore.Qt.LeftButton, both, at(n))
    assert w.group == ["node:routerA", "node:routerB"]
    ctrl = QtCore.Qt.ControlModifier
    qtbot.mousePress(w.interactor, QtCore.Qt.LeftButton, ctrl, at("routerA"))
    qtbot.mouseMove(w.interactor, at("routerA", 30))
    qtbot.mouseRelease(w.interactor, QtCore.Qt.LeftButton, ctrl, at("routerA", 60))
    qtbot.waitUntil(lambda: "node:routerB" in w.state.moved, timeout=PATIENCE_MS)
    moved = {k.partition(":")[2]: np.subtract(v, before[k.partition(":")[2]])
             for k, v in w.state.moved.items()}
    assert set(moved) == set(names)
    assert moved["routerA"] == pytest.approx(moved["routerB"])
    assert moved["routerA"][0] > 0 and abs(moved["routerA"][1]) < 1e-6 * lay.node_rects[:, 2].max()
    qtbot.mouseClick(w.interactor, QtCore.Qt.LeftButton, both, at("routerA", 60))
    assert w.group == ["node:routerB"]


def _drag(qtbot, w, dx, frames):
    """A left drag of `dx` pixels in steps of 10 across the 3D view; returns the
    render window's size seen at each step's frame."""
    qi = w.interactor
    c = QtCore.QPoint(qi.width() // 2, qi.height() // 2)
    qtbot.mousePress(qi, QtCore.Qt.LeftButton, pos=c)
    sizes = []
    for x in range(10, dx + 1, 10):
        seen = len(frames)
        QtWidgets.QApplication.sendEvent(qi, QtGui.QMouseEvent(
            QtCore.QEvent.MouseMove, QtCore.QPointF(c.x() + x, c.y()),
            qi.mapToGlobal(QtCore.QPointF(c.x() + x, c.y())), QtCore.Qt.NoButton,
            QtCore.Qt.LeftButton, QtCore.Qt.NoModifier))
        qtbot.waitUntil(lambda: len(frames) > seen, timeout=PATIENCE_MS)
        sizes.append(tuple(qi.ren_win.GetSize()))
    qtbot.mouseRelease(qi, QtCore.Qt.LeftButton, pos=c + QtCore.QPoint(dx, 0))
    return sizes


def _azimuth(camera):
    d = np.subtract(camera.position, camera.focal_point)
    return np.degrees(np.arctan2(d[1], d[0]))


def test_a_drag_draws_a_frame_per_move_at_half_size_and_turns_as_far(qtbot, monkeypatch):
    """While the camera moves the view draws a fraction of the width and height
    (chosen from the last full frame's time; 2 here), once per mouse move
    (pyvistaqt drew each frame twice); the camera turns as far for the same drag as
    when drawing every pixel, and the frame after the release is full size again."""
    from triva3d.gui import interactor
    assert [interactor.reduction_for(ms) for ms in (10, 30, 150, 480, 5000)] == [1, 1, 2, 3, 4]
    turned = {}
    for reduction in (1, 2):
        monkeypatch.setattr(interactor, "reduction_for", lambda ms, k=reduction: k)
        w = opened(qtbot, **BASE)
        qi = w.interactor
        full = tuple(qi.ren_win.GetSize())
        frames = []
        qi.renderer.AddObserver("EndEvent", lambda *_: frames.append(qi.ren_win.GetSize()))
        before = _azimuth(w.view.camera)
        sizes = _drag(qtbot, w, 80, frames)
        assert sizes == [(round(full[0] / reduction), round(full[1] / reduction))] * 8
        assert len(frames) <= 9  # one frame per move (and one for the press)
        qtbot.waitUntil(lambda: tuple(frames[-1]) == full, timeout=PATIENCE_MS)
        turned[reduction] = (_azimuth(w.view.camera) - before + 180) % 360 - 180
        w.close()
    assert abs(turned[1]) > 20 and turned[2] == pytest.approx(turned[1], rel=0.03)


def test_a_keyboard_flight_draws_fewer_pixels_until_it_pauses(qtbot, monkeypatch, tmp_path):
    """Flight keys draw a fraction of the pixels (2 here) until they pause; a key
    before the pause goes on with the same flight; a screenshot taken meanwhile is
    full size all the same. (The pause is made to come when the test says: a busy
    machine can take longer than FLIGHT_PAUSE_MS between two keys.)"""
    import imageio.v3 as iio
    from triva3d.gui import interactor, window
    monkeypatch.setattr(interactor, "reduction_for", lambda ms: 2)
    monkeypatch.setattr(window, "FLIGHT_PAUSE_MS", PATIENCE_MS)
    w = opened(qtbot, **BASE)
    qi = w.interactor
    full = tuple(qi.ren_win.GetSize())
    starts = []
    monkeypatch.setattr(interactor.Interactor, "reduce",
                        lambda self, on, f=interactor.Interactor.reduce: (
                            starts.append(on), f(self, on)))
    for _ in range(3):
        qtbot.keyClick(qi, QtCore.Qt.Key_W)
    assert tuple(qi.ren_win.GetSize()) == (round(full[0] / 2), round(full[1] / 2))
    qtbot.wait(10)  # the event loop turns: no pause yet
    qtbot.keyClick(qi, QtCore.Qt.Key_A)  # the flight goes on: no second start
    assert starts == [True] and w._flight_pause.isActive()
    w.export_screenshot(str(tmp_path / "shot.png"))
    assert iio.imread(tmp_path / "shot.png").shape[:2] == (full[1], full[0])
    assert tuple(qi.ren_win.GetSize()) == (round(full[0] / 2), round(full[1] / 2))
    w._flight_pause.setInterval(0)  # now the keys pause
    qtbot.waitUntil(lambda: tuple(qi.ren_win.GetSize()) == full, timeout=PATIENCE_MS)
    assert starts == [True, False]


def test_hovering_a_treemap_cell_outlines_its_containers_in_3d(qtbot):
    w = opened(qtbot, **BASE)
    dock = w.treemap_dock
    qtbot.waitUntil(lambda: dock.treemap is not None, timeout=PATIENCE_MS)
    tm = dock.treemap
    node = int(np.flatnonzero(tm.containers == w.trace.find("containers", "host-3")[0])[0])
    x, y, cw, ch = tm.node_rects[node]
    canvas = dock.canvas
    px, py, _ = canvas.projection.to_display([[x + cw * 0.5, y + ch * 0.1, 0.0]])[0]
    before = dock._img.copy()
    pos = QtCore.QPointF(round(px), round(dock._size[1] - py))
    QtWidgets.QApplication.sendEvent(dock.picture, QtGui.QMouseEvent(  # the pointer moves
        QtCore.QEvent.MouseMove, pos, dock.picture.mapToGlobal(pos), QtCore.Qt.NoButton,
        QtCore.Qt.NoButton, QtCore.Qt.NoModifier))
    qtbot.waitUntil(lambda: dock._hovered is not None, timeout=PATIENCE_MS)
    hovered = dock._hovered
    assert w.trace.display_name("containers", tm.containers[hovered]) in (
        "host-3", *[w.trace.display_name("containers", c) for c in w.trace.children(
            w.trace.find("containers", "host-3")[0])])
    # host-3 and its 4 processes (or one of them): 12 edges per column outlined
    placed = w.trace.subtree([tm.containers[hovered]]) & (w.view.layout.w > 0)
    slot = w.view.scene._slots["highlight"]
    assert len(slot) == 1 and slot[0].GetMapper().GetInput().GetNumberOfCells() == 12 * placed.sum()
    assert not np.array_equal(before, dock._img)  # the node outlined in the panel
    # its numbers in the status bar (thesis section 6.3)
    assert w.statusBar().currentMessage() == tm.describe(hovered)
    assert tm.describe(hovered).startswith(
        w.trace.display_name("containers", tm.containers[hovered]) + " (")
    dock.hover(None)  # the pointer left
    assert w.view.scene._slots["highlight"] == []
    assert np.array_equal(before, dock._img)
    assert dock.canvas is canvas  # one offscreen window for every picture (issue 27.7)
    w.close()
    assert dock.canvas is None  # released with the window


def test_hiding_a_value_takes_its_colour_out_of_the_frame(qtbot):
    w = opened(qtbot, view="top", **BASE)
    v = int(w.trace.find("values", "Computing")[0])
    rgb = w.geometry.value_rgb[v]
    assert near(w.view.render(), rgb) > 50
    tree = w.legend_dock.tree
    item = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                if tree.topLevelItem(i).text(0) == "Computing")
    item.setCheckState(0, QtCore.Qt.Unchecked)
    assert w.state.hidden == ("Computing",)
    qtbot.waitUntil(lambda: not (w.trace.states.value[w.geometry.states.rows] == v).any(),
                    timeout=PATIENCE_MS)
    assert near(w.view.render(), rgb) == 0


def test_alt_click_isolates_a_value_and_the_treemap_follows_the_filters(qtbot):
    """Thesis section 6.3: Alt-clicking a state value in the legend shows it alone
    (the other state values hidden, in 3D and in the Time-Slice treemap); again
    shows them all."""
    w = opened(qtbot, view="top", **BASE)
    tree, dock = w.legend_dock.tree, w.treemap_dock
    qtbot.waitUntil(lambda: dock.treemap is not None, timeout=PATIENCE_MS)
    states = [n for n, k, _ in w.geometry.filter_entries() if k == "state"]
    assert "Computing" in states and len(states) > 2
    item = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                if tree.topLevelItem(i).text(0) == "Computing")
    rect = tree.visualItemRect(item)
    qtbot.mouseClick(tree.viewport(), QtCore.Qt.LeftButton, QtCore.Qt.AltModifier,
                     rect.center())
    assert set(w.state.hidden) == set(states) - {"Computing"}
    qtbot.waitUntil(lambda: dock.treemap.value_names == ["Computing"], timeout=PATIENCE_MS)
    assert dock.note.text().startswith("hidden: ") and "Computing" not in dock.note.text()
    values = set(w.trace.states.value[w.geometry.states.rows].tolist())
    assert values == set(w.trace.find("values", "Computing").tolist())
    qtbot.mouseClick(tree.viewport(), QtCore.Qt.LeftButton, QtCore.Qt.AltModifier,
                     rect.center())
    assert w.state.hidden == ()
    qtbot.waitUntil(lambda: len(dock.treemap.value_names) == len(states), timeout=PATIENCE_MS)


def test_the_view_menu_switches_to_logical_time_and_back(qtbot, data):
    """Issue 29.6: View > Logical time shows the OTF2 ping-pong's events at their
    steps (32 events, 0 to 31.8 steps high), docks included; again: seconds."""
    w = opened(qtbot, data / "otf2" / "ping-pong-otf2", base="appgraph")
    physical = w.trace
    w.logical_action.setChecked(True)
    assert w.trace.time_unit == "steps" and w.windowTitle().endswith("(logical time)")
    assert w.geometry.frame.t1 == pytest.approx(31.8)
    names = {w.trace.display_name("values", int(v)) for v in w.trace.states.value}
    assert names == {"MPI_Send", "MPI_Recv", "between events"}
    qtbot.waitUntil(lambda: w.treemap_dock.treemap is not None
                    and w.treemap_dock.treemap.trace is w.trace, timeout=PATIENCE_MS)
    w.logical_action.setChecked(False)
    assert w.trace is physical and w.geometry.frame.t1 < 1


def test_a_saved_view_reopens_as_the_same_picture(qtbot, tmp_path):
    w = opened(qtbot, **BASE)
    w.state.update(window=(0.05, 0.2), hidden=("MPI",))
    w.interactor.renderer.GetActiveCamera().Azimuth(30)  # the user flies
    w.redraw()
    w.save_view(str(tmp_path / "view.json"))
    w.export_screenshot(str(tmp_path / "gui.png"))
    width, height = w.interactor.ren_win.GetSize()
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "render", str(SMALL), "--state",
                        str(tmp_path / "view.json"), "--size", f"{width}x{height}",
                        "-o", str(tmp_path / "cli.png")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    import imageio.v3 as iio
    assert np.array_equal(iio.imread(tmp_path / "gui.png"), iio.imread(tmp_path / "cli.png"))
    # a second window loading the view shows what the first one saved
    w2 = opened(qtbot)
    w2.load_view(str(tmp_path / "view.json"))
    w2.redraw()
    assert w2.state == w.state


def test_a_bad_file_is_a_dialog_and_the_trace_stays(qtbot, tmp_path, monkeypatch):
    w = opened(qtbot, **BASE)
    shown = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning",
                        lambda parent, title, text: shown.append(text))
    bad = tmp_path / "bad.trace"
    bad.write_text("%EventDef PajeDefineContainerType 0\n% Alias string\n%EndEventDef\n0 A\n1 2\n")
    w.open_trace(str(bad))
    qtbot.waitUntil(lambda: len(shown) == 1, timeout=PATIENCE_MS)
    assert shown[0].startswith(str(bad)) and "\n" not in shown[0]
    assert w.trace.source == str(SMALL) and w.view.trace is w.trace
    assert w.view.render().std() > 10  # still drawn
    # a setting the View refuses is undone, with a dialog
    w.state.hidden = ("NoSuchValue",)
    qtbot.waitUntil(lambda: len(shown) == 2, timeout=PATIENCE_MS)
    assert "NoSuchValue" in shown[1] and w.state.hidden == ()


def test_a_store_too_big_for_memory_opens_in_parts(qtbot, tmp_path, monkeypatch):
    """A store that cannot be read whole (here 0.2 MB are free) opens on the part of
    its first entities (here 400), its window that part's; the strip shows the whole
    run's activity, as the trace read whole has it; another window reads its part,
    with what the state asked meanwhile; a window the part shown holds cancels that
    read; the whole trace and logical time are refused with a dialog, what is shown
    stays, and asking again asks again."""
    from triva3d import load, store
    from triva3d.analysis.overview import Overview
    tr = load(SMALL, cache=False)
    path = tmp_path / "s"
    store.ingest(tr, path)
    monkeypatch.setattr(store, "_free_bytes", lambda: 200_000)
    monkeypatch.setattr(store, "PART_ROWS", 400)
    w = opened(qtbot, path)
    held = store.first_window(str(path), 400)
    assert w.trace.whole.window == held == w.state.window and held[1] < tr.end_time / 2
    assert w.windowTitle() == f"triva3d: s (read: 0 to {held[1]:g} of it)"
    assert w.geometry.frame.t1 == held[1]
    from triva3d.bases.layout import make_layout
    from triva3d.scene.geometry import Geometry
    whole = Geometry(tr, make_layout(tr, base=w.state.base or "treemap")).data_span
    assert w.geometry.data_span == whole  # (paging: the ends of what the run draws)
    np.testing.assert_allclose(w.time_dock.strip.overview.activity(1024)[0],
                               Overview(tr).activity(1024)[0], atol=1e-9)
    first = w.trace
    w.state.window = (0.03, 0.09)  # a part to read, then a window the part shown holds
    w.state.window = (0.035, 0.045)
    assert w.loader is None and w.geometry.frame.t0 == 0.035
    qtbot.wait(500)
    assert w.trace is first and w.geometry.frame.t0 == 0.035
    w.state.window = (0.15, 0.2)
    w.state.hidden = ("Computing",)  # (asked while the part is read)
    qtbot.waitUntil(lambda: w.trace.whole.window == (0.15, 0.2), timeout=PATIENCE_MS)
    qtbot.waitUntil(lambda: w.geometry.frame.t0 == 0.15, timeout=PATIENCE_MS)
    meets = (tr.states.start <= 0.2) & (tr.states.end >= 0.15)
    assert len(w.trace.states) == meets.sum() and w.view.render().std() > 10
    computing = w.trace.find("values", "Computing")[0]
    shown = w.trace.states.value[w.geometry.states.rows]
    assert len(shown) and computing not in shown
    w.state.window = (0.2, 0.22)  # one read at a time: the window asked meanwhile next
    w.state.window = (0.22, 0.24)
    assert w.loader.read == (0.2, 0.22)
    qtbot.waitUntil(lambda: w.trace.whole.window == (0.22, 0.24), timeout=PATIENCE_MS)
    qtbot.waitUntil(lambda: w.loader is None and w.geometry.frame.t0 == 0.22,
                    timeout=PATIENCE_MS)
    w.state.window = (0.15, 0.2)
    qtbot.waitUntil(lambda: w.trace.whole.window == (0.15, 0.2), timeout=PATIENCE_MS)
    qtbot.waitUntil(lambda: w.loader is None, timeout=PATIENCE_MS)
    shown = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning",
                        lambda parent, title, text: shown.append(text))
    for n in (1, 2):
        w.state.window = None
        qtbot.waitUntil(lambda: len(shown) == n, timeout=PATIENCE_MS)
        assert "reading it whole needs about 0.3 MB, 0.2 MB are free" in shown[-1]
        assert w.state.window == (0.15, 0.2) and w.trace.whole.window == (0.15, 0.2)
    w.logical_action.trigger()
    assert shown[2] == f"{path}: only a window of it is read, logical time needs the whole run"
    assert not w.logical_action.isChecked() and w.view.trace is w.trace
    w.state.window = (0.05, 0.06)  # a part on its way, then another file: it opens
    w.open_trace(str(SMALL))
    assert w.state.window == (0.15, 0.2)  # (back to the one shown)
    w.state.scale = 2.0
    qtbot.waitUntil(lambda: w.trace.whole is None, timeout=PATIENCE_MS)
    assert w.trace.source == str(SMALL)
    w.close()
    w = opened(qtbot, path, window=(0.15, 0.2))  # (`view STORE --window`)
    assert w.trace.whole.window == (0.15, 0.2) and w.geometry.frame.t0 == 0.15


def _slowed(monkeypatch, name):
    """The engine's `name` (read_part, read_for_view) 1 s slower: a read on its way."""
    from triva3d import engine
    fast = getattr(engine, name)
    monkeypatch.setattr(engine, name, lambda *a, **k: (time.sleep(1.0), fast(*a, **k))[1])


def test_what_is_asked_while_a_part_is_read(qtbot, tmp_path, monkeypatch):
    """While another part of a store is read: what needs the whole run is refused alone
    (the filters asked meanwhile and the read stay); a setting the part cannot draw
    puts the state back to the picture shown, in one dialog; the pick, the legend's
    search and what was asked while a trace opened follow the new part; closing the
    window drops the read."""
    from triva3d import load, store
    tr = load(SMALL, cache=False)
    path = tmp_path / "s"
    store.ingest(tr, path)
    monkeypatch.setattr(store, "_free_bytes", lambda: 200_000)
    monkeypatch.setattr(store, "PART_ROWS", 400)
    shown = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning",
                        lambda parent, title, text: shown.append(text))
    w = opened(qtbot, SMALL)
    _slowed(monkeypatch, "read_for_view")
    w.open_trace(str(path))
    w.state.scale = 3.0  # (asked while it opens)
    qtbot.waitUntil(lambda: w.trace.whole is not None and w.loader is None,
                    timeout=PATIENCE_MS)
    assert w.geometry.frame.height == pytest.approx(3.0 * w.geometry.extent)
    first = w.trace
    w.legend_dock.search.setText("comp")
    w.details_dock.show_picked({"kind": "state", "row": 19, "container": "rank-0"})
    _slowed(monkeypatch, "read_part")
    w.state.window = (0.15, 0.2)
    w.state.hidden = ("Computing",)
    w.state.base = "timeline"
    w.state.color_by = "duration"
    assert shown == [f"{path}: only a window of it is read, colours by duration needs the "
                     "whole run"]
    assert w.state.color_by == "value" and w.state.base == "timeline" and w.loader is not None
    qtbot.waitUntil(lambda: w.trace.whole.window == (0.15, 0.2) and w.loader is None,
                    timeout=PATIENCE_MS)
    assert w.state.hidden == ("Computing",) and len(shown) == 1
    assert w.details_dock.text.toPlainText() == "nothing here"
    legend = w.legend_dock.tree
    listed = [legend.topLevelItem(i).text(0) for i in range(legend.topLevelItemCount())
              if not legend.topLevelItem(i).isHidden()]
    assert listed == ["Computing"]
    from triva3d.scene.scene import Scene
    made = []
    apply = Scene.apply
    monkeypatch.setattr(Scene, "apply", lambda *a: (made.append(a[1]), apply(*a))[1])
    w.compare_with(str(SMALL))  # (differences need the whole run: the run B not read)
    assert len(shown) == 2 and "colours by difference" in shown[1]
    assert w.state.color_by == "value" and w.geometry.other is None
    assert len(made) == 1  # (the state as it was, drawn once)
    w.state.window = (0.05, 0.1)
    w.state.aggregate = "no such level"  # (checked once the part comes)
    qtbot.waitUntil(lambda: len(shown) == 3 and w.loader is None, timeout=PATIENCE_MS)
    assert "no such level" in shown[2]
    assert w.state.window == (0.15, 0.2) == w.trace.whole.window
    assert w.state.aggregate != "no such level"
    w.state.scale = 2.0
    assert len(shown) == 3 and w.geometry.frame.height == pytest.approx(2 * w.geometry.extent)
    w.state.window = (0.2, 0.25)
    w.close()
    qtbot.wait(200)
    assert w.trace.whole.window == (0.15, 0.2) and w.trace is not first


def test_keys_fly_and_move_through_time(qtbot):
    w = opened(qtbot, **BASE)
    cam = w.interactor.renderer.GetActiveCamera()
    before = cam.GetPosition()
    qtbot.keyClick(w.interactor, QtCore.Qt.Key_W)
    assert cam.GetPosition() != before
    f = w.geometry.frame
    w.state.window = (f.t0, (f.t0 + f.t1) / 2)
    w.redraw()
    qtbot.keyClick(w.interactor, QtCore.Qt.Key_PageUp)
    t0, t1 = w.state.window
    assert t0 == pytest.approx(f.t0 + (f.t1 - f.t0) / 4)
    scale = w.state.scale
    qtbot.keyClick(w.interactor, QtCore.Qt.Key_Plus)
    assert w.state.scale == pytest.approx(1.25 * scale)


def test_a_recorded_flight_plays_back_and_exports(qtbot, tmp_path):
    import imageio.v3 as iio
    from triva3d import View
    w = opened(qtbot, **BASE)
    w.record_action.trigger()  # Ctrl+R
    assert w.flight.recording
    for key in (QtCore.Qt.Key_W, QtCore.Qt.Key_D, QtCore.Qt.Key_D):
        qtbot.wait(300)
        qtbot.keyClick(w.interactor, key)
    qtbot.wait(300)
    w.record_action.trigger()
    keys = w.flight.keyframes
    assert keys is not None and len(keys) >= 4 and keys.duration >= 1.0
    first, last = keys.states[0].camera, keys.states[-1].camera
    assert first != last
    w.set_view_preset("top")  # elsewhere, then back along the flight
    w.flight.play()
    qtbot.waitUntil(lambda: not w.flight.playing, timeout=PATIENCE_MS)
    w.redraw()
    assert w.view.camera.position == pytest.approx(last.position, rel=1e-6)
    w.save_flight(str(tmp_path / "flight.json"))
    assert len(type(keys).load(tmp_path / "flight.json")) == len(keys)
    w.export_animation(str(tmp_path / "flight.mp4"))
    frames = iio.imread(tmp_path / "flight.mp4", index=None)
    width, height = w.interactor.ren_win.GetSize()
    assert frames.shape[0] == max(2, round(keys.duration * 25))
    assert frames.shape[1:3] == (height - height % 2, width - width % 2)
    # the last frame is the last keyframe, not the first: MP4 is lossy (its error, about
    # 3 levels here, grows with the flight's length, which a busy machine stretches)
    at_first, at_end = (View(w.trace, k, size=(frames.shape[2], frames.shape[1])).render()
                        for k in (keys.states[0], keys.states[-1]))
    assert np.abs(frames[-1].astype(int) - at_end).mean() \
        < np.abs(frames[-1].astype(int) - at_first).mean() / 3


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """A Pajé trace of 1e6 events (26 MB: two blocks of the reader)."""
    out = tmp_path_factory.mktemp("big") / "big.trace"
    subprocess.run([sys.executable, str(ROOT / "benchmarks/gen_trace.py"), "1000000", str(out)],
                   check=True, capture_output=True)
    return out


def test_the_window_stays_responsive_while_loading(qtbot, big, monkeypatch):
    """A 1e6-event trace is read and laid out in a worker thread, and the event loop
    turns all along: each of the worker's progress reports, and its layout, waits
    for the loop to turn once more (on the GUI thread, or with the loop blocked, it
    would wait in vain); the progress bar counts the bytes read. (Building the scene
    and the first frame, once it is read, still happen on the GUI thread: see the
    closing note. How long the loop stops: benchmarks/bench_gui.py.)"""
    import threading
    from triva3d.bases import layout
    turns, steps, stuck = [], [], []
    gui = threading.get_ident()

    def after_a_turn():
        if w.trace is not None:  # loaded: the View's own layouts are not the load's
            return
        steps.append(threading.get_ident())
        if steps[-1] == gui:
            return  # no turn can come while this runs
        seen = len(turns)
        for _ in range(PATIENCE_MS):  # a fail-safe, not a measure: 1 ms steps
            if len(turns) > seen or stuck:
                break
            time.sleep(0.001)
        else:
            stuck.append(len(steps))
    read, make_layout = Loader._read, layout.make_layout
    monkeypatch.setattr(Loader, "_read", lambda self, *a: (after_a_turn(), read(self, *a)))
    monkeypatch.setattr(layout, "make_layout", lambda *a, **k: (after_a_turn(),
                                                               make_layout(*a, **k))[1])
    w = MainWindow(ViewState(base="treemap"))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    timer = QtCore.QTimer()
    timer.timeout.connect(lambda: turns.append(threading.get_ident()))
    timer.start(5)
    w.open_trace(str(big))
    percents = []
    w.loader.progressed.connect(lambda loader, p, what: percents.append(p))
    qtbot.waitUntil(lambda: w.trace is not None or bool(UNEXPECTED), timeout=PATIENCE_MS)
    timer.stop()
    assert not stuck and len(steps) > 2 and gui not in steps
    read = [p for p in percents if p >= 0]
    assert read == sorted(read) and 0 < read[0] < 100 and read[-1] == 100 and percents[-1] == -1


def test_cancel_stops_the_reading(qtbot, big):
    """Cancel stops the worker at its next block (the trace is not read to its
    end), and the window stays as it was."""
    w = MainWindow(ViewState(base="treemap"))
    qtbot.addWidget(w)
    w.show()
    w.open_trace(str(big))
    loader = w.loader
    percents = []
    loader.progressed.connect(lambda _, p, what: percents.append(p))
    qtbot.waitUntil(lambda: len(percents) > 0, timeout=PATIENCE_MS)
    w.cancel.click()
    qtbot.waitUntil(loader.isFinished, timeout=60000)
    assert max(percents) < 100 and w.trace is None and w.progress.isHidden()


def test_the_legend_dock_ticks_metrics_to_draw_them(qtbot, data):
    """OTF2 metrics are listed unticked (not drawn); ticking one draws it."""
    w = opened(qtbot, data / "otf2/ping-pong-otf2-papi")
    tree = w.legend_dock.tree
    items = {tree.topLevelItem(i).text(0): tree.topLevelItem(i)
             for i in range(tree.topLevelItemCount())}
    item = items["PAPI_TOT_CYC"]
    assert item.text(1) == "metric (PAPI)" and item.checkState(0) == QtCore.Qt.Unchecked
    assert len(w.geometry.profiles.rows) == 0
    item.setCheckState(0, QtCore.Qt.Checked)
    assert w.state.variables == {"PAPI_TOT_CYC": "max"}
    qtbot.waitUntil(lambda: len(w.geometry.profiles.rows) > 0, timeout=PATIENCE_MS)
    item.setCheckState(0, QtCore.Qt.Unchecked)
    assert w.state.variables == {}


def test_the_treemap_dock_says_what_it_leaves_out(qtbot, data):
    w = opened(qtbot, data / "paje/simu-mardi.trace")
    dock = w.treemap_dock
    qtbot.waitUntil(lambda: dock.treemap is not None, timeout=PATIENCE_MS)
    assert dock.note.text().startswith("254 of 305 not drawn: HOST 50: nothing in the slice")


def test_page_keys_stop_at_the_ends_of_the_trace(qtbot):
    """PageUp and PageDown ran past the trace's ends into an empty scene (issue
    25.10): they stop where the first and the last thing drawn are."""
    w = opened(qtbot, **BASE)
    tr = w.trace
    lo = min(tr.states.start.min(), tr.links.start.min(), tr.events.time.min(),
             tr.variables.start.min())
    hi = max(tr.states.end.max(), tr.links.end.max(), tr.events.time.max(),
             tr.variables.end.max())
    width = (hi - lo) / 3
    w.state.window = (lo, lo + width)
    for _ in range(10):  # half a window each: the end is 4 presses away
        qtbot.keyClick(w.interactor, QtCore.Qt.Key_PageUp)
    assert w.state.window == pytest.approx((hi - width, hi))
    w.redraw()
    assert w.geometry.states.n > 0
    for _ in range(10):
        qtbot.keyClick(w.interactor, QtCore.Qt.Key_PageDown)
    assert w.state.window == pytest.approx((lo, lo + width))
    w.redraw()
    assert w.geometry.states.n > 0


def test_the_treemap_docks_choices_are_view_fields(qtbot, tmp_path):
    """Level, cells and aggregation of the treemap dock are ViewState fields: a change
    in the dock is one in the state, a view loaded sets the dock, both saved."""
    w = opened(qtbot, **BASE)
    dock = w.treemap_dock
    qtbot.waitUntil(lambda: dock.treemap is not None, timeout=PATIENCE_MS)
    dock.cells.setCurrentText("event")
    assert w.state.slice_metric == "event"
    w.redraw()
    qtbot.waitUntil(lambda: dock.treemap.metric == "event", timeout=PATIENCE_MS)
    w.save_view(str(tmp_path / "v.json"))
    saved = ViewState.load(tmp_path / "v.json")
    assert (saved.slice_metric, saved.slice_how) == ("event", "sum")
    w.state.update(slice_how="max", slice_level="Host")
    w.redraw()
    qtbot.waitUntil(lambda: dock.treemap.how == "max", timeout=PATIENCE_MS)
    assert dock.how.currentText() == "max" and dock.level.currentText() == "Host"
    assert dock.treemap.level_name == "Host"
    # the values drawn (thesis section 6.3), and the link measures of eq. 4.4
    w.state.slice_metric = "state"
    dock.values.setText("Computing, Waiting")
    dock.values.editingFinished.emit()
    assert w.state.slice_values == ("Computing", "Waiting")
    qtbot.waitUntil(lambda: dock.treemap.value_names == ["Computing", "Waiting"],
                    timeout=PATIENCE_MS)
    w.state.update(slice_values=None, slice_metric="link:count")
    qtbot.waitUntil(lambda: dock.treemap.metric == "link:count", timeout=PATIENCE_MS)
    assert dock.values.text() == "" and dock.cells.currentText() == "link:count"


def test_a_load_says_when_kernels_compile(qtbot):
    """A cold kernel cache makes the first load wait half a minute: the window's
    status says why (the note comes from the loading thread, as numba's event)."""
    import threading
    import types
    w = MainWindow(ViewState(**BASE))
    qtbot.addWidget(w)
    threading.Thread(target=w.compiling.emit, args=("compiling numba kernels once",)).start()
    qtbot.waitUntil(lambda: w.compile_note != "", timeout=PATIENCE_MS)
    w.loader = types.SimpleNamespace(path="t.trace")  # a load under way
    w._load_progress(w.loader, 10, "reading")
    assert w.statusBar().currentMessage() == "reading t.trace... (compiling numba kernels once)"
    w.loader = None
    w._idle()  # the load is over: compiled once
    assert w.compile_note == ""


def _held_at_first_report(monkeypatch):
    """The reports a Loader makes, which wait at the first one for the Cancel."""
    seen, read = [], Loader._read

    def held(self, done, total):
        seen.append((done, total))
        while not self.isInterruptionRequested():
            time.sleep(0.001)
        read(self, done, total)
    monkeypatch.setattr(Loader, "_read", held)
    return seen


def test_an_otf2_load_shows_progress_and_cancels(qtbot, tmp_path, monkeypatch):
    """The window's Cancel stops an OTF2 load as a Pajé one: the reader reports
    each location's events read, and stops when the report raises (issue 27.3)."""
    import otf2gen
    otf2gen.big(tmp_path / "a", 4000, ranks=8)
    seen = _held_at_first_report(monkeypatch)
    w = MainWindow(ViewState(base="treemap"))
    qtbot.addWidget(w)
    w.show()
    w.open_trace(str(tmp_path / "a"))
    loader = w.loader
    qtbot.waitUntil(lambda: len(seen) > 0, timeout=PATIENCE_MS)
    w.cancel.click()
    qtbot.waitUntil(loader.isFinished, timeout=PATIENCE_MS)
    assert len(seen) == 1 and 0 < seen[0][0] < seen[0][1]  # one location of eight
    assert w.trace is None and w.progress.isHidden()


def test_a_store_part_read_shows_progress_and_cancels(qtbot, tmp_path, monkeypatch):
    """A part of a store reports each partition file read; Cancel (or closing the
    window) stops it at the next one, and the part shown stays."""
    from triva3d import load, store
    tr = load(SMALL, cache=False)
    store.ingest(tr, tmp_path / "s")
    monkeypatch.setattr(store, "_free_bytes", lambda: 200_000)
    monkeypatch.setattr(store, "PART_ROWS", 400)
    w = opened(qtbot, tmp_path / "s")
    first = w.trace
    seen = _held_at_first_report(monkeypatch)
    w.state.window = (0.15, 0.2)
    loader = w.loader
    qtbot.waitUntil(lambda: len(seen) > 0, timeout=PATIENCE_MS)
    w.cancel.click()
    qtbot.waitUntil(loader.isFinished, timeout=PATIENCE_MS)
    files = sum(len(store.meta_of(tmp_path / "s")["files"][t]) for t in store.ENTITIES)
    assert seen == [(1, files)] and files > 4
    assert w.trace is first and w.progress.isHidden()


def test_an_aggregated_column_expands_and_collapses_from_the_details_dock(qtbot):
    """Issue 28.5: the 8 hosts' columns aggregate their 4 ranks each; a click on
    one shows its shares, Expand draws its ranks' columns instead, a click on one
    of those and Collapse folds them back."""
    w = opened(qtbot, view="top", labels=False, base="treemap", aggregate="Host")
    g = w.geometry
    assert g.states.mode == "aggregated" and len(g.states.nodes) == 8

    def click(column):
        g = w.geometry
        b = g.states.boxes[column]
        px, py, _ = w.view.projection.to_display(
            [[(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, g.cut.height]])[0]
        h = w.interactor.height()
        ratio = w.interactor.ren_win.GetSize()[1] / h
        w.state.selection = None
        qtbot.mouseClick(w.interactor, QtCore.Qt.LeftButton,
                         pos=QtCore.QPoint(round(px / ratio), round(h - py / ratio)))
        qtbot.waitUntil(lambda: w.state.selection is not None, timeout=PATIENCE_MS)
        return w.state.selection

    w.view.render()
    host = int(g.states.nodes[3])
    assert click(3) == {"kind": "aggregate", "row": host}
    name = w.trace.display_name("containers", host)
    assert f"name: {name}" in w.details_dock.text.toPlainText()
    assert "shares (%)" in w.details_dock.text.toPlainText()
    assert w.details_dock.expand.isEnabled() and not w.details_dock.collapse.isEnabled()
    w.details_dock.expand.click()
    assert w.state.expanded == (name,)
    qtbot.waitUntil(lambda: len(w.geometry.states.nodes) == 11, timeout=PATIENCE_MS)
    parent = w.trace.containers.parent
    ranks = [i for i, c in enumerate(w.geometry.states.nodes) if parent[c] == host]
    assert len(ranks) == 4
    w.view.render()
    assert click(ranks[0])["row"] == int(w.geometry.states.nodes[ranks[0]])
    assert w.details_dock.collapse.isEnabled()
    w.details_dock.collapse.click()
    assert w.state.expanded == ()
    qtbot.waitUntil(lambda: len(w.geometry.states.nodes) == 8, timeout=PATIENCE_MS)


def test_the_colour_by_box_offers_the_variables_and_refuses_a_bad_name(qtbot, data,
                                                                       monkeypatch):
    """Issue 29.5: the Base dock's colour-by box lists the trace's variable types;
    choosing variable:power colours simu-mardi's hosts by it (the legend's stops
    say power); a name the trace lacks is a dialog, and the colouring stays."""
    shown = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning",
                        lambda parent, title, text: shown.append(text))
    w = opened(qtbot, data / "paje/simu-mardi.trace")
    box = w.base_dock.color_by
    items = [box.itemText(i) for i in range(box.count())]
    assert items == ["value", "lateness", "duration", "variable:bandwidth",
                     "variable:latency", "variable:power"]
    box.setCurrentText("variable:power")
    box.textActivated.emit("variable:power")
    assert w.state.color_by == "variable:power"
    assert any(t.startswith("power ") for t, _ in w.geometry.legend_entries())
    w.redraw()  # the legend dock gives each stop its colour
    stops = [k for k in w.legend_dock.keys.text().split("<br>") if "</span> power " in k]
    assert stops and all(k.startswith('<span style="color:#') for k in stops)
    box.lineEdit().clear()  # typed, then Enter (not a list item)
    qtbot.keyClicks(box.lineEdit(), " slice:state%:violation")
    qtbot.keyClick(box.lineEdit(), QtCore.Qt.Key_Return)
    assert w.state.color_by == "slice:state%:violation"
    box.lineEdit().clear()
    qtbot.keyClicks(box.lineEdit(), "slice:state%:nope")
    qtbot.keyClick(box.lineEdit(), QtCore.Qt.Key_Return)
    qtbot.waitUntil(lambda: len(shown) == 1, timeout=PATIENCE_MS)
    assert "nope" in shown[0] and w.state.color_by == "slice:state%:violation"
    assert box.currentText() == "slice:state%:violation"


def test_playback_steps_plays_and_picks_a_particle(qtbot, tmp_path):
    """Issue 33.2: step event by event (the first time something happens, then the
    next), play at 8x until now moves and pause; drag the strip's now cursor; the
    events dock draws the particles at now, and a click on one, paused, selects its
    state."""
    from triva3d.generate import sigovan, write
    from triva3d.movie.playback import event_times
    path = tmp_path / "slanted.trace"
    write(sigovan("slanted", ranks=32, iterations=2), path)
    w = opened(qtbot, path)
    times = event_times(w.trace)
    w.playback.step(1)
    assert w.state.now == times[0]
    w.playback.step(1)
    assert w.state.now == times[1]
    w.playback.step(-1)
    assert w.state.now == times[0]
    w.playback.speed.setCurrentText("8x")
    w.playback.play.setChecked(True)
    qtbot.waitUntil(lambda: w.state.now > 0.01, timeout=PATIENCE_MS)
    w.playback.play.setChecked(False)
    at = w.state.now
    qtbot.wait(100)
    assert w.state.now == at  # paused
    strip = w.time_dock.strip
    qtbot.waitUntil(lambda: strip.now == at, timeout=PATIENCE_MS)
    x = strip.x_at(at)
    qtbot.mousePress(strip, QtCore.Qt.LeftButton, pos=QtCore.QPoint(round(x), 20))
    qtbot.mouseMove(strip, QtCore.QPoint(round(x) + 40, 20))
    qtbot.mouseRelease(strip, QtCore.Qt.LeftButton, pos=QtCore.QPoint(round(x) + 40, 20))
    assert w.state.now == pytest.approx(strip.time_at(round(x) + 40))
    assert w.state.window is None  # the cursor moved, not the brush
    dock = w.events_dock
    dock.show()
    dock.raise_()
    qtbot.waitUntil(lambda: dock.drawing is not None and dock._drawn_at == w.state.now,
                    timeout=PATIENCE_MS)
    i, xs, ys, _ = dock.drawing.particles(w.state.now)
    assert len(i)
    qtbot.mouseClick(dock.picture, QtCore.Qt.LeftButton,
                     pos=QtCore.QPoint(int(xs[0]) + 1, int(ys[0]) + 1))
    assert w.state.selection == {"kind": "state", "row": int(dock.events.rows[i[0]])}
    d = dock.drawing  # the dock's own timeline takes now where it is clicked
    qtbot.mouseClick(dock.picture, QtCore.Qt.LeftButton,
                     pos=QtCore.QPoint(d.now_x(d.span[0]) + 50, d.size[1] - 20))
    assert w.state.now == pytest.approx(d.time_at(d.now_x(d.span[0]) + 50))


def test_the_call_paths_dock_chooses_a_path_for_3d(qtbot, data):
    """Issue 30.4/30.6: the Call paths dock draws the window's Sankey of the
    ping-pong; a click on MPI_Init's node chooses its call path (the 3D scene keeps
    its states' colours, dims the others), a click beside the nodes none."""
    w = opened(qtbot, data / "otf2" / "ping-pong-otf2", base="appgraph")
    dock = w.calltree_dock
    dock.show()
    dock.raise_()
    qtbot.waitUntil(lambda: dock.sankey is not None, timeout=PATIENCE_MS)
    from triva3d.panels.sankey import title_room
    sk = dock.sankey
    init = next(i for i in range(len(sk.paths)) if sk.name(i) == "MPI_Init")
    x, y, wd, h = sk.rects[init]
    assert "MPI_Init" in sk.tip(init) and "min" in sk.tip(init)
    qtbot.mouseClick(dock.svg, QtCore.Qt.LeftButton,
                     pos=QtCore.QPoint(int(x + wd / 2), int(y + h / 2 + title_room())))
    assert w.state.call_path == "int main(int, char**);MPI_Init"
    w.redraw()
    assert w.geometry.chosen is not None
    qtbot.mouseClick(dock.svg, QtCore.Qt.LeftButton, pos=QtCore.QPoint(2, 2))
    assert w.state.call_path is None


def test_compare_with_colours_by_the_difference(qtbot, tmp_path):
    """Issue 32.1/32.3: File > Compare with... (here given the path) keeps B's path in
    the view and colours the states by B - A of the value longest over the trace;
    the legend keys the signed scale."""
    from triva3d.generate import sigovan, write
    a, b = tmp_path / "a.trace", tmp_path / "b.trace"
    write(sigovan("horizontal", ranks=16, iterations=2), a)
    write(sigovan("slanted", ranks=16, iterations=2), b)
    w = opened(qtbot, a)
    w.compare_with(str(b))
    w.redraw()
    assert w.state.compare == str(b) and w.state.color_by == "difference:state:compute"
    assert w.geometry.other is not None and w.geometry.metric().signed
    assert any(t.startswith("B - A state:compute") for t, _ in w.geometry.legend_entries())
    # dropping a run with Shift held compares with it; without, it opens
    c = tmp_path / "c.trace"
    write(sigovan("noisy", ranks=16, iterations=2), c)
    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(c))])
    drop = QtGui.QDropEvent(QtCore.QPointF(10, 10), QtCore.Qt.CopyAction, mime,
                            QtCore.Qt.LeftButton, QtCore.Qt.ShiftModifier)
    w.dropEvent(drop)
    assert w.state.compare == str(c) and w.trace.source == str(a)


def test_the_details_dock_shows_a_picked_tasks_chain(qtbot, tmp_path):
    """A picked task piece (its GUID in the details) chooses its chain for 3D: its
    parent's and child's pieces keep their colours, the others are dimmed; again:
    all (issue 31.2)."""
    import otf2gen
    from triva3d.scene.pick import details
    otf2gen.apex_tasks(tmp_path / "apex")
    w = opened(qtbot, tmp_path / "apex", base="timeline", labels=False)
    tr = w.trace
    row = int(np.flatnonzero(np.array([tr.names[c] if c >= 0 else "" for c in
                                       tr.states.extra["GUID"]]) == "2")[0])
    w.details_dock.show_picked(details(tr, w.view.layout, "state", row))
    assert "GUID: 2" in w.details_dock.text.toPlainText()
    assert w.details_dock.task.isEnabled()
    w.details_dock.task.click()
    assert w.state.task == "2"
    qtbot.waitUntil(lambda: w.geometry.chosen is not None, timeout=PATIENCE_MS)
    guid = tr.states.extra["GUID"]
    kept = {tr.names[guid[i]] for i in np.flatnonzero(w.geometry.chosen.states) if guid[i] >= 0}
    assert kept == {"1", "2", "4"}
    rgb = w.geometry.state_rgb(np.arange(len(tr.states)))
    own = w.geometry.value_rgb[tr.states.value]
    assert ((rgb == own).all(axis=1) == w.geometry.chosen.states).all()  # the rest dimmed
    w.details_dock.task.click()
    assert w.state.task is None
    qtbot.waitUntil(lambda: w.geometry.chosen is None, timeout=PATIENCE_MS)


def test_the_strip_draws_the_chosen_tasks_utilization(qtbot, tmp_path):
    """With a task chain chosen, the strip draws a white line at the chain's
    utilization: worked by hand for otf2gen.apex_tasks (3 workers, trace from 100 to
    900 ns), task 6 alone (its chain is 1 and 6): over the strip's bins its line
    stands where 1 (hpx_main on worker 0, [100, 900] less task 3 [300, 350]) plus 6
    ([600, 700] on worker 2) are busy: 1 worker, 2 over [600, 700]."""
    import otf2gen
    otf2gen.apex_tasks(tmp_path / "apex")
    w = opened(qtbot, tmp_path / "apex", base="timeline", labels=False, task="6")
    strip = w.time_dock.strip
    qtbot.waitUntil(lambda: strip.selection is not None, timeout=PATIENCE_MS)
    bins = 80  # 10 ns each
    chosen, edges = strip.selection.activity(bins, strip.span)
    line = chosen.sum(axis=1)
    mid = (edges[:-1] + edges[1:]) / 2 * 1e9 + 100  # ns from the archive's clock
    want = np.where((mid > 300) & (mid < 350), 0, 1) + ((mid > 600) & (mid < 700))
    assert np.allclose(line, want)
    img = strip.image()  # the line at 2 workers of the stack's top, over [600, 700]
    selection = strip.selection
    strip.set_selection(None)
    drawn = (strip.image() != img).any(axis=2)  # what the line changed
    strip.set_selection(selection)
    w_px, h_px = img.shape[1], img.shape[0]
    top = strip.overview.activity(w_px, strip.span)[0].sum(axis=1).max()
    x = int((650e-9 - 100e-9) / (strip.span[1] - strip.span[0]) * w_px)
    y = int(round((h_px - 1) * (1 - 2 / top)))
    assert np.flatnonzero(drawn[:, x]).tolist() == [y] and (img[y, x] == 255).all()
    w.state.task = None
    qtbot.waitUntil(lambda: strip.selection is None, timeout=PATIENCE_MS)


def test_the_intervals_dock_brushes_durations_for_3d(qtbot, tmp_path, monkeypatch):
    """Dragging across the Intervals dock's histogram brushes a range of durations:
    the state value's intervals within it keep their colours in 3D, the others are
    dimmed (issue 31.5); a double click brushes none. otf2gen.apex_tasks: "fib"
    lasts 100 (task 2), 50 twice (task 3's pieces) and 20 ns (task 4). Naming a
    time unit draws the histogram again in it; moving the window does not."""
    import otf2gen
    import triva3d.panels.intervals as panel
    drawn, real = [], panel.histogram_svg
    monkeypatch.setattr(panel, "histogram_svg",
                        lambda *a: drawn.append(a[5]) or real(*a))
    otf2gen.apex_tasks(tmp_path / "apex")
    w = opened(qtbot, tmp_path / "apex", base="timeline", labels=False)
    dock = w.intervals_dock
    dock.show()
    dock.raise_()
    dock.value.setCurrentText("fib")
    assert dock.value.currentText() == "fib"
    d = dock._current()
    assert sorted(np.round(d.seconds * 1e9).tolist()) == [20, 50, 50, 100]
    from triva3d.panels.intervals import plot_box
    x0, y0, x1, y1 = plot_box(dock._size())
    ratio = dock.svg.width() / dock._size()[0]
    y = round((y0 + y1) / 2 * ratio)
    # from the far left to 0.8 of the plot: 20 ns up to about 80 ns (log axis 20..100)
    qtbot.mousePress(dock.svg, QtCore.Qt.LeftButton, pos=QtCore.QPoint(round(x0 * ratio), y))
    qtbot.mouseMove(dock.svg, QtCore.QPoint(round((x0 + 0.8 * (x1 - x0)) * ratio), y))
    qtbot.mouseRelease(dock.svg, QtCore.Qt.LeftButton,
                       pos=QtCore.QPoint(round((x0 + 0.8 * (x1 - x0)) * ratio), y))
    qtbot.waitUntil(lambda: w.state.intervals is not None, timeout=PATIENCE_MS)
    value, lo, hi = w.state.intervals
    assert value == "fib" and lo == 0 and 50e-9 < hi < 100e-9  # the far left: from 0 s
    qtbot.waitUntil(lambda: w.geometry.chosen is not None, timeout=PATIENCE_MS)
    kept = np.flatnonzero(w.geometry.chosen.states)
    assert sorted(np.round((w.trace.states.end[kept] - w.trace.states.start[kept]) * 1e9)
                  .tolist()) == [20, 50, 50]
    qtbot.mouseDClick(dock.svg, QtCore.Qt.LeftButton, pos=QtCore.QPoint(round(x0 * ratio), y))
    qtbot.waitUntil(lambda: w.state.intervals is None, timeout=PATIENCE_MS)
    assert drawn and set(drawn) == {None}
    w.state.update(time_unit="us")
    assert drawn[-1] == "us"
    n = len(drawn)
    w.state.update(window=(0.0, 1e-7))
    assert len(drawn) == n


def test_the_view_menu_cuts_a_task_run_by_task_for_the_execution_tree(qtbot, tmp_path):
    """Issue 31.2: View > By task makes otf2gen.apex_tasks' six tasks containers (the
    thread's trace comes back unchecked); the tasktree base lays them out parents
    above children (dot: task 1 above 2, 3 and 6, above 4). Without it, or on a trace
    without tasks, a dialog, and what was shown stays."""
    sys.path.insert(0, str(Path(__file__).parent))
    import otf2gen
    otf2gen.apex_tasks(tmp_path / "apex")
    w = opened(qtbot, tmp_path / "apex")
    threads = w.trace
    w.state.base = "tasktree"
    w.redraw()
    assert UNEXPECTED and "View > By task" in UNEXPECTED.pop(), UNEXPECTED
    assert w.trace is threads and w.state.base != "tasktree", UNEXPECTED
    w.task_action.setChecked(True)
    assert "(by task)" in w.windowTitle()
    names = w.trace.display_names("containers", w.trace.level("Task"))
    assert names == ["hpx_main 1", "orphan 5", "fib 2", "fib 3", "remote 6", "fib 4"]
    w.state.base = "tasktree"
    w.redraw()
    lay = w.view.scene.geometry.layout
    assert lay.base == "tasktree"
    y = {n: lay.node_rects[i, 1] for i, n in enumerate(lay.node_names)}
    assert y["hpx_main 1"] > y["fib 2"] == y["fib 3"] == y["remote 6"] > y["fib 4"]
    w.task_action.setChecked(False)
    assert UNEXPECTED and "View > By task" in UNEXPECTED.pop()  # tasktree needs it
    assert w.task_action.isChecked() and w.trace.level("Task").size == 6
    w.state.base = "treemap"
    w.redraw()
    w.task_action.setChecked(False)
    assert w.trace is threads
    # a window on the tasktree base opens a task run cut by task; and --by-task
    tree = opened(qtbot, tmp_path / "apex", base="tasktree")
    assert tree.task_action.isChecked() and tree.trace.level("Task").size == 6
    assert tree.physical.find("types", "Task").size == 0
    tree.task_action.setChecked(False)  # the base needs it: refused
    assert UNEXPECTED and "View > By task" in UNEXPECTED.pop(), UNEXPECTED
    asked = MainWindow(ViewState(), by_task=True)
    qtbot.addWidget(asked)
    asked.open_trace(str(tmp_path / "apex"))
    qtbot.waitUntil(lambda: asked.trace is not None or bool(UNEXPECTED), timeout=PATIENCE_MS)
    assert asked.trace.level("Task").size == 6 and asked.task_action.isChecked()
    small = opened(qtbot)
    small.task_action.setChecked(True)
    assert UNEXPECTED and "no state has a 'GUID' field" in UNEXPECTED.pop()
    assert not small.task_action.isChecked() and small.trace is small.physical
