"""The playback bar: play, pause, speed, and steps event by event through the time
window. It moves the state's `now`, which the 3D scene (its plane, unfolding,
particles, heat), the overview strip's cursor and the events dock follow."""
from PySide6 import QtCore, QtGui, QtWidgets

from ..movie.playback import SPEEDS, advanced, event_times, stepped

#: Milliseconds between two frames while playing.
TICK_MS = 40


class PlaybackBar(QtWidgets.QToolBar):
    def __init__(self, window):
        super().__init__("Playback", window)
        self.setObjectName("playback")
        self.window, self.state = window, window.state
        self.back = self.addAction("|<", lambda: self.step(-1))
        self.back.setToolTip("the previous time something begins or ends (,)")
        self.back.setShortcut(QtGui.QKeySequence(","))
        self.play = self.addAction("Play")
        self.play.setCheckable(True)
        self.play.setShortcut(QtGui.QKeySequence("Space"))
        self.play.setToolTip("play the window from now (Space)")
        self.play.toggled.connect(self._toggled)
        self.forward = self.addAction(">|", lambda: self.step(1))
        self.forward.setToolTip("the next time something begins or ends (.)")
        self.forward.setShortcut(QtGui.QKeySequence("."))
        self.speed = QtWidgets.QComboBox()
        self.speed.addItems([f"{s:g}x" for s in SPEEDS])
        self.speed.setCurrentText("1x")
        self.speed.setToolTip("1x plays the window in 20 s")
        self.addWidget(self.speed)
        self.now = QtWidgets.QLabel()
        self.addWidget(self.now)
        self.timer = QtCore.QTimer(self, interval=TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.clock = QtCore.QElapsedTimer()
        self._times = None  # (trace, its event times)
        self.state.group("movie").events.connect(self._show)

    @property
    def playing(self):
        return self.play.isChecked()

    def _window(self):
        f = self.window.geometry.frame
        return f.t0, f.t1

    def _toggled(self, on):
        self.play.setText("Pause" if on else "Play")
        if not on or self.window.geometry is None:
            self.timer.stop()
            if on:
                self.play.setChecked(False)
            return
        now, ended = advanced(self.state.now, 0.0, self._window())
        self.state.now = now
        self.clock.start()
        self.timer.start()

    def _tick(self):
        if self.window.geometry is None:
            return self.play.setChecked(False)
        speed = SPEEDS[self.speed.currentIndex()]
        now, ended = advanced(self.state.now, self.clock.restart() / 1000, self._window(),
                              speed)
        self.state.now = now
        if ended:
            self.play.setChecked(False)

    def step(self, direction):
        """To the next (1) or previous (-1) time something begins or ends."""
        tr = self.window.trace
        if tr is None:
            return
        self.play.setChecked(False)
        if self._times is None or self._times[0] is not tr:
            self._times = (tr, event_times(tr))
        self.state.now = stepped(self.state.now, self._times[1], direction, self._window())

    def _show(self, change=None):
        now = self.state.now
        unit = self.window.trace.unit(self.state.time_unit) if self.window.trace else ""
        self.now.setText("" if now is None else f"  now {now:.9g} {unit}")
