"""Two runs' differences drawn (issue 32.5): the difference treemap, the Time-Slice
treemap of B, laid out by B's numbers, each cell coloured by B - A (the same
container by name, or through a mapping, and the same value) on a diverging map,
blue where B holds less, red where it holds more, grey for no change (or none in
A), written as any treemap; and the difference call tree, B's Sankey coloured by
B - A per call path, written as any Sankey. A window is in A's unit of time, from
each run's start; A's numbers are brought to B's unit.
"""
import numpy as np

from .. import colors
from ..analysis.compare import difference_span, from_start, moved, per_unit
from .sankey import Sankey
from .treemap import TimeSliceTreemap


class DifferenceTreemap(TimeSliceTreemap):
    """B's treemap (`b`, `window` from each run's own start, `level`, `how`, `metric`,
    `values` as TimeSliceTreemap's) with the differences to `a`."""

    def __init__(self, a, b, window=None, mapping=None, **options):
        wa = from_start(a, window)
        base = TimeSliceTreemap(a, window=wa, **options)
        super().__init__(b, window=moved(wa, a, b), **options)
        self.window = window
        to_b = {k: v for k, v in (mapping or {}).items()}
        scale = per_unit(a, b) ** self.time_power  # (A's numbers in B's unit)
        numbers = {}
        for i, c in enumerate(base.containers):
            name = a.display_name("containers", int(c))
            numbers[to_b.get(name, name)] = {v: x * scale
                                             for v, x in base.node_numbers(i).items()}
        d = np.full(len(self.cell_rects), np.nan)
        for j in range(len(self.cell_rects)):
            node = self.cell_node[j]
            there = numbers.get(self.name_of(node))
            if there is not None:
                d[j] = self.cell_number(j) - there.get(self.value_names[self.cell_col[j]], 0.0)
        self.difference = d
        b_numbers = np.array([self.cell_number(j) for j in range(len(d))])
        self.span = difference_span(d, b_numbers, b_numbers - d)
        self.a = a
        #: (node, value, A's number) of what A holds and B gives no area: not drawn
        in_b = {self.name_of(int(n)) for n in np.unique(self.cell_node)}
        self.only_a = [(name, v, x) for i, c in enumerate(self.containers)
                       if (name := self.name_of(i)) in in_b
                       for v, x in numbers.get(name, {}).items()
                       if x > 0 and not self.node_numbers(i).get(v, 0) > 0]

    def cell_rgb(self):
        """(cells, 3): B - A of each cell on the diverging map (EMPTY: not in A)."""
        return colors.diverging(self.difference / self.span if self.span > 0
                                else np.where(np.isnan(self.difference), np.nan, 0.0))

    def title(self):
        _, span, what = super().title().split("   ", 2)
        if self.window is None:  # (B's span is not A's: each run is read whole)
            span = "each run whole"
        return f"{self.trace.name} minus {self.a.name}   {span}   {what}"

    def labels(self):
        """The nodes' names at their tops, and in each cell its value and B - A (the
        colours no longer say which value a cell is)."""
        rgb = self.cell_rgb()
        dark = colors.contrast(rgb, np.zeros(3)) > colors.contrast(rgb, np.full(3, 255))
        cells = [(self.cell_rects[j], f"{self.value_names[self.cell_col[j]]}\n"
                  + ("not in A" if np.isnan(d) else f"{d:+.3g}"), 0 if dark[j] else 255,
                  False) for j, d in enumerate(self.difference.tolist())]
        c = self.cell_rects
        names = []
        for r, text, ink, _ in super().labels():  # (ink: by the cell under the top)
            x, y = r[0] + r[2] / 2, r[1] + r[3] * 0.97
            under = np.flatnonzero((c[:, 0] <= x) & (x <= c[:, 0] + c[:, 2])
                                   & (c[:, 1] <= y) & (y <= c[:, 1] + c[:, 3]))
            names.append((r, text, (0 if dark[under[-1]] else 255) if len(under) else ink,
                          True))
        return names + cells

    def cell_tip(self, j):
        d = self.difference[j]
        return super().cell_tip(j) + ("; not in A" if np.isnan(d) else
                                      f"; B - A {d:+.6g} (A {self.cell_number(j) - d:.6g})")

    def legend_entries(self):
        stops = np.linspace(-1, 1, 5)
        keys = [(f"B - A {x * self.span:+.3g} {self.unit}", rgb)
                for x, rgb in zip(stops, colors.diverging(stops))] if self.span > 0 else \
            [("B - A: no change (none above rounding)", colors.diverging(np.zeros(1))[0])]
        missing = int(np.isnan(self.difference).sum())
        if missing:
            keys.append((f"{_cells(missing)} not in A", np.array(colors.EMPTY, np.uint8)))
        top = max(self.only_a, key=lambda x: x[2], default=None)
        gone = [(f"{_cells(len(self.only_a))} of A not drawn (no area in B), the largest "
                 f"{top[0]} {top[1]} -{top[2]:.3g} {self.unit}", None)] if top else []
        return keys + [(line, None) for line in self.left_out] + gone + [
            (f"cells: value, B - A ({self.unit})", None),
            (f"area: {self.unit} in B ({self.how}{self.time_kind}), {self.t0:.6g} .. "
             f"{self.t1:.6g}", None)]


def _cells(n):
    return f"{n} cell" + ("" if n == 1 else "s")


class DifferenceSankey(Sankey):
    """The difference call tree (CallFlow section 7.4): B's Sankey (its call paths,
    heights by B's inclusive time) with each node coloured by B - A of the same call
    path's inclusive time (`how` over the containers), on the diverging map scaled
    to the largest difference; a path A lacks counts A as 0. `window` from each
    run's own start."""

    def __init__(self, a, b, window=None, how="sum", threshold=0.01):
        from ..analysis.calltree import calltree
        wa = from_start(a, window)
        ta = calltree(a, window=wa)
        paths, _, inc, _ = ta.merged(how)
        k = per_unit(a, b)  # (A's times in B's unit)
        self.a_inclusive = {ta.text(int(p)): float(v) * k for p, v in zip(paths, inc)}
        super().__init__(calltree(b, window=moved(wa, a, b)), how=how, threshold=threshold)
        self.a_of = np.array([self.a_inclusive.get(self.tree.text(int(p)), 0.0)
                              for p in self.paths])
        self.difference = self.inclusive - self.a_of
        self.span = difference_span(self.difference, self.inclusive, self.a_of)
        #: paths A holds that B does not (not drawn: B's tree)
        in_b = {self.tree.text(int(p)) for p in self.tree.merged(how)[0]}
        self.only_a = sorted(set(self.a_inclusive) - in_b)

    def rgb(self):
        top = self.span
        return colors.diverging(self.difference / top if top > 0 else self.difference * 0)

    def tip(self, i):
        unit = self.tree.trace.unit()
        return (f"{super().tip(i)}; B - A {self.difference[i]:+.6g} {unit} (A "
                f"{self.a_of[i]:.6g}, B {self.inclusive[i]:.6g})")

    def title(self):
        top, unit = self.span, self.tree.trace.unit()
        return (f"{super().title()}   colour: B - A inclusive, "
                + (f"blue -{top:.3g} .. red +{top:.3g} {unit}" if top > 0 else
                   "no change (none above rounding)")
                + (f"   ({len(self.only_a)} paths of A only)" if self.only_a else ""))
