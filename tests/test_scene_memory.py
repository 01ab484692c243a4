"""What the scene keeps in memory, and that keeping less draws the same: the level
of detail keeps 1 bit a state, no row list; texels made on demand; events' points
shared with VTK; boxes coloured by their points; big geometry in chunks drawn one
after the other; profiles averaged per bin of the screen; PNG written row by row."""
import gc
import weakref
from pathlib import Path

import numpy as np
import pytest

from triva3d import View, ViewState, load
from triva3d.scene import lod, polydata, profiles

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "examples/small.trace"
GRID = ROOT / "topologies/two_site_grid.dot"
SMALL_MAP = ROOT / "examples/small_on_two_site_grid.csv"
BASE = {"topology": str(GRID), "mapping": str(SMALL_MAP)}


@pytest.fixture(scope="module")
def small():
    return load(SMALL, cache=False)


def show(trace, size=(640, 480), **fields):
    return View(trace, ViewState(**BASE, **fields), size=size)


def drawn_rows(trace, g):
    """The states drawn, from the Trace: in the window and on a placed container."""
    st, w = trace.states, g.frame
    placed = g.layout.w > 0
    return np.flatnonzero((st.end >= w.t0) & (st.start <= w.t1) & placed[st.container])


def test_lod_keeps_a_bit_a_state_and_no_row_list(small):
    """In level of detail the geometry holds no array as long as the states (the
    rows drawn are a packed mask, the columns of states are found on demand), and
    the rows it gives are those the window and the base select."""
    v = show(small, detail="lod")
    v.render()
    g, n = v.scene.geometry, len(small.states)
    s = g.states
    for obj in (g, g.cols, s):
        for name, a in vars(obj).items():
            if isinstance(a, np.ndarray):
                assert len(a) < n or a.nbytes <= n // 8 + 1, name
    assert s.mask.nbytes == -(-n // 8)
    want = drawn_rows(small, g)
    assert np.array_equal(s.rows, want) and s.n == len(want)
    assert all(s.shows(r) for r in want[:50])
    assert not any(s.shows(r) for r in np.setdiff1d(np.arange(n), want)[:50])


def test_texels_on_demand_are_those_of_the_row_list(small):
    """The texels made from the mask (bin_shown) and one column's (column_texels, for
    picking) are bin_states' over the row list, column by column."""
    v = show(small, detail="lod")
    v.render()
    g, st = v.scene.geometry, small.states
    s = g.states
    rows = s.rows
    col = s.drawn_of[g.cols.of_state[rows]]
    f = g.cut
    dt = (f.t1 - f.t0) / s.bins
    want = lod.bin_states(col, rows, st.start, st.end, st.imbrication, f.t0, dt,
                          len(s.boxes), s.bins)
    got = g.texels
    assert got.shape == want.shape and np.array_equal(got, want) and (got >= 0).any()
    args = g._texel_args(s.mask, s.drawn_of, s.bins)
    for c in range(0, len(s.boxes), max(1, len(s.boxes) // 7)):
        assert np.array_equal(lod.column_texels(*args, s.bins, c), want[c])
        z = (np.arange(s.bins) + 0.5) / s.bins * g.cut.height
        assert [g.texel_row(c, zz) for zz in z[::9]] == want[c, ::9].tolist()


def test_columns_of_rows_match_every_state(small):
    """Columns.of_rows (and of_state, made on first use) give each state the column
    of its (container, type), -1 on unplaced containers."""
    g = show(small).scene.geometry
    cols, st = g.cols, small.states
    of = cols.of_state
    placed = g.layout.w[st.container] > 0
    assert (of[~placed] == -1).all()
    k = np.flatnonzero(placed)
    assert np.array_equal(cols.container[of[k]], st.container[k])
    assert np.array_equal(cols.type[of[k]], st.type[k])
    assert np.array_equal(cols.of_rows(k[::3]), of[k[::3]])
    # each container's columns start at cols.first[container]
    c = cols.container
    assert np.array_equal(cols.first[c], np.searchsorted(c, c, "left"))


def test_capacity_is_one_number_per_container_and_type(small):
    """A variable's capacity (the value of the capacity variable its type is relative
    to on its container, its first; else its type's maximum) from the table of
    (container, type) pairs is the one worked out row by row."""
    g = show(small).scene.geometry
    tr, roles, var = small, g.roles, small.variables
    assert len(var)
    top = {t: var.value[var.type == t].max() for t in np.unique(var.type)}
    want = []
    for r in range(len(var)):
        c, t = var.container[r], var.type[r]
        rel = roles.relative_to[t]
        cap = np.flatnonzero((var.container == c) & (var.type == rel)) if rel >= 0 else []
        want.append(var.value[cap[0]] if len(cap) else top[t])
    assert np.allclose(profiles.capacity_values(tr, roles), want)
    assert np.allclose(g.capacity_of(np.arange(len(var))), want)
    keys, _ = profiles.capacity_table(tr, roles)
    assert len(keys) == len(np.unique(var.container.astype(np.int64) * len(tr.types)
                                      + var.type)) < len(var)


def test_data_span_and_messages_without_copies(small):
    """The default window is the span of what is drawn (each column's own min and
    max), and the messages of the window are kept as a mask."""
    g = show(small).scene.geometry
    tr = small
    msg = ~g.platform_links[tr.links.type]
    prof = g.roles.drawn[tr.variables.type]
    lo = np.concatenate([tr.states.start, tr.links.start[msg], tr.events.time,
                         tr.variables.start[prof]])
    hi = np.concatenate([tr.states.end, tr.links.end[msg], tr.events.time,
                         tr.variables.end[prof]])
    assert g.data_span == (lo.min(), hi.max())
    ln, w = tr.links, g.frame
    cont = g.layout.w > 0
    want = np.flatnonzero(cont[ln.start_container] & cont[ln.end_container] & msg
                          & (ln.end >= w.t0) & (ln.start <= w.t1))
    assert np.array_equal(g.links.messages, want) and g.links.window.dtype == bool


def test_switching_to_lod_frees_the_exact_states(small):
    """The geometry's parts are replaced whole: once a View switches from exact
    boxes to the level of detail, no array of the exact part is left (neither the
    geometry nor VTK keeps one); the columns' texture is the part's atlas itself."""
    from vtkmodules.util.numpy_support import vtk_to_numpy
    v = show(small, detail="exact")
    v.render()
    exact = v.scene.geometry.states
    assert exact.mode == "exact" and exact.n > 0
    arrays = [exact.rows, exact.boxes, exact.rgb, *exact.lids]
    gone = [weakref.ref(a) for a in arrays + [exact]]
    del exact, arrays
    v.state.detail = "lod"
    v.render()
    gc.collect()
    s = v.scene.geometry.states
    assert s.mode == "lod" and s.n > 0
    assert [r() for r in gone] == [None] * len(gone)
    texture = v.scene._slots["states"][0].GetTexture().GetInput().GetPointData().GetScalars()
    assert np.shares_memory(vtk_to_numpy(texture), s.atlas)


def test_event_points_are_shared_with_vtk(small):
    """The events' dots are float32 (as VTK draws points) and VTK's points are the
    geometry's own array, not a copy: the picture's bounds are the geometry's."""
    from vtkmodules.util.numpy_support import vtk_to_numpy
    v = show(small)
    v.render()
    g, actors = v.scene.geometry, v.scene._slots["events"]
    assert g.events.points.dtype == np.float32 and len(g.events.points) and len(actors) == 1
    pts = vtk_to_numpy(actors[0].GetMapper().GetInput().GetPoints().GetData())
    rgb = vtk_to_numpy(actors[0].GetMapper().GetInput().GetCellData().GetScalars())
    assert np.shares_memory(pts, g.events.points) and np.shares_memory(rgb, g.events.rgb)
    b = actors[0].GetBounds()
    lo, hi = g.events.points.min(axis=0), g.events.points.max(axis=0)
    assert np.allclose(b[0::2], lo) and np.allclose(b[1::2], hi)


def test_boxes_coloured_by_their_points_draw_as_by_their_cells():
    """Boxes carry their colour on their 8 points (VTK then needs no cell map); the
    picture is the one of the same boxes coloured per face."""
    from triva3d.view import offscreen_window, set_view, snapshot
    rng = np.random.default_rng(1)
    n = 300
    x, y, z = (rng.uniform(0, 100, n) for _ in range(3))
    rgb = rng.integers(0, 256, (n, 3)).astype(np.uint8)
    args = (x, x + 4, y, y + 4, z, z + 9)
    new = polydata.boxes(*args, rgb=rgb)
    assert new.GetPointData().GetScalars().GetNumberOfTuples() == 8 * n
    assert new.GetCellData().GetScalars() is None
    old = polydata.boxes(*args)
    old.GetCellData().SetScalars(polydata._vtk(np.repeat(rgb, 6, axis=0), np.uint8))
    imgs = []
    for pd in (new, old):
        rw, ren = offscreen_window(320, 240)
        ren.AddViewProp(polydata.actor(pd, lit=True, cull=True))
        set_view(ren, (0, 104, 0, 104, 0, 109), 30, 30)
        imgs.append(snapshot(rw))
        rw.Finalize()
    assert (np.abs(imgs[0].astype(int) - imgs[1]).max(axis=2) > 0).mean() < 1e-3
    assert len(np.unique(imgs[0].reshape(-1, 3), axis=0)) > 50  # boxes were drawn


def test_big_geometry_is_drawn_in_chunks_and_the_same(small, monkeypatch):
    """Above BOX_CHUNK boxes or POINT_CHUNK points a slot has several actors, each
    drawn once the pipeline has drained (bounded memory in software OpenGL); the
    picture is the one drawn in one go, to the odd pixel where coplanar faces meet."""
    one = show(small, labels=False, detail="exact").render()
    monkeypatch.setattr(polydata, "BOX_CHUNK", 500)
    monkeypatch.setattr(polydata, "POINT_CHUNK", 100)
    v = show(small, labels=False, detail="exact")
    many = v.render()
    g, slots = v.scene.geometry, v.scene._slots
    assert len(slots["states"]) == -(-g.states.n // 500) + 1 > 2  # and the lids
    assert len(slots["events"]) == -(-len(g.events.rows) // 100) > 1
    assert sum(a.GetMapper().GetInput().GetNumberOfPoints() for a in slots["states"]) \
        == 8 * g.states.n + 4 * len(g.states.lids[0])
    assert (np.abs(one.astype(int) - many).max(axis=2) > 0).mean() < 2e-3
    drains = []
    monkeypatch.setattr(type(v.scene), "_drain", lambda self: drains.append(1))
    v.scene._fitted = None
    v.render()
    assert len(drains) >= len(slots["states"]) + len(slots["events"])


def test_the_drain_does_not_keep_a_scene_alive(small):
    """The mappers' observers hold the scene weakly: a View's old scene goes away."""
    v = show(small, detail="exact")
    v.render()
    gone = weakref.ref(v.scene)
    v.state.update(topology=None, mapping=None, base="treemap")  # a new scene
    v.render()
    gc.collect()
    assert gone() is None


def test_profiles_follow_the_screen_bins(small, monkeypatch):
    """Profiles averaged per bin (above PROFILE_LIMIT, lowered here to 0) are averaged
    per bin of the screen once the camera is known, as the level-of-detail columns
    are binned; the area they cover stays the exact one (to the stacks clipped at a
    lane's width)."""
    from triva3d.scene import geometry
    exact = show(small, detail="lod").scene.geometry
    b = exact.profiles.boxes
    area = float(((b[:, 1] - b[:, 0]) * (b[:, 5] - b[:, 4])).sum())
    monkeypatch.setattr(geometry, "PROFILE_LIMIT", 0)
    v = show(small, detail="lod", size=(400, 300))
    v.render()
    g = v.scene.geometry
    assert g.n_bins != 512 and g.profiles.bins == g.n_bins == g.states.bins
    lanes = len(np.unique(g.profiles.boxes[:, [0, 2]], axis=0))
    assert len(g.profiles.rows) <= lanes * g.n_bins
    b = g.profiles.boxes
    assert float(((b[:, 1] - b[:, 0]) * (b[:, 5] - b[:, 4])).sum()) == pytest.approx(area,
                                                                                rel=0.01)
    drawn = sum(a.GetMapper().GetInput().GetNumberOfPoints()
                for a in v.scene._slots["variables"])
    assert drawn == 8 * len(g.profiles.rows)  # the actors were made again
    assert g.set_bins(g.n_bins) == set()  # nothing to do: nothing made again


def test_events_follow_the_screen_bins(small, monkeypatch):
    """Events thinned (above EVENT_LIMIT, lowered here to 0) are thinned again for the
    screen's bins once the camera is known, and their dots made again; chunks of a
    size share one cell array (VTK's, not copied per chunk)."""
    from triva3d.scene import geometry, polydata
    monkeypatch.setattr(geometry, "EVENT_LIMIT", 0)
    monkeypatch.setattr(polydata, "POINT_CHUNK", 50)
    v = show(small, detail="lod", size=(400, 300))
    before = len(v.scene.geometry.events.rows)
    v.render()
    g = v.scene.geometry
    assert g.n_bins != 512 and g.events.bins == g.n_bins
    assert len(g.events.rows) < before  # fewer pixels: fewer slots
    slots = g.n_bins // geometry.EVENT_PX
    ev, f = small.events, g.cut
    s = np.clip(((ev.time[g.events.rows] - f.t0) / (f.t1 - f.t0) * slots).astype(int), 0,
                slots - 1)
    assert len(set(zip(ev.container[g.events.rows].tolist(), s.tolist()))) == len(s)
    actors = v.scene._slots["events"]
    assert sum(a.GetMapper().GetInput().GetNumberOfPoints() for a in actors) == len(s)
    full = [a.GetMapper().GetInput().GetVerts() for a in actors[:-1]]
    assert len(full) > 1 and all(c is full[0] for c in full)
    assert g.set_bins(g.n_bins) == set()


@pytest.mark.parametrize("shape", [(7, 5), (7, 5, 3), (7, 5, 4), (1, 1, 3)])
def test_png_written_row_by_row_reads_back(tmp_path, shape):
    import imageio.v3 as iio
    from triva3d.output import write_image
    img = np.random.default_rng(2).integers(0, 256, shape).astype(np.uint8)
    size = write_image(img[::-1][::-1], tmp_path / "a.png")
    assert size == (tmp_path / "a.png").stat().st_size
    assert np.array_equal(iio.imread(tmp_path / "a.png"), img)


def test_save_writes_the_frame_without_copying_it(small, tmp_path):
    """View.save writes the frame it draws as PNG from the window's rows (no whole
    copy), the pixels `render` reads; JPEG still goes through an array."""
    import imageio.v3 as iio
    from triva3d.view import snapshot
    for size in ((333, 217), (640, 480)):
        v = show(small, size=size)
        v.save(tmp_path / "a.png")
        frame = snapshot(v.render_window, rendered=True)  # the frame just saved
        assert np.array_equal(iio.imread(tmp_path / "a.png"), frame)
        v.save(tmp_path / "a.jpg")
        assert iio.imread(tmp_path / "a.jpg").shape == (size[1], size[0], 3)
