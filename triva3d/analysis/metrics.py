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
