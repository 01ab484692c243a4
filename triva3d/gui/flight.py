"""Recording the user's flight as keyframes, playing it back in the window, and
exporting it (or an orbit) as a movie: the movie package does the work."""
import os
import time

from PySide6 import QtCore, QtWidgets

from ..errors import Triva3dError
from . import Cancelled

#: Keyframes recorded per second while the user flies.
RECORD_HZ = 4
PLAY_FPS = 25


class Flight(QtCore.QObject):
    """The Movie menu's work for `window` (a MainWindow)."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.keyframes = None       # movie.paths.Keyframes of the last recording
        self._items, self._t0 = [], None
        self._record = QtCore.QTimer(self)
        self._record.setInterval(1000 // RECORD_HZ)
        self._record.timeout.connect(self._capture)
        self._play = QtCore.QTimer(self)
        self._play.setInterval(1000 // PLAY_FPS)
        self._play.timeout.connect(self._step)

    @property
    def recording(self):
        return self._record.isActive()

    @property
    def playing(self):
        return self._play.isActive()

    def record(self, on):
        """Start or stop recording the camera and the state as keyframes."""
        from ..movie.paths import Keyframes
        w = self.window
        if on and w.view is None:
            w.record_action.setChecked(False)  # nothing to record yet
        elif on:
            self.stop()
            self._items, self._t0 = [], time.perf_counter()
            self._capture()
            self._record.start()
            w.statusBar().showMessage("recording the flight...")
        elif not on and self.recording:
            self._record.stop()
            self._capture()
            self.keyframes = Keyframes(self._items) if len(self._items) > 1 else None
            w.statusBar().showMessage(f"recorded {self._items[-1][0]:.1f} s of flight "
                                      f"({len(self._items)} keyframes)", 10000)

    def _capture(self):
        w = self.window
        at = time.perf_counter() - self._t0
        if self._items and at <= self._items[-1][0]:
            return
        self._items.append((0.0 if not self._items else at,
                            w.state.copy(camera=w.view.camera, selection=None)))

    def play(self):
        """Play the recorded flight in the window."""
        if self.keyframes is None or self.window.view is None:
            self.window.error("nothing recorded: Movie > Record flight, fly, then stop")
            return
        self.window.record_action.setChecked(False)  # stops a recording
        self._t0 = time.perf_counter()
        self._play.start()

    def _step(self):
        s = time.perf_counter() - self._t0
        state = self.keyframes.state_at(min(s, self.keyframes.duration))
        try:
            self.window.state.assign(state)
        except Triva3dError as e:
            self.stop()
            self.window.error(str(e))
            return
        if s >= self.keyframes.duration:
            self.stop()

    def stop(self):
        self._play.stop()

    def save(self, path):
        self.keyframes.save(path)

    def export(self, path, duration=10.0):
        """Render the recorded flight (else an orbit of `duration` from the current
        view) to `path` offscreen at the 3D view's size (rounded down to even),
        with a progress dialog that can cancel (record removes the partial
        file)."""
        from ..movie.encode import check_output
        from ..movie.frames import record
        from ..movie.paths import make_path, resolve
        from ..view import View
        w = self.window
        w.keep_camera()
        width, height = w.interactor.full_size()
        size = (width - width % 2, height - height % 2)
        check_output(path, size)  # a bad name fails before any work
        dialog = QtWidgets.QProgressDialog(f"rendering {os.path.basename(path)}", "Cancel",
                                           0, 1, w)
        dialog.setWindowModality(QtCore.Qt.WindowModal)
        dialog.setMinimumDuration(0)
        dialog.setValue(0)  # shown before the offscreen window opens
        QtWidgets.QApplication.processEvents()
        view = None
        try:
            view = View(w.trace, w.state.copy(), size=size, quality=w.quality)
            keys = (resolve(view, self.keyframes) if self.keyframes is not None
                    else make_path(view, "orbit", duration))

            def progress(i, n):
                dialog.setMaximum(n)
                dialog.setValue(i)
                QtWidgets.QApplication.processEvents()
                if dialog.wasCanceled():
                    raise Cancelled()
            frames, size_b, seconds = record(view, keys, path, PLAY_FPS, progress=progress)
            w.statusBar().showMessage(f"{path}: {frames} frames, {size_b / 1e6:.1f} MB, "
                                      f"{frames / seconds:.1f} frames/s", 10000)
        except Cancelled:
            w.statusBar().showMessage("export cancelled", 10000)
        finally:
            dialog.close()
            if view is not None:
                view.close()
