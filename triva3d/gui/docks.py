"""The docks around the 3D view: thin controls bound to the window's ViewState (each
reads it when it changes and writes it when the user acts; signals are blocked
while a dock shows the state, so nothing loops)."""
import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from ..theme import SWATCH_EDGE
from ..analysis import CELLS, COLOR_BY, FUNCTIONS
from ..scene import aggregated
from ..bases import BASES, PROGRAMS
from ..units import TIME_UNITS
from ..viewstate import DETAILS, SCALES
from .strip import Strip

#: The time unit choice that leaves the unit to the trace (ViewState.time_unit None).
TRACE_UNIT = "the trace's"


def _blocked(widget, set_value):
    widget.blockSignals(True)
    try:
        set_value()
    finally:
        widget.blockSignals(False)


class Dock(QtWidgets.QDockWidget):
    """A dock named for QSettings, following `window.state`: at each change of
    its `concerns` (the state's sub-models it shows), else, with none, after the
    View has drawn the state (what it shows comes from the View's geometry)."""

    concerns = ()

    def __init__(self, window, title, name):
        super().__init__(title, window)
        self.setObjectName(name)
        self.window = window
        self.state = window.state
        self.body = QtWidgets.QWidget()
        self.form = QtWidgets.QFormLayout(self.body)
        self.setWidget(self.body)
        for concern in self.concerns:  # (held weakly: no cycle)
            self.state.group(concern).events.connect(self._state_changed)

    def _state_changed(self, change):
        self.show_state()

    def show_state(self):
        """Show the state (override)."""

    def show_trace(self, trace, geometry):
        """A new trace (override)."""

    def _combo(self, items, changed):
        c = QtWidgets.QComboBox()
        c.addItems(list(items))
        c.currentTextChanged.connect(changed)
        return c


class TimeDock(Dock):
    """The overview strip and its brush, and the window typed exactly."""

    def __init__(self, window):
        super().__init__(window, "Time window", "time")
        self.strip = Strip()
        self._chosen_key = None  # what the strip's line shows: (call path, task)
        self.form.addRow(self.strip)
        self.t0, self.t1 = QtWidgets.QDoubleSpinBox(), QtWidgets.QDoubleSpinBox()
        for box in (self.t0, self.t1):
            box.setDecimals(9)
            box.setRange(-1e300, 1e300)
            box.editingFinished.connect(self._typed)
        whole = QtWidgets.QPushButton("Whole trace")
        whole.clicked.connect(lambda: setattr(self.state, "window", None))
        row = QtWidgets.QHBoxLayout()
        for w in (QtWidgets.QLabel("from"), self.t0, QtWidgets.QLabel("to"), self.t1, whole):
            row.addWidget(w)
        self.form.addRow(row)
        self.strip.window_chosen.connect(lambda w: setattr(self.state, "window", w))
        self.strip.now_chosen.connect(lambda t: setattr(self.state, "now", t))

    def _chosen(self, g):
        """The strip's line: the utilization of the states chosen (a call path, a task
        chain, brushed intervals) in 3D."""
        key = None if g.chosen is None else g.chosen.key
        if key != self._chosen_key:
            self._chosen_key = key
            self.strip.set_selection(g.chosen_overview())

    def _typed(self):
        t0, t1 = self.t0.value(), self.t1.value()
        if t1 > t0:
            self.state.window = (t0, t1)

    def show_trace(self, trace, geometry):
        from ..analysis.overview import Overview
        self.strip.set_trace(Overview(trace), geometry.value_rgb,
                             (trace.start_time, trace.end_time))
        self.show_state()

    def show_state(self):
        g = self.window.geometry
        if g is None:
            return
        if self.strip.value_rgb is not None and not np.array_equal(self.strip.value_rgb,
                                                                   g.value_rgb):
            self.strip.set_trace(self.strip.overview, g.value_rgb, self.strip.span)
        self.strip.set_window(self.state.window)
        self.strip.set_now(self.state.now)
        self._chosen(g)
        for box, t in ((self.t0, g.frame.t0), (self.t1, g.frame.t1)):
            _blocked(box, lambda b=box, t=t: b.setValue(t))


class BaseDock(Dock):
    """What the scene stands on, and how it is drawn."""

    concerns = ("base", "time", "drawing")

    def __init__(self, window):
        super().__init__(window, "Base and drawing", "base")
        s = self.state
        self.base = self._combo(("topology",) + BASES[1:], lambda v: setattr(s, "base", v))
        self.topology = QtWidgets.QPushButton("Choose a topology...")
        self.topology.clicked.connect(window.open_topology)
        self.program = self._combo(("default",) + PROGRAMS,
                                   lambda v: setattr(s, "program", None if v == "default" else v))
        self.level = QtWidgets.QLineEdit()
        self.level.setPlaceholderText("communication graph level (type or depth)")
        self.level.editingFinished.connect(lambda: setattr(s, "level", self.level.text() or None))
        self.scale = QtWidgets.QDoubleSpinBox()
        self.scale.setRange(*SCALES)
        self.scale.setDecimals(3)
        self.scale.setSingleStep(0.25)
        self.scale.valueChanged.connect(lambda v: setattr(s, "scale", v))
        self.opacity = QtWidgets.QSlider(QtCore.Qt.Horizontal)
        self.opacity.setRange(0, 100)
        self.opacity.valueChanged.connect(lambda v: setattr(s, "link_opacity", v / 100))
        self.detail = self._combo(DETAILS, lambda v: setattr(s, "detail", v))
        self.color_by = QtWidgets.QComboBox()  # editable: variable:TYPE, slice:METRIC
        self.color_by.setEditable(True)
        self.color_by.setInsertPolicy(QtWidgets.QComboBox.NoInsert)
        self.color_by.addItems(COLOR_BY)
        self.color_by.setToolTip("value, lateness, duration, variable:TYPE (its mean over "
                                 "each state) or slice:METRIC (the container's Time-Slice "
                                 "value of the window, e.g. slice:state%:MPI_Wait)")
        self.color_by.textActivated.connect(lambda v: setattr(s, "color_by", v.strip()))
        self.color_by.lineEdit().returnPressed.connect(  # typed (Qt activates list items only)
            lambda: setattr(s, "color_by", self.color_by.currentText().strip()))
        self.aggregate = QtWidgets.QLineEdit()
        self.aggregate.setPlaceholderText("auto, none, or a level (type or depth)")
        self.aggregate.editingFinished.connect(
            lambda: setattr(s, "aggregate", self.aggregate.text().strip() or "auto"))
        self.unit = self._combo((TRACE_UNIT,) + TIME_UNITS, lambda v: setattr(
            s, "time_unit", None if v == TRACE_UNIT else v))
        self.labels = QtWidgets.QCheckBox("names")
        self.labels.toggled.connect(lambda v: setattr(s, "labels", v))
        views = QtWidgets.QHBoxLayout()
        for name in ("iso", "top", "side", "timeline"):
            b = QtWidgets.QPushButton(name)
            b.clicked.connect(lambda _, n=name: window.set_view_preset(n))
            views.addWidget(b)
        for label, w in (("base", self.base), ("topology", self.topology),
                         ("layout", self.program), ("level", self.level),
                         ("time scale", self.scale), ("message opacity", self.opacity),
                         ("detail", self.detail), ("colour by", self.color_by),
                         ("aggregate", self.aggregate),
                         ("time unit", self.unit),
                         ("labels", self.labels), ("view", views)):
            self.form.addRow(label, w)
        self.show_state()

    def show_trace(self, trace, geometry):
        """The colour-by choices: the fixed ones and each variable type of `trace`."""
        from ..trace import Kind
        names = sorted({trace.display_name("types", t)
                        for t in np.flatnonzero(trace.types.kind == Kind.VARIABLE)})
        _blocked(self.color_by, lambda: (self.color_by.clear(), self.color_by.addItems(
            list(COLOR_BY) + [f"variable:{n}" for n in names])))
        self.show_state()

    def show_state(self):
        s = self.state
        base = s.base or ("topology" if s.topology else "treemap")
        for w, value in ((self.base, lambda: self.base.setCurrentText(base)),
                         (self.program, lambda: self.program.setCurrentText(s.program or "default")),
                         (self.level, lambda: self.level.setText(s.level or "")),
                         (self.scale, lambda: self.scale.setValue(s.scale)),
                         (self.opacity, lambda: self.opacity.setValue(round(100 * s.link_opacity))),
                         (self.detail, lambda: self.detail.setCurrentText(s.detail)),
                         (self.color_by, lambda: self.color_by.setCurrentText(s.color_by)),
                         (self.aggregate, lambda: self.aggregate.setText(s.aggregate)),
                         (self.unit, lambda: self.unit.setCurrentText(s.time_unit or TRACE_UNIT)),
                         (self.labels, lambda: self.labels.setChecked(s.labels))):
            _blocked(w, value)
        import os
        self.topology.setText(os.path.basename(s.topology) if s.topology else "Choose a topology...")


class LegendDock(Dock):
    """Every value and type with a show/hide box and its colour (double-click to
    change it; Alt-click to show it alone among its kind's, again to show them
    all), then the picture's other keys (profiles, edges, particles); the search
    box finds values and containers by name."""

    def __init__(self, window):
        super().__init__(window, "Legend and filters", "legend")
        self.search = QtWidgets.QLineEdit()
        self.search.setPlaceholderText("find a value or a container")
        self.search.textChanged.connect(self._find)
        self.tree = QtWidgets.QTreeWidget()
        self.tree.setHeaderLabels(["name", "kind"])
        self.tree.header().setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeToContents)
        self.tree.itemChanged.connect(self._toggled)
        self.tree.itemDoubleClicked.connect(self._recolour)
        self.tree.itemClicked.connect(self._clicked)
        self.form.addRow(self.search)
        self.form.addRow(self.tree)
        self.found = QtWidgets.QLabel()
        self.form.addRow(self.found)
        self.keys = QtWidgets.QLabel()
        self.keys.setTextFormat(QtCore.Qt.RichText)
        self.keys.setWordWrap(True)
        self.form.addRow(self.keys)

    def show_trace(self, trace, geometry):
        self.trace = trace
        self.tree.blockSignals(True)
        self.tree.clear()
        for name, kind, rgb in geometry.filter_entries():
            item = QtWidgets.QTreeWidgetItem([name, kind])
            item.setFlags(item.flags() | QtCore.Qt.ItemIsUserCheckable)
            item.setCheckState(0, QtCore.Qt.Checked)
            item.setIcon(0, _swatch(rgb))
            self.tree.addTopLevelItem(item)
        self.tree.blockSignals(False)
        self._show_found(self.search.text())
        self.show_state()

    def show_state(self):
        scene = self.window.view.scene if self.window.view is not None else None
        rgb = ({(n, k): c for n, k, c in scene.geometry.filter_entries()}
               if scene is not None else {})
        hidden = set(self.state.hidden)
        self.tree.blockSignals(True)
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            shown = (self.state.variables.get(item.text(0), "hide") not in ("hide", "capacity")
                     if item.text(1).startswith("metric") else item.text(0) not in hidden)
            item.setCheckState(0, QtCore.Qt.Checked if shown else QtCore.Qt.Unchecked)
            if (item.text(0), item.text(1)) in rgb:
                item.setIcon(0, _swatch(rgb[item.text(0), item.text(1)]))
        self.tree.blockSignals(False)
        # the picture's keys that are no swatch of the list: a colour-by metric's stops
        # (each with its colour), profiles, edges, notes
        import html
        listed = {n for n, _ in rgb} | {f"{n} ({k})" for n, k in rgb}
        lines = [("" if c is None else '<span style="color:#%02x%02x%02x">&#9632;</span> '
                  % tuple(int(v) for v in c)) + html.escape(text)
                 for text, c in (scene.legend_entries() if scene else []) if text not in listed]
        self.keys.setText("<br>".join(lines))

    def _toggled(self, item, column):
        name = item.text(0)
        if item.text(1).startswith("metric"):  # a metric is drawn by its rule
            rules = {k: v for k, v in self.state.variables.items() if k != name}
            if item.checkState(0) == QtCore.Qt.Checked:
                rules[name] = "max"
            self.state.variables = rules
            return
        hidden = [h for h in self.state.hidden if h != name]
        if item.checkState(0) == QtCore.Qt.Unchecked:
            hidden.append(name)
        self.state.hidden = tuple(hidden)

    def _clicked(self, item, column):
        """Alt-click shows that value alone among its kind's (again: all of them)."""
        if QtWidgets.QApplication.keyboardModifiers() & QtCore.Qt.AltModifier:
            self.isolate(item.text(0), item.text(1))

    def isolate(self, name, kind):
        g = self.window.geometry
        if g is not None:
            self.state.hidden = g.isolating(name, kind, self.state.hidden)

    def _recolour(self, item, column):
        c = QtWidgets.QColorDialog.getColor(parent=self)
        if c.isValid():
            self.state.colors = {**self.state.colors, item.text(0): c.name()}

    def _show_found(self, text):
        """List only the values and types whose name holds `text` (all: none)."""
        text = text.strip().lower()
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            item.setHidden(bool(text) and text not in item.text(0).lower())

    def _find(self, text):
        self._show_found(text)
        text = text.strip().lower()
        if not text or self.window.trace is None:
            self.found.setText("")
            return
        tr = self.window.trace
        hits = tr.search("containers", text)
        self.found.setText(f"{len(hits)} containers" + (f": {tr.display_name('containers', hits[0])}"
                                                        " outlined" if len(hits) else ""))
        if len(hits):
            self.state.selection = {"kind": "container", "row": int(hits[0])}


def _swatch(rgb):
    """A 14 px key edged in theme.SWATCH_EDGE (a white key on a white row shows)."""
    pix = QtGui.QPixmap(14, 14)
    pix.fill(QtGui.QColor(*SWATCH_EDGE))
    paint = QtGui.QPainter(pix)
    paint.fillRect(1, 1, 12, 12, QtGui.QColor(*(int(c) for c in rgb)))
    paint.end()
    return QtGui.QIcon(pix)


class PictureDock(Dock):
    """A dock showing a picture drawn offscreen (its own `canvas`, one for the
    dock's life, released when the window closes)."""

    def __init__(self, window, title, name):
        super().__init__(window, title, name)
        self.picture = QtWidgets.QLabel()
        self.picture.setMinimumSize(240, 180)
        self.picture.setAlignment(QtCore.Qt.AlignLeft | QtCore.Qt.AlignTop)
        self.canvas = None
        window.installEventFilter(self)  # its close releases the canvas

    def _show_image(self, img):
        self._img = img = np.ascontiguousarray(img)
        self.picture.setPixmap(QtGui.QPixmap.fromImage(QtGui.QImage(
            img.data, img.shape[1], img.shape[0], 3 * img.shape[1], QtGui.QImage.Format_RGB888)))

    def eventFilter(self, watched, event):
        if watched is self.window and event.type() == QtCore.QEvent.Close \
                and self.canvas is not None:
            self._let_go_of_qt_context()
            self.canvas.close()
            self.canvas = None
        return False

    @staticmethod
    def _let_go_of_qt_context():
        """Release the 3D view's GL context: while it is current, the canvas's EGL
        context cannot be, and the canvas would draw (and free) in Qt's."""
        current = QtGui.QOpenGLContext.currentContext()
        if current is not None:
            current.doneCurrent()


class TreemapDock(PictureDock):
    """The Time-Slice treemap of the current window at a level, with an aggregation;
    a click selects the node's container, a container picked in 3D is outlined."""

    def __init__(self, window):
        super().__init__(window, "Time-Slice treemap", "treemap")
        s = self.state
        self.level = QtWidgets.QComboBox()
        self.level.currentTextChanged.connect(lambda v: setattr(
            s, "slice_level", None if v in ("", "leaves") else v))
        self.cells = self._combo(CELLS, lambda v: setattr(s, "slice_metric", v))
        self.how = self._combo(FUNCTIONS, lambda v: setattr(s, "slice_how", v))
        row = QtWidgets.QHBoxLayout()
        for w in (self.level, self.cells, self.how):
            row.addWidget(w)
        self.form.addRow(row)
        self.values = QtWidgets.QLineEdit()
        self.values.setPlaceholderText("values drawn: all (or A, B, ...)")
        self.values.editingFinished.connect(lambda: setattr(s, "slice_values", tuple(
            v.strip() for v in self.values.text().split(",") if v.strip()) or None))
        self.form.addRow(self.values)
        self.picture.mousePressEvent = self._clicked
        self.picture.setMouseTracking(True)
        self.picture.mouseMoveEvent = lambda e: self.hover(self._node_at(e))
        self.picture.leaveEvent = lambda e: self.hover(None)
        self.form.addRow(self.picture)
        self.note = QtWidgets.QLabel()  # what the treemap leaves out, and why
        self.note.setWordWrap(True)
        self.form.addRow(self.note)
        self.treemap = self.slicer = None
        self._shown = self._hovered = None

    def show_trace(self, trace, geometry):
        self.trace, self.slicer = trace, None  # one Slicer a trace, made at the first slice
        types = {trace.display_name("types", t) for t in np.unique(trace.containers.type[1:])}
        _blocked(self.level, lambda: (self.level.clear(),
                                      self.level.addItems(["leaves"] + sorted(types)),
                                      self.level.setCurrentText(self.state.slice_level
                                                                or "leaves")))
        QtCore.QTimer.singleShot(0, self.refresh)  # after the window's other work

    def _key(self):
        """What the picture shows: the geometry's window, the selection and the
        state's treemap fields."""
        f, s = self.window.geometry.frame, self.state
        return (f.t0, f.t1, s.selection, s.slice_level, s.slice_how, s.slice_metric,
                s.slice_values, s.hidden, s.color_by, s.compare, s.time_unit)

    def show_state(self):
        s = self.state
        for combo, text in ((self.level, s.slice_level or "leaves"), (self.how, s.slice_how),
                            (self.cells, s.slice_metric)):
            _blocked(combo, lambda c=combo, t=text: c.setCurrentText(t))
        _blocked(self.values, lambda: self.values.setText(", ".join(s.slice_values or ())))
        if self.window.geometry is not None and self._key() != self._shown:
            self.refresh()

    def refresh(self):
        from ..errors import Triva3dError
        from ..panels.treemap import TimeSliceTreemap
        g = self.window.geometry
        if g is None:
            return
        s = self.state
        w, h = max(self.picture.width(), 240), max(self.picture.height(), 180)
        if self.slicer is None:  # (its columns, nesting included, cost a sort of the states)
            from ..analysis.timeslice import Slicer
            self.slicer = Slicer(self.trace)
        try:
            tm = TimeSliceTreemap(self.trace, window=(g.frame.t0, g.frame.t1),
                                  level=s.slice_level, how=s.slice_how, metric=s.slice_metric,
                                  values=s.slice_values, slicer=self.slicer, width=w,
                                  height=h, palette=(g.value_rgb, g.type_rgb),
                                  hidden=s.hidden, time_unit=s.time_unit,
                                  color_by=s.color_by if s.slice_metric == "state" else "value",
                                  other=g.other)
        except Triva3dError as e:
            self.picture.setText(str(e))
            return
        self.treemap, self._size = tm, (w, h)
        self.note.setText("\n".join(tm.notes))
        self._paint(self._selected())
        self._shown = self._key()

    def _selected(self):
        """The node of the container picked in 3D (a state's container), or None."""
        sel = self.state.selection
        if sel and sel["kind"] in ("container", "state"):
            return self.treemap.node_of(sel["row"] if sel["kind"] == "container"
                                        else self.trace.states.container[sel["row"]])
        return None

    def _paint(self, highlight):
        """The picture, outlining node `highlight` and its ancestors."""
        from ..panels.treemap import Canvas
        if not self.window.isVisible():  # closed: its canvas released for good
            return
        if self.canvas is None:
            self.canvas = Canvas()
        self._let_go_of_qt_context()
        self._show_image(self.canvas.draw(self.treemap, self._size, highlight, keys=False))

    def hover(self, node):
        """Point at treemap node `node` (None: nothing): it and its ancestors are
        outlined here, its containers' columns in 3D."""
        if node == self._hovered or self.treemap is None or self.window.view is None:
            return
        self._hovered = node
        self._paint(self._selected() if node is None else node)
        if node is not None:
            self.window.statusBar().showMessage(self.treemap.describe(node))
        else:
            self.window.statusBar().clearMessage()
        scene = self.window.view.scene
        scene.highlight([] if node is None else self.trace.subtree([self.treemap.containers[node]]))
        self.window.interactor.update()

    def resizeEvent(self, event):
        super().resizeEvent(event)
        if self.treemap is not None:
            QtCore.QTimer.singleShot(0, self.refresh)

    def _node_at(self, event):
        """The treemap node under a mouse event, or None."""
        if self.treemap is None:
            return None
        p = self.canvas.projection.on_plane(event.position().x(),
                                            self._size[1] - event.position().y())
        hit = None if p is None else self.treemap.node_at(*p)
        return None if hit is None else hit[0]

    def _clicked(self, event):
        node = self._node_at(event)
        if node is not None:
            self.state.selection = {"kind": "container", "row": int(self.treemap.containers[node])}


class EventsDock(PictureDock):
    """Sigovan's event particles (panels.events) at the state's `now` over the
    window, their history gathered as the run plays; a click on a particle, paused,
    selects its state."""

    def __init__(self, window):
        super().__init__(window, "Events (particles)", "events")
        self.picture.setMinimumSize(320, 260)
        self.picture.setSizePolicy(QtWidgets.QSizePolicy.Ignored,
                                   QtWidgets.QSizePolicy.Ignored)  # drawn at its size
        self.form.addRow(self.picture)
        clear = QtWidgets.QPushButton("Clear history")
        clear.clicked.connect(self._clear)
        self.note = QtWidgets.QLabel()
        self.note.setWordWrap(True)
        self.form.addRow(clear, self.note)
        self.picture.mousePressEvent = self._clicked
        self.picture.mouseMoveEvent = self._dragged
        self.events = self.drawing = None
        self._events_of = self._drawing_of = self._drawn_at = self._chosen = None
        self.visibilityChanged.connect(lambda shown: shown and self.show_state())

    def show_trace(self, trace, geometry):
        self.events = self.drawing = self._events_of = self._drawing_of = self._chosen = None
        self.show_state()

    def _clear(self):
        if self.drawing is not None:
            self.drawing.clear()
            self._drawn_at = None
            self.show_state()

    def _now(self):
        g = self.window.geometry
        return self.state.now if self.state.now is not None else g.frame.t0

    def show_state(self):
        """The particles at now; they join the history when now moved since the last
        picture (a redraw for another reason adds nothing)."""
        from ..errors import Triva3dError
        from ..panels.events import Canvas, Events, EventsPicture, event_rows
        g, tr = self.window.geometry, self.window.trace
        if g is None or not self.isVisible() or not self.window.isVisible():
            return
        try:
            window = (g.frame.t0, g.frame.t1)
            shown = tuple(m.tobytes() for m in g.shown)
            if self._chosen is None or self._chosen[0] != (tr, shown):
                self._chosen = ((tr, shown), event_rows(tr, g.shown))  # once, not per brush
            if self._events_of != (self._chosen[0], window):
                self.events = Events(tr, g.value_rgb, window=window, chosen=self._chosen[1])
                self._events_of, self._drawing_of = (self._chosen[0], window), None
            size = (max(self.picture.width(), 320), max(self.picture.height(), 260))
            if self._drawing_of != (self.events, size, g.frame.t0, g.frame.t1):
                self.drawing = EventsPicture(self.events, size, (g.frame.t0, g.frame.t1))
                self._drawing_of = (self.events, size, g.frame.t0, g.frame.t1)
        except Triva3dError as e:
            self.picture.setText(str(e))
            return
        if self.canvas is None:
            self.canvas = Canvas()
        self._let_go_of_qt_context()
        now = self._now()
        self._show_image(self.canvas.draw(self.drawing, now, record=now != self._drawn_at))
        self._drawn_at = now
        self.note.setText(f"{len(self.events.rows)} events on {len(self.events.ranks)} "
                          f"{self.events.slot_word}; play (Space) to see them rise")

    def _clicked(self, event):
        """On the timeline: now goes there (and follows a drag); on a particle, while
        paused: its state is the selection."""
        if self.drawing is None:
            return
        p = event.position()
        if self.drawing.on_timeline(p.y()):
            self.state.now = self.drawing.time_at(p.x())
            return
        if self.window.playback.playing:
            return
        row = self.drawing.pick(p.x(), p.y(), self._now())
        if row is not None:
            self.state.selection = {"kind": "state", "row": row}

    def _dragged(self, event):
        if self.drawing is not None and event.buttons() & QtCore.Qt.LeftButton \
                and self.drawing.on_timeline(event.position().y()):
            self.state.now = self.drawing.time_at(event.position().x())


class CallPathsDock(Dock):
    """The Sankey of the window's call paths (CallFlow section 7.1): hovering a node
    gives its calling context and numbers, a click chooses its call path (dimming
    the others in 3D), a click beside the nodes none."""

    concerns = ("time",)

    def __init__(self, window):
        from PySide6 import QtSvgWidgets
        super().__init__(window, "Call paths", "calltree")
        self.sankey, self._shown = None, None
        self.svg = QtSvgWidgets.QSvgWidget()
        self.svg.setMinimumSize(320, 220)
        self.svg.setMouseTracking(True)
        self.svg.installEventFilter(self)
        self.form.addRow(self.svg)
        self.note = QtWidgets.QLabel()
        self.note.setWordWrap(True)
        self.form.addRow(self.note)
        self.visibilityChanged.connect(lambda shown: shown and self.show_state())

    def show_trace(self, trace, geometry):
        self._shown = None
        self.show_state()

    def show_state(self):
        from ..analysis.calltree import calltree
        from ..panels.sankey import Sankey, svg, title_room
        g, tr = self.window.geometry, self.window.trace
        if g is None or not self.isVisible():
            return
        w, h = self.svg.width(), self.svg.height()
        key = (tr, g.frame.t0, g.frame.t1, w, h)
        if key == self._shown:
            return
        tree = calltree(tr, window=(g.frame.t0, g.frame.t1), paths=g.call_paths())
        self.sankey = Sankey(tree, width=w, height=max(h - title_room(), 50))
        self.svg.load(QtCore.QByteArray(svg(self.sankey).encode()))
        self.note.setText(tree.summary() + "; click a node to follow its path in 3D")
        self._shown = key

    def _node(self, pos):
        from ..panels.sankey import title_room
        return None if self.sankey is None else self.sankey.node_at(pos.x(),
                                                                    pos.y() - title_room())

    def eventFilter(self, watched, event):
        if watched is self.svg and event.type() == QtCore.QEvent.Resize:
            QtCore.QTimer.singleShot(0, self.show_state)  # drawn again at its new size
        if watched is self.svg and self.sankey is not None:
            if event.type() == QtCore.QEvent.MouseMove:
                i = self._node(event.position())
                if i is None:
                    QtWidgets.QToolTip.hideText()
                else:
                    QtWidgets.QToolTip.showText(event.globalPosition().toPoint(),
                                                self.sankey.tip(i), self.svg)
            elif event.type() == QtCore.QEvent.MouseButtonPress:
                i = self._node(event.position())
                self.state.call_path = None if i is None else \
                    self.sankey.tree.text(int(self.sankey.paths[i]))
        return False


class IntervalsDock(Dock):
    """A state value's interval histogram (Traveler section 4.3): durations on a log
    axis, far outliers listed; dragging across it brushes a range of durations,
    whose intervals keep their colours in 3D (the others dimmed); a double click
    brushes none."""

    concerns = ("selection", "time")

    def __init__(self, window):
        from PySide6 import QtSvgWidgets
        super().__init__(window, "Intervals", "intervals")
        self.value = QtWidgets.QComboBox()
        self.value.currentTextChanged.connect(lambda v: self._draw())
        self.form.addRow("state value", self.value)
        self.svg = QtSvgWidgets.QSvgWidget()
        self.svg.setMinimumSize(480, 220)
        self.svg.installEventFilter(self)
        self.form.addRow(self.svg)
        self.durations, self._brush = {}, None

    def show_trace(self, trace, geometry):
        from ..trace import Kind
        self.durations = {}
        held = np.bincount(trace.states.value, minlength=len(trace.values)) > 0  # (a part:
        _blocked(self.value, lambda: (self.value.clear(), self.value.addItems(  # its own)
            [trace.display_name("values", v) for v in geometry.values_by_time()
             if trace.types.kind[trace.values.type[v]] == Kind.STATE and held[v]])))
        self._draw()

    def _state_changed(self, change):  # (the selection, or the time's unit: not the window)
        if "time_unit" in change or not set(change).issubset(self.state.group("time").fields):
            self.show_state()

    def show_state(self):
        chosen = self.state.intervals
        if chosen is not None and chosen[0] != self.value.currentText():
            _blocked(self.value, lambda: self.value.setCurrentText(chosen[0]))
        self._draw()

    def _current(self):
        """The Durations of the value shown (made once a value), or None."""
        from ..analysis.intervals import durations
        name, tr = self.value.currentText(), self.window.trace
        if not name or tr is None:
            return None
        if name not in self.durations:
            self.durations[name] = durations(tr, name)
        return self.durations[name]

    def _size(self):
        return (max(self.svg.width(), 480), max(self.svg.height(), 220))

    def _draw(self, chosen=None):
        from ..panels.intervals import histogram_svg
        d, tr = self._current(), self.window.trace
        if d is None:
            return
        s = self.state.intervals
        if chosen is None and s is not None and s[0] == d.value:
            chosen = s[1:]
        rgb = self.window.geometry.value_rgb[d.code]
        self.svg.load(QtCore.QByteArray(histogram_svg(d, tr, rgb, chosen, self._size(),
                                                      self.state.time_unit).encode()))

    def eventFilter(self, watched, event):
        from ..panels.intervals import duration_at
        if watched is not self.svg:
            return False
        d, kind = self._current(), event.type()
        if kind == QtCore.QEvent.Resize:
            QtCore.QTimer.singleShot(0, self._draw)
        elif d is None:
            return False
        elif kind == QtCore.QEvent.MouseButtonDblClick:
            self._brush = None
            self.state.intervals = None
        elif kind == QtCore.QEvent.MouseButtonPress:
            self._brush = [event.position().x()] * 2
        elif kind == QtCore.QEvent.MouseMove and self._brush is not None:
            self._brush[1] = event.position().x()
            self._draw(sorted(duration_at(d, x, self._size()) for x in self._brush))
        elif kind == QtCore.QEvent.MouseButtonRelease and self._brush is not None:
            lo, hi = sorted(duration_at(d, x, self._size()) for x in self._brush)
            self._brush = None
            if hi > lo:
                self.state.intervals = (d.value, lo, hi)
        return False


class DetailsDock(Dock):
    """Every field of what is picked, user-defined ones included; an aggregated
    column can be expanded into its children's, or folded back into its parent's."""

    def __init__(self, window):
        super().__init__(window, "Details", "details")
        self.text = QtWidgets.QTextBrowser()
        self.form.addRow(self.text)
        row = QtWidgets.QHBoxLayout()
        self.expand = QtWidgets.QPushButton("Expand")
        self.collapse = QtWidgets.QPushButton("Collapse into parent")
        self.expand.clicked.connect(lambda: self._fold(aggregated.expand))
        self.collapse.clicked.connect(lambda: self._fold(aggregated.collapse))
        self.focus = QtWidgets.QPushButton("Focus")
        self.focus.setToolTip("outline the containers this one exchanges messages with "
                              "(again: no focus)")
        self.focus.clicked.connect(self._focus)
        self.path = QtWidgets.QPushButton("Call path")
        self.path.setToolTip("keep the colours of the states on this call path and its "
                             "callees, dim the others (again: all)")
        self.path.clicked.connect(self._call_path)
        self.task = QtWidgets.QPushButton("Task chain")
        self.task.setToolTip("keep the colours of this task's ancestors and descendants "
                             "(by its GUID) and of their dependencies, dim the others "
                             "(again: all)")
        self.task.clicked.connect(self._task)
        row.addWidget(self.path)
        row.addWidget(self.task)
        row.addWidget(self.expand)
        row.addWidget(self.collapse)
        row.addWidget(self.focus)
        self.form.addRow(row)
        self.picked = None
        self.show_picked(None)

    def show_trace(self, trace, geometry):
        self.show_picked(None)  # (a row of the trace, or of the part, shown before)

    def show_picked(self, picked):
        self.picked = picked
        self.text.setPlainText("\n".join(f"{k}: {v}" for k, v in picked.items())
                               if picked else "nothing here")
        trace, s = self.window.trace, self.state
        node = picked["row"] if picked and picked["kind"] == "aggregate" else None
        for button, fold in ((self.expand, aggregated.expand),
                             (self.collapse, aggregated.collapse)):
            button.setEnabled(node is not None
                              and fold(trace, s.expanded, node) != s.expanded)
        self.focus.setEnabled(self._container() is not None or s.focus is not None)
        self.path.setEnabled(bool(picked and "call path" in picked) or s.call_path is not None)
        self.task.setEnabled(bool(picked and picked.get("kind") == "state" and "GUID" in picked)
                             or s.task is not None)

    def _container(self):
        """The name of the container of what is picked (None: none)."""
        p = self.picked or {}
        return p.get("container") if p.get("kind") in ("state", "event", "variable") \
            else p.get("name") if p.get("kind") in ("container", "aggregate") else None

    def _call_path(self):
        path = (self.picked or {}).get("call path")
        self.state.call_path = None if path == self.state.call_path else path

    def _task(self):
        guid = (self.picked or {}).get("GUID")
        self.state.task = None if guid is None or guid == self.state.task else guid

    def _focus(self):
        name = self._container()
        self.state.focus = None if name == self.state.focus else name

    def _fold(self, fold):
        self.window.keep_camera()
        self.state.expanded = fold(self.window.trace, self.state.expanded, self.picked["row"])
