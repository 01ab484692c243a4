"""Render windows, cameras and quality settings shared by the headless renderer and
the GUI.

Fast quality (the default) turns off what software OpenGL pays most for:
multisampling and the light kit (one headlight instead), and culls the back faces
of bars. High quality adds 8x multisampling and a light kit (FXAA on top of
multisampling gives a black image offscreen with VTK 9.7, so it is not used).
"""
import math
import os

import numpy as np

QUALITIES = ("fast", "high")
#: Named views: (azimuth, elevation) in degrees. Azimuth 0 looks from the front
#: (-y) towards +y; positive azimuths turn to the right (+x); elevation 90 looks down.
VIEWS = {"iso": (35.0, 30.0), "top": (0.0, 90.0), "side": (0.0, 0.0)}


def parse_view(text):
    """'iso', 'top', 'side' or 'AZ,EL' (degrees) to (azimuth, elevation)."""
    if text in VIEWS:
        return VIEWS[text]
    try:
        az, el = (float(v) for v in text.split(","))
    except ValueError:
        raise ValueError(f"view must be iso, top, side or AZ,EL in degrees, not {text!r}") \
            from None
    if not -90 <= el <= 90:
        raise ValueError(f"elevation {el} is outside -90..90 degrees")
    return az, el


def offscreen_window(width, height, quality="fast"):
    """An offscreen render window (EGL when there is no display) with one renderer."""
    from vtkmodules.vtkRenderingCore import vtkRenderer, vtkRenderWindow
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")
    rw = vtkRenderWindow()
    rw.SetOffScreenRendering(1)
    rw.SetSize(int(width), int(height))
    ren = vtkRenderer()
    rw.AddRenderer(ren)
    apply_quality(rw, ren, quality)
    return rw, ren


def apply_quality(rw, ren, quality):
    from .colors import BACKGROUND
    if quality not in QUALITIES:
        raise ValueError(f"quality must be one of {QUALITIES}, not {quality!r}")
    ren.SetBackground(*BACKGROUND)
    high = quality == "high"
    rw.SetMultiSamples(8 if high else 0)
    ren.RemoveAllLights()
    if high:
        from vtkmodules.vtkRenderingCore import vtkLightKit
        vtkLightKit().AddLightsToRenderer(ren)
    else:
        ren.AutomaticLightCreationOn()  # a headlight


def set_view(ren, bounds, azimuth, elevation):
    """Point the camera at the middle of `bounds` (xmin, xmax, ymin, ymax, zmin, zmax)
    from (azimuth, elevation) and back off until everything fits. Views straight
    from above or from the side are orthographic (a map, a time chart); the others
    are in perspective."""
    az, el = math.radians(azimuth), math.radians(elevation)
    d = np.array([math.sin(az) * math.cos(el), -math.cos(az) * math.cos(el), math.sin(el)])
    b = np.asarray(bounds, np.float64)
    center = (b[0::2] + b[1::2]) / 2
    cam = ren.GetActiveCamera()
    cam.SetFocalPoint(*center)
    cam.SetPosition(*(center + d))
    up = (0.0, 0.0, 1.0) if abs(elevation) < 89.0 else (-math.sin(az), math.cos(az), 0.0)
    cam.SetViewUp(*up)
    parallel = abs(elevation) in (0.0, 90.0)
    cam.SetParallelProjection(parallel)
    ren.ResetCamera(*bounds)
    if parallel:  # fit the box itself, not its bounding sphere
        up = np.asarray(cam.GetViewUp())
        right = np.cross(-d, up)
        corners = np.array([[x, y, z] for x in b[:2] for y in b[2:4] for z in b[4:]]) - center
        w, h = ren.GetSize()
        half_w, half_h = np.abs(corners @ right).max(), np.abs(corners @ up).max()
        cam.SetParallelScale(1.05 * max(half_h, half_w * h / max(w, 1)))
    ren.ResetCameraClippingRange()


def snapshot(rw):
    """The window's pixels as an (h, w, 3) uint8 array, row 0 at the top."""
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkRenderingCore import vtkWindowToImageFilter
    rw.Render()
    grab = vtkWindowToImageFilter()
    grab.SetInput(rw)
    grab.SetInputBufferTypeToRGB()
    grab.ReadFrontBufferOff()
    grab.Update()
    img = grab.GetOutput()
    w, h, _ = img.GetDimensions()
    return vtk_to_numpy(img.GetPointData().GetScalars()).reshape(h, w, 3)[::-1].copy()
