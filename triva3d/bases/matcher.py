"""The entity matcher: which base node each container stands on, and where.

Rules, first that applies: an explicit mapping file (`container,node` CSV, a
SimGrid hostfile or deployment), a user pattern (a regex whose group `node`, else
group 1, names the node), the container's exact name, its nearest placed ancestor's
node. A pattern or a name puts containers on hosts (or untyped nodes) only: a link,
router or switch node takes the containers of its own kind (a SimGrid trace's LINK
containers) and those a mapping puts there; what a pattern or name would have put
elsewhere is reported. A container that matches nothing but has placed descendants
covers their bounding box ("descendants"); the rest are unplaced: reported and put
in a visible area beside the base, never dropped.
"""
import csv
import io
import math
import re
import xml.etree.ElementTree as ET

import numpy as np
from numba import njit

from ..errors import OptionsError, TraceError, read_text

RULES = ("unplaced", "mapping", "pattern", "name", "ancestor", "descendants")
R_UNPLACED, R_MAPPING, R_PATTERN, R_NAME, R_ANCESTOR, R_DESCENDANTS = range(6)


#: Node kinds that a pattern or a name places any container on.
HOST_KINDS = ("host", "node")
#: The rank names of SimGrid's SMPI traces, as a hostfile or deployment places them.
RANK_NAME = "rank-{}"


def read_mapping(path, node_index):
    """A mapping file as a dict of container name -> node index; unknown nodes are
    errors. Accepted: a `container,node` CSV (`#` comments; a first row naming those
    columns is allowed); a SimGrid hostfile (one host a line, `host:N` for N ranks:
    rank i on the i-th); a SimGrid deployment XML (its actors in order, or by their
    `rank` property). Ranks are SMPI's container names, `rank-I`."""
    text = read_text(path, "the mapping")
    if text.lstrip().startswith("<"):
        return _deployment(path, text, node_index)
    lines = [ln.strip() for ln in text.splitlines()]
    if not any("," in ln for ln in lines if not ln.startswith("#")):
        return _hostfile(path, lines, node_index)
    out, lines = {}, {}
    first = True
    rows = csv.reader(io.StringIO(text, newline=""))
    while True:
        try:
            row = next(rows)
        except StopIteration:
            return out
        except csv.Error as e:  # a field over csv's limit, a stray quote...
            raise TraceError(path, rows.line_num, f"not a CSV row: {e}") from None
        if not row or not "".join(row).strip() or row[0].lstrip().startswith("#"):
            continue
        if len(row) != 2:
            raise TraceError(path, rows.line_num,
                             f"expected 'container,node', got {len(row)} fields")
        container, node = row[0].strip(), row[1].strip()
        header = first and (container.lower(), node.lower()) == ("container", "node")
        first = False
        if header:
            continue
        if node not in node_index:
            raise TraceError(path, rows.line_num, f"no node {node!r} in the topology")
        if container in out:
            raise TraceError(path, rows.line_num, f"{container!r} is mapped again (first at "
                             f"line {lines[container]})")
        out[container], lines[container] = node_index[node], rows.line_num


def _host(path, line, name, node_index):
    if name not in node_index:
        raise TraceError(path, line, f"no node {name!r} in the topology")
    return node_index[name]


def _hostfile(path, lines, node_index):
    """SimGrid's hostfile (smpirun -hostfile): rank i on the i-th host, a line
    `host:N` holding N consecutive ranks."""
    out = {}
    for number, line in enumerate(lines, 1):
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r"(.+?)(?::(\d+))?", line)
        host, count = m.group(1).strip(), int(m.group(2) or 1)
        if count > 1_000_000:
            raise TraceError(path, number, f"{count} ranks on one host: at most 1000000")
        j = _host(path, number, host, node_index)
        for _ in range(count):
            out[RANK_NAME.format(len(out))] = j
    return out


def _deployment(path, text, node_index):
    """SimGrid's deployment XML: each `actor` (or `process`) element is a rank, in
    document order unless it has a `rank` property (as smpirun writes)."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        raise TraceError(path, e.position[0], f"not a SimGrid deployment (XML): {e}") from None
    out = {}
    actors = [e for e in root.iter() if e.tag in ("actor", "process")]
    if not actors:
        raise TraceError(path, None, "a deployment without any actor element")
    for i, e in enumerate(actors):
        rank = next((p.get("value") for p in e.iter("prop") if p.get("id") == "rank"), None)
        if rank is not None and not re.fullmatch(r"[0-9]+", rank):
            raise TraceError(path, None, f"actor {i}: rank {rank!r} is not a number")
        host = e.get("host")
        if host is None:
            raise TraceError(path, None, f"actor {i} has no host attribute")
        name = RANK_NAME.format(int(rank) if rank is not None else i)
        if name in out:
            raise TraceError(path, None, f"{name} is deployed twice")
        out[name] = _host(path, None, host, node_index)
    return out


def compile_pattern(pattern):
    """`pattern` compiled by RE2, whose matching takes linear time: no pattern can
    stall a load (Python's backtracking `re` took minutes for '(a+)+$' on a name of
    40 characters). RE2 has no backreferences and no lookaround."""
    import re2
    options = re2.Options()
    options.log_errors = False  # else RE2 writes its own lines on stderr
    try:
        rx = re2.compile(pattern, options)
    except re2.error as e:
        why = e.args[0].decode("utf-8", "replace") if e.args and \
            isinstance(e.args[0], bytes) else str(e)
        raise OptionsError(f"bad regular expression {pattern!r}: {why} (RE2 syntax: no "
                           "backreferences or lookaround)") from None
    if rx.groups == 0:
        raise OptionsError(f"pattern {pattern!r} has no group to name the node")
    return rx


def direct_matches(trace, node_index, mapping=None, pattern=None):
    """Per container: node index and rule from the mapping, pattern and name rules
    (-1 / R_UNPLACED where none applies), and the mapping keys no container used."""
    cont = trace.containers
    codes, inv = np.unique(cont.name, return_inverse=True)
    u_node = np.full(len(codes), -1, dtype=np.int32)
    u_rule = np.zeros(len(codes), dtype=np.int8)
    rx = compile_pattern(pattern) if pattern else None
    used = set()
    for i, code in enumerate(codes):
        name = trace.names.display(code)
        if mapping and name in mapping:
            u_node[i], u_rule[i] = mapping[name], R_MAPPING
            used.add(name)
            continue
        if rx is not None:
            m = rx.search(name)
            if m:
                key = m.group("node") if "node" in rx.groupindex else m.group(1)
                if key in node_index:
                    u_node[i], u_rule[i] = node_index[key], R_PATTERN
                    continue
        j = node_index.get(name)
        if j is not None:
            u_node[i], u_rule[i] = j, R_NAME
    node, rule = u_node[inv], u_rule[inv]
    node[0], rule[0] = -1, R_UNPLACED   # the root is the whole scene
    unused = sorted(set(mapping or ()) - used)
    return node, rule, unused


@njit(cache=True)
def _inherit(parent, node, rule):
    for c in range(1, len(parent)):
        if node[c] < 0 and parent[c] > 0 and node[parent[c]] >= 0:
            node[c] = node[parent[c]]
            rule[c] = 4  # R_ANCESTOR


def host_kinds_only(trace, node, rule, node_kinds):
    """Unplace what a pattern or a name put on a node that is neither a host nor of
    the container's own kind (a rank on the link '0'); returns those containers."""
    kinds = sorted(set(node_kinds))
    kind_code = np.array([kinds.index(k) for k in node_kinds] + [-1], np.int64)
    hostlike = np.array([k in HOST_KINDS for k in node_kinds] + [True])
    lowered = {k.lower(): i for i, k in enumerate(kinds)}
    type_kind = np.array([lowered.get(trace.display_name("types", t).lower(), -2)
                          for t in range(len(trace.types))], np.int64)
    on = node.copy()
    on[on < 0] = len(node_kinds)
    wrong = ((rule == R_PATTERN) | (rule == R_NAME)) & ~hostlike[on] \
        & (kind_code[on] != type_kind[trace.containers.type])
    out = np.flatnonzero(wrong)
    node[out], rule[out] = -1, R_UNPLACED
    return out


def match(trace, node_index, mapping=None, pattern=None, containers=None, node_kinds=None):
    """Node index (-1: none) and rule (index into RULES) of every container, the
    mapping keys no container used, and the containers kept off nodes that are not
    hosts (`node_kinds`: the kind of each node; None: any node takes any container);
    `containers` (the container of each node) replaces matching by name."""
    node, rule, unused = direct_matches(trace, node_index, mapping, pattern)
    kept_off = (host_kinds_only(trace, node, rule, node_kinds) if node_kinds is not None
                else np.zeros(0, np.int64))
    if containers is not None:
        by_name = rule == R_NAME
        node[by_name], rule[by_name] = -1, R_UNPLACED
        free = rule[containers] == R_UNPLACED
        node[containers[free]] = np.flatnonzero(free)
        rule[containers[free]] = R_NAME
    _inherit(trace.containers.parent, node, rule)
    return node, rule, unused, kept_off


@njit(cache=True)
def _cells(node, is_cell, n_nodes):
    """Rank of each cell container among the cells of its node, and cells per node."""
    count = np.zeros(n_nodes, dtype=np.int64)
    rank = np.full(len(node), -1, dtype=np.int64)
    for c in range(len(node)):
        if is_cell[c]:
            rank[c] = count[node[c]]
            count[node[c]] += 1
    return rank, count


@njit(cache=True)
def _group_boxes(parent, x, y, w, h, rule):
    """Containers without a footprint cover the bounding box of their placed children."""
    n = len(parent)
    lo_x = np.full(n, np.inf)
    lo_y = np.full(n, np.inf)
    hi_x = np.full(n, -np.inf)
    hi_y = np.full(n, -np.inf)
    for c in range(n - 1, -1, -1):
        if w[c] <= 0 and lo_x[c] < np.inf:
            x[c] = 0.5 * (lo_x[c] + hi_x[c])
            y[c] = 0.5 * (lo_y[c] + hi_y[c])
            w[c] = hi_x[c] - lo_x[c]
            h[c] = hi_y[c] - lo_y[c]
            rule[c] = 5  # R_DESCENDANTS
        p = parent[c]
        if p >= 0 and w[c] > 0:
            lo_x[p] = min(lo_x[p], x[c] - 0.5 * w[c])
            hi_x[p] = max(hi_x[p], x[c] + 0.5 * w[c])
            lo_y[p] = min(lo_y[p], y[c] - 0.5 * h[c])
            hi_y[p] = max(hi_y[p], y[c] + 0.5 * h[c])


def cells_per_node(trace, node, n_nodes):
    """Cells are containers on a node with no child on the same node; returns the
    cell mask, each cell's rank among its node's cells and the cells per node."""
    parent = trace.containers.parent
    has_child_here = np.zeros(len(node), dtype=bool)
    kids = np.flatnonzero((parent >= 0) & (node >= 0))
    same = node[parent[kids]] == node[kids]
    has_child_here[parent[kids[same]]] = True
    is_cell = (node >= 0) & ~has_child_here
    rank, count = _cells(node, is_cell, n_nodes)
    return is_cell, rank, count


def arrange(trace, node, rule, centers, sizes, gap=0.1):
    """Footprints (x, y, w, h per container; centre and size) on nodes at `centers`
    with square sides `sizes`, and the unplaced area (x, y, w, h) or None.

    The cells of a node share its square in a ceil(sqrt(k)) grid, in trace order;
    a container with children on its node covers the whole square; the rest
    cover their placed descendants or go to the unplaced area."""
    n = len(node)
    parent = trace.containers.parent
    is_cell, rank, count = cells_per_node(trace, node, len(centers))
    x, y, w, h = (np.zeros(n) for _ in range(4))
    on = node >= 0
    x[on], y[on] = centers[node[on], 0], centers[node[on], 1]
    w[on] = h[on] = sizes[node[on]]
    cell = np.flatnonzero(is_cell)
    g = np.ceil(np.sqrt(count[node[cell]])).astype(np.int64)
    side = sizes[node[cell]] / g
    col, row = rank[cell] % g, rank[cell] // g
    x[cell] += ((col + 0.5) / g - 0.5) * sizes[node[cell]]
    y[cell] += (0.5 - (row + 0.5) / g) * sizes[node[cell]]
    w[cell] = h[cell] = side * (1.0 - gap)
    rule = rule.copy()
    _group_boxes(parent, x, y, w, h, rule)
    lost = np.flatnonzero(w <= 0)
    lost = lost[lost > 0]
    area = None
    if len(lost):
        unit = float(np.median(sizes)) if len(sizes) else 1.0
        placed = np.flatnonzero(w > 0)
        edges_x = np.r_[x[placed] + w[placed] / 2, centers[:, 0] + sizes / 2]
        edges_y = np.r_[y[placed] + h[placed] / 2, centers[:, 1] + sizes / 2]
        right = float(edges_x.max()) if len(edges_x) else 0.0
        top = float(edges_y.max()) if len(edges_y) else 0.0
        g = math.ceil(math.sqrt(len(lost)))
        k = np.arange(len(lost))
        x0 = right + 2 * unit
        x[lost] = x0 + (k % g + 0.5) * unit
        y[lost] = top - (k // g + 0.5) * unit
        w[lost] = h[lost] = unit * (1.0 - gap)
        area = (x0 + g * unit / 2, top - math.ceil(len(lost) / g) * unit / 2,
                g * unit, math.ceil(len(lost) / g) * unit)
        rule[lost] = R_UNPLACED
    return x, y, w, h, rule, area
