"""Layouts, the matcher, the communication graph and treemaps, on real pairs of
trace and platform and on small traces whose answers are worked out by hand."""
import json
import subprocess
import sys

import numpy as np
import pytest

from conftest import HEADER, SIZED_LINK
from triva3d import load
from triva3d.bases import graphlayout, matcher
from triva3d.bases.appgraph import comm_graph
from triva3d.bases.layout import UNIT, make_layout, on_graph, on_hierarchy, on_treemap
from triva3d.bases.readers import read_topology
from triva3d.bases.topology import Topology
from triva3d.bases.treemap import read_hierarchy, treemap
from triva3d.errors import OptionsError, TraceError

# Hosts of small_platform.xml with processes on them, as SimGrid MSG traces have them.
PROCS = """\
0 HOST 0 "HOST"
0 PROC HOST "PROCESS"
0 LOST 0 "LOST"
2 S PROC "state"
6 0 Tremblay HOST 0 "Tremblay"
6 0 Jupiter HOST 0 "Jupiter"
6 0 p1 PROC Tremblay "master-1"
6 0 p2 PROC Tremblay "worker-2"
6 0 p3 PROC Tremblay "worker-3"
6 0 p4 PROC Tremblay "worker-4"
6 0 p5 PROC Jupiter "worker-5"
6 0 lost LOST 0 "orphan"
11 1 p1 S run
"""


@pytest.fixture
def small(data, trace_file):
    return (load(trace_file(HEADER + PROCS), cache=False),
            read_topology(str(data / "platforms/small_platform.xml")))


def names(trace, rows):
    return [trace.names.display(trace.containers.name[c]) for c in rows]


def row(trace, name):
    (c,) = trace.find("containers", name)
    return int(c)


def test_g5k_trace_on_g5k_platform(data):
    tr = load(data / "paje/g5k.trace")
    lay = on_graph(tr, read_topology(str(data / "platforms/g5k.xml")))
    cont = tr.containers
    for tname in ("HOST", "ROUTER", "LINK"):
        t = [i for i in range(len(tr.types)) if tr.display_name("types", i) == tname]
        rows = np.flatnonzero(np.isin(cont.type, t))
        assert len(rows) == {"HOST": 1528, "ROUTER": 62, "LINK": 3142}[tname]
        assert (lay.rule[rows] == matcher.R_NAME).all()
        assert [lay.node_names[n] for n in lay.node[rows]] == names(tr, rows)
    assert lay.report["by rule"]["unplaced"] == 0
    # zones cover their hosts, routers and links
    zones = np.flatnonzero(lay.rule == matcher.R_DESCENDANTS)
    assert len(zones) == 65 + 1
    host = row(tr, "edel-3.grenoble.grid5000.fr")
    zone = cont.parent[host]
    assert abs(lay.x[host] - lay.x[zone]) <= lay.w[zone] / 2
    assert abs(lay.y[host] - lay.y[zone]) <= lay.h[zone] / 2


def test_processes_land_on_their_hosts(small):
    tr, topo = small
    lay = on_graph(tr, topo)
    trem = topo.index["Tremblay"]
    for p in ("master-1", "worker-2", "worker-3", "worker-4"):
        c = row(tr, p)
        assert lay.node[c] == trem and matcher.RULES[lay.rule[c]] == "ancestor"
    # four processes share Tremblay's square, which is sqrt(4) = 2 units wide
    assert lay.node_rects[trem, 2] == 2 * UNIT
    assert lay.node_rects[topo.index["Jupiter"], 2] == UNIT
    cells = [row(tr, p) for p in ("master-1", "worker-2", "worker-3", "worker-4")]
    xy = {(round(lay.x[c], 6), round(lay.y[c], 6)) for c in cells}
    assert len(xy) == 4
    cx, cy = lay.node_rects[trem, :2]
    assert all(abs(x - cx) < UNIT and abs(y - cy) < UNIT for x, y in xy)
    # the host container covers its whole square
    h = row(tr, "Tremblay")
    assert (lay.x[h], lay.y[h], lay.w[h]) == (cx, cy, 2 * UNIT)
    # the orphan matches nothing: reported, and drawn beside the base
    o = row(tr, "orphan")
    assert lay.report["by rule"]["unplaced"] == 1 and lay.report["unplaced examples"] == ["orphan"]
    ax, ay, aw, ah = lay.unplaced_area
    assert abs(lay.x[o] - ax) < aw / 2 and abs(lay.y[o] - ay) < ah / 2
    right = (lay.node_rects[:, 0] + lay.node_rects[:, 2] / 2).max()
    assert ax - aw / 2 > right


def test_rules_in_order(small, tmp_path):
    tr, topo = small
    csv = tmp_path / "map.csv"
    csv.write_text("container,node\nworker-2,Fafard\nnobody,Ginette\n")
    lay = on_graph(tr, topo, mapping=str(csv), pattern=r"worker-(\d)")  # group 1: no node
    assert lay.node_names[lay.node[row(tr, "worker-2")]] == "Fafard"
    assert matcher.RULES[lay.rule[row(tr, "worker-2")]] == "mapping"
    assert lay.report["unused mapping examples"] == ["nobody"]
    lay = on_graph(tr, topo, pattern=r"(?P<node>orphan)|worker-5")
    assert lay.report["by rule"]["unplaced"] == 1       # "orphan" is no node either
    lay = on_graph(tr, topo, pattern=r"^orph(an)$")
    assert lay.report["by rule"]["unplaced"] == 1
    rx_topo = Topology()
    for n in ("Tremblay", "Jupiter", "an"):
        rx_topo.add_node(n, "host")
    lay = on_graph(tr, rx_topo, pattern=r"^orph(an)$")
    assert matcher.RULES[lay.rule[row(tr, "orphan")]] == "pattern"
    bad = tmp_path / "bad.csv"
    bad.write_text("worker-2,Fafard\nworker-3,Atlantis\n")
    with pytest.raises(TraceError) as e:
        on_graph(tr, topo, mapping=str(bad))
    assert e.value.line == 2 and "Atlantis" in e.value.message
    twice = tmp_path / "twice.csv"   # the last row won silently (issue 17)
    twice.write_text("worker-2,Fafard\nworker-3,Fafard\nworker-2,Ginette\n")
    with pytest.raises(TraceError) as e:
        on_graph(tr, topo, mapping=str(twice))
    assert e.value.line == 3 and "'worker-2' is mapped again (first at line 1)" in str(e.value)
    with pytest.raises(OptionsError, match="bad regular expression"):
        on_graph(tr, topo, pattern="(unclosed")
    with pytest.raises(OptionsError, match="RE2 syntax: no backreferences or lookaround"):
        on_graph(tr, topo, pattern="(?<=work)(er)")


def test_a_pattern_cannot_stall_a_load():
    """'(a+)+$' on names of 40 'a's and a 'b' backtracked for minutes in Python's re
    (issue 17); RE2 matches in linear time, so this returns (in microseconds)."""
    rx = matcher.compile_pattern(r"(?P<node>(a+)+)$")
    names = ["a" * 40 + "b", "a" * 2000 + "!", "a" * 40]
    assert [bool(rx.search(n)) for n in names] == [False, False, True]


def test_layouts_are_repeatable_and_cached(data, monkeypatch):
    topo = read_topology(str(data / "platforms/cluster_fat_tree.xml"))
    for prog in ("neato", "sfdp", "dot"):
        a = graphlayout.layout(topo, prog, use_cache=False)
        b = graphlayout.layout(topo, prog, use_cache=False)
        np.testing.assert_array_equal(a, b)
        assert a.shape == (len(topo), 2) and np.isfinite(a).all()
    first = graphlayout.layout(topo)
    monkeypatch.setattr(graphlayout, "_run", lambda *a: pytest.fail("layout not cached"))
    np.testing.assert_array_equal(graphlayout.layout(topo), first)
    assert graphlayout.default_program(100) == "neato"
    assert graphlayout.default_program(10_000) == "sfdp"


def test_positions_in_the_file_are_kept(tmp_path):
    p = tmp_path / "g.dot"
    p.write_text('graph { a [pos="0,0"]; b [pos="100,0"]; c [pos="50,80!"]; a -- b -- c; }\n')
    topo = read_topology(str(p))
    np.testing.assert_array_equal(graphlayout.layout(topo), [[0, 0], [100, 0], [50, 80]])
    p.write_text('graph { a [pos="0,0"]; b [pos="300,0"]; a -- c -- b; }\n')
    topo = read_topology(str(p))
    pos = graphlayout.layout(topo, "neato", use_cache=False)
    np.testing.assert_allclose(pos[:2], [[0, 0], [300, 0]])


DOT_TEXT = (
    'graph G {\n  graph [overlap=scale, start=1, splines=false, outputorder=edgesfirst];\n'
    '  node [shape=box, fixedsize=true, label=""];\n  n0 [width=0.25, height=0.25];\n'
    '  n1 [width=0.5, height=0.5];\n  n2 [width=0.25, height=0.25];\n'
    '  n3 [width=0.25, height=0.25];\n  n4 [width=0.2847222222222222, '
    'height=0.2847222222222222, pos="1.0,2.0!", pin=true];\n'
    '  n0 -- n1;\n  n0 -- n3;\n  n1 -- n2;\n  n3 -- n4;\n}\n')


def test_dot_text_stays_byte_identical(monkeypatch):
    """Layouts are cached by the DOT text given to Graphviz: it must not change
    (each edge once, lower node first, in order of first appearance, no self-loop),
    however many edges it is written in at a time."""
    t = Topology()
    for n in "abcd":
        t.add_node(n)
    t.add_node("e", pos="72,144")
    for a, b in [("a", "b"), ("b", "a"), ("c", "c"), ("d", "a"), ("b", "c"), ("a", "b"),
                 ("e", "d")]:
        t.add_edge(a, b)
    sizes = np.array([18.0, 36, 18, 18, 20.5])
    assert graphlayout._dot_text(t, "neato", sizes, t.positions()) == DOT_TEXT
    monkeypatch.setattr(graphlayout, "CHUNK", 2)
    assert graphlayout._dot_text(t, "neato", sizes, t.positions()) == DOT_TEXT
    monkeypatch.setattr(graphlayout, "CHUNK", 1)
    assert graphlayout._dot_text(t, "neato", sizes, t.positions()) == DOT_TEXT


def test_undirected_edges_once_in_first_order():
    rng = np.random.default_rng(5)
    for sort in (False, True):  # sorted and once each: a communication graph's edges
        a, b = rng.integers(0, 40, 500), rng.integers(0, 40, 500)
        if sort:
            key = np.unique(np.minimum(a, b) * 40 + np.maximum(a, b))
            a, b = key // 40, key % 40
        t = Topology()
        for i in range(40):
            t.add_node(f"n{i}")
        t.add_edges(a, b)
        want = {}
        for x, y in zip(a.tolist(), b.tolist()):
            if x != y:
                want.setdefault((min(x, y), max(x, y)), None)
        lo, hi = graphlayout.undirected_edges(t)
        assert list(zip(lo.tolist(), hi.tolist())) == list(want)


def test_comm_graph(trace_file):
    # Three processes on two hosts; links with Size: p1->p2 (same host), p1->p3 twice,
    # p3->p2 once, one of them outside the window [0, 5].
    header = HEADER.replace("% Key string\n%EndEventDef\n%EventDef PajeEndLink",
                            "% Key string\n% Size double\n%EndEventDef\n%EventDef PajeEndLink")
    body = """\
0 H 0 "Host"
0 P H "Proc"
4 L 0 P P "msg"
6 0 h1 H 0 "h1"
6 0 h2 H 0 "h2"
6 0 p1 P h1 "p1"
6 0 p2 P h1 "p2"
6 0 p3 P h2 "p3"
15 1 0 L p1 m k1 100
16 2 0 L p2 m k1
15 1 0 L p1 m k2 1000
16 3 0 L p3 m k2
15 4 0 L p1 m k3 10
16 4.5 0 L p3 m k3
15 6 0 L p3 m k4 5
16 7 0 L p2 m k4
"""
    tr = load(trace_file(header + body), cache=False)
    g, rows = comm_graph(tr, level="Host")
    assert g.names == ["h1", "h2"] and g.n_edges == 1
    assert [tr.display_name("containers", c) for c in rows] == ["h1", "h2"]
    assert g.edge_attrs[0] == {"count": 3, "bytes": 1015.0}
    assert type(g.edge_attrs[0]["count"]) is int and type(g.edge_attrs[0]["bytes"]) is float
    assert g.node_attrs[0]["internal"] == "1"
    w, _ = comm_graph(tr, level="Host", window=(0.0, 5.0))
    assert w.edge_attrs[0] == {"count": 2, "bytes": 1010.0}
    p, _ = comm_graph(tr)      # default level: the type of the link ends
    assert p.names == ["p1", "p2", "p3"] and p.n_edges == 3
    by_pair = {frozenset((p.names[a], p.names[b])): at["count"]
               for a, b, at in zip(p.src, p.dst, p.edge_attrs)}
    assert by_pair == {frozenset(("p1", "p2")): 1, frozenset(("p1", "p3")): 2,
                       frozenset(("p2", "p3")): 1}
    lay = make_layout(tr, base="appgraph", level="1")
    assert lay.base == "appgraph" and lay.report["by rule"]["unplaced"] == 0
    assert matcher.RULES[lay.rule[row(tr, "p3")]] == "ancestor"


def _pairs_one_by_one(tr, rows, window=None):
    """The communication graph as the per-edge code built it, message by message
    in plain Python: ({(row a, row b), a < b: (count, bytes)}, {row: internal})."""
    from triva3d.analysis.metrics import link_bytes
    from triva3d.analysis.roles import platform_link_types
    cont, ln = tr.containers, tr.links
    at = set(rows.tolist())

    def up(c):
        while c >= 0 and c not in at:
            c = int(cont.parent[c])
        return c
    size = link_bytes(tr)
    platform = platform_link_types(tr)
    pairs, internal = {}, {}
    for i in range(len(ln)):
        if platform[ln.type[i]] or (window and not (ln.start[i] <= window[1]
                                                    and ln.end[i] >= window[0])):
            continue
        a, b = up(int(ln.start_container[i])), up(int(ln.end_container[i]))
        if a < 0 or b < 0:
            continue
        if a == b:
            internal[a] = internal.get(a, 0) + 1
            continue
        n, nb = pairs.get((min(a, b), max(a, b)), (0, 0.0))
        pairs[min(a, b), max(a, b)] = (n + 1, nb + (0.0 if np.isnan(size[i]) else size[i]))
    return pairs, internal


def _check_columns(tr, level=None, window=None):
    g, rows = comm_graph(tr, level, window)
    pairs, internal = _pairs_one_by_one(tr, rows, window)
    cols = g.edge_attrs.columns
    assert set(cols) == {"count", "bytes"}
    assert cols["count"].dtype.kind in "iu" and cols["bytes"].dtype.kind == "f"  # (narrowed)
    assert g.src.dtype == g.dst.dtype == np.int32 and g.n_edges == len(pairs)
    # one edge per pair, in the order of (lower, higher) container row
    assert list(zip(rows[g.src].tolist(), rows[g.dst].tolist())) == sorted(pairs)
    assert cols["count"].tolist() == [pairs[k][0] for k in sorted(pairs)]
    np.testing.assert_allclose(cols["bytes"], [pairs[k][1] for k in sorted(pairs)], rtol=1e-12)
    assert np.isnan(g.bandwidth).all() and np.isnan(g.latency).all()
    assert {int(rows[i]): int(a["internal"]) for i, a in enumerate(g.node_attrs)
            if "internal" in a} == internal
    return g


def test_comm_graph_columns_on_real_traces(data):
    """The columns hold what adding the edges one message at a time gives."""
    g = _check_columns(load(str(data / "otf2/ping-pong-otf2/traces.otf2"), cache=False))
    assert list(g.edge_attrs) == [{"count": 16, "bytes": 8355840.0}]
    g = _check_columns(load(str(data / "paje/links.trace"), cache=False))
    assert g.names == ["p1", "p2", "p3"] and list(g.edge_attrs) == [{"count": 1, "bytes": 0.0}] * 2


def test_comm_graph_columns_on_many_messages(trace_file):
    """Random messages between 24 processes on 6 hosts, some with a Size, some
    inside one host: every level and a window give what the per-message loop gives."""
    rng = np.random.default_rng(3)
    body = ['0 H 0 "Host"', '0 P H "Proc"', '4 L 0 P P "msg"']
    body += [f'6 0 h{h} H 0 "h{h}"' for h in range(6)]
    body += [f'6 0 p{p} P h{p % 6} "p{p}"' for p in range(24)]
    t = 0.0
    for k in range(3000):
        a, b = rng.integers(0, 24, 2)
        t += 1.0
        if rng.random() < 0.7:
            body.append(f"20 {t!r} 0 L p{a} m k{k} {int(rng.integers(1, 10**6))}")
        else:
            body.append(f"15 {t!r} 0 L p{a} m k{k}")
        body.append(f"16 {t + 0.9 * float(rng.random())!r} 0 L p{b} m k{k}")
    tr = load(trace_file(HEADER + SIZED_LINK + "\n".join(body) + "\n"), cache=False)
    g = _check_columns(tr)
    assert len(g) == 24 and g.n_edges == 24 * 23 // 2
    assert (g.edge_attrs.columns["bytes"] > 0).all()
    assert len(_check_columns(tr, level="Host").names) == 6
    assert _check_columns(tr, window=(100.0, 130.0)).n_edges < g.n_edges
    lay = make_layout(tr, base="appgraph")
    assert list(lay.edge_attrs) == list(g.edge_attrs)
    np.testing.assert_array_equal(lay.edges, np.c_[g.src, g.dst])


def test_appgraph_edge_pick_shows_its_fields(trace_file):
    """A picked communication-graph edge tells its ends, count and bytes as numbers."""
    from triva3d.scene.pick import details
    tr = load(trace_file(HEADER + SIZED_LINK + TYPES_AND_MESSAGES), cache=False)
    lay = make_layout(tr, base="appgraph")
    got = details(tr, lay, "edge", 0)
    assert {got["source"], got["target"]} == {"P1", "P2"}
    assert got["count"] == 2 and got["bytes"] == 1500.0 and np.isnan(got["bandwidth"])


TYPES_AND_MESSAGES = """\
0 P 0 "Process"
4 L 0 P P "Msg"
6 0 p1 P 0 "P1"
6 0 p2 P 0 "P2"
20 1 0 L p1 m k1 1000
16 2 0 L p2 m k1
20 3 0 L p2 m k2 500
16 4 0 L p1 m k2
"""


def test_treemap_areas_are_exact():
    rng = np.random.default_rng(7)
    for _ in range(20):
        n = int(rng.integers(2, 300))
        parent = np.r_[-1, [rng.integers(0, i) for i in range(1, n)]]
        size = rng.random(n) * (rng.random(n) > 0.1)
        rects, value = treemap(parent, size, 300.0, 200.0)
        area = rects[:, 2] * rects[:, 3]
        # every node's area is its share of the total (own size plus descendants')
        total = size.sum()
        expect = np.zeros(n)
        for i in range(n):
            j = i
            while j >= 0:
                expect[j] += size[i]
                j = parent[j]
        np.testing.assert_allclose(area, expect / total * 60000.0, atol=1e-9)
        np.testing.assert_allclose(value, expect)
        # children inside their parent, siblings not overlapping
        kids = np.arange(1, n)
        p = parent[kids]
        eps = 1e-9
        assert (rects[kids, 0] >= rects[p, 0] - eps).all()
        assert (rects[kids, 0] + rects[kids, 2] <= rects[p, 0] + rects[p, 2] + eps).all()
        assert (rects[kids, 1] + rects[kids, 3] <= rects[p, 1] + rects[p, 3] + eps).all()
        padded, _ = treemap(parent, size, 300.0, 200.0, pad=2.0)
        parea = padded[:, 2] * padded[:, 3]
        for q in np.unique(p):
            sib = kids[(p == q) & (value[kids] > 0)]
            if len(sib) > 1:
                np.testing.assert_allclose(parea[sib] / parea[sib].sum(),
                                           value[sib] / value[sib].sum(), rtol=1e-9)
        np.testing.assert_array_equal(treemap(parent, size, 300.0, 200.0)[0], rects)


def test_squarified_rows():
    # Bruls et al.'s example: 6, 6, 4, 3, 2, 2, 1 in a 6 x 4 rectangle
    parent = np.r_[-1, np.zeros(7, int)]
    rects, _ = treemap(parent, np.r_[0, 6, 6, 4, 3, 2, 2, 1], 6.0, 4.0)
    np.testing.assert_allclose(rects[1], [0, 0, 3, 2])       # first row: 6, 6 in a column
    np.testing.assert_allclose(rects[2], [0, 2, 3, 2])
    assert rects[3, 0] == pytest.approx(3)                   # 4 starts the next row


def test_container_treemap_by_state_time(data):
    tr = load(data / "paje/native_sample.trace")
    value = "Executing"      # time in a state value: expected from pj_dump's reference
    expect = {}
    for line in (data / "paje-reference/native_sample.trace.pj_dump.csv").read_text().splitlines():
        f = line.split(", ")
        if f[0] == "State" and f[7].strip('"') == value:
            expect[f[1].strip('"')] = expect.get(f[1].strip('"'), 0.0) + float(f[5])
    lay = on_treemap(tr, metric=f"state:{value}", width=100.0, height=100.0, pad=0.0)
    total = sum(expect.values())
    for name, seconds in expect.items():
        c = row(tr, name)
        assert lay.w[c] * lay.h[c] == pytest.approx(seconds / total * 1e4, rel=1e-5)
    with pytest.raises(OptionsError, match="no value named 'Dancing'"):
        on_treemap(tr, metric="state:Dancing")


def test_hierarchy_file(tmp_path, small):
    tr, _ = small
    h = {"name": "grid", "type": "grid", "children": [
        {"name": "siteA", "type": "site", "children": [
            {"name": "Tremblay", "type": "host", "size": 3}, {"name": "Fafard", "type": "host"}]},
        {"name": "Jupiter", "type": "host", "size": 4}]}
    p = tmp_path / "h.json"
    p.write_text(json.dumps(h))
    names, types, parent, sizes = read_hierarchy(str(p))
    assert names == ["grid", "siteA", "Tremblay", "Fafard", "Jupiter"]
    assert parent.tolist() == [-1, 0, 1, 1, 0]
    lay = make_layout(tr, topology=str(p))
    area = lay.node_rects[:, 2] * lay.node_rects[:, 3]
    assert area[2] / area[3] == pytest.approx(3)           # siblings share exactly
    flat = on_hierarchy(tr, str(p), pad=0.0)
    a = flat.node_rects[:, 2] * flat.node_rects[:, 3]
    np.testing.assert_allclose(a / a[0], [1, 4 / 8, 3 / 8, 1 / 8, 4 / 8])
    assert lay.node_names[lay.node[row(tr, "worker-5")]] == "Jupiter"
    p.write_text('{"name": "x", "children": [{"type": "host"}]}')
    with pytest.raises(TraceError):
        read_hierarchy(str(p))


def test_place_command(data, trace_file, tmp_path):
    t = trace_file(HEADER + PROCS)
    out = tmp_path / "map.csv"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "place", str(t), "--topology",
                        str(data / "platforms/small_platform.xml"), "--csv", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = out.read_text().splitlines()
    assert rows[0] == "container,type,node,rule,x,y,w,h" and len(rows) == 1 + 8
    assert any(x.startswith("worker-5,PROCESS,Jupiter,ancestor,") for x in rows)
    assert "unplaced: 1" in r.stdout and "orphan" in r.stdout
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "place", str(t), "--topology",
                        str(tmp_path / "none.dot")], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("triva3d: error: ") \
        and r.stderr.count("\n") == 1


def test_communication_graph_of_ranks_sharing_a_thread_name(data):
    """Score-P names every rank's thread "Master thread": the reader tells them apart
    and the graph places each location on its own node, by row, not by name."""
    tr = load(data / "otf2/ping-pong-otf2", cache=False)
    threads = [tr.display_name("containers", c) for c in tr.level("CPU_THREAD")]
    assert threads == ["MPI Rank 0 / Master thread", "MPI Rank 1 / Master thread"]
    lay = make_layout(tr, base="appgraph")
    assert lay.node_names == threads and lay.unplaced == 0
    assert sorted(lay.node[tr.level("CPU_THREAD")]) == [0, 1]


def test_platform_links_make_no_communication_graph(data):
    tr = load(data / "paje/g5k.trace")
    with pytest.raises(TraceError, match="no messages to draw a communication graph"):
        make_layout(tr, base="appgraph")


def test_treemap_sizes_near_the_float_limit_keep_their_proportions():
    """Sizes 1e308 + 1e308 overflowed to infinity and every area became 0 (issue 17)."""
    from triva3d.bases.treemap import treemap
    rects, value = treemap([-1, 0, 0, 0], [0.0, 1e308, 1e308, 5e307], 10.0, 10.0)
    areas = rects[1:, 2] * rects[1:, 3]
    np.testing.assert_allclose(areas / 100.0, [0.4, 0.4, 0.2])
    assert value[1] == 1e308 and np.isinf(value[0])   # the true total does not fit a double


# Issue 25.5: SMPI names its ranks rank-N; small_platform.xml has links named 0, 1, 2.
RANKS = HEADER + """\
0 P 0 "MPI"
2 S P "MPI_STATE"
6 0 r0 P 0 "rank-0"
6 0 r1 P 0 "rank-1"
6 0 r2 P 0 "rank-2"
"""


def test_a_pattern_puts_ranks_on_hosts_not_on_links(data, trace_file):
    """--pattern 'rank-(\\d)' put the ranks on the links named 0, 1, 2 without a word:
    they stay off nodes that are not hosts, and the report says so."""
    tr = load(trace_file(RANKS), cache=False)
    topo = data / "platforms" / "small_platform.xml"
    platform = read_topology(str(topo))
    assert platform.kinds[platform.index["0"]] == "link"
    lay = make_layout(tr, topology=str(topo), pattern=r"rank-(\d)", use_cache=False)
    assert (lay.node[1:] < 0).all()
    assert lay.report["kept off other kinds"] == 3
    assert any(line.startswith("kept off nodes that are not hosts: 3") for line in lay.summary())


def test_simgrid_hostfile_and_deployment_as_mapping(data, trace_file, tmp_path):
    tr = load(trace_file(RANKS), cache=False)
    topo = data / "platforms" / "small_platform.xml"
    hostfile = tmp_path / "hostfile"
    hostfile.write_text("Tremblay\n# a comment\nJupiter:2\nFafard\n")
    deploy = tmp_path / "deploy.xml"
    deploy.write_text("""<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <actor host="Ginette" function="2"><prop id="rank" value="2"/></actor>
  <actor host="Bourassa" function="0"><prop id="rank" value="0"/></actor>
  <actor host="Fafard" function="1"><prop id="rank" value="1"/></actor>
</platform>
""")
    for mapping, want in ((hostfile, ["Tremblay", "Jupiter", "Jupiter"]),
                          (deploy, ["Bourassa", "Fafard", "Ginette"])):
        lay = make_layout(tr, topology=str(topo), mapping=str(mapping), use_cache=False)
        got = [lay.node_names[lay.node[tr.find("containers", f"rank-{i}")[0]]] for i in range(3)]
        assert got == want
        assert lay.report["on kinds"] == {"host": 3}
        assert "on node kinds: host 3" in lay.summary()
    hostfile.write_text("Tremblay\nNowhere\n")
    with pytest.raises(TraceError, match=r"hostfile:2: no node 'Nowhere' in the topology"):
        make_layout(tr, topology=str(topo), mapping=str(hostfile), use_cache=False)
    deploy.write_text("<platform><actor host='Tremblay'>")
    with pytest.raises(TraceError, match="not a SimGrid deployment"):
        make_layout(tr, topology=str(topo), mapping=str(deploy), use_cache=False)


def test_a_simgrid_trace_keeps_its_links_on_its_link_nodes(data):
    """The platform trace's LINK containers are matched by name to the link nodes of
    the same trace (their own kind): nothing is kept off."""
    path = data / "paje" / "simu-mardi.trace"
    tr = load(path)
    lay = make_layout(tr, topology=str(path))
    assert lay.report["kept off other kinds"] == 0
    assert lay.report["on kinds"] == {"host": 101, "link": 203, "router": 1}  # as stats counts
