"""What is written over the 3D scene, placed in screen space at every frame: names
that never overlap, the time axis, a title line and the legend.

- **Labels**: node names (largest first) and the names of containers on cells of
  their own, each at most once (a container named as its node is not written
  again). Each frame projects them and places them greedily by priority; a label
  whose box would overlap one already placed, or leave the window, is not drawn.
  `boxes` keeps what was placed (display pixels) for tests and picking.
- **Axis**: a ruler at the bottom corner of the base that is leftmost on screen, so
  it never crosses the scene; tick labels left of it, dropped where they would
  collide; the title above its top. Seen from above the ruler is a point: a note
  in the bottom-left corner gives the window instead.
- **Title**: the trace, the window and the base, top left.
- **Legend**: the keys the picture uses, top right, 14 px text in light grey on a
  dark box (contrast about 14:1), each swatch edged in theme.SWATCH_EDGE (a key as
  dark as the box still shows); notes too wide for LEGEND_SHARE of the window are
  wrapped.
"""
import textwrap

import numpy as np
from vtkmodules.vtkRenderingCore import vtkActor2D, vtkTextActor

from ..bases.layout import UNIT
from ..bases.matcher import R_DESCENDANTS
from ..theme import BOX_OPACITY, BOX_RGB, SWATCH_EDGE, TEXT_RGB
from . import polydata
from .annotations import label as tick_label
from .annotations import ticks

LABEL_PX, LEGEND_PX, AXIS_PX = 13, 14, 13
MAX_LABELS = 3000
MAX_LEGEND = 16
#: The legend is left out of a picture where it would take more than this share
#: of the width (a small movie frame), or not fit in its height.
LEGEND_SHARE = 0.4
#: A label keeps this many pixels from every other.
PAD = 3


def text_actor(size, justify="left", valign="bottom", bold=False, rgb=TEXT_RGB,
               shadow=False):
    """A 2D text in display pixels (a dark shadow keeps it legible on light things)."""
    a = vtkTextActor()
    p = a.GetTextProperty()
    p.SetFontSize(size)
    p.SetColor(*rgb)
    p.SetBold(bold)
    if shadow:
        p.ShadowOn()
        p.SetShadowOffset(1, -1)
    {"left": p.SetJustificationToLeft, "right": p.SetJustificationToRight,
     "center": p.SetJustificationToCentered}[justify]()
    {"bottom": p.SetVerticalJustificationToBottom, "top": p.SetVerticalJustificationToTop,
     "center": p.SetVerticalJustificationToCentered}[valign]()
    a.GetPositionCoordinate().SetCoordinateSystemToDisplay()
    return a


def text_size(actor, text=None):
    """(width, height) in pixels of a text actor's text (or of `text` in its
    properties: measuring needs no actor per text)."""
    from vtkmodules.vtkRenderingCore import vtkTextRenderer
    bbox = [0, 0, 0, 0]
    vtkTextRenderer.GetInstance().GetBoundingBox(
        actor.GetTextProperty(), actor.GetInput() if text is None else text, bbox, 72)
    return bbox[1] - bbox[0] + 1, bbox[3] - bbox[2] + 1


def label_candidates(trace, layout, shown=None):
    """(points (n, 3), texts, priorities, centres (n, 3)) of the names worth writing,
    each once: on a timeline, the name of each row, then of each frame around rows
    in its band (its centre: the point on the frame's middle line, NaN for the
    others: a frame named where its band does not show would read as a row's name);
    else node names (not the root's, which spans
    a treemap) and container names that are not their node's. `shown` (a mask over
    the containers; None: all): only these containers' names, and only the nodes
    that hold one of them or no container at all (aggregated columns: their names,
    not those of the containers they stand for)."""
    if layout.base == "timeline":  # rows, then the frames around them (their bands)
        rows = np.flatnonzero(layout.w > 0)
        if shown is not None:
            rows = rows[shown[rows]]
        r = layout.node_rects
        framed = r[:, 2] > 0
        if shown is not None:  # only the frames around a container shown
            framed &= _ancestors(trace.containers.parent, shown)
        framed[rows] = framed[0] = False
        frames = np.flatnonzero(framed)
        band = UNIT / 4  # (a level's margin: on_timeline's frames grow UNIT / 2 a level)
        pts = np.r_[np.c_[layout.x[rows], layout.y[rows]],
                    np.c_[r[frames, 0], r[frames, 1] - r[frames, 3] / 2 + band / 2]]
        centres = np.full((len(pts), 3), np.nan)
        centres[len(rows):] = np.c_[r[frames, :2], np.zeros(len(frames))]
        return (np.c_[pts, np.zeros(len(pts))],
                [trace.display_name("containers", c) for c in np.r_[rows, frames]],
                np.r_[np.full(len(rows), 2.0), np.ones(len(frames))], centres)
    r = layout.node_rects
    pts = [np.c_[r[:, :2], np.zeros(len(r))]]
    texts = list(layout.node_names)
    prio = [1e12 + r[:, 2] * r[:, 3]]
    if layout.base == "treemap":
        prio[0][0] = -np.inf  # the root
        if layout.node_parent is not None:  # a parent named on its top edge: at its
            up = layout.node_parent[layout.node_parent >= 0]  # centre it named a child
            pts[0][up, 1] += r[up, 3] / 2
    if shown is not None:  # a node of containers, none of them shown: no name
        on = layout.node >= 0
        holds = np.bincount(layout.node[on], minlength=len(r)) > 0
        keeps = np.bincount(layout.node[on & shown], minlength=len(r)) > 0
        prio[0][holds & ~keeps] = -np.inf
    cells = np.flatnonzero((layout.w > 0) & (layout.rule != R_DESCENDANTS))
    cells = cells[(cells > 0) & (True if shown is None else shown[cells])]
    if layout.base not in ("treemap", "timeline") and len(cells):
        names = [trace.display_name("containers", c) for c in cells]
        node = layout.node[cells]
        keep = [i for i, (c, n) in enumerate(zip(cells, names))
                if not (node[i] >= 0 and layout.node_names[node[i]] == n)]
        cells = cells[keep]
        pts.append(np.c_[layout.x[cells], layout.y[cells] - layout.h[cells] / 2,
                         np.zeros(len(cells))])
        texts += [names[i] for i in keep]
        prio.append(layout.w[cells] * layout.h[cells])
    prio = np.concatenate(prio)
    order = np.argsort(-prio, kind="stable")[:MAX_LABELS]
    order = order[np.isfinite(prio[order])]
    return (np.vstack(pts)[order], [texts[i] for i in order], prio[order],
            np.full((len(order), 3), np.nan))


class Legend:
    """Keys (text, rgb or None for a line of text alone) in a dark box in the top
    right corner of a window; `new` adds a prop to the renderers."""

    def __init__(self, new, sizes):
        self._new, self._sizes = new, sizes
        self.box = new(vtkActor2D())
        self.edges = new(vtkActor2D())  # under the swatches, 1 px wider each side
        self.swatches = new(vtkActor2D())
        self.texts, self.entries, self._given, self._wrapped = [], [], [], None
        self.rect = None

    def set(self, entries):
        """At most MAX_LEGEND keys; the lines of text alone (rgb None) always show,
        wrapped where they are too wide for the window (`width`, `place`)."""
        self._given, self._wrapped = list(entries), None
        self._show(self._given)

    def _show(self, entries):
        shown = entries
        if len(entries) > MAX_LEGEND:
            notes = [e for e in entries if e[1] is None]
            keys = [e for e in entries if e[1] is not None]
            room = max(MAX_LEGEND - len(notes), 1)
            shown = keys[:room] + [(f"... {len(keys) - room} more", None)] + notes
        self.entries = shown
        while len(self.texts) < len(shown):
            self.texts.append(self._new(text_actor(LEGEND_PX, valign="top")))
        for i, a in enumerate(self.texts):
            a.SetInput(shown[i][0] if i < len(shown) else "")

    def _wrap(self, window_w):
        """Its notes wrapped to fit LEGEND_SHARE of `window_w` (a long one made the
        whole legend vanish), measured by their own text; once a width."""
        if self._wrapped == window_w:
            return
        room = LEGEND_SHARE * window_w - LEGEND_PX - 24
        ruler = text_actor(LEGEND_PX, valign="top")  # (measures, drawn never)
        out = []
        for text, rgb in self._given:
            lines, chars = [text], len(text)
            while rgb is None and max(self._px(ruler, t) for t in lines) > room:
                chars = int(chars * 0.9)  # (by the text's own widths: a font is not even)
                if chars < 24:  # (a small frame: no legend rather than shreds of one)
                    lines = [text]
                    break
                lines = textwrap.wrap(text, chars, subsequent_indent="  ") or [text]
            out += [(line, rgb) for line in lines]
        self._show(out)
        self._wrapped = window_w

    def _px(self, ruler, text):
        ruler.SetInput(text)
        return self._sizes(ruler)[0]

    def width(self, size=None):
        """Its width in pixels (0 without entries, or where it does not fit in a
        window of `size`, its notes wrapped)."""
        if size is not None:
            self._wrap(size[0])
        texts = self.texts[:len(self.entries)]
        w = max(self._sizes(a)[0] for a in texts) + LEGEND_PX + 24 if texts else 0
        fits = size is None or (w <= LEGEND_SHARE * size[0]
                                and self.height() <= size[1] - 20)
        return w if fits else 0

    def height(self):
        return (LEGEND_PX + 6) * len(self.entries) + 10

    def place(self, w, h):
        texts = self.texts[:len(self.entries)] if self.width((w, h)) else []
        for a in self.texts[len(texts):]:
            a.SetVisibility(False)
        for a in texts:
            a.SetVisibility(True)
        self.rect = None
        for a in (self.box, self.edges, self.swatches):
            a.SetVisibility(bool(texts))
        if not texts:
            return
        line, sw = LEGEND_PX + 6, LEGEND_PX
        box_w = self.width()
        box_h = self.height()
        x0, y1 = w - box_w - 10, h - 10
        self.rect = (x0, y1 - box_h, x0 + box_w, y1)
        quads, rgb = [], []
        for i, (a, (_, col)) in enumerate(zip(texts, self.entries)):
            top = y1 - 5 - i * line
            a.SetPosition(x0 + 8 + (sw + 8 if col is not None else 0), top)
            if col is not None:
                quads.append((x0 + 8, x0 + 8 + sw, top - sw - 1, top - 1))
                rgb.append(col)
        self.box.SetMapper(polydata.mapper2d(polydata.quads(
            [x0], [x0 + box_w], [y1 - box_h], [y1], 0.0)))
        self.box.GetProperty().SetColor(*BOX_RGB)
        self.box.GetProperty().SetOpacity(BOX_OPACITY)
        q = np.array(quads, np.float64).reshape(-1, 4)
        self.edges.SetMapper(polydata.mapper2d(polydata.quads(
            q[:, 0] - 1, q[:, 1] + 1, q[:, 2] - 1, q[:, 3] + 1, 0.0)))
        self.edges.GetProperty().SetColor(*(c / 255 for c in SWATCH_EDGE))
        self.swatches.SetMapper(polydata.mapper2d(polydata.quads(
            q[:, 0], q[:, 1], q[:, 2], q[:, 3], 0.0, np.array(rgb, np.uint8).reshape(-1, 3))))


class Overlay:
    """The 2D props over a scene; `place(projection)` lays them out for a frame.
    Props made later (a label first placed, a longer legend) are added to the
    `renderers` the scene is in."""

    def __init__(self, trace, layout, bounds, extent, renderers):
        self.points, self.texts, _, self.centres = label_candidates(trace, layout)
        self.trace, self.layout, self.named = trace, layout, None
        #: Row names stand left of where the rows start; other names centred.
        self.right_aligned = layout.base == "timeline"
        self.bounds, self.extent = bounds, extent
        self.renderers = renderers
        self._labels = {}       # text -> actor, made when first placed
        self._sizes = {}        # (font size, text) -> (width, height)
        self._measure = text_actor(LABEL_PX, shadow=True)  # sizes labels, drawn never
        self.boxes = []         # (x0, y0, x1, y1, text) placed this frame
        self.props = []
        self.title = self._new(text_actor(LEGEND_PX, valign="top"))
        self.note = self._new(text_actor(AXIS_PX))
        self.axis_title = self._new(text_actor(AXIS_PX, justify="center"))
        self.ruler = self._new(polydata.actor(
            polydata.segments(np.zeros((0, 3)), np.zeros((0, 3))),
            color=[255 * c for c in TEXT_RGB], line_width=1))
        self.legend = Legend(self._new, lambda a: self._size(a, a.GetInput()))
        self._ticks = []

    def name_only(self, shown):
        """Write only the names of the containers `shown` (a mask; None: all), and of
        the nodes holding them (see label_candidates); again only when it changes."""
        key = None if shown is None else shown.tobytes()
        if key != self.named:
            self.named = key
            self.points, self.texts, _, self.centres = label_candidates(
                self.trace, self.layout, shown)

    def _new(self, prop):
        self.props.append(prop)
        for ren in self.renderers:
            ren.AddViewProp(prop)
        return prop

    def _size(self, actor, text):
        key = (actor.GetTextProperty().GetFontSize(), text)
        if key not in self._sizes:
            self._sizes[key] = text_size(actor, text)
        return self._sizes[key]

    # -- content -------------------------------------------------------------------------
    def set_frame(self, frame, unit, title):
        """The window drawn (entities.Frame), its unit and the title line."""
        self.frame, self.unit = frame, unit
        self.title.SetInput(title)
        self.axis_title.SetInput(f"time ({unit})")
        t, decimals = ticks(frame.t0, frame.t1)
        self.tick_times = t
        while len(self._ticks) < len(t):
            self._ticks.append(self._new(text_actor(AXIS_PX, justify="right", valign="center")))
        for a, ti in zip(self._ticks, t):
            a.SetInput(tick_label(ti, decimals))
        for a in self._ticks[len(t):]:
            a.SetInput("")
        self.note.SetInput(f"time {frame.t0:.9g} .. {frame.t1:.9g} {unit}")

    def margins(self, time_across, size):
        """Room (left, right, bottom, top pixels) the camera leaves around the scene
        in a window of `size`: the axis's labels, the legend, the title."""
        return (110 if time_across else 70, self.legend.width(size) + 20,
                50 if time_across else 20, 34)

    def set_legend(self, entries):
        """(text, rgb or None) lines: None writes a line of text alone."""
        self.legend.set(entries)

    # -- one frame ---------------------------------------------------------------------
    def place(self, proj, labels_on=True):
        w, h = proj.size
        self.title.SetPosition(10, h - 8)
        self.legend.place(w, h)
        self._place_axis(proj, w, h)
        self._place_labels(proj, w, h, labels_on)

    def _place_axis(self, proj, w, h):
        f = self.frame
        xmin, ymin, xmax, ymax = self.bounds
        m = 0.04 * self.extent
        corners = np.array([[xmin - m, ymin - m], [xmax + m, ymin - m],
                            [xmin - m, ymax + m], [xmax + m, ymax + m]])
        base = proj.to_display(np.c_[corners, np.zeros(4)])[:, :2]
        top = proj.to_display(np.c_[corners, np.full(4, f.height)])[:, :2]
        along = top - base
        length = np.hypot(*along.T)
        shown = bool(length.max() >= 40)
        self.note.SetVisibility(not shown)
        self.note.SetPosition(10, 10)
        self.axis_boxes = []
        for a in self._ticks + [self.axis_title, self.ruler]:
            a.SetVisibility(shown)
        if not shown:
            return
        # time runs up the screen (the usual views) or across it (the timeline): the
        # ruler stands at the corner farthest left, or lowest, outside the scene
        upright = abs(along[0, 1]) >= abs(along[0, 0])
        side = (base + top)[:, 0 if upright else 1] / 2
        k = int(np.argmin(side + 1e-6 * np.arange(4)))
        x, y = corners[k]
        z = f.z(self.tick_times)
        tick = 0.3 * m
        p0 = np.vstack([[x, y, 0.0], np.c_[np.full(len(z), x), np.full(len(z), y), z]])
        p1 = np.vstack([[x, y, f.height], np.c_[np.full(len(z), x - tick),
                                                np.full(len(z), y - tick), z]])
        self.ruler.GetMapper().SetInputData(polydata.segments(p0, p1))
        at = proj.to_display(np.c_[np.full(len(z), x), np.full(len(z), y), z])
        u = along[k] / max(length[k], 1e-9)
        tw, th = self._size(self.axis_title, self.axis_title.GetInput())
        # beyond the ruler's end by 10 px, whichever way the ruler runs on screen
        end = top[k] + (10 + abs(u[0]) * tw / 2 + abs(u[1]) * th / 2) * u
        self.axis_title.SetPosition(*end)
        taken = [(end[0] - tw / 2, end[1] - th / 2, end[0] + tw / 2, end[1] + th / 2)]
        self.axis_boxes = taken
        for a, (px, py, depth) in zip(self._ticks, at):
            tw, th = self._size(a, a.GetInput())
            if upright:  # right-aligned, left of the ruler
                cx, cy = px - 8 - tw / 2, py
            else:        # centred, below it
                cx, cy = px, py - 8 - th / 2
            box = (cx - tw / 2 - 2, cy - th / 2 - 1, cx + tw / 2 + 2, cy + th / 2 + 1)
            ok = bool(abs(depth) <= 1 and 0 <= box[0] and box[2] <= w and 0 <= box[1]
                  and box[3] <= h and not any(_overlap(box, b) for b in taken))
            a.SetVisibility(ok)
            if ok:
                a.SetPosition(cx + tw / 2 if upright else cx, cy)
                a.GetTextProperty().SetJustificationToRight() if upright else \
                    a.GetTextProperty().SetJustificationToCentered()
                taken.append(box)

    def _place_labels(self, proj, w, h, labels_on):
        self.boxes = []
        for a in self._labels.values():
            a.SetVisibility(False)
        if not labels_on or not len(self.texts):
            return
        d = proj.to_display(self.points)
        framed = np.isfinite(self.centres[:, 0])
        flat = np.zeros(len(d), bool)  # frames whose band is under a label's height
        if framed.any():
            c = proj.to_display(self.centres[framed])
            flat[framed] = np.hypot(*(d[framed, :2] - c[:, :2]).T) < LABEL_PX
        cell = 64
        grid = {}
        written = set()
        for (px, py, depth), text, skip in zip(d, self.texts, flat):
            if skip or not (abs(depth) <= 1 and 0 <= px < w and 0 <= py < h) \
                    or text in written:
                continue  # off screen, or the same text written already
            tw, th = self._size(self._measure, text)
            if self.right_aligned:
                px -= 6 + tw / 2
            box = (px - tw / 2 - PAD, py - th / 2 - PAD, px + tw / 2 + PAD, py + th / 2 + PAD)
            if box[0] < 0 or box[2] > w or box[1] < 0 or box[3] > h:
                continue
            cells = [(i, j) for i in range(int(box[0] // cell), int(box[2] // cell) + 1)
                     for j in range(int(box[1] // cell), int(box[3] // cell) + 1)]
            if any(_overlap(box, b) for c in cells for b in grid.get(c, ())):
                continue
            for c in cells:
                grid.setdefault(c, []).append(box)
            a = self._labels.get(text)
            if a is None:  # actors only for what is written
                a = self._new(text_actor(LABEL_PX, valign="center", shadow=True,
                                         justify="right" if self.right_aligned else "center"))
                a.SetInput(text)
                self._labels[text] = a
            a.SetPosition(px + tw / 2 if self.right_aligned else px, py)
            a.SetVisibility(True)
            written.add(text)
            self.boxes.append(box + (text,))


def _ancestors(parent, mask):
    """Mask of the containers above one of `mask`."""
    out = np.zeros(len(parent), bool)
    up = parent[mask]
    while len(up := up[up >= 0]):
        up = up[~out[up]]
        out[up] = True
        up = parent[up]
    return out


def _overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
