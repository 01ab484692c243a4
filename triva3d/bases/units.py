"""Quantities with units, as SimGrid platform files write them.

Bandwidths come back in bytes per second, latencies in seconds, speeds in flop/s.
A bare number is taken in those base units.
"""
import re

_NUMBER = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z/]*)\s*$")
_PREFIX = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
           "Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50, "Ei": 2.0**60}
_TIME = {"w": 604800.0, "d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3,
         "us": 1e-6, "ns": 1e-9, "ps": 1e-12}


def _split(text, what):
    m = _NUMBER.match(str(text))
    if not m:
        raise ValueError(f"{what} {text!r} is not a number with a unit")
    return float(m.group(1)), m.group(2)


def _checked(value, text, what):
    """`value` (of `text`, in base units) where finite and at least 0 (a link of
    negative bandwidth drew a wrong width), else ValueError."""
    if not 0 <= value < float("inf"):
        raise ValueError(f"{what} {text!r} is not a finite number at least 0")
    return value


def _prefixed(text, what, units):
    value, unit = _split(text, what)
    if unit == "":
        return _checked(value, text, what)
    for base, factor in units.items():
        if unit.endswith(base) and unit[:len(unit) - len(base)] in _PREFIX:
            return _checked(value * factor * _PREFIX[unit[:len(unit) - len(base)]], text,
                            what)
    raise ValueError(f"{what} {text!r} has an unknown unit {unit!r}")


def bandwidth(text):
    """Bytes per second from '125MBps', '1.25E9Bps', '10Gbps' (bits), '1e8'."""
    return _prefixed(text, "bandwidth", {"Bps": 1.0, "bps": 0.125})


def speed(text):
    """Flop/s from '1Gf', '98.095Mf', '1e9'."""
    return _prefixed(text, "speed", {"f": 1.0})


def latency(text):
    """Seconds from '50us', '1.0E-4s', '2ms', '0'."""
    value, unit = _split(text, "latency")
    if unit not in _TIME and unit != "":
        raise ValueError(f"latency {text!r} has an unknown unit {unit!r}")
    return _checked(value * _TIME.get(unit, 1.0), text, "latency")
