"""ViewState: everything a user can change about what is shown, with no Qt and no VTK.

Each field is declared once, in SETTINGS: its default, its check, the update stage
a change triggers, its concern (base, time, drawing, filters, camera, selection,
movie, treemap), its command-line option and whether it names things of one
trace. The dataclass's fields, CHECKS, the stages' fields, the concerns' fields
and FRESH are derived from it.

Assigning a field checks the value and, when it changed, emits one `Change` (the
changed fields and the stages they trigger) to every callback connected to
`state.events`; `update()` and `assign()` check every value first, then emit one
Change for all (napari's ViewerModel is the model). `state.group(concern)` is the
evented sub-model of one concern: its fields as attributes, and events for its
changes alone. A state saves to and loads from JSON exactly, and two states can
be interpolated (camera paths). The View follows a ViewState; the command line
builds one from its options; the GUI's controls read and write one.
"""
import inspect
import json
import math
import weakref
from dataclasses import dataclass, field, fields
from typing import NamedTuple

from .analysis import CELLS, COLOR_BY, COLOR_BY_NAMED, FUNCTIONS, metric_parts
from .bases import BASES, MAX_POSITION, PROGRAMS
from .errors import OptionsError, TraceError, read_text
from .theme import parse_color
from .units import TIME_UNITS

#: How two runs stand side by side (sidebyside): each over its own length, or the
#: same seconds at the same height.
SIDE_BY_SIDE = ("normalised", "absolute")
DETAILS = ("auto", "exact", "lod")
#: How a View draws (view.py says what each costs; not a saved setting: the output's).
QUALITIES = ("fast", "high")
#: Named views: (azimuth, elevation) in degrees. Azimuth 0 looks from the front
#: (-y) towards +y; positive azimuths turn to the right (+x); elevation 90 looks down.
VIEWS = {"iso": (35.0, 30.0), "top": (0.0, 90.0), "side": (0.0, 0.0), "timeline": (0.0, 0.0)}
#: Views whose up direction is not the time axis: the timeline lays time from left
#: to right, containers from top to bottom (a Gantt chart).
UPS = {"timeline": (-1.0, 0.0, 0.0)}
#: How message particles are coloured (None: no particles).
PARTICLES = ("value", "size")
FORMAT = 1


def parse_view(text):
    """'iso', 'top', 'side', 'timeline' or 'AZ,EL' (degrees) to (azimuth, elevation)."""
    if not isinstance(text, str):
        raise OptionsError(f"view must be a name or 'AZ,EL', not {text!r}")
    if text in VIEWS:
        return VIEWS[text]
    try:
        az, el = (float(v) for v in str(text).split(","))
    except ValueError:
        raise OptionsError(f"view must be iso, top, side, timeline or AZ,EL in degrees, "
                           f"not {text!r}") from None
    if not (math.isfinite(az) and -90 <= el <= 90):
        raise OptionsError(f"view {text!r}: elevation must be within -90..90 degrees")
    return az, el


@dataclass(frozen=True)
class Camera:
    """A camera: where it stands, what it looks at, which way is up, its lens (a
    view angle in degrees in perspective, a parallel scale when orthographic) and
    where the image's centre is in the window (-1..1 each way; 0, 0 the middle)."""
    position: tuple
    focal_point: tuple
    view_up: tuple
    view_angle: float = 30.0
    parallel_scale: float = 1.0
    parallel: bool = False
    window_center: tuple = (0.0, 0.0)

    def __post_init__(self):
        for name in ("position", "focal_point", "view_up"):
            v = getattr(self, name)
            if (not isinstance(v, (list, tuple)) or len(v) != 3
                    or not all(_number(x) and math.isfinite(x) for x in v)):
                raise OptionsError(f"camera {name} must be 3 finite numbers, not {v!r}")
            object.__setattr__(self, name, tuple(float(x) for x in v))
        for name in ("view_angle", "parallel_scale"):
            v = getattr(self, name)
            if not (_number(v) and 0 < v < math.inf):
                raise OptionsError(f"camera {name} must be a positive number, not {v!r}")
            object.__setattr__(self, name, float(v))
        if not isinstance(self.parallel, bool):
            raise OptionsError(f"camera parallel must be true or false, not {self.parallel!r}")
        d = [p - f for p, f in zip(self.position, self.focal_point)]
        cross = [d[1] * self.view_up[2] - d[2] * self.view_up[1],
                 d[2] * self.view_up[0] - d[0] * self.view_up[2],
                 d[0] * self.view_up[1] - d[1] * self.view_up[0]]
        if not any(abs(x) > 1e-12 for x in d) or not any(abs(x) > 1e-12 for x in cross):
            raise OptionsError("camera position must differ from its focal point, and its "
                               "view_up must not point along the line of sight")
        wc = self.window_center
        if (not isinstance(wc, (list, tuple)) or len(wc) != 2
                or not all(_number(x) and math.isfinite(x) for x in wc)):
            raise OptionsError(f"camera window_center must be 2 finite numbers, not {wc!r}")
        object.__setattr__(self, "window_center", tuple(float(x) for x in wc))

    def to_dict(self):
        return {f.name: list(v) if isinstance(v := getattr(self, f.name), tuple) else v
                for f in fields(self)}


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _optional_text(name):
    def check(v):
        if v is not None and not isinstance(v, str):
            raise OptionsError(f"{name} must be text or null, not {v!r}")
        return v or None
    return check


def _metric(v):
    """The treemap base's leaf size: a metric's spelling (analysis.metric_parts)."""
    v = _optional_text("treemap metric")(v)
    if v is not None:
        metric_parts(v)
    return v


def _choice(name, choices, optional=False):
    def check(v):
        if (v is None and optional) or v in choices:
            return v
        raise OptionsError(f"{name} must be one of {', '.join(choices)}, not {v!r}")
    return check


def _color_by(v):
    if isinstance(v, str):
        kind, sep, name = (p.strip() for p in v.partition(":"))
        if (not sep and kind in COLOR_BY) or (sep and kind in COLOR_BY_NAMED and name):
            if kind in ("slice", "difference"):  # (a metric: variable names a type)
                metric_parts(name)
            return f"{kind}:{name}" if sep else kind
    raise OptionsError(f"colour by must be {', '.join(COLOR_BY)}, "
                       f"{', '.join(k + ':NAME' for k in COLOR_BY_NAMED)}, not {v!r}")


def _window(v):
    if v is None:
        return None
    if (not isinstance(v, (list, tuple)) or len(v) != 2
            or not all(_number(t) and math.isfinite(t) for t in v)):
        raise OptionsError(f"window must be two times (t0, t1), not {v!r}")
    t0, t1 = float(v[0]), float(v[1])
    if t1 < t0:
        raise OptionsError(f"window {t0:g}:{t1:g} ends before it starts")
    return (t0, t1)


def _intervals(v):
    if v is None:
        return None
    if (not isinstance(v, (list, tuple)) or len(v) != 3 or not isinstance(v[0], str)
            or not all(_number(t) and math.isfinite(t) for t in v[1:])):
        raise OptionsError(f"intervals must be a state value and two durations (value, lo, "
                           f"hi), not {v!r}")
    if v[2] < v[1]:
        raise OptionsError(f"intervals {v[1]:g}:{v[2]:g}: the range ends before it starts")
    return (v[0], float(v[1]), float(v[2]))


def _time(v):
    if v is None:
        return None
    if not (_number(v) and math.isfinite(v)):
        raise OptionsError(f"now must be a time (a finite number) or null, not {v!r}")
    return float(v)


#: The time scale's range: beyond it the window is a line or the base a point (a
#: scale of 1e308 drew a blank picture).
SCALES = (0.001, 1000.0)


def _scale(v):
    if not (_number(v) and SCALES[0] <= v <= SCALES[1]):
        raise OptionsError(f"time scale must be within {SCALES[0]:g}..{SCALES[1]:g}, "
                           f"not {v!r}")
    return float(v)


def _opacity(v):
    if not (_number(v) and 0 <= v <= 1):
        raise OptionsError(f"link opacity must be within 0..1, not {v!r}")
    return float(v)


def _fraction(v):
    if not (v is None or (_number(v) and 0 <= v <= 1)):
        raise OptionsError(f"logical must be null or within 0..1 (0 physical time, 1 "
                           f"logical steps), not {v!r}")
    return None if v is None else float(v)


def _flag(name):
    def check(v):
        if not isinstance(v, bool):
            raise OptionsError(f"{name} must be true or false, not {v!r}")
        return v
    return check


def _names(name, optional=False):
    def check(v):
        if v is None and optional:
            return None
        if isinstance(v, str) or not isinstance(v, (list, tuple)) \
                or not all(isinstance(x, str) for x in v):
            raise OptionsError(f"{name} must be a list of names, not {v!r}")
        return tuple(v)
    return check


def _radius(v):
    if isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 1000:
        return v
    raise OptionsError(f"focus radius must be a whole number of messages, 1 to 1000, "
                       f"not {v!r}")


def _aggregate(v):
    """auto, none, or a level of the container hierarchy (a type name or a depth)."""
    if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
        return str(v)
    if not isinstance(v, str) or not v.strip():
        raise OptionsError(f"aggregate must be auto, none or a level (a container type "
                           f"or a depth), not {v!r}")
    return v


def _colors(v):
    if not isinstance(v, dict) or not all(isinstance(k, str) for k in v):
        raise OptionsError(f"colours must map names to #rrggbb, not {v!r}")
    for c in v.values():
        parse_color(c)
    return {k: c.lower() for k, c in v.items()}


def _moves(v):
    if not isinstance(v, dict):
        raise OptionsError(f"moved must map 'node:NAME' or 'container:NAME' to [x, y], "
                           f"not {v!r}")
    out = {}
    for k, p in v.items():
        if not (isinstance(k, str) and k.partition(":")[0] in ("node", "container")
                and k.partition(":")[2]):
            raise OptionsError(f"moved: {k!r} must be 'node:NAME' or 'container:NAME'")
        if (not isinstance(p, (list, tuple)) or len(p) != 2
                or not all(_number(c) and abs(c) <= MAX_POSITION for c in p)):
            raise OptionsError(f"moved: {k!r} must go to [x, y] (numbers within "
                               f"-{MAX_POSITION:g}..{MAX_POSITION:g}), not {p!r}")
        out[k] = (float(p[0]), float(p[1]))
    return out


def _rules(v):
    if not isinstance(v, dict) or not all(isinstance(k, str) and isinstance(r, str)
                                          for k, r in v.items()):
        raise OptionsError(f"variable rules must map type names to capacity, hide, max or "
                           f"a type name, not {v!r}")
    return dict(v)


def _view(v):
    parse_view(v)
    return v


def _camera(v):
    if v is None or isinstance(v, Camera):
        return v
    if isinstance(v, dict):
        unknown = set(v) - {f.name for f in fields(Camera)}
        if unknown:
            raise OptionsError(f"camera has unknown keys: {', '.join(sorted(unknown))}")
        try:
            return Camera(**v)
        except TypeError:
            raise OptionsError("camera needs position, focal_point and view_up") from None
    raise OptionsError(f"camera must be an object or null, not {v!r}")


#: What can be picked (see scene.pick), and the Trace table its rows are in (None:
#: the base's nodes and edges).
PICKED = {"state": "states", "link": "links", "bundle": "links", "event": "events",
          "variable": "variables", "container": "containers", "aggregate": "containers",
          "node": None, "edge": None}


def _selection(v):
    if v is None:
        return None
    if (isinstance(v, dict) and set(v) == {"kind", "row"} and v["kind"] in PICKED
            and isinstance(v["row"], int) and not isinstance(v["row"], bool) and v["row"] >= 0):
        return dict(v)
    raise OptionsError(f"selection must be {{kind, row}} or null, not {v!r}")


class Setting(NamedTuple):
    """One field of the ViewState, declared once: its name, its default (a callable
    for a mutable one), its check (value -> the value kept, or OptionsError), the
    update stage a change triggers, its concern, the command-line option (argparse
    dest) that sets it as given, and whether it names things of one trace (reset
    when another is opened)."""
    name: str
    default: object
    check: object
    stage: str
    group: str
    option: str = None
    fresh: bool = False


#: Update stages, from the costliest: lay the base out again; move what the user
#: moved; recompute the scene's geometry; draw what lies over it again (the time
#: axis and title, the plane of `now`, particles, heat); outline the selection;
#: set the actors' properties; fit the camera; draw the 2D panels again (the
#: Time-Slice treemap).
STAGES = ("layout", "moves", "geometry", "overlay", "selection", "properties", "camera",
          "panels")
#: Every field: what is shown. The lists below, the dataclass's fields and the
#: checks are all derived from it.
SETTINGS = (
    Setting("topology", None, _optional_text("topology"), "layout", "base", "topology"),
    Setting("base", None, _choice("base", BASES, optional=True), "layout", "base", "base"),
    Setting("program", None, _choice("layout program", PROGRAMS, optional=True), "layout",
            "base", "layout"),
    Setting("mapping", None, _optional_text("mapping"), "layout", "base", "mapping"),
    Setting("pattern", None, _optional_text("pattern"), "layout", "base", "pattern"),
    Setting("level", None, _optional_text("level"), "layout", "base", "graph_level"),
    Setting("metric", "containers", _metric, "layout", "base",
            "leaf_size"),
    Setting("window", None, _window, "geometry", "time", "window", fresh=True),
    Setting("scale", 1.0, _scale, "geometry", "time", "scale"),
    # how far the time axis has morphed from physical time (0) to logical steps (1),
    # None: no morph (see analysis.logical.Morph); the base stays, the scene is new
    Setting("logical", None, _fraction, "moves", "time"),
    Setting("detail", "auto", _choice("detail", DETAILS), "geometry", "drawing", "detail"),
    Setting("aggregate", "auto", _aggregate, "geometry", "drawing", "aggregate", fresh=True),
    Setting("color_by", "value", _color_by, "geometry", "drawing", "color_by", fresh=True),
    # a second run (its path) to compare with: colour by difference:METRIC
    Setting("compare", None, _optional_text("compare"), "geometry", "drawing", "compare"),
    # the second run beside the first instead (sidebyside): each over its own length
    # (normalised) or the same seconds at the same height (absolute); None: not beside
    Setting("side_by_side", None, _choice("side by side", SIDE_BY_SIDE, optional=True),
            "geometry", "drawing", "side_by_side"),
    Setting("call_path", None, _optional_text("call path"), "geometry", "selection",
            "call_path", fresh=True),
    # a task (its GUID, analysis.tasks) whose chain of ancestors and descendants keeps
    # its colours, the rest dimmed
    Setting("task", None, _optional_text("task"), "geometry", "selection", "task", fresh=True),
    # the intervals of a state value whose duration lies in a range (analysis.intervals,
    # a histogram's brush): they keep their colours, the rest dimmed
    Setting("intervals", None, _intervals, "geometry", "selection", "intervals", fresh=True),
    Setting("expanded", (), _names("expanded"), "geometry", "drawing", "expand", fresh=True),
    Setting("link_opacity", 0.7, _opacity, "properties", "drawing", "link_opacity"),
    Setting("labels", True, _flag("labels"), "properties", "drawing"),
    Setting("hidden", (), _names("hidden"), "geometry", "filters", fresh=True),
    Setting("containers", None, _names("containers", optional=True), "geometry", "filters",
            fresh=True),
    Setting("colors", dict, _colors, "geometry", "filters", fresh=True),
    Setting("variables", dict, _rules, "geometry", "filters", fresh=True),
    Setting("view", "iso", _view, "camera", "camera", "view"),
    Setting("camera", None, _camera, "camera", "camera"),
    Setting("selection", None, _selection, "selection", "selection", fresh=True),
    Setting("focus", None, _optional_text("focus"), "selection", "selection", "focus",
            fresh=True),
    Setting("focus_radius", 1, _radius, "selection", "selection", "focus_radius"),
    Setting("time_unit", None, _choice("time unit", TIME_UNITS, optional=True), "overlay",
            "time", "time_unit"),
    Setting("now", None, _time, "overlay", "movie"),
    Setting("unfold", False, _flag("unfold"), "geometry", "movie"),
    Setting("particles", None, _choice("particles", PARTICLES, optional=True), "overlay",
            "movie"),
    Setting("heat", False, _flag("heat"), "overlay", "movie"),
    Setting("routes", False, _flag("routes"), "overlay", "movie"),
    Setting("moved", dict, _moves, "moves", "base", fresh=True),
    Setting("slice_level", None, _optional_text("treemap level"), "panels", "treemap",
            fresh=True),
    Setting("slice_how", "sum", _choice("treemap aggregation", FUNCTIONS), "panels",
            "treemap"),
    Setting("slice_metric", "state", _choice("treemap cells", CELLS), "panels", "treemap"),
    Setting("slice_values", None, _names("treemap values", optional=True), "panels",
            "treemap", fresh=True),
)
CHECKS = {s.name: s.check for s in SETTINGS}
#: The stage a change of each field triggers.
STAGE_OF = {s.name: s.stage for s in SETTINGS}
#: Fields that choose the base: changing one lays the base out again.
BASE_FIELDS = tuple(s.name for s in SETTINGS if s.stage == "layout")
#: The fields of each concern (the sub-models: see ViewState.group).
GROUPS = {g: tuple(s.name for s in SETTINGS if s.group == g)
          for g in dict.fromkeys(s.group for s in SETTINGS)}
#: Fields that name things of one trace, and their defaults (a trace opened anew).
#: The fields ViewState.whole_run reads.
WHOLE_RUN = ("base", "metric", "color_by", "heat", "side_by_side", "logical", "call_path",
             "task", "intervals")
FRESH = {s.name: s.default() if callable(s.default) else s.default
         for s in SETTINGS if s.fresh}


class Change(dict):
    """One batched change: field name -> new value, and `stages`, the update
    stages it triggers (see STAGES)."""

    def __init__(self, values, stages):
        super().__init__(values)
        self.stages = frozenset(stages)


class Events:
    """A small callback registry: `connect(f)`, then f(change) with each Change.
    A bound method is held weakly (as napari's events do): a View that follows a
    state makes no reference cycle with it, so it is freed, with its render
    window, where it is dropped (not by the garbage collector in another thread);
    keep the object whose method you connect."""

    def __init__(self):
        self._callbacks = []

    def connect(self, callback, first=False):
        """Call `callback` with each Change; `first`: before those connected
        before it (as vispy's position="first": a View takes a change before the
        window that draws it)."""
        ref = (weakref.WeakMethod(callback) if inspect.ismethod(callback)
               else (lambda f=callback: f))
        self._callbacks.insert(0 if first else len(self._callbacks), ref)
        return callback

    def disconnect(self, callback):
        self._callbacks = [r for r in self._callbacks if r() not in (callback, None)]

    def emit(self, change):
        self._callbacks = [r for r in self._callbacks if r() is not None]  # the freed go
        for ref in list(self._callbacks):
            f = ref()
            if f is not None:
                f(change)


class Group:
    """The evented sub-model of one concern of a ViewState: its fields read and
    assigned as attributes (through the state, so the state's events fire too),
    and `events` that fire with the part of each Change that is this concern's."""

    def __init__(self, state, name):
        object.__setattr__(self, "_state", state)
        object.__setattr__(self, "fields", GROUPS[name])
        object.__setattr__(self, "events", Events())

    def __getattr__(self, name):
        if name not in self.fields:
            raise AttributeError(f"this part of the view has no field {name!r}")
        return getattr(self._state, name)

    def __setattr__(self, name, value):
        self.update(**{name: value})

    def update(self, **changes):
        """Assign several of this concern's fields at once (see ViewState.update)."""
        unknown = sorted(set(changes) - set(self.fields))
        if unknown:
            raise AttributeError(f"this part of the view has no field {unknown[0]!r}")
        self._state.update(**changes)


class ViewState:
    """What is shown. Base: `topology` (file), `base` (one of bases.BASES; None:
    topology when a file is given, else treemap), `program`
    (Graphviz), `mapping` (CSV), `pattern` (regex), `level` (appgraph), `metric`
    (treemap leaf size). Time: `window` (t0, t1) or None (from the first to the
    last thing drawn),
    `scale` (height of the window over the base's larger side), `time_unit` (the
    unit trace times read in; None: the trace's own, see Trace.unit). Drawing:
    `detail`, `link_opacity`, `labels`. Filters:
    `hidden` (value or type names not drawn), `containers` (names whose subtrees
    alone are drawn; None: all), `colors` (name -> #rrggbb), `variables` (variable
    type -> capacity, hide, max or a capacity type: see analysis.roles). Camera: `view` (a
    preset or 'AZ,EL', fitted to the scene) unless `camera` is set. `selection`:
    the picked row {kind, row}; the "timeline" view (a Gantt chart) goes with the
    timeline base: choosing it chooses that base, and another base leaves it for "iso". Movies: `now` (a time, or None) draws a
    translucent plane at that time; with `unfold` only what began by then is
    drawn, older things dimmed; `particles` ("value" or "size": their colour)
    draws each message in flight at `now` as a particle on its route; `heat`
    colours the base's edges by the traffic that crossed them until `now`;
    `routes`, by the traffic of the window's messages along their routes (the
    paths they took, in a still picture).
    `moved`: base nodes and containers the user moved ("node:NAME" or
    "container:NAME" -> new centre [x, y])."""

    def __post_init__(self):
        object.__setattr__(self, "events", Events())
        object.__setattr__(self, "_groups", {})
        object.__setattr__(self, "_queue", [])  # changes to emit, in order (see _emit)
        for f in fields(self):
            object.__setattr__(self, f.name, CHECKS[f.name](getattr(self, f.name)))
        if self.view == "timeline":
            object.__setattr__(self, "base", "timeline")

    def __setattr__(self, name, value):
        if "events" in self.__dict__:
            self.update(**{name: value})
        elif name in CHECKS:  # __init__: __post_init__ checks
            object.__setattr__(self, name, value)
        else:
            raise AttributeError(f"ViewState has no field {name!r}")

    def __eq__(self, other):
        return isinstance(other, ViewState) and self.to_dict() == other.to_dict()

    def update(self, **changes):
        """Assign several fields at once: every value is checked before any is
        kept (a bad one raises OptionsError and changes nothing), then one Change
        is emitted for those that changed."""
        unknown = sorted(set(changes) - set(CHECKS))
        if unknown:
            raise AttributeError(f"ViewState has no field {unknown[0]!r}")
        new = {name: CHECKS[name](value) for name, value in changes.items()}
        # The timeline view is a Gantt chart only over the timeline base: seen from the
        # side, another base's nodes hide one another and rows get others' names.
        if new.get("view") == "timeline":
            new["base"] = "timeline"
        elif (new.get("base", "timeline") != "timeline"
              and new.get("view", self.view) == "timeline"):
            new["view"] = "iso"
        changed = {k: v for k, v in new.items() if getattr(self, k) != v}
        if not changed:
            return
        for k, v in changed.items():
            object.__setattr__(self, k, v)
        self._emit(changed)

    def _emit(self, changed):
        """Emit the Change of `changed` to the state's callbacks, then its parts to
        the concerns'. A change made by a callback (a rollback, a cleared
        selection) is emitted once this one has reached everyone: every callback
        hears the changes in the order they were made."""
        parts = [(g, {k: v for k, v in changed.items() if k in g.fields})
                 for g in self._groups.values()]
        self._queue.append((Change(changed, self._stages(changed)),
                            [(g, Change(part, self._stages(part))) for g, part in parts if part]))
        if len(self._queue) > 1:
            return  # (emitting already: it comes next)
        try:
            while self._queue:
                change, parts = self._queue[0]
                self.events.emit(change)
                for group, part in parts:
                    group.events.emit(part)
                self._queue.pop(0)
        finally:
            self._queue.clear()

    def _stages(self, changed):
        stages = {STAGE_OF[k] for k in changed}
        if "now" in changed and self.unfold:  # unfolding draws what began by `now`
            stages.add("geometry")
        return stages

    def assign(self, other):
        """Take every field of `other` (one Change)."""
        self.update(**{f.name: getattr(other, f.name) for f in fields(self)})

    def group(self, name):
        """The evented sub-model of concern `name` (see GROUPS)."""
        if name not in GROUPS:
            raise OptionsError(f"the view has no part {name!r} (parts: {', '.join(GROUPS)})")
        if name not in self._groups:
            self._groups[name] = Group(self, name)
        return self._groups[name]

    def same_drawing(self, other):
        """Whether the state `other` makes the same geometry as this one: none of the
        fields that differ makes it again (their stages: see STAGES)."""
        changed = {f.name: getattr(self, f.name) for f in fields(self)
                   if getattr(self, f.name) != getattr(other, f.name)}
        return not self._stages(changed) & {"layout", "moves", "geometry"}

    def copy(self, **changes):
        """A new ViewState with these fields changed as `update` changes them (no
        callbacks carried over)."""
        out = ViewState(**{f.name: getattr(self, f.name) for f in fields(self)})
        out.update(**changes)
        return out

    def whole_run(self):
        """What this state draws from every entity of the run, whatever its window
        (a line), or None: the execution tree, leaves sized by a metric, colours by
        anything but the value (a second run's difference too), the traffic's heat, a
        second run beside, logical time, a chosen call path, task or intervals (the
        fields WHOLE_RUN)."""
        if self.base == "tasktree":
            return "the execution tree"
        if self.metric not in (None, "containers"):
            return f"leaves sized by {self.metric}"
        if self.color_by != "value":
            return f"colours by {self.color_by}"
        if self.heat:
            return "the traffic's heat"
        return next((f"its {name.replace('_', ' ')}" for name in (
            "side_by_side", "logical", "call_path", "task", "intervals")
            if getattr(self, name) is not None), None)

    def undo_whole_run(self, good):
        """The fields to take back from `good` (a state a part draws) so that this one
        needs no more than a part: only those whose change made it need the whole run
        (whole_run), each field of WHOLE_RUN where none alone does."""
        undo, probe = {}, self.copy()
        while (why := probe.whole_run()) is not None:
            f = next((f for f in WHOLE_RUN if getattr(probe, f) != getattr(good, f)
                      and probe.copy(**{f: getattr(good, f)}).whole_run() != why), None)
            if f is None:
                return {f: getattr(good, f) for f in WHOLE_RUN}
            undo[f] = getattr(good, f)
            probe.update(**{f: undo[f]})
        return undo

    def window_alone(self):
        """Whether nothing this state draws depends on the entities outside its window
        (the whole run's where none is set) but what trace.Whole keeps: not
        whole_run, no selection (a row of the whole), no focus."""
        return not (self.whole_run() or self.selection is not None or self.focus is not None)

    def part(self):
        """The time window outside of which nothing this state draws depends on the
        trace's entities (a store then reads only those meeting it, engine.read_part,
        and keeps what the whole run says: trace.Whole), or None where it needs the
        whole run: no window, or not window_alone."""
        return self.window if self.window is not None and self.window_alone() else None

    def refusal(self, trace):
        """Why `trace`, a part of a run (Trace.whole), cannot draw this state (a line),
        or None where it can: it holds the state's window and the state needs nothing
        else of the whole run (a selection and a focus are the part's own)."""
        held = trace.whole.window if trace.whole is not None else None
        if held is None:
            return None
        if trace.whole.drawn is not None:  # (drawn.py)
            return None if self.to_dict() == trace.whole.drawn.state else \
                f"{trace.source}: read for one picture (what it draws), not this one"
        if len(held) < 2 or self.window is None or not (
                held[0] <= self.window[0] and self.window[1] <= held[1]):
            what = "the whole run" if self.window is None else \
                f"the window {self.window[0]:g}:{self.window[1]:g}"
            read = f"the window {held[0]:g}:{held[1]:g}" if len(held) == 2 else "no entity"
            return f"{trace.source}: {what} is not read, only {read} of it"
        why = self.whole_run()
        return None if why is None else \
            f"{trace.source}: only a window of it is read, {why} needs the whole run"

    def base_options(self):
        """The keyword arguments of make_layout for this state's base."""
        return {**{name: getattr(self, name) for name in BASE_FIELDS},
                "metric": self.metric or "containers"}

    # -- JSON ------------------------------------------------------------------------
    def to_dict(self):
        d = {"format": FORMAT}
        for f in fields(self):
            v = getattr(self, f.name)
            d[f.name] = (v.to_dict() if isinstance(v, Camera) else list(v)
                         if isinstance(v, tuple) else dict(v) if isinstance(v, dict) else v)
        return d

    def to_json(self):
        return json.dumps(self.to_dict(), indent=1)

    @classmethod
    def from_dict(cls, d, source="view"):
        if not isinstance(d, dict):
            raise TraceError(source, None, "a view must be a JSON object")
        d = dict(d)
        if d.pop("format", FORMAT) != FORMAT:
            raise TraceError(source, None, f"unknown view format (this version reads {FORMAT})")
        unknown = sorted(set(d) - set(CHECKS))
        if unknown:
            raise TraceError(source, None, f"unknown key {unknown[0]!r} in the view")
        try:
            return cls(**d)
        except OptionsError as e:
            raise TraceError(source, None, str(e)) from None

    @classmethod
    def from_json(cls, text, source="view"):
        try:
            d = json.loads(text)
        except json.JSONDecodeError as e:
            raise TraceError(source, e.lineno, f"not JSON: {e.msg}") from None
        except (ValueError, RecursionError) as e:  # (digits beyond Python's; nesting)
            raise TraceError(source, None, "nested too deeply to read" if isinstance(
                e, RecursionError) else f"not JSON: {e}") from None
        return cls.from_dict(d, source)

    def save(self, path):
        from .output import write_text
        write_text(path, self.to_json() + "\n")

    @classmethod
    def load(cls, path):
        return cls.from_json(read_text(path, "the view"), str(path))


ViewState.__annotations__ = {s.name: object for s in SETTINGS}  # its fields, as declared
for _s in SETTINGS:
    setattr(ViewState, _s.name, field(default_factory=_s.default) if callable(_s.default)
            else _s.default)
ViewState = dataclass(eq=False)(ViewState)  # (equality is the JSON's: __eq__ above)
del _s


def interpolate(a, b, f):
    """The state a fraction `f` (0..1) of the way from `a` to `b`: times, opacity,
    the morph to logical time and the camera move linearly (the view-up is renormalized), the scale
    geometrically; the other fields are `a`'s until f reaches 1."""
    f = min(1.0, max(0.0, float(f)))
    out = (b if f >= 1 else a).copy()
    lerp = lambda p, q: p + (q - p) * f  # noqa: E731
    if a.window and b.window:
        out.window = (lerp(a.window[0], b.window[0]), lerp(a.window[1], b.window[1]))
    if a.now is not None and b.now is not None:
        out.now = lerp(a.now, b.now)
    if 0 < f < 1 and a.scale != b.scale:  # (exp(log(100)) is 100.00000000000004)
        out.scale = min(max(math.exp(lerp(math.log(a.scale), math.log(b.scale))),
                            SCALES[0]), SCALES[1])
    out.link_opacity = lerp(a.link_opacity, b.link_opacity)
    if a.logical is not None and b.logical is not None:
        out.logical = lerp(a.logical, b.logical)
    if a.camera and b.camera:
        ca, cb = a.camera, b.camera
        up = [lerp(p, q) for p, q in zip(ca.view_up, cb.view_up)]
        norm = math.sqrt(sum(u * u for u in up))
        out.camera = Camera(
            position=[lerp(p, q) for p, q in zip(ca.position, cb.position)],
            focal_point=[lerp(p, q) for p, q in zip(ca.focal_point, cb.focal_point)],
            view_up=[u / norm for u in up] if norm > 1e-9 else (cb if f >= 0.5 else ca).view_up,
            view_angle=lerp(ca.view_angle, cb.view_angle),
            parallel_scale=lerp(ca.parallel_scale, cb.parallel_scale),
            parallel=(cb if f >= 0.5 else ca).parallel,
            window_center=[lerp(p, q) for p, q in zip(ca.window_center, cb.window_center)])
    return out
