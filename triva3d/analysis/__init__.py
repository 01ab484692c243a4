"""Pure functions over a Trace: per-container metrics, summaries, graphs. Their
choices are here, numpy-free, for the settings that name them."""
#: How a metric aggregates up the container hierarchy (analysis.aggregate).
FUNCTIONS = ("sum", "max", "min", "mean")
#: What links add to their ends in a Time-Slice (analysis.timeslice, eqs. 4.4-4.5),
#: the columns of `Slice.links_out` and `Slice.links_in`.
LINK_MEASURES = ("count", "bytes", "time", "throughput", "rate", "peers")
#: The power of time in each link measure's unit (count: links, bytes, time: s,
#: throughput and rate: bytes/s, peers), as time_power says of a metric.
LINK_TIME_POWER = {"count": 0, "bytes": 0, "time": 1, "throughput": -1, "rate": -1,
                   "peers": 0}
#: The kinds of a metric KIND:ARG (`timeslice.Slice.metric`), besides `containers`
#: and `ratio:A/B` of two metrics; `links` and `links_in` take a LINK_MEASURES.
METRIC_KINDS = ("state", "state%", "variable", "variable_mean", "links", "links_in",
                "events")


def metric_parts(name):
    """(kind, arg) of the metric `name`, spelled as Slice.metric reads it (whether
    the value or type it names is in a trace is the trace's to say); OptionsError
    for any other spelling."""
    kind, _, arg = name.partition(":")
    if kind == "ratio" and "/" in arg:
        a, _, b = arg.rpartition("/")
        metric_parts(a), metric_parts(b)
    elif not (name == "containers" or (kind in METRIC_KINDS and arg and (
            kind not in ("links", "links_in") or arg in LINK_MEASURES))):
        from ..errors import OptionsError
        raise OptionsError(f"unknown metric {name!r}: containers, state:VALUE, "
                           "state%:VALUE, variable:TYPE, variable_mean:TYPE, links:M, "
                           f"links_in:M (M: {', '.join(LINK_MEASURES)}), events:VALUE or "
                           "ratio:A/B")
    return kind, arg


def time_power(name):
    """The power of time in metric `name`'s unit (a state's seconds: 1, a count: 0,
    bytes per second: -1): its numbers scale by a unit's ratio to that power."""
    kind, arg = metric_parts(name)
    if kind == "ratio":
        a, _, b = arg.rpartition("/")
        return time_power(a) - time_power(b)
    if kind in ("links", "links_in"):
        return LINK_TIME_POWER[arg]
    return 1 if kind in ("state", "variable") else 0


#: How a state's time counts the states nested in it (analysis.timeslice).
NESTED = ("exclusive", "inclusive")
#: What a Time-Slice treemap's cells are (panels.treemap): `link` is bytes where the
#: links have sizes, else count.
CELLS = ("state", "variable", "link", "event") + tuple(f"link:{m}" for m in LINK_MEASURES)
#: What colours the states (analysis.colorby): their value, or a metric along a
#: colour ramp, fixed or named after a prefix ("variable:TYPE", "slice:METRIC",
#: "difference:METRIC": B - A of a Time-Slice value, with a second run).
COLOR_BY = ("value", "lateness", "duration")
COLOR_BY_NAMED = ("variable", "slice", "difference")
#: What a rule of --variables does to a variable type, besides naming the type its
#: values are relative to (analysis.roles).
VARIABLE_RULES = ("capacity", "hide", "max")
#: How a module's node of the super graph can be split (analysis.supergraph).
SPLITS = ("entry", "callers")
