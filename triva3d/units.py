"""The units a trace's times can be in (Trace.time_unit, ViewState.time_unit): a
numpy-free vocabulary that the store and the settings share."""
TIME_UNITS = ("s", "ms", "us", "ns", "cycles")
#: Seconds in one of each unit of time (cycles have none).
SECONDS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def per(unit, other):
    """How many `other` one `unit` makes (1.0 for the same unit); None where the
    two do not convert (cycles against a unit of seconds)."""
    if unit == other:
        return 1.0
    if unit in SECONDS and other in SECONDS:
        return SECONDS[unit] / SECONDS[other]
    return None
