"""Sigovan's event particles (issue 33): heights, fading, the history's tone
mapping, colours and segments worked out by hand, and the five patterns of their
Fig. 5 generated and recognised."""
import subprocess
import sys

import numpy as np
import pytest

from triva3d import colors, load
from triva3d.errors import OptionsError
from triva3d.generate import sigovan, write
from triva3d.panels.events import MAX_COLOURS, O_MIN, Events, EventsPicture

# Two hosts, a rank on each; rank A sends for 10 ms from 0, rank B for 0.1 ms from
# 1 ms and 1 ms from 2 ms; A computes (not an MPI call: not an event).
TWO = """\
0 H 0 "Host"
0 R H "Rank"
2 S R "State"
5 c S "compute" "0 0 1"
5 s S "MPI_Send" "1 0 0"
5 w S "MPI_Wait" "1 1 0"
6 0 h1 H 0 "h1"
6 0 h2 H 0 "h2"
6 0 a R h1 "A"
6 0 b R h2 "B"
12 0 a S s
12 0.001 b S w
13 0.0011 b S
12 0.002 b S w
13 0.003 b S
13 0.01 a S
12 0.01 a S c
13 0.02 a S
"""


def test_heights_fade_and_segments(paje):
    """The floor is the shortest event (0.1 ms), the ceiling the longest (10 ms): at
    0.5 ms of age A's particle stands at log(5)/log(100) of the plot; after its end
    it fades over `fade` and is gone. Segments are the hosts."""
    tr = paje(TWO, types="")
    ev = Events(tr, colors.value_rgb(tr), fade=0.004)
    assert len(ev.rows) == 3 and (ev.floor, ev.ceiling) == pytest.approx((1e-4, 1e-2))
    assert [name for _, name in ev.segments] == ["h1", "h2"]
    i, height, alpha = ev.live(0.0005)
    assert ev.slot[i].tolist() == [0] and height[0] == pytest.approx(np.log(5) / np.log(100))
    i, height, alpha = ev.live(0.012)  # A ended 2 ms ago: half faded, at the ceiling
    a = i[ev.slot[i] == 0]
    assert height[ev.slot[i] == 0] == pytest.approx([1.0]) and alpha[ev.slot[i] == 0] == \
        pytest.approx([0.5]) and len(a) == 1
    assert 0 not in ev.slot[ev.live(0.0141)[0]].tolist()  # gone
    keys = [name for name, _ in ev.keys]
    assert keys == ["MPI_Wait", "MPI_Send"]  # the most frequent first


def test_the_history_is_tone_mapped_and_clears(paje):
    """The history gathers where particles rise, not where they rest fading: with
    the particles gone, each pixel A's particle climbed through shows P = C (O_MIN +
    (1 - O_MIN) ln D / ln D_max) over the background, one visited once O_MIN of the
    way; the pixel visited most, its colour in full; clear() empties it."""
    tr = paje(TWO, types="")
    ev = Events(tr, colors.value_rgb(tr), fade=0.004)
    pic = EventsPicture(ev, (640, 360))
    empty = pic.draw(1.0, record=False)
    a = np.flatnonzero(ev.slot == 0)[0]
    for now in np.linspace(0.0, 0.01, 150):
        pic.draw(float(now))
    rested = pic.count.sum()
    for now in np.linspace(0.0101, 0.0139, 50):  # everything ended: fading only
        pic.draw(float(now))
    assert pic.count.sum() == rested
    img = pic.draw(1.0, record=False)  # long after: history alone
    x = pic.x[a]
    top = pic._y(np.array([1.0]))[0]
    send = ev.palette[ev.colour[a]].astype(float)

    def shown(row):  # P = C (O_min + (1 - O_min) ln D / ln D_max) over the background
        d = pic.count[row - pic.y0, x - pic.x0]
        p = O_MIN + (1 - O_MIN) * np.log(d) / np.log(pic.count.max())
        bg = empty[row, x].astype(float)
        return bg + (send - bg) * p
    top = min(r for r in range(pic.y0, pic.y1) if pic.count[r - pic.y0, x - pic.x0] > 1)
    assert np.abs(img[top, x] - shown(top)).max() <= 1
    rows = [r for r in range(top + pic.dot, pic.y1) if pic.count[r - pic.y0, x - pic.x0] == 1]
    assert rows, "the climb visits pixels once"
    bg = empty[rows[0], x].astype(float)
    assert np.abs(img[rows[0], x] - (bg + (send - bg) * O_MIN)).max() <= 1
    r, c = np.unravel_index(np.argmax(pic.count), pic.count.shape)  # D = D_max: C in full
    mean = pic.colour_sum[r, c] / pic.count[r, c]
    assert np.abs(img[pic.y0 + r, pic.x0 + c] - mean).max() <= 1
    pic.clear()
    assert np.array_equal(pic.draw(1.0, record=False), empty)


def test_a_picked_particle_is_its_state_and_colours_are_capped(paje):
    tr = paje(TWO, types="")
    ev = Events(tr, colors.value_rgb(tr))
    pic = EventsPicture(ev, (640, 360))
    i, x, y, _ = pic.particles(0.0005)
    assert pic.pick(x[0] + 1, y[0] + 1, 0.0005) == int(ev.rows[i[0]])
    assert pic.pick(5, 5, 0.0005) is None
    many = "".join(f'5 v{k} S "MPI_Call{k}" "0.5 0.5 0.5"\n' for k in range(30))
    many += "".join(f"12 {k} a S v{k}\n13 {k + 0.5} a S\n" for k in range(30))
    tr = paje(TWO.split("12 0 a S s")[0] + many, types="")
    ev = Events(tr, colors.value_rgb(tr))
    assert len(ev.palette) == MAX_COLOURS and ev.keys[-1][0] == "6 other calls"
    assert (ev.colour == MAX_COLOURS - 1).sum() == 6


@pytest.mark.parametrize("shape", ["horizontal", "noisy", "slanted", "logarithmic",
                                   "disparate"])
def test_the_five_patterns_of_sigovan_fig_5(shape, tmp_path):
    """Where each rank's MPI_Waitall particle stops (its height at its end), read
    back from the generated Pajé file: a line (horizontal), a scatter (noisy), a
    straight slope across the ranks (slanted), a curve flattening (logarithmic),
    two bands far apart (disparate)."""
    path = tmp_path / f"{shape}.trace"
    write(sigovan(shape, ranks=64, iterations=3), path)
    tr = load(path, cache=False)
    ev = Events(tr, colors.value_rgb(tr))
    wait = np.array([tr.display_name("values", int(v)) == "MPI_Waitall"
                     for v in tr.states.value[ev.rows]])
    first = wait & (ev.start < ev.start[wait].min() + 1e-9)  # the first iteration
    h = ev.height(ev.end[first] - ev.start[first])[np.argsort(ev.slot[first])]
    r = np.arange(64)
    if shape == "horizontal":
        assert np.ptp(h) < 0.02
    elif shape == "noisy":
        assert np.ptp(h) > 0.4 and abs(np.corrcoef(r, h)[0, 1]) < 0.3
    elif shape == "slanted":
        assert np.corrcoef(r, h)[0, 1] > 0.9999 and h[-1] - h[0] > 0.3
    elif shape == "logarithmic":
        steps = np.diff(h)
        assert (steps > 0).all() and steps[0] > 10 * steps[-1]  # steep, then flat
    else:
        slow = (r // 16) % 4 == 3
        assert h[slow].min() - h[~slow].max() > 0.3 and np.ptp(h[~slow]) < 1e-9


def test_animate_events_writes_frames_and_refuses_no_events(tmp_path, paje):
    path = tmp_path / "s.trace"
    write(sigovan("slanted", ranks=32, iterations=2), path)
    out = tmp_path / "f"
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "animate", str(path),
                        "--encoding", "events", "--duration", "1", "--fps", "4", "--size",
                        "480x320", "-o", f"{out}/"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert len(list(out.glob("*.png"))) == 4 and "events on 32 ranks" in r.stderr
    tr = paje('5 x S "x" "1 0 0"\n12 0 p1 S x\n13 1 p1 S\n12 2 p2 S x\n13 2 p2 S\n')
    nothing = (np.zeros(len(tr.values), bool), np.ones(len(tr.containers), bool))
    with pytest.raises(OptionsError, match="no events to draw"):
        Events(tr, colors.value_rgb(tr), shown=nothing)
    p2 = tr.containers.name != tr.containers.name  # only P2's: an instant, no scale
    p2[tr.find("containers", "P2")] = True
    ev = Events(tr, colors.value_rgb(tr), shown=(~nothing[0], p2))
    assert ev.instants and EventsPicture(ev, (480, 320)).grid() == []
    texts = [t[2] for t in EventsPicture(ev, (480, 320)).texts(2.0)]
    assert "all instants" in texts and not any(t.startswith("max") for t in texts)
    bad = subprocess.run([sys.executable, "-m", "triva3d.cli", "animate", str(path),
                          "--encoding", "events", "--morph", "-o", f"{out}/"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "not with --encoding events" in bad.stderr


def test_playback_moves_now_through_the_window_and_steps_event_by_event():
    from triva3d.movie.playback import PLAY_SECONDS, advanced, stepped
    assert advanced(None, 0.0, (10.0, 30.0)) == (10.0, False)  # from the start
    assert advanced(10.0, 1.0, (10.0, 30.0), speed=2.0) == (10.0 + 20 / PLAY_SECONDS * 2, False)
    assert advanced(29.9, 5.0, (10.0, 30.0)) == (30.0, True)  # stops at the end
    times = np.array([1.0, 2.0, 4.0, 8.0])
    assert stepped(None, times, 1) == 1.0
    assert stepped(2.0, times, 1) == 4.0 and stepped(2.0, times, -1) == 1.0
    assert stepped(3.0, times, -1) == 2.0 and stepped(8.0, times, 1) == 8.0
    assert stepped(1.5, times, 1, window=(3.0, 5.0)) == 4.0
