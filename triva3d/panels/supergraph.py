"""The super graph drawn as a flow (CallFlow's super graph view): Graphviz's dot
lays the nodes out in layers from the callers on the left to the callees on the
right, with dummy nodes along long edges and crossings minimised; a node's height
follows its inclusive time, its label gives the inclusive and exclusive times and
its entry functions, an edge's width its inclusive time. Written as SVG, PNG or
the .dot text itself."""
import numpy as np

from .. import colors
from ..analysis.supergraph import LEFT_OUT
from ..errors import OptionsError, TraceError
from ..theme import BACKGROUND_RGB, TEXT_RGB

FORMATS = (".svg", ".png", ".dot")
#: Inches: the tallest node, the least; points: the widest edge.
TALLEST, LEAST, WIDEST = 2.5, 0.35, 14.0


def _hex(rgb):
    return "#%02x%02x%02x" % tuple(int(c) for c in rgb)


def graph(sg, unit="s"):
    """A pygraphviz AGraph of SuperGraph `sg`, laid out by dot."""
    import pygraphviz
    g = pygraphviz.AGraph(directed=True, strict=False, rankdir="LR", nodesep="0.25",
                          ranksep="0.9", bgcolor=_hex(BACKGROUND_RGB))
    ink = _hex([c * 255 for c in TEXT_RGB])
    g.node_attr.update(shape="box", style="filled", fontname="Helvetica", fontsize="10",
                       fontcolor="#111111", color="#222222")
    g.edge_attr.update(color="#8a8f9c", fontname="Helvetica", fontsize="9", fontcolor=ink,
                       arrowsize="0.6")
    heights = node_heights(sg)
    for i, name in enumerate(sg.names):
        share = sg.inclusive[i] / sg.total if sg.total > 0 else 0.0
        entries = sg.entries[i]
        more = f" +{len(entries) - 3}" if len(entries) > 3 else ""
        if name == LEFT_OUT:
            name = f"{sg.left_out} nodes left out (under the threshold)"
        label = (f"{name}\\nincl {sg.inclusive[i]:.4g} {unit} ({share:.0%})\\n"
                 f"excl {sg.exclusive[i]:.4g} {unit}"
                 + (f"\\nentry: {', '.join(entries[:3])}{more}" if entries else ""))
        fill = colors.palette(sg.module[i]) if sg.module[i] else colors.EMPTY
        g.add_node(i, label=label, fillcolor=_hex(fill), height=f"{heights[i]:.3f}")
    wmax = max(float(sg.weight.max(initial=0.0)), 1e-300)
    for a, b, x in zip(sg.source.tolist(), sg.target.tolist(), sg.weight.tolist()):
        g.add_edge(a, b, penwidth=f"{max(0.5, WIDEST * x / wmax):.2f}",
                   label=f"{x:.3g} {unit}")
    g.layout("dot")
    return g


def write(sg, path, unit="s"):
    """`path` by its extension: .svg, .png, or .dot (the laid-out graph)."""
    draw(lambda: graph(sg, unit), path, "a super graph")


def draw(make, path, what):
    """Draw the laid-out AGraph `make()` to `path` by its extension: .svg, .png, or
    .dot; `what` names it in messages."""
    suffix = str(path).lower()[str(path).rfind("."):]
    if suffix not in FORMATS:
        raise OptionsError(f"{path}: {what} is written as {', '.join(FORMATS)}")
    g = make()
    try:
        g.draw(str(path), format=suffix[1:])
    except (OSError, ValueError) as e:
        raise TraceError(path, None, f"cannot write {what}: {e}") from None


def node_heights(sg):
    """The heights (inches) the nodes are drawn at: inclusive time over the largest."""
    top = max(float(sg.inclusive.max(initial=0.0)), 1e-300)
    return np.maximum(LEAST, TALLEST * sg.inclusive / top)
