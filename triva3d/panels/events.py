"""Sigovan's event particles (Sigovan, Muelder and Ma, "Visualizing large-scale
parallel communication traces using a particle animation technique", EuroVis 2013):
each event of a trace is a particle.

- x: its rank's slot. Ranks are grouped into segments (their parent containers,
  hosts or nodes, when there are 2 to MAX_SEGMENTS of them; else equal blocks of
  ranks) drawn as alternating grey bands labelled under the plot; a particle
  stands at a fixed jitter within its slot, so that ranks' particles do not hide
  one another.
- y: the log of its age: it appears at the floor when the event starts and rises
  until its age reaches its duration; the grid is labelled in ms, its ceiling at
  the longest event.
- after its end, a particle fades over a constant time (`fade`, the same for
  every event) and is gone.
- the history texture counts the particles that passed over each pixel (one per
  frame drawn while they rise, and once where each stopped; not while they rest
  fading, which would paint ended events as bright as running ones) and shows them
  with log tone mapping, P = C (O_min + (1 - O_min) ln D / ln D_max), C the mean
  colour of what passed there; `clear()` empties it.
- colours: the scene's (MPI calls in families of related hues, see
  colors.MPI_FAMILIES), at most MAX_COLOURS: the rarest values beyond share grey.
- under the plot, a timeline of the events' starts stacked by value, with the
  "now" line.

The events are a trace's MPI calls (states whose value is an MPI function's name)
where it has any, else its states with nothing nested in them; what the scene hides
is left out. `EventsPicture.draw(now)` is a frame as a numpy image and the texts to
write over it; `Canvas` writes them (VTK) for movies and the window.
"""
import numpy as np
from numba import njit

from .. import colors
from ..errors import OptionsError
from ..theme import BACKGROUND_RGB, TEXT_RGB

#: Pixels around the plot: the duration labels on the left, the segments' names
#: under it, the title above, the timeline strip at the bottom.
LEFT_PX, RIGHT_PX, TOP_PX, NAMES_PX, TIMELINE_PX = 96, 12, 44, 22, 64
#: The history's least opacity (O_min of the tone mapping).
O_MIN = 0.25
MAX_SEGMENTS = 64
MAX_COLOURS = 25
#: How long a particle fades after its end, as a share of the events' span.
FADE = 0.02
#: The share of its slot a particle may stand anywhere in, and at most how many
#: particle widths that is (wide slots: the jitter would read as an axis).
JITTER, JITTER_DOTS = 0.8, 6
#: The legend's room on the right, in pictures at least LEGEND_FROM pixels wide
#: (narrower ones leave it to the window's legend dock).
LEGEND_FROM = 800
#: The greys of the segments' alternating bands.
BANDS = ((30, 31, 36), (40, 41, 47))
#: Milliseconds per unit of the trace's times (cycles: none; labels in cycles).
MS_PER = {"s": 1e3, "ms": 1.0, "us": 1e-3, "ns": 1e-6}


def event_rows(trace, shown=None):
    """(the state rows that are events, are they MPI calls?): the MPI calls where
    there are any, else the states with no state nested in them; `shown` (value
    mask, container mask: Geometry.shown) leaves out what the scene hides."""
    from ..analysis.timeslice import nesting_parents
    st = trace.states
    names = [trace.names.display(int(n)) for n in trace.values.name]
    mpi = np.array([bool(colors.MPI_CALL.fullmatch(n)) for n in names], bool)
    is_mpi = bool(len(st) and mpi[st.value].any())
    if is_mpi:
        chosen = mpi[st.value]
    else:
        chosen = np.ones(len(st), bool)
        if len(st) and st.imbrication.max() > 0:
            parents = nesting_parents(trace)
            chosen[parents[parents >= 0]] = False
    if shown is not None and len(st):
        chosen &= shown[0][st.value] & shown[1][st.container]
    return np.flatnonzero(chosen), is_mpi


class Events:
    """A trace's events (see event_rows; `chosen` its result, made once for many
    windows) overlapping `window`, if given, in Sigovan's terms, columns in start
    order: `rows` (their state rows), `start`, `end`, `slot` (their rank's),
    `jitter` (-0.5..0.5), `colour` (index into `palette`); the ranks (containers)
    by slot, the segments (first slot, name) and the floor and ceiling of
    durations (`instants`: none lasts, all drawn at the floor); `fade` defaults to
    FADE of the events' span."""

    def __init__(self, trace, value_rgb, shown=None, fade=None, window=None, chosen=None):
        self.trace = trace
        rows, self.mpi = chosen if chosen is not None else event_rows(trace, shown)
        st = trace.states
        if window is not None:
            rows = rows[(st.end[rows] >= window[0]) & (st.start[rows] <= window[1])]
        #: what the slots are called: MPI ranks, or containers
        self.slot_word = "ranks" if self.mpi else "containers"
        if not len(rows):
            raise OptionsError(f"{trace.source}: no events to draw (no states"
                               f"{' in the window' if window else ''}, or all hidden)")
        rows = rows[np.argsort(st.start[rows], kind="stable")]
        self.rows, self.start, self.end = rows, st.start[rows], st.end[rows]
        cont = st.container[rows]
        parent = trace.containers.parent
        ranks = np.unique(cont)
        ranks = ranks[np.lexsort((ranks, parent[ranks]))]  # by segment, then rank
        self.ranks = ranks
        slot_of = np.full(len(trace.containers), -1, np.int32)  # (a column per event:
        slot_of[ranks] = np.arange(len(ranks))                  # narrow types)
        self.slot = slot_of[cont]
        self.segments = self._segments(trace, ranks)
        self.jitter = np.random.default_rng(0).random(len(rows)) - 0.5
        dur = self.end - self.start
        pos = dur[dur > 0]
        self.instants = not len(pos)
        self.ceiling = float(pos.max()) if len(pos) else 1.0  # (instants: a scale)
        floor = float(pos.min()) if len(pos) else self.ceiling
        per_ms = MS_PER.get(trace.time_unit)
        if per_ms:  # a microsecond at least below the ceiling: the grid's decades
            floor = max(floor, 1e-3 / per_ms) if self.ceiling > 1e-3 / per_ms else floor
        self.floor = min(floor, self.ceiling / 10)
        span = float(self.end.max() - self.start.min())
        self.fade = float(fade) if fade is not None else FADE * span or 1.0
        self.longest = float(dur.max())
        values = st.value[rows]
        counts = np.bincount(values, minlength=len(trace.values))
        order = np.argsort(-counts, kind="stable")
        kept = order[:MAX_COLOURS][counts[order[:MAX_COLOURS]] > 0]
        if (counts > 0).sum() > MAX_COLOURS:
            kept = kept[:MAX_COLOURS - 1]  # the last colour: all the others
        index = np.full(len(trace.values), len(kept), np.uint8)  # (MAX_COLOURS < 256)
        index[kept] = np.arange(len(kept))
        self.colour = index[values]
        self.palette = np.r_[np.asarray(value_rgb, np.uint8)[kept].reshape(-1, 3),
                             np.array([colors.EMPTY], np.uint8)]
        self.keys = [(trace.display_name("values", int(v)), self.palette[i])
                     for i, v in enumerate(kept)]
        if (counts > 0).sum() > len(kept):
            self.keys.append((f"{(counts > 0).sum() - len(kept)} other calls",
                              self.palette[-1]))

    @staticmethod
    def _segments(trace, ranks):
        """(first slot, name) of each segment: the ranks' parents where 2 to
        MAX_SEGMENTS hold them, else blocks of ranks named by their first and last."""
        parent = trace.containers.parent[ranks]
        heads = np.flatnonzero(np.r_[True, parent[1:] != parent[:-1]])
        if 2 <= len(heads) <= MAX_SEGMENTS:
            return [(int(h), trace.display_name("containers", int(parent[h]))) for h in heads]
        n = len(ranks)
        size = max(1, -(-n // 16))
        name = lambda s: trace.display_name("containers", int(ranks[s]))  # noqa: E731
        return [(s, name(s) if size == 1 else
                 f"{name(s)} .. {name(min(s + size, n) - 1)} ({min(size, n - s)})")
                for s in range(0, n, size)]

    def live(self, now):
        """The events shown at `now`: (indices, height 0..1 on the log scale, opacity)."""
        lo = np.searchsorted(self.start, now - self.longest - self.fade, side="left")
        hi = np.searchsorted(self.start, now, side="right")
        i = np.arange(lo, hi)
        i = i[self.end[i] + self.fade > now]
        age = np.minimum(now - self.start[i], self.end[i] - self.start[i])
        height = self.height(age)
        alpha = np.clip(1.0 - (now - self.end[i]) / self.fade, 0.0, 1.0)
        return i, height, np.where(now <= self.end[i], 1.0, alpha)

    def height(self, age):
        """0..1 up the plot of an age (log scale from the floor to the ceiling)."""
        f, c = self.floor, self.ceiling
        with np.errstate(divide="ignore", invalid="ignore"):
            h = np.log(np.maximum(age, f) / f) / np.log(c / f) if c > f else np.zeros(len(age))
        return np.clip(h, 0.0, 1.0)


class EventsPicture:
    """Frames of `events` at `size` (w, h): the plot, its history and the timeline
    of `span` (t0, t1)."""

    def __init__(self, events, size=(1280, 720), span=None):
        self.events = ev = events
        self.size = w, h = int(size[0]), int(size[1])
        longest = max((len(name) for name, _ in ev.keys), default=0)
        #: pixels kept for the legend on the right (0: no legend drawn)
        self.legend_px = min(40 + CHAR_PX * longest, w // 4) if w >= LEGEND_FROM else 0
        self.x0, self.x1 = LEFT_PX, w - RIGHT_PX - self.legend_px
        self.y0, self.y1 = TOP_PX, h - TIMELINE_PX - NAMES_PX  # image rows, top to bottom
        if self.x1 - self.x0 < 50 or self.y1 - self.y0 < 50:
            raise OptionsError(f"a picture of events needs at least "
                               f"{LEFT_PX + RIGHT_PX + 50}x{TOP_PX + NAMES_PX + TIMELINE_PX + 50}"
                               f" pixels, not {w}x{h}")
        n = len(ev.ranks)
        self.slot_px = (self.x1 - self.x0) / n
        #: particles' side in pixels: 5, less where slots are narrower
        self.dot = int(np.clip(np.floor(self.slot_px / 2), 1, 5))
        spread = min(JITTER * self.slot_px, JITTER_DOTS * self.dot)
        self.x = (self.x0 + (ev.slot + 0.5) * self.slot_px + spread * ev.jitter).astype(np.int32)
        self.x = np.clip(self.x, self.x0, self.x1 - self.dot)
        #: the times the timeline covers (default: the events')
        self.span = tuple(map(float, span)) if span else (float(ev.start.min()),
                                                          float(ev.end.max()))
        self._base = self._background()
        self.clear()

    def clear(self):
        """Empty the history."""
        shape = (self.y1 - self.y0, self.x1 - self.x0)
        self.count = np.zeros(shape, np.float32)
        self.colour_sum = np.zeros(shape + (3,), np.float32)
        self._recorded_at = -np.inf  # the last frame recorded

    def _y(self, height):
        return (self.y1 - 1 - height * (self.y1 - self.y0 - self.dot)).astype(np.int64) \
            - (self.dot - 1)

    def _grid_y(self, duration):
        """The image row of a grid line at `duration` (a particle's centre there)."""
        return int(self._y(self.events.height(np.array([duration])))[0]) + self.dot - 1

    def particles(self, now):
        """(event indices, x, y (top-left pixel), opacity) of the particles at `now`."""
        i, height, alpha = self.events.live(now)
        return i, self.x[i], self._y(height), alpha

    def draw(self, now, record=True):
        """The frame at `now` as an (h, w, 3) uint8 image; with `record`, its
        particles join the history first: where they rise, and where each stopped
        (the first frame after its end), not while they rest fading."""
        ev = self.events
        i, x, y, alpha = self.particles(now)
        rgb = ev.palette[ev.colour[i]]
        if record:  # where particles rise, and where each stopped (once): not their rest
            e = ev.end[i]
            up = (e > now) | ((e <= now) & (e > self._recorded_at))
            _record(self.count, self.colour_sum, x[up] - self.x0, y[up] - self.y0, rgb[up],
                    self.dot)
            self._recorded_at = now
        img = self._base.copy()
        plot = img[self.y0:self.y1, self.x0:self.x1]
        dmax = float(self.count.max(initial=0.0))
        if dmax > 0:
            _tone_map(plot, self.count, self.colour_sum, O_MIN,
                      np.log(dmax) if dmax > 1 else 0.0)
        _splat(img, x, y, rgb, alpha, self.dot)
        self._now_line(img, now)
        return img

    def _background(self):
        """The frame without particles: bands, grid, ceiling and the timeline."""
        w, h = self.size
        img = np.empty((h, w, 3), np.uint8)
        img[:] = BACKGROUND_RGB
        ev = self.events
        firsts = [s for s, _ in ev.segments] + [len(ev.ranks)]
        for k, (a, b) in enumerate(zip(firsts, firsts[1:])):
            xa, xb = (int(round(self.x0 + s * self.slot_px)) for s in (a, b))
            img[self.y0:self.y1, xa:xb] = BANDS[k % 2]
        for t, _ in self.grid():
            y = self._grid_y(t)
            img[y, self.x0:self.x1] = (70, 72, 80)
        img[self.y0, self.x0:self.x1] = (150, 150, 155)  # the ceiling: the longest event
        self._timeline(img)
        return img

    def grid(self):
        """(duration in the trace's unit, label) of each decade between the floor and
        the ceiling (see duration_label)."""
        ev = self.events
        if ev.instants:
            return []
        scale = MS_PER.get(ev.trace.time_unit, 1.0)
        lo, hi = np.log10(ev.floor * scale), np.log10(ev.ceiling * scale)
        return [(10.0 ** k / scale, self.duration_label(10.0 ** k / scale))
                for k in range(int(np.ceil(lo - 1e-9)), int(np.floor(hi + 1e-9)) + 1)]

    def duration_label(self, d):
        """A duration in the trace's unit, written in ms (s from 1000 ms on; in
        cycles where the trace counts them), 3 digits, thousands in full."""
        per_ms = MS_PER.get(self.events.trace.time_unit)
        if not per_ms:
            return f"{_short(d)} {self.events.trace.time_unit}"
        ms = d * per_ms
        return f"{_short(ms / 1000)} s" if ms >= 1000 else f"{_short(ms)} ms"

    def _timeline(self, img):
        """The events' starts per pixel column, stacked by colour, in the strip."""
        ev = self.events
        w = self.x1 - self.x0
        t0, t1 = self.span
        inside = (ev.start >= t0) & (ev.start <= t1)
        col = np.clip(((ev.start[inside] - t0) / max(t1 - t0, 1e-300) * w).astype(np.int64),
                      0, w - 1)
        n_col = len(ev.palette)
        counts = np.bincount(col * n_col + ev.colour[inside],
                             minlength=w * n_col).reshape(w, n_col)
        top, bottom = self.size[1] - TIMELINE_PX + 4, self.size[1] - 16
        height = bottom - top
        scale = height / max(counts.sum(axis=1).max(), 1)
        acc = np.zeros(w)
        for c in range(n_col):
            lo = bottom - acc * scale
            acc += counts[:, c]
            hi = bottom - acc * scale
            for x in np.flatnonzero(counts[:, c]):
                img[int(round(hi[x])):int(round(lo[x])), self.x0 + x] = ev.palette[c]
        img[bottom, self.x0:self.x1] = (90, 90, 96)
        self._strip = (top, bottom)

    def now_x(self, now):
        t0, t1 = self.span
        return int(round(self.x0 + (now - t0) / max(t1 - t0, 1e-300) * (self.x1 - self.x0 - 1)))

    def on_timeline(self, y):
        """Is pixel row `y` (from the top) in the timeline strip?"""
        return y >= self.size[1] - TIMELINE_PX

    def time_at(self, x):
        """The time under pixel column `x` of the timeline, within its span."""
        t0, t1 = self.span
        return min(max(t0 + (x - self.x0) / max(self.x1 - self.x0 - 1, 1) * (t1 - t0), t0), t1)

    def _now_line(self, img, now):
        x = min(max(self.now_x(now), self.x0), self.x1 - 1)
        top, bottom = self._strip
        img[top - 2:bottom + 1, x] = TEXT_RGB_255

    def texts(self, now):
        """(x, y from the bottom, text, justify, valign) written over a frame."""
        ev, h = self.events, self.size[1]
        tr = ev.trace
        unit = tr.unit()
        out = [(10, h - 6, f"{tr.name}   now {now:.6g} {unit}   {len(ev.ranks)} "
                f"{ev.slot_word}, {len(ev.rows)} events   particles rise with the log of "
                "their age", "left", "top")]
        for t, label in self.grid():  # (not over the ceiling's label)
            y = self._grid_y(t)
            if y - self.y0 >= 14 and self.y1 - y >= 14:
                out.append((self.x0 - 6, h - y, label, "right", "center"))
        if ev.instants:  # no duration: no scale
            out.append((self.x0 - 6, h - self.y1 + 2, "all instants", "right", "bottom"))
        else:
            out.append((self.x0 - 6, h - self.y0, f"max {self.duration_label(ev.ceiling)}",
                        "right", "center"))
            out.append((self.x0 - 6, h - self.y1 + 2,
                        f"<= {self.duration_label(ev.floor)}", "right", "bottom"))
        # segment names where they fit (every k-th), kept inside the plot
        firsts = [s for s, _ in ev.segments] + [len(ev.ranks)]
        widths = [(b - a) * self.slot_px for a, b in zip(firsts, firsts[1:])]
        longest_name = max(len(name) for _, name in ev.segments)
        every = max(1, int(np.ceil((longest_name * CHAR_PX + 8) / max(min(widths), 1))))
        half, right = longest_name * CHAR_PX / 2, -np.inf
        for k in range(0, len(ev.segments), every):
            a, b = firsts[k], firsts[min(k + every, len(firsts) - 1)]
            x = self.x0 + (a + (b - a) / 2 if every == 1 else a + half / self.slot_px) \
                * self.slot_px
            x = min(max(x, self.x0 + half), self.x1 - half)
            if x - half >= right + 8:  # (the last one, kept inside, may not fit)
                out.append((x, h - self.y1 - 4, ev.segments[k][1], "center", "top"))
                right = x + half
        t0, t1 = self.span
        digits = max(0, int(np.ceil(-np.log10(max(t1 - t0, 1e-300)))) + 3)
        out.append((self.x0, 2, f"{t0:.{digits}f} {unit}", "left", "bottom"))
        out.append((self.x1, 2, f"{t1:.{digits}f} {unit}   event starts by "
                    f"{'call' if ev.mpi else 'value'}", "right", "bottom"))
        return out

    def pick(self, px, py, now, radius=4):
        """The state row of the particle nearest pixel (px, py) (from the top) at
        `now`, within `radius` pixels; None: none."""
        i, x, y, _ = self.particles(now)
        if not len(i):
            return None
        d = np.hypot(x + self.dot / 2 - px, y + self.dot / 2 - py)
        k = int(np.argmin(d))
        return int(self.events.rows[i[k]]) if d[k] <= radius else None


TEXT_RGB_255 = tuple(int(round(c * 255)) for c in TEXT_RGB)
#: About how wide a character of the 12-point texts is, in pixels.
CHAR_PX = 7


def _short(v):
    """3 digits, thousands in full (1,310 not 1.31e+03)."""
    return f"{v:,.0f}" if v >= 1000 else f"{v:.3g}"


@njit(cache=True)
def _record(count, colour_sum, x, y, rgb, dot):
    """Each pixel a particle covers counts it once, and adds its colour."""
    for k in range(len(x)):
        for dy in range(dot):
            for dx in range(dot):
                r, c = y[k] + dy, x[k] + dx
                count[r, c] += 1.0
                for ch in range(3):
                    colour_sum[r, c, ch] += rgb[k, ch]


@njit(cache=True)
def _tone_map(plot, count, colour_sum, o_min, log_max):
    """P = C (O_min + (1 - O_min) ln D / ln D_max) over the plot, C the mean colour
    of what passed over each pixel (D_max 1: every visited pixel at full strength)."""
    for r in range(count.shape[0]):
        for c in range(count.shape[1]):
            d = count[r, c]
            if d > 0:
                p = o_min + (1 - o_min) * (np.log(d) / log_max if log_max > 0 else 1.0)
                for ch in range(3):
                    v = np.float32(plot[r, c, ch])
                    plot[r, c, ch] = np.uint8(v + (colour_sum[r, c, ch] / d - v) * p)


@njit(cache=True)
def _splat(img, x, y, rgb, alpha, dot):
    """Particles as dot x dot squares over `img`: the fading ones first, so that
    those still running are on top."""
    for solid in (False, True):
        for k in range(len(x)):
            a = alpha[k]
            if (a >= 1.0) != solid:
                continue
            for dy in range(dot):
                for dx in range(dot):
                    for ch in range(3):
                        v = np.float32(img[y[k] + dy, x[k] + dx, ch])
                        img[y[k] + dy, x[k] + dx, ch] = np.uint8(v + (rgb[k, ch] - v) * a)


class Canvas:
    """One offscreen render window where frames of events get their texts and
    legend (VTK's text, as in the 3D scene); `close` releases it."""

    def __init__(self):
        from .. import view
        self.window, self.renderer = view.offscreen_window(16, 16)
        self._grab = view.grabber(self.window)
        self._size = self._texts = self._image = None

    def draw(self, picture, now, record=True):
        """The frame of `picture` at `now` with its texts and legend: (h, w, 3) uint8."""
        from vtkmodules.util.numpy_support import numpy_to_vtk
        from vtkmodules.vtkCommonDataModel import vtkImageData
        from vtkmodules.vtkRenderingCore import vtkActor2D, vtkImageMapper
        from .. import view
        from ..scene.overlay import Legend, text_actor, text_size
        img = picture.draw(now, record)
        w, h = picture.size
        self.window.MakeCurrent()
        try:
            if self._size != (w, h, id(picture)) or self._image is None:
                self.renderer.RemoveAllViewProps()
                self.window.SetSize(w, h)
                self._data = vtkImageData()
                self._data.SetDimensions(w, h, 1)
                mapper = vtkImageMapper()
                mapper.SetInputData(self._data)
                mapper.SetColorWindow(255.0)
                mapper.SetColorLevel(127.5)
                self._image = vtkActor2D()
                self._image.SetMapper(mapper)
                self.renderer.AddViewProp(self._image)
                if picture.legend_px:
                    legend = Legend(lambda p: (self.renderer.AddViewProp(p), p)[1],
                                    text_size)
                    legend.set(picture.events.keys)
                    legend.place(w, h - TOP_PX + 10)
                self._texts, self._size = [], (w, h, id(picture))
            flat = np.ascontiguousarray(img[::-1]).reshape(-1, 3)  # VTK's rows: bottom first
            arr = numpy_to_vtk(flat, deep=True)
            self._data.GetPointData().SetScalars(arr)
            self._data.Modified()
            texts = picture.texts(now)
            while len(self._texts) < len(texts):
                a = text_actor(12)
                self.renderer.AddViewProp(a)
                self._texts.append(a)
            for a, t in zip(self._texts, texts + [None] * (len(self._texts) - len(texts))):
                a.SetVisibility(t is not None)
                if t is not None:
                    x, y, text, justify, valign = t
                    p = a.GetTextProperty()
                    {"left": p.SetJustificationToLeft, "right": p.SetJustificationToRight,
                     "center": p.SetJustificationToCentered}[justify]()
                    {"bottom": p.SetVerticalJustificationToBottom,
                     "top": p.SetVerticalJustificationToTop,
                     "center": p.SetVerticalJustificationToCentered}[valign]()
                    a.SetInput(text)
                    a.SetPosition(x, y)
            return view.snapshot(self.window, self._grab)
        finally:
            self.window.ReleaseCurrent()

    def close(self):
        self.window.Finalize()
