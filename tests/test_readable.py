"""Pictures of the real traces read well: measured on renders of ../shared/data (real
VTK offscreen), the placed labels, the legend, the bars, the colours, the base."""
import itertools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from triva3d import View, ViewState, colors, load, make_layout, theme
from triva3d.analysis.roles import platform_link_types, variable_roles
from triva3d.scene.overlay import LEGEND_PX, text_size
from triva3d.theme import BOX_OPACITY, BOX_RGB, TEXT_RGB

from conftest import SIZED_LINK

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
SIZE = (1280, 720)
TRACES = {  # trace -> its base, as in examples/gallery.py
    "g5k": ("paje/g5k.trace", {"topology": "platforms/g5k.xml"}),
    "mardi": ("paje/simu-mardi.trace", {"topology": "paje/simu-mardi.trace"}),
    "ms": ("paje/ms.trace", {"topology": "platforms/small_platform.xml"}),
    "categories": ("paje/categories.trace", {"topology": "platforms/small_platform.xml"}),
    "starpu": ("paje/native_sample.trace", {"base": "treemap"}),
    "pingpong": ("otf2/ping-pong-otf2", {"base": "appgraph"}),
}


@pytest.fixture(scope="module")
def views():
    """One View per real trace, rendered once in the default iso view."""
    if not DATA.is_dir():
        pytest.skip(f"shared data not found at {DATA}")
    out = {}
    for key, (rel, base) in TRACES.items():
        fields = {k: str(DATA / v) if k == "topology" else v for k, v in base.items()}
        v = View(load(DATA / rel), ViewState(**fields), SIZE)
        out[key] = (v, v.render())
    return out


def disjoint(boxes):
    return not any(a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
                   for a, b in itertools.combinations(boxes, 2))


@pytest.mark.parametrize("key", list(TRACES))
def test_labels_never_overlap_nor_repeat(views, key):
    v, _ = views[key]
    boxes = v.scene.overlay.boxes
    texts = [b[4] for b in boxes]
    assert len(set(texts)) == len(texts)
    assert disjoint(boxes) and disjoint(v.scene.overlay.axis_boxes)
    assert all(0 <= b[0] and b[2] <= SIZE[0] and 0 <= b[1] and b[3] <= SIZE[1] for b in boxes)
    if key in ("mardi", "ms"):
        assert len(boxes) >= 10  # names are written where they fit


def test_no_label_repeats_its_node(views):
    v, _ = views["ms"]  # SimGrid hosts stand on the platform nodes of the same name
    texts = [t for t in v.scene.overlay.texts]
    assert len(texts) == len(set(texts)) and "Tremblay" in texts


@pytest.mark.parametrize("key", list(TRACES))
def test_legend_text_is_large_and_contrasted(views, key):
    v, img = views[key]
    legend = v.scene.overlay.legend
    if not legend.entries:
        return
    heights = [text_size(a)[1] for a in legend.texts[:len(legend.entries)]]
    assert min(heights) >= 12 and LEGEND_PX >= 12
    # the box is drawn over the scene at BOX_OPACITY: the worst case is over white
    worst = np.round(255 * (BOX_OPACITY * np.array(BOX_RGB) + (1 - BOX_OPACITY)))
    assert colors.contrast(np.round(255 * np.array(TEXT_RGB)), worst) >= 4.5
    # and in the picture: the box's own pixels, then the keys' swatches
    x0, y0, x1, y1 = legend.rect
    corner = img[SIZE[1] - int(y1) + 2, int(x0) + 2].astype(int)
    assert colors.contrast(np.round(255 * np.array(TEXT_RGB)), corner) >= 4.5
    names = [t for t, _ in legend.entries]
    g = v.scene.geometry
    st = g.trace.states
    for value in np.unique(st.value[g.states.rows]):
        assert g.trace.display_name("values", value) in names


def test_bars_are_wide_enough_on_a_cluster(views):
    """simu-mardi: 101 hosts of a SimGrid cluster; the median state bar in the
    default view is at least 6 pixels wide."""
    v, _ = views["mardi"]
    g, proj = v.scene.geometry, v.projection
    b = g.states.boxes
    mid = np.c_[(b[:, 2] + b[:, 3]) / 2, (b[:, 4] + b[:, 5]) / 2]
    p0 = proj.to_display(np.c_[b[:, 0], mid])
    p1 = proj.to_display(np.c_[b[:, 1], mid])
    assert np.median(np.hypot(*(p1[:, :2] - p0[:, :2]).T)) >= 6
    assert (v.layout.w[1:] > 0).sum() <= 500


@pytest.mark.parametrize("key, before", [("g5k", 0.18), ("mardi", 0.075)])
def test_platform_traces_are_not_white_clutter(views, key, before):
    """The share of near-white pixels (the white SimGrid curves and platform links
    of the previous release: 18% of g5k's picture, 7.5% of simu-mardi's) is small."""
    _, img = views[key]
    white = (img.min(axis=2) >= 230).mean()
    assert white < 0.02 < before


def test_platform_links_and_capacities(views):
    v, _ = views["g5k"]
    g = v.scene.geometry
    tr = g.trace
    assert platform_link_types(tr)[tr.links.type].all() and not len(g.links.rows)
    roles = variable_roles(tr)
    caps = {tr.display_name("types", t) for t in np.flatnonzero(roles.capacity)}
    assert caps == {"power", "bandwidth", "latency"} and not len(g.profiles.rows)
    assert "6314 platform links" in g.summary()


def test_usage_is_drawn_relative_to_capacity(views):
    """ms: Tremblay's power_used equals its power (98095000) when it computes: its
    profile boxes span the whole lane then, and nothing wider."""
    v, _ = views["ms"]
    g = v.scene.geometry
    tr = g.trace
    roles = g.roles
    used = tr.find("types", "power_used")[0]
    power = tr.find("types", "power")[0]
    assert roles.relative_to[used] == power and roles.capacity[power]
    assert not roles.drawn[used]  # its categories (pcompute...) are drawn instead
    pcompute = tr.find("types", "pcompute")[0]
    rows = np.flatnonzero(tr.variables.type[g.profiles.rows] == pcompute)
    widths = g.profiles.boxes[rows, 1] - g.profiles.boxes[rows, 0]
    lane = 2 * g.cols.footprint(v.layout, g.cols.index(
        tr.variables.container[g.profiles.rows[rows]], np.full(len(rows), power)))[2]
    frac = tr.variables.value[g.profiles.rows[rows]] / 98095000.0
    on_tremblay = (tr.variables.container[g.profiles.rows[rows]]
                   == tr.find("containers", "Tremblay")[0])
    assert np.allclose(widths[on_tremblay], np.minimum(frac, 1)[on_tremblay]
                       * lane[on_tremblay])


@pytest.mark.parametrize("key", ["starpu", "mardi", "ms", "categories"])
def test_drawn_colours_are_told_apart(views, key):
    v, _ = views[key]
    g = v.scene.geometry
    tr = g.trace
    keys = [g.value_rgb[x] for x in np.unique(tr.states.value[g.states.rows])]
    keys += [g.type_rgb[x] for x in np.unique(tr.variables.type[g.profiles.rows])]
    keys = np.unique(np.array(keys, np.uint8).reshape(-1, 3), axis=0)
    lab = colors.lab(keys)
    bg = colors.lab(np.round(np.array(theme.BACKGROUND) * 255))
    for i in range(len(lab)):
        assert colors.ciede2000(lab[i], bg) >= colors.MIN_DELTA_E
        for j in range(i):
            assert colors.ciede2000(lab[i], lab[j]) >= colors.MIN_DELTA_E - 1e-6


def test_ciede2000_matches_sharma_wu_dalal():
    pairs = [((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
             ((50, 0, 0), (50, -1, 2), 2.3669),
             ((50, 2.5, 0), (73, 25, -18), 27.1492),
             ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
             ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082)]
    for a, b, want in pairs:
        assert colors.ciede2000(np.array(a), np.array(b)) == pytest.approx(want, abs=1e-4)
        assert colors.ciede2000(np.array(b), np.array(a)) == pytest.approx(want, abs=1e-4)


@pytest.mark.parametrize("rel", ["otf2/ping-pong-otf2", "otf2/ping-pong-otf2-papi",
                                 "paje/native_sample.trace", "paje/simu-mardi.trace",
                                 "paje/g5k.trace", "paje/ms.trace"])
def test_display_names_are_unique_among_siblings(rel):
    if not DATA.is_dir():
        pytest.skip(f"shared data not found at {DATA}")
    tr = load(DATA / rel)
    names = [(int(p), tr.display_name("containers", c))
             for c, p in enumerate(tr.containers.parent)]
    assert len(set(names)) == len(names)


def test_a_cluster_is_laid_out_as_a_grid(views):
    v, _ = views["mardi"]
    lay = v.layout
    hosts = np.flatnonzero(np.array(lay.node_kinds) == "host")
    x = np.round(lay.node_rects[hosts, 0], 3)
    y = np.round(lay.node_rects[hosts, 1], 3)
    # 100 of the 101 hosts hang off the cluster's router: an 10 x 10 grid
    assert len(np.unique(x)) <= 12 and len(np.unique(y)) <= 12
    r = lay.node_rects[hosts]
    for i, j in itertools.combinations(range(len(hosts)), 2):  # squares never overlap
        assert (abs(r[i, 0] - r[j, 0]) >= (r[i, 2] + r[j, 2]) / 2 - 1e-9
                or abs(r[i, 1] - r[j, 1]) >= (r[i, 3] + r[j, 3]) / 2 - 1e-9)


def test_title_axis_and_time_unit(views):
    v, _ = views["starpu"]
    o = v.scene.overlay
    assert o.title.GetInput().startswith("native_sample.trace") and "treemap" in \
        o.title.GetInput()
    v.state.time_unit = "ms"
    v.render()
    assert o.axis_title.GetInput() == "time (ms)" and o.axis_title.GetVisibility()
    v.state.view = "top"
    v.render()  # from above the ruler is a point: a note in the corner instead
    assert not o.axis_title.GetVisibility() and o.note.GetVisibility()
    assert o.note.GetInput().endswith("ms")
    v.state.update(view="iso", time_unit=None)


def test_timeline_is_a_gantt_chart_with_picking(views):
    """--base timeline: one row per container in hierarchy order; in the timeline
    view, a point at (row, time) picks that container's state at that time."""
    tr = views["starpu"][0].scene.geometry.trace
    v = View(tr, ViewState(base="timeline", view="timeline"), SIZE)
    v.render()
    lay, proj, st = v.layout, v.projection, tr.states
    slots = np.flatnonzero(lay.w > 0)
    order = np.argsort(lay.x[slots])
    dfs = [int(c) for c in slots[order]]
    assert dfs == sorted(dfs, key=lambda c: _path(tr, c))  # hierarchy order
    f = v.scene.geometry.frame
    rows = np.flatnonzero((st.imbrication == 0) & (st.end - st.start > 0.02 * (f.t1 - f.t0)))
    checked = 0
    for r in rows[:: max(1, len(rows) // 40)]:
        c = st.container[r]
        t = (st.start[r] + st.end[r]) / 2
        x, y = lay.x[c], lay.y[c] - lay.h[c] / 2
        px, py, _ = proj.to_display([[x, y, f.z(t)]])[0]
        got = v.pick(px, py)
        if got and got["kind"] == "state" and got["container"] == tr.display_name(
                "containers", c):
            checked += 1
            assert got["start"] <= t <= got["end"]
    assert checked >= 20


def _path(tr, c):
    out = []
    while c > 0:
        out.append(int(c))
        c = tr.containers.parent[c]
    return out[::-1]


def test_many_messages_are_bundled(views):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from synth import VALUES, make_trace
    from triva3d.scene.geometry import BUNDLE_LIMIT, BUNDLE_TARGET
    tr = make_trace(20000, 200_000, n_procs=64, procs_per_host=4)
    v = View(tr, ViewState(base="treemap", hidden=VALUES), (640, 360))
    g = v.scene.geometry
    assert g.links.count is not None and len(g.links.rows) <= BUNDLE_TARGET
    assert g.links.count.sum() == len(tr.links)
    x, y, _ = v.projection.to_display((g.links.p0[:1] + g.links.p1[:1]) / 2)[0]
    v.render()
    got = v.pick(x, y)
    assert got["kind"] == "bundle" and got["count"] >= 1
    v.state.window = (100.0, 101.0)  # zoomed in, the messages are drawn one by one
    v.update()
    ln = tr.links
    inside = ((ln.end >= 100) & (ln.start <= 101)).sum()
    assert inside < BUNDLE_LIMIT and g.links.count is None and len(g.links.rows) == inside


BUSY = """\
0 P 0 "Process"
2 S P "State"
4 L 0 P P "Msg"
6 0 p1 P 0 "P1"
6 0 p2 P 0 "P2"
6 0 p3 P 0 "P3"
6 0 p4 P 0 "P4"
11 0 p1 S run
11 0 p2 S run
11 0 p3 S run
11 0 p4 S run
"""


@pytest.mark.parametrize("sized, kept", [(False, [("P1", "P2", 3), ("P1", "P3", 2)]),
                                         (True, [("P1", "P2", 3), ("P3", "P4", 1)])])
def test_bundles_beyond_the_target_keep_the_busiest_and_say_so(sized, kept, paje,
                                                              monkeypatch):
    """Seven messages between four processes under the root (the top: no parent to
    bundle into) in four pairs, all starting in one time bin: with at most two
    bundles, the two of most messages (sized: most bytes, P3 -> P4 sends 1000) are
    drawn, each its pair's messages from its first, and the note, the legend and
    the summary say what was left out."""
    from triva3d.scene import geometry
    monkeypatch.setattr(geometry, "BUNDLE_LIMIT", 0)
    monkeypatch.setattr(geometry, "BUNDLE_TARGET", 2)
    sends = [("p1", "p2")] * 3 + [("p1", "p3")] * 2 + [("p2", "p3"), ("p3", "p4")]
    body = "".join(
        (f"20 1.0{k} 0 L {a} m k{k} {1000 if a == 'p3' else 1}\n" if sized else
         f"15 1.0{k} 0 L {a} m k{k}\n") + f"16 2 0 L {b} m k{k}\n"
        for k, (a, b) in enumerate(sends))
    tr = paje(body + "".join(f"13 3 p{i} S\n" for i in range(1, 5)),
              types=(SIZED_LINK if sized else "") + BUSY)
    g = View(tr, ViewState(base="treemap"), (640, 360)).scene.geometry
    ln, name = tr.links, lambda c: tr.display_name("containers", int(c))
    got = [(name(ln.start_container[r]), name(ln.end_container[r]), int(n))
           for r, n in zip(g.links.rows, g.links.count)]
    assert got == kept
    for r, (a, b, _) in zip(g.links.rows, kept):  # each bundle's row: its first message
        pair = [i for i in range(len(ln)) if (name(ln.start_container[i]),
                                              name(ln.end_container[i])) == (a, b)]
        assert r == min(pair)
    held = sum(n for *_, n in kept)
    by = "bytes" if sized else "messages"
    assert (f"message bundles: the 2 busiest (by {by}) of 4 drawn, holding {held} of 7 "
            "messages") in g.notes()
    assert ("lines: the 2 busiest of 4 bundles", None) in g.legend_entries()
    assert f"{held} links in 2 bundles" in g.summary()


@pytest.mark.parametrize("args, warning", [
    (["paje/native_sample.trace", "--window", "50000:60000"], "outside the trace"),
    (["paje/ms.trace", "--topology", str(ROOT / "topologies/fat_tree_k4.dot")],
     "no container matched a node of the topology"),
    (["paje/native_sample.trace", "--hide", "Sleeping", "--window", "40704.49:40704.4986",
      "--base", "timeline"], None),
])
def test_empty_or_partial_pictures_say_so(tmp_path, args, warning):
    if not DATA.is_dir():
        pytest.skip(f"shared data not found at {DATA}")
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "render", str(DATA / args[0]),
                        *args[1:], "--size", "320x200", "-o", str(tmp_path / "x.jpg")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    warnings = [ln for ln in r.stderr.splitlines() if ln.startswith("triva3d: warning:")]
    if warning:
        assert len(warnings) == 1 and warning in warnings[0]
    assert (tmp_path / "x.jpg").read_bytes()[:3] == b"\xff\xd8\xff"  # a JPEG


def test_empty_treemap_says_so(tmp_path):
    if not DATA.is_dir():
        pytest.skip(f"shared data not found at {DATA}")
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "treemap",
                        str(DATA / "paje/g5k.trace"), "-o", str(tmp_path / "t.png")],
                       capture_output=True, text=True)
    assert r.returncode == 0 and "warning: the treemap is empty: no state" in r.stderr


def test_communication_graph_of_a_platform_trace_is_refused():
    if not DATA.is_dir():
        pytest.skip(f"shared data not found at {DATA}")
    tr = load(DATA / "paje/simu-mardi.trace")
    with pytest.raises(Exception, match="no messages"):
        make_layout(tr, base="appgraph")


def test_the_timeline_view_is_a_true_gantt_whose_labels_name_their_rows(views):
    """Issue 25.1: the timeline view over the default treemap drew the treemap from the
    side, rows named after other containers (my_cluster_1_link_5_DOWN was node11 when
    picked). The view chooses the timeline base, and a pick right of every written
    label lands on the container that label names."""
    v0, _ = views["mardi"]
    tr = v0.scene.geometry.trace
    state = ViewState(view="timeline")
    assert state.base == "timeline"
    v = View(tr, state, SIZE)
    v.render()
    assert v.layout.base == "timeline"
    w = SIZE[0]
    checked = 0
    for x0, y0, x1, y1, text in v.scene.overlay.boxes:
        y = (y0 + y1) / 2
        for x in np.arange(x1 + 8, w - 200, 23.0):
            got = v.pick(x, y)  # display coordinates, as the labels'
            name = got and (got.get("container") or got.get("name"))
            if name:
                assert name == text, (text, got)
                checked += 1
                break
    assert checked >= 5  # the hosts' rows written (links' rows hold no states)
    state.base = "treemap"  # another base leaves the Gantt's view
    assert state.view == "iso"


def test_otf2_metrics_are_drawn_only_when_chosen(data):
    """Issue 25.6: the PAPI ping-pong drew six metric lanes (three counters and their
    rates) beside the two ranks' states. Metrics wait until chosen; the legend says how
    many wait, by class, and keys the chosen ones under their class."""
    tr = load(DATA / "otf2" / "ping-pong-otf2-papi", cache=False)
    v = View(tr, ViewState(), SIZE)
    v.render()
    g = v.scene.geometry
    assert len(g.profiles.rows) == 0
    notes = [t for t, rgb in g.legend_entries() if rgb is None]
    assert "6 metrics not drawn until chosen (PAPI 6)" in notes
    v.state.variables = {"PAPI_TOT_CYC rate": "max", "PAPI_L2_TCM": "max"}
    v.render()
    g = v.scene.geometry
    drawn = {tr.display_name("types", t) for t in np.unique(tr.variables.type[g.profiles.rows])}
    assert drawn == {"PAPI_TOT_CYC rate", "PAPI_L2_TCM"}
    keys = [t for t, rgb in g.legend_entries()]
    assert "PAPI_L2_TCM (of its max 4.888e+05)" in keys
    assert "4 metrics not drawn until chosen (PAPI 4)" in keys


def test_variables_option_draws_named_metrics(data, tmp_path):
    out = tmp_path / "p.png"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "render",
                        str(DATA / "otf2" / "ping-pong-otf2-papi"), "--variables",
                        "PAPI_BR_MSP", "--save-state", str(tmp_path / "v.json"), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert ViewState.load(tmp_path / "v.json").variables == {"PAPI_BR_MSP": "max"}
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "render",
                        str(DATA / "otf2" / "ping-pong-otf2-papi"), "--variables", "=max",
                        "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 2 and "expected NAME or NAME=RULE" in r.stderr
