"""Topology input: units, SimGrid platforms (clusters expanded as SimGrid does),
platform traces, Graphviz round trips, curated files, errors."""
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
import pytest

from triva3d import load
from triva3d.bases import units
from triva3d.bases.dotfile import read_dot, write_dot
from triva3d.bases.simgrid import radicals
from triva3d.bases import topology as topology_module
from triva3d.bases.readers import read_topology
from triva3d.bases.topology import EdgeAttrs, Topology, collapse_links, from_trace, info
from triva3d.errors import OptionsError, TraceError

REPO = Path(__file__).resolve().parents[1]


def test_units():
    assert units.bandwidth("125MBps") == 125e6
    assert units.bandwidth("1.25E9Bps") == 1.25e9
    assert units.bandwidth("10Gbps") == 1.25e9          # bits
    assert units.bandwidth("2KiBps") == 2048
    assert units.bandwidth("7") == 7
    assert units.latency("50us") == pytest.approx(5e-5, rel=1e-15)
    assert units.latency("1.0E-4s") == 1e-4
    assert units.latency("2ms") == 2e-3 and units.latency("0") == 0
    assert units.speed("98.095Mf") == pytest.approx(98.095e6, rel=1e-15)
    for bad in ("fast", "12 parsecs"):
        with pytest.raises(ValueError):
            units.bandwidth(bad)
    for parse, bad in ((units.bandwidth, "-1Gbps"), (units.latency, "-5us"),
                       (units.speed, "1e400f"), (units.speed, "1e300Ef"),
                       (units.latency, "1e308w")):  # (accepted: a negative edge width)
        with pytest.raises(ValueError, match="not a finite number at least 0"):
            parse(bad)
    assert radicals("1-3,7,9-10") == [1, 2, 3, 7, 9, 10]


def kinds(topo):
    return dict(zip(*np.unique(topo.kinds, return_counts=True)))


def test_flat_cluster_with_backbone(data):
    # 100 hosts; split-duplex private links (UP and DOWN), a backbone, a router.
    t = read_topology(str(data / "platforms/cluster_backbone.xml"))
    assert kinds(t) == {"host": 100, "link": 201, "router": 1}
    # host-UP, UP-backbone, backbone-DOWN, DOWN-host per host, and backbone-router
    assert t.n_edges == 4 * 100 + 1
    e = t.edge_set()
    assert frozenset(("node-7.simgrid.org", "cluster0_link_7_UP")) in e
    assert frozenset(("cluster0_backbone", "node-cluster0_router.simgrid.org")) in e
    up = t.index["cluster0_link_7_UP"]
    assert float(t.node_attrs[up]["bandwidth"]) == 125e6
    assert float(t.node_attrs[t.index["cluster0_backbone"]]["bandwidth"]) == 2.25e9


def test_torus(data):
    # TORUS 3,2,2: 12 hosts, one cable per host and dimension (36), split-duplex,
    # plus a loopback per host (loopback_bw given).
    t = read_topology(str(data / "platforms/cluster_torus.xml"))
    hosts, dims = 12, 3
    assert kinds(t) == {"host": hosts, "link": 2 * hosts * dims + hosts}
    assert t.n_edges == 2 * (2 * hosts * dims) + hosts
    # rank 2 has coordinates (2, 0, 0): its x neighbour wraps to rank 0
    assert frozenset(("node-2.simgrid.org", "bob_cluster_link_from_2_to_0_UP")) in t.edge_set()
    assert frozenset(("node-0.simgrid.org", "bob_cluster_link_from_2_to_0_UP")) in t.edge_set()


def test_fat_tree(data):
    # "2;4,4;1,2;1,2": 16 hosts, 4 leaf switches of 4 hosts, 2 core switches joined to
    # each leaf by 2 cables: 16 + 4*2*2 = 32 cables, split-duplex; 16 loopbacks.
    t = read_topology(str(data / "platforms/cluster_fat_tree.xml"))
    assert kinds(t) == {"host": 16, "switch": 6, "link": 2 * 32 + 16}
    assert t.n_edges == 2 * 2 * 32 + 16
    c = collapse_links(t)
    assert kinds(c) == {"host": 16, "switch": 6}
    deg = np.bincount(np.r_[c.src, c.dst], minlength=len(c))
    leaves = [c.index[f"bob_cluster_switch_1_{i}"] for i in range(4)]
    cores = [c.index[f"bob_cluster_switch_2_{i}"] for i in range(2)]
    assert deg[leaves].tolist() == [4 + 2] * 4 and deg[cores].tolist() == [4, 4]
    core_edges = [a for a in c.edge_attrs if len(a["links"].split()) == 4]
    assert len(core_edges) == 8          # 2 cables x (UP, DOWN) folded per leaf-core pair


def test_dragonfly(data):
    # "3,4;4,3;5,1;2": 3 groups x 4 chassis x 5 blades = 60 routers, 2 hosts each.
    g, c, b, n = 3, 4, 5, 2
    cables = g * c * b * n + g * c * math.comb(b, 2) + g * math.comb(c, 2) * b + math.comb(g, 2)
    t = read_topology(str(data / "platforms/cluster_dragonfly.xml"))
    hosts = g * c * b * n
    # split-duplex cables, a loopback and a limiter per host
    assert kinds(t) == {"host": hosts, "switch": g * c * b, "link": 2 * cables + 2 * hosts}
    assert t.n_edges == 2 * 2 * cables + 2 * hosts
    blue = [x for x in t.names if x.startswith("blue_link")]
    assert len(blue) == 2 * math.comb(g, 2)
    # blue links of group 0 to group 2 leave router 2 of group 0 and reach router 0 of group 2
    assert frozenset(("bob_cluster_router_0_0_2", blue[2])) in t.edge_set()


def test_g5k_platform_matches_its_trace(data):
    xml = read_topology(str(data / "platforms/g5k.xml"))
    tr = from_trace(load(data / "paje/g5k.trace"))
    assert kinds(xml) == {"host": 1528, "router": 62, "link": 3142}
    assert set(xml.names) == set(tr.names)
    assert all(xml.kinds[xml.index[n]] == tr.kinds[tr.index[n]] for n in tr.names)
    ex, et = xml.edge_set(), tr.edge_set()
    assert ex <= et
    # SimGrid also joined consecutive links of multi-hop (Floyd) routes: link-link only
    extra = et - ex
    assert len(extra) == 30
    assert all(tr.kinds[tr.index[name]] == "link" for e in extra for name in e)
    # link characteristics: the trace's bandwidth/latency variables are float32
    for name in ("Lille_Paris", "AS_edel_link_3_UP", "AS_edel_backbone"):
        for key in ("bandwidth", "latency"):
            a = float(xml.node_attrs[xml.index[name]][key])
            b = float(tr.node_attrs[tr.index[name]][key])
            assert b == pytest.approx(a, rel=1e-6)


def test_small_platform(data):
    t = read_topology(str(data / "platforms/small_platform.xml"))
    assert kinds(t)["host"] == 7
    # route Tremblay -> Jupiter is link 9 alone in small_platform.xml
    assert frozenset(("Tremblay", "9")) in t.edge_set()
    assert frozenset(("9", "Jupiter")) in t.edge_set()
    i = t.index["9"]
    assert float(t.node_attrs[i]["latency"]) == pytest.approx(1.461517e-3, rel=1e-12)


def test_dot_round_trip(data, tmp_path):
    t = read_topology(str(data / "platforms/small_platform_with_routers.xml"))
    t.node_attrs[0]["pos"] = "10.5,20.25"
    write_dot(t, tmp_path / "t.dot", comment="test")
    back = read_dot(str(tmp_path / "t.dot"))
    assert back.names == t.names and back.kinds == t.kinds
    assert back.node_attrs == t.node_attrs
    def values(topo):
        return {frozenset((topo.names[a], topo.names[b])): (bw, lat) for a, b, bw, lat
                in zip(topo.src, topo.dst, topo.bandwidth, topo.latency)}
    assert values(back) == values(t) and len(values(t)) == t.n_edges
    assert back.positions()[0].tolist() == [10.5, 20.25]


def test_dot_attributes_with_units(tmp_path):
    p = tmp_path / "g.gv"
    p.write_text('graph { a [kind=host]; s [kind=switch]; a -- s [bandwidth="10Gbps", '
                 'latency="2us", color=red]; s -- b; }\n')
    t = read_topology(str(p))
    assert t.kinds == ["host", "switch", "node"]
    assert t.bandwidth[0] == 1.25e9 and t.latency[0] == pytest.approx(2e-6, rel=1e-15)
    assert math.isnan(t.bandwidth[1]) and t.edge_attrs[0] == {"color": "red"}


def test_dot_string_attributes_survive(tmp_path):
    """Edge fields a .dot file gives only some edges are string columns with None
    where an edge has none; they read back per edge, count in `info` and survive
    a round trip."""
    p = tmp_path / "g.dot"
    p.write_text('graph { a -- b [color=red, label="up link"]; b -- c; '
                 'c -- a [label=x, weight=2]; a -- a [color=blue, bandwidth=5]; }\n')
    t = read_topology(str(p))

    def by_pair(topo):  # Graphviz gives the edges in an order of its own
        return {frozenset((topo.names[a], topo.names[b])): d
                for a, b, d in zip(topo.src.tolist(), topo.dst.tolist(), topo.edge_attrs)}
    want = {frozenset("ab"): {"color": "red", "label": "up link"}, frozenset("bc"): {},
            frozenset("ca"): {"label": "x", "weight": "2"}, frozenset("a"): {"color": "blue"}}
    assert by_pair(t) == want and len(t.edge_attrs) == t.n_edges == 4
    cols = t.edge_attrs.columns
    assert set(cols) == {"color", "label", "weight"}
    assert all(isinstance(c, list) for c in cols.values()) and cols["weight"].count(None) == 3
    loop = int(np.flatnonzero(t.src == t.dst)[0])
    assert t.edge_attrs[loop - 4] == {"color": "blue"} and t.bandwidth[loop] == 5
    with pytest.raises(IndexError):
        t.edge_attrs[4]
    assert info(t)["edge attributes"] == {"color": 2, "label": 2, "weight": 1}
    write_dot(t, tmp_path / "back.dot")
    assert by_pair(read_topology(str(tmp_path / "back.dot"))) == want


def test_dedup_keeps_the_first_edge_and_joins_links():
    """Repeated edges (either direction, added one by one or as arrays) keep the
    first one's values and place; the names of the links they folded are joined."""
    t = Topology()
    for n in "abcd":
        t.add_node(n)
    t.add_edge("a", "b", 1.0, 0.1, links="L2 L1")
    t.add_edge("b", "c", 2.0, 0.2)
    t.add_edge("b", "a", 9.0, 0.9, links="L0", color="red")
    t.add_edges(np.array([2, 0, 3]), np.array([1, 1, 3]), np.array([7.0, 8.0, 3.0]),
                attrs={"links": [None, "L3", "L9"]})
    assert t.n_edges == 6
    assert t.dedup_edges() is t
    assert [(t.names[a], t.names[b]) for a, b in zip(t.src, t.dst)] == \
        [("a", "b"), ("b", "c"), ("d", "d")]
    assert t.bandwidth.tolist() == [1.0, 2.0, 3.0]
    assert t.latency[:2].tolist() == [0.1, 0.2] and math.isnan(t.latency[2])
    assert list(t.edge_attrs) == [{"links": "L0 L1 L2 L3"}, {}, {"links": "L9"}]


def test_edge_columns_numbers_and_strings():
    """Numbers given as arrays stay arrays; a column some edges lack becomes a list
    with None; edges keep the order they were added in, however added."""
    t = Topology()
    for n in "abc":
        t.add_node(n)
    t.add_edges([0, 1], [1, 2], attrs={"count": np.array([5, 6])})
    t.add_edges([2], [0], latency=[0.5], attrs={"count": np.array([7])})
    assert isinstance(t.edge_attrs.columns["count"], np.ndarray)
    assert t.edge_attrs[2] == {"count": 7} and type(t.edge_attrs[2]["count"]) is int
    assert np.isnan(t.bandwidth).all() and t.latency[2] == 0.5
    t.add_edge(1, 0, color="red")
    t.add_edges([0], [2], attrs={"count": np.array([8])})
    assert t.src.tolist() == [0, 1, 2, 1, 0] and t.dst.tolist() == [1, 2, 0, 0, 2]
    assert t.edge_attrs.columns == {"count": [5, 6, 7, None, 8],
                                    "color": [None, None, None, "red", None]}
    assert t.edge_attrs.counts() == {"count": 4, "color": 1}
    assert list(t.edge_attrs.take(np.array([3, 0]))) == [{"color": "red"}, {"count": 5}]
    assert list(EdgeAttrs()) == [] and len(Topology().edge_attrs) == 0
    with pytest.raises(ValueError):
        t.add_edges([0], [3])          # no node 3
    with pytest.raises(ValueError):
        t.add_edges([0, 1], [1], attrs={"count": np.array([1, 2])})


def test_edge_limit(monkeypatch):
    monkeypatch.setattr(topology_module, "MAX_EDGES", 3)
    t = Topology()
    t.add_node("a")
    t.add_edges([0, 0], [0, 0])
    t.add_edge("a", "b")
    with pytest.raises(TraceError, match="more than 3 edges"):
        t.add_edge("a", "b")
    with pytest.raises(TraceError, match="more than 3 edges"):
        t.add_edges([0], [1])


@pytest.mark.parametrize("text, line, message", [
    ("graph {\n a -- b;\n c -- ;\n}\n", 3, "syntax error"),
    ('graph { a [kind=toaster]; }\n', None, "unknown kind"),
    ('graph { a -- b [bandwidth=fast]; }\n', None, "bandwidth"),
    ('graph { a [pos="1;2"]; }\n', None, "bad pos"),
    ('graph { a [pos="inf,nan"]; }\n', None, "two numbers within"),  # drew a blank scene
    ('graph { a [pos="1e300,0"]; }\n', None, "two numbers within -1e+09"),  # as blank
])
def test_dot_errors(tmp_path, text, line, message):
    p = tmp_path / "bad.dot"
    p.write_text(text)
    with pytest.raises(TraceError) as e:
        read_topology(str(p))
    assert e.value.line == line and message in e.value.message


@pytest.mark.parametrize("body, line, message", [
    ('<platform version="4.1">\n<zone id="z" routing="Full">\n<host id="a" speed="1Gf">\n'
     '</platform>\n', 5, "malformed XML"),
    ('<platform version="4.1">\n<zone id="z" routing="Full">\n<host id="a" speed="1Gf"/>\n'
     '<route src="a" dst="a">\n<link_ctn id="nope"/>\n</route>\n</zone>\n</platform>\n', 6,
     "unknown link"),
    ('<platform version="4.1">\n<cluster id="c" prefix="n" suffix="" radical="0-7" '
     'speed="1Gf" bw="1GBps" lat="1us" topology="TORUS" topo_parameters="3,3"/>\n</platform>\n',
     3, "bad topo_parameters"),
    ('<platform version="4.1">\n<link id="l" bandwidth="1 furlong" latency="0"/>\n</platform>\n',
     3, "unknown unit"),
    # one id for a host, a router and a link was silently one node (issue 17)
    ('<platform version="4.1">\n<zone id="z" routing="Full">\n<host id="a" speed="1Gf"/>\n'
     '<router id="a"/>\n</zone>\n</platform>\n', 5, "'a' is already declared (as a host)"),
    ('<platform version="4.1">\n<zone id="z" routing="Full">\n<host id="a" speed="1Gf"/>\n'
     '<link id="a" bandwidth="1GBps" latency="0"/>\n</zone>\n</platform>\n', 5,
     "link 'a': 'a' is already declared"),
    # a route between undeclared hosts made phantom nodes (issue 17)
    ('<platform version="4.1">\n<zone id="z" routing="Full">\n<host id="a" speed="1Gf"/>\n'
     '<link id="l" bandwidth="1GBps" latency="0"/>\n<route src="a" dst="ghost">\n'
     '<link_ctn id="l"/>\n</route>\n</zone>\n</platform>\n', 6,
     "'ghost' is not declared before this route"),
])
def test_simgrid_errors(tmp_path, body, line, message):
    p = tmp_path / "bad.xml"
    p.write_text("<?xml version='1.0'?>\n" + body)   # body lines count from 2
    with pytest.raises(TraceError) as e:
        read_topology(str(p))
    assert e.value.line == line and message in e.value.message


def test_collapse_flat_cluster(data):
    c = collapse_links(read_topology(str(data / "platforms/cluster_backbone.xml")))
    assert kinds(c) == {"host": 100, "link": 1, "router": 1}
    assert c.n_edges == 101
    e = c.edge_attrs[[i for i in range(c.n_edges)
                      if "node-3.simgrid.org" in (c.names[c.src[i]], c.names[c.dst[i]])][0]]
    assert e["links"] == "cluster0_link_3_DOWN cluster0_link_3_UP"


def _convert(src, out, *extra):
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "topology", "convert", str(src),
                        "-o", str(out), *extra], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return Path(out).read_text()


@pytest.mark.parametrize("name", sorted(p.stem for p in (REPO / "topologies/src").glob("*.xml")))
def test_curated_topologies_are_what_build_writes(name, tmp_path):
    src = REPO / "topologies/src" / f"{name}.xml"
    assert _convert(src, tmp_path / "x.dot", "--links", "edges").replace(str(src), "") == \
        (REPO / "topologies" / f"{name}.dot").read_text()


def test_curated_g5k(data, tmp_path):
    assert _convert(data / "platforms/g5k.xml", tmp_path / "g.dot") == \
        (REPO / "topologies/g5k.dot").read_text()


def test_curated_counts():
    expect = {"single_switch_cluster": ({"host": 16, "router": 1}, 16),
              "two_site_grid": ({"host": 16, "link": 2, "router": 2}, 19),
              "fat_tree_k4": ({"host": 16, "switch": 20}, 48),
              "torus_4x4x4": ({"host": 64}, 192),
              "dragonfly_small": ({"host": 24, "switch": 12}, 24 + 6 + 6 + 3)}
    for name, (k, edges) in expect.items():
        t = read_topology(str(REPO / "topologies" / f"{name}.dot"))
        assert kinds(t) == k and t.n_edges == edges, name
        assert np.isfinite(t.bandwidth).all() and np.isfinite(t.latency).all()
    torus = read_topology(str(REPO / "topologies/torus_4x4x4.dot"))
    assert (np.bincount(np.r_[torus.src, torus.dst]) == 6).all()


def test_info_and_cli(data, tmp_path):
    d = info(read_topology(str(data / "platforms/small_platform.xml")))
    assert d["kinds"] == {"host": 7, "link": 24} and d["edges with bandwidth"] == d["edges"]
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "topology", "info", "--json",
                        str(data / "platforms/cluster_fat_tree.xml")], capture_output=True,
                       text=True)
    assert r.returncode == 0
    import json
    assert json.loads(r.stdout)["nodes"] == 16 + 6 + 80
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "topology", "info",
                        str(tmp_path / "missing.dot")], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no such topology" in r.stderr


@given(st.one_of(
    st.lists(st.integers(-2**63, 2**63 - 1), max_size=20).map(lambda v: np.array(v, np.int64)),
    st.lists(st.integers(0, 2**64 - 1), max_size=20).map(lambda v: np.array(v, np.uint64)),
    st.lists(st.floats(width=32) | st.integers(0, 2**24).map(float), max_size=20)
    .map(lambda v: np.array(v, np.float64)),
    st.lists(st.floats(), max_size=20).map(lambda v: np.array(v, np.float64))))
def test_numeric_edge_columns_are_narrowed_without_changing_a_value(col):
    """EdgeAttrs keeps a numeric column in the narrowest type that holds every value
    exactly: the same Python numbers (NaN, -0.0 and infinities included) come out."""
    from triva3d.bases.topology import narrow
    got = narrow(col)
    assert got.dtype.itemsize <= col.dtype.itemsize and got.dtype.kind == col.dtype.kind \
        or col.dtype.kind in "iu" and got.dtype.kind in "iu"
    assert [repr(v) for v in got.tolist()] == [repr(v) for v in col.tolist()]
    attrs = EdgeAttrs({"x": col}, len(col))
    assert [a["x"] for a in attrs] == pytest.approx(col.tolist(), nan_ok=True)
    if col.dtype.kind == "f" and len(col) and (np.abs(col) < 2**24).all() \
            and (col == col.astype(np.float32)).all():
        assert got.dtype == np.float32   # bytes sums of a communication graph: 4 bytes
    if col.dtype.kind in "iu" and len(col) and 0 <= col.min() and col.max() < 256:
        assert got.dtype == np.uint8     # message counts


# -- routes (issue 25) ---------------------------------------------------------------------
def names_of(topo, src, dst):
    from triva3d.bases.routing import route
    return [topo.names[i] for i in route(topo, src, dst)]


def platform(tmp_path, body):
    p = tmp_path / "p.xml"
    p.write_text("<?xml version='1.0'?>\n<platform version=\"4.1\">\n" + body + "</platform>\n")
    return read_topology(str(p))


def test_a_declared_route_is_followed_and_the_loopback_is_no_hub(data):
    t = read_topology(str(data / "platforms/small_platform.xml"))
    # <route src="Tremblay" dst="Fafard">: links 4 3 2 0 1 8 (2 hops through the
    # shared loopback were the fewest)
    there = ["Tremblay", "4", "3", "2", "0", "1", "8", "Fafard"]
    assert names_of(t, "Tremblay", "Fafard") == there
    assert names_of(t, "Fafard", "Tremblay") == there[::-1]  # symmetrical by default
    # Jacquelin -> Fafard is declared; its reverse is the declared list reversed
    assert names_of(t, "Fafard", "Jacquelin") == ["Fafard", "78", "79", "9", "6", "10", "16",
                                                   "17", "54", "56", "59", "145", "Jacquelin"]
    assert names_of(t, "Ginette", "Ginette") == ["Ginette", "loopback", "Ginette"]
    # the loopback five hosts use for themselves joins none of them in the graph
    lb = t.index["loopback"]
    assert not ((t.src == lb) | (t.dst == lb)).any()


def test_split_duplex_links_swap_on_the_way_back(tmp_path):
    t = platform(tmp_path, '<zone id="z" routing="Full">\n<host id="a" speed="1Gf"/>\n'
                 '<host id="b" speed="1Gf"/>\n<router id="r"/>\n'
                 '<link id="s" bandwidth="1GBps" latency="0" sharing_policy="SPLITDUPLEX"/>\n'
                 '<link id="t" bandwidth="1GBps" latency="0"/>\n'
                 '<route src="a" dst="b"><link_ctn id="s" direction="UP"/><link_ctn id="t"/>'
                 '</route>\n<route src="a" dst="r" symmetrical="NO"><link_ctn id="t"/></route>\n'
                 '</zone>\n')
    assert names_of(t, "a", "b") == ["a", "s_UP", "t", "b"]
    assert names_of(t, "b", "a") == ["b", "t", "s_DOWN", "a"]
    assert names_of(t, "a", "a") == ["a"]  # nothing declared: the node alone
    with pytest.raises(TraceError, match="no route from 'r' to 'a'"):  # not symmetrical
        names_of(t, "r", "a")
    with pytest.raises(OptionsError, match="no node 'c'"):
        names_of(t, "a", "c")


def test_cluster_routes_go_up_the_backbone_and_down(data, tmp_path):
    t = read_topology(str(data / "platforms/cluster_backbone.xml"))
    # the file's comment: "The route from node-0 to node-2 is: l0.UP ; backbone ; l2.DOWN"
    assert names_of(t, "node-0.simgrid.org", "node-2.simgrid.org") == [
        "node-0.simgrid.org", "cluster0_link_0_UP", "cluster0_backbone", "cluster0_link_2_DOWN",
        "node-2.simgrid.org"]
    assert names_of(t, "node-5.simgrid.org", "node-cluster0_router.simgrid.org") == [
        "node-5.simgrid.org", "cluster0_link_5_UP", "cluster0_backbone",
        "node-cluster0_router.simgrid.org"]
    # a limiter before the way up and after the way down; a loopback to itself only
    t = platform(tmp_path, '<cluster id="c" prefix="n" suffix="" radical="1-3" speed="1Gf" '
                 'bw="1GBps" lat="1us" bb_bw="10GBps" bb_lat="1us" limiter_link="2GBps" '
                 'loopback_bw="5GBps" loopback_lat="0"/>\n')
    assert names_of(t, "n1", "n3") == ["n1", "c_link_1_limiter", "c_link_1_UP", "c_backbone",
                                       "c_link_3_DOWN", "c_link_3_limiter", "n3"]
    assert names_of(t, "n2", "n2") == ["n2", "c_link_2_loopback", "n2"]


def test_zone_routes_through_gateways(data):
    t = read_topology(str(data / "platforms/data_center.xml"))
    # zoneRoute cabinet1 -> cabinet3 (gateways the cabinets' routers), between the
    # hosts' ways up and down their cabinets
    there = ["cb1-3.dc1.acloud.com", "cabinet1_link_3_UP", "cabinet1_backbone",
             "cb1-cabinet1_router.dc1.acloud.com", "link_dc1_cb1", "link_dc1_cb3",
             "cb3-cabinet3_router.dc1.acloud.com", "cabinet3_backbone", "cabinet3_link_7_DOWN",
             "cb3-7.dc1.acloud.com"]
    assert names_of(t, there[0], there[-1]) == there
    back = names_of(t, there[-1], there[0])
    assert back[3:7] == there[3:7][::-1]  # the zoneRoute's links and gateways reversed
    assert back[1] == "cabinet3_link_7_UP" and back[-2] == "cabinet1_link_3_DOWN"
    # g5k: the Floyd zones chain the sites' zoneRoutes over the backbone's routers
    g = read_topology(str(data / "platforms/g5k.xml"))
    assert names_of(g, "bordeplage-1.bordeaux.grid5000.fr", "lille") == [
        "bordeplage-1.bordeaux.grid5000.fr", "AS_bordeplage_link_1_UP", "AS_bordeplage_backbone",
        "bordeplage-AS_bordeplage_router.bordeaux.grid5000.fr", "link_bordeplage",
        "gw_bordeaux", "link_gw_bordeaux", "bordeaux", "Bordeaux_Lyon", "lyon", "Paris_Lyon",
        "paris", "Lille_Paris", "lille"]


def test_routes_of_other_kinds_are_the_fewest_hops(data):
    t = read_topology(str(data / "platforms/cluster_torus.xml"))
    assert any("routes by TORUS" in n for n in t.notes)
    # node 0 and node 1 are neighbours along the first dimension: one cable between
    assert names_of(t, "node-0.simgrid.org", "node-1.simgrid.org") == [
        "node-0.simgrid.org", "bob_cluster_link_from_0_to_1_UP", "node-1.simgrid.org"]
    d = read_topology(str(REPO / "topologies/two_site_grid.dot"))  # no routes declared
    assert names_of(d, "a-1", "b-8") == ["a-1", "siteA_backbone", "routerA", "routerB",
                                         "siteB_backbone", "b-8"]


def test_route_cli(data):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "triva3d.cli", "topology", "route",
                               str(data / "platforms/small_platform.xml"), *args],
                              capture_output=True, text=True)
    r = run("Boivin", "Fafard")
    assert r.returncode == 0 and r.stdout.split() == ["Boivin", "47", "44", "11", "6", "9",
                                                      "79", "78", "80", "Fafard"]
    r = run("Boivin", "Nowhere")
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1
    assert "small_platform.xml: no node 'Nowhere'" in r.stderr


def test_a_gateway_outside_its_zone_is_one_line(tmp_path):
    """A zoneRoute whose gateways stand in the other zone routed to itself forever
    (a RecursionError traceback): it is one line."""
    p = tmp_path / "p.xml"
    p.write_text("""<?xml version='1.0'?>
<platform version="4.1"><zone id="world" routing="Full">
  <zone id="A" routing="Full"><host id="a1" speed="1Gf"/><host id="ga" speed="1Gf"/>
    <link id="la" bandwidth="1GBps" latency="1us"/>
    <route src="a1" dst="ga"><link_ctn id="la"/></route></zone>
  <zone id="B" routing="Full"><host id="b1" speed="1Gf"/><host id="gb" speed="1Gf"/>
    <link id="lb" bandwidth="1GBps" latency="1us"/>
    <route src="b1" dst="gb"><link_ctn id="lb"/></route></zone>
  <link id="ab" bandwidth="1GBps" latency="1us"/>
  <zoneRoute src="A" dst="B" gw_src="gb" gw_dst="ga"><link_ctn id="ab"/></zoneRoute>
</zone></platform>""")
    from triva3d.bases.routing import route
    topo = read_topology(str(p))
    with pytest.raises(TraceError, match="comes back to itself"):
        route(topo, "a1", "b1")
