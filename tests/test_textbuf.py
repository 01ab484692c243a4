"""The compiled number writer against Python's repr: the same text, or HARD."""
import math
import struct
from decimal import Decimal

import numba as nb
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from triva3d.textbuf import HARD, REPR_MAX, put_shortest, shortest


@nb.njit
def _text(x):
    out = np.zeros(REPR_MAX, np.uint8)
    packed = shortest(x)
    return out[:0] if packed == HARD else out[:put_shortest(out, 0, packed)]


def written(x):
    """Whether `shortest` must write x: finite, 1e-22 <= |x| < 1e37, its repr has at
    most 15 digits D and an exponent k (x = D / 10**k) with k <= 22 and k >= -22 or
    D's zeros below 2**53 (Clinger's fast path can check it)."""
    if x == 0 or not math.isfinite(x):
        return x == 0
    if not 1e-22 <= abs(x) < 1e37:
        return False
    _, digits, exp = Decimal(repr(x)).normalize().as_tuple()
    d, k = int("".join(map(str, digits))), -exp
    return len(digits) <= 15 and k <= 22 and (k >= -22 or d * 10 ** (-k - 22) < 2 ** 53)


def check(x):
    """The same text as repr where it must be written, else HARD."""
    text = bytes(_text(x)).decode()
    assert text == (repr(x) if written(x) else ""), repr(x)


EDGES = [0.0, -0.0, 1.0, -1.0, 0.1, 0.3, 2 / 3, 100.0, 1234.5, 17.621267, 1e-4, 1e-5,
         0.00012, 9.9999e-5, 1e15, 1e16, 123456789012345.0, 999999999999999.0,
         9999999999999998.0, 1e22, 1e23, 1e36, 1.5e-7, 1e-22, 5e-324, 2.2250738585072014e-308,
         1.7976931348623157e308, math.nan, math.inf, -math.inf, 0.1 + 0.2, 3e-05, 1e-06]


def test_edges():
    for x in EDGES:
        check(x)
    for x in (0.0, -0.0, 17.621267, 1e16, 1e-5, 123456789012345.0, 1e36, 1e23, 1e-22):
        assert written(x), x


@settings(max_examples=3000, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_any_double(x):
    check(x)


@settings(max_examples=2000, deadline=None)
@given(st.integers(0, 2 ** 64 - 1))
def test_any_bit_pattern(bits):
    check(struct.unpack("<d", struct.pack("<Q", bits))[0])


@settings(max_examples=2000, deadline=None)
@given(st.integers(-10 ** 15 + 1, 10 ** 15 - 1), st.integers(-40, 40))
def test_decimals_of_up_to_15_digits(m, e):
    """Times as traces write them (a few decimals): always written here."""
    x = float(f"{m}e{e}")
    check(x)
