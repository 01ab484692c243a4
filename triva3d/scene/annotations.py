"""The time axis (a vertical ruler at the base's front-left corner, ticks labelled in
trace time) and the legend of the colours on screen."""
import math

import numpy as np
from vtkmodules.vtkCommonDataModel import vtkPolyData
from vtkmodules.vtkFiltersSources import vtkCubeSource
from vtkmodules.vtkRenderingAnnotation import vtkLegendBoxActor
from vtkmodules.vtkRenderingCore import vtkBillboardTextActor3D

from . import polydata

AXIS_RGB = (0.85, 0.85, 0.85)
MAX_LEGEND = 14
ENTRY = 0.026  # height of a legend line, in fractions of the window


def ticks(t0, t1, target=6):
    """Round tick times (1, 2 or 5 x 10^k apart) within [t0, t1], and the decimals
    their labels need."""
    if not t1 > t0:
        return np.array([t0]), 6
    raw = (t1 - t0) / target
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.ceil(t0 / step - 1e-9) * step
    t = first + step * np.arange(int(math.floor((t1 - first) / step + 1e-9)) + 1)
    return t, max(0, -math.floor(math.log10(step) + 1e-9))


def label(t, decimals):
    return f"{t:.{decimals}f}" if decimals <= 9 else f"{t:.4g}"


def time_axis(frame, bounds, unit="s"):
    """Actors of the axis: the ruler with its ticks, one text per tick, and a title
    naming the time unit."""
    xmin, ymin, xmax, ymax = bounds
    m = 0.04 * max(xmax - xmin, ymax - ymin, 1.0)
    x, y = xmin - m, ymin - m
    t, decimals = ticks(frame.t0, frame.t1)
    z = frame.z(t)
    p0 = np.vstack([[x, y, 0.0], np.c_[np.full(len(z), x), np.full(len(z), y), z]])
    p1 = np.vstack([[x, y, frame.height], np.c_[np.full(len(z), x - m / 2),
                                                 np.full(len(z), y), z]])
    ruler = polydata.actor(polydata.segments(p0, p1), color=[c * 255 for c in AXIS_RGB],
                           line_width=2)
    texts = []
    for ti, zi in zip(t, z):
        texts.append(_text(label(ti, decimals), (x - m, y, zi), "right"))
    texts.append(_text(f"time ({unit})", (x, y, frame.height + m / 2), "center"))
    return [ruler] + texts


def _text(s, pos, justify):
    a = vtkBillboardTextActor3D()
    a.SetInput(s)
    a.SetPosition(*pos)
    p = a.GetTextProperty()
    p.SetFontSize(13)
    p.SetColor(*AXIS_RGB)
    {"right": p.SetJustificationToRight, "center": p.SetJustificationToCentered}[justify]()
    p.SetVerticalJustificationToCentered()
    return a


def legend(entries):
    """A legend box of (name, rgb uint8) entries, the first MAX_LEGEND of them."""
    shown = entries[:MAX_LEGEND]
    if len(entries) > MAX_LEGEND:
        shown = shown + [(f"... {len(entries) - MAX_LEGEND} more", None)]
    box = vtkLegendBoxActor()
    box.SetNumberOfEntries(len(shown))
    cube = vtkCubeSource()
    cube.Update()
    symbol = vtkPolyData()
    symbol.DeepCopy(cube.GetOutput())
    for i, (name, rgb) in enumerate(shown):
        c = (0.6, 0.6, 0.6) if rgb is None else tuple(float(v) / 255 for v in rgb)
        box.SetEntry(i, symbol, name, c)
    box.GetPositionCoordinate().SetCoordinateSystemToNormalizedViewport()
    box.GetPositionCoordinate().SetValue(0.86, 0.98 - ENTRY * len(shown))
    box.GetPosition2Coordinate().SetCoordinateSystemToNormalizedViewport()
    box.GetPosition2Coordinate().SetValue(0.13, ENTRY * len(shown))
    box.UseBackgroundOn()
    box.SetBackgroundColor(0.05, 0.05, 0.06)
    box.SetBackgroundOpacity(0.7)
    box.GetEntryTextProperty().SetColor(0.92, 0.92, 0.92)
    box.BorderOff()
    return box
