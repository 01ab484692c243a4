"""Logical time (Ravel; issue 29): steps, phases, lateness and clusters on traces whose
expected values are worked out by hand below, written as Pajé text and as OTF2
archives with otf2.writer, and on the shared ping-pong."""
import csv
import subprocess
import sys

import numpy as np
import pytest

from otf2gen import mpi_ring
from triva3d import load, steps
from triva3d.analysis.logical import AGGREGATE, clusters
from triva3d.errors import Triva3dError

# Three processes. P1 sends m1 to P2 inside MPI_Send [1, 1.2]; P2 receives it in
# MPI_Recv [0.5, 1.5] and sends m3 to P3 in MPI_Send [1.6, 1.8]; P3 receives it in
# MPI_Recv [1, 2] and sends m2 back to P1 in MPI_Send [2.1, 2.3]; P1 receives it in
# MPI_Recv [2, 3]. Then all meet in MPI_Barrier, ending at 3.5, 3.6 and 3.4.
CHAIN = """\
0 P 0 "Process"
2 S P "State"
4 L 0 P P "Msg"
6 0 p1 P 0 "P1"
6 0 p2 P 0 "P2"
6 0 p3 P 0 "P3"
5 c S "compute" "0 0 1"
5 s S "MPI_Send" "1 0 0"
5 r S "MPI_Recv" "0 1 0"
5 b S "MPI_Barrier" "1 1 0"
5 m L "m" "1 1 1"
12 0 p1 S c
12 0.5 p2 S r
13 1 p1 S
12 1 p1 S s
12 1 p3 S r
15 1.1 0 L p1 m k1
16 1.4 0 L p2 m k1
13 1.2 p1 S
13 1.5 p2 S
12 1.6 p2 S s
15 1.7 0 L p2 m k3
13 1.8 p2 S
16 1.9 0 L p3 m k3
12 2 p1 S r
13 2 p3 S
12 2 p2 S b
12 2.1 p3 S s
15 2.2 0 L p3 m k2
13 2.3 p3 S
12 2.4 p3 S b
16 2.9 0 L p1 m k2
13 3 p1 S
12 3.1 p1 S b
13 3.4 p3 S
13 3.5 p1 S
13 3.6 p2 S
"""
# Steps: P1's send 0; P2's receive 1, its send 2; P3's receive 3, its send 4; P1's
# receive after both its send and P3's send: 5; the barrier after P1's 5, P2's 2
# and P3's 4: 6 for all three. Lateness at step 6: ends 3.5, 3.6, 3.4 less 3.4.
WANT = {("P1", "send"): 0, ("P2", "recv"): 1, ("P2", "send"): 2, ("P3", "recv"): 3,
        ("P3", "send"): 4, ("P1", "recv"): 5, ("P1", "collective"): 6,
        ("P2", "collective"): 6, ("P3", "collective"): 6}
LATE = {"P1": 0.1, "P2": 0.2, "P3": 0.0}


def events(s):
    """{(container, type): (step, phase, lateness)} of the communication events."""
    tr = s.trace
    return {(tr.display_name("containers", int(c)), ("send", "recv", "sendrecv",
                                                     "collective")[k]): (int(st), int(p), lt)
            for c, k, st, p, lt in zip(s.container, s.kind, s.step, s.phase, s.lateness)
            if k != AGGREGATE}


def test_steps_phases_and_lateness_of_a_chain_and_a_barrier(paje):
    tr = paje(CHAIN, types="")
    s = steps(tr)
    got = events(s)
    assert {k: v[0] for k, v in got.items()} == WANT
    assert {v[1] for v in got.values()} == {0}  # all joined: one phase
    for p, late in LATE.items():
        assert got[(p, "collective")][2] == pytest.approx(late)
    assert all(v[2] == 0 for k, v in got.items() if k[1] != "collective")
    # each message's two events: its send's step before its receive's
    assert (s.step[s.sends] < s.step[s.recvs]).all() and len(s.sends) == 3
    # the time between two events of a process: one aggregated event, the step of
    # the event after it (P1: [1.2, 2] before its receive; P2: [1.5, 1.6], [1.8, 2])
    agg = s.kind == AGGREGATE
    name = [tr.display_name("containers", int(c)) for c in s.container[agg]]
    assert sorted(zip(name, s.start[agg].round(6), s.end[agg].round(6), s.step[agg])) == [
        ("P1", 1.2, 2.0, 5), ("P1", 3.0, 3.1, 6), ("P2", 1.5, 1.6, 2), ("P2", 1.8, 2.0, 6),
        ("P3", 2.0, 2.1, 4), ("P3", 2.3, 2.4, 6)]
    assert np.isnan(s.lateness[agg]).all()


def test_named_phases_and_clusters(paje):
    """Two iterations (regions "iter") of a ring of four: P1..P4 send to the next and
    receive from the one before. In iteration 2, P3 and P4 receive 1 s late."""
    body = ["0 P 0 \"Process\"", "2 S P \"State\"", "4 L 0 P P \"Msg\"",
            *[f'6 0 p{i} P 0 "P{i}"' for i in range(1, 5)],
            '5 it S "iter" "0 0 1"', '5 s S "MPI_Send" "1 0 0"', '5 r S "MPI_Recv" "0 1 0"',
            '5 m L "m" "1 1 1"']
    lines = []
    for it in range(2):
        t0 = 10 * it
        late = {3: 1.0, 4: 1.0} if it else {}
        for i in range(1, 5):
            nxt = i % 4 + 1
            lines += [(t0, f"12 {t0} p{i} S it"), (t0 + 1, f"12 {t0 + 1} p{i} S s"),
                      (t0 + 1.1, f"15 {t0 + 1.1} 0 L p{i} m k{it}_{i}"),
                      (t0 + 1.2, f"13 {t0 + 1.2} p{i} S"),
                      (t0 + 2, f"12 {t0 + 2} p{nxt} S r"),
                      (t0 + 2.5, f"16 {t0 + 2.5} 0 L p{nxt} m k{it}_{i}"),
                      (t0 + 3 + late.get(nxt, 0), f"13 {t0 + 3 + late.get(nxt, 0)} p{nxt} S"),
                      (t0 + 9, f"13 {t0 + 9} p{i} S")]
    order = sorted(range(len(lines)), key=lambda k: (lines[k][0], k))
    tr = paje("\n".join(body + [lines[k][1] for k in order]) + "\n", types="")
    s = steps(tr, phases=["iter"], n_clusters=2)
    got = events(s)
    # iteration 1: sends at step 0, receives at 1; iteration 2: 2 and 3
    assert {k: v[:2] for k, v in got.items() if k[1] == "recv"} == {
        (f"P{i}", "recv"): (3, 1) for i in range(1, 5)}
    lat = {k[0]: v[2] for k, v in got.items() if k[1] == "recv"}
    assert lat == pytest.approx({"P1": 0, "P2": 0, "P3": 1.0, "P4": 1.0})
    # two clusters: P1, P2 on time; P3, P4 late
    cl = {tr.display_name("containers", int(c)): int(k)
          for c, k in zip(s.container, s.cluster)}
    assert cl["P1"] == cl["P2"] != cl["P3"] == cl["P4"]
    assert len(s.medoids) == 2
    with pytest.raises(Triva3dError, match="no state value named 'nothing'"):
        steps(tr, phases=["nothing"])
    # the clusters as a level of the hierarchy: the treemap's Cluster nodes sum their
    # members' time (Ravel section 3.3)
    from triva3d.analysis.logical import clustered_trace
    from triva3d.panels.treemap import TimeSliceTreemap
    ct = clustered_trace(tr, 2)
    groups = {ct.display_name("containers", int(c)): sorted(
        ct.display_name("containers", int(k)) for k in ct.children(c))
        for c in ct.level("Cluster")}
    assert sorted(groups.values()) == [["P1", "P2"], ["P3", "P4"]]
    assert all(name.startswith("Cluster ") and "(P" in name for name in groups)
    tm = TimeSliceTreemap(ct, level="Cluster", values=["MPI_Recv"])
    recv = {tm.name_of(n): tm.numbers[tm.containers[n], 0] for n in set(tm.cell_node.tolist())}
    late = next(n for n, m in groups.items() if m == ["P3", "P4"])
    # each receive lasts 1 s, P3's and P4's second one 2 s
    assert recv[late] == pytest.approx(2 * (1 + 2)) and sum(recv.values()) == pytest.approx(10)


def test_otf2_isend_irecv_and_allreduce(tmp_path):
    """otf2gen.mpi_ring: 2 rounds of Isend to the next rank and Irecv from the one
    before (sends at steps 0 and 2, receives 1 and 3), then an MPI_Allreduce ending
    at 9100 + rank ns: step 4 for all, lateness rank ns."""
    mpi_ring(tmp_path / "a", rounds=2)
    tr = load(tmp_path / "a", cache=False)
    got = events(steps(tr))
    ranks = [f"MPI Rank {r} / Master thread" for r in range(4)]
    assert {k for k in got} == {(r, kind) for r in ranks
                                for kind in ("send", "recv", "collective")}
    for r, rank in enumerate(ranks):
        assert got[(rank, "collective")][0] == 4
        assert got[(rank, "collective")][2] == pytest.approx(r * 1e-9, abs=1e-12)
    s = steps(tr)
    sends = s.kind == 0
    assert sorted(set(s.step[sends].tolist())) == [0, 2]
    assert sorted(set(s.step[s.kind == 1].tolist())) == [1, 3]


def test_the_shared_ping_pong_and_the_command(data, tmp_path):
    """The OTF2 ping-pong: 16 messages back and forth, each a step after the one
    before: steps 0..31 alternate between the ranks; the CSV has the issue's columns."""
    out = tmp_path / "s.csv"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "steps",
                        str(data / "otf2" / "ping-pong-otf2"), "-o", str(out), "--clusters", "2"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "32 communication events" in r.stderr
    with open(out) as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["container", "type", "value", "start", "end", "step", "phase",
                             "lateness", "cluster", "unit"]
    assert {x["unit"] for x in rows} == {"s"}
    comm = sorted((int(x["step"]), x["container"], x["type"]) for x in rows
                  if x["type"] != "aggregate")
    assert [c[0] for c in comm] == list(range(32))
    assert all(c[1].startswith("MPI Rank 0") == (c[0] % 4 in (0, 3)) for c in comm)
    assert all(c[2] == ("send" if c[0] % 2 == 0 else "recv") for c in comm)
    assert {x["value"] for x in rows if x["type"] != "aggregate"} == {"MPI_Send", "MPI_Recv"}
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "steps",
                        str(data / "otf2" / "ping-pong-otf2"), "-o", str(out),
                        "--phases", "nothing"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "no state value named 'nothing'" in r.stderr
    # the two ranks are never late: one cluster, a level of the treemap
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "treemap",
                        str(data / "otf2" / "ping-pong-otf2"), "--clusters", "2", "--level",
                        "Cluster", "-o", str(tmp_path / "t.csv")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with open(tmp_path / "t.csv") as f:
        nodes = {x["node"] for x in csv.DictReader(f) if x["type"] == "Cluster"}
    assert len(nodes) == 1 and next(iter(nodes)).startswith("Cluster 0 (MPI Rank")


def test_a_trace_without_messages_has_no_steps(paje):
    tr = paje("12 0 p1 S a\n13 1 p1 S\n".replace("a", "x"), types="""\
0 P 0 "Process"
2 S P "State"
6 0 p1 P 0 "P1"
5 x S "X" "1 0 0"
""")
    s = steps(tr)
    assert len(s) == 0 and s.summary().startswith("0 communication events")
    assert (clusters(s, 3) == -1).all()


def test_the_logical_trace_draws_events_at_their_steps(paje, tmp_path):
    """CHAIN in logical time: each event a box [step, step + 0.8] of its own value,
    the time between two events of a process a "between events" state from the box
    before to its own, each message from its send's box end to its receive's step."""
    from triva3d.analysis.logical import logical_trace
    tr = paje(CHAIN, types="")
    lt = logical_trace(tr)
    assert lt.time_unit == "steps" and lt.end_time == 7
    st = lt.states
    got = sorted((lt.display_name("containers", int(c)), lt.display_name("values", int(v)),
                  round(float(a), 6), round(float(b), 6))
                 for c, v, a, b in zip(st.container, st.value, st.start, st.end))
    box = [(p, v, s, round(s + 0.8, 6)) for p, v, s in (
        ("P1", "MPI_Send", 0), ("P1", "MPI_Recv", 5), ("P1", "MPI_Barrier", 6),
        ("P2", "MPI_Recv", 1), ("P2", "MPI_Send", 2), ("P2", "MPI_Barrier", 6),
        ("P3", "MPI_Recv", 3), ("P3", "MPI_Send", 4), ("P3", "MPI_Barrier", 6))]
    between = [("P1", "between events", 0.8, 5), ("P1", "between events", 5.8, 6),
               ("P2", "between events", 1.8, 2), ("P2", "between events", 2.8, 6),
               ("P3", "between events", 3.8, 4), ("P3", "between events", 4.8, 6)]
    assert got == sorted(box + between)
    ln = lt.links
    ends = sorted(zip(ln.start.round(6), ln.end.round(6)))
    assert ends == [(0.8, 1), (2.8, 3), (4.8, 5)]
    late = {lt.display_name("containers", int(c)): x for c, x, v in
            zip(st.container, lt.lateness, st.value)
            if lt.display_name("values", int(v)) == "MPI_Barrier"}
    assert late == pytest.approx(LATE)
    out = tmp_path / "l.png"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "render", tr.source, "--time",
                        "logical", "--base", "appgraph", "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "window 0..6.8 steps, 15 states" in r.stderr


def test_colour_by_lateness_and_duration(paje):
    """CHAIN coloured by lateness: the barriers along the ramp by their lateness
    over the largest (P2 0.2 s: red; P1 0.1 s: half way; P3 0: blue), the other
    communication events blue (on time), the compute state grey (none); by
    duration, on a log scale from the shortest to the longest state."""
    from triva3d import ViewState
    from triva3d.bases.layout import make_layout
    from triva3d.colors import EMPTY, ramp
    from triva3d.scene.geometry import Geometry
    tr = paje(CHAIN, types="")
    g = Geometry(tr, make_layout(tr, base="treemap"), ViewState(color_by="lateness"))
    st = tr.states
    rows = np.arange(len(st))
    rgb = g.state_rgb(rows)
    value = [tr.display_name("values", int(v)) for v in st.value]
    cont = [tr.display_name("containers", int(c)) for c in st.container]
    for i in rows:
        if value[i] == "MPI_Barrier":
            assert tuple(rgb[i]) == tuple(ramp([LATE[cont[i]] / 0.2])[0]), cont[i]
        elif value[i] == "compute":
            assert tuple(rgb[i]) == EMPTY
        else:
            assert tuple(rgb[i]) == tuple(ramp([0.0])[0])
    keys = [t for t, _ in g.legend_entries()]
    assert keys[:5] == ["lateness 0 s", "lateness 0.05 s", "lateness 0.1 s",
                        "lateness 0.15 s", "lateness 0.2 s"]
    assert g.states.rgb.tolist() == g.state_rgb(g.states.rows).tolist()  # what is drawn
    g.update(ViewState(color_by="duration"))
    d = st.end - st.start
    x = (np.log(d) - np.log(d.min())) / (np.log(d.max()) - np.log(d.min()))
    assert g.state_rgb(rows).tolist() == ramp(x).tolist()
    # in logical time every box is 0.8 steps tall: coloured by how long each lasted
    # as it happened, in seconds (the boxes were all one colour, the legend in
    # "steps", and by lateness too, whose values are seconds)
    from triva3d.analysis.logical import logical_trace
    lt = logical_trace(tr)
    g = Geometry(lt, make_layout(lt, base="treemap"), ViewState(color_by="duration"))
    m = g.metric()
    assert m.values.tolist() == pytest.approx(lt.durations.tolist())
    assert len(set(lt.durations.round(9))) > 2 and m.unit == "s"
    assert [t for t, _ in g.legend_entries()][0].endswith(" s")
    g.update(ViewState(color_by="lateness"))
    assert [t for t, _ in g.legend_entries()][4] == "lateness 0.2 s"
    # a unit a person names is that of the times as they happened; steps stay steps
    g.update(ViewState(color_by="lateness", time_unit="ms"))
    assert [t for t, _ in g.legend_entries()][4] == "lateness 0.2 ms"
    assert lt.unit("ms") == "steps" and tr.unit("ms") == "ms"


def test_focus_outlines_the_partners_within_a_radius(paje):
    """Ravel section 4.2: in the ring P1 -> P2 -> P3 -> P4 -> P1, P1's partners are
    P2 and P4 at one message, everyone at two; the View outlines their columns."""
    from triva3d import View, ViewState
    from triva3d.analysis.commgraph import partners
    ring = CHAIN.split("5 c S")[0].replace('6 0 p3 P 0 "P3"', '6 0 p3 P 0 "P3"\n6 0 p4 P 0 "P4"')
    ring += '5 m L "m" "1 1 1"\n5 x S "X" "1 0 0"\n'
    ring += "".join(f"12 0 p{i} S x\n" for i in range(1, 5))
    for i in range(1, 5):
        ring += f"15 {i} 0 L p{i} m r{i}\n16 {i + 0.5} 0 L p{i % 4 + 1} m r{i}\n"
    tr = paje(ring + "".join(f"13 9 p{i} S\n" for i in range(1, 5)), types="")
    p1 = tr.find("containers", "P1")
    name = lambda mask: sorted(tr.display_name("containers", int(c))  # noqa: E731
                               for c in np.flatnonzero(mask))
    assert name(partners(tr, p1, 1)) == ["P1", "P2", "P4"]
    assert name(partners(tr, p1, 2)) == ["P1", "P2", "P3", "P4"]
    assert name(partners(tr, p1, 1, window=(0, 1.2))) == ["P1", "P2"]  # r4 is later
    v = View(tr, ViewState(base="treemap", focus="P1"), size=(400, 300))
    v.render()
    outline = v.scene._slots["focus"][0].GetMapper().GetInput()
    assert outline.GetNumberOfCells() == 12 * 3
    v.state.focus_radius = 2
    v.render()
    assert v.scene._slots["focus"][0].GetMapper().GetInput().GetNumberOfCells() == 12 * 4
    v.state.focus = None
    v.render()
    assert v.scene._slots["focus"] == []


def test_the_morph_slides_each_event_from_its_time_to_its_step(paje, tmp_path):
    """Issue 29.6: Morph.at(0) is CHAIN's communication events and the time between
    them as they happened; at(1) the same boxes at their steps, step k at T0 + k x
    tick with the last box (step 6 + 0.8) ending at the last event's end; half way,
    each time half way. `animate --morph` writes it as a movie whose keyframes go
    from physical (0) to logical (1) time."""
    from triva3d.analysis.logical import BOX, Morph
    tr = paje(CHAIN, types="")
    s = steps(tr)
    m = Morph(tr, s)
    rows = m.logical.step_rows
    t0, t1 = float(s.start.min()), float(s.end.max())
    assert (t0, t1) == (0.5, 3.6) and m.tick == pytest.approx((t1 - t0) / (6 + BOX))
    a, b, h = m.at(0).states, m.at(1).states, m.at(0.5).states
    assert a.start.tolist() == s.start[rows].tolist() and a.end.tolist() == s.end[rows].tolist()
    assert b.start == pytest.approx(t0 + m.logical.states.start * m.tick)
    assert b.end.max() == pytest.approx(t1)
    assert h.start == pytest.approx((a.start + b.start) / 2)
    links = m.at(1).links
    assert links.start == pytest.approx(t0 + (s.step[s.sends] + BOX) * m.tick)
    out = tmp_path / "m"
    keys = tmp_path / "k.json"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "animate", tr.source, "--morph",
                        "--path", "sweep", "--window", "0.5:1", "--duration", "1", "--fps",
                        "3", "--size", "320x240", "--script", str(keys), "-o", f"{out}/"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert len(list(out.glob("*.png"))) == 3
    import json
    frames = json.loads(keys.read_text())["keyframes"]
    assert [k["state"]["logical"] for k in frames] == [0.0, 1.0]
    bad = subprocess.run([sys.executable, "-m", "triva3d.cli", "animate", tr.source, "--morph",
                          "--time", "logical", "-o", f"{out}/"], capture_output=True, text=True)
    assert bad.returncode == 2 and "leave out --time" in bad.stderr
