"""The overview strip: the whole trace's activity per state value (stacked, one bin
per pixel, see analysis.overview), the chosen states' (a call path, a task chain) as
a white line over it, with a range brush that sets the time window."""
import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from ..theme import BACKGROUND_RGB, SELECTION_RGB


class Strip(QtWidgets.QWidget):
    """Drag to choose a window, double-click for the whole trace; `window_chosen`
    carries (t0, t1) or None. The "now" cursor, where there is one, is dragged
    (`now_chosen` carries its time)."""

    window_chosen = QtCore.Signal(object)
    now_chosen = QtCore.Signal(float)
    #: How near the cursor (pixels) a press takes it rather than brushing.
    GRAB_PX = 5

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumHeight(60)
        self.setMouseTracking(True)
        self.overview = self.value_rgb = self.selection = None
        self.span = (0.0, 1.0)
        self.window = self.now = None
        self._drag = None
        self._dragging_now = False
        self._image = None
        self.paint_seconds = 0.0

    def set_trace(self, overview, value_rgb, span):
        self.overview, self.value_rgb, self.span = overview, value_rgb, span
        self._image = None
        self.update()

    def set_selection(self, overview):
        """The chosen states' Overview (None: none), drawn as a line."""
        if overview is not self.selection:
            self.selection = overview
            self._image = None
            self.update()

    def set_window(self, window):
        self.window = window
        self.update()

    def set_now(self, now):
        if now != self.now:
            self.now = now
            self.update()

    # -- time <-> pixels ---------------------------------------------------------------
    def time_at(self, x):
        t0, t1 = self.span
        return t0 + (t1 - t0) * min(max(x, 0), self.width()) / max(self.width(), 1)

    def x_at(self, t):
        t0, t1 = self.span
        return (t - t0) / (t1 - t0) * self.width() if t1 > t0 else 0.0

    # -- drawing ---------------------------------------------------------------------------
    def image(self):
        """The strip as an (h, w, 3) array: stacked mean counts per value, one bin a pixel."""
        w, h = max(self.width(), 1), max(self.height(), 1)
        img = np.empty((h, w, 3), np.uint8)
        img[:] = BACKGROUND_RGB
        if self.overview is None or not len(self.overview.values):
            return img
        counts, _ = self.overview.activity(w, self.span)
        cum = np.cumsum(counts, axis=1)                    # (w, k)
        top = max(float(cum[:, -1].max()), 1e-12)
        level = (np.arange(h)[::-1, None] + 0.5) / h * top  # (h, 1): row height
        k = (cum[None, :, :] < level[:, :, None]).sum(axis=2)  # (h, w): value index
        has = k < counts.shape[1]
        rgb = self.value_rgb[self.overview.values]
        img[has] = rgb[k[has]]
        if self.selection is not None and not self.selection.empty:
            chosen = self.selection.activity(w, self.span)[0].sum(axis=1)
            y = np.clip(np.round((h - 1) * (1 - chosen / top)), 0, h - 1).astype(int)
            lo, hi = np.minimum(y, np.r_[y[1:], y[-1]]), np.maximum(y, np.r_[y[1:], y[-1]])
            for x in range(w):  # a line joining the columns' heights
                img[lo[x]:hi[x] + 1, x] = 255
        return img

    def paintEvent(self, event):
        import time
        t = time.perf_counter()
        if self._image is None or self._array.shape[:2] != (self.height(), self.width()):
            a = np.ascontiguousarray(self.image())
            self._array = a
            self._image = QtGui.QImage(a.data, a.shape[1], a.shape[0], 3 * a.shape[1],
                                       QtGui.QImage.Format_RGB888)
        p = QtGui.QPainter(self)
        p.drawImage(0, 0, self._image)
        shade = QtGui.QColor(255, 255, 255, 50)
        if self._drag is not None:
            a, b = sorted(self._drag)
            p.fillRect(QtCore.QRectF(a, 0, b - a, self.height()), shade)
        elif self.window is not None:
            a, b = self.x_at(self.window[0]), self.x_at(self.window[1])
            p.fillRect(QtCore.QRectF(a, 0, max(b - a, 1), self.height()), shade)
            p.setPen(QtGui.QColor(*SELECTION_RGB))
            p.drawRect(QtCore.QRectF(a, 0, max(b - a, 1), self.height() - 1))
        if self.now is not None:
            x = self.x_at(self.now)
            p.setPen(QtGui.QPen(QtGui.QColor(255, 255, 255), 2))
            p.drawLine(QtCore.QPointF(x, 0), QtCore.QPointF(x, self.height()))
        p.end()
        self.paint_seconds = time.perf_counter() - t

    def resizeEvent(self, event):
        self._image = None
        super().resizeEvent(event)

    # -- the brush -----------------------------------------------------------------------
    def mousePressEvent(self, event):
        x = event.position().x()
        if self.now is not None and abs(x - self.x_at(self.now)) <= self.GRAB_PX:
            self._dragging_now = True
            return
        self._drag = [x, x]
        self.update()

    def mouseMoveEvent(self, event):
        if self._dragging_now:
            self.now_chosen.emit(self.time_at(event.position().x()))
        elif self._drag is not None:
            self._drag[1] = event.position().x()
            self.update()

    def mouseReleaseEvent(self, event):
        if self._dragging_now:
            self._dragging_now = False
            self.now_chosen.emit(self.time_at(event.position().x()))
            return
        if self._drag is None:
            return
        a, b = sorted(self._drag)
        self._drag = None
        if b - a >= 3:
            self.window_chosen.emit((self.time_at(a), self.time_at(b)))
        self.update()

    def mouseDoubleClickEvent(self, event):
        self._drag = None
        self.window_chosen.emit(None)
