"""Movies: camera paths between keyframes, the run unfolding, messages as
particles on their routes, and the files written (real VTK offscreen, movies read
back with imageio)."""
import json
import math
import subprocess
import sys
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import pytest

from conftest import HEADER
from test_scene import HAND, HAND_TOPO
from test_view import BASE, SMALL, small  # noqa: F401  (small: a fixture)
from triva3d import Camera, OptionsError, TraceError, View, ViewState, load
from triva3d.movie.frames import frame_times, record
from triva3d.movie.paths import Keyframes, make_path, orbit, resolve
from triva3d.scene.particles import LIFT

SIZE = (320, 240)


@pytest.fixture
def hand(tmp_path):
    (tmp_path / "hand.trace").write_text(HAND)
    (tmp_path / "hand.dot").write_text(HAND_TOPO)
    return load(tmp_path / "hand.trace", cache=False), {"topology": str(tmp_path / "hand.dot")}


def cli(*args):
    return subprocess.run([sys.executable, "-m", "triva3d.cli", *map(str, args)],
                          capture_output=True, text=True)


def read_frames(folder):
    return np.stack([iio.imread(p) for p in sorted(Path(folder).glob("frame_*.png"))])


# -- keyframes ----------------------------------------------------------------------------
def cam(x, y, z=1.0):
    return Camera(position=(x, y, z), focal_point=(0, 0, 0), view_up=(0, 0, 1))


def test_the_spline_passes_through_the_keyframes_and_times_move_linearly():
    keys = Keyframes([(0, ViewState(camera=cam(10, 0), window=(0, 1), scale=1)),
                      (2, ViewState(camera=cam(0, 10), window=(2, 3), scale=4)),
                      (3, ViewState(camera=cam(-10, 0), window=(4, 5), scale=1))])
    for t, s in zip(keys.times, keys.states):
        assert keys.state_at(t) == s
    mid = keys.state_at(1.0)
    assert mid.window == pytest.approx((1, 2)) and mid.scale == pytest.approx(2)
    # the Hermite spline with Catmull-Rom tangents, worked out by hand for x at s = 1:
    # p0 = 10, p1 = 0, m0 = (0 - 10) / 2, m1 = (-10 - 10) / 3, h = 2, u = 0.5
    h00, h10, h01, h11 = 0.5, 0.125, 0.5, -0.125
    x = h00 * 10 + h10 * 2 * (-5) + h01 * 0 + h11 * 2 * (-20 / 3)
    assert mid.camera.position[0] == pytest.approx(x)
    # C1: the velocity is continuous across the middle keyframe
    eps = 1e-4
    v_in = (np.array(keys.state_at(2).camera.position)
            - keys.state_at(2 - eps).camera.position) / eps
    v_out = (np.array(keys.state_at(2 + eps).camera.position)
             - keys.state_at(2).camera.position) / eps
    assert v_in == pytest.approx(v_out, abs=1e-2)  # O(eps) differences


def test_bad_keyframes_are_refused(tmp_path):
    with pytest.raises(OptionsError, match="start at 0 and increase"):
        Keyframes([(0, ViewState()), (0, ViewState())])
    for text, message in (("[1, 2]", "keyframes must be"),
                          ('{"keyframes": [{"at": 0, "state": {"scale": -1}}]}',
                           "keyframe 1: time scale must be within 0.001..1000"),
                          ('{"keyframes": [{"at": 1}]}', "must start at 0"),
                          ("{", "not JSON")):
        (tmp_path / "k.json").write_text(text)
        with pytest.raises(TraceError, match=message):
            Keyframes.load(tmp_path / "k.json")


def test_an_orbit_circles_the_time_axis(small):
    view = View(small, ViewState(**BASE), size=SIZE)
    keys = orbit(view, 4.0)
    c0 = keys.states[0].camera
    f = np.array(c0.focal_point)
    r0 = np.hypot(*(np.array(c0.position) - f)[:2])
    for s in frame_times(4.0, 25):
        c = keys.state_at(s).camera
        d = np.array(c.position) - f
        assert np.hypot(*d[:2]) == pytest.approx(r0, rel=1e-3)
        assert d[2] == pytest.approx(c0.position[2] - f[2])
        assert c.focal_point == pytest.approx(c0.focal_point)
    half = keys.state_at(2.0).camera.position
    assert np.array(half)[:2] - f[:2] == pytest.approx(-(np.array(c0.position) - f)[:2])


# -- the run unfolding -------------------------------------------------------------------
def test_unfolding_draws_what_began_and_dims_what_ended(hand):
    trace, base = hand
    view = View(trace, ViewState(**base, unfold=True, now=2.5), size=SIZE)
    g = view.scene.geometry
    st = trace.states
    names = [trace.display_name("values", v) for v in st.value[g.states.rows]]
    assert sorted(names) == ["A", "B", "D"]  # C begins at 3
    top = dict(zip(names, g.states.boxes[:, 5]))
    assert top["B"] == pytest.approx(g.frame.z(2.5), rel=1e-3)  # cut at now
    rgb = dict(zip(names, g.states.rgb.tolist()))
    own = {n: g.value_rgb[trace.find("values", n)[0]].tolist() for n in names}
    assert rgb["B"] == own["B"] and rgb["D"] == own["D"]  # still running
    assert rgb["A"] != own["A"]  # ended 0.5 s ago, a tenth of the window: dimmed fully
    # the message (1 to 3 s, P1 to P2) is drawn three quarters of the way
    x0, x1 = g.links.p0[0, 0], g.links.p1[0, 0]
    xs, xe = view.layout.x[trace.find("containers", "P1")[0]], \
        view.layout.x[trace.find("containers", "P2")[0]]
    assert (x1 - x0) == pytest.approx(0.75 * (xe - xs), rel=1e-6)
    assert g.links.p1[0, 2] == pytest.approx(g.frame.z(2.5))


# -- particles -----------------------------------------------------------------------------
def route_numbers(trace, view):
    """Where P1 and P2 stand, and the switch's centre: the route P1 - s - P2."""
    lay = view.layout
    p1 = np.array([lay.x[trace.find("containers", "P1")[0]],
                   lay.y[trace.find("containers", "P1")[0]]])
    p2 = np.array([lay.x[trace.find("containers", "P2")[0]],
                   lay.y[trace.find("containers", "P2")[0]]])
    s = lay.node_rects[lay.node_names.index("s"), :2]
    return p1, s, p2


def test_a_message_two_hops_away_passes_over_the_middle_node(hand):
    trace, base = hand
    view = View(trace, ViewState(**base, particles="value"), size=SIZE)
    p1, s, p2 = route_numbers(trace, view)
    a, b = np.linalg.norm(s - p1), np.linalg.norm(p2 - s)
    # the message flies 1 -> 3 s at constant speed: over s at 1 + 2 a / (a + b)
    t_mid = 1 + 2 * a / (a + b)
    parts = view.scene._particles_of()
    for t, where in ((1.0, p1), (t_mid, s), (3.0, p2), ((1 + t_mid) / 2, (p1 + s) / 2)):
        view.state.now = t
        heads = parts.at(view.scene.geometry, t)[0]
        assert heads[0, :2] == pytest.approx(where, abs=1e-6)
        assert heads[0, 2] == pytest.approx(view.scene.geometry.frame.z(t)
                                            + LIFT * view.scene.geometry.extent)
    # the straight line would have missed the switch? no: it is on the way here, so
    # check the route holds it as a corner, and the heat crosses edge by edge
    g = view.scene.geometry
    lay = view.layout
    edge = {frozenset(lay.node_names[i] for i in e): k for k, e in enumerate(lay.edges)}
    first, second = edge[frozenset({"h1", "s"})], edge[frozenset({"s", "h2"})]
    for t, h1s, sh2 in ((1.0, 0, 0), ((1 + t_mid) / 2, 0.5, 0), (t_mid, 1, 0),
                        ((t_mid + 3) / 2, 1, 0.5), (3.0, 1, 1), (5.0, 1, 1)):
        h = parts.heat(g, t)
        assert (h[first], h[second]) == pytest.approx((h1s, sh2), abs=1e-9)


def test_a_particle_is_drawn_where_its_route_position_projects(hand):
    trace, base = hand
    state = ViewState(**base, particles="value", unfold=True, view="top", now=1.7)
    view = View(trace, state, size=(640, 480), legend=False)  # the legend's key is magenta too
    img = view.render()
    heads, rgb = view.scene._particles_of().at(view.scene.geometry, 1.7)[:2]
    x, y = view.projection.to_display(heads)[0, :2]
    # the head: a square of exactly its colour, centred on the projection
    ys, xs = np.nonzero((np.abs(img.astype(int) - rgb[0].astype(int)).max(axis=2) == 0))
    assert len(xs) >= 25
    h = img.shape[0]
    assert xs.mean() == pytest.approx(x - 0.5, abs=1.0)
    assert (h - 1 - ys).mean() == pytest.approx(y - 0.5, abs=1.0)


def test_particles_are_one_actor_whatever_their_number(small):
    view = View(small, ViewState(**BASE, particles="size"), size=SIZE)
    g = view.scene.geometry
    ln = small.links
    busy = float(np.median(ln.start[g.links.messages]))
    view.state.now = busy
    view.draw()
    slot = view.scene._slots["particles"]
    assert 1 <= len(slot) <= 2  # the trails, and the heads in flight
    flying = ((ln.start[g.links.messages] <= busy) & (ln.end[g.links.messages] >= busy)).sum()
    heads = [a for a in slot if a.GetMapper().GetInput().GetNumberOfVerts()]
    assert flying == (heads[0].GetMapper().GetInput().GetNumberOfVerts() if heads else 0)


def test_a_path_of_a_state_that_needs_now_gets_a_cursor_wherever_it_is_made(small):
    """Unfolding, particles and heat show the run at a time: the rule that their
    keyframes get a climbing `now` lives with the paths, so the command line and
    the window's recorded flights (resolve) follow it alike."""
    view = View(small, ViewState(**BASE, particles="value"), size=SIZE)
    t0, t1 = view.scene.geometry.data_span
    nows = [s.now for s in make_path(view, "orbit", 1.0).states]
    assert nows[0] == pytest.approx(t0) and nows[-1] == pytest.approx(t1)
    assert all(a < b for a, b in zip(nows, nows[1:]))
    flown = Keyframes([(0, view.state.copy(camera=cam(10, 0))),
                       (2, view.state.copy(camera=cam(0, 10), now=t0))])
    nows = [s.now for s in resolve(view, flown).states]
    assert nows == [pytest.approx(t0), t0]  # a keyframe's own `now` is kept
    plain = View(small, ViewState(**BASE), size=SIZE)
    assert all(s.now is None for s in make_path(plain, "orbit", 1.0).states)


# -- movies --------------------------------------------------------------------------------
def test_a_movie_starts_and_ends_on_its_keyframes(small, tmp_path):
    view = View(small, ViewState(**BASE), size=SIZE)
    keys = make_path(view, "orbit", 1.0)
    n, size, _ = record(view, keys, str(tmp_path / "f") + "/", fps=12)
    frames = read_frames(tmp_path / "f")
    assert n == 12 and frames.shape == (12, SIZE[1], SIZE[0], 3) and size > 0
    for i in (0, -1):
        fresh = View(small, keys.states[i], size=SIZE).render()
        assert np.array_equal(frames[i], fresh)
    # frames change as the camera turns (one turn: the last is the first again)
    assert all(np.abs(a.astype(int) - b).sum() > 0 for a, b in zip(frames[:-1], frames[1:]))
    assert np.array_equal(frames[0], frames[-1])


def test_mp4_and_gif_read_back_with_their_frame_count_and_size(small, tmp_path):
    for name in ("m.mp4", "m.gif"):
        r = cli("animate", SMALL, "--topology", BASE["topology"], "--mapping",
                BASE["mapping"], "--no-cache", "--path", "sweep", "--unfold", "--particles",
                "--duration", "1", "--fps", "8", "--size", "320x240", "-o", tmp_path / name)
        assert r.returncode == 0, r.stderr
        frames = iio.imread(tmp_path / name, index=None)
        assert frames.shape[0] == 8 and frames.shape[1:3] == (240, 320)
        changed = np.abs(frames[0].astype(int) - frames[-1]).max(axis=2) > 40
        assert changed.mean() > 0.01  # the window moved: other bars, other labels
        assert "8 frames of 320x240" in r.stderr


def test_the_same_inputs_give_the_same_frames_and_a_script_replays_them(tmp_path):
    common = ["--topology", BASE["topology"], "--mapping", BASE["mapping"], "--no-cache",
              "--fps", "6", "--size", "240x160"]
    r = cli("animate", SMALL, *common, "--path", "rise", "--unfold", "--heat",
            "--duration", "1", "--script", tmp_path / "k.json", "-o", f"{tmp_path}/a/")
    assert r.returncode == 0, r.stderr
    again = cli("animate", SMALL, *common, "--path", "rise", "--unfold", "--heat",
                "--duration", "1", "-o", f"{tmp_path}/b/")
    replay = cli("animate", SMALL, "--no-cache", "--fps", "6", "--size", "240x160",
                 "--path", tmp_path / "k.json", "-o", f"{tmp_path}/c/")
    assert again.returncode == 0 and replay.returncode == 0, replay.stderr
    a, b, c = (read_frames(tmp_path / x) for x in "abc")
    assert len(a) == 6 and np.array_equal(a, b) and np.array_equal(a, c)
    script = json.loads((tmp_path / "k.json").read_text())
    assert [k["at"] for k in script["keyframes"]] == pytest.approx(np.linspace(0, 1, 11))
    now = [k["state"]["now"] for k in script["keyframes"]]
    assert now == sorted(now) and now[0] < now[-1]


@pytest.mark.parametrize("args, message", [
    (["-o", "m.avi"], "must end in .mp4 or .gif"),
    (["--size", "321x240", "-o", "m.mp4"], "needs an even width and height"),
    (["--path", "nowhere.json", "-o", "m.mp4"], "nowhere.json: cannot read the keyframes"),
    (["--path", "sweep", "--window", "0:1", "-o", "m.gif"], "a sweep needs a window"),
])
def test_bad_movie_options_are_one_line_errors(tmp_path, args, message):
    args = [str(tmp_path / a) if a.startswith(("m.", "nowhere")) else a for a in args]
    r = cli("animate", SMALL, "--no-cache", "--duration", "0.5", "--fps", "4", *args)
    assert r.returncode == 2 and message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_times_per_frame():
    """frame_times: round(duration * fps) frames, first at 0, last at the end."""
    t = frame_times(2.0, 10)
    assert len(t) == 20 and t[0] == 0 and t[-1] == 2.0
    assert math.isclose(t[1] - t[0], 2.0 / 19)


def test_the_legend_keeps_its_order_while_the_window_slides(small):
    """Keys in the order of their time over the whole trace, whatever the window."""
    view = View(small, ViewState(**BASE), size=SIZE)
    st = small.states
    time = np.bincount(st.value, weights=st.end - st.start, minlength=len(small.values))
    expected = [small.display_name("values", v) for v in np.argsort(-time, kind="stable")
                if time[v] > 0]
    t0, t1 = view.scene.geometry.data_span
    for k in range(4):
        view.state.window = (t0 + k * (t1 - t0) / 5, t0 + (k + 1) * (t1 - t0) / 5)
        view.update()
        keys = [t for t, rgb in view.scene.geometry.legend_entries()
                if rgb is not None and "(" not in t]
        assert keys == [v for v in expected if v in keys] and len(keys) >= 3


def test_trails_follow_the_route_round_its_corners():
    """A message flying 30 units in 3 s along (0,0) (10,0) (10,10) (20,10): at 2 s
    its trail over the last 2 s covers 0..20, in 3 pieces, cut at the corner."""
    from triva3d.scene.particles import _trails
    pts = np.array([[0, 0], [10, 0], [10, 10], [20, 10]], np.float64)
    rgb = np.array([[200, 100, 50]], np.uint8)
    pairs, rgba = _trails(np.array([0]), rgb, 0.0, 2.0, 5.0, 3, np.array([0]),
                          np.array([0, 4]), pts, np.array([0.0, 10, 20, 30]),
                          np.array([0.0]), np.array([3.0]))
    third = 20 / 3
    expected = [((10, 2 * third - 10), (10, 10)),          # the newest piece
                ((third, 0), (10, 0)), ((10, 0), (10, 2 * third - 10)),  # the corner
                ((0, 0), (third, 0))]                     # the oldest
    assert len(pairs) == 4 and (pairs[:, :, 2] == 5.0).all()
    for (a, b), (p, q) in zip(expected, pairs[:, :, :2]):
        assert p == pytest.approx(a, abs=1e-4) and q == pytest.approx(b, abs=1e-4)
    alpha = rgba[:, 3].astype(int)
    assert alpha[0] > alpha[1] == alpha[2] > alpha[3] > 0
    assert (rgba[:, :3] == rgb).all()


def test_many_particles_are_their_trails_in_one_piece(hand, monkeypatch):
    from triva3d.scene import particles
    trace, base = hand
    view = View(trace, ViewState(**base, particles="value"), size=SIZE)
    parts = view.scene._particles_of()
    p1, s, p2 = route_numbers(trace, view)
    a, b = np.linalg.norm(s - p1), np.linalg.norm(p2 - s)
    now = 1 + 2 * a / (a + b) + 0.03  # just past the switch: the trail (0.1 s) turns there
    heads, _, full, _ = parts.at(view.scene.geometry, now)
    monkeypatch.setattr(particles, "MANY", 0)
    no_heads, _, fewer, rgba = parts.at(view.scene.geometry, now)
    # 4 pieces and the corner at the switch, then one piece and the corner, no head
    assert (len(full), len(fewer)) == (particles.TRAIL + 1, 2)
    assert (len(heads), len(no_heads)) == (1, 0) and (rgba[:, 3] == 220).all()


def test_one_keyframe_is_held_and_a_saved_view_unfolds(tmp_path):
    state = ViewState(**BASE, unfold=True)
    state.save(tmp_path / "v.json")
    (tmp_path / "one.json").write_text(json.dumps(
        {"format": 1, "keyframes": [{"at": 0, "state": {"view": "top"}}]}))
    r = cli("animate", SMALL, "--state", tmp_path / "v.json", "--no-cache", "--path",
            tmp_path / "one.json", "--duration", "1", "--fps", "5", "--size", "240x160",
            "--script", tmp_path / "used.json", "-o", f"{tmp_path}/f/")
    assert r.returncode == 0, r.stderr
    assert len(read_frames(tmp_path / "f")) == 5
    used = json.loads((tmp_path / "used.json").read_text())["keyframes"]
    assert [k["at"] for k in used] == [0, 1]
    first, last = (k["state"] for k in used)
    assert first["unfold"] and first["view"] == "top" and first["camera"] == last["camera"]
    assert first["now"] < last["now"]  # the saved view's unfold drives the cursor


# Two hosts of small_platform.xml, a process on each, and one message from Tremblay
# to Fafard (1 to 3 s): its declared route is links 4 3 2 0 1 8.
ON_SMALL_PLATFORM = HEADER + """\
0 H 0 "Host"
0 P H "Process"
2 S P "State"
4 L 0 P P "Msg"
5 a S "A" "1 0 0"
5 m L "m" "1 0 1"
6 0 t H 0 "Tremblay"
6 0 f H 0 "Fafard"
6 0 pt P t "PT"
6 0 pf P f "PF"
11 0 pt S a
11 0 pf S a
15 1 0 L pt m k1
16 3 0 L pf m k1
7 5 P pt
7 5 P pf
"""
TREMBLAY_FAFARD = ["Tremblay", "4", "3", "2", "0", "1", "8", "Fafard"]


@pytest.fixture
def on_small_platform(data, tmp_path):
    (tmp_path / "t.trace").write_text(ON_SMALL_PLATFORM)
    return (load(tmp_path / "t.trace", cache=False),
            {"topology": str(data / "platforms/small_platform.xml")})


def route_edges(layout, names):
    """The base edges joining consecutive `names`."""
    edge = {frozenset(layout.node_names[i] for i in e): k for k, e in enumerate(layout.edges)}
    return [edge[frozenset(p)] for p in zip(names, names[1:])]


def test_the_heat_follows_the_declared_route_not_the_loopback(on_small_platform):
    trace, base = on_small_platform
    view = View(trace, ViewState(**base, heat=True, now=2.0), size=SIZE)
    heat = view.scene._particles_of().heat(view.scene.geometry, 5.0)
    on = route_edges(view.layout, TREMBLAY_FAFARD)
    assert heat[on] == pytest.approx(np.ones(len(on)))  # the message crossed each link
    assert np.delete(heat, on).sum() == 0                 # and nothing else
    # at 2 s, the first half of its way (by length, from PT over the links to PF)
    lay = view.layout
    ends = [trace.find("containers", n)[0] for n in ("PT", "PF")]
    pts = np.array([(lay.x[ends[0]], lay.y[ends[0]])]
                   + [lay.node_rects[lay.node_names.index(n), :2] for n in TREMBLAY_FAFARD[1:-1]]
                   + [(lay.x[ends[1]], lay.y[ends[1]])])
    seg = np.hypot(*np.diff(pts, axis=0).T)
    behind = np.clip((seg.sum() / 2 - np.r_[0, np.cumsum(seg)[:-1]]) / seg, 0, 1)
    half = view.scene._particles_of().heat(view.scene.geometry, 2.0)
    assert half[on] == pytest.approx(behind)
    assert 0 < behind.sum() < len(on)


def test_routes_show_the_paths_of_the_window_in_a_still_picture(on_small_platform):
    trace, base = on_small_platform
    view = View(trace, ViewState(**base), size=SIZE)
    assert view.scene._slots["heat"] == []
    view.state.routes = True
    view.update()
    (strips,) = view.scene._slots["heat"]
    # one strip per edge of the route, as wide as the busiest: the whole window's traffic
    assert strips.GetMapper().GetInput().GetNumberOfCells() == len(TREMBLAY_FAFARD) - 1
    keys = [a.GetInput() for a in view.scene.overlay.legend.texts]
    assert "edges: traffic of the window (messages), narrow blue to wide red" in keys
    assert ViewState.from_json(view.state.to_json()).routes


def test_the_legend_says_what_heat_and_sizes_mean(small):
    view = View(small, ViewState(**BASE), size=SIZE)
    lines = [t for t, rgb in view.scene.geometry.legend_entries() if rgb is None]
    assert lines == ["edges: width bandwidth, colour latency"]
    edges = view.scene._edges
    assert edges.GetMapper().GetScalarVisibility()  # latency colours
    view.state.update(now=0.1, heat=True, particles="size")
    view.update()
    keys = [a.GetInput() for a in view.scene.overlay.legend.texts]
    assert "edges: traffic so far (messages), narrow blue to wide red" in keys
    assert "particles: size, small blue to large red (grey: unknown)" in keys
    assert not edges.GetMapper().GetScalarVisibility()  # grey under the heat
    # unfolding keys the whole window from the start: the legend does not grow
    view.state.update(unfold=True, now=view.scene.geometry.frame.t0)
    view.update()
    assert [a.GetInput() for a in view.scene.overlay.legend.texts][:len(keys)] == keys


def test_base_edges_show_the_difference_of_two_runs_traffic(on_small_platform, tmp_path):
    """Issue 32.3: run B sends PT -> PF twice where A sends once; coloured by a
    difference, each edge of the declared route shows B - A = +1 message (the
    widest, red), every other edge nothing; the legend says so."""
    from triva3d.colors import diverging
    trace, base = on_small_platform
    b = tmp_path / "b.trace"
    b.write_text(ON_SMALL_PLATFORM.replace("16 3 0 L pf m k1\n",
                                           "16 3 0 L pf m k1\n15 3 0 L pt m k2\n"
                                           "16 4 0 L pf m k2\n"))
    view = View(trace, ViewState(**base, compare=str(b), color_by="difference:state:A"),
                size=SIZE)
    view.render()
    signed, text = view.scene._difference[1]
    on = route_edges(view.layout, TREMBLAY_FAFARD)
    assert signed[on] == pytest.approx(np.ones(len(on))) and np.delete(signed, on).sum() == 0
    assert text == "edges: B - A traffic, blue less, red more (widest 1 messages)"
    (strips,) = view.scene._slots["heat"]
    from vtkmodules.util.numpy_support import vtk_to_numpy
    rgb = vtk_to_numpy(strips.GetMapper().GetInput().GetCellData().GetScalars())
    assert (rgb[:, :3] == diverging([1.0])[0]).all()
    keys = [a.GetInput() for a in view.scene.overlay.legend.texts]
    assert text in keys
    view.close()
