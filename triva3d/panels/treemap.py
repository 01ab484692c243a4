"""The Time-Slice treemap (Triva's second model): a slice of the trace, aggregated
to a level of the container hierarchy, as a squarified treemap.

The nodes at the chosen level are split into cells, one per (node, value): state
values (seconds), variable types (time integral), links out and in (`link`: bytes,
or counts when the links carry no Size; `link:M` any measure M of the Time-Slice of
links, eqs. 4.4-4.5: count, bytes, time, throughput, rate, peers) or event values
(counts), each the aggregate
(sum, max, min or mean) over the node's subtree. Cell areas are proportional to
those numbers; the levels above frame them with borders.

TimeSliceTreemap is the model: numbers, rectangles, labels, colours, and what is
under a point with the numbers of every level. The writers are functions of it:
CSV (long form, one row per node, metric and value name, with the numbers' unit),
SVG (vector, for papers), and a VTK picture (a Canvas, reused; PNG or JPEG).
"""
import csv
import html

import numpy as np

from .. import colors
from ..analysis import CELLS as METRICS, FUNCTIONS, LINK_MEASURES, LINK_TIME_POWER
from ..analysis.aggregate import aggregate
from ..analysis.metrics import link_sizes
from ..analysis.timeslice import SIZED, Slicer
from ..bases.treemap import treemap
from ..trace import depth_of
from ..errors import OptionsError
from ..output import writing
from ..theme import BACKGROUND_RGB, SELECTION_RGB, TEXT_RGB
from ..trace import Kind
from . import SIZE

LINK_RGB = {"out": (230, 120, 60), "in": (70, 150, 220)}
LABEL_PX = 12  # label font size in pixels


def _grouped(matrix, names, wanted, trace, hidden=()):
    """Columns merged by display name (values of several types may share one),
    restricted to `wanted` names when given, less the `hidden` ones, in order of
    first appearance."""
    order = list(dict.fromkeys(names))
    if wanted:
        missing = [w for w in wanted if w not in order]
        if missing:
            raise OptionsError(f"{trace.source}: no value named {missing[0]!r} here "
                               f"(have: {', '.join(order[:12])})")
        order = [w for w in order if w in wanted]
    order = [o for o in order if o not in hidden]
    names = np.array(names, dtype=object)
    return (np.stack([matrix[:, names == o].sum(axis=1) for o in order], axis=1)
            if order else np.zeros((len(matrix), 0))), order


class TimeSliceTreemap:
    """The treemap of `trace` over `window` (t0, t1) at `level` (type name or depth;
    None: the leaves), aggregated with `how`, of `metric` cells (`values`: names to
    keep), laid out in a `width` x `height` box, in the colours of a 3D scene
    (`palette`: its value and type colours; default: a scene's without overrides);
    states' times `nested` "exclusive" (default) or "inclusive" (see Slicer), in
    `time_unit` (default: the trace's, Trace.unit); `hidden`: value or type names
    not drawn (the 3D view's filters), said in the notes; `color_by` (state cells:
    see analysis.colorby; `other`, the second run of a difference) colours each
    cell by the time-weighted mean of that metric over its states instead of by
    its value."""

    def __init__(self, trace, window=None, level=None, how="sum", metric="state", values=None,
                 width=1000.0, height=1000.0, pad=None, slicer=None, palette=None,
                 nested="exclusive", time_unit=None, hidden=(), color_by="value",
                 other=None):
        if metric not in METRICS:
            raise OptionsError(f"treemap metric must be one of {', '.join(METRICS)}, "
                               f"not {metric!r}")
        if how not in FUNCTIONS:
            raise OptionsError(f"aggregation must be one of {', '.join(FUNCTIONS)}, not {how!r}")
        self.trace, self.how, self.metric = trace, how, metric
        slicer = slicer if slicer is not None and slicer.nested == nested \
            else Slicer(trace, nested)
        cells, _, measure = metric.partition(":")
        if cells == "link":
            measure = measure or ("bytes" if slicer.has_sizes else "count")
            if measure in SIZED and not slicer.has_sizes and link_sizes(trace).links:
                raise OptionsError(f"{trace.source}: the trace's links carry no Size field, "
                                   f"so no link {measure}")
        sl = slicer.slice(window)
        self.t0, self.t1 = sl.t0, sl.t1
        name = trace.names.display
        types = trace.types
        # the 3D scene's colours: its (value_rgb, type_rgb) `palette`, else the default
        value_rgb, type_rgb = palette if palette is not None else colors.scene_palette(trace)[:2]
        self.notes = []
        if cells == "state":
            names = [name(trace.values.name[v]) for v in slicer.state_values]
            matrix, carriers_of = sl.states, trace.values.type[slicer.state_values]
            rgb = value_rgb[slicer.state_values]
        elif cells == "event":
            names = [name(trace.values.name[v]) for v in slicer.event_values]
            matrix, carriers_of = sl.events, trace.values.type[slicer.event_values]
            rgb = value_rgb[slicer.event_values]
        elif cells == "variable":
            vt = slicer.variable_types  # the columns of sl.integral
            names = [name(types.name[t]) for t in vt]
            if not values:  # areas of different units never add: one type, a usage
                from ..analysis.roles import variable_roles  # (not a capacity) first
                drawn = variable_roles(trace).drawn
                total = sl.integral.sum(axis=0)
                order = sorted(range(len(vt)), key=lambda i: (not drawn[vt[i]], total[i] <= 0))
                have = list(dict.fromkeys(names[i] for i in order if total[i] > 0))
                if len(have) > 1:
                    self.notes.append(f"cells of one variable type at a time: {have[0]} "
                                      f"(the others: {', '.join(have[1:])})")
                values = have[:1]
            elif len(set(values)) > 1:
                raise OptionsError("variable cells of different types do not add up: "
                                   "name one type")
            matrix, carriers_of, rgb = sl.integral, vt, type_rgb[vt]
        else:
            col = LINK_MEASURES.index(measure)
            names = ["out", "in"]
            matrix = np.c_[sl.links_out[:, col], sl.links_in[:, col]]
            lt = np.flatnonzero(types.kind == Kind.LINK)
            carriers_of = np.r_[types.start_type[lt], types.end_type[lt]]
            rgb = np.array([LINK_RGB["out"], LINK_RGB["in"]], np.uint8)
        #: the unit of times, and of the cells' numbers
        self.time_unit = unit = trace.unit(time_unit)
        self.unit = {"state": unit, "event": "events", "variable": f"value x {unit}",
                     "link": {"count": "links", "bytes": "bytes", "time": unit,
                              "throughput": f"bytes/{unit}", "rate": f"bytes/{unit}",
                              "peers": "peers"}.get(measure)}[cells]
        #: the power of time in that unit (how the numbers scale with the unit of time)
        self.time_power = LINK_TIME_POWER[measure] if cells == "link" else \
            {"state": 1, "event": 0, "variable": 1}[cells]
        self.cells = cells
        #: states' seconds say whether nested states' time is in their parents'
        self.time_kind = f"; {slicer.nested} time" if cells == "state" else ""
        self.matrix, self.value_names = _grouped(matrix, names, values, trace, hidden)
        gone = [h for h in dict.fromkeys(names) if h in hidden]
        if gone:
            self.notes.append(f"hidden: {', '.join(gone)}")
        first = {n: i for i, n in reversed(list(enumerate(names)))}
        self.value_rgb = np.array([rgb[first[n]] for n in self.value_names],
                                  np.uint8).reshape(-1, 3)
        cont_types = types.parent[carriers_of] if cells != "link" else carriers_of
        carriers = np.isin(trace.containers.type, cont_types)
        self.numbers = aggregate(trace, self.matrix, carriers, how)
        self.level_name = level
        rows = trace.level(level)
        if not len(rows):
            raise OptionsError(f"{trace.source}: no container at level {level!r}")
        self._layout(rows, width, height, pad)
        drawn = np.isin(np.array(names, dtype=object), self.value_names)  # the kept cells'
        self.left_out = self._left_out(rows, carriers if cells == "link" else np.isin(
            trace.containers.type, types.parent[np.asarray(carriers_of)[drawn]]))
        if self.left_out:
            self.notes.append(f"{self.left_out[0]}: {'; '.join(self.left_out[1:])}")
        #: the colour-by metric (None: cells in their values' colours) and per cell
        #: its mean over the cell's states
        self.color_metric = self.cell_metric = None
        if color_by != "value":
            self._color_cells(color_by, window, slicer, other, rows, time_unit)

    def _color_cells(self, color_by, window, slicer, other, rows, unit):
        from ..analysis import colorby
        if self.cells != "state":
            raise OptionsError("colour by applies to state cells, not "
                               f"{self.cells} cells")
        tr = self.trace
        whole = color_by.startswith("difference:") and window is None  # two runs whole
        m = colorby.per_state(tr, color_by, None if whole else (self.t0, self.t1), slicer,
                              other, unit)
        is_level = np.zeros(len(tr.containers), bool)
        is_level[rows] = True
        up = colorby.nearest_carrier(tr.containers.parent, is_level)
        index = np.full(len(tr.containers), -1)
        index[self.containers] = np.arange(len(self.containers))
        node_of = np.where(up >= 0, index[np.maximum(up, 0)], -1)
        col = {n: i for i, n in enumerate(self.value_names)}
        columns = np.array([col.get(tr.display_name("values", v), -1)
                            for v in range(len(tr.values))], np.int64)
        means = colorby.per_cell(m, tr, (self.t0, self.t1), node_of, columns)
        padded = np.full((len(self.containers), len(self.value_names)), np.nan)
        padded[:means.shape[0], :means.shape[1]] = means
        self.color_metric = m
        self.cell_metric = padded[self.cell_node, self.cell_col]

    def _layout(self, level, width, height, pad):
        """Tree = the level's containers, their ancestors, and their cells."""
        parent = self.trace.containers.parent
        n = len(parent)
        at_level = np.zeros(n)
        at_level[level] = 1.0
        # the level and its ancestors: a level node in the subtree (one upward pass)
        keep = aggregate(self.trace, at_level, np.ones(n, bool), "max") > 0
        self.containers = np.flatnonzero(keep)  # increasing: parents first
        index = np.full(n, -1)
        index[self.containers] = np.arange(len(self.containers))
        level_node = index[level]
        k = len(self.value_names)
        sizes = np.nan_to_num(self.numbers[level]).clip(min=0)
        cell_node = np.repeat(level_node, k)
        cell_col = np.tile(np.arange(k), len(level))
        cell_size = sizes.ravel()
        nz = cell_size > 0
        self.cell_node, self.cell_col = cell_node[nz], cell_col[nz]
        nc = len(self.containers)
        tree_parent = np.r_[np.where(index[parent[self.containers]] < 0, -1,
                                     index[parent[self.containers]]), self.cell_node]
        tree_parent[0] = -1
        own = np.r_[np.zeros(nc), cell_size[nz]]
        pad = 0.003 * min(width, height) if pad is None else pad
        rects, self.area_value = treemap(tree_parent, own, width, height, pad)
        self.node_rects, self.cell_rects = rects[:nc], rects[nc:]
        self.node_depth = depth_of(tree_parent[:nc])
        self.level = level
        self.width, self.height = float(width), float(height)

    def _left_out(self, level, carriers):
        """Short lines on the level's containers drawn nowhere: how many, then by type
        those holding nothing in the slice and those whose type never holds the
        metric; none if all are drawn."""
        tr = self.trace
        empty = level[np.nan_to_num(self.numbers[level]).clip(min=0).sum(axis=1) <= 0]
        if not len(empty):
            return []
        below = aggregate(tr, carriers.astype(float), carriers, "max")[empty] > 0
        held = np.nan_to_num(aggregate(tr, np.nan_to_num(self.matrix).clip(min=0).sum(
            axis=1), carriers, "max"))[empty] > 0  # (something below, where a min is 0)

        def by_type(rows):
            names, count = np.unique([tr.display_name("types", t) for t in
                                      tr.containers.type[rows]], return_counts=True)
            return ", ".join(f"{n} {c}" for n, c in zip(names, count))
        out = [f"{len(empty)} of {len(level)} not drawn"]
        zero = ("min 0: a container below holds nothing in the slice" if self.how == "min"
                else f"{self.how} 0 or below: values below 0 cancel the others")
        for rows, what in ((empty[below & ~held], "nothing in the slice"),
                           (empty[below & held], zero)):
            if len(rows):
                out.append(f"{by_type(rows)}: {what}")
        if (~below).any():
            what = {"variable": ", ".join(self.value_names), "link": "a message end",
                    "event": "an event"}.get(self.cells, f"a {self.cells}")
            out.append(f"{by_type(empty[~below])}: never {what}")
        return out

    # -- reading -----------------------------------------------------------------
    def name_of(self, node):
        return self.trace.display_name("containers", self.containers[node])

    def node_of(self, container):
        """The tree node of container row `container`, or None if not drawn."""
        hits = np.flatnonzero(self.containers == container)
        return int(hits[0]) if len(hits) else None

    def find(self, name):
        """The tree node of the container named `name` (OptionsError if none)."""
        hits = np.flatnonzero(np.isin(self.containers, self.trace.find("containers", name)))
        if not len(hits):
            raise OptionsError(f"no node {name!r} in the treemap")
        return int(hits[0])

    def node_numbers(self, node):
        """{value name: aggregated number} of tree node `node`."""
        row = self.numbers[self.containers[node]]
        return {v: float(x) for v, x in zip(self.value_names, row) if not np.isnan(x)}

    def describe(self, node):
        """One line on tree node `node`: its name, type and numbers (most first),
        with the unit, aggregation and slice."""
        tr = self.trace
        c = self.containers[node]
        nums = sorted(self.node_numbers(node).items(), key=lambda kv: -kv[1])
        return (f"{self.name_of(node)} ({tr.display_name('types', int(tr.containers.type[c]))}):"
                f" {', '.join(f'{k} {v:.6g}' for k, v in nums) or 'nothing'}"
                f" [{self.unit}, {self.how}{self.time_kind}, {self.t0:.6g}..{self.t1:.6g}]")

    def cell_number(self, cell):
        """The number cell `cell` stands for."""
        return self.numbers[self.containers[self.cell_node[cell]], self.cell_col[cell]]

    def ancestors(self, node):
        """Tree nodes from `node` up to the root."""
        parent = self.trace.containers.parent
        out, c = [], self.containers[node]
        index = {int(x): i for i, x in enumerate(self.containers)}
        while c >= 0:
            out.append(index[int(c)])
            c = parent[c]
        return out

    def node_at(self, x, y):
        """(tree node, cell or None) at (x, y) (origin bottom left): the cell's node,
        else the deepest node there; None outside."""
        def inside(r):
            return (r[:, 0] <= x) & (x <= r[:, 0] + r[:, 2]) & (r[:, 1] <= y) & (y <= r[:, 1] + r[:, 3])
        cells = np.flatnonzero(inside(self.cell_rects))
        if len(cells):
            return int(self.cell_node[cells[0]]), int(cells[0])
        nodes = np.flatnonzero(inside(self.node_rects))
        return (int(nodes[np.argmax(self.node_depth[nodes])]), None) if len(nodes) else None

    def pick(self, x, y):
        """What is at (x, y) (origin bottom left): the deepest node, the cell's value
        name (or None) and the node's numbers; None outside."""
        hit = self.node_at(x, y)
        if hit is None:
            return None
        node, cell = hit
        return {"node": self.name_of(node), "container": int(self.containers[node]),
                "value": None if cell is None else self.value_names[self.cell_col[cell]],
                "numbers": self.node_numbers(node),
                "path": [self.name_of(a) for a in reversed(self.ancestors(node))]}

    def warnings(self):
        """Lines for an empty treemap."""
        if len(self.cell_rects):
            return []
        where = f"{self.t0:.9g}..{self.t1:.9g}"
        total = float(np.nan_to_num(self.matrix).clip(min=0).sum())
        if total <= 0:
            return [f"the treemap is empty: no {self.metric} in {where}"]
        level = "its leaves" if self.level_name is None else f"level {self.level_name}"
        return [f"the treemap is empty: no {self.metric} ({self.how}) at {level} in {where}, "
                f"though the slice holds {total:.6g} {self.unit} of it (on containers above "
                f"the level{', or the ' + self.how + ' over containers holding none' if self.how != 'sum' else ''})"]

    def title(self):
        level = "the leaves" if self.level_name is None else self.level_name
        return (f"{self.trace.name}   {self.t0:.6g} .. {self.t1:.6g} {self.time_unit}   "
                f"{self.metric} "
                f"({self.how}) at {level}")

    def legend_entries(self):
        """(text, rgb) of the cells' values, and a line on what the areas measure."""
        keys = {"out": "out (sent)", "in": "in (received)"} if self.cells == "link" else {}
        if self.metric == "link:peers":
            keys = {"out": "out (destinations)", "in": "in (sources)"}
        drawn = np.unique(self.cell_col)
        if self.color_metric is not None:
            shown = colors.metric_keys(self.color_metric, self.time_unit)
        else:
            shown = [(keys.get(self.value_names[k], self.value_names[k]), self.value_rgb[k])
                     for k in drawn]
        return (shown
                + [(line, None) for line in self.left_out]
                + [(f"area: {self.unit} ({self.how}{self.time_kind}), {self.t0:.6g} .. "
                    f"{self.t1:.6g}", None)])

    def node_rgb(self):
        """(n, 3) uint8: each node's grey, lighter the deeper."""
        maxd = max(1, int(self.node_depth.max()))
        shade = (40 + 100 * self.node_depth / maxd).astype(np.uint8)
        return np.repeat(shade[:, None], 3, axis=1)

    def cell_rgb(self):
        """(cells, 3) uint8: each cell's value colour, or its colour-by metric's."""
        if self.color_metric is not None:
            return colors.metric_rgb(self.color_metric, self.cell_metric).reshape(-1, 3)
        return self.value_rgb[self.cell_col].reshape(-1, 3)

    def labels(self):
        """(rect, text, ink, top) of what is written where it fits, in black or white
        (ink 0 or 255), at the top of its rect or at its centre (`top` false): here
        the names of the nodes holding cells, at their centres, the ink whichever
        contrasts more with the cell under that centre."""
        nodes = np.unique(self.cell_node)
        rgb = self.node_rgb()  # the node's own grey, else
        nr, r = self.node_rects, self.cell_rects
        cx, cy = (nr[:, 0] + nr[:, 2] / 2)[self.cell_node], (nr[:, 1] + nr[:, 3] / 2)[self.cell_node]
        under = np.flatnonzero((r[:, 0] <= cx) & (cx <= r[:, 0] + r[:, 2])
                               & (r[:, 1] <= cy) & (cy <= r[:, 1] + r[:, 3]))
        rgb[self.cell_node[under]] = self.cell_rgb()[under]  # the cell there
        rgb = rgb[nodes]
        dark = colors.contrast(rgb, np.zeros(3)) > colors.contrast(rgb, np.full(3, 255))
        return [(nr[n], self.name_of(n), int(ink), False)
                for n, ink in zip(nodes, np.where(dark, 0, 255))]

    def cell_tip(self, j):
        """The tooltip of cell `j`."""
        return (f"{self.name_of(self.cell_node[j])} / {self.value_names[self.cell_col[j]]}: "
                f"{self.cell_number(j):.6g} {self.unit}")

    def rows(self):
        """Long-form rows: node, type, parent, depth, metric, value, number."""
        tr = self.trace
        name = tr.names.display
        out = []
        for i, c in enumerate(self.containers):
            p = tr.containers.parent[c]
            for v, x in self.node_numbers(i).items():
                out.append((name(tr.containers.name[c]), name(tr.types.name[tr.containers.type[c]]),
                            name(tr.containers.name[p]) if p > 0 else "", int(self.node_depth[i]),
                            f"{self.metric}:{self.how}", v, x))
        return out


# -- writers ---------------------------------------------------------------------
def write_csv(tm, path):
    with writing(path, newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["node", "type", "parent", "depth", "metric", "value", "number", "unit"])
        w.writerows((a, b, c, d, e, f_, repr(float(x)), tm.unit)
                    for a, b, c, d, e, f_, x in tm.rows())


def _css(rgb):
    """An SVG colour of 0..255 RGB."""
    r, g, b = (int(v) for v in rgb)
    return f"rgb({r},{g},{b})"


def write_svg(tm, path, highlight=None, font=11.0):
    """Vector image on the scene's background: cells in their colours, node borders
    (thicker for upper levels), labels where they fit, a tooltip with the numbers
    on every shape."""
    W, H = tm.width, tm.height
    entries = [(tm.title(), None), ("", None)] + tm.legend_entries()
    key_w = 16 + 0.6 * font * max(len(t) for t, _ in entries) + 24
    lines = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W + key_w:g}" '
             f'height="{H:g}" viewBox="0 0 {W + key_w:g} {H:g}" font-family="sans-serif" '
             f'font-size="{font:g}">',
             f'<rect width="{W + key_w:g}" height="{H:g}" '
             f'fill="{_css(BACKGROUND_RGB)}"/>']
    text_fill = _css(np.round(np.array(TEXT_RGB) * 255))
    for k, (text, rgb) in enumerate(entries):
        y = 10 + k * (font + 6)
        if rgb is not None:
            lines.append(f'<rect x="{W + 10:g}" y="{y:g}" width="{font:g}" '
                         f'height="{font:g}" fill="{_css(rgb)}"/>')
        lines.append(f'<text x="{W + 16 + font:g}" y="{y + font - 1:g}" fill="{text_fill}">'
                     f'{html.escape(text)}</text>')
    hi = set(tm.ancestors(highlight)) if highlight is not None else set()
    for i, ((x, y, w, h), grey) in enumerate(zip(tm.node_rects, tm.node_rgb())):
        tip = html.escape(f"{tm.name_of(i)}: " + ", ".join(
            f"{k} {v:.6g}" for k, v in tm.node_numbers(i).items()))
        stroke = _css(SELECTION_RGB) if i in hi else "#000"
        width = (3.0 if i in hi else 1.0) * max(0.5, 2.5 - 0.5 * tm.node_depth[i])
        lines.append(f'<rect x="{x:.3f}" y="{H - y - h:.3f}" width="{w:.3f}" '
                     f'height="{h:.3f}" fill="{_css(grey)}" stroke="{stroke}" '
                     f'stroke-width="{width:g}"><title>{tip}</title></rect>')
    for j, ((x, y, w, h), rgb) in enumerate(zip(tm.cell_rects, tm.cell_rgb())):
        tip = html.escape(tm.cell_tip(j))
        lines.append(f'<rect x="{x:.3f}" y="{H - y - h:.3f}" width="{w:.3f}" '
                     f'height="{h:.3f}" fill="{_css(rgb)}" stroke="#000" '
                     f'stroke-width="0.3"><title>{tip}</title></rect>')
    for (x, y, w, h), text, ink, top in tm.labels():
        text = text.replace("\n", " ")  # (one line of SVG text)
        if w >= 0.6 * font * len(text) + 4 and h >= (2 if top else 1) * (font + 4):
            at = (f'x="{x + 3:.3f}" y="{H - y - h + font + 1:.3f}"' if top else
                  f'x="{x + w / 2:.3f}" y="{H - y - h / 2 + font / 3:.3f}" '
                  'text-anchor="middle"')
            lines.append(f'<text {at} fill="{_css((ink,) * 3)}">{html.escape(text)}</text>')
    lines.append("</svg>")
    with writing(path) as f:
        f.write("\n".join(lines) + "\n")


class Canvas:
    """One offscreen render window and renderer that treemaps are drawn in, again
    and again (a panel's picture); `close` releases them."""

    def __init__(self):
        from .. import view
        self.window, self.renderer = view.offscreen_window(16, 16)
        self._grab = view.grabber(self.window)
        self._drawn = self._highlight = None
        #: world <-> display of the last picture (see scene.pick.Projection)
        self.projection = None

    def draw(self, tm, size, highlight=None, keys=True):
        """An (h, w, 3) uint8 image of `tm` at `size` (w, h), its title above and its
        legend in a column on the right (unless not `keys`), names (black or white
        by the cells under them) where they fit, node `highlight` and its ancestors
        outlined. Drawing the same treemap again only moves the outline."""
        from .. import view
        from ..scene import polydata
        # Its own GL context, taken before props are dropped (their GL objects are
        # freed in the current context) and given back after: a GUI draws in between
        # (and must let its own context go first: see TreemapDock._paint).
        self.window.MakeCurrent()
        try:
            if self._drawn != (tm, size, keys):
                self._draw(tm, size, keys)
                self._drawn = (tm, size, keys)
            if self._highlight is not None:
                self.renderer.RemoveViewProp(self._highlight)
                self._highlight = None
            if highlight is not None:
                rects = tm.node_rects[tm.ancestors(highlight)]
                self._highlight = polydata.actor(_outline(rects, 0.5), color=SELECTION_RGB,
                                                 line_width=3)
                self.renderer.AddViewProp(self._highlight)
            return view.snapshot(self.window, self._grab)
        finally:
            self.window.ReleaseCurrent()

    def _draw(self, tm, size, keys):
        from .. import view
        from ..scene import polydata
        from ..scene.overlay import Legend, text_actor, text_size
        from ..scene.pick import Projection
        ren = self.renderer
        ren.RemoveAllViewProps()
        self._highlight = None
        self.window.SetSize(*size)

        def add(prop):
            ren.AddViewProp(prop)
            return prop
        quads, borders = _shapes(tm)
        add(polydata.actor(quads))
        add(polydata.actor(borders, color=(0, 0, 0)))
        legend = Legend(add, text_size)
        legend.set(tm.legend_entries() if keys else [])
        legend.place(size[0], size[1] - 30)
        key_w = size[0] - legend.rect[0] + 10 if legend.rect else 0  # None: did not fit
        if keys:
            title = add(text_actor(14, valign="top"))
            title.SetInput(tm.title())
            title.SetPosition(10, size[1] - 8)
        # the treemap fills the window left of the legend
        w, h = tm.width, tm.height
        top = 34 if keys else 0  # the title's room
        px = min((size[0] - key_w) / w, (size[1] - top) / h)
        view.set_view(ren, (0, w, 0, h, 0, 0.01), 0.0, 90.0)
        cam = ren.GetActiveCamera()
        cam.SetParallelScale(size[1] / px / 2)
        cx = w / 2 + (size[0] / 2 - (size[0] - key_w) / 2) / px
        cy = h / 2 + top / 2 / px
        cam.SetFocalPoint(cx, cy, 0.0)
        cam.SetPosition(cx, cy, 1.0)
        ren.ResetCameraClippingRange()
        self.projection = Projection.of(ren)
        ruler = text_actor(LABEL_PX)
        for (x, y, nw, nh), name, ink, top in tm.labels():
            tw, th = text_size(ruler, name)
            if nw * px >= tw + 4 and nh * px >= (2 if top else 1) * (th + 4):
                a = add(text_actor(LABEL_PX, justify="center",
                                   valign="top" if top else "center", rgb=(ink / 255,) * 3))
                a.SetInput(name)
                at = [[x + nw / 2, y + nh - 3 / px if top else y + nh / 2, 0.0]]
                a.SetPosition(*self.projection.to_display(at)[0, :2])

    def close(self):
        self.window.Finalize()


def render(tm, size=SIZE, highlight=None, keys=True):
    """An (h, w, 3) uint8 image of the treemap (see Canvas.draw)."""
    canvas = Canvas()
    try:
        return canvas.draw(tm, size, highlight, keys)
    finally:
        canvas.close()


def write(tm, path, size=SIZE, highlight=None):
    """CSV, SVG, or an image (PNG, JPEG) by the file's extension."""
    low = str(path).lower()
    if low.endswith(".csv"):
        write_csv(tm, path)
    elif low.endswith(".svg"):
        write_svg(tm, path, highlight)
    else:
        from ..output import write_image
        write_image(render(tm, size, highlight), path)


def _shapes(tm):
    """Node rectangles and cells as VTK data: (quads, borders)."""
    from ..scene import polydata
    maxd = max(1, int(tm.node_depth.max()))
    r = np.vstack([tm.node_rects, tm.cell_rects])
    rgb = np.vstack([tm.node_rgb(), tm.cell_rgb()])
    z = np.r_[tm.node_depth * 1e-3, np.full(len(tm.cell_rects), (maxd + 1) * 1e-3)]
    quads = polydata.quads(r[:, 0], r[:, 0] + r[:, 2], r[:, 1], r[:, 1] + r[:, 3], z, rgb)
    # a border on a node a few pixels wide would hide its cells: only larger ones
    big = tm.node_rects[:, 2:].min(axis=1) >= OUTLINED * min(tm.width, tm.height)
    return quads, _outline(tm.node_rects[big], (maxd + 2) * 1e-3)


def check_output(path):
    """OptionsError unless `path` ends in an extension `write` knows (before any work)."""
    if not str(path).lower().endswith((".csv", ".svg")):
        from ..output import image_format
        try:
            image_format(path)
        except OptionsError:
            raise OptionsError(f"{path}: the treemap must end in .png, .jpg, .svg or .csv") \
                from None


#: Nodes narrower than this share of the treemap's smaller side get no border.
OUTLINED = 0.01


def _outline(rects, z):
    """Borders of (x, y, w, h) rectangles (lower-left corner) at height z."""
    from ..scene import polydata
    x, y, w, h = rects.T
    return polydata.outlines(x, x + w, y, y + h, z)
