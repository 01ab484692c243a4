"""The units a trace's times can be in (Trace.time_unit, ViewState.time_unit): a
numpy-free vocabulary that the store and the settings share."""
TIME_UNITS = ("s", "ms", "us", "ns", "cycles")
#: Seconds in one of each unit of time (cycles have none).
SECONDS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


#: The power of ten of a second in each unit (per: exact powers of ten).
_POWER = {"s": 0, "ms": -3, "us": -6, "ns": -9}


def per(unit, other):
    """How many `other` one `unit` makes (1.0 for the same unit; 1000.0 for us in
    ns, exactly); None where the two do not convert (cycles against seconds)."""
    if unit == other:
        return 1.0
    if unit in _POWER and other in _POWER:
        return 10.0 ** (_POWER[unit] - _POWER[other])
    return None
