"""Rendering a movie: one View, a ViewState per frame from the keyframes."""
import time

import numpy as np

from ..errors import OptionsError
from . import FPS
from .encode import MovieWriter


#: The most frames a movie has (9 hours at 30 frames a second).
MAX_FRAMES = 1_000_000


def frame_times(duration, fps):
    """Seconds of each frame: round(duration * fps) frames (2 at least, MAX_FRAMES at
    most: else an OptionsError), the first at 0 and the last at `duration` (the
    first and last keyframes)."""
    n = duration * fps
    if not n <= MAX_FRAMES:
        raise OptionsError(f"a movie of {n:.3g} frames ({duration:g} s at {fps:g} frames a "
                           f"second): {MAX_FRAMES:,} at most")
    return np.linspace(0.0, duration, max(2, int(round(n))))


def record(view, keyframes, path, fps=FPS, progress=None, draw=None):
    """Render `keyframes` through `view` into `path` (.mp4, .gif or a folder), or
    through `draw(state)` (an image: another encoding than the View's scene);
    `progress(i, n)` is called after each frame (an exception it raises stops,
    and the partial file is removed). Returns (frames, bytes, seconds)."""
    t0 = time.perf_counter()
    times = frame_times(keyframes.duration, fps)
    out = None
    try:
        for i, s in enumerate(times):
            view.state.assign(keyframes.state_at(s))
            img = view.render() if draw is None else draw(view.state)
            if out is None:
                out = MovieWriter(path, (img.shape[1], img.shape[0]), fps)
            out.append(img)
            if progress:
                progress(i + 1, len(times))
    except BaseException:  # an error, a cancel, Ctrl-C: no partial movie file
        if out is not None:
            out.abort()
        raise
    return out.count, out.close(), time.perf_counter() - t0


def events_drawer(view, keyframes, size):
    """For `record(..., draw=)`: (draw(state), what it draws) of Sigovan's particles
    (panels.events) of `view`'s trace at each state's `now`, what its scene shows,
    coloured as it colours them; over the keyframes' window when they share one,
    else the whole trace."""
    from ..panels.events import Canvas, Events, EventsPicture
    windows = {s.window for s in keyframes.states}
    window = windows.pop() if len(windows) == 1 else None
    g = view.scene.geometry
    events = Events(view.trace, g.value_rgb, g.shown, window=window)
    picture, canvas = EventsPicture(events, size, window), Canvas()
    return (lambda state: canvas.draw(picture, state.now),
            f"{len(events.rows)} events on {len(events.ranks)} {events.slot_word}, "
            f"{size[0]}x{size[1]}")
