"""Movie benchmarks (software OpenGL is fine), on synthetic traces built in memory
(`synth.py`) standing on a generated topology (25 switches of 10 hosts under one
core switch, so that routes have 2 to 4 hops):

- frames/s of an orbit at 1280x720 over 1e5 states drawn exactly, then through
  the level of detail (frames rendered and read back, no encoding), and a whole
  `record` to MP4 of the exact one;
- frames/s with 1e5 particles in flight (with the edges' heat) over 1e4 and 1e5
  states, with and without the message lines (1e5 messages crossing the whole
  machine bundle into some 8e4 lines, which cost more than the particles),
  unfolding or not;
- per-frame time over a 1000-frame movie (a window a tenth of the trace wide
  sliding through a trace as busy at every time, unfolding, particles, heat) at
  640x360: the mean of every hundred frames and the resident memory, which must
  stay flat;
- a whole `triva3d animate` process on the bundled example (10 s at 25 frames/s to
  MP4);
- Sigovan's event particles (`--encoding events`, panels.events): frames/s at
  1280x720 with about 1e5 particles alive over 16,384 ranks (the picture alone,
  then with its texts through VTK), and one such frame written to look at.

Usage: python benchmarks/bench_movie.py [--states 100000] [--particles 100000] [--long 1000]
       [--events-only]
"""
import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from synth import make_trace  # noqa: E402

from triva3d import View, ViewState  # noqa: E402
from triva3d.movie.frames import frame_times, record  # noqa: E402
from triva3d.movie.paths import make_path  # noqa: E402
from triva3d.scene.scene import PARTICLE_LINES  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HD = (1280, 720)


def topology(folder, n_hosts=250, per_switch=10):
    """A tree: core - 25 switches - 10 hosts each, as a .dot file."""
    lines = ["graph bench {", "  core [kind=switch];"]
    for s in range(-(-n_hosts // per_switch)):
        lines.append(f"  sw{s} [kind=switch]; core -- sw{s} [bandwidth=\"1e10\"];")
    for h in range(n_hosts):
        lines.append(f"  \"host-{h}\" [kind=host]; sw{h // per_switch} -- \"host-{h}\" "
                     f"[bandwidth=\"1e9\"];")
    path = Path(folder) / "tree.dot"
    path.write_text("\n".join(lines + ["}"]) + "\n")
    return str(path)


def rss_mb():
    with open("/proc/self/status") as f:
        return next(int(ln.split()[1]) for ln in f if ln.startswith("VmRSS")) / 1024


def rate(view, keys, fps=25):
    """Frames per second over the whole path (state applied, rendered, read back)."""
    times = []
    for s in frame_times(keys.duration, fps):
        t = time.perf_counter()
        view.state.assign(keys.state_at(s))
        view.render()
        times.append(time.perf_counter() - t)
    times = np.array(times[1:])  # the first frame compiles and fits
    return 1 / np.median(times), 1 / times.max(), times


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--states", type=float, default=1e5)
    p.add_argument("--particles", type=float, default=1e5)
    p.add_argument("--long", type=int, default=1000)
    p.add_argument("--events-only", action="store_true")
    a = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="triva3d-bench-movie-")
    events(tmp)
    if a.events_only:
        return
    topo = topology(tmp)
    base = {"topology": topo, "pattern": r"(?P<node>host-\d+)"}

    n = int(a.states)
    trace = make_trace(n, 10_000)
    for detail in ("exact", "lod"):
        t = time.perf_counter()
        view = View(trace, ViewState(**base, detail=detail), size=HD)
        keys = make_path(view, "orbit", 2.0)
        setup = time.perf_counter() - t
        median, worst, _ = rate(view, keys)
        print(f"orbit, {n:.0e} states ({detail}), 1280x720: {median:5.1f} frames/s median, "
              f"{worst:5.1f} worst (View and path made in {setup:.1f} s)")
        if detail == "exact":
            frames, size, seconds = record(view, keys, f"{tmp}/orbit.mp4", fps=25)
            print(f"  the same to MP4 (render, read back, encode): {frames / seconds:5.1f} "
                  f"frames/s, {frames} frames, {size / 1e6:.1f} MB")
        view.close()

    m = int(a.particles)
    for states, opacity, unfold in ((10_000, 0.7, False), (10_000, 0.0, False),
                                    (10_000, 0.0, True), (n, 0.0, False), (n, 0.7, False)):
        per = states / 1000  # seconds of trace: synth's states are 1 s on 1000 processes
        trace = make_trace(states, m, link_seconds=(0.8 * per, 0.85 * per))  # all in flight
        view = View(trace, ViewState(**base, particles="value", unfold=unfold, heat=True,
                                     link_opacity=opacity), size=HD)
        keys = make_path(view, "orbit", 2.0)
        keys = type(keys)([(t, s.copy(now=per * (0.4 + 0.2 * t / keys.duration)))
                           for t, s in zip(keys.times, keys.states)])
        median, worst, _ = rate(view, keys)
        g, ln, now = view.scene.geometry, trace.links, view.state.now
        rows = g.links.messages
        flying = int(((ln.start[rows] <= now) & (ln.end[rows] >= now)).sum())
        lines = (f"{len(view.scene.geometry.links.rows)} message lines at opacity "
                 f"{opacity * PARTICLE_LINES:.2f}" if opacity else "no message lines")
        print(f"{flying} particles over {states:.0e} states, {lines}, heat"
              f"{', unfolding' if unfold else ''}, 1280x720: {median:5.1f} frames/s median, "
              f"{worst:5.1f} worst")
        view.close()

    trace = make_trace(20_000, 20_000)  # as busy at every time: frames alike
    view = View(trace, ViewState(**base, particles="value", unfold=True, heat=True,
                                 window=(0, 2)), size=(640, 360))
    keys = make_path(view, "sweep", a.long / 25)
    rss0 = rss_mb()
    _, _, times = rate(view, keys)
    means = [f"{1e3 * times[i:i + 100].mean():.0f}" for i in range(0, len(times), 100)]
    print(f"{len(times) + 1} frames (2e4 states, a sweep unfolding, particles, heat, 640x360): "
          f"ms per frame by hundreds {' '.join(means)}; resident memory {rss0:.0f} -> "
          f"{rss_mb():.0f} MB")
    view.close()

    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "triva3d.cli", "animate",
                        str(ROOT / "examples/small.trace"), "--topology",
                        str(ROOT / "topologies/two_site_grid.dot"), "--mapping",
                        str(ROOT / "examples/small_on_two_site_grid.csv"), "--no-cache",
                        "--unfold", "--particles", "--heat", "--path", "orbit",
                        "-o", f"{tmp}/small.mp4"], capture_output=True, text=True)
    print(f"whole `triva3d animate` of small.trace (250 frames to MP4): "
          f"{time.perf_counter() - t:.1f} s; {r.stderr.strip().splitlines()[-1]}")


def events(tmp, ranks=16384, target=1e5):
    """Sigovan's particles: frames/s with about `target` alive over `ranks` ranks."""
    from triva3d import colors
    from triva3d.output import write_image
    from triva3d.panels.events import Canvas, Events, EventsPicture
    trace = make_trace(60 * ranks, 0, n_procs=ranks, procs_per_host=16)  # 1-s states
    t = time.perf_counter()
    ev = Events(trace, colors.value_rgb(trace), fade=target / ranks)  # ~ fade + 1 alive each
    pic = EventsPicture(ev, HD)
    setup = time.perf_counter() - t
    nows = np.linspace(20.0, 30.0, 50)
    alive = int(np.mean([len(ev.live(now)[0]) for now in nows]))
    for name, draw in (("picture", pic.draw), ("with texts (VTK)", None)):
        canvas = Canvas() if draw is None else None
        draw = draw or (lambda now: canvas.draw(pic, now))
        draw(nows[0])
        t = time.perf_counter()
        for now in nows:
            img = draw(now)
        print(f"events, {alive} particles alive on {ranks} ranks ({len(ev.rows)} events, "
              f"set up in {setup:.2f} s), {name}, 1280x720: "
              f"{len(nows) / (time.perf_counter() - t):5.1f} frames/s")
    write_image(img, f"{tmp}/events_{ranks}.png")
    print(f"  a frame to look at: {tmp}/events_{ranks}.png")
    canvas.close()


if __name__ == "__main__":
    main()
