"""The numpy geometry of a Trace over a Layout for one ViewState, without VTK.

`Geometry` holds what the scene draws and picks in immutable parts, each made by
one function and replaced whole: `states` (ExactStates: a box each, or LodStates:
level-of-detail columns and their texture), `links` (lines, or bundles of them),
`events` (dots) and `profiles` (variable pieces), each with its Trace rows and
colours. `update(state)` makes them again for a new window, scale, filters or
colours (switching to level of detail lets the exact boxes go); the Layout and
the lanes of the bars (fixed over the whole trace, so they stay put while the
window moves) are kept. Movies and tests use it without a window; the Scene
turns it into actors.
"""
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from .. import colors
from ..analysis import colorby
from ..analysis.metrics import link_sizes
from ..analysis.roles import platform_link_types, state_pairs, variable_roles
from ..analysis.timeslice import Slicer, nesting_parents, nesting_parents_of
from ..bases.layout import UNIT
from ..analysis.tasks import dependency_links
from ..errors import OptionsError
from ..theme import BACKGROUND_RGB, parse_color
from ..trace import Kind
from ..viewstate import PICKED, ViewState
from . import aggregated, entities, lod, profiles
from .aggregated import AggregatedStates
from .entities import Frame

#: Above this many states in the window, "auto" detail draws level-of-detail columns.
EXACT_LIMIT = 100_000
#: Above this many variable pieces in the window, profiles are averaged over bins of
#: PROFILE_PX of the screen's pixels (a staircase of 1-pixel steps reads no better).
PROFILE_LIMIT, PROFILE_PX = 100_000, 2
#: Events' dots, in pixels across. Above EVENT_LIMIT events in the window, one per
#: container stays in each EVENT_PX of the level-of-detail bins (closer dots overlap).
EVENT_PX, EVENT_LIMIT = 7, 100_000
#: What an exact state box takes from making it to drawing it (numpy, VTK and software
#: OpenGL's buffers; measured with benchmarks/bench_memory.py at 3.6e6 boxes: 713).
EXACT_BYTES = 720
#: Above this many messages in the window, those between the same two containers
#: (or, while there are too many, their parents) that start in the same time bin are
#: drawn as one bundle, BUNDLE_TARGET bundles at most.
BUNDLE_LIMIT, BUNDLE_TARGET = 20_000, 5_000
#: The time bins a bundling tries at each level, fewer and fewer (bundle_level), each
#: a multiple of the last: no fewer bundles at any than at the last (engine.py).
BUNDLE_TRIES = (100, 50, 20, 10)
#: Unfolding: what ended FADE of the window before `now` is HISTORY of the way to
#: the background.
FADE, HISTORY = 0.1, 0.5
#: How far states off the chosen call path go towards the background.
DIMMED = 0.8


#: The parts of a Geometry: immutable (made whole, never changed in place).
_part = dataclass(frozen=True, eq=False)


@_part
class ExactStates:
    """States drawn one box each: their Trace `rows` (ascending), `boxes` (n, 6:
    x0 x1 y0 y1 z0 z1) and `rgb`; the `lids` closing their lanes (see
    Geometry._exact_lids); `values`: the state values of the whole window (the
    legend's keys, stable while unfolding)."""
    rows: np.ndarray
    boxes: np.ndarray
    rgb: np.ndarray
    lids: tuple
    values: np.ndarray
    mode = "exact"

    @property
    def n(self):
        """How many states are drawn."""
        return len(self.rows)

    def shows(self, row):
        """Is state `row` drawn?"""
        i = np.searchsorted(self.rows, row)
        return bool(i < len(self.rows) and self.rows[i] == row)


@_part
class LodStates:
    """States drawn as level-of-detail columns: a `mask` of the `n` states drawn
    (np.packbits over the table, 1 bit a state: no row list); `boxes` (m, 6) of the
    columns holding some, the drawn column of each of Geometry.cols (`drawn_of`);
    `bins` texels a column, their colours in the `atlas` image (`width` columns
    across, see lod.atlas); the `lids` closing the columns (see
    Geometry._lod_lids); `values` as in ExactStates."""
    mask: np.ndarray
    n: int
    boxes: np.ndarray
    drawn_of: np.ndarray
    bins: int
    atlas: np.ndarray
    width: int
    lids: tuple
    values: np.ndarray
    mode = "lod"

    @property
    def rows(self):
        """The Trace rows of the states drawn, made on each use from the mask."""
        return lod.set_rows(self.mask)

    def shows(self, row):
        """Is state `row` drawn?"""
        return bool(lod.is_set(self.mask, row))

    def mesh(self, height):
        """(points, quads, texture coordinates) of the columns, `height` tall
        (open at the top: the lids close them)."""
        c = self.boxes
        return lod.columns(c[:, 0], c[:, 1], c[:, 2], c[:, 3], height, self.bins, self.width)


@_part
class Links:
    """Message lines in the window: their Trace `rows`, ends `p0`, `p1` (n, 3) and
    `rgb`; bundled above BUNDLE_LIMIT (`count` not None): a line per bundle, its
    row that of its first message, its `count` and total `bytes` of messages and
    its opacity (`alpha`, growing with its count); between aggregated columns,
    always bundled, each bundle's line `width` (pixels) grows with its traffic;
    `bundled`: (bundles, messages) before the busiest BUNDLE_TARGET were kept
    (None: not bundled); `window`: a mask of the messages of the whole window
    (particles fly on them, 1 byte a link)."""
    window: np.ndarray
    rows: np.ndarray
    p0: np.ndarray
    p1: np.ndarray
    rgb: np.ndarray
    count: np.ndarray = None
    bytes: np.ndarray = None
    alpha: np.ndarray = None
    width: np.ndarray = None
    bundled: tuple = None

    def bundle_note(self, short=False):
        """A line where bundles were left out (None: all drawn); `short`: the
        legend's."""
        if self.bundled is None or self.bundled[0] == len(self.rows):
            return None
        by = "bytes" if self.bytes.any() else "messages"
        if short:
            return f"lines: the {len(self.rows):,} busiest of {self.bundled[0]:,} bundles"
        return (f"message bundles: the {len(self.rows):,} busiest (by {by}) of "
                f"{self.bundled[0]:,} drawn, holding {int(self.count.sum()):,} of "
                f"{self.bundled[1]:,} messages")

    @property
    def messages(self):
        """The Trace rows of the messages of the whole window, made on each use."""
        return _rows(self.window)


@_part
class EventDots:
    """Event dots in the window: their Trace `rows`, `points` (n, 3 float32, as VTK
    draws them) and `rgb`; `bins`: the screen bins they were thinned for (None:
    all drawn); `values`: the event values of the whole window (the legend's)."""
    rows: np.ndarray
    points: np.ndarray
    rgb: np.ndarray
    bins: int
    values: np.ndarray


@_part
class Profiles:
    """Usage profiles in the window: `boxes` (n, 6) of their pieces, the Trace
    `rows` of the variables and `rgb`; `bins`: the screen bins the pieces were
    averaged over (None: exact); `types`: the variable types of the whole window
    (the legend's)."""
    rows: np.ndarray
    boxes: np.ndarray
    rgb: np.ndarray
    bins: int
    types: np.ndarray



@dataclass
class Chosen:
    """States a selection keeps in colour, the others dimmed: what chose them (call
    path, task, intervals), the mask over the states, the legend's line, the links
    kept (None: all) and their utilization (made on first use)."""
    key: tuple
    states: np.ndarray
    text: str
    links: np.ndarray = None
    overview: object = None

class Geometry:
    """What is drawn for (trace, layout) and the geometry fields of a ViewState."""

    def __init__(self, trace, layout, state=None, exact_limit=EXACT_LIMIT, n_bins=None):
        self.trace, self.layout = trace, layout
        self.exact_limit = exact_limit
        self.bounds = layout.bounds
        xmin, ymin, xmax, ymax = self.bounds
        #: The base's larger side: the unit of heights (scale 1 is this tall).
        self.extent = max(xmax - xmin, ymax - ymin, UNIT)
        #: Link types that describe the platform: base edges, never drawn as messages.
        self.platform_links = platform_link_types(trace)
        #: Level-of-detail bins over the window's height: about its pixels on screen
        #: (set_bins), at first `n_bins` (a window's guess: what it showed before).
        self.n_bins = n_bins or 512
        self._rules = self._palette_of = self._value_order = None
        self._owners_of = self._pairs = self._nest = None
        self.expand_ignored = []
        self._metrics = {}  # (colour-by, window of a slice:) -> its colorby.Metric
        self._slicer = None  # for colour by a Time-Slice value, made at first use
        self.other = self._other_path = None  # the second run (ViewState.compare)
        #: call paths, tasks; what is chosen (a Chosen, or None: all in colour)
        self._paths = self._tasks = self.chosen = None
        self.update(state or ViewState())

    def _lanes(self, state, owner_key):
        """Variable roles and the lanes of states and profiles (again only when the
        variable rules or the aggregation change)."""
        if self._rules == (state.variables, owner_key):
            return
        tr = self.trace
        self.roles = variable_roles(tr, state.variables)
        #: The capacity of each (container, variable type): see capacity_of.
        self._capacity = profiles.capacity_table(tr, self.roles)
        own = self.layout.w > 0
        if self.owner is not None:  # profiles stand only on the columns drawn
            own &= self.owner == np.arange(len(own))
        self.cols = entities.Columns(tr, self.layout, profiles.lane_keys(tr, self.roles, own),
                                     self.owner)
        self._rules = (dict(state.variables), owner_key)
        self.data_span = self._span()

    def _aggregation(self, state, cont):
        """Per container the container whose column draws its states (None: each
        its own, no aggregation), from the aggregate and expanded settings (auto:
        aggregated.auto_level over the containers with states shown); and its key."""
        tr = self.trace
        key = (state.aggregate, state.expanded,
               None if state.containers is None else tuple(state.containers))
        if self._owners_of is not None and self._owners_of[0] == key:
            return self._owners_of[1], key
        if self._pairs is None:  # the (container, type) pairs of the states
            self._pairs = np.divmod(state_pairs(tr), len(tr.types))
        depth = tr.depth
        if state.aggregate == "none":
            rows = None
        elif state.aggregate == "auto":
            with_states = np.zeros(len(cont), bool)
            with_states[self._pairs[0]] = True
            d = aggregated.auto_level(tr, with_states & cont)
            rows = None if d is None else np.flatnonzero(depth == d)
        else:
            rows = tr.level(state.aggregate)
        expanded = {}  # (checked also where nothing is aggregated: never ignored silently)
        for name in state.expanded:
            hit = tr.find("containers", name)
            if not len(hit):
                raise OptionsError(f"{tr.source}: no container named {name!r} to expand")
            expanded[name] = hit.tolist()
        every = [c for hits in expanded.values() for c in hits]
        owner = None if rows is None else aggregated.owners(tr, rows, every)
        #: the names expanded to no effect, each with why (said in the notes)
        self.expand_ignored = [
            (name, "nothing is aggregated" if owner is None else
             "a column with nothing below" if (owner[expanded[name]] == expanded[name]).any()
             else "not an aggregated column, nor below an expanded one")
            for name in expanded if owner is None or np.array_equal(owner, aggregated.owners(
                tr, rows, [c for c in every if c not in expanded[name]]))]
        self._owners_of = (key, owner)
        return owner, key

    def _span(self):
        """(first, last) time of anything drawn: the default window (the whole trace
        when nothing is drawn; where the trace holds only part of the run, from
        the first start and last end of each type over the whole run: Trace.whole)."""
        tr = self.trace
        if tr.whole is not None:
            kind, span = tr.types.kind, tr.whole.type_spans
            drawn = ((kind == Kind.STATE) | (kind == Kind.EVENT)
                     | ((kind == Kind.LINK) & ~self.platform_links)
                     | ((kind == Kind.VARIABLE) & self.roles.drawn))
            span = span[drawn & ~np.isnan(span[:, 0])]
            lo, hi = [span[:, :1]], [span[:, 1:]]
        else:
            st, ln, ev, var = tr.states, tr.links, tr.events, tr.variables
            msg = ~self.platform_links[ln.type]
            prof = self.roles.drawn[var.type]
            lo = (st.start, ln.start[msg], ev.time, var.start[prof])
            hi = (st.end, ln.end[msg], ev.time, var.end[prof])
        lo, hi = [a for a in lo if len(a)], [a for a in hi if len(a)]
        if not lo:
            return tr.start_time, tr.end_time
        # (each part's own min and max: no concatenated copy of the columns)
        return float(min(a.min() for a in lo)), float(max(a.max() for a in hi))

    @property
    def drawn(self):
        """The trace.Drawn of a part read for one picture (drawn.py), else None."""
        whole = self.trace.whole
        return None if whole is None else whole.drawn

    def capacity_of(self, rows):
        """The capacity the values of variable `rows` are drawn relative to (see
        profiles.capacity_table)."""
        var = self.trace.variables
        keys, cap = self._capacity
        k = var.container[rows].astype(np.int64) * len(self.trace.types) + var.type[rows]
        return cap[np.searchsorted(keys, k)]

    # -- filters and colours -------------------------------------------------------
    def _shown(self, state):
        """Masks of the values, types and containers drawn."""
        tr = self.trace
        types = np.ones(len(tr.types), bool)
        values = np.ones(len(tr.values), bool)
        for name in state.hidden:
            t, v = tr.find("types", name), tr.find("values", name)
            if not (len(t) or len(v)):
                raise OptionsError(f"{tr.source}: nothing named {name!r} to hide "
                                   "(neither a value nor a type)")
            types[t], values[v] = False, False
        values &= types[tr.values.type]
        cont = np.ones(len(tr.containers), bool)
        if state.containers is not None:
            chosen = []
            for name in state.containers:
                rows = tr.find("containers", name)
                if not len(rows):
                    raise OptionsError(f"{tr.source}: no container named {name!r}")
                chosen.extend(rows)
            cont = tr.subtree(chosen)  # a chosen ancestor shows the subtree
        cont &= self.layout.w > 0
        return values, types, cont

    @property
    def shown(self):
        """(values, containers): masks of the value codes and containers drawn."""
        return self._shown_masks[0], self._shown_masks[2]

    def _overrides(self, state):
        """The state's colours by name, as (r, g, b)."""
        tr = self.trace
        rgb = {}
        for name, text in state.colors.items():
            if not (len(tr.find("values", name)) or len(tr.find("types", name))):
                raise OptionsError(f"{tr.source}: nothing named {name!r} to colour")
            rgb[name] = parse_color(text)
        return rgb

    # -- the update ------------------------------------------------------------------
    def update(self, state):
        """Make every part again for `state`'s window, scale, detail, filters and
        colours."""
        tr = self.trace
        overrides = self._overrides(state)
        values, types, cont = self._shown(state)  # these check names before any change
        #: Per container, whose column draws its states (None: its own; see aggregated).
        self.owner, owner_key = self._aggregation(state, cont)
        if self.owner is not None:  # nothing stands on a column that cannot be placed
            cont = cont & (self.layout.w[self.owner] > 0)
        #: What chose the message rows (particles' heat keeps its scale while they stay).
        self.message_key = (state.hidden, state.containers, owner_key)
        self._lanes(state, owner_key)
        if (overrides, state.variables) != self._palette_of:
            self.value_rgb, self.type_rgb, self.colour_notes = colors.scene_palette(
                tr, overrides, self.roles)
            self._palette_of = (overrides, dict(state.variables))
        self.color_by = state.color_by
        #: The unit a person names for the times (None: the trace's; both runs' in B - A).
        self.unit_named = state.time_unit
        self._second_run(state.compare if state.color_by.startswith("difference")
                         else None)  # (loaded only for the colours that need it)
        self._choose(state.call_path, state.task, state.intervals)
        t0, t1 = state.window or self.data_span
        self._window_given = state.window is not None  # (two runs compare whole without)
        self.frame = Frame(float(t0), float(t1), state.scale * self.extent)
        self.now = state.now if state.unfold else None
        #: What is drawn: the window, or its part up to `now` when unfolding (the
        #: same heights: z of a time is the same in both).
        self.cut = f = self.frame if self.now is None else _cut(self.frame, self.now)
        #: What the filters show (the parts made again by set_bins).
        self._shown_masks = values, types, cont

        st, w = tr.states, self.frame
        shown = ((st.end >= w.t0) & (st.start <= w.t1) & cont[st.container]
                 & values[st.value])
        n = int(np.count_nonzero(shown))  # the detail follows the window, not the part unfolded
        keys = np.flatnonzero(np.bincount(st.value[shown], minlength=len(tr.values)))
        if self.drawn is not None:  # a part read for this picture: its texels' states
            n, keys = self.drawn.states, self.drawn.state_values
        if f is not w:
            shown &= st.start <= f.t1
        if self.owner is not None:
            mask = np.packbits(shown)
            del shown
            self.states = self._aggregated_states(mask, keys)
        elif state.detail == "lod" or (state.detail == "auto" and n > self.exact_limit):
            mask = np.packbits(shown)  # 1 bit a state: no row list
            del shown
            self.states = self._lod_states(mask, keys)
        else:
            rows = np.flatnonzero(shown)
            del shown
            self.states = self._exact_states(rows, keys)
        self.links = self._links()
        self.events = self._events()
        self.profiles = self._profiles()

    def _exact_states(self, rows, values):
        """ExactStates of the states `rows`, the legend's keys `values`."""
        st = self.trace.states
        _check_room(len(rows))
        boxes = entities.bar_bounds(self.trace, self.layout, self.cut, rows, self.cols)
        rgb = self.fade(self.state_rgb(rows), st.end[rows])
        return ExactStates(rows, boxes, rgb, self._exact_lids(rows, boxes), values)

    def _lod_states(self, mask, values):
        """LodStates of the states `mask` (np.packbits over the table), the legend's
        keys `values`, binned for the screen's n_bins."""
        st, cols = self.trace.states, self.cols
        count = lod.column_counts(mask, st.container, st.type, cols.first, cols.keys, cols.nt)
        present = count > 0
        boxes = cols.bounds(self.layout, self.cut.height, np.flatnonzero(present))
        drawn_of = np.cumsum(present, dtype=np.int32) - 1
        n = int(count.sum()) if self.drawn is None else self.drawn.states
        return LodStates(mask, n, boxes, drawn_of, values=values,
                         **self._binned(mask, boxes, drawn_of, self.n_bins))

    def _aggregated_states(self, mask, values):
        """AggregatedStates of the states `mask`, the legend's keys `values`."""
        tr, cols = self.trace, self.cols
        st = tr.states
        owned = self.owner[st.container]
        count = lod.column_counts(mask, owned, st.type, cols.first, cols.keys, cols.nt)
        present = np.flatnonzero(count > 0)
        boxes = cols.bounds(self.layout, self.cut.height, present)
        drawn_of = np.cumsum(count > 0, dtype=np.int32) - 1
        c, t = self._pairs  # each (container, type) of a column drawn counts once
        _, _, cont = self._shown_masks
        c, t = c[cont[c]], t[cont[c]]  # (cont: placed ones on placed columns only)
        lane = cols.index(self.owner[c], t)
        lane = lane[count[lane] > 0]
        members = np.bincount(drawn_of[lane], minlength=len(present))
        if self._value_order is None:
            self._value_order = self.values_by_time()
        stacked = self._value_order[np.isin(self._value_order, values)]  # most time first
        if self._nest is None:
            self._nest = (nesting_parents(tr) if len(st) and st.imbrication.max() > 0
                          else np.full(len(st), -1, np.int64))
        return AggregatedStates(mask, int(count.sum()), cols.container[present], boxes, members,
                                drawn_of, stacked, values=values,
                                **self._aggregate(mask, boxes, drawn_of, members, stacked,
                                                  self.n_bins))

    def _aggregate(self, mask, boxes, drawn_of, members, stacked, n_bins):
        """The fields of AggregatedStates that follow the screen (see _binned)."""
        st, f, cols = self.trace.states, self.cut, self.cols
        bins = aggregated.bins_for(len(boxes), n_bins, len(stacked))
        dt = (f.t1 - f.t0) / bins if f.t1 > f.t0 else 1.0
        vcol = np.full(len(self.trace.values), -1, np.int64)
        vcol[stacked] = np.arange(len(stacked))
        sums = aggregated._sums(mask, st.container, st.type, self.owner, cols.first, cols.keys,
                                cols.nt, drawn_of, st.start, st.end, vcol, st.value,
                                self._nest, f.t0, dt, len(boxes), bins, len(stacked))
        frac = aggregated.shares(sums, members, dt)
        del sums
        img, per_row = aggregated.atlas(frac, self.value_rgb[stacked])
        total = frac.sum(axis=1)
        some = np.flatnonzero(total.sum(axis=1) > 0)
        top = np.c_[boxes[some, :4], boxes[some, 5]]
        most = total[some].argmax(axis=1) if len(some) else some
        lids = (top, self.value_rgb[stacked[most]].reshape(-1, 3), -1 - some)
        return dict(bins=bins, frac=frac, atlas=img, per_row=per_row, lids=lids)

    def metric(self):
        """The analysis.colorby Metric of the current `color_by`, made once per
        metric (a Time-Slice value: per window)."""
        per_window = self.color_by.startswith("slice:") or (
            self.color_by.startswith("difference:") and self._window_given)
        key = (self.color_by, (self.frame.t0, self.frame.t1) if per_window else None,
               id(self.other), self.unit_named)
        if key not in self._metrics:
            if key[1] is not None and self._slicer is None:
                self._slicer = Slicer(self.trace)
            self._metrics = {k: m for k, m in self._metrics.items() if k[1] is None}
            self._metrics[key] = colorby.per_state(self.trace, self.color_by, key[1],
                                                   self._slicer, self.other, self.unit_named)
        return self._metrics[key]

    def call_paths(self):
        """The trace's CallPaths, made on first use."""
        if self._paths is None:
            from ..analysis.calltree import CallPaths
            self._paths = CallPaths(self.trace)
        return self._paths

    def call_path_of(self, row):
        """The call path of state `row`, folded "main;A;B"."""
        p = self.call_paths()
        return p.text(int(p.path[row]))

    def _second_run(self, path):
        """`other`: the run at `path` to compare with (None: none), loaded once."""
        if path != self._other_path:
            from ..load import load
            self.other = load(path) if path else None
            self._other_path = path

    def tasks(self):
        """The trace's Tasks (analysis.tasks), made on first use."""
        if self._tasks is None:
            from ..analysis.tasks import tasks
            self._tasks = tasks(self.trace)
        return self._tasks

    def _choose(self, path, task, intervals):
        """The states kept in colour, the others dimmed: those on call path `path`
        ("main;A", and what it calls), of task `task`'s chain (its GUID: its
        ancestors and descendants, analysis.tasks) and the `intervals` (value, lo,
        hi) of a value lasting lo to hi; all None: all."""
        key = (path, task, intervals, self.unit_named)  # (its line says the unit)
        if self.chosen is not None and self.chosen.key == key:
            return
        if path is None and task is None and intervals is None:
            self.chosen = None
            return
        keep, links, texts = np.ones(len(self.trace.states), bool), None, []
        if path is not None:
            p = self.call_paths()
            keep &= p.within(p.find(path))
            texts.append(f"call path {path} (and its callees)")
        if task is not None:
            tk = self.tasks()
            try:
                chain = tk.lineage(tk.find(int(task)))
                links = dependency_links(self.trace, tk.ids[chain])
            except ValueError as e:
                raise OptionsError(f"task {task}: {e}" if "Task" in str(e) else
                                   f"task {task}: no such GUID in this trace") from None
            keep &= tk.states_of(chain)
            texts.append(f"task {task}'s chain ({len(chain)} tasks, their dependencies)")
        if intervals is not None:
            from ..analysis.intervals import durations
            value, lo, hi = intervals
            brushed = durations(self.trace, value).mask(lo, hi, len(keep))
            keep &= brushed
            links = np.zeros(len(self.trace.links), bool) if links is None else links
            unit = self.trace.unit(self.unit_named)
            texts.append(f"{int(brushed.sum())} {value} intervals of {lo:.4g} to {hi:.4g} "
                         f"{unit}")
        self.chosen = Chosen(key, keep, "; ".join(texts) +
                             "; the rest dimmed", links)

    def chosen_overview(self):
        """The utilization of the chosen states (analysis.overview), made once a
        choice; None where nothing is chosen."""
        if self.chosen is None:
            return None
        if self.chosen.overview is None:
            from ..analysis.overview import Overview
            self.chosen.overview = Overview(self.trace, self.chosen.states)
        return self.chosen.overview

    def state_rgb(self, rows):
        """Colours of the states `rows`: their values', or their colour-by metric
        along colors.ramp (grey where they have none); those not chosen (a call path,
        a task chain, brushed intervals) dimmed towards the background."""
        rgb = self._state_rgb(rows)
        return rgb if self.chosen is None else _dimmed(rgb, ~self.chosen.states[rows])

    def link_rgb(self, rows):
        """Colours of the links `rows`: their values', those off a chosen task chain
        dimmed."""
        rgb = self.value_rgb[self.trace.links.value[rows]]
        if self.chosen is None or self.chosen.links is None:
            return rgb
        return _dimmed(rgb, ~self.chosen.links[rows])

    def _state_rgb(self, rows):
        st = self.trace.states
        if self.color_by == "value":
            return self.value_rgb[st.value[rows]]
        return colors.metric_rgb(self.metric(), self.metric().values[rows])

    def color_keys(self, unit):
        """The legend's keys of the colour-by metric (see colorby.keys); a named unit
        is also that of the physical times shown in logical time."""
        m = self.metric()
        return colors.metric_keys(m._replace(unit=m.unit and (self.unit_named or m.unit)), unit)

    @cached_property
    def usage(self):
        """colors.usage of the trace: what the whole run holds."""
        return colors.usage(self.trace)

    def values_by_time(self):
        """The state values, longest total time over the whole trace first."""
        return np.argsort(-self.usage[0], kind="stable")

    def _binned(self, mask, boxes, drawn_of, n_bins):
        """The fields of LodStates that follow the screen: the columns (`boxes`,
        `drawn_of`) of the states `mask` binned in about `n_bins` (within the
        texture's limits), their atlas and lids, from texels made once."""
        bins = lod.bins_for(len(boxes), n_bins)
        texels = lod.bin_shown(*self._texel_args(mask, drawn_of, bins), len(boxes), bins)
        lids = self._lod_lids(texels, boxes)
        index, width = lod.atlas(texels)
        del texels
        st = self.trace.states
        if self.color_by == "value" and self.chosen is None:
            img = lod.texel_colors(index, st.value, self.value_rgb)
        else:
            img = np.empty(index.shape + (3,), np.uint8)
            img[:] = colors.EMPTY
            img[index >= 0] = self.state_rgb(index[index >= 0])
        if self.now is not None:
            some = index >= 0
            img[some] = self.fade(img[some], st.end[index[some]])
        return dict(bins=bins, atlas=img, width=width, lids=lids)

    def _links(self):
        """Links: the message lines of the window, bundled above BUNDLE_LIMIT."""
        tr, w, f = self.trace, self.frame, self.cut
        values, _, cont = self._shown_masks
        ln = tr.links
        shown = (cont[ln.start_container] & cont[ln.end_container] & values[ln.value]
                 & ~self.platform_links[ln.type])
        window = shown & (ln.end >= w.t0) & (ln.start <= w.t1)
        del shown
        rows = _rows(window)
        rows = rows[(ln.end[rows] >= f.t0) & (ln.start[rows] <= f.t1)]
        drawn = self.drawn
        if drawn is not None and drawn.bundles is not None:  # bundled over the store
            b = drawn.bundles
            return self._bundle_lines(window, b["rows"], b["a"], b["b"], b["count"],
                                      b["bytes"], b["start"], b["end"], bundled=b["bundled"])
        if self.owner is not None:
            rows = rows[self.owner[ln.start_container[rows]] != self.owner[ln.end_container[rows]]]
            return self._bundles(window, rows, self.owner)
        if len(rows) > BUNDLE_LIMIT:
            return self._bundles(window, rows)  # (its own ends: none made for every message)
        p0, p1 = entities.link_ends(tr, self.layout, f, rows)
        return Links(window, rows, p0, p1, self.fade(self.link_rgb(rows), ln.end[rows]))

    def _events(self):
        """EventDots: the dots of the window, thinned above EVENT_LIMIT."""
        tr, w, f = self.trace, self.frame, self.cut
        values, _, cont = self._shown_masks
        ev = tr.events
        keep = (ev.time >= w.t0) & (ev.time <= w.t1) & cont[ev.container] & values[ev.value]
        keys = np.flatnonzero(np.bincount(ev.value[keep], minlength=len(tr.values)))
        if f is not w:
            keep &= ev.time <= f.t1
        rows = _rows(keep)
        del keep
        bins = None
        if len(rows) > EVENT_LIMIT:
            bins = self.n_bins
            rows = self._apart(rows)
        return EventDots(rows, entities.event_points(tr, self.layout, f, rows),
                      self.fade(self.value_rgb[ev.value[rows]], ev.time[rows]), bins, keys)

    def _bundles(self, window, rows, owner=None):
        """Links of messages `rows` grouped by (sender, receiver, start bin) into at
        most BUNDLE_TARGET lines: time bins of the window are halved, then the ends
        move up to their parents' footprints, until so few remain (bundle_level;
        with `owner`: the ends are the owners' columns, and a line's width follows
        its traffic); where even the top of the hierarchy leaves more, the busiest
        are drawn (_bundle_lines). The tries only count their bundles (a sort in
        place); the one kept is grouped once."""
        from ..analysis.metrics import link_bytes
        tr, f = self.trace, self.cut
        ln = tr.links
        a, b = ln.start_container[rows], ln.end_container[rows]  # (int32: memory)
        up = self.bundle_up(owner)
        if owner is not None:
            a, b = owner[a], owner[b]
        rel = bundle_time(ln.start[rows], f.t0, f.t1)
        ends = [(a, b)]  # per level tried

        def count(level, bins):
            while len(ends) <= level:
                ends.append((up[ends[-1][0]], up[ends[-1][1]]))
            key = bundle_keys(*ends[level], len(up), rel, bins)
            key.sort()
            return 1 + np.count_nonzero(key[1:] != key[:-1])  # (never empty here)
        level, bins = bundle_level(count, lambda level: all(
            (up[e] == e).all() for e in ends[level]))
        a, b = ends[level]
        key = bundle_keys(a, b, len(up), rel, bins)
        rel = None  # (memory: the grouping's arrays come next)
        ends.clear()
        _, first, inv, count = np.unique(key, return_index=True, return_inverse=True,
                                         return_counts=True)
        del key
        size = np.bincount(inv, weights=np.nan_to_num(link_bytes(tr, rows)),
                           minlength=len(first))
        mean = lambda t: bundle_mean(bundle_sums(inv, bundle_ticks(t, f), len(first)),  # noqa: E731
                                     count, f)
        return self._bundle_lines(window, rows[first], a[first], b[first], count, size,
                                  mean(ln.start[rows]), mean(ln.end[rows]), owner)

    def bundle_up(self, owner=None):
        """Per container, where a bundle's end moves up to: its parent where that is
        laid out (not the root), else itself; each itself with `owner` (aggregated
        columns)."""
        parent, lay = self.trace.containers.parent, self.layout
        if owner is not None:
            return np.arange(len(parent))
        return np.where((parent > 0) & (lay.w[np.maximum(parent, 0)] > 0), parent,
                        np.arange(len(parent)))

    def _bundle_lines(self, window, rows, a, b, count, size, start, end, owner=None,
                      bundled=None):
        """Links of bundles, each its first message's row `rows`, its ends `a` and
        `b`, its `count` of messages, their `size` in bytes and mean `start` and
        `end`: the BUNDLE_TARGET of most bytes (else messages) drawn, the first
        first on a tie (Links.bundle_note; `bundled`: (bundles, messages) where
        some were left out already)."""
        traffic = size if size.any() else count.astype(np.float64)
        keep = np.sort(np.lexsort((rows, -traffic))[:BUNDLE_TARGET])  # (in key order)
        bundled = bundled or (len(rows), int(count.sum()))
        rows, a, b, count, size, traffic, start, end = (
            x[keep] for x in (rows, a, b, count, size, traffic, start, end))
        f, lay = self.cut, self.layout
        p0 = np.c_[lay.x[a], lay.y[a], f.z(start)]
        p1 = np.c_[lay.x[b], lay.y[b], f.z(end)]
        width = None
        if owner is not None and len(rows):  # 1 to 8 pixels, by bytes (else count)
            width = np.round(1 + 7 * np.sqrt(traffic / traffic.max()))
        return Links(window, rows, p0, p1,
                     self.fade(self.link_rgb(rows), self.trace.links.end[rows]), count, size,
                     0.15 + 0.85 * np.sqrt(count / max(count.max(initial=0), 1)), width,
                     bundled)

    def _apart(self, rows):
        """Events `rows`, one per container in each EVENT_PX of the window's pixels
        (the first: their dots would cover one another)."""
        ev, f = self.trace.events, self.cut
        slots = max(1, self.n_bins // EVENT_PX)
        s = ((ev.time[rows] - f.t0) / max(f.t1 - f.t0, 1e-300) * slots).astype(np.int64)
        key = ev.container[rows].astype(np.int64) * slots + np.clip(s, 0, slots - 1)
        _, first = np.unique(key, return_index=True)
        return rows[np.sort(first)]

    def _profiles(self):
        """Profiles: the boxes of the usage profiles in the window, averaged per
        bin above PROFILE_LIMIT pieces."""
        f, w, var = self.cut, self.frame, self.trace.variables
        _, types, cont = self._shown_masks
        keep = ((var.end >= w.t0) & (var.start <= w.t1) & cont[var.container]
                & types[var.type] & self.roles.drawn[var.type])
        rows = np.flatnonzero(keep)
        rows = rows[self.cols.has(var.container[rows], self.roles.lane[var.type[rows]])]
        keys = np.unique(var.type[rows])  # the window's, for the legend
        rows = rows[var.start[rows] <= f.t1]  # (no lane: folded into an aggregate's column)
        col = self.cols.index(var.container[rows], self.roles.lane[var.type[rows]])
        order = np.lexsort((var.start[rows], var.type[rows], col))
        rows, col = rows[order], col[order]
        cap = self.capacity_of(rows)
        frac = np.clip(np.where(cap > 0, var.value[rows] / np.where(cap > 0, cap, 1), 0.0),
                       0, None)
        typ, start, end = var.type[rows], var.start[rows], var.end[rows]
        bins = None
        if len(rows) > PROFILE_LIMIT:  # finer than the screen: each lane's mean per bin
            bins = self.n_bins
            series = np.cumsum(np.r_[False, (col[1:] != col[:-1]) | (typ[1:] != typ[:-1])])
            src, t, frac = profiles.binned(series, start, end, frac, f.t0, f.t1,
                                           max(1, self.n_bins // PROFILE_PX))
            rows, col, typ, start, end = rows[src], col[src], typ[src], t[:, 0], t[:, 1]
        piece, t, x = profiles.stack(col, typ, start, end, frac, f.t0, f.t1)
        rows = rows[piece]
        cx, cy, hw, hh = self.cols.footprint(self.layout, col[piece])
        left = cx - hw
        boxes = np.c_[left + x[:, 0] * 2 * hw, left + x[:, 1] * 2 * hw, cy - hh,
                      cy + hh, f.z(t[:, 0]), f.z(t[:, 1])]
        rgb = self.fade(self.type_rgb[var.type[rows]], var.end[rows])
        return Profiles(rows, boxes, rgb, bins, keys)

    def fade(self, rgb, end):
        """Colours `rgb` of things that ended at `end`, dimmed towards the
        background as they grow older than `now` when unfolding (FADE of the
        window to reach HISTORY of the way)."""
        if self.now is None or not len(rgb):
            return rgb
        f = self.frame
        age = (self.now - np.asarray(end, np.float64)) / max(FADE * (f.t1 - f.t0), 1e-300)
        k = (HISTORY * np.clip(age, 0, 1))[:, None]
        bg = np.asarray(BACKGROUND_RGB, np.float64)
        return np.round(rgb * (1 - k) + bg * k).astype(np.uint8)

    # -- level of detail ---------------------------------------------------------------
    def _texel_args(self, mask, drawn_of, bins):
        st, f, cols = self.trace.states, self.cut, self.cols
        dt = (f.t1 - f.t0) / bins if f.t1 > f.t0 else 1.0
        return (mask, st.container, st.type, cols.first, cols.keys, cols.nt, drawn_of,
                st.start, st.end, st.imbrication, f.t0, dt)

    @property
    def texels(self):
        """(drawn columns, bins) Trace row shown in each texel of the level-of-detail
        columns (-1: none; see lod.bin_states). Made on each use (the atlas is made
        of them once, picking finds one on demand): the geometry keeps none."""
        s = self.states
        return lod.bin_shown(*self._texel_args(s.mask, s.drawn_of, s.bins), len(s.boxes),
                             s.bins)

    def texel_row(self, column, z):
        """The Trace row shown by drawn column `column` at height z (-1: none)."""
        s, h = self.states, self.cut.height
        b = int(z / h * s.bins) if h > 0 else 0
        texels = lod.column_texels(*self._texel_args(s.mask, s.drawn_of, s.bins), s.bins,
                                   column)
        return int(texels[min(s.bins - 1, max(0, b))])

    def set_bins(self, n_bins):
        """Follow the screen: about `n_bins` pixels over the window's height. The
        level-of-detail columns are binned again, and so are usage profiles averaged
        per bin (above PROFILE_LIMIT: pieces finer than the screen) and events
        thinned (above EVENT_LIMIT); the names of the parts made again: "states",
        "variables", "events"."""
        self.n_bins = n_bins
        changed = set()
        s = self.states
        if s.mode == "lod" and lod.bins_for(len(s.boxes), n_bins) != s.bins:
            self.states = replace(s, **self._binned(s.mask, s.boxes, s.drawn_of, n_bins))
            changed.add("states")
        if (s.mode == "aggregated"
                and aggregated.bins_for(len(s.boxes), n_bins, len(s.keys)) != s.bins):
            self.states = replace(s, **self._aggregate(s.mask, s.boxes, s.drawn_of, s.members,
                                                       s.keys, n_bins))
            changed.add("states")
        if self.profiles.bins not in (None, n_bins):
            self.profiles = self._profiles()
            changed.add("variables")
        if self.events.bins not in (None, n_bins):
            self.events = self._events()
            changed.add("events")
        return changed

    # -- the columns' tops ------------------------------------------------------------
    # The lids close the lanes of states from above, each in the colour of the value
    # taking most of its lane's time in the window (see entities.dominant), its row
    # that value's longest state there (what picking it gives): (boxes (n, 5): x0 x1
    # y0 y1 z, rgb, Trace rows).
    def _exact_lids(self, rows, boxes):
        """One lid a lane of the states `rows` (`boxes`) over its whole square just
        above its highest box, its time counted once (a state's less the states
        nested in it: a nested stack no longer roofs the lane)."""
        st, f = self.trace.states, self.cut
        if not len(rows):
            return np.zeros((0, 5)), np.zeros((0, 3), np.uint8), rows
        lane = self.cols.of_rows(rows).astype(np.int64)
        time = np.minimum(st.end[rows], f.t1) - np.maximum(st.start[rows], f.t0)
        exclusive = time - np.bincount(_parents(st, rows), weights=time,
                                       minlength=len(rows) + 1)[:len(rows)]
        lanes, value, item = entities.dominant(lane, st.value[rows], exclusive, time)
        at = np.searchsorted(lanes, lane)
        lids = np.tile([np.inf, -np.inf, np.inf, -np.inf, -np.inf], (len(lanes), 1))
        for k, (reduce, i) in enumerate(((np.minimum, 0), (np.maximum, 1), (np.minimum, 2),
                                         (np.maximum, 3), (np.maximum, 5))):
            reduce.at(lids[:, k], at, boxes[:, i])  # over all the lane's boxes, nested ones too
        lids[:, 4] += entities.LIFT * f.height / 2
        return lids, self._lid_rgb(value, rows[item]), rows[item]

    def _lid_rgb(self, value, rows):
        """A lid's colour: its value's, or as its state `rows` is drawn (a colour-by
        metric, a chosen call path)."""
        return self.value_rgb[value] if self.color_by == "value" and self.chosen is None \
            else self.state_rgb(rows)

    def _lod_lids(self, texels, boxes):
        """One lid a level-of-detail column (`boxes`) at its top, the value of most
        of its `texels` (lod.column_lids)."""
        tr = self.trace
        value, rows = lod.column_lids(texels, tr.states.value, tr.states.start,
                                      tr.states.end, len(tr.values))
        cols = np.flatnonzero(value >= 0)
        c = boxes[cols]
        return np.c_[c[:, :4], c[:, 5]], self._lid_rgb(value[cols], rows[cols]), rows[cols]

    # -- what is on screen ---------------------------------------------------------------
    def world_bounds(self):
        """(xmin, xmax, ymin, ymax, zmin, zmax) of the scene, axis included."""
        xmin, ymin, xmax, ymax = self.bounds
        m = 0.06 * self.extent
        return (xmin - m, xmax + m, ymin - m, ymax + m, 0.0, self.frame.height + m)

    def filter_entries(self):
        """(name, kind, rgb) of everything the filters can hide or show: each state,
        message and event value by name (platform links are base edges), each
        drawn variable type, each metric (drawn when chosen, see analysis.roles)."""
        tr, roles = self.trace, self.roles
        kinds = {Kind.STATE: "state", Kind.LINK: "message", Kind.EVENT: "event"}
        out = {}
        for v in range(len(tr.values)):
            ty = tr.values.type[v]
            kind = kinds.get(int(tr.types.kind[ty]))
            if kind and not self.platform_links[ty]:
                out.setdefault((tr.display_name("values", v), kind), self.value_rgb[v])
        for t in np.flatnonzero(roles.drawn):  # capacities are not drawn
            if roles.metric_class[t] is None:
                out.setdefault((tr.display_name("types", t), "variable"), self.type_rgb[t])
        for t, cls in enumerate(roles.metric_class):
            if cls is not None:
                out.setdefault((tr.display_name("types", t), f"metric ({cls})"), self.type_rgb[t])
        return [(name, kind, rgb) for (name, kind), rgb in out.items()]

    def isolating(self, name, kind, hidden=()):
        """The hidden names that show `name` alone among the filter entries of its
        `kind` (see filter_entries), keeping what `hidden` hides of other kinds;
        `hidden` itself less those of `kind` if `name` is already alone."""
        same = [n for n, k, _ in self.filter_entries() if k == kind]
        others = [n for n in same if n != name]
        rest = tuple(h for h in hidden if h not in same)
        alone = set(others) <= set(hidden) and name not in hidden
        return rest if alone else rest + tuple(others)

    def legend_entries(self, particles=None, heat=None):
        """(text, rgb) of the keys of the picture: the state values in the window,
        longest total time over the whole trace first (an order that stays while
        the window moves or unfolds: movies, the brush); the message and event
        values; the usage profiles with what their width is relative to; lines
        (rgb None) on particles coloured by size and on what the base's edges
        show (bandwidth and latency, or the traffic `heat`: "so far" or "of the
        window")."""
        tr = self.trace
        keys = self.states.values
        name = tr.names.display
        out = []
        if len(keys) and self.color_by != "value" and self.states.mode != "aggregated":
            out += self.color_keys(tr.unit(self.unit_named))
        elif len(keys):
            if self._value_order is None:
                self._value_order = self.values_by_time()
            shown = np.zeros(len(tr.values), bool)
            shown[keys] = True
            shown = self._value_order[shown[self._value_order]]
            out += [(name(tr.values.name[v]), self.value_rgb[v]) for v in shown]
        link_values = (np.unique(tr.links.value[self.links.window]) if self.drawn is None
                       else self.drawn.link_values)
        for v in link_values:  # "p2p (MPI message)"
            value, what = name(tr.values.name[v]), name(tr.types.name[tr.values.type[v]])
            out.append((value if value.lower() == what.lower() else f"{value} ({what})",
                        self.value_rgb[v]))
        out += [(f"{name(tr.values.name[v])} (event)", self.value_rgb[v])
                for v in np.unique(self.events.values)]
        profiles = {}  # one key per colour: SimGrid's p<cat> and b<cat> share theirs
        cls = self.roles.metric_class
        for ty in sorted(self.profiles.types, key=lambda t: (cls[t] or "", t)):  # by class
            cap = self.roles.relative_to[ty]
            of = (name(tr.types.name[cap]) if cap >= 0
                  else f"its max {self.capacity_of([np.argmax(tr.variables.type == ty)])[0]:.4g}")
            profiles.setdefault(tuple(self.type_rgb[ty]), []).append(
                ("" if not cls[ty] or name(tr.types.name[ty]).startswith(cls[ty])
                 else f"{cls[ty]}: ") + f"{name(tr.types.name[ty])} (of {of})")
        out += [(", ".join(texts), np.array(rgb, np.uint8)) for rgb, texts in profiles.items()]
        if self.chosen is not None:  # a line a choice (a long line hides the legend)
            out += [(part, None) for part in self.chosen.text.split("; ")]
        note = self.aggregation_note(short=True)
        if note:
            out.append((note, None))
            if len(self.links.rows):
                out.append(("lines: messages between columns, width by "
                            + ("bytes" if self.links.bytes.any() else "count"), None))
        note = self.links.bundle_note(short=True)
        if note:
            out.append((note, None))
        hidden = self.roles.metrics_not_drawn()
        if hidden:
            out.append((f"{sum(hidden.values())} metrics not drawn until chosen ("
                        + ", ".join(f"{c} {n}" for c, n in sorted(hidden.items())) + ")", None))
        if particles == "size":
            out.append(("particles: size, small blue to large red (grey: unknown)", None))
        lay = self.layout
        if heat and len(lay.edges):
            out.append((heat if heat.startswith("edges:") else
                        f"edges: traffic {heat}, narrow blue to wide red", None))
        elif len(lay.edges) > entities.EDGE_LIMIT:
            out.append((f"edges: density ({len(lay.edges):,})" +
                        (", colour latency" if np.isfinite(lay.edge_latency).any() else ""),
                        None))
        elif len(lay.edges) and (np.isfinite(lay.edge_bandwidth).any()
                                 or np.isfinite(lay.edge_latency).any()):
            out.append(("edges: width bandwidth, colour latency", None))
        return out

    def named_containers(self):
        """The containers whose names the picture writes: all (None), or when columns
        are aggregated, the nodes they stand for and the containers above them."""
        if self.owner is None:
            return None
        shown = np.zeros(len(self.owner), bool)
        shown[np.unique(self.owner)] = True
        parent = self.trace.containers.parent
        up = np.unique(self.owner)
        while len(up):
            up = parent[up]
            up = up[(up >= 0) & ~shown[np.maximum(up, 0)]]
            shown[up] = True
        return shown

    def aggregation_note(self, short=False):
        """A line on what the aggregated columns stand for (None: not aggregated);
        `short`: the legend's."""
        s, tr = self.states, self.trace
        if s.mode != "aggregated":
            return None
        columns = np.unique(s.nodes)
        types = tr.containers.type[columns]
        kinds = ", ".join(f"{n} {tr.display_name('types', int(t))}" for t, n in
                          zip(*np.unique(types, return_counts=True)))
        if short:
            return f"columns: {kinds}, value shares per bin"
        held = np.unique(self._pairs[0])  # (the containers with states, in the columns)
        held = held[np.isin(self.owner[held], columns)]
        if len(held) == len(columns):  # (the level of the containers with states)
            return f"columns: {kinds}, each one container's states (nothing aggregated)"
        return (f"columns: {kinds} aggregates of {len(held)} containers' states, "
                "the share of each value per time bin (grey: none)")

    def notes(self):
        """Lines on what was changed to make the picture readable: colours moved
        apart, columns aggregated, message bundles left out."""
        ignored = self.expand_ignored and "expanded to no effect: " + "; ".join(
            f"{name} ({why})" for name, why in self.expand_ignored)
        notes = (self.aggregation_note(), ignored, self.links.bundle_note())
        return self.colour_notes + [n for n in notes if n]

    def outline(self, selection):
        """Segments (p0, p1) outlining a selection {kind, row} (see pick): the box of
        a state or a profile piece, a message's line, a cross at an event, the square
        of a container, a node or an edge's line on the ground; empty if not drawn."""
        none = np.zeros((0, 3)), np.zeros((0, 3))
        if not selection:
            return none
        kind, row = selection["kind"], selection["row"]
        tr, lay, f = self.trace, self.layout, self.cut
        table = PICKED.get(kind)
        size = (len(getattr(tr, table)) if table else len(lay.edges) if kind == "edge"
                else len(lay.node_rects) if kind == "node" else 0)
        if not 0 <= row < size:
            return none  # a selection of another trace or base draws nothing
        if kind == "state":
            if self.cols.of_rows([row])[0] < 0 or not self.states.shows(row):
                return none
            return box_edges(entities.bar_bounds(tr, lay, f, np.array([row]), self.cols))
        if kind == "variable":
            return box_edges(self.profiles.boxes[self.profiles.rows == row])
        if kind == "aggregate":
            s = self.states
            return box_edges(s.boxes[s.nodes == row]) if s.mode == "aggregated" else none
        if kind in ("link", "bundle"):
            i = np.flatnonzero(self.links.rows == row)
            return self.links.p0[i], self.links.p1[i]
        if kind == "event":
            i = np.flatnonzero(self.events.rows == row)
            d = 0.02 * self.extent
            p = self.events.points[i]
            return (np.vstack([p - [d, 0, 0], p - [0, 0, d]]),
                    np.vstack([p + [d, 0, 0], p + [0, 0, d]]))
        if kind == "edge":
            a, b = lay.edges[row]
            return (np.c_[lay.node_rects[[a], :2], [0.0]], np.c_[lay.node_rects[[b], :2], [0.0]])
        x, y, w, h = ((lay.x[row], lay.y[row], lay.w[row], lay.h[row]) if kind == "container"
                      else lay.node_rects[row])
        return box_edges(np.array([[x - w / 2, x + w / 2, y - h / 2, y + h / 2, 0.0, 0.0]]))

    def paged(self, window, direction):
        """`window` (None: data_span) moved later (`direction` 1) or earlier (-1) by
        half its length, stopping at the ends of what is drawn: never past them,
        never back from beyond them."""
        t0, t1 = window or self.data_span
        lo, hi = self.data_span
        w = t1 - t0
        t0 = max(t0, min(t0 + w / 2, hi - w)) if direction > 0 else \
            min(t0, max(t0 - w / 2, lo))
        return (t0, t0 + w)

    def warnings(self, state=None):
        """Lines for a picture that is empty or partial (with `state`: its particles
        and heat, which fly on the messages)."""
        tr, f = self.trace, self.frame
        out = []
        silent = [w for w, on in (("no particles fly", state and state.particles),
                                  ("no edge heats up", state and state.heat)) if on]
        if silent and not self.links.window.any():
            where = (f"no message is drawn in the window {f.t0:.9g}..{f.t1:.9g}"
                     if link_sizes(tr).messages
                     else "the trace has no messages (links between containers)")
            out.append(f"{where}: {' and '.join(silent)}")
        if f.t1 < tr.start_time or f.t0 > tr.end_time:
            out.append(f"the window {f.t0:.9g}..{f.t1:.9g} is outside the trace "
                       f"({tr.start_time:.9g}..{tr.end_time:.9g})")
        elif f.t1 == f.t0:
            out.append(f"everything drawn happens at one instant ({f.t0:.9g}): nothing "
                       "rises over the base")
        elif self.usage[1][:, 0].any() and not self.states.n:
            out.append(f"no state is drawn in the window {f.t0:.9g}..{f.t1:.9g}")
        return out

    def summary(self, time_unit=None):
        """One line: the window (in `time_unit`, else the trace's) and what is
        drawn in it."""
        f, lay, ln = self.frame, self.layout, self.links
        platform = int(self.usage[2][self.platform_links].sum())
        return (f"window {f.t0:.9g}..{f.t1:.9g} {self.trace.unit(time_unit)}, "
                f"{self.states.n} states "
                f"({self.states.mode}), " + (
                    f"{len(ln.rows)} links" if ln.count is None else
                    f"{int(ln.count.sum())} links in {len(ln.rows)} bundles")
                + (f" (and {platform} platform links, " + (
                    "as base edges)" if len(lay.edges) else "not drawn: no base edges)")
                   if platform else "")
                + f", {len(self.events.rows)} events "
                f"on {len(lay.node_names)} {lay.base} nodes"
                + (f", {lay.unplaced} containers unplaced" if lay.unplaced else "")
                + (f", {lay.without_area} container{'s' * (lay.without_area != 1)} not "
                   "drawn: no area (their "
                   f"{lay.report['metric']} is 0, e.g. "
                   f"{lay.report['without area examples'][0]})" if lay.without_area else ""))


def _available():
    """Bytes of memory available without swapping (Linux), or None."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _check_room(n_boxes):
    """Refuse exact boxes that would not fit in memory (rather than swapping)."""
    need, free = n_boxes * EXACT_BYTES, _available()
    if free is not None and need > 0.8 * free:
        raise OptionsError(
            f"exact detail: {n_boxes} states would take about {need / 2**30:.1f} GiB to "
            f"draw and {free / 2**30:.1f} GiB is available; use the level of detail "
            "(detail lod or auto), a shorter time window, or hide values")


def _cut(frame, now):
    """The part of `frame` up to `now`, at the same heights."""
    t1 = min(max(now, frame.t0), frame.t1)
    return Frame(frame.t0, t1, frame.height * ((t1 - frame.t0) / (frame.t1 - frame.t0)
                                               if frame.t1 > frame.t0 else 1.0))


def box_edges(boxes):
    """The 12 edges of each box (x0, x1, y0, y1, z0, z1) as segments (p0, p1)."""
    b = np.asarray(boxes, np.float64).reshape(-1, 6)
    c = np.stack([np.c_[b[:, x], b[:, 2 + y], b[:, 4 + z]]
                  for z in (0, 1) for y in (0, 1) for x in (0, 1)], axis=1)  # (n, 8, 3)
    a = [0, 2, 4, 6, 0, 1, 4, 5, 0, 1, 2, 3]
    e = [1, 3, 5, 7, 2, 3, 6, 7, 4, 5, 6, 7]
    return c[:, a].reshape(-1, 3), c[:, e].reshape(-1, 3)


def bundle_level(count, at_top):
    """(level, time bins) message bundles are made at: the first of BUNDLE_TRIES at
    level 0 (the messages' own ends) where `count(level, bins)` says at most
    BUNDLE_TARGET bundles remain, else at the next level up, until `at_top(level)`
    (no end can move up: the fewest bins there)."""
    level = 0
    while True:
        for bins in BUNDLE_TRIES:
            if count(level, bins) <= BUNDLE_TARGET:
                return level, bins
        if at_top(level):
            return level, bins
        level += 1


def bundle_time(start, t0, t1):
    """Message `start` times as fractions of the window from `t0` to `t1`
    (bundle_keys)."""
    rel = start - t0
    rel /= t1 - t0 if t1 > t0 else 1.0
    return rel


#: A bundle's mean times are summed as integer ticks of its window, TICKS a window
#: (exact in any order: a store sums them bucket by bucket), each time within BEYOND
#: windows of it (the lines' ends are drawn within the window: Frame.z).
TICKS, BEYOND = 1 << 26, 256


def bundle_ticks(times, frame):
    """`times` as int64 ticks of the `frame`'s window (bundle_mean)."""
    rel = bundle_time(times, frame.t0, frame.t1)
    np.clip(rel, -BEYOND, BEYOND, out=rel)
    rel *= TICKS
    return np.rint(rel).astype(np.int64)


def bundle_sums(group, ticks, n):
    """Per group (`group`: each one's, below `n`), its `ticks` summed, exactly."""
    out = np.zeros(n, np.int64)
    np.add.at(out, group, ticks)
    return out


def bundle_mean(ticks, count, frame):
    """The times of `ticks` summed over `count` of them (bundle_ticks), averaged."""
    return frame.t0 + ticks / count / TICKS * (frame.t1 - frame.t0 if frame.t1 > frame.t0
                                                else 1.0)


def bundle_keys(a, b, n, rel, bins):
    """(sender a, receiver b, time bin of `rel` in [0, 1]) as one int64 (1M messages:
    8 MB), a and b below n."""
    key = a.astype(np.int64)
    key *= n
    key += b
    key *= bins
    t = np.multiply(rel, bins)
    np.clip(t, 0, bins - 1, out=t)
    key += t.astype(np.int64)
    return key


def _dimmed(rgb, off):
    """`rgb` with the rows `off` dimmed towards the background."""
    bg = np.asarray(BACKGROUND_RGB, np.float64)
    rgb = rgb.copy()
    rgb[off] = np.round(rgb[off] * (1 - DIMMED) + bg * DIMMED).astype(np.uint8)
    return rgb


def _rows(mask):
    """The rows of `mask`, as int32 where they fit (half the memory of int64)."""
    rows = np.flatnonzero(mask)
    return rows.astype(np.int32) if len(mask) < 2**31 else rows


def _parents(st, rows):
    """Per state of `rows`, the position in `rows` of the state it is nested in (the
    last one, len(rows), where none is drawn), to count each instant once."""
    parent = nesting_parents_of(st.container[rows], st.type[rows], st.start[rows],
                                st.imbrication[rows])
    ok = parent >= 0
    ok[ok] = st.end[rows][parent[ok]] > st.start[rows][ok]  # a parent hidden: an older one
    return np.where(ok, parent, len(rows))
