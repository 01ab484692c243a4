"""View: one render window, one renderer and its camera, showing a Trace as a
ViewState says, for any number of frames.

The View follows its ViewState: it gathers the stages of the state's changes
(see viewstate.STAGES) and applies them at the next frame: a change of the base
lays it out again and builds a new Scene; any other goes to `Scene.apply` and
updates the scene in place; the camera is the state's `camera`, or its `view`
preset fitted to the scene (again when the scene's height changes). The offscreen
View (EGL when there is no display) serves `triva3d render` and movies; the
desktop window gives a View its own Qt render window, so screenshots from both
come from the same code.

Fast quality (the default) turns off what software OpenGL pays most for:
multisampling and the light kit (one headlight instead), and culls the back faces
of bars. High quality adds 8x multisampling and a light kit (FXAA on top of
multisampling gives a black image offscreen with VTK 9.7, so it is not used).
"""
import math
import os

import numpy as np

from .errors import OptionsError
from .viewstate import QUALITIES, STAGES, UPS, Camera, ViewState, parse_view



class View:
    """`trace` drawn as `state` says (a new ViewState by default) in a `size`
    window of `quality` "fast" or "high". `render_window` and `renderer` are given
    by a GUI; else the View opens its own offscreen window. `layout`, when given,
    is the state's base laid out already (by a worker thread, say), `geometry` the
    scene's numpy geometry over it; `legend` False leaves the legend out of the
    picture (a GUI shows it beside)."""

    def __init__(self, trace, state=None, size=(1280, 720), quality="fast",
                 render_window=None, renderer=None, use_cache=True, layout=None,
                 legend=True, geometry=None):
        self.trace = trace
        self.state = state if state is not None else ViewState()
        if render_window is None:
            render_window, renderer = offscreen_window(*size, quality=quality)
        else:
            renderer = renderer or render_window.GetRenderers().GetFirstRenderer()
            apply_quality(render_window, renderer, quality)
        self.render_window, self.renderer = render_window, renderer
        self.use_cache = use_cache
        self.layout = self.scene = self._laid = None
        self._given_layout, self._given_geometry = layout, geometry
        self.legend = legend
        self._grab = self._morph = None
        self._pending = set(STAGES)  # the stages of the state's changes not applied yet
        self._updating = False
        self.state.events.connect(self._changed, first=True)  # before what draws it
        self.update()

    @classmethod
    def of_store(cls, store, state, size=(1280, 720), quality="fast", address=None):
        """A View of `state` over the store at `store` (triva3d ingest) that reads of
        it only what the picture draws (drawn.py: about a state a texel and the
        bundles drawn), or None where that would not be less than the entities of
        the window (read them then: engine.read_part); `address`: the Dask
        scheduler of the reductions (default TRIVA3D_DASK, else threads here)."""
        from . import drawn
        from .engine import read_skeleton
        from .scene.geometry import EXACT_LIMIT
        from .scene.pick import Projection
        if not drawn.applies(state):
            return None
        skeleton = read_skeleton(store, address)
        window = state.window or (skeleton.start_time, skeleton.end_time)
        if not drawn.worth(store, window, EXACT_LIMIT):  # (before any View is made)
            return None
        first = cls(drawn.empty(skeleton, state, window), state, size=size, quality=quality)
        first.close()  # (the base laid out; what is shown, for the legend's keys)
        probe = cls(drawn.empty(skeleton, state, window, first.scene.geometry), state,
                    size=size, quality=quality, layout=first._laid)
        try:  # (the camera fitted: the level of detail's bins)
            probe.prepare()
            g, pixels = probe.scene.geometry, probe.scene.detail_pixels(
                Projection.of(probe.renderer))
            part = drawn.read_drawn(store, g, pixels, skeleton, state, address)
        finally:
            probe.close()
        if part is None:
            return None
        view = cls(part, state, size=size, quality=quality, layout=first._laid)
        view.prepare()
        bins = view.scene.geometry.states.bins
        if bins != part.whole.drawn.bins:  # (its legend moved the camera: other bins)
            view.close()
            part = drawn.read_drawn(store, g, pixels, skeleton, state, address, bins, part)
            view = cls(part, state, size=size, quality=quality, layout=first._laid)
            view.prepare()  # (binned for the screen, as the first was)
        return view

    def _changed(self, change):
        self._pending |= change.stages

    def set_trace(self, trace, layout=None, geometry=None):
        """Show another trace (its base laid out again, unless `layout` is given,
        and `geometry` over it); if it cannot be shown, the one shown stays."""
        old = self.trace
        self.trace, self._given_layout, self._given_geometry = trace, layout, geometry
        pending = set(self._pending)
        self._pending.add("layout")
        try:
            self.update()
        except Exception:
            self.trace, self._given_layout, self._given_geometry = old, None, None
            self._pending = pending
            raise

    def reset_camera(self):
        """Back to the state's view preset, fitted (the next update)."""
        self.state.camera = None
        self._pending.add("camera")

    # -- following the state ---------------------------------------------------------
    def update(self):
        """Apply the state's pending changes. A bad setting raises a Triva3dError and
        leaves what was shown as it was (the change stays pending)."""
        from .bases.layout import make_layout
        from .scene.scene import Scene
        if not self._pending or self._updating:
            return  # (a change made meanwhile, the cleared selection: applied next time)
        stages, self._pending, self._updating = self._pending, set(), True
        try:
            why = self.state.refusal(self.trace)  # (a part: drawn only what it holds)
            if why:
                raise OptionsError(why)
            if self.scene is None or stages & {"layout", "moves"}:
                geometry = None
                if self.scene is None or "layout" in stages:
                    if self.scene is not None and self.state.selection is not None:
                        self.state.selection = None  # its rows were the old base's
                    laid = self._given_layout or make_layout(
                        self.trace, **self.state.base_options(), use_cache=self.use_cache)
                    if self._given_layout is not None and not self.state.moved:
                        geometry = self._given_geometry
                    self._given_layout = self._given_geometry = None
                else:
                    laid = self._laid
                layout = laid.moved(self.trace, self.state.moved)
                scene = Scene(self._drawn(), layout, self.state, legend=self.legend,
                              geometry=geometry if self.state.logical is None else None,
                              n_bins=self.scene and self.scene.geometry.n_bins)
                self._laid = laid  # as the base laid it out, before the user's moves
                if self.scene is not None:
                    self.scene.remove_from(self.renderer)
                self.layout, self.scene = layout, scene
                scene.add_to(self.renderer)
                refit = True
            else:
                bounds = self.scene.geometry.world_bounds()
                self.scene.apply(stages, self.state)
                refit = self.scene.geometry.world_bounds() != bounds
            cam = self.state.camera
            if refit or "camera" in stages:
                if cam is not None:
                    apply_camera(self.renderer, cam)
                else:
                    self._fit(self.scene.geometry.world_bounds(), self.state.view)
        except Exception:
            self._pending |= stages
            raise
        finally:
            self._updating = False

    def _drawn(self):
        """The trace the scene draws: the View's, or on its way to logical time (the
        state's `logical`, see analysis.logical.Morph)."""
        if self.state.logical is None:
            return self.trace
        if self._morph is None or self._morph.source is not self.trace:
            from .analysis.logical import Morph
            self._morph = Morph(self.trace)
        return self._morph.at(self.state.logical)

    # -- frames --------------------------------------------------------------------------
    def prepare(self):
        """Apply the state and fit what depends on the camera, without drawing (a
        GUI draws in its paint)."""
        self.update()
        self.renderer.ResetCameraClippingRange()
        self.scene.fit_view(self.renderer)

    def draw(self):
        """Apply the state and draw a frame in the window (no pixels read back)."""
        self.prepare()
        # A GUI's window may have drawn since: take the context back and re-read the
        # GL state VTK caches, which the other one changed (the viewport, culling...;
        # re-reading the depth function, as a whole Reset() does, hides the legend's
        # keys under its box).
        self.render_window.MakeCurrent()
        _reread_gl_state(self.render_window.GetState())
        self.render_window.Render()

    def render(self):
        """The current frame: an (h, w, 3) uint8 array, row 0 at the top."""
        self.draw()
        self._grab = self._grab or grabber(self.render_window)
        return snapshot(self.render_window, self._grab, rendered=True)

    def save(self, path):
        """Write the current frame as PNG or JPEG (by extension); its size in bytes."""
        from .output import image_format, write_image, write_png_rows
        if image_format(path) != ".png":  # (a bad extension fails before the work)
            return write_image(self.render(), path)
        self.draw()
        w, h = self.render_window.GetSize()
        return write_png_rows(pixel_rows(self.render_window), w, h, path)

    @property
    def projection(self):
        """World <-> display mapping of the current camera (see scene.pick)."""
        from .scene.pick import Projection
        self.update()
        return Projection.of(self.renderer)

    def pick(self, x, y):
        """What is drawn under display point (x, y) (origin bottom left): a dict
        with `kind`, `row` and details, or None."""
        return self.scene.pick(self.projection, x, y)

    @property
    def camera(self):
        """The renderer's camera now, as a Camera (store it in the state to keep it)."""
        c = self.renderer.GetActiveCamera()
        return Camera(position=c.GetPosition(), focal_point=c.GetFocalPoint(),
                      view_up=c.GetViewUp(), view_angle=c.GetViewAngle(),
                      parallel_scale=c.GetParallelScale(),
                      parallel=bool(c.GetParallelProjection()),
                      window_center=c.GetWindowCenter())

    def fitted_camera(self, bounds=None, view=None):
        """The Camera that frames `bounds` (xmin, xmax, ymin, ymax, zmin, zmax;
        default: the scene) from `view` (default: the state's preset), as the
        View fits a state without a camera; the camera shown does not move."""
        self.update()
        shown = self.camera
        self._fit(bounds or self.scene.geometry.world_bounds(), view or self.state.view)
        fitted = self.camera
        apply_camera(self.renderer, shown)
        return fitted

    def _fit(self, bounds, view):
        set_view(self.renderer, bounds, *parse_view(view), up=UPS.get(view),
                 margins=self.scene.overlay.margins(view in UPS, self.renderer.GetSize()))

    def warnings(self):
        """Lines for a picture that is empty or partial (see Layout and Geometry)."""
        self.update()
        return self.layout.warnings() + self.scene.geometry.warnings(self.state)

    def notes(self):
        """Lines on what was changed to make the picture readable (colours moved
        apart, columns aggregated)."""
        self.update()
        return self.scene.geometry.notes()

    def summary(self):
        w, h = self.render_window.GetSize()
        return f"{w}x{h}, {self.scene.geometry.summary(self.state.time_unit)}"

    def close(self):
        """Release the render window."""
        self.state.events.disconnect(self._changed)
        if self.scene is not None:
            self.scene.remove_from(self.renderer)
        self.render_window.Finalize()


def offscreen_window(width, height, quality="fast"):
    """An offscreen render window with one renderer: EGL, display or not (an X
    window per picture would tie up the display's resources for nothing)."""
    import triva3d.scene.polydata  # noqa: F401  (registers VTK's OpenGL classes)
    from vtkmodules.vtkRenderingCore import vtkRenderer, vtkRenderWindow
    os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")
    rw = vtkRenderWindow()
    rw.SetOffScreenRendering(1)
    rw.SetSize(int(width), int(height))
    ren = vtkRenderer()
    rw.AddRenderer(ren)
    apply_quality(rw, ren, quality)
    return rw, ren


def apply_quality(rw, ren, quality):
    from .theme import BACKGROUND
    if quality not in QUALITIES:
        raise OptionsError(f"quality must be one of {', '.join(QUALITIES)}, not {quality!r}")
    ren.SetBackground(*BACKGROUND)
    high = quality == "high"
    rw.SetMultiSamples(8 if high else 0)
    ren.RemoveAllLights()
    if high:
        from vtkmodules.vtkRenderingCore import vtkLightKit
        vtkLightKit().AddLightsToRenderer(ren)
    else:
        ren.AutomaticLightCreationOn()  # a headlight


def apply_camera(ren, camera):
    """Put the renderer's camera where the Camera says."""
    c = ren.GetActiveCamera()
    c.SetPosition(*camera.position)
    c.SetFocalPoint(*camera.focal_point)
    c.SetViewUp(*camera.view_up)
    c.SetViewAngle(camera.view_angle)
    c.SetParallelScale(camera.parallel_scale)
    c.SetParallelProjection(camera.parallel)
    c.SetWindowCenter(*camera.window_center)
    ren.ResetCameraClippingRange()


def set_view(ren, bounds, azimuth, elevation, up=None, margins=(0, 0, 0, 0)):
    """Point the camera at the middle of `bounds` (xmin, xmax, ymin, ymax, zmin, zmax)
    from (azimuth, elevation), `up` the screen's up (default: time, or north from
    above), and frame the box: its projection fills the window less `margins`
    (left, right, bottom, top, pixels: room for the axis, the legend, the title).
    Views straight from above or from the side are orthographic (a map, a time
    chart); the others are in perspective."""
    az, el = math.radians(azimuth), math.radians(elevation)
    d = np.array([math.sin(az) * math.cos(el), -math.cos(az) * math.cos(el), math.sin(el)])
    b = np.asarray(bounds, np.float64)
    center = (b[0::2] + b[1::2]) / 2
    cam = ren.GetActiveCamera()
    cam.SetWindowCenter(0.0, 0.0)
    cam.SetViewAngle(30.0)
    cam.SetFocalPoint(*center)
    cam.SetPosition(*(center + d))
    up = up or ((0.0, 0.0, 1.0) if abs(elevation) < 89.0
                else (-math.sin(az), math.cos(az), 0.0))
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
    _frame(ren, b, margins)


def _frame(ren, b, margins):
    """Zoom and shift the image so that the box `b` fills the window less margins."""
    from .scene.pick import Projection
    corners = np.array([[x, y, z] for x in b[:2] for y in b[2:4] for z in b[4:]])
    cam = ren.GetActiveCamera()
    w, h = ren.GetSize()
    left, right, bottom, top = margins
    aw, ah = max(w - left - right, 16), max(h - bottom - top, 16)
    for _ in range(3):  # perspective: a zoom is nearly, not exactly, a scale
        d = Projection.of(ren).to_display(corners)[:, :2]
        (x0, y0), (x1, y1) = d.min(axis=0), d.max(axis=0)
        cam.Zoom(0.98 * min(aw / max(x1 - x0, 1e-9), ah / max(y1 - y0, 1e-9)))
        d = Projection.of(ren).to_display(corners)[:, :2]
        dx = left + aw / 2 - (d[:, 0].min() + d[:, 0].max()) / 2
        dy = bottom + ah / 2 - (d[:, 1].min() + d[:, 1].max()) / 2
        cx, cy = cam.GetWindowCenter()
        cam.SetWindowCenter(cx - 2 * dx / w, cy - 2 * dy / h)
    ren.ResetCameraClippingRange()


#: GL_BLEND, GL_CULL_FACE, GL_DEPTH_TEST, GL_SCISSOR_TEST
_GL_ENUMS = (0x0BE2, 0x0B44, 0x0B71, 0x0C11)


def _reread_gl_state(gl):
    for reset in (gl.ResetGLViewportState, gl.ResetGLScissorState, gl.ResetGLCullFaceState,
                  gl.ResetGLDepthMaskState, gl.ResetGLBlendFuncState,
                  gl.ResetGLBlendEquationState, gl.ResetGLColorMaskState,
                  gl.ResetGLClearColorState, gl.ResetGLClearDepthState, gl.ResetGLActiveTexture):
        reset()
    for e in _GL_ENUMS:
        gl.ResetEnumState(e)


def grabber(rw):
    """A filter that reads the window's back buffer as RGB (one per window, reused)."""
    from vtkmodules.vtkRenderingCore import vtkWindowToImageFilter
    grab = vtkWindowToImageFilter()
    grab.SetInput(rw)
    grab.SetInputBufferTypeToRGB()
    grab.ReadFrontBufferOff()
    grab.ShouldRerenderOff()  # snapshot has just rendered
    return grab


def snapshot(rw, grab=None, rendered=False):
    """Render the window (unless just `rendered`); its pixels as an (h, w, 3) uint8
    array, row 0 at the top."""
    from vtkmodules.util.numpy_support import vtk_to_numpy
    if not rendered:
        rw.Render()
    grab = grab or grabber(rw)
    grab.Modified()
    grab.Update()
    img = grab.GetOutput()
    w, h, _ = img.GetDimensions()
    return vtk_to_numpy(img.GetPointData().GetScalars()).reshape(h, w, 3)[::-1].copy()


def pixel_rows(rw, rows=64):
    """The pixels of the frame just drawn in `rw` (its back buffer, as `grabber`
    reads it), row 0 at the top, as (k, w, 3) uint8 blocks of `rows` rows: no copy
    of the whole frame (see View.save)."""
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkCommonCore import vtkUnsignedCharArray
    w, h = rw.GetSize()
    buf = vtkUnsignedCharArray()
    for top in range(h, 0, -rows):
        y0 = max(0, top - rows)
        rw.GetPixelData(0, y0, w - 1, top - 1, 0, buf, 0)
        yield vtk_to_numpy(buf).reshape(top - y0, w, 3)[::-1]
