"""The communication graph of a trace: who exchanges messages with whom."""

from .roles import platform_link_types


def partners(trace, containers, radius=1, window=None):
    """Mask of the containers within `radius` messages of `containers` (rows, or a
    mask; a container stands for its subtree) in the communication graph of the
    messages overlapping `window` (t0, t1; None: the whole trace), those
    containers included (Ravel's focus, section 4.2)."""
    ln = trace.links
    keep = ~platform_link_types(trace)[ln.type]
    if window is not None:
        keep &= (ln.end >= window[0]) & (ln.start <= window[1])
    a, b = ln.start_container[keep], ln.end_container[keep]
    reached = trace.subtree(containers)
    for _ in range(max(0, int(radius))):
        nxt = reached.copy()
        nxt[b[reached[a]]] = True
        nxt[a[reached[b]]] = True
        if (nxt == reached).all():
            break
        reached = nxt
    return reached
