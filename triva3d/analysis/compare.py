"""Two runs compared container by container (issue 32): the Time-Slice of each,
matched by container name (or through a mapping), and their difference.

`compare(a, b, ...)` returns a `Comparison`: per matched container (at a level,
aggregated) and value, A's number, B's, and B - A: the seconds in each state value
(exclusive time, as the treemap counts it), and per container the messages sent
(`links:count`, `links:bytes`) and the time integral of each variable type
(`variable:TYPE`); what neither run holds is left out. Windows are offsets from
each run's own start (its first state, message, variable or event), so both runs
are read from their start (None: each whole). Windows and numbers are in A's unit
of time: B's are brought to it (runs in cycles compare only with runs in cycles).
Containers found in one run only are listed, never silently dropped.
"""
import csv
from dataclasses import dataclass, field

import numpy as np

from ..errors import OptionsError, TraceError, read_text
from ..output import writing
from ..units import per
from . import time_power
from .aggregate import aggregate
from .timeslice import Slicer


def read_mapping(path):
    """{name in A: name in B} from a CSV of two columns (a header line "a,b" is
    skipped); a TraceError names the line of a bad row."""
    out = {}
    for k, row in enumerate(csv.reader(read_text(path, "the mapping").splitlines()), 1):
        if not row or (k == 1 and [c.strip().lower() for c in row] == ["a", "b"]):
            continue
        if len(row) != 2 or not all(c.strip() for c in row):
            raise TraceError(path, k, "expected two names: A's container, B's")
        out[row[0].strip()] = row[1].strip()
    return out


def run_start(trace):
    """When the run starts: its first state, message, variable piece or event (the
    containers may be created long before)."""
    firsts = [col.min() for col in (trace.states.start, trace.links.start,
                                    trace.variables.start, trace.events.time) if len(col)]
    return float(min(firsts)) if firsts else trace.start_time


#: Differences under this share of the largest number compared are rounding, not a
#: change (a run against its own conversion differs by 1e-17 s): difference_span.
ROUNDING = 1e-9


def difference_span(d, *numbers):
    """The largest finite |difference| of `d`, to which a diverging map is scaled; 0
    (no change: grey) where it is within ROUNDING of the largest finite one of the
    `numbers` compared (arrays)."""
    def largest(x):
        x = np.abs(np.asarray(x, np.float64))
        return float(x[np.isfinite(x)].max(initial=0.0))
    top = largest(d)
    return top if top > ROUNDING * max(map(largest, numbers), default=0.0) else 0.0


def from_start(trace, window, k=1.0):
    """`window`, offsets from `trace`'s start in a unit one of which makes `k` of the
    trace's, as the trace's times (None: None)."""
    t0 = run_start(trace)
    return None if window is None else (t0 + window[0] * k, t0 + window[1] * k)


def per_unit(a, b, unit=None):
    """How many of run `b`'s units of time one of run `a`'s makes: 1 where a person
    names the unit of both (`unit`, Trace.unit's override); an OptionsError where
    the two do not convert."""
    k = 1.0 if unit else per(a.unit(), b.unit())
    if k is None:
        raise OptionsError(f"{b.source}: its times are in {b.unit()}, those of "
                           f"{a.source} in {a.unit()}: the two runs cannot be compared")
    return k


def moved(window, a, b, unit=None):
    """`window` of run `a` read in run `b` from each run's start, in `b`'s unit
    (None: None; `unit`: see per_unit)."""
    if window is None:
        return None
    sa, sb, k = run_start(a), run_start(b), per_unit(a, b, unit)
    return (sb + (window[0] - sa) * k, sb + (window[1] - sa) * k)


def _numbers(trace, window, level, how, k=1.0):
    """{container name: {what: number}} at `level` of `trace` in `window` (offsets
    from the run's start), both in a unit one of which makes `k` of the trace's."""
    sl = Slicer(trace).slice(from_start(trace, window, k))
    cols, names = [], []
    values = sl.slicer.state_values
    for v in sorted({trace.display_name("values", int(x)) for x in values}):
        cols.append((f"state:{v}", sl.metric(f"state:{v}")))
        names.append(v)
    if len(trace.links):
        for m in ("count", "bytes") if sl.slicer.has_sizes else ("count",):
            cols.append((f"links:{m}", sl.metric(f"links:{m}")))
            names.append(f"links:{m}")
    present = set(np.unique(trace.variables.type).tolist())
    for t in [t for t in sl.slicer.variable_types.tolist() if t in present]:
        name = trace.display_name("types", t)
        cols.append((f"variable:{name}", sl.metric(f"variable:{name}")))
        names.append(f"variable:{name}")
    rows = trace.level(level)
    out = {}
    for (metric, (v, carriers)), what in zip(cols, names):
        agg = aggregate(trace, v, carriers, how) / k ** time_power(metric)
        for r in rows.tolist():
            if not np.isnan(agg[r]):
                out.setdefault(trace.display_name("containers", r), {})[what] = float(agg[r])
    for r in rows.tolist():
        out.setdefault(trace.display_name("containers", r), {})
    return out


@dataclass
class Comparison:
    """Rows (container, what, a, b, b - a) of two runs, and the containers of each
    run that the other lacks; `unit`, A's unit of time, in which the numbers are."""
    rows: list
    only_a: list = field(default_factory=list)
    only_b: list = field(default_factory=list)
    unit: str = "s"

    def unit_of(self, what):
        """The unit of `what`'s numbers: a time, links, bytes or a value x time."""
        if what.startswith("variable:"):
            return f"value x {self.unit}"
        return {"links:count": "links", "links:bytes": "bytes"}.get(what, self.unit)

    def write_csv(self, path):
        with writing(path, newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["container", "value", "a", "b", "difference", "unit"])
            w.writerows((c, v, repr(a), repr(b), repr(d), self.unit_of(v))
                        for c, v, a, b, d in self.rows)

    def largest(self, what, n=5):
        """The `n` containers whose `what` grew most from A to B: (container, b - a)."""
        hits = sorted(((c, d) for c, v, _, _, d in self.rows if v == what),
                      key=lambda cd: -cd[1])
        return hits[:n]

    def notes(self):
        out = []
        for who, names in (("A", self.only_a), ("B", self.only_b)):
            if names:
                out.append(f"{len(names)} containers only in {who}: "
                           + ", ".join(names[:5]) + (" ..." if len(names) > 5 else ""))
        return out


def compare(a, b, window=None, level=None, how="sum", mapping=None):
    """The Comparison of traces `a` and `b` (see the module)."""
    if window is not None and window[1] < window[0]:
        raise OptionsError(f"time window {window[0]:g}:{window[1]:g} ends before it starts")
    na, nb = _numbers(a, window, level, how), _numbers(b, window, level, how, per_unit(a, b))
    to_b = {name: (mapping or {}).get(name, name) for name in na}
    missing = [m for m in (mapping or {}).values() if m not in nb]
    if missing:
        raise OptionsError(f"{b.source}: the mapping names {missing[0]!r}, which B does "
                           "not hold at this level")
    rows = []
    for name, numbers in na.items():
        other = nb.get(to_b[name])
        if other is None:
            continue
        for what in sorted(set(numbers) | set(other)):
            x, y = numbers.get(what, 0.0), other.get(what, 0.0)
            if x or y:  # (nothing in either: nothing to compare)
                rows.append((name, what, x, y, y - x))
    matched = {to_b[n] for n in na if to_b[n] in nb}
    return Comparison(rows, only_a=[n for n in na if to_b[n] not in nb],
                      only_b=[n for n in nb if n not in matched], unit=a.unit())
