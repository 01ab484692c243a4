"""The units a trace's times can be in (Trace.time_unit, ViewState.time_unit): a
numpy-free vocabulary that the store and the settings share."""
TIME_UNITS = ("s", "ms", "us", "ns", "cycles")
