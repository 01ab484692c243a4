"""The Sankey view of a call tree (CallFlow section 7.1): a column per call depth,
a node per calling context, its height proportional to its inclusive time (merged
over the containers), the part that is its exclusive time drawn darker inside it
from its top; a ribbon from each node to each of its callees as wide as the
callee's inclusive time, the callees stacked in the caller's order, so that a tree
needs no dummy node and never crosses. Paths under `threshold` of the total are
left out and summarized (`left_out`), not lost: their time stays in their callers'.

`Sankey` is the model (rectangles, ribbons, names, numbers); `svg` draws it, each
shape with a tooltip of its calling context, numbers and their spread over the
containers, and in each node held by several containers a mini-histogram of its
inclusive time across them (section 7.3); `write` writes it as SVG,
or as PNG through Qt's SVG renderer (offscreen).
"""
import html
import os
import subprocess
import sys
import tempfile

import numpy as np

from .. import colors
from ..errors import TraceError
from ..output import writing
from ..theme import BACKGROUND_RGB, TEXT_RGB

#: Share of the picture's height between two nodes of a column, and of a column's
#: width a node takes (the rest: its ribbons).
GAP, NODE_W = 0.02, 0.36
#: Bins of the mini-histograms drawn in the nodes held by several containers.
HIST_BINS = 10


class Sankey:
    """The Sankey of CallTree `tree` aggregated with `how` over the containers, in a
    `width` x `height` box, without the paths under `threshold` (a fraction) of the
    total inclusive time."""

    def __init__(self, tree, how="sum", threshold=0.01, width=1000.0, height=600.0):
        self.tree, self.how = tree, how
        paths, calls, inc, exc = tree.merged(how)
        total = inc[tree.path_parent[paths] < 0].sum()
        kept = inc >= threshold * total if total > 0 else np.zeros(len(paths), bool)
        order = np.argsort(tree.path_depth[paths], kind="stable")
        keep = np.zeros(len(tree.path_value), bool)
        for i in order:  # a path is drawn if it and its callers are (callers first)
            p = tree.path_parent[paths[i]]
            keep[paths[i]] = kept[i] and (p < 0 or keep[p])
        self.left_out = int((~keep[paths]).sum())
        self.left_out_time = float(exc[~keep[paths]].sum())
        self.paths = paths[keep[paths]]
        at = {int(p): i for i, p in enumerate(paths.tolist())}
        pick = np.array([at[int(p)] for p in self.paths.tolist()], np.int64)
        self.calls, self.inclusive, self.exclusive = calls[pick], inc[pick], exc[pick]
        self.total, self.width, self.height = float(total), float(width), float(height)
        self._layout()

    def _layout(self):
        """Node rectangles (x, y, w, h; y down from the top) and ribbons."""
        tree, n = self.tree, len(self.paths)
        depth = tree.path_depth[self.paths]
        deepest = int(depth.max(initial=0)) + 1
        col_w = self.width / max(deepest, 1)
        scale = (self.height * (1 - GAP * 4)) / self.total if self.total > 0 else 0.0
        index = {int(p): i for i, p in enumerate(self.paths.tolist())}
        children = {i: [] for i in range(n)}
        roots = []
        for i, p in enumerate(self.paths.tolist()):
            up = int(tree.path_parent[p])
            (children[index[up]] if up in index else roots).append(i)
        for k in children:  # the biggest callee first
            children[k].sort(key=lambda j: -self.inclusive[j])
        roots.sort(key=lambda j: -self.inclusive[j])
        rect = np.zeros((n, 4))
        ribbons = []  # (caller, callee, y0 at the caller, y0 at the callee, height)
        next_y = np.zeros(deepest)
        stack = list(reversed(roots))
        while stack:  # depth first: a callee below its caller's earlier callees
            i = stack.pop()
            d = int(depth[i])
            h = self.inclusive[i] * scale
            y = next_y[d]
            rect[i] = (d * col_w, y, col_w * NODE_W, h)
            next_y[d] = y + h + GAP * self.height / 2
            if children[i]:  # its callees start no higher than it
                next_y[d + 1] = max(next_y[d + 1], y)
            stack.extend(reversed(children[i]))
        for i in range(n):  # ribbons: the callees stacked down the caller's right side
            y = rect[i, 1] + self.exclusive[i] * scale
            for j in children[i]:
                ribbons.append((i, j, y, rect[j, 1], rect[j, 3]))
                y += rect[j, 3]
        self.rects, self.ribbons, self.scale = rect, ribbons, scale

    def labels(self, font):
        """(node, y) of the names written beside their nodes, top down in each
        column, where they do not overlap the one above."""
        out, below = [], {}
        for i in np.lexsort((self.rects[:, 1], self.rects[:, 0])).tolist():
            x, y, _, h = self.rects[i]
            y = max(y, below.get(x, -np.inf))
            if y + font <= self.rects[i, 1] + max(h, font) + font:  # near its node
                out.append((i, y))
                below[x] = y + font + 2
        return out

    def name(self, i):
        return self.tree.trace.display_name("values", int(self.tree.path_value[self.paths[i]]))

    def node_at(self, x, y):
        """The node under (x, y) (y down from the Sankey's top), or None."""
        r = self.rects
        hit = np.flatnonzero((r[:, 0] <= x) & (x <= r[:, 0] + r[:, 2]) & (r[:, 1] <= y)
                             & (y <= r[:, 1] + r[:, 3]))
        return int(hit[0]) if len(hit) else None

    def tip(self, i):
        """The tooltip of node i: its calling context and numbers, and their spread
        over the containers."""
        _, v = self.tree.distribution(int(self.paths[i]))
        return (f"{self.tree.text(int(self.paths[i]))}: {self.calls[i]:.6g} calls, "
                f"inclusive {self.inclusive[i]:.6g}, exclusive {self.exclusive[i]:.6g} "
                f"{self.tree.trace.unit()} ({self.how} over the containers); inclusive over "
                f"{len(v)} containers: min {v.min():.6g}, median {np.median(v):.6g}, "
                f"max {v.max():.6g}")

    def histogram(self, i, bins=HIST_BINS):
        """(counts, (low, high)) of node i's inclusive time over the containers
        holding it, in `bins` bins (a mini-histogram: CallFlow section 7.3)."""
        _, v = self.tree.distribution(int(self.paths[i]))
        lo, hi = float(v.min()), float(v.max())
        counts, _ = np.histogram(v, bins=bins, range=(lo, hi if hi > lo else lo + 1))
        return counts, (lo, hi)

    def rgb(self):
        """(n, 3) the nodes' colours: their values' in the 3D scene."""
        value_rgb = colors.scene_palette(self.tree.trace)[0]
        return value_rgb[self.tree.path_value[self.paths]].reshape(-1, 3)

    def title(self):
        t0, t1 = self.tree.window
        unit = self.tree.trace.unit()
        out = (f"{self.tree.trace.name}   call paths {t0:.6g} .. {t1:.6g} {unit}   "
               f"height: inclusive time ({self.how}), dark: exclusive")
        if self.left_out:
            out += (f"   ({self.left_out} paths under the threshold, "
                    f"{self.left_out_time:.3g} {unit} exclusive, not drawn)")
        return out


TITLE_LINES = 2


def title_room(font=11.0):
    """The height above the Sankey that the SVG's title takes (TITLE_LINES lines)."""
    return TITLE_LINES * (font + 4) + font


def title_lines(title, width, font=11.0):
    """`title` in lines of `width` (its parts, "   " apart, kept whole where they fit;
    a sans-serif letter taken as 0.6 font wide), TITLE_LINES at most."""
    room, lines = max(int(width / (0.6 * font)), 1), [""]
    for part in title.split("   "):
        if lines[-1] and len(lines[-1]) + 3 + len(part) > room:
            lines.append("")
        lines[-1] += ("   " if lines[-1] else "") + part
    return lines[:TITLE_LINES - 1] + ["   ".join(lines[TITLE_LINES - 1:])] \
        if len(lines) > TITLE_LINES else lines


def svg(sk, font=11.0):
    """The Sankey as SVG text: nodes in their values' colours with their exclusive
    part darker, ribbons in the callee's colour, names where they fit, tooltips."""
    W, H, top = sk.width, sk.height, title_room(font)
    text_fill = "rgb(%d,%d,%d)" % tuple(np.round(np.array(TEXT_RGB) * 255))
    css = lambda c: "rgb(%d,%d,%d)" % tuple(int(v) for v in c)  # noqa: E731
    lines = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W:g}" height="{H + top:g}" '
             f'viewBox="0 0 {W:g} {H + top:g}" font-family="sans-serif" font-size="{font:g}">',
             f'<rect width="{W:g}" height="{H + top:g}" fill="{css(BACKGROUND_RGB)}"/>',
             *(f'<text x="6" y="{(k + 1) * (font + 4):g}" fill="{text_fill}">{html.escape(line)}'
               '</text>' for k, line in enumerate(title_lines(sk.title(), W - 12, font)))]
    rgb = sk.rgb()
    for i, j, y0, y1, h in sk.ribbons:
        x0 = sk.rects[i, 0] + sk.rects[i, 2]
        x1 = sk.rects[j, 0]
        xm = (x0 + x1) / 2
        a, b = y0 + top, y1 + top
        lines.append(f'<path d="M{x0:.2f},{a:.2f} C{xm:.2f},{a:.2f} {xm:.2f},{b:.2f} '
                     f'{x1:.2f},{b:.2f} L{x1:.2f},{b + h:.2f} C{xm:.2f},{b + h:.2f} '
                     f'{xm:.2f},{a + h:.2f} {x0:.2f},{a + h:.2f} Z" fill="{css(rgb[j])}" '
                     f'fill-opacity="0.45"><title>{html.escape(sk.tip(j))}</title></path>')
    for i, (x, y, w, h) in enumerate(sk.rects):
        tip = html.escape(sk.tip(i))
        lines.append(f'<rect x="{x:.2f}" y="{y + top:.2f}" width="{w:.2f}" height="{h:.2f}" '
                     f'fill="{css(rgb[i])}" stroke="#000" stroke-width="0.5">'
                     f'<title>{tip}</title></rect>')
        counts, _ = sk.histogram(i)
        if counts.sum() > 1 and h >= 3 * font:  # the spread over the containers
            bw, top_y = w * 0.6 / len(counts), y + top + h
            for k, n in enumerate(counts.tolist()):
                bh = (h * 0.4) * n / counts.max()
                if bh > 0:
                    lines.append(f'<rect class="hist" x="{x + k * bw:.2f}" '
                                 f'y="{top_y - bh:.2f}" width="{bw * 0.9:.2f}" '
                                 f'height="{bh:.2f}" fill="{text_fill}" fill-opacity="0.7">'
                                 f'<title>{tip}</title></rect>')
        e = sk.exclusive[i] * sk.scale
        if e > 0:
            dark = np.round(rgb[i] * 0.55)
            lines.append(f'<rect x="{x + w * 0.6:.2f}" y="{y + top:.2f}" width="{w * 0.4:.2f}" '
                         f'height="{e:.2f}" fill="{css(dark)}"><title>{tip}</title></rect>')
    for i, y in sk.labels(font):
        x, _, w, _ = sk.rects[i]
        lines.append(f'<text x="{x + w + 3:.2f}" y="{y + top + font:.2f}" '
                     f'fill="{text_fill}">{html.escape(sk.name(i))}</text>')
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


def write(sk, path):
    """The Sankey to `path`: SVG, or PNG (see svg_to_png)."""
    text = svg(sk)
    if str(path).lower().endswith(".png"):
        svg_to_png(text, path)
        return
    with writing(path) as f:
        f.write(text)


def svg_to_png(text, path):
    """SVG `text` drawn into the PNG file `path` by Qt's SVG renderer, offscreen, in a
    process of its own (the caller's Qt, if any, is left alone)."""
    with tempfile.TemporaryDirectory() as d:
        src, out = f"{d}/s.svg", f"{d}/s.png"
        with open(src, "w", encoding="utf-8") as f:
            f.write(text)
        r = subprocess.run([sys.executable, "-m", __name__, src, out], capture_output=True,
                           text=True, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
        if r.returncode != 0:
            raise TraceError(str(path), None, "cannot draw the PNG: "
                             + (r.stderr.strip().splitlines() or ["Qt failed"])[-1])
        with open(out, "rb") as f, writing(path, text=False) as g:
            g.write(f.read())


def _svg_to_png(src, out):
    """Draw the SVG file `src` into the PNG file `out` with Qt (this process's own
    application, offscreen)."""
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer
    app = QGuiApplication(sys.argv[:1])  # (fonts need one)
    renderer = QSvgRenderer(src)
    img = QImage(renderer.defaultSize(), QImage.Format_RGB888)
    painter = QPainter(img)
    renderer.render(painter)
    painter.end()
    if not img.save(out, "PNG"):
        sys.exit(f"cannot write {out}")
    app.quit()


if __name__ == "__main__":
    _svg_to_png(*sys.argv[1:3])
