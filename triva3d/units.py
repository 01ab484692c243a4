"""The units a trace's times can be in (Trace.time_unit, ViewState.time_unit): a
numpy-free vocabulary that the store and the settings share."""
TIME_UNITS = ("s", "ms", "us", "ns", "cycles")
#: Seconds in one of each unit of time (cycles have none).
SECONDS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
