"""Time-Slice, aggregation and the treemap panel on the worked example of Schnorr's
thesis (Figure 4.7, Table 4.2), written as a Pajé trace: five processes A..E on
machines M1..M3 in clusters C1 and C2 of grid G, observed over the slice [10, 19]
(9 s). Every state and link below is chosen so that the slice cuts some of them at
both ends; the expected numbers are worked out by hand in the comments."""
import csv
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from conftest import HEADER, SIZED_LINK
from triva3d import load
from triva3d.analysis.aggregate import aggregate
from triva3d.analysis.timeslice import Slicer, container_metric
from triva3d.errors import OptionsError, Triva3dError
from triva3d.viewstate import ViewState
from triva3d.panels.treemap import TimeSliceTreemap, write

SLICE = (10.0, 19.0)
THESIS = HEADER + SIZED_LINK + """\
0 G 0 "Grid"
0 C G "Cluster"
0 M C "Machine"
0 P M "Process"
2 S P "State"
1 L M "Load" "0 0 1"
3 E P "Mark"
4 K G P P "Msg"
5 x S "Executing" "0 0.6 0"
5 b S "Blocked" "0.8 0 0"
5 m K "m" "1 1 1"
5 e E "e" "0 1 1"
6 0 G G 0 "G"
6 0 C1 C G "C1"
6 0 C2 C G "C2"
6 0 M1 M C1 "M1"
6 0 M2 M C2 "M2"
6 0 M3 M C2 "M3"
6 0 A P M1 "A"
6 0 B P M1 "B"
6 0 C P M2 "C"
6 0 D P M2 "D"
6 0 E P M3 "E"
8 0 M1 L 2
11 0 B S b
11 0 D S x
20 0 G K E m k5 297
11 5 A S x
20 5 G K C m k4 200
20 8 G K A m k1 300
11 9 E S x
11 10 C S b
20 10 G K B m k3 162
16 11 G K C m k5
17 11 A E e
11 12 A S b
11 12 B S x
20 12 G K D m k6 180
16 13 G K B m k6
16 14 G K C m k1
11 14 E S b
8 15 M1 L 4
20 15 G K E m k7 270
11 16 C S x
11 17 A S x
20 18 G K A m k2 50
11 19 B S b
11 19 E S x
16 19 G K E m k3
17 20 A E e
16 20 G K D m k2
20 20 G K B m k8 296
16 21 G K A m k8
11 22 C S b
16 25 G K A m k4
16 25 G K D m k7
7 30 G G
"""
# Within [10, 19]:
#   A: Executing 5..12 (2 s) + 17..30 (2 s) = 4, Blocked 12..17 = 5
#   B: Blocked 0..12 (2 s), Executing 12..19 = 7, Blocked from 19 (0 s)
#   C: Blocked 10..16 = 6, Executing 16..22 (3 s)
#   D: Executing 0..30 (9 s), never Blocked
#   E: Executing 9..14 (4 s), Blocked 14..19 = 5, Executing from 19 (0 s)
BLOCKED = {"A": 5, "B": 2, "C": 6, "D": 0, "E": 5}
EXECUTING = {"A": 4, "B": 7, "C": 3, "D": 9, "E": 4}
# Links, bytes counted for the part of each link inside the slice (Size spread
# evenly over the link's duration):
#   k1 A->C  8..14 300 B: 4/6  -> 200     k2 A->D 18..20  50 B: 1/2  -> 25
#   k3 B->E 10..19 162 B: all  -> 162     k4 C->A  5..25 200 B: 9/20 -> 90
#   k6 D->B 12..13 180 B: all  -> 180     k5 E->C  0..11 297 B: 1/11 -> 27
#   k7 E->D 15..25 270 B: 4/10 -> 108     k8 B->A 20..21: outside the slice
ORIGIN_BYTES = {"A": 225, "B": 162, "C": 90, "D": 180, "E": 135}   # / 9 s:
ORIGIN_RATE = {"A": 25, "B": 18, "C": 10, "D": 20, "E": 15}
# Throughput (eq. 4.4 weighting Table 4.2's Size / duration by the part inside):
#   k1 300/6 x 4/6, k2 50/2 x 1/2, k3 162/9, k4 200/20 x 9/20, k6 180/1,
#   k5 297/11 x 1/11, k7 270/10 x 4/10
ORIGIN_THROUGHPUT = {"A": 100 / 3 + 12.5, "B": 18, "C": 4.5, "D": 180, "E": 27 / 11 + 10.8}
ORIGIN_PEERS = {"A": 2, "B": 1, "C": 1, "D": 1, "E": 2}    # A -> C, D; E -> C, D
DEST_PEERS = {"A": 1, "B": 1, "C": 2, "D": 2, "E": 1}      # k8 (B -> A) is outside
DEST_BYTES = {"A": 90, "B": 180, "C": 227, "D": 133, "E": 162}
ORIGIN_COUNT = {"A": 2, "B": 1, "C": 1, "D": 1, "E": 2}
ORIGIN_TIME = {"A": 5, "B": 9, "C": 9, "D": 1, "E": 5}
CLUSTERS = {"C1": "AB", "C2": "CDE"}


@pytest.fixture(scope="module")
def thesis(tmp_path_factory):
    p = tmp_path_factory.mktemp("thesis") / "thesis.trace"
    p.write_text(THESIS)
    return load(p, cache=False)


def rows(trace, names):
    return np.concatenate([trace.find("containers", n) for n in names])


def test_states_links_variables_events_in_the_slice(thesis):
    sl = Slicer(thesis).slice(SLICE)
    procs = rows(thesis, "ABCDE")
    for metric, want in (("state:Blocked", BLOCKED), ("state:Executing", EXECUTING),
                         ("links:bytes", ORIGIN_BYTES), ("links:rate", ORIGIN_RATE),
                         ("links_in:bytes", DEST_BYTES), ("links:count", ORIGIN_COUNT),
                         ("links:time", ORIGIN_TIME), ("links:throughput", ORIGIN_THROUGHPUT),
                         ("links:peers", ORIGIN_PEERS), ("links_in:peers", DEST_PEERS)):
        v, carriers = sl.metric(metric)
        assert v[procs] == pytest.approx([want[p] for p in "ABCDE"]), metric
        assert carriers[procs].all() and not carriers[rows(thesis, ["C1", "M1"])].any()
    frac, _ = sl.metric("state%:Executing")
    assert frac[procs] == pytest.approx([EXECUTING[p] / 9 for p in "ABCDE"])
    m1 = rows(thesis, ["M1"])[0]
    assert sl.metric("variable:Load")[0][m1] == pytest.approx(2 * 5 + 4 * 4)
    assert sl.metric("variable_mean:Load")[0][m1] == pytest.approx(26 / 9)
    assert sl.metric("events:e")[0][rows(thesis, ["A"])[0]] == 1       # at 11, not at 20
    ratio, _ = sl.metric("ratio:state:Executing/state:Blocked")
    assert ratio[procs[:3]] == pytest.approx([4 / 5, 7 / 2, 3 / 6])
    assert np.isinf(ratio[procs[3]])                                   # D never blocked
    # a misspelt metric is refused by its spelling, before any trace: in a saved
    # view of a base that does not size leaves it was carried silently
    for bad in ("nope", "links:nope", "state:", "ratio:state:Blocked", "ratio:x/links:y"):
        with pytest.raises(OptionsError, match="unknown metric"):
            sl.metric(bad)
        with pytest.raises(OptionsError, match="unknown metric"):
            ViewState(base="timeline", metric=bad)
        with pytest.raises(OptionsError, match="unknown metric"):
            ViewState(color_by=f"slice:{bad}")
    assert ViewState(metric="ratio:state:A/links:bytes").metric == "ratio:state:A/links:bytes"


# Table 4.2's throughput column, "the sum of bytes over duration per link": A sends
# 10 B and 40 B in 2 s each (10/2 + 40/2 = 25 B/s); the other rows are made of links
# of other lengths: B 12/1 + 12/2 = 18, C 30/3 = 10, D 20/1 = 20, E 45/3 = 15.
# Destinations: A -> B, C; B -> C, D; C -> D; D -> E; E -> A.
TABLE_4_2 = HEADER + SIZED_LINK + """\
0 P 0 "Process"
4 K 0 P P "Msg"
5 m K "m" "1 1 1"
6 0 A P 0 "A"
6 0 B P 0 "B"
6 0 C P 0 "C"
6 0 D P 0 "D"
6 0 E P 0 "E"
20 1 0 K A m a1 10
20 1 0 K A m a2 40
20 1 0 K B m b1 12
20 1 0 K C m c1 30
20 1 0 K E m e1 45
20 1.5 0 K D m d1 20
16 2 0 K C m b1
20 2 0 K B m b2 12
16 2.5 0 K E m d1
16 3 0 K B m a1
16 3 0 K C m a2
16 4 0 K D m b2
16 4 0 K D m c1
16 4 0 K A m e1
"""
TABLE_THROUGHPUT = {"A": 25, "B": 18, "C": 10, "D": 20, "E": 15}


def test_table_4_2_throughput_per_origin(trace_file):
    """Table 4.2 whole, as origin, for any slice that holds the links ([0, 5] and
    [1, 4]); a slice that cuts them counts each for its part inside (eq. 4.4)."""
    tr = load(trace_file(TABLE_4_2), cache=False)
    procs = rows(tr, "ABCDE")
    for window in ((0.0, 5.0), (1.0, 4.0)):
        sl = Slicer(tr).slice(window)
        v, _ = sl.metric("links:throughput")
        assert v[procs] == pytest.approx([TABLE_THROUGHPUT[p] for p in "ABCDE"])
        assert sl.metric("links:bytes")[0][procs] == pytest.approx([50, 24, 30, 20, 45])
        assert sl.metric("links:peers")[0][procs].tolist() == [2, 2, 1, 1, 1]
        assert sl.metric("links_in:peers")[0][procs].tolist() == [1, 1, 2, 2, 1]
    # [1, 2]: a1, a2 half inside (5/2 + 20/2), b1 whole (12), c1 a third (10/3),
    # d1 half (20/2), e1 a third (15/3); b2 starts at 2, a zero overlap
    v = Slicer(tr).slice((1.0, 2.0)).metric("links:throughput")[0][procs]
    assert v == pytest.approx([12.5, 12, 10 / 3, 10, 5])
    # the treemap's cells: out and in, in bytes per second
    tm = TimeSliceTreemap(tr, (0, 5), metric="link:throughput")
    out = {tm.name_of(n): tm.numbers[tm.containers[n], 0] for n in np.unique(tm.cell_node)}
    assert out == pytest.approx(TABLE_THROUGHPUT)
    assert tm.legend_entries()[-1][0].startswith("area: bytes/s (sum)")


def test_whole_trace_slice_is_the_container_metric(thesis):
    st = thesis.states
    b = [v for v in range(len(thesis.values))
         if thesis.names.display(thesis.values.name[v]) == "Blocked"]
    want = np.bincount(st.container[np.isin(st.value, b)],
                       weights=(st.end - st.start)[np.isin(st.value, b)],
                       minlength=len(thesis.containers))
    assert container_metric(thesis, "state:Blocked") == pytest.approx(want)


def test_aggregation_to_clusters_and_grid(thesis):
    sl = Slicer(thesis).slice(SLICE)
    names = ["C1", "C2", "G"]
    members = {"C1": "AB", "C2": "CDE", "G": "ABCDE"}
    for metric, per in (("state:Blocked", BLOCKED), ("state:Executing", EXECUTING),
                        ("links:rate", ORIGIN_RATE)):
        v, carriers = sl.metric(metric)
        for how, f in (("sum", sum), ("max", max), ("min", min),
                       ("mean", lambda x: sum(x) / len(x))):
            agg = aggregate(thesis, v, carriers, how)
            assert agg[rows(thesis, names)] == pytest.approx(
                [f([per[p] for p in members[n]]) for n in names]), (metric, how)
    # the thesis's figures: C1 Blocked 7, Executing 11; the grid 18 and 27
    both = np.c_[sl.metric("state:Blocked")[0], sl.metric("state:Executing")[0]]
    agg = aggregate(thesis, both, sl.metric("state:Blocked")[1], "sum")
    assert agg[rows(thesis, ["C1", "C2", "G"])].tolist() == [[7, 11], [11, 16], [18, 27]]
    # without carriers there is nothing to aggregate
    assert np.isnan(aggregate(thesis, v, np.zeros(len(v), bool), "max")).all()


def test_levels(thesis):
    names = thesis.names.display
    pick = lambda lv: sorted(names(thesis.containers.name[c]) for c in thesis.level(lv))
    assert pick("Cluster") == ["C1", "C2"] and pick(2) == ["C1", "C2"] == pick("2")
    assert pick(None) == list("ABCDE") and pick("Process") == list("ABCDE")
    assert pick(0) == ["0"]
    with pytest.raises(Triva3dError, match=r"no container at depth 9 \(depths 0 to 4\)"):
        thesis.level(9)  # (it was no row: an empty treemap, columns as without)
    with pytest.raises(Triva3dError, match="no container type named 'Rack'"):
        thesis.level("Rack")
    # a state type is no level
    with pytest.raises(Triva3dError, match="no container type named 'State'"):
        thesis.level("State")


def test_treemap_areas_follow_the_values(thesis):
    tm = TimeSliceTreemap(thesis, SLICE, level="Process", pad=0.0, width=900, height=500)
    assert tm.value_names == ["Executing", "Blocked"]
    area = tm.cell_rects[:, 2] * tm.cell_rects[:, 3]
    value = np.array([tm.numbers[tm.containers[n], k] for n, k in zip(tm.cell_node, tm.cell_col)])
    assert area / value == pytest.approx(np.full(len(area), 900 * 500 / 45))
    assert len(area) == 9  # D has no Blocked cell
    # clusters: C1 holds 18 of 45 s, C2 27
    c1 = [i for i in range(len(tm.containers)) if tm.name_of(i) == "C1"][0]
    assert tm.node_rects[c1, 2] * tm.node_rects[c1, 3] == pytest.approx(900 * 500 * 18 / 45)


def test_treemap_at_cluster_level_with_max(thesis):
    tm = TimeSliceTreemap(thesis, SLICE, level="Cluster", how="max", values=["Blocked"])
    got = {tm.name_of(n): tm.numbers[tm.containers[n], 0] for n in tm.cell_node}
    assert got == {"C1": 5, "C2": 6}
    hit = tm.pick(*tm.cell_rects[0, :2] + tm.cell_rects[0, 2:] / 2)
    assert hit["value"] == "Blocked" and hit["path"][-2:] == ["G", hit["node"]]
    assert hit["numbers"]["Blocked"] in (5, 6)


def test_treemap_files(thesis, tmp_path):
    tm = TimeSliceTreemap(thesis, SLICE, level="Machine")
    write(tm, tmp_path / "t.csv")
    with open(tmp_path / "t.csv") as f:
        table = list(csv.DictReader(f))
    got = {(r["node"], r["value"]): float(r["number"]) for r in table}
    assert got[("M1", "Blocked")] == 7 and got[("M2", "Executing")] == 12
    assert got[("C2", "Blocked")] == 11 and got[("G", "Executing")] == 27
    assert {r["metric"] for r in table} == {"state:sum"}
    write(tm, tmp_path / "t.svg", highlight=1)
    svg = ET.parse(tmp_path / "t.svg").getroot()
    rects = svg.findall("{http://www.w3.org/2000/svg}rect")
    keys = [t for t, rgb in tm.legend_entries() if rgb is not None]
    assert keys == ["Executing", "Blocked"]  # the legend: a swatch and a text each
    assert len(rects) == 1 + len(tm.containers) + len(tm.cell_rects) + len(keys)
    texts = [t.text for t in svg.findall("{http://www.w3.org/2000/svg}text")]
    assert {"Executing", "Blocked"} <= set(texts)
    write(tm, tmp_path / "t.png", size=(400, 300))
    import imageio.v3 as iio
    img = iio.imread(tmp_path / "t.png")
    assert img.shape == (300, 400, 3)
    # the state colours fill the picture: Executing green (0, 153, 0), Blocked red (204, 0, 0)
    flat = img.reshape(-1, 3).astype(int)
    green = (np.abs(flat - (0, 153, 0)).max(axis=1) <= 3).mean()
    red = (np.abs(flat - (204, 0, 0)).max(axis=1) <= 3).mean()
    assert green > red > 0.1 and green / red == pytest.approx(27 / 18, rel=0.15)


def test_treemap_command(thesis, tmp_path):
    out = tmp_path / "c.csv"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "treemap", thesis.source,
                        "--slice", "10:19", "--level", "Cluster", "--agg", "mean",
                        "--cells", "link", "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with open(out) as f:
        got = {(row["node"], row["value"]): float(row["number"]) for row in csv.DictReader(f)}
    assert got[("C1", "out")] == pytest.approx((225 + 162) / 2)
    assert got[("C2", "in")] == pytest.approx((227 + 133 + 162) / 3)
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "treemap", thesis.source,
                        "--values", "Sleeping", "-o", str(tmp_path / "x.png")],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "no value named 'Sleeping'" in r.stderr


def test_overview_activity_matches_a_direct_count(thesis):
    """Mean containers per state value in each bin, against a direct computation
    of every top-level state's overlap with every bin."""
    from triva3d.analysis.overview import Overview
    ov = Overview(thesis)
    st = thesis.states
    for n_bins, window in ((7, None), (40, (3.0, 21.0))):
        got, edges = ov.activity(n_bins, window)
        want = np.zeros_like(got)
        for r in np.flatnonzero(st.imbrication == 0):
            col = int(np.flatnonzero(ov.values == st.value[r])[0])
            lo, hi = edges[:-1], edges[1:]
            want[:, col] += np.clip(np.minimum(st.end[r], hi) - np.maximum(st.start[r], lo),
                                    0, None) / (hi - lo)
        assert np.allclose(got, want)
    # from 10 s on (C's first state) all five processes are in a state: 5 in each bin
    full, _ = ov.activity(10, (10.0, 20.0))
    assert np.allclose(full.sum(axis=1), 5)


# Issue 25.3: nested states are counted once. P1 runs A over [0, 10]; B is pushed
# over [2, 5] inside it and C over [3, 4] inside B; P2 runs A twice at depth 0.
NESTED = """\
5 a S "A" "1 0 0"
5 b S "B" "0 1 0"
5 c S "C" "0 0 1"
12 0 p1 S a
12 0 p2 S a
12 2 p1 S b
12 3 p1 S c
13 4 p1 S
13 5 p1 S
13 6 p2 S
12 7 p2 S a
13 9 p2 S
13 10 p1 S
"""


def test_nested_time_is_exclusive_by_default(paje):
    tr = paje(NESTED)
    p1, p2 = tr.find("containers", "P1")[0], tr.find("containers", "P2")[0]
    for window, exclusive, inclusive in (
            # whole run: A 10 - 3 (B) = 7, B 3 - 1 (C) = 2, C 1
            (None, {"A": 7, "B": 2, "C": 1}, {"A": 10, "B": 3, "C": 1}),
            # [4.5, 10]: A 5.5 - 0.5 = 5, B 0.5, C outside
            ((4.5, 10), {"A": 5, "B": 0.5, "C": 0}, {"A": 5.5, "B": 0.5, "C": 0}),
            # [3.5, 4.5]: C 0.5, B 1 - 0.5, A 1 - 1
            ((3.5, 4.5), {"A": 0, "B": 0.5, "C": 0.5}, {"A": 1, "B": 1, "C": 0.5})):
        for nested, want in (("exclusive", exclusive), ("inclusive", inclusive)):
            sl = Slicer(tr, nested=nested).slice(window)
            for value, seconds in want.items():
                v = sl.metric(f"state:{value}")[0]
                assert v[p1] == pytest.approx(seconds, abs=1e-12), (window, nested, value)
            assert sl.metric("state:A")[0][p2] == pytest.approx(
                max(0, min(6, (window or (0, 10))[1]) - (window or (0, 10))[0])
                + max(0, min(9, (window or (0, 10))[1]) - max(7, (window or (0, 10))[0])))
    tm = TimeSliceTreemap(tr)  # the treemap's legend says which time its areas are
    assert "exclusive" in tm.legend_entries()[-1][0]
    assert "inclusive" in TimeSliceTreemap(tr, nested="inclusive").legend_entries()[-1][0]
    with pytest.raises(Triva3dError, match="nested time must be one of"):
        Slicer(tr, nested="both")


def test_the_overview_counts_each_instant_once_in_its_deepest_state(paje):
    """Issue 31.4: per 1 s bin of NESTED, P1 is in A, then B over [2, 5] and C over
    [3, 4] (its deepest state), P2 in A over [0, 6] and [7, 9]: nested states count,
    and a container is never counted twice."""
    from triva3d.analysis.overview import Overview
    tr = paje(NESTED)
    ov = Overview(tr)
    got, _ = ov.activity(10, (0.0, 10.0))
    col = {tr.display_name("values", int(v)): k for k, v in enumerate(ov.values)}
    a, b, c = got[:, col["A"]], got[:, col["B"]], got[:, col["C"]]
    assert a.tolist() == [2, 2, 1, 1, 1, 2, 1, 2, 2, 1]
    assert b.tolist() == [0, 0, 1, 0, 1, 0, 0, 0, 0, 0]
    assert c.tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
    assert (got.sum(axis=1) <= 2).all()


def test_a_leaf_never_holds_more_state_time_than_the_slice(data):
    """The OTF2 ping-pong: MPI_Init (97% of each rank) and main nest; counted once,
    each rank's cells sum to at most the slice and MPI_Init dominates main."""
    tr = load(data / "otf2" / "ping-pong-otf2")
    for window in (None, (0.0, 0.1), (0.15, 0.19)):
        sl = Slicer(tr).slice(window)
        assert (sl.states.sum(axis=1) <= sl.duration * (1 + 1e-9)).all()
    sl = Slicer(tr).slice()
    init, main = sl.metric("state:MPI_Init")[0], sl.metric("state:int main(int, char**)")[0]
    ranks = np.flatnonzero(init > 0)
    assert len(ranks) == 2
    assert (init[ranks] > 0.9 * sl.duration).all() and (main[ranks] < 0.1 * sl.duration).all()
    inc = Slicer(tr, nested="inclusive").slice()
    assert (inc.states.sum(axis=1)[ranks] > 1.9 * sl.duration * 0.9).all()  # counted twice


def test_a_min_of_0_is_not_called_nothing(thesis):
    """Cluster C2's minimum of Blocked over [10, 19] is D's 0 though C and E were
    blocked 6 and 5 s: the note says why it is not drawn (it said "nothing in the
    slice"); summed or averaged it is drawn."""
    tm = TimeSliceTreemap(thesis, window=SLICE, level="Cluster", how="min", values=["Blocked"])
    assert tm.left_out == ["1 of 2 not drawn",
                           "Cluster 1: min 0: a container below holds nothing in the slice"]
    for how in ("sum", "mean"):
        assert TimeSliceTreemap(thesis, window=SLICE, level="Cluster", how=how,
                                values=["Blocked"]).left_out == []
    # a leaf has nothing below it; over [0, 0.5] only B (in C1) is blocked: C2 holds
    # nothing, C1's min is A's 0
    assert TimeSliceTreemap(thesis, window=SLICE, how="min", values=["Blocked"]
                            ).left_out == ["1 of 5 not drawn", "Process 1: nothing in the slice"]
    assert TimeSliceTreemap(thesis, window=(0.0, 0.5), level="Cluster", how="min",
                            values=["Blocked"]).left_out == [
        "2 of 2 not drawn", "Cluster 1: nothing in the slice",
        "Cluster 1: min 0: a container below holds nothing in the slice"]


def test_a_sum_cancelled_by_negative_values_is_not_called_a_min(paje):
    """n1's processes hold 5 and -5 (a variable's time integral): its sum is 0 though
    both hold something; the note said "min 0: a container below holds nothing"."""
    tr = paje('0 NODE 0 "NODE"\n0 P NODE "P"\n1 VAR P "VAR" "1 0 0"\n'
              '6 0 n1 NODE 0 "n1"\n6 0 p1 P n1 "p1"\n6 0 p2 P n1 "p2"\n'
              '6 0 n2 NODE 0 "n2"\n6 0 p3 P n2 "p3"\n8 0 p1 VAR 5\n8 0 p2 VAR -5\n'
              '8 0 p3 VAR 2\n7 1 P p1\n7 1 P p2\n7 1 P p3\n', types="")
    for how in ("sum", "mean"):
        assert TimeSliceTreemap(tr, metric="variable", level="NODE", how=how).left_out == [
            "1 of 2 not drawn", f"NODE 1: {how} 0 or below: values below 0 cancel the others"]


def test_the_treemap_says_what_it_leaves_out(data):
    """Issue 25.9: simu-mardi's hosts node50..node98 and node100 hold no state, its
    links and router never do; the treemap draws the 51 others and says so."""
    tr = load(data / "paje" / "simu-mardi.trace")
    host = tr.find("types", "HOST")[0]
    hosts = np.flatnonzero(tr.containers.type == host)
    idle = np.setdiff1d(hosts, tr.states.container)
    tm = TimeSliceTreemap(tr)
    assert len(np.unique(tm.cell_node)) == len(hosts) - len(idle) == 51
    assert tm.left_out == ["254 of 305 not drawn", f"HOST {len(idle)}: nothing in the slice",
                           "LINK 203, ROUTER 1: never a state"]
    assert tm.notes == ["254 of 305 not drawn: HOST 50: nothing in the slice; LINK 203, "
                        "ROUTER 1: never a state"]
    texts = [t for t, _ in tm.legend_entries()]
    assert all(line in texts for line in tm.left_out)
    assert TimeSliceTreemap(tr, level="HOST", window=(100, 200)).left_out[0] == "50 of 101 not drawn"
