"""Call paths (CallFlow; issue 30): inclusive and exclusive time per calling context,
on an OTF2 archive written with otf2.writer and a Pajé Push/Pop trace whose numbers
are worked out by hand below, and on the shared ping-pong."""
import csv
import subprocess
import sys

import numpy as np
import otf2
import pytest
from otf2.enums import Paradigm, RegionRole

from triva3d import load
from triva3d.analysis.calltree import calltree
from triva3d.errors import Triva3dError

# One thread, times in ms: main [0, 100] calls A [10, 40] (which calls B [15, 25]),
# B [50, 70], and A [75, 95], which calls itself [80, 90], which calls B [82, 86].
CALLS = [("main", 0, 100), ("A", 10, 40), ("B", 15, 25), ("B", 50, 70), ("A", 75, 95),
         ("A", 80, 90), ("B", 82, 86)]
#   path          calls  inclusive  exclusive
WHOLE = {"main": (1, 100, 100 - 30 - 20 - 20), "main;A": (2, 50, 20 + 10),
         "main;A;B": (1, 10, 10), "main;B": (1, 20, 20), "main;A;A": (1, 10, 6),
         "main;A;A;B": (1, 4, 4)}
# within [20, 85]: main 65 less A (20 + 10) and B 20; A's [20, 40] and [75, 85] less
# B [20, 25] and A [80, 85]; A;A [80, 85] less B [82, 85]
WINDOW = {"main": (1, 65, 15), "main;A": (2, 30, 20), "main;A;B": (1, 5, 5),
          "main;B": (1, 20, 20), "main;A;A": (1, 5, 2), "main;A;A;B": (1, 3, 3)}


def write_archive(path):
    with otf2.writer.open(str(path), timer_resolution=1000) as w:
        d = w.definitions
        node = d.system_tree_node("node")
        group = d.location_group("Process", system_tree_parent=node)
        ev = w.event_writer("Main thread", group=group)
        reg = {n: d.region(n, paradigm=Paradigm.USER, region_role=RegionRole.FUNCTION)
               for n in ("main", "A", "B")}
        marks = sorted([(s, 1, n) for n, s, _ in CALLS] + [(e, 0, n) for n, _, e in CALLS],
                       key=lambda m: (m[0], m[1]))
        for t, enter, name in marks:
            (ev.enter if enter else ev.leave)(t, reg[name])


def table(tree, scale=1.0):
    paths, calls, inc, exc = tree.merged("sum")
    return {tree.text(p): (int(n), round(i / scale, 9), round(e / scale, 9))
            for p, n, i, e in zip(paths, calls, inc, exc)}


def test_nesting_recursion_and_two_callers_from_otf2(tmp_path):
    write_archive(tmp_path / "a")
    tr = load(tmp_path / "a", cache=False)
    assert table(calltree(tr), 1e-3) == WHOLE
    t0 = tr.states.start.min()  # the archive's first time
    assert table(calltree(tr, window=(t0 + 0.020, t0 + 0.085)), 1e-3) == WINDOW


def test_the_same_from_paje_push_pop(paje):
    lines = sorted([(s, 1, n) for n, s, _ in CALLS] + [(e, 0, n) for n, _, e in CALLS],
                   key=lambda m: (m[0], m[1]))
    body = "".join(f"12 {t} p1 S {n}\n" if enter else f"13 {t} p1 S\n" for t, enter, n in lines)
    tr = paje('5 main S "main" "1 0 0"\n5 A S "A" "0 1 0"\n5 B S "B" "0 0 1"\n' + body)
    tree = calltree(tr)
    assert table(tree) == WHOLE and not tree.flat
    assert table(calltree(tr, window=(20, 85))) == WINDOW
    assert calltree(tr).summary().startswith(f"{len(WHOLE)} call paths, ")
    assert calltree(tr, window=(45, 72)).summary().startswith("2 call paths, 2 deep")  # main;B
    assert table(calltree(tr, containers=["P1"])) == WHOLE
    assert len(calltree(tr, containers=["P2"])) == 0  # P2 holds no state
    with pytest.raises(Triva3dError, match="no container named 'Nowhere'"):
        calltree(tr, containers=["Nowhere"])


def test_a_flat_trace_says_so(paje):
    tree = calltree(paje('5 a S "A" "1 0 0"\n12 0 p1 S a\n13 2 p1 S\n12 1 p2 S a\n'
                         '13 4 p2 S\n'))
    assert tree.flat and "flat tree" in tree.summary()
    paths, calls, inc, exc = tree.merged("mean")
    assert calls.tolist() == [1] and inc.tolist() == [2.5] and exc.tolist() == [2.5]
    _, _, inc, _ = tree.merged("max")
    assert inc.tolist() == [3]
    with pytest.raises(Triva3dError, match="aggregation must be one of"):
        tree.merged("median")


def test_mpi_init_dominates_the_ping_pong_and_the_command(data, tmp_path):
    pp = data / "otf2" / "ping-pong-otf2"
    out = tmp_path / "c.csv"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "calltree", str(pp), "-o",
                        str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "7 call paths, 2 deep, on 2 containers" in r.stderr
    with open(out) as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["container", "path", "calls", "inclusive", "exclusive", "unit"]
    assert {x["unit"] for x in rows} == {"s"}  # (OTF2's ticks, read as seconds)
    for rank in ("MPI Rank 0", "MPI Rank 1"):
        mine = [x for x in rows if x["container"].startswith(rank)]
        top = max(mine, key=lambda x: float(x["exclusive"]))
        assert top["path"] == "int main(int, char**);MPI_Init"
        main = next(x for x in mine if x["path"] == "int main(int, char**)")
        kids = sum(float(x["inclusive"]) for x in mine if x["path"].count(";") == 1)
        assert float(main["exclusive"]) == pytest.approx(float(main["inclusive"]) - kids)
    folded = tmp_path / "c.folded"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "calltree", str(pp), "-o",
                        str(folded)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = dict(line.rsplit(" ", 1) for line in folded.read_text().splitlines())
    init = sum(float(x["exclusive"]) for x in rows if x["path"].endswith("MPI_Init"))
    assert int(lines["int main(int, char**);MPI_Init"]) == round(init * 1e6)
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "calltree", str(pp), "-o",
                        str(tmp_path / "c.pdf")], capture_output=True, text=True)
    assert r.returncode == 2 and "a call tree is written as .csv, .folded, .svg" in r.stderr
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "calltree", str(pp), "-o",
                        str(tmp_path / "c.svg")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    import xml.etree.ElementTree as ET
    tips = [t.text for t in ET.parse(tmp_path / "c.svg").getroot().iter(
        "{http://www.w3.org/2000/svg}title")]
    assert any(t.startswith("int main(int, char**);MPI_Init: 2 calls") for t in tips)


def test_the_sankey_of_the_worked_example(paje, tmp_path):
    """Node heights follow inclusive time, the callees' ribbons stack inside their
    caller below its exclusive part, and a threshold summarizes what it leaves out
    (CallFlow section 7.1)."""
    from triva3d.panels.sankey import Sankey, svg, write
    lines = sorted([(s, 1, n) for n, s, _ in CALLS] + [(e, 0, n) for n, _, e in CALLS],
                   key=lambda m: (m[0], m[1]))
    body = "".join(f"12 {t} p1 S {n}\n" if enter else f"13 {t} p1 S\n" for t, enter, n in lines)
    tr = paje('5 main S "main" "1 0 0"\n5 A S "A" "0 1 0"\n5 B S "B" "0 0 1"\n' + body)
    sk = Sankey(calltree(tr), threshold=0.0, height=500)
    texts = [sk.tree.text(int(p)) for p in sk.paths]
    assert sorted(texts) == sorted(WHOLE)
    h = dict(zip(texts, sk.rects[:, 3]))
    for path, (_, inc, _) in WHOLE.items():
        assert h[path] == pytest.approx(inc * sk.scale)
    for i, j, y0, _, height in sk.ribbons:  # inside the caller, below its own time
        x, y, _, hh = sk.rects[i]
        assert y + sk.exclusive[i] * sk.scale - 1e-9 <= y0 and y0 + height <= y + hh + 1e-9
    # at 5 %, main;A;A;B (4 of 100) is left out and said
    sk = Sankey(calltree(tr), threshold=0.05)
    assert sk.left_out == 1 and sk.left_out_time == pytest.approx(4)
    assert "1 paths under the threshold" in sk.title()
    assert svg(sk).count("<rect") >= len(sk.paths) + 1
    # a title longer than the picture is wide goes on in a second line (the colour
    # scale of a difference call tree ran off the PNG), its parts kept whole
    from triva3d.panels.sankey import title_lines, title_room
    parts = ["a" * 10, "b" * 10, "c" * 10, "d" * 10]
    assert title_lines("   ".join(parts[:3]), 0.6 * 11 * 25) == ["a" * 10 + "   " + "b" * 10,
                                                               "c" * 10]
    assert title_lines("   ".join(parts), 0.6 * 11 * 12) == \
        ["a" * 10, "b" * 10 + "   " + "c" * 10 + "   " + "d" * 10]
    assert title_lines("a b", 1000) == ["a b"]
    write(sk, tmp_path / "s.png")
    import imageio.v3 as iio
    img = iio.imread(tmp_path / "s.png")
    assert img.shape[:2] == (int(sk.height + title_room()), int(sk.width))
    red = (np.abs(img.astype(int)[:, :, :3] - sk.rgb()[texts.index("main")]).max(axis=2) <= 2)
    assert red.mean() > 0.05  # main's node, the biggest, in its colour


def test_a_call_path_chosen_in_3d(paje):
    """Issue 30.6: with the call path main;A chosen, its states and their callees
    (A;B, A;A, A;A;B) keep their colours, main and main;B are dimmed; a path no state
    has is a one-line error."""
    from triva3d import ViewState
    from triva3d.bases.layout import make_layout
    from triva3d.scene.geometry import Geometry
    lines = sorted([(s, 1, n) for n, s, _ in CALLS] + [(e, 0, n) for n, _, e in CALLS],
                   key=lambda m: (m[0], m[1]))
    body = "".join(f"12 {t} p1 S {n}\n" if enter else f"13 {t} p1 S\n" for t, enter, n in lines)
    tr = paje('5 main S "main" "1 0 0"\n5 A S "A" "0 1 0"\n5 B S "B" "0 0 1"\n' + body)
    g = Geometry(tr, make_layout(tr, base="treemap"), ViewState(call_path="main;A"))
    st = tr.states
    rows = np.arange(len(st))
    plain = g.value_rgb[st.value]
    bright = (g.state_rgb(rows) == plain).all(axis=1)
    span = [(tr.display_name("values", int(v)), float(a)) for v, a in zip(st.value, st.start)]
    on = {("A", 10), ("B", 15), ("A", 75), ("A", 80), ("B", 82)}
    assert {k for k, b in zip(span, bright) if b} == on
    assert any("call path main;A" in t for t, _ in g.legend_entries())
    with pytest.raises(Triva3dError, match="no call path 'main;C'"):
        g.update(ViewState(call_path="main;C"))


def test_distributions_across_containers(paje, tmp_path):
    """CallFlow sections 7.2-7.3: P1 runs A for 2 s, P2 for 6 s: A's distribution is
    (2, 6), its mini-histogram puts one container in the first and one in the last
    of 10 bins, and the SVG draws it with min, median and max in the tooltip."""
    from triva3d.panels.sankey import Sankey, svg
    tr = paje('5 a S "A" "1 0 0"\n5 b S "B" "0 1 0"\n12 0 p1 S a\n12 0 p2 S a\n'
              '12 1 p2 S b\n13 2 p1 S\n13 3 p2 S\n13 6 p2 S\n')
    tree = calltree(tr)
    a = next(p for p in range(len(tree.path_value)) if tree.text(p) == "A")
    cont, v = tree.distribution(a)
    names = [tr.display_name("containers", int(c)) for c in cont]
    assert dict(zip(names, v.tolist())) == {"P1": 2.0, "P2": 6.0}
    sk = Sankey(tree, threshold=0.0)
    i = [tree.text(int(p)) for p in sk.paths].index("A")
    counts, span = sk.histogram(i)
    assert counts.tolist() == [1] + [0] * 8 + [1] and span == (2.0, 6.0)
    text = svg(sk)
    assert text.count('class="hist"') == 2
    assert "inclusive over 2 containers: min 2, median 4, max 6" in text
    # the distribution's own view: 20 bins from 2 to 6 s, P1 in the first, P2 in the
    # last; a dot per container at (inclusive, exclusive): P2's A holds B [1, 3]
    from triva3d.panels import distribution
    view = distribution.svg(tree, "A")
    assert view.count("<circle") == 2 and "2 to 6 s" not in view
    assert "<title>1 containers: 2 to 2.2</title>" in view
    assert "<title>1 containers: 5.8 to 6</title>" in view
    assert "<title>P1: inclusive 2, exclusive 2</title>" in view
    assert "<title>P2: inclusive 6, exclusive 4</title>" in view
    out = tmp_path / "a.png"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "calltree", tr.source, "--node",
                        "A", "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:4] == b"\x89PNG"


# The super graph (section 6), worked by hand. One process: main [0, 10] calls solve
# [1, 5] (MPI_Send [2, 3], compute [3, 4] which calls MPI_Recv [3.5, 3.8]) and
# compute [6, 9] (MPI_Send [7, 8], solve [8.2, 8.8]). Modules: app = main, solve;
# math = compute; MPI = MPI_Send, MPI_Recv.
SUPER = [("main", 0, 10), ("solve", 1, 5), ("MPI_Send", 2, 3), ("compute", 3, 4),
         ("MPI_Recv", 3.5, 3.8), ("compute", 6, 9), ("MPI_Send", 7, 8), ("solve", 8.2, 8.8)]
MODULES = "region,module\nmain,app\nsolve,app\ncompute,math\nMPI_Send,MPI\nMPI_Recv,MPI\n"
# app: visits main (10) and main;compute;solve (0.6, held by main's: not counted
# again, nor its edge from math); exclusive main 3 + solve 2 + the inner solve 0.6.
# math: compute 1 + 3, exclusive 0.7 + 1.4. MPI: 1 + 0.3 + 1.
NODES = {"app": (2, 10, 5.6, ["main", "solve"]), "math": (2, 4, 2.1, ["compute"]),
         "MPI": (3, 2.3, 2.3, ["MPI_Recv", "MPI_Send"])}
EDGES = {("app", "math"): 4, ("app", "MPI"): 1, ("math", "MPI"): 1.3}


def super_trace(paje):
    marks = sorted([(s, 1, n) for n, s, _ in SUPER] + [(e, 0, n) for n, _, e in SUPER],
                   key=lambda m: (m[0], m[1]))
    body = "".join(f"12 {t} p1 S {n}\n" if enter else f"13 {t} p1 S\n"
                   for t, enter, n in marks)
    values = "".join(f'5 {n} S "{n}" "0.5 0.5 0.5"\n' for n in dict.fromkeys(
        n for n, _, _ in SUPER))
    return paje(values + body)


def test_the_super_graph_worked_by_hand(paje, tmp_path):
    from triva3d.analysis.supergraph import read_modules, super_graph
    tr = super_trace(paje)
    (tmp_path / "m.csv").write_text(MODULES)
    mapping = read_modules(tmp_path / "m.csv")
    sg = super_graph(calltree(tr), mapping)
    got = {n: (int(c), round(i, 9), round(e, 9), es) for n, c, i, e, es in
           zip(sg.names, sg.calls, sg.inclusive, sg.exclusive, sg.entries)}
    assert got == {n: (c, round(i, 9), round(e, 9), es) for n, (c, i, e, es) in NODES.items()}
    edges = {(sg.names[a], sg.names[b]): round(x, 9)
             for a, b, x in zip(sg.source, sg.target, sg.weight)}
    assert edges == {k: round(v, 9) for k, v in EDGES.items()}
    assert sg.total == 10
    for a, b, x in zip(sg.source, sg.target, sg.weight):  # no edge wider than its node
        assert x <= sg.inclusive[b] + 1e-12
    by_caller = super_graph(calltree(tr), mapping, split="callers")
    assert dict(zip(by_caller.names, by_caller.inclusive.round(9))) == {
        "app<-root": 10, "app<-math": 0.6, "math<-app": 4, "MPI<-app": 1, "MPI<-math": 1.3}
    by_entry = super_graph(calltree(tr), mapping, split="entry")
    assert sorted(by_entry.names) == ["MPI:MPI_Recv", "MPI:MPI_Send", "app:main", "app:solve",
                                      "math:compute"]
    # under 25 % of 10 s: MPI (2.3 s) is left out, summarized, its edges kept
    cut = super_graph(calltree(tr), mapping, threshold=0.25)
    assert cut.names == ["app", "math", "(left out)"] and cut.left_out == 1
    assert cut.left_out_time == pytest.approx(2.3) and cut.inclusive[-1] == pytest.approx(2.3)
    edges = {(cut.names[a], cut.names[b]): round(x, 9)
             for a, b, x in zip(cut.source, cut.target, cut.weight)}
    assert edges == {("app", "math"): 4, ("app", "(left out)"): 1,
                     ("math", "(left out)"): 1.3}
    (tmp_path / "bad.csv").write_text("main,app\nsolve\n")
    with pytest.raises(Triva3dError, match=r"bad.csv:2: a module line is REGION,MODULE"):
        read_modules(tmp_path / "bad.csv")


def test_the_super_graph_command(paje, data, tmp_path):
    """The ping-pong by paradigm: COMPILER's main calls MPI, whose MPI_Init holds
    nearly all of its time; a PNG and a .dot come out; --split needs --modules."""
    out = tmp_path / "s.csv"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "calltree",
                        str(data / "otf2/ping-pong-otf2"), "--modules", "auto", "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(out.open()))
    nodes = {row["source"]: row for row in rows if row["kind"] == "node"}
    assert set(nodes) == {"COMPILER", "MPI"}
    assert "MPI_Init" in nodes["MPI"]["entries"].split(";")
    edge = [row for row in rows if row["kind"] == "edge"]
    assert [(e["source"], e["target"]) for e in edge] == [("COMPILER", "MPI")]
    assert float(edge[0]["inclusive"]) == pytest.approx(float(nodes["MPI"]["inclusive"]))
    assert {row["unit"] for row in rows} == {"s"}
    for suffix in (".png", ".dot"):
        r = subprocess.run([sys.executable, "-m", "triva3d.cli", "calltree",
                            str(data / "otf2/ping-pong-otf2"), "--modules", "auto", "--split",
                            "entry", "-o", str(tmp_path / f"s{suffix}")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    assert (tmp_path / "s.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "MPI:MPI_Init" in (tmp_path / "s.dot").read_text()
    bad = subprocess.run([sys.executable, "-m", "triva3d.cli", "calltree",
                          str(data / "otf2/ping-pong-otf2"), "--split", "entry", "-o",
                          str(out)], capture_output=True, text=True)
    assert bad.returncode == 2 and "give --modules" in bad.stderr


def test_a_hatchet_graphframe(tmp_path, paje):
    """to_hatchet: the worked example's paths as Hatchet nodes, their inclusive and
    exclusive times summed over the ranks as in the call tree, a row per rank."""
    hatchet = pytest.importorskip("hatchet")
    lines = sorted([(s, 1, n) for n, s, _ in CALLS] + [(e, 0, n) for n, _, e in CALLS],
                   key=lambda m: (m[0], m[1]))
    body = "".join(f"12 {t} p{k} S {n}\n" if enter else f"13 {t} p{k} S\n"
                   for k in (1, 2) for t, enter, n in lines)
    body = "".join(sorted(body.splitlines(keepends=True), key=lambda l: float(l.split()[1])))
    tr = paje('5 main S "main" "1 0 0"\n5 A S "A" "0 1 0"\n5 B S "B" "0 0 1"\n' + body)
    gf = calltree(tr).to_hatchet()
    assert isinstance(gf, hatchet.GraphFrame)
    df = gf.dataframe.reset_index()
    assert sorted(set(df["container"])) == ["P1", "P2"] and len(df) == 2 * len(WHOLE)

    def path(node):
        names = []
        while node is not None:
            names.append(node.frame["name"])
            node = node.parents[0] if node.parents else None
        return ";".join(reversed(names))
    sums = df.assign(path=df["node"].map(path)).groupby("path")[["calls", "time (inc)",
                                                                 "time"]].sum()
    assert {p: (int(r["calls"]), r["time (inc)"], r["time"]) for p, r in sums.iterrows()} \
        == {p: (2 * c, 2 * i, 2 * e) for p, (c, i, e) in WHOLE.items()}
    assert [n.frame["name"] for n in gf.graph.roots] == ["main"]


def test_folded_stacks_are_microseconds_whatever_the_trace_unit(data, tmp_path):
    """StarPU writes milliseconds: the folded file read them as seconds, 1000 times
    too much (Executing 148707170329 for 148707.17 ms)."""
    tr = load(data / "paje" / "native_sample.trace", cache=False)
    assert tr.time_unit == "ms"
    tree = calltree(tr)
    tree.write_folded(tmp_path / "n.folded")
    lines = dict(line.rsplit(" ", 1) for line in (tmp_path / "n.folded").read_text().splitlines())
    paths, _, _, exc = tree.merged("sum")
    ms = dict(zip((tree.text(p) for p in paths.tolist()), exc.tolist()))
    assert int(lines["Executing"]) == round(ms["Executing"] * 1000) == 148707170
