"""Two runs compared (issue 32): pairs written by hand whose differences are known,
and generated work-stealing runs without and with a planted slow site."""
import csv
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from triva3d import load
from triva3d.analysis.compare import compare, read_mapping
from triva3d.bases.readers import read_topology
from triva3d.errors import OptionsError, Triva3dError
from triva3d.generate import workstealing, write
from conftest import TYPES

ROOT = Path(__file__).resolve().parents[1]
STATES = '5 r S "Running" "0 1 0"\n5 w S "Waiting" "1 0 0"\n'
# A starts at 100: P1 runs 10 s then waits 2; P2 runs 5. B starts at 0: P1 runs 12,
# and P2 is called P3 there.
A = STATES + "12 100 p1 S r\n12 100 p2 S r\n13 105 p2 S\n13 110 p1 S\n12 110 p1 S w\n13 112 p1 S\n"
B = STATES.replace("P2", "P3") + "12 0 p1 S r\n12 0 p2 S r\n13 3 p2 S\n13 12 p1 S\n"
TYPES_B = '0 P 0 "Process"\n2 S P "State"\n6 0 p1 P 0 "P1"\n6 0 p2 P 0 "P3"\n'


def rows(c):
    return {(name, what): (a, b, d) for name, what, a, b, d in c.rows}


def test_a_hand_made_pair(paje, tmp_path):
    a = paje(A)
    b = paje(B, types=TYPES_B)
    c = compare(a, b)
    assert rows(c) == {("P1", "Running"): (10, 12, 2), ("P1", "Waiting"): (2, 0, -2)}
    assert c.only_a == ["P2"] and c.only_b == ["P3"]
    assert c.notes() == ["1 containers only in A: P2", "1 containers only in B: P3"]
    # a window is read from each run's own start: [0, 4] of each
    c = compare(a, b, window=(0, 4), mapping={"P2": "P3"})
    assert rows(c) == {("P1", "Running"): (4, 4, 0), ("P2", "Running"): (4, 3, -1)}
    assert c.only_a == [] and c.only_b == []
    # the mapping from a file, and its mistakes in one line
    m = tmp_path / "m.csv"
    m.write_text("a,b\nP2,P3\n")
    assert read_mapping(m) == {"P2": "P3"}
    m.write_text("a,b\nP2\n")
    with pytest.raises(Triva3dError, match=r"m.csv:2: expected two names"):
        read_mapping(m)
    with pytest.raises(Triva3dError, match="the mapping names 'P9'"):
        compare(a, b, mapping={"P2": "P9"})


def test_the_difference_treemap(paje, tmp_path):
    """B's areas, coloured by B - A on the diverging map: P1's Running (+2 s, the
    largest change) full red; its Waiting (-2 s) has no area in B; P3 is not in A."""
    from triva3d.colors import EMPTY, diverging
    from triva3d.panels.difference import DifferenceTreemap
    from triva3d.panels.treemap import write as write_treemap
    a, b = paje(A), paje(B, types=TYPES_B)
    tm = DifferenceTreemap(a, b)
    got = {(tm.name_of(tm.cell_node[j]), tm.value_names[tm.cell_col[j]]): d
           for j, d in enumerate(tm.difference)}
    assert got[("P1", "Running")] == 2 and np.isnan(got[("P3", "Running")])
    rgb = {k: tuple(c) for k, c in zip(got, tm.cell_rgb())}
    assert rgb[("P1", "Running")] == tuple(diverging([1.0])[0])
    assert rgb[("P3", "Running")] == EMPTY
    # (B's span is not A's: 0..12 s was written where A's numbers cover 100..112)
    assert tm.title().startswith(f"{b.name} minus {a.name}   each run whole   state")
    assert "   0 .. 5 s   " in DifferenceTreemap(a, b, window=(0.0, 5.0)).title()
    assert [t for t, _ in tm.legend_entries()][:5] == [
        "B - A -2 s", "B - A -1 s", "B - A +0 s", "B - A +1 s", "B - A +2 s"]
    # the colours no longer say which value a cell is: each cell is labelled with
    # its value and B - A, the nodes' names moved to their tops
    labels = {text: top for _, text, _, top in tm.labels()}
    assert labels["Running\n+2"] is False and labels["Running\nnot in A"] is False
    assert labels["P1"] is True and not any(t.startswith("Waiting") for t in labels)
    # P1's Waiting (-2 s: B waits no more) has no area in B's treemap: the legend says so
    assert tm.only_a == [("P1", "Waiting", 2.0)]
    assert "1 cell of A not drawn (no area in B), the largest P1 Waiting -2 s" in [
        t for t, _ in tm.legend_entries()]
    # ... and the legend is drawn with it, wrapped (a line too wide for the legend's
    # share of the picture made the whole legend vanish): its full red swatch (+2 s)
    import imageio.v3 as iio
    from triva3d.theme import BACKGROUND_RGB
    write_treemap(tm, tmp_path / "d.png", size=(600, 400))
    img = iio.imread(tmp_path / "d.png").astype(int)
    assert tuple(img[60, -20]) != BACKGROUND_RGB  # (the legend's box, top right)
    write_treemap(tm, tmp_path / "d.svg")
    assert "P1 / Running: 12 s; B - A +2 (A 10)" in (tmp_path / "d.svg").read_text()


def test_the_hosts_behind_a_slow_site_stand_out(tmp_path):
    """The same run, then with every message touching siteB 0.5 s slower: the 8
    hosts of siteB are the 8 whose RSTEAL time grew most; the command's CSV agrees."""
    topo = read_topology(str(ROOT / "topologies" / "two_site_grid.dot"))
    for name, slow in (("a", None), ("b", "siteB")):
        write(workstealing(topo, processes=32, work=5.0, seed=2, slow_site=slow,
                           slow_latency=0.5), tmp_path / f"{name}.trace")
    a, b = (load(tmp_path / f"{n}.trace", cache=False) for n in "ab")
    c = compare(a, b, level="Host")
    top = [name for name, _ in c.largest("RSTEAL", 8)]
    assert sorted(top) == [f"b-{i}" for i in range(1, 9)]
    out = tmp_path / "c.csv"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "compare", str(tmp_path / "a.trace"),
                        str(tmp_path / "b.trace"), "--level", "Host", "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with open(out) as f:
        table = list(csv.DictReader(f))
    assert list(table[0]) == ["container", "value", "a", "b", "difference", "unit"]
    assert {(x["value"], x["unit"]) for x in table if x["value"].startswith("links")} \
        == {("links:count", "links"), ("links:bytes", "bytes")}
    got = {(x["container"], x["value"]): float(x["difference"]) for x in table}
    for (name, what, _, _, d) in c.rows:
        assert got[(name, what)] == pytest.approx(d)
    assert {x["value"] for x in table} >= {"RUN", "RSTEAL", "IDLE", "links:count",
                                           "links:bytes"}
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "compare", str(tmp_path / "a.trace"),
                        str(tmp_path / "b.trace"), "--level", "Host", "-o",
                        str(tmp_path / "d.png")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    import imageio.v3 as iio
    img = iio.imread(tmp_path / "d.png").astype(int)
    red = (np.abs(img - (215, 55, 45)).max(axis=2) <= 40).mean()
    assert red > 0.02  # siteB's grown RSTEAL and IDLE
    # the legend is drawn (its lines were too wide to fit: the PNG had no scale): its
    # full blue swatch, which no cell takes (RUN lost at most 2.43 s of 7.83)
    from triva3d.colors import diverging
    blue = (np.abs(img - diverging([-1.0])[0]).max(axis=2) <= 2)
    assert 100 <= blue.sum() and blue[:, :img.shape[1] // 2].sum() == 0


def test_the_difference_call_tree(paje, tmp_path):
    """CallFlow section 7.4: A's main [0, 10] calls f [1, 3]; B's calls f [1, 6] and
    g [7, 8]. B's Sankey colours main;f by +3 s (the largest: the red end), main;g
    by +1 s (a third of the way to red: A has none), main by 0 (grey); the tooltip
    gives A, B and B - A."""
    from triva3d.colors import diverging
    from triva3d.panels.difference import DifferenceSankey
    head = '5 m S "main" "1 0 0"\n5 f S "f" "0 1 0"\n5 g S "g" "0 0 1"\n'
    a = paje(head + "12 0 p1 S m\n12 1 p1 S f\n13 3 p1 S\n13 10 p1 S\n")
    b = paje(head + "12 0 p1 S m\n12 1 p1 S f\n13 6 p1 S\n12 7 p1 S g\n13 8 p1 S\n"
             "13 10 p1 S\n")
    sk = DifferenceSankey(a, b, threshold=0.0)
    diff = {sk.tree.text(int(p)): d for p, d in zip(sk.paths, sk.difference)}
    assert diff == {"main": 0.0, "main;f": 3.0, "main;g": 1.0}
    rgb = {sk.tree.text(int(p)): tuple(c) for p, c in zip(sk.paths, sk.rgb())}
    assert rgb == {"main": tuple(diverging([0.0])[0]), "main;f": tuple(diverging([1.0])[0]),
                   "main;g": tuple(diverging([1 / 3])[0])}
    g = [sk.tree.text(int(p)) for p in sk.paths].index("main;g")
    assert sk.tip(g).endswith("B - A +1 s (A 0, B 1)")
    out = tmp_path / "d.svg"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "compare", a.source, b.source,
                        "--calltree", "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "B - A inclusive" in out.read_text()


def test_colour_by_difference_in_3d(paje, tmp_path):
    """Issue 32.3/32.6: A's P1 waits 2 s and P2 4 s; B's P1 waits 5 s and P2 3 s (same
    names, B starting 10 s later: windows from each run's start). Coloured by
    difference:state:wait, P1's states take +3 (the red end), P2's -1 (a third of
    the way to blue); the legend runs -3 .. +3 s; the ViewState keeps B's path, so
    the view saves and reloads; the command line takes --compare."""
    from triva3d import View, ViewState
    from triva3d.colors import diverging
    head = '5 w S "wait" "1 0 0"\n'
    a = paje(head + "12 0 p1 S w\n12 0 p2 S w\n13 2 p1 S\n13 4 p2 S\n")
    b = paje(head + "12 10 p1 S w\n12 10 p2 S w\n13 13 p2 S\n13 15 p1 S\n")
    state = ViewState(compare=b.source, color_by="difference:state:wait")
    view = View(a, state, size=(320, 240))
    view.render()
    g = view.scene.geometry
    rgb = {a.display_name("containers", int(c)): tuple(x)
           for c, x in zip(a.states.container, g.state_rgb(np.arange(len(a.states))))}
    assert rgb == {"P1": tuple(diverging([1.0])[0]), "P2": tuple(diverging([-1 / 3])[0])}
    keys = [t for t, _ in g.legend_entries()][:5]
    assert keys == ["B - A state:wait -3 s", "B - A state:wait -1.5 s",
                    "B - A state:wait +0 s", "B - A state:wait +1.5 s", "B - A state:wait +3 s"]
    saved = tmp_path / "v.json"
    state.save(saved)
    assert ViewState.load(saved).compare == b.source
    out = tmp_path / "d.png"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "render", a.source, "--compare",
                        b.source, "--color-by", "difference:state:wait", "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    bad = subprocess.run([sys.executable, "-m", "triva3d.cli", "render", a.source,
                          "--color-by", "difference:state:wait", "-o", str(out)],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "needs a second run" in bad.stderr
    view.close()


def test_two_runs_side_by_side(paje, tmp_path):
    """Issue 32.3-32.4: A (active 100..112 s) beside B (0..12 s) and B2 (0..224 s),
    each from its first activity: normalised, each run's length over the same height,
    a window moved to each run's start and scaled to its length; absolute, B2 19 times
    as high as A through one camera (B2's, the longer), and with a window the same
    seconds at the same height; B in A's colours by name; the picture twice as wide;
    the command line needs --compare; a movie of both unfolding together."""
    from triva3d import ViewState
    from triva3d.sidebyside import SideBySide
    a = paje(A)
    b = paje(B, types=TYPES_B)
    b2 = paje(STATES + "12 0 p1 S r\n13 224 p1 S\n", types=TYPES_B)
    pair = SideBySide(a, b, ViewState(compare=b.source, side_by_side="normalised"),
                      size=(320, 240))
    img = pair.render()
    assert img.shape == (240, 640, 3)
    (ga, gb) = (v.scene.geometry for v in pair.views)
    assert (ga.frame.t0, ga.frame.t1, gb.frame.t0, gb.frame.t1) == (100, 112, 0, 12)
    assert ga.frame.height == pytest.approx(gb.frame.height)
    red = {v: tuple(g.value_rgb[g.trace.find("values", "Running")[0]]) for v, g in
           (("a", ga), ("b", gb))}
    assert red["a"] == red["b"]
    pair.close()
    pair = SideBySide(a, b2, ViewState(compare=b2.source, side_by_side="normalised",
                                       window=(103.0, 106.0)), size=(320, 240))
    assert pair.views[1].state.window == (56.0, 112.0)  # a quarter to a half of each
    pair.close()
    pair = SideBySide(a, b2, ViewState(compare=b2.source, side_by_side="absolute"),
                      size=(320, 240))
    pair.render()
    ga, gb = (v.scene.geometry for v in pair.views)
    assert gb.frame.height == pytest.approx(224 / 12 * ga.frame.height)
    assert pair.views[0].camera == pair.views[1].camera
    pair.close()
    # at a time scale where A, 19 times shorter, would be under the scale's range:
    # said, not a "time scale must be within" about a number never given
    with pytest.raises(OptionsError, match=r"18\.7 times shorter than the other run, it "
                                           r"would be drawn at a time scale of 0\.000536"):
        SideBySide(a, b2, ViewState(compare=b2.source, side_by_side="absolute",
                                    scale=0.01), size=(320, 240))
    pair = SideBySide(a, b2, ViewState(compare=b2.source, side_by_side="absolute",
                                       window=(102.0, 104.0)), size=(320, 240))
    pair.render()
    ga, gb = (v.scene.geometry for v in pair.views)
    assert pair.views[1].state.window == (2.0, 4.0)
    assert gb.frame.height == pytest.approx(ga.frame.height)  # 2 s each: the same height
    pair.close()
    out = tmp_path / "s.png"
    run = [sys.executable, "-m", "triva3d.cli"]
    r = subprocess.run(run + ["render", a.source, "--compare", b.source, "--side-by-side",
                              "absolute", "--size", "320x240", "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    from PIL import Image
    assert Image.open(out).size == (640, 240)
    for extra, why in ((["--side-by-side", "absolute"], "side by side needs a second run"),
                       (["--compare", b.source, "--color-by", "difference:state:Running",
                         "--time", "logical"], "a difference compares the runs in seconds")):
        bad = subprocess.run(run + ["render", a.source, *extra, "-o", str(out)],
                             capture_output=True, text=True)
        assert bad.returncode == 2 and why in bad.stderr, bad.stderr
    movie = tmp_path / "m.gif"
    r = subprocess.run(run + ["animate", a.source, "--compare", b2.source, "--side-by-side",
                              "normalised", "--unfold", "--duration", "1", "--fps", "4",
                              "--size", "160x120", "-o", str(movie)],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "two runs side by side" in r.stderr, r.stderr
    frames = __import__("imageio").v3.imread(movie)
    assert frames.shape[0] == 4 and frames.shape[2] == 320


# P1 runs 1..10 with a wait nested at 3..4, P2 runs 1..6; P1's Var is 2 from 1, 4
# from 5; one message P1 -> P2 at 2..3: written in seconds (F = 1) and milliseconds.
UNITS = STATES + """12 {1} p1 S r
12 {1} p2 S r
8 {1} p1 V 2
15 {2} 0 L p1 m k1
12 {3} p1 S w
16 {3} 0 L p2 m k1
13 {4} p1 S
8 {5} p1 V 4
13 {6} p2 S
13 {10} p1 S
"""


def test_runs_in_different_units_are_compared_in_one(paje, tmp_path):
    """A in seconds against the same run in milliseconds (StarPU's unit): no
    difference anywhere, in A's unit for the numbers and the colours of A, in B's
    for B's pictures; a window in A's seconds is B's milliseconds; side by side
    at the same seconds, the same height. Cycles do not compare with seconds."""
    from triva3d import ViewState
    from triva3d.analysis.colorby import per_state
    from triva3d.panels.difference import DifferenceSankey, DifferenceTreemap
    from triva3d.analysis.timeslice import Slicer
    from triva3d.sidebyside import SideBySide
    from triva3d.units import per
    a = paje(UNITS.format(*range(11)))
    b = paje(UNITS.format(*range(0, 11000, 1000)))
    b.time_unit = "ms"
    for c in (compare(a, b), compare(a, b, window=(1.5, 4.5))):
        assert c.unit == "s" and c.rows
        for _, _, x, y, d in c.rows:
            assert y == pytest.approx(x) and d == pytest.approx(0, abs=1e-9)
    assert rows(compare(a, b, window=(1.5, 4.5)))[("P1", "Running")][0] == 2.0
    got = rows(compare(b, a))
    assert got[("P1", "Running")] == (8000, 8000, 0)  # (exclusive of the wait)
    assert got[("P1", "variable:Var")] == (28000, 28000, 0)  # 2 x 4 s + 4 x 5 s, in ms
    assert got[("P1", "links:count")] == (1, 1, 0)
    out = tmp_path / "c.csv"
    compare(b, a).write_csv(out)
    with open(out) as f:
        units = {(x["container"], x["value"]): x["unit"] for x in csv.DictReader(f)}
    assert units[("P1", "Running")] == "ms" and units[("P1", "links:count")] == "links"
    assert units[("P1", "variable:Var")] == "value x ms"
    tm = DifferenceTreemap(a, b, window=(1.5, 4.5))
    assert tm.unit == "ms" and (tm.t0, tm.t1) == (2500, 5500)  # (from the start, 1 s)
    assert np.nanmax(np.abs(tm.difference)) == pytest.approx(0, abs=1e-9)
    assert sorted(tm.cell_number(j) for j in range(len(tm.cell_rects))) == [1000, 2000, 3000]
    sk = DifferenceSankey(a, b)
    assert len(sk.difference) and np.abs(sk.difference).max() == pytest.approx(0, abs=1e-9)
    for nested in ("exclusive", "inclusive"):  # (B sliced as A is)
        m = per_state(a, "difference:state:Running", other=b, slicer=Slicer(a, nested))
        assert np.nanmax(np.abs(m.values)) == pytest.approx(0, abs=1e-9)
    pair = SideBySide(a, b, ViewState(compare=b.source, side_by_side="absolute"),
                      size=(160, 120))
    assert pair.views[1].state.scale == pair.views[0].state.scale
    pair.close()
    pair = SideBySide(a, b, ViewState(compare=b.source, side_by_side="absolute",
                                      window=(2.0, 4.0), intervals=("Running", 4, 6)),
                      size=(160, 120))
    s = pair.views[1].state  # (B in its own unit: durations and window converted)
    assert s.window == (2000.0, 4000.0) and s.intervals == ("Running", 4000, 6000)
    pair.close()
    # a unit a person names is both runs' (two runs recorded in s, in fact in ms)
    twin = paje(UNITS.format(*range(11)))
    pair = SideBySide(a, twin, ViewState(compare=twin.source, side_by_side="absolute",
                                         time_unit="ms", window=(2.0, 4.0),
                                         intervals=("Running", 4, 6)), size=(160, 120))
    assert [(v.state.window, v.state.intervals, v.state.time_unit) for v in pair.views] == \
        [((2.0, 4.0), ("Running", 4, 6), "ms")] * 2
    pair.close()
    # the camera fits the longer run in seconds: B, 18 s, against A's 9000 ms
    slow = paje(UNITS.format(*range(0, 22, 2)))
    pair = SideBySide(b, slow, ViewState(compare=slow.source, side_by_side="absolute"),
                      size=(160, 120))
    pair.render()
    assert pair.views[0].state.camera == pair.views[1].fitted_camera()
    assert pair.views[0].state.scale == pytest.approx(pair.views[1].state.scale / 2)
    pair.close()
    assert (per("us", "ns"), per("s", "ns"), per("ms", "us")) == (1000, 1e9, 1000)
    b.time_unit = "cycles"
    with pytest.raises(OptionsError, match=r"its times are in cycles, those of .* in s: "
                                           "the two runs cannot be compared"):
        compare(a, b)
    # normalised, each run's own length: but durations of A cannot be read in cycles
    pair = SideBySide(a, b, ViewState(compare=b.source, side_by_side="normalised"),
                      size=(160, 120))
    pair.close()
    with pytest.raises(OptionsError, match=r"its times are in cycles, those of .* in s"):
        SideBySide(a, b, ViewState(compare=b.source, side_by_side="normalised",
                                   intervals=("Running", 4, 6)), size=(160, 120))


def test_a_time_unit_named_is_both_runs_in_a_difference(paje):
    """A recorded in s and B in ms (StarPU's types), the same numbers: read each in its
    own unit, B is a thousand times shorter; a person naming ms for both (--time-unit)
    says they are the same run, and colour by difference is then none, in 3D (also
    when the unit is named after the picture is made) and in the treemap's cells."""
    from triva3d import View, ViewState
    from triva3d.analysis.colorby import per_state
    from triva3d.panels.treemap import TimeSliceTreemap
    a = paje(UNITS.format(*range(11)))
    starpu = '0 PR 0 "Program"\n0 MN PR "Memory Node"\n2 TS P "Thread State"\n' \
             '2 MS MN "Memory Node State"\n'
    b = paje(UNITS.format(*range(11)), types=TYPES + starpu)
    assert b.time_unit == "ms"
    how = "difference:state:Running"
    assert per_state(a, how, other=b, unit="ms").span == (0, 0)
    assert per_state(a, how, other=b).span[1] == pytest.approx(8 * 0.999)  # (P1: 8 s)
    view = View(a, ViewState(compare=b.source, color_by=how), size=(160, 120))
    view.render()
    assert view.scene.geometry.metric().span[1] == pytest.approx(8 * 0.999)
    keys = [t for t, _ in view.scene.legend_entries()][:5]
    assert keys[-1] == "B - A state:Running +7.99 s"
    view.state.update(time_unit="ms")  # (a stage below the geometry's, yet B - A changes)
    view.render()
    assert view.scene.geometry.metric().span == (0, 0)
    assert [t for t, _ in view.scene.legend_entries()][:1] == ["B - A state:Running +0 ms"]
    view.state.update(color_by="duration", intervals=("Running", 4, 9))
    view.render()
    assert {t[-3:] for t, _ in view.scene.legend_entries()[:5]} == {" ms"}
    assert "2 Running intervals of 4 to 9 ms" in dict(view.scene.legend_entries())
    view.state.update(time_unit="us")
    view.render()
    assert {t[-3:] for t, _ in view.scene.legend_entries()[:5]} == {" us"}
    assert "2 Running intervals of 4 to 9 us" in dict(view.scene.legend_entries())
    view.close()
    tm = TimeSliceTreemap(a, color_by=how, other=b, time_unit="ms")
    assert tm.unit == "ms" and np.nanmax(np.abs(tm.cell_metric)) == 0
    tm = TimeSliceTreemap(a, color_by=how, other=b)
    assert np.nanmax(np.abs(tm.cell_metric)) == pytest.approx(8 * 0.999)


def test_rounding_is_no_change_in_the_difference_pictures(paje):
    """A run against itself with every time moved by 0.1 s differs only by rounding
    (1e-15 s): grey everywhere, though the numbers keep it; a change of a
    millisecond is coloured, scaled to it."""
    from triva3d.analysis.colorby import per_state
    from triva3d.colors import DIVERGING
    from triva3d.panels.difference import DifferenceSankey, DifferenceTreemap
    t = [x + 0.1 for x in range(11)]
    a, b = paje(UNITS.format(*range(11))), paje(UNITS.format(*t))
    noise = [d for *_, d in compare(a, b).rows if d]
    assert noise and max(map(abs, noise)) < 1e-12  # (the numbers: as they are)
    tm, sk = DifferenceTreemap(a, b), DifferenceSankey(a, b)
    assert tm.span == 0 and sk.span == 0 and np.abs(tm.difference).max() > 0
    assert (tm.cell_rgb() == DIVERGING[1]).all() and (sk.rgb() == DIVERGING[1]).all()
    assert per_state(a, "difference:state:Running", other=b).span == (0, 0)
    t[10] += 0.001  # P1 runs a millisecond longer
    b = paje(UNITS.format(*t))
    tm, sk = DifferenceTreemap(a, b), DifferenceSankey(a, b)
    assert tm.span == pytest.approx(0.001) and sk.span == pytest.approx(0.001)
    assert per_state(a, "difference:state:Running", other=b).span == \
        pytest.approx((-0.001, 0.001))
