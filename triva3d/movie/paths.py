"""Camera paths: keyframes (ViewStates at given seconds of a movie), the state at
any second between them, and the standard paths built over a View.

Between keyframes the camera follows a cubic Hermite spline through them with
Catmull-Rom tangents (position, focal point, view-up, lens and window centre; C1
at every keyframe); times (window, now) and the link opacity move linearly, the
scale geometrically, and the other fields step at each keyframe (see
viewstate.interpolate). A movie's first frame is its first keyframe, its last
frame its last keyframe.
"""
import json
import math

import numpy as np

from ..errors import OptionsError, TraceError, read_json
from ..viewstate import Camera, ViewState, interpolate, parse_view
from . import DURATION, FORMAT, PATHS, SWEEP_WIDTH

#: Orbit keyframes per turn (the spline between them keeps the radius within 0.06 %).
ORBIT_STEPS = 72
#: Rise: the camera frames the base up to half this fraction of the window's
#: height above the plane of `now` (this fraction at least), RISE_STEPS keyframes.
RISE_DEPTH, RISE_STEPS = 0.3, 10


class Keyframes:
    """ViewStates at seconds `at` (0 first, strictly increasing)."""

    def __init__(self, items):
        try:
            items = [(float(at), state) for at, state in items]
        except OverflowError:  # (an integer beyond doubles)
            raise OptionsError("a keyframe time beyond the range of numbers") from None
        if not items:
            raise OptionsError("a camera path needs at least one keyframe")
        times = [at for at, _ in items]
        if not all(math.isfinite(t) for t in times) or times[0] != 0 \
                or any(b <= a for a, b in zip(times, times[1:])):
            raise OptionsError("keyframe times must start at 0 and increase, "
                               f"not {', '.join(f'{t:g}' for t in times)}")
        self.times = np.array(times)
        self.states = [s for _, s in items]

    def __len__(self):
        return len(self.states)

    @property
    def duration(self):
        return float(self.times[-1])

    def scaled(self, duration):
        """The same keyframes spread over `duration` seconds (one keyframe: held)."""
        if len(self) == 1:
            return Keyframes([(0, self.states[0]), (duration, self.states[0])])
        k = duration / self.duration
        return Keyframes([(0 if i == 0 else t * k, s)
                          for i, (t, s) in enumerate(zip(self.times, self.states))])

    def state_at(self, s):
        """The ViewState `s` seconds into the movie (every keyframe has a camera)."""
        t, states = self.times, self.states
        if len(states) == 1 or s <= 0:
            return states[0].copy()
        if s >= t[-1]:
            return states[-1].copy()
        k = int(np.searchsorted(t, s, side="right")) - 1
        out = interpolate(states[k], states[k + 1], (s - t[k]) / (t[k + 1] - t[k]))
        if all(st.camera is not None for st in states):
            out.camera = _spline_camera(t, [st.camera for st in states], k, s)
        return out

    # -- JSON ------------------------------------------------------------------------
    def to_dict(self):
        return {"format": FORMAT, "keyframes": [{"at": float(t), "state": s.to_dict()}
                                                for t, s in zip(self.times, self.states)]}

    def save(self, path):
        from ..output import write_text
        write_text(path, json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def load(cls, path, base=None):
        """Keyframes from a JSON file {"format": 1, "keyframes": [{"at": seconds,
        "state": {ViewState fields}}, ...]}; each state's fields are laid over
        `base` (the command line's state)."""
        d = read_json(path, "the keyframes")
        if not isinstance(d, dict) or d.get("format", FORMAT) != FORMAT \
                or not isinstance(d.get("keyframes"), list):
            raise TraceError(path, None, f'keyframes must be {{"format": {FORMAT}, '
                             '"keyframes": [{"at": seconds, "state": {...}}, ...]}')
        base = (base or ViewState()).to_dict()
        items = []
        for i, k in enumerate(d["keyframes"]):
            where = f"keyframe {i + 1}"
            if not isinstance(k, dict) or set(k) - {"at", "state"} \
                    or not isinstance(k.get("at"), (int, float)) or isinstance(k["at"], bool) \
                    or not isinstance(k.get("state", {}), dict):
                raise TraceError(path, None, f"{where}: must be {{\"at\": seconds, "
                                 "\"state\": {ViewState fields}}")
            state = ViewState.from_dict({**base, **k.get("state", {})},
                                        source=f"{path}: {where}")
            items.append((k["at"], state))
        try:
            return cls(items)
        except OptionsError as e:
            raise TraceError(path, None, str(e)) from None


def _camera_vector(c):
    return np.r_[c.position, c.focal_point, c.view_up, c.view_angle, c.parallel_scale,
                 c.window_center]


def _spline_camera(t, cams, k, s):
    """The camera at second s in [t[k], t[k+1]] on the Hermite spline through
    `cams` with Catmull-Rom tangents (one-sided at the ends)."""
    p = [_camera_vector(c) for c in cams]
    n = len(p)

    def tangent(i):
        lo, hi = max(i - 1, 0), min(i + 1, n - 1)
        return (p[hi] - p[lo]) / (t[hi] - t[lo])

    h = t[k + 1] - t[k]
    u = (s - t[k]) / h
    h00, h10 = 2 * u**3 - 3 * u**2 + 1, u**3 - 2 * u**2 + u
    h01, h11 = -2 * u**3 + 3 * u**2, u**3 - u**2
    v = h00 * p[k] + h10 * h * tangent(k) + h01 * p[k + 1] + h11 * h * tangent(k + 1)
    a, b = cams[k], cams[k + 1]
    near = a if u < 0.5 else b
    up = v[6:9] / max(np.linalg.norm(v[6:9]), 1e-12)
    try:
        return Camera(position=v[0:3].tolist(), focal_point=v[3:6].tolist(),
                      view_up=up.tolist(), view_angle=max(float(v[9]), 1e-3),
                      parallel_scale=max(float(v[10]), 1e-9), parallel=near.parallel,
                      window_center=v[11:13].tolist())
    except OptionsError:  # the spline passed through a degenerate camera
        return near


# -- standard paths -------------------------------------------------------------------
def orbit(view, duration, turns=1.0):
    """The camera turns about the time axis through the scene's middle, from
    where the state's camera (or view preset) puts it."""
    state = view.state.copy()
    cam = state.camera or view.fitted_camera()
    f = np.array(cam.focal_point)
    steps = max(2, int(round(ORBIT_STEPS * abs(turns))))
    items = []
    for i in range(steps + 1):
        a = 2 * math.pi * turns * i / steps
        rot = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0],
                        [0, 0, 1]])
        c = Camera(position=(f + rot @ (np.array(cam.position) - f)).tolist(),
                   focal_point=f.tolist(), view_up=(rot @ np.array(cam.view_up)).tolist(),
                   view_angle=cam.view_angle, parallel_scale=cam.parallel_scale,
                   parallel=cam.parallel, window_center=cam.window_center)
        items.append((duration * i / steps, state.copy(camera=c)))
    return Keyframes(items)


def rise(view, duration):
    """The plane of `now` climbs the window from its first to its last time; the
    camera rises with it, looking at it, and draws back so that the ground stays
    in the picture (it frames the base from the ground to RISE_DEPTH / 2 of the
    height above the plane)."""
    state = view.state.copy()
    g = view.scene.geometry
    xmin, xmax, ymin, ymax, _, _ = g.world_bounds()
    f = g.frame
    items = []
    for i in range(RISE_STEPS + 1):
        k = i / RISE_STEPS
        top = max(RISE_DEPTH, k + RISE_DEPTH / 2) * f.height
        cam = view.fitted_camera(bounds=(xmin, xmax, ymin, ymax, 0.0, top))
        items.append((duration * k, state.copy(camera=cam, now=f.t0 + (f.t1 - f.t0) * k)))
    return Keyframes(items)


def sweep(view, duration):
    """A window as wide as the state's (a tenth of the trace's drawn span when it
    has none) slides from the first to the last time drawn; the camera stays (the
    window's start is always at the base)."""
    state = view.state.copy()
    s0, s1 = view.scene.geometry.data_span
    w = state.window[1] - state.window[0] if state.window else SWEEP_WIDTH * (s1 - s0)
    if not 0 < w < s1 - s0:
        unit = view.trace.unit(state.time_unit)
        raise OptionsError(f"a sweep needs a window narrower than the trace's "
                           f"{s1 - s0:.9g} {unit} and wider than 0; this one is {w:.9g} {unit}")
    state.window = (s0, s0 + w)
    view.state.window = state.window
    cam = state.camera or view.fitted_camera()
    return Keyframes([(0, state.copy(camera=cam)),
                      (duration, state.copy(camera=cam, window=(s1 - w, s1)))])


def with_cursor(keyframes, view):
    """Keyframes whose `now` climbs the window over the movie, from its first to
    its last time; when the window slides, `now` rides at its end when unfolding,
    in its middle otherwise. Keyframes that set `now` keep it."""
    span = view.scene.geometry.data_span
    sliding = keyframes.states[0].window != keyframes.states[-1].window
    out = []
    for at, s in zip(keyframes.times, keyframes.states):
        if s.now is None:
            t0, t1 = s.window or span
            f = at / keyframes.duration if keyframes.duration else 1.0
            s = s.copy(now=(t1 if s.unfold else (t0 + t1) / 2) if sliding
                        else t0 + (t1 - t0) * f)
        out.append((at, s))
    return Keyframes(out)


def morphed(keyframes):
    """The keyframes with the time axis morphing from physical time at the first to
    logical steps at the last (ViewState.logical, in step with the movie's time)."""
    d = keyframes.duration or 1.0
    return Keyframes([(at, s.copy(logical=at / d))
                      for at, s in zip(keyframes.times, keyframes.states)])


def needs_now(state):
    """Does `state` show the run at a time (unfolding, particles, heat)? A movie
    of it then needs a `now` cursor."""
    return state.unfold or bool(state.particles) or state.heat


def make_path(view, path, duration=None):
    """Keyframes of `path` (orbit, rise, sweep, or a keyframes JSON file) over
    `view` and its state, spread over `duration` seconds (default: DURATION, or
    the file's; a file of one keyframe holds it), resolved (see resolve)."""
    if path in PATHS:
        keys = {"orbit": orbit, "rise": rise, "sweep": sweep}[path](view, duration or DURATION)
    else:
        keys = Keyframes.load(path, base=view.state)
        if duration or len(keys) == 1:
            keys = keys.scaled(duration or DURATION)
    return resolve(view, keys)


def resolve(view, keyframes):
    """The keyframes ready to record: with a `now` cursor where a keyframe needs
    one (see needs_now and with_cursor), and a camera each (a keyframe without
    one gets its view preset fitted to its own scene)."""
    if any(needs_now(s) and s.now is None for s in keyframes.states):
        keyframes = with_cursor(keyframes, view)
    if all(s.camera is not None for s in keyframes.states):
        return keyframes
    items = []
    for at, s in zip(keyframes.times, keyframes.states):
        if s.camera is None:
            parse_view(s.view)
            view.state.assign(s)
            s = s.copy(camera=view.fitted_camera())
        items.append((at, s))
    return Keyframes(items)
