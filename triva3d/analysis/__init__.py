"""Pure functions over a Trace: per-container metrics, summaries, graphs. Their
choices are here, numpy-free, for the settings that name them."""
#: How a metric aggregates up the container hierarchy (analysis.aggregate).
FUNCTIONS = ("sum", "max", "min", "mean")
#: What a Time-Slice treemap's cells are (panels.treemap).
CELLS = ("state", "variable", "link", "event")
