"""The main window: the View in the centre (pyvistaqt's QtInteractor gives it its
render window), docks bound to the same ViewState around it, menus for files, and
the keyboard flight. No drawing or analysis here: the View and the library do it."""

from PySide6 import QtCore, QtGui, QtWidgets

from ..errors import OptionsError, Triva3dError, out_of_memory
from ..memory import give_back
from ..viewstate import FRESH, SCALES, ViewState
from . import Cancelled, docks, flight

HELP = """<h3>Flying through the execution</h3>
<table>
<tr><td>left drag</td><td>rotate</td></tr>
<tr><td>right drag / wheel</td><td>zoom</td></tr>
<tr><td>middle drag, shift + left drag</td><td>pan</td></tr>
<tr><td>click</td><td>pick: what is under the pointer is outlined, its fields in Details</td></tr>
<tr><td>Ctrl + left drag</td><td>move a base node or a container (a bar: its container);
saved with the view</td></tr>
<tr><td>W / S, Up / Down</td><td>fly forward / back</td></tr>
<tr><td>A / D, Left / Right</td><td>turn left / right around the scene</td></tr>
<tr><td>Page Up / Page Down</td><td>move the time window later / earlier by half its length,
up to the ends of the trace</td></tr>
<tr><td>+ / -</td><td>stretch / squeeze time (the time scale)</td></tr>
<tr><td>Home</td><td>back to the view preset, fitted</td></tr>
<tr><td>drag in the overview strip</td><td>choose the time window; double-click: all of it</td></tr>
<tr><td>Ctrl+R</td><td>record the flight (again: stop); Ctrl+P plays it back, Ctrl+M
exports it (or, with nothing recorded, a turn around the scene) as MP4 or GIF</td></tr>
<tr><td>drop a file</td><td>a trace, a topology (.dot, .gv, .xml) or a saved view (.json)</td></tr>
</table>"""

MAX_RECENT = 8
#: A keyboard flight ends (full detail again) after this long without a flight key.
FLIGHT_PAUSE_MS = 400


#: What a Loader reads of a store: as a window opens it (engine.read_for_view: all
#: of it where it fits in memory, else its first part), or all of it; else `read`
#: is the (t0, t1) window whose part it reads (engine.read_part).
OPEN, WHOLE = "open", "whole"


class Loader(QtCore.QThread):
    """Reads a trace (of a store, what `read` says), lays its base out and makes the
    scene's numpy geometry off the GUI thread (numba's kernels load here too), for
    `state` (a copy; of a part read as the store opens, its window set to it)."""

    done = QtCore.Signal(object, str, object, object, object)  # loader, path, trace,
    failed = QtCore.Signal(object, str)                        # layout, geometry; message
    #: loader, percent read (-1: reading done, laying out), what is going on
    progressed = QtCore.Signal(object, int, str)

    def __init__(self, path, state, lenient, by_task=False, read=OPEN):
        super().__init__()
        self.path, self.state, self.lenient, self.read = path, state, lenient, read
        self.base = state.base_options()
        self.by_task = by_task  # asked; in run: whether the trace is cut by task
        self.physical = None  # the trace read (`done` carries it cut by task, if so)
        self.n_bins = None  # the level of detail's bins: the window's (MainWindow._start)

    def _read(self, done, total):
        if self.isInterruptionRequested():
            raise Cancelled()
        self.progressed.emit(self, int(100 * done / max(total, 1)), "reading")

    def run(self):
        try:  # the imports too: an error there must reach the window, never hang it
            from ..bases.layout import make_layout
            from ..engine import read_for_view, read_part
            from ..load import load
            from ..scene.geometry import Geometry
            from ..store import store_folder
            store = store_folder(self.path)
            if store and self.read == OPEN:
                trace = read_for_view(store, self.state.window, progress=self._read)
            elif store and self.read != WHOLE:
                trace = read_part(store, self.read, progress=self._read)
            else:
                trace = load(self.path, lenient=self.lenient, progress=self._read)
            self.physical = trace
            from ..analysis.tasks import task_trace
            from ..bases import by_task
            self.by_task = by_task(self.state.base, self.by_task)
            if trace.whole is not None:
                if self.by_task:
                    raise OptionsError(f"{trace.source}: only a window of it is read, "
                                       "cutting it by task needs the whole run")
                if self.state.window is None:
                    self.state.window = trace.whole.window
            if self.by_task:
                trace = task_trace(trace)
            if self.isInterruptionRequested():
                return
            self.progressed.emit(self, -1, "laying out")
            layout = make_layout(trace, **self.base)
            give_back()  # (what the read freed)
            geometry = Geometry(trace, layout, self.state, n_bins=self.n_bins)
            geometry.legend_entries()
            give_back()
            self.done.emit(self, self.path, trace, layout, geometry)
        except Cancelled:
            pass
        except Triva3dError as e:
            self.failed.emit(self, str(e))
        except MemoryError:  # (what was made goes with this frame, at once)
            self.failed.emit(self, str(out_of_memory(self.path, "opening")))
        except Exception as e:  # a bug must not take the window down
            self.failed.emit(self, f"{self.path}: {type(e).__name__}: {e}")


class MainWindow(QtWidgets.QMainWindow):
    #: A line to add to the loading's status (from any thread): kernels compiling.
    compiling = QtCore.Signal(str)

    def __init__(self, state=None, quality="fast", lenient=False, by_task=False):
        super().__init__()
        self.compile_note = ""
        self.compiling.connect(lambda note: setattr(self, "compile_note", f" ({note})"))
        from .interactor import Interactor
        self.setWindowTitle("triva3d")
        self.setAcceptDrops(True)
        self.state = state if state is not None else ViewState()
        self.quality, self.lenient = quality, lenient
        self._by_task = by_task  # View > By task, as the window opens
        self.trace = self.view = self.loader = self.path = None
        self.physical = None  # the trace opened (self.trace: it, or it in logical time)
        self._dropped = []  # cancelled loaders, waited for on closing
        self.settings = QtCore.QSettings("triva3d", "triva3d")
        self.interactor = Interactor(self)
        self.interactor.installEventFilter(self)
        self.setCentralWidget(self.interactor)
        self.docks = [docks.TimeDock(self), docks.BaseDock(self), docks.LegendDock(self),
                      docks.TreemapDock(self), docks.DetailsDock(self), docks.EventsDock(self),
                      docks.CallPathsDock(self), docks.IntervalsDock(self)]
        for dock, area in zip(self.docks, ("bottom", "left", "left", "right", "right",
                                           "right", "right", "right")):
            self.addDockWidget(getattr(QtCore.Qt, f"{area.capitalize()}DockWidgetArea"), dock)
        self.time_dock, self.base_dock, self.legend_dock, self.treemap_dock, \
            self.details_dock, self.events_dock, self.calltree_dock, self.intervals_dock = \
            self.docks
        for tab in (self.events_dock, self.calltree_dock, self.intervals_dock):  # tabs
            self.tabifyDockWidget(self.treemap_dock, tab)
        self.treemap_dock.raise_()
        from .playback import PlaybackBar
        self.playback = PlaybackBar(self)
        self.addToolBar(QtCore.Qt.BottomToolBarArea, self.playback)
        self.progress = QtWidgets.QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.hide()
        self.cancel = QtWidgets.QPushButton("Cancel")
        self.cancel.hide()
        self.cancel.clicked.connect(self._cancel_load)
        self.statusBar().addPermanentWidget(self.progress)
        self.statusBar().addPermanentWidget(self.cancel)
        self.flight = flight.Flight(self)
        self._menus()
        self._good = self.state.copy()
        self.state.events.connect(self._changed)
        self._holding = False  # while a trace is being put in place (see _loaded)
        # pyvista's wrapper: VTK's interactor swallows button releases, its style not
        iren = self.interactor.iren
        self._iren = iren.interactor
        self._press = None
        self._drag = None  # (key, centre, ground point) while Ctrl-dragging
        self.group = []  # what Ctrl-Shift-clicks gathered: moved together
        # before the interactor style (priority 0), which would rotate the camera
        self._drag_tags = {e: self._iren.AddObserver(e, self._ctrl_drag, 10.0)
                           for e in ("LeftButtonPressEvent", "LeftButtonReleaseEvent")}
        iren.add_observer("LeftButtonPressEvent", self._left_press)
        iren.add_observer("LeftButtonReleaseEvent", self._left_release)
        iren.add_observer("StartInteractionEvent", lambda *_: self._moving(True))
        iren.add_observer("EndInteractionEvent", lambda *_: self._moving(False))
        # a keyboard flight moves the camera until no flight key came for a while
        self._flight_pause = QtCore.QTimer(self, singleShot=True, interval=FLIGHT_PAUSE_MS)
        self._flight_pause.timeout.connect(self._flight_paused)
        self.interactor.renderer.AddObserver("StartEvent", self._before_frame)
        self.resize(1400, 900)
        geometry = self.settings.value("geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
            self.restoreState(self.settings.value("docks"))

    # -- menus -------------------------------------------------------------------------
    def _menus(self):
        m = self.menuBar().addMenu("&File")
        for text, key, slot in (("&Open trace...", "Ctrl+O", self.open_trace),
                                ("Open &topology...", "Ctrl+T", self.open_topology),
                                ("Compare &with...", "Ctrl+W", self.compare_with),
                                ("&Load view...", "Ctrl+L", self.load_view),
                                ("&Save view...", "Ctrl+S", self.save_view),
                                ("&Export screenshot...", "Ctrl+E", self.export_screenshot)):
            a = m.addAction(text, slot)
            a.setShortcut(QtGui.QKeySequence(key))
        self.recent_menu = m.addMenu("&Recent traces")
        self._show_recent()
        m.addSeparator()
        m.addAction("&Quit", self.close).setShortcut(QtGui.QKeySequence("Ctrl+Q"))
        f = self.menuBar().addMenu("&Movie")
        self.record_action = f.addAction("&Record flight")
        self.record_action.setCheckable(True)
        self.record_action.toggled.connect(self.flight.record)
        self.record_action.setShortcut(QtGui.QKeySequence("Ctrl+R"))
        f.addAction("&Play flight", self.flight.play).setShortcut(QtGui.QKeySequence("Ctrl+P"))
        f.addAction("&Save flight...", self.save_flight)
        f.addAction("E&xport animation...", self.export_animation).setShortcut(
            QtGui.QKeySequence("Ctrl+M"))
        v = self.menuBar().addMenu("&View")
        for name in ("iso", "top", "side", "timeline"):
            v.addAction(name, lambda n=name: self.set_view_preset(n))
        v.addSeparator()
        self.logical_action = v.addAction("&Logical time")
        self.logical_action.setCheckable(True)
        self.logical_action.setShortcut(QtGui.QKeySequence("Ctrl+L"))
        self.logical_action.toggled.connect(self.set_logical)
        self.task_action = v.addAction("By &task")
        self.task_action.setCheckable(True)
        self.task_action.setChecked(self._by_task)
        self.task_action.setToolTip("each task of a many-task run a container, its "
                                    "dependencies as links (the tasktree base stands on it)")
        self.task_action.toggled.connect(self.set_by_task)
        v.addSeparator()
        for d in self.docks:
            v.addAction(d.toggleViewAction())
        self.menuBar().addMenu("&Help").addAction("&Keys and mouse", self.show_help)

    def _show_recent(self):
        self.recent_menu.clear()
        for path in self.settings.value("recent", []) or []:
            self.recent_menu.addAction(path, lambda p=path: self.open_trace(p))

    def show_help(self):
        QtWidgets.QMessageBox.information(self, "triva3d: keys and mouse", HELP)

    def error(self, message):
        """A dialog with the one-line message; what is shown stays."""
        self.statusBar().showMessage(message, 10000)
        QtWidgets.QMessageBox.warning(self, "triva3d", message)

    # -- files -------------------------------------------------------------------------
    def open_trace(self, path=None):
        if not path:
            from ..load import DIALOG_FILTER
            path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Open a trace", "",
                                                            DIALOG_FILTER)
        if not path:
            return
        state = self.state.copy()
        if self.view is not None:  # a new trace: nothing of the old one's is named
            state.update(**FRESH)
        self._start(Loader(str(path), state, self.lenient, self.task_action.isChecked()))

    def _start(self, loader):
        """Run `loader` in place of any other (a part on its way: the window back to
        the one shown), its progress shown."""
        if self.loader is not None:
            self._unread()
        self.progress.show()
        self.cancel.show()
        self.progress.setRange(0, 0)
        self.statusBar().showMessage(f"loading {loader.path}...")
        self.loader = loader
        if self.view is not None:  # (binned as shown now: not binned again once drawn)
            loader.n_bins = self.view.scene.geometry.n_bins
        loader.done.connect(self._loaded)  # bound slots: run in the GUI thread
        loader.failed.connect(self._load_failed)
        loader.progressed.connect(self._load_progress)
        loader.start()

    def _load_progress(self, loader, percent, what):
        if loader is self.loader:
            self.progress.setRange(0, 0 if percent < 0 else 100)
            self.progress.setValue(max(percent, 0))
            self.statusBar().showMessage(f"{what} {loader.path}...{self.compile_note}")

    def _cancel_load(self):
        self._unread()  # the reading stops at its next block, its result dropped
        self._idle()

    def _unread(self):
        """Drop the loader on its way; where it read another part, the window back to
        the one shown."""
        loader, self.loader = self.loader, None
        self._drop(loader)
        if loader.read != OPEN:
            self.state.window = self._good.window

    def _idle(self):
        self.compile_note = ""  # compiled once: later loads do not
        self.progress.hide()
        self.cancel.hide()

    def _loaded(self, loader, path, trace, layout, geometry):
        if loader is not self.loader:  # cancelled, or another one started since
            loader.physical = None  # (its trace goes now)
            return
        self._drop(loader)
        self.loader = None
        self._idle()
        if loader.read != OPEN and self.state.refusal(trace):
            self._read_part()  # (the window changed again while it was read)
            return
        fresh = loader.read == OPEN
        now = self.state.copy(**(FRESH if fresh and self.view is not None else {}))
        if trace.whole is not None and now.window is None:
            now.window = trace.whole.window  # (as _install sets it)
        if loader.base != self.state.base_options():
            layout = geometry = None  # the base changed while it loaded: again
        elif not now.same_drawing(loader.state):
            geometry = None  # (the state changed while it was read)
        if self._install(trace, layout, geometry, fresh=fresh):
            self.physical, self.path = loader.physical, path
            docks._blocked(self.logical_action, lambda: self.logical_action.setChecked(False))
            docks._blocked(self.task_action, lambda: self.task_action.setChecked(loader.by_task))
            if loader.by_task:
                self.setWindowTitle(f"triva3d: {trace.name} (by task)")
            recent = [path] + [p for p in (self.settings.value("recent", []) or [])
                               if p != path]
            self.settings.setValue("recent", recent[:MAX_RECENT])
            self._show_recent()

    def set_logical(self, on):
        """Show the trace opened in logical time (Ravel's steps as the vertical axis,
        see analysis.logical) or back in physical time."""
        self._derive(self.logical_action, "putting the trace in logical time...")

    def set_by_task(self, on):
        """Show the trace opened cut by task (analysis.tasks.task_trace) or back by
        container."""
        self._derive(self.task_action, "cutting the trace by task...")

    def _derive(self, action, doing):
        """Show the trace opened as the View menu's switches say (by task, then in
        logical time); where it cannot be, a dialog, `action` unchecked again, and
        what was shown stays."""
        if self.physical is None:
            return
        if self.physical.whole is not None:
            docks._blocked(action, lambda: action.setChecked(not action.isChecked()))
            self.error(f"{self.physical.source}: only a window of it is read, "
                       f"{'cutting by task' if action is self.task_action else 'logical time'}"
                       " needs the whole run")
            return
        from ..analysis.logical import logical_trace
        from ..analysis.tasks import task_trace
        self.statusBar().showMessage(doing if action.isChecked() else "")
        trace, how = self.physical, []
        try:
            if self.task_action.isChecked():
                trace, how = task_trace(trace), how + ["by task"]
            if self.logical_action.isChecked():
                trace, how = logical_trace(trace), how + ["logical time"]
        except Triva3dError as e:
            docks._blocked(action, lambda: action.setChecked(not action.isChecked()))
            self.error(str(e))
            return
        if self._install(trace, None, None):
            if how:
                self.setWindowTitle(f"triva3d: {trace.name} ({', '.join(how)})")
            for note in trace.notes:
                self.statusBar().showMessage(f"note: {note}", 10000)
        else:
            docks._blocked(action, lambda: action.setChecked(not action.isChecked()))

    def _install(self, trace, layout, geometry, fresh=True):
        """Show `trace` (laid out as `layout` with `geometry`, else laid out here);
        False, with a dialog, if it cannot be shown (what was shown stays). `fresh`:
        another trace (else another part of the same store: the state stays)."""
        from ..view import View
        before = self.state.copy()
        self._holding = True  # the state's changes are the new trace's: none drawn on the old
        try:
            if self.view is not None and fresh:  # what named the old trace's things goes
                self.state.update(**FRESH)
            if trace.whole is not None and self.state.window is None:
                self.state.window = trace.whole.window  # (a part: its window)
            if self.view is None:
                self.view = View(trace, self.state, quality=self.quality, layout=layout,
                                 geometry=geometry, render_window=self.interactor.ren_win,
                                 renderer=self.interactor.renderer, legend=False)
            else:
                self.view.set_trace(trace, layout, geometry)
        except Triva3dError as e:
            self._holding = False
            # drawn again: the old trace as it was (another part: as last drawn, the
            # changes made while it was read never checked)
            self.state.assign(before if fresh or self.view is None else self._good)
            self.error(str(e))
            return False
        finally:
            self._holding = False
        self.trace, self.group = trace, []
        held = trace.whole.window if trace.whole is not None else ()
        self.setWindowTitle(f"triva3d: {trace.name}" + (
            f" (read: {held[0]:g} to {held[1]:g} of it)" if held else ""))
        for d in self.docks:
            d.show_trace(trace, self.view.scene.geometry)
        self._good = self.state.copy()
        give_back()  # (the scene replaced)
        self.statusBar().showMessage(self.view.summary(), 10000)
        for line in self.view.warnings():
            self.statusBar().showMessage(f"warning: {line}", 10000)
        self.redraw()
        return True

    def _load_failed(self, loader, message):
        if loader is self.loader:
            self._unread()  # (another part: the window back to the one shown)
            self._idle()
            self.error(message)

    def _drop(self, loader):
        """Let `loader` end (asked to stop, waited for on closing); those ended go."""
        loader.requestInterruption()
        self._dropped = [d for d in self._dropped if not d.isFinished()] + [loader]

    def _read_part(self):
        """Read the part of the store shown that the state's window needs (all of it
        without one), in a Loader; the part shown stays until it comes. With a load
        on its way, nothing: once it comes, the window the state has then is read."""
        if self.loader is None:
            read = WHOLE if self.state.window is None else self.state.window
            self._start(Loader(self.path, self.state.copy(), self.lenient, False, read))

    def open_topology(self, path=None):
        if not path:
            from ..bases.readers import DIALOG_FILTER
            path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Open a topology", "",
                                                            DIALOG_FILTER)
        if path:
            self.state.update(topology=str(path), base="topology")

    def compare_with(self, path=None):
        """Colour the states by B - A against the run at `path` (asked for if None):
        of the state value longest over the trace, unless a difference is chosen
        (the colour-by box chooses another: difference:METRIC)."""
        if self.geometry is None:
            return
        if not path:
            from ..load import DIALOG_FILTER
            path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Compare with a run", "",
                                                            DIALOG_FILTER)
        if not path:
            return
        g = self.geometry
        color_by = self.state.color_by
        if not color_by.startswith("difference:") and len(self.trace.values):
            color_by = "difference:state:" + self.trace.display_name(
                "values", int(g.values_by_time()[0]))
        self.statusBar().showMessage(f"comparing with {path}...")
        self.state.update(compare=str(path), color_by=color_by)

    def load_view(self, path=None):
        if not path:
            path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Load a view", "",
                                                            "Views (*.json)")
        if not path:
            return
        try:
            loaded = ViewState.load(path)
        except Triva3dError as e:
            self.error(str(e))
            return
        self.state.assign(loaded)

    def save_view(self, path=None):
        if not path:
            path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Save the view", "view.json",
                                                            "Views (*.json)")
        if path:
            self.keep_camera()
            try:
                self.state.save(path)
            except Triva3dError as e:
                self.error(str(e))

    def export_screenshot(self, path=None):
        """The picture `triva3d render --state` of the saved view gives: an offscreen
        View of this state at the 3D view's size."""
        if self.trace is None:
            return
        if not path:
            path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Export a screenshot",
                                                            "triva3d.png", "Images (*.png *.jpg)")
        if not path:
            return
        from ..view import View
        self.keep_camera()
        size = self.interactor.full_size()
        try:
            shot = View(self.trace, self.state.copy(), size=size, quality=self.quality)
            shot.save(path)
            shot.close()
        except Triva3dError as e:
            self.error(str(e))

    def save_flight(self, path=None):
        """The recorded flight's keyframes (`triva3d animate --path` renders them)."""
        if self.flight.keyframes is None:
            self.error("nothing recorded: Movie > Record flight, fly, then stop")
            return
        if not path:
            path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Save the flight",
                                                            "flight.json", "Keyframes (*.json)")
        if path:
            try:
                self.flight.save(path)
            except Triva3dError as e:
                self.error(str(e))

    def export_animation(self, path=None):
        """The recorded flight (else a turn around the scene) as MP4 or GIF."""
        if self.trace is None:
            return
        if not path:
            path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Export an animation",
                                                            "triva3d.mp4", "Movies (*.mp4 *.gif)")
        if path:
            try:
                self.flight.export(path)
            except Triva3dError as e:
                self.error(str(e))

    def keep_camera(self):
        """Store where the user flew the camera in the state."""
        if self.view is not None:
            self.state.camera = self.view.camera

    def dragEnterEvent(self, event):
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event):
        """Open what is dropped; a trace dropped with Shift held, while one is open,
        is compared with it (File > Compare with...)."""
        compare = bool(event.modifiers() & QtCore.Qt.ShiftModifier) and self.trace is not None
        for url in event.mimeData().urls():
            if compare:
                self.compare_with(url.toLocalFile())
            else:
                self.open_any(url.toLocalFile())

    def open_any(self, path):
        """A dropped or given file: a view (.json, a trace open), a trace or a topology
        as the readers' tables tell by its content, else a trace (its reader says what
        is wrong)."""
        from ..bases import readers
        from ..load import reader_of
        if path.lower().endswith(".json") and self.trace is not None:
            self.load_view(path)
        elif reader_of(path) is None and readers.reader_of(path) is not None:
            self.open_topology(path)
        else:
            self.open_trace(path)

    # -- following the state -------------------------------------------------------------
    @property
    def geometry(self):
        return self.view.scene.geometry if self.view is not None else None

    def _changed(self, change):
        if not self._holding:
            self.redraw()

    def redraw(self):
        """Apply the state; a change the View refuses is undone, with a dialog."""
        if self.view is None:
            return
        why = self.trace.whole is not None and self.state.whole_run()
        if why:  # refused alone (the other changes stay, a part on its way comes), all
            self.error(f"{self.trace.source}: only a window of it is read, {why} needs "
                       "the whole run")  # drawn once what is taken back is sent
            self.state.update(**self.state.undo_whole_run(self._good))
            return
        if self.trace.whole is not None and self.state.refusal(self.trace):
            self._read_part()  # (a store's part: another window)
            return
        if self.loader is not None and self.loader.read != OPEN:  # (the part shown
            self._drop(self.loader)                               # holds it after all)
            self.loader = None
            self._idle()
        try:
            self.view.prepare()
        except Triva3dError as e:
            self.state.assign(self._good)
            self.error(str(e))
            return
        self._good = self.state.copy()
        self.interactor.update()  # drawn in the paint
        for d in self.docks:
            if not d.concerns:
                d.show_state()

    def _before_frame(self, *_):
        if self.view is not None and self.view.scene is not None:
            self.view.scene.fit_view(self.interactor.renderer)

    def _moving(self, moving):
        """The camera starts or stops moving: cheap forms and fewer pixels meanwhile."""
        if self.view is not None:
            self.interactor.reduce(moving)
            self.view.scene.set_moving(moving, self.interactor.reduction)
            if not moving:
                self.keep_camera()
                self.interactor.update()

    # -- picking ---------------------------------------------------------------------------
    def _left_press(self, *_):
        self._press = self.interactor.position

    def _left_release(self, *_):
        pos = self.interactor.position
        if self._press is None or self.view is None:
            return
        if abs(pos[0] - self._press[0]) + abs(pos[1] - self._press[1]) <= 3:
            # once the click's interaction has ended: full size, where `pos` is
            QtCore.QTimer.singleShot(0, self,
                                     lambda: self.view is not None and self.pick(*pos))

    def _ctrl_drag(self, iren, event):
        """Ctrl-drag moves a base node or a container (a bar moves its container):
        the press picks it, the release puts it where the pointer went on the
        ground; the move is kept in the state (`moved`), so saved with the view.
        Ctrl-Shift-click adds a node or container to the group (or takes it out):
        dragging one of the group moves them all by as much."""
        press = event == "LeftButtonPressEvent"
        if self.view is None or (press and not iren.GetControlKey()) \
                or (not press and self._drag is None):
            return
        iren.GetCommand(self._drag_tags[event]).SetAbortFlag(1)  # no rotation
        x, y = iren.GetEventPosition()
        if press:
            ground = self.view.projection.on_plane(x, y)
            if ground is not None:
                key, _ = self.view.layout.drag_target(self.trace, self.view.pick(x, y), ground)
                if iren.GetShiftKey():
                    if key is not None:
                        self._gather(key)
                    return
                self._drag = (key, ground)
            return
        key, start = self._drag
        self._drag = None
        end = self.view.projection.on_plane(x, y)
        if key is None or end is None:
            return
        self.keep_camera()
        lay, dx, dy = self.view.layout, end[0] - start[0], end[1] - start[1]
        keys = self.group if key in self.group else [key]
        self.state.moved = {**self.state.moved,
                            **{k: (c[0] + dx, c[1] + dy)
                               for k in keys for c in [lay.centre(self.trace, k)]}}

    def _gather(self, key):
        """Add `key` to the group moved together, or take it out."""
        self.group = [k for k in self.group if k != key] if key in self.group \
            else self.group + [key]
        names = ", ".join(k.partition(":")[2] for k in self.group)
        self.statusBar().showMessage(
            f"moved together by Ctrl-drag: {names}" if self.group else "no group", 10000)

    def pick(self, x, y):
        """Pick at display point (x, y) (origin bottom left)."""
        picked = self.view.pick(x, y)
        self.details_dock.show_picked(picked)
        self.state.selection = ({"kind": picked["kind"], "row": picked["row"]}
                                if picked else None)
        return picked

    # -- flight ------------------------------------------------------------------------------
    def set_view_preset(self, name):
        self.state.view = name
        if self.view is not None:
            self.view.reset_camera()
            self.redraw()

    def eventFilter(self, obj, event):
        if obj is self.interactor and event.type() == QtCore.QEvent.KeyPress:
            return self.fly(event.key())
        return super().eventFilter(obj, event)

    def fly(self, key):
        """Handle a flight key; True if it was one."""
        if self.view is None:
            return False
        K = QtCore.Qt
        cam = self.interactor.renderer.GetActiveCamera()
        s = self.state
        if key in (K.Key_W, K.Key_Up, K.Key_S, K.Key_Down):
            cam.Dolly(1.15 if key in (K.Key_W, K.Key_Up) else 1 / 1.15)
        elif key in (K.Key_A, K.Key_Left, K.Key_D, K.Key_Right):
            cam.Azimuth(-5 if key in (K.Key_A, K.Key_Left) else 5)
        elif key in (K.Key_PageUp, K.Key_PageDown):  # (they stop at the trace's ends)
            s.window = self.geometry.paged(s.window, 1 if key == K.Key_PageUp else -1)
            return True
        elif key in (K.Key_Plus, K.Key_Equal, K.Key_Minus):
            s.scale = min(max(s.scale * (1.25 if key != K.Key_Minus else 1 / 1.25),
                              SCALES[0]), SCALES[1])
            return True
        elif key == K.Key_Home:
            self.set_view_preset(s.view)
            return True
        else:
            return False
        if not self._flight_pause.isActive():
            self._moving(True)
        self._flight_pause.start()  # its end keeps the camera in the state (not each key:
        self.interactor.renderer.ResetCameraClippingRange()  # a state change redraws)
        self.interactor.update()
        return True

    def _flight_paused(self):
        if self._iren.GetInteractorStyle().GetState() == 0:  # not in a mouse drag
            self._moving(False)

    def closeEvent(self, event):
        self._flight_pause.stop()
        self.record_action.setChecked(False)
        self.flight.stop()
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("docks", self.saveState())
        loaders, self.loader = self._dropped + [self.loader], None  # (nothing installed)
        for loader in loaders:
            if loader is not None:
                loader.requestInterruption()
                loader.wait()
        self.interactor.close()
        super().closeEvent(event)
