"""`triva3d stats`: a summary of a Trace a person can read (or JSON)."""
import numpy as np

from .trace import Kind, report_line

KIND_NAME = {Kind.CONTAINER: "container", Kind.STATE: "state", Kind.EVENT: "event",
             Kind.VARIABLE: "variable", Kind.LINK: "link"}
SHOWN_VALUES = 20
TABLE = {Kind.STATE: "states", Kind.EVENT: "events", Kind.VARIABLE: "variables",
         Kind.LINK: "links"}


def summary(trace, load_seconds=None, time_unit=None):
    """Counts per type and per value, time span, memory, recoveries: a JSON-able
    dict, saying the unit its times are in: `time_unit`, else the trace's (Trace.unit).
    Of a part of a run (Trace.whole: a store's skeleton), the whole run's."""
    nt = len(trace.types)
    per_type, value_count, value_time, deepest = _tallies(trace)
    rows = {t: int(per_type[k].sum()) for t, k in (("states", Kind.STATE), ("variables",
            Kind.VARIABLE), ("links", Kind.LINK), ("events", Kind.EVENT))}
    by_type = np.argsort(trace.values.type, kind="stable")  # the values of each type
    first = np.searchsorted(trace.values.type[by_type], np.arange(nt + 1))
    names = trace.names.displays(trace.types.name)
    value_names = trace.names.displays(trace.values.name)
    kinds, parents = trace.types.kind.tolist(), trace.types.parent.tolist()
    types = []
    for ty in range(nt):
        kind = kinds[ty]
        entry = {"name": names[ty], "kind": KIND_NAME[kind], "parent": parents[ty],
                 "count": int(per_type[kind][ty])}
        if kind in (Kind.STATE, Kind.EVENT, Kind.LINK):
            counts = value_count[TABLE[kind]]
            entry["values"] = [
                {"name": value_names[v], "count": int(counts[v]),
                 **({"time": float(value_time[v])} if kind == Kind.STATE else {})}
                for v in by_type[first[ty]:first[ty + 1]].tolist()]
        if kind == Kind.STATE and per_type[kind][ty]:
            entry["max_imbrication"] = int(deepest[ty])
        types.append(entry)
    return {
        "source": trace.source,
        "start": trace.start_time, "end": trace.end_time, "time_unit": trace.unit(time_unit),
        "counts": {"containers": len(trace.containers) - 1, **rows, "types": nt - 1},
        "types": types,
        "memory_bytes": _nbytes(trace, rows),
        "load_seconds": load_seconds,
        "from_cache": trace.from_cache,
        "from_store": trace.whole is not None,  # (its small tables: no entity read)
        "recoveries": [{"what": w, "count": n, "first": first} for w, n, first in trace.report],
        "other_records": dict(sorted(trace.other_records.items())),
    }


def _nbytes(trace, rows):
    """The bytes of `trace` with `rows` entities per table (a part: as many as the
    whole run has)."""
    return int(trace.nbytes) + sum(
        (n - len(t)) * sum(c.dtype.itemsize for c in (*t.columns.values(), *t.extra.values()))
        for t, n in ((getattr(trace, table), n) for table, n in rows.items()))


def _tallies(trace):
    """(per kind: its entities per type; per table: its entities per value; seconds in
    states per value; deepest imbrication per type) of the whole run (Trace.whole
    where the trace holds part of it)."""
    nt, nv = len(trace.types), len(trace.values)
    per_type = {Kind.CONTAINER: np.bincount(trace.containers.type, minlength=nt)}
    w = trace.whole
    if w is not None:
        for kind in TABLE:
            per_type[kind] = np.where(trace.types.kind == kind, w.type_counts, 0)
        counts = dict(zip(("states", "links", "events"), w.value_counts.T))
        return per_type, counts, w.value_seconds, w.type_deepest
    for kind, table in TABLE.items():
        per_type[kind] = np.bincount(getattr(trace, table).type, minlength=nt)
    counts = {t: np.bincount(getattr(trace, t).value, minlength=nv)
              for t in ("states", "events", "links")}
    st = trace.states
    seconds = np.bincount(st.value, weights=st.end - st.start, minlength=nv) if len(st) \
        else np.zeros(nv)
    return per_type, counts, seconds, deepest(st.type, st.imbrication, nt)


def deepest(types, imbrication, n_types):
    """The deepest imbrication of each type (-1: none), from the (type, imbrication)
    pairs present, in increasing order: each type's last is its deepest (a count per
    pair where they are fewer than the states, else a sort; no numba, whose start-up
    of 0.8 s would be most of a summary read from the cache)."""
    out = np.full(n_types, -1, np.int64)
    if len(types) == 0:
        return out
    levels = int(imbrication.max()) + 1
    key = types.astype(np.int64) * levels + imbrication
    pairs = np.flatnonzero(np.bincount(key)) if n_types * levels <= 4 * len(key) + 65536 \
        else np.unique(key)
    ty = pairs // levels
    last = np.append(ty[1:] != ty[:-1], True)
    out[ty[last]] = pairs[last] % levels
    return out


def _bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


#: Deeper levels of the type hierarchy are indented as this deep, their depth written
#: (an indentation as deep as a 1e5-level chain would print 1e10 spaces).
MAX_INDENT = 24


def _indent(depth):
    if depth <= MAX_INDENT:
        return "  " * depth
    return "  " * MAX_INDENT + f"[{depth}] "


def render(s):
    """The summary as indented text."""
    c, unit = s["counts"], s["time_unit"]
    lines = [f"trace      {s['source']}",
             f"time span  {s['start']:.9g} .. {s['end']:.9g} {unit} "
             f"({s['end'] - s['start']:.9g} {unit})",
             f"entities   {c['containers']} containers, {c['states']} states, "
             f"{c['variables']} variable pieces, {c['links']} links, {c['events']} events",
             f"memory     {_bytes(s['memory_bytes'])}"]
    if s["load_seconds"] is not None:
        how = "from its store's tables" if s.get("from_store") else \
            "from cache" if s["from_cache"] else "parsed"
        lines.append(f"load time  {s['load_seconds']:.3f} s ({how})")
    lines.append("hierarchy  (type: kind, count)")
    children = {}
    for i, t in enumerate(s["types"]):
        children.setdefault(t["parent"], []).append(i)

    stack = [(0, 0)]  # depth first, without recursion: hierarchies can be 1000s deep
    while stack:
        i, depth = stack.pop()
        t = s["types"][i]
        label = "root" if i == 0 else f"{t['name']}: {t['kind']}, {t['count']}"
        if "max_imbrication" in t:
            label += f", max imbrication {t['max_imbrication']}"
            if t["max_imbrication"] > 0:  # (the treemap's and compare's are exclusive)
                label += " (times inclusive: a nested state's also in its parents')"
        lines.append(_indent(depth + 1) + label)
        values = sorted(t.get("values", []), key=lambda v: -v["count"])
        for v in values[:SHOWN_VALUES]:
            extra = f", {v['time']:.6g} {unit}" if "time" in v else ""
            lines.append(_indent(depth + 3) + f"{v['name']}: {v['count']}{extra}")
        if len(values) > SHOWN_VALUES:
            lines.append(_indent(depth + 3) + f"... {len(values) - SHOWN_VALUES} more values "
                                              "(the JSON summary lists all)")
        stack.extend((ch, depth + 1) for ch in reversed(children.get(i, [])))
    if s.get("other_records"):
        lines.append("records not drawn  " + ", ".join(f"{k} {v}"
                                                       for k, v in s["other_records"].items()))
    if s["recoveries"]:
        lines.append("reported (what the lenient mode recovered from, and remarks on the input)")
        for r in s["recoveries"]:
            lines.append(f"  {report_line(r['what'], r['count'], r['first'])}")
    return "\n".join(lines) + "\n"
