"""The execution tree of a task run (Traveler's dependency view): Graphviz's dot
lays the tasks out with parents above children; a node is a task, filled with its
region's colour, labelled with its region, GUID and time running (dashed, with its
parent's GUID, where that parent is not in the trace); a chosen task's chain (its
ancestors and descendants) is drawn alone. Written as SVG, PNG or .dot."""
from .. import colors
from ..errors import OptionsError
from ..theme import BACKGROUND_RGB, TEXT_RGB
from .supergraph import _hex, draw

#: Trees larger than this are drawn one task's chain at a time.
MOST = 1000


def graph(tk, trace, chosen=None, focus=None):
    """A pygraphviz AGraph of Tasks `tk` (or of the tasks `chosen`, task `focus`
    outlined), laid out by dot."""
    import numpy as np
    import pygraphviz
    shown = np.arange(len(tk)) if chosen is None else np.asarray(chosen)
    if len(shown) > MOST:
        raise OptionsError(f"{len(shown)} tasks: at most {MOST} are drawn as a tree; draw "
                           "one task's chain (its GUID)")
    rgb = colors.value_rgb(trace)
    unit = trace.unit()
    g = pygraphviz.AGraph(directed=True, strict=False, rankdir="TB", nodesep="0.15",
                          ranksep="0.5", bgcolor=_hex(BACKGROUND_RGB))
    g.node_attr.update(shape="box", style="filled", fontname="Helvetica", fontsize="9",
                       fontcolor="#111111", color="#222222")
    g.edge_attr.update(color=_hex([c * 255 for c in TEXT_RGB]), arrowsize="0.5")
    name = trace.names.display
    for i in shown.tolist():
        orphan = tk.parent[i] < 0  # its parent not traced: said, and dashed
        parent = (f"\\nparent {int(tk.parent_ids[i]) % (1 << 64)} not traced"
                  if orphan and tk.has_parent[i] else "")
        g.add_node(i, label=f"{name(trace.values.name[tk.value[i]])} {tk.id_text(i)}\\n"
                            f"running {tk.busy[i]:.3g} {unit}{parent}",
                   fillcolor=_hex(rgb[tk.value[i]]),
                   style="filled,dashed" if orphan else "filled",
                   **({"penwidth": "3", "color": _hex([c * 255 for c in TEXT_RGB])}
                      if i == focus else {}))
    inside = set(shown.tolist())
    for i in shown.tolist():
        if tk.parent[i] in inside:
            g.add_edge(int(tk.parent[i]), i)
    g.layout("dot")
    return g


def write(tk, trace, path, chosen=None, focus=None):
    """The tree (or the tasks `chosen`, `focus` outlined) to `path`: .svg, .png or .dot."""
    draw(lambda: graph(tk, trace, chosen, focus), path, "an execution tree")
