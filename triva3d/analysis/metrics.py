"""Per-container numbers computed from a Trace in one vectorized pass each."""
import numpy as np


def link_bytes(trace, rows=None):
    """Size of every link (or of the links `rows`) from its user-defined `Size` field
    (Poti's name, any case), NaN where a link has none."""
    links = trace.links
    field = next((k for k in links.extra if k.lower() == "size"), None)
    n = len(links) if rows is None else len(rows)
    if field is None:
        return np.full(n, np.nan)
    codes = links.extra[field] if rows is None else links.extra[field][rows]
    uniq, inv = np.unique(codes, return_inverse=True)
    vals = np.full(len(uniq), np.nan)
    for i, code in enumerate(uniq):
        if code >= 0:
            try:
                vals[i] = float(trace.names.display(code))
            except ValueError:
                pass
    return vals[inv]


def link_sizes(trace):
    """(links of a known size (> 0), links of none, the smallest and the largest size
    known: NaN where none is) over the whole run (Trace.whole where the trace holds
    part of it): what the traffic's unit and the size colouring scale by."""
    if trace.whole is not None:
        return trace.whole.link_sizes
    size = link_bytes(trace)
    ok = np.isfinite(size) & (size > 0)
    known = size[ok]
    return np.array([ok.sum(), (~ok).sum(), known.min() if len(known) else np.nan,
                     known.max() if len(known) else np.nan])
