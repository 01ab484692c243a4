"""The view layer: ViewState (events, JSON, interpolation), the View that follows it
(real VTK offscreen), the Scene updated in place, and the flat public API."""
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import triva3d
from triva3d import Camera, OptionsError, TraceError, View, ViewState, interpolate, load
from triva3d.viewstate import CHECKS, GROUPS, SCALES

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "examples/small.trace"
BASE = {"topology": str(ROOT / "topologies/two_site_grid.dot"),
        "mapping": str(ROOT / "examples/small_on_two_site_grid.csv")}
SIZE = (640, 400)


@pytest.fixture(scope="module")
def small():
    return load(SMALL, cache=False)


def near(img, rgb, tol=3):
    """How many pixels are within `tol` of `rgb` in every channel."""
    return int((np.abs(img.astype(int) - np.asarray(rgb, int)).max(axis=2) <= tol).sum())


# -- ViewState -------------------------------------------------------------------------
def test_assignments_emit_one_change_each_naming_fields_and_stages():
    s = ViewState()
    seen = []
    s.events.connect(lambda change: seen.append((dict(change), set(change.stages))))
    s.window = [1, 2]
    s.scale = 2
    s.scale = 2.0            # unchanged: no event
    s.update(hidden=["MPI"], detail="lod", labels=True)   # one batched change
    assert seen == [({"window": (1.0, 2.0)}, {"geometry"}), ({"scale": 2.0}, {"geometry"}),
                    ({"hidden": ("MPI",), "detail": "lod"}, {"geometry"})]
    assert s.window == (1.0, 2.0) and isinstance(s.scale, float)
    seen.clear()
    s.update(now=3.0, link_opacity=0.5, selection={"kind": "state", "row": 1})
    assert seen[0][1] == {"overlay", "properties", "selection"}
    s.unfold = True
    seen.clear()
    s.now = 4.0              # unfolding: what is drawn follows `now`
    assert seen[0][1] == {"overlay", "geometry"}


def test_a_batched_update_with_one_bad_value_changes_nothing():
    s = ViewState()
    seen = []
    s.events.connect(seen.append)
    with pytest.raises(OptionsError, match=r"within 0\.001\.\.1000"):
        s.update(window=(0, 1), scale=-1)
    assert s.window is None and s.scale == 1.0 and seen == []
    with pytest.raises(AttributeError, match="no field 'colour'"):
        s.update(colour="red")


def test_assign_takes_every_field_in_one_change():
    a, b = ViewState(), ViewState(window=(1, 2), view="top", hidden=["x"], slice_how="max")
    seen = []
    a.events.connect(seen.append)
    a.assign(b)
    assert a == b and len(seen) == 1
    assert set(seen[0]) == {"window", "view", "hidden", "slice_how"}
    assert seen[0].stages == {"geometry", "camera", "panels"}


def test_concerns_are_sub_models_with_their_own_events():
    s = ViewState()
    time, camera = s.group("time"), s.group("camera")
    got_time, got_camera = [], []
    time.events.connect(got_time.append)
    camera.events.connect(got_camera.append)
    time.scale = 3
    assert s.scale == 3.0 and time.scale == 3.0
    s.update(window=(0, 5), view="top", labels=False)
    assert [dict(c) for c in got_time] == [{"scale": 3.0}, {"window": (0.0, 5.0)}]
    assert [dict(c) for c in got_camera] == [{"view": "top"}]
    with pytest.raises(AttributeError):
        time.view = "iso"          # another concern's field
    with pytest.raises(OptionsError, match="no part 'colour'"):
        s.group("colour")
    # every field belongs to exactly one concern
    assert sorted(n for g in GROUPS.values() for n in g) == sorted(CHECKS)


def test_the_timeline_view_and_its_base_go_together_in_one_change():
    s = ViewState()
    seen = []
    s.events.connect(seen.append)
    s.view = "timeline"
    assert s.base == "timeline" and dict(seen[-1]) == {"view": "timeline", "base": "timeline"}
    s.base = "treemap"
    assert s.view == "iso" and dict(seen[-1]) == {"base": "treemap", "view": "iso"}
    s.update(base="topology", view="timeline")   # the view wins: a Gantt chart
    assert (s.base, s.view) == ("timeline", "timeline")


@pytest.mark.parametrize("field, value, message", [
    ("window", (3, 1), "ends before it starts"),
    ("window", (0, float("inf")), "two times"),
    ("scale", 0, "within 0.001..1000"),
    ("scale", 1e308, "within 0.001..1000"),  # (drew a blank picture)
    ("scale", 1000.5, "within 0.001..1000"),
    ("link_opacity", 1.5, "within 0..1"),
    ("detail", "fine", "detail must be one of auto, exact, lod"),
    ("base", "grid", "base must be one of"),
    ("program", "graphviz", "layout program must be one of"),
    ("view", "up", "view must be iso, top, side, timeline or AZ,EL"),
    ("hidden", "MPI", "list of names"),
    ("colors", {"MPI": "red"}, "#rrggbb"),
    ("camera", {"position": [0, 0]}, "camera needs position"),
    ("selection", {"kind": "state"}, "selection must be"),
    ("time_unit", "days", "time unit must be one of"),
    ("labels", 1, "true or false"),
])
def test_bad_values_are_one_line_errors(field, value, message):
    s = ViewState()
    before = getattr(s, field)
    with pytest.raises(OptionsError, match=re.escape(message)) as e:
        setattr(s, field, value)
    assert "\n" not in str(e.value) and getattr(s, field) == before
    with pytest.raises(AttributeError):
        s.zoom = 2


def test_json_round_trip_is_exact(tmp_path):
    s = ViewState(topology="g.dot", base="topology", program="sfdp", pattern=r"(\w+)-\d",
                  window=(0.1, 1 / 3), scale=0.7, detail="exact", link_opacity=0.25,
                  labels=False, hidden=("MPI", "Load"), containers=("a-1",),
                  colors={"Computing": "#12AB34"}, view="20,45", time_unit="ms",
                  camera=Camera(position=(1, 2, 3.5), focal_point=(0, 0, 0), view_up=(0, 0, 1),
                                view_angle=25.0, parallel_scale=3.0, parallel=True),
                  selection={"kind": "state", "row": 7})
    again = ViewState.from_json(s.to_json())
    assert again == s and again.to_dict() == s.to_dict()
    assert again.window[1] == 1 / 3 and again.colors == {"Computing": "#12ab34"}
    s.save(tmp_path / "v.json")
    assert ViewState.load(tmp_path / "v.json") == s
    assert ViewState.from_json(ViewState().to_json()) == ViewState()


@pytest.mark.parametrize("text, message", [
    ('{"zoom": 2}', "unknown key 'zoom' in the view"),
    ('{"scale": "big"}', "time scale must be within 0.001..1000"),
    ('{"window": [5, 1]}', "ends before it starts"),
    ('{"format": 9}', "unknown view format"),
    ('[1, 2]', "a view must be a JSON object"),
    ('{\n"scale": 1,\n}', "not JSON"),
])
def test_bad_view_files_name_the_file(tmp_path, text, message):
    p = tmp_path / "bad.json"
    p.write_text(text)
    with pytest.raises(TraceError, match=re.escape(message)) as e:
        ViewState.load(p)
    assert str(e.value).startswith(str(p)) and "\n" not in str(e.value)
    if message == "not JSON":
        assert e.value.line == 3


def test_interpolation():
    cam = dict(focal_point=(0, 0, 0), view_up=(0, 0, 1))
    a = ViewState(window=(0, 10), scale=1, link_opacity=0, hidden=(),
                  camera=Camera(position=(10, 0, 0), view_angle=20, **cam))
    b = ViewState(window=(10, 30), scale=4, link_opacity=1, hidden=("MPI",),
                  camera=Camera(position=(0, 10, 0), view_angle=40, **cam))
    m = interpolate(a, b, 0.5)
    assert m.window == (5, 20) and m.scale == pytest.approx(2) and m.link_opacity == 0.5
    assert m.camera.position == (5, 5, 0) and m.camera.view_angle == 30
    assert m.hidden == ()                               # discrete fields switch at the end
    assert interpolate(a, b, 0) == a and interpolate(a, b, 1) == b
    # at the top of the scale's range (exp(log(1000)) rounds above it: a movie there
    # stopped with "time scale must be within")
    top = ViewState(scale=SCALES[1])
    assert interpolate(ViewState(scale=50), top, 1.0).scale == SCALES[1]
    assert interpolate(top, top, 0.3).scale == SCALES[1]


# -- View ------------------------------------------------------------------------------
def test_window_change_gives_the_pixels_of_a_fresh_view(small):
    for detail in ("exact", "lod"):
        moving = View(small, ViewState(**BASE, detail=detail), SIZE)
        first = moving.render()
        moving.state.window = (0.05, 0.12)
        updated = moving.render()
        fresh = View(small, ViewState(**BASE, detail=detail, window=(0.05, 0.12)), SIZE)
        fresh.render()  # the first frame of a window may differ in a pixel or two
        fresh = fresh.render()
        assert np.array_equal(updated, fresh), detail
        assert (np.abs(updated.astype(int) - first.astype(int)).sum(axis=2) > 30).mean() > 0.02


def test_updates_keep_the_base_and_its_layout(small, monkeypatch):
    v = View(small, ViewState(**BASE), SIZE)
    v.render()
    base_actors, layout = v.scene._slots["base"], v.layout
    import triva3d.bases.layout as lay_module
    monkeypatch.setattr(lay_module, "make_layout", lambda *a, **k: pytest.fail("laid out"))
    for change in ({"window": (0.1, 0.2)}, {"scale": 2.0}, {"hidden": ("MPI",)},
                   {"colors": {"I/O": "#ffffff"}}, {"link_opacity": 0.1}, {"labels": False},
                   {"detail": "lod"}, {"time_unit": "ms"}):
        v.state.update(**change)
        v.render()
        assert v.scene._slots["base"] is base_actors and v.layout is layout


def test_a_base_change_lays_out_again_and_replaces_the_scene(small):
    v = View(small, ViewState(**BASE), SIZE)
    v.render()
    old = v.scene
    v.state.update(topology=None, mapping=None, base="treemap")
    v.render()
    assert v.layout.base == "treemap" and v.scene is not old and not old.renderers
    drawn = v.renderer.GetViewProps()
    assert drawn.GetNumberOfItems() == len(v.scene.props)


def test_hiding_a_value_removes_its_colour(small):
    v = View(small, ViewState(**BASE, view="top"), SIZE)
    rgb = View(small, ViewState(**BASE), SIZE).scene.geometry.value_rgb[int(small.find("values", "Computing")[0])]
    assert near(v.render(), rgb) > 50
    v.state.hidden = ("Computing",)
    img = v.render()
    assert near(img, rgb) == 0
    assert "Computing" not in [n for n, _ in v.scene.geometry.legend_entries()]
    rows = v.scene.geometry.states.rows
    assert len(rows) == (small.states.value != small.find("values", "Computing")[0]).sum()


def test_colour_override(small):
    v = View(small, ViewState(**BASE, view="top"), SIZE)
    rgb = View(small, ViewState(**BASE), SIZE).scene.geometry.value_rgb[int(small.find("values", "Computing")[0])]
    v.state.colors = {"Computing": "#00ff80"}
    img = v.render()
    assert near(img, (0, 255, 128)) > 50 and near(img, rgb) == 0


def test_a_bad_setting_keeps_the_picture(small):
    v = View(small, ViewState(**BASE), SIZE)
    v.render()
    before = v.render()
    v.state.hidden = ("Nothing",)
    with pytest.raises(OptionsError, match="nothing named 'Nothing' to hide"):
        v.render()
    v.state.hidden = ()
    assert np.array_equal(v.render(), before)
    v.state.base = "appgraph"
    v.state.level = "Rack"
    with pytest.raises(OptionsError, match="no container type named 'Rack'"):
        v.render()
    assert v.layout.base == "topology"


def test_a_saved_view_gives_the_same_picture(small, tmp_path):
    v = View(small, ViewState(**BASE, window=(0.02, 0.2), hidden=("MPI",)), SIZE)
    v.renderer.GetActiveCamera().Azimuth(40)     # as a user's mouse would
    v.state.camera = v.camera
    v.render()
    shot = v.render()
    v.state.save(tmp_path / "view.json")
    again = View(small, ViewState.load(tmp_path / "view.json"), SIZE)
    again.render()
    again = again.render()
    assert np.array_equal(shot, again)


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_two_hundred_frames_through_one_window(small):
    v = View(small, ViewState(**BASE), (320, 200))
    rw, ren = v.render_window, v.renderer
    windows = [(0.0, 0.26), (0.05, 0.1), (0.1, 0.2)]

    def frame(i):
        v.state.window = windows[i % 3]
        v.state.hidden = ("MPI",) if i % 2 else ()
        v.renderer.GetActiveCamera().Azimuth(2)
        return v.render()
    for i in range(20):
        frame(i)
    start, props = rss_mb(), ren.GetViewProps().GetNumberOfItems()
    for i in range(200):
        img = frame(i)
    assert img.shape == (200, 320, 3)
    assert v.render_window is rw and rw.GetRenderers().GetNumberOfItems() == 1
    assert ren.GetViewProps().GetNumberOfItems() == props == len(v.scene.props)
    assert rss_mb() - start < 25, (start, rss_mb())


# -- library, not CLI ------------------------------------------------------------------
def test_layout_rows_and_summary(small):
    from triva3d import make_layout
    lay = make_layout(small, base="treemap")
    rows = list(lay.rows(small))
    assert len(rows) == len(small.containers) - 1
    assert rows[0][:4] == ("site-0", "Site", "site-0", "name")
    # a treemap node per container, the root included
    n = len(small.containers)
    assert lay.summary()[0] == f"{n - 1} containers placed on {n} treemap nodes"
    with pytest.raises(OptionsError, match="needs a topology file"):
        make_layout(small, base="topology")


def test_ratio_metric_through_the_cli(tmp_path):
    cli = [sys.executable, "-m", "triva3d.cli", "place", str(SMALL), "--base", "treemap"]
    ok = subprocess.run(cli + ["--leaf-size", "ratio:state:Computing/state:MPI"],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    # Marker events are on the processes only, Computing everywhere: a zero denominator
    bad = subprocess.run(cli + ["--leaf-size", "ratio:state:Computing/events:m4"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.count("\n") == 1 and "infinite" in bad.stderr


def test_import_loads_no_vtk_qt_or_numba():
    code = ("import sys, triva3d; from triva3d import ViewState, OptionsError; ViewState(); "
            "print([m for m in ('vtkmodules', 'PySide6', 'numba', 'numpy') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stderr
    assert set(triva3d.__all__) >= {"load", "make_layout", "Scene", "View", "ViewState",
                                    "Slicer", "aggregate", "TimeSliceTreemap", "Triva3dError"}


def test_help_loads_no_numpy():
    """`triva3d --help` and a command's help build the parser without numpy (the
    generate command's defaults took it in: twice the start-up); generate's own help
    lists its options."""
    code = ("import sys; from triva3d.cli import main\n"
            "try: main(sys.argv[1:])\n"
            "except SystemExit: pass\n"
            "print('numpy' in sys.modules, file=sys.stderr)")
    for argv, numpy in ((["--help"], False), (["stats", "--help"], False),
                        (["generate", "hierarchy", "--help"], True)):
        out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True,
                             text=True)
        assert out.stderr.strip() == str(numpy), (argv, out.stderr)
        assert "usage: triva3d" in out.stdout
    assert "--format {paje,otf2}" in out.stdout


def test_a_read_off_a_terminal_loads_no_progress_bar(tmp_path):
    """tqdm (20 ms to import: its version looked up in the installed packages) is for
    a terminal: a script's or batch job's read does without it."""
    code = ("import sys; from triva3d.cli import main\n"
            "main(sys.argv[1:])\n"
            "print('tqdm' in sys.modules, file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code, "stats", "--no-cache", str(SMALL)],
                         capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert out.returncode == 0 and out.stderr.splitlines()[-1] == "False", out.stderr


def test_geometry_needs_no_vtk(small):
    st = small.states
    want = int(((st.end >= 0) & (st.start <= 0.1)).sum())
    code = ("import sys; from triva3d import load, make_layout, ViewState; "
            "from triva3d.scene.geometry import Geometry; "
            f"t = load({str(SMALL)!r}, cache=False); "
            "g = Geometry(t, make_layout(t, base='treemap'), ViewState(window=(0, 0.1))); "
            "print(len(g.states.rows), 'vtkmodules' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.split() == [str(want), "False"], out.stderr


def readme_examples():
    text = (ROOT / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, re.S)


@pytest.mark.parametrize("code", readme_examples())
def test_readme_python_examples_run(code, tmp_path):
    for d in ("examples", "topologies"):
        (tmp_path / d).symlink_to(ROOT / d)
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr


def test_readme_has_python_examples():
    assert len(readme_examples()) >= 2


def test_what_the_review_found(small, tmp_path):
    """A selection of another base, an empty level-of-detail window, bad saved
    views: one-line errors or nothing drawn, never a traceback."""
    v = View(small, ViewState(**BASE, selection={"kind": "edge", "row": 3}), SIZE)
    v.render()
    assert len(v.scene._slots["selection"]) == 1
    v.state.update(topology=None, mapping=None, base="treemap")
    v.render()  # the treemap has no edge 3: the selection is cleared
    assert v.state.selection is None and not v.scene._slots["selection"]
    v.state.update(detail="lod", window=(10.0, 11.0))  # no state in it
    v.render()
    assert v.scene.geometry.states.mode == "lod" and not len(v.scene.geometry.states.rows)
    for text, message in (('{"view": [35, 30]}', "view must be a name"),
                          ('{"selection": {"kind": "galaxy", "row": 1}}', "selection must be"),
                          ('{"camera": {"position": [1, 1, 1], "focal_point": [1, 1, 1], '
                           '"view_up": [0, 0, 1]}}', "must differ from its focal point")):
        (tmp_path / "v.json").write_text(text)
        with pytest.raises(TraceError, match=message):
            ViewState.load(tmp_path / "v.json")


def test_one_instantaneous_message_is_a_message(trace_file):
    from conftest import HEADER, TYPES
    from triva3d.analysis.roles import platform_link_types
    t = load(trace_file(HEADER + TYPES + "15 0 0 L p1 m k\n16 0 0 L p2 m k\n"
                        "11 1 p1 S a\n"), cache=False)
    assert len(t.links) == 1 and not platform_link_types(t).any()


def test_no_display_and_an_empty_level_are_one_line_errors(small):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "view", str(SMALL)], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "needs a display" in r.stderr
    from triva3d import make_layout
    with pytest.raises(OptionsError, match=r"no container at depth 7 \(depths 0 to 3\)"):
        make_layout(small, base="appgraph", level="7")


def test_moving_a_node_and_a_container(small, tmp_path):
    """A moved base node carries the containers on it; a moved container carries
    those drawn on it; the moves are saved with the view and refused by name."""
    view = View(small, ViewState(**BASE), size=SIZE)
    before = view.layout
    i = before.node_names.index("a-1")  # host-0 and its processes stand on it
    on = np.flatnonzero(before.node == i)
    assert len(on) >= 2
    dx, dy = 40.0, -25.0
    target = (before.node_rects[i, 0] + dx, before.node_rects[i, 1] + dy)
    view.state.moved = {"node:a-1": target}
    view.update()
    after = view.layout
    assert tuple(after.node_rects[i, :2]) == pytest.approx(target)
    assert after.x[on] == pytest.approx(before.x[on] + dx)
    assert after.y[on] == pytest.approx(before.y[on] + dy)
    others = np.ones(len(before.x), bool)
    others[on] = False
    assert np.array_equal(after.x[others], before.x[others])
    # a process on a host: itself only (nothing stands on it)
    rank = small.find("containers", "rank-5")[0]
    view.state.moved = {**view.state.moved, "container:rank-5": (0.0, 0.0)}
    view.update()
    assert (view.layout.x[rank], view.layout.y[rank]) == (0.0, 0.0)
    view.state.save(tmp_path / "v.json")
    again = View(small, ViewState.load(tmp_path / "v.json"), size=SIZE)
    assert np.array_equal(again.layout.x, view.layout.x)
    assert np.array_equal(again.layout.node_rects, view.layout.node_rects)
    with pytest.raises(OptionsError, match="no base node named 'nowhere'"):
        view.state.moved = {"node:nowhere": (1, 2)}
        view.update()
    with pytest.raises(OptionsError, match="'node:x' must go to"):
        ViewState(moved={"node:x": (1, float("nan"))})
    with pytest.raises(OptionsError, match=r"within -1e\+09\.\.1e\+09"):  # (was blank)
        ViewState(moved={"node:x": (1e300, 0)})


def test_the_legend_keys_show_in_a_scene_without_translucent_things(small):
    """Without message lines nothing is translucent: the legend's texts and swatches
    must still be drawn over its box (re-reading VTK's whole GL state before each
    frame once drew the box over them)."""
    from triva3d.theme import TEXT_RGB
    view = View(small, ViewState(**BASE, link_opacity=0.0), size=(1280, 720))
    img = view.render()
    x0, y0, x1, y1 = (int(c) for c in view.scene.overlay.legend.rect)
    box = img[720 - y1:720 - y0, x0:x1]
    assert near(box, [255 * c for c in TEXT_RGB], tol=12) > 200  # the key texts
    computing = view.scene.geometry.value_rgb[small.find("values", "Computing")[0]]
    assert near(box, computing) > 100  # its swatch


def test_a_callback_connected_first_hears_a_change_before_the_others():
    s, order = ViewState(), []
    s.events.connect(lambda c: order.append("window"))
    s.events.connect(lambda c: order.append("view"), first=True)
    s.scale = 2
    assert order == ["view", "window"]


def test_searching_containers_by_part_of_their_name_matches_every_row_spelled_so(small):
    names = [small.display_name("containers", c) for c in range(len(small.containers))]
    for text in ("rank", "RANK-1", "site", "zzz", ""):
        want = [c for c in range(1, len(names)) if text.lower() in names[c].lower()]
        assert small.search("containers", text).tolist() == want
    assert small.search("values", "").tolist() == list(range(len(small.values)))


def test_the_communication_graph_shows_the_traffic_of_the_window_as_it_moves(small):
    """Thesis §3.4, §5.4.2: the communication graph of the chosen interval, edge
    width growing with the pair's traffic (§3.6.1). The nodes stay where the whole
    run's graph put them; a strip over each pair that exchanged messages in the
    window, as wide as its share of the busiest pair's."""
    ln = small.links
    view = View(small, ViewState(base="appgraph"), size=SIZE)
    nodes = view.layout.node_rects.copy()
    for window in ((0.1, 0.12), (0.2, 0.25)):
        view.state.window = window
        view.render()
        assert np.array_equal(view.layout.node_rects, nodes)  # laid out once
        # each message for the part of its time inside the window (thesis eq. 4.4)
        t0, t1 = window
        m = (ln.start <= t1) & (ln.end >= t0)
        d = ln.end[m] - ln.start[m]
        inside = np.where(d > 0, (np.minimum(ln.end[m], t1) - np.maximum(ln.start[m], t0))
                          / np.where(d > 0, d, 1), 1.0)
        a = view.layout.node[ln.start_container[m]]
        b = view.layout.node[ln.end_container[m]]
        apart = a != b
        pairs, inv = np.unique(np.c_[np.minimum(a, b), np.maximum(a, b)][apart], axis=0,
                               return_inverse=True)
        count = np.bincount(inv.ravel(), weights=inside[apart])
        pairs, count = pairs[count > 0], count[count > 0]
        (strips,) = view.scene._slots["heat"]
        assert strips.GetMapper().GetInput().GetNumberOfCells() == len(pairs) > 0
        # the busiest pair's strip is the widest: widths follow sqrt(count / max)
        edges = {tuple(sorted(e)): i for i, e in enumerate(view.layout.edges.tolist())}
        level = view.scene._particles_of().heat(view.scene.geometry, window[1])
        want = count / count.max()
        got = level[[edges[tuple(p)] for p in pairs.tolist()]]
        assert got == pytest.approx(want)
    keys = [t for t, rgb in view.scene.legend_entries() if rgb is None]
    assert "edges: traffic of the window (messages), narrow blue to wide red" in keys


def test_a_change_made_while_one_is_heard_comes_after_it_to_everyone():
    """A callback that changes the state (a rollback) must not reach the others
    before the change they are still to hear: each hears them in order."""
    s = ViewState()
    heard = {"first": [], "base": []}

    def rollback(change):
        heard["first"].append(dict(change))
        if change.get("level") == "bad":
            s.update(base=None, level=None)
    s.events.connect(rollback)
    s.group("base").events.connect(lambda c: heard["base"].append(dict(c)))
    s.update(base="appgraph", level="bad")
    want = [{"base": "appgraph", "level": "bad"}, {"base": None, "level": None}]
    assert heard["first"] == want and heard["base"] == want
    assert (s.base, s.level) == (None, None)


def test_copy_follows_the_rules_of_update():
    s = ViewState(view="timeline")
    assert (s.copy(base="treemap").base, s.copy(base="treemap").view) == ("treemap", "iso")
    assert s.copy(scale=2).base == "timeline"


def test_a_freed_listener_is_dropped():
    import gc

    class Listener:
        def heard(self, change):
            pass
    s, listener = ViewState(), Listener()
    s.events.connect(listener.heard)
    del listener
    gc.collect()
    s.scale = 2
    assert s.events._callbacks == []


def test_the_timeline_names_the_frames_around_its_rows(paje):
    """On the timeline, containers without states are frames around their rows
    (here two sites, each a host around a process): each frame is named in its own
    band below its children (the ping-pong's Linux, quartz10 and ranks were
    nameless grey bands), after the rows' names."""
    tr = paje('0 Site 0 "Site"\n0 Host Site "Host"\n0 P Host "Process"\n2 S P "State"\n'
              '6 0 s1 Site 0 "site-1"\n6 0 h1 Host s1 "host-1"\n6 0 p1 P h1 "proc-1"\n'
              '6 0 s2 Site 0 "site-2"\n6 0 h2 Host s2 "host-2"\n6 0 p2 P h2 "proc-2"\n'
              '11 0 p1 S run\n11 0 p2 S run\n11 4 p1 S wait\n7 5 P p1\n7 5 P p2\n',
              types="")
    view = View(tr, ViewState(base="timeline", view="top"), size=(800, 600))
    view.render()
    boxes = {b[4]: b[:4] for b in view.scene.overlay.boxes}
    assert set(boxes) == {"proc-1", "proc-2", "host-1", "host-2", "site-1", "site-2"}
    for k in "12":  # top view: y grows up the screen; each frame's band is lower
        assert boxes[f"site-{k}"][1] < boxes[f"host-{k}"][1] < boxes[f"proc-{k}"][1]
    # place's rows say so: a frame covers its rows (it said "unplaced, 0, 0, 0, 0")
    rows = {r[0]: r[3:] for r in view.layout.rows(tr)}
    assert rows["host-1"][0] == "descendants" and rows["host-1"][3] == rows["proc-1"][3]
    assert rows["site-1"][0] == "descendants" and rows["site-1"][4] > rows["host-1"][4]
    # seen as a Gantt chart the bands are edge-on: a frame's name would stand among
    # the rows' as if it were one (a review found site-1 between two processes)
    view = View(tr, ViewState(base="timeline", view="timeline"), size=(800, 600))
    view.render()
    assert {b[4] for b in view.scene.overlay.boxes} == {"proc-1", "proc-2"}


def test_the_timeline_gives_the_root_a_row_where_it_holds_events(paje):
    """SimGrid's msmark events are on the root: the timeline drew "0 events" (every
    other base drew them); the root now has a row, named, first."""
    tr = paje('0 P 0 "Process"\n2 S P "State"\n3 E 0 "Mark"\n'
              '6 0 p1 P 0 "proc-1"\n11 0 p1 S run\n17 1 0 E start\n17 3 0 E finish\n'
              '7 5 P p1\n', types="")
    view = View(tr, ViewState(base="timeline", view="timeline"), size=(800, 600))
    view.render()
    assert view.layout.w[0] > 0 and view.layout.x[0] < view.layout.x[1]
    assert "2 events" in view.summary()
    assert {b[4] for b in view.scene.overlay.boxes} == {"0", "proc-1"}
    # a root with nothing of its own stays without a row (as before)
    plain = View(paje('0 P 0 "Process"\n2 S P "State"\n6 0 p1 P 0 "p"\n11 0 p1 S run\n'
                      '7 5 P p1\n', types=""), ViewState(base="timeline"))
    assert plain.layout.w[0] == 0


def test_containers_without_area_are_said(paje):
    """A treemap base whose leaves are sized by a metric some container has none of
    gives it no area: its states are not drawn, and the summary says so (simu-mardi's
    node99 under state:booked lost 239 states silently)."""
    tr = paje('0 P 0 "Process"\n2 S P "State"\n6 0 p1 P 0 "p1"\n6 0 p2 P 0 "p2"\n'
              '11 0 p1 S a\n11 0 p2 S b\n7 5 P p1\n7 5 P p2\n', types="")
    view = View(tr, ViewState(base="treemap", metric="state:a"), size=(320, 240))
    assert view.layout.without_area == 1
    assert view.summary().endswith("1 states (exact), 0 links, 0 events on 3 treemap "
                                   "nodes, 1 container not drawn: no area (their state:a "
                                   "is 0, e.g. p2)")
    assert View(tr, ViewState(base="treemap"), size=(320, 240)).layout.without_area == 0


def test_a_treemap_names_its_parents_on_their_top_edges(paje):
    """A parent's name at its centre lay on one of its children's cells and read as
    that cell's name (simu-mardi's my_cluster_1 on node72); it stands on the
    parent's top edge, the leaves' names at their centres."""
    tr = paje('0 Site 0 "Site"\n0 P Site "Process"\n2 S P "State"\n'
              '6 0 s1 Site 0 "site-1"\n' + "".join(
                  f'6 0 p{i} P s1 "proc-{i}"\n11 0 p{i} S run\n' for i in range(9))
              + "".join(f'7 5 P p{i}\n' for i in range(9)), types="")
    view = View(tr, ViewState(base="treemap", view="top"), size=(800, 600))
    view.render()
    boxes = {b[4]: b[:4] for b in view.scene.overlay.boxes}
    centre = {k: ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for k, b in boxes.items()}
    assert "site-1" in boxes and "proc-4" in boxes  # (the middle cell keeps its name)
    assert centre["site-1"][1] > max(c[1] for k, c in centre.items() if k != "site-1")
