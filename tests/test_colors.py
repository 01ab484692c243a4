"""The keys of a picture are told apart: on real traces, the colours of the values
shown are far apart (CIEDE2000) and stand out from the background and the legend's
rows; colours a trace gives are kept unless they collide; MPI calls of one family
look related yet distinct; a legend swatch is edged."""
import itertools

import numpy as np
import pytest

from triva3d import View, ViewState, colors, load, make_layout, theme
from triva3d.scene.geometry import Geometry
from triva3d.theme import BOX_OPACITY, BOX_RGB

#: What "told apart" means here (Sharma's CIEDE2000; WCAG's contrast ratio), fixed
#: apart from the library's constants so that lowering those fails.
FAR, SEEN = 15.0, 1.8
BG = np.round(np.array(theme.BACKGROUND) * 255)
#: A legend row: its dark box over the background.
ROW = np.round((np.array(BOX_RGB) * BOX_OPACITY + np.array(theme.BACKGROUND) * (1 - BOX_OPACITY))
               * 255)


def delta_e(rgb1, rgb2):
    return float(colors.ciede2000(colors.lab(rgb1), colors.lab(rgb2)))


def shown_keys(g):
    """{name: rgb} of the values the legend of Geometry `g` lists."""
    return {text: np.asarray(rgb, int) for text, rgb in g.legend_entries() if rgb is not None}


def check_told_apart(keys):
    for (a, x), (b, y) in itertools.combinations(keys.items(), 2):
        assert delta_e(x, y) >= FAR, (a, b, x, y)
    for name, rgb in keys.items():
        assert delta_e(rgb, BG) >= FAR, name
        assert colors.contrast(rgb, BG) >= SEEN and colors.contrast(rgb, ROW) >= SEEN, name


def geometry(trace):
    return Geometry(trace, make_layout(trace, base="treemap", use_cache=False))


@pytest.mark.parametrize("rel", ["paje/replay_output_shurakai_extract.trace",
                                 "paje/simu-mardi.trace", "paje/native_sample.trace",
                                 "otf2/ping-pong-otf2"])
def test_keys_of_real_traces_are_told_apart(data, rel):
    check_told_apart(shown_keys(geometry(load(data / rel, lenient=True, cache=False))))


def test_trace_colours_are_kept_unless_they_collide_or_vanish(data):
    """StarPU's native_sample gives every colour. Idle and Sleeping are both
    (229, 26, 0): Idle, longer, keeps it. Overhead (0.5, 0.18, 0) has a contrast of
    2.0 on the background: kept (it was drawn (69, 0, 0), contrast 1.04, before).
    Executing (0, 0.6, 0.5) is kept; the chol_model tasks, (0, 0.6, 0.4) each, 7.4
    from it, are moved."""
    g = geometry(load(data / "paje/native_sample.trace", lenient=True, cache=False))
    keys = shown_keys(g)
    assert keys["Idle"].tolist() == [229, 26, 0]
    assert keys["Overhead"].tolist() == [128, 46, 0]
    assert keys["Executing"].tolist() == [0, 153, 128]
    assert keys["Sleeping"].tolist() != [229, 26, 0]
    for name in ("chol_model_11", "chol_model_21", "chol_model_22"):
        assert keys[name].tolist() != [0, 153, 102]
    assert colors.contrast((128, 46, 0), BG) >= SEEN > colors.contrast((69, 0, 0), BG)
    # the replay's SMPI colours are all kept: none collides
    g = geometry(load(data / "paje/replay_output_shurakai_extract.trace", cache=False))
    assert {k: v.tolist() for k, v in shown_keys(g).items()} == {
        "action_wait": [255, 255, 0], "action_allReduce": [255, 0, 255],
        "action_Irecv": [255, 0, 0], "smpi_replay_run_finalize": [0, 255, 0]}


MPI_CALLS = {"wait": ["PMPI_Wait", "PMPI_Waitall", "PMPI_Waitany"],
             "test": ["PMPI_Test", "PMPI_Testall"],
             "send": ["PMPI_Send", "PMPI_Isend"], "recv": ["PMPI_Recv", "PMPI_Irecv"],
             "collective": ["PMPI_Allreduce", "PMPI_Barrier", "PMPI_Bcast"]}


def hue(rgb):
    """HSV hue of a colour, in degrees."""
    r, g, b = np.asarray(rgb, float) / 255
    mx, mn = max(r, g, b), min(r, g, b)
    if mx == mn:
        return 0.0
    h = {r: (g - b) / (mx - mn), g: 2 + (b - r) / (mx - mn), b: 4 + (r - g) / (mx - mn)}[mx]
    return h * 60 % 360


def test_mpi_calls_of_a_family_look_related_and_apart(paje):
    """Twelve MPI calls without colours, a second each: the calls of a family are
    given hues within 30 degrees of one another (their names' own: Score-P's PMPI_
    or MPI_), and all are told apart once drawn."""
    for family, calls in MPI_CALLS.items():
        for name in calls + [c[1:] for c in calls]:
            assert colors.mpi_family(name)[0] == family
        hues = [hue(colors.palette(n)) for n in calls]
        for a, b in itertools.combinations(hues, 2):
            assert min(abs(a - b), 360 - abs(a - b)) <= 30, (family, calls, hues)
    assert colors.mpi_family("MPI_Init") is None and colors.mpi_family("Waitall") is None
    names = [n for family in MPI_CALLS.values() for n in family]
    body = "".join(f"11 {i} p1 S {n}\n" for i, n in enumerate(names)) + f"7 {len(names)} P p1\n"
    keys = shown_keys(geometry(paje(body)))
    assert sorted(keys) == sorted(names)
    check_told_apart(keys)


def test_a_legend_swatch_is_edged_whatever_its_colour(paje):
    """Keys black, as dark as the legend's row, and white: from each swatch's
    centre, left, right, up and down, a pixel that contrasts (3:1 at least) with
    the row and (2.5:1) with the swatch comes within a few pixels of its edge."""
    body = ("11 0 p1 S black\n11 1 p1 S row\n11 2 p1 S white\n7 3 P p1\n")
    colours = {"black": "#000000", "row": "#%02x%02x%02x" % tuple(int(c) for c in ROW),
               "white": "#ffffff"}
    v = View(paje(body), ViewState(base="treemap", labels=False, colors=colours),
             size=(640, 400))
    img = v.render().astype(int)
    legend = v.scene.overlay.legend
    x0, _, _, y1 = legend.rect
    line, sw = 20, 14  # LEGEND_PX + 6 a line, LEGEND_PX a swatch
    assert [t for t, _ in legend.entries] == ["black", "row", "white"]
    for i, (text, rgb) in enumerate(legend.entries):
        cx, cy = int(x0 + 8 + sw / 2), img.shape[0] - 1 - int(y1 - 5 - i * line - sw / 2)
        assert np.abs(img[cy, cx] - rgb).max() <= 2, text
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            edge = [k for k in range(1, sw // 2 + 4)
                    if colors.contrast(img[cy + k * dy, cx + k * dx], ROW) >= 3
                    and colors.contrast(img[cy + k * dy, cx + k * dx], rgb) >= 2.5]
            assert edge and edge[0] >= sw // 2 - 1, (text, dx, dy)


@pytest.mark.parametrize("rgb", [(255, 255, 255), (0, 0, 0), (150, 150, 150)])
def test_the_windows_legend_swatch_is_edged(qtbot, rgb):
    """The legend dock's rows are white or dark (the desktop's theme): a white, a
    black or an edge-grey key still has a rim that contrasts with its row or itself."""
    from PySide6 import QtGui
    from triva3d.gui.docks import _swatch
    img = _swatch(rgb).pixmap(14, 14).toImage()

    def at(x, y):
        c = QtGui.QColor(img.pixel(x, y))
        return (c.red(), c.green(), c.blue())
    assert np.abs(np.subtract(at(7, 7), rgb)).max() <= 3  # (the display's depth)
    for x, y in ((0, 7), (13, 7), (7, 0), (7, 13)):
        for row in ((255, 255, 255), (30, 30, 30)):
            assert colors.contrast(at(x, y), row) >= 2.5 or colors.contrast(at(x, y), rgb) >= 2.5


def test_the_note_on_shifted_colours_is_one_short_line():
    """Issue 25.6: the note named every shifted colour (46 names on an OTF2 archive
    with many metrics); it names a few."""
    from pathlib import Path
    from triva3d import load
    tr = load(Path(__file__).resolve().parents[1] / "examples" / "small.trace")
    _, _, notes = colors.scene_palette(tr)
    assert len(notes) == 1 and len(notes[0]) < 200
    shifted = int(notes[0].split()[0])
    assert shifted > colors.NOTE_EXAMPLES and notes[0].count(" like ") + notes[0].count(
        " dark (") == colors.NOTE_EXAMPLES


def test_a_state_never_takes_the_colour_of_the_hosts_squares(trace_file):
    """The thesis's IDLE (191, 191, 191) lids vanished on host squares (190, 190,
    182) seen from above: a state's colour stands apart from them too; a message's,
    which floats above, may stay as the trace gives it."""
    from conftest import HEADER, TYPES
    body = '5 i S "IDLE" "0.75 0.75 0.75"\n5 m L "msg" "0.75 0.75 0.75"\n' \
           "11 1 p1 S i\n15 1 0 L p1 m k\n16 2 0 L p2 m k\n11 3 p1 S i\n"
    tr = load(trace_file(HEADER + TYPES + body), cache=False)
    vrgb, _, notes = colors.scene_palette(tr)
    idle, msg = (tr.find("values", n)[0] for n in ("IDLE", "msg"))
    host = colors.lab(np.array(colors.KIND_RGB["host"]))
    assert colors.ciede2000(colors.lab(vrgb[idle]), host[None])[0] >= colors.MIN_DELTA_E
    assert tuple(vrgb[msg]) == (191, 191, 191)
    assert "'IDLE' like the hosts' squares" in notes[0]
