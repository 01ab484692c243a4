"""Two runs side by side (issue 32.3): run A on the left, B on the right, each on
its own base from the same settings, both read from their own start. `normalised`:
each run's time over the same height (a window, a "now" and the unfolding taken as
offsets from each run's start, scaled to its length); `absolute`: the same seconds
at the same height, through one camera (the longer run's), so the shorter run
stands lower. The ViewState says which (`side_by_side`) and holds B (`compare`)."""
import numpy as np

from .errors import OptionsError
from .viewstate import SCALES


class SideBySide:
    """Views of runs `a` and `b` under `state` (its `side_by_side` mode, its `compare`
    naming b), each of `size` (the picture twice as wide: each keeps its legend)."""

    def __init__(self, a, b, state, size=(1280, 720), quality="fast"):
        from .view import View
        if state.side_by_side is None:
            raise OptionsError("side by side: choose normalised or absolute time")
        if state.color_by.startswith("difference"):
            raise OptionsError("side by side, each run is coloured by its own values: colour "
                               "by difference shows B - A on one run instead")
        self.runs, self.state = (a, b), state
        self._colours = {}
        self.views = [View(a, self._state_of(0), size=size, quality=quality)]
        self._colours = self._a_colours()
        self.views.append(View(b, self._state_of(1), size=size, quality=quality))

    def _a_colours(self):
        """A's colours of the state values and variables B also has, by name: a value
        reads the same on both sides."""
        g, b = self.views[0].scene.geometry, self.runs[1]
        same = {}
        for rgb, table in ((g.value_rgb, "values"), (g.type_rgb, "types")):
            for i in range(len(rgb)):
                name = g.trace.display_name(table, i)
                if len(b.find(table, name)):
                    same[name] = "#%02x%02x%02x" % tuple(int(c) for c in rgb[i])
        return same

    def _span(self, i):
        """Run i's start (its first activity, as compare reads it) and length."""
        from .analysis.compare import run_start
        run = self.runs[i]
        start = run_start(run)
        return start, run.end_time - start

    def _per(self, i):
        """How many of run i's units of time one of A's makes (1 where the state names
        the unit of both)."""
        from .analysis.compare import per_unit
        return per_unit(self.runs[0], self.runs[i], self.state.time_unit) if i else 1.0

    def _state_of(self, i):
        """Run i's own ViewState: the shared one, its times moved to run i's start
        (and scaled to its length when normalised), no second run; absolute, its
        height over the same seconds as the other's."""
        s = self.state.copy()
        s.update(compare=None, side_by_side=None,
                 colors={**self._colours, **self.state.colors} if i else self.state.colors)
        start, length = self._span(i)
        a_start, a_length = self._span(0)
        absolute = self.state.side_by_side == "absolute"
        k = self._per(i) if absolute else 1.0  # (run i's units in one of A's)
        # a time of A read in run i: the same seconds, or the same share of its length
        ratio = k if absolute else 1.0 if a_length <= 0 else length / a_length
        if s.intervals is not None:  # (durations in run i's unit: the units must convert)
            to = self._per(i)
            s.intervals = (s.intervals[0], s.intervals[1] * to, s.intervals[2] * to)

        def moved(t):
            return start + (t - a_start) * ratio
        # each run from its first activity (its containers may begin long before)
        s.window = (start, start + length) if s.window is None or length <= 0 else \
            tuple(moved(t) for t in s.window)
        if s.now is not None:
            s.now = moved(s.now)
        if absolute and self.state.window is None:  # each run whole: the longer is taller
            length /= k  # (in A's unit)
            longest = max(a_length, self._span(1)[1] / self._per(1))
            if length <= 0:
                raise OptionsError(f"{self.runs[i].source}: the run has no length to draw "
                                   "at the same seconds as the other")
            if self.state.scale * length / longest < SCALES[0]:
                raise OptionsError(
                    f"{self.runs[i].source}: {longest / length:.3g} times shorter than the "
                    f"other run, it would be drawn at a time scale of "
                    f"{self.state.scale * length / longest:.3g}, below {SCALES[0]:g} (see "
                    "--side-by-side normalised, or a larger --scale)")
            s.scale = self.state.scale * length / longest
        return s

    def _cameras(self):
        """Absolute time: both views through the camera fitted to the longer run."""
        if self.state.side_by_side != "absolute" or self.state.camera is not None:
            return
        longer = int(np.argmax([self._span(k)[1] / self._per(k) for k in range(2)]))
        cam = self.views[longer].fitted_camera()
        for v in self.views:
            v.state.camera = cam

    def render(self, state=None):
        """Both frames side by side, (h, w, 3) uint8; under `state` (a movie's) if given."""
        if state is not None:
            self.state = state
            for i, v in enumerate(self.views):
                v.state.assign(self._state_of(i))
        self._cameras()
        return np.hstack([v.render() for v in self.views])

    def save(self, path):
        from .output import write_image
        return write_image(self.render(), path)

    def summary(self):
        return " | ".join(f"{v.trace.source}: {v.summary()}" for v in self.views)

    def warnings(self):
        return [f"{v.trace.source}: {line}" for v in self.views for line in v.warnings()]

    def notes(self):
        return [f"{v.trace.source}: {line}" for v in self.views for line in v.notes()]

    def close(self):
        for v in self.views:
            v.close()
