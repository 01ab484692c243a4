"""Per-container numbers computed from a Trace in one vectorized pass each."""
import numpy as np

from ..errors import TraceError

#: Metric names accepted by `container_metric` (VALUE / TYPE are trace names).
METRICS = ("containers", "state:VALUE", "links:count", "links:bytes", "variable:TYPE")


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


def _named(trace, kind_table, name, what):
    """Indices of the types (or values) whose display name is `name`."""
    table = trace.types if kind_table == "types" else trace.values
    hits = [i for i in range(len(table)) if trace.names.display(table.name[i]) == name]
    if not hits:
        raise TraceError(trace.source, None, f"no {what} named {name!r} in the trace")
    return np.array(hits)


def container_metric(trace, metric="containers"):
    """One float per container, for its own entities only (no descendants):
    `containers` 1 for each leaf container; `state:VALUE` seconds spent in that
    state value (nested states included); `links:count` / `links:bytes` links sent
    (as origin) and their Size; `variable:TYPE` time integral of the variable."""
    cont = trace.containers
    n = len(cont)
    kind, _, arg = metric.partition(":")
    if metric == "containers":
        out = np.ones(n)
        out[cont.parent[cont.parent >= 0]] = 0.0
        return out
    if kind == "state" and arg:
        st = trace.states
        sel = np.isin(st.value, _named(trace, "values", arg, "state value"))
        return np.bincount(st.container[sel], weights=(st.end - st.start)[sel], minlength=n)
    if metric == "links:count":
        return np.bincount(trace.links.start_container, minlength=n).astype(np.float64)
    if metric == "links:bytes":
        size = link_bytes(trace)
        if np.isnan(size).all() and len(size):
            raise TraceError(trace.source, None, "the trace's links carry no Size field")
        return np.bincount(trace.links.start_container, weights=np.nan_to_num(size), minlength=n)
    if kind == "variable" and arg:
        var = trace.variables
        sel = np.isin(var.type, _named(trace, "types", arg, "variable type"))
        return np.bincount(var.container[sel], weights=(var.value * (var.end - var.start))[sel],
                           minlength=n)
    raise TraceError(trace.source, None, f"unknown metric {metric!r} "
                     f"(expected one of {', '.join(METRICS)})")
