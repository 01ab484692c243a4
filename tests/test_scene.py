"""The 3D scene rendered offscreen (real VTK, EGL): the pictures and the picking
are checked against answers worked out from the Trace and the Layout alone."""
from pathlib import Path

import numpy as np
from hypothesis import given, settings, strategies as hs
import pytest

from conftest import HEADER, SIZED_LINK
from triva3d import View, ViewState, colors, load, theme
from triva3d.scene import entities
from triva3d.scene.annotations import ticks

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "examples/small.trace"
GRID = ROOT / "topologies/two_site_grid.dot"
SMALL_MAP = ROOT / "examples/small_on_two_site_grid.csv"

# Two hosts 200 pt apart with one process each (pinned positions): P1 runs A [0, 2],
# then B [2, 5] with C nested in it [3, 4]; P2 runs D [0, 5]; a message of 4096
# bytes P1 -> P2 from 1 to 3 s; an event on P2 at 4 s; h1's Load is 1 then 3.
HAND = HEADER + SIZED_LINK + """\
0 H 0 "Host"
0 P H "Process"
2 S P "State"
3 E P "Mark"
1 V H "Load" "0 0 1"
4 L 0 P P "Msg"
5 a S "A" "1 0 0"
5 b S "B" "0 1 0"
5 c S "C" "0 0 1"
5 d S "D" "1 1 0"
5 m L "m" "1 0 1"
5 e E "e" "0 1 1"
6 0 h1 H 0 "h1"
6 0 h2 H 0 "h2"
6 0 p1 P h1 "P1"
6 0 p2 P h2 "P2"
8 0 h1 V 1
11 0 p1 S a
11 0 p2 S d
20 1 0 L p1 m k1 4096
11 2 p1 S b
8 2.5 h1 V 3
12 3 p1 S c
16 3 0 L p2 m k1
13 4 p1 S
17 4 p2 E e
7 5 P p1
7 5 P p2
7 5 H h1
7 5 H h2
"""
HAND_TOPO = """graph hand {
  h1 [kind=host, pos="0,0!"];
  s [kind=switch, pos="100,0!", model="core-1"];
  h2 [kind=host, pos="200,0!"];
  h1 -- s [bandwidth="1e9", latency="1e-6", label="uplink"];
  s -- h2 [bandwidth="1e8", latency="1e-4"];
}
"""


@pytest.fixture
def hand(tmp_path):
    """The hand-made trace and its base (ViewState fields)."""
    (tmp_path / "hand.trace").write_text(HAND)
    (tmp_path / "hand.dot").write_text(HAND_TOPO)
    return load(tmp_path / "hand.trace", cache=False), {"topology": str(tmp_path / "hand.dot")}


@pytest.fixture(scope="module")
def small():
    return load(SMALL, cache=False), {"topology": str(GRID), "mapping": str(SMALL_MAP)}


def show(trace, base, size=(800, 600), **fields):
    """A View of `trace` on `base` (ViewState fields), with more fields set."""
    return View(trace, ViewState(**base, **fields), size=size)


def row_of(trace, table, **where):
    """The one row of `table` whose columns equal `where` (names given as text)."""
    t = getattr(trace, table)
    mask = np.ones(len(t), bool)
    for col, val in where.items():
        mask &= getattr(t, col) == val
    rows = np.flatnonzero(mask)
    assert len(rows) == 1, (table, where, rows)
    return int(rows[0])


def container(trace, name):
    (c,) = trace.find("containers", name)
    return int(c)


def value_code(trace, name):
    (v,) = trace.find("values", name)
    return int(v)


def pixel(img, x, y):
    """The image's pixel at display point (x, y) (origin bottom left)."""
    return img[img.shape[0] - 1 - int(round(y)), int(round(x))].astype(int)


# -- pictures ----------------------------------------------------------------------
def test_render_is_not_blank(small):
    img = show(*small).render()
    bg = np.round(np.array(theme.BACKGROUND) * 255)
    drawn = (np.abs(img.astype(int) - bg).sum(axis=2) > 30).mean()
    assert drawn > 0.08
    # every state colour of the trace shows somewhere
    rgb = show(*small).scene.geometry.value_rgb
    flat = img.reshape(-1, 3).astype(int)
    for v in np.unique(small[0].states.value):
        assert (np.abs(flat - rgb[v]).max(axis=1) <= 40).any()


def top_values(trace, g):
    """Per column (container, state type) of states: the values its top may show
    from above, worked out from the Trace by a sweep: each elementary interval of the
    window counts for the deepest state covering it (a state's time less its nested
    states'); the value with the most time (any, on a tie) shows."""
    st, f, rows = trace.states, g.frame, g.states.rows
    end, start = np.minimum(st.end[rows], f.t1), np.maximum(st.start[rows], f.t0)
    col, depth, value = g.cols.of_state[rows], st.imbrication[rows], st.value[rows]
    out = {}
    for c in np.unique(col):
        mine = np.flatnonzero(col == c)
        cuts = np.unique(np.r_[start[mine], end[mine]])
        total = {}
        for a, b in zip(cuts[:-1], cuts[1:]):
            on = mine[(start[mine] <= a) & (end[mine] >= b)]
            if len(on):
                v = value[on[np.argmax(depth[on])]]
                total[v] = total.get(v, 0.0) + (b - a)
        if total:
            best = max(total.values())
            out[c] = {v for v, t in total.items() if t >= best * (1 - 1e-9)}
    return out


def check_top_view(trace, base, size, min_checked):
    """From above, each column's centre shows the value that takes most of its time
    (see top_values), and that is a state of a container on the same base node."""
    v = show(trace, base, size, labels=False, view="top")
    img, proj, g, layout = v.render(), v.projection, v.scene.geometry, v.layout
    cols, st, f = g.cols, trace.states, g.frame
    x, y, _, _ = cols.footprint(layout)
    p = proj.to_display(np.c_[x, y, np.full(len(x), f.height)])
    rgb = g.value_rgb
    checked = 0
    x0, y0, x1, y1 = v.scene.overlay.legend.rect
    for i, values in top_values(trace, g).items():  # lanes of states, not of profiles
        if x0 <= p[i, 0] <= x1 and y0 <= p[i, 1] <= y1 or p[i, 1] > size[1] - 30:
            continue  # under the legend or the title
        got = pixel(img, p[i, 0], p[i, 1])
        assert (np.abs(rgb[list(values)] - got).max(axis=1) <= 3).any(), (i, got)
        node = layout.node[cols.container[i]]
        on_node = np.isin(st.container, np.flatnonzero(layout.node == node))
        assert (np.abs(rgb[st.value[on_node]] - got).max(axis=1) <= 3).any()
        checked += 1
    assert checked >= min_checked


def test_top_view_shows_each_hosts_states(small):
    check_top_view(*small, (1000, 1000), 30)


def test_top_view_on_a_real_starpu_trace_over_a_treemap(data):
    tr = load(data / "paje/native_sample.trace", lenient=True)
    check_top_view(tr, {"base": "treemap"}, (2000, 2000), 8)


def test_links_are_drawn_between_hosts(small):
    tr, base = small
    v = show(tr, base, (1000, 1000), labels=False, link_opacity=1.0, view="top")
    with_links, proj = v.render(), v.projection
    v.state.link_opacity = 0.0
    without = v.render()
    sc, lay = v.scene.geometry, v.layout
    ln = tr.links
    rows = sc.links.rows
    other_host = lay.node[ln.start_container[rows]] != lay.node[ln.end_container[rows]]
    mid = proj.to_display((sc.links.p0 + sc.links.p1)[other_host] / 2)
    bg = np.round(np.array(theme.BACKGROUND) * 255)
    empty = shown = 0
    for x, y, _ in mid:
        if np.abs(pixel(without, x, y) - bg).max() <= 1:  # nothing else drawn there
            empty += 1
            near = [pixel(with_links, x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
            shown += min(np.abs(p - colors.LINK).max() for p in near) <= 3  # a 1-pixel line
    assert empty >= 50 and shown >= 0.95 * empty


def test_window_changes_the_picture(small):
    a = show(*small).render()
    b = show(*small, window=(0.1, 0.15)).render()
    assert (np.abs(a.astype(int) - b.astype(int)).sum(axis=2) > 30).mean() > 0.02


def test_window_clips_states_and_links(small):
    tr, _ = small
    sc = show(*small, window=(0.1, 0.15)).scene.geometry
    st = tr.states
    inside = np.flatnonzero((st.end >= 0.1) & (st.start <= 0.15))
    assert np.array_equal(sc.states.rows, inside)
    b = sc.states.boxes
    assert b[:, 4].min() >= 0 and b[:, 5].max() <= sc.frame.height * (1 + 1e-3)
    z = np.r_[sc.links.p0[:, 2], sc.links.p1[:, 2]]
    assert z.min() >= -1e-6 and z.max() <= sc.frame.height + 1e-6
    assert len(sc.links.rows) == ((tr.links.end >= 0.1) & (tr.links.start <= 0.15)).sum()


def test_scale_sets_the_height(small):
    v = show(*small)
    xmin, ymin, xmax, ymax = v.layout.bounds
    for s in (0.5, 2.0):
        v.state.scale = s
        v.update()
        assert v.scene.geometry.frame.height == pytest.approx(s * max(xmax - xmin, ymax - ymin))


# -- geometry of the hand-made trace -----------------------------------------------
def test_nested_states_are_thinner_and_in_front(hand):
    tr, _ = hand
    sc = show(*hand).scene.geometry
    b = {tr.names.display(tr.values.name[tr.states.value[r]]): sc.states.boxes[i]
         for i, r in enumerate(sc.states.rows)}
    assert b["C"][1] - b["C"][0] < b["B"][1] - b["B"][0]        # thinner
    assert b["C"][2] < b["B"][2]                                # in front (-y)
    z = sc.frame.zscale
    assert b["A"][4:6] == pytest.approx([0, 2 * z]) and b["B"][4] == pytest.approx(2 * z)
    assert b["D"][5] == pytest.approx(5 * z)


def test_base_edges_follow_bandwidth_and_latency(hand):
    from triva3d.scene import base
    lay = show(*hand).layout
    strips, image = base.edges(lay, 100.0)
    assert image is None
    pts = np.array([strips.GetPoint(i) for i in range(strips.GetNumberOfPoints())])
    width = np.linalg.norm(pts[0::4] - pts[1::4], axis=1)
    bw = lay.edge_bandwidth
    assert width[np.argmax(bw)] > width[np.argmin(bw)]
    from vtkmodules.util.numpy_support import vtk_to_numpy
    rgb = vtk_to_numpy(strips.GetCellData().GetScalars())
    slow = np.argmax(lay.edge_latency)
    assert tuple(rgb[slow]) == tuple(colors.RAMP[-1].astype(int))  # highest latency: red end


def test_edge_density_counts_the_segments_crossing_each_pixel():
    """Beyond EDGE_LIMIT edges, an image: a pixel is as opaque as the log of how
    many segments cross it (one: a quarter) in their mean colour, each segment
    counted once per column (or row) along its longer axis."""
    from triva3d.scene import base
    p0 = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 10.0], [np.nan, 0.0]])
    p1 = np.array([[10.0, 0.0], [10.0, 10.0], [10.0, 0.0], [5.0, 5.0]])
    rgb = np.array([[255, 0, 0], [0, 0, 255], [0, 255, 0], [9, 9, 9]], np.uint8)
    quad, img = base.density(p0, p1, rgb, -1.0, side=11)
    assert img.shape == (11, 11, 4)
    count = np.zeros((11, 11), int)
    for x in range(11):  # the horizontal segment and the two diagonals
        count[0, x] += 1
        count[x, x] += 1
        count[10 - x, x] += 1
    level = np.round(255 * (0.25 + 0.75 * np.log(np.maximum(count, 1)) / np.log(2)))
    np.testing.assert_array_equal(img[:, :, 3], np.where(count > 0, level, 0))
    assert tuple(img[0, 0, :3]) == (128, 0, 128) and tuple(img[0, 5, :3]) == (255, 0, 0)
    assert tuple(img[5, 5, :3]) == (0, 128, 128)     # blue and green cross there
    pts = np.array([quad.GetPoint(i) for i in range(4)])
    np.testing.assert_allclose(pts, [[-0.5, -0.5, -1], [10.5, -0.5, -1], [10.5, 10.5, -1],
                                     [-0.5, 10.5, -1]])


def test_many_edges_are_drawn_as_their_density(hand, monkeypatch):
    """Beyond EDGE_LIMIT, the base's edges are a textured quad on the ground: it
    darkens the ground where the strips would (a coarse image here, so that its
    lines are wide enough to see), and the legend says so."""
    from triva3d.scene import base
    tr, topo = hand
    monkeypatch.setattr(base, "DENSITY_PX", 48)
    edges = base.edges

    def picture(limit, none=False):
        monkeypatch.setattr(entities, "EDGE_LIMIT", limit)
        monkeypatch.setattr(base, "edges", (lambda *a: (None, None)) if none else edges)
        v = View(tr, ViewState(**topo, view="top", labels=False), size=(800, 600),
                 legend=False)  # the same room for the picture in the three
        return v, v.render().astype(int)
    _, bare = picture(10 ** 6, none=True)
    _, strips = picture(10 ** 6)
    v, dense = picture(0)
    assert v.scene._edges is None and v.scene._slots["base"][0].GetTexture() is not None
    assert any("density" in text for text, _ in v.scene.geometry.legend_entries())
    by_strips = np.abs(strips - bare).sum(axis=2) > 20
    by_density = np.abs(dense - bare).sum(axis=2) > 20
    assert by_density.sum() > 0.3 * by_strips.sum() > 100
    near = np.pad(by_strips, 6)
    for axis in (0, 1):  # grown by 6 pixels each way
        near = np.logical_or.reduce([np.roll(near, k, axis) for k in range(-6, 7)])
    near = near[6:-6, 6:-6]
    assert (by_density & ~near).sum() < 0.05 * by_density.sum()


# -- picking ---------------------------------------------------------------------------
@pytest.mark.parametrize("detail", ["exact", "lod"])
def test_picking_the_hand_trace(hand, detail):
    tr, _ = hand
    # h1's Load profile stands behind P1 (its wall): hidden first, shown at the end
    v = show(*hand, detail=detail, labels=False, view="side", hidden=("Load",))
    sc, lay, proj = v.scene, v.layout, v.projection
    assert sc.geometry.states.mode == detail
    v.render()
    g = sc.geometry
    z = g.frame.zscale
    p1, p2 = container(tr, "P1"), container(tr, "P2")

    def at(c, t):
        x, y = lay.x[c], lay.y[c] - 0.5 * lay.h[c]
        return proj.to_display([[x, y, t * z]])[0, :2]

    def state(c, name):
        return row_of(tr, "states", container=c, value=value_code(tr, name))

    for c, t, name in ((p1, 1.0, "A"), (p1, 2.2, "B"), (p1, 3.5, "C"), (p1, 4.6, "B"),
                       (p2, 2.0, "D")):
        got = sc.pick(proj, *at(c, t))
        assert got["kind"] == "state" and got["row"] == state(c, name), (t, name, got)
        assert got["value"] == name and got["container"] == f"P{1 if c == p1 else 2}"
    c_row = state(p1, "C")
    got = sc.pick(proj, *at(p1, 3.5))
    assert (got["start"], got["end"], got["duration"], got["imbrication"]) == (3, 4, 1, 1)
    # the message, halfway between the hosts
    mid = proj.to_display([(g.links.p0[0] + g.links.p1[0]) / 2])[0]
    got = sc.pick(proj, mid[0], mid[1])
    assert got["kind"] == "link" and got["row"] == 0
    assert (got["sender"], got["receiver"], got["start"], got["end"], got["size"]) == \
        ("P1", "P2", 1.0, 3.0, 4096.0)
    # the event on P2's front at 4 s (in front of D)
    e = proj.to_display(g.events.points)[0]
    got = sc.pick(proj, e[0], e[1])
    assert (got["kind"], got["value"], got["time"]) == ("event", "e", 4.0)
    assert c_row != got["row"]
    # h1's Load steps from 1 to 3 at 2.5 s: then its profile covers its whole lane,
    # wider than P1's bar in front of it (a third of the lane before: not there)
    v.state.hidden = ()
    v.render()
    assert sc.pick(proj, *at(p1, 2.6))["value"] == "B"  # P1 stands in front
    h1 = container(tr, "h1")
    edge = lay.x[h1] + 0.39 * lay.w[h1]

    def beside(t):
        return proj.to_display([[edge, lay.y[h1], t * z]])[0, :2]
    got = sc.pick(proj, *beside(2.6))
    assert (got["kind"], got["container"], got["value"], got["start"]) == ("variable", "h1", 3, 2.5)
    assert sc.pick(proj, *beside(2.2)) is None  # empty space in the side view


def test_picking_ground_and_top(hand):
    tr, _ = hand
    v = show(*hand, (1600, 1600), labels=False, view="top")
    sc, lay, proj = v.scene, v.layout, v.projection
    s = lay.node_names.index("s")
    x, y = lay.node_rects[s, :2]
    # off the message's line, which passes over the switch
    got = sc.pick(proj, *proj.to_display([[x, y + 0.35 * lay.node_rects[s, 3], 0]])[0, :2])
    assert got["kind"] == "node" and got["name"] == "s" and got["node_kind"] == "switch"
    assert got["model"] == "core-1"  # its fields from the topology file
    # from above, P2's column shows its last state, D
    p2 = container(tr, "P2")
    got = sc.pick(proj, *proj.to_display([[lay.x[p2], lay.y[p2], sc.geometry.frame.height]])[0, :2])
    assert got["kind"] == "state" and got["value"] == "D"
    # between the host and the switch lies the edge
    h1 = lay.node_names.index("h1")
    ex = (lay.node_rects[h1, 0] + x) / 2
    got = sc.pick(proj, *proj.to_display([[ex, y + 3, 0]])[0, :2])
    assert got["kind"] == "edge" and {got["source"], got["target"]} == {"h1", "s"}
    assert got["bandwidth"] == 1e9 and got["label"] == "uplink"  # its fields, all of them


def test_picking_small_in_both_modes(small):
    """From above, every column's top shows (and picks) a state of the value that
    takes most of its time: of its highest stack of states in exact mode (see
    top_values), of its texels in level-of-detail mode."""
    from collections import Counter
    tr, _ = small
    st = tr.states
    for detail in ("exact", "lod"):
        v = show(*small, (1000, 1000), detail=detail, labels=False, view="top")
        v.render()
        sc, lay, proj, g = v.scene, v.layout, v.projection, v.scene.geometry
        lanes = np.unique(g.cols.of_state[g.states.rows])  # not those of usage profiles
        x, y, hw, _ = g.cols.footprint(lay, lanes)
        pts = proj.to_display(np.c_[x, y, np.full(len(x), g.frame.height)])
        got = [sc.pick(proj, px, py) for px, py, _ in pts]
        assert all(p["kind"] == "state" for p in got)
        got = [int(st.value[p["row"]]) for p in got]
        if detail == "exact":
            want = top_values(tr, g)
            assert all(value in want[i] for i, value in zip(lanes, got))
        else:
            texels = g.texels
            for i, value in zip(lanes, got):
                counts = Counter(st.value[texels[g.states.drawn_of[i]]
                                          [texels[g.states.drawn_of[i]] >= 0]].tolist())
                assert counts[value] == max(counts.values())


def test_lod_texels_follow_the_longest_state():
    from triva3d.scene.lod import bin_states
    # column 0: row 10 covers [0, 1.5], row 11 [1.5, 4]; column 1: row 12 [0.2, 0.3],
    # row 13 nested in row 14 with the same span
    col = np.array([0, 0, 1, 1, 1], np.int32)
    start = np.array([0, 1.5, 0.2, 1.0, 1.0])
    end = np.array([1.5, 4, 0.3, 2.0, 2.0])
    imb = np.array([0, 0, 0, 1, 0], np.int16)
    rows = np.array([10, 11, 12, 13, 14], np.int32)
    best = bin_states(col, np.arange(5), start, end, imb, 0.0, 1.0, 2, 4)
    best = np.where(best >= 0, rows[np.maximum(best, 0)], -1)
    assert best[0].tolist() == [10, 10, 11, 11]      # bin 1: 0.5 of row 10, 0.5 of 11
    assert best[1].tolist() == [12, 13, 13, -1]      # short state kept; nested wins tie


@settings(max_examples=60, deadline=None)
@given(hs.integers(0, 40), hs.integers(1, 6), hs.integers(1, 9))
def test_the_atlas_gives_each_column_its_texels_with_little_padding(n_cols, n_bins, side):
    """Every column's texture coordinates, sampled at the middle of each bin, land on
    its own texel of the atlas (nearest sampling); the atlas is at most MAX_SIDE
    wide, and pads less than one block's row of columns."""
    from triva3d.scene import lod
    best = np.arange(n_cols * n_bins, dtype=np.int32).reshape(n_cols, n_bins)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(lod, "MAX_SIDE", side)
        img, width = lod.atlas(best)
    h, w = img.shape
    assert w == width <= side and (n_cols == 0 or w * h < (n_cols + -(-n_cols // side)) * n_bins)
    _, _, tc = lod.columns(np.zeros(n_cols), np.ones(n_cols), np.zeros(n_cols),
                           np.ones(n_cols), 1.0, n_bins, width)
    tc = tc.reshape(n_cols, 8, 2)
    for i in range(n_cols):
        s, t_lo, t_hi = tc[i, 0, 0], tc[i, 0, 1], tc[i, 4, 1]  # (bottom, top corners)
        t = t_lo + (np.arange(n_bins) + 0.5) / n_bins * (t_hi - t_lo)
        got = img[(t * h).astype(int), int(s * w)]
        assert got.tolist() == best[i].tolist()


def test_ticks_are_round():
    t, d = ticks(0.0, 0.260395)
    assert t.tolist() == pytest.approx([0, 0.05, 0.1, 0.15, 0.2, 0.25]) and d == 2
    t, d = ticks(1200.0, 1205.0)
    assert t[0] == 1200 and t[-1] == 1205 and d == 0


def test_variables_are_profiles_across_their_lane(hand):
    tr, _ = hand
    v = show(*hand)
    g, lay = v.scene.geometry, v.layout
    h1 = container(tr, "h1")
    # h1 holds P1, so its lane is a wall on its back edge, across 80% of its width
    left = lay.x[h1] - entities.BAR / 2 * lay.w[h1]
    width = entities.BAR * lay.w[h1]
    assert g.profiles.boxes[:, 3].max() == pytest.approx(lay.y[h1] + lay.h[h1] / 2)
    assert g.profiles.boxes[:, 2].min() > lay.y[h1] + lay.h[h1] / 2 - entities.MAX_WALL - 1e-9
    # Load 1 on [0, 2.5] then 3 on [2.5, 5], on a 0..3 scale (no capacity: its maximum)
    z = g.frame.zscale
    assert np.allclose(g.profiles.boxes[:, [0, 1, 4, 5]],
                       [[left, left + width / 3, 0, 2.5 * z], [left, left + width, 2.5 * z, 5 * z]])
    assert [tr.variables.value[r] for r in g.profiles.rows] == [1, 3]


def test_render_command(tmp_path, data):
    import subprocess
    import sys
    out = tmp_path / "g5k.png"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "render",
                        str(data / "paje/g5k.trace"), "--topology",
                        str(data / "platforms/g5k.xml"), "--view", "top", "--size", "640x360",
                        "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    import imageio.v3 as iio
    img = iio.imread(out)
    assert img.shape == (360, 640, 3) and len(np.unique(img.reshape(-1, 3), axis=0)) > 20
    assert "0 links (and 6314 platform links, as base edges)" in r.stderr


@pytest.mark.parametrize("args, message", [
    (["--view", "up"], "view must be iso, top, side, timeline or AZ,EL"),
    (["--view", "10,95"], "elevation must be within -90..90"),
    (["--hide", "Nothing"], "nothing named 'Nothing' to hide"),
    (["--state", "missing.json"], "cannot read the view"),
    (["-o", "x.gif"], "must end in .png, .jpg or .jpeg"),
    (["--size", "big"], "expected WxH"),
    (["--window", "3:1"], "ends before it starts"),
    (["--link-opacity", "2"], "opacity in 0..1"),
    (["--scale", "0"], "positive number"),
])
def test_render_rejects_bad_options(tmp_path, args, message):
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "render", str(SMALL),
                        "-o", str(tmp_path / "x.png")] + args, capture_output=True, text=True)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


def test_moving_forms_and_back(small):
    v = show(*small, labels=False, view="side")
    sc = v.scene
    still = v.render()
    sc.set_moving(True)
    (bars, lids), (lines,) = sc._slots["states"], sc._slots["moving_states"]
    assert not bars.GetVisibility() and not lids.GetVisibility()
    assert lines.GetVisibility() and lines.GetMapper().GetInput().GetNumberOfLines() == len(
        sc.geometry.states.rows)
    moving = v.render()
    assert (np.abs(moving.astype(int) - still.astype(int)).sum(axis=2) > 30).mean() > 0.01
    sc.set_moving(False)
    assert np.array_equal(v.render(), still)


def test_many_variable_pieces_are_lines_while_moving(hand, monkeypatch):
    """Above MOVING_PIECES pieces (lowered here to 1), profiles are drawn as lines up
    the middle of each box while the camera moves, half as thick where the window
    draws half the pixels; then the boxes again."""
    from triva3d.scene import scene
    from vtkmodules.util.numpy_support import vtk_to_numpy
    monkeypatch.setattr(scene, "MOVING_PIECES", 1)
    v = show(*hand, labels=False, view="side")
    sc, b = v.scene, v.scene.geometry.profiles.boxes
    still = v.render()
    sc.set_moving(True, pixel=2)
    (boxes,), (lines,) = sc._slots["variables"], sc._slots["moving_variables"]
    assert not boxes.GetVisibility() and lines.GetVisibility()
    assert lines.GetProperty().GetLineWidth() == 2
    pts = vtk_to_numpy(lines.GetMapper().GetInput().GetPoints().GetData()).reshape(-1, 2, 3)
    mid = np.c_[(b[:, 0] + b[:, 1]) / 2, (b[:, 2] + b[:, 3]) / 2]
    assert np.allclose(pts[:, 0], np.c_[mid, b[:, 4]]) and np.allclose(pts[:, 1], np.c_[mid, b[:, 5]])
    sc.set_moving(False)
    assert boxes.GetVisibility() and not lines.GetVisibility()
    assert np.array_equal(v.render(), still)
    sc.set_moving(True, pixel=1)  # the next move draws every pixel: 4 pixels wide
    assert lines.GetProperty().GetLineWidth() == 4


def test_high_quality_draws_the_same_scene(small):
    tr, base = small
    fast = View(tr, ViewState(**base, labels=False), (320, 200), "fast").render()
    high = View(tr, ViewState(**base, labels=False), (320, 200), "high").render()
    bg = np.round(np.array(theme.BACKGROUND) * 255)

    def drawn(img):
        return np.abs(img.astype(int) - bg).sum(axis=2) > 30
    assert drawn(high).mean() > 0.5 * drawn(fast).mean() > 0.02


def test_profile_pieces_finer_than_the_screen_are_averaged_per_bin(hand, monkeypatch):
    """Value 1/3 on [0, 2] then 1 on [2, 5], over 3 bins of [0, 5]: time-weighted means
    1/3, (1/3 x 1/3 + 1 x 4/3) / (5/3) = 13/15 and 1, each bin standing for the piece
    that covers most of it; over 1 bin (2/3 + 3) / 5 = 11/15; over 2 bins 7/15 and 1.
    In a View, above PROFILE_LIMIT pieces, the drawn area is the exact one."""
    from triva3d.scene import geometry, profiles
    series, start, end = np.zeros(2, np.int64), np.array([0, 2.0]), np.array([2.0, 5.0])
    frac = np.array([1 / 3, 1.0])
    src, t, f = profiles.binned(series, start, end, frac, 0.0, 5.0, 3)
    assert np.allclose(t, [[0, 5 / 3], [5 / 3, 10 / 3], [10 / 3, 5]])
    assert np.allclose(f, [1 / 3, 13 / 15, 1]) and src.tolist() == [0, 1, 1]
    src, t, f = profiles.binned(series, start, end, frac, 0.0, 5.0, 1)
    assert np.allclose(t, [[0, 5]]) and np.allclose(f, [11 / 15])
    src, t, f = profiles.binned(series, start, end, frac, 0.0, 5.0, 2)
    assert np.allclose(t, [[0, 2.5], [2.5, 5]]) and np.allclose(f, [7 / 15, 1])
    src, t, f = profiles.binned(series, start, end, np.array([1.0, 1.0]), 0.0, 5.0, 5)
    assert np.allclose(t, [[0, 5]]) and np.allclose(f, [1])  # one mean: one piece

    def area(v):
        b = v.scene.geometry.profiles.boxes
        return float(((b[:, 1] - b[:, 0]) * (b[:, 5] - b[:, 4])).sum())
    exact = area(show(*hand))
    monkeypatch.setattr(geometry, "PROFILE_LIMIT", 0)
    assert area(show(*hand)) == pytest.approx(exact)


def test_exact_boxes_that_would_not_fit_are_refused(small, monkeypatch):
    """--detail exact asks for memory in proportion to the states drawn: beyond what
    is available, a one-line refusal with the figures, not swapping."""
    from triva3d.errors import OptionsError
    from triva3d.scene import geometry
    monkeypatch.setattr(geometry, "_available", lambda: 10 * geometry.EXACT_BYTES)
    with pytest.raises(OptionsError, match=r"exact detail: \d+ states would take about "
                                           r".* GiB to draw and .* GiB is available"):
        show(*small, detail="exact")
    show(*small, detail="lod")  # the level of detail does not need them


def test_events_closer_than_their_dots_keep_one_per_container_and_slot(small, monkeypatch):
    """Above EVENT_LIMIT events (lowered here to 0), one event per container stays in
    each EVENT_PX of the window's bins: each (container, slot) keeps its first."""
    from triva3d.scene import geometry
    tr, base = small
    every = show(tr, base).scene.geometry.events.rows
    monkeypatch.setattr(geometry, "EVENT_LIMIT", 0)
    g = show(tr, base).scene.geometry
    slots = g.n_bins // geometry.EVENT_PX
    ev, f = tr.events, g.cut
    slot = np.clip(((ev.time - f.t0) / (f.t1 - f.t0) * slots).astype(int), 0, slots - 1)
    groups = {}
    for r in every.tolist():  # in the events' order: the first of each group stays
        groups.setdefault((ev.container[r], slot[r]), r)
    assert sorted(g.events.rows.tolist()) == sorted(groups.values()) and len(groups) < len(every)


@pytest.mark.parametrize("detail", ["exact", "lod"])
def test_a_short_last_state_does_not_roof_its_column(data, detail):
    """The ping-pong's ranks end in MPI_Finalize (59 and 45 us of a 0.2 s run) after
    MPI_Init (0.193 s): from above, their columns show MPI_Init, not a roof of
    MPI_Finalize over the whole footprint. Every box's top is under a lid as high
    and as wide, in the colour of the value with most of its lane's time (counted
    once: main's time less its calls')."""
    tr = load(data / "otf2/ping-pong-otf2", cache=False)
    v = show(tr, {"base": "treemap"}, (800, 600), labels=False, view="top", detail=detail)
    img, g = v.render(), v.scene.geometry
    st = tr.states
    init, fin = value_code(tr, "MPI_Init"), value_code(tr, "MPI_Finalize")
    main = value_code(tr, "int main(int, char**)")
    lids, rgb, rows = g.states.lids
    if detail == "exact":  # per rank, one lane: MPI_Init, 97% of its time
        assert st.value[rows].tolist() == [init, init] and main != init
        for b in g.states.boxes:
            over = ((lids[:, 0] <= b[0]) & (lids[:, 1] >= b[1]) & (lids[:, 2] <= b[2])
                    & (lids[:, 3] >= b[3]) & (lids[:, 4] > b[5]))
            assert over.any()
    else:  # a column per rank, of MPI_Init in all but a few texels
        assert st.value[rows].tolist() == [init, init]
    assert (np.abs(rgb.astype(int) - g.value_rgb[st.value[rows]]).max() == 0)
    x0, y0, x1, y1 = v.scene.overlay.legend.rect
    keep = np.ones(img.shape[:2], bool)
    keep[img.shape[0] - int(y1) - 1:img.shape[0] - int(y0) + 1, int(x0):int(x1) + 1] = False
    px = img[keep].astype(int)

    def share(v):
        return (np.abs(px - g.value_rgb[v]).max(axis=1) <= 3).mean()
    # before: MPI_Finalize 0.22 of the picture exact; the last texel (main's) in lod
    assert share(fin) < 0.001
    assert share(init) > 0.2  # 0.22 exact, 0.29 lod (one column a rank)


def test_the_dominant_value_of_each_group():
    # group 5: value 1 for 2 + 1 = 3, value 0 for 2.5 -> 1, its largest item 0 (2);
    # group 2: values 3 and 4 tie at 1 -> the lower, 3 (item 3); group 9: one item
    group = np.array([5, 5, 2, 2, 5, 9, 5])
    value = np.array([1, 0, 4, 3, 1, 7, 0])
    weight = np.array([2.0, 1.5, 1.0, 1.0, 1.0, 0.5, 1.0])
    groups, values, items = entities.dominant(group, value, weight)
    assert (groups.tolist(), values.tolist(), items.tolist()) == ([2, 5, 9], [3, 1, 7], [3, 0, 5])
    # by count, the largest by another measure
    _, values, items = entities.dominant(group, value, np.ones(7), size=np.arange(7.0))
    assert (values.tolist(), items.tolist()) == ([3, 0, 7], [3, 6, 5])


def test_a_legend_wraps_its_long_notes_and_keeps_its_keys():
    """A note wider than the legend's share of the window is wrapped (it made the whole
    legend vanish) and the legend drawn within its share; a note of blanks cannot be
    wrapped (it raised) and is kept as it is."""
    from triva3d.scene.overlay import LEGEND_SHARE, Legend, text_size
    legend = Legend(lambda p: p, text_size)
    long = "the largest " + "word " * 60
    legend.set([("key", (1, 2, 3)), (long, None)])
    legend.place(800, 600)
    texts = [t for t, _ in legend.entries]
    assert legend.rect is not None and texts[0] == "key" and len(texts) > 2
    assert " ".join(t.strip() for t in texts[1:]) == long.strip()
    assert legend.rect[2] - legend.rect[0] <= LEGEND_SHARE * 800
    blank = Legend(lambda p: p, text_size)
    blank.set([("key", (1, 2, 3)), (" " * 300, None)])
    blank.place(800, 600)
    assert [t for t, _ in blank.entries] == ["key", " " * 300]
