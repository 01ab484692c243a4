"""The unit of a trace's times (issue 25.4): StarPU's Pajé traces count milliseconds,
told by their type hierarchy; other traces count seconds; a person can say otherwise.
Every place that shows a time names the unit: stats, the 3D title, axis and picks,
the treemap's title and CSV."""
import csv
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import otf2
import pytest

from triva3d import View, ViewState, load
from triva3d.errors import OptionsError
from triva3d.movie.paths import make_path
from triva3d.stats import render, summary

STARPU = "paje/native_sample.trace"
NOTE = "StarPU trace: times read as milliseconds"


def triva(*args):
    return subprocess.run([sys.executable, "-m", "triva3d.cli", *map(str, args)],
                          capture_output=True, text=True)


def reference(data, kind):
    """Rows of `kind` in PajeNG's pj_dump output for the StarPU trace."""
    path = data / "paje-reference" / (STARPU.split("/")[1] + ".pj_dump.csv")
    with open(path) as f:
        return [[c.strip() for c in row] for row in csv.reader(f) if row[0] == kind]


def test_starpu_is_read_in_milliseconds_with_a_note(data, tmp_path):
    """StarPU's FxT-to-Pajé converter writes nanoseconds / 1e6; its type hierarchy
    (Program > Memory Node, Thread State) says so, fresh and from the cache."""
    copy = tmp_path / "native_sample.trace"
    shutil.copy(data / STARPU, copy)
    fresh = load(copy)
    cached = load(copy)
    assert not fresh.from_cache and cached.from_cache
    for t in (fresh, cached):
        assert (t.time_unit, t.unit_note, t.notes) == ("ms", NOTE, [NOTE])
    lenient = load(data / "paje/native_paje.trace", lenient=True, cache=False)
    assert lenient.time_unit == "ms"  # an older StarPU's trace


def test_other_traces_count_seconds(data, paje, tmp_path):
    mardi = load(data / "paje/simu-mardi.trace", cache=False)  # SimGrid
    assert (mardi.time_unit, mardi.unit_note, mardi.notes) == ("s", None, [])
    assert paje("").time_unit == "s"
    # a hierarchy with some of StarPU's names, not its shape, is not StarPU's
    assert paje("", types='0 P 0 "Program"\n0 M 0 "Memory Node"\n'
                          '2 S M "Thread State"\n2 MS M "Memory Node State"\n').time_unit == "s"
    # OTF2: ticks over the clock's resolution are seconds (here 1000 ticks a second)
    with otf2.writer.open(str(tmp_path / "a"), timer_resolution=1000) as w:
        d = w.definitions
        group = d.location_group("Process", system_tree_parent=d.system_tree_node("node"))
        main = d.region("main")
        ev = w.event_writer("Master thread", group=group)
        ev.enter(2000, main)
        ev.leave(5500, main)
    t = load(tmp_path / "a", cache=False)
    assert t.time_unit == "s" and list(t.states.end - t.states.start) == [3.5]


def test_stats_names_the_unit_and_takes_an_override(data):
    end = float(reference(data, "Container")[0][4])  # the root's end
    executing = sum(float(r[5]) for r in reference(data, "State") if r[-1] == "Executing")
    r = triva("stats", data / STARPU, "--no-cache")
    assert r.returncode == 0 and f"triva3d: note: {NOTE}" in r.stderr
    span = re.search(r"time span  0 \.\. (\S+) ms \((\S+) ms\)", r.stdout)
    assert span and float(span[1]) == pytest.approx(end, rel=1e-6)
    line = next(x.strip() for x in r.stdout.splitlines() if x.strip().startswith("Executing:"))
    count, time = re.fullmatch(r"Executing: (\d+), (\S+) ms", line).groups()
    assert int(count) == 220 and float(time) == pytest.approx(executing, rel=1e-5)
    r = triva("stats", data / STARPU, "--no-cache", "--time-unit", "s", "--json")
    s = json.loads(r.stdout)
    assert s["time_unit"] == "s" and s["end"] == pytest.approx(end, rel=1e-6)
    t = load(data / "paje/simu-mardi.trace", cache=False)
    assert "time span  0 .. " in render(summary(t)) and \
        re.search(r"time span .* s \(\S+ s\)", render(summary(t)))
    assert triva("stats", data / STARPU, "--time-unit", "days").returncode == 2


def test_treemap_csv_and_title_name_the_unit(data, tmp_path):
    out = tmp_path / "t.csv"
    r = triva("treemap", data / STARPU, "--no-cache", "--level", "Thread", "-o", out)
    assert r.returncode == 0 and "slice 0..40704.4986 ms" in r.stderr
    with open(out) as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["node", "type", "parent", "depth", "metric", "value", "number", "unit"]
    assert {row[-1] for row in rows[1:]} == {"ms"}
    assert triva("treemap", data / STARPU, "--no-cache", "--time-unit", "us", "--cells",
                 "variable", "-o", out).returncode == 0
    with open(out) as f:
        assert {row["unit"] for row in csv.DictReader(f)} == {"value x us"}
    assert triva("treemap", data / "paje/simu-mardi.trace", "--no-cache", "-o",
                 out).returncode == 0
    with open(out) as f:
        assert {row["unit"] for row in csv.DictReader(f)} == {"s"}
    svg = tmp_path / "t.svg"
    r = triva("treemap", data / STARPU, "--no-cache", "-o", svg)
    assert r.returncode == 0, r.stderr
    assert "native_sample.trace   0 .. 40704.5 ms   state" in svg.read_text()


def test_the_scene_names_the_trace_unit_unless_told(data):
    """The title, the axis and a picked state say ms; ViewState.time_unit overrides
    (None: the trace's)."""
    t = load(data / STARPU, cache=False)
    v = View(t, ViewState(base="timeline", view="timeline"), (800, 500))
    v.render()
    o = v.scene.overlay
    f = v.scene.geometry.frame
    assert o.title.GetInput().startswith(f"native_sample.trace   {f.t0:.6g} .. {f.t1:.6g} ms")
    assert o.axis_title.GetInput() == "time (ms)"
    # the axis title stands beyond the ruler's end, on its line (time runs right)
    ruler = o.ruler.GetMapper().GetInput()  # its first segment: the ruler itself
    x1, y1, _ = v.projection.to_display([ruler.GetPoint(1)])[0]
    bx0, by0, bx1, by1 = o.axis_boxes[0]
    assert x1 < bx0 < x1 + 20 and by0 < y1 < by1
    assert f"window {f.t0:.9g}..{f.t1:.9g} ms, " in v.summary()  # render's report
    st = t.states
    row = int(np.argmax(st.end - st.start))  # the longest state: easy to hit
    mid = (st.start[row] + st.end[row]) / 2
    lay, c = v.layout, st.container[row]
    x, y = v.projection.to_display([[lay.x[c], lay.y[c], f.z(mid)]])[0, :2]
    got = v.pick(x, y)
    assert got["kind"] == "state" and got["start"] <= mid <= got["end"]
    assert got["time_unit"] == "ms"
    v.state.time_unit = "s"
    v.render()
    assert o.axis_title.GetInput() == "time (s)" and " s   on timeline" in o.title.GetInput()
    assert f"..{f.t1:.9g} s, " in v.summary()
    assert v.pick(x, y)["time_unit"] == "s"
    v.state.time_unit = None
    v.render()
    assert o.axis_title.GetInput() == "time (ms)"
    s0, s1 = v.scene.geometry.data_span
    v.state.window = (s0, s1)  # a sweep's window must be narrower than the trace
    with pytest.raises(OptionsError, match=f"the trace's {s1 - s0:.9g} ms and wider"):
        make_path(v, "sweep", 1)
    assert ViewState().time_unit is None and ViewState.from_json(ViewState().to_json()) == \
        ViewState()
    v.close()


def test_the_window_offers_the_trace_unit_and_the_others(qtbot, data):
    """The base dock's time unit: "the trace's" (ViewState.time_unit None) or a unit."""
    if not os.environ.get("DISPLAY"):
        pytest.skip("no display: Xvfb is not installed (see .ci/run)")
    from triva3d.gui.docks import TRACE_UNIT
    from triva3d.gui.window import MainWindow
    w = MainWindow(ViewState(base="treemap"))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.open_trace(str(data / STARPU))
    qtbot.waitUntil(lambda: w.trace is not None, timeout=300_000)
    w.redraw()
    combo, axis = w.base_dock.unit, w.view.scene.overlay.axis_title
    assert combo.currentText() == TRACE_UNIT and axis.GetInput() == "time (ms)"
    combo.setCurrentText("s")
    w.redraw()
    assert w.state.time_unit == "s" and w.view.scene.overlay.axis_title.GetInput() == "time (s)"
    combo.setCurrentText(TRACE_UNIT)
    w.redraw()
    assert w.state.time_unit is None
    assert w.view.scene.overlay.axis_title.GetInput() == "time (ms)"
