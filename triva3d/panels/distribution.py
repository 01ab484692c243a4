"""A call path's spread over the ranks (CallFlow sections 7.2-7.3) as SVG: on the
left, the histogram of its time per container (how many containers spent how
long in it); on the right, a scatter of two metrics per container (inclusive
against exclusive time by default), each dot a container, named in its tooltip."""
import html

import numpy as np

from ..errors import OptionsError
from ..output import writing
from ..theme import BACKGROUND_RGB, TEXT_RGB

METRICS = ("inclusive", "exclusive", "calls")
BINS = 20


def css(rgb):
    return "rgb(%d,%d,%d)" % tuple(int(v) for v in rgb)


def svg(tree, path_text, x="inclusive", y="exclusive", bins=BINS, size=(900, 360)):
    """The SVG of call path `path_text` ("main;A") of CallTree `tree`: the histogram
    of its `x` per container and the scatter of `x` against `y`."""
    for m in (x, y):
        if m not in METRICS:
            raise OptionsError(f"a distribution's metric is one of {', '.join(METRICS)}, "
                               f"not {m!r}")
    path = tree.find(path_text)
    cont, vx = tree.distribution(path, x)
    _, vy = tree.distribution(path, y)
    if not len(cont):
        raise OptionsError(f"{tree.trace.source}: no container spends time in {path_text!r}"
                           " in the window")
    unit = tree.trace.unit()
    label = lambda m: "calls" if m == "calls" else f"{m} time ({unit})"  # noqa: E731
    w, h = size
    ink = css(np.round(np.array(TEXT_RGB) * 255))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">',
           f'<rect width="{w}" height="{h}" fill="{css(BACKGROUND_RGB)}"/>',
           f'<text x="8" y="16" fill="{ink}">{html.escape(path_text)} over {len(cont)} '
           f'containers: min {vx.min():.4g}, median {np.median(vx):.4g}, max {vx.max():.4g} '
           f'{"" if x == "calls" else unit} ({x})</text>']
    half = w / 2
    lo, hi = float(vx.min()), float(vx.max())
    counts, edges = np.histogram(vx, bins=bins, range=(lo, hi if hi > lo else lo + 1))
    plot = (50, 34, half - 20, h - 40)  # x0, y0, x1, y1
    x0, y0, x1, y1 = plot
    bw = (x1 - x0) / bins
    top = max(int(counts.max()), 1)
    for k, n in enumerate(counts.tolist()):
        bh = (y1 - y0) * n / top
        if n:
            out.append(f'<rect x="{x0 + k * bw:.1f}" y="{y1 - bh:.1f}" width="{bw * 0.92:.1f}" '
                       f'height="{bh:.1f}" fill="rgb(86,140,214)"><title>{n} containers: '
                       f'{edges[k]:.6g} to {edges[k + 1]:.6g}</title></rect>')
    out += axes(plot, (lo, hi), (0, top), label(x), "containers", ink)
    plot = (half + 50, 34, w - 20, h - 40)
    x0, y0, x1, y1 = plot
    ylo, yhi = float(vy.min()), float(vy.max())
    sx = lambda v: x0 + (v - lo) / (hi - lo) * (x1 - x0) if hi > lo else (x0 + x1) / 2  # noqa
    sy = lambda v: y1 - (v - ylo) / (yhi - ylo) * (y1 - y0) if yhi > ylo else (y0 + y1) / 2  # noqa
    name = tree.trace.display_name
    for c, a, b in zip(cont.tolist(), vx.tolist(), vy.tolist()):
        out.append(f'<circle cx="{sx(a):.1f}" cy="{sy(b):.1f}" r="3" fill="rgb(235,200,60)" '
                   f'fill-opacity="0.8"><title>{html.escape(name("containers", c))}: '
                   f'{x} {a:.6g}, {y} {b:.6g}</title></circle>')
    out += axes(plot, (lo, hi), (ylo, yhi), label(x), label(y), ink)
    out.append("</svg>")
    return "\n".join(out) + "\n"


#: The plots' font size (their SVG's), in pixels.
FONT_PX = 11


def axes(plot, xs, ys, xlabel, ylabel, ink, log_x=False):
    """SVG lines of a plot's axes: `xs` and `ys` (None: no y scale) at their ends,
    and round values between them, ticked (on x unless `log_x`: its caller marks
    the decades)."""
    x0, y0, x1, y1 = plot
    out = [f'<path d="M{x0},{y0} L{x0},{y1} L{x1},{y1}" stroke="{ink}" fill="none"/>',
           f'<text x="{x0}" y="{y1 + 14}" fill="{ink}">{xs[0]:.4g}</text>',
           f'<text x="{x1}" y="{y1 + 14}" fill="{ink}" text-anchor="end">{xs[1]:.4g}</text>',
           f'<text x="{(x0 + x1) / 2}" y="{y1 + 28}" fill="{ink}" text-anchor="middle">'
           f'{html.escape(xlabel)}</text>']
    for v, at in ([] if log_x else _inner(xs, x0, x1, 7)):
        out += [f'<path d="M{at:.1f},{y1} L{at:.1f},{y1 + 4}" stroke="{ink}"/>',
                f'<text x="{at:.1f}" y="{y1 + 14}" fill="{ink}" text-anchor="middle">'
                f'{v:.4g}</text>']
    if ys is not None:
        out += [f'<text x="{x0 - 4}" y="{y1}" fill="{ink}" text-anchor="end">{ys[0]:.4g}</text>',
                f'<text x="{x0 - 4}" y="{y0 + 8}" fill="{ink}" text-anchor="end">{ys[1]:.4g}'
                '</text>',
                f'<text x="{x0 - 38}" y="{(y0 + y1) / 2}" fill="{ink}" text-anchor="middle" '
                f'transform="rotate(-90 {x0 - 38} {(y0 + y1) / 2})">{html.escape(ylabel)}</text>']
        half = 0.6 * FONT_PX * len(ylabel) / 2 + 4  # (the title's, along the axis)
        for v, at in _inner(ys, y1, y0, 4):
            out.append(f'<path d="M{x0 - 4},{at:.1f} L{x0},{at:.1f}" stroke="{ink}"/>')
            if 0.6 * FONT_PX * len(f"{v:.4g}") < 26 or abs(at - (y0 + y1) / 2) > half:
                out.append(f'<text x="{x0 - 6}" y="{at + 4:.1f}" fill="{ink}" '
                           f'text-anchor="end">{v:.4g}</text>')  # (else on the title)
    return out


def _inner(span, a, b, target):
    """(value, position) of round values strictly inside `span` = (lo, hi), mapped
    linearly onto a..b, those too near an end (where its label stands) left out."""
    from ..scene.annotations import ticks
    lo, hi = float(span[0]), float(span[1])
    if not hi > lo:
        return []
    room = 0.08 * (hi - lo)
    return [(float(v), a + (v - lo) / (hi - lo) * (b - a)) for v in ticks(lo, hi, target)[0]
            if lo + room < v < hi - room]


def write(tree, path_text, out, x="inclusive", y="exclusive"):
    """The distribution as SVG, or PNG."""
    save(svg(tree, path_text, x, y), out)


def save(text, out):
    """An SVG text to `out`: .svg, or .png (through the Sankey's Qt drawing)."""
    if str(out).lower().endswith(".png"):
        from .sankey import svg_to_png
        svg_to_png(text, out)
        return
    with writing(out) as f:
        f.write(text)
