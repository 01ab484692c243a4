"""Interval histograms and counter box plots as SVG (or PNG): a primitive's durations
on a log axis, the brushed range shaded with its count, the far outliers listed; a
counter's minimum-maximum band, mean and mean +- std per time bin (analysis.intervals)."""
import html

import numpy as np

from ..theme import BACKGROUND_RGB, SELECTION_RGB, TEXT_RGB
from .distribution import axes, css

#: Outliers listed beside a histogram.
LISTED = 8


def _frame(w, h, title):
    ink = css(np.round(np.array(TEXT_RGB) * 255))
    return ink, [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
                 f'viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">',
                 f'<rect width="{w}" height="{h}" fill="{css(BACKGROUND_RGB)}"/>',
                 f'<text x="8" y="16" fill="{ink}">{html.escape(title)}</text>']


def plot_box(size):
    """(x0, y0, x1, y1) of a histogram's plot in a picture of `size` (w, h)."""
    w, h = size
    return 80, 34, w - 260, h - 40


def duration_at(d, x, size):
    """The duration at abscissa `x` of Durations `d`'s histogram of `size`."""
    x0, _, x1, _ = plot_box(size)
    f = (x - x0) / (x1 - x0)
    if f <= 0 or f >= 1:  # the ends: from no time (those lasting none), to the longest
        return 0.0 if f <= 0 else float(d.edges[-1])
    lo, hi = np.log10(d.edges[0]), np.log10(d.edges[-1])
    return float(10 ** (lo + f * (hi - lo)))


def histogram_svg(d, trace, rgb, chosen=None, size=(900, 360), unit=None):
    """The SVG of Durations `d` in the colour `rgb`, the range `chosen` (lo, hi)
    shaded, the outliers listed on the right; times in `unit` (Trace.unit's override)."""
    unit = trace.unit(unit)
    w, h = size
    held = trace.whole.window if trace.whole is not None else None  # (a store's part)
    title = (f"{d.value}: {len(d.rows)} intervals"
             + (f" meeting {held[0]:g} to {held[1]:g}" if held else "")
             + f", median {np.median(d.seconds):.4g} {unit}, {len(d.outliers)} far outliers"
             + (f", {d.zeros} lasting no time (not binned)" if d.zeros else ""))
    if chosen is not None:
        title += f"; {len(d.within(*chosen))} within {chosen[0]:.4g}..{chosen[1]:.4g} {unit}"
    ink, out = _frame(w, h, title)
    x0, y0, x1, y1 = plot_box(size)
    lo, hi = np.log10(d.edges[0]), np.log10(d.edges[-1])

    def sx(sec):
        return x0 + (np.log10(sec) - lo) / (hi - lo) * (x1 - x0)
    top = max(int(d.counts.max()), 1)
    if chosen is not None:
        a, b = sx(max(chosen[0], d.edges[0])), sx(min(chosen[1], d.edges[-1]))
        out.append(f'<rect x="{a:.1f}" y="{y0}" width="{max(b - a, 1):.1f}" height="{y1 - y0}" '
                   f'fill="{css(SELECTION_RGB)}" fill-opacity="0.25"/>')
    for k, n in enumerate(d.counts.tolist()):
        if n:
            a, b = sx(d.edges[k]), sx(d.edges[k + 1])
            bh = (y1 - y0) * n / top
            out.append(f'<rect x="{a:.1f}" y="{y1 - bh:.1f}" width="{max(b - a - 1, 1):.1f}" '
                       f'height="{bh:.1f}" fill="{css(rgb)}"><title>{n} intervals: '
                       f'{d.edges[k]:.6g} to {d.edges[k + 1]:.6g} {unit}</title></rect>')
    out += axes((x0, y0, x1, y1), (d.edges[0], d.edges[-1]), (0, top),
                f"duration ({unit}, log scale)", "intervals", ink, log_x=True)
    for k in range(int(np.ceil(lo)), int(np.floor(hi)) + 1):  # the decades
        at = sx(10.0 ** k)
        out.append(f'<path d="M{at:.1f},{y1} v4" stroke="{ink}"/>')
        if x0 + 40 < at < x1 - 40:  # (not over the ends' labels)
            out.append(f'<text x="{at:.1f}" y="{y1 + 14}" fill="{ink}" text-anchor="middle" '
                       f'font-size="9">1e{k}</text>')
    out.append(f'<text x="{x1 + 20}" y="44" fill="{ink}">far outliers (longest first)</text>')
    name = trace.display_name
    for i, r in enumerate(d.outliers[:LISTED].tolist()):
        st = trace.states
        out.append(f'<text x="{x1 + 20}" y="{62 + 16 * i}" fill="{ink}">'
                   f'{st.end[r] - st.start[r]:.4g} {unit} on '
                   f'{html.escape(name("containers", st.container[r]))} at {st.start[r]:.4g}</text>')
    if not len(d.outliers):
        out.append(f'<text x="{x1 + 20}" y="62" fill="{ink}">none</text>')
    if len(d.outliers) > LISTED:
        out.append(f'<text x="{x1 + 20}" y="{62 + 16 * LISTED}" fill="{ink}">'
                   f'and {len(d.outliers) - LISTED} more</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def box_plot_svg(bp, trace, size=(900, 360)):
    """The SVG of BoxPlot `bp`: the min-max band, mean +- std, the mean."""
    unit = trace.unit()
    w, h = size
    lo, hi = int(bp.having.min(initial=0)), int(bp.having.max(initial=0))
    who = (f"its {bp.containers} containers" if lo == bp.containers else
           f"those of {bp.containers} containers with a value ({lo} to {hi})")
    ink, out = _frame(w, h, f"{bp.name}, time-averaged per bin across {who}: min-max band, "
                            "mean +- std, mean line")
    x0, y0, x1, y1 = 80, 34, w - 20, h - 40
    ok = ~np.isnan(bp.mean)
    if ok.any():
        vlo = min(float(np.nanmin(bp.low)), 0.0)  # from 0 for a counter that stays above
        vhi = float(np.nanmax(bp.high))
        if vhi - vlo <= 1e-9 * max(abs(vlo), abs(vhi), 1.0):  # constant (but rounding)
            pad = 0.05 * max(abs(vhi), 1.0)
            vlo, vhi = vlo - pad, vhi + pad
        mid = (bp.edges[:-1] + bp.edges[1:]) / 2
        sx = x0 + (mid - bp.edges[0]) / (bp.edges[-1] - bp.edges[0]) * (x1 - x0)

        def sy(v):
            return y1 - (np.clip(v, vlo, vhi) - vlo) / (vhi - vlo) * (y1 - y0)

        def band(a, b, fill, opacity):
            pts = [f"{x:.1f},{y:.1f}" for x, y in zip(sx[ok], sy(a[ok]))] + \
                  [f"{x:.1f},{y:.1f}" for x, y in zip(sx[ok][::-1], sy(b[ok])[::-1])]
            return f'<polygon points="{" ".join(pts)}" fill="{fill}" fill-opacity="{opacity}"/>'
        out.append(band(bp.low, bp.high, "rgb(86,140,214)", 0.35))
        out.append(band(bp.mean - bp.std, bp.mean + bp.std, "rgb(86,140,214)", 0.6))
        line = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(sx[ok], sy(bp.mean[ok])))
        out.append(f'<polyline points="{line}" stroke="rgb(235,200,60)" fill="none" '
                   f'stroke-width="1.5"/>')
        out += axes((x0, y0, x1, y1), (bp.edges[0], bp.edges[-1]), (vlo, vhi),
                    f"time ({unit})", bp.name, ink)
    out.append("</svg>")
    return "\n".join(out) + "\n"

