"""2D panels: the Time-Slice treemap."""
