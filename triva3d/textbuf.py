"""Compiled writers of text into byte buffers (uint8 arrays): bytes, integers, and
doubles as Python's repr writes them (the shortest text that reads back the same).

Each writer takes the buffer and a position, and returns the position after what it
wrote; the caller makes room.
"""
import math

import numba as nb
import numpy as np

jit = nb.njit(cache=True, nogil=True)
#: Exact powers of ten as doubles (10**22 is the last exact one).
POW10 = np.array([10.0 ** i for i in range(23)])
#: `shortest` of a double it cannot write (NaN, infinities, 16 digits or more, out of
#: the exact powers' range): Python writes those.
HARD = np.int64(-1)
REPR_MAX = 24  # longest repr of a double: "-2.2250738585072014e-308"


@jit
def put(out, p, src, s, e):
    """src[s:e]."""
    n = e - s
    out[p:p + n] = src[s:e]
    return p + n


@jit
def put_uint(out, p, v):
    """Decimal digits of a non-negative int64."""
    if v == 0:
        out[p] = 48
        return p + 1
    n = 0
    x = v
    while x > 0:
        n += 1
        x //= 10
    for i in range(n - 1, -1, -1):
        out[p + i] = 48 + v % 10
        v //= 10
    return p + n


@jit
def shortest(x):
    """The fewest decimal digits m and exponent k with m / 10**k reading back as x,
    packed as m << 8 | (k + 64) << 1 | sign; HARD where that takes 16 digits or more,
    where x is not finite or |x| is beyond 1e-22 to 1e37, and where k > 22 or m's
    zeros would pass 2**53 to bring k up to -22.

    Up to 15 digits at most one m reads back as x, so it is x's 15-digit rounding
    less its trailing zeros. With m below 2**53 and |k| <= 22, m / 10**k in doubles is
    the correctly rounded value of the decimal, which is what reading it gives
    (Clinger's fast path): that checks it. (k beyond 22 is reached by scaling twice:
    the check catches a wrong last digit.)
    """
    neg = 1 if math.copysign(1.0, x) < 0 else 0
    a = abs(x)
    if a == 0.0:
        return np.int64(128 + neg)               # m = 0, k = 0
    if not (1e-22 <= a < 1e37):
        return HARD
    k = 14 - int(math.floor(math.log10(a)))     # 15 digits, or one off: log10 rounds
    for _ in range(3):
        y = a * POW10[k] if 0 <= k <= 22 else a * 1e22 * POW10[k - 22] if k > 22 \
            else a / POW10[-k]
        if y >= 1e15:
            k -= 1
        elif y < 1e14:
            k += 1
        else:
            mi = np.uint64(np.rint(y))
            while mi % np.uint64(10000) == 0:
                mi //= np.uint64(10000)
                k -= 4
            while mi % np.uint64(10) == 0:
                mi //= np.uint64(10)
                k -= 1
            m, j = np.float64(mi), k
            while j < -22 and m < 2.0 ** 53 / 10:  # m * 10**-j as (m * 10) * 10**(-j - 1)
                m *= 10.0
                j += 1
            if -22 <= j <= 22 and (m / POW10[j] if j >= 0 else m * POW10[-j]) == a:
                return (np.int64(mi) << 8) | np.int64((k + 64) << 1) | neg
            return HARD
    return HARD


@jit
def put_shortest(out, p, packed):
    """A double `shortest` packed, as Python's repr writes it: fixed notation from
    1e-4 to below 1e16 (with '.0' when integral), else d.ddde+XX."""
    if packed & 1:
        out[p] = 45
        p += 1
    m, k = packed >> 8, ((packed >> 1) & 127) - 64
    q = put_uint(out, p, m)                  # the digits, moved below where needed
    if m == 0:
        out[q] = 46
        out[q + 1] = 48
        return q + 2
    n = q - p
    point = n - k                            # digits before the decimal point
    if -4 < point <= 16:
        if point <= 0:                       # 0.000ddd
            shift = 2 - point
            out[p + shift:q + shift] = out[p:q].copy()
            out[p] = 48
            out[p + 1] = 46
            out[p + 2:p + shift] = 48
            return q + shift
        if point >= n:                       # ddd000.0
            out[q:p + point] = 48
            out[p + point] = 46
            out[p + point + 1] = 48
            return p + point + 2
        out[p + point + 1:q + 1] = out[p + point:q].copy()  # dd.ddd
        out[p + point] = 46
        return q + 1
    if n > 1:                                # d.ddd
        out[p + 2:q + 1] = out[p + 1:q].copy()
        out[p + 1] = 46
        q += 1
    out[q] = 101
    e = point - 1
    out[q + 1] = 45 if e < 0 else 43
    e = abs(e)
    if e < 10:
        out[q + 2] = 48
        q += 1
    return put_uint(out, q + 2, e)
