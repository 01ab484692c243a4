"""Pure functions over a Trace: per-container metrics, summaries, graphs."""
