"""Colour by a variable or a Time-Slice value (issue 29.5): per state numbers worked
out by hand, and a Time-Slice share checked against PajeNG's own dump."""
import csv
import subprocess
import sys

import numpy as np
import pytest

from triva3d import ViewState, load
from triva3d.analysis import colorby
from triva3d.colors import EMPTY, ramp
from triva3d.errors import OptionsError

# A host H carries power_used: 2 over [0, 10), 6 over [10, 20); process P runs on
# H; process Q is under the root (no power_used above it). H also has a second
# process R whose states are the other metric's test.
HOSTED = """\
0 H 0 "Host"
0 P H "Process"
0 Q 0 "Loner"
1 U H "power_used" "1 1 1"
2 S P "State"
2 T Q "QState"
5 c S "compute" "0 0 1"
5 w S "wait" "1 0 0"
5 x T "solo" "0 1 0"
6 0 h H 0 "H"
6 0 p P h "P"
6 0 r P h "R"
6 0 q Q 0 "Q"
8 0 h U 2
12 0 p S c
12 0 r S w
12 0 q T x
13 5 p S
12 5 p S w
13 8 r S
12 8 r S c
8 10 h U 6
12 12 p S c
13 12 p S
13 15 p S
13 20 r S
13 20 q T
8 20 h U 6
"""


def test_variable_means_over_each_state(paje):
    """P's [0,5] reads 2, [5,15] half 2 half 6 (4), the instant at 12 reads 6; Q has
    no power_used on itself or above it (NaN, grey)."""
    tr = paje(HOSTED, types="")
    m = colorby.per_state(tr, "variable:power_used")
    st = tr.states
    got = {(tr.display_name("containers", int(c)), float(a), float(b)): v
           for c, a, b, v in zip(st.container, st.start, st.end, m.values)}
    assert got[("P", 0.0, 5.0)] == pytest.approx(2.0)
    assert got[("P", 5.0, 15.0)] == pytest.approx(4.0)
    assert got[("P", 12.0, 12.0)] == pytest.approx(6.0)
    assert got[("R", 8.0, 20.0)] == pytest.approx((2 * 2 + 10 * 6) / 12)
    assert np.isnan(got[("Q", 0.0, 20.0)])
    assert m.span == (2.0, 6.0) and not m.log and not m.is_time
    with pytest.raises(OptionsError, match="'wait' is not a variable type"):
        colorby.per_state(tr, "variable:wait")


def test_the_scene_colours_and_legend_of_a_slice_value(paje):
    """slice:state%:wait over [0, 20]: P waits 10 s of 20 (0.5), R 8 of 20 (0.4),
    so the ramp runs 0.4..0.5 and every state of P is red, of R blue; Q carries
    no wait (grey). The legend's five stops say so, in percent of the slice (state%)."""
    from triva3d.bases.layout import make_layout
    from triva3d.scene.geometry import Geometry
    tr = paje(HOSTED, types="")
    g = Geometry(tr, make_layout(tr, base="treemap"), ViewState(color_by="slice:state%:wait"))
    st = tr.states
    rgb = g.state_rgb(np.arange(len(st)))
    name = [tr.display_name("containers", int(c)) for c in st.container]
    want = {"P": tuple(ramp([1.0])[0]), "R": tuple(ramp([0.0])[0]), "Q": EMPTY}
    assert [tuple(x) for x in rgb] == [want[n] for n in name]
    keys = [t for t, _ in g.legend_entries()]
    assert keys[:6] == ["state%:wait 40 %", "state%:wait 42.5 %", "state%:wait 45 %",
                        "state%:wait 47.5 %", "state%:wait 50 %",
                        "no state%:wait on the container or above it"]
    g.update(ViewState(color_by="slice:state%:wait", window=(0.0, 10.0)))  # R 8/10, P 5/10
    rgb = g.state_rgb(np.arange(len(st)))
    assert tuple(rgb[name.index("R")]) == tuple(ramp([1.0])[0])


def test_a_slice_share_matches_pj_dump(data):
    """simu-mardi's node2 spends 2.857 % of 10..1205 s in PM `violation`, exclusive
    of what is nested in it: the share worked out from PajeNG's dump."""
    tr = load(data / "paje/simu-mardi.trace", cache=False)
    rows = [[x.strip() for x in r] for r in
            csv.reader(open(data / "paje-reference/simu-mardi.trace.pj_dump.csv"))
            if r and r[0] == "State" and r[1].strip() == '"node2"' and r[2].strip() == "PM"]
    clip = lambda s, e: max(0.0, min(e, 1205.0) - max(s, 10.0))  # noqa: E731
    want = 0.0
    for r in rows:
        s, e = float(r[3]), float(r[4])
        if r[7] == "violation" and float(r[6]) == 0:
            want += clip(s, e) - sum(clip(float(q[3]), float(q[4])) for q in rows
                                     if float(q[6]) == 1 and float(q[3]) >= s
                                     and float(q[4]) <= e)
    m = colorby.per_state(tr, "slice:state%:violation", (10.0, 1205.0))
    node2 = tr.find("containers", "node2")[0]
    assert m.values[tr.states.container == node2] == pytest.approx(want / 1195)
    assert m.span[1] == pytest.approx(want / 1195)  # the most violated host


def cli(*args):
    return subprocess.run([sys.executable, "-m", "triva3d.cli", *map(str, args)],
                          capture_output=True, text=True)


def test_the_command_line_takes_and_checks_it(paje, tmp_path):
    tr = paje(HOSTED, types="")
    out = tmp_path / "v.png"
    ok = cli("render", tr.source, "--color-by", "variable:power_used", "-o", out)
    assert ok.returncode == 0, ok.stderr
    bad = cli("render", tr.source, "--color-by", "variable:nope", "-o", out)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines()[-1].endswith(
        "'nope' is not a variable type of the trace")
    with pytest.raises(OptionsError, match="colour by must be"):
        ViewState(color_by="slice:")
    assert ViewState(color_by=" variable : power_used ").color_by == "variable:power_used"


def test_the_treemap_colours_its_cells_by_the_metric(paje, tmp_path):
    """Issue 29.5 in the treemap: coloured by slice:state%:wait over [0, 20], every
    cell of P takes P's 50 % (the top of the ramp), of R its 40 % (the bottom), Q's
    grey; by variable:power_used, P's wait cell is the time-weighted mean over its
    state [5, 15] (4) and its compute cells over [0, 5] and the instant at 12 (2,
    the instant weighing nothing); the legend gives the stops."""
    from triva3d.panels.treemap import TimeSliceTreemap
    tr = paje(HOSTED, types="")
    tm = TimeSliceTreemap(tr, color_by="slice:state%:wait")
    got = {(tm.name_of(int(n)), tm.value_names[c]): tuple(x)
           for n, c, x in zip(tm.cell_node, tm.cell_col, tm.cell_rgb())}
    top, bottom = tuple(ramp([1.0])[0]), tuple(ramp([0.0])[0])
    assert got == {("P", "compute"): top, ("P", "wait"): top, ("R", "wait"): bottom,
                   ("R", "compute"): bottom, ("Q", "solo"): EMPTY}
    assert [t for t, _ in tm.legend_entries()][:2] == ["state%:wait 40 %", "state%:wait 42.5 %"]
    tm = TimeSliceTreemap(tr, color_by="variable:power_used")
    means = {(tm.name_of(int(n)), tm.value_names[c]): v
             for n, c, v in zip(tm.cell_node, tm.cell_col, tm.cell_metric)}
    assert means[("P", "wait")] == pytest.approx(4.0)
    assert means[("P", "compute")] == pytest.approx(2.0)
    out = tmp_path / "t.png"
    r = cli("treemap", tr.source, "--color-by", "slice:state%:wait", "-o", out)
    assert r.returncode == 0, r.stderr
    bad = cli("treemap", tr.source, "--cells", "event", "--color-by", "lateness", "-o", out)
    assert bad.returncode == 2 and "colour by applies to state cells" in bad.stderr
