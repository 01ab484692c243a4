"""Playback of a run in the window: how `now` moves while playing, and where a
step event by event takes it (no Qt: the window's controls call these)."""
import numpy as np

#: Seconds of playback that a window takes at speed 1; the speeds offered.
PLAY_SECONDS = 20.0
SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)


def advanced(now, wall_seconds, window, speed=1.0):
    """`now` after `wall_seconds` of playback through `window` (t0, t1) at `speed`:
    (the new now, whether it reached the window's end). A now outside the window
    starts from its beginning."""
    t0, t1 = window
    if now is None or not t0 <= now < t1:
        now = t0
    new = now + (t1 - t0) / PLAY_SECONDS * speed * wall_seconds
    return (t1, True) if new >= t1 else (new, False)


def event_times(trace):
    """Every time something begins or ends (states, links, events), sorted, once."""
    st, ln, ev = trace.states, trace.links, trace.events
    return np.unique(np.concatenate([st.start, st.end, ln.start, ln.end, ev.time]))


def stepped(now, times, direction, window=None):
    """The next (`direction` 1) or previous (-1) time of `times` (sorted) after or
    before `now` (None: the window's start), kept inside `window`; `now` if none."""
    if window is not None:
        times = times[(times >= window[0]) & (times <= window[1])]
    if not len(times):
        return now
    if now is None:
        return float(times[0])
    if direction > 0:
        k = np.searchsorted(times, now, side="right")
        return float(times[k]) if k < len(times) else now
    k = np.searchsorted(times, now, side="left") - 1
    return float(times[k]) if k >= 0 else now
