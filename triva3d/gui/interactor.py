"""The 3D view's widget: pyvistaqt's QtInteractor, drawing one frame per paint,
and fewer pixels while the camera moves.

pyvistaqt renders when VTK asks (the interactor style asks on every mouse move)
and again in the paint that follows, so each frame of a drag was drawn twice.
Here VTK's requests only schedule a paint (Qt merges them), and the paint draws.
With software OpenGL the cost of a frame is mostly its fragments: while the camera
moves (`reduce`), the scene is drawn at a fraction of the width and height, chosen
from how long the last full frame took, and scaled up.
"""
import math
import time

from pyvistaqt import QtInteractor

#: What a frame should take while the camera moves, and the most the width and
#: height are divided by to get there.
MOVING_FRAME_MS, MAX_REDUCTION = 50.0, 4


def reduction_for(full_ms):
    """Width and height divisor for frames that took `full_ms` at full size: the
    fragments fall with its square."""
    return max(1, min(MAX_REDUCTION, round(math.sqrt(full_ms / MOVING_FRAME_MS))))


class Interactor(QtInteractor):
    def __init__(self, parent):
        super().__init__(parent, auto_update=False)
        self._painting = False
        self._reduction = 1
        self.full_ms = 0.0  # how long the last full-size frame took
        #: the last mouse or key event's position in full-size device pixels, y up
        self.position = (0, 0)
        iren = self.iren.interactor
        iren.EnableRenderOff()  # its Render() then only announces a RenderEvent
        # pyvistaqt drops these when the widget closes (no reference left behind)
        self._vtk_observers.append((iren, iren.AddObserver("RenderEvent", self._render_asked)))

    def _render_asked(self, *_):
        if self._painting:
            self.ren_win.Render()
        else:
            self.update()

    def paintGL(self):
        self._painting = True
        t = time.perf_counter()
        try:
            super().paintGL()
        finally:
            self._painting = False
        if self._reduction == 1:
            self.full_ms = 1e3 * (time.perf_counter() - t)

    def full_size(self):
        """The view's size in device pixels, every pixel drawn (pictures are made
        at this size, whatever is drawn while the camera moves)."""
        dpr = self.devicePixelRatioF()
        return max(1, round(self.width() * dpr)), max(1, round(self.height() * dpr))

    def resizeGL(self, w, h):
        super().resizeGL(w, h)  # the render window at full size: reduced again
        if self._reduction > 1:
            fw, fh = self.full_size()
            self._Iren.UpdateSize(max(1, round(fw / self._reduction)),
                                  max(1, round(fh / self._reduction)))

    @property
    def reduction(self):
        """Screen pixels per pixel drawn, each way (1: every pixel)."""
        return self._reduction

    def reduce(self, on):
        """Draw at a fraction of the width and height (`reduction_for` the last full
        frame; the text keeps its size on screen), or at full size again. Event
        positions follow the drawn pixels, so the camera turns as far for the same
        move."""
        k = reduction_for(self.full_ms) if on else 1
        if k == self._reduction:
            return
        iren, ratio = self._Iren, self._reduction / k
        (lx, ly), (x, y) = iren.GetLastEventPosition(), self.position
        iren.SetEventPosition(round(x / k), round(y / k))  # (moves the old one to Last)
        iren.SetLastEventPosition(round(lx * ratio), round(ly * ratio))
        self._reduction = k
        w, h = self.full_size()
        iren.UpdateSize(max(1, round(w / k)), max(1, round(h / k)))
        self.ren_win.SetDPI(round(72 * self.devicePixelRatioF() / k))
        self.update()

    def _setEventInformation(self, x, y, ctrl, shift, key, repeat=0, keysum=None):
        # pyvistaqt's, in the pixels drawn (VTK's y axis points up)
        s = self.devicePixelRatioF()
        self.position = (round(x * s), round((self.height() - y - 1) * s))
        k = self._reduction
        self._Iren.SetEventInformation(round(self.position[0] / k), round(self.position[1] / k),
                                       ctrl, shift, key, repeat, keysum)
