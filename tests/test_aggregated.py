"""Aggregation in 3D (the thesis's section 7.2, issue 28.5): columns standing for a
level of the hierarchy show per time bin their subtree's share of each state value;
the level is chosen to fit, forced, or mixed by expanding nodes. Expected shares are
worked out here from the generator's cosine, apart from the code."""
import subprocess
import sys

import numpy as np
import pytest

from triva3d import View, ViewState, load
from triva3d.errors import Triva3dError
from triva3d.generate import check_config, hierarchy, pattern, write
from triva3d.scene import aggregated
from triva3d.scene.geometry import Geometry
from triva3d.bases.layout import make_layout

# 2 sites x 3 clusters x 4 machines x 25 processors = 600 leaves; leaf i of 600
# spends [0, split_i] in State-0, split_i = 10 (1 + cos(i / 600 * 6)) / 2 s of 10 s.
CONFIG = {"levels": [{"count": 2, "name": "Site", "alias": "S"},
                     {"count": 3, "name": "Cluster", "alias": "C"},
                     {"count": 4, "name": "Machine", "alias": "M"},
                     {"count": 25, "name": "Processor", "alias": "P"}],
          "duration": 10, "cosine-max-x-axis-value": 6}
LEAVES = 600


def split(i):
    return 10 * (1 + np.cos(np.asarray(i) / LEAVES * 6)) / 2


@pytest.fixture(scope="module")
def cosine(tmp_path_factory):
    path = tmp_path_factory.mktemp("agg") / "cosine.trace"
    write(pattern(hierarchy(check_config(CONFIG)), "ring", level="Machine", count=4), path)
    trace = load(path, cache=False)
    return trace, make_layout(trace, base="treemap")


def geometry(cosine, **fields):
    trace, layout = cosine
    return Geometry(trace, layout, ViewState(**fields))


def test_a_site_column_holds_its_leaves_shares_per_bin(cosine):
    trace, _ = cosine
    g = geometry(cosine, aggregate="Site")
    s = g.states
    assert s.mode == "aggregated" and s.members.tolist() == [300, 300]
    names = [trace.display_name("containers", int(c)) for c in s.nodes]
    assert names == ["Site-0", "Site-1"]
    state0 = int(np.flatnonzero(s.keys == trace.find("values", "State-0")[0])[0])
    dt = 10 / s.bins
    for col, leaves in ((0, np.arange(300)), (1, np.arange(300, 600))):
        for b in (0, s.bins // 3, s.bins // 2, s.bins - 1):
            lo, hi = b * dt, (b + 1) * dt
            want = np.clip(np.minimum(split(leaves), hi) - lo, 0, dt).sum() / (300 * dt)
            assert s.frac[col, b, state0] == pytest.approx(want, abs=1e-4), (col, b)
    # every leaf is always in one state or the other: no grey
    assert s.frac.sum(axis=2) == pytest.approx(np.ones((2, s.bins)), abs=1e-4)


def test_auto_fits_the_columns_and_expansion_mixes_levels(cosine, monkeypatch):
    trace, _ = cosine
    assert geometry(cosine).states.mode != "aggregated"  # 600 columns fit
    monkeypatch.setattr(aggregated, "AGGREGATE_LIMIT", 20)
    monkeypatch.setattr(aggregated.auto_level, "__defaults__", (20,))
    s = geometry(cosine).states  # 24 machines are too many; 6 clusters fit
    kinds = {trace.display_name("types", int(t)) for t in trace.containers.type[s.nodes]}
    assert kinds == {"Cluster"} and len(s.nodes) == 6
    s = geometry(cosine, aggregate="Site", expanded=("Site-1", "Cluster-4")).states
    names = sorted(trace.display_name("containers", int(c)) for c in s.nodes)
    # Site-1 opens into Cluster-3, 4, 5; Cluster-4 into Machine-16..19
    assert names == sorted(["Site-0", "Cluster-3", "Cluster-5"]
                           + [f"Machine-{i}" for i in range(16, 20)])
    assert s.members.sum() == 600
    m = [trace.display_name("containers", int(c)) for c in s.nodes].index("Machine-17")
    assert s.members[m] == 25
    with pytest.raises(Triva3dError, match="no container named 'Nowhere' to expand"):
        geometry(cosine, aggregate="Site", expanded=("Nowhere",))
    with pytest.raises(Triva3dError, match="no container type named 'Rack'"):
        geometry(cosine, aggregate="Rack")
    # a name or a depth that names nothing is refused even where nothing is
    # aggregated (it was ignored, the picture drawn as without it)
    with pytest.raises(Triva3dError, match="no container named 'Nowhere' to expand"):
        geometry(cosine, aggregate="none", expanded=("Nowhere",)).states
    with pytest.raises(Triva3dError, match=r"no container at depth 9 \(depths 0 to 4\)"):
        geometry(cosine, aggregate="9")
    # a name that expands nothing is said in the notes (it was ignored silently)
    g = geometry(cosine, aggregate="Site", expanded=("Site-1", "Cluster-4"))
    assert g.expand_ignored == [] and not any("no effect" in n for n in g.notes())
    g = geometry(cosine, aggregate="Site", expanded=("Site-1", "Machine-3"))
    assert g.expand_ignored == [("Machine-3", "not an aggregated column, nor below an "
                                              "expanded one")]  # (in Site-0, not expanded)
    assert "expanded to no effect: Machine-3 (not an aggregated column, nor below an " \
           "expanded one)" in g.notes()
    g = geometry(cosine, aggregate="none", expanded=("Site-1",))
    assert "expanded to no effect: Site-1 (nothing is aggregated)" in g.notes()
    g = geometry(cosine, aggregate="Machine", expanded=("Machine-3",))  # (leaves below it)
    assert g.expand_ignored == []
    g = geometry(cosine, aggregate="4", expanded=("Processor-3",))  # (the leaves)
    assert g.expand_ignored == [("Processor-3", "a column with nothing below")]
    # at the leaves' level nothing is aggregated, and the note says so (it said "600
    # Processor aggregates of 600 containers' states"; simu-mardi's 51 hosts with
    # states, "of 101": it counted their lanes)
    assert g.aggregation_note() == ("columns: 600 Processor, each one container's states "
                                    "(nothing aggregated)")


def test_auto_never_folds_everything_into_one_column():
    """With a limit of 20: 30 processes flat under the root, or under one machine,
    keep a column each (one column would say nothing of where); 30 machines of 3
    processes: 90 columns, the 30 machines too many, the root one: each its own;
    6 machines of 5: the machines."""
    from triva3d.scene.aggregated import auto_level
    from triva3d.trace import Names, Table, Trace, SCHEMA

    def tree(parent):
        n = len(parent)
        cols = {t: {c: np.zeros(0, d) for c, d in SCHEMA[t].items()} for t in SCHEMA}
        cols["containers"] = {"parent": np.array(parent, np.int32),
                              "type": np.zeros(n, np.int32), "name": np.zeros(n, np.int32),
                              "alias": np.full(n, -1, np.int32), "start": np.zeros(n),
                              "end": np.ones(n)}
        tables = {t: Table(t, cols[t]) for t in SCHEMA}
        return Trace(Names.of(["0"]), tables, np.zeros((0, 4), np.float32),
                     np.zeros((0, 4), np.float32))

    def leaves(tr):
        p = tr.containers.parent
        return ~np.isin(np.arange(len(p)), p)
    for parent, want in (([-1] + [0] * 30, None), ([-1, 0] + [1] * 30, None),
                         ([-1] + [0] * 30 + [1 + i // 3 for i in range(90)], None),
                         ([-1] + [0] * 6 + [1 + i // 5 for i in range(30)], 1)):
        tr = tree(parent)
        assert auto_level(tr, leaves(tr), limit=20) == want, parent[:5]


def test_links_between_columns_are_bundled_with_widths(cosine):
    trace, _ = cosine
    g = geometry(cosine, aggregate="Cluster")
    ln = trace.links
    owner = g.owner
    across = owner[ln.start_container] != owner[ln.end_container]
    # the ring between the 24 machines crosses clusters 6 times a round, 4 rounds
    assert int(across.sum()) == 24 and int(g.links.count.sum()) == 24
    assert (owner[ln.start_container[g.links.rows]] != owner[ln.end_container[g.links.rows]]).all()
    assert g.links.width.max() == 8 and g.links.width.min() >= 1
    assert g.links.bytes.sum() == pytest.approx(
        sum(float(trace.names.display(int(k))) for k in ln.extra["Size"][across]))


def test_nested_time_counts_once(paje):
    """P1 runs A over [0, 10] with B pushed over [2, 5] inside it; P2 idles. The
    root's column: A 100 % of one member's time outside [2, 5], B inside."""
    tr = paje("""\
5 a S "A" "1 0 0"
5 b S "B" "0 1 0"
12 0 p1 S a
12 2 p1 S b
13 5 p1 S
13 10 p1 S
12 0 p2 S a
13 10 p2 S
""")
    g = Geometry(tr, make_layout(tr, base="treemap"), ViewState(aggregate="0"))
    s = g.states
    a, b = (int(np.flatnonzero(s.keys == tr.find("values", v)[0])[0]) for v in "AB")
    lo = np.arange(s.bins) * (10 / s.bins)
    hi = lo + 10 / s.bins
    inside, outside = (lo >= 2) & (hi <= 5), (hi <= 2) | (lo >= 5)
    col = int(np.flatnonzero(s.nodes == 0)[0])
    assert s.frac[col, inside, b] == pytest.approx(0.5, abs=1e-4)
    assert s.frac[col, inside, a] == pytest.approx(0.5, abs=1e-4)  # P2's A only
    assert s.frac[col, outside, a] == pytest.approx(1.0, abs=1e-4)
    assert s.frac[col, outside, b] == pytest.approx(0.0, abs=1e-4)


def test_picking_a_column_gives_its_node_and_shares(cosine):
    trace, layout = cosine
    v = View(trace, ViewState(aggregate="Site", base="treemap", view="side", labels=False),
             size=(600, 400))
    v.render()
    g = v.scene.geometry
    s = g.states
    box = s.boxes[0]
    z = g.cut.height * 0.9  # at 9 s: leaves with split > 9 s (x < 0.65) hold State-0
    x, y = v.projection.to_display([[(box[0] + box[1]) / 2, box[2], z]])[0, :2]
    got = v.pick(x, y)
    assert got["kind"] == "aggregate" and got["name"] == "Site-0"
    assert got["start"] <= 9 <= got["end"]
    leaves = np.arange(300)
    lo, hi = got["start"], got["end"]
    want = np.clip(np.minimum(split(leaves), hi) - lo, 0, hi - lo).sum() / (300 * (hi - lo))
    assert got["shares (%)"]["State-0"] == pytest.approx(100 * want, abs=0.05)
    assert got["members"] == 300
    # the outline of the selection is the column's box
    p0, _ = g.outline({"kind": "aggregate", "row": int(s.nodes[0])})
    assert len(p0) == 12
    assert any("value shares per bin" in text for text, _ in g.legend_entries())
    # the names written are the columns' (and above), not those they stand for
    names = set(v.scene.overlay.texts)
    assert {"Site-0", "Site-1"} <= names
    assert not any(n.startswith(("Cluster-", "Machine-", "Processor-")) for n in names)
    v.state.aggregate = "none"
    v.render()
    assert any(n.startswith("Machine-") for n in v.scene.overlay.texts)


def test_render_command_aggregates_and_says_so(cosine, tmp_path):
    trace, _ = cosine
    out = tmp_path / "a.png"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "render", trace.source,
                        "--base", "treemap", "--aggregate", "Cluster", "--expand", "Cluster-0",
                        "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert ("note: columns: 5 Cluster, 4 Machine aggregates of 600 containers' states"
            in r.stderr)
    assert "(aggregated)" in r.stderr and out.stat().st_size > 0
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "render", trace.source,
                        "--aggregate", "Rack", "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "no container type named 'Rack'" in r.stderr


def test_profiles_stand_only_on_the_columns_drawn_when_a_site_is_expanded():
    """examples/small.trace aggregated to Site with site-0 expanded: the hosts' Load
    profiles of site-0 stand on their own columns, those folded into site-1's column
    are not drawn (they took a column index past the last: an IndexError, found by a
    review)."""
    from pathlib import Path
    tr = load(Path(__file__).parents[1] / "examples" / "small.trace", cache=False)
    layout = make_layout(tr)
    g = Geometry(tr, layout, ViewState(aggregate="Site", expanded=("site-0",),
                                       window=(0.05, 0.15)))
    var = tr.variables
    drawn = np.unique(var.container[g.profiles.rows])  # (hosts)
    names = {tr.display_name("containers", s) for s in tr.containers.parent[drawn]}
    assert len(drawn) == 4 and names == {"site-0"}
    owner = g.owner
    assert (owner[drawn] == drawn).all()
