"""The aggregated Gantt of a task run as SVG (Traveler section 4.2, Fig. 3): a bar
per subtree instance of the execution tree, from its first start to its last end,
packed into rows; inside each bar, in its root's colour, how many containers run
its tasks over time (to the height of the most at once anywhere); a chosen task's
chain outlined; chosen states (brushed intervals) drawn as a line of their own
utilization inside the bars that hold them, outlined too."""
import html

import numpy as np

from .. import colors
from ..theme import BACKGROUND_RGB, SELECTION_RGB, TEXT_RGB
from .distribution import axes, css


def svg(g, tk, trace, chosen=None, width=1200, most=900, chosen_text="chosen"):
    """The SVG of Gantt `g` of Tasks `tk`, `width` wide and at most `most` high (rows
    24 pixels high, less where many); the bars holding the tasks `chosen` outlined,
    and those holding `g`'s chosen states (`chosen_text` says what they are)."""
    rows = int(g.row.max(initial=-1)) + 1
    bh = max(3.0, min(24.0, (most - 74) / max(rows, 1)))  # (many rows: taller than most)
    w, h = width, int(74 + bh * max(rows, 1))
    unit = trace.unit()
    x0, y0, x1, y1 = 80, 34, w - 20, h - 40
    t0, t1 = trace.start_time, trace.end_time  # (Gantts of any depth compare)
    t1 = t1 if t1 > t0 else t0 + 1
    edges = np.linspace(t0, t1, int(x1 - x0) + 1)
    use, mine = g.use(edges), g.chosen_use(edges)
    top = max(g.workers, 1)
    ink = css(np.round(np.array(TEXT_RGB) * 255))
    rgb = colors.value_rgb(trace)
    name = trace.names.display
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="10">',
           f'<rect width="{w}" height="{h}" fill="{css(BACKGROUND_RGB)}"/>',
           f'<text x="8" y="16" fill="{ink}" font-size="11">{len(g)} subtrees at depth '
           f'{g.depth} in {rows} rows, coloured by their root\'s region; inside a bar: how '
           f'many of the {top} workers run its tasks' + (
               f'; white line: {chosen_text}, yellow: the bars holding them'
               if mine is not None else '; yellow: the chosen chain\'s bars'
               if chosen is not None else '') + '</text>']
    held = set() if g.holds is None else set(np.flatnonzero(g.holds).tolist())
    if chosen is not None:
        bar_of = {int(r): i for i, r in enumerate(g.root.tolist())}
        for t in np.asarray(chosen).tolist():  # the bar whose root is t or above t
            while t >= 0 and t not in bar_of:
                t = int(tk.parent[t])
            if t >= 0:
                held.add(bar_of[t])

    def x(t):
        return x0 + (t - t0) / (t1 - t0) * (x1 - x0)
    for i in range(len(g)):
        a, b = x(g.start[i]), x(g.end[i])
        top_y = y0 + g.row[i] * bh
        fill = css(rgb[tk.value[g.root[i]]])
        stroke = css(SELECTION_RGB) if i in held else "#555"
        label = f"{name(trace.values.name[tk.value[g.root[i]]])} {tk.id_text(g.root[i])}"
        out.append(f'<rect x="{a:.1f}" y="{top_y + 1:.1f}" width="{max(b - a, 1):.1f}" '
                   f'height="{max(bh - 2, 1):.1f}" fill="#2a2e36" stroke="{stroke}" '
                   f'stroke-width="{2 if i in held else 0.5}"><title>{html.escape(label)}: '
                   f'{g.start[i]:.6g} to {g.end[i]:.6g} {unit}</title></rect>')
        k0 = int(np.searchsorted(edges, g.start[i], side="right")) - 1
        k1 = int(np.searchsorted(edges, g.end[i], side="left"))
        k0, k1 = max(k0, 0), min(max(k1, k0 + 1), len(edges) - 1)
        base = top_y + bh - 1

        def steps(u):  # the step line of `u` over the bar's bins, from its base
            pts = [f"{x(edges[k0]):.1f},{base:.1f}"]
            for k in range(k0, k1):
                yv = base - (bh - 2) * u[k, i] / top
                pts += [f"{x(edges[k]):.1f},{yv:.1f}", f"{x(edges[k + 1]):.1f},{yv:.1f}"]
            return " ".join(pts + [f"{x(edges[k1]):.1f},{base:.1f}"])
        out.append(f'<polygon points="{steps(use)}" fill="{fill}"/>')
        if mine is not None and g.holds[i]:
            out.append(f'<polyline points="{steps(mine)}" fill="none" '
                       'stroke="#ffffff" stroke-width="1"/>')
        if b - a > 7 * len(label) and bh >= 12:
            out.append(f'<text x="{a + 3:.1f}" y="{top_y + min(bh - 4, 12):.1f}" '
                       f'fill="{ink}">{html.escape(label)}</text>')
    out += axes((x0, y0, x1, y1), (t0, t1), None, f"time ({unit})", "", ink)
    out.append("</svg>")
    return "\n".join(out) + "\n"
