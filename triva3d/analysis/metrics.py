"""Per-container numbers computed from a Trace in one vectorized pass each."""
import numpy as np




def link_bytes(trace):
    """Size of every link from its user-defined `Size` field (Poti's name, any case),
    NaN where a link has none."""
    links = trace.links
    field = next((k for k in links.extra if k.lower() == "size"), None)
    out = np.full(len(links), np.nan)
    if field is None:
        return out
    codes = links.extra[field]
    uniq, inv = np.unique(codes, return_inverse=True)
    vals = np.full(len(uniq), np.nan)
    for i, code in enumerate(uniq):
        if code >= 0:
            try:
                vals[i] = float(trace.names.display(code))
            except ValueError:
                pass
    return vals[inv]


def container_metric(trace, metric="containers"):
    """One float per container over the whole trace, for its own entities only (no
    descendants): any Time-Slice metric name (see analysis.timeslice), e.g.
    `containers` (1 per leaf), `state:VALUE` seconds, `links:count`, `links:bytes`
    (as origin), `variable:TYPE` time integral."""
    from .timeslice import Slicer
    return Slicer(trace).slice().metric(metric)[0]
