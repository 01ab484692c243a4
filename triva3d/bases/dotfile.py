"""Graphviz files: read through pygraphviz, written by hand (stable, diffable)."""
import contextlib
import math
import os
import re
import tempfile

from ..errors import TraceError, read_text
from . import units
from .topology import KINDS, Topology, parse_pos


@contextlib.contextmanager
def _graphviz_stderr(sink):
    """Collect what the Graphviz C library writes on file descriptor 2."""
    with tempfile.TemporaryFile() as tmp:
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            sink.append(tmp.read().decode("utf-8", "replace"))


def _error_line(text):
    """(line, reason) from Graphviz's 'Error: syntax error in line 3 near ...'."""
    for line in text.splitlines():
        if line.startswith("Error:") or "error" in line:
            m = re.search(r"line (\d+)", line)
            return (int(m.group(1)) if m else None), line.replace("Error: ", "").strip()
    return None, "not a Graphviz file"


def read_dot(path):
    """A Topology from a .dot/.gv file; `kind`, `bandwidth`, `latency` and `pos` are
    understood (bandwidth and latency with SimGrid units or bare B/s and s), every
    other attribute is kept as a string."""
    import pygraphviz

    read_text(path, "the topology")  # Graphviz reads any bytes; their names must decode
    err = []
    try:
        with _graphviz_stderr(err):
            g = pygraphviz.AGraph(path)
    except (pygraphviz.DotError, ValueError, UnicodeDecodeError):
        line, reason = _error_line("".join(err))
        raise TraceError(path, line, reason) from None
    topo = Topology(g.name or os.path.basename(path), path)
    try:
        nodes = g.nodes()
    except TypeError:  # pygraphviz on a node cgraph keeps nameless ("%..." names)
        raise TraceError(path, None, "a node name starting with '%' (Graphviz takes it for an "
                                     "anonymous id): rename it") from None
    for n in nodes:
        attrs = {k: v for k, v in n.attr.items() if v != ""}
        kind = attrs.pop("kind", "node")
        if kind not in KINDS:
            raise TraceError(path, None, f"node {n}: unknown kind {kind!r} "
                             f"(expected one of {', '.join(KINDS)})")
        if "pos" in attrs:
            parse_pos(attrs["pos"], path)
        topo.add_node(str(n), kind, **attrs)
    for e in g.edges():
        attrs = {k: v for k, v in e.attr.items() if v != ""}
        try:
            bw = units.bandwidth(attrs.pop("bandwidth")) if "bandwidth" in attrs else math.nan
            lat = units.latency(attrs.pop("latency")) if "latency" in attrs else math.nan
        except ValueError as ex:
            raise TraceError(path, None, f"edge {e[0]} -- {e[1]}: {ex}") from None
        topo.add_edge(str(e[0]), str(e[1]), bw, lat, **attrs)
    return topo


def _quote(text):
    """`text` as a quoted DOT string that reads back identical: in one, `\\"` is the
    only escape (a quote), a backslash before a line break is dropped, every other
    character is kept, line breaks too. None when no string can hold it (a backslash
    before a quote, a line break or the end)."""
    text = str(text)
    if re.search(r'\\(?=["\n\r]|$)', text):
        return None
    return '"' + text.replace('"', '\\"') + '"'


def _quoted(text, what, source):
    q = _quote(text)
    if q is None:
        raise TraceError(source, None, f"{what} {text!r}: a backslash before a quote, a line "
                         "break or the end of a name cannot be written in DOT")
    return q


def _attrs(d, source):
    return (" [" + ", ".join(f"{k}={_quoted(v, 'attribute ' + k, source)}"
                             for k, v in d.items()) + "]" if d else "")


def write_dot(topo, out, comment=""):
    """Write `topo` as an undirected Graphviz graph to the path or text stream `out`.
    Numbers use repr() so that reading the file back gives the same values."""
    src = topo.source
    lines = [f"// {c}" for c in comment.splitlines()]
    lines.append(f"graph {_quoted(topo.name, 'graph', src)} {{")
    for n in topo.names:  # cgraph keeps such names as anonymous ids (local names)
        if str(n).startswith("%"):
            raise TraceError(src, None, f"node {n!r}: a name starting with '%' cannot be "
                                        "written in DOT (Graphviz takes it for an anonymous id)")
    names = [_quoted(n, "node", src) for n in topo.names]
    for name, kind, attrs in zip(names, topo.kinds, topo.node_attrs):
        lines.append(f"  {name}{_attrs({'kind': kind, **attrs}, src)};")
    for a, b, bw, lat, attrs in zip(topo.src.tolist(), topo.dst.tolist(),
                                    topo.bandwidth.tolist(), topo.latency.tolist(),
                                    topo.edge_attrs):
        d = {}
        if not math.isnan(bw):
            d["bandwidth"] = repr(bw)
        if not math.isnan(lat):
            d["latency"] = repr(lat)
        d.update(attrs)
        lines.append(f"  {names[a]} -- {names[b]}{_attrs(d, src)};")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    if hasattr(out, "write"):
        out.write(text)
    else:
        from ..output import write_text
        write_text(out, text)
