"""Pure functions over a Trace: per-container metrics, summaries, graphs. Their
choices are here, numpy-free, for the settings that name them."""
#: How a metric aggregates up the container hierarchy (analysis.aggregate).
FUNCTIONS = ("sum", "max", "min", "mean")
#: What links add to their ends in a Time-Slice (analysis.timeslice, eqs. 4.4-4.5),
#: the columns of `Slice.links_out` and `Slice.links_in`.
LINK_MEASURES = ("count", "bytes", "time", "throughput", "rate", "peers")
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
